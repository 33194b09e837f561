"""``--shape-legalize-to-stablehlo``: shape-dialect and ``index`` computations -> StableHLO integer tensors.

Programs with dynamic dimensions (``tensor<?x4xf32>``) compute their shapes with the MLIR ``shape``
dialect (https://mlir.llvm.org/docs/Dialects/ShapeDialect/), ``tensor`` ops on extent tensors
(https://mlir.llvm.org/docs/Dialects/TensorOps/) and ``arith`` ops on ``index``
(https://mlir.llvm.org/docs/Dialects/ArithOps/): CHLO's dynamic broadcasting lowers to
``shape.shape_of`` / ``shape.cstr_broadcastable`` / ``shape.assuming`` / ``shape.broadcast`` feeding
``stablehlo.dynamic_broadcast_in_dim``. StableHLO consumers (XLA, hlokit's interpreter, the shape
refinement passes) only take StableHLO, whose shape operands are 1-D integer tensors (StableHLO
specification, https://openxla.org/stablehlo/spec: ``get_dimension_size``, ``dynamic_broadcast_in_dim``,
``dynamic_reshape``, ``dynamic_iota``, ``dynamic_pad``, ``real_dynamic_slice``, ``dynamic_gather``,
``dynamic_conv``). This pass rewrites the shape computation into StableHLO ops on such tensors:

* an ``index`` / ``!shape.size`` value becomes a 0-d ``tensor<i32>`` (``index-bitwidth=64``: ``i64``);
  an extent tensor (``tensor<Nxindex>``, ``tensor<?xindex>`` or ``!shape.shape`` of a rank known from its
  producer) becomes ``tensor<Nxi32>``; a scalar ``iN`` / ``fN`` becomes ``tensor<iN>`` / ``tensor<fN>``;
* ``shape.shape_of`` / ``tensor.dim`` / ``shape.dim`` -> ``get_dimension_size`` (constants for static
  dimensions); ``shape.const_shape`` / ``const_size`` / ``arith.constant`` -> ``constant``;
  ``shape.num_elements`` -> a product; ``shape.rank`` -> a constant; ``shape.shape_eq`` /
  ``is_broadcastable`` -> ``compare`` / ``or`` / ``and`` of the extents;
* ``shape.broadcast`` (any number of operands) -> operands padded on the left with 1s, then per
  dimension ``select(a == 1, b, a)`` (the shape dialect's broadcasting rule, also right for 0 extents);
* ``shape.get_extent`` / ``tensor.extract`` -> ``slice`` (constant indices) or ``dynamic_slice``,
  then ``reshape``; ``shape.split_at`` (constant index, negative counts from the back) -> two ``slice``;
  ``shape.concat`` -> ``concatenate``; ``tensor.from_elements`` / ``shape.from_extents`` ->
  ``reshape`` + ``concatenate``;
* ``shape.index_to_size`` / ``size_to_index`` / ``to_extent_tensor`` / ``from_extent_tensor``,
  ``tensor.cast`` of extent tensors and same-width ``arith.index_cast`` -> the value itself;
  ``tensor.cast`` of other tensors -> a same-type ``convert``; ``shape.with_shape`` + ``shape.value_of``
  -> the tensor itself;
* ``arith`` on ``index`` and on scalars computed from shape values (``addi``, ``subi``, ``muli``, ``divsi``, ``divui``, ``ceildivsi``,
  ``floordivsi``, ``remsi``, ``remui``, ``maxsi``, ``minsi``, ``maxui``, ``minui``, ``andi``, ``ori``,
  ``xori``, ``shli``, ``shrsi``, ``shrui``, ``cmpi``, ``select``, ``index_cast``, ``index_castui``,
  ``extsi``, ``extui``, ``trunci``) -> the StableHLO elementwise op of the same meaning (unsigned ones
  through ``ui`` types); ``shape.add`` / ``mul`` / ``max`` / ``min`` likewise. Scalar arith that no
  shape value feeds (and non-index constants nothing rewritten uses) stays as it is;
* constraints: every ``shape.assuming`` region is inlined; ``shape.const_witness`` / ``assuming_all``
  are removed and so, by default, are ``shape.cstr_broadcastable`` / ``cstr_eq`` / ``cstr_require``: a
  witness only guards its region (the shape dialect leaves a failed constraint's program undefined) and
  ``stablehlo-refine-shapes`` rejects incompatible concrete shapes of ``dynamic_broadcast_in_dim``. With
  ``assertions=true`` each constraint instead becomes ``stablehlo.custom_call @shape_assertion(pred)``
  with an ``error_message`` (the form JAX's shape-polymorphic export uses,
  https://docs.jax.dev/en/latest/export/shape_poly.html), which ``stablehlo-check-shape-assertions``
  decides once the shapes are refined.
* a StableHLO op with an ``index`` shape operand (e.g. ``dynamic_broadcast_in_dim`` on
  ``tensor<2xindex>``) gets the integer tensor instead.

Values that leave the rewritten computation with their ``index`` / shape types (function arguments and
results, ``func.call`` operands, ops this pass does not rewrite) are bridged with
``builtin.unrealized_conversion_cast``, as in MLIR's dialect conversion.

Refused, with a located diagnostic naming the op and the reason, before anything is changed (the module
stays verified): unranked tensors and extent tensors of unknown rank (``!shape.shape`` or
``tensor<?xindex>`` function arguments), a non-constant ``shape.split_at`` index, constant indices out of
range, witnesses used outside ``shape.assuming`` / ``assuming_all``, index constants that do not fit the
index bit width, an ``index`` operand of a StableHLO op that is not a shape operand, and shape / tensor
ops this pass does not know (``tensor.empty``, ``tensor.generate``, ``shape.reduce``, ``shape.function_library``
calls, ...).

Written on :mod:`hlokit.passes.builder`: every rewrite is a template function built once per signature
(op, operand types, constant indices), parsed once per context and written before the op by its
:func:`~hlokit.passes.builder_templates.before_maker` (:mod:`hlokit.passes.shape_rewriter` carries the
plan out). Speed (issue 40, item 1): each op's operands, results and types are read from the bindings once
(types spelled once per type, a data tensor's shape once per value; the pass framework pauses the
collector meanwhile), an op whose signature (name, operand and result types, operands' lowered forms) was
planned before replays that plan instead of running its handler (:mod:`hlokit.passes.shape_plan_memo`), and
the rewrite creates one op per written op.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.diagnostics import PassError
from hlokit.passes.builder import (
    Emitter,
    TemplateCache,
    UnsupportedError,
    V,
    body_ops,
    shape_prefix,
)
from hlokit.passes.builder_templates import before_maker
from hlokit.passes.registry import Option, Pass, register_pass
from hlokit.passes.shape_escapes import check_no_escape, data_spec as _data_spec, index_typed as _index_typed
from hlokit.passes.shape_escapes import result_types as _result_types
from hlokit.passes.shape_plan_memo import walk_ops as _walk_ops
from hlokit.passes.shape_rewriter import Rewriter as _Rewriter, Step as _Step

__all__ = ["ShapeLegalizeToStablehlo", "Lowered", "SHAPE_OPERANDS"]

#: StableHLO ops whose shape operands (operand numbers) may be ``index`` tensors before this pass.
SHAPE_OPERANDS: dict[str, tuple[int, ...]] = {
    "stablehlo.dynamic_broadcast_in_dim": (1,),
    "stablehlo.dynamic_reshape": (1,),
    "stablehlo.dynamic_iota": (0,),
    "stablehlo.dynamic_pad": (2, 3, 4),
    "stablehlo.real_dynamic_slice": (1, 2, 3),
    "stablehlo.dynamic_gather": (2,),
    "stablehlo.dynamic_conv": (2,),
}

#: arith binary ops on integers -> (StableHLO op, computed on unsigned integers).
_ARITH_BINARY = {
    "arith.addi": ("add", False), "arith.subi": ("subtract", False), "arith.muli": ("multiply", False),
    "arith.divsi": ("divide", False), "arith.divui": ("divide", True), "arith.remsi": ("remainder", False),
    "arith.remui": ("remainder", True), "arith.maxsi": ("maximum", False), "arith.minsi": ("minimum", False),
    "arith.maxui": ("maximum", True), "arith.minui": ("minimum", True), "arith.andi": ("and", False),
    "arith.ori": ("or", False), "arith.xori": ("xor", False), "arith.shli": ("shift_left", False),
    "arith.shrsi": ("shift_right_arithmetic", False), "arith.shrui": ("shift_right_logical", False),
    "shape.add": ("add", False), "shape.mul": ("multiply", False), "shape.max": ("maximum", False),
    "shape.min": ("minimum", False),
}
#: arith.cmpi predicate (MLIR's enum order) -> (direction, unsigned).
_CMPI = [("EQ", False), ("NE", False), ("LT", False), ("LE", False), ("GT", False), ("GE", False),
         ("LT", True), ("LE", True), ("GT", True), ("GE", True)]
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci")
#: ops that only carry witnesses: removed.
_CONSTRAINTS = ("shape.cstr_broadcastable", "shape.cstr_eq", "shape.cstr_require")
_WITNESS_OPS = ("shape.const_witness", "shape.assuming_all")
#: ops whose result is their (only / first) operand's lowered value.
_ALIASES = ("shape.index_to_size", "shape.size_to_index", "shape.to_extent_tensor", "shape.from_extent_tensor")


class Lowered(NamedTuple):
    """The StableHLO form of a shape value: ``tensor<{shape}x{t}>`` and its value when constant (a named
    tuple: made once per rewritten op, where a frozen dataclass costs several times a tuple)."""

    shape: tuple[int, ...]
    t: str
    const: object = None

    @property
    def prefix(self) -> str:
        return shape_prefix(self.shape)

    @property
    def ty(self) -> str:
        return f"tensor<{self.prefix}{self.t}>"


def _is(t: ir.Type, text: str) -> bool:
    return str(t) == text


def _all_results(op: ir.Operation) -> list[ir.Value]:
    """Every result of ``op`` (one binding call for an op of one result)."""
    try:
        return [op.result]
    except Exception:  # (not exactly one result: a ValueError in jaxlib 0.10)
        return list(op.results)


class _Planner:
    """Checks one ``func.func`` and builds the templates of its rewrites (no IR change)."""

    def __init__(self, cache: TemplateCache, index_t: str, assertions: bool = False):
        self.cache = cache
        self.assertions = assertions
        self.I = index_t
        self.bits = int(index_t[1:])
        self.low: dict[ir.Value, Lowered | None] = {}  # None: a witness
        self.steps: list[_Step] = []
        self.value_of: dict[ir.Value, ir.Value] = {}  # shape.with_shape result -> its tensor
        self.scalar_consts: set[ir.Value] = set()  # non-index scalar constants (not shape values by themselves)
        self.data_specs: dict[ir.Type, tuple] = {}  # _data_spec per (uniqued) type: its text spelled once
        self.value_specs: dict[ir.Value, tuple] = {}  # _data_spec per data tensor value (its type read once)
        self.texts: dict[ir.Type, str] = {}  # the text of a type (spelled once: ~2 us through the printer)
        self.shapes: dict[ir.Value, list[int]] = {}  # _rank_of per ranked tensor value (its type read once)
        self.has_none = False  # some value maps to None in ``low``: only then does visit check for witnesses
        self.name = ""  # the name of the op being visited (read once, in visit)
        self.made: dict[tuple, tuple] = {}  # template key -> (template, its before_maker)
        self.operands: list[ir.Value] = []  # the operands of the arith op being visited (read by its guard)
        self.index_types: dict[ir.Type, bool] = {}  # _index_typed per (uniqued) type
        self.outcomes: dict[tuple, tuple] = {}  # op signature -> its planned outcome (shape_plan_memo)
        self.shape_typed = False  # a planned op makes a !shape.shape / !shape.size value (set by the walk)

    def index_typed(self, t: ir.Type) -> bool:
        """:func:`~hlokit.passes.shape_escapes.index_typed` of ``t``, worked out once per type."""
        hit = self.index_types.get(t)
        return self.index_types.setdefault(t, _index_typed(t)) if hit is None else hit

    # -- values ------------------------------------------------------------------------------------
    def err(self, op, msg: str) -> PassError:
        return PassError(f"'{op.name}' {msg}", op.location)

    def lowered(self, v: ir.Value, op) -> Lowered:
        """The lowered form of shape / index / scalar value ``v`` (used by ``op``); PassError when
        its rank is unknown."""
        hit = self.low.get(v, False)
        if hit is None:
            raise self.err(op, "takes a !shape.witness where a value is needed")
        if hit is not False:
            return hit
        t = v.type
        if isinstance(t, ir.IndexType):
            return Lowered((), self.I)
        if isinstance(t, ir.IntegerType) or isinstance(t, ir.FloatType):
            return Lowered((), self.text(t))
        if isinstance(t, ir.RankedTensorType):
            rt = ir.RankedTensorType(t)
            et = str(rt.element_type) if not isinstance(rt.element_type, ir.IndexType) else self.I
            return Lowered(tuple(-1 if ir.ShapedType.is_dynamic_size(d) else d for d in rt.shape), et)
        if _is(t, "!shape.size"):  # (the builtin types above never are: their text is not spelled)
            return Lowered((), self.I)
        if _is(t, "!shape.shape"):
            raise self.err(op, "takes a !shape.shape of unknown rank (a function argument or block argument); "
                               "only shapes made by shape ops of this function have a known rank")
        if isinstance(t, ir.UnrankedTensorType):
            raise self.err(op, f"takes an unranked tensor ({t}): the rank of its shape is unknown")
        raise self.err(op, f"takes an operand of type {t}, which has no StableHLO integer form")

    def text(self, t: ir.Type) -> str:
        """``str(t)``, spelled once per type."""
        hit = self.texts.get(t)
        if hit is None:
            hit = self.texts[t] = str(t)
        return hit

    def rank_of(self, v: ir.Value, op) -> list[int]:
        """:func:`_rank_of` of ``v``'s type (a new list), the type read once per value."""
        hit = self.shapes.get(v)
        if hit is None:
            hit = self.shapes[v] = _rank_of(v.type, op, self)
        return list(hit)

    def extents(self, v: ir.Value, op) -> int:
        """The number of extents of shape value ``v`` (a 1-D extent tensor of known length)."""
        lo = self.lowered(v, op)
        if len(lo.shape) != 1 or lo.shape[0] < 0:
            raise self.err(op, f"takes an extent tensor of type {v.type} whose length is unknown here "
                               "(the rank of a shape must be known from the op that makes it)")
        return lo.shape[0]

    def arg_spec(self, v: ir.Value, op) -> tuple[tuple[int, ...], str]:
        """Template argument spec of operand ``v``: its lowered type or, for a data tensor, its own."""
        hit = self.low.get(v, False)  # (what is_data and lowered read, looked up once)
        if hit:
            return hit.shape, hit.t
        if hit is False:
            spec = self.value_specs.get(v)  # (a data tensor seen before: e.g. a function argument)
            if spec is not None:
                return spec
            t = v.type
            if isinstance(t, ir.RankedTensorType) and not isinstance(ir.RankedTensorType(t).element_type, ir.IndexType):
                spec = self.data_specs.get(t)  # a data tensor
                if spec is None:
                    spec = self.data_specs[t] = _data_spec(t)
                self.value_specs[v] = spec
                return spec
        lo = self.lowered(v, op)
        return lo.shape, lo.t

    def is_data(self, v: ir.Value) -> bool:
        """``v`` is a tensor of non-index elements produced outside the shape computation."""
        if v in self.low:
            return False
        t = v.type
        return isinstance(t, ir.RankedTensorType) and not isinstance(ir.RankedTensorType(t).element_type, ir.IndexType)

    def const_of(self, v: ir.Value):
        lo = self.low.get(v)
        return lo.const if lo is not None else None

    # -- templates ---------------------------------------------------------------------------------
    def template(self, op, key: tuple, args: Sequence[ir.Value], build: Callable[..., Sequence[V]],
                 results: Sequence[Lowered | None]) -> None:
        """Plan ``op`` as a clone of the template ``build(e, *arg_values)`` (cached under ``key``)."""
        low = self.low
        specs = []
        for a in args:
            lo = low.get(a)  # (what arg_spec reads first, inlined: most operands are lowered values)
            specs.append((lo.shape, lo.t) if lo else self.arg_spec(a, op))
        full = (self.name, key, tuple(specs), self.I, self.assertions)
        hit = self.made.get(full)
        if hit is None:
            fn = self.cache.funcs.get(full)
            if fn is None:
                e = Emitter(op.name)
                vs = e.args(list(full[2]))
                try:
                    outs = list(build(e, *vs))
                    text = e.text("shape_legalize", vs, outs)
                    fn = self.cache.parse(full, text, op.name)
                except UnsupportedError as exc:
                    raise PassError(str(exc), op.location) from None
            hit = self.made[full] = (fn, before_maker(self.cache, fn))
        if len(results) == 1:
            rs = _all_results(op)
            lo = results[0]
            lazy = lo is not None
            if lazy:  # (None: a data tensor of the result's own type)
                low[rs[0]] = lo
        else:
            rs = list(op.results)
            lazy = False
            for r, lo in zip(rs, results):
                if lo is not None:
                    low[r] = lo
                    lazy = True
        self.steps.append(_Step(op, "template", args, hit[0], hit[1], (), lazy and not args, rs))

    def alias(self, op, src: ir.Value, result_low: Lowered | None = None) -> None:
        lo = self.lowered(src, op) if result_low is None else result_low
        rs = _all_results(op)
        self.low[rs[0]] = lo
        self.steps.append(_Step(op, "alias", (src,), results=rs))

    # -- the walk ----------------------------------------------------------------------------------
    def walk_ops(self, ops: Sequence[ir.Operation]) -> None:
        """:meth:`visit` every op of ``ops`` (one region's, in order: :func:`~hlokit.passes.builder.body_ops`)."""
        _walk_ops(self, ops, _HANDLERS, _REPLAYABLE)  # (a signature's first op runs its handler: shape_plan_memo)

    def visit(self, op: ir.Operation) -> None:
        name = self.name = op.name
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, op)
        elif name.startswith("shape.") or (name.startswith("tensor.") and name != "tensor.cast"):
            raise self.err(op, "is not supported by shape-legalize-to-stablehlo")
        elif name == "tensor.cast":
            _tensor_cast(self, op)
        elif name in SHAPE_OPERANDS:
            self.patch(op)
        elif name.startswith("stablehlo."):
            index_typed = self.index_typed
            for i, v in enumerate(op.operands):
                if index_typed(v.type):
                    raise self.err(op, f"operand #{i} has index type {v.type}, which StableHLO accepts only "
                                       "as a shape operand of the dynamic ops")
        if self.has_none:  # (no value maps to None: no witness to check)
            self.check_witnesses(op, name)
        if name not in _NO_REGIONS and len(op.regions):
            self.walk_ops(body_ops(op))
            self.name = name

    def check_witnesses(self, op: ir.Operation, name: str) -> None:
        """Refuse a witness or ``!shape.value_shape`` operand of ``op`` (named ``name``) where it has no
        legalized consumer."""
        for v in op.operands:
            if self.low.get(v, False) is not None:
                continue
            if str(v.type) == "!shape.value_shape":
                if name not in ("shape.value_of", "shape.shape_of"):
                    raise self.err(op, "takes a !shape.value_shape: only shape.value_of and shape.shape_of "
                                       "consume it in a legalized program")
            elif name not in ("shape.assuming", "shape.assuming_all"):
                raise self.err(op, "takes a !shape.witness: only shape.assuming and shape.assuming_all "
                                   "consume witnesses in a legalized program")

    def patch(self, op) -> None:
        operands = list(op.operands)
        shape_operands = SHAPE_OPERANDS[self.name]
        idx, bad = [], None
        for i, v in enumerate(operands):
            if _index_typed(v.type):
                if i in shape_operands:
                    idx.append(i)
                elif bad is None:
                    bad = i
        for i in idx:  # (the shape operands are checked first, then the first index operand of another kind)
            self.extents(operands[i], op)
        if bad is not None:
            raise self.err(op, f"operand #{bad} has index type {operands[bad].type}, which is not a shape operand")
        if idx:
            self.steps.append(_Step(op, "patch", patch=tuple(idx)))


