"""``shrink-shapes``: halve a dimension size through the whole program and re-infer the types.

A site is a static dimension size ``d > 1`` of ``@main``'s arguments. Applying a set of sizes gives every
dimension of that size ``d // 2`` in

* ``@main``'s arguments (entry block and ``function_type``);
* the results of ops whose result shape is not inferred from their operands (``broadcast_in_dim``,
  ``reshape``, ``iota``, ``custom_call``, ``func.call``, ...: the result type pins the shape), the arguments of
  nested blocks and of the other functions;
* ``stablehlo.constant``: the constant keeps the first half of its elements along that dimension;
* ``stablehlo.slice`` / ``dynamic_slice`` windows on such a dimension: a whole dimension stays whole, an even
  window of an even size is halved, another window inside the first half stays;

while the results of ops that infer their types (MLIR's ``InferTypeOpInterface`` /
``InferShapedTypeOpInterface``) and ``@main``'s results are relaxed to dynamic shapes. The relaxed module must
verify; upstream StableHLO's ``stablehlo-refine-shapes`` (run through :func:`hlokit.passes.pipeline.run_pipeline`,
on verified IR only) then infers the static types again. A candidate whose refinement fails, or that keeps a
dynamic dimension the input did not have, is not applicable. Ops whose attributes pin a shape otherwise
(padding, windows of ``reduce_window``, sizes ``reshape`` derives...) make a size's candidate fail verification
or refinement: the driver drops it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.attributes import i64_array
from hlokit.diagnostics import HlokitError
from hlokit.interpreter.values import dense_attribute, to_attr
from hlokit.passes.pipeline import run_pipeline
from hlokit.triage.reductions_base import (
    ReductionNotApplicable,
    all_ops,
    element_dtype,
    function_type,
    functions,
    in_context,
    set_function_type,
    static_tensor,
    symbol_references,
)
from hlokit.triage.reductions_structure import inline_call

__all__ = ["ShrinkShapes"]


def _ranked(t: ir.Type) -> ir.RankedTensorType | None:
    try:
        return ir.RankedTensorType(t)
    except (ValueError, TypeError):
        return None


def _map_type(t: ir.Type, sizes: dict[int, int]) -> ir.Type:
    """``t`` with every static dimension in ``sizes`` replaced (other types unchanged)."""
    r = _ranked(t)
    if r is None or not any(r.is_dynamic_dim(i) is False and r.shape[i] in sizes for i in range(r.rank)):
        return t
    shape = [d if r.is_dynamic_dim(i) else sizes.get(d, d) for i, d in enumerate(r.shape)]
    return ir.RankedTensorType.get(shape, r.element_type, r.encoding)


def _relaxed(t: ir.Type) -> ir.Type:
    """``t`` (a ranked tensor without encoding) with every dimension dynamic."""
    r = _ranked(t)
    if r is None or r.encoding is not None or r.rank == 0:
        return t
    return ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * r.rank, r.element_type)


def _infers(op: ir.Operation) -> bool:
    """Whether ``op`` infers its result types (MLIR's InferTypeOpInterface / InferShapedTypeOpInterface)."""
    for interface in (ir.InferTypeOpInterface, ir.InferShapedTypeOpInterface):
        try:
            interface(op, context=op.context)
            return True
        except (ValueError, TypeError, RuntimeError):
            pass
    return False


def _dynamic_dims(module: ir.Module) -> int:
    """The number of dynamic dimensions among the types of the module's op results."""
    n = 0
    for op in all_ops(module):
        for res in op.results:
            r = _ranked(res.type)
            if r is not None:
                n += sum(1 for i in range(r.rank) if r.is_dynamic_dim(i))
    return n


def _shrink_constant(op: ir.Operation, sizes: dict[int, int]) -> None:
    t = static_tensor(op.results[0].type)
    if t is None:
        return
    new_t = _map_type(t, sizes)
    if new_t == t:
        return
    if element_dtype(t) is None:
        raise ReductionNotApplicable("a constant of this type cannot be shrunk")
    try:
        arr = dense_attribute(op, "value")
    except (KeyError, TypeError, ValueError, RuntimeError):
        raise ReductionNotApplicable("a constant without a dense value cannot be shrunk") from None
    if tuple(arr.shape) != tuple(t.shape):
        raise ReductionNotApplicable("a constant whose value is not of its type's shape")
    index = tuple(slice(0, n) for n in ir.RankedTensorType(new_t).shape)
    try:
        op.attributes["value"] = to_attr(np.ascontiguousarray(arr[index]), new_t)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ReductionNotApplicable(f"constant: {exc}") from None
    op.results[0].set_type(new_t)


def _scaled_window(start: int, limit: int, dim: int, new: int) -> tuple[int, int]:
    """A slice ``[start, limit)`` of a dimension of size ``dim`` on the dimension shrunk to ``new``: the whole
    dimension stays whole, an even window of an even size is halved, another window inside the first
    ``new`` elements stays; else :class:`ReductionNotApplicable`."""
    if start == 0 and limit == dim:
        return 0, new
    if dim % 2 == 0 and new == dim // 2 and start % 2 == 0 and limit % 2 == 0:
        return start // 2, limit // 2
    if limit <= new:
        return start, limit
    raise ReductionNotApplicable(f"a slice [{start}:{limit}] of a dimension of size {dim} cannot shrink to {new}")


def _shrink_window(op: ir.Operation, operand: ir.Type, sizes: dict[int, int]) -> None:
    """Follow a shrunk operand dimension in the attributes of ``stablehlo.slice`` (start / limit indices)
    and ``stablehlo.dynamic_slice`` (slice sizes) (StableHLO spec, "slice", "dynamic_slice")."""
    r = _ranked(operand)
    if r is None or not r.has_static_shape:
        return
    dims = list(r.shape)
    if op.name == "stablehlo.slice":
        start, limit = i64_array(op, "start_indices"), i64_array(op, "limit_indices")
        for k, d in enumerate(dims):
            if d in sizes:
                start[k], limit[k] = _scaled_window(start[k], limit[k], d, sizes[d])
        op.attributes["start_indices"] = ir.DenseI64ArrayAttr.get(start)
        op.attributes["limit_indices"] = ir.DenseI64ArrayAttr.get(limit)
    elif op.name == "stablehlo.dynamic_slice":
        size = i64_array(op, "slice_sizes")
        for k, d in enumerate(dims):
            if d in sizes:
                size[k] = _scaled_window(0, size[k], d, sizes[d])[1]
        op.attributes["slice_sizes"] = ir.DenseI64ArrayAttr.get(size)


def _main_sizes(module: ir.Module) -> list[int]:
    main = functions(module).get("main")
    if main is None:
        return []
    sizes = set()
    for t in function_type(main).inputs:
        r = _ranked(t)
        if r is not None:
            sizes.update(d for i, d in enumerate(r.shape) if not r.is_dynamic_dim(i) and d > 1)
    return sorted(sizes, reverse=True)


def _inside_function(op: ir.Operation, func: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent is not None and parent == func


def _inline_into_main(module: ir.Module) -> ir.Operation:
    """Inline every call inside ``@main`` (transitively; a call's types must equal its callee's, which a
    change of shapes would break) and erase the functions no longer referenced; returns ``@main``."""
    for _ in range(64):
        funcs = functions(module)
        main = funcs["main"]
        calls = [op for op in all_ops(module) if op.name == "func.call" and _inside_function(op, main)]
        if not calls:
            break
        for call in reversed(calls):
            callee = funcs.get(ir.FlatSymbolRefAttr(call.attributes["callee"]).value)
            if callee is None or len(callee.regions[0].blocks) != 1 or callee == main:
                raise ReductionNotApplicable("@main calls a function that cannot be inlined")
            inline_call(call, callee)
    else:
        raise ReductionNotApplicable("calls nested too deep to inline")
    refs = symbol_references(module)
    for name, func in functions(module).items():
        if name != "main" and name not in refs:
            func.erase()
    return functions(module)["main"]


def _returned_types(main: ir.Operation) -> None:
    """Make ``@main``'s result types those of the values it returns."""
    block = main.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    set_function_type(main, [a.type for a in block.arguments], [v.type for v in ret.operands])


class ShrinkShapes:
    """``shrink-shapes``: halve every dimension of a size through the program (see the module docstring).
    Site: the size (an int, a static dimension of ``@main``'s arguments)."""

    name = "shrink-shapes"

    @in_context
    def sites(self, module: ir.Module) -> list:
        main = functions(module).get("main")
        if main is None or len(main.regions[0].blocks) != 1:
            return []
        return _main_sizes(module)

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        have = set(_main_sizes(module))
        if not sites or any(not isinstance(d, int) or d not in have for d in sites):
            raise ReductionNotApplicable(f"sizes {list(sites)} are not dimensions of @main's arguments")
        sizes = {d: d // 2 for d in sites}
        before = _dynamic_dims(module)
        main = _inline_into_main(module)
        block = main.regions[0].blocks[0]
        ops = all_ops(module)
        first_operand = [op.operands[0].type if len(op.operands) else None for op in ops]  # before the changes
        ft = function_type(main)
        inputs = [_map_type(t, sizes) for t in ft.inputs]
        for arg, t in zip(block.arguments, inputs):
            arg.set_type(t)
        for op, operand in zip(ops, first_operand):
            if op.name == "func.func" or not _inside_function(op, main):
                continue
            if op.name in ("stablehlo.slice", "stablehlo.dynamic_slice"):
                _shrink_window(op, operand, sizes)
            if op.name == "stablehlo.constant":
                _shrink_constant(op, sizes)
                continue
            for region in op.regions:
                for inner in region.blocks:
                    for arg in inner.arguments:
                        arg.set_type(_map_type(arg.type, sizes))
            relax = _infers(op)
            for res in op.results:
                res.set_type(_relaxed(res.type) if relax else _map_type(res.type, sizes))
        _returned_types(main)
        try:
            module.operation.verify()
        except ir.MLIRError as exc:
            raise ReductionNotApplicable(f"the relaxed program does not verify: {exc}") from None
        try:
            run_pipeline(module, "builtin.module(stablehlo-refine-shapes)")
        except HlokitError as exc:
            raise ReductionNotApplicable(f"stablehlo-refine-shapes failed: {exc}") from None
        if _dynamic_dims(module) > before:
            raise ReductionNotApplicable("refinement left dynamic dimensions")
        _returned_types(functions(module)["main"])
