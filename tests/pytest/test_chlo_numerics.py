"""Numerics of chlo-legalize-to-stablehlo: ours vs XLA's own lowering of the original CHLO program.

For every elementwise op x element type, a small sweep (grid + random + edge values) is run through
(a) our legalized program and (b) the original CHLO program on XLA CPU. Both are measured in ULPs
of the result type against a float64 reference (scipy / numpy); ours must be no worse than XLA's
lowering (up to a small floor that covers the reference's own error). Integer / boolean ops must
agree exactly, and NaN / infinity positions must match XLA's.
"""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest
import scipy.special as sc

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes import run_pipeline

# the f64 kernels (precision=wide); the f32 kernels are tested in test_chlo_native_*.py
PIPELINE = "builtin.module(func.func(chlo-legalize-to-stablehlo{precision=wide}))"
DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
          "complex<f32>": np.complex64, "complex<f64>": np.complex128}
REAL = ["f16", "bf16", "f32", "f64"]
COMPLEX = ["complex<f32>", "complex<f64>"]


@pytest.fixture(scope="module")
def ctx():
    return hlokit.make_context()


def _unary_program(op: str, t: str, n: int, rt: str | None = None) -> str:
    rt = rt or t
    return (f"func.func @main(%a: tensor<{n}x{t}>) -> tensor<{n}x{rt}> {{\n"
            f"  %0 = chlo.{op} %a : tensor<{n}x{t}> -> tensor<{n}x{rt}>\n"
            f"  return %0 : tensor<{n}x{rt}>\n}}\n")


def _binary_program(op: str, t: str, n: int) -> str:
    return (f"func.func @main(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
            f"  %0 = chlo.{op} %a, %b : tensor<{n}x{t}>, tensor<{n}x{t}> -> tensor<{n}x{t}>\n"
            f"  return %0 : tensor<{n}x{t}>\n}}\n")


def run_both(ctx, text: str, *args):
    """(ours, native): the legalized program and the original, both compiled by XLA CPU."""
    native = xla_compile(hlokit.parse(text, context=ctx))(*args)
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    assert "chlo." not in str(module)
    ours = xla_compile(module)(*args)
    return ours, native


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    """|got - ref| in ULPs of ``dtype`` at ref (NaN vs NaN = 0; mismatched inf/NaN = inf)."""
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    out = np.zeros(got.shape)
    both_nan = np.isnan(got) & np.isnan(ref)
    special = ~np.isfinite(got) | ~np.isfinite(ref)
    rounded = np.asarray(ref.astype(dtype), np.float64)
    special |= ~np.isfinite(rounded)
    out[special] = np.where(got[special] == rounded[special], 0.0, np.inf)
    out[both_nan] = 0.0
    fin = ~special
    mag = np.abs(rounded[fin]).astype(dtype)
    ulp = np.asarray(np.spacing(mag), np.float64)
    fi = ml_dtypes.finfo(dtype)
    tiny = float(fi.tiny)  # XLA CPU flushes subnormals
    ulp = np.maximum(ulp, tiny * float(fi.eps))
    out[fin] = np.abs(got[fin] - ref[fin]) / ulp
    # XLA flushes subnormal results to zero: not an error of either lowering
    out[fin & (np.abs(ref) < tiny) & (got == 0)] = 0.0
    return out


