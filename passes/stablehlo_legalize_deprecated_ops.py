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

Every op of the anchor is checked and every template built before the first rewrite, so a refused op
(malformed einsum configuration, a dynamic shape where einsum or torch_index_select needs a static one,
an unranked tensor) fails the pass with a located diagnostic and leaves the function unchanged. The
expansions are written on :mod:`hlokit.passes.builder`: one template per signature (op, types,
attributes), parsed once per context and cloned in place of each op.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs._mlir import rewrite as _rewrite
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.passes.builder import (
    V,
    Emitter,
    TemplateCache,
    UnsupportedError,
    find_ops,
    instantiate,
    relocate,
    shape_prefix,
)
from hlokit.passes.einsum import EinsumError, build_einsum, parse_einsum
from hlokit.passes.registry import Option, Pass, fail, register_pass
from hlokit.passes.stablehlo_legalize_dot_to_dot_general import rewrite_dot

__all__ = ["DEPRECATED_OPS", "StablehloLegalizeDeprecatedOps", "build_torch_index_select"]

#: The ops this pass rewrites.
DEPRECATED_OPS = ("stablehlo.broadcast", "stablehlo.create_token", "stablehlo.cross-replica-sum",
                  "stablehlo.dot", "stablehlo.einsum", "stablehlo.unary_einsum", "stablehlo.torch_index_select")
#: Refused with ``fail-on-unused=true`` (deprecated, no replacement here).
UNUSED_OPS = ("stablehlo.map", "stablehlo.rng")


def _ranked(op, values, what: str) -> list[tuple[list[int], str]]:
    """``(shape, element type)`` of each value; PassError for an unranked or non-tensor value."""
    out = []
    for v in values:
        if not isinstance(v.type, ir.RankedTensorType):
            raise fail(f"'{op.name}' {what} of type {v.type} cannot be legalized: ranked tensors only", op)
        t = ir.RankedTensorType(v.type)
        out.append(([d if not ir.ShapedType.is_dynamic_size(d) else -1 for d in t.shape], str(t.element_type)))
    return out


def _static(op, shapes) -> None:
    for s in shapes:
        if any(d < 0 for d in s):
            raise fail(f"'{op.name}' with a dynamic shape is not supported by stablehlo-legalize-deprecated-ops "
                       "(static shapes only)", op)


def build_torch_index_select(e: Emitter, x: V, index: V, dim: int, batch_dims: int) -> V:
    """``torch_index_select(x, index)`` as one ``gather`` (StableHLO spec, "gather"): ``x`` of rank r,
    ``index`` (integer) of rank q, ``0 <= batch_dims <= dim < r``, ``batch_dims <= q``; the result has
    shape ``x.shape[:dim] + index.shape[batch_dims:] + x.shape[dim+1:]``."""
    xs, qs = x.shape, index.shape
    r, q = len(xs), len(qs)
    out = xs[:dim] + qs[batch_dims:] + xs[dim + 1:]
    offset = list(range(batch_dims, dim)) + list(range(dim + q - batch_dims, len(out)))
    fields = [f"offset_dims = [{', '.join(map(str, offset))}]", f"collapsed_slice_dims = [{dim}]"]
    if batch_dims:
        b = ", ".join(map(str, range(batch_dims)))
        fields += [f"operand_batching_dims = [{b}]", f"start_indices_batching_dims = [{b}]"]
    fields += [f"start_index_map = [{dim}]", f"index_vector_dim = {q}"]
    sizes = [1 if i < batch_dims or i == dim else d for i, d in enumerate(xs)]
    attrs = (f"dimension_numbers = #stablehlo.gather<{', '.join(fields)}>, indices_are_sorted = false, "
             f"slice_sizes = array<i64: {', '.join(map(str, sizes))}>")
    (res,) = e.op("stablehlo.gather", [x, index], [(shape_prefix(out), x.t)], attrs)
    return res


