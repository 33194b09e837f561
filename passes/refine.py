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
"""

from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir

from hlokit.diagnostics import Diagnostic, PassError
from hlokit.passes.pipeline import run_pipeline

__all__ = ["entry_function", "dynamic_arguments", "refine_arguments", "signature_text", "inline_calls"]


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
        run_pipeline(module, "builtin.module(symbol-dce,stablehlo-refine-shapes,"
                             "func.func(stablehlo-check-shape-assertions))", source_name=source_name)
    except PassError as err:
        raise PassError(_readable(err, source_name)) from None
    return signature_text(module, "main")


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
