"""``--stablehlo-legalize-deprecated-ops``: rewrite StableHLO's deprecated ops into the ops that stay.

The StableHLO v1.0 opset deprecations (RFC https://github.com/openxla/stablehlo/pull/2283; the
specification, https://openxla.org/stablehlo/spec, no longer lists these ops) keep each deprecated op
expressible with a supported one. This pass (hlokit's own, under the flag of the upstream C++ pass, which
stops at ``einsum``) reaches core ops for every one of them:

* ``broadcast`` (``broadcast_sizes``) -> ``broadcast_in_dim`` whose operand dimensions are the trailing
  result dimensions (XLA operation semantics, "Broadcast", https://openxla.org/xla/operation_semantics);
* ``create_token`` -> ``after_all`` with no operands (spec, "after_all");
* ``cross-replica-sum`` -> ``all_reduce`` with the same ``replica_groups`` and an ``add`` region (XLA
  operation semantics, "CrossReplicaSum" is ``AllReduce`` with a sum; spec, "all_reduce");
* ``dot`` -> ``dot_general`` (``rewrite_dot`` of :mod:`hlokit.passes.stablehlo_legalize_dot_to_dot_general`);
* ``einsum`` and ``unary_einsum`` -> ``transpose`` / ``reshape`` / ``slice`` / ``reduce`` /
  ``dot_general`` (+ ``broadcast_in_dim`` / ``select`` for a label repeated in the output) for every
  configuration numpy's ``einsum`` accepts (batch and contracting labels, diagonals, labels summed out
  of one operand, ``...`` with broadcasting, implicit output) and XLA's repeated output labels:
  :mod:`hlokit.passes.einsum`;
* ``torch_index_select`` (``dim``, ``batch_dims``) -> ``gather`` with operand / start-indices batching
  dimensions (spec, "gather"): ``result[b..., i..., j...] = operand[b..., index[b..., i...], j...]``
  with the operand's dimensions before ``dim`` (the first ``batch_dims`` of them shared with
  ``index``), then ``index``'s non-batch dimensions, then the operand's dimensions after ``dim``,
  XLA's ``TorchIndexSelect`` (``xla/hlo/builder/lib/slicing.cc``); out-of-range indices clamp, as gather's do.

Option ``fail-on-unused`` (upstream's; default ``false`` here, ``true`` upstream): refuse
``stablehlo.map`` and ``stablehlo.rng``, the deprecated ops with no replacement in this pass (``rng`` has its
own expander, ``--stablehlo-expand-rng``).

Each op's legalization is one entry of :data:`TABLE` (its builder, the attributes that select it, whether
it needs static shapes), driven by :class:`~hlokit.passes.template_pass.TemplatePass`: every op of the
anchor is checked and every template built before the first rewrite, so a refused op (malformed einsum
configuration, a dynamic shape where einsum or torch_index_select needs a static one, an unranked tensor)
fails the pass with a located diagnostic and leaves the function unchanged. The expansions are written on
:mod:`hlokit.passes.builder`: one template per signature (op, types, attributes), parsed once per context
and cloned in place of each op; ``dot`` and ``create_token`` (whose ``!stablehlo.token`` result a
template cannot spell) are rewritten in place.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.passes.builder import V, Emitter, UnsupportedError, shape_prefix
from hlokit.passes.builder_templates import body_rewriter
from hlokit.passes.einsum import EinsumError, build_einsum, parse_einsum
from hlokit.passes.registry import Option, fail, register_pass
from hlokit.passes.stablehlo_legalize_dot_to_dot_general import replace_dot
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = ["DEPRECATED_OPS", "TABLE", "Legalization", "StablehloLegalizeDeprecatedOps", "build_torch_index_select"]


def build_torch_index_select(e: Emitter, x: V, index: V, dim: int, batch_dims: int) -> V:
    """``torch_index_select(x, index)`` as one ``gather`` (StableHLO spec, "gather"): ``x`` of rank r,
    ``index`` (integer) of rank q, ``0 <= batch_dims <= dim < r``, ``batch_dims <= q``; the result has
    shape ``x.shape[:dim] + index.shape[batch_dims:] + x.shape[dim+1:]``."""
    xs, qs = x.shape, index.shape
    q = len(qs)
    out = xs[:dim] + qs[batch_dims:] + xs[dim + 1:]
    offset = list(range(batch_dims, dim)) + list(range(dim + q - batch_dims, len(out)))
    sizes = [1 if i < batch_dims or i == dim else d for i, d in enumerate(xs)]
    batch = list(range(batch_dims))
    return e.gather(x, index, offset_dims=offset, collapsed_slice_dims=[dim], start_index_map=[dim],
                    index_vector_dim=q, slice_sizes=sizes, operand_batching_dims=batch,
                    start_indices_batching_dims=batch)


# -- one builder per op: (emitter, operands, OpInfo) -> the result ------------------------------------

def _broadcast(e: Emitter, args: list[V], info: OpInfo) -> V:
    """``broadcast`` -> ``broadcast_in_dim`` onto the trailing dimensions; with a dynamic operand
    dimension ``dynamic_broadcast_in_dim`` to ``sizes ++ shape(x)`` (``broadcast_in_dim`` wants a
    static result)."""
    (x,), (sizes,) = args, info.attrs
    xs, rs = info.operand_shapes[0], info.result_shapes[0]
    dims = list(range(len(sizes), len(sizes) + len(xs)))
    if all(d >= 0 for d in rs):
        return e.broadcast_in_dim(x, rs, dims)  # no op for empty sizes
    parts = [e.const(d, t="i32", shape=(1,)) for d in sizes]
    for i, d in enumerate(xs):
        parts.append(e.const(d, t="i32", shape=(1,)) if d >= 0 else e.reshape(e.get_dimension_size(x, i), [1]))
    return e.dynamic_broadcast_in_dim(x, e.concatenate(parts, 0), rs, dims)


def _replica_groups(op) -> tuple[tuple[int, ...], ...]:
    """``replica_groups`` of a ``cross-replica-sum`` as rows of replica ids."""
    groups = np.array(ir.DenseIntElementsAttr(attributes.get(op, "replica_groups"))).tolist()
    return tuple(tuple(int(i) for i in row) for row in groups)


def _cross_replica_sum(e: Emitter, args: list[V], info: OpInfo) -> V:
    """``cross-replica-sum`` -> ``all_reduce`` with the same ``replica_groups`` and an ``add`` region."""
    (groups,) = info.attrs
    (res,) = e.all_reduce(args, groups, lambda a, b: a + b)
    return res


def _einsum(e: Emitter, args: list[V], info: OpInfo) -> V:
    """``einsum`` / ``unary_einsum`` -> :func:`hlokit.passes.einsum.build_einsum`."""
    (config,) = info.attrs
    try:
        p = parse_einsum(config, info.operand_shapes)
    except EinsumError as err:
        raise UnsupportedError(str(err)) from None
    if p.output_shape != info.result_shapes[0]:
        raise UnsupportedError(f"einsum config '{config}' gives shape {p.output_shape}, the result type is "
                               f"{info.result_types[0]}")
    return build_einsum(e, args, p, info.result_elems[0])


def _torch_index_select(e: Emitter, args: list[V], info: OpInfo) -> V:
    """``torch_index_select`` -> :func:`build_torch_index_select`, after checking ``dim`` / ``batch_dims``
    (negative ones count from the end) against the shapes and the result type."""
    (xs, qs), (xt, qt) = info.operand_shapes, info.operand_elems
    rs, rt = info.result_shapes[0], info.result_elems[0]
    dim, batch_dims = info.attrs
    dim = dim + len(xs) if dim < 0 else dim
    batch_dims = batch_dims + len(qs) if batch_dims < 0 else batch_dims
    if not 0 <= batch_dims <= dim < len(xs) or batch_dims > len(qs):
        raise UnsupportedError(f"dim {dim} and batch_dims {batch_dims} do not fit an operand of rank {len(xs)} and an "
                               f"index of rank {len(qs)} (0 <= batch_dims <= dim < rank, batch_dims <= index rank)")
    if xs[:batch_dims] != qs[:batch_dims]:
        raise UnsupportedError(f"the first {batch_dims} dimension(s) of the operand {xs} and the index {qs} differ")
    if not (qt.startswith("i") or qt.startswith("ui")) or qt == "i1":
        raise UnsupportedError(f"index element type '{qt}' is not an integer type")
    want = xs[:dim] + qs[batch_dims:] + xs[dim + 1:]
    if want != rs or rt != xt:
        raise UnsupportedError(f"the result type {info.result_types[0]} differs from tensor<{shape_prefix(want)}{xt}>")
    return build_torch_index_select(e, args[0], args[1], dim, batch_dims)


def _create_token(op: ir.Operation) -> None:
    """``create_token`` -> ``after_all`` with no operands, in place."""
    with ir.InsertionPoint(op), op.location:
        new = stablehlo.AfterAllOp([])
    op.results[0].replace_all_uses_with(new.result)
    op.erase()


def _replacer(name: str, results: list[ir.Type], attrs: dict[str, ir.Attribute]) -> Callable[[ir.Operation], None]:
    """A rewrite ``op -> name(op's operands) {attrs} : results`` at the op's location, in place: what the ops of
    one signature (name, types, attributes) share is made once, and each op costs one ``Operation.create``."""
    def rewrite(op: ir.Operation) -> None:
        new = ir.Operation.create(name, results=results, operands=list(op.operands), attributes=attrs,
                                  loc=op.location, ip=ir.InsertionPoint(op))
        op.result.replace_all_uses_with(new.result)
        op.erase()

    return rewrite


def _dot_rewriter(op: ir.Operation) -> Callable[[ir.Operation], None]:
    """The in-place rewrite of the ``dot`` ops of ``op``'s signature: ``dot_general`` contracting the last
    dimension of ``lhs`` with the first of ``rhs``, ``precision_config`` carried over (what
    :func:`~hlokit.passes.stablehlo_legalize_dot_to_dot_general.replace_dot` writes)."""
    lhs_rank = ir.RankedTensorType(op.operands[0].type).rank
    attrs = {"dot_dimension_numbers": stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=[], rhs_batching_dimensions=[], lhs_contracting_dimensions=[lhs_rank - 1],
        rhs_contracting_dimensions=[0], context=op.context)}
    if "precision_config" in op.attributes:
        attrs["precision_config"] = op.attributes["precision_config"]
    return _replacer("stablehlo.dot_general", [op.result.type], attrs)


def _create_token_rewriter(op: ir.Operation) -> Callable[[ir.Operation], None]:
    """The in-place rewrite of ``create_token`` ops: ``after_all`` with no operands."""
    return _replacer("stablehlo.after_all", [op.result.type], {})


@dataclasses.dataclass(frozen=True)
class Legalization:
    """How one deprecated op is legalized: ``build(e, operands, info)`` writes its template, or
    ``in_place(op)`` rewrites it without one (``rewriter(op)``: the same rewrite for every op of ``op``'s
    signature, made once per signature); ``attributes(op)`` reads what selects the expansion (a
    tuple); ``static``: dynamic shapes are refused."""

    build: Callable[[Emitter, list[V], OpInfo], V] | None = None
    in_place: Callable[[ir.Operation], None] | None = None
    attributes: Callable[[ir.Operation], tuple] = lambda op: ()
    static: bool = False
    rewriter: Callable[[ir.Operation], Callable[[ir.Operation], None]] | None = None


def _einsum_config(op) -> tuple:
    return (attributes.str_value(op, "einsum_config"),)


#: op name -> its legalization.
TABLE: dict[str, Legalization] = {
    "stablehlo.broadcast": Legalization(
        _broadcast, attributes=lambda op: (tuple(attributes.i64_array(op, "broadcast_sizes")),)),
    "stablehlo.create_token": Legalization(in_place=_create_token, rewriter=_create_token_rewriter),
    "stablehlo.cross-replica-sum": Legalization(
        _cross_replica_sum, attributes=lambda op: (_replica_groups(op),)),
    "stablehlo.dot": Legalization(in_place=replace_dot, rewriter=_dot_rewriter),
    "stablehlo.einsum": Legalization(_einsum, attributes=_einsum_config, static=True),
    "stablehlo.unary_einsum": Legalization(_einsum, attributes=_einsum_config, static=True),
    "stablehlo.torch_index_select": Legalization(
        _torch_index_select, static=True,
        attributes=lambda op: (attributes.int_value(op, "dim"), attributes.int_value(op, "batch_dims"))),
}
#: The ops this pass rewrites.
DEPRECATED_OPS = tuple(TABLE)
#: Refused with ``fail-on-unused=true`` (deprecated, no replacement here).
UNUSED_OPS = ("stablehlo.map", "stablehlo.rng")


@register_pass
class StablehloLegalizeDeprecatedOps(TemplatePass):
    """Rewrite ``broadcast``, ``create_token``, ``cross-replica-sum``, ``dot``, ``einsum``,
    ``unary_einsum`` and ``torch_index_select`` into core StableHLO (see the module docstring).

    Anchor ``func.func`` (ops inside regions included). Raises :class:`~hlokit.diagnostics.PassError`,
    located at the op, before changing anything: an einsum configuration that
    :func:`hlokit.passes.einsum.parse_einsum` refuses or whose output shape differs from the result type,
    an einsum / torch_index_select with a dynamic or unranked shape, a torch_index_select whose ``dim`` /
    ``batch_dims`` / shapes do not fit, and with ``fail-on-unused=true`` any ``map`` or ``rng``.
    """

    argument = "stablehlo-legalize-deprecated-ops"
    summary = "Legalize deprecated StableHLO ops (broadcast, dot, einsum, torch_index_select, ...) to core ops"
    anchor = "func.func"
    options = (Option("fail-on-unused", bool, False,
                      "refuse stablehlo.map and stablehlo.rng (deprecated, no replacement in this pass)"),)
    illegal_ops = frozenset(TABLE)
    static_shapes = False  # per op: Legalization.static
    plan_per_signature = True

    def matches(self, op) -> bool:
        """The deprecated ops, and with ``fail-on-unused`` the ones refused."""
        return op.name in TABLE or (self.fail_on_unused and op.name in UNUSED_OPS)

    def check(self, op) -> None:
        """Refuse an unused op (``fail-on-unused``), an unranked or non-tensor value, and a dynamic shape
        where the op's :class:`Legalization` is ``static``."""
        name = op.name
        if name in UNUSED_OPS:
            raise fail(f"'{name}' is deprecated with no replacement (refused by "
                       "stablehlo-legalize-deprecated-ops{fail-on-unused=true})", op)
        if name == "stablehlo.create_token":
            return
        for what, values in (("operand", op.operands), ("result", op.results)):
            for v in values:
                if not isinstance(v.type, ir.RankedTensorType):
                    raise fail(f"'{name}' {what} of type {v.type} cannot be legalized: ranked tensors only", op)
                if TABLE[name].static and not ir.RankedTensorType(v.type).has_static_shape:
                    raise fail(f"'{name}' with a dynamic shape is not supported by stablehlo-legalize-deprecated-ops "
                               "(static shapes only)", op)

    def plan_op(self, cache, op, index):
        """Check ``op``; its template, or the function rewriting it in place (``dot``, ``create_token``)."""
        self.check(op)
        entry = TABLE[op.name]
        if entry.rewriter is not None:  # (one rewriter per signature: ``plan_per_signature``)
            return entry.rewriter(op)
        if entry.in_place is not None:
            return entry.in_place
        template = self.template(cache, op, self.op_info(op, index))
        # A body of a few ops (unary_einsum: a constant and a reduce) written op by op, the reduce cloned alone:
        # what instantiate writes, without cloning the whole template per op (issue 40, item 1).
        return body_rewriter(cache, template, relocate_nested=self.relocate) or template

    def attributes(self, op) -> tuple:
        return TABLE[op.name].attributes(op)

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        return TABLE[info.name].build(e, operands, info)
