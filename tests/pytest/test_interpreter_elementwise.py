"""Semantics functions of the elementwise family (StableHLO spec examples and the edge cases XLA/the spec fix)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit.interpreter import elementwise as ew
from hlokit.interpreter.values import dtype_of


def arr(values, t):
    return np.array(values).astype(dtype_of(t))


def test_integer_arithmetic_wraps_for_every_width():
    assert ew.add(arr([127], "i8"), arr([1], "i8")).tolist() == [-128]
    assert ew.add(arr([7], "i4"), arr([1], "i4")).astype(int).tolist() == [-8]
    assert ew.multiply(arr([15], "ui4"), arr([15], "ui4")).astype(int).tolist() == [1]
    assert ew.subtract(arr([0], "ui2"), arr([1], "ui2")).astype(int).tolist() == [3]
    assert ew.negate(arr([-128], "i8")).tolist() == [-128]
    assert ew.abs(arr([-128, -3], "i8")).tolist() == [-128, 3]
    assert ew.negate(arr([1], "ui64")).tolist() == [2**64 - 1]


def test_integer_divide_and_remainder_edges():
    lhs = arr([17, -17, 17, -17, -128, 5], "i8")
    rhs = arr([3, 3, -3, -3, -1, 0], "i8")
    assert ew.divide(lhs, rhs).tolist() == [5, -5, -5, 5, -128, -1]
    assert ew.remainder(lhs, rhs).tolist() == [2, -2, 2, -2, 0, 5]
    assert ew.divide(arr([7], "ui32"), arr([0], "ui32")).tolist() == [2**32 - 1]


def test_float_remainder_is_fmod():
    r = ew.remainder(arr([17.1, -17.1, 17.1, -17.1], "f64"), arr([3.0, 3.0, -3.0, -3.0], "f64"))
    assert r.tolist() == [2.1000000000000014, -2.1000000000000014, 2.1000000000000014, -2.1000000000000014]


def test_integer_power():
    # spec "power" example / conformance: [-1, 1, 0, 1, -27, 0]
    r = ew.power(arr([-1, -1, -3, 1, -3, 0], "i64"), arr([1, 0, -3, -3, 3, 2], "i64"))
    assert r.tolist() == [-1, 1, 0, 1, -27, 0]
    # exact modulo 2^N for large exponents (XLA reads only 6 exponent bits)
    assert ew.power(arr([3], "i32"), arr([100], "i32")).tolist() == [pow(3, 100, 2**32) - 2**32 if pow(3, 100, 2**32) >= 2**31 else pow(3, 100, 2**32)]
    assert ew.power(arr([6], "i8"), arr([68], "i8")).tolist() == [0]


def test_shifts_out_of_range():
    x = arr([-8, 8, 1], "i8")
    assert ew.shift_left(x, arr([1, 8, 7], "i8")).tolist() == [-16, 0, -128]
    assert ew.shift_right_arithmetic(x, arr([1, 9, -1], "i8")).tolist() == [-4, 0, 0]
    assert ew.shift_right_arithmetic(arr([-8], "i8"), arr([100], "i8")).tolist() == [-1]
    assert ew.shift_right_logical(x, arr([1, 1, 8], "i8")).tolist() == [124, 4, 0]
    assert ew.shift_left(arr([1], "i4"), arr([3], "i4")).astype(int).tolist() == [-8]


def test_popcnt_and_count_leading_zeros():
    assert ew.popcnt(arr([0, 1, 2, 127, -1], "i8")).tolist() == [0, 1, 1, 7, 8]
    assert ew.count_leading_zeros(arr([0, 1, 2, 127, -1], "i8")).tolist() == [8, 7, 6, 1, 0]
    assert ew.count_leading_zeros(arr([0, 1, 2**63], "ui64")).tolist() == [64, 63, 0]
    assert ew.count_leading_zeros(arr([1, -1], "i4")).astype(int).tolist() == [3, 0]
    assert ew.popcnt(arr([-1], "i4")).astype(int).tolist() == [4]


def test_maximum_minimum_nan_and_signed_zero():
    a = arr([np.nan, 1.0, -0.0, 0.0], "f32")
    b = arr([1.0, np.nan, 0.0, -0.0], "f32")
    mx, mn = ew.maximum(a, b), ew.minimum(a, b)
    assert np.isnan(mx[:2]).all() and np.isnan(mn[:2]).all()
    assert [np.signbit(v) for v in mx[2:]] == [False, False]
    assert [np.signbit(v) for v in mn[2:]] == [True, True]
    c = ew.maximum(np.array([1 + 5j, 2 + 0j]), np.array([1 + 6j, 1 + 9j]))
    assert c.tolist() == [1 + 6j, 2 + 0j]


def test_sign_and_abs_on_floats_and_complex():
    s = ew.sign(arr([-2.0, -0.0, 0.0, 3.0, np.nan], "f32"))
    assert s[:4].tolist() == [-1.0, 0.0, 0.0, 1.0] and np.signbit(s[1]) and np.isnan(s[4])
    assert ew.abs(np.array([3 + 4j], np.complex64)).dtype == np.float32
    assert ew.abs(np.array([3 + 4j], np.complex64)).tolist() == [5.0]
    bits = np.array([0xFFC00001], np.uint32).view(np.float32)
    assert ew.abs(bits).view(np.uint32).tolist() == [0x7FC00001]  # payload kept, sign cleared


def test_rounding():
    x = arr([-2.5, 0.4, 0.5, 2.5, -0.4, 0.49999999999999994], "f64")
    afz = ew.round_nearest_afz(x)
    assert afz.tolist() == [-3.0, 0.0, 1.0, 3.0, -0.0, 0.0] and np.signbit(afz[4])
    assert ew.round_nearest_even(x).tolist() == [-2.0, 0.0, 0.0, 2.0, -0.0, 0.0]


def test_convert_rules():
    f = arr([1e10, -1e10, np.nan, -1.9, 2.9, np.inf], "f32")
    assert ew.convert(f, np.dtype(np.int32)).tolist() == [2**31 - 1, -(2**31), 0, -1, 2, 2**31 - 1]
    assert ew.convert(f, np.dtype(np.uint8)).tolist() == [255, 0, 0, 0, 2, 255]
    assert ew.convert(arr([-1, 0, 2], "i64"), np.dtype(np.bool_)).tolist() == [True, False, True]
    c = np.array([-1 + 0j, 0 + 1j, 1 + 0j])
    assert ew.convert(c, np.dtype(np.bool_)).tolist() == [True, False, True]
    assert ew.convert(arr([300, -1], "i32"), np.dtype(np.uint8)).tolist() == [44, 255]
    assert ew.convert(arr([9], "i32"), dtype_of("i4")).astype(int).tolist() == [-7]
    assert ew.convert(arr([1.0], "f32"), np.dtype(np.complex64)).tolist() == [1 + 0j]
    assert ew.convert(arr([1e6], "f32"), np.dtype(ml_dtypes.float8_e5m2)).astype(float).tolist() == [np.inf]


def test_bitcast_convert_changes_rank_and_keeps_payloads():
    x = np.array([0x0123456789ABCDEF], np.uint64).view(np.float64).reshape(())
    bits = ew.bitcast_convert(x, np.dtype(np.bool_))
    assert bits.shape == (64,) and bits[:8].tolist() == [True] * 4 + [False, True, True, True]
    halves = ew.bitcast_convert(x, np.dtype(np.uint32))
    assert halves.tolist() == [0x89ABCDEF, 0x01234567]
    back = ew.bitcast_convert(halves, np.dtype(np.float64))
    assert back.shape == () and back.view(np.uint64) == 0x0123456789ABCDEF
    nan = np.array([0x7F800001], np.uint32)
    assert ew.bitcast_convert(nan, np.dtype(np.float32)).view(np.uint32).tolist() == [0x7F800001]
    nib = ew.bitcast_convert(np.array([0x2F], np.uint8), dtype_of("ui4"))
    assert nib.astype(int).tolist() == [[15, 2]]


def test_compare_types():
    a = arr([np.nan, -0.0, 1.0], "f32")
    b = arr([np.nan, 0.0, 2.0], "f32")
    assert ew.compare(a, b, "EQ").tolist() == [False, True, False]
    assert ew.compare(a, b, "EQ", "TOTALORDER").tolist() == [True, False, False]
    assert ew.compare(a, b, "LT", "TOTALORDER").tolist() == [False, True, True]
    i = arr([-1, 1], "i32")
    j = arr([1, 1], "i32")
    assert ew.compare(i, j, "LT", "UNSIGNED").tolist() == [False, False]
    assert ew.compare(i, j, "LT", "SIGNED").tolist() == [True, False]


def test_reduce_precision():
    x = np.array([np.inf, 1e-310, 65505.0, 65520.0], np.float64)
    r = ew.reduce_precision(x, 5, 10)
    assert r.tolist() == [np.inf, 0.0, 65504.0, np.inf]


def test_select_clamp_complex_real_imag():
    p = np.array(True)
    assert ew.select(p, arr([1, 2], "i32"), arr([3, 4], "i32")).tolist() == [1, 2]
    assert ew.clamp(arr(0, "f32"), arr([-1.0, 0.5, 9.0], "f32"), arr(1, "f32")).tolist() == [0.0, 0.5, 1.0]
    z = ew.complex(arr([1.0], "f32"), arr([2.0], "f32"))
    assert z.dtype == np.complex64 and ew.real(z).tolist() == [1.0] and ew.imag(z).tolist() == [2.0]
    b = np.array([0x7FC00001, 0], np.uint32).view(np.float32)
    assert ew.select(np.array([True, False]), b, b[::-1]).view(np.uint32).tolist() == [0x7FC00001, 0x7FC00001]


def test_narrow_floats_round_once():
    x = np.array([1.0], ml_dtypes.bfloat16)
    tiny = np.array([2.0**-9], ml_dtypes.bfloat16)  # half an ulp of 1.0: ties to even -> 1.0
    assert ew.add(x, tiny).astype(float).tolist() == [1.0]
    assert ew.add(x, tiny * 3).astype(float).tolist() == [1.0078125]
    assert ew.sqrt(np.array([2.0], np.float16)).tolist() == [np.float16(np.sqrt(2.0))]


def test_iota_and_constant_ops():
    prog = """
    func.func @main() -> (tensor<2x3xui8>, tensor<2xcomplex<f32>>, tensor<3xi4>) {
      %0 = stablehlo.iota dim = 1 : tensor<2x3xui8>
      %1 = stablehlo.constant dense<[(1.0, -2.0), (0x7FC00000, 0.0)]> : tensor<2xcomplex<f32>>
      %2 = stablehlo.constant dense<[1, -8, 7]> : tensor<3xi4>
      return %0, %1, %2 : tensor<2x3xui8>, tensor<2xcomplex<f32>>, tensor<3xi4>
    }"""
    a, b, c = hlokit.interpret(prog)
    assert a.dtype == np.uint8 and a.tolist() == [[0, 1, 2], [0, 1, 2]]
    assert b.dtype == np.complex64 and b[0] == 1 - 2j and np.isnan(b[1].real)
    assert c.dtype == dtype_of("i4") and c.astype(int).tolist() == [1, -8, 7]


@pytest.mark.parametrize("t", ["f8E4M3FN", "f8E5M2", "bf16", "f16", "f6E2M3FN", "f4E2M1FN"])
def test_narrow_float_programs(t):
    prog = f"""
    func.func @main(%a: tensor<2x{t}>) -> tensor<2x{t}> {{
      %0 = stablehlo.multiply %a, %a : tensor<2x{t}>
      %1 = stablehlo.add %0, %a : tensor<2x{t}>
      return %1 : tensor<2x{t}>
    }}"""
    a = np.array([1.5, -1.0]).astype(dtype_of(t))
    (r,) = hlokit.interpret(prog, [a])
    expect = (a.astype(np.float32) * a.astype(np.float32)).astype(a.dtype).astype(np.float32) + a.astype(np.float32)
    assert r.dtype == a.dtype and r.tobytes() == expect.astype(a.dtype).tobytes()


def test_abs_and_total_order_on_fnuz_and_e8m0():
    x = np.array([np.nan, -1.5, 2.0], ml_dtypes.float8_e4m3fnuz)  # NaN is the "-0" bit pattern
    r = ew.abs(x)
    assert np.isnan(r[0].astype(float)) and r[1:].astype(float).tolist() == [1.5, 2.0]
    e = np.array([1.0, 2.0, 0.5], ml_dtypes.float8_e8m0fnu)  # no sign bit at all
    assert ew.abs(e).astype(float).tolist() == [1.0, 2.0, 0.5]
    assert ew.compare(e, e[::-1], "LT", "TOTALORDER").tolist() == [False, False, True]


def test_constants_are_shared_read_only_and_results_are_callers():
    prog = """
    func.func @main() -> tensor<2xi32> {
      %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      return %0 : tensor<2xi32>
    }"""
    module = hlokit.parse(prog, context=hlokit.make_context())
    (a,) = hlokit.interpret(module)
    a[0] = 7  # the caller's copy
    (b,) = hlokit.interpret(module)
    assert b.tolist() == [1, 2]
