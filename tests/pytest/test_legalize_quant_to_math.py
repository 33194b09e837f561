"""``--stablehlo-legalize-quant-to-math``: hlokit's pass against the interpreter and upstream's C++ pass.

(a) Each quantized program runs on hlokit's interpreter (the quantized original) and, lowered by our pass,
on XLA CPU (``hlokit.backend``) and on the interpreter (which must give the original's bits: same numpy
arithmetic in the same types); the storage values (integers) and dequantized floats are compared. The
pass computes the interpreter's formulas in the same element types and order, so quantize / dequantize,
requantization, data movement and the elementwise ops XLA rounds correctly (add, subtract, multiply,
divide, max / min, compare, select, clamp, round, abs, negate, sqrt) agree bit for bit. Where XLA's float
op itself may round differently from numpy's (transcendental functions, a dot product or convolution
summed in another order, a reduction combined in another order), the float result may differ by an ULP,
which moves a quantized value across a rounding boundary: one storage step at most (the stated bound of
each case; the test also checks that most elements agree exactly).

(b) On quantize / dequantize programs, ours and upstream's C++ pass (an oracle, run in a subprocess)
give the same results on XLA.

(c) The flag and ``--pass-pipeline`` run our pass (upstream's keeps no trace of hlokit's templates), (d)
``hlokit-run --engine both`` runs quantized programs on XLA through our pass, (e) refused programs are
located errors and the IR is left as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline

import test_interpreter_quantization as Q
from conftest import REPO

FLAG = "stablehlo-legalize-quant-to-math"
MODULE_PIPELINE = f"builtin.module({FLAG})"
FUNC_PIPELINE = f"builtin.module(func.func({FLAG}))"


def lower(src: str, pipeline: str = MODULE_PIPELINE) -> str:
    """``src`` lowered by our pass (verified, with no quantized type left)."""
    m = hlokit.parse(src, context=hlokit.make_context())
    run_pipeline(m, pipeline)
    assert m.operation.verify()
    text = str(m)
    assert "!quant" not in text, text
    return text


#: case name -> largest difference seen, in storage steps (filled by the tests; printed with -s)
MEASURED: dict[str, float] = {}


def compare(name: str, src: str, args, steps: dict[int, float] | None = None, bound: int = 0,
            pipeline: str = MODULE_PIPELINE) -> list[np.ndarray]:
    """Run ``src`` on the interpreter and, lowered, on XLA CPU; assert every output agrees within
    ``bound`` storage steps. Integer outputs (storage values) are compared directly; a float output
    ``i`` is measured in units of ``steps[i]`` (the scale its values were dequantized with; without a
    step it must be bit-identical). Returns XLA's outputs."""
    want = hlokit.interpret(src, list(args))
    low = lower(src, pipeline)
    # the interpreter on the lowered program: the same numpy arithmetic in the same types, bit for bit
    for i, (a, b) in enumerate(zip(hlokit.interpret(low, list(args)), want)):
        assert np.asarray(a).dtype == np.asarray(b).dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes(), (name, i)
    got = [np.asarray(o) for o in backend.compile(low, platform="cpu")(*args)]
    assert len(got) == len(want)
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.dtype, w.dtype)
        if g.dtype.kind in "iu" or g.dtype == np.bool_ or str(g.dtype) in ("int4", "uint4"):
            d = np.abs(g.astype(np.int64) - w.astype(np.int64))
        elif steps and i in steps:
            d = np.abs(g.astype(np.float64) - w.astype(np.float64)) / steps[i]
            d = np.rint(d * 1e3) / 1e3  # a step apart up to float noise
        else:
            d = (g.view(np.uint8) != w.view(np.uint8)).astype(np.float64)  # bit-identical floats
        m = float(d.max()) if d.size else 0.0
        worst = max(worst, m)
        assert m <= bound, (name, i, m, g, w)
        if bound:
            assert (d == 0).mean() >= 0.9, (name, i, (d == 0).mean())
    MEASURED[name] = worst
    return got


# ------------------------------------------------------------------------------------------------
# (a) the lowered program on XLA against the interpreter on the original

QDQ_TYPES = Q._XLA_QDQ_TYPES + [
    "!quant.uniform<u8:f32, 0.05:100>",
    "!quant.uniform<u8<16:235>:f32, 0.1:128>",
    "!quant.uniform<i4:f32, 0.5:1>",
    "!quant.uniform<i32:f32, 0.001:3>",
    "!quant.uniform<i8:f64, 0.1:-3>",
    "!quant.uniform<i16:f16, 0.5:-5>",
    "!quant.uniform<i8:bf16, 0.25:2>",
    "!quant.uniform<i8:f32:0, {0.5:1,0.25:-2,0.1:0,2.0:5}>",
]


