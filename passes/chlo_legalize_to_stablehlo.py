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
from hlokit.passes.builder import V, Emitter, TemplateCache, instantiate, relocate, splice
from hlokit.passes.chlo import TABLE, read_attrs
from hlokit.passes.chlo.structured import SCAN_BODY, build_constant
from hlokit.passes.registry import Option, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = ["ChloLegalizeToStablehlo"]


def _check_scan(op: ir.Operation) -> None:
    """Raise PassError unless ``op`` (chlo.scan) has static shapes and a scan dimension size."""
    for v in list(op.operands) + list(op.results):
        if not v.type.has_static_shape:
            raise PassError(f"'chlo.scan' with a dynamic shape ({v.type}) is not supported", op.location)
    n_in, _ = attributes.i32_array(op, "operandSegmentSizes")
    n_out, _ = attributes.i32_array(op, "resultSegmentSizes")
    if n_in == 0 and n_out == 0 and not attributes.has(op, "scan_dim_size"):
        raise PassError("'chlo.scan' without inputs or outputs has no scan length", op.location)


@register_pass
class ChloLegalizeToStablehlo(TemplatePass):
    """Legalize every CHLO op to StableHLO (hlokit's Python implementation of the upstream flag).

    Anchor ``func.func``. Element types per op as in :data:`hlokit.passes.chlo.table.TABLE`; dynamic
    shapes are taken by elementwise, broadcasting, ``constant_like``, ``top_k`` and ``ragged_dot`` ops.
    Raises :class:`~hlokit.diagnostics.PassError` (located at the op) for a CHLO op without a lowering,
    an unranked tensor, a dynamic shape elsewhere, an element type or attribute mode the expansions do
    not cover; the IR is then unchanged. ``chlo.scan`` (which has no upstream decomposition) becomes a
    ``stablehlo.while`` over the scan dimension.

    Option ``precision``: ``native`` (default) evaluates the special functions and inverse / hyperbolic
    trigonometric functions of f16, bf16, f32 and complex<f32> operands in f32 arithmetic (the lowered
    program of an f32 model has no f64 op: it runs on a TPU and at f32 speed on a GPU); ``wide``
    evaluates them in f64 and rounds once (0.5 ULP; :mod:`hlokit.passes.chlo.elementwise`).
    Bounds per op: ``docs/chlo_accuracy.md``. Raises ValueError for another value.
    """

    argument = "chlo-legalize-to-stablehlo"
    summary = "Legalize CHLO to StableHLO (hlokit's Python expansions)"
    anchor = "func.func"
    illegal_ops = frozenset(TABLE)
    static_shapes = False  # per op: OpSpec.dynamic_ok
    relocate = False
    plan_per_signature = True  # (chlo.scan, with a region, is planned on its own)
    options = (
        Option("precision", str, "native",
               "native: f16/bf16/f32/complex<f32> special functions in f32 arithmetic; "
               "wide: in f64, rounded once"),
    )
    PRECISIONS = ("native", "wide")

    def __init__(self, **options):
        super().__init__(**options)
        if self.precision not in self.PRECISIONS:
            raise ValueError(f"invalid value '{self.precision}' for option 'precision' of pass "
                             f"'{self.argument}' (expected one of: {', '.join(self.PRECISIONS)})")

    def matches(self, op) -> bool:
        """Every CHLO op (one without a lowering is refused by name)."""
        return op.name.startswith("chlo.")

    def check(self, op) -> None:
        """Refuse an op with no lowering, an unranked or non-tensor value, an element type outside the op's
        ``OpSpec.types`` (first or last operand) and a dynamic shape the lowering does not take."""
        name = op.name
        spec = TABLE.get(name)
        if spec is None:
            raise PassError(f"'{name}' is not supported by chlo-legalize-to-stablehlo", op.location)
        if spec.kind == "direct":
            return
        super().check(op)
        if name == "chlo.scan":
            _check_scan(op)
        operands = op.operands
        if spec.types is not None and len(operands):
            first, last = str(operands[0].type.element_type), str(operands[-1].type.element_type)
            if first not in spec.types and last not in spec.types:
                raise PassError(
                    f"'{name}' on element type '{first}' is not supported by chlo-legalize-to-stablehlo "
                    f"(supported: {', '.join(spec.types)})",
                    op.location,
                )
        if not spec.dynamic_ok and any(not v.type.has_static_shape for v in list(operands) + list(op.results)):
            raise PassError(
                f"'{name}' with a dynamic shape is not supported by chlo-legalize-to-stablehlo "
                "(static shapes only; elementwise, broadcasting, constant_like, top_k and ragged_dot ops take dynamic shapes)",
                op.location,
            )

    def plan_op(self, cache: TemplateCache, op: ir.Operation, index: int):
        """Check ``op``; its template (``build_constant`` for ``chlo.constant``, rewritten in place)."""
        self.check(op)
        if TABLE[op.name].kind == "direct":
            return build_constant
        return self.template(cache, op, self.op_info(op, index))

    def attributes(self, op) -> dict:
        """Every attribute as a plain value (:func:`hlokit.passes.chlo.templates.read_attrs`)."""
        return read_attrs(op)

    def signature(self, info: OpInfo) -> tuple:
        return (info.name, info.operand_types, info.result_types,
                tuple(sorted((k, str(v)) for k, v in info.attrs.items())), self.precision)

    def shape_independent(self, info: OpInfo) -> bool:
        return TABLE[info.name].elementwise

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        spec = TABLE[info.name]
        e.wide = self.precision == "wide"
        if spec.elementwise and any(d < 0 for s in info.operand_shapes for d in s):
            e.shape_tensor = e.shape_of(operands[0], info.operand_shapes[0])
        return spec.build(e, operands, info)

    def instantiate(self, cache: TemplateCache, op: ir.Operation, template) -> None:
        """``chlo.scan``: the template relocated, the op's body spliced into its loop; other ops: the base's."""
        if op.name == "chlo.scan":
            instantiate(cache, template, op, prepare=lambda clone: self._prepare_scan(clone, op))
        else:
            super().instantiate(cache, op, template)

    @staticmethod
    def _prepare_scan(clone: ir.Operation, op: ir.Operation) -> None:
        """Give the cloned scan template the op's location and move the op's body into the loop."""
        relocate(clone, op.location)
        splice(clone, SCAN_BODY, op.regions[0].blocks[0])
