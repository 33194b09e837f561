"""Quantized tensors in the interpreter: ``!quant.uniform`` element types, ``uniform_quantize``,
``uniform_dequantize``, and every other op on quantized tensors.

Follows the StableHLO spec (https://openxla.org/stablehlo/spec): sections "Quantized element types",
"uniform_quantize", "uniform_dequantize", and the quantization computations of "Notation"
(``dequantize``, ``quantize``, ``dequantize_op_quantize``, ``dequantize_compare``,
``dequantize_select_quantize``, ``hybrid_dequantize_then_op``).

Representation: a quantized tensor is held as its *storage values*, an ndarray of the storage type
(``i8`` -> ``int8``, ``u8`` -> ``uint8``, ``i4`` -> ``ml_dtypes.int4``; :func:`hlokit.dtypes.dtype_of`
gives that dtype for a quantized type). The quantization parameters are not carried by the value: they
are read from the op's types (:func:`quantized_type`) when the walker plans the op. So:

* ops that only move data (``reshape``, ``transpose``, ``slice``, ``concatenate``, ``gather``, ``pad``,
  ``bitcast_convert``, ``constant``, control flow, collectives, ...: :data:`STORAGE_OPS`) and ops with
  regions (whose bodies' own ops are planned the same way) run unchanged on storage values;
* every other op on quantized operands or results runs as the spec's ``dequantize_op_quantize``
  (:func:`wrap`, a plan-time wrapper of the op's ordinary adapter): quantized operands are dequantized to
  their expressed type, the op runs on a float twin of itself (the same op with each quantized type
  replaced by its expressed type), and quantized results are quantized with the result types. Float
  operands pass through unchanged, which is ``hybrid_dequantize_then_op`` for a float-lhs
  ``dot_general`` / ``convolution``; ``compare`` runs with ``compare_type = FLOAT``
  (``dequantize_compare``), ``select`` keeps its ``i1`` predicate (``dequantize_select_quantize``).

The parameters of a ``!quant.uniform`` type and the classification of ops (:data:`STORAGE_OPS`, which
ops run as ``dequantize_op_quantize``) live in the core module :mod:`hlokit.quant`, shared with the
``stablehlo-legalize-quant-to-math`` pass; they are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.registry import OpImpl, prepared, register, register_wrapper
from hlokit.interpreter.values import UnsupportedTypeError

if TYPE_CHECKING:
    from hlokit.quant import QuantizedType

#: The names re-exported from :mod:`hlokit.quant` (the one reader of quantized types, shared with the passes),
#: which is imported on first use (:func:`_quant`): a program without quantized types never loads it.
_REEXPORTED = ("STORAGE_OPS", "QuantizedType", "parse_quantized_type", "quantized_type", "is_quantized")
_QUANT: list = []


def _quant():
    """:mod:`hlokit.quant`, imported on first use."""
    if not _QUANT:
        import hlokit.quant

        _QUANT.append(hlokit.quant)
    return _QUANT[0]


def __getattr__(name: str):
    if name in _REEXPORTED:
        return getattr(_quant(), name)
    raise AttributeError(f"module 'hlokit.interpreter.quantization' has no attribute '{name}'")


__all__ = list(_REEXPORTED) + [
    "dequantize",
    "quantize",
    "uniform_quantize",
    "uniform_dequantize",
    "wrap",
]


# ------------------------------------------------------------------------------------------------
# semantics (spec "Quantization computations", "uniform_quantize", "uniform_dequantize")


def dequantize(storage: np.ndarray, qtype: QuantizedType) -> np.ndarray:
    """Spec ``dequantize``: ``(storage - zero_point) * scale`` in the expressed type (per-axis parameters
    along the quantized dimension). The subtraction is exact (in int64; the spec's storage-type
    subtraction could wrap), then converted to the expressed type and multiplied by the scales there."""
    et = qtype.expressed_dtype
    storage = np.asarray(storage)
    sub = storage.astype(np.int64) - qtype.per_element(qtype.zero_points, storage.ndim, np.int64)
    scales = qtype.per_element(qtype.scales, storage.ndim, et)
    return np.asarray(sub.astype(np.float64).astype(et) * scales, dtype=et)


def quantize(x: np.ndarray, qtype: QuantizedType) -> np.ndarray:
    """Spec ``quantize``: ``x / scale + zero_point`` in the expressed type, clamped to
    ``[storage_min, storage_max]``, rounded half to even, converted to the storage type.

    NaN (which ``convert`` leaves undefined) becomes 0 clamped into the storage range; a rounded value
    that the expressed type carried past the storage range (``f16`` cannot hold 32767) is clamped again.
    """
    et = qtype.expressed_dtype
    x = np.asarray(x)
    if x.dtype != et:
        x = x.astype(et)
    scaled = x / qtype.per_element(qtype.scales, x.ndim, et) + qtype.per_element(
        qtype.zero_points, x.ndim, np.float64
    ).astype(et)
    lo = np.asarray(qtype.storage_min, dtype=np.float64).astype(et)
    hi = np.asarray(qtype.storage_max, dtype=np.float64).astype(et)
    clamped = np.minimum(np.maximum(scaled, lo), hi)
    rounded = np.rint(clamped).astype(np.float64)
    rounded = np.where(np.isnan(rounded), 0.0, rounded)
    ints = np.clip(rounded, qtype.storage_min, qtype.storage_max).astype(np.int64)
    return np.asarray(ints.astype(qtype.storage_dtype))


def uniform_quantize(
    operand: np.ndarray, result_type: QuantizedType, operand_type: QuantizedType | None = None
) -> np.ndarray:
    """Spec ``uniform_quantize``: ``quantize(operand, type(result))`` for a float operand; for a quantized
    operand (``operand_type`` given: a requantization) ``quantize(dequantize(operand), type(result))``."""
    if operand_type is not None:
        operand = dequantize(operand, operand_type)
    return quantize(operand, result_type)


def uniform_dequantize(operand: np.ndarray, operand_type: QuantizedType) -> np.ndarray:
    """Spec ``uniform_dequantize``: ``dequantize(operand)``, a tensor of the expressed type."""
    return dequantize(operand, operand_type)


def _required(t: ir.Type, what: str) -> QuantizedType:
    q = _quant().quantized_type(t)
    if q is None:
        raise InterpreterError(f"{what} must be a quantized tensor, got {t}")
    return q


def _prepare_uniform_quantize(op):
    result_type = _required(op.operation.results[0].type, "uniform_quantize: the result")
    operand_type = _quant().quantized_type(op.operation.operands[0].type)
    return OpImpl(lambda op, operands, interp: [uniform_quantize(operands[0], result_type, operand_type)])


@register("stablehlo.uniform_quantize")
@prepared(_prepare_uniform_quantize)
def _uniform_quantize(op, operands, interp):
    return _prepare_uniform_quantize(op).run(op, operands, interp)


def _prepare_uniform_dequantize(op):
    operand_type = _required(op.operation.operands[0].type, "uniform_dequantize: the operand")
    return OpImpl(lambda op, operands, interp: [uniform_dequantize(operands[0], operand_type)])


@register("stablehlo.uniform_dequantize")
@prepared(_prepare_uniform_dequantize)
def _uniform_dequantize(op, operands, interp):
    return _prepare_uniform_dequantize(op).run(op, operands, interp)


# ------------------------------------------------------------------------------------------------
# every other op on quantized tensors: the plan-time wrapper

def _float_twin(op) -> tuple[ir.Operation, ir.Operation]:
    """A detached copy of ``op`` (same name, attributes and location) whose operands and results have the
    expressed types in place of quantized ones, and the holder op it lives in (unverified): ``(holder, twin)``;
    whoever uses the twin keeps the holder."""
    operation = op.operation
    with operation.context, operation.location:
        holder = ir.Operation.create("builtin.module", regions=1)
        block = ir.Block.create_at_start(
            holder.regions[0],
            [_quant().expressed_tensor_type(v.type) for v in operation.operands],
            [operation.location] * len(operation.operands),
        )
        attrs = {n: operation.attributes[n] for n in operation.attributes}
        if operation.name == "stablehlo.compare" and "compare_type" in attrs:
            attrs["compare_type"] = ir.Attribute.parse("#stablehlo<comparison_type FLOAT>")
        with ir.InsertionPoint(block):
            twin = ir.Operation.create(
                operation.name,
                results=[_quant().expressed_tensor_type(v.type) for v in operation.results],
                operands=list(block.arguments),
                attributes=attrs,
            )
    return holder, twin


@register_wrapper(text_marker="!quant.")
def wrap(op, impl: OpImpl) -> OpImpl:
    """The wrapper of quantized ops (:data:`hlokit.interpreter.registry.WRAPPERS`): for an op with quantized
    operands or results that is neither in :data:`STORAGE_OPS` nor has regions, an implementation that runs
    the spec's ``dequantize_op_quantize`` around ``impl`` (see the module docstring); ``impl`` itself for
    every other op. For quantized types it cannot read, one that raises
    :class:`~hlokit.interpreter.errors.InterpreterError` when the op runs (the executor locates it)."""
    operation = op.operation
    name = operation.name
    quant = _QUANT[0] if _QUANT else _quant()
    if not quant.runs_dequantize_op_quantize(operation):
        return impl
    try:
        in_types = [quant.quantized_type(v.type) for v in operation.operands]
        out_types = [quant.quantized_type(v.type) for v in operation.results]
        holder, twin = _float_twin(op)
    except Exception as err:  # reported when (if) the op runs, located there
        message = str(err) if isinstance(err, (UnsupportedTypeError, ir.MLIRError)) else f"{type(err).__name__}: {err}"

        def refuse(op, operands, interp):
            raise InterpreterError(f"'{name}' on quantized tensors: {message}")

        return OpImpl(refuse)
    inner = impl.run
    if impl.prepare is not None:
        try:
            inner = impl.prepare(twin.opview).run
        except Exception:  # reported when (if) the op runs, as the executors do
            inner = impl.run
    twin_view = twin.opview

    def run(op, operands, interp, _twin=(holder, twin)):  # (_twin: keeps the twin alive)
        values = [v if q is None else dequantize(v, q) for v, q in zip(operands, in_types)]
        outs = inner(twin_view, values, interp)
        return [o if q is None else quantize(o, q) for o, q in zip(outs, out_types)]

    return OpImpl(run)
