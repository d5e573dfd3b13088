"""The check every hostile-input test of the CLI makes: the command is refused with exit
code 2, no traceback, and a message holding the given words."""

from __future__ import annotations

from typer.testing import CliRunner

from cardtable.cli import app

runner = CliRunner()


def refused(args: list[str], *words: str) -> str:
    """Run ``cardtable ARGS``; assert exit code 2, no traceback and every word in the output
    (whitespace collapsed, the frame of Typer's usage panel removed). Returns that text."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    assert "Traceback" not in result.output
    text = " ".join(result.output.replace("│", " ").split())
    for w in words:
        assert w in text, (args, text)
    return text