def _qdq_inputs():
    rng = np.random.default_rng(3)
    return np.concatenate([
        rng.normal(0, 20, (56, 3)),
        [[0.05, 0.15, 0.25], [-0.05, -0.15, 0.35], [1e6, -1e6, 0], [12.5, 0.5, 1.5], [np.nan, np.inf, -np.inf],
         [0.25, 0.75, -0.25], [1.5, 2.5, -2.5], [63.5, -64.5, 1e-30]],
    ]).astype(np.float32)  # fmt: skip


def _qdq_program(qt: str) -> str:
    """float -> quantize -> (storage out) -> dequantize -> (float out), for any expressed type."""
    q = Q.qtype(qt)
    et = q.expressed_type
    shape = "4x48" if q.quantization_dimension == 0 else "64x3"
    t = f"tensor<{shape}x{qt}>"
    return f"""func.func @main(%x0: tensor<64x3xf32>) -> ({t}, tensor<{shape}x{et}>) {{
  %x1 = stablehlo.reshape %x0 : (tensor<64x3xf32>) -> tensor<{shape}xf32>
  %x = stablehlo.convert %x1 : (tensor<{shape}xf32>) -> tensor<{shape}x{et}>
  %q = stablehlo.uniform_quantize %x : (tensor<{shape}x{et}>) -> {t}
  %d = stablehlo.uniform_dequantize %q : ({t}) -> tensor<{shape}x{et}>
  return %q, %d : {t}, tensor<{shape}x{et}>
}}"""


@pytest.mark.parametrize("qt", QDQ_TYPES)
def test_quantize_dequantize_bit_exact(qt):
    """Spec quantize / dequantize, every storage and expressed type: bit-exact (the same formula, in the
    same type, each step correctly rounded on both sides; NaN -> 0, +-inf clamped)."""
    compare(f"qdq {qt}", _qdq_program(qt), [_qdq_inputs()])


TIE_TYPES = ["!quant.uniform<i16:f32, 0.1:-3>", "!quant.uniform<i16:f32, 0.003:7>", "!quant.uniform<i16:f16, 0.1:-3>",
             "!quant.uniform<i16:bf16, 0.1:-3>", "!quant.uniform<i16:f32:1, {0.1:-3,0.3:0,0.003:7}>"]


@pytest.mark.parametrize("qt", TIE_TYPES)
def test_quantize_at_rounding_ties_bit_exact(qt):
    """x = (k + 1/2) * scale and its neighbours, for 20000 k: the spec's division ``x / scale`` decides
    each tie. XLA CPU would multiply by the reciprocal of a constant divisor (a storage step apart on 15%
    of these values in f32, up to 16 in f16): the lowering keeps the divisor opaque, and every value agrees."""
    q = Q.qtype(qt)
    scales = np.asarray(q.scales, np.float64).astype(q.expressed_dtype).astype(np.float64)
    k = np.arange(-10000, 10000)[:, None]
    x = ((k + 0.5) * scales[None, :]).astype(np.float32)
    x = np.broadcast_to(x, (x.shape[0], 3)) if not q.is_per_axis else x
    x = np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)]).astype(np.float32)
    n, et = x.shape[0], q.expressed_type
    src = f"""func.func @main(%x: tensor<{n}x3xf32>) -> tensor<{n}x3x{qt}> {{
  %c = stablehlo.convert %x : (tensor<{n}x3xf32>) -> tensor<{n}x3x{et}>
  %q = stablehlo.uniform_quantize %c : (tensor<{n}x3x{et}>) -> tensor<{n}x3x{qt}>
  return %q : tensor<{n}x3x{qt}>
}}"""
    compare(f"ties {qt}", src, [np.ascontiguousarray(x)])


REQUANT_SRC = Q.REQUANT_SRC


def test_requantize_per_tensor_to_per_axis_u8():
    x = np.array([[1.0, -2.55, 3.3], [12.75, -20.0, 0.05]], np.float32)
    (q, d, p) = compare("requantize i8 -> u8 per-axis", REQUANT_SRC, [x])
    assert p.dtype == np.uint8


def test_add_with_different_scales():
    rng = np.random.default_rng(4)
    a, b = (rng.normal(0, 4, (8, 4)).astype(np.float32) for _ in range(2))
    compare("add, different scales", Q._ADD_SRC, [a, b])  # f32 add of two dequantized values: exact ops


