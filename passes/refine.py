"""Refine a program with symbolic (dynamic) argument shapes to the concrete shapes of its inputs.

A ``jax.export`` with symbolic dimensions (``jax.export.symbolic_shape("b, 16")``) has an entry function
taking ``tensor<?x16xf32>``; jax computes the dimension variables from the argument shapes inside the
module, checks them with ``stablehlo.custom_call @shape_assertion`` ops, and passes them to its helper
functions (``@_wrapped_jax_export_main``, ``@_where``, ...). :func:`refine_arguments` gives the program the
concrete argument types, as jax does before compiling an exported program for a call (JAX docs, "Shape
polymorphism", https://docs.jax.dev/en/latest/export/shape_poly.html): upstream StableHLO's
``stablehlo-refine-arguments`` (new argument types), the calls inlined (upstream ``stablehlo-refine-shapes``
refines a callee per call site, and jax's helpers are called with different constants), ``symbol-dce``,
``stablehlo-refine-shapes`` and ``stablehlo-check-shape-assertions`` (a failed ``shape_assertion`` fails with
jax's own message). These are upstream passes hlokit runs, not hlokit passes: this module registers none.

A shape-polymorphic export also holds jax's dynamic custom calls (JAX docs, "Shape polymorphism"; jax's
lowerings ``_top_k_lower`` in ``jax/_src/lax/lax.py``, ``_approx_top_k_lowering`` in ``jax/_src/lax/ann.py``,
``reduce_window`` in ``jax/_src/interpreters/mlir.py``, ``_rng_bit_generator_lowering`` in ``lax.py``):
``stablehlo.dynamic_top_k``, ``stablehlo.dynamic_approx_top_k``, ``stablehlo.dynamic_reduce_window`` and
``stablehlo.dynamic_rng_bit_generator``. No engine runs them: jax's own pipeline turns each into its static
op once refinement has made its shape operands constants (XLA's ``stablehlo-ext-refine-shapes`` /
``stablehlo-ext-canonicalize-dynamism``, which jaxlib's upstream passes lack). :func:`static_custom_calls`
does that here, after which ``stablehlo-refine-shapes`` runs again and ``stablehlo-canonicalize-dynamism``
turns the spec's dynamic ops (``dynamic_reshape``, ``dynamic_broadcast_in_dim``, ``real_dynamic_slice``,
``dynamic_iota``, ``dynamic_pad``, ``dynamic_gather``, ``dynamic_conv``) whose shape operands are now
constants into their static forms. What stays dynamic (a shape computed from data) runs in the
interpreter on the concrete values.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.diagnostics import Diagnostic, PassError
from hlokit.passes.pipeline import run_pipeline

__all__ = ["entry_function", "dynamic_arguments", "refine_arguments", "signature_text", "inline_calls",
           "static_custom_calls", "drop_identity_converts", "check_assertions_alone", "DYNAMIC_CUSTOM_CALLS"]


def entry_function(module: ir.Module, function: str = "main"):
    """The ``func.func`` named ``function`` in ``module``'s body, or None."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == function:
            return op
    return None


def dynamic_arguments(module: ir.Module, function: str = "main") -> list[int]:
    """Indices of the arguments of ``function`` whose type is a ranked tensor with a dynamic dimension
    (``tensor<?x16xf32>``); [] for a static signature or a missing function."""
    fn = entry_function(module, function)
    if fn is None:
        return []
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return [i for i, t in enumerate(ftype.inputs)
            if isinstance(t, ir.RankedTensorType) and not ir.RankedTensorType(t).has_static_shape]


def signature_text(module: ir.Module, function: str = "main") -> str:
    """``(tensor<8x16xf32>) -> tensor<8xf32>``: the argument and result types of ``function``."""
    fn = entry_function(module, function)
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    results = [str(t) for t in ftype.results]
    res = results[0] if len(results) == 1 else f"({', '.join(results)})"
    return f"({', '.join(str(t) for t in ftype.inputs)}) -> {res}"