def _sweep(dtype, lo=-10.0, hi=10.0, n=160, extra=()):
    rng = np.random.default_rng(1234)
    xs = np.concatenate([
        np.linspace(lo, hi, n),
        rng.uniform(lo, hi, n // 2),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-5, -1e-5],
        list(extra),
    ])
    with np.errstate(over="ignore"):
        return xs.astype(dtype)


REAL_CASES = {
    # op: (reference on float64, sweep range, extra points)
    "erf": (sc.erf, (-6, 6), ()),
    # scipy's erfc is ~440 ULP off near x = 24 (exp(-x*x) rounding): mpmath is the reference
    "erfc": (np.vectorize(lambda x: float(mpmath.erfc(x)) if np.isfinite(x) else sc.erfc(x)), (-6, 27),
             (9.0, 10.0, 20.0, 24.50943396226415)),
    "erf_inv": (sc.erfinv, (-1, 1), (0.999999, -0.99999, 1 - 2.0 ** -20)),
    "lgamma": (sc.gammaln, (-6.9, 10), (1.0, 2.0, 0.999, 1.001, 2.001, 1e10, -2.5)),
    "digamma": (sc.psi, (-5.9, 12), (1.4616321449683622, 1e-3, 100.0)),
    "bessel_i1e": (sc.i1e, (-40, 40), (100.0, -700.0)),
    "sinh": (np.sinh, (-12, 12), (0.1, -1e-3, 88.0, 700.0)),
    "cosh": (np.cosh, (-12, 12), (0.1, 88.0, 89.0, 700.0)),
    "tan": (np.tan, (-10, 10), (1.5707963, 1e-3)),
    "asin": (np.arcsin, (-1.2, 1.2), (0.999999, 1e-7)),
    "acos": (np.arccos, (-1.2, 1.2), (0.999999, -0.999999)),
    "atan": (np.arctan, (-20, 20), (1e10, -1e-8)),
    "asinh": (np.arcsinh, (-20, 20), (1e10, 1e-8, 1e300)),
    "acosh": (np.arccosh, (0.5, 20), (1.0000001, 1e10, 1e300)),
    "atanh": (np.arctanh, (-1.1, 1.1), (0.999999, -0.41, 1e-8)),
    "square": (np.square, (-1e3, 1e3), (1e20, 1e-20)),
}


@pytest.mark.parametrize("t", REAL)
@pytest.mark.parametrize("op", sorted(REAL_CASES))
def test_real_unary_no_worse_than_xla(ctx, op, t):
    ref_fn, (lo, hi), extra = REAL_CASES[op]
    dtype = DTYPES[t]
    xs = _sweep(dtype, lo, hi, extra=extra)
    (ours,), (native,) = run_both(ctx, _unary_program(op, t, xs.size), xs)
    with np.errstate(all="ignore"):
        ref = ref_fn(np.asarray(xs, np.float64))
    if op == "lgamma":  # lgamma(+-inf) = +inf, poles = +inf
        ref = np.where(np.isinf(np.asarray(xs, np.float64)), np.inf, ref)
    if op == "digamma":  # XLA: NaN at the poles 0, -1, -2, ...
        x64 = np.asarray(xs, np.float64)
        ref = np.where((x64 <= 0) & (x64 == np.floor(x64)), np.nan, ref)
    e_ours = ulp_error(ours, ref, dtype)
    e_native = ulp_error(native, ref, dtype)
    floor = 1.0 if t != "f64" else 4.0
    worst = int(np.argmax(e_ours))
    assert e_ours.max() <= max(e_native.max(), floor), (
        f"{op} {t}: ours {e_ours.max():.3g} ULP at x={xs[worst]!r} (got {ours[worst]!r}, ref {ref[worst]!r}); "
        f"XLA {e_native.max():.3g} ULP")
    # NaN where XLA's lowering gives NaN and the reference agrees
    assert np.array_equal(np.isnan(np.asarray(ours, np.float64)), np.isnan(ref)), f"{op} {t}: NaN pattern"


COMPLEX_CASES = {"asin": np.arcsin, "acos": np.arccos, "asinh": np.arcsinh, "acosh": np.arccosh,
                 "atan": np.arctan, "atanh": np.arctanh, "sinh": np.sinh, "cosh": np.cosh, "tan": np.tan,
                 "square": np.square, "conj": np.conj}


def _complex_grid(dtype):
    vals = np.array([-3.0, -1.5, -1.0, -0.5, -1e-3, 0.0, 1e-4, 0.3, 0.9, 1.0, 1.1, 2.5, 7.0])
    z = (vals[:, None] + 1j * vals[None, :]).ravel()
    return z.astype(dtype)


def _complex_ulp(got, ref, rdtype):
    return np.maximum(ulp_error(got.real, ref.real, rdtype), ulp_error(got.imag, ref.imag, rdtype))


@pytest.mark.parametrize("t", COMPLEX)
@pytest.mark.parametrize("op", sorted(COMPLEX_CASES))
def test_complex_unary_no_worse_than_xla(ctx, op, t):
    dtype = DTYPES[t]
    rdtype = np.float32 if dtype == np.complex64 else np.float64
    zs = _complex_grid(dtype)
    (ours,), (native,) = run_both(ctx, _unary_program(op, t, zs.size), zs)
    ref = COMPLEX_CASES[op](zs.astype(np.complex128))
    # numpy's own error is a few ULP of f64; measure off the real/imag axes, where signed-zero
    # conventions of the reference do not matter
    keep = (zs.real != 0) & (zs.imag != 0)
    e_ours = _complex_ulp(ours[keep], ref[keep], rdtype)
    e_native = _complex_ulp(native[keep], ref[keep], rdtype)
    # components far below the other component carry no relative accuracy in numpy's reference
    floor = 2.0 if rdtype == np.float32 else 16.0
    big = np.maximum(np.abs(ref[keep].real), np.abs(ref[keep].imag))
    relevant = (np.abs(ref[keep].real) > 1e-6 * big) & (np.abs(ref[keep].imag) > 1e-6 * big)
    assert e_ours[relevant].max() <= max(e_native[relevant].max(), floor), (
        f"{op} {t}: ours {e_ours[relevant].max():.3g} ULP, XLA {e_native[relevant].max():.3g} ULP")


@pytest.mark.parametrize("t", REAL)
def test_binary_special(ctx, t):
    dtype = DTYPES[t]
    rng = np.random.default_rng(7)
    x = rng.uniform(1.5, 8.0, 64).astype(dtype)
    q = rng.uniform(0.2, 6.0, 64).astype(dtype)
    n = rng.integers(0, 5, 64).astype(dtype)
    (oz,), (nz,) = run_both(ctx, _binary_program("zeta", t, 64), x, q)
    rz = sc.zeta(np.asarray(x, np.float64), np.asarray(q, np.float64))
    assert ulp_error(oz, rz, dtype).max() <= max(ulp_error(nz, rz, dtype).max(), 4.0 if t == "f64" else 1.0)
    (op_,), (np_,) = run_both(ctx, _binary_program("polygamma", t, 64), n, q)
    rp = sc.polygamma(np.asarray(n, np.float64).astype(int), np.asarray(q, np.float64))
    assert ulp_error(op_, rp, dtype).max() <= max(ulp_error(np_, rp, dtype).max(), 8.0 if t == "f64" else 1.0)


@pytest.mark.parametrize("t", REAL)
def test_next_after_and_predicates_exact(ctx, t):
    dtype = DTYPES[t]
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-3, 3.5, -2.25], dtype)
    a = np.repeat(vals, vals.size)
    b = np.tile(vals, vals.size)
    (ours,), (native,) = run_both(ctx, _binary_program("next_after", t, a.size), a, b)
    assert np.array_equal(ours.view(np.uint8), native.view(np.uint8)) or np.array_equal(ours, native, equal_nan=True)
    for op in ("is_inf", "is_pos_inf", "is_neg_inf"):
        (o,), (n,) = run_both(ctx, _unary_program(op, t, vals.size, "i1"), vals)
        assert np.array_equal(o, n), op


