"""hlokit-translate: translate StableHLO programs to and from other forms (stablehlo-translate conventions).

Modes (exactly one):

* ``--serialize --target=current|X.Y.Z`` — StableHLO portable artifact (VHLO bytecode) for a version.
* ``--deserialize`` — portable artifact -> StableHLO text.
* ``--stablehlo-to-hlo-text`` / ``--hlo-text-to-stablehlo`` — XLA HLO text, both ways (jaxlib's XLA).
* more modes come from ``hlokit/tools/translate_<mode>.py`` modules (``--interpret``,
  ``--indexing-maps``): each defines ``FLAG``, ``HELP``, ``add_arguments(parser)`` and
  ``run(args) -> int`` and is found here by name.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from typing import Sequence

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _stablehlo

import hlokit
from hlokit.diagnostics import Diagnostic, HlokitError, diagnostic_from_mlir
from hlokit.tools.common import finish, process_chunks, read_text, source_name, tool_main, write_output


def _plugin_modes():
    """The ``translate_*`` modules of :mod:`hlokit.tools` (each one translate mode)."""
    import hlokit.tools as pkg

    mods = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("translate_"):
            mods.append(importlib.import_module(f"hlokit.tools.{info.name}"))
    return mods


def _parser(plugins) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlokit-translate",
        allow_abbrev=False,
        description="Translate StableHLO programs to and from portable artifacts and XLA HLO text, "
        "and run translate-style analyses.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' = stdin)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file (written only on success)")
    modes = p.add_argument_group("modes (exactly one)")
    modes.add_argument("--serialize", action="store_true", help="write a StableHLO portable artifact (needs --target)")
    modes.add_argument("--deserialize", action="store_true", help="read a StableHLO portable artifact, print StableHLO")
    modes.add_argument("--stablehlo-to-hlo-text", action="store_true", help="print the program as XLA HLO text")
    modes.add_argument("--hlo-text-to-stablehlo", action="store_true", help="read XLA HLO text, print StableHLO")
    for mod in plugins:
        modes.add_argument(mod.FLAG, "-" + mod.FLAG.lstrip("-"), action="store_true", help=mod.HELP, dest=_dest(mod))
    p.add_argument("--target", default=None, metavar="VERSION", help="'current', 'minimum' or X.Y.Z (with --serialize)")
    p.add_argument("--split-input-file", "-split-input-file", action="store_true", help="split the input on '// -----'")
    p.add_argument("--verify-diagnostics", "-verify-diagnostics", action="store_true", help="check diagnostics against expected-* annotations")
    p.add_argument("--allow-unregistered-dialect", "-allow-unregistered-dialect", action="store_true", help="allow ops of unknown dialects")
    for mod in plugins:
        mod.add_arguments(p)
    return p


def _dest(mod) -> str:
    return "mode_" + mod.FLAG.lstrip("-").replace("-", "_")


def _target_version(target: str | None) -> str:
    if target in (None, ""):
        raise HlokitError("--serialize needs --target=current|minimum|X.Y.Z")
    if target == "current":
        return _stablehlo.get_current_version()
    if target == "minimum":
        return _stablehlo.get_minimum_version()
    if not re.fullmatch(r"\d+\.\d+\.\d+", target):
        raise HlokitError(f"invalid --target '{target}': expected current, minimum or X.Y.Z")
    return target


def check_no_chlo(module: ir.Module, name: str) -> None:
    """Refuse CHLO (no compatibility guarantee, seed 000 "Dialect interop") with a located message."""
    found: list[Diagnostic] = []

    def visit(op):
        if op.name.startswith("chlo.") and not found:
            from hlokit.diagnostics import location_position

            file, line, col = location_position(op.location)
            found.append(
                Diagnostic(
                    "error",
                    f"'{op.name}' is a CHLO op: CHLO has no compatibility guarantee and cannot be "
                    "serialized; legalize it first: hlokit-opt --chlo-legalize-to-stablehlo INPUT | "
                    "hlokit-translate --serialize --target=... -",
                    file or name,
                    line,
                    col,
                )
            )
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if found:
        raise HlokitError(found)


def serialize(module: ir.Module, target: str, name: str = "-") -> bytes:
    """StableHLO module -> portable artifact bytes for ``target`` (see :func:`_target_version`)."""
    check_no_chlo(module, name)
    version = _target_version(target)
    diags: list[Diagnostic] = []

    def collect(diag):
        diags.append(diagnostic_from_mlir(diag))
        return True

    handle = module.context.attach_diagnostic_handler(collect)
    try:
        return _stablehlo.serialize_portable_artifact(module, version)
    except Exception as exc:
        for d in diags:
            d.message = f"cannot serialize to StableHLO {version}: {d.message}"
        raise HlokitError(diags or [Diagnostic("error", f"cannot serialize to StableHLO {version}: {exc}")], file=name) from None
    finally:
        handle.detach()


def deserialize(data: bytes, context: ir.Context, name: str = "-") -> ir.Module:
    """Portable artifact bytes -> StableHLO module."""
    if not data.startswith(b"ML\xefR"):
        raise HlokitError(
            "cannot deserialize the StableHLO portable artifact: the input is not MLIR bytecode "
            "(write one with hlokit-translate --serialize --target=...)",
            file=name,
        )
    try:
        return _stablehlo.deserialize_portable_artifact(context, data)
    except Exception as exc:
        raise HlokitError(f"cannot deserialize the StableHLO portable artifact: {exc}", file=name) from None


_HLO_POS = re.compile(r"was parsing (\d+):(\d+): error: (.*)")


def hlo_text_to_stablehlo(text: str, context: ir.Context, name: str = "-") -> ir.Module:
    """XLA HLO text -> StableHLO module, through jaxlib's XLA HLO parser and importer."""
    from jaxlib import _hlo, _jax

    try:
        proto = _hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    except Exception as exc:
        m = _HLO_POS.search(str(exc))
        if m:
            raise HlokitError(Diagnostic("error", m.group(3), name, int(m.group(1)), int(m.group(2)))) from None
        raise HlokitError(f"cannot parse XLA HLO text: {exc}", file=name) from None
    bytecode = _jax.mlir.hlo_to_stablehlo(proto)
    return hlokit.parse(bytecode, context=context, source_name=name)