def inline_calls(module: ir.Module) -> int:
    """Inline every ``func.call`` of a single-block function defined in ``module``, repeatedly, until none
    is left (the callees stay; ``symbol-dce`` removes the private ones no longer called). Returns the
    number of calls inlined. (MLIR's ``inline`` pass inlines nothing here: the func dialect's inliner
    interface is not registered in jaxlib's bindings.) A recursive call would not end: jax emits none."""
    funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op
             for op in module.body.operations if op.operation.name == "func.func"}
    count = 0
    while True:
        calls: list[ir.Operation] = []

        def visit(op):
            if op.name == "func.call":
                calls.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        done = 0
        for call in calls:
            callee = funcs.get(ir.FlatSymbolRefAttr(call.attributes["callee"]).value)
            if callee is None or len(callee.regions[0].blocks) != 1:
                continue
            clone = callee.operation.clone(ip=ir.InsertionPoint(call))
            block = clone.regions[0].blocks[0]
            for arg, value in zip(block.arguments, call.operands):
                arg.replace_all_uses_with(value)
            body = list(block.operations)
            for op in body[:-1]:
                op.move_before(call)
            for result, value in zip(call.results, body[-1].operands):
                result.replace_all_uses_with(value)
            call.erase()
            clone.erase()
            done += 1
        count += done
        if not done:
            return count


def refine_arguments(module: ir.Module, types: Sequence[ir.Type | str], *, source_name: str | None = None) -> str:
    """Give ``@main`` of ``module`` the argument ``types`` (one per argument, static shapes; an
    ``ir.Type`` or its text, ``tensor<8x16xf32>``) and refine the program in place: the shapes inferred
    through it, jax's ``shape_assertion`` checks evaluated (see the module docstring for the passes).
    Returns the refined signature (:func:`signature_text`).

    Raises :class:`hlokit.diagnostics.PassError` (located diagnostics) where a type contradicts the
    argument's (another rank, element type or static dimension), where refinement fails (a shape the
    program cannot take) and where a shape assertion fails (jax's message); ``ValueError`` for a module
    without ``@main``."""
    if entry_function(module, "main") is None:
        raise ValueError("the module has no @main function (stablehlo-refine-arguments refines @main)")
    texts = ",".join(str(t) for t in types)
    try:
        run_pipeline(module, f"builtin.module(stablehlo-refine-arguments{{types='{texts}'}})",
                     source_name=source_name)
        with module.context, ir.Location.unknown():
            inline_calls(module)
        # (a shape that breaks jax's specification may break an op's verification during refinement before
        # the assertions are checked: keep a copy to check them alone then, for jax's own message)
        assertions = _has_shape_assertions(module)
        before = module.operation.clone() if assertions else None
        try:
            run_pipeline(module, "builtin.module(symbol-dce,stablehlo-refine-shapes,"
                                 "func.func(stablehlo-check-shape-assertions))", source_name=source_name)
        except PassError:
            if before is not None:
                check_assertions_alone(before, source_name=source_name)
            raise
        finally:
            if before is not None:
                before.erase()
        with module.context, ir.Location.unknown():
            rewritten = static_custom_calls(module)
        steps = "stablehlo-refine-shapes," if rewritten else ""
        run_pipeline(module, f"builtin.module({steps}func.func(stablehlo-canonicalize-dynamism))",
                     source_name=source_name)
        drop_identity_converts(module)
    except PassError as err:
        raise PassError(_readable(err, source_name)) from None
    return signature_text(module, "main")


def _has_shape_assertions(module: ir.Module) -> bool:
    found = []

    def visit(op):
        if op.name == "stablehlo.custom_call" and \
                attributes.str_value(op, "call_target_name", "") == "shape_assertion":
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return bool(found)


