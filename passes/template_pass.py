"""The one template-driven legalization base: :class:`TemplatePass`.

A legalization pass removes the ops it declares illegal (:attr:`Pass.illegal_ops`, full names such as
``"stablehlo.cholesky"``, and :attr:`Pass.illegal_custom_calls`, ``stablehlo.custom_call`` targets),
replacing each by an expansion written with the :class:`~hlokit.passes.builder.Emitter`. This is the
Python counterpart of upstream StableHLO's pattern-set-plus-``addIllegalOp`` passes
(``stablehlo/transforms/*.cpp``: a ``ConversionTarget`` and one ``applyPartialConversion``), with one
difference that upstream gets from its rollback: every op is checked, and every template built, before
the first op is rewritten, so a refused op leaves the anchor unchanged.

A pass declares, as class data and three methods::

    @register_pass
    class StablehloExpandCholesky(TemplatePass):
        argument = "stablehlo-expand-cholesky"
        summary = "..."
        illegal_ops = frozenset({"stablehlo.cholesky"})

        def attributes(self, op) -> tuple:          # what of the op selects the expansion
            return (attributes.bool_value(op, "lower", False),)

        def build(self, e, operands, info):         # the expansion, on the Emitter
            return [build_cholesky(e, operands[0], lower=info.attrs[0])]

and the base owns the rest (:meth:`TemplatePass.run_on_operation`):

1. **find** (:meth:`~TemplatePass.find`): every op under the anchor, nested regions included, for which
   :meth:`~TemplatePass.matches` holds (by default :meth:`Pass.is_illegal`), in MLIR's post-order walk
   (pre-order, the order of the text, for a :attr:`~TemplatePass.positional` pass; :attr:`OpInfo.index`
   is the op's position in that list);
2. **check and build, for every op, before any rewrite** (:meth:`~TemplatePass.plan_op`):
   :meth:`~TemplatePass.check` (ranked tensors; static shapes unless :attr:`~TemplatePass.static_shapes`
   is False; element types when :attr:`~TemplatePass.element_types` is set), then :class:`OpInfo` with
   :meth:`~TemplatePass.attributes`, the cache key :meth:`~TemplatePass.signature` and, on a cache miss,
   :meth:`~TemplatePass.build` on a fresh Emitter; the results are checked against the op's result
   types and the text is parsed once into the per-(pass instance, context)
   :class:`~hlokit.passes.builder.TemplateCache`;
3. **rewrite** (:meth:`~TemplatePass.instantiate`): each op replaced by a clone of its template
   (:func:`~hlokit.passes.builder.instantiate`), in the order found.

Errors: :class:`~hlokit.passes.builder.UnsupportedError` from a builder and
:class:`~hlokit.attributes.AttributeReadError` from :meth:`~TemplatePass.attributes` become a
:class:`~hlokit.diagnostics.PassError` located at the op, its message prefixed by ``'<op name>': ``
(unless it already starts with a quoted name); nothing has been rewritten then.

Shape-independent templates: when :meth:`~TemplatePass.shape_independent` says so for an op whose
operands and results all have one static shape (the CHLO elementwise ops), the template text is written
once per signature with the placeholder ``$S`` for that shape (the signature is computed from
:meth:`OpInfo.placeholder`, whose types spell ``$S`` instead of the shape) and parsed once per concrete
shape.

Hooks a pass may override beyond the three above: :meth:`~TemplatePass.matches` (look at more ops than
it removes, to refuse them with a message), :meth:`~TemplatePass.check`, :meth:`~TemplatePass.plan_op`
(return None to leave an op as it is, or a function that rewrites the op in place),
:meth:`~TemplatePass.instantiate`. Class data: :attr:`~TemplatePass.positional` (the op's position
is part of its signature: ``stablehlo.rng``'s key), :attr:`~TemplatePass.relocate`,
:attr:`~TemplatePass.plan_per_signature` (the ops of one name, operand / result types and attributes share
one check and plan: the per-op work is then building that key from uniqued ``ir.Type`` / ``ir.Attribute``
objects, no type text spelled).

The driver's phases are methods, so that a profile names them: :meth:`~TemplatePass.find`,
:meth:`~TemplatePass.plan` (check + build, every op) and :meth:`~TemplatePass.rewrite` (clone, move,
rewire, erase; :func:`~hlokit.passes.builder.instantiate`).
"""