def _rank_of(t: ir.Type, op, p: _Planner) -> list[int]:
    """The shape of ranked tensor type ``t`` (-1: dynamic); PassError for an unranked one."""
    if not isinstance(t, ir.RankedTensorType):
        raise p.err(op, f"takes an unranked tensor ({t}): the rank of its shape is unknown "
                        "(ranked tensors only)")
    return [-1 if ir.ShapedType.is_dynamic_size(d) else d for d in ir.RankedTensorType(t).shape]


def _result_low(p: _Planner, op, shape: Sequence[int], const=None) -> Lowered:
    """The lowered form of ``op``'s first result with extents ``shape`` of the index type."""
    return Lowered(tuple(shape), p.I, const)


def _check_const(p: _Planner, op, values: Sequence[int]) -> None:
    lim = 1 << (p.bits - 1)
    for v in values:
        if not -lim <= v < lim:
            raise p.err(op, f"constant {v} does not fit in {p.I} (use index-bitwidth=64)")


# -- handlers: each checks one op and plans its rewrite ---------------------------------------------

def _dense(e: Emitter, values: Sequence[int], shape: Sequence[int], t: str) -> V:
    return e.constant([int(v) for v in values], t, shape)


def _arith_constant(p: _Planner, op) -> None:
    t = op.results[0].type
    attr = attributes.get(op, "value")
    if isinstance(t, ir.RankedTensorType):
        if not isinstance(ir.RankedTensorType(t).element_type, ir.IndexType):
            return  # a data constant: stays
        shape = [int(d) for d in ir.RankedTensorType(t).shape]
        vals = attributes.int_array_of(attr)
        n = 1
        for d in shape:
            n *= d
        vals = vals * n if vals is not None and len(vals) == 1 and n != 1 else vals
        _check_const(p, op, vals)
        lo = Lowered(tuple(shape), p.I, tuple(vals) if len(shape) == 1 else None)
        p.template(op, (tuple(vals), tuple(shape)), [], lambda e: [_dense(e, vals, shape, p.I)], [lo])
        return
    if isinstance(t, ir.IndexType) or isinstance(t, ir.IntegerType):
        value = ir.IntegerAttr(attr).value
        et = p.I if isinstance(t, ir.IndexType) else str(t)
        if et == "i1":
            value = value & 1
        if isinstance(t, ir.IndexType):
            _check_const(p, op, [value])
        else:
            p.scalar_consts.add(op.results[0])
        p.template(op, (value, et), [], lambda e: [e.scalar(value, et)], [Lowered((), et, value)])
        return
    if isinstance(t, ir.FloatType):
        value = ir.FloatAttr(attr).value
        p.scalar_consts.add(op.results[0])
        p.template(op, (repr(value), str(t)), [], lambda e: [e.scalar(value, str(t))], [Lowered((), str(t))])
    # other constants (vectors, ...) are not shape values: they stay


