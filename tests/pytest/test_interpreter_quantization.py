"""Quantized tensors in the interpreter (StableHLO spec https://openxla.org/stablehlo/spec, sections
"Quantized element types", "uniform_quantize", "uniform_dequantize" and the quantization computations
``quantize``, ``dequantize``, ``dequantize_op_quantize``, ``hybrid_dequantize_then_op``).

The numpy references below are written from the spec's formulas, independently of
:mod:`hlokit.interpreter.quantization`. XLA cannot compile quantized StableHLO through jaxlib's compile
path ("'stablehlo.uniform_quantize' op can't be translated to XLA HLO"): the XLA comparisons lower the
program first with upstream's ``stablehlo-legalize-quant-to-math`` pass, as an oracle in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlokit
from hlokit.interpreter import InterpreterError
from hlokit.interpreter.quantization import (
    QuantizedType,
    dequantize,
    parse_quantized_type,
    quantize,
    quantized_type,
    uniform_quantize,
)
from hlokit.interpreter.values import UnsupportedTypeError

REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------------
# numpy references of the spec's formulas


def ref_quantize(x, scale, zp, lo, hi, storage, expressed=np.float32, axis=None):
    """quantize(x): x / scale + zp in the expressed type, clamp to [lo, hi], round half to even."""
    x = np.asarray(x, dtype=expressed)
    scale = np.asarray(scale, dtype=expressed)
    zp = np.asarray(zp, dtype=expressed)
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    y = np.clip(x / scale + zp, expressed(lo), expressed(hi))
    return np.rint(y).astype(np.int64).astype(storage)


def ref_dequantize(q, scale, zp, expressed=np.float32, axis=None):
    """dequantize(q): (q - zp) * scale in the expressed type."""
    q = np.asarray(q).astype(np.int64)
    scale = np.asarray(scale, dtype=expressed)
    zp = np.asarray(zp, dtype=np.int64)
    if axis is not None:
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return (q - zp).astype(expressed) * scale


def qtype(spelling: str) -> QuantizedType:
    ctx = hlokit.make_context()
    from jaxlib.mlir import ir

    with ctx:
        return quantized_type(ir.Type.parse(spelling))


# ------------------------------------------------------------------------------------------------
# element types


@pytest.mark.parametrize(
    "spelling, storage, lo, hi, expressed, qdim, scales, zps",
    [
        ("!quant.uniform<i8:f32, 0.5:-20>", np.int8, -128, 127, np.float32, None, (0.5,), (-20,)),
        ("!quant.uniform<u8:f32, 0.25>", np.uint8, 0, 255, np.float32, None, (0.25,), (0,)),
        ("!quant.uniform<i4:f16, 2.0:1>", ml_dtypes.int4, -8, 7, np.float16, None, (2.0,), (1,)),
        ("!quant.uniform<i16:bf16, 0.125:-7>", np.int16, -32768, 32767, ml_dtypes.bfloat16, None, (0.125,), (-7,)),
        ("!quant.uniform<i8<-127:127>:f32:1, {0.1:-30,0.5:-20}>", np.int8, -127, 127, np.float32, 1, (0.1, 0.5), (-30, -20)),
        ("!quant.uniform<u8<1:200>:f64:0, {1.0e-3,3.0:4}>", np.uint8, 1, 200, np.float64, 0, (1.0e-3, 3.0), (0, 4)),
        ("!quant.uniform<i32:f32, 0.123456789123:3>", np.int32, -(2**31), 2**31 - 1, np.float32, None, (0.123456789123,), (3,)),
        ("!quant.uniform<i8:f32, 1.0e-5:3>", np.int8, -128, 127, np.float32, None, (1.0e-5,), (3,)),
        ("!quant.uniform<i8:f64, 3.0e+20>", np.int8, -128, 127, np.float64, None, (3.0e20,), (0,)),
    ],
)
def test_quantized_type_parameters(spelling, storage, lo, hi, expressed, qdim, scales, zps):
    q = qtype(spelling)
    assert q.storage_dtype == np.dtype(storage)
    assert (q.storage_min, q.storage_max) == (lo, hi)
    assert q.expressed_dtype == np.dtype(expressed)
    assert q.quantization_dimension == qdim
    assert q.scales == scales and q.zero_points == zps
    assert q.is_per_axis == (qdim is not None)
    assert parse_quantized_type(q.spelling()) == q  # the rebuilt spelling reads back the same


def test_non_quantized_and_unsupported_quant_types():
    from jaxlib.mlir import ir

    with hlokit.make_context():
        assert quantized_type(ir.Type.parse("tensor<2xf32>")) is None
        assert quantized_type(ir.Type.parse("i8")) is None
        with pytest.raises(UnsupportedTypeError):
            quantized_type(ir.Type.parse("!quant.any<i8:f32>"))


def test_dtype_of_a_quantized_type_is_its_storage_type():
    from hlokit.dtypes import dtype_of

    assert dtype_of("tensor<2x!quant.uniform<i8:f32, 0.5:-20>>") == np.int8
    assert dtype_of("!quant.uniform<u8<1:200>:f32, 0.5>") == np.uint8
    assert dtype_of("!quant.uniform<i4:f32:0, {0.5,1.0}>") == np.dtype(ml_dtypes.int4)


# ------------------------------------------------------------------------------------------------
# quantize / dequantize


def test_quantize_rounds_half_to_even():
    q = qtype("!quant.uniform<i8:f32, 1.0>")
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 2.51], np.float32)
    np.testing.assert_array_equal(quantize(x, q), [0, 2, 2, 0, -2, -2, 0, 3])
    q = qtype("!quant.uniform<i8:f32, 0.5:3>")  # x / 0.5 + 3: 0.25 -> 3.5 -> 4, 0.75 -> 4.5 -> 4
    np.testing.assert_array_equal(quantize(np.array([0.25, 0.75, -0.25], np.float32), q), [4, 4, 2])


@pytest.mark.parametrize(
    "spelling, storage, lo, hi",
    [
        ("!quant.uniform<i8:f32, 0.5:-20>", np.int8, -128, 127),
        ("!quant.uniform<i8<-100:90>:f32, 0.5:-20>", np.int8, -100, 90),
        ("!quant.uniform<u8:f32, 0.1:128>", np.uint8, 0, 255),
        ("!quant.uniform<u8<16:235>:f32, 0.1:128>", np.uint8, 16, 235),
        ("!quant.uniform<i4:f32, 0.5:1>", ml_dtypes.int4, -8, 7),
        ("!quant.uniform<i16:f32, 0.001:-5>", np.int16, -32768, 32767),
    ],
)
def test_quantize_clamps_to_storage_range(spelling, storage, lo, hi):
    q = qtype(spelling)
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 50, 200), [1e9, -1e9, 0.0]]).astype(np.float32)
    got = quantize(x, q)
    assert got.dtype == np.dtype(storage)
    want = ref_quantize(x, q.scales[0], q.zero_points[0], lo, hi, storage)
    np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))
    assert int(got.astype(np.int64).min()) == lo and int(got.astype(np.int64).max()) == hi
    back = dequantize(got, q)
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back, ref_dequantize(got, q.scales[0], q.zero_points[0]))


def test_quantize_nan_is_zero_clamped_and_f16_range_is_clamped_again():
    q = qtype("!quant.uniform<u8<3:9>:f32, 1.0>")
    np.testing.assert_array_equal(quantize(np.array([np.nan], np.float32), q), [3])
    q = qtype("!quant.uniform<i16:f16, 1.0>")  # f16 rounds 32767 to 32768
    np.testing.assert_array_equal(quantize(np.array([65504.0, -65504.0], np.float16), q), [32767, -32768])


def test_per_axis_quantize_dequantize():
    q = qtype("!quant.uniform<i8:f32:1, {0.1:-30,0.5:-20,2.0:0}>")
    x = np.array([[4.0, 15.0, 7.0], [-1.0, 100.0, -300.0]], np.float32)
    got = quantize(x, q)
    want = ref_quantize(x, [0.1, 0.5, 2.0], [-30, -20, 0], -128, 127, np.int8, axis=1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got[0], [10, 10, 4])
    np.testing.assert_array_equal(dequantize(got, q), ref_dequantize(got, [0.1, 0.5, 2.0], [-30, -20, 0], axis=1))


def test_requantize_is_dequantize_then_quantize():
    a = qtype("!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>")
    b = qtype("!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>")
    np.testing.assert_array_equal(uniform_quantize(np.array([10, 10], np.int8), b, a), [20, 45])
    c = qtype("!quant.uniform<u8:f32, 0.05:100>")
    storage = np.arange(-128, 128, dtype=np.int16).astype(np.int8)
    p = qtype("!quant.uniform<i8:f32, 0.3:7>")
    want = ref_quantize(ref_dequantize(storage, 0.3, 7), 0.05, 100, 0, 255, np.uint8)
    np.testing.assert_array_equal(uniform_quantize(storage, c, p), want)


def test_bf16_expressed_type_computes_in_bf16():
    q = qtype("!quant.uniform<i8:bf16, 0.1:2>")
    x = np.array([1.0, -3.3, 7.77, 12.6], ml_dtypes.bfloat16)
    got = quantize(x, q)
    want = ref_quantize(x, 0.1, 2, -128, 127, np.int8, expressed=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(got, want)
    back = dequantize(got, q)
    assert back.dtype == np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------------------------------------
# programs

Q8 = "!quant.uniform<i8:f32, 0.1:-3>"


#: quantize, dequantize and requantize (per-tensor i8 to per-axis u8); also lowered for XLA in
#: test_legalize_quant_to_math.py
REQUANT_SRC = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3x!quant.uniform<i8:f32, 0.1:-3>>, tensor<2x3xf32>, tensor<2x3x!quant.uniform<u8:f32:1, {0.5:10,0.25:20,1.0:0}>>) {
  %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1:-3>>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x3x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<2x3xf32>
  %p = stablehlo.uniform_quantize %q : (tensor<2x3x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<2x3x!quant.uniform<u8:f32:1, {0.5:10,0.25:20,1.0:0}>>
  return %q, %d, %p : tensor<2x3x!quant.uniform<i8:f32, 0.1:-3>>, tensor<2x3xf32>, tensor<2x3x!quant.uniform<u8:f32:1, {0.5:10,0.25:20,1.0:0}>>
}"""


