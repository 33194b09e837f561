"""Numeric helpers of the interpreter's element types, shared by the op families (which do not import each
other): integer wrapping (sub-byte types too), the compute types of float ops, bit patterns, ``convert`` /
``bitcast_convert`` / ``iota`` semantics, and the numpy ufuncs and Python operators that compute binary ops
exactly on some element types.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections ``convert``, ``bitcast_convert`` and
``iota``; where the spec leaves a result to the implementation, XLA's
(https://openxla.org/xla/operation_semantics). The rules the helpers implement are listed in
:mod:`hlokit.interpreter.elementwise`'s module doc.
"""

from __future__ import annotations

import operator
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

import hlokit.dtypes as hdt  # (its ml_dtypes tables are read only for ml_dtypes types: built on first need)
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.values import bit_width, dtype_of, is_complex, is_float, is_integer, is_unsigned

__all__ = [
    "BOOL", "F32", "F64", "NATIVE_INTS", "no_sign_magnitude", "SCALAR_OPERATORS", "as_array", "as_unsigned_bits",
    "bitcast_convert", "compute_float", "convert", "float_binary", "float_unary", "from_unsigned_bits", "int_binary",
    "int_limits", "iota", "is_sub_byte_int", "native_binary_ufuncs", "result_dtype", "scalar_operator", "wide_int",
    "wrap",
]

F32 = np.dtype(np.float32)
_NO_SIGN_MAGNITUDE: list = []  # [NO_SIGN_MAGNITUDE], made on first use


def no_sign_magnitude() -> set[np.dtype]:
    """``NO_SIGN_MAGNITUDE`` (a module attribute too): the float types whose bits are not sign-magnitude with a NaN
    range (abs / totalOrder go through values); all ``ml_dtypes`` types, so made on first use (it imports
    ml_dtypes): test ``dt.isbuiltin == 2`` (:func:`hlokit.dtypes.is_extension_dtype`) first."""
    if not _NO_SIGN_MAGNITUDE:
        _NO_SIGN_MAGNITUDE.append({e.dtype for e in hdt.ELEMENT_TYPES.values() if e.is_float and not e.sign_magnitude})
    return _NO_SIGN_MAGNITUDE[0]


def __getattr__(name: str):
    if name == "NO_SIGN_MAGNITUDE":
        return no_sign_magnitude()
    raise AttributeError(f"module 'hlokit.interpreter.numerics' has no attribute '{name}'")
F64 = np.dtype(np.float64)
BOOL = np.dtype(np.bool_)


# ------------------------------------------------------------------------------------------------
# helpers


def as_array(x, dtype=None) -> np.ndarray:
    """``x`` as an ndarray (ufuncs return numpy scalars for 0-d inputs), optionally cast."""
    x = np.asarray(x)
    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    return x


def is_sub_byte_int(dt: np.dtype) -> bool:
    return dt.isbuiltin == 2 and (dt in hdt.SUB_BYTE_INTS or dt in hdt.SUB_BYTE_UINTS)


def wide_int(dt: np.dtype) -> np.dtype:
    """The numpy integer dtype integer arithmetic of ``dt`` runs in (sub-byte types widen)."""
    if dt.isbuiltin == 2:
        if dt in hdt.SUB_BYTE_INTS:
            return np.dtype(np.int64)
        if dt in hdt.SUB_BYTE_UINTS:
            return np.dtype(np.uint64)
    return dt


