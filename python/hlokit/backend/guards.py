"""Rewrites that let jaxlib's StableHLO -> HLO conversion and XLA's compiler take every valid program.

Integer division by zero: XLA defines ``x / 0 = -1`` (all bits set) and ``x % 0 = x`` for integers (XLA
operation semantics, "Element-wise binary arithmetic operations"; XLA's elemental IR emitter computes them
with selects around the hardware division, and hlokit's interpreter gives the same), but the simplifiers that
run while jaxlib converts StableHLO to HLO, and XLA's constant folding (``HloEvaluator``), divide a constant by a
zero divisor with the machine's division: the process dies of ``SIGFPE`` (jaxlib 0.10.2, x86-64). Divisors
that become a constant zero only inside those simplifiers count too: ``7 / (x - x)`` crashes. With jaxlib's
converter or XLA as the consumer, :func:`guard_integer_division` makes every integer ``divide`` and
``remainder`` divide by ``select(rhs == 0, 1, rhs)`` and put XLA's zero-divisor result back with a second
select: the same results, and nothing left for a folder to divide by zero.

``rng_bit_generator`` with an output of signed integers or floats: XLA's generator makes unsigned integers of the
output's width whatever type the program declares, so an op reading the output failed XLA's verifier ("Clamp with
incompatible element types: s32[4], u32[4]"). :func:`unsigned_rng_outputs` asks for the unsigned type and
converts it to the declared one with ``bitcast_convert``: the same bits (StableHLO spec, ``rng_bit_generator``: the output
is random bits), in a type every consumer accepts.
"""

from __future__ import annotations

import re

from jaxlib.mlir import ir

from hlokit.dtypes import bit_width, dtype_of

__all__ = ["guard_integer_division", "unsigned_rng_outputs", "guarded_text", "may_crash_xla", "GUARDED_OPS"]

#: The ops :func:`guard_integer_division` rewrites (on integer operands).
GUARDED_OPS = ("stablehlo.divide", "stablehlo.remainder")


def _ops_where(module: ir.Module | ir.Operation, wanted) -> list[ir.Operation]:
    """The ops nested in ``module`` for which ``wanted(op)`` holds, in walk order (collected before any rewrite)."""
    found = []

    def visit(op):
        if wanted(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _is_integer_division(op: ir.Operation) -> bool:
    if op.name not in GUARDED_OPS or len(op.operands) != 2 or len(op.results) != 1:
        return False
    t = op.results[0].type
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape and isinstance(t.element_type, ir.IntegerType) \
        and ir.IntegerType(t.element_type).width > 1


def _is_rng_of_other_bits(op: ir.Operation) -> bool:
    if op.name != "stablehlo.rng_bit_generator" or len(op.results) != 2:
        return False
    t = op.results[1].type
    return isinstance(t, ir.RankedTensorType) and not (isinstance(t.element_type, ir.IntegerType)
                                                        and ir.IntegerType(t.element_type).is_unsigned)


def guard_integer_division(module: ir.Module | ir.Operation) -> int:
    """Rewrite every ``stablehlo.divide`` / ``stablehlo.remainder`` of integers (static shapes, more than 1 bit) in
    ``module`` (in place) as ``select(rhs == 0, z, op(lhs, select(rhs == 0, 1, rhs)))``, where ``z`` is XLA's
    result for a zero divisor: ``-1`` (all bits set) for ``divide``, ``lhs`` for ``remainder``. Elementwise the
    results are XLA's, bit for bit; see the module doc for why. Returns how many ops were rewritten (0: the module
    is untouched)."""
    from jaxlib.mlir.dialects import stablehlo

    ops = _ops_where(module, _is_integer_division)
    for op in ops:
        t = ir.RankedTensorType(op.results[0].type)
        et = ir.IntegerType(t.element_type)
        lhs, rhs = op.operands
        with ir.InsertionPoint(op), op.location:
            def splat(value: int) -> ir.Value:
                return stablehlo.ConstantOp(ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(et, value))).result

            compare_type = "UNSIGNED" if et.is_unsigned else "SIGNED"
            is_zero = stablehlo.CompareOp(
                rhs, splat(0), stablehlo.ComparisonDirectionAttr.get("EQ"),
                compare_type=stablehlo.ComparisonTypeAttr.get(compare_type)).result
            safe = stablehlo.SelectOp(is_zero, splat(1), rhs).result
            if op.name == "stablehlo.divide":
                quotient = stablehlo.DivOp(lhs, safe).result
                # (-1: every bit set, the unsigned maximum too; the bindings take a value of int64)
                out = stablehlo.SelectOp(is_zero, splat(-1), quotient).result
            else:
                out = stablehlo.SelectOp(is_zero, lhs, stablehlo.RemOp(lhs, safe).result).result
        op.results[0].replace_all_uses_with(out)
        op.erase()
    return len(ops)


