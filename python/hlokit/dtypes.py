"""Mapping between MLIR element types and numpy dtypes (numpy + ml_dtypes for bf16, f8, f4/f6, int2/int4).

StableHLO element types (seed 000, "Types"): i1 -> ``bool``; si/ui 2..64 (signless ``iN`` is signed) ->
``int*/uint*`` (``ml_dtypes.int2/int4/uint2/uint4`` for 2 and 4 bits); bf16, f16, f32, f64, the f8 family,
f4E2M1FN, f6E2M3FN, f6E3M2FN -> numpy / ml_dtypes floats; complex<f32/f64> -> complex64/128.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

from hlokit.diagnostics import HlokitError

__all__ = ["dtype_of", "element_type_of", "type_str", "FLOAT_TYPES"]

#: MLIR float type spelling -> numpy dtype.
FLOAT_TYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
}
_INTS = {
    (2, True): ml_dtypes.int2,
    (4, True): ml_dtypes.int4,
    (8, True): np.int8,
    (16, True): np.int16,
    (32, True): np.int32,
    (64, True): np.int64,
    (2, False): ml_dtypes.uint2,
    (4, False): ml_dtypes.uint4,
    (8, False): np.uint8,
    (16, False): np.uint16,
    (32, False): np.uint32,
    (64, False): np.uint64,
}


def dtype_of(t: ir.Type) -> np.dtype:
    """The numpy dtype of an MLIR element type (or of a shaped type's element type).

    Raises :class:`HlokitError` for a type with no numpy counterpart (index, quantized, ...).
    """
    if isinstance(t, ir.ShapedType):
        t = t.element_type
    if isinstance(t, ir.IntegerType):
        it = t
        if it.width == 1:
            return np.dtype(np.bool_)
        key = (it.width, not it.is_unsigned)
        if key in _INTS:
            return np.dtype(_INTS[key])
    elif isinstance(t, ir.ComplexType):
        inner = dtype_of(t.element_type)
        if inner == np.float32:
            return np.dtype(np.complex64)
        if inner == np.float64:
            return np.dtype(np.complex128)
    elif str(t) in FLOAT_TYPES:
        return FLOAT_TYPES[str(t)]
    raise HlokitError(f"element type '{t}' has no numpy counterpart")


_NAMES = {v: k for k, v in FLOAT_TYPES.items()}


def element_type_of(dtype: np.dtype, context: ir.Context | None = None) -> ir.Type:
    """The MLIR element type of a numpy dtype (signed ints as signless ``iN``, unsigned as ``uiN``)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1, context)
    for (width, signed), d in _INTS.items():
        if np.dtype(d) == dtype:
            return (ir.IntegerType.get_signless if signed else ir.IntegerType.get_unsigned)(width, context)
    if dtype == np.complex64:
        return ir.ComplexType.get(ir.F32Type.get(context))
    if dtype == np.complex128:
        return ir.ComplexType.get(ir.F64Type.get(context))
    if dtype in _NAMES:
        return ir.Type.parse(_NAMES[dtype], context)
    raise HlokitError(f"numpy dtype '{dtype}' has no StableHLO element type")


def type_str(shape: tuple[int, ...], dtype: np.dtype) -> str:
    """``tensor<2x3xf32>``-style spelling of a numpy shape and dtype (for messages)."""
    with ir.Context():
        elt = str(element_type_of(dtype))
    return "tensor<" + "".join(f"{d}x" for d in shape) + elt + ">"
