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

The parameters of a ``!quant.uniform`` type are read from the type's spelling (the grammar of the spec's
"Quantized element types"): jaxlib 0.10.2 ships no Python bindings for MLIR's ``quant`` dialect
(``jaxlib.mlir.dialects.quant`` does not exist there), so a quantized type is an opaque ``ir.Type``. Each
reading is checked: the spelling rebuilt from the parsed parameters must parse to the very same type.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.evaluator import InterpreterError
from hlokit.interpreter.registry import prepared, register, register_wrapper
from hlokit.interpreter.values import (
    UnsupportedTypeError,
    Value,
    bit_width,
    dtype_of,
    format_dense,
    format_value,
    is_unsigned,
    value_type_str,
)

__all__ = [
    "QuantizedType",
    "STORAGE_OPS",
    "parse_quantized_type",
    "quantized_type",
    "is_quantized",
    "dequantize",
    "quantize",
    "uniform_quantize",
    "uniform_dequantize",
    "wrap",
    "format_result",
]


@dataclasses.dataclass(frozen=True)
class QuantizedType:
    """The parameters of a ``!quant.uniform`` element type (spec "Quantized element types").

    ``storage_dtype`` / ``expressed_dtype``: numpy dtypes of the storage (integer) and expressed (float)
    types; ``storage_min`` / ``storage_max``: the storage range (default: the storage type's range);
    ``quantization_dimension``: None for per-tensor quantization, the axis for per-axis;
    ``scales`` / ``zero_points``: one pair (per-tensor) or one per slice of the quantized dimension.
    """

    storage_type: str
    storage_dtype: np.dtype
    storage_min: int
    storage_max: int
    expressed_type: str
    expressed_dtype: np.dtype
    quantization_dimension: int | None
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]

    @property
    def is_per_axis(self) -> bool:
        """True for per-axis quantization (a ``quantization_dimension``)."""
        return self.quantization_dimension is not None

    def spelling(self) -> str:
        """The MLIR spelling of the element type, e.g. ``!quant.uniform<i8:f32, 0.5:-20>``."""
        lo, hi = _storage_range(self.storage_dtype)
        head = self.storage_type.replace("ui", "u")  # the quant dialect spells unsigned storage u8, ...
        if (self.storage_min, self.storage_max) != (lo, hi):
            head += f"<{self.storage_min}:{self.storage_max}>"
        head += ":" + self.expressed_type
        pairs = [_float_literal(s) + (f":{z}" if z else "") for s, z in zip(self.scales, self.zero_points)]
        if self.is_per_axis:
            return f"!quant.uniform<{head}:{self.quantization_dimension}, {{{','.join(pairs)}}}>"
        return f"!quant.uniform<{head}, {pairs[0]}>"

    def per_element(self, values: Sequence, ndim: int, dtype) -> np.ndarray:
        """``values`` (scales or zero points) as an array of ``dtype`` that broadcasts against a tensor of
        rank ``ndim``: 0-d per-tensor, along the quantized dimension per-axis (spec ``compute_scales``,
        ``compute_zero_points``)."""
        if not self.is_per_axis:
            return np.asarray(values[0], dtype=dtype)
        shape = [1] * ndim
        shape[self.quantization_dimension] = len(values)
        return np.asarray(values, dtype=dtype).reshape(shape)


def _float_literal(x: float) -> str:
    """The shortest exact decimal of ``x`` in MLIR's float literal form (a ``.`` before any exponent)."""
    text = repr(float(x))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa and mantissa.lstrip("-").isdigit():
        mantissa += ".0"
    return mantissa + e + exponent


def _storage_range(dtype: np.dtype) -> tuple[int, int]:
    bits = bit_width(dtype)
    if is_unsigned(dtype):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


_NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|inf|nan|0x[0-9A-Fa-f]+)"
_UNIFORM = re.compile(
    r"!quant\.uniform<\s*([iu])([0-9]+)\s*(?:<\s*([-+]?[0-9]+)\s*:\s*([-+]?[0-9]+)\s*>)?"  # storage[<min:max>]
    r"\s*:\s*([A-Za-z0-9]+)"  # expressed type
    r"\s*(?::\s*([0-9]+))?"  # quantization dimension
    r"\s*,\s*(\{[^{}]*\}|[^{}<>]+)>\s*"  # scale[:zp] | {scale[:zp], ...}
)
_PAIR = re.compile(rf"\s*({_NUMBER})\s*(?::\s*([-+]?[0-9]+))?\s*")


