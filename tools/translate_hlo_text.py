"""``hlokit-translate --stablehlo-to-hlo-text`` / ``--hlo-text-to-stablehlo``: XLA HLO text, both ways.

Both directions go through the XLA inside jaxlib (its HLO text parser and HLO -> StableHLO importer;
its StableHLO -> HLO converter), so the HLO text is XLA's own (https://openxla.org/xla/operation_semantics).
Each ``// -----`` chunk is translated on its own with ``--split-input-file``.
"""

from __future__ import annotations

import argparse
import re

from jaxlib.mlir import ir

import hlokit
from hlokit import jax_private
from hlokit.core import ContainedError, run_contained
from hlokit.backend.guards import guarded_text
from hlokit.diagnostics import Diagnostic, HlokitError
from hlokit.tools.common import finish, process_chunks
from hlokit.tools.translate_portable import check_no_chlo
from hlokit.tools.translate_registry import register_translate_mode

__all__ = ["hlo_text_to_stablehlo", "stablehlo_to_hlo_text"]

_HLO_POS = re.compile(r"was parsing (\d+):(\d+): error: (.*)")


def hlo_text_to_stablehlo(text: str, context: ir.Context, name: str = "-") -> ir.Module:
    """XLA HLO text -> StableHLO module, through jaxlib's XLA HLO parser and importer.

    Raises :class:`~hlokit.diagnostics.HlokitError` located at the HLO parser's line and column.
    """
    # XLA's HLO parser CHECK-fails (aborts the process) on some input, e.g. an out-of-range parameter
    # number: it runs in hlokit's worker process, and a crash there is a located error here.
    try:
        is_text = isinstance(text, str)
        bytecode = run_contained("hlokit.tools.translate_hlo_text:hlo_text_to_bytecode",
                                 text.encode() if is_text else bytes(text), options={"is_text": is_text},
                                 what="XLA's HLO text parser", source_name=name)
    except ContainedError as exc:
        stage, _, msg = str(exc).partition(": ")
        m = _HLO_POS.search(msg)
        if stage == "parse" and m:
            raise HlokitError(Diagnostic("error", m.group(3), name, int(m.group(1)), int(m.group(2)))) from None
        what = "cannot parse XLA HLO text" if stage == "parse" else "cannot import XLA HLO into StableHLO"
        raise HlokitError(f"{what}: {msg.strip().splitlines()[0] if msg.strip() else msg}", file=name) from None
    return hlokit.parse(bytecode, context=context, source_name=name)


def hlo_text_to_bytecode(text: bytes, is_text: bool = True) -> bytes:
    """In hlokit's worker process (a job of :func:`hlokit.core.run_contained`): XLA HLO text (UTF-8; ``is_text``
    false: the caller's bytes, as given) -> StableHLO bytecode. Raises :class:`~hlokit.core.ContainedError`
    ``"parse: ..."`` / ``"import: ..."`` with the message of the stage that failed."""
    try:
        proto = jax_private.hlo_module_from_text(text.decode() if is_text else text).as_serialized_hlo_module_proto()
    except Exception as exc:  # noqa: BLE001 - the parser's message, located by the caller
        raise ContainedError(f"parse: {exc}") from None
    try:
        return jax_private.hlo_to_stablehlo(proto)
    except Exception as exc:  # noqa: BLE001 - e.g. JaxRuntimeError INVALID_ARGUMENT (shape overflow)
        raise ContainedError(f"import: {exc}") from None


def stablehlo_to_hlo_text(module: ir.Module, name: str = "-") -> str:
    """StableHLO module -> XLA HLO text (jaxlib's StableHLO -> HLO converter).

    Integer ``divide`` / ``remainder`` come out with their divisor guarded (``hlokit.backend.guards``: the same
    results, XLA's for a zero divisor; unguarded, jaxlib's converter kills the process when it folds a division
    by zero). Raises :class:`~hlokit.diagnostics.HlokitError` for CHLO ops (located) or a module XLA refuses.
    """
    check_no_chlo(module, name)
    text = guarded_text(hlokit.print_module(module), module.context)  # (jaxlib's converter folds x / 0: SIGFPE)
    try:
        comp = jax_private.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False)
    except Exception as exc:
        raise HlokitError(f"cannot convert to XLA HLO: {str(exc).splitlines()[0]}", file=name) from None
    return comp.as_hlo_text()


def _run(args: argparse.Namespace, one) -> int:
    ctx = hlokit.make_context(allow_unregistered_dialects=args.allow_unregistered_dialect)

    def one_chunk(text, offset, name):
        return one(text, offset, name, ctx)

    ok, output = process_chunks(
        args.input, one_chunk, split=args.split_input_file, verify_diagnostics=args.verify_diagnostics, context=ctx
    )
    return finish(args.output, ok, output)


@register_translate_mode("--stablehlo-to-hlo-text", help="print the program as XLA HLO text")
def run_stablehlo_to_hlo_text(args: argparse.Namespace) -> int:
    """``--stablehlo-to-hlo-text``: each chunk's module printed as XLA HLO text."""

    def one(text, offset, name, ctx):
        module = hlokit.parse(text, context=ctx, source_name=name, line_offset=offset)
        return stablehlo_to_hlo_text(module, name)

    return _run(args, one)


@register_translate_mode("--hlo-text-to-stablehlo", help="read XLA HLO text, print StableHLO")
def run_hlo_text_to_stablehlo(args: argparse.Namespace) -> int:
    """``--hlo-text-to-stablehlo``: each chunk's HLO module printed as StableHLO."""

    def one(text, offset, name, ctx):
        return hlokit.print_module(hlo_text_to_stablehlo(text, ctx, name))

    return _run(args, one)