def test_dot_general_i32_accumulator():
    """The f32 dot product of 16 terms sums in another order on XLA: one step of the i32 accumulator (0.001)."""
    rng = np.random.default_rng(5)
    x, w = rng.normal(0, 2, (8, 16)).astype(np.float32), rng.normal(0, 1, (16, 4)).astype(np.float32)
    compare("dot_general -> i32", Q._DOT_SRC, [x, w], steps={0: 0.001}, bound=1)


@pytest.mark.parametrize("which", ["layer", "model"])
def test_dense_layer(which):
    """dot_general (i32 accumulator) + bias + relu, requantized to i8: the accumulator's one step of
    summation order may survive the requantization at a rounding tie: one i8 step (0.04)."""
    if which == "layer":
        rng = np.random.default_rng(6)
        args = [rng.normal(0, 2, (4, 8)), rng.normal(0, 1, (8, 3)), rng.normal(0, 1, (4, 3))]
        args = [a.astype(np.float32) for a in args]
        (y,) = compare("dense layer", Q._LAYER_SRC, args, steps={0: 0.04}, bound=1)
    else:
        (y,) = compare("dense layer, i8 weights", Q._model_src(), list(Q._model_inputs()), steps={0: 0.04}, bound=1)
    assert (y >= 0).all()


def test_convolution_per_axis_weights_i16_result():
    src = _conv_src()
    x = np.array([[[1.0], [-2.0], [0.5], [3.25], [-0.75]]], np.float32)
    k = np.array([[[3, -8]], [[-5, 16]]], np.int8)
    compare("convolution per-axis -> i16", src, [x, k])  # two-term sums of exact products: exact


def _conv_src() -> str:
    x_t = "tensor<1x5x1x!quant.uniform<i8:f32, 0.25:1>>"
    k_t = "tensor<2x1x2x!quant.uniform<i8:f32:2, {0.5,0.125}>>"
    r_t = "tensor<1x4x2x!quant.uniform<i16:f32:2, {0.0625:0,0.03125:5}>>"
    return f"""func.func @main(%x: tensor<1x5x1xf32>, %k: tensor<2x1x2xi8>) -> {r_t} {{
  %qx = stablehlo.uniform_quantize %x : (tensor<1x5x1xf32>) -> {x_t}
  %qk = stablehlo.bitcast_convert %k : (tensor<2x1x2xi8>) -> {k_t}
  %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {{stride = [1], pad = [[0, 0]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({x_t}, {k_t}) -> {r_t}
  return %c : {r_t}
}}"""


WHILE_T, WHILE_SRC = Q.WHILE_T, Q.WHILE_SRC


@pytest.mark.parametrize("pipeline", [MODULE_PIPELINE, FUNC_PIPELINE], ids=["module", "func.func"])
def test_while_loop_carries_quantized_values(pipeline):
    for v, want in ((5, 40), (20, 127), (-3, -24), (-100, -128)):
        (got,) = compare("while loop", WHILE_SRC, [np.array(v, np.int8)], pipeline=pipeline)
        assert int(got) == want


CALL_T = "tensor<3x!quant.uniform<i8:f32, 0.25:1>>"
CALL_SRC = f"""
func.func @main(%x: tensor<3xf32>, %p: tensor<i1>, %k: tensor<i32>) -> ({CALL_T}, {CALL_T}, tensor<3xf32>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> {CALL_T}
  %s = func.call @square(%q) : ({CALL_T}) -> {CALL_T}
  %i = "stablehlo.if"(%p) ({{
    stablehlo.return %s : {CALL_T}
  }}, {{
    %n = stablehlo.negate %s : {CALL_T}
    stablehlo.return %n : {CALL_T}
  }}) : (tensor<i1>) -> {CALL_T}
  %c = "stablehlo.case"(%k) ({{
    stablehlo.return %q : {CALL_T}
  }}, {{
    %a = stablehlo.abs %i : {CALL_T}
    stablehlo.return %a : {CALL_T}
  }}) : (tensor<i32>) -> {CALL_T}
  %d = func.call @dequantize(%c) : ({CALL_T}) -> tensor<3xf32>
  return %i, %c, %d : {CALL_T}, {CALL_T}, tensor<3xf32>
}}
func.func private @square(%a: {CALL_T}) -> {CALL_T} {{
  %m = stablehlo.multiply %a, %a : {CALL_T}
  return %m : {CALL_T}
}}
func.func private @dequantize(%a: {CALL_T}) -> tensor<3xf32> {{
  %d = stablehlo.uniform_dequantize %a : ({CALL_T}) -> tensor<3xf32>
  return %d : tensor<3xf32>
}}"""


