"""An hlokit pass plugin: ``x / c`` by a splat constant ``c`` becomes ``x * (1/c)`` where that is exact.

Load it with ``hlokit-opt --load-pass-plugin=examples/plugins/divide_to_multiply.py`` and run it as
``--divide-by-constant-to-multiply`` (or inside ``--pass-pipeline``, on ``func.func``)::

    hlokit-opt --load-pass-plugin=examples/plugins/divide_to_multiply.py prog.mlir \\
        --divide-by-constant-to-multiply --canonicalize

When ``c`` is a power of two whose reciprocal is representable in the element type, ``x * (1/c)`` and
``x / c`` both round the same exact real number ``x * 2^-k`` once (IEEE 754-2019, section 4.3: every
operation is computed as if exactly, then rounded), so the rewrite changes no result bit, for every ``x``
(NaN, infinities, signed zeros and subnormals included). Other constants are left alone unless the
option ``allow-inexact=true`` is given; then ``1/c`` is rounded to the element type first, which may
change the last bit of a result (the usual "reciprocal math" fast-math rewrite).

The pass is a :class:`~hlokit.passes.template_pass.TemplatePass`: :meth:`matches` selects the divides,
:meth:`attributes` gives the reciprocal (what the template depends on), :meth:`build` writes the
replacement with the Emitter; the base finds, checks and rewrites (nothing is changed when an op is
refused). The divisor's constant op is left for ``canonicalize`` to drop when unused.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

from hlokit.passes.registry import Option, register_pass
from hlokit.passes.template_pass import TemplatePass

#: The float element types handled, with the numpy type that rounds a Python float to each.
FLOAT_TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}


def splat_divisor(op: ir.Operation) -> float | None:
    """The value of ``op``'s divisor when it is a ``stablehlo.constant`` splat of a float type of
    :data:`FLOAT_TYPES`, else None."""
    owner = op.operands[1].owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or owner.name != "stablehlo.constant":
        return None
    if str(op.operands[1].type.element_type) not in FLOAT_TYPES:
        return None
    try:
        attr = ir.DenseFPElementsAttr(owner.attributes["value"])
    except (ValueError, TypeError):
        return None
    if not attr.is_splat:
        return None
    return ir.FloatAttr(attr.get_splat_value()).value


def exact_reciprocal(c: float, element_type: str) -> float | None:
    """``1/c`` when ``c`` is a (nonzero, finite) power of two whose reciprocal the element type holds
    exactly, else None."""
    if c == 0 or not math.isfinite(c) or math.frexp(abs(c))[0] != 0.5:
        return None
    r = 1.0 / c
    with np.errstate(over="ignore", under="ignore"):
        rounded = float(np.asarray(r, dtype=FLOAT_TYPES[element_type]).astype(np.float64))
    return r if rounded == r else None


@register_pass
class DivideByConstantToMultiply(TemplatePass):
    argument = "divide-by-constant-to-multiply"
    summary = "Rewrite x / c (c a splat float constant) as x * (1/c) where exact (allow-inexact: always)"
    options = (Option("allow-inexact", bool, False, "also rewrite when 1/c is rounded (may change the last bit)"),)

    def reciprocal(self, op: ir.Operation) -> float | None:
        """The constant to multiply by instead of dividing ``op``, or None to leave it."""
        c = splat_divisor(op)
        if c is None:
            return None
        r = exact_reciprocal(c, str(op.operands[1].type.element_type))
        if r is None and self.allow_inexact and c != 0 and math.isfinite(c):
            return 1.0 / c
        return r

    def matches(self, op) -> bool:
        return op.name == "stablehlo.divide" and self.reciprocal(op.operation) is not None

    def attributes(self, op) -> tuple:
        return (self.reciprocal(op),)

    def build(self, e, operands, info):
        x = operands[0]
        return x * e.const(info.attrs[0], like=x)
