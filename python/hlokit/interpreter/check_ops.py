"""The StableHLO ``check`` dialect in the interpreter: the semantics of its ops.

Its custom syntax is rewritten to generic form by :mod:`hlokit.dialects.check_syntax` (the dialect modules
define syntax only; the semantics are here).

The ops (``expect_eq``, ``expect_eq_const``: bitwise equality; ``expect_almost_eq``,
``expect_almost_eq_const``: ``|a - b| <= tolerance`` (default 1e-4) per element, NaNs equal NaNs;
``expect_close``: the ULP distance within ``[min_ulp_difference, max_ulp_difference]`` (default
``[0, 3]``); ``expect_serialized_eq``: the value equals what ``interpreter.probe`` wrote) raise
:class:`~hlokit.interpreter.InterpreterError` at the op on failure.

The ``stablehlo.custom_call @check.expect_*`` forms that JAX-generated tests use are registered
too: ``@check.expect_eq`` (bitwise), ``@check.expect_almost_eq`` (tolerance 1e-3),
``@check.expect_close`` (<= 3 ULP), with the expected value as the second operand.
"""

from __future__ import annotations

import numpy as np

from hlokit import attributes
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.probes import read_probe
from hlokit.interpreter.registry import register, register_custom_call
from hlokit.interpreter.values import (
    Token,
    Value,
    bit_width,
    dense_attribute,
    format_dense,
    is_complex,
    is_float,
    value_type_str,
)

__all__ = [
    "expect_eq",
    "expect_almost_eq",
    "expect_close",
    "ulp_distance",
]

# ------------------------------------------------------------------------------------------------
# semantics


def _describe(v: Value) -> str:
    if isinstance(v, np.ndarray):
        return format_dense(v)
    return value_type_str(v)


def _same_type(actual: Value, expected: Value) -> str | None:
    if type(actual) is not type(expected):
        return f"expected a {value_type_str(expected)}, got {value_type_str(actual)}"
    if isinstance(actual, np.ndarray):
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            return f"type mismatch: {value_type_str(actual)} vs {value_type_str(expected)}"
    return None


def expect_eq(actual: Value, expected: Value) -> str | None:
    """Bitwise equality of two values (every type; tuples elementwise; tokens equal).

    Returns None when equal, otherwise a message naming the first differing element.
    """
    if isinstance(actual, Token) and isinstance(expected, Token):
        return None
    if isinstance(actual, tuple) and isinstance(expected, tuple):
        if len(actual) != len(expected):
            return f"tuple sizes differ: {len(actual)} vs {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            msg = expect_eq(a, e)
            if msg:
                return f"tuple element {i}: {msg}"
        return None
    msg = _same_type(actual, expected)
    if msg:
        return msg
    a = np.asarray(actual, order="C")
    e = np.asarray(expected, order="C")
    if a.size == 0:
        return None
    if a.dtype == np.bool_:
        diff = a != e
    else:
        diff = (a.reshape(-1).view(np.uint8).reshape(a.size, -1) != e.reshape(-1).view(np.uint8).reshape(e.size, -1)).any(axis=1).reshape(a.shape)
    return _first_difference(a, e, diff)


def _first_difference(a: np.ndarray, e: np.ndarray, diff: np.ndarray) -> str | None:
    if not diff.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(diff)[0]) if a.ndim else ()
    av, ev = a[idx], e[idx]
    return (
        f"element {list(idx)} is {_describe(np.array(av, dtype=a.dtype))[6:].split('>')[0]}"
        f", expected {_describe(np.array(ev, dtype=e.dtype))[6:].split('>')[0]}"
        f" ({int(diff.sum())} of {diff.size} elements differ)\n"
        f"  actual:   {_describe(a)}\n  expected: {_describe(e)}"
    )


_FLOATS = object()


def _non_float_verdict(actual: Value, expected: Value):
    """The verdict of the tolerant checks when they do not apply: bitwise :func:`expect_eq` for
    non-tensors and non-float types, a type-mismatch message; ``_FLOATS`` when both are float tensors
    of the same type (the caller compares them)."""
    if not isinstance(actual, np.ndarray) or not isinstance(expected, np.ndarray):
        return expect_eq(actual, expected)
    msg = _same_type(actual, expected)
    if msg:
        return msg
    if not (is_float(actual.dtype) or is_complex(actual.dtype)):
        return expect_eq(actual, expected)
    return _FLOATS