@pytest.mark.parametrize("pipeline", [MODULE_PIPELINE, FUNC_PIPELINE], ids=["module", "func.func"])
def test_calls_if_and_case(pipeline):
    """Quantized function signatures (callee and caller both become storage types), if / case results."""
    x = np.array([1.3, -2.2, 4.75], np.float32)
    for p, k in ((True, 0), (False, 1), (True, 5)):
        compare("func.call, if, case", CALL_SRC, [x, np.array(p), np.array(k, np.int32)], pipeline=pipeline)


def _big_dot_src(rng) -> str:
    x = "!quant.uniform<i8:f32, 0.02:-1>"
    w = "!quant.uniform<i8:f32:1, {%s}>" % ",".join("%.4f" % v for v in rng.uniform(0.001, 0.01, 64))
    a, o = "!quant.uniform<i32:f32, 0.0001>", "!quant.uniform<i8:f32, 0.05:4>"
    return f"""func.func @main(%x: tensor<32x256xf32>, %w: tensor<256x64xi8>) -> (tensor<32x64x{a}>, tensor<32x64x{o}>) {{
  %qx = stablehlo.uniform_quantize %x : (tensor<32x256xf32>) -> tensor<32x256x{x}>
  %qw = stablehlo.bitcast_convert %w : (tensor<256x64xi8>) -> tensor<256x64x{w}>
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<32x256x{x}>, tensor<256x64x{w}>) -> tensor<32x64x{a}>
  %o = stablehlo.uniform_quantize %acc : (tensor<32x64x{a}>) -> tensor<32x64x{o}>
  return %acc, %o : tensor<32x64x{a}>, tensor<32x64x{o}>
}}"""


def test_larger_shapes():
    """A 256-term dot product into an i32 accumulator of fine scale: XLA may sum the f32 products in
    another order, one accumulator step at most (measured: none), which the i8 requantization absorbs
    except at a rounding tie. A 1000-element reduce whose body adds values of one grid: each step
    is an exact integer sum (f32 holds it exactly), so the order of the combination does not matter. A
    3x3 convolution over 16 channels: sums of 144 f32 products, one output step at most."""
    rng = np.random.default_rng(0)
    x, w = rng.normal(0, 1, (32, 256)).astype(np.float32), rng.integers(-127, 128, (256, 64)).astype(np.int8)
    compare("dot_general K=256 -> i32 -> i8", _big_dot_src(rng), [x, w], bound=1)
    s = "tensor<!quant.uniform<i16:f32, 0.01:3>>"
    t = "tensor<16x1000x!quant.uniform<i16:f32, 0.01:3>>"
    src = f"""func.func @main(%x: tensor<16x1000xf32>) -> tensor<16x!quant.uniform<i16:f32, 0.01:3>> {{
  %q = stablehlo.uniform_quantize %x : (tensor<16x1000xf32>) -> {t}
  %z = stablehlo.constant() {{value = dense<3> : tensor<i16>}} : () -> {s}
  %r = stablehlo.reduce(%q init: %z) across dimensions = [1] : ({t}, {s}) -> tensor<16x!quant.uniform<i16:f32, 0.01:3>>
    reducer(%a: {s}, %b: {s}) {{
      %c = stablehlo.add %a, %b : {s}
      stablehlo.return %c : {s}
    }}
  return %r : tensor<16x!quant.uniform<i16:f32, 0.01:3>>
}}"""
    compare("reduce 16x1000, quantized add body", src, [rng.normal(0, 1, (16, 1000)).astype(np.float32)])
    xi = "!quant.uniform<i8:f32, 0.03:2>"
    k = "!quant.uniform<i8:f32:3, {%s}>" % ",".join("%.4f" % v for v in rng.uniform(0.002, 0.01, 8))
    r = "!quant.uniform<i8:f32, 0.08:-5>"
    src = f"""func.func @main(%x: tensor<2x10x10x16xf32>, %k: tensor<3x3x16x8xi8>) -> tensor<2x8x8x8x{r}> {{
  %qx = stablehlo.uniform_quantize %x : (tensor<2x10x10x16xf32>) -> tensor<2x10x10x16x{xi}>
  %qk = stablehlo.bitcast_convert %k : (tensor<3x3x16x8xi8>) -> tensor<3x3x16x8x{k}>
  %c = stablehlo.convolution(%qx, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[0, 0], [0, 0]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<2x10x10x16x{xi}>, tensor<3x3x16x8x{k}>) -> tensor<2x8x8x8x{r}>
  return %c : tensor<2x8x8x8x{r}>
}}"""
    x = rng.normal(0, 1, (2, 10, 10, 16)).astype(np.float32)
    compare("convolution 3x3x16 -> 8", src, [x, rng.integers(-127, 128, (3, 3, 16, 8)).astype(np.int8)], bound=1)