@pytest.mark.parametrize("t", ["i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"])
def test_mulhi_integers_exact(ctx, t):
    info = np.iinfo(np.dtype(t.replace("ui", "uint").replace("i", "int") if t.startswith("i") else t.replace("ui", "uint")))
    rng = np.random.default_rng(3)
    dtype = info.dtype
    a = np.concatenate([rng.integers(info.min, info.max, 60, dtype=dtype, endpoint=True), [info.min, info.max, 0, 1]]).astype(dtype)
    b = np.concatenate([rng.integers(info.min, info.max, 60, dtype=dtype, endpoint=True), [info.min, info.max, -1 if info.min < 0 else 2, info.max]]).astype(dtype)
    text = (f"func.func @main(%a: tensor<64x{t}>, %b: tensor<64x{t}>) -> tensor<64x{t}> {{\n"
            f'  %0 = "chlo.mulhi"(%a, %b) : (tensor<64x{t}>, tensor<64x{t}>) -> tensor<64x{t}>\n'
            f"  return %0 : tensor<64x{t}>\n}}\n")
    ours, native = run_both(ctx, text, a, b)
    big = [int(x) * int(y) >> (8 * dtype.itemsize) for x, y in zip(a, b)]
    expected = np.array([v & ((1 << (8 * dtype.itemsize)) - 1) for v in big], np.uint64).astype(dtype)
    assert np.array_equal(ours[0], expected)
    assert np.array_equal(ours[0], native[0])


