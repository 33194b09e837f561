"""hlokit.dtypes.ELEMENT_TYPES, the one element-type table, checked against numpy / ml_dtypes for every type, and the
tables derived from it (builder, rng_bit_generator, interpreter) against what they stood for."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlokit import dtypes
from hlokit.dtypes import ELEMENT_TYPES, element_types

TYPES = list(ELEMENT_TYPES.values())
FLOATS = [e for e in TYPES if e.is_float]


def _bits_of(value: float, dtype: np.dtype) -> int:
    """The storage bits of ``value`` converted to ``dtype``, as an unsigned integer."""
    storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return int(np.array([value], dtype=dtype).view(storage)[0])


def _from_bits(bits: int, dtype: np.dtype) -> float:
    """The value of the bit pattern ``bits`` in ``dtype``, as a float64."""
    storage = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return float(np.array([bits], storage).view(dtype).astype(np.float64)[0])


def _finfo(dtype: np.dtype):
    return np.finfo(dtype) if dtype.kind == "f" and dtype.type in (np.float16, np.float32, np.float64) \
        else ml_dtypes.finfo(dtype)


@pytest.mark.parametrize("e", TYPES, ids=[e.name for e in TYPES])
def test_width_and_kind_agree_with_numpy(e):
    if e.kind == "bool":
        assert e.dtype == np.bool_ and e.bits == 1
    elif e.kind in ("signed", "unsigned"):
        info = ml_dtypes.iinfo(e.dtype)
        assert (info.min < 0) == (e.kind == "signed"), e.name
        if e.dtype != np.bool_:
            assert info.bits == e.bits, e.name
        assert e.name.lstrip("su").lstrip("i") == str(e.bits)
    elif e.kind == "float":
        info = _finfo(e.dtype)
        assert info.bits == e.bits, e.name
        assert (info.nexp, info.nmant) == (e.exponent_bits, e.mantissa_bits), e.name
    else:
        assert e.kind == "complex" and e.dtype.kind == "c" and e.dtype.itemsize * 8 == e.bits
    assert dtypes.DTYPES[e.name] == e.dtype


@pytest.mark.parametrize("e", FLOATS, ids=[e.name for e in FLOATS])
def test_nan_and_infinity_bit_patterns(e):
    """The NaN / +-inf bit patterns are what numpy / ml_dtypes make of nan / +-inf; a type without one turns them
    into something else (a finite value or NaN)."""
    back = np.array([np.nan, np.inf, -np.inf], e.dtype).astype(np.float64)
    if e.has_nan:
        assert _bits_of(np.nan, e.dtype) == e.nan and np.isnan(back[0])
        assert np.isnan(_from_bits(e.nan, e.dtype))
    else:
        assert not np.isnan(back[0])
    if e.has_infinity:
        assert _bits_of(np.inf, e.dtype) == e.pos_inf and _bits_of(-np.inf, e.dtype) == e.neg_inf
        assert _from_bits(e.pos_inf, e.dtype) == np.inf and _from_bits(e.neg_inf, e.dtype) == -np.inf
        assert back[1] == np.inf and back[2] == -np.inf
    else:
        assert not np.isinf(back[1:]).any() and e.neg_inf is None
    assert e.finite_only == (not e.has_nan and not e.has_infinity)


@pytest.mark.parametrize("e", FLOATS, ids=[e.name for e in FLOATS])
def test_ordering_facts(e):
    """``unsigned_zero``: -0 is not a value of its own (its bits are the NaN, or there is no sign); a
    ``sign_magnitude`` type has a -0 whose bits are +0's with the sign bit set, and bits ordering magnitudes."""
    neg_zero = _bits_of(-0.0, e.dtype)
    if e.unsigned_zero:
        assert neg_zero == _bits_of(0.0, e.dtype) or not np.signbit(np.array([-0.0], e.dtype).astype(np.float64))[0]
    else:
        assert neg_zero == 1 << (e.bits - 1)
    if e.sign_magnitude and e.bits <= 16:  # every non-negative pattern, in bit order: increasing values
        storage = {1: np.uint8, 2: np.uint16}[e.dtype.itemsize]
        with np.errstate(invalid="ignore"):  # (bf16 NaN payloads: numpy warns on the cast)
            values = np.arange(1 << (e.bits - 1), dtype=storage).view(e.dtype).astype(np.float64)
        values = values[~np.isnan(values)]
        assert np.all(np.diff(values) > 0), e.name
    assert e.storage_ordered == (e.sign_magnitude and e.bits == e.dtype.itemsize * 8)


def test_spellings_round_trip_and_parse_in_mlir():
    from jaxlib.mlir import ir

    import hlokit

    ctx = hlokit.make_context()
    for e in TYPES:
        assert str(ir.Type.parse(e.name, ctx)) == e.name
        if not e.name.startswith("si") and e.name != "ui1":
            assert dtypes.type_name(e.dtype) == e.name
            assert dtypes.bit_width(e.dtype) == e.bits


def test_derived_tables():
    from hlokit.interpreter import data_movement, elementwise, numerics
    from hlokit.passes import builder, stablehlo_expand_rng_bit_generator as rbg

    assert builder.FLOAT_TYPES == ("f16", "bf16", "f32", "f64")
    assert builder.MINI_FLOAT_TYPES == element_types("float", max_bits=8) and len(builder.MINI_FLOAT_TYPES) == 11
    assert builder.INT_TYPES == ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")
    assert builder.float_literal(float("nan"), "f32") == "0x7FC00000"
    assert builder.float_literal(float("-inf"), "f64") == "0xFFF0000000000000"
    assert builder.float_literal(float("inf"), "f8E5M2") == "0x7c"
    assert rbg.ELEMENT_WIDTHS["f6E2M3FN"] == 6 and "i1" not in rbg.ELEMENT_WIDTHS and "si8" not in rbg.ELEMENT_WIDTHS
    assert np.dtype(ml_dtypes.float8_e4m3fnuz) in numerics.NO_SIGN_MAGNITUDE
    assert np.dtype(ml_dtypes.float8_e4m3fn) not in numerics.NO_SIGN_MAGNITUDE
    assert data_movement._TOTALORDER_FLOATS[np.dtype(ml_dtypes.bfloat16)] == np.int16
    assert np.dtype(ml_dtypes.float4_e2m1fn) not in data_movement._TOTALORDER_FLOATS
    assert elementwise._FLOAT_LAYOUTS[np.dtype(np.float32)] == (8, 23)