def test_hybrid_dot_general_and_convolution():
    """Float lhs, quantized rhs: only the rhs is dequantized; float results (f32 sums in another order on
    XLA: a few ULPs, here measured in units of 2^-20 of the result's magnitude)."""
    src = Q.HYBRID_SRC
    rng = np.random.default_rng(2)
    args = [rng.normal(size=(2, 3)).astype(np.float32), rng.integers(-128, 128, (3, 2)).astype(np.int8),
            rng.normal(size=(1, 4, 4, 1)).astype(np.float32), rng.integers(-8, 8, (2, 1, 1, 2)).astype(np.int8)]
    want = hlokit.interpret(src, args)
    got = backend.compile(lower(src), platform="cpu")(*args)
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == np.float32
        ulp = np.abs(g.astype(np.float64) - w) / np.spacing(np.abs(w).astype(np.float32)).astype(np.float64)
        worst = max(worst, float(ulp.max()))
    # three-term (dot) and two-term (convolution) f32 sums: 2 roundings each side
    assert worst <= 4, worst


def test_data_movement_per_axis_dimension_moves():
    a_t = "tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>"
    t_t = "tensor<3x2x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>>"
    p_t = "tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>"
    r_t = "tensor<6x!quant.uniform<i8:f32, 0.5:1>>"
    s_t = "tensor<4x!quant.uniform<i8:f32, 0.5:1>>"
    src = f"""
func.func @main(%a: {a_t}) -> ({t_t}, tensor<3x2xf32>, {r_t}, {s_t}, tensor<8x!quant.uniform<i8:f32, 0.5:1>>) {{
  %t = stablehlo.transpose %a, dims = [1, 0] : ({a_t}) -> {t_t}
  %d = stablehlo.uniform_dequantize %t : ({t_t}) -> tensor<3x2xf32>
  %p = stablehlo.uniform_quantize %a : ({a_t}) -> {p_t}
  %r = stablehlo.reshape %p : ({p_t}) -> {r_t}
  %s = stablehlo.slice %r [1:5] : ({r_t}) -> {s_t}
  %rev = stablehlo.reverse %s, dims = [0] : {s_t}
  %c = stablehlo.concatenate %rev, %rev, dim = 0 : ({s_t}, {s_t}) -> tensor<8x!quant.uniform<i8:f32, 0.5:1>>
  return %t, %d, %r, %rev, %c : {t_t}, tensor<3x2xf32>, {r_t}, {s_t}, tensor<8x!quant.uniform<i8:f32, 0.5:1>>
}}"""
    a = np.array([[10, -20, 30], [40, 50, -60]], np.int8)
    t, *_ = compare("data movement, per-axis", src, [a])
    np.testing.assert_array_equal(t, a.T)


def test_compare_select_clamp_and_reduce():
    src = Q.COMPARE_SELECT_SRC
    a = np.array([0, 4, 10, -50], np.int8)
    b = np.array([0, 8, 20, 100], np.int8)
    compare("compare, select, clamp, reduce", src, [a, b])  # every step exact (small integers, scale 0.5)


def test_region_ops_sort_reduce_window_scatter_map():
    src = Q.REGION_OPS_SRC
    compare("sort, reduce_window, scatter, map", src, [np.array([3, -7, 20, 5, 11, -2], np.int8)])


#: XLA CPU rounds these f32 ops correctly, as numpy does: bit-exact
EXACT_ELEMENTWISE = {"abs", "ceil", "floor", "negate", "round_nearest_afz", "round_nearest_even", "sign", "sqrt",
                     "add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder"}