def test_broadcast_family_exact(ctx):
    text = """func.func @main(%a: tensor<3x4xf32>, %b: tensor<4xf32>, %i: tensor<3x1xi32>, %j: tensor<4xi32>, %p: tensor<4xi1>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<3x4xf32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>,
        tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xcomplex<f32>>, tensor<3x4xf32>) {
  %0 = chlo.broadcast_add %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = chlo.broadcast_subtract %b, %a : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = chlo.broadcast_multiply %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %3 = chlo.broadcast_divide %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %4 = chlo.broadcast_maximum %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %5 = chlo.broadcast_minimum %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %6 = chlo.broadcast_power %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %7 = chlo.broadcast_remainder %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %8 = chlo.broadcast_and %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %9 = chlo.broadcast_or %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %10 = chlo.broadcast_xor %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %11 = chlo.broadcast_shift_left %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %12 = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %13 = chlo.broadcast_shift_right_logical %i, %j : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  %14 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GE>} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %15 = chlo.broadcast_atan2 %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %16 = chlo.broadcast_complex %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xcomplex<f32>>
  %17 = chlo.broadcast_select %p, %a, %b : (tensor<4xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<3x4xf32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>, tensor<3x4xi32>,
        tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xcomplex<f32>>, tensor<3x4xf32>
}
"""
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 3, (3, 4)).astype(np.float32)
    b = rng.uniform(-2, 2, 4).astype(np.float32)
    i = rng.integers(-100, 100, (3, 1)).astype(np.int32)
    j = rng.integers(0, 8, 4).astype(np.int32)
    p = np.array([True, False, True, False])
    ours, native = run_both(ctx, text, a, b, i, j, p)
    for k, (o, n) in enumerate(zip(ours, native)):
        assert np.array_equal(o, n, equal_nan=True), k
    assert np.array_equal(ours[0], a + b)


@pytest.mark.parametrize("t", ["f32", "bf16", "i32"])
def test_top_k_matches_xla(ctx, t):
    dtype = DTYPES.get(t, np.int32)
    rng = np.random.default_rng(9)
    x = rng.integers(-5, 5, (4, 9)).astype(dtype)  # ties: lower index first
    if t != "i32":
        x[0, 3] = np.nan
        x[1, 2] = np.inf
    text = (f"func.func @main(%x: tensor<4x9x{t}>) -> (tensor<4x3x{t}>, tensor<4x3xi32>) {{\n"
            f"  %0:2 = chlo.top_k(%x, k = 3) : tensor<4x9x{t}> -> (tensor<4x3x{t}>, tensor<4x3xi32>)\n"
            f"  return %0#0, %0#1 : tensor<4x3x{t}>, tensor<4x3xi32>\n}}\n")
    ours, native = run_both(ctx, text, x)
    assert np.array_equal(ours[0], native[0], equal_nan=True)
    assert np.array_equal(ours[1], native[1])