def check_assertions_alone(module: ir.Operation, *, source_name: str | None = None) -> None:
    """Evaluate jax's ``shape_assertion`` checks of ``@main`` in ``module`` (a ``builtin.module`` operation
    whose ``@main`` has its refined argument types and its calls inlined) on their own: every op of
    ``@main`` that no assertion depends on is erased (the function then returns nothing), and
    ``stablehlo-refine-shapes`` and ``stablehlo-check-shape-assertions`` run on what is left, the dimension
    arithmetic jax writes from the argument shapes. Changes ``module``.

    Raises :class:`~hlokit.diagnostics.PassError` with jax's message when an assertion fails; returns
    quietly otherwise (also when the slice itself cannot be refined: the caller's error stands)."""
    main = None
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            main = op.operation
    if main is None or len(main.regions[0].blocks) != 1:
        return
    block = main.regions[0].blocks[0]
    ops = list(block.operations)
    keep: set = set()
    prefixes: list[str] = []  # (each assertion's error_message up to its first placeholder)
    for op in reversed(ops):
        op = op.operation
        if op.name == "stablehlo.custom_call" and \
                attributes.str_value(op, "call_target_name", "") == "shape_assertion":
            keep.add(op)
            prefixes.append(attributes.str_value(op, "error_message", "").split("{")[0])
        elif any(use.owner in keep for r in op.results for use in r.uses):
            keep.add(op)
    prefixes = tuple(p for p in prefixes if p) or ("\0",)
    with module.context, ir.Location.unknown():
        terminator = ops[-1].operation
        ir.Operation.create(terminator.name, results=[], operands=[], ip=ir.InsertionPoint(terminator))
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ftype.inputs), []))
        for name in ("res_attrs",):
            if name in main.attributes:
                del main.attributes[name]
        for op in reversed(ops):
            if op.operation not in keep:
                op.operation.erase()
    try:
        run_pipeline(module, "builtin.module(stablehlo-refine-shapes,func.func(stablehlo-check-shape-assertions))",
                     source_name=source_name)
    except PassError as err:
        if any(d.message.startswith(prefixes) for d in err.diagnostics):
            raise


#: jax's shape-polymorphic custom calls that :func:`static_custom_calls` turns into static ops.
DYNAMIC_CUSTOM_CALLS = ("stablehlo.dynamic_top_k", "stablehlo.dynamic_approx_top_k",
                        "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_rng_bit_generator")


def static_custom_calls(module: ir.Module) -> int:
    """Replace each of jax's dynamic custom calls (:data:`DYNAMIC_CUSTOM_CALLS`) in ``module`` whose shape
    operands are constants and whose data operands have static shapes with the static op jax emits for
    static shapes (the lowerings named in the module docstring):

    * ``dynamic_top_k(operand, k)`` -> ``chlo.top_k(operand) {k}``;
    * ``dynamic_approx_top_k(operand, iota, init_value, init_index, k[, result shapes...])`` ->
      ``custom_call @ApproxTopK(operand, iota, init_value, init_index)`` with ``top_k = k`` added to its
      ``mhlo.backend_config``;
    * ``dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
      base_dilations, window_dilations, padding)`` with the body in ``called_computations`` ->
      ``stablehlo.reduce_window`` (StableHLO spec "reduce_window") with the body cloned into its region;
    * ``dynamic_rng_bit_generator(initial_state, output_shape)`` -> ``stablehlo.rng_bit_generator``
      (spec "rng_bit_generator") with the same ``rng_algorithm``.

    A result whose type changes reaches its users through a ``stablehlo.convert`` to the old type (a
    following ``stablehlo-refine-shapes`` refines it). A call whose shape operands are not constants, or
    that does not have the operands jax writes, stays as it is. Returns the number of calls replaced."""
    calls: list[ir.Operation] = []

    def visit(op):
        if op.name == "stablehlo.custom_call" and attributes.str_value(op, "call_target_name") in DYNAMIC_CUSTOM_CALLS:
            calls.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op
             for op in module.body.operations if op.operation.name == "func.func"}
    done = 0
    for op in calls:
        target = attributes.str_value(op, "call_target_name")
        new = _STATIC[target](op, funcs)
        if new is None:
            continue
        with ir.InsertionPoint(op), op.location:
            for old, value in zip(op.results, new.results):
                if value.type != old.type:
                    value = ir.Operation.create("stablehlo.convert", results=[old.type], operands=[value]).result
                old.replace_all_uses_with(value)
        op.erase()
        done += 1
    return done


