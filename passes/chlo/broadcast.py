"""Builders of the CHLO broadcast family: ``build_broadcast_<op>(e, args, info) -> results``.

A ``chlo.broadcast_<op>`` broadcasts its operands to the result shape — numpy trailing alignment, or the
``broadcast_dimensions`` attribute for the lower-rank operand (CHLO op definitions in jaxlib's ``chlo``
dialect; XLA operation semantics, "Broadcasting", https://openxla.org/xla/broadcasting) — and applies
the StableHLO op of the same name. Dynamic dimensions: per dimension the broadcast extent is the first
operand extent that is not 1 (CHLO requires broadcast-compatible operands; no runtime check is
emitted), then ``dynamic_broadcast_in_dim``.
"""

from __future__ import annotations

from hlokit.passes.builder import Emitter, V
from hlokit.passes.chlo import real
from hlokit.passes.chlo.elementwise import via_f64

__all__ = [
    "BINARY",
    "broadcast_operands",
    "build_broadcast_add", "build_broadcast_and", "build_broadcast_atan2", "build_broadcast_complex",
    "build_broadcast_divide", "build_broadcast_maximum", "build_broadcast_minimum",
    "build_broadcast_multiply", "build_broadcast_or", "build_broadcast_power", "build_broadcast_remainder",
    "build_broadcast_shift_left", "build_broadcast_shift_right_arithmetic",
    "build_broadcast_shift_right_logical", "build_broadcast_subtract", "build_broadcast_xor",
    "build_broadcast_select", "build_broadcast_compare", "build_broadcast_next_after",
    "build_broadcast_polygamma", "build_broadcast_zeta",
]

#: ``chlo.broadcast_<op>`` -> the StableHLO elementwise op applied after broadcasting.
BINARY = {
    "chlo.broadcast_add": "add", "chlo.broadcast_and": "and", "chlo.broadcast_atan2": "atan2",
    "chlo.broadcast_complex": "complex", "chlo.broadcast_divide": "divide",
    "chlo.broadcast_maximum": "maximum", "chlo.broadcast_minimum": "minimum",
    "chlo.broadcast_multiply": "multiply", "chlo.broadcast_or": "or", "chlo.broadcast_power": "power",
    "chlo.broadcast_remainder": "remainder", "chlo.broadcast_shift_left": "shift_left",
    "chlo.broadcast_shift_right_arithmetic": "shift_right_arithmetic",
    "chlo.broadcast_shift_right_logical": "shift_right_logical", "chlo.broadcast_subtract": "subtract",
    "chlo.broadcast_xor": "xor",
}


def _dynamic_broadcast(e: Emitter, args: list[V], shapes, out_shape, dims) -> list[V]:
    """Broadcast ``args`` to the (partly dynamic) ``out_shape``; sets ``e.shape_tensor``."""
    rank = len(out_shape)
    maps = []
    for s in shapes:
        d = list(range(rank - len(s), rank)) if dims is None or len(s) == rank else list(dims)
        maps.append(d)
    parts = []
    for j, ext in enumerate(out_shape):
        if ext >= 0:
            parts.append(e.const(ext, t="i32", shape=(1,)))
            continue
        r = e.scalar(1, "i32")
        for a, s, m in zip(args, shapes, maps):
            if j not in m:
                continue
            i = m.index(j)
            size = e.scalar(s[i], "i32") if s[i] >= 0 else e.get_dimension_size(a, i)
            r = e.select(size.eq(e.scalar(1, "i32")), r, size)
        parts.append(e.reshape(r, [1]))
    shape_t = e.concatenate(parts, 0)
    e.shape_tensor = shape_t
    out = []
    for a, s, m in zip(args, shapes, maps):
        if list(s) == list(out_shape) and all(d >= 0 for d in s):
            out.append(a)
            continue
        out.append(e.dynamic_broadcast_in_dim(a, shape_t, out_shape, m))
    return out


def broadcast_operands(e: Emitter, args: list[V], info, dims) -> list[V]:
    """``args`` broadcast to the result shape of ``info`` (``dims``: ``broadcast_dimensions`` or None
    for numpy trailing alignment)."""
    out_shape = info.result_shapes[0]
    if any(d < 0 for s in info.operand_shapes + [out_shape] for d in s):
        return _dynamic_broadcast(e, args, info.operand_shapes, out_shape, dims)
    return [e.broadcast_in_dim(a, out_shape, dims if list(s) != list(out_shape) else None)
            for a, s in zip(args, info.operand_shapes)]


def _binary(op_name: str):
    stablehlo_op = BINARY[op_name]

    def build(e: Emitter, args: list[V], info) -> list[V]:
        bargs = broadcast_operands(e, args, info, info.attrs.get("broadcast_dimensions"))
        return [e.elementwise(stablehlo_op, *bargs, t=info.result_elems[0])]

    build.__doc__ = f"``{op_name}``: broadcast, then ``stablehlo.{stablehlo_op}``."
    return build


build_broadcast_add = _binary("chlo.broadcast_add")
build_broadcast_and = _binary("chlo.broadcast_and")
build_broadcast_atan2 = _binary("chlo.broadcast_atan2")
build_broadcast_complex = _binary("chlo.broadcast_complex")
build_broadcast_divide = _binary("chlo.broadcast_divide")
build_broadcast_maximum = _binary("chlo.broadcast_maximum")
build_broadcast_minimum = _binary("chlo.broadcast_minimum")
build_broadcast_multiply = _binary("chlo.broadcast_multiply")
build_broadcast_or = _binary("chlo.broadcast_or")
build_broadcast_power = _binary("chlo.broadcast_power")
build_broadcast_remainder = _binary("chlo.broadcast_remainder")
build_broadcast_shift_left = _binary("chlo.broadcast_shift_left")
build_broadcast_shift_right_arithmetic = _binary("chlo.broadcast_shift_right_arithmetic")
build_broadcast_shift_right_logical = _binary("chlo.broadcast_shift_right_logical")
build_broadcast_subtract = _binary("chlo.broadcast_subtract")
build_broadcast_xor = _binary("chlo.broadcast_xor")


def build_broadcast_select(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.broadcast_select(pred, on_true, on_false)``: numpy broadcasting, then ``stablehlo.select``."""
    bargs = broadcast_operands(e, args, info, None)
    return [e.select(*bargs)]


def build_broadcast_compare(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.broadcast_compare``: broadcast, then ``stablehlo.compare`` with the op's direction and type."""
    bargs = broadcast_operands(e, args, info, info.attrs.get("broadcast_dimensions"))
    return [e.compare(info.attrs["comparison_direction"], bargs[0], bargs[1], info.attrs.get("compare_type"))]


def build_broadcast_next_after(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.broadcast_next_after``: broadcast, then :func:`real.next_after`."""
    bargs = broadcast_operands(e, args, info, info.attrs.get("broadcast_dimensions"))
    return [real.next_after(e, *bargs)]


def build_broadcast_polygamma(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.broadcast_polygamma``: broadcast, then the polygamma kernel in f64."""
    bargs = broadcast_operands(e, args, info, info.attrs.get("broadcast_dimensions"))
    return via_f64(real.polygamma64)(e, bargs, info)


def build_broadcast_zeta(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.broadcast_zeta``: broadcast, then the Hurwitz zeta kernel in f64."""
    bargs = broadcast_operands(e, args, info, info.attrs.get("broadcast_dimensions"))
    return via_f64(real.zeta64)(e, bargs, info)
