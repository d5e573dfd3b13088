"""PettingZoo's own test suite on every preset and on random mixed rulesets.

``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
``render_test`` (``human`` and ``ansi``), ``max_cycles_test`` and ``state_test``.
Several of them sample unmasked actions (``action_space(agent).sample()``), which
our ``LegalDiscrete`` spaces turn into legal actions (docs/research.md).
"""

import functools
import types

import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

from cardtable.research import pettingzoo_env as pz

from .rulesets import ALL_RULESETS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def module_for(ruleset):
    """A stand-in for an env module (what PettingZoo's tests import) fixed to one ruleset."""
    return types.SimpleNamespace(
        env=functools.partial(pz.env, ruleset=ruleset),
        parallel_env=functools.partial(pz.parallel_env, ruleset=ruleset),
    )


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=lambda r: r.describe())
def test_pettingzoo_suite(ruleset, capsys):
    mod = module_for(ruleset)
    api_test(mod.env(), num_cycles=60)
    parallel_api_test(mod.parallel_env(), num_cycles=60)
    seed_test(mod.env, num_cycles=30)
    parallel_seed_test(mod.parallel_env, num_cycles=30)
    render_test(mod.env)
    max_cycles_test(mod)
    state_test(mod.env(), mod.parallel_env())
    # render_test's human mode printed the table: a rules line, a round line, one line per seat
    printed = capsys.readouterr().out
    assert f"Goofspiel  {ruleset.describe()}" in printed
    assert "player_0" in printed and f"player_{ruleset.players - 1}" in printed