def test_quantize_dequantize_program_per_tensor_and_per_axis():
    src = REQUANT_SRC
    x = np.array([[1.0, -2.55, 3.3], [12.75, -20.0, 0.05]], np.float32)
    q, d, p = hlokit.interpret(src, [x])
    want_q = ref_quantize(x, 0.1, -3, -128, 127, np.int8)
    np.testing.assert_array_equal(q, want_q)
    np.testing.assert_array_equal(d, ref_dequantize(want_q, 0.1, -3))
    want_p = ref_quantize(ref_dequantize(want_q, 0.1, -3), [0.5, 0.25, 1.0], [10, 20, 0], 0, 255, np.uint8, axis=1)
    np.testing.assert_array_equal(p, want_p)
    assert p.dtype == np.uint8


def _model_src() -> str:
    """A quantized dense layer: q(x) . q_w (per-axis weights) -> i32-storage accumulator type, + q(bias),
    relu as maximum with a quantized zero, requantized to i8 and dequantized."""
    x_t = "tensor<4x8x!quant.uniform<i8:f32, 0.05:-2>>"
    w_t = "tensor<8x3x!quant.uniform<i8:f32:1, {0.02,0.03,0.04}>>"
    acc_t = "tensor<4x3x!quant.uniform<i32:f32, 0.001>>"
    b_t = "tensor<3x!quant.uniform<i32:f32, 0.001>>"
    o_t = "tensor<4x3x!quant.uniform<i8:f32, 0.04:-10>>"
    return f"""
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xi8>, %b: tensor<3xf32>) -> tensor<4x3xf32> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<4x8xf32>) -> {x_t}
  %qw = stablehlo.bitcast_convert %w : (tensor<8x3xi8>) -> {w_t}
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : ({x_t}, {w_t}) -> {acc_t}
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> {b_t}
  %bb = stablehlo.broadcast_in_dim %qb, dims = [1] : ({b_t}) -> {acc_t}
  %sum = stablehlo.add %acc, %bb : {acc_t}
  %zero = stablehlo.constant() {{value = dense<0> : tensor<4x3xi32>}} : () -> {acc_t}
  %relu = stablehlo.maximum %sum, %zero : {acc_t}
  %out = stablehlo.uniform_quantize %relu : ({acc_t}) -> {o_t}
  %y = stablehlo.uniform_dequantize %out : ({o_t}) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}}"""


