"""``--chlo-legalize-to-stablehlo``: expand every CHLO op into StableHLO ops.

CHLO has no compatibility guarantee (StableHLO's compatibility guarantees cover the ``stablehlo``
dialect only, https://openxla.org/stablehlo/compatibility), so a program is legalized before it is
serialized or interpreted. This pass is hlokit's own (Python) implementation under the upstream flag
name; each op's lowering is ``build_<op>`` in :mod:`hlokit.passes.chlo` (index:
:data:`hlokit.passes.chlo.table.TABLE`), written on :mod:`hlokit.passes.builder`.

Design (speed): the expansion of an op depends only on its op name, element types and attributes (and,
for non-elementwise ops, its shapes). Each such signature is turned into a private ``func.func`` template
once per context (text generated once, parsed once per concrete shape) and kept in a scratch module. A
CHLO op is rewritten by cloning its template (one C++ call), moving the cloned body before the op and
rewiring operands/results: a few Python calls per op whatever the size of the expansion.

Atomicity: every CHLO op of the anchor is checked and every template is built before anything is
rewritten, so an unsupported op (element type, unranked or dynamic tensor, unsupported attribute mode)
fails the pass with a located diagnostic and leaves the IR untouched.
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.diagnostics import PassError
from hlokit.passes.builder import TemplateCache, UnsupportedError, instantiate, relocate, splice
from hlokit.passes.chlo import TABLE, OpInfo, find_chlo_ops, read_attrs, template_for
from hlokit.passes.chlo.structured import SCAN_BODY, build_constant
from hlokit.passes.registry import Pass, register_pass

__all__ = ["ChloLegalizeToStablehlo"]


def _tensor_types(values, what: str, op: ir.Operation):
    shapes, elems = [], []
    for v in values:
        t = v.type
        if not isinstance(t, ir.RankedTensorType):
            if isinstance(t, ir.UnrankedTensorType):
                raise PassError(
                    f"'{op.name}' on an unranked tensor ({t}) cannot be legalized: ranked tensors only",
                    op.location,
                )
            raise PassError(f"'{op.name}' {what} of type {t} is not a tensor", op.location)
        rt = ir.RankedTensorType(t)
        shapes.append([d if d >= 0 else -1 for d in rt.shape])
        elems.append(str(rt.element_type))
    return shapes, elems


def _check_scan(op: ir.Operation) -> None:
    """Raise PassError unless ``op`` (chlo.scan) has static ranked types and a scan dimension size."""
    _tensor_types(op.operands, "operand", op)
    _tensor_types(op.results, "result", op)
    for v in list(op.operands) + list(op.results):
        if any(d < 0 for d in ir.RankedTensorType(v.type).shape):
            raise PassError(f"'chlo.scan' with a dynamic shape ({v.type}) is not supported", op.location)
    n_in, _ = attributes.i32_array(op, "operandSegmentSizes")
    n_out, _ = attributes.i32_array(op, "resultSegmentSizes")
    if n_in == 0 and n_out == 0 and not attributes.has(op, "scan_dim_size"):
        raise PassError("'chlo.scan' without inputs or outputs has no scan length", op.location)


@register_pass
class ChloLegalizeToStablehlo(Pass):
    """Legalize every CHLO op to StableHLO (hlokit's Python implementation of the upstream flag).

    Anchor ``func.func``. Static shapes; element types per op as in
    :data:`hlokit.passes.chlo.table.TABLE`. Raises
    :class:`~hlokit.diagnostics.PassError` (located at the op) for an unranked or dynamic tensor, an
    element type or attribute mode the expansions do not cover (dynamic shapes are taken by elementwise,
    broadcasting and ``constant_like`` ops); the IR is then unchanged. ``chlo.scan`` (which has no
    upstream decomposition) becomes a ``stablehlo.while`` over the scan dimension.
    """

    argument = "chlo-legalize-to-stablehlo"
    summary = "Legalize CHLO to StableHLO (hlokit's Python expansions)"
    anchor = "func.func"

    def _cache(self, context: ir.Context) -> TemplateCache:
        return TemplateCache.of_pass(self, context)

    def run_on_operation(self, func_op: ir.Operation) -> None:
        found = find_chlo_ops(func_op)
        if not found:
            return
        cache = self._cache(func_op.context)
        plan = [(op, self._plan(op, cache)) for op in found]  # every op checked before any rewrite
        for op, fn in plan:
            if fn is None:
                build_constant(op)
            elif op.name == "chlo.scan":
                instantiate(cache, fn, op, prepare=lambda clone, op=op: self._prepare_scan(clone, op))
            else:
                instantiate(cache, fn, op)

    @staticmethod
    def _prepare_scan(clone: ir.Operation, op: ir.Operation) -> None:
        """Give the cloned scan template the op's location and move the op's body into the loop."""
        relocate(clone, op.location)
        splice(clone, SCAN_BODY, op.regions[0].blocks[0])

    def _plan(self, op: ir.Operation, cache: TemplateCache):
        """Check ``op`` and return its template (None for ``chlo.constant``); PassError when unsupported."""
        name = op.name
        spec = TABLE.get(name)
        if spec is None:
            raise PassError(f"'{name}' is not supported by chlo-legalize-to-stablehlo", op.location)
        if spec.kind == "direct":
            return None
        if name == "chlo.scan":
            _check_scan(op)
        o_shapes, o_elems = _tensor_types(op.operands, "operand", op)
        r_shapes, r_elems = _tensor_types(op.results, "result", op)
        if spec.types is not None and o_elems and o_elems[-1] not in spec.types and o_elems[0] not in spec.types:
            raise PassError(
                f"'{name}' on element type '{o_elems[0]}' is not supported by chlo-legalize-to-stablehlo "
                f"(supported: {', '.join(spec.types)})",
                op.location,
            )
        try:
            attrs = read_attrs(op)
        except attributes.AttributeReadError as err:
            raise PassError(f"'{name}': {err}", op.location) from None
        info = OpInfo(o_shapes, o_elems, r_shapes, r_elems, attrs)
        dynamic = any(d < 0 for s in o_shapes + r_shapes for d in s)
        if dynamic and not spec.dynamic_ok:
            raise PassError(
                f"'{name}' with a dynamic shape is not supported by chlo-legalize-to-stablehlo "
                "(static shapes only; elementwise, broadcasting, constant_like, top_k and ragged_dot ops take dynamic shapes)",
                op.location,
            )
        attr_key = tuple(sorted((k, str(v)) for k, v in attrs.items()))
        if spec.elementwise and not dynamic and all(s == r_shapes[0] for s in o_shapes + r_shapes):
            prefix = "".join(f"{d}x" for d in r_shapes[0])
            key = (name, tuple(o_elems), tuple(r_elems), attr_key, prefix)
        else:
            prefix = None
            key = (name, tuple(map(str, (v.type for v in op.operands))), tuple(map(str, (v.type for v in op.results))),
                   attr_key, None)
        try:
            return template_for(cache, op, key, info, prefix)
        except UnsupportedError as err:
            raise PassError(str(err), op.location) from None
