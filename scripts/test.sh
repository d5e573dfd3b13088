#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run the whole suite.
# Used verbatim by CI (.ci/run) and given in the README. Every argument goes to pytest
# (e.g. -q, -x, a test path), except --fast, which this script consumes: the fast tier,
# the suite without its longest tests (CONTRIBUTING.md, The fast tier and the full suite).
set -euo pipefail
cd "$(dirname "$0")/.."

FAST=0
PYTEST_ARGS=()
for arg in "$@"; do
  if [ "$arg" = "--fast" ]; then FAST=1; else PYTEST_ARGS+=("$arg"); fi
done

# The fast tier leaves out the tests marked slow or browser, and these long files and tests
# (each a minute or more of solving, fuzzing, real processes or reference LPs on 2 cores).
# CI runs everything.
FAST_ARGS=(
  -m "not slow and not browser"
  --ignore=tests/deploy
  --ignore=tests/fuzz
  --ignore=tests/research/test_openspiel.py
  --ignore=tests/research/test_ray.py
  --ignore=tests/research/test_pettingzoo_suite.py
  --ignore=tests/research/test_env_fuzz.py
  --ignore=tests/research/test_protocol_processes.py
  --ignore=tests/research/test_mcts.py
  --ignore=tests/solver/test_solver_openspiel.py
  --ignore=tests/solver/test_backends.py
  --ignore=tests/solver/test_low_layers.py
  --ignore=tests/web/test_fuzz.py
  --ignore=tests/golf/test_tui_pty.py
  --deselect=tests/solver/test_lean.py::test_skipped_states_are_exactly_the_pots_no_game_can_hold
  # the longest single tests left (5-card reference solves, carry-over analyses, 3-game matches)
  --deselect="tests/solver/test_values.py::test_every_position_matches_reference[5-carry-points-False]"
  --deselect="tests/solver/test_values.py::test_every_position_matches_reference[5-discard-points-False]"
  --deselect="tests/solver/test_lean.py::test_lean_table_matches_lp_reference[5-carry-points]"
  --deselect="tests/solver/test_lean.py::test_lean_table_matches_lp_reference[5-discard-points]"
  --deselect=tests/solver/test_lean.py::test_threads_give_identical_files_and_estimate_counts_games
  --deselect=tests/cli/test_play_hints.py::test_analysis_after_a_carry_over_game_without_table_uses_the_approximation
  --deselect=tests/web/test_web_coach.py::test_carry_over_analysis_without_table_labels_the_approximation
  --deselect=tests/goofspiel/test_gops_cli_play.py::test_match_of_three_games
  --deselect=tests/solver/test_approx.py::test_fit_script_writes_a_model_the_approximation_reads
  --deselect=tests/golf/test_properties.py::test_random_play_keeps_cards_and_secrets
  --deselect="tests/cli/test_analyze_width.py::test_analyze_fits_the_terminal[80]"
  --deselect=tests/web/test_bad_input.py::test_flood_is_rate_limited
  --deselect="tests/solver/test_values.py::test_subgame_matches_reference[carry-win-3--4]"
  --deselect="tests/solver/test_values.py::test_every_position_matches_reference[4-carry-win-False]"
  --deselect="tests/solver/test_values.py::test_every_position_matches_reference[4-discard-win-False]"
  --deselect="tests/solver/test_values.py::test_subgame_matches_reference[discard-win-0-2]"
  --deselect="tests/solver/test_lean.py::test_lean_table_matches_lp_reference[4-carry-win]"
  --deselect="tests/solver/test_lean.py::test_lean_table_matches_lp_reference[4-discard-win]"
  --deselect=tests/research/test_tournament.py::test_bad_protocol_bots_lose_by_rule_and_the_tournament_goes_on
  --deselect=tests/solver/test_approx.py::test_approximation_is_an_exact_equilibrium_where_it_solves_exactly
  --deselect=tests/goofspiel/test_gops_cli_play.py::test_full_13_card_game_against_heuristic
)

# Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium).
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# Debian's Node.js for the JavaScript example bot (examples/protocol_bot.js): its bot-check and the
# tests that a tournament with it plays the same games on every backend (tests/research).
if ! command -v node >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs >/dev/null
fi

# Debian's Caddy for the TLS test of docs/deploy.md (tests/deploy): only the binary is needed. On a
# machine with systemd the package starts its own caddy.service on port 80: stop and disable that one.
if ! command -v caddy >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq caddy >/dev/null
  if [ -d /run/systemd/system ]; then $SUDO systemctl disable --now caddy.service >/dev/null 2>&1 || true; fi
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
if [ "$FAST" -eq 1 ]; then
  python3 -m pytest "${FAST_ARGS[@]}" ${PYTEST_ARGS[@]+"${PYTEST_ARGS[@]}"}
else
  python3 -m pytest ${PYTEST_ARGS[@]+"${PYTEST_ARGS[@]}"}
fi