def _model_inputs():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 2, (4, 8)).astype(np.float32)
    w = rng.integers(-128, 128, (8, 3)).astype(np.int8)
    b = rng.normal(0, 1, 3).astype(np.float32)
    return x, w, b


def _model_reference(x, w, b):
    qx = ref_quantize(x, 0.05, -2, -128, 127, np.int8)
    fx = ref_dequantize(qx, 0.05, -2)
    fw = ref_dequantize(w, [0.02, 0.03, 0.04], [0, 0, 0], axis=1)
    acc = ref_quantize(fx @ fw, 0.001, 0, -(2**31), 2**31 - 1, np.int32)
    qb = ref_quantize(b, 0.001, 0, -(2**31), 2**31 - 1, np.int32)
    s = ref_quantize(ref_dequantize(acc, 0.001, 0) + ref_dequantize(np.broadcast_to(qb, (4, 3)), 0.001, 0),
                     0.001, 0, -(2**31), 2**31 - 1, np.int32)
    relu = ref_quantize(np.maximum(ref_dequantize(s, 0.001, 0), np.float32(0)), 0.001, 0, -(2**31), 2**31 - 1, np.int32)
    out = ref_quantize(ref_dequantize(relu, 0.001, 0), 0.04, -10, -128, 127, np.int8)
    return ref_dequantize(out, 0.04, -10)


def test_quantized_model_against_numpy_reference():
    x, w, b = _model_inputs()
    (got,) = hlokit.interpret(_model_src(), [x, w, b])
    want = _model_reference(x, w, b)
    # the float dot product may sum in another order than numpy's matmul: one storage step of the
    # i32 accumulator at most, which the i8 output's coarser scale absorbs except at a rounding tie
    assert np.abs(got - want).max() <= 0.04 + 1e-6
    assert (got == want).mean() >= 0.9
    assert (got >= 0).all()  # relu


_HW = "tensor<3x2x!quant.uniform<i8:f32:1, {0.5,0.25}>>"
_HK = "tensor<2x1x1x2x!quant.uniform<i8:f32, 0.5>>"
#: a float-lhs dot_general and convolution with quantized rhs (hybrid; also lowered for XLA in
#: test_legalize_quant_to_math.py)
HYBRID_SRC = f"""
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xi8>, %img: tensor<1x4x4x1xf32>, %k: tensor<2x1x1x2xi8>) -> (tensor<2x2xf32>, tensor<1x3x4x2xf32>) {{
  %qw = stablehlo.bitcast_convert %w : (tensor<3x2xi8>) -> {_HW}
  %h = stablehlo.dot_general %x, %qw, contracting_dims = [1] x [0] : (tensor<2x3xf32>, {_HW}) -> tensor<2x2xf32>
  %qk = stablehlo.bitcast_convert %k : (tensor<2x1x1x2xi8>) -> {_HK}
  %c = stablehlo.convolution(%img, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[0, 0], [0, 0]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x4x4x1xf32>, {_HK}) -> tensor<1x3x4x2xf32>
  return %h, %c : tensor<2x2xf32>, tensor<1x3x4x2xf32>
}}"""