from __future__ import annotations

from typing import ClassVar, Collection, Sequence

from jaxlib.mlir import ir

from hlokit import attributes as _attributes
from hlokit.passes.builder import (
    ANY_SHAPE,
    V,
    Emitter,
    TemplateCache,
    UnsupportedError,
    fill_shape,
    instantiate,
)
from hlokit.passes.builder_templates import single_rewriter
from hlokit.passes.registry import Pass, fail

__all__ = ["TemplatePass", "OpInfo"]


class OpInfo:
    """What :meth:`TemplatePass.build` may look at: everything the template depends on.

    ``name`` (the op's full name), ``operand_shapes`` / ``result_shapes`` (lists of ints, ``-1``: a
    dynamic dimension), ``operand_elems`` / ``result_elems`` (MLIR element type spellings, ``"f32"``),
    ``operand_types`` / ``result_types`` (the full type texts), ``attrs`` (what
    :meth:`TemplatePass.attributes` returned) and ``index`` (the op's position among the ops the pass
    found in its anchor, see :meth:`TemplatePass.find`). A builder must use only what the pass's
    :meth:`TemplatePass.signature` keys on: the template is shared by every op of that signature.
    """

    __slots__ = ("name", "operand_shapes", "operand_elems", "result_shapes", "result_elems",
                 "_operand_types", "_result_types", "attrs", "index")

    def __init__(self, name: str, operand_shapes, operand_elems, result_shapes, result_elems, attrs,
                 operand_types=(), result_types=(), index: int = 0):
        self.name = name
        self.operand_shapes = operand_shapes
        self.operand_elems = operand_elems
        self.result_shapes = result_shapes
        self.result_elems = result_elems
        self.attrs = attrs
        self._operand_types = operand_types  # ir types or their texts (spelled on first use)
        self._result_types = result_types
        self.index = index

    @property
    def operand_types(self) -> tuple[str, ...]:
        """The operands' type texts (``"tensor<4x?xf32>"``)."""
        return tuple(map(str, self._operand_types))

    @property
    def result_types(self) -> tuple[str, ...]:
        """The results' type texts."""
        return tuple(map(str, self._result_types))

    def placeholder(self) -> "OpInfo":
        """This info with every type spelled with the shape placeholder (``tensor<$Sf32>``): what the
        signature of a shape-independent template is computed from."""
        return OpInfo(self.name, self.operand_shapes, self.operand_elems, self.result_shapes, self.result_elems,
                      self.attrs, [f"tensor<$S{t}>" for t in self.operand_elems],
                      [f"tensor<$S{t}>" for t in self.result_elems], self.index)


if hasattr(getattr(ir, "OpResultList", None), "types"):
    def _result_types(op: ir.Operation) -> tuple:
        """The result types of ``op`` (``ir.Type`` objects; one call)."""
        return tuple(op.results.types)
else:  # (bindings without OpResultList.types)
    def _result_types(op: ir.Operation) -> tuple:
        """The result types of ``op`` (``ir.Type`` objects)."""
        return tuple([r.type for r in op.results])


def _operand_types(op: ir.Operation) -> tuple:
    """The operand types of ``op`` (``ir.Type`` objects); one or two read by index, without a comprehension."""
    xs = op.operands
    n = len(xs)
    if n == 2:
        return (xs[0].type, xs[1].type)
    return (xs[0].type,) if n == 1 else tuple([v.type for v in xs])


if hasattr(getattr(ir, "OpAttributeMap", None), "items"):
    def _attribute_items(op: ir.Operation) -> tuple:
        """``(name, ir.Attribute)`` for every attribute of ``op``, in the order MLIR keeps them (by name)."""
        return tuple(op.attributes.items())
else:  # (bindings without OpAttributeMap.items)
    def _attribute_items(op: ir.Operation) -> tuple:
        """``(name, ir.Attribute)`` for every attribute of ``op``, in the order MLIR keeps them (by name)."""
        attrs = op.attributes
        return tuple([(a.name, a.attr) for a in map(attrs.__getitem__, range(len(attrs)))])


def _shape(t: ir.RankedTensorType) -> list[int]:
    """The shape of ``t`` as ints, ``-1`` for a dynamic dimension (MLIR's dynamic size is negative)."""
    return [d if d >= 0 else -1 for d in t.shape]