@pytest.mark.parametrize("name", sorted(Q._UNARY) + sorted(Q._BINARY))
def test_elementwise_ops(name):
    """dequantize -> op -> quantize for every elementwise op: exact for correctly rounded ops; for the
    transcendental ones XLA's f32 kernels and numpy's may differ by an ULP, one storage step at most."""
    rng = np.random.default_rng(5)
    positive = name in ("log", "log_plus_one", "sqrt", "rsqrt", "power")
    x = (rng.uniform(0.1, 2.5, 64) if positive else rng.uniform(-2.5, 2.5, 64)).astype(np.float32)
    y = rng.uniform(0.5, 2.5, 64).astype(np.float32)
    arity = 1 if name in Q._UNARY else 2
    compare(f"elementwise {name}", Q._elementwise_src(name, arity), [x, y], bound=0 if name in EXACT_ELEMENTWISE else 1)


def test_is_finite_reduce_precision_negate():
    t = "tensor<4x!quant.uniform<i8:f32, 0.3:1>>"
    src = f"""func.func @main(%a: {t}) -> (tensor<4xi1>, {t}, {t}) {{
  %f = stablehlo.is_finite %a : ({t}) -> tensor<4xi1>
  %r = stablehlo.reduce_precision %a, format = e5m2 : {t}
  %n = stablehlo.negate %a : {t}
  return %f, %r, %n : tensor<4xi1>, {t}, {t}
}}"""
    compare("is_finite, reduce_precision, negate", src, [np.array([-128, 0, 37, 127], np.int8)])


def test_dynamic_shapes():
    """A dynamic dimension: the splat parameters are broadcast to the runtime shape. XLA takes static
    signatures only: the lowered program runs on the interpreter, bit-exact against the original."""
    src = """func.func @main(%x: tensor<?x3xf32>) -> (tensor<?x3x!quant.uniform<i8:f32:1, {0.1:-3,0.2:4,0.5:0}>>, tensor<?x3xf32>) {
  %q = stablehlo.uniform_quantize %x : (tensor<?x3xf32>) -> tensor<?x3x!quant.uniform<i8:f32, 0.1:-3>>
  %p = stablehlo.uniform_quantize %q : (tensor<?x3x!quant.uniform<i8:f32, 0.1:-3>>) -> tensor<?x3x!quant.uniform<i8:f32:1, {0.1:-3,0.2:4,0.5:0}>>
  %d = stablehlo.uniform_dequantize %p : (tensor<?x3x!quant.uniform<i8:f32:1, {0.1:-3,0.2:4,0.5:0}>>) -> tensor<?x3xf32>
  return %p, %d : tensor<?x3x!quant.uniform<i8:f32:1, {0.1:-3,0.2:4,0.5:0}>>, tensor<?x3xf32>
}"""
    x = _qdq_inputs()
    want = hlokit.interpret(src, [x])
    low = lower(src)
    assert "get_dimension_size" in low and "dynamic_broadcast_in_dim" in low
    got = hlokit.interpret(low, [x])
    for g, w in zip(got, want):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()


# ------------------------------------------------------------------------------------------------
# (b) against upstream's C++ pass (an oracle, in a subprocess)


def test_same_results_as_upstream_on_qdq_programs():
    """Upstream clamps u8 storage to the i8 range (see test_interpreter_quantization.py), so the common
    ground is signed storage with f32 (per-axis along the last dimension: upstream lowers other axes to
    ``chlo.broadcast_divide`` that XLA refuses): ours and upstream's lowerings give the same bits on XLA."""
    types = Q._XLA_QDQ_TYPES
    sources = [_qdq_program(qt) for qt in types]
    upstream = Q._lower_upstream(sources)
    x = _qdq_inputs()
    finite = np.where(np.isfinite(x), x, 0).astype(np.float32)  # NaN -> storage is unspecified upstream
    for qt, src, up in zip(types, sources, upstream):
        ours = backend.compile(lower(src), platform="cpu")(finite)
        theirs = backend.compile(up, platform="cpu")(finite)
        for o, t in zip(ours, theirs):
            np.testing.assert_array_equal(np.asarray(o), np.asarray(t), err_msg=qt)


# ------------------------------------------------------------------------------------------------
# (c) our pass runs for the flag and in --pass-pipeline

_UPSTREAM_TEXT = """
import sys
from jaxlib.mlir import passmanager
import hlokit
m = hlokit.parse(sys.stdin.read())
with m.context:
    passmanager.PassManager.parse("builtin.module(func.func(stablehlo-legalize-quant-to-math))").run(m.operation)
print(m)
"""


