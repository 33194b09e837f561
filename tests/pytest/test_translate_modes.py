"""hlokit-translate's modes: one registration per mode, a table that refuses a second claim on a flag,
and every known mode module imported by name and listed in ``--help``."""

from __future__ import annotations

import argparse
import pathlib

import pytest

from hlokit.tools import hlokit_translate
from hlokit.tools.translate_registry import TRANSLATE_MODES, register_translate_mode

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"

#: Every mode hlokit-translate has had; removing one is a behaviour change.
EXPECTED_FLAGS = {
    "--serialize",
    "--deserialize",
    "--stablehlo-to-hlo-text",
    "--hlo-text-to-stablehlo",
    "--indexing-maps",
    "--interpret",
}


def _help(capsys) -> str:
    assert hlokit_translate.main(["--help"]) == 0  # tool_main turns argparse's SystemExit into a code
    return capsys.readouterr().out


def test_every_known_mode_is_registered_and_in_help(capsys):
    assert EXPECTED_FLAGS <= set(TRANSLATE_MODES)
    text = _help(capsys)
    modes_section = text.split("modes (exactly one):")[1]
    for flag, mode in TRANSLATE_MODES.items():
        assert f"{flag}, -{flag[2:]}" in modes_section, flag
        assert mode.help.split()[0] in modes_section
    # in the order of MODE_MODULES
    positions = [modes_section.index(m.flag + ",") for m in hlokit_translate.modes()]
    assert positions == sorted(positions)


def test_every_mode_module_is_known_by_name():
    """Each ``tools/translate_<mode>.py`` is in MODE_MODULES and registers at least one mode."""
    known = {m.__name__.rsplit(".", 1)[1] for m in hlokit_translate.MODE_MODULES}
    files = {p.stem for p in TOOLS.glob("translate_*.py")} - {"translate_registry"}
    assert files == known
    registering = {mode.module for mode in TRANSLATE_MODES.values()}
    for module in hlokit_translate.MODE_MODULES:
        assert module.__name__ in registering, module.__name__


def test_a_second_mode_with_a_taken_flag_is_refused():
    before = dict(TRANSLATE_MODES)

    def other(args: argparse.Namespace) -> int:
        return 0

    with pytest.raises(ValueError, match="translate mode '--indexing-maps' registered twice"):
        register_translate_mode("--indexing-maps", help="another")(other)
    with pytest.raises(ValueError, match="translate mode '--serialize' registered twice"):
        register_translate_mode("--serialize", help="another")(other)
    with pytest.raises(ValueError, match="not of the form"):
        register_translate_mode("-x", help="bad flag")
    with pytest.raises(ValueError, match="not of the form"):
        register_translate_mode("--Foo_bar", help="bad flag")
    assert TRANSLATE_MODES == before
    # registering the same function again is not a second claim
    same = TRANSLATE_MODES["--interpret"]
    register_translate_mode("--interpret", help=same.help, add_arguments=same.add_arguments)(same.run)
    assert TRANSLATE_MODES["--interpret"] == same


def test_a_new_mode_is_one_decorated_function(capsys, tmp_path):
    calls = []

    def add_arguments(parser):
        parser.add_argument_group("--test-mode options").add_argument("--test-mode-level", type=int, default=1)

    @register_translate_mode("--test-mode", help="a mode registered by a test", add_arguments=add_arguments)
    def run(args):
        calls.append((args.input, args.test_mode_level))
        return 0

    try:
        assert "--test-mode, -test-mode" in _help(capsys)
        assert hlokit_translate.main(["-test-mode", "--test-mode-level=3", "in.mlir"]) == 0
        assert calls == [("in.mlir", 3)]
        # still exactly one mode per run
        assert hlokit_translate.main(["--test-mode", "--interpret", "in.mlir"]) == 1
        assert "choose exactly one mode" in capsys.readouterr().err
    finally:
        del TRANSLATE_MODES["--test-mode"]