def test_hybrid_dot_general_and_convolution_dequantize_rhs_only():
    src = HYBRID_SRC
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3)).astype(np.float32)
    w = rng.integers(-128, 128, (3, 2)).astype(np.int8)
    img = rng.normal(size=(1, 4, 4, 1)).astype(np.float32)
    k = rng.integers(-8, 8, (2, 1, 1, 2)).astype(np.int8)
    h, c = hlokit.interpret(src, [x, w, img, k])
    np.testing.assert_allclose(h, x @ ref_dequantize(w, [0.5, 0.25], [0, 0], axis=1), rtol=1e-6)
    fk = ref_dequantize(k, 0.5, 0)  # [kh=2, kw=1, in=1, out=2]
    want = np.zeros((1, 3, 4, 2), np.float32)
    for i in range(3):
        want[0, i] = img[0, i, :, 0][:, None] * fk[0, 0, 0] + img[0, i + 1, :, 0][:, None] * fk[1, 0, 0]
    np.testing.assert_allclose(c, want, rtol=1e-6)


def test_data_movement_keeps_storage_and_per_axis_dimension_moves():
    a_t = "tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>"
    t_t = "tensor<3x2x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>>"
    src = f"""
func.func @main(%a: {a_t}) -> ({t_t}, tensor<3x2xf32>, tensor<6x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.5:1>>) {{
  %t = stablehlo.transpose %a, dims = [1, 0] : ({a_t}) -> {t_t}
  %d = stablehlo.uniform_dequantize %t : ({t_t}) -> tensor<3x2xf32>
  %p = stablehlo.uniform_quantize %a : ({a_t}) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>
  %r = stablehlo.reshape %p : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:1>>
  %s = stablehlo.slice %r [1:5] : (tensor<6x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  %rev = stablehlo.reverse %s, dims = [0] : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  return %t, %d, %r, %rev : {t_t}, tensor<3x2xf32>, tensor<6x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}}"""
    a = np.array([[10, -20, 30], [40, 50, -60]], np.int8)
    t, d, r, rev = hlokit.interpret(src, [a])
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(d, ref_dequantize(a.T, [0.1, 0.2, 0.3], [0, 0, 0], axis=0))
    p = ref_quantize(ref_dequantize(a, [0.1, 0.2, 0.3], [0, 0, 0], axis=1), 0.5, 1, -128, 127, np.int8)
    np.testing.assert_array_equal(r, p.reshape(6))
    np.testing.assert_array_equal(rev, p.reshape(6)[1:5][::-1])


_CT = "tensor<4x!quant.uniform<i8:f32, 0.5:2>>"
_CU = "tensor<4x!quant.uniform<i8:f32, 0.25:-4>>"
_CS = "tensor<!quant.uniform<i8:f32, 0.5:2>>"
#: compare, select, clamp and reduce on quantized values (also lowered for XLA in
#: test_legalize_quant_to_math.py)
COMPARE_SELECT_SRC = f"""
func.func @main(%a: {_CT}, %b: {_CU}) -> (tensor<4xi1>, {_CT}, {_CT}, {_CS}) {{
  %lt = stablehlo.compare LT, %a, %b : ({_CT}, {_CU}) -> tensor<4xi1>
  %bt = stablehlo.uniform_quantize %b : ({_CU}) -> {_CT}
  %sel = "stablehlo.select"(%lt, %a, %bt) : (tensor<4xi1>, {_CT}, {_CT}) -> {_CT}
  %lo = stablehlo.constant() {{value = dense<0> : tensor<i8>}} : () -> {_CS}
  %hi = stablehlo.constant() {{value = dense<8> : tensor<i8>}} : () -> {_CS}
  %cl = stablehlo.clamp %lo, %a, %hi : ({_CS}, {_CT}, {_CS}) -> {_CT}
  %init = stablehlo.constant() {{value = dense<2> : tensor<i8>}} : () -> {_CS}
  %sum = stablehlo.reduce(%a init: %init) across dimensions = [0] : ({_CT}, {_CS}) -> {_CS}
reducer(%x: {_CS}, %y: {_CS}) {{
  %z = stablehlo.add %x, %y : {_CS}
  stablehlo.return %z : {_CS}
}}
  return %lt, %sel, %cl, %sum : tensor<4xi1>, {_CT}, {_CT}, {_CS}
}}"""


def test_compare_select_clamp_and_reduce_on_quantized_values():
    src = COMPARE_SELECT_SRC
    a = np.array([0, 4, 10, -50], np.int8)  # values -1, 1, 4, -26
    b = np.array([0, 8, 20, 100], np.int8)  # values 1, 3, 6, 26
    lt, sel, cl, total = hlokit.interpret(src, [a, b])
    fa, fb = ref_dequantize(a, 0.5, 2), ref_dequantize(b, 0.25, -4)
    np.testing.assert_array_equal(lt, fa < fb)
    bt = ref_quantize(fb, 0.5, 2, -128, 127, np.int8)
    np.testing.assert_array_equal(sel, np.where(fa < fb, a, bt))
    np.testing.assert_array_equal(cl, np.clip(a, 0, 8))  # bounds -1 and 3: storage 0 .. 8
    # the body adds dequantized values and requantizes each step: storage a + b - zp, exact here
    assert int(total) == 2 + int(a.astype(np.int64).sum()) - 2 * 4