def wrap(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Integers (any width) wrapped modulo 2^N into integer dtype ``dt`` (two's complement)."""
    x = np.asarray(x)
    if not is_sub_byte_int(dt):
        if x.dtype == dt:
            return x
        if x.dtype.kind in "iu" and dt.kind in "iu":
            return x.astype(dt)  # C cast: keeps the low bits
        return x.astype(np.int64).astype(dt)
    bits = bit_width(dt)
    u = x.astype(np.int64) & ((1 << bits) - 1)
    if dt in hdt.SUB_BYTE_INTS:
        u = np.where(u >= 1 << (bits - 1), u - (1 << bits), u)
    return u.astype(dt)


def compute_float(dt: np.dtype, transcendental: bool = False) -> np.dtype:
    """The dtype a float op on ``dt`` computes in (see module doc)."""
    if dt == F64:
        return F64
    if transcendental:
        return F64
    return F32


def float_unary(fn, x: np.ndarray, transcendental: bool = True) -> np.ndarray:
    dt = x.dtype
    if is_complex(dt):
        return as_array(fn(x.astype(np.complex128)), dt)
    c = compute_float(dt, transcendental)
    return as_array(fn(x.astype(c)), dt)


def float_binary(fn, lhs, rhs, transcendental: bool = False) -> np.ndarray:
    dt = lhs.dtype
    if not transcendental and (dt is F32 or dt is F64 or dt == F32 or dt == F64):
        return as_array(fn(lhs, rhs))  # IEEE operation in the operand's own precision
    if is_complex(dt):
        c = np.dtype(np.complex128) if transcendental else dt
        return as_array(fn(lhs.astype(c), rhs.astype(c)), dt)
    c = compute_float(dt, transcendental)
    return as_array(fn(lhs.astype(c), rhs.astype(c)), dt)


def int_binary(fn, lhs, rhs) -> np.ndarray:
    dt = lhs.dtype
    if dt.kind in "iu":  # numpy integers wrap modulo 2^N already
        return as_array(fn(lhs, rhs))
    w = wide_int(dt)
    return wrap(fn(lhs.astype(w), rhs.astype(w)), dt)


def as_unsigned_bits(x: np.ndarray) -> np.ndarray:
    """The bit pattern of each element (two's complement for signed) as uint64, masked to the width."""
    dt = x.dtype
    if dt == BOOL:
        return x.astype(np.uint64)
    bits = bit_width(dt)
    if is_sub_byte_int(dt):
        v = x.astype(np.int64).astype(np.uint64)
    elif dt.kind in "iu":
        v = x.astype(np.int64 if dt.kind == "i" else np.uint64).astype(np.uint64)
    else:  # floats, bit pattern of the storage
        storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
        v = np.asarray(x, order="C").view(storage).astype(np.uint64)
    if bits < 64:
        v = v & np.uint64((1 << bits) - 1)
    return v


def from_unsigned_bits(u: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Inverse of :func:`as_unsigned_bits`: uint64 bit patterns -> elements of ``dt``."""
    u = np.asarray(u, dtype=np.uint64)
    if dt == BOOL:
        return u != 0
    bits = bit_width(dt)
    if is_sub_byte_int(dt) or dt.kind in "iu":
        if dt.kind == "i" or (dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_INTS):
            s = u.astype(np.int64)
            if bits < 64:
                s = np.where(s >= 1 << (bits - 1), s - (1 << bits), s)
            return s.astype(dt)
        return u.astype(dt)
    storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return u.astype(storage).view(dt)


def result_dtype(op: ir.OpView, i: int = 0) -> np.dtype:
    return dtype_of(op.operation.results[i].type)


def int_limits(dt: np.dtype) -> tuple[int, int]:
    bits = bit_width(dt)
    if is_unsigned(dt):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1



def iota(shape: Sequence[int], dtype: np.dtype, iota_dimension: int) -> np.ndarray:
    """``iota``: ``result[i0, ..., iN] = i[iota_dimension]`` converted to ``dtype``."""
    shape = tuple(shape)
    n = shape[iota_dimension]
    idx = np.arange(n, dtype=np.int64).reshape([n if d == iota_dimension else 1 for d in range(len(shape))])
    return convert(np.broadcast_to(idx, shape), np.dtype(dtype))



# ------------------------------------------------------------------------------------------------
# conversions


def convert(operand: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``convert`` to element type ``dtype`` (every pair of types): complex -> real drops the
    imaginary part; -> i1 is ``x != 0``; i1 -> x is 0/1; integer -> integer wraps; float -> integer
    truncates toward zero and saturates (NaN -> 0); -> float rounds to nearest even."""
    src = operand.dtype
    dtype = np.dtype(dtype)
    if src == dtype:
        return np.array(operand, copy=True)
    x = operand
    if is_complex(src) and not is_complex(dtype):
        x = operand.real
        src = x.dtype
    if dtype == BOOL:
        if is_float(src):
            return as_array(x.astype(F64) != 0)
        return as_array(x != 0) if src != BOOL else as_array(x)
    if src == BOOL:
        x = x.astype(np.int64)
        src = x.dtype
    if is_integer(dtype):
        if is_integer(src):
            return wrap(x.astype(wide_int(src)) if is_sub_byte_int(src) else x, dtype)
        f = x.astype(F64) if src != F64 else x
        lo, hi = int_limits(dtype)
        t = np.trunc(np.where(np.isnan(f), 0.0, f))
        big = t >= float(hi)
        small = t <= float(lo)
        mid = np.where(big | small, 0.0, t)
        if is_unsigned(dtype):
            r = mid.astype(np.uint64)
            r = np.where(big, np.uint64(hi), np.where(small, np.uint64(lo), r))
        else:
            r = mid.astype(np.int64)
            r = np.where(big, np.int64(hi), np.where(small, np.int64(lo), r))
        return as_array(r.astype(dtype) if not is_sub_byte_int(dtype) else r.astype(np.int64).astype(dtype), dtype)
    # -> float or complex
    if is_complex(dtype):
        if is_complex(src):
            return as_array(x, dtype)
        part = np.float32 if dtype == np.complex64 else np.float64
        return as_array(convert(x, np.dtype(part)), dtype)
    if is_sub_byte_int(src):
        x = x.astype(np.int64)
        src = x.dtype
    if is_integer(src):
        if dtype in (F32, F64):
            return as_array(x.astype(dtype))
        return as_array(x.astype(F64).astype(dtype))
    # float -> float
    if dtype in (F64,) or src == F64 or dtype == F32:
        return as_array(x.astype(dtype))
    return as_array(x.astype(F32).astype(dtype) if bit_width(src) <= 32 and src != F32 else x.astype(dtype))


def bitcast_convert(operand: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``bitcast_convert`` to ``dtype``: reinterpret the bits (little-endian). A narrower result
    adds a minor dimension of ``in_bits / out_bits``; a wider one consumes the minor dimension."""
    src = np.dtype(operand.dtype)
    dtype = np.dtype(dtype)
    in_bits, out_bits = bit_width(src), bit_width(dtype)
    if in_bits % 8 == 0 and out_bits % 8 == 0 and src != BOOL and dtype != BOOL \
            and not is_sub_byte_int(src) and not is_sub_byte_int(dtype):
        raw = np.asarray(operand, order="C")
        if in_bits == out_bits:
            return raw.view(dtype).reshape(operand.shape).copy()
        if in_bits > out_bits:
            return raw.reshape(operand.shape + (1,)).view(dtype).reshape(operand.shape + (in_bits // out_bits,)).copy()
        n = out_bits // in_bits
        if operand.shape[-1] != n:
            raise InterpreterError(f"bitcast_convert: the minor dimension must be {n}, got {operand.shape[-1]}")
        return raw.view(dtype).reshape(operand.shape[:-1]).copy()
    u = as_unsigned_bits(operand)
    if in_bits == out_bits:
        return from_unsigned_bits(u, dtype)
    mask = np.uint64((1 << out_bits) - 1) if out_bits < 64 else np.uint64(2**64 - 1)
    if in_bits > out_bits:
        n = in_bits // out_bits
        shifts = (np.arange(n, dtype=np.uint64) * np.uint64(out_bits))
        parts = (u[..., None] >> shifts) & mask
        return from_unsigned_bits(parts, dtype)
    n = out_bits // in_bits
    if operand.shape[-1] != n:
        raise InterpreterError(f"bitcast_convert: the minor dimension must be {n}, got {operand.shape[-1]}")
    shifts = (np.arange(n, dtype=np.uint64) * np.uint64(in_bits))
    acc = np.zeros(operand.shape[:-1], dtype=np.uint64)
    for i in range(n):
        acc |= u[..., i] << shifts[i]
    return from_unsigned_bits(acc, dtype)



# Binary ops whose numpy ufunc is exactly the spec's semantics on some element types: add, subtract and
# multiply on f32/f64 (IEEE) and the native integer types (wrapping), and/or/xor on the native integer
# types, divide on f32/f64. The adapter picks the ufunc from the operands' dtype (a dict lookup: no plan-time
# reading of the op's types); every other type goes through the semantics function.
NATIVE_INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)]
_NATIVE_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}
_NATIVE_FLOAT_BINARY = {"divide": np.divide}


def native_binary_ufuncs(short: str) -> dict:
    """dtype -> the numpy ufunc that computes ``short`` exactly on that dtype (see above)."""
    table = {}
    ufunc = _NATIVE_BINARY.get(short)
    if ufunc is not None:
        table.update((dt, ufunc) for dt in NATIVE_INTS)
    if short in ("add", "subtract", "multiply", "divide"):
        table[F32] = table[F64] = _NATIVE_BINARY.get(short) or _NATIVE_FLOAT_BINARY[short]
    return table


#: The Python operator of each op of the tables above. On two 0-d operands of a dtype the table runs natively,
#: numpy's scalar arithmetic computes the same value as the ufunc (the same IEEE operation in the same type;
#: wrapping integers) in about half the time of a ufunc call on 0-d arrays: loop counters and scalar loop
#: state. A NaN result is computed again by the ufunc: with two NaN operands, which payload survives is up
#: to the compiled code, and the 0-d path must give the bits every other shape gets.
SCALAR_OPERATORS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}


#: The dtypes of each op of ``SCALAR_OPERATORS`` on which the operator is exact (``native_binary_ufuncs``).
_NATIVE_SCALAR_DTYPES = {short: frozenset(native_binary_ufuncs(short)) for short in SCALAR_OPERATORS}


def scalar_operator(short: str, dtype: np.dtype):
    """The Python operator that computes the binary op ``short`` (``"add"``, ``"multiply"``, ...) exactly on two
    numpy scalars of ``dtype`` (see ``SCALAR_OPERATORS``: f32 / f64 and the native integer types), or None.
    A float result that is NaN must be computed again by the ufunc (which operand's payload survives)."""
    operator_ = SCALAR_OPERATORS.get(short)
    if operator_ is None or dtype not in _NATIVE_SCALAR_DTYPES[short]:
        return None
    return operator_
