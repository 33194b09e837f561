"""f32 kernels of chlo.lgamma / digamma / polygamma / zeta (passes/chlo/gamma32.py) against f64 references.

The default lowering (``precision=native``) evaluates these ops in f32 arithmetic; each test runs it on XLA
CPU and measures the error against scipy (f64) or mpmath: ULPs of the result type away from the functions'
zeros, absolute errors in f32 epsilons (eps = 2^-23) near them, and where a reflection or an alternating
sum cancels, an error bound relative to the size of the cancelling terms. NaN / inf positions must be those
of the reference and of the f64 lowering (``precision=wide``).
"""

from __future__ import annotations

import math

import ml_dtypes
import mpmath
import numpy as np
import pytest
import scipy.special as sc

import hlokit
from hlokit.passes import run_pipeline
from chlo_native import xla_compile
from test_chlo_numerics import ulp_error as _ulp_error

NATIVE = "builtin.module(func.func(chlo-legalize-to-stablehlo))"
WIDE = "builtin.module(func.func(chlo-legalize-to-stablehlo{precision=wide}))"
EPS = 2.0 ** -23
DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}
BINARY = ("polygamma", "zeta")


@pytest.fixture(scope="module")
def ctx():
    return hlokit.make_context()


def _program(op: str, t: str, n: int) -> str:
    if op in BINARY:
        return (f"func.func @main(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
                f"  %0 = chlo.{op} %a, %b : tensor<{n}x{t}>, tensor<{n}x{t}> -> tensor<{n}x{t}>\n"
                f"  return %0 : tensor<{n}x{t}>\n}}\n")
    return (f"func.func @main(%a: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{\n"
            f"  %0 = chlo.{op} %a : tensor<{n}x{t}> -> tensor<{n}x{t}>\n"
            f"  return %0 : tensor<{n}x{t}>\n}}\n")


def _run(ctx, op: str, t: str, *args, pipeline: str = NATIVE) -> tuple[np.ndarray, str]:
    """(result as f64, lowered text) of ``chlo.<op>`` on ``args`` (arrays of the numpy type of ``t``)."""
    module = hlokit.parse(_program(op, t, args[0].size), context=ctx)
    run_pipeline(module, pipeline)
    text = str(module)
    assert "chlo." not in text
    out = xla_compile(module)(*args)[0]
    return np.asarray(out).astype(np.float64), text


def ulp_error(got, ref, dtype) -> np.ndarray:
    with np.errstate(over="ignore"):  # references beyond the type's range round to inf
        return _ulp_error(got, ref, dtype)


def _f32(xs) -> np.ndarray:
    return np.asarray(xs, np.float64).astype(np.float32)


def _same_specials(got: np.ndarray, ref: np.ndarray, dtype=np.float32) -> None:
    """NaN where ref is NaN (and only there); +-inf where ref rounds to +-inf in the result type."""
    with np.errstate(over="ignore"):
        ref = np.asarray(ref, np.float64).astype(dtype).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(ref))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(ref))


def _mp(fn, *cols) -> np.ndarray:
    return np.array([float(fn(*(mpmath.mpf(float(c)) for c in row))) for row in zip(*cols)])


@pytest.mark.parametrize("op", ["lgamma", "digamma", "polygamma", "zeta"])
@pytest.mark.parametrize("t", ["f16", "bf16", "f32"])
def test_native_lowering_has_no_f64_and_wide_keeps_it(ctx, op, t):
    args = [np.ones(4, DTYPES[t]) * 2] * (2 if op in BINARY else 1)
    _, text = _run(ctx, op, t, *args)
    assert "f64" not in text
    _, wide = _run(ctx, op, t, *args, pipeline=WIDE)
    assert "f64" in wide


def test_lgamma_f32(ctx):
    """<= 3 ULP wherever |lgamma| >= 0.5 and for all x > 0 (the zeros 1 and 2 are factored out: relative
    accuracy there); <= 1.5 eps absolute near the negative zeros (|lgamma| < 0.5)."""
    rng = np.random.default_rng(0)
    xs = _f32(np.concatenate([
        np.linspace(-20, 30, 6001), rng.uniform(-10, 0, 4000), rng.uniform(0.4, 3.2, 2000),
        np.exp(rng.uniform(-80, 85, 1500)), -np.exp(rng.uniform(-80, 85, 1500)),
        1.0 + np.arange(-64, 65) * 2.0 ** -23, 2.0 + np.arange(-64, 65) * 2.0 ** -22,
        [-2.4570247, -2.7476826, -3.1435487, -3.9552527, -4.0390296, -4.9917568, -5.0082224, -5.9986007],
    ]))
    got, _ = _run(ctx, "lgamma", "f32", xs)
    with np.errstate(divide="ignore"):
        ref = sc.gammaln(xs.astype(np.float64))
    _same_specials(got, ref)
    ulp = ulp_error(got, ref, np.float32)
    far = (np.abs(ref) >= 0.5) | (xs > 0)
    assert ulp[far].max() <= 3.0, xs[far][np.argmax(ulp[far])]
    near = ~far
    assert near.sum() > 100
    assert (np.abs(got[near] - ref[near]) / EPS).max() <= 1.5