def _const_shape(p: _Planner, op) -> None:
    vals = attributes.int_array_of(attributes.get(op, "shape")) or []
    _check_const(p, op, vals)
    lo = _result_low(p, op, [len(vals)], tuple(vals))
    p.template(op, (tuple(vals),), [], lambda e: [_dense(e, vals, [len(vals)], p.I)], [lo])


def _const_size(p: _Planner, op) -> None:
    value = attributes.int_value(op, "value")
    _check_const(p, op, [value])
    p.template(op, (value,), [], lambda e: [e.scalar(value, p.I)], [Lowered((), p.I, value)])


def _dim_size(e: Emitter, x: V, i: int, I: str) -> V:
    return e.convert(e.get_dimension_size(x, i), I)


def _shape_of(p: _Planner, op) -> None:
    x = op.operands[0]
    if p.value_of and x in p.value_of:  # shape.shape_of(shape.with_shape(v, s)) is s
        src = p.value_of[x]
        p.alias(op, src[1])
        return
    shape = p.rank_of(x, op)
    dynamic = any(d < 0 for d in shape)
    if x in p.low and dynamic:  # an extent tensor: its lowered form may know more extents
        shape = list(p.lowered(x, op).shape)
        dynamic = any(d < 0 for d in shape)
    I = p.I
    consts = tuple(shape) if not dynamic else None

    def build(e, *xs):
        if not shape:
            return [_dense(e, [], [0], I)]
        parts = [e.const(d, t=I, shape=(1,)) if d >= 0 else e.reshape(_dim_size(e, xs[0], i, I), [1])
                 for i, d in enumerate(shape)]
        return [e.concatenate(parts, 0)]

    p.template(op, (tuple(shape),), [x] if dynamic else [], build, [_result_low(p, op, [len(shape)], consts)])


