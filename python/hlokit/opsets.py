"""Named sets of StableHLO op names, shared by the interpreter, the analyses and the passes.

The sets follow the StableHLO specification (https://openxla.org/stablehlo/spec, section "Ops"): an
op is *elementwise* when each result element depends only on the operand elements at the same index
(the spec calls these "element-wise" ops; ``clamp`` and ``select`` accept 0-d operands that broadcast).
Full op names (``"stablehlo.add"``); the ``*_SHORT`` tuples give the names without the dialect prefix.
"""

from __future__ import annotations

__all__ = [
    "ELEMENTWISE_UNARY_SHORT",
    "ELEMENTWISE_BINARY_SHORT",
    "ELEMENTWISE_TERNARY_SHORT",
    "ELEMENTWISE_SHORT",
    "ELEMENTWISE",
]

#: One operand, one result of the same shape.
ELEMENTWISE_UNARY_SHORT: tuple[str, ...] = (
    "abs", "cbrt", "ceil", "convert", "cosine", "count_leading_zeros", "exponential",
    "exponential_minus_one", "floor", "imag", "is_finite", "log", "log_plus_one", "logistic", "negate",
    "not", "popcnt", "real", "reduce_precision", "round_nearest_afz", "round_nearest_even", "rsqrt",
    "sign", "sine", "sqrt", "tan", "tanh",
)  # fmt: skip

#: Two operands of one shape.
ELEMENTWISE_BINARY_SHORT: tuple[str, ...] = (
    "add", "and", "atan2", "compare", "complex", "divide", "maximum", "minimum", "multiply", "or",
    "power", "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract",
    "xor",
)  # fmt: skip

#: Three operands; ``clamp``'s min/max and ``select``'s predicate may be 0-d.
ELEMENTWISE_TERNARY_SHORT: tuple[str, ...] = ("clamp", "select")

ELEMENTWISE_SHORT: tuple[str, ...] = ELEMENTWISE_UNARY_SHORT + ELEMENTWISE_BINARY_SHORT + ELEMENTWISE_TERNARY_SHORT

#: Every elementwise StableHLO op, full names.
ELEMENTWISE: frozenset[str] = frozenset("stablehlo." + n for n in ELEMENTWISE_SHORT)
