"""jax's shape-polymorphic custom calls in the interpreter, on the concrete values.

A ``jax.export`` with symbolic shapes writes four custom calls whose result shapes come from operands (JAX
docs, "Shape polymorphism", https://docs.jax.dev/en/latest/export/shape_poly.html; the targets are listed
in ``jax/_src/export/_export.py``, ``_CUSTOM_CALL_TARGETS_GUARANTEED_STABLE``):

* ``stablehlo.dynamic_top_k(operand, k)`` (``_top_k_lower`` in ``jax/_src/lax/lax.py``): ``chlo.top_k`` with
  ``k`` an operand;
* ``stablehlo.dynamic_approx_top_k(operand, iota, init_value, init_index, k[, result shapes])``
  (``_approx_top_k_lowering`` in ``jax/_src/lax/ann.py``): XLA's ``ApproxTopK`` with ``top_k`` an operand;
* ``stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
  base_dilations, window_dilations, padding)`` (``reduce_window`` in ``jax/_src/interpreters/mlir.py``):
  the spec's ``reduce_window`` with its attributes as operands and its body a function named in
  ``called_computations``;
* ``stablehlo.dynamic_rng_bit_generator(initial_state, output_shape)`` (``_rng_bit_generator_lowering`` in
  ``lax.py``): the spec's ``rng_bit_generator`` with its output shape an operand;

and ``shape_assertion(assert_what, error_message_inputs...) {error_message}`` (``shape_assertion`` in
``jax/_src/export/shape_poly.py``), its check that the argument shapes fit the symbolic ones.

Shape refinement (``hlokit.passes.refine``) turns each into its static op when its shape operands become
constants; these adapters run what is left (a program run as given, a shape computed from data). The
static ``ApproxTopK`` and ``rng_bit_generator`` kernels of the other families are reached through the op
table (:func:`~hlokit.interpreter.registry.lookup`, ``CUSTOM_CALLS``) on a detached op of the concrete
result types, so the results are those of the static ops bit for bit; ``top_k`` and ``reduce_window`` are
computed here.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.interpreter.arrays import pad
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.registry import CUSTOM_CALLS, lookup, register_custom_call
from hlokit.interpreter.regions import Body, block_arg_dtypes, call_body, region_callable
from hlokit.interpreter.values import dtype_of

__all__ = ["top_k", "dynamic_reduce_window", "shape_assertion"]


def _ints(value) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _descending_keys(x: np.ndarray) -> np.ndarray:
    """Integer keys whose ascending order is ``x``'s descending order: floats in IEEE total order (NaN
    above +inf, -0 below +0), booleans with true first."""
    if x.dtype == np.bool_:
        return ~x.astype(np.int8)
    if x.dtype.kind in "iu":
        return ~x
    bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    total = np.where(bits < 0, bits ^ np.array(np.iinfo(bits.dtype).max, bits.dtype), bits)
    return ~total


def top_k(operand: np.ndarray, k: int, index_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """``chlo.top_k`` (XLA operation semantics "TopK", https://openxla.org/xla/operation_semantics#topk):
    the ``k`` largest entries along the last dimension in descending order and their indices; equal
    entries keep their order (a stable sort), floats compare in total order (NaN first). Raises
    ``ValueError`` for a 0-d operand or ``k`` outside ``[0, size of the last dimension]``."""
    if operand.ndim < 1 or not 0 <= k <= operand.shape[-1]:
        raise ValueError(f"k = {k} outside [0, {operand.shape[-1] if operand.ndim else 0}] "
                         f"for an operand of shape {list(operand.shape)}")
    order = np.argsort(_descending_keys(operand), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(operand, order, axis=-1), order.astype(index_dtype)


@register_custom_call("stablehlo.dynamic_top_k")
def _dynamic_top_k(op, operands, interp):
    """``custom_call @stablehlo.dynamic_top_k(operand, k)``: :func:`top_k` with ``k`` read from the operand."""
    if len(operands) != 2 or len(op.results) != 2 or np.ndim(operands[1]) != 0:
        raise InterpreterError("'stablehlo.dynamic_top_k' takes (operand, k) with a 0-d k and returns "
                               "(values, indices)", op.location)
    try:
        return list(top_k(operands[0], int(operands[1]), dtype_of(ir.RankedTensorType(op.results[1].type).element_type)))
    except ValueError as err:
        raise InterpreterError(f"'stablehlo.dynamic_top_k': {err}", op.location) from None


def dynamic_reduce_window(
    inputs: Sequence[np.ndarray],
    init_values: Sequence[np.ndarray],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    base_dilations: Sequence[int],
    window_dilations: Sequence[int],
    padding: Sequence[Sequence[int]],
    body: Body,
    body_dtypes: Sequence[np.dtype],
) -> list[np.ndarray]:
    """StableHLO spec "reduce_window": ``padded = pad(inputs..., init_values..., padding[:, 0],
    padding[:, 1], base_dilations - 1)``; for every result index ``i`` the window ``slice(padded, i *
    window_strides, i * window_strides + (window_dimensions - 1) * window_dilations + 1,
    window_dilations)`` is reduced with ``body``. The schedule (which the spec leaves to the
    implementation) is the init value then the window's elements in row-major order, as XLA's CPU
    backend folds. Raises ``ValueError`` for operands the spec rejects (a window size or stride or
    dilation below 1, parameters of the wrong length, inputs of different shapes)."""
    rank = inputs[0].ndim
    params = [window_dimensions, window_strides, base_dilations, window_dilations]
    if any(len(p) != rank for p in params) or len(padding) != rank or any(len(p) != 2 for p in padding):
        raise ValueError(f"window parameters {[list(p) for p in params]} and padding {[list(p) for p in padding]} "
                         f"do not fit inputs of rank {rank}")
    if any(d < 1 for p in params for d in p):
        raise ValueError(f"window dimensions, strides and dilations must be positive, got {[list(p) for p in params]}")
    if any(x.shape != inputs[0].shape for x in inputs) or any(np.ndim(v) for v in init_values):
        raise ValueError("the inputs must have one shape and the init values must be 0-d")
    padded = [pad(x, np.asarray(v).astype(x.dtype), [p[0] for p in padding], [p[1] for p in padding],
                  [b - 1 for b in base_dilations]) for x, v in zip(inputs, init_values)]
    spans = [(w - 1) * d + 1 for w, d in zip(window_dimensions, window_dilations)]
    out_shape = tuple(0 if n < s else (n - s) // st + 1 for n, s, st in zip(padded[0].shape, spans, window_strides))
    dtypes = [x.dtype for x in inputs]
    acc = [np.broadcast_to(np.asarray(v).astype(dt), out_shape) for v, dt in zip(init_values, dtypes)]
    if 0 in out_shape:
        return [np.array(a) for a in acc]
    for offset in itertools.product(*[range(w) for w in window_dimensions]):
        index = tuple(slice(o * d, o * d + (n - 1) * st + 1, st)
                      for o, d, n, st in zip(offset, window_dilations, out_shape, window_strides))
        elems = [p[index] for p in padded]
        acc = call_body(body, [*acc, *elems], [out_shape] * len(acc), body_dtypes or dtypes)
    return [np.array(a, order="C") for a in acc]


def _called_function(op, interp, what: str):
    """The ``func.func`` named in ``op``'s ``called_computations`` (exactly one)."""
    callees = attributes.get(op, "called_computations", None)
    if not isinstance(callees, ir.ArrayAttr) or len(callees) != 1:
        raise InterpreterError(f"'{what}' needs one function in called_computations", op.location)
    return interp.function(ir.FlatSymbolRefAttr(callees[0]).value)


@register_custom_call("stablehlo.dynamic_reduce_window")
def _dynamic_reduce_window(op, operands, interp):
    """``custom_call @stablehlo.dynamic_reduce_window``: :func:`dynamic_reduce_window` with the window
    parameters read from the last five operands (``padding`` of shape [rank, 2]) and the body from
    ``called_computations``."""
    what = "stablehlo.dynamic_reduce_window"
    n, rem = divmod(len(operands) - 5, 2)
    if n < 1 or rem or len(op.results) != n:
        raise InterpreterError(f"'{what}' takes N inputs, N init values and 5 window operands and returns N "
                               f"results; got {len(operands)} operands and {len(op.results)} results", op.location)
    dims, strides, base, window, flat = (_ints(v) for v in operands[2 * n:])
    region = _called_function(op, interp, what).operation.regions[0]
    try:
        results = dynamic_reduce_window(operands[:n], operands[n:2 * n], dims, strides, base, window,
                                        [flat[i:i + 2] for i in range(0, len(flat), 2)],
                                        region_callable(interp, region), block_arg_dtypes(region)[:n])
    except ValueError as err:
        raise InterpreterError(f"'{what}': {err}", op.location) from None
    for r, value in zip(op.results, results):
        _check_result(op, r, value.shape, what)
    return results


def _check_result(op, result: ir.Value, shape: Sequence[int], what: str) -> None:
    """An :class:`InterpreterError` when ``shape`` contradicts a static dimension of ``result``'s type."""
    t = ir.RankedTensorType(result.type)
    if len(shape) != t.rank or any(not t.is_dynamic_dim(i) and t.get_dim_size(i) != d for i, d in enumerate(shape)):
        raise InterpreterError(f"'{what}' computes a result of shape {list(shape)}, which does not match its type {t}",
                               op.location)


def _detached(op, name: str, shapes: Sequence[Sequence[int]], attrs: dict) -> ir.Operation:
    """A detached op ``name`` without operands whose results have ``op``'s element types and ``shapes``:
    what a static kernel reads (attributes, result types) of the op it runs."""
    with op.context, op.location:
        types = [ir.RankedTensorType.get([int(d) for d in s], ir.RankedTensorType(r.type).element_type)
                 for s, r in zip(shapes, op.results)]
        return ir.Operation.create(name, results=types, operands=[], attributes=attrs, loc=op.location)


@register_custom_call("stablehlo.dynamic_rng_bit_generator")
def _dynamic_rng_bit_generator(op, operands, interp):
    """``custom_call @stablehlo.dynamic_rng_bit_generator(initial_state, output_shape)``: the spec's
    ``rng_bit_generator`` of that output shape (the op table's kernel, bit for bit)."""
    what = "stablehlo.dynamic_rng_bit_generator"
    if len(operands) != 2 or len(op.results) != 2 or "rng_algorithm" not in op.attributes:
        raise InterpreterError(f"'{what}' takes (initial_state, output_shape), returns (output_state, output) "
                               "and has an rng_algorithm", op.location)
    shape = _ints(operands[1])
    if any(d < 0 for d in shape):
        raise InterpreterError(f"'{what}': output shape {shape} has a negative dimension", op.location)
    _check_result(op, op.results[1], shape, what)
    static = _detached(op, "stablehlo.rng_bit_generator", [np.shape(operands[0]), shape],
                       {"rng_algorithm": op.attributes["rng_algorithm"]})
    return lookup("stablehlo.rng_bit_generator").run(static.opview, [operands[0]], interp)


@register_custom_call("stablehlo.dynamic_approx_top_k")
def _dynamic_approx_top_k(op, operands, interp):
    """``custom_call @stablehlo.dynamic_approx_top_k(operand, iota, init_value, init_index, k[, shapes])``:
    XLA's ``ApproxTopK`` with ``top_k = k`` (the op table's kernel): results of the operand's shape with
    ``k`` along ``reduction_dim`` (``aggregate_to_topk``, the form jax writes; without it, the results'
    static types)."""
    what = "stablehlo.dynamic_approx_top_k"
    config = attributes.get(op, "mhlo.backend_config", None)
    if len(operands) < 5 or len(op.results) != 2 or not isinstance(config, ir.DictAttr) or np.ndim(operands[4]):
        raise InterpreterError(f"'{what}' takes (operand, iota, init_value, init_index, k, ...) with a 0-d k, "
                               "returns (values, indices) and has an mhlo.backend_config dictionary", op.location)
    k = int(operands[4])
    entries = {config[i].name: config[i].attr for i in range(len(config))}
    shape = list(np.shape(operands[0]))
    dim = ir.IntegerAttr(entries["reduction_dim"]).value if "reduction_dim" in entries else -1
    dim = dim + len(shape) if dim < 0 else dim
    aggregate = ir.BoolAttr(entries["aggregate_to_topk"]).value if "aggregate_to_topk" in entries else True
    if not 0 <= dim < len(shape) or not 0 <= k <= shape[dim]:
        raise InterpreterError(f"'{what}': k = {k} or reduction_dim outside an operand of shape {shape}", op.location)
    if aggregate:
        shape[dim] = k
    else:
        t = ir.RankedTensorType(op.results[0].type)
        if not t.has_static_shape:
            raise InterpreterError(f"'{what}' without aggregate_to_topk needs static result types", op.location)
        shape = list(t.shape)
    with op.context, op.location:
        entries["top_k"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)
        attrs = {"call_target_name": ir.StringAttr.get("ApproxTopK"), "mhlo.backend_config": ir.DictAttr.get(entries),
                 "called_computations": op.attributes["called_computations"]}
    static = _detached(op, "stablehlo.custom_call", [shape, shape], attrs)
    return CUSTOM_CALLS["ApproxTopK"](static.opview, list(operands[:4]), interp)


def shape_assertion(assert_what, inputs: Sequence, error_message: str) -> str | None:
    """jax's ``shape_assertion`` (``jax/_src/export/shape_poly.py``; JAX docs, "Shape polymorphism"): None
    when the 0-d boolean ``assert_what`` is true, else ``error_message`` with ``{0}``, ``{1}``, ... replaced
    by the integer ``inputs`` (the message as jax formats it)."""
    if bool(np.asarray(assert_what)):
        return None
    values = [int(np.asarray(v)) for v in inputs]
    message = error_message
    for i, v in enumerate(values):
        message = message.replace("{" + str(i) + "}", str(v))
    return message


@register_custom_call("shape_assertion")
def _shape_assertion(op, operands, interp):
    """``custom_call @shape_assertion``: an :class:`InterpreterError` at the op with jax's message when the
    assertion fails (a program run as given, without ``stablehlo-check-shape-assertions``); no results."""
    if not operands or np.ndim(operands[0]) or any(np.ndim(v) for v in operands[1:]):
        raise InterpreterError("'shape_assertion' takes a 0-d predicate and 0-d integer inputs", op.location)
    message = shape_assertion(operands[0], operands[1:], attributes.str_value(op, "error_message", "shape assertion failed"))
    if message is not None:
        raise InterpreterError(message, op.location)
    return []