def _rank(p: _Planner, op) -> None:
    n = p.extents(op.operands[0], op)
    p.template(op, (n,), [], lambda e: [e.scalar(n, p.I)], [Lowered((), p.I, n)])


def _num_elements(p: _Planner, op) -> None:
    s = op.operands[0]
    n = p.extents(s, op)

    def build(e, x):
        acc = e.scalar(1, x.t)
        for i in range(n):
            acc = acc * e.reshape(e.slice(x, [i], [i + 1]), [])
        return [acc]

    p.template(op, (n,), [s], build, [Lowered((), p.I)])


def _broadcast(p: _Planner, op) -> None:
    shapes = list(op.operands)
    ranks = [p.extents(s, op) for s in shapes]
    r = max(ranks) if ranks else 0

    def build(e, *xs):
        padded = []
        for x, n in zip(xs, ranks):
            if n < r:
                x = e.concatenate([e.const(1, t=x.t, shape=(r - n,)), x], 0) if n else e.const(1, t=x.t, shape=(r,))
            padded.append(x)
        acc = padded[0]
        for b in padded[1:]:
            acc = e.select(acc.eq(1), b, acc)
        return [acc]

    p.template(op, (tuple(ranks),), shapes, build, [_result_low(p, op, [r])])


def _get_extent(p: _Planner, op) -> None:
    s, d = op.operands
    n = p.extents(s, op)
    k = p.const_of(d)
    if k is not None:
        if not 0 <= k < n:
            raise p.err(op, f"index {k} is out of range for a shape of rank {n}")
        p.template(op, (n, k), [s], lambda e, x: [e.reshape(e.slice(x, [k], [k + 1]), [])], [Lowered((), p.I)])
        return
    p.lowered(d, op)
    p.template(op, (n, None), [s, d],
               lambda e, x, i: [e.reshape(e.dynamic_slice(x, [i], [1]), [])], [Lowered((), p.I)])