@register_pass
class StablehloLegalizeDeprecatedOps(Pass):
    """Rewrite ``broadcast``, ``create_token``, ``cross-replica-sum``, ``dot``, ``einsum``,
    ``unary_einsum`` and ``torch_index_select`` into core StableHLO (see the module docstring).

    Anchor ``func.func`` (ops inside regions included). Raises :class:`~hlokit.diagnostics.PassError`,
    located at the op, before changing anything: an einsum configuration that
    :func:`hlokit.passes.einsum.parse_einsum` refuses or whose output shape differs from the result type, an einsum / torch_index_select with a dynamic or unranked
    shape, a torch_index_select whose ``dim`` / ``batch_dims`` / shapes do not fit, and with
    ``fail-on-unused=true`` any ``map`` or ``rng``.
    """

    argument = "stablehlo-legalize-deprecated-ops"
    summary = "Legalize deprecated StableHLO ops (broadcast, dot, einsum, torch_index_select, ...) to core ops"
    anchor = "func.func"
    options = (Option("fail-on-unused", bool, False,
                      "refuse stablehlo.map and stablehlo.rng (deprecated, no replacement in this pass)"),)

    def _cache(self, context: ir.Context) -> TemplateCache:
        return TemplateCache.of_pass(self, context)

    def _dot_patterns(self, context: ir.Context):
        cache = self.__dict__.setdefault("_dot_frozen", {})
        entry = cache.get(id(context))
        if entry is None or entry[0] is not context:
            patterns = _rewrite.RewritePatternSet(context)
            patterns.add(stablehlo.DotOp, rewrite_dot)
            entry = cache[id(context)] = (context, patterns.freeze())
        return entry[1]

    def run_on_operation(self, func_op: ir.Operation) -> None:
        refused = UNUSED_OPS if self.fail_on_unused else ()
        found = find_ops(func_op, DEPRECATED_OPS + refused)
        if not found:
            return
        cache = self._cache(func_op.context)
        plan = [(op, self._plan(op, cache)) for op in found]  # every op checked before any rewrite
        dots = False
        for op, template in plan:
            if op.name == "stablehlo.dot":
                dots = True
            elif op.name == "stablehlo.create_token":
                with ir.InsertionPoint(op), op.location:
                    new = stablehlo.AfterAllOp([])
                op.results[0].replace_all_uses_with(new.result)
                op.erase()
            else:
                instantiate(cache, template, op, prepare=lambda clone, op=op: relocate(clone, op.location))
        if dots:
            _rewrite.walk_and_apply_patterns(func_op, self._dot_patterns(func_op.context))

    def _plan(self, op: ir.Operation, cache: TemplateCache):
        """Check ``op``; return its template (None for dot and create_token); PassError when refused."""
        name = op.name
        if name in UNUSED_OPS:
            raise fail(f"'{name}' is deprecated with no replacement (refused by "
                       "stablehlo-legalize-deprecated-ops{fail-on-unused=true})", op)
        if name == "stablehlo.create_token":
            return None
        ins = _ranked(op, op.operands, "operand")
        outs = _ranked(op, op.results, "result")
        if name == "stablehlo.dot":
            return None
        key = (name, tuple(str(v.type) for v in op.operands), tuple(str(v.type) for v in op.results),
               tuple(sorted((n, str(op.attributes[n])) for n in op.attributes)))
        hit = cache.funcs.get(key)
        if hit is not None:
            return hit
        e = Emitter(name)
        args = e.args([(shape_prefix(s), t) for s, t in ins])
        (rs, rt), = outs
        try:
            if name == "stablehlo.broadcast":
                res = self._broadcast(e, args[0], ins[0][0], attributes.i64_array(op, "broadcast_sizes"), rs)
            elif name == "stablehlo.cross-replica-sum":
                groups = attributes.get(op, "replica_groups")
                (res,) = e.op("stablehlo.all_reduce", args, [(shape_prefix(rs), rt)], f"replica_groups = {groups}",
                              [e.region([("", rt), ("", rt)], lambda a, b: a + b)])
            elif name in ("stablehlo.einsum", "stablehlo.unary_einsum"):
                _static(op, [s for s, _ in ins + outs])
                config = attributes.str_value(op, "einsum_config")
                try:
                    p = parse_einsum(config, [s for s, _ in ins])
                except EinsumError as err:
                    raise fail(f"'{name}': {err}", op) from None
                if p.output_shape != rs:
                    raise fail(f"'{name}': einsum config '{config}' gives shape {p.output_shape}, the result "
                               f"type is {op.results[0].type}", op)
                res = build_einsum(e, args, p, rt)
            else:  # torch_index_select
                _static(op, [s for s, _ in ins + outs])
                res = self._torch_index_select(op, e, args, ins, rs, rt)
        except attributes.AttributeReadError as err:
            raise fail(f"'{name}': {err}", op) from None
        try:
            return cache.parse(key, e.text("deprecated", args, [res]), name)
        except UnsupportedError as err:
            raise fail(str(err), op) from None

    @staticmethod
    def _broadcast(e: Emitter, x: V, xs: list[int], sizes: list[int], rs: list[int]) -> V:
        """``broadcast`` -> ``broadcast_in_dim`` onto the trailing dimensions; with a dynamic operand
        dimension ``dynamic_broadcast_in_dim`` to ``sizes ++ shape(x)`` (``broadcast_in_dim`` wants a
        static result)."""
        dims = list(range(len(sizes), len(sizes) + len(xs)))
        if all(d >= 0 for d in rs):
            return e.broadcast_in_dim(x, rs, dims)  # no op for empty sizes
        parts = [e.const(d, t="i32", s="1x") for d in sizes]
        for i, d in enumerate(xs):
            parts.append(e.const(d, t="i32", s="1x") if d >= 0 else e.reshape(e.get_dimension_size(x, i), [1]))
        return e.dynamic_broadcast_in_dim(x, e.concat(parts), rs, dims)

    @staticmethod
    def _torch_index_select(op, e: Emitter, args, ins, rs, rt) -> V:
        (xs, xt), (qs, qt) = ins
        dim = attributes.int_value(op, "dim")
        batch_dims = attributes.int_value(op, "batch_dims")
        dim = dim + len(xs) if dim < 0 else dim
        batch_dims = batch_dims + len(qs) if batch_dims < 0 else batch_dims
        if not 0 <= batch_dims <= dim < len(xs) or batch_dims > len(qs):
            raise fail(f"'{op.name}': dim {dim} and batch_dims {batch_dims} do not fit an operand of rank "
                       f"{len(xs)} and an index of rank {len(qs)} (0 <= batch_dims <= dim < rank, "
                       "batch_dims <= index rank)", op)
        if xs[:batch_dims] != qs[:batch_dims]:
            raise fail(f"'{op.name}': the first {batch_dims} dimension(s) of the operand {xs} and the index {qs} "
                       "differ", op)
        if not (qt.startswith("i") or qt.startswith("ui")) or qt == "i1":
            raise fail(f"'{op.name}': index element type '{qt}' is not an integer type", op)
        want = xs[:dim] + qs[batch_dims:] + xs[dim + 1:]
        if want != rs or rt != xt:
            raise fail(f"'{op.name}': the result type {op.results[0].type} differs from "
                       f"tensor<{shape_prefix(want)}{xt}>", op)
        return build_torch_index_select(e, args[0], args[1], dim, batch_dims)