_RT = "tensor<6x!quant.uniform<i8:f32, 0.5:3>>"
_RS = "tensor<!quant.uniform<i8:f32, 0.5:3>>"
_RW = "tensor<5x!quant.uniform<i8:f32, 0.5:3>>"
_RU = "tensor<2x!quant.uniform<i8:f32, 0.5:3>>"
#: sort, reduce_window, scatter and map with quantized bodies (also lowered for XLA in
#: test_legalize_quant_to_math.py)
REGION_OPS_SRC = f"""
func.func @main(%a: {_RT}) -> ({_RT}, {_RW}, {_RT}, tensor<6xf32>) {{
  %s = "stablehlo.sort"(%a) ({{
^bb0(%x: {_RS}, %y: {_RS}):
  %gt = stablehlo.compare GT, %x, %y : ({_RS}, {_RS}) -> tensor<i1>
  stablehlo.return %gt : tensor<i1>
  }}) {{dimension = 0 : i64, is_stable = true}} : ({_RT}) -> {_RT}
  %init = stablehlo.constant() {{value = dense<-128> : tensor<i8>}} : () -> {_RS}
  %w = "stablehlo.reduce_window"(%a, %init) ({{
^bb0(%x: {_RS}, %y: {_RS}):
  %m = stablehlo.maximum %x, %y : {_RS}
  stablehlo.return %m : {_RS}
  }}) {{window_dimensions = array<i64: 2>}} : ({_RT}, {_RS}) -> {_RW}
  %idx = stablehlo.constant dense<[[1], [4]]> : tensor<2x1xi32>
  %upd = stablehlo.constant() {{value = dense<[7, 9]> : tensor<2xi8>}} : () -> {_RU}
  %sc = "stablehlo.scatter"(%a, %idx, %upd) ({{
^bb0(%x: {_RS}, %y: {_RS}):
  %z = stablehlo.add %x, %y : {_RS}
  stablehlo.return %z : {_RS}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} : ({_RT}, tensor<2x1xi32>, {_RU}) -> {_RT}
  %m = "stablehlo.map"(%a) ({{
^bb0(%x: {_RS}):
  %n = stablehlo.negate %x : {_RS}
  stablehlo.return %n : {_RS}
  }}) {{dimensions = array<i64: 0>}} : ({_RT}) -> {_RT}
  %d = stablehlo.uniform_dequantize %m : ({_RT}) -> tensor<6xf32>
  return %s, %w, %sc, %d : {_RT}, {_RW}, {_RT}, tensor<6xf32>
}}"""


def test_region_ops_run_their_bodies_on_quantized_values():
    src = REGION_OPS_SRC
    a = np.array([3, -7, 20, 5, 11, -2], np.int8)
    srt, win, sc, neg = hlokit.interpret(src, [a])
    np.testing.assert_array_equal(srt, np.sort(a)[::-1])  # positive scale: storage order = value order
    np.testing.assert_array_equal(win, np.maximum(a[:-1], a[1:]))
    fa = ref_dequantize(a, 0.5, 3)
    want = a.copy()
    want[[1, 4]] = ref_quantize(fa[[1, 4]] + ref_dequantize(np.array([7, 9]), 0.5, 3), 0.5, 3, -128, 127, np.int8)
    np.testing.assert_array_equal(sc, want)
    np.testing.assert_array_equal(neg, ref_dequantize(ref_quantize(-fa, 0.5, 3, -128, 127, np.int8), 0.5, 3))


def test_quantized_convolution_with_per_axis_weights_and_result():
    x_t = "tensor<1x5x1x!quant.uniform<i8:f32, 0.25:1>>"
    k_t = "tensor<2x1x2x!quant.uniform<i8:f32:2, {0.5,0.125}>>"
    r_t = "tensor<1x4x2x!quant.uniform<i16:f32:2, {0.0625:0,0.03125:5}>>"
    src = f"""
func.func @main(%x: tensor<1x5x1xf32>, %k: tensor<2x1x2xi8>) -> {r_t} {{
  %qx = stablehlo.uniform_quantize %x : (tensor<1x5x1xf32>) -> {x_t}
  %qk = stablehlo.bitcast_convert %k : (tensor<2x1x2xi8>) -> {k_t}
  %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{stride = [1], pad = [[0, 0]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({x_t}, {k_t}) -> {r_t}
  return %c : {r_t}
}}"""
    x = np.array([[[1.0], [-2.0], [0.5], [3.25], [-0.75]]], np.float32)
    k = np.array([[[3, -8]], [[-5, 16]]], np.int8)
    (got,) = hlokit.interpret(src, [x, k])
    fx = ref_dequantize(ref_quantize(x, 0.25, 1, -128, 127, np.int8), 0.25, 1)[0, :, 0]
    fk = ref_dequantize(k, [0.5, 0.125], [0, 0], axis=2)[:, 0, :]  # [window, out]
    conv = np.stack([fx[i] * fk[0] + fx[i + 1] * fk[1] for i in range(4)])[None]
    want = ref_quantize(conv, [0.0625, 0.03125], [0, 5], -32768, 32767, np.int16, axis=2)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int16