def expect_almost_eq(actual: Value, expected: Value, tolerance: float = 1e-4) -> str | None:
    """Per-element ``|actual - expected| <= tolerance`` for floats and complex (both parts), NaN
    matches NaN and infinities must be equal; other element types compare bitwise."""
    early = _non_float_verdict(actual, expected)
    if early is not _FLOATS:
        return early
    if is_complex(actual.dtype):
        a, e = actual.astype(np.complex128), expected.astype(np.complex128)
        parts = [(a.real, e.real), (a.imag, e.imag)]
    else:
        parts = [(actual.astype(np.float64), expected.astype(np.float64))]
    diff = np.zeros(actual.shape, dtype=bool)
    for x, y in parts:
        both_nan = np.isnan(x) & np.isnan(y)
        with np.errstate(invalid="ignore"):
            close = (np.abs(x - y) <= tolerance) | (x == y) | both_nan
        diff |= ~close
    return _first_difference(actual, expected, diff)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in ULPs between two float arrays of the same dtype (as unsigned ints).

    Maps each value to a monotonic integer (sign-magnitude -> offset), so +0 and -0 are 0 apart.
    NaN vs NaN is 0; NaN vs a number is the maximum. Complex: the max over both parts.
    """
    if is_complex(a.dtype):
        part = np.float32 if a.dtype == np.complex64 else np.float64
        return np.maximum(ulp_distance(a.real.astype(part), b.real.astype(part)), ulp_distance(a.imag.astype(part), b.imag.astype(part)))
    nbytes = a.dtype.itemsize
    it = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nbytes]
    bits = 8 * nbytes
    ai = np.asarray(a, order="C").view(it).astype(np.uint64)
    bi = np.asarray(b, order="C").view(it).astype(np.uint64)
    # ml_dtypes sub-byte floats live in the low bits of a byte; the sign is their top bit.
    width = bit_width(a.dtype)
    sign = np.uint64(1) << np.uint64(width - 1)
    if a.dtype.isbuiltin == 2 and a.dtype.name == "float8_e8m0fnu":  # (ml_dtypes' type) unsigned: no sign bit
        sign = np.uint64(0)
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1) if width < 64 else np.uint64(2**64 - 1)
    ai &= mask
    bi &= mask

    # Exact integer arithmetic (a float64 detour would round 64-bit patterns to multiples of 2**11):
    # same sign -> |ma - mb|; opposite signs -> ma + mb (magnitudes < 2**63, so no overflow).
    ma, mb = ai & ~sign & mask, bi & ~sign & mask
    same_sign = (ai & sign) == (bi & sign)
    d = np.where(same_sign, np.where(ma >= mb, ma - mb, mb - ma), ma + mb).astype(np.float64)
    na, nb = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
    return np.where(na & nb, 0, np.where(na | nb, float(2**bits), d))


def expect_close(actual: Value, expected: Value, min_ulp: int = 0, max_ulp: int = 3) -> str | None:
    """The ULP distance of every element is within ``[min_ulp, max_ulp]`` (floats / complex);
    other element types compare bitwise."""
    early = _non_float_verdict(actual, expected)
    if early is not _FLOATS:
        return early
    d = ulp_distance(actual, expected)
    bad = (d < min_ulp) | (d > max_ulp)
    msg = _first_difference(actual, expected, bad)
    if msg:
        return f"ULP distance {int(d[bad].max()) if bad.any() else 0} not in [{min_ulp}, {max_ulp}]: " + msg
    return None


def _fail(op, kind: str, msg: str):
    raise InterpreterError(f"check.{kind} failed: {msg}", op.location)


@register("check.expect_eq")
def _expect_eq(op, operands, interp):
    msg = expect_eq(operands[0], operands[1])
    if msg:
        _fail(op, "expect_eq", msg)
    return []


@register("check.expect_eq_const")
def _expect_eq_const(op, operands, interp):
    msg = expect_eq(operands[0], dense_attribute(op, "value"))
    if msg:
        _fail(op, "expect_eq_const", msg)
    return []


@register("check.expect_almost_eq")
def _expect_almost_eq(op, operands, interp):
    msg = expect_almost_eq(operands[0], operands[1], attributes.float_value(op, "tolerance", 1e-4))
    if msg:
        _fail(op, "expect_almost_eq", msg)
    return []


@register("check.expect_almost_eq_const")
def _expect_almost_eq_const(op, operands, interp):
    msg = expect_almost_eq(operands[0], dense_attribute(op, "value"), attributes.float_value(op, "tolerance", 1e-4))
    if msg:
        _fail(op, "expect_almost_eq_const", msg)
    return []


@register("check.expect_close")
def _expect_close(op, operands, interp):
    msg = expect_close(
        operands[0], operands[1], attributes.int_value(op, "min_ulp_difference", 0), attributes.int_value(op, "max_ulp_difference", 3)
    )
    if msg:
        _fail(op, "expect_close", msg)
    return []


@register("check.expect_serialized_eq")
def _expect_serialized_eq(op, operands, interp):
    probe_id = attributes.str_value(op, "probe_id")
    it = attributes.int_value(op, "iter", 0)
    if interp.probe_dir is None:
        raise InterpreterError(
            "check.expect_serialized_eq needs a probe directory (--probe-output-dir)", op.location
        )
    expected = read_probe(interp, probe_id, it, operands[0])
    msg = expect_eq(operands[0], expected)
    if msg:
        _fail(op, "expect_serialized_eq", f"probe '{probe_id}' (iteration {it}): {msg}")
    return []


# stablehlo.custom_call @check.expect_* (what JAX's test exporters emit)


# @check.expect_eq compares its two operands bitwise, exactly like check.expect_eq.
register_custom_call("check.expect_eq")(_expect_eq)


@register_custom_call("check.expect_almost_eq")
def _cc_expect_almost_eq(op, operands, interp):
    msg = expect_almost_eq(operands[0], operands[1], 1e-3)
    if msg:
        _fail(op, "expect_almost_eq", msg)
    return []


@register_custom_call("check.expect_close")
def _cc_expect_close(op, operands, interp):
    msg = expect_close(operands[0], operands[1], 0, 3)
    if msg:
        _fail(op, "expect_close", msg)
    return []
