"""Element types: the one mapping between StableHLO element types and numpy dtypes of hlokit.

StableHLO element types (StableHLO spec https://openxla.org/stablehlo/spec, section "Types"): i1 -> ``bool``; si/ui 2..64 (signless ``iN`` is signed) ->
``int*/uint*`` (``ml_dtypes.int2/int4/uint2/uint4`` for 2 and 4 bits); bf16, f16, f32, f64, the f8 family,
f4E2M1FN, f6E2M3FN, f6E3M2FN -> numpy / ml_dtypes floats; complex<f32/f64> -> complex64/128.
Used by the XLA backend and the interpreter alike.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir

__all__ = [
    "DTYPES",
    "SUB_BYTE_INTS",
    "SUB_BYTE_UINTS",
    "UnsupportedTypeError",
    "bit_width",
    "dtype_of",
    "element_type_name",
    "element_type_of",
    "type_name",
    "type_str",
]


class UnsupportedTypeError(TypeError):
    """A type with no numpy representation here (quantized types, index, tokens, tuples, ...)."""


_DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i2": np.dtype(ml_dtypes.int2),
    "i4": np.dtype(ml_dtypes.int4),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "si2": np.dtype(ml_dtypes.int2),
    "si4": np.dtype(ml_dtypes.int4),
    "si8": np.dtype(np.int8),
    "si16": np.dtype(np.int16),
    "si32": np.dtype(np.int32),
    "si64": np.dtype(np.int64),
    "ui1": np.dtype(ml_dtypes.uint1) if hasattr(ml_dtypes, "uint1") else np.dtype(np.bool_),
    "ui2": np.dtype(ml_dtypes.uint2),
    "ui4": np.dtype(ml_dtypes.uint4),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
}

# dtype -> the name MLIR prints (signless for signed integers, as MLIR spells si* types).
_NAMES: dict[np.dtype, str] = {}
for _name, _dt in _DTYPES.items():
    if _name.startswith("si") or _name == "ui1":
        continue
    _NAMES.setdefault(_dt, _name)

_STORAGE_BITS = {  # bits of the StableHLO type (not of numpy's storage)
    "i1": 1, "i2": 2, "i4": 4, "ui2": 2, "ui4": 4,
    "f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6,
}


#: The signed / unsigned integer dtypes narrower than a byte (``ml_dtypes.int2/int4``,
#: ``ml_dtypes.uint2/uint4``): numpy stores them one per byte, MLIR's dense storage sign- or zero-extended.
SUB_BYTE_INTS: frozenset[np.dtype] = frozenset({np.dtype(ml_dtypes.int2), np.dtype(ml_dtypes.int4)})
SUB_BYTE_UINTS: frozenset[np.dtype] = frozenset({np.dtype(ml_dtypes.uint2), np.dtype(ml_dtypes.uint4)})


def bit_width(dtype: np.dtype | type) -> int:
    """Bit width of the StableHLO element type a dtype encodes (i1: 1, int4: 4, f8: 8, f6: 6, ...),
    not of numpy's storage."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return 1
    name = _NAMES.get(dt)
    if name in _STORAGE_BITS:
        return _STORAGE_BITS[name]
    return dt.itemsize * 8


def element_type_name(t: ir.Type) -> str:
    """The MLIR spelling of a (shaped or element) type's element type, e.g. ``"f32"``."""
    if isinstance(t, ir.ShapedType):
        t = ir.ShapedType(t).element_type
    return str(t)


#: The storage type at the head of a quantized element type's spelling, ``!quant.uniform<i8...``.
_QUANT_STORAGE = re.compile(r"!quant\.uniform<([iu])([0-9]+)[<:]")


def dtype_of(t: ir.Type | str) -> np.dtype:
    """numpy dtype of an MLIR tensor/element type (or its spelling).

    A quantized element type (``!quant.uniform<i8:f32, ...>``, StableHLO spec "Quantized element types")
    gives its storage type's dtype: quantized tensors are held as their storage values.
    Raises ``TypeError`` for types that are not tensor element types of the interpreter
    (other quant types, index, tokens, tuples).
    """
    if isinstance(t, str):
        return _by_spelling(t, t)
    dt = _BY_TYPE.get(t)
    if dt is None:
        dt = _by_spelling(str(t), t)
        _remember(t, dt)
    return dt


def _by_spelling(spelling: str, t: ir.Type | str) -> np.dtype:
    dt = _DTYPE_OF.get(spelling)
    if dt is None:
        dt = _dtype_of(t if isinstance(t, str) else element_type_name(t))
        if len(_DTYPE_OF) < 4096:
            _DTYPE_OF[spelling] = dt
    return dt


#: dtype_of's answers by ``ir.Type`` (a dict lookup by the uniqued type's pointer: no printing), for the types of
#: one context at a time (``_BY_TYPE_CONTEXT``): a type of another context starts a new table, so the table keeps
#: at most one context alive. A key keeps its context alive, so no type of another context can equal it.
_BY_TYPE: dict = {}
_BY_TYPE_CONTEXT = None


def _remember(t: ir.Type, dt: np.dtype) -> None:
    global _BY_TYPE, _BY_TYPE_CONTEXT
    ctx = t.context
    if ctx is not _BY_TYPE_CONTEXT or len(_BY_TYPE) >= 1024:
        _BY_TYPE, _BY_TYPE_CONTEXT = {}, ctx
    _BY_TYPE[t] = dt


#: dtype_of's answers by the type's spelling (``"tensor<64xf32>"``, ``"f32"``): spellings, not ``ir.Type``
#: objects, so no context is kept alive and no type of a dead context is ever matched.
_DTYPE_OF: dict[str, np.dtype] = {}


def _dtype_of(name: str) -> np.dtype:
    m = re.fullmatch(r"tensor<(?:[0-9?]+x)*(.+?)>", name)
    if m:
        name = m.group(1)
    try:
        return _DTYPES[name]
    except KeyError:
        q = _QUANT_STORAGE.match(name)
        if q and (("ui" if q.group(1) == "u" else "i") + q.group(2)) in _DTYPES:  # held as storage values
            return _DTYPES[("ui" if q.group(1) == "u" else "i") + q.group(2)]
        raise UnsupportedTypeError(f"element type '{name}' has no numpy representation") from None


def type_name(dtype: np.dtype | type) -> str:
    """MLIR spelling of the element type a dtype encodes (``np.int8`` -> ``"i8"``)."""
    return _NAMES[np.dtype(dtype)]


#: MLIR spelling -> numpy dtype, for every element type hlokit handles.
DTYPES = _DTYPES


def element_type_of(dtype: np.dtype, context: ir.Context | None = None) -> ir.Type:
    """The MLIR element type of a numpy dtype (signed integers as signless ``iN``, unsigned ``uiN``)."""
    return ir.Type.parse(type_name(dtype), context)


def type_str(shape: tuple[int, ...], dtype: np.dtype) -> str:
    """``tensor<2x3xf32>``-style spelling of a shape and dtype (for messages)."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + type_name(dtype) + ">"
