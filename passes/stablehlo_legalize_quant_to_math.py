"""``--stablehlo-legalize-quant-to-math``: rewrite every quantized type away, into integer and float math.

hlokit's own pass under the flag of the upstream C++ pass (``stablehlo/transforms/StablehloLegalizeQuantToMath.cpp``,
which serves only as a test oracle). XLA cannot compile quantized StableHLO; after this pass it can, and
the program computes what hlokit's interpreter computes on the quantized original
(:mod:`hlokit.interpreter.quantization`): the same formulas, in the same element types, in the same order,
with the same classification of ops (:func:`hlokit.quant.runs_dequantize_op_quantize`).

Semantics: the StableHLO specification (https://openxla.org/stablehlo/spec), sections "Quantized element
types", "uniform_quantize", "uniform_dequantize" and the quantization computations of "Notation":

* ``uniform_dequantize`` (spec ``dequantize``): ``convert(convert(storage, w) - zero_point, expressed) *
  scale``, with ``w`` = ``i32`` (``i64`` for 32-bit storage) so the subtraction cannot wrap;
* ``uniform_quantize`` of a float (spec ``quantize``): ``x / scale + zero_point`` in the expressed type
  (the scale made opaque to XLA, which would otherwise multiply by its reciprocal: :meth:`Emitter.opaque`),
  clamped to ``[storage_min, storage_max]`` (``maximum`` then ``minimum``), ``round_nearest_even``, NaN ->
  0 clamped into the storage range, ``convert`` to the storage type; where the expressed type cannot hold
  the storage bounds exactly (``i32`` storage with ``f32``, ``i16`` with ``f16``) the rounded value is
  converted to ``i64`` and clamped again there. Of a quantized operand (requantization):
  ``quantize(dequantize(operand), type(result))``;
* per-axis types: the scales and zero points are a 1-d constant broadcast along the quantization
  dimension (spec ``compute_scales`` / ``compute_zero_points``);
* every other op with quantized types that is neither a storage op nor an op with regions (elementwise
  arithmetic, ``dot_general``, ``convolution``, ``compare``, ``select``, ``clamp``, ``convert``,
  ``reduce_precision``, ...): spec ``dequantize_op_quantize``: each quantized operand is dequantized, the
  op runs on the expressed types (``compare`` with ``compare_type = FLOAT``: spec ``dequantize_compare``),
  each quantized result is quantized. A float operand is left as it is (``hybrid_dequantize_then_op``
  for a float-lhs ``dot_general`` / ``convolution``);
* storage ops (:data:`hlokit.quant.STORAGE_OPS`: ``reshape``, ``transpose``, ``broadcast_in_dim``,
  ``slice``, ``concatenate``, ``gather``, ``pad``, ``constant``, ``bitcast_convert``, ``func.call``,
  ``return``, ...), ops with regions (``while``, ``if``, ``case``, ``reduce``, ``sort``, ``scatter``, ...:
  their bodies' ops are rewritten one by one) and function signatures: each quantized tensor type becomes
  its storage integer type (``!quant.uniform<i8:f32, ...>`` -> ``i8``, ``u8`` -> ``ui8``). A quantized
  function argument is therefore its storage values, as :func:`hlokit.interpret` and ``hlokit-run`` take it.

Anchor: ``func.func`` or the module. Run at the module (the flag ``--stablehlo-legalize-quant-to-math``) or
nested as ``func.func(stablehlo-legalize-quant-to-math)`` (upstream's anchor), every function is checked and
every template built before the first rewrite (the :class:`~hlokit.passes.template_pass.TemplatePass` driver), so a refused program is left unchanged;
each function is rewritten, its signature included (as upstream does). Refused, with a located
:class:`~hlokit.diagnostics.PassError`: a ``!quant`` type other than ``!quant.uniform`` (or one whose
parameters do not read back exactly), a quantized element type in anything but a ranked tensor or a tuple
of them (unranked tensors), a quantized ``func.func`` declaration without a body. Tuple types become tuples
of storage types (``tuple`` and ``get_tuple_element`` are storage ops).

The expansions are written on :mod:`hlokit.passes.builder`: one template per (shape, types, quantization
parameters), parsed once per run of the pass (``TemplateCache.of_pass``) and cloned at each op.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from jaxlib.mlir import ir

from hlokit.dtypes import UnsupportedTypeError
from hlokit.passes.builder import (
    V,
    Emitter,
    TemplateCache,
    instantiate,
    instantiate_before,
    relocate,
    set_compare_type,
)
from hlokit.passes.registry import fail, register_pass
from hlokit.passes.template_pass import TemplatePass
from hlokit.quant import (
    QuantizedType,
    expressed_tensor_type,
    quantized_type,
    runs_dequantize_op_quantize,
    storage_tensor_type,
)

__all__ = [
    "StablehloLegalizeQuantToMath",
    "build_dequantize",
    "build_quantize",
    "has_quantized_types",
]


# ------------------------------------------------------------------------------------------------
# the expansions (spec "quantize", "dequantize")


def _work_int(q: QuantizedType) -> str:
    """The integer type the storage values are widened to: i32, i64 for 32-bit (or wider) storage."""
    return "i64" if np.dtype(q.storage_dtype).itemsize >= 4 else "i32"


def _param(e: Emitter, q: QuantizedType, values, t: str, x: V, shape: list[int]) -> V:
    """Scales or zero points ``values`` (already exact in element type ``t``) as a tensor of ``x``'s shape:
    a splat per-tensor, a 1-d constant broadcast along the quantization dimension per-axis."""
    if not q.is_per_axis:
        return e.const(values[0], x, t=t)
    c = e.constant([int(v) if t.startswith(("i", "ui")) else float(v) for v in values], t)
    return e.broadcast_to(c, shape, [q.quantization_dimension], lambda: e.shape_tensor)


def _exact(values, dtype) -> list[float]:
    """``values`` rounded to ``dtype`` (as numpy does: from float64), back as Python floats (exact)."""
    return [float(v) for v in np.asarray(np.asarray(values, dtype=np.float64), dtype=dtype).astype(np.float64)]


def _shape_tensor(e: Emitter, x: V, shape: list[int]) -> None:
    """For a dynamic shape: the runtime shape of ``x`` that splat constants are broadcast to."""
    if any(d < 0 for d in shape) and e.shape_tensor is None:
        e.shape_tensor = e.shape_of(x, shape)


def build_dequantize(e: Emitter, x: V, q: QuantizedType, shape: list[int]) -> V:
    """Spec ``dequantize``: ``x`` (storage values, element type ``q.storage_type``, any shape ``shape``)
    -> ``(x - zero_point) * scale`` in ``q.expressed_type`` (the subtraction widened to
    :func:`_work_int`, exact; then one conversion to the expressed type and one multiplication, as
    :func:`hlokit.interpreter.quantization.dequantize`)."""
    _shape_tensor(e, x, shape)
    et = q.expressed_type
    w = _work_int(q)
    xi = e.convert(x, w)
    if any(q.zero_points):
        xi = xi - _param(e, q, q.zero_points, w, xi, shape)
    return e.convert(xi, et) * _param(e, q, _exact(q.scales, q.expressed_dtype), et, xi, shape)


def build_quantize(e: Emitter, x: V, q: QuantizedType, shape: list[int]) -> V:
    """Spec ``quantize``: float ``x`` (converted to ``q.expressed_type`` first when it differs) ->
    storage values of ``q``: ``x / scale + zero_point``, clamped to ``[storage_min, storage_max]`` (as
    values of the expressed type), ``round_nearest_even``, NaN -> 0 clamped into the storage range,
    converted to ``q.storage_type``; where the expressed type cannot hold a storage bound exactly, through
    ``i64`` with a second clamp (as :func:`hlokit.interpreter.quantization.quantize`)."""
    _shape_tensor(e, x, shape)
    et, edt = q.expressed_type, q.expressed_dtype
    x = e.convert(x, et)
    scaled = x / e.opaque(_param(e, q, _exact(q.scales, edt), et, x, shape), x)  # (XLA: no reciprocal)
    if any(q.zero_points):
        scaled = scaled + _param(e, q, _exact(q.zero_points, edt), et, x, shape)
    lo, hi = _exact([q.storage_min, q.storage_max], edt)
    clamped = e.minimum(e.maximum(scaled, lo), hi)
    rounded = e.round_nearest_even(clamped)
    zero = float(min(max(0, q.storage_min), q.storage_max))
    rounded = e.select(e.isnan(rounded), e.const(zero, rounded), rounded)
    if (lo, hi) == (q.storage_min, q.storage_max):
        return e.convert(rounded, q.storage_type)
    wide = e.convert(rounded, "i64")
    wide = e.minimum(e.maximum(wide, e.const(q.storage_min, wide)), e.const(q.storage_max, wide))
    return e.convert(wide, q.storage_type)


# ------------------------------------------------------------------------------------------------
# the pass


def has_quantized_types(root: ir.Operation) -> bool:
    """Whether any op under ``root`` (nested regions included) has a quantized operand, result or block
    argument (any ``!quant`` element type), or is a function whose signature has one."""
    found = []

    def visit(o):
        op = o.operation
        if (any("!quant." in str(t) for t in op.results.types)
                or any("!quant." in str(v.type) for v in op.operands)
                or (op.name == "func.func" and "!quant." in str(op.attributes["function_type"]))):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    root.operation.walk(visit)
    return bool(found)


@dataclasses.dataclass
class _Plan:
    """What the rewrite of one anchor does, built before anything changes."""

    funcs: list = dataclasses.field(default_factory=list)  # (func op, new FunctionType)
    values: list = dataclasses.field(default_factory=list)  # (block argument or op result, storage type)
    qdq: list = dataclasses.field(default_factory=list)  # (uniform_quantize / uniform_dequantize op, template)
    compute: list = dataclasses.field(default_factory=list)  # (op, [(i, template)], [(i, float type, template)])


@register_pass
class StablehloLegalizeQuantToMath(TemplatePass):
    """Rewrite quantized StableHLO into integer and float StableHLO (see the module docstring).

    Anchor: any op (the module, or each ``func.func`` when nested in ``func.func(...)``); every function
    under it is rewritten. Raises :class:`~hlokit.diagnostics.PassError`, located at the op, before
    changing anything, for a quantized type it cannot lower.

    On :class:`~hlokit.passes.template_pass.TemplatePass`: what it finds is the functions with quantized
    types (:meth:`find`), and each function's plan (:meth:`plan_op`: new signature, storage types of
    values, the templates of its quantize / dequantize steps, all built before any rewrite across every
    anchor) is carried out in place. Besides the ops it declares illegal it removes every quantized type
    (:func:`has_quantized_types` says whether a program has one).
    """

    argument = "stablehlo-legalize-quant-to-math"
    summary = "Rewrite quantized types and ops (uniform_quantize, dequantize_op_quantize, ...) into integer and float math"
    anchor = "any"
    illegal_ops = frozenset({"stablehlo.uniform_quantize", "stablehlo.uniform_dequantize"})

    def find(self, root: ir.Operation) -> list[ir.Operation]:
        """The functions under ``root`` (``root`` itself when it is one) that have a quantized type."""
        funcs = []

        def collect(o):
            if o.name == "func.func":
                funcs.append(o.operation)
            return ir.WalkResult.ADVANCE

        if root.name == "func.func":
            funcs.append(root)
        else:
            root.walk(collect)
        return [f for f in funcs if has_quantized_types(f)]

    def plan_op(self, cache: TemplateCache, func: ir.Operation, index: int):
        """Plan the rewrite of function ``func`` (PassError when refused); the function carrying it out."""
        plan = _Plan()
        self._plan_func(func, cache, plan)

        def rewrite(_func):
            with func.context, ir.Location.unknown():
                self._rewrite(plan, cache)

        return rewrite

    # -- planning (no change to the IR) ---------------------------------------------------------
    def _storage(self, t: ir.Type, where) -> ir.Type:
        """The storage twin of ``t`` (``t`` itself when not quantized); PassError when it cannot be lowered."""
        if "!quant." not in str(t):
            return t
        if isinstance(t, ir.TupleType):  # a tuple of storage twins (a tuple op only moves its elements)
            tt = ir.TupleType(t)
            return ir.TupleType.get_tuple([self._storage(tt.get_type(i), where) for i in range(tt.num_types)],
                                          context=t.context)
        if not isinstance(t, ir.RankedTensorType):
            raise fail(f"stablehlo-legalize-quant-to-math: type {t}: quantized elements are lowered in ranked "
                       "tensors only", where)
        try:
            return storage_tensor_type(t)
        except UnsupportedTypeError as err:
            raise fail(f"stablehlo-legalize-quant-to-math: {err}", where) from None

    def _qtype(self, t: ir.Type, where) -> QuantizedType | None:
        try:
            q = quantized_type(t)
        except UnsupportedTypeError as err:
            raise fail(f"stablehlo-legalize-quant-to-math: {err}", where) from None
        if q is not None:
            self._storage(t, where)  # ranked tensors only
        return q

    def _plan_func(self, func: ir.Operation, cache: TemplateCache, plan: _Plan) -> None:
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        if not len(func.regions[0].blocks) and any("!quant." in str(t) for t in (*ftype.inputs, *ftype.results)):
            raise fail("stablehlo-legalize-quant-to-math: a function declaration with quantized types cannot be "
                       "rewritten (no body)", func)
        ins = [self._storage(t, func) for t in ftype.inputs]
        outs = [self._storage(t, func) for t in ftype.results]
        if ins != list(ftype.inputs) or outs != list(ftype.results):
            with func.context:
                plan.funcs.append((func, ir.FunctionType.get(ins, outs)))

        def visit_blocks(op):
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.arguments:
                        if "!quant." in str(arg.type):
                            plan.values.append((arg, self._storage(arg.type, op)))

        visit_blocks(func)

        ops: list[ir.Operation] = []
        func.walk(lambda o: ops.append(o.operation) or ir.WalkResult.ADVANCE)
        for op in ops:  # (outside the walk: the bindings would turn a PassError raised in its callback into a
            if op == func:  # RuntimeError carrying a traceback)
                continue
            visit_blocks(op)
            self._plan_op(op, cache, plan)

    def _plan_op(self, op: ir.Operation, cache: TemplateCache, plan: _Plan) -> None:
        name = op.name
        results = list(op.results)
        if name in ("stablehlo.uniform_quantize", "stablehlo.uniform_dequantize"):
            src = op.operands[0].type
            dst = results[0].type
            qin, qout = self._qtype(src, op), self._qtype(dst, op)
            if (name == "stablehlo.uniform_quantize" and qout is None) or (
                    name == "stablehlo.uniform_dequantize" and qin is None):
                raise fail(f"'{name}': the {'result' if qout is None else 'operand'} must be a quantized tensor", op)
            plan.qdq.append((op, self._template(cache, op, src, dst, qin, qout)))
            if qout is not None:  # the template's result replaces a value of the storage type
                plan.values.append((results[0], self._storage(dst, op)))
            return
        if runs_dequantize_op_quantize(op):
            deqs = []
            for i, v in enumerate(op.operands):
                q = self._qtype(v.type, op)
                if q is not None:
                    deqs.append((i, self._template(cache, op, v.type, expressed_tensor_type(v.type), q, None)))
            quants = []
            for i, r in enumerate(results):
                q = self._qtype(r.type, op)
                if q is not None:
                    ft = expressed_tensor_type(r.type)
                    quants.append((i, ft, self._template(cache, op, ft, r.type, None, q)))
            plan.compute.append((op, deqs, quants))
            return
        for r in results:
            if "!quant." in str(r.type):
                if not isinstance(r.type, ir.TupleType):
                    self._qtype(r.type, op)
                plan.values.append((r, self._storage(r.type, op)))

    def _template(self, cache: TemplateCache, op, src: ir.Type, dst: ir.Type, qin: QuantizedType | None,
                  qout: QuantizedType | None) -> ir.Operation:
        """The template ``src`` -> ``dst``: dequantize (``qin``), quantize (``qout``) or both (requantize)."""
        st = ir.RankedTensorType(src)
        shape = [-1 if ir.ShapedType.is_dynamic_size(d) else d for d in st.shape]
        in_t = qin.storage_type if qin is not None else str(st.element_type)
        out_t = None if qout else str(ir.RankedTensorType(dst).element_type)
        key = ("quant-to-math", tuple(shape), in_t, qin.spelling() if qin else None, qout.spelling() if qout else None,
               out_t)

        def build(e: Emitter, args: list[V]) -> list[V]:
            y = args[0]
            if qin is not None:
                y = build_dequantize(e, y, qin, shape)
            return [build_quantize(e, y, qout, shape) if qout is not None else e.convert(y, out_t)]

        return self.template_of(cache, op, key, [(shape, in_t)], build)

    # -- rewriting -------------------------------------------------------------------------------
    def _rewrite(self, plan: _Plan, cache: TemplateCache) -> None:
        for func, ftype in plan.funcs:
            func.attributes["function_type"] = ir.TypeAttr.get(ftype)
        for value, t in plan.values:
            value.set_type(t)
        for op, template in plan.qdq:
            instantiate(cache, template, op, prepare=lambda clone, op=op: relocate(clone, op.location))
        for op, deqs, quants in plan.compute:
            for i, template in deqs:
                (op.operands[i],) = instantiate_before(cache, template, op, [op.operands[i]])
            if op.name == "stablehlo.compare" and "compare_type" in op.attributes:
                set_compare_type(op, "FLOAT")
            for i, ft, template in quants:
                result = op.results[i]
                result.set_type(ft)
                _clone_after(cache, template, op, result)


def _clone_after(cache: TemplateCache, template: ir.Operation, op: ir.Operation, result: ir.Value) -> None:
    """The template's body cloned after ``op`` on ``result`` (the mirror of :func:`instantiate_before`);
    every other use of ``result`` takes the template's result instead."""
    clone = template.clone(ip=cache.ip)
    relocate(clone, op.location)
    block = clone.regions[0].blocks[0]
    arg, body = block.arguments[0], list(block.operations)
    out = body.pop().operands[0]
    result.replace_all_uses_with(out)
    arg.replace_all_uses_with(result)
    anchor = op
    for inner in body:
        inner.move_after(anchor)
        anchor = inner
    clone.erase()