_UNARY = {
    "abs": np.abs, "cbrt": np.cbrt, "ceil": np.ceil, "cosine": np.cos, "exponential": np.exp,
    "exponential_minus_one": np.expm1, "floor": np.floor, "log": np.log, "log_plus_one": np.log1p,
    "logistic": lambda x: 1 / (1 + np.exp(-x)), "negate": np.negative,
    "round_nearest_afz": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), "round_nearest_even": np.rint,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sign": np.sign, "sine": np.sin, "sqrt": np.sqrt, "tan": np.tan,
    "tanh": np.tanh,
}  # fmt: skip
_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": np.power, "remainder": np.fmod, "atan2": np.arctan2,
}  # fmt: skip


def _elementwise_src(name: str, arity: int) -> str:
    a, r = "tensor<64x!quant.uniform<i8:f32, 0.03125:-40>>", "tensor<64x!quant.uniform<i8:f32, 0.05:10>>"
    operands = ", ".join(["%q"] * arity) if arity == 1 else "%q, %p"
    return f"""func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> {r} {{
  %q = stablehlo.uniform_quantize %x : (tensor<64xf32>) -> {a}
  %p = stablehlo.uniform_quantize %y : (tensor<64xf32>) -> {a}
  %r = "stablehlo.{name}"({operands}) : ({", ".join([a] * arity)}) -> {r}
  return %r : {r}
}}"""


@pytest.mark.parametrize("name", sorted(_UNARY) + sorted(_BINARY))
def test_elementwise_ops_dequantize_op_quantize(name):
    rng = np.random.default_rng(5)
    positive = name in ("log", "log_plus_one", "sqrt", "rsqrt", "power")
    x = (rng.uniform(0.1, 2.5, 64) if positive else rng.uniform(-2.5, 2.5, 64)).astype(np.float32)
    y = rng.uniform(0.5, 2.5, 64).astype(np.float32)
    arity = 1 if name in _UNARY else 2
    (got,) = hlokit.interpret(_elementwise_src(name, arity), [x, y])
    fx = ref_dequantize(ref_quantize(x, 0.03125, -40, -128, 127, np.int8), 0.03125, -40)
    fy = ref_dequantize(ref_quantize(y, 0.03125, -40, -128, 127, np.int8), 0.03125, -40)
    with np.errstate(all="ignore"):
        f = _UNARY[name](fx) if arity == 1 else _BINARY[name](fx, fy)
    want = ref_quantize(f.astype(np.float32), 0.05, 10, -128, 127, np.int8)
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    # numpy's float functions and the interpreter's may differ in the last bit, which can move a value
    # across a rounding boundary: one storage step at most, on few elements
    assert diff.max() <= 1 and (diff == 0).mean() >= 0.95, (got, want)


def test_is_finite_and_reduce_precision_on_quantized_values():
    t = "tensor<4x!quant.uniform<i8:f32, 0.3:1>>"
    src = f"""func.func @main(%a: {t}) -> (tensor<4xi1>, {t}) {{
  %f = stablehlo.is_finite %a : ({t}) -> tensor<4xi1>
  %r = stablehlo.reduce_precision %a, format = e5m2 : {t}
  return %f, %r : tensor<4xi1>, {t}
}}"""
    a = np.array([-128, 0, 37, 127], np.int8)
    fin, red = hlokit.interpret(src, [a])
    np.testing.assert_array_equal(fin, [True] * 4)  # always true for quantized values (spec, is_finite)
    fa = ref_dequantize(a, 0.3, 1)
    # e5m2 keeps 2 mantissa bits: round the f32 values to 3 significant bits, ties to even
    m, e = np.frexp(fa.astype(np.float64))
    rounded = np.ldexp(np.rint(m * 8) / 8, e).astype(np.float32)
    np.testing.assert_array_equal(red, ref_quantize(rounded, 0.3, 1, -128, 127, np.int8))


#: a while loop whose carried value is quantized (also lowered for XLA in test_legalize_quant_to_math.py)
WHILE_T = "tensor<!quant.uniform<i8:f32, 0.5>>"
WHILE_SRC = f"""
func.func @main(%x: {WHILE_T}) -> {WHILE_T} {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, {WHILE_T}
    cond {{
      %n = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %d = stablehlo.add %acc, %acc : {WHILE_T}
      stablehlo.return %j, %d : tensor<i32>, {WHILE_T}
    }}
  return %r#1 : {WHILE_T}
}}"""


def test_while_loop_carries_quantized_values():
    src = WHILE_SRC
    (got,) = hlokit.interpret(src, [np.array(5, np.int8)])
    assert int(got) == 40
    (got,) = hlokit.interpret(src, [np.array(20, np.int8)])
    assert int(got) == 127  # clamped at storage_max


def test_quantized_arguments_are_storage_arrays_and_checked():
    src = f"""
func.func @main(%a: tensor<2x{Q8}>) -> tensor<2xf32> {{
  %d = stablehlo.uniform_dequantize %a : (tensor<2x{Q8}>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}}"""
    (d,) = hlokit.interpret(src, [np.array([7, -3], np.int8)])
    np.testing.assert_allclose(d, [1.0, 0.0], atol=1e-6)
    with pytest.raises(InterpreterError, match="argument #0"):
        hlokit.interpret(src, [np.array([7.0, -3.0], np.float32)])