def parse_quantized_type(spelling: str) -> QuantizedType:
    """The parameters of a ``!quant.uniform<...>`` element type from its spelling (the grammar of the spec's
    "Quantized element types"). Raises :class:`UnsupportedTypeError` for any other spelling."""
    m = _UNIFORM.fullmatch(spelling)
    if not m:
        raise UnsupportedTypeError(f"element type '{spelling}' is not a !quant.uniform type the interpreter supports")
    sign, bits, smin, smax, expressed, qdim, params = m.groups()
    storage = ("ui" if sign == "u" else "i") + bits
    storage_dtype = dtype_of(storage)
    expressed_dtype = dtype_of(expressed)
    lo, hi = _storage_range(storage_dtype)
    body = params.strip()
    if body.startswith("{"):
        body = body[1:-1]
    scales, zero_points = [], []
    for part in body.split(","):
        pm = _PAIR.fullmatch(part)
        if not pm:
            raise UnsupportedTypeError(f"element type '{spelling}': cannot read the quantization parameter '{part}'")
        text = pm.group(1)
        if text.lower().startswith("0x"):  # a bit pattern of a double
            scales.append(float(np.array(int(text, 16), dtype=np.uint64).view(np.float64)))
        else:
            scales.append(float(text))
        zero_points.append(int(pm.group(2) or 0))
    return QuantizedType(
        storage_type=storage,
        storage_dtype=storage_dtype,
        storage_min=int(smin) if smin is not None else lo,
        storage_max=int(smax) if smax is not None else hi,
        expressed_type=expressed,
        expressed_dtype=expressed_dtype,
        quantization_dimension=int(qdim) if qdim is not None else None,
        scales=tuple(scales),
        zero_points=tuple(zero_points),
    )


_CACHE: dict[str, QuantizedType] = {}  # spelling -> parameters (context-independent; keeps no context alive)


def quantized_type(t: ir.Type) -> QuantizedType | None:
    """The :class:`QuantizedType` of a tensor type's (or an element type's) ``!quant.uniform`` element
    type; None when the element type is not quantized. Raises :class:`UnsupportedTypeError` for a
    ``!quant`` type other than ``!quant.uniform`` or one whose parameters do not read back exactly."""
    elem = t.element_type if isinstance(t, ir.ShapedType) else t
    if type(elem) is not ir.Type:  # the bindings give every builtin element type its own class
        return None
    spelling = str(elem)
    if not spelling.startswith("!quant."):
        return None
    q = _CACHE.get(spelling)
    if q is None:
        q = parse_quantized_type(spelling)
        try:  # the parameters must describe exactly this type
            same = ir.Type.parse(q.spelling(), elem.context) == elem
        except ir.MLIRError:
            same = False
        if not same:
            raise UnsupportedTypeError(f"element type '{spelling}': its quantization parameters do not read back exactly")
        _CACHE[spelling] = q
    return q


def is_quantized(t: ir.Type) -> bool:
    """Whether a tensor (or element) type has a quantized element type (any ``!quant`` type)."""
    try:
        return quantized_type(t) is not None
    except UnsupportedTypeError:
        return True


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
    q = quantized_type(t)
    if q is None:
        raise InterpreterError(f"{what} must be a quantized tensor, got {t}")
    return q


def _prepare_uniform_quantize(op):
    result_type = _required(op.operation.results[0].type, "uniform_quantize: the result")
    operand_type = quantized_type(op.operation.operands[0].type)
    return lambda op, operands, interp: [uniform_quantize(operands[0], result_type, operand_type)]


@register("stablehlo.uniform_quantize")
@prepared(_prepare_uniform_quantize)
def _uniform_quantize(op, operands, interp):
    return _prepare_uniform_quantize(op)(op, operands, interp)


def _prepare_uniform_dequantize(op):
    operand_type = _required(op.operation.operands[0].type, "uniform_dequantize: the operand")
    return lambda op, operands, interp: [uniform_dequantize(operands[0], operand_type)]


@register("stablehlo.uniform_dequantize")
@prepared(_prepare_uniform_dequantize)
def _uniform_dequantize(op, operands, interp):
    return _prepare_uniform_dequantize(op)(op, operands, interp)


# ------------------------------------------------------------------------------------------------
# every other op on quantized tensors: the plan-time wrapper

#: Ops that run unchanged on storage values: the spec defines them on quantized tensors without a
#: dequantization (data movement, constants and bit casts, tuples, control flow, calls, collectives,
#: communication), plus the quantization ops themselves and the check / interpreter dialects (which
#: compare and print storage values). Ops with regions are left alone as well: their bodies' ops are
#: planned (and wrapped) one by one.
STORAGE_OPS: frozenset[str] = frozenset(
    "stablehlo." + n
    for n in (
        "all_gather", "all_to_all", "bitcast_convert", "broadcast", "broadcast_in_dim", "collective_broadcast",
        "collective_permute", "concatenate", "constant", "custom_call", "composite", "dynamic_broadcast_in_dim",
        "dynamic_gather", "dynamic_pad", "dynamic_reshape", "dynamic_slice", "dynamic_update_slice", "gather",
        "get_dimension_size", "get_tuple_element", "infeed", "optimization_barrier", "outfeed", "pad",
        "real_dynamic_slice", "recv", "reshape", "return", "reverse", "send", "slice", "transpose", "tuple",
        "uniform_dequantize", "uniform_quantize", "torch_index_select",
    )
) | frozenset({"func.call", "func.return", "call"})  # fmt: skip

_STORAGE_PREFIXES = ("check.", "interpreter.", "shape.", "tensor.", "arith.")