def _dim(p: _Planner, op) -> None:
    """tensor.dim / shape.dim: one extent of a ranked tensor."""
    x, d = op.operands
    shape = p.rank_of(x, op)
    if x in p.low:
        shape = list(p.lowered(x, op).shape)
    k = p.const_of(d)
    I = p.I
    if k is not None:
        if not 0 <= k < len(shape):
            raise p.err(op, f"index {k} is out of range for a tensor of rank {len(shape)}")
        if shape[k] >= 0:
            p.template(op, (k, shape[k]), [], lambda e: [e.scalar(shape[k], I)], [Lowered((), I, shape[k])])
        else:
            p.template(op, (tuple(shape), k), [x], lambda e, v: [_dim_size(e, v, k, I)], [Lowered((), I)])
        return
    p.lowered(d, op)
    dynamic = any(s < 0 for s in shape)

    def build(e, *vs):
        idx = vs[-1]
        parts = [e.const(s, t=I, shape=(1,)) if s >= 0 else e.reshape(_dim_size(e, vs[0], i, I), [1])
                 for i, s in enumerate(shape)]
        return [e.reshape(e.dynamic_slice(e.concatenate(parts, 0), [idx], [1]), [])]

    p.template(op, (tuple(shape), None), ([x] if dynamic else []) + [d], build, [Lowered((), I)])


def _split_at(p: _Planner, op) -> None:
    s, i = op.operands
    n = p.extents(s, op)
    k = p.const_of(i)
    if k is None:
        raise p.err(op, "with a non-constant index is not supported: the ranks of its results would be unknown")
    if k < 0:
        k += n
    if not 0 <= k <= n:
        raise p.err(op, f"index {p.const_of(i)} is out of range for a shape of rank {n}")
    p.template(op, (n, k), [s], lambda e, x: [e.slice(x, [0], [k]), e.slice(x, [k], [n])],
               [_result_low(p, op, [k]), _result_low(p, op, [n - k])])


def _concat(p: _Planner, op) -> None:
    a, b = op.operands
    na, nb = p.extents(a, op), p.extents(b, op)
    p.template(op, (na, nb), [a, b], lambda e, x, y: [e.concatenate([x, y], 0)],
               [_result_low(p, op, [na + nb])])


def _from_elements(p: _Planner, op) -> None:
    """tensor.from_elements / shape.from_extents: scalars -> a tensor."""
    elems = list(op.operands)
    extents = p.name == "shape.from_extents"
    rt = None if extents else ir.RankedTensorType(op.result.type)
    if extents or isinstance(rt.element_type, ir.IndexType):
        shape = [len(elems)] if extents else list(rt.shape)
        lo = Lowered(tuple(shape), p.I)
    else:
        shape = list(rt.shape)
        lo = None  # a data tensor of the result's own type
    low = p.low
    for v in elems:
        if not low.get(v):  # (a lowered value needs no check)
            p.lowered(v, op)

    def build(e, *xs):
        if len(shape) == 0:
            return [xs[0]]
        flat = e.concatenate([e.reshape(x, [1]) for x in xs], 0)
        return [flat if len(shape) == 1 else e.reshape(flat, shape)]

    p.template(op, (tuple(shape),), elems, build, [lo])


