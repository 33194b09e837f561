"""Rewrites that keep jaxlib's StableHLO -> HLO conversion and XLA's compiler from crashing the process.

Integer division by zero: XLA defines ``x / 0 = -1`` (all bits set) and ``x % 0 = x`` for integers (XLA
operation semantics, "Element-wise binary arithmetic operations"; XLA's elemental IR emitter computes them
with selects around the hardware division, and hlokit's interpreter gives the same), but the simplifiers that
run while jaxlib converts StableHLO to HLO, and XLA's constant folding (``HloEvaluator``), divide a constant by a
zero divisor with the machine's division: the process dies of ``SIGFPE`` (jaxlib 0.10.2, x86-64). Divisors
that become a constant zero only inside those simplifiers count too: ``7 / (x - x)`` crashes. With jaxlib's
converter or XLA as the consumer, :func:`guard_integer_division` makes every integer ``divide`` and
``remainder`` divide by ``select(rhs == 0, 1, rhs)`` and put XLA's zero-divisor result back with a second
select: the same results, and nothing left for a folder to divide by zero.
"""

from __future__ import annotations

from jaxlib.mlir import ir

__all__ = ["guard_integer_division", "guarded_text", "GUARDED_OPS"]

#: The ops :func:`guard_integer_division` rewrites (on integer operands).
GUARDED_OPS = ("stablehlo.divide", "stablehlo.remainder")


def _integer_division_ops(root: ir.Operation) -> list[ir.Operation]:
    found = []

    def visit(op):
        if op.name in GUARDED_OPS and len(op.operands) == 2 and len(op.results) == 1:
            t = op.results[0].type
            if isinstance(t, ir.RankedTensorType) and t.has_static_shape and isinstance(t.element_type, ir.IntegerType) \
                    and ir.IntegerType(t.element_type).width > 1:
                found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def guard_integer_division(module: ir.Module | ir.Operation) -> int:
    """Rewrite every ``stablehlo.divide`` / ``stablehlo.remainder`` of integers (static shapes, more than 1 bit) in
    ``module`` (in place) as ``select(rhs == 0, z, op(lhs, select(rhs == 0, 1, rhs)))``, where ``z`` is XLA's
    result for a zero divisor: ``-1`` (all bits set) for ``divide``, ``lhs`` for ``remainder``. Elementwise the
    results are XLA's, bit for bit; see the module doc for why. Returns how many ops were rewritten (0: the module
    is untouched)."""
    from jaxlib.mlir.dialects import stablehlo

    root = module.operation
    ops = _integer_division_ops(root)
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


def guarded_text(text: str, context: ir.Context) -> str:
    """``text`` (a module's MLIR text, for jaxlib's converter or XLA) with its integer divisions guarded
    (:func:`guard_integer_division`); ``text`` itself when it has none (texts without the op names are not parsed)."""
    if not any(name in text for name in GUARDED_OPS):
        return text
    clone = ir.Module.parse(text, context)
    if not guard_integer_division(clone):
        return text
    return clone.operation.get_asm(enable_debug_info=True)