def test_digamma_f32(ctx):
    """x > 0: <= 3 ULP (relative accuracy at the zero x0 = 1.4616...); x < 0 (reflection
    psi(1+y) + pi cot(pi y)): error <= 2 eps (|psi(1+y)| + |pi cot(pi y)|), and <= 4 ULP where the
    reflection does not cancel (|psi(x)| >= 3/4 of that sum)."""
    rng = np.random.default_rng(1)
    x0 = 1.4616321449683622
    pos = _f32(np.concatenate([np.linspace(1e-3, 30, 4001), np.exp(rng.uniform(-80, 88, 2000)),
                               x0 + np.arange(-200, 201) * 2.0 ** -23, rng.uniform(0.3, 2.5, 2000)]))
    neg = _f32(np.concatenate([np.linspace(-20, -1e-3, 6001), rng.uniform(-10, 0, 4000),
                               -np.exp(rng.uniform(-80, 20, 1000))]))
    xs = np.concatenate([pos, neg])
    got, _ = _run(ctx, "digamma", "f32", xs)
    ref = sc.psi(xs.astype(np.float64))
    ref[(xs <= 0) & (xs == np.floor(xs))] = np.nan  # poles: NaN (XLA's convention)
    _same_specials(got, ref)
    ulp = ulp_error(got, ref, np.float32)
    p = xs > 0
    assert ulp[p].max() <= 3.0, xs[p][np.argmax(ulp[p])]
    fin = (xs < 0) & np.isfinite(ref)
    y = -xs[fin].astype(np.float64)
    scale = np.abs(sc.psi(1.0 + y)) + np.abs(math.pi / np.tan(math.pi * y))
    err = np.abs(got[fin] - ref[fin])
    assert (err / (EPS * scale)).max() <= 2.0
    spread = np.abs(ref[fin]) >= 0.75 * scale
    assert ulp[fin][spread].max() <= 4.0


def test_digamma_f32_near_the_positive_zero(ctx):
    """Around x0 the error is relative: a few ULP of values down to 1e-8."""
    xs = _f32(1.4616321449683622 + np.arange(-3000, 3001) * 2.0 ** -23)
    got, _ = _run(ctx, "digamma", "f32", xs)
    ref = _mp(mpmath.digamma, xs)
    assert np.abs(ref).min() < 1e-7
    assert ulp_error(got, ref, np.float32).max() <= 3.0


def test_zeta_f32(ctx):
    """q > 0: <= 4 ULP (bases q + k carried as hi + lo; scaling near the underflow threshold);
    domain rules and special values as the f64 lowering."""
    rng = np.random.default_rng(2)
    n = 1500
    x = _f32(np.concatenate([rng.uniform(1.001, 40, n), 1.0 + np.exp(rng.uniform(-12, 0, 300)),
                             rng.uniform(1.01, 4, 200)]))
    q = _f32(np.concatenate([np.exp(rng.uniform(np.log(0.01), np.log(200), n)),
                             np.exp(rng.uniform(-3, 5, 300)), np.exp(rng.uniform(5, 80, 200))]))
    got, _ = _run(ctx, "zeta", "f32", x, q)
    ref = sc.zeta(x.astype(np.float64), q.astype(np.float64))
    _same_specials(got, ref)
    assert ulp_error(got, ref, np.float32).max() <= 4.0


def test_zeta_and_polygamma_special_values_match_wide(ctx):
    xs = _f32([1.0, 0.99, -1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 4.0, np.nan, 2.0, 30.0, 2.0, 5.0, 100.0, 2.0])
    qs = _f32([1.0, 2.0, 2.0, 0.0, -0.0, -2.0, -2.5, -2.0, -2.5, 1e-30, 1.0, np.nan, 0.05, 3e38, np.inf, 1.0,
               -np.inf])
    got, _ = _run(ctx, "zeta", "f32", xs, qs)
    wide, _ = _run(ctx, "zeta", "f32", xs, qs, pipeline=WIDE)
    np.testing.assert_array_equal(got, wide)  # exact here (+-inf, NaN, 0, 1, and values rounded alike)
    ns = _f32([0.5, -1.0, 1.0, 2.0, 3.0, 1.0, 2.0, np.inf, 0.0, 0.0, 1.0, 4.0, np.nan, 2.0])
    xs = _f32([1.0, 1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, 2.0, 0.0, -3.0, 1.0, -2.0, 1.0, np.nan])
    got, _ = _run(ctx, "polygamma", "f32", ns, xs)
    wide, _ = _run(ctx, "polygamma", "f32", ns, xs, pipeline=WIDE)
    _same_specials(got, wide)
    fin = np.isfinite(wide)
    assert ulp_error(got[fin], wide[fin], np.float32).max() <= 1.0