def _extract(p: _Planner, op) -> None:
    x, *idx = op.operands
    low = p.low
    lo = low.get(x)
    if lo is not None:  # an extent tensor (every lowered value has a ranked type: its type is not read)
        shape = list(lo.shape)
    else:
        shape = p.rank_of(x, op)
        if x in low:
            shape = list(p.lowered(x, op).shape)
    consts = []
    for i in idx:
        lo = low.get(i)
        consts.append(lo.const if lo is not None else None)
    for n, (k, d) in enumerate(zip(consts, shape)):
        if k is not None and d >= 0 and not 0 <= k < d:
            raise p.err(op, f"index {k} is out of range for dimension {n} of size {d}")
    for i, k in zip(idx, consts):
        if k is None:
            p.lowered(i, op)
    rt = op.result.type
    et = p.I if isinstance(rt, ir.IndexType) else p.text(rt)
    static = None not in consts and (not shape or min(shape) >= 0)
    dyn = [i for i, k in zip(idx, consts) if k is None]

    def build(e, v, *dv):
        if static:
            piece = e.slice(v, consts, [k + 1 for k in consts]) if shape else v
        else:
            it = iter(dv)
            starts = [next(it) if k is None else e.scalar(k, p.I) for k in consts]
            piece = e.dynamic_slice(v, starts, [1] * len(shape))
        return [e.reshape(piece, [])]

    p.template(op, (tuple(shape), tuple(consts)), [x] + dyn, build, [Lowered((), et)])


def _tensor_cast(p: _Planner, op) -> None:
    x = op.operands[0]
    rt = op.results[0].type
    if _index_typed(x.type):
        lo = p.lowered(x, op)
        shape = _rank_of(rt, op, p)
        if len(shape) != len(lo.shape):
            raise p.err(op, f"changes the rank of an extent tensor ({x.type} -> {rt})")
        p.alias(op, x)
        return
    if not (isinstance(x.type, ir.RankedTensorType) and isinstance(rt, ir.RankedTensorType)):
        raise p.err(op, f"from {x.type} to {rt}: unranked tensors are not supported")
    s, t = _data_spec(rt)
    p.template(op, (str(rt),), [x], lambda e, v: [e.convert(v, t, s)], [None])


def _arith_binary(p: _Planner, op) -> None:
    hop, unsigned = _ARITH_BINARY[p.name]
    a, b = p.operands
    low = p.low
    la, lb = low.get(a) or p.lowered(a, op), low.get(b) or p.lowered(b, op)
    if la.t[0] == "f":
        raise p.err(op, f"on {a.type} is not supported (integer and index values only)")
    if la.shape != lb.shape or (la.shape and min(la.shape) < 0):
        raise p.err(op, f"on operands of different or unknown extents ({a.type}, {b.type}) is not supported")

    def build(e, x, y):
        if unsigned:
            u = "u" + x.t
            return [e.convert(e.elementwise(hop, e.convert(x, u), e.convert(y, u)), x.t)]
        return [e.elementwise(hop, x, y)]

    p.template(op, (hop, unsigned), [a, b], build, [Lowered(la.shape, la.t)])


def _floor_ceil_div(p: _Planner, op) -> None:
    a, b = p.operands
    la = p.lowered(a, op)
    p.lowered(b, op)
    ceil = op.name == "arith.ceildivsi"

    def build(e, x, y):
        q = x / y
        r = x - q * y
        nonzero = r.ne(0)
        same_sign = r.lt(0).eq(y.lt(0))
        if ceil:
            return [e.select(e.and_(nonzero, same_sign), q + 1, q)]
        return [e.select(e.and_(nonzero, e.not_(same_sign)), q - 1, q)]

    p.template(op, (ceil,), [a, b], build, [Lowered(la.shape, la.t)])


def _cmpi(p: _Planner, op) -> None:
    a, b = p.operands
    la = p.lowered(a, op)
    p.lowered(b, op)
    direction, unsigned = _CMPI[attributes.int_value(op, "predicate")]

    def build(e, x, y):
        if unsigned:
            x, y = e.convert(x, "u" + x.t), e.convert(y, "u" + y.t)
        return [e.compare(direction, x, y, "UNSIGNED" if unsigned else "SIGNED")]

    p.template(op, (direction, unsigned), [a, b], build, [Lowered(la.shape, "i1")])


def _select(p: _Planner, op) -> None:
    """arith.select -> stablehlo.select (a 0-d condition selects whole tensors, as in both dialects)."""
    c, a, b = p.operands
    if p.is_data(a) and p.is_data(b):
        if isinstance(c.type, ir.ShapedType):
            return  # elementwise select of data tensors: not a shape computation
        p.lowered(c, op)
        p.template(op, (), [c, a, b], lambda e, x, y, z: [e.select(x, y, z)], [None])
        return
    p.arg_spec(c, op)
    la = p.lowered(a, op)
    p.lowered(b, op)
    p.template(op, (), [c, a, b], lambda e, x, y, z: [e.select(x, y, z)], [Lowered(la.shape, la.t)])


def _cast(p: _Planner, op) -> None:
    x = p.operands[0]
    rt = op.result.type
    if isinstance(x.type, ir.ShapedType) and not _index_typed(x.type) and not _index_typed(rt):
        return  # an integer cast on data tensors: not a shape computation
    lx = p.lowered(x, op)
    if isinstance(rt, ir.ShapedType):
        et = ir.ShapedType(rt).element_type
        to = p.I if isinstance(et, ir.IndexType) else p.text(et)
    else:
        to = p.I if isinstance(rt, ir.IndexType) else p.text(rt)
    widen = int(to[1:]) > int(lx.t[1:])
    unsigned = op.name in ("arith.index_castui", "arith.extui") and widen
    if lx.t == to:
        p.alias(op, x, Lowered(lx.shape, to, lx.const))
        return

    def build(e, v):
        if unsigned:
            return [e.convert(e.convert(v, "u" + v.t), to)]
        return [e.convert(v, to)]

    p.template(op, (to, unsigned), [x], build, [Lowered(lx.shape, to)])