def test_ours_runs_not_upstream(tmp_path):
    """Upstream's lowering of a dequantize never writes our NaN guard (``compare NE x, x`` before the
    conversion to storage) and ours never writes upstream's; hlokit-opt with the flag and inside
    --pass-pipeline (module and func.func anchors) gives our text."""
    src = _qdq_program("!quant.uniform<i8:f32, 0.1:-3>")
    upstream = subprocess.run([sys.executable, "-c", _UPSTREAM_TEXT], input=src, capture_output=True, text=True,
                              check=True, env=dict(os.environ, JAX_PLATFORMS="cpu")).stdout
    assert "!quant" not in upstream and "stablehlo.compare  NE" not in upstream and "compare NE" not in upstream
    ours = lower(src)
    assert "compare NE" in ours
    path = tmp_path / "q.mlir"
    path.write_text(src)
    for flags in ([f"--{FLAG}"], [f"--pass-pipeline={MODULE_PIPELINE}"], [f"--pass-pipeline={FUNC_PIPELINE}"]):
        out = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", str(path), *flags],
                             capture_output=True, text=True, check=True).stdout
        assert "!quant" not in out and "compare NE" in out, (flags, out)
        assert out == ours, flags


def test_registered_under_upstream_name():
    from hlokit.passes import get_pass
    from hlokit.passes.stablehlo_legalize_quant_to_math import StablehloLegalizeQuantToMath

    assert get_pass(FLAG) is StablehloLegalizeQuantToMath


# ------------------------------------------------------------------------------------------------
# (d) hlokit-run --engine both


def test_hlokit_run_engine_both_on_a_quantized_program():
    example = REPO / "examples" / "quantized_mlp.mlir"
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", str(example), "--engine", "both"],
                          capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"legalized quantized types for XLA ({FLAG})" in out, out
    comparisons = [line for line in out.splitlines() if "interpreter vs XLA" in line]
    assert len(comparisons) == 2, out
    assert all("max 0 ULP" in line for line in comparisons), out
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", str(example)],
                          capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"legalized quantized types for XLA ({FLAG})\n" in proc.stdout, proc.stdout
    assert "output_1: shape=4x8 dtype=int8" in proc.stdout, proc.stdout  # quantized result: storage values


def test_hlokit_run_xla_takes_quantized_arguments_as_storage(tmp_path):
    src = tmp_path / "arg.mlir"
    src.write_text(f"""func.func @main(%a: tensor<2x{Q.Q8}>) -> tensor<2xf32> {{
  %d = stablehlo.uniform_dequantize %a : (tensor<2x{Q.Q8}>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}}""")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg_0=np.array([7, -28], np.int8))
    outputs = tmp_path / "out.npz"
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", str(src), "--engine", "both",
                           "--inputs", str(inputs), "--output", str(outputs), "--max-ulp", "0"],
                          capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "arg_0: tensor<2xi8>" in proc.stdout or "int8" in proc.stdout, proc.stdout
    np.testing.assert_allclose(np.load(outputs)["output_0"], [1.0, -2.5], rtol=1e-6)


def test_tuples_of_quantized_tensors():
    q = "tensor<4x!quant.uniform<i8:f32, 0.5:-1>>"
    t = f"tuple<{q}, tensor<4xf32>>"
    src = f"""func.func @pack(%q: {q}, %x: tensor<4xf32>) -> {t} {{
  %t = stablehlo.tuple %q, %x : {t}
  return %t : {t}
}}

func.func @main(%x: tensor<4xf32>) -> ({q}, tensor<4xf32>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> {q}
  %t = func.call @pack(%q, %x) : ({q}, tensor<4xf32>) -> {t}
  %e = stablehlo.get_tuple_element %t[0] : ({t}) -> {q}
  %s = stablehlo.add %e, %e : {q}
  %d = stablehlo.uniform_dequantize %s : ({q}) -> tensor<4xf32>
  return %s, %d : {q}, tensor<4xf32>
}}
"""
    low = lower(src)
    assert "tuple<tensor<4xi8>, tensor<4xf32>>" in low, low
    compare("tuple", src, [np.array([1.0, -2.2, 3.7, 60.0], np.float32)])


# ------------------------------------------------------------------------------------------------
# (e) refused programs


@pytest.mark.parametrize("pipeline", [MODULE_PIPELINE, FUNC_PIPELINE], ids=["module", "func.func"])
def test_unsupported_quantized_type_is_a_located_error(pipeline):
    src = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}