class TemplatePass(Pass):
    """Base of the passes that replace each illegal op by a template built with the Emitter (see the
    module docstring for the protocol). Anchor ``func.func`` unless a subclass says otherwise; ops in
    nested regions are included.

    Raises :class:`~hlokit.diagnostics.PassError`, located at the first refused op and before anything
    is rewritten, for a non-tensor or unranked operand or result, a dynamic shape (with
    :attr:`static_shapes`), an element type outside :attr:`element_types`, an unreadable attribute or an
    expansion the builder refuses (:class:`~hlokit.passes.builder.UnsupportedError`).
    """

    anchor = "func.func"
    #: Refuse dynamic shapes (every operand and result must have a static shape).
    static_shapes: ClassVar[bool] = True
    #: The element types accepted for the first operand (None: any; :meth:`build` may still refuse).
    element_types: ClassVar[Collection[str] | None] = None
    #: The op's position (:attr:`OpInfo.index`, in pre-order: the order of the text) is part of its
    #: signature. Only for ops without regions (the ops are found in pre-order then, see :meth:`find`).
    positional: ClassVar[bool] = False
    #: Every op of the expansion, nested ones included, takes the rewritten op's location; with False only
    #: the top-level ones do (nested ops keep the template's name location, the op name).
    relocate: ClassVar[bool] = True
    #: What :meth:`plan_op` gives an op depends only on its name, operand and result types and attributes
    #: (not on its location, position, uses or regions): the ops of one such key (a tuple of uniqued
    #: ``ir.Type`` / ``ir.Attribute`` objects, no text) are checked and planned once. Ops with regions are
    #: always planned one by one; :attr:`positional` passes never share plans. A shared template of one op
    #: becomes a function that creates that op in place of each op of the key
    #: (:func:`~hlokit.passes.builder_templates.single_rewriter`: what :meth:`instantiate` does, fewer
    #: binding calls), so an :meth:`instantiate` override receives such a function for it.
    plan_per_signature: ClassVar[bool] = False

    # -- what a pass declares -------------------------------------------------------------------------
    def attributes(self, op: ir.Operation) -> tuple:
        """The attribute values that select the expansion of ``op`` (hashable unless :meth:`signature` is
        overridden); :attr:`OpInfo.attrs`. May raise :class:`~hlokit.attributes.AttributeReadError`."""
        return ()

    def signature(self, info: OpInfo) -> tuple:
        """The template cache key of an op: its name, operand and result types, :attr:`OpInfo.attrs` (and
        its position with :attr:`positional`). An override that keys on less must build from no more."""
        key = (info.name, info.operand_types, info.result_types, info.attrs)
        return key + (info.index,) if self.positional else key

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V] | V:
        """Write the expansion of one op signature on ``e`` over ``operands`` (one :class:`V` per operand);
        return the values replacing the op's results, in order. Raises UnsupportedError to refuse."""
        raise NotImplementedError

    def shape_independent(self, info: OpInfo) -> bool:
        """Whether the template of this signature is written once with the shape placeholder ``$S`` (only
        asked when every operand and result has the same static shape)."""
        return False

    # -- finding and checking -------------------------------------------------------------------------
    def matches(self, op: ir.Operation) -> bool:
        """Whether the pass looks at ``op`` (default: :meth:`Pass.is_illegal`)."""
        return self.is_illegal(op)

    def find(self, root: ir.Operation) -> list[ir.Operation]:
        """Every op under ``root`` (``root`` included, nested regions too) that :meth:`matches`, in MLIR's
        walk order: post-order (ops in nested regions before the op holding them, so rewriting in this
        order never touches an erased op), pre-order (the order of the text) when :attr:`positional`."""
        found: list[ir.Operation] = []
        matches = self.matches

        def visit(o):
            if matches(o):
                found.append(o)
            return ir.WalkResult.ADVANCE

        root.operation.walk(visit, ir.WalkOrder.PRE_ORDER if self.positional else ir.WalkOrder.POST_ORDER)
        if found and not isinstance(found[0], ir.Operation):  # (bindings whose walk hands out OpViews)
            found = [o.operation for o in found]
        return found

    def check(self, op: ir.Operation) -> None:
        """Refuse ``op`` with a located PassError unless every operand and result is a ranked tensor,
        statically shaped with :attr:`static_shapes`, and the first operand's element type is in
        :attr:`element_types` (when set)."""
        name = op.name
        for what, values in (("operand", op.operands), ("result", op.results)):
            for v in values:
                t = v.type
                if isinstance(t, ir.RankedTensorType):
                    if self.static_shapes and not t.has_static_shape:
                        raise fail(f"'{name}' with a dynamic or unranked shape ({t}) cannot be expanded "
                                   "(static shapes only)", op)
                elif isinstance(t, ir.UnrankedTensorType):
                    if self.static_shapes:
                        raise fail(f"'{name}' with a dynamic or unranked shape ({t}) cannot be expanded "
                                   "(static shapes only)", op)
                    raise fail(f"'{name}' on an unranked tensor ({t}) cannot be legalized: ranked tensors only", op)
                else:
                    raise fail(f"'{name}' {what} of type {t} is not a tensor", op)
        if self.element_types is not None and len(op.operands):
            t = str(op.operands[0].type.element_type)
            if t not in self.element_types:
                raise fail(f"'{name}' on element type '{t}' is not supported by {self.argument} "
                           f"(supported: {', '.join(self.element_types)})", op)

    def op_info(self, op: ir.Operation, index: int = 0) -> OpInfo:
        """The :class:`OpInfo` of a checked op (reads :meth:`attributes`; PassError when unreadable)."""
        try:
            attrs = self.attributes(op)
        except _attributes.AttributeReadError as err:
            raise fail(f"'{op.name}': {err}", op) from None
        o_types = [v.type for v in op.operands]  # ranked tensor types (checked)
        r_types = [v.type for v in op.results]
        return OpInfo(op.name, [_shape(t) for t in o_types], [str(t.element_type) for t in o_types],
                      [_shape(t) for t in r_types], [str(t.element_type) for t in r_types], attrs,
                      o_types, r_types, index)

    # -- templates ------------------------------------------------------------------------------------
    def template_cache(self, context: ir.Context) -> TemplateCache:
        """This pass instance's template cache of ``context`` (made on first use)."""
        return TemplateCache.of_pass(self, context)

    def template(self, cache: TemplateCache, op: ir.Operation, info: OpInfo) -> ir.Operation:
        """The parsed template of ``op``'s signature, built on a cache miss. Raises a located PassError
        when the builder refuses or its results do not have the op's result types."""
        shapes = info.operand_shapes + info.result_shapes
        if (self.shape_independent(info) and shapes
                and all(s == shapes[0] for s in shapes) and -1 not in shapes[0]):
            return self._shared_template(cache, op, info, tuple(shapes[0]))
        return self.template_of(cache, op, self.signature(info), list(zip(info.operand_shapes, info.operand_elems)),
                                lambda e, args: self._results(info, self.build(e, args, info)))

    def _shared_template(self, cache: TemplateCache, op: ir.Operation, info: OpInfo,
                         shape: tuple[int, ...]) -> ir.Operation:
        """The template of a shape-independent signature for the static ``shape``: the text on values of
        :data:`~hlokit.passes.builder.ANY_SHAPE` is written once per signature (``cache.texts``) and
        parsed once per shape."""
        signature = self.signature(info.placeholder())
        key = (signature, shape)
        fn = cache.funcs.get(key)
        if fn is not None:
            return fn
        try:
            text = cache.texts.get(signature)
            if text is None:
                e = Emitter(info.name)
                args = e.args([(ANY_SHAPE, t) for t in info.operand_elems])
                text = cache.texts[signature] = e.text("template", args, self._results(info, self.build(e, args, info)))
            return cache.parse(key, fill_shape(text, shape), info.name)
        except UnsupportedError as err:
            raise self.refusal(op, err) from None

    def template_of(self, cache: TemplateCache, op: ir.Operation, key: tuple,
                    operand_types: Sequence[tuple[Sequence[int], str]], build) -> ir.Operation:
        """The parsed template under ``key`` in ``cache``; on a miss written by ``build(e, args)`` (returning
        the values the template returns) over arguments of ``operand_types`` (``(shape, element type)``
        pairs) and parsed. For a pass whose templates are not one per op (a value-to-value lowering);
        the located PassError of :meth:`refusal` when ``build`` refuses."""
        fn = cache.funcs.get(key)
        if fn is not None:
            return fn
        try:
            e = Emitter(op.name)
            args = e.args(operand_types)
            return cache.parse(key, e.text("template", args, build(e, args)), op.name)
        except UnsupportedError as err:
            raise self.refusal(op, err) from None

    @staticmethod
    def refusal(op: ir.Operation, err: Exception):
        """The located PassError for ``err`` (an UnsupportedError) at ``op``: its message, prefixed with
        ``'<op name>': `` unless it starts with a quoted name already."""
        message = str(err)
        return fail(message if message.startswith("'") else f"'{op.name}': {message}", op)

    @staticmethod
    def _results(info: OpInfo, values) -> list[V]:
        """``values`` (one V or a list) checked against the op's results: their number, element types and
        static shapes. UnsupportedError (internal) when they differ."""
        values = [values] if isinstance(values, V) else list(values)
        if len(values) != len(info.result_elems):
            raise UnsupportedError(f"internal: the expansion of '{info.name}' has {len(values)} results, "
                                   f"the op {len(info.result_elems)}")
        for i, (v, elem, shape) in enumerate(zip(values, info.result_elems, info.result_shapes)):
            if v.t != elem or (not v.shape_independent and -1 not in shape and v.shape != list(shape)):
                raise UnsupportedError(f"internal: the expansion of '{info.name}' gives result #{i} the type "
                                       f"{v.ty}, the op {info.result_types[i]}")
        return values

    # -- the driver ------------------------------------------------------------------------------------
    def plan_op(self, cache: TemplateCache, op: ir.Operation, index: int):
        """Check ``op`` and return what :meth:`instantiate` rewrites it with (its parsed template), or None
        to leave it unchanged. Raises a located PassError to refuse it."""
        self.check(op)
        return self.template(cache, op, self.op_info(op, index))

    def instantiate(self, cache: TemplateCache, op: ir.Operation, template) -> None:
        """Replace ``op`` by a clone of ``template`` located at the op (see :attr:`relocate`). ``template``
        may instead be a function ``rewrite(op)`` that rewrites the op in place (an op whose replacement
        the Emitter cannot write, e.g. one with a ``!stablehlo.token`` result)."""
        if callable(template):
            template(op)
        else:
            instantiate(cache, template, op, relocate_nested=self.relocate)

    def run_on_operation(self, root: ir.Operation) -> None:
        """:meth:`run_on_anchors` on the one anchor ``root``."""
        self.run_on_anchors([root])

    def run_on_anchors(self, roots: Sequence[ir.Operation]) -> None:
        """Find, check and build every op under every anchor of ``roots``, then rewrite them all: a refused
        op leaves every anchor unchanged (see the module docstring)."""
        plan = []
        for root in roots:
            found = self.find(root)
            if found:
                plan += self.plan(self.template_cache(root.context), found)
        self.rewrite(plan)

    def plan(self, cache: TemplateCache, found: Sequence[ir.Operation]) -> list[tuple]:
        """:meth:`plan_op` for every op of ``found`` (one anchor's, in order): ``(cache, op, template)``
        for each op to rewrite. With :attr:`plan_per_signature` the ops of one key share one plan."""
        plan = []
        shared = self.plan_per_signature and not self.positional
        plans: dict[tuple, object] = {}
        for index, op in enumerate(found):  # every op checked and its template built before any rewrite
            if shared and not len(op.regions):
                key = (op.name, _operand_types(op), _result_types(op), _attribute_items(op))
                template = plans.get(key, plans)
                if template is plans:
                    template = self.plan_op(cache, op, index)
                    if template is not None and not callable(template):
                        # a one-op template: every op of the key is created anew with what they share bound once
                        template = single_rewriter(cache, template, key[2]) or template
                    plans[key] = template
            else:
                template = self.plan_op(cache, op, index)
            if template is not None:
                plan.append((cache, op, template))
        return plan

    def rewrite(self, plan: Sequence[tuple]) -> None:
        """:meth:`instantiate` every ``(cache, op, template)`` of ``plan``, in order (the walk order of
        :meth:`find`)."""
        for cache, op, template in plan:
            self.instantiate(cache, op, template)