def _erase(p: _Planner, op) -> None:
    rs = list(op.results)
    for r in rs:
        p.low[r] = None
    p.has_none = True
    p.steps.append(_Step(op, "erase", results=rs))


def _assertion(e: Emitter, pred: V, message: str) -> None:
    """``stablehlo.custom_call @shape_assertion(pred)``, JAX's form of a runtime shape check
    (``stablehlo-check-shape-assertions`` checks and removes it once shapes are refined)."""
    e.custom_call("shape_assertion", [pred], [], has_side_effect=True, api_version=2,
                  strings={"error_message": message})


def _all(e: Emitter, x: V) -> V:
    """The 0-d i1 ``and`` of the 1-D i1 ``x`` (elementwise ops on its elements: shape refinement folds
    them to a constant, which it does not do for a ``reduce``)."""
    acc = None
    for i in range(x.shape[0]):
        b = e.reshape(e.slice(x, [i], [i + 1]), [])
        acc = b if acc is None else e.and_(acc, b)
    return acc


def _shapes_pred(e: Emitter, xs: Sequence[V], ranks: Sequence[int], broadcast: bool) -> V:
    """0-d i1: the extent tensors ``xs`` are broadcastable (every dimension, aligned on the right, is 1
    or one common extent) or, with ``broadcast`` false, equal."""
    r = max(ranks)
    if not broadcast and len(set(ranks)) > 1:
        return e.scalar(False, "i1")
    if r == 0 or len(xs) < 2:
        return e.scalar(True, "i1")
    padded = [x if n == r else (e.concatenate([e.const(1, t=x.t, shape=(r - n,)), x], 0) if n
                                else e.const(1, t=x.t, shape=(r,))) for x, n in zip(xs, ranks)]
    ok = None
    for i, a in enumerate(padded):
        for b in padded[i + 1:]:
            good = a.eq(b) if not broadcast else e.or_(e.or_(a.eq(b), a.eq(1)), b.eq(1))
            ok = good if ok is None else e.and_(ok, good)
    return _all(e, ok)


def _is_broadcastable(p: _Planner, op) -> None:
    """shape.is_broadcastable / shape.shape_eq -> a 0-d i1."""
    shapes = list(op.operands)
    ranks = [p.extents(s, op) for s in shapes]
    broadcast = op.name == "shape.is_broadcastable"
    p.template(op, (tuple(ranks), broadcast), shapes, lambda e, *xs: [_shapes_pred(e, xs, ranks, broadcast)],
               [Lowered((), "i1")])


def _constraint(p: _Planner, op) -> None:
    """shape.cstr_broadcastable / cstr_eq / cstr_require: dropped, or (``assertions=true``) checked by a
    ``shape_assertion`` custom call."""
    if not p.assertions:
        _erase(p, op)
        return
    name = op.name
    if name == "shape.cstr_require":
        pred = op.operands[0]
        p.lowered(pred, op)
        msg = attributes.str_value(op, "msg", "shape.cstr_require failed")
        def build_require(e, x):
            _assertion(e, x, msg)
            return []

        p.template(op, (msg,), [pred], build_require, [])
    else:
        shapes = list(op.operands)
        ranks = [p.extents(s, op) for s in shapes]
        r = max(ranks) if ranks else 0
        broadcast = name == "shape.cstr_broadcastable"
        if r == 0 or len(shapes) < 2:
            _erase(p, op)
            return
        what = "broadcastable" if broadcast else "equal"
        msg = f"{name}: the shapes are not {what}"

        def build(e, *xs):
            _assertion(e, _shapes_pred(e, xs, ranks, broadcast), msg)
            return []

        p.template(op, (tuple(ranks), broadcast), shapes, build, [])
    for res in op.results:
        p.low[res] = None
    p.has_none = True


def _assuming(p: _Planner, op) -> None:
    body = body_ops(op)
    p.walk_ops(body)
    yielded = body[-1].operands
    for r, v in zip(op.results, yielded):
        if v in p.low:
            p.low[r] = p.low[v]
            p.has_none = p.has_none or p.low[v] is None
    p.steps.append(_Step(op, "assuming"))


def _alias_op(p: _Planner, op) -> None:
    p.alias(op, op.operands[0])


def _with_shape(p: _Planner, op) -> None:
    v, s = op.operands
    if not isinstance(v.type, ir.RankedTensorType):
        raise p.err(op, f"on {v.type}: ranked tensors only")
    p.lowered(s, op)
    p.value_of[op.results[0]] = (v, s)
    p.low[op.results[0]] = None
    p.has_none = True
    p.steps.append(_Step(op, "erase"))


def _value_of(p: _Planner, op) -> None:
    src = p.value_of.get(op.operands[0])
    if src is None:
        raise p.err(op, "takes a !shape.value_shape not made by shape.with_shape in this function")
    if src[0].type != op.results[0].type:
        raise p.err(op, f"returns {op.results[0].type} for a value of type {src[0].type}")
    p.steps.append(_Step(op, "alias", [src[0]]))


_HANDLERS: dict[str, Callable[[_Planner, ir.Operation], None]] = {
    "arith.constant": _arith_constant,
    "arith.cmpi": _cmpi,
    "arith.select": _select,
    "arith.ceildivsi": _floor_ceil_div,
    "arith.floordivsi": _floor_ceil_div,
    "shape.const_shape": _const_shape,
    "shape.const_size": _const_size,
    "shape.shape_of": _shape_of,
    "shape.rank": _rank,
    "shape.num_elements": _num_elements,
    "shape.broadcast": _broadcast,
    "shape.get_extent": _get_extent,
    "shape.dim": _dim,
    "shape.split_at": _split_at,
    "shape.concat": _concat,
    "shape.from_extents": _from_elements,
    "shape.shape_eq": _is_broadcastable,
    "shape.is_broadcastable": _is_broadcastable,
    "shape.assuming": _assuming,
    "shape.assuming_yield": lambda p, op: None,  # removed with its region (shape.assuming)
    "shape.with_shape": _with_shape,
    "shape.value_of": _value_of,
    "tensor.dim": _dim,
    "tensor.extract": _extract,
    "tensor.from_elements": _from_elements,
    **{name: _arith_binary for name in _ARITH_BINARY},
    **{name: _cast for name in _CASTS},
    **{name: _erase for name in _WITNESS_OPS},
    **{name: _constraint for name in _CONSTRAINTS},
    **{name: _alias_op for name in _ALIASES},
}