def test_ragged_dot_against_numpy(ctx):
    text = """func.func @main(%l: tensor<9x3xf32>, %r: tensor<3x3x5xf32>, %g: tensor<3xi32>) -> tensor<9x5xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<9x3xf32>, tensor<3x3x5xf32>, tensor<3xi32>) -> tensor<9x5xf32>
  return %0 : tensor<9x5xf32>
}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    rng = np.random.default_rng(2)
    lhs = rng.standard_normal((9, 3)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 5)).astype(np.float32)
    sizes = np.array([2, 0, 5], np.int32)  # rows 7, 8 belong to no group: zero
    (out,) = xla_compile(module)(lhs, rhs, sizes)
    expected = np.zeros((9, 5), np.float32)
    expected[0:2] = lhs[0:2] @ rhs[0]
    expected[2:7] = lhs[2:7] @ rhs[2]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("per_batch_sizes", [False, True])
def test_ragged_dot_with_batch_dimensions_against_numpy(ctx, per_batch_sizes):
    """Mode 1 with batching: lhs [b, m, k], rhs [g, b, k, n]; group_sizes [g] or [b, g]."""
    gt = "tensor<2x3xi32>" if per_batch_sizes else "tensor<3xi32>"
    text = f"""func.func @main(%l: tensor<2x9x4xf32>, %r: tensor<3x2x4x5xf32>, %g: {gt}) -> tensor<2x9x5xf32> {{
  %0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>}} : (tensor<2x9x4xf32>, tensor<3x2x4x5xf32>, {gt}) -> tensor<2x9x5xf32>
  return %0 : tensor<2x9x5xf32>
}}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    assert "chlo." not in hlokit.print_module(module)
    rng = np.random.default_rng(3)
    lhs = rng.standard_normal((2, 9, 4)).astype(np.float32)
    rhs = rng.standard_normal((3, 2, 4, 5)).astype(np.float32)
    sizes = np.array([[3, 1, 4], [0, 6, 2]], np.int32) if per_batch_sizes else np.array([3, 1, 4], np.int32)
    (out,) = xla_compile(module)(lhs, rhs, sizes)
    expected = np.zeros((2, 9, 5), np.float32)
    for b in range(2):
        row = 0
        for j, size in enumerate(sizes[b] if per_batch_sizes else sizes):
            expected[b, row : row + size] = lhs[b, row : row + size] @ rhs[j, b]
            row += size
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_ragged_dot_group_sizes_per_leading_free_dimension(ctx):
    """Mode 1, lhs [4, 6, 3] (free, ragged, contracting): group_sizes [4, g] vary along the free dim."""
    text = """func.func @main(%l: tensor<4x6x3xf32>, %r: tensor<2x3x5xf32>, %g: tensor<4x2xi32>) -> tensor<4x6x5xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : (tensor<4x6x3xf32>, tensor<2x3x5xf32>, tensor<4x2xi32>) -> tensor<4x6x5xf32>
  return %0 : tensor<4x6x5xf32>
}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    rng = np.random.default_rng(4)
    lhs = rng.standard_normal((4, 6, 3)).astype(np.float32)
    rhs = rng.standard_normal((2, 3, 5)).astype(np.float32)
    sizes = np.array([[1, 5], [0, 6], [3, 2], [6, 0]], np.int32)
    (out,) = xla_compile(module)(lhs, rhs, sizes)
    expected = np.zeros((4, 6, 5), np.float32)
    for i in range(4):
        row = 0
        for j in range(2):
            expected[i, row : row + sizes[i, j]] = lhs[i, row : row + sizes[i, j]] @ rhs[j]
            row += sizes[i, j]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("batched", [False, True])
def test_ragged_dot_contracting_mode_against_numpy(ctx, batched):
    """Mode 2: the ragged dimension k is contracted; result[j] = lhs[..., k in group j] @ rhs[k in group j]."""
    if batched:  # lhs [b, m, k], rhs [b, k, n], group_sizes [b, g] -> [g, b, m, n]
        lt, rt_, gt, ot = "tensor<2x3x7xf32>", "tensor<2x7x4xf32>", "tensor<2x3xi32>", "tensor<3x2x3x4xf32>"
        dn = ("lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
              "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2], rhs_group_dimensions = []")
    else:  # lhs [m, k], rhs [k, n], group_sizes [g] -> [g, m, n]
        lt, rt_, gt, ot = "tensor<3x7xf32>", "tensor<7x4xf32>", "tensor<3xi32>", "tensor<3x3x4xf32>"
        dn = ("lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
              "rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []")
    text = f"""func.func @main(%l: {lt}, %r: {rt_}, %g: {gt}) -> {ot} {{
  %0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<{dn}>}} : ({lt}, {rt_}, {gt}) -> {ot}
  return %0 : {ot}
}}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    assert "chlo." not in hlokit.print_module(module)
    rng = np.random.default_rng(5)
    if batched:
        lhs = rng.standard_normal((2, 3, 7)).astype(np.float32)
        rhs = rng.standard_normal((2, 7, 4)).astype(np.float32)
        sizes = np.array([[2, 0, 4], [3, 3, 1]], np.int32)  # batch 0 leaves k = 6 in no group
    else:
        lhs = rng.standard_normal((1, 3, 7)).astype(np.float32)
        rhs = rng.standard_normal((1, 7, 4)).astype(np.float32)
        sizes = np.array([[2, 0, 4]], np.int32)
    (out,) = xla_compile(module)(lhs if batched else lhs[0], rhs if batched else rhs[0], sizes if batched else sizes[0])
    expected = np.zeros((3, len(sizes), 3, 4), np.float32)
    for b in range(len(sizes)):
        start = 0
        for j, size in enumerate(sizes[b]):
            expected[j, b] = lhs[b, :, start : start + size] @ rhs[b, start : start + size]
            start += size
    np.testing.assert_allclose(out, expected if batched else expected[:, 0], rtol=1e-5, atol=1e-5)