func.func @other(%x: tensor<2xf32>) -> tensor<*x!quant.uniform<i8:f32, 0.5>> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %u = "tensor.cast"(%q) : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<*x!quant.uniform<i8:f32, 0.5>>
  return %u : tensor<*x!quant.uniform<i8:f32, 0.5>>
}
"""
    m = hlokit.parse(src, context=hlokit.make_context(), source_name="bad.mlir")
    before = str(m)
    with pytest.raises(PassError) as info:
        run_pipeline(m, pipeline, source_name="bad.mlir")
    text = str(info.value)
    assert "bad.mlir:7:1:" in text and "ranked tensors only" in text, text
    assert m.operation.verify()
    assert str(m) == before  # every function checked first, nested in func.func(...) too: nothing changed


@pytest.mark.parametrize("pipeline", [MODULE_PIPELINE, FUNC_PIPELINE], ids=["module", "func.func"])
def test_a_refused_caller_keeps_its_callee_unchanged(pipeline):
    # rewriting @callee alone would change its signature under the call in @caller, which is refused
    q = "tensor<4x!quant.uniform<i8:f32, 0.5>>"
    src = f"""func.func @callee(%x: {q}) -> {q} {{
  %0 = stablehlo.add %x, %x : {q}
  return %0 : {q}
}}

func.func @caller(%x: {q}) -> {q} {{
  %0 = func.call @callee(%x) : ({q}) -> {q}
  %1 = "tensor.cast"(%0) : ({q}) -> tensor<*x!quant.uniform<i8:f32, 0.5>>
  %2 = "tensor.cast"(%1) : (tensor<*x!quant.uniform<i8:f32, 0.5>>) -> {q}
  return %2 : {q}
}}
"""
    m = hlokit.parse(src, context=hlokit.make_context(), source_name="calls.mlir")
    before = str(m)
    # (refused inside the function's body: a PassError, not the RuntimeError the bindings make of an
    # exception raised in a walk callback)
    with pytest.raises(PassError, match="calls.mlir:8:8: .*ranked tensors only"):
        run_pipeline(m, pipeline, source_name="calls.mlir")
    hlokit.verify(m)
    assert str(m) == before


@pytest.mark.parametrize("qt, message", [
    ("tensor<*x!quant.uniform<i8:f32, 0.5>>", "ranked tensors only"),
    ("tensor<2x!quant.any<i8:f32>>", "not a !quant.uniform type"),
], ids=["unranked", "quant.any"])
def test_unsupported_error_from_hlokit_opt(tmp_path, qt, message):
    path = tmp_path / "bad.mlir"
    path.write_text(f"""func.func @main(%x: {qt}) -> {qt} {{
  return %x : {qt}
}}
""")
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", str(path), f"--{FLAG}"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{path}:1:1: error: {FLAG}: " in proc.stderr and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("tool", ["hlokit_opt", "hlokit_run"])
def test_a_refusal_inside_a_function_body_is_a_located_error_from_the_tools(tmp_path, tool):
    q = "tensor<4x!quant.uniform<i8:f32, 0.5>>"
    u = "tensor<*x!quant.uniform<i8:f32, 0.5>>"
    path = tmp_path / "body.mlir"
    path.write_text(f"""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> {q}
  %u = "tensor.cast"(%q) : ({q}) -> {u}
  %r = "tensor.cast"(%u) : ({u}) -> {q}
  %d = stablehlo.uniform_dequantize %r : ({q}) -> tensor<4xf32>
  return %d : tensor<4xf32>
}}
""")
    args = [f"--{FLAG}"] if tool == "hlokit_opt" else ["--engine", "both"]
    proc = subprocess.run([sys.executable, "-m", f"hlokit.tools.{tool}", str(path), *args],
                          capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{path}:3:8: error: {FLAG}: "), proc.stderr
    assert "ranked tensors only" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


# ------------------------------------------------------------------------------------------------
# measurements


def test_pass_time_on_the_example(capsys):
    text = (REPO / "examples" / "quantized_mlp.mlir").read_text()
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, MODULE_PIPELINE)  # warm: templates parsed once per context
    times = []
    for _ in range(5):
        m = hlokit.parse(text, context=hlokit.make_context())
        t0 = time.perf_counter()
        run_pipeline(m, MODULE_PIPELINE)
        times.append(time.perf_counter() - t0)
    assert "!quant" not in str(m)
    with capsys.disabled():  # one line of measurements (cases of this module that ran before this test)
        worst = max(MEASURED.values(), default=0.0)
        print(f"\n{FLAG}: examples/quantized_mlp.mlir in {1e3 * min(times):.2f} ms (best of 5, fresh context); "
              f"{len(MEASURED)} cases vs XLA, largest difference {worst:g} storage steps")