def _guard_arith(handler):
    """Run an arith handler only on ops of the shape computation: ``index`` operands or results, or a
    scalar operand made by a rewritten op. Other arith ops (on data tensors, or scalar arithmetic that
    does not touch shapes) stay as they are, as upstream leaves them."""

    def run(p: _Planner, op):
        operands = p.operands = list(op.operands)  # (read once: the handlers take them from ``p.operands``)
        for v in operands:
            t = v.type
            if isinstance(t, ir.IndexType) or _index_typed(t):
                return handler(p, op)
        if any(_index_typed(t) for t in _result_types(op)) or any(
                p.low.get(v) is not None and not isinstance(v.type, ir.ShapedType) and v not in p.scalar_consts
                for v in operands):
            handler(p, op)

    return run


def _reading_operands(handler):
    """Run ``handler`` (one that takes its operands from ``p.operands``) on an op that no guard reads."""

    def run(p: _Planner, op):
        p.operands = list(op.operands)
        handler(p, op)

    return run


for _name in list(_HANDLERS):
    if _name.startswith("arith.") and _name != "arith.constant":
        _HANDLERS[_name] = _guard_arith(_HANDLERS[_name])
    elif _name in _ARITH_BINARY:  # (shape.add, ...)
        _HANDLERS[_name] = _reading_operands(_HANDLERS[_name])

#: Ops planned once per signature (shape_plan_memo): not those whose handler reads an attribute or a region
#: or records more than its op's step (constants, witnesses, constraints, shape.with_shape / value_of).
_REPLAYABLE = frozenset(_HANDLERS).union(SHAPE_OPERANDS) - {
    "arith.constant", "arith.cmpi", "shape.const_shape", "shape.const_size", "shape.assuming", "shape.assuming_yield",
    "shape.with_shape", "shape.value_of", *_WITNESS_OPS, *_CONSTRAINTS}

#: Ops whose regions visit does not walk (nor asks for): those with a handler (none has regions but
#: shape.assuming, whose handler walks its body) and the StableHLO ops whose shape operands are patched.
_NO_REGIONS = frozenset(_HANDLERS) | frozenset(SHAPE_OPERANDS)


@register_pass
class ShapeLegalizeToStablehlo(Pass):
    """Legalize shape-dialect, ``tensor`` and ``index`` computations to StableHLO integer tensors
    (hlokit's Python implementation of the upstream flag; see the module docstring for the op list).

    Anchor ``func.func``. Every op is checked and every template built before the first rewrite, so a
    refused op (:class:`~hlokit.diagnostics.PassError` located at it, naming the op and the reason)
    leaves the function unchanged.

    Why a driver of its own (not :class:`~hlokit.passes.template_pass.TemplatePass`): this is a
    value-to-value lowering of a dataflow, not an op-for-op replacement. Whether an op is rewritten
    depends on its producers (``arith`` ops only when a shape value feeds them), a value's lowered type
    (``!shape.shape`` -> ``tensor<Nxi32>``) depends on the rank its producer knows, witnesses are
    dropped with the regions they guard (``shape.assuming`` inlined), StableHLO ops that consume a shape
    are patched in place, and values that leave the computation are bridged with
    ``unrealized_conversion_cast``. The planner therefore walks blocks in order carrying a value map; it
    still builds its expansions as templates on the Emitter (:class:`~hlokit.passes.builder.TemplateCache`,
    :func:`~hlokit.passes.builder_templates.before_maker`).

    Declared illegal (:attr:`illegal_ops`): every ``shape`` / ``tensor`` op it lowers and the ``arith``
    ops it lowers when they compute on ``index`` or shape values (scalar ``arith`` that no shape value
    feeds stays, as upstream leaves it). An op whose ``!shape.shape`` / ``!shape.size`` result is used
    by an op not lowered here (``func.return``, ...) fails as upstream's does: ``failed to legalize
    operation '<op>' that was explicitly marked illegal`` (:mod:`hlokit.passes.shape_escapes`). Options: ``index-bitwidth`` (32 or 64), the integer type of
    ``index`` values (32, as ``get_dimension_size`` returns ``tensor<i32>``); ``assertions`` (default
    false), constraints as ``shape_assertion`` custom calls instead of dropped.
    """

    argument = "shape-legalize-to-stablehlo"
    summary = "Legalize shape-dialect and index computations to StableHLO (hlokit's Python rewrite)"
    anchor = "func.func"
    options = (
        Option("index-bitwidth", int, 32, "bit width of the integers that index values become (32 or 64)"),
        Option("assertions", bool, False, "check shape.cstr_* constraints with stablehlo.custom_call "
                                          "@shape_assertion instead of dropping them"),
    )
    illegal_ops = frozenset(_HANDLERS) | {"tensor.cast"}

    def run_on_operation(self, func_op: ir.Operation) -> None:
        if self.index_bitwidth not in (32, 64):
            raise PassError(f"shape-legalize-to-stablehlo: index-bitwidth must be 32 or 64, not {self.index_bitwidth}",
                            func_op.location)
        planner = _Planner(TemplateCache.of_pass(self, func_op.context), f"i{self.index_bitwidth}",
                           bool(self.assertions))
        planner.walk_ops(body_ops(func_op))
        if not planner.steps:
            return
        if planner.shape_typed:  # (a !shape.* value was made: the escape check; shape_plan_memo.walk_ops)
            lowered = [s for s in planner.steps if s.kind != "patch"]
            check_no_escape([s.op for s in lowered], self.argument, [s.results for s in lowered])
        _Rewriter(planner, func_op.context).run()
