"""The index of CHLO lowerings: op name -> builder, accepted element types, kind.

To find how ``chlo.acos`` is lowered, look it up here (``build_acos`` in
:mod:`hlokit.passes.chlo.elementwise`). Kinds:

* ``elementwise``: the expansion depends only on element types; its template is shape-independent;
* ``broadcast``: the broadcast family (static or dynamic shapes);
* ``structured``: shapes and attributes shape the expansion (``constant_like``, ``top_k`` and
  ``ragged_dot`` also take dynamic shapes; ``scan`` static ones);
* ``direct``: rewritten in place without a template (``chlo.constant``).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from hlokit.passes.builder import COMPLEX_TYPES, FLOAT_TYPES, INT_TYPES, MINI_FLOAT_TYPES
from hlokit.passes.chlo import broadcast as b
from hlokit.passes.chlo import elementwise as ew
from hlokit.passes.chlo import structured as st

__all__ = ["OpSpec", "TABLE", "ELEMENTWISE", "REAL", "REAL_OR_COMPLEX", "ALL_NUMERIC", "ANY"]


@dataclasses.dataclass(frozen=True)
class OpSpec:
    """How one CHLO op is lowered: ``build`` (its ``build_<op>``), ``types`` (accepted element types of
    the first or last operand; None: any the op's verifier accepts) and ``kind`` (see the module doc)."""

    build: Callable
    types: tuple[str, ...] | None
    kind: str = "elementwise"

    @property
    def elementwise(self) -> bool:
        return self.kind == "elementwise"

    @property
    def dynamic_ok(self) -> bool:
        """Whether the lowering takes dynamic (``?``) dimensions."""
        return self.kind in ("elementwise", "broadcast", "direct") or self.build in DYNAMIC_STRUCTURED


#: Structured builders that take dynamic dimensions.
DYNAMIC_STRUCTURED = (st.build_constant_like, st.build_top_k, st.build_ragged_dot)

REAL = FLOAT_TYPES + MINI_FLOAT_TYPES
REAL_OR_COMPLEX = REAL + COMPLEX_TYPES
ALL_NUMERIC = REAL_OR_COMPLEX + INT_TYPES
ANY = None  # any element type the op's own verifier accepts

TABLE: dict[str, OpSpec] = {
    # elementwise (hlokit.passes.chlo.elementwise)
    "chlo.acos": OpSpec(ew.build_acos, REAL_OR_COMPLEX),
    "chlo.acosh": OpSpec(ew.build_acosh, REAL_OR_COMPLEX),
    "chlo.asin": OpSpec(ew.build_asin, REAL_OR_COMPLEX),
    "chlo.asinh": OpSpec(ew.build_asinh, REAL_OR_COMPLEX),
    "chlo.atan": OpSpec(ew.build_atan, REAL_OR_COMPLEX),
    "chlo.atanh": OpSpec(ew.build_atanh, REAL_OR_COMPLEX),
    "chlo.cosh": OpSpec(ew.build_cosh, REAL_OR_COMPLEX),
    "chlo.sinh": OpSpec(ew.build_sinh, REAL_OR_COMPLEX),
    "chlo.tan": OpSpec(ew.build_tan, REAL_OR_COMPLEX),
    "chlo._asin_acos_kernel": OpSpec(ew.build_asin_acos_kernel, COMPLEX_TYPES),
    "chlo.conj": OpSpec(ew.build_conj, REAL_OR_COMPLEX),
    "chlo.erf": OpSpec(ew.build_erf, REAL),
    "chlo.erfc": OpSpec(ew.build_erfc, REAL),
    "chlo.erf_inv": OpSpec(ew.build_erf_inv, REAL),
    "chlo.lgamma": OpSpec(ew.build_lgamma, REAL),
    "chlo.digamma": OpSpec(ew.build_digamma, REAL),
    "chlo.polygamma": OpSpec(ew.build_polygamma, REAL),
    "chlo.zeta": OpSpec(ew.build_zeta, REAL),
    "chlo.bessel_i1e": OpSpec(ew.build_bessel_i1e, REAL),
    "chlo.is_inf": OpSpec(ew.build_is_inf, REAL),
    "chlo.is_neg_inf": OpSpec(ew.build_is_neg_inf, REAL),
    "chlo.is_pos_inf": OpSpec(ew.build_is_pos_inf, REAL),
    "chlo.next_after": OpSpec(ew.build_next_after, FLOAT_TYPES),
    "chlo.square": OpSpec(ew.build_square, ALL_NUMERIC),
    "chlo.mulhi": OpSpec(ew.build_mulhi, INT_TYPES),
    # broadcast family (hlokit.passes.chlo.broadcast)
    "chlo.broadcast_add": OpSpec(b.build_broadcast_add, ANY, "broadcast"),
    "chlo.broadcast_and": OpSpec(b.build_broadcast_and, ANY, "broadcast"),
    "chlo.broadcast_atan2": OpSpec(b.build_broadcast_atan2, ANY, "broadcast"),
    "chlo.broadcast_complex": OpSpec(b.build_broadcast_complex, ANY, "broadcast"),
    "chlo.broadcast_divide": OpSpec(b.build_broadcast_divide, ANY, "broadcast"),
    "chlo.broadcast_maximum": OpSpec(b.build_broadcast_maximum, ANY, "broadcast"),
    "chlo.broadcast_minimum": OpSpec(b.build_broadcast_minimum, ANY, "broadcast"),
    "chlo.broadcast_multiply": OpSpec(b.build_broadcast_multiply, ANY, "broadcast"),
    "chlo.broadcast_or": OpSpec(b.build_broadcast_or, ANY, "broadcast"),
    "chlo.broadcast_power": OpSpec(b.build_broadcast_power, ANY, "broadcast"),
    "chlo.broadcast_remainder": OpSpec(b.build_broadcast_remainder, ANY, "broadcast"),
    "chlo.broadcast_shift_left": OpSpec(b.build_broadcast_shift_left, ANY, "broadcast"),
    "chlo.broadcast_shift_right_arithmetic": OpSpec(b.build_broadcast_shift_right_arithmetic, ANY, "broadcast"),
    "chlo.broadcast_shift_right_logical": OpSpec(b.build_broadcast_shift_right_logical, ANY, "broadcast"),
    "chlo.broadcast_subtract": OpSpec(b.build_broadcast_subtract, ANY, "broadcast"),
    "chlo.broadcast_xor": OpSpec(b.build_broadcast_xor, ANY, "broadcast"),
    "chlo.broadcast_select": OpSpec(b.build_broadcast_select, ANY, "broadcast"),
    "chlo.broadcast_compare": OpSpec(b.build_broadcast_compare, ANY, "broadcast"),
    "chlo.broadcast_next_after": OpSpec(b.build_broadcast_next_after, FLOAT_TYPES, "broadcast"),
    "chlo.broadcast_polygamma": OpSpec(b.build_broadcast_polygamma, REAL, "broadcast"),
    "chlo.broadcast_zeta": OpSpec(b.build_broadcast_zeta, REAL, "broadcast"),
    # structured (hlokit.passes.chlo.structured)
    "chlo.constant_like": OpSpec(st.build_constant_like, ANY, "structured"),
    "chlo.top_k": OpSpec(st.build_top_k, FLOAT_TYPES + INT_TYPES + ("i1",), "structured"),
    "chlo.ragged_dot": OpSpec(st.build_ragged_dot, ANY, "structured"),
    "chlo.scan": OpSpec(st.build_scan, ANY, "structured"),
    "chlo.constant": OpSpec(st.build_constant, ANY, "direct"),
}

#: Ops whose expansion only depends on element types (shape is a placeholder in the template).
ELEMENTWISE = frozenset(n for n, s in TABLE.items() if s.elementwise)
