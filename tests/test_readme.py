"""The README's two commands are the ones CI and users run."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def test_there_are_exactly_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("bfsql demo")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    assert readme_commands()[1] in (ROOT / ".ci" / "run").read_text().splitlines()
