"""A record saved under its default name holds whatever seed the game had (issue 23's hostile
review): the seed was put into the file name raw, so ``--seed 2024/05/01`` pointed into a
folder that does not exist, ``--seed ../../x`` outside the records folder, and a long seed
made a name the system refuses; each game was played and then its record lost. Both games now
name the file through ``platform.storage.new_record_file``."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.platform.storage import records_dir, seed_tag

runner = CliRunner()


@pytest.mark.parametrize("seed", ["2024/05/01", "../../x", "s" * 240, "a b\u00e9c"])
@pytest.mark.parametrize("game, suffix", [(["-n", "3"], ".gops"), (["golf"], ".txt")])
def test_any_seed_is_saved_in_the_records_folder(fresh, seed, game, suffix):
    result = runner.invoke(app, ["play", *game, "--auto", "--delay", "0", "--seed", seed])
    assert result.exit_code == 0, result.output
    assert "could not be saved" not in result.output
    (saved,) = records_dir().iterdir()
    assert saved.suffix == suffix and seed_tag(seed) in saved.name
    assert f"{seed}" in saved.read_text()  # the seed itself is in the record, unchanged
    assert sorted(p.name for p in fresh.iterdir()) == ["home"]  # nothing written outside it


def test_a_seed_tag_is_a_plain_short_name():
    for seed in ["../../x", "a/b", "\u0663", "x" * 500, "", None, 7]:
        tag = seed_tag(seed)
        assert 0 < len(tag) <= 40 and tag.isascii() and "/" not in tag and ".." not in tag
