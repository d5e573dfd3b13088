"""Without the ``research`` extra every research entry point says so in one line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HINT = "needs the 'research' extra (missing: {}); install it with: pip install 'cardtable[research]'"


def run_without(modules, code, tmp_path):
    """Run ``code`` in a fresh interpreter in which ``modules`` cannot be imported."""
    block = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    env = dict(os.environ, PYTHONPATH=str(ROOT), CARDTABLE_HOME=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-c", block + code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "modules, code, feature",
    [
        (["pettingzoo"], "from cardtable.research.pettingzoo_env import parallel_env", "the PettingZoo env"),
        (["gymnasium"], "from cardtable.research.gym_env import GoofspielGymEnv", "the Gymnasium env"),
        (["pyspiel"], "import cardtable.research.openspiel_game", "the OpenSpiel game"),
    ],
)
def test_library_entry_points_raise_one_line_naming_the_extra(modules, code, feature, tmp_path):
    r = run_without(modules, code + "\n", tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == f"cardtable.research.extra.MissingExtraError: {feature} " + HINT.format(modules[0])


def test_cli_ray_backend_and_bench_simulate_say_one_line(tmp_path):
    r = run_without(
        ["ray"],
        "from cardtable.cli import main\nsys.argv = ['cardtable', 'tournament', "
        "'random', 'matcher', '--games', '2', '--backend', 'ray']\nmain()\n",
        tmp_path,
    )
    assert r.returncode == 2
    assert r.stderr.strip() + r.stdout.strip() == "error: --backend ray " + HINT.format("ray")
    assert not (tmp_path / "tournaments").exists()  # nothing written
    r = run_without(
        ["pyspiel"],
        "sys.path.insert(0, 'bench')\nsys.argv = ['bench/simulate.py']\n"
        "import runpy\nrunpy.run_path('bench/simulate.py', run_name='__main__')\n",
        tmp_path,
    )
    assert r.returncode == 1
    assert r.stderr.strip() == (
        "bench/simulate.py needs the 'research' extra (missing: pyspiel) for its "
        "OpenSpiel reference; install it with: pip install 'cardtable[research]'"
    )
