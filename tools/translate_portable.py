"""``hlokit-translate --serialize`` / ``--deserialize``: StableHLO portable artifacts.

A portable artifact is a StableHLO module written as versioned VHLO bytecode, readable by StableHLO
releases of the compatibility window (StableHLO compatibility RFC,
https://github.com/openxla/stablehlo/blob/main/rfcs/20220912-compatibility.md; writer and reader are
jaxlib's ``serialize_portable_artifact`` / ``deserialize_portable_artifact``).

    hlokit-translate --serialize --target=current|minimum|X.Y.Z INPUT -o OUT.mlirbc
    hlokit-translate --deserialize OUT.mlirbc

CHLO has no compatibility guarantee and is refused with a located error naming the fix
(``hlokit-opt --chlo-legalize-to-stablehlo`` first).
"""

from __future__ import annotations

import argparse
import re

from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import stablehlo as _stablehlo

import hlokit
from hlokit.core import deserialize_portable_artifact
from hlokit.diagnostics import Diagnostic, HlokitError, diagnostic_from_mlir, location_position
from hlokit.exported import is_container
from hlokit.passes.chlo import find_chlo_ops
from hlokit.tools.common import read_text, source_name, write_output
from hlokit.tools.translate_registry import register_translate_mode

__all__ = ["check_no_chlo", "target_version", "serialize", "deserialize"]


def target_version(target: str | None) -> str:
    """The StableHLO version ``X.Y.Z`` that ``--target`` names (``current``, ``minimum`` or ``X.Y.Z``).

    Raises :class:`~hlokit.diagnostics.HlokitError` when ``target`` is missing or malformed.
    """
    if target in (None, ""):
        raise HlokitError("--serialize needs --target=current|minimum|X.Y.Z")
    if target == "current":
        return _stablehlo.get_current_version()
    if target == "minimum":
        return _stablehlo.get_minimum_version()
    if not re.fullmatch(r"\d+\.\d+\.\d+", target):
        raise HlokitError(f"invalid --target '{target}': expected current, minimum or X.Y.Z")
    return target


def _position(op, name: str) -> tuple[str, int, int]:
    file, line, col = location_position(op.location)
    return file or name, line, col


def check_no_chlo(module: ir.Module, name: str) -> None:
    """Raise :class:`~hlokit.diagnostics.HlokitError` located at the first CHLO op of ``module``.

    CHLO is outside StableHLO's compatibility guarantees (StableHLO compatibility RFC), so neither a
    portable artifact nor XLA's HLO converter takes it; the message names the legalization to run first.
    """
    found = [
        Diagnostic(
            "error",
            f"'{op.name}' is a CHLO op: CHLO has no compatibility guarantee and cannot be serialized; "
            "legalize it first: hlokit-opt --chlo-legalize-to-stablehlo INPUT | "
            "hlokit-translate --serialize --target=... -",
            *_position(op, name),
        )
        for op in find_chlo_ops(module, first_only=True)
    ]
    if found:
        raise HlokitError(found)


def serialize(module: ir.Module, target: str, name: str = "-") -> bytes:
    """StableHLO module -> portable artifact bytes for ``target`` (see :func:`target_version`).

    Raises :class:`~hlokit.diagnostics.HlokitError` for CHLO ops, a bad target, or an op the target
    version cannot express (MLIR's diagnostics, prefixed with the version).
    """
    check_no_chlo(module, name)
    version = target_version(target)
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
    """Portable artifact bytes -> StableHLO module (in ``context``): :func:`hlokit.core.deserialize_portable_artifact`,
    the reader every tool's parse uses (contained in hlokit's worker process, version-checked).

    Raises :class:`~hlokit.diagnostics.HlokitError` when ``data`` is not MLIR bytecode or not a
    readable artifact.
    """
    return deserialize_portable_artifact(data, context, source_name=name)


def add_serialize_arguments(parser: argparse.ArgumentParser) -> None:
    """``--target`` and ``--strip-debuginfo`` (the options of ``--serialize``, as stablehlo-translate's)."""
    group = parser.add_argument_group("--serialize options")
    group.add_argument("--target", default=None, metavar="VERSION", help="'current', 'minimum' or X.Y.Z (with --serialize)")
    group.add_argument("--strip-debuginfo", action="store_true",
                       help="write every location as loc(unknown) (with --serialize: no source paths in the artifact)")


@register_translate_mode(
    "--serialize", help="write a StableHLO portable artifact (needs --target)", add_arguments=add_serialize_arguments
)
def run_serialize(args: argparse.Namespace) -> int:
    """``--serialize``: parse the whole input, write the artifact to ``-o`` (only on success)."""
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    name = source_name(args.input)
    module = hlokit.parse(read_text(args.input), context=ctx, source_name=name)
    if args.strip_debuginfo:  # (MLIR's strip-debuginfo pass; the artifact then names no source file)
        with ctx:
            passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
    write_output(args.output, serialize(module, args.target, name))
    return 0


@register_translate_mode("--deserialize", help="read a StableHLO portable artifact, print StableHLO")
def run_deserialize(args: argparse.Namespace) -> int:
    """``--deserialize``: read the artifact, print the StableHLO module."""
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)
    name = source_name(args.input)
    data = read_text(args.input)
    data = data.encode() if isinstance(data, str) else data
    # jax.export's serialized Exported holds an artifact: hlokit.parse reads it (hlokit.exported)
    module = hlokit.parse(data, context=ctx, source_name=name) if is_container(data) else deserialize(data, ctx, name)
    write_output(args.output, hlokit.print_module(module))
    return 0
