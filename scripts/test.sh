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
