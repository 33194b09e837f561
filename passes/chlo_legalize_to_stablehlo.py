"""``--chlo-legalize-to-stablehlo``: expand every CHLO op into StableHLO ops (seed 000, "Dialect Interop").

CHLO has no compatibility guarantee, so a program must be legalized before it is serialized or
interpreted. This pass is hlokit's own (Python) implementation under the upstream flag name; the
expansions and their numerics are described in :mod:`hlokit.passes.chlo_decompositions`.

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

import re

from jaxlib.mlir import ir

from hlokit.diagnostics import PassError
from hlokit.passes import chlo_decompositions as dec
from hlokit.passes.registry import Pass, register_pass

__all__ = ["ChloLegalizeToStablehlo", "TemplateCache"]

_ENUM = re.compile(r"#chlo<\w+\s+(\w+)>")


def _attr_text(name: str, attr: ir.Attribute) -> str:
    s = str(attr)
    if name in ("comparison_direction", "compare_type"):
        m = _ENUM.match(s)
        return m.group(1) if m else s
    return s


def _attrs(op: ir.Operation) -> dict:
    out = {}
    attributes = op.attributes
    for name in list(attributes):
        name = name if isinstance(name, str) else name.name
        attr = attributes[name]
        if name == "broadcast_dimensions":
            out[name] = [int(v) for v in ir.DenseI64ArrayAttr(attr)]
        elif name == "k":
            out[name] = ir.IntegerAttr(attr).value
        else:
            out[name] = _attr_text(name, attr)
    return out


class TemplateCache:
    """Parsed expansion templates of one ``ir.Context``, kept in a scratch module.

    ``get(op)`` returns the template ``func.func`` for ``op``'s signature, building it on first use;
    raises :class:`~hlokit.passes.chlo_decompositions.UnsupportedError` when the op cannot be expanded.
    """

    def __init__(self, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(context):
            self.scratch = ir.Module.create()
        self.ip = ir.InsertionPoint(self.scratch.body)
        self.texts: dict[tuple, str] = {}
        self.funcs: dict[tuple, ir.Operation] = {}

    def get(self, op: ir.Operation, key: tuple, info: "dec.OpInfo", shape_prefix: str | None):
        fn = self.funcs.get(key)
        if fn is not None:
            return fn
        name = op.name
        if shape_prefix is not None:  # elementwise: shape-independent text, one parse per shape
            tkey = key[:-1]
            text = self.texts.get(tkey)
            if text is None:
                text = dec.template_text(name, info, "__chlo_template")
                self.texts[tkey] = text
            text = text.replace("$S", shape_prefix)
        else:
            text = dec.template_text(name, info, "__chlo_template", placeholder=False)
        try:
            parsed = ir.Operation.parse(text, context=self.context)
        except ir.MLIRError as err:  # a bug in an expansion: report, never crash
            raise dec.UnsupportedError(f"internal error: expansion of '{name}' does not parse: {err}") from None
        with self.context:
            self.scratch.body.append(parsed)
        fn = parsed
        self.funcs[key] = fn
        return fn


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


@register_pass
class ChloLegalizeToStablehlo(Pass):
    """Legalize every CHLO op to StableHLO (hlokit's Python implementation of the upstream flag).

    Anchor ``func.func``. Static shapes; element types per op as in
    :data:`~hlokit.passes.chlo_decompositions.DECOMPOSITIONS`. Raises
    :class:`~hlokit.diagnostics.PassError` (located at the op) for an unranked or dynamic tensor, an
    element type or attribute mode the expansions do not cover (dynamic shapes are taken by elementwise,
    broadcasting and ``constant_like`` ops); the IR is then unchanged. ``chlo.scan`` (which has no
    upstream decomposition) becomes a ``stablehlo.while`` over the scan dimension.
    """

    argument = "chlo-legalize-to-stablehlo"
    summary = "Legalize CHLO to StableHLO (hlokit's Python expansions)"
    anchor = "func.func"

    def _cache(self, context: ir.Context) -> TemplateCache:
        caches = self.__dict__.setdefault("_caches", {})
        entry = caches.get(id(context))
        if entry is None or entry.context is not context:
            entry = TemplateCache(context)
            caches[id(context)] = entry
        return entry

    def run_on_operation(self, func_op: ir.Operation) -> None:
        found: list[ir.Operation] = []

        def collect(o):
            if o.name.startswith("chlo."):
                found.append(o.operation)
            return ir.WalkResult.ADVANCE

        func_op.walk(collect)
        if not found:
            return
        cache = self._cache(func_op.context)
        plan = []
        for op in found:
            plan.append((op, self._plan(op, cache)))
        for op, fn in plan:
            if fn is None:
                self._rewrite_constant(op)
                continue
            if fn == "scan":
                _rewrite_scan(op)
                continue
            clone = fn.clone(ip=cache.ip)
            block = clone.regions[0].blocks[0]
            for arg, operand in zip(block.arguments, op.operands):
                arg.replace_all_uses_with(operand)
            body = list(block.operations)
            loc = op.location  # the expansion carries the CHLO op's location, as MLIR rewrites do
            for inner in body[:-1]:
                inner.location = loc
                inner.move_before(op)
            for res, val in zip(op.results, body[-1].operands):
                res.replace_all_uses_with(val)
            op.erase()
            clone.erase()

    def _plan(self, op: ir.Operation, cache: TemplateCache):
        """Check ``op`` and return its template (None for ``chlo.constant``); PassError when unsupported."""
        name = op.name
        if name == "chlo.constant":
            return None
        if name == "chlo.scan":
            _check_scan(op)
            return "scan"
        spec = dec.DECOMPOSITIONS.get(name)
        if spec is None:
            raise PassError(f"'{name}' is not supported by chlo-legalize-to-stablehlo", op.location)
        o_shapes, o_elems = _tensor_types(op.operands, "operand", op)
        r_shapes, r_elems = _tensor_types(op.results, "result", op)
        if spec.types is not None and o_elems and o_elems[-1] not in spec.types and o_elems[0] not in spec.types:
            raise PassError(
                f"'{name}' on element type '{o_elems[0]}' is not supported by chlo-legalize-to-stablehlo "
                f"(supported: {', '.join(spec.types)})",
                op.location,
            )
        attrs = _attrs(op)
        info = dec.OpInfo(o_shapes, o_elems, r_shapes, r_elems, attrs)
        dynamic = any(d < 0 for s in o_shapes + r_shapes for d in s)
        if dynamic and not (spec.elementwise or name.startswith("chlo.broadcast_") or name == "chlo.constant_like"):
            raise PassError(
                f"'{name}' with a dynamic shape is not supported by chlo-legalize-to-stablehlo "
                "(static shapes only; elementwise, broadcasting and constant_like ops take dynamic shapes)",
                op.location,
            )
        if spec.elementwise and not dynamic and all(s == r_shapes[0] for s in o_shapes + r_shapes):
            prefix = "".join(f"{d}x" for d in r_shapes[0])
            key = (name, tuple(o_elems), tuple(r_elems), tuple(sorted((k, str(v)) for k, v in attrs.items())), prefix)
        else:
            prefix = None
            key = (name, tuple(map(str, (v.type for v in op.operands))), tuple(map(str, (v.type for v in op.results))),
                   tuple(sorted((k, str(v)) for k, v in attrs.items())), None)
        try:
            return cache.get(op, key, info, prefix)
        except dec.UnsupportedError as err:
            raise PassError(str(err), op.location) from None

    @staticmethod
    def _rewrite_constant(op: ir.Operation) -> None:
        value = op.attributes["value"]
        with ir.InsertionPoint(op), op.location:
            new = ir.Operation.create("stablehlo.constant", results=[op.results[0].type], attributes={"value": value})
        op.results[0].replace_all_uses_with(new.results[0])
        op.erase()


# ---- chlo.scan -> stablehlo.while ------------------------------------------------------------------

def _segments(op: ir.Operation, name: str) -> list[int]:
    return [int(v) for v in ir.DenseI32ArrayAttr(op.attributes[name])]


def _check_scan(op: ir.Operation) -> None:
    """Raise PassError unless ``op`` (chlo.scan) has static ranked types and a scan dimension size."""
    _tensor_types(op.operands, "operand", op)
    _tensor_types(op.results, "result", op)
    for v in list(op.operands) + list(op.results):
        if any(d < 0 for d in ir.RankedTensorType(v.type).shape):
            raise PassError(f"'chlo.scan' with a dynamic shape ({v.type}) is not supported", op.location)
    n_in, _ = _segments(op, "operandSegmentSizes")
    n_out, _ = _segments(op, "resultSegmentSizes")
    if n_in == 0 and n_out == 0 and "scan_dim_size" not in op.attributes:
        raise PassError("'chlo.scan' without inputs or outputs has no scan length", op.location)


def _zero_attr(t: ir.RankedTensorType) -> ir.Attribute:
    e = str(t.element_type)
    if e == "i1":
        lit = "false"
    elif e.startswith("complex"):
        lit = "(0.0, 0.0)"
    elif e.startswith(("i", "ui", "si")):
        lit = "0"
    else:
        lit = "0.0"
    return ir.Attribute.parse(f"dense<{lit}> : {t}")


def _rewrite_scan(op: ir.Operation) -> None:
    """``chlo.scan`` as a ``stablehlo.while`` over the scan dimension (XLA's Scan semantics: the body takes
    (input elements..., carries...) and yields (output elements..., new carries...); ``is_reverse``
    walks the dimension from the end). Output elements are written with ``dynamic_update_slice``."""
    n_in, n_init = _segments(op, "operandSegmentSizes")
    n_out, n_carry = _segments(op, "resultSegmentSizes")
    inputs = list(op.operands)[:n_in]
    inits = list(op.operands)[n_in:]
    outputs = list(op.results)[:n_out]
    carries = list(op.results)[n_out:]
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    reverse = "is_reverse" in op.attributes and ir.BoolAttr(op.attributes["is_reverse"]).value
    if inputs:
        length = ir.RankedTensorType(inputs[0].type).shape[dim]
    elif outputs:
        length = ir.RankedTensorType(outputs[0].type).shape[dim]
    else:
        length = ir.IntegerAttr(op.attributes["scan_dim_size"]).value
    ctx = op.context
    with ctx, op.location:
        i64 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))
        i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))

        def mk(name, operands, results, attrs=None, regions=0):
            return ir.Operation.create(name, results=results, operands=operands, attributes=attrs or {},
                                       regions=regions)

        def const_i(v):
            return mk("stablehlo.constant", [], [i64], {"value": ir.Attribute.parse(f"dense<{v}> : tensor<i64>")}).result

        def cmp(a, b, direction):
            attrs = {"comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>")}
            return mk("stablehlo.compare", [a, b], [i1], attrs).result

        with ir.InsertionPoint(op):
            zero = const_i(0)
            acc_init = [mk("stablehlo.constant", [], [r.type], {"value": _zero_attr(ir.RankedTensorType(r.type))}).result
                        for r in outputs]
            state_types = [i64] + [c.type for c in carries] + [r.type for r in outputs]
            wop = mk("stablehlo.while", [zero] + inits + acc_init, state_types, regions=2)
        cond = wop.regions[0].blocks.append(*state_types)
        with ir.InsertionPoint(cond):
            p = cmp(cond.arguments[0], const_i(length), "LT")
            mk("stablehlo.return", [p], [])
        body = wop.regions[1].blocks.append(*state_types)
        args = list(body.arguments)
        i, cs, accs = args[0], args[1:1 + n_carry], args[1 + n_carry:]
        with ir.InsertionPoint(body):
            idx = mk("stablehlo.subtract", [const_i(length - 1), i], [i64]).result if reverse else i
            zero_b = const_i(0)

            def starts(rank):
                return [idx if d == dim else zero_b for d in range(rank)]

            elems = []
            for x in inputs:
                xt = ir.RankedTensorType(x.type)
                sizes = [1 if d == dim else n for d, n in enumerate(xt.shape)]
                sl_t = ir.RankedTensorType.get(sizes, xt.element_type)
                sl = mk("stablehlo.dynamic_slice", [x] + starts(xt.rank), [sl_t],
                        {"slice_sizes": ir.DenseI64ArrayAttr.get(sizes)}).result
                el_t = ir.RankedTensorType.get([n for d, n in enumerate(xt.shape) if d != dim], xt.element_type)
                elems.append(mk("stablehlo.reshape", [sl], [el_t]).result)
        scan_block = op.regions[0].blocks[0]
        for arg, val in zip(scan_block.arguments, elems + cs):
            arg.replace_all_uses_with(val)
        scan_ops = list(scan_block.operations)
        for inner in scan_ops[:-1]:
            body.append(inner)
        yielded = list(scan_ops[-1].operands)
        with ir.InsertionPoint(body):
            new_accs = []
            for acc, y in zip(accs, yielded[:n_out]):
                at = ir.RankedTensorType(acc.type)
                upd_t = ir.RankedTensorType.get([1 if d == dim else n for d, n in enumerate(at.shape)], at.element_type)
                upd = mk("stablehlo.reshape", [y], [upd_t]).result
                new_accs.append(mk("stablehlo.dynamic_update_slice", [acc, upd] + starts(at.rank), [acc.type]).result)
            nxt = mk("stablehlo.add", [i, const_i(1)], [i64]).result
            mk("stablehlo.return", [nxt] + yielded[n_out:] + new_accs, [])
    results = list(wop.results)
    for r, v in zip(carries, results[1:1 + n_carry]):
        r.replace_all_uses_with(v)
    for r, v in zip(outputs, results[1 + n_carry:]):
        r.replace_all_uses_with(v)
    op.erase()