#: Ops whose results may be unquantized while an operand is quantized (``compare``, ``is_finite``: i1;
#: the hybrid ``dot_general`` / ``convolution``: float): the wrapper looks at their operands too.
_QUANTIZED_OPERAND_OPS: frozenset[str] = frozenset(
    "stablehlo." + n for n in ("compare", "is_finite", "dot_general", "dot", "convolution", "dynamic_conv", "convert")
)


def _is_quantized_tensor_type(t: ir.Type) -> bool:
    return isinstance(t, ir.ShapedType) and type(t.element_type) is ir.Type and "!quant." in str(t)


def _has_quantized_type(operation, name: str) -> bool:
    for t in operation.results.types:
        if _is_quantized_tensor_type(t):
            return True
    if name in _QUANTIZED_OPERAND_OPS:
        for v in operation.operands:
            if _is_quantized_tensor_type(v.type):
                return True
    return False


def _float_twin_type(t: ir.Type) -> ir.Type:
    """A tensor type with its quantized element type replaced by the expressed type."""
    q = quantized_type(t)
    if q is None:
        return t
    rt = ir.RankedTensorType(t)
    return ir.RankedTensorType.get(list(rt.shape), ir.Type.parse(q.expressed_type, t.context), rt.encoding)


def _float_twin(op) -> tuple[ir.Operation, ir.Operation]:
    """A detached copy of ``op`` (same name, attributes and location) whose operands and results have the
    expressed types in place of quantized ones, and the holder op it lives in (unverified): ``(holder, twin)``;
    whoever uses the twin keeps the holder."""
    operation = op.operation
    with operation.context, operation.location:
        holder = ir.Operation.create("builtin.module", regions=1)
        block = ir.Block.create_at_start(
            holder.regions[0],
            [_float_twin_type(v.type) for v in operation.operands],
            [operation.location] * len(operation.operands),
        )
        attrs = {n: operation.attributes[n] for n in operation.attributes}
        if operation.name == "stablehlo.compare" and "compare_type" in attrs:
            attrs["compare_type"] = ir.Attribute.parse("#stablehlo<comparison_type FLOAT>")
        with ir.InsertionPoint(block):
            twin = ir.Operation.create(
                operation.name,
                results=[_float_twin_type(v.type) for v in operation.results],
                operands=list(block.arguments),
                attributes=attrs,
            )
    return holder, twin


@register_wrapper(text_marker="!quant.")
def wrap(op, adapter):
    """The plan-time wrapper (:data:`hlokit.interpreter.registry.WRAPPERS`): for an op with quantized
    operands or results that is neither in :data:`STORAGE_OPS` nor has regions, an adapter that runs the
    spec's ``dequantize_op_quantize`` around ``adapter`` (see the module docstring); ``adapter`` itself
    for every other op. For quantized types it cannot read, an adapter that raises
    :class:`~hlokit.interpreter.evaluator.InterpreterError` when the op runs (the walker locates it)."""
    operation = op.operation
    name = operation.name
    if name in STORAGE_OPS or name.startswith(_STORAGE_PREFIXES):
        return adapter
    if not _has_quantized_type(operation, name) or len(operation.regions):
        return adapter
    try:
        in_types = [quantized_type(v.type) for v in operation.operands]
        out_types = [quantized_type(v.type) for v in operation.results]
        holder, twin = _float_twin(op)
    except Exception as err:  # reported when (if) the op runs, located there
        message = str(err) if isinstance(err, (UnsupportedTypeError, ir.MLIRError)) else f"{type(err).__name__}: {err}"

        def refuse(op, operands, interp):
            raise InterpreterError(f"'{name}' on quantized tensors: {message}")

        return refuse
    inner = adapter
    prepare = getattr(adapter, "prepare", None)
    if prepare is not None:
        try:
            inner = prepare(twin.opview)
        except Exception:  # reported when (if) the op runs, as the walker does
            inner = adapter
    twin_view = twin.opview

    def run(op, operands, interp):
        values = [v if q is None else dequantize(v, q) for v, q in zip(operands, in_types)]
        outs = inner(twin_view, values, interp)
        return [o if q is None else quantize(o, q) for o, q in zip(outs, out_types)]

    run.quantized_twin = (holder, twin)  # type: ignore[attr-defined]  (keeps the twin alive)
    return run


# ------------------------------------------------------------------------------------------------
# printing


def format_result(value: Value, t: ir.Type, *, dense: bool = False) -> str:
    """A result printed like :func:`~hlokit.interpreter.values.format_value` (``dense``:
    :func:`~hlokit.interpreter.values.format_dense`), except that a quantized tensor shows its declared
    type (``tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>``) with its storage values."""
    text = format_dense(value) if dense else format_value(value)
    if not isinstance(value, np.ndarray):
        return text
    try:
        q = quantized_type(t)
    except UnsupportedTypeError:
        q = None
    if q is None:
        return text
    plain = value_type_str(value)
    declared = str(t)
    if dense:
        head, sep, _ = text.rpartition(" : ")
        return f"{head}{sep}{declared}" if sep else text
    if text.startswith(plain):
        return declared + text[len(plain):]
    return text
