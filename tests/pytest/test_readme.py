"""The README's two commands are the ones CI runs and they name things that exist."""

from __future__ import annotations

import re

from conftest import REPO


def _commands():
    return re.findall(r"```sh\n(.*?)\n```", (REPO / "README.md").read_text(), re.S)


def test_readme_has_exactly_two_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "hlokit-run examples/transformer_block.mlir" in cmds[0]
    assert (REPO / "examples" / "transformer_block.mlir").is_file()


def test_ci_runs_the_readme_test_command():
    test_cmd = _commands()[1].replace("pip install", "python3 -m pip install -q")
    assert test_cmd in (REPO / ".ci" / "run").read_text()