def test_ragged_dot_contracting_mode_group_sizes_along_another_contracting_dim(ctx):
    """Mode 2 with lhs [4, 5, 6] contracting (1, 2), ragged 2: group_sizes [5, g] vary along dim 1."""
    text = """func.func @main(%l: tensor<4x5x6xf32>, %r: tensor<5x6x3xf32>, %g: tensor<5x2xi32>) -> tensor<2x4x3xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [0, 1], lhs_ragged_dimensions = [2], rhs_group_dimensions = []>} : (tensor<4x5x6xf32>, tensor<5x6x3xf32>, tensor<5x2xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal((4, 5, 6)).astype(np.float32)
    rhs = rng.standard_normal((5, 6, 3)).astype(np.float32)
    sizes = rng.integers(0, 4, (5, 2)).astype(np.int32)
    (out,) = xla_compile(module)(lhs, rhs, sizes)
    expected = np.zeros((2, 4, 3), np.float32)
    for c in range(5):
        start = 0
        for j in range(2):
            expected[j] += lhs[:, c, start : start + sizes[c, j]] @ rhs[c, start : start + sizes[c, j]]
            start += sizes[c, j]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_ragged_dot_batch_mode_is_the_batched_product(ctx):
    """Mode 3 (ragged batch dimension): [b, m, k] x [b, k, n] -> [b, m, n], as JAX's reference computes."""
    text = """func.func @main(%l: tensor<4x8x3xf32>, %r: tensor<4x3x5xf32>, %g: tensor<2xi32>) -> tensor<4x8x5xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []>} : (tensor<4x8x3xf32>, tensor<4x3x5xf32>, tensor<2xi32>) -> tensor<4x8x5xf32>
  return %0 : tensor<4x8x5xf32>
}"""
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, PIPELINE)
    rng = np.random.default_rng(6)
    lhs = rng.standard_normal((4, 8, 3)).astype(np.float32)
    rhs = rng.standard_normal((4, 3, 5)).astype(np.float32)
    (out,) = xla_compile(module)(lhs, rhs, np.array([1, 3], np.int32))
    np.testing.assert_allclose(out, lhs @ rhs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("t,dtype", [("f8E4M3FN", ml_dtypes.float8_e4m3fn), ("f8E5M2", ml_dtypes.float8_e5m2)])
@pytest.mark.parametrize("op,ref_fn", [("erf", sc.erf), ("lgamma", sc.gammaln), ("sinh", np.sinh),
                                       ("atanh", np.arctanh), ("erf_inv", sc.erfinv)])
def test_f8_correctly_rounded(ctx, t, dtype, op, ref_fn):
    """8-bit floats go through f64: every one of the 256 inputs gives the f64 reference rounded once."""
    xs = np.arange(256, dtype=np.uint8).view(dtype)
    (ours,), (native,) = run_both(ctx, _unary_program(op, t, 256), xs)
    with np.errstate(all="ignore"):
        ref = ref_fn(np.asarray(xs, np.float64))
    if op == "lgamma":
        ref = np.where(np.isinf(np.asarray(xs, np.float64)), np.inf, ref)
    expected = np.asarray(ref.astype(dtype), np.float64)
    got = np.asarray(ours, np.float64)
    assert np.array_equal(got, expected, equal_nan=True)
