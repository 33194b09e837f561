"""hlokit-translate: translate StableHLO programs to and from other forms (stablehlo-translate conventions).

Exactly one mode per run; each mode lives in a module of its own and registers itself with
:func:`~hlokit.tools.translate_registry.register_translate_mode`:

* ``--serialize --target=current|minimum|X.Y.Z`` / ``--deserialize`` — StableHLO portable artifacts
  (``translate_portable``);
* ``--stablehlo-to-hlo-text`` / ``--hlo-text-to-stablehlo`` — XLA HLO text, both ways (``translate_hlo_text``);
* ``--indexing-maps`` — XLA's HLO indexing maps (``translate_indexing``);
* ``--interpret`` — hlokit's reference interpreter (``translate_interpret``);
* ``--cost-analysis`` — FLOPs, transcendentals, bytes and a roofline line (``translate_cost``).

The modules are imported by name (:data:`MODE_MODULES`); a new mode is a new ``translate_<mode>.py`` and
its name in that tuple. The options every mode shares (``-o``, ``--split-input-file``,
``--verify-diagnostics``, ``--allow-unregistered-dialect``) are defined here.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from hlokit.diagnostics import HlokitError
from hlokit.tools import translate_cost, translate_hlo_text, translate_indexing, translate_interpret, translate_portable
from hlokit.tools.common import add_version_argument, llvm_style_flags, tool_main
from hlokit.tools.translate_registry import TRANSLATE_MODES, TranslateMode, register_translate_mode

__all__ = ["MODE_MODULES", "TRANSLATE_MODES", "register_translate_mode", "modes", "run", "main"]

#: The modules that define hlokit-translate's modes, in the order of ``--help``.
MODE_MODULES = (translate_portable, translate_hlo_text, translate_indexing, translate_interpret, translate_cost)


def modes() -> list[TranslateMode]:
    """The registered modes: those of :data:`MODE_MODULES` in its order, then any other registered mode."""
    order = {m.__name__: i for i, m in enumerate(MODE_MODULES)}
    return sorted(TRANSLATE_MODES.values(), key=lambda mode: order.get(mode.module, len(order)))


def _parser(known: Sequence[TranslateMode]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlokit-translate",
        allow_abbrev=False,
        description="Translate StableHLO programs to and from portable artifacts and XLA HLO text, "
        "and run translate-style analyses.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' = stdin)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file (written only on success)")
    add_version_argument(p)
    group = p.add_argument_group("modes (exactly one)")
    for mode in known:
        group.add_argument(mode.flag, "-" + mode.flag[2:], action="store_true", help=mode.help, dest=mode.dest)
    p.add_argument("--split-input-file", "-split-input-file", action="store_true", help="split the input on '// -----'")
    p.add_argument("--verify-diagnostics", "-verify-diagnostics", action="store_true", help="check diagnostics against expected-* annotations")
    p.add_argument("--allow-unregistered-dialect", "-allow-unregistered-dialect", action="store_true", help="allow ops of unknown dialects")
    for mode in known:
        if mode.add_arguments is not None:
            mode.add_arguments(p)
    return p


def run(argv: Sequence[str]) -> int:
    """Parse ``argv``, run the one chosen mode, return its exit code."""
    known = modes()
    parser = _parser(known)
    args = parser.parse_args(llvm_style_flags(parser, argv))
    chosen = [mode for mode in known if getattr(args, mode.dest)]
    if len(chosen) != 1:
        raise HlokitError("choose exactly one mode (see --help)")
    return chosen[0].run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-translate``."""
    return tool_main("hlokit-translate", run, argv)


if __name__ == "__main__":
    sys.exit(main())
