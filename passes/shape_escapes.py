"""Refuse shape-dialect values that would leave a legalized shape computation with a ``!shape.*`` type.

``shape-legalize-to-stablehlo`` gives every ``!shape.shape`` / ``!shape.size`` value made by an op it
lowers an integer-tensor form (``tensor<Nxi32>``, ``tensor<i32>``), which the ops it lowers consume.
A value of such a type used by an op the pass does not lower (``func.return``, a call, an op of
another dialect) has no StableHLO form there: bridging it with an ``unrealized_conversion_cast`` back
to ``!shape.*`` would leave a program that no backend runs. Upstream's conversion (StableHLO's
``ShapeLegalizeToStablehlo.cpp``, whose patterns require tensor-typed results) fails such an op with
``failed to legalize operation '<op>' that was explicitly marked illegal``; :func:`check_no_escape`
reproduces that failure, located at the op, before the pass changes anything.

Also the type tests that the pass shares with this check (:func:`index_typed`, :func:`data_spec`,
:func:`result_types`).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from jaxlib.mlir import ir

from hlokit.diagnostics import PassError

__all__ = ["check_no_escape", "SHAPE_TYPES", "MAY_MAKE_SHAPE_VALUES", "index_typed", "has_shape_typed", "data_spec",
           "result_types"]

#: Shape-dialect types that the pass lowers to integer tensors and that have no form outside it.
#: (``!shape.witness`` and ``!shape.value_shape`` are refused by the planner where they are used.)
SHAPE_TYPES = ("!shape.shape", "!shape.size")

#: The ops that ``shape-legalize-to-stablehlo`` lowers whose results may have one of :data:`SHAPE_TYPES`
#: (name prefixes): arith ops make integers, index and floats, the other tensor ops tensors or index.
MAY_MAKE_SHAPE_VALUES = ("shape.", "tensor.extract")

_YIELD = "shape.assuming_yield"
_BUILTIN = (ir.ShapedType, ir.IndexType, ir.IntegerType, ir.FloatType)


def index_typed(t: ir.Type) -> bool:
    """``index``, ``!shape.shape``, ``!shape.size`` or a shaped type of ``index`` elements (the type's text,
    a few microseconds, is only spelled for a type that is neither index nor shaped)."""
    if isinstance(t, ir.IndexType):
        return True
    if isinstance(t, ir.ShapedType):
        return isinstance(ir.ShapedType(t).element_type, ir.IndexType)
    return str(t) in SHAPE_TYPES


def has_shape_typed(types: Iterable[ir.Type]) -> bool:
    """Some type of ``types`` is one of :data:`SHAPE_TYPES` (a builtin type's text is not spelled)."""
    for t in types:
        if not isinstance(t, _BUILTIN) and str(t) in SHAPE_TYPES:
            return True
    return False


def data_spec(t: ir.Type) -> tuple[tuple[int, ...], str]:
    """(shape, element type text) of a ranked tensor type that stays as it is (encoding kept); -1: a
    dynamic dimension."""
    rt = ir.RankedTensorType(t)
    et = str(rt.element_type)
    if rt.encoding is not None:
        et += f", {rt.encoding}"
    return tuple(-1 if ir.ShapedType.is_dynamic_size(d) else d for d in rt.shape), et


if hasattr(getattr(ir, "OpResultList", None), "types"):
    def result_types(op: ir.Operation) -> list[ir.Type]:
        """The result types of ``op`` (one binding call)."""
        return op.results.types
else:  # (bindings without OpResultList.types)
    def result_types(op: ir.Operation) -> list[ir.Type]:
        """The result types of ``op``."""
        return [r.type for r in op.results]


def _foreign_user(v: ir.Value, lowered: set[ir.Operation], depth: int = 0) -> ir.Operation | None:
    """The first user of ``v`` that is not in ``lowered``, following ``shape.assuming`` results that
    the pass inlines (``shape.assuming_yield`` operands become the results of the ``shape.assuming``)."""
    for use in v.uses:
        owner = use.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if owner.name == _YIELD and depth < 64:
            assuming = owner.parent.operation
            if assuming in lowered:
                found = _foreign_user(assuming.results[use.operand_number], lowered, depth + 1)
                if found is not None:
                    return found
                continue
        if owner not in lowered:
            return owner
    return None


def check_no_escape(ops: Iterable[ir.Operation], pass_name: str,
                    results: Iterable[Sequence[ir.Value] | None] | None = None) -> None:
    """Raise for the first op of ``ops`` (the ops the pass lowers, in order) whose ``!shape.shape`` or
    ``!shape.size`` result is used by an op outside ``ops``.

    ``ops``: every op the pass replaces or erases (not the StableHLO ops whose shape operands it only
    patches: those cannot take a ``!shape.*`` operand). ``results``: optionally, per op of ``ops``, its
    results as the caller already read them (None for an op whose results are to be read here; empty for an
    op the caller knows makes no ``!shape.*`` value, whose results are then not read). Raises
    :class:`~hlokit.diagnostics.PassError` located at the op: ``failed to legalize operation
    'shape.num_elements' that was explicitly marked illegal: its result #0 of type !shape.size is used by
    'func.return', ...`` (upstream's message, then the reason). Changes nothing.
    """
    ops = list(ops)
    known = list(results) if results is not None else [None] * len(ops)
    lowered: set[ir.Operation] | None = None  # (made at the first !shape.* result: hashing every op costs)
    for op, rs in zip(ops, known):
        types = result_types(op) if rs is None else [r.type for r in rs]  # (one binding call per op or result)
        for i, t in enumerate(types):
            if isinstance(t, _BUILTIN) or str(t) not in SHAPE_TYPES:  # (a builtin type is never one: no text spelled)
                continue
            if lowered is None:
                lowered = set(ops)
            r = op.results[i]
            user = _foreign_user(r, lowered)
            if user is not None:
                raise PassError(
                    f"failed to legalize operation '{op.name}' that was explicitly marked illegal: its result #{i} "
                    f"of type {r.type} is used by '{user.name}', which {pass_name} does not lower "
                    f"(a {r.type} has no StableHLO form there; return or pass on an extent tensor "
                    "such as tensor<?xindex> or an index instead)",
                    op.location,
                )
