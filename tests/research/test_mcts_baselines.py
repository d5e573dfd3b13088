"""MCTS beside the baselines with 3 and 4 players (issue 22, item 4; docs/research.md, MCTS bot):
the margin is paired by deal, "clearly ahead" is the lower end of every margin's 95% interval
above 0, and the recorded 960-deal run of 4 players against three ``random`` bots
(bench/results/mcts-4p-random-960.log) shows what the docs say."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "bench" / "results" / "mcts-4p-random-960.log"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("mcts_strength", ROOT / "bench" / "mcts_strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _verdicts(bench, rows) -> dict[str, str]:
    lines = bench.comparison(rows)[2:]
    return {line.split("|")[1].strip(): line.split("|")[4].strip() for line in lines}


def test_the_margin_is_paired_by_deal(bench):
    # the same deals' luck moves both bots: unpaired, these means could not be told apart
    luck = [(-1) ** d * 10.0 * d for d in range(40)]
    rows = {
        "mcts": {"deals": [x + 0.5 for x in luck]},
        "matcher": {"deals": list(luck)},
    }
    verdict = _verdicts(bench, rows)
    assert verdict["matcher"] == "yes" and verdict["best baseline (matcher)"].startswith("yes")
    rows["mcts"]["deals"] = [x + (0.5 if d % 2 else -0.5) for d, x in enumerate(luck)]  # mean 0: not ahead
    assert _verdicts(bench, rows)["matcher"] == "no"


def test_clearly_ahead_needs_every_baseline(bench):
    rows = {
        "mcts": {"deals": [1.0, 2.0, 1.5, 2.5, 1.0, 2.0]},
        "random": {"deals": [0.0, 1.0, 0.5, 1.5, 0.0, 1.0]},
        "matcher": {"deals": [1.0, 2.5, 1.0, 3.0, 1.5, 1.5]},
    }
    verdict = _verdicts(bench, rows)
    assert verdict["random"] == "yes" and verdict["matcher"] == "no"
    assert verdict["best baseline (matcher)"].startswith("no")


def test_the_recorded_four_player_run_is_clearly_ahead_of_every_baseline(bench):
    per: dict[str, dict[int, float]] = {}
    for line in LOG.read_text().splitlines():
        bot, deal, mean, *_ = line.split()
        per.setdefault(bot, {})[int(deal)] = float(mean)
    assert set(per) == {"mcts", "random", "matcher", "heuristic"}
    assert all(sorted(v) == list(range(960)) for v in per.values())
    rows = {b: {"deals": [v[d] for d in range(960)]} for b, v in per.items()}
    verdict = _verdicts(bench, rows)
    assert all(v.startswith("yes") for v in verdict.values()), verdict
    margin = statistics.fmean(
        x - y for x, y in zip(rows["mcts"]["deals"], rows["matcher"]["deals"], strict=True)
    )
    assert margin == pytest.approx(0.62, abs=0.005)  # the figure docs/research.md prints