def test_negate_rounds_half_to_even():
    src = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %q = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %n = stablehlo.negate %q : tensor<2x!quant.uniform<i8:f32, 0.5>>
  %d = stablehlo.uniform_dequantize %n : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}"""
    (d,) = hlokit.interpret(src, [np.array([1.0, -2.25], np.float32)])
    np.testing.assert_array_equal(d, [-1.0, 2.0])  # -2.25 / 0.5 = -4.5 rounds to -4


# ------------------------------------------------------------------------------------------------
# tools


def _translate(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hlokit.tools.hlokit_translate", "--interpret", str(path), *extra],
        capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=120,
    )


def test_translate_interpret_prints_quantized_results(tmp_path):
    src = tmp_path / "q.mlir"
    src.write_text(
        f"""func.func @main(%x: tensor<2xf32>) -> (tensor<2x{Q8}>, tensor<2xf32>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{Q8}>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x{Q8}>) -> tensor<2xf32>
  %bits = stablehlo.bitcast_convert %q : (tensor<2x{Q8}>) -> tensor<2xi8>
  check.expect_eq_const %bits, dense<[7, -28]> : tensor<2xi8>
  return %q, %d : tensor<2x{Q8}>, tensor<2xf32>
}}"""
    )
    proc = _translate(src, "--args=[dense<[1.0, -2.5]> : tensor<2xf32>]")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:3] == ["tensor<2x!quant.uniform<i8:f32, 1.000000e-01:-3>> {", "  [7, -28]", "}"]
    proc = _translate(src, "--interpreter-print-dense", "--args=[dense<[1.0, -2.5]> : tensor<2xf32>]")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "dense<[7, -28]> : tensor<2x!quant.uniform<i8:f32, 1.000000e-01:-3>>"


def test_translate_interpret_takes_quantized_arguments(tmp_path):
    src = tmp_path / "arg.mlir"
    src.write_text(
        f"""func.func @main(%a: tensor<2x{Q8}>) -> tensor<2xf32> {{
  %d = stablehlo.uniform_dequantize %a : (tensor<2x{Q8}>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}}"""
    )
    proc = _translate(src, "--interpreter-print-dense", f"--args=[dense<[7, -28]> : tensor<2x{Q8}>]")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>"


def test_interpreter_print_and_probe_of_a_quantized_value(tmp_path):
    import io

    t = f"tensor<2x{Q8}>"
    src = f"""func.func @main() -> {t} {{
  %c = stablehlo.constant() {{value = dense<[-19, 7]> : tensor<2xi8>}} : () -> {t}
  %p = interpreter.probe %c, probe_id = "q" : {t}
  check.expect_serialized_eq %p, probe_id = "q" : {t}
  interpreter.print %p : {t}
  return %p : {t}
}}"""
    out = io.StringIO()
    (got,) = hlokit.interpret(src, probe_dir=str(tmp_path), out=out)
    np.testing.assert_array_equal(got, [-19, 7])
    assert out.getvalue().splitlines()[:2] == ["%1 = tensor<2x!quant.uniform<i8:f32, 1.000000e-01:-3>> {", "  [-19, 7]"]


# ------------------------------------------------------------------------------------------------
# XLA, through upstream's stablehlo-legalize-quant-to-math (an oracle, in a subprocess)

_LOWER = """
import json, sys
import hlokit
from jaxlib.mlir import passmanager
out = []
for src in json.load(sys.stdin):
    m = hlokit.parse(src)
    with m.context:
        passmanager.PassManager.parse("builtin.module(func.func(stablehlo-legalize-quant-to-math))").run(m.operation)
    out.append(str(m))
print(json.dumps(out))
"""


def _lower_upstream(sources: list[str]) -> list[str]:
    """The programs lowered by upstream's stablehlo-legalize-quant-to-math (one subprocess for all)."""
    proc = subprocess.run([sys.executable, "-c", _LOWER], input=json.dumps(sources), capture_output=True, text=True,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_xla_cannot_compile_quantized_stablehlo_directly():
    from hlokit import backend

    src = f"""func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{Q8}>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x{Q8}>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}}"""
    with pytest.raises(hlokit.HlokitError, match="can't be translated to XLA HLO"):
        backend.compile(src, platform="cpu")


#: Per-tensor and per-axis, i8 with a narrowed range, i16. u8 storage is left out: upstream's lowering
#: clamps it to the i8 range [-128, 127] (the spec's storage_max of u8 is 255).
_XLA_QDQ_TYPES = [
    "!quant.uniform<i8:f32, 0.1:-3>",
    "!quant.uniform<i8:f32, 0.05:100>",
    "!quant.uniform<i8<-100:100>:f32, 0.3:7>",
    "!quant.uniform<i16:f32, 0.001:-5>",
    "!quant.uniform<i8:f32:1, {0.1:-3,0.2:4,0.5:0}>",
]


def _qdq_src(qt: str) -> str:
    return f"""func.func @main(%x: tensor<64x3xf32>) -> tensor<64x3xf32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<64x3xf32>) -> tensor<64x3x{qt}>
  %d = stablehlo.uniform_dequantize %q : (tensor<64x3x{qt}>) -> tensor<64x3xf32>
  return %d : tensor<64x3xf32>
}}"""


_ADD_SRC = """func.func @main(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<8x4xf32>) -> tensor<8x4x!quant.uniform<i8:f32, 0.1:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<8x4xf32>) -> tensor<8x4x!quant.uniform<i8:f32, 0.2:5>>
  %s = stablehlo.add %qx, %qy : (tensor<8x4x!quant.uniform<i8:f32, 0.1:-3>>, tensor<8x4x!quant.uniform<i8:f32, 0.2:5>>) -> tensor<8x4x!quant.uniform<i8:f32, 0.15:1>>
  %d = stablehlo.uniform_dequantize %s : (tensor<8x4x!quant.uniform<i8:f32, 0.15:1>>) -> tensor<8x4xf32>
  return %d : tensor<8x4xf32>
}"""

_DOT_SRC = """func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<8x16xf32>) -> tensor<8x16x!quant.uniform<i8:f32, 0.05:2>>
  %qw = stablehlo.uniform_quantize %w : (tensor<16x4xf32>) -> tensor<16x4x!quant.uniform<i8:f32, 0.02>>
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<8x16x!quant.uniform<i8:f32, 0.05:2>>, tensor<16x4x!quant.uniform<i8:f32, 0.02>>) -> tensor<8x4x!quant.uniform<i32:f32, 0.001>>
  %d = stablehlo.uniform_dequantize %acc : (tensor<8x4x!quant.uniform<i32:f32, 0.001>>) -> tensor<8x4xf32>
  return %d : tensor<8x4xf32>
}"""


_LAYER_SRC = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 0.05:-2>>
  %qw = stablehlo.uniform_quantize %w : (tensor<8x3xf32>) -> tensor<8x3x!quant.uniform<i8:f32, 0.02>>
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<4x8x!quant.uniform<i8:f32, 0.05:-2>>, tensor<8x3x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x3x!quant.uniform<i32:f32, 0.001>>
  %qb = stablehlo.uniform_quantize %b : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<i32:f32, 0.001>>
  %sum = stablehlo.add %acc, %qb : tensor<4x3x!quant.uniform<i32:f32, 0.001>>
  %zf = stablehlo.constant dense<0.0> : tensor<4x3xf32>
  %zero = stablehlo.uniform_quantize %zf : (tensor<4x3xf32>) -> tensor<4x3x!quant.uniform<i32:f32, 0.001>>
  %relu = stablehlo.maximum %sum, %zero : tensor<4x3x!quant.uniform<i32:f32, 0.001>>
  %out = stablehlo.uniform_quantize %relu : (tensor<4x3x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x3x!quant.uniform<i8:f32, 0.04:-10>>
  %y = stablehlo.uniform_dequantize %out : (tensor<4x3x!quant.uniform<i8:f32, 0.04:-10>>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}"""


def test_quantized_programs_against_xla():
    from hlokit import backend

    rng = np.random.default_rng(3)
    x = np.concatenate([
        rng.normal(0, 20, (60, 3)),
        [[0.05, 0.15, 0.25], [-0.05, -0.15, 0.35], [1e6, -1e6, 0], [12.5, 0.5, 1.5]],
    ]).astype(np.float32)  # fmt: skip
    a, b = (rng.normal(0, 4, (8, 4)).astype(np.float32) for _ in range(2))
    dx, dw = rng.normal(0, 2, (8, 16)).astype(np.float32), rng.normal(0, 1, (16, 4)).astype(np.float32)
    lx, lw, lb = rng.normal(0, 2, (4, 8)), rng.normal(0, 1, (8, 3)), rng.normal(0, 1, (4, 3))
    lx, lw, lb = (v.astype(np.float32) for v in (lx, lw, lb))
    sources = [_qdq_src(qt) for qt in _XLA_QDQ_TYPES] + [_ADD_SRC, _DOT_SRC, _LAYER_SRC]
    lowered = _lower_upstream(sources)
    # quantize / dequantize: upstream's lowering computes the spec's formulas: bit-exact
    for qt, src, low in zip(_XLA_QDQ_TYPES, sources, lowered):
        (got,) = hlokit.interpret(src, [x])
        (want,) = backend.compile(low, platform="cpu")(x)
        np.testing.assert_array_equal(got, np.asarray(want), err_msg=qt)
    # add: upstream requantizes each operand to the result scale and adds integers, which may round
    # differently from the spec's dequantize -> add -> quantize: one storage step (0.15) at most
    (got,) = hlokit.interpret(_ADD_SRC, [a, b])
    (want,) = backend.compile(lowered[-3], platform="cpu")(a, b)
    assert np.abs(got - np.asarray(want)).max() <= 0.15 + 1e-6
    assert (got == np.asarray(want)).mean() >= 0.5
    # dot_general: upstream accumulates integers exactly, the spec's form sums dequantized f32 values
    (got,) = hlokit.interpret(_DOT_SRC, [dx, dw])
    (want,) = backend.compile(lowered[-2], platform="cpu")(dx, dw)
    assert np.abs(got - np.asarray(want)).max() <= 0.001 + 1e-6
    # a quantized dense layer (dot_general + add + relu, requantized to i8): one output step (0.04) at most
    (got,) = hlokit.interpret(_LAYER_SRC, [lx, lw, lb])
    (want,) = backend.compile(lowered[-1], platform="cpu")(lx, lw, lb)
    assert np.abs(got - np.asarray(want)).max() <= 0.04 + 1e-6
    assert (got >= 0).all() and (got == np.asarray(want)).mean() >= 0.9
