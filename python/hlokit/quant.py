"""Quantized element types (``!quant.uniform``): their parameters and the classification of ops on them.

The one place that reads a quantized type, shared by the interpreter
(:mod:`hlokit.interpreter.quantization`) and the ``stablehlo-legalize-quant-to-math`` pass
(:mod:`hlokit.passes.stablehlo_legalize_quant_to_math`). Semantics: the StableHLO specification
(https://openxla.org/stablehlo/spec), sections "Quantized element types" and the quantization computations
of "Notation" (``dequantize_op_quantize``, ``hybrid_dequantize_then_op``, ``dequantize_compare``).

* :class:`QuantizedType`, :func:`parse_quantized_type`, :func:`quantized_type`, :func:`is_quantized`: the
  parameters of a ``!quant.uniform`` type. jaxlib 0.10.2 ships no Python bindings for MLIR's ``quant``
  dialect, so a quantized type is an opaque ``ir.Type``: its parameters are read from its spelling (the
  spec's grammar), and each reading is checked (the spelling rebuilt from the parameters must parse to
  the very same type).
* :data:`STORAGE_OPS`, :func:`runs_dequantize_op_quantize`: which ops run on storage values (data
  movement, constants, control flow, calls, collectives, ops with regions) and which run as
  ``dequantize -> op on the expressed type -> quantize``.
* :func:`storage_tensor_type`, :func:`expressed_tensor_type`: a quantized tensor type's storage and
  expressed twins.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

import hlokit.dtypes as hdt
from hlokit.dtypes import UnsupportedTypeError, bit_width, dtype_of

__all__ = [
    "QuantizedType",
    "STORAGE_OPS",
    "STORAGE_PREFIXES",
    "QUANTIZED_OPERAND_OPS",
    "parse_quantized_type",
    "quantized_type",
    "is_quantized",
    "is_quantized_tensor_type",
    "has_quantized_type",
    "is_storage_op",
    "runs_dequantize_op_quantize",
    "storage_range",
    "storage_tensor_type",
    "expressed_tensor_type",
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
        lo, hi = storage_range(self.storage_dtype)
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


def storage_range(dtype: np.dtype) -> tuple[int, int]:
    """``(min, max)`` of the integer storage dtype (``int8`` -> ``(-128, 127)``, ``ml_dtypes.uint4`` ->
    ``(0, 15)``)."""
    bits = bit_width(dtype)
    dt = np.dtype(dtype)
    if dt.kind == "u" or (dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_UINTS):  # (ml_dtypes' table: built on first need)
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
        raise UnsupportedTypeError(f"element type '{spelling}' is not a !quant.uniform type hlokit supports")
    sign, bits, smin, smax, expressed, qdim, params = m.groups()
    storage = ("ui" if sign == "u" else "i") + bits
    storage_dtype = dtype_of(storage)
    expressed_dtype = dtype_of(expressed)
    lo, hi = storage_range(storage_dtype)
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


_CACHE: dict[str, QuantizedType] = {}  # element type spelling -> parameters (context-independent; keeps no context alive)
_BY_TYPE: dict[str, QuantizedType] = {}  # spelling of a tensor (or element) type -> parameters


def quantized_type(t: ir.Type) -> QuantizedType | None:
    """The :class:`QuantizedType` of a tensor type's (or an element type's) ``!quant.uniform`` element
    type; None when the element type is not quantized. Raises :class:`UnsupportedTypeError` for a
    ``!quant`` type other than ``!quant.uniform`` or one whose parameters do not read back exactly."""
    text = str(t)
    if "!quant." not in text:  # fast path: the bindings look for a Python class of an opaque element type
        return None
    hit = _BY_TYPE.get(text)
    if hit is not None:
        return hit
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
    _BY_TYPE[text] = q
    return q


def is_quantized(t: ir.Type) -> bool:
    """Whether a tensor (or element) type has a quantized element type (any ``!quant`` type)."""
    try:
        return quantized_type(t) is not None
    except UnsupportedTypeError:
        return True


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

#: Dialects whose ops run on storage values (checks and prints of storage values, shape computations).
STORAGE_PREFIXES = ("check.", "interpreter.", "shape.", "tensor.", "arith.")


#: Ops whose results may be unquantized while an operand is quantized (``compare``, ``is_finite``: i1;
#: the hybrid ``dot_general`` / ``convolution``: float): the wrapper looks at their operands too.
QUANTIZED_OPERAND_OPS: frozenset[str] = frozenset(
    "stablehlo." + n for n in ("compare", "is_finite", "dot_general", "dot", "convolution", "dynamic_conv", "convert")
)


def is_quantized_tensor_type(t: ir.Type) -> bool:
    """Whether ``t`` is a shaped type whose element type is a ``!quant`` type."""
    # the spelling first: reading an opaque element type makes the bindings look for its Python class
    return isinstance(t, ir.ShapedType) and "!quant." in str(t) and type(t.element_type) is ir.Type


def has_quantized_type(operation, name: str) -> bool:
    """Whether op ``operation`` (named ``name``) has a quantized result, or, for the ops of
    :data:`QUANTIZED_OPERAND_OPS`, a quantized operand: the ops that run as the spec's
    ``dequantize_op_quantize`` (unless :func:`is_storage_op`)."""
    for t in operation.results.types:
        if is_quantized_tensor_type(t):
            return True
    if name in QUANTIZED_OPERAND_OPS:
        for v in operation.operands:
            if is_quantized_tensor_type(v.type):
                return True
    return False


def is_storage_op(name: str) -> bool:
    """Whether an op named ``name`` runs unchanged on storage values (:data:`STORAGE_OPS` or a dialect of
    :data:`STORAGE_PREFIXES`)."""
    return name in STORAGE_OPS or name.startswith(STORAGE_PREFIXES)


def runs_dequantize_op_quantize(operation) -> bool:
    """Whether ``operation`` runs as the spec's ``dequantize_op_quantize`` (``hybrid_dequantize_then_op``
    for a float-lhs ``dot_general`` / ``convolution``, ``dequantize_compare`` for ``compare``): it has
    quantized types (:func:`has_quantized_type`), is not a storage op and has no regions (an op with
    regions runs on storage values; its bodies' ops are classified one by one). The one classification
    the interpreter and ``stablehlo-legalize-quant-to-math`` share."""
    name = operation.name
    if is_storage_op(name) or len(operation.regions):
        return False
    return has_quantized_type(operation, name)


def storage_tensor_type(t: ir.Type) -> ir.Type:
    """``t`` with a ``!quant.uniform`` element type replaced by its storage integer type (``i8``, ``ui8``,
    ``i4``, ...; encoding kept); any other type unchanged. Raises :class:`UnsupportedTypeError` for a
    quantized type that is not a ranked tensor of ``!quant.uniform``."""
    q = quantized_type(t)
    if q is None:
        return t
    if not isinstance(t, ir.RankedTensorType):
        raise UnsupportedTypeError(f"type {t}: only ranked tensors of quantized elements are supported")
    rt = ir.RankedTensorType(t)
    return ir.RankedTensorType.get(list(rt.shape), ir.Type.parse(q.storage_type, t.context), rt.encoding,
                                   loc=ir.Location.unknown(t.context))


def expressed_tensor_type(t: ir.Type) -> ir.Type:
    """``t`` with a ``!quant.uniform`` element type replaced by its expressed (float) type; any other type
    unchanged (the "float twin" of a quantized tensor type)."""
    q = quantized_type(t)
    if q is None:
        return t
    rt = ir.RankedTensorType(t)
    return ir.RankedTensorType.get(list(rt.shape), ir.Type.parse(q.expressed_type, t.context), rt.encoding,
                                   loc=ir.Location.unknown(t.context))