def unsigned_rng_outputs(module: ir.Module | ir.Operation) -> int:
    """Rewrite every ``stablehlo.rng_bit_generator`` of ``module`` (in place) whose output's elements are not
    unsigned integers as one that makes unsigned integers of the same width, ``bitcast_convert`` to the declared
    type (see the module doc). Returns how many ops were rewritten."""
    from jaxlib.mlir.dialects import stablehlo

    found = _ops_where(module, _is_rng_of_other_bits)
    for op in found:
        t = ir.RankedTensorType(op.results[1].type)
        with ir.InsertionPoint(op), op.location:
            bits = ir.RankedTensorType.get(t.shape, ir.IntegerType.get_unsigned(bit_width(dtype_of(t))), t.encoding)
            rng = stablehlo.RngBitGeneratorOp(op.results[0].type, bits, op.attributes["rng_algorithm"], op.operands[0])
            out = stablehlo.BitcastConvertOp(t, rng.results[1]).result
        op.results[0].replace_all_uses_with(rng.results[0])
        op.results[1].replace_all_uses_with(out)
        op.erase()
    return len(found)


#: A line of MLIR's printed text with an integer ``divide`` / ``remainder`` (an integer element type on the op's
#: line), or an ``rng_bit_generator``: only then is the text parsed and rewritten.
_NEEDS_GUARDS = re.compile(r"stablehlo\.(?:divide|remainder)\b[^\n]*[x<]u?i(?:2|4|8|16|32|64)>|stablehlo\.rng_bit_generator")


def guarded_text(text: str, context: ir.Context) -> str:
    """``text`` (a module's MLIR text as MLIR prints it, one op a line, for jaxlib's converter or XLA) with its
    integer divisions guarded (:func:`guard_integer_division`) and its random bits made unsigned
    (:func:`unsigned_rng_outputs`); ``text`` itself when there is nothing to rewrite (a text without such an op's
    line is not parsed: float divisions cost nothing)."""
    if not _NEEDS_GUARDS.search(text):
        return text
    clone = ir.Module.parse(text, context)
    if not guard_integer_division(clone) + unsigned_rng_outputs(clone):
        return text
    return clone.operation.get_asm(enable_debug_info=True)


#: jaxlib 0.10.2's XLA CPU compiler dies (SIGSEGV) on a bitwise ``and`` / ``or`` that reads a narrowing signed
#: integer ``convert`` of a tensor (``x.astype(int8) | y`` in JAX: found by the program fuzzer; jax 0.12 compiles
#: it). A text with both (as MLIR prints it) is compiled in a subprocess first (``hlokit.backend.compile``).
_NARROWING_CONVERT = re.compile(r"stablehlo\.convert [^\n]*\(tensor<[^>]*x(?:i16|i32|i64)>\) -> tensor<[^>]*x(?:i8|i16)>")
_BITWISE_ON_TENSORS = re.compile(r"stablehlo\.(?:and|or) [^\n]*: tensor<\d")


def may_crash_xla(text: str) -> bool:
    """Whether ``text`` (MLIR's printed text) has the pattern that crashes jaxlib 0.10.2's XLA CPU compiler (see
    ``_NARROWING_CONVERT``); always False with a jaxlib past 0.10."""
    import jaxlib

    if tuple(int(p) for p in jaxlib.__version__.split(".")[:2] if p.isdigit()) > (0, 10):
        return False
    return bool(_NARROWING_CONVERT.search(text) and _BITWISE_ON_TENSORS.search(text))
