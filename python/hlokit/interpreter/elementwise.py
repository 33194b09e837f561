"""Elementwise ops, ``constant`` and ``iota`` on whole numpy arrays.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), one section per op; where the spec
leaves a result to the implementation, XLA's (https://openxla.org/xla/operation_semantics). The op
table is :mod:`hlokit.opsets` (``ELEMENTWISE_UNARY_SHORT`` / ``_BINARY_`` / ``_TERNARY_``): each op
there is registered with the semantics function of its name.

Every semantics function is named after the spec op (``not``/``and``/``or`` take a trailing ``_``)
and takes numpy arrays (see :mod:`hlokit.interpreter.values`); shapes broadcast, so a region body
written for 0-d tensors runs unchanged on arrays of any shape (``map``, ``reduce`` bodies, ...).

Numerics (the rules of the issue):

* integers wrap modulo 2^N (sub-byte ``int2/int4/uint2/uint4`` too); integer ``divide`` and
  ``remainder`` follow XLA where the spec leaves them open: ``x / 0 = -1`` (all bits set),
  ``x % 0 = x``, ``INT_MIN / -1 = INT_MIN``, ``INT_MIN % -1 = 0``;
* ``+ - * /``, ``sqrt`` of narrow floats (f16, bf16, f8*, f6*, f4*) compute in f32 and round once
  (exact: f32 has more than 2p+2 bits); transcendental functions of floats up to f32 compute in
  f64 and round once to the operand's type; f64 computes in f64;
* ``convert`` float -> integer truncates toward zero and saturates (NaN -> 0), as XLA does;
  complex -> non-complex drops the imaginary part; anything -> i1 is ``x != 0``;
* NaN payloads and signed zeros survive ``select``, ``bitcast_convert``, ``real``/``imag``,
  ``complex`` and same-type ``convert``.
"""

from __future__ import annotations

import builtins
import operator
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import attributes, opsets
import hlokit.dtypes as hdt  # (its ml_dtypes tables are read only for ml_dtypes types: built on first need)
from hlokit.interpreter.numerics import (  # noqa: F401  (convert, bitcast_convert, iota: elementwise ops too)
    BOOL as _BOOL,
    F32 as _F32,
    F64 as _F64,
    no_sign_magnitude as _no_sign_magnitude,
    SCALAR_OPERATORS as _SCALAR_OPERATORS,
    as_array as _a,
    as_unsigned_bits as _as_unsigned_bits,
    bitcast_convert,
    convert,
    float_binary as _float_binary,
    float_unary as _float_unary,
    from_unsigned_bits as _from_unsigned_bits,
    int_binary as _int_binary,
    int_limits as _int_limits,
    iota,
    is_sub_byte_int as _is_sub_byte_int,
    native_binary_ufuncs as _native_binary_ufuncs,
    result_dtype as _result_dtype,
    wide_int as _wide_int,
    wrap as _wrap,
)
from hlokit.interpreter.registry import OpImpl, prepared, register, with_kernel
from hlokit.interpreter.values import (
    bit_width,
    dense_attribute,
    dtype_of,
    is_complex,
    is_float,
    is_integer,
    is_unsigned,
)

__all__ = [
    "abs", "add", "and_", "atan2", "bitcast_convert", "cbrt", "ceil", "clamp", "compare", "complex",
    "constant", "convert", "cosine", "count_leading_zeros", "divide", "exponential",
    "exponential_minus_one", "floor", "imag", "iota", "is_finite", "log", "log_plus_one", "logistic",
    "map", "maximum", "minimum", "multiply", "negate", "not_", "or_", "popcnt", "power", "real",
    "reduce_precision", "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt", "select",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sine", "sqrt",
    "subtract", "tan", "tanh", "xor",
]

complex_ = builtins.complex


# ------------------------------------------------------------------------------------------------
# constant, iota (spec "constant", "iota")


def constant(value: np.ndarray) -> np.ndarray:
    """``constant``: the value of the ``value`` attribute (a copy)."""
    return np.array(value, copy=True)


def _prepare_constant(op):
    value = dense_attribute(op, "value")
    value.flags.writeable = False  # read once per op, shared by every execution (values are immutable)
    return OpImpl(lambda op, operands, interp: [value], None, (value,))  # (folded: the op never runs)


@register("stablehlo.constant")
@prepared(_prepare_constant)
def _constant(op, operands, interp):
    return [constant(dense_attribute(op, "value"))]


@register("stablehlo.iota")
def _iota(op, operands, interp):
    t = ir.RankedTensorType(op.operation.results[0].type)
    return [iota(t.shape, dtype_of(t.element_type), attributes.int_value(op, "iota_dimension"))]


# ------------------------------------------------------------------------------------------------
# arithmetic