def drop_identity_converts(module: ir.Module) -> int:
    """Remove every ``stablehlo.convert`` whose result type is its operand's (the identity, spec "convert":
    jax's argument wrappers and the converts :func:`static_custom_calls` inserted, once refinement has made
    both sides static), its users reading the operand. Returns the number removed."""
    found: list[ir.Operation] = []

    def visit(op):
        if op.name == "stablehlo.convert" and op.operands[0].type == op.results[0].type:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
    return len(found)


def _constant(value: ir.Value) -> list[int] | None:
    """The ints of ``value`` when a ``stablehlo.constant`` defines it, else None."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "stablehlo.constant":
        return None
    return attributes.int_array_of(owner.attributes["value"])


def _static(value: ir.Value) -> ir.RankedTensorType | None:
    """``value``'s type when it is a ranked tensor of static shape, else None."""
    t = value.type
    return ir.RankedTensorType(t) if isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape else None


def _tensor(shape, element_type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([int(d) for d in shape], element_type)


def _create(op: ir.Operation, name: str, results, operands, attrs=None, regions: int = 0) -> ir.Operation:
    """A new op ``name`` before ``op``, at its location."""
    return ir.Operation.create(name, results=results, operands=operands, attributes=attrs or {},
                               regions=regions, loc=op.location, ip=ir.InsertionPoint(op))


def _static_top_k(op, funcs):
    """``stablehlo.dynamic_top_k(operand, k)`` -> ``chlo.top_k`` (jax's ``_top_k_lower``: k along the last
    dimension; values of the operand's type, indices of the second result's element type)."""
    if len(op.operands) != 2 or len(op.results) != 2:
        return None
    t, k = _static(op.operands[0]), _constant(op.operands[1])
    if t is None or k is None or len(k) != 1 or t.rank < 1 or not 0 <= k[0] <= t.shape[-1]:
        return None
    shape = list(t.shape[:-1]) + [k[0]]
    index_type = ir.RankedTensorType(op.results[1].type).element_type
    attrs = {"k": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k[0])}
    return _create(op, "chlo.top_k", [_tensor(shape, t.element_type), _tensor(shape, index_type)],
                   [op.operands[0]], attrs)


def _static_approx_top_k(op, funcs):
    """``stablehlo.dynamic_approx_top_k(operand, iota, init_value, init_index, k[, shapes])`` -> ``custom_call
    @ApproxTopK(operand, iota, init_value, init_index)`` with ``top_k = k`` in its backend config (jax's
    ``_approx_top_k_lowering``). The results: the operand's shape with ``k`` along ``reduction_dim`` (the
    form jax writes, ``aggregate_to_topk``); a call whose results refinement has not made static and that
    does not aggregate stays."""
    if len(op.operands) < 5 or len(op.results) != 2 or "mhlo.backend_config" not in op.attributes:
        return None
    t, k = _static(op.operands[0]), _constant(op.operands[4])
    config = op.attributes["mhlo.backend_config"]
    if t is None or k is None or len(k) != 1 or not isinstance(config, ir.DictAttr):
        return None
    entries = {config[i].name: config[i].attr for i in range(len(config))}
    results = [_static(r) for r in op.results]
    if any(r is None for r in results):
        aggregate = entries.get("aggregate_to_topk")
        dim = entries.get("reduction_dim")
        if not (isinstance(aggregate, ir.BoolAttr) and aggregate.value and isinstance(dim, ir.IntegerAttr)):
            return None
        shape = list(t.shape)
        if not 0 <= dim.value < len(shape):
            return None
        shape[dim.value] = k[0]
        results = [_tensor(shape, ir.RankedTensorType(r.type).element_type) for r in op.results]
    entries["top_k"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k[0])
    named = [op.attributes[i] for i in range(len(op.attributes))]
    attrs = {a.name: a.attr for a in named if a.name not in ("indices_of_shape_operands", "mhlo.backend_config")}
    attrs["call_target_name"] = ir.StringAttr.get("ApproxTopK")
    attrs["mhlo.backend_config"] = ir.DictAttr.get(entries)
    return _create(op, "stablehlo.custom_call", results, list(op.operands)[:4], attrs)