def test_lgamma_digamma_special_values_match_wide(ctx):
    xs = _f32([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 2.0, -1.0, -2.0, -100.0, 1e-38, -1e-38, 1e-45,
               4.09e36, 3.4e38, -3.4e38, 8388608.0, -8388607.5, -8388608.0, -1e-30, 1.4616321])
    for op in ("lgamma", "digamma"):
        got, _ = _run(ctx, op, "f32", xs)
        wide, _ = _run(ctx, op, "f32", xs, pipeline=WIDE)
        _same_specials(got, wide)
        np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(wide[got == 0]))  # lgamma(1) = +0
        fin = np.isfinite(wide)
        assert ulp_error(got[fin], wide[fin], np.float32).max() <= 3.0


def test_polygamma_f32(ctx):
    """x > 0, n <= 34: <= 4 ULP; x in (-4.9, 0) (terms of both signs): error <= 4 eps times the sum of the
    terms' magnitudes n! sum_k |x + k|^-(n+1), and <= 4 ULP where the value is at least half that sum. (Below -5 the Euler-Maclaurin tail starts at q + 10 < 5 and
    loses accuracy, in the f64 lowering as well.)"""
    rng = np.random.default_rng(3)
    m = 300
    n = _f32(np.concatenate([rng.integers(0, 7, m), rng.integers(7, 35, 100), rng.integers(1, 7, m)]))
    x = _f32(np.concatenate([np.exp(rng.uniform(np.log(0.01), np.log(60), m)), rng.uniform(1, 60, 100),
                             rng.uniform(-4.9, 0, m)]))
    got, _ = _run(ctx, "polygamma", "f32", n, x)
    ref = np.array([float(mpmath.polygamma(int(a), mpmath.mpf(float(b)))) for a, b in zip(n, x)])
    _same_specials(got, ref)
    ulp = ulp_error(got, ref, np.float32)
    p = x > 0
    assert ulp[p].max() <= 4.0, (n[p][np.argmax(ulp[p])], x[p][np.argmax(ulp[p])])
    ng = ~p
    k = np.arange(0, 2000)[None, :]
    nn, xx = n[ng].astype(np.float64)[:, None], x[ng].astype(np.float64)[:, None]
    scale = sc.gamma(nn[:, 0] + 1) * (np.abs(xx + k) ** -(nn + 1)).sum(1)
    fin = np.isfinite(ref[ng])
    assert (np.abs(got[ng] - ref[ng])[fin] / (EPS * scale[fin])).max() <= 4.0
    # the pairs of terms that would cancel are summed as one: ULP-accurate unless the function is near a zero
    spread = np.abs(ref[ng]) >= 0.5 * scale
    assert ulp[ng][spread].max() <= 4.0


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_narrow_types_through_f32(ctx, t):
    """f16 / bf16: every representable value in a range, <= 1 ULP of the type (0.5 + the f32 error)
    where the f32 kernel is ULP-accurate; NaN / inf positions as the reference."""
    dt = DTYPES[t]
    bits = np.arange(0, 1 << 16, dtype=np.uint16)
    allv = bits.view(np.float16 if t == "f16" else ml_dtypes.bfloat16)
    with np.errstate(invalid="ignore"):
        allv = allv[np.isfinite(allv.astype(np.float64))]
    fi = ml_dtypes.finfo(dt)
    for op, lo, hi in (("lgamma", 0.0, 60.0), ("digamma", 0.0, 60.0)):
        v64 = allv.astype(np.float64)
        xs = allv[(v64 > lo) & (v64 < hi) & (np.abs(v64) >= float(fi.tiny))]
        got, _ = _run(ctx, op, t, xs)
        x64 = xs.astype(np.float64)
        ref = sc.gammaln(x64) if op == "lgamma" else sc.psi(x64)
        _same_specials(got, ref, dt)
        assert ulp_error(got, ref, dt).max() <= 1.0, op
    a = _f32(np.array([1, 2, 3, 4, 5, 2, 3]))
    b = _f32(np.array([2, 3, 0.5, 1.5, 4, 10, 7]))
    a, b = a.astype(dt), b.astype(dt)
    got, _ = _run(ctx, "zeta", t, a, b)
    ref = sc.zeta(a.astype(np.float64), b.astype(np.float64))
    assert ulp_error(got, ref, dt).max() <= 1.0
    got, _ = _run(ctx, "polygamma", t, a, b)
    ref = sc.polygamma(a.astype(np.float64).astype(int), b.astype(np.float64))
    assert ulp_error(got, ref, dt).max() <= 1.0