def add(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``add``: logical OR for i1, wrapping add for integers, IEEE addition for floats/complex."""
    dt = lhs.dtype
    if dt == _BOOL:
        return _a(lhs | rhs)
    if is_integer(dt):
        return _int_binary(np.add, lhs, rhs)
    return _float_binary(np.add, lhs, rhs)


def subtract(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``subtract``: wrapping for integers, IEEE subtraction for floats/complex."""
    dt = lhs.dtype
    if dt == _BOOL:
        return _a(lhs ^ rhs)  # arithmetic modulo 2 (not allowed by the verifier for i1)
    if is_integer(dt):
        return _int_binary(np.subtract, lhs, rhs)
    return _float_binary(np.subtract, lhs, rhs)


def multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``multiply``: logical AND for i1, wrapping for integers, IEEE multiplication for floats."""
    dt = lhs.dtype
    if dt == _BOOL:
        return _a(lhs & rhs)
    if is_integer(dt):
        return _int_binary(np.multiply, lhs, rhs)
    return _float_binary(np.multiply, lhs, rhs)


def _int_div_parts(lhs: np.ndarray, rhs: np.ndarray):
    dt = lhs.dtype
    w = _wide_int(dt)
    a, b = lhs.astype(w), rhs.astype(w)
    zero = b == 0
    if is_unsigned(dt):
        overflow = np.zeros(np.broadcast(a, b).shape, dtype=bool)
    else:
        lo, _ = _int_limits(dt)
        overflow = (a == lo) & (b == -1)
    safe = np.where(zero | overflow, np.ones((), dtype=w), b)
    r = np.fmod(a, safe)
    q = (a - r) // safe
    return dt, w, a, zero, overflow, q, r


def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``divide``: integer quotient rounded toward zero (``x/0 = -1``, ``INT_MIN/-1 = INT_MIN``);
    IEEE division for floats and complex."""
    if is_integer(lhs.dtype):
        dt, w, a, zero, overflow, q, r = _int_div_parts(lhs, rhs)
        q = np.where(overflow, a, q)
        q = np.where(zero, np.array(-1).astype(w) if w.kind == "i" else np.array(np.iinfo(w).max, dtype=w), q)
        return _wrap(q, dt)
    return _float_binary(np.divide, lhs, rhs)


def remainder(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``remainder``: ``lhs - trunc(lhs / rhs) * rhs``, the sign of the dividend (C ``fmod``);
    integers: ``x % 0 = x``, ``INT_MIN % -1 = 0``."""
    if is_integer(lhs.dtype):
        dt, w, a, zero, overflow, q, r = _int_div_parts(lhs, rhs)
        r = np.where(zero, a, np.where(overflow, np.zeros((), dtype=w), r))
        return _wrap(r, dt)
    if is_complex(lhs.dtype):
        # TBD in the spec (#997); the C++ reference computes lhs - rhs * trunc-toward-zero(lhs / rhs)
        a, b = lhs.astype(np.complex128), rhs.astype(np.complex128)
        q = a / b
        q = np.trunc(q.real) + 1j * np.trunc(q.imag)
        return _a(a - b * q, lhs.dtype)
    return _float_binary(np.fmod, lhs, rhs)


def _int_power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    dt = base.dtype
    b = _as_unsigned_bits(base) if not is_unsigned(dt) else base.astype(np.uint64)
    if not is_unsigned(dt):  # sign-extend to 64 bits
        b = base.astype(np.int64).astype(np.uint64)
    e = exponent.astype(np.int64) if not is_unsigned(dt) else exponent.astype(np.uint64)
    neg = e < 0
    e = np.where(neg, 0, e).astype(np.uint64)
    b, e = np.broadcast_arrays(b, e)
    b = b.copy()
    e = e.copy()
    result = np.ones(b.shape, dtype=np.uint64)
    while e.any():
        odd = (e & np.uint64(1)) != 0
        result = np.where(odd, result * b, result)
        b = b * b
        e = e >> np.uint64(1)
    out = _wrap(result, dt) if not _is_sub_byte_int(dt) else _from_unsigned_bits(result & np.uint64((1 << bit_width(dt)) - 1), dt)
    if neg.any():
        sb = base.astype(np.int64)
        odd_exp = (exponent.astype(np.int64) % 2) != 0
        special = np.where(sb == 1, 1, np.where(sb == -1, np.where(odd_exp, -1, 1), 0))
        out = np.where(neg, _wrap(special, dt), out)
    return _a(out, dt)


def power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``power``: integer exponentiation by squaring (wrapping; a negative exponent gives 0 unless
    the base is 1 or -1); IEEE ``pow`` for floats; complex ``pow``."""
    if is_integer(lhs.dtype):
        return _int_power(lhs, rhs)
    if lhs.dtype == _BOOL:
        return _a(lhs | ~rhs)
    return _float_binary(np.power, lhs, rhs, transcendental=True)


def negate(operand: np.ndarray) -> np.ndarray:
    """``negate``: wrapping for integers (unsigned: modulo 2^N), IEEE negation for floats."""
    dt = operand.dtype
    if is_integer(dt):
        w = _wide_int(dt)
        if w.kind == "u":
            return _wrap((~operand.astype(w)) + w.type(1), dt) if not _is_sub_byte_int(dt) else _wrap(-operand.astype(np.int64), dt)
        return _wrap(-operand.astype(w), dt)
    return _a(np.negative(operand), dt)


def abs(operand: np.ndarray) -> np.ndarray:
    """``abs``: wrapping for integers (``abs(INT_MIN) = INT_MIN``); floats clear the sign bit;
    complex -> the modulus in the part type."""
    dt = operand.dtype
    if is_integer(dt):
        return _wrap(np.abs(operand.astype(_wide_int(dt))), dt)
    if is_complex(dt):
        part = np.float32 if dt == np.complex64 else np.float64
        return _a(np.abs(operand.astype(np.complex128)), part)
    if dt.isbuiltin == 2 and dt in _no_sign_magnitude():  # fnuz NaN is the "-0" pattern; e8m0 has no sign bit
        x = operand.astype(_F32)
        return _a(np.where(x < 0, -x, x), dt)
    return _from_unsigned_bits(_as_unsigned_bits(operand) & ~np.uint64(1 << (bit_width(dt) - 1)), dt)


def sign(operand: np.ndarray) -> np.ndarray:
    """``sign``: -1/0/1 for integers; floats -1.0/+-0.0/1.0 and NaN -> NaN; complex ``x / abs(x)``
    (0 -> 0)."""
    dt = operand.dtype
    if is_integer(dt):
        return _wrap(np.sign(operand.astype(_wide_int(dt) if not is_unsigned(dt) else np.int64)), dt)
    if is_complex(dt):
        z = operand.astype(np.complex128)
        m = np.abs(z)
        out = np.where(m == 0, z, z / np.where(m == 0, 1, m))
        out = np.where(np.isnan(z.real) | np.isnan(z.imag), np.complex128(complex_(np.nan, np.nan)), out)
        return _a(out, dt)
    x = operand.astype(_F64) if dt != _F64 else operand
    out = np.where(np.isnan(x) | (x == 0), x, np.copysign(1.0, x))
    res = _a(out, dt)
    # keep NaN payloads and zeros bit-exact
    keep = np.isnan(x) | (x == 0)
    return _a(np.where(keep, operand, res), dt)


def maximum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``maximum``: logical OR for i1; NaN-propagating IEEE maximum (``-0 < +0``) for floats;
    lexicographic (real, then imaginary) for complex."""
    dt = lhs.dtype
    if dt == _BOOL:
        return _a(lhs | rhs)
    if is_integer(dt):
        return _a(np.maximum(lhs.astype(_wide_int(dt)), rhs.astype(_wide_int(dt))), dt)
    if is_complex(dt):
        take_l = (lhs.real > rhs.real) | ((lhs.real == rhs.real) & (lhs.imag >= rhs.imag))
        return _a(np.where(take_l, lhs, rhs), dt)
    a, b = lhs.astype(_F64), rhs.astype(_F64)
    take_l = (a > b) | np.isnan(a) | ((a == b) & ~np.signbit(a))
    take_l &= ~(np.isnan(b) & ~np.isnan(a))
    return _a(np.where(take_l, lhs, rhs), dt)


def minimum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``minimum``: logical AND for i1; NaN-propagating IEEE minimum (``-0 < +0``) for floats;
    lexicographic for complex."""
    dt = lhs.dtype
    if dt == _BOOL:
        return _a(lhs & rhs)
    if is_integer(dt):
        return _a(np.minimum(lhs.astype(_wide_int(dt)), rhs.astype(_wide_int(dt))), dt)
    if is_complex(dt):
        take_l = (lhs.real < rhs.real) | ((lhs.real == rhs.real) & (lhs.imag <= rhs.imag))
        return _a(np.where(take_l, lhs, rhs), dt)
    a, b = lhs.astype(_F64), rhs.astype(_F64)
    take_l = (a < b) | np.isnan(a) | ((a == b) & np.signbit(a))
    take_l &= ~(np.isnan(b) & ~np.isnan(a))
    return _a(np.where(take_l, lhs, rhs), dt)


def clamp(min: np.ndarray, operand: np.ndarray, max: np.ndarray) -> np.ndarray:  # noqa: A002
    """``clamp``: ``minimum(maximum(operand, min), max)``; ``min``/``max`` may be 0-d."""
    return minimum(maximum(operand, min), max)


# ------------------------------------------------------------------------------------------------
# bitwise / logical


def not_(operand: np.ndarray) -> np.ndarray:
    """``not``: logical NOT for i1, bitwise NOT for integers."""
    dt = operand.dtype
    if dt == _BOOL:
        return _a(~operand)
    return _wrap(~operand.astype(np.int64), dt) if _is_sub_byte_int(dt) else _a(np.invert(operand), dt)


def and_(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``and``: logical / bitwise AND."""
    return _bitwise(np.bitwise_and, lhs, rhs)


def or_(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``or``: logical / bitwise OR."""
    return _bitwise(np.bitwise_or, lhs, rhs)


def xor(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``xor``: logical / bitwise XOR."""
    return _bitwise(np.bitwise_xor, lhs, rhs)


def _bitwise(fn, lhs, rhs):
    dt = lhs.dtype
    if _is_sub_byte_int(dt):
        return _wrap(fn(lhs.astype(np.int64), rhs.astype(np.int64)), dt)
    return _a(fn(lhs, rhs), dt)


def shift_left(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``shift_left``: ``lhs << rhs`` (wrapping); a shift of at least the bit width (or a negative
    one) gives 0."""
    dt = lhs.dtype
    bits = bit_width(dt)
    amount = _as_unsigned_bits(rhs)
    x = _as_unsigned_bits(lhs)
    out = x << np.minimum(amount, np.uint64(63))
    out = np.where(amount >= np.uint64(bits), np.uint64(0), out)
    return _from_unsigned_bits(out & np.uint64((1 << bits) - 1 if bits < 64 else 2**64 - 1), dt)


def shift_right_logical(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``shift_right_logical``: zero-filling right shift; out-of-range shifts give 0."""
    dt = lhs.dtype
    bits = bit_width(dt)
    amount = _as_unsigned_bits(rhs)
    x = _as_unsigned_bits(lhs)
    out = x >> np.minimum(amount, np.uint64(63))
    out = np.where(amount >= np.uint64(bits), np.uint64(0), out)
    return _from_unsigned_bits(out, dt)


def shift_right_arithmetic(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``shift_right_arithmetic``: sign-filling right shift; out-of-range shifts give 0 or -1."""
    dt = lhs.dtype
    bits = bit_width(dt)
    amount = _as_unsigned_bits(rhs)
    # the value as a signed number of `bits` bits
    u = _as_unsigned_bits(lhs)
    s = u.astype(np.int64)
    if bits < 64:
        s = np.where(s >= 1 << (bits - 1), s - (1 << bits), s)
    out = s >> np.minimum(amount, np.uint64(bits - 1)).astype(np.int64)
    return _from_unsigned_bits(out.astype(np.uint64) & np.uint64((1 << bits) - 1 if bits < 64 else 2**64 - 1), dt)


def popcnt(operand: np.ndarray) -> np.ndarray:
    """``popcnt``: the number of set bits of each element."""
    dt = operand.dtype
    return _wrap(np.bitwise_count(_as_unsigned_bits(operand)).astype(np.int64), dt)


def count_leading_zeros(operand: np.ndarray) -> np.ndarray:
    """``count_leading_zeros``: the number of leading zero bits in the element's bit width."""
    dt = operand.dtype
    bits = bit_width(dt)
    u = _as_unsigned_bits(operand)
    length = np.zeros(u.shape, dtype=np.int64)
    for s in (32, 16, 8, 4, 2, 1):
        big = u >= (np.uint64(1) << np.uint64(s))
        length += np.where(big, s, 0)
        u = np.where(big, u >> np.uint64(s), u)
    length += (u != 0).astype(np.int64)
    return _wrap(bits - length, dt)


# ------------------------------------------------------------------------------------------------
# transcendental and rounding


def _complex_or_float(fn_float, fn_complex=None):
    def sem(operand: np.ndarray) -> np.ndarray:
        if is_complex(operand.dtype):
            return _a((fn_complex or fn_float)(operand.astype(np.complex128)), operand.dtype)
        return _float_unary(fn_float, operand)

    return sem


def exponential(operand):
    """``exponential``: e^x (floats, complex)."""
    return _complex_or_float(np.exp)(operand)


def exponential_minus_one(operand):
    """``exponential_minus_one``: e^x - 1, accurate near 0 (floats, complex)."""
    def cexpm1(z):
        # expm1(x + iy) = expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y
        x, y = z.real, z.imag
        return (np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2) + 1j * (np.exp(x) * np.sin(y))

    return _complex_or_float(np.expm1, cexpm1)(operand)


def log(operand):
    """``log``: natural logarithm (floats, complex)."""
    return _complex_or_float(np.log)(operand)


def log_plus_one(operand):
    """``log_plus_one``: log(1 + x), accurate near 0 (floats, complex)."""
    def clog1p(z):
        x, y = z.real, z.imag
        re = 0.5 * np.log1p(x * (2 + x) + y * y)
        big = np.abs(x) + np.abs(y) > 0.5
        re = np.where(big, np.log(np.abs(1 + z)), re)
        return re + 1j * np.arctan2(y, 1 + x)

    return _complex_or_float(np.log1p, clog1p)(operand)


def logistic(operand):
    """``logistic``: 1 / (1 + e^-x) (floats, complex)."""
    def f(x):
        return 1.0 / (1.0 + np.exp(-x))

    return _complex_or_float(f)(operand)


def sqrt(operand):
    """``sqrt``: square root (floats correctly rounded, complex principal root)."""
    return _complex_or_float(np.sqrt)(operand)


def rsqrt(operand):
    """``rsqrt``: 1 / sqrt(x) (floats, complex)."""
    return _complex_or_float(lambda x: 1.0 / np.sqrt(x))(operand)


def cbrt(operand):
    """``cbrt``: cube root (floats; complex: principal root)."""
    return _complex_or_float(np.cbrt, lambda z: z ** (1.0 / 3.0))(operand)


def sine(operand):
    """``sine`` (floats, complex)."""
    return _complex_or_float(np.sin)(operand)


def cosine(operand):
    """``cosine`` (floats, complex)."""
    return _complex_or_float(np.cos)(operand)


def tan(operand):
    """``tan`` (floats, complex)."""
    return _complex_or_float(np.tan)(operand)


def tanh(operand):
    """``tanh`` (floats, complex)."""
    return _complex_or_float(np.tanh)(operand)


def atan2(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``atan2(lhs, rhs)``: the angle of (rhs, lhs) (floats); complex: ``-i log((rhs + i lhs) /
    sqrt(rhs^2 + lhs^2))``."""
    if is_complex(lhs.dtype):
        y, x = lhs.astype(np.complex128), rhs.astype(np.complex128)
        return _a(-1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y)), lhs.dtype)
    return _float_binary(np.arctan2, lhs, rhs, transcendental=True)


def floor(operand):
    """``floor``: round toward -inf."""
    return _float_unary(np.floor, operand, transcendental=False)


def ceil(operand):
    """``ceil``: round toward +inf."""
    return _float_unary(np.ceil, operand, transcendental=False)


def round_nearest_even(operand):
    """``round_nearest_even``: roundToIntegralTiesToEven."""
    return _float_unary(np.rint, operand, transcendental=False)


def round_nearest_afz(operand):
    """``round_nearest_afz``: roundToIntegralTiesToAway (signed zeros kept)."""
    def afz(x):
        t = np.trunc(x)
        return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x), t)

    return _float_unary(afz, operand, transcendental=False)


def is_finite(x: np.ndarray) -> np.ndarray:
    """``is_finite``: true for finite values (not NaN, not +-inf)."""
    return _a(np.isfinite(x.astype(_F64) if x.dtype != _F64 else x))


def _float_layouts(rows) -> dict[np.dtype, tuple[int, int]]:
    """(exponent bits, mantissa bits) of the float types of ``rows`` that reduce_precision works on bit by bit (16
    bits and wider)."""
    return {e.dtype: (e.exponent_bits, e.mantissa_bits) for e in rows if e.is_float and e.bits >= 16}


#: :func:`_float_layouts` of numpy's own types; ``_FLOAT_LAYOUTS`` (a module attribute too), that of every type
#: (bf16 too), is made on first use (it imports ml_dtypes): for an ml_dtypes dtype only.
_LAYOUTS_NATIVE = _float_layouts(hdt.NATIVE_ELEMENT_TYPES.values())
_LAYOUTS_ALL: list = []


def _all_float_layouts() -> dict[np.dtype, tuple[int, int]]:
    if not _LAYOUTS_ALL:
        _LAYOUTS_ALL.append(_float_layouts(hdt.ELEMENT_TYPES.values()))
    return _LAYOUTS_ALL[0]


def __getattr__(name: str):
    if name == "_FLOAT_LAYOUTS":
        return _all_float_layouts()
    raise AttributeError(f"module 'hlokit.interpreter.elementwise' has no attribute '{name}'")


def reduce_precision(operand: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """``reduce_precision``: round to a float with ``exponent_bits``/``mantissa_bits`` (ties to
    even; overflow -> inf, underflow -> zero, NaN kept) and back, on the operand's bits (as XLA)."""
    dt = operand.dtype
    layouts = _LAYOUTS_NATIVE if dt.isbuiltin != 2 else _all_float_layouts()
    if dt not in layouts:  # f8/f6/f4: through f32 (exact: their values are f32 values)
        return _a(reduce_precision(operand.astype(_F32), exponent_bits, mantissa_bits), dt)
    src_e, src_m = layouts[dt]
    nbits = 1 + src_e + src_m
    one = np.uint64(1)
    x = _as_unsigned_bits(operand)
    if mantissa_bits < src_m:
        shift = np.uint64(src_m - mantissa_bits)
        last = one << shift
        base_bias = (last >> one) - one
        x_last = (x & last) >> shift
        x = (x + x_last + base_bias) & ~(last - one)
        x &= np.uint64((1 << nbits) - 1) if nbits < 64 else np.uint64(2**64 - 1)
    if exponent_bits < src_e:
        sign_mask = one << np.uint64(nbits - 1)
        exp_mask = np.uint64(((1 << src_e) - 1) << src_m)
        bias = (1 << (src_e - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        max_exp = np.uint64((bias + reduced_bias) << src_m)
        min_exp = np.uint64((bias - reduced_bias) << src_m)
        x_exp = x & exp_mask
        signed_zero = x & sign_mask
        signed_inf = signed_zero | exp_mask
        x = np.where(x_exp > max_exp, signed_inf, np.where(x_exp <= min_exp, signed_zero, x))
    out = _from_unsigned_bits(x, dt)
    nan = np.isnan(operand.astype(_F64) if dt != _F64 else operand)
    if mantissa_bits > 0:
        return _a(np.where(nan, operand, out), dt)
    # no mantissa bits: NaN has no representation; it becomes an infinity of its sign (upstream)
    sign_bit = np.signbit(operand.astype(_F64) if dt != _F64 else operand)
    inf = np.where(sign_bit, np.array(-np.inf, dtype=dt), np.array(np.inf, dtype=dt))
    return _a(np.where(nan, inf, out), dt)


# ------------------------------------------------------------------------------------------------
# complex parts


def complex(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:  # noqa: A001
    """``complex``: ``lhs + i * rhs`` (f32 -> complex<f32>, f64 -> complex<f64>)."""
    ct = np.complex64 if lhs.dtype == _F32 else np.complex128
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    out = np.empty(lhs.shape, dtype=ct)
    out.real = lhs
    out.imag = rhs
    return out


def real(operand: np.ndarray) -> np.ndarray:
    """``real``: the real part of complex elements; floats are returned as they are."""
    if is_complex(operand.dtype):
        return np.array(operand.real, copy=True)
    return np.array(operand, copy=True)


def imag(operand: np.ndarray) -> np.ndarray:
    """``imag``: the imaginary part of complex elements; zeros for floats."""
    if is_complex(operand.dtype):
        return np.array(operand.imag, copy=True)
    return np.zeros_like(operand)


# ------------------------------------------------------------------------------------------------
# compare / select / map


_DIRECTIONS = {
    "EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal,
    "GT": np.greater, "LE": np.less_equal, "LT": np.less,
}
_SCALAR_DIRECTIONS = {
    "EQ": operator.eq, "NE": operator.ne, "GE": operator.ge, "GT": operator.gt, "LE": operator.le, "LT": operator.lt,
}


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers ordered like IEEE totalOrder of the floats ``x`` (-NaN < -inf < ... < -0 < +0 < ...)."""
    if x.dtype.isbuiltin == 2 and x.dtype in _no_sign_magnitude():  # one NaN, one zero: order by value, NaN last
        v = x.astype(_F64)
        return np.where(np.isnan(v), np.inf, v)
    bits = bit_width(x.dtype)
    u = _as_unsigned_bits(x).astype(np.int64) if bits < 64 else _as_unsigned_bits(x).view(np.int64)
    if bits < 64:
        neg = u >= (1 << (bits - 1))
        mag = u & ((1 << (bits - 1)) - 1)
        return np.where(neg, -mag - 1, mag)
    neg = u < 0
    return np.where(neg, np.int64(-1) - (u & np.int64(2**63 - 1)), u)


def compare(lhs: np.ndarray, rhs: np.ndarray, comparison_direction: str, compare_type: str | None = None) -> np.ndarray:
    """``compare``: ``lhs <direction> rhs`` -> i1. ``compare_type``: FLOAT (IEEE; NaN unordered),
    TOTALORDER (IEEE totalOrder), SIGNED, UNSIGNED, or None/NOTYPE (from the element type).
    Complex operands compare (real, imag) lexicographically (EQ/NE by both parts)."""
    fn = _DIRECTIONS[comparison_direction]
    dt = lhs.dtype
    if compare_type in (None, "NOTYPE"):
        compare_type = "FLOAT" if (is_float(dt) or is_complex(dt)) else ("UNSIGNED" if (is_unsigned(dt) or dt == _BOOL) else "SIGNED")
    if is_complex(dt):
        if comparison_direction in ("EQ", "NE"):
            return _a(fn(lhs, rhs))
        a, b = lhs, rhs
        lt = (a.real < b.real) | ((a.real == b.real) & (a.imag < b.imag))
        eq = (a.real == b.real) & (a.imag == b.imag)
        return _a({"GE": ~lt & ~np.isnan(a.real) | eq, "GT": ~lt & ~eq, "LE": lt | eq, "LT": lt}[comparison_direction])
    if is_float(dt):
        if compare_type == "TOTALORDER":
            return _a(fn(_total_order_key(lhs), _total_order_key(rhs)))
        c = _F64 if dt != _F64 else dt
        return _a(fn(lhs.astype(c), rhs.astype(c)))
    if dt == _BOOL:
        return _a(fn(lhs.astype(np.uint8), rhs.astype(np.uint8)))
    if compare_type == "UNSIGNED" and not is_unsigned(dt):
        return _a(fn(_as_unsigned_bits(lhs), _as_unsigned_bits(rhs)))
    if compare_type == "SIGNED" and is_unsigned(dt):
        bits = bit_width(dt)
        def signed(v):
            s = _as_unsigned_bits(v).astype(np.int64) if bits < 64 else _as_unsigned_bits(v).view(np.int64)
            return np.where(s >= 1 << (bits - 1), s - (1 << bits), s) if bits < 64 else s
        return _a(fn(signed(lhs), signed(rhs)))
    w = _wide_int(dt)
    return _a(fn(lhs.astype(w), rhs.astype(w)))


def select(pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    """``select``: ``on_true`` where ``pred`` else ``on_false`` (``pred`` may be 0-d); bit-exact."""
    dt = on_true.dtype
    if dt.kind == "V" or dt.itemsize and dt.isbuiltin == 2 and dt in hdt.SUB_BYTE_INTS | hdt.SUB_BYTE_UINTS:
        storage = {1: np.uint8, 2: np.uint16}[dt.itemsize]
        return np.where(pred, on_true.view(storage), on_false.view(storage)).view(dt)
    return _a(np.where(pred, on_true, on_false), dt)


def map(inputs: Sequence[np.ndarray], computation, dimensions: Sequence[int] | None = None) -> np.ndarray:  # noqa: A001
    """``map``: ``computation`` (a function of 0-d tensors, here called once on the whole arrays)
    applied elementwise; the result is broadcast to the inputs' shape."""
    shape = inputs[0].shape if inputs else ()
    (out,) = computation(*inputs)
    out = np.asarray(out)
    if out.shape != shape:
        out = np.broadcast_to(out, shape).copy()
    return out


# ------------------------------------------------------------------------------------------------
# adapters


#: Transcendental unary float ops whose numpy ufunc, run in f64 for an f32 operand (f64 for f64), rounded once,
#: is exactly what the semantics function computes for f32 / f64 (see the module doc): the adapter runs it
#: directly on f32 / f64 operands (picked by the operand's dtype).
_NATIVE_FLOAT_UNARY = {
    "sine": np.sin, "cosine": np.cos, "tan": np.tan, "tanh": np.tanh, "exponential": np.exp,
    "exponential_minus_one": np.expm1, "log": np.log, "log_plus_one": np.log1p, "cbrt": np.cbrt,
}
#: Unary ops exact in the operand's own type (f32 / f64): the ufunc runs in that type (keeping NaN payloads).
#: ``sqrt`` is among them: IEEE 754 square root is correctly rounded in every format, and rounding the f64
#: root of an f32 to f32 gives the same bits (53 >= 2 * 24 + 2: the double rounding is innocuous).
_EXACT_FLOAT_UNARY = {
    "floor": np.floor, "ceil": np.ceil, "round_nearest_even": np.rint, "negate": np.negative, "sqrt": np.sqrt,
}


def _unary(name: str, fn):
    short = name.split(".")[-1]
    transcendental = _NATIVE_FLOAT_UNARY.get(short)
    exact = _EXACT_FLOAT_UNARY.get(short)
    asarray = np.asarray
    # the operand's dtype picks the computation (a dict lookup per call, nothing read from the op's types); on a
    # 0-d operand numpy's ufunc gives a numpy scalar, which the kernel makes an array
    if transcendental is not None:
        def f32(x):
            return transcendental(x, dtype=_F64).astype(_F32)

        native = {_F32: f32, _F64: transcendental}.get
    elif exact is not None:
        native = {_F32: exact, _F64: exact}.get
    else:
        native = {}.get

    def kernel(x):
        run = native(x.dtype)
        if run is None:
            return fn(x)
        return run(x) if x.ndim else asarray(run(x))

    def specialize(x):
        """What ``kernel`` runs for every operand of ``x``'s dtype and rank, without the dispatch (registry)."""
        return native(x.dtype) if x.ndim else None

    return register(name)(with_kernel(kernel, "_" + short, specialize=specialize))


def _scalar_form(ufunc: np.ufunc, operator_, dtype: np.dtype):
    """The binary op ``ufunc`` on two 0-d operands of ``dtype`` (one of its native dtypes) as numpy's scalar
    arithmetic (``operator_``, see ``_SCALAR_OPERATORS``), the result a 0-d array: wrapping integers never give
    a NaN; a float NaN is computed again by the ufunc, whose choice of operand payload every shape gets."""
    asarray, ndarray = np.asarray, np.ndarray
    if dtype.kind in "iu":
        return lambda lhs, rhs: asarray(operator_(lhs[()], rhs[()]))

    def scalar_kernel(lhs, rhs):
        out = operator_(lhs[()], rhs[()])
        if out.__class__ is ndarray:  # (arrays after all: an elementwise region run on whole arrays, whose 0-d
            return out  # constants meet its arguments' arrays; the operator is then the ufunc itself)
        if out != out:
            return asarray(ufunc(lhs, rhs))
        return asarray(out)

    return scalar_kernel


def _binary(name: str, fn):
    short = name.split(".")[-1]
    table = _native_binary_ufuncs(short)
    native = table.get
    # dtype -> the op on 0-d operands (every op with a native ufunc has a Python operator: _SCALAR_OPERATORS)
    scalar_form = {dt: _scalar_form(ufunc, _SCALAR_OPERATORS[short], dt) for dt, ufunc in table.items()}.get

    def kernel(lhs, rhs):
        ufunc = native(lhs.dtype)
        if ufunc is None:
            return fn(lhs, rhs)
        if lhs.ndim or rhs.ndim:  # (an array result, never a numpy scalar; a 0-d operand beside an array: the
            return ufunc(lhs, rhs)  # constant of an elementwise region run on whole arrays, numpy broadcasts it)
        return scalar_form(lhs.dtype)(lhs, rhs)

    def broadcasting(shape: tuple[int, ...]):
        """The kernel for operands one of which is 0-d and stands for its broadcast to ``shape`` (rank >= 1,
        the other operand's shape): numpy's ufunc broadcasts it (the same elementwise operation, so the same
        bits as on the broadcast array); the semantics function gets both at ``shape`` (read-only views)."""
        def broadcast_kernel(lhs, rhs):
            ufunc = native(lhs.dtype)
            if ufunc is not None:
                return ufunc(lhs, rhs)
            return fn(np.broadcast_to(lhs, shape), np.broadcast_to(rhs, shape))

        # (specialize: the result has ``shape``, an array: the ufunc of the dtype)
        return with_kernel(broadcast_kernel, "_" + short, specialize=lambda lhs, rhs: native(lhs.dtype))

    def specialize(lhs, rhs):
        """What ``kernel`` runs for all operands of these dtypes and ranks, without the dispatch (registry)."""
        return native(lhs.dtype) if lhs.ndim or rhs.ndim else scalar_form(lhs.dtype)

    # (broadcasting, registry: a planner may fold a broadcast of a 0-d operand into the op)
    return register(name)(with_kernel(kernel, "_" + short, specialize=specialize, broadcasting=broadcasting))


#: Elementwise ops of :mod:`hlokit.opsets` whose adapter reads attributes or the result type: each is
#: registered on its own below; every other op of the sets gets the generic adapter of its arity.
_OWN_ADAPTER = frozenset({"compare", "convert", "reduce_precision"})
#: Semantics functions whose spec name is a Python keyword.
_KEYWORD_NAMED = {"not": not_, "and": and_, "or": or_}


def _semantics(short: str):
    """The semantics function of the spec op ``short`` (KeyError at import when one is missing)."""
    return _KEYWORD_NAMED.get(short) or globals()[short]


def _ternary(name: str, fn):
    @register(name)
    def adapter(op, operands, interp):
        return [fn(*operands)]

    adapter.__name__ = "_" + name.split(".")[-1]
    return adapter


for _short in opsets.ELEMENTWISE_UNARY_SHORT:
    if _short not in _OWN_ADAPTER:
        _unary("stablehlo." + _short, _semantics(_short))
for _short in opsets.ELEMENTWISE_BINARY_SHORT:
    if _short not in _OWN_ADAPTER:
        _binary("stablehlo." + _short, _semantics(_short))
for _short in opsets.ELEMENTWISE_TERNARY_SHORT:
    _ternary("stablehlo." + _short, _semantics(_short))


def _prepare_compare(op):
    direction = attributes.enum_value(op, "comparison_direction")
    ctype = attributes.enum_value(op, "compare_type", "NOTYPE")
    t = op.operation.operands[0].type
    dt = dtype_of(t)
    # numpy's comparison is the spec's for f32 / f64 (IEEE: NaN unordered) and for integers compared as
    # their own signedness: those run the ufunc directly
    native = (
        (dt in (_F32, _F64) and ctype in ("NOTYPE", "FLOAT"))
        or (dt.kind == "i" and not _is_sub_byte_int(dt) and ctype in ("NOTYPE", "SIGNED"))
        or (dt.kind == "u" and not _is_sub_byte_int(dt) and ctype in ("NOTYPE", "UNSIGNED"))
    )
    if native:
        fn, asarray = _DIRECTIONS[direction], np.asarray
        if isinstance(t, ir.RankedTensorType) and t.rank == 0:  # 0-d: numpy's scalar comparison, the same
            scalar = _SCALAR_DIRECTIONS[direction]  # result at about half the cost (see _SCALAR_OPERATORS)
            return with_kernel(lambda lhs, rhs: asarray(scalar(lhs[()], rhs[()])))
        return with_kernel(lambda lhs, rhs: asarray(fn(lhs, rhs)))
    return with_kernel(lambda lhs, rhs: compare(lhs, rhs, direction, ctype))


@register("stablehlo.compare")
@prepared(_prepare_compare)
def _compare(op, operands, interp):
    lhs, rhs = operands
    ctype = attributes.enum_value(op, "compare_type", "NOTYPE")
    return [compare(lhs, rhs, attributes.enum_value(op, "comparison_direction"), ctype)]


def _prepare_convert(op):
    dtype = _result_dtype(op)
    src = dtype_of(op.operation.operands[0].type)
    # native integers -> f32 / f64 and f32 <-> f64: numpy's cast rounds to nearest even, as convert does
    if dtype in (_F32, _F64) and (src in (_F32, _F64) or (src.kind in "iu" and not _is_sub_byte_int(src))) \
            and src != dtype:
        return with_kernel(lambda x: x.astype(dtype))
    return with_kernel(lambda x: convert(x, dtype))


@register("stablehlo.convert")
@prepared(_prepare_convert)
def _convert(op, operands, interp):
    return [convert(operands[0], _result_dtype(op))]


@register("stablehlo.bitcast_convert")
def _bitcast_convert(op, operands, interp):
    return [bitcast_convert(operands[0], _result_dtype(op))]


@register("stablehlo.reduce_precision")
def _reduce_precision(op, operands, interp):
    return [reduce_precision(operands[0], attributes.int_value(op, "exponent_bits"), attributes.int_value(op, "mantissa_bits"))]


@register("stablehlo.map")
def _map(op, operands, interp):
    region = op.operation.regions[0]
    dims = attributes.i64_array(op, "dimensions", default=list(range(operands[0].ndim if operands else 0)))
    return [map(list(operands), lambda *args: interp.eval_region(region, list(args)), dims)]