def _static_reduce_window(op, funcs):
    """``stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
    base_dilations, window_dilations, padding)`` -> ``stablehlo.reduce_window`` (jax's ``mlir.reduce_window``;
    the body is the function named in ``called_computations``, cloned into the region)."""
    n, rem = divmod(len(op.operands) - 5, 2)
    if n < 1 or rem or len(op.results) != n or "called_computations" not in op.attributes:
        return None
    called = ir.ArrayAttr(op.attributes["called_computations"])
    body = funcs.get(ir.FlatSymbolRefAttr(called[0]).value) if len(called) == 1 else None
    if body is None or len(body.regions[0].blocks) != 1:
        return None
    inputs = [_static(v) for v in list(op.operands)[:n]]
    values = [_constant(v) for v in list(op.operands)[2 * n:]]
    if any(t is None for t in inputs) or any(v is None for v in values):
        return None
    rank = inputs[0].rank
    dims, strides, base, window, padding = values
    if any(len(v) != rank for v in values[:4]) or len(padding) != 2 * rank:
        return None
    i64 = ir.IntegerType.get_signless(64)
    attrs = {"window_dimensions": ir.DenseI64ArrayAttr.get(dims),
             "window_strides": ir.DenseI64ArrayAttr.get(strides),
             "base_dilations": ir.DenseI64ArrayAttr.get(base),
             "window_dilations": ir.DenseI64ArrayAttr.get(window),
             "padding": ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(rank, 2),
                                                    type=_tensor([rank, 2], i64))}
    # the result types jax wrote (refine-shapes infers the static ones from the new op)
    new = _create(op, "stablehlo.reduce_window", [r.type for r in op.results], list(op.operands)[:2 * n],
                  attrs, regions=1)
    entry = body.regions[0].blocks[0]
    block = new.regions[0].blocks.append(*[a.type for a in entry.arguments])
    clone = body.operation.clone(ip=ir.InsertionPoint(op))
    cloned = clone.regions[0].blocks[0]
    for old, arg in zip(cloned.arguments, block.arguments):
        old.replace_all_uses_with(arg)
    ops = list(cloned.operations)
    for inner in ops[:-1]:
        inner.detach_from_parent()
        ir.InsertionPoint(block).insert(inner)
    ir.Operation.create("stablehlo.return", operands=list(ops[-1].operands), loc=ops[-1].location,
                        ip=ir.InsertionPoint(block))
    clone.erase()
    return new


def _static_rng_bit_generator(op, funcs):
    """``stablehlo.dynamic_rng_bit_generator(initial_state, output_shape)`` -> ``stablehlo.rng_bit_generator``
    of that output shape (jax's ``_rng_bit_generator_lowering``)."""
    if len(op.operands) != 2 or len(op.results) != 2 or "rng_algorithm" not in op.attributes:
        return None
    shape = _constant(op.operands[1])
    if shape is None or _static(op.operands[0]) is None or any(d < 0 for d in shape):
        return None
    out = ir.RankedTensorType(op.results[1].type)
    if len(shape) != out.rank:
        return None
    return _create(op, "stablehlo.rng_bit_generator", [op.operands[0].type, _tensor(shape, out.element_type)],
                   [op.operands[0]], {"rng_algorithm": op.attributes["rng_algorithm"]})


_STATIC = {"stablehlo.dynamic_top_k": _static_top_k, "stablehlo.dynamic_approx_top_k": _static_approx_top_k,
           "stablehlo.dynamic_reduce_window": _static_reduce_window,
           "stablehlo.dynamic_rng_bit_generator": _static_rng_bit_generator}


def _readable(err: PassError, source_name: str | None) -> list[Diagnostic]:
    """``err``'s errors once each, without the notes that print the whole failing op, and named after
    ``source_name`` where MLIR gave no file (jax's ``shape_assertion`` ops carry a name location only)."""
    out: list[Diagnostic] = []
    seen = set()
    for d in err.diagnostics:
        key = (d.message, d.file, d.line, d.col)
        if key in seen:
            continue
        seen.add(key)
        notes = [n for n in d.notes if not n.message.startswith("see current operation")]
        file = d.file if d.file not in (None, "", "-") else source_name
        out.append(Diagnostic(d.severity, d.message, file, d.line, d.col, notes))
    return out