def stablehlo_to_hlo_text(module: ir.Module, name: str = "-") -> str:
    """StableHLO module -> XLA HLO text (jaxlib's StableHLO->HLO converter)."""
    from jaxlib import _jax

    check_no_chlo(module, name)
    text = hlokit.print_module(module)
    try:
        comp = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False)
    except Exception as exc:
        raise HlokitError(f"cannot convert to XLA HLO: {str(exc).splitlines()[0]}", file=name) from None
    return comp.as_hlo_text()


def run(argv: Sequence[str]) -> int:
    plugins = _plugin_modes()
    args = _parser(plugins).parse_args(argv)
    builtin = ["serialize", "deserialize", "stablehlo_to_hlo_text", "hlo_text_to_stablehlo"]
    chosen = [m for m in builtin if getattr(args, m)] + [
        mod for mod in plugins if getattr(args, _dest(mod))
    ]
    if len(chosen) != 1:
        raise HlokitError("choose exactly one mode (see --help)")
    mode = chosen[0]
    if not isinstance(mode, str):
        return mode.run(args)

    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    name = source_name(args.input)
    if mode == "deserialize":
        data = read_text(args.input)
        module = deserialize(data.encode() if isinstance(data, str) else data, ctx, name)
        write_output(args.output, hlokit.print_module(module))
        return 0
    if mode == "serialize":
        module = hlokit.parse(read_text(args.input), context=ctx, source_name=name)
        write_output(args.output, serialize(module, args.target, name))
        return 0

    def one_chunk(text, offset, name):
        if mode == "hlo_text_to_stablehlo":
            return hlokit.print_module(hlo_text_to_stablehlo(text, ctx, name))
        module = hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)
        return stablehlo_to_hlo_text(module, name)

    ok, output = process_chunks(
        args.input, one_chunk, split=args.split_input_file, verify_diagnostics=args.verify_diagnostics, context=ctx
    )
    return finish(args.output, ok, output)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-translate``."""
    return tool_main("hlokit-translate", run, argv)


if __name__ == "__main__":
    sys.exit(main())
