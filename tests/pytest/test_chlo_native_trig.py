"""f32 kernels of the real hyperbolic / inverse trigonometric CHLO ops and ``chlo.bessel_i1e``
(passes/chlo/trig32.py).

The default (``precision=native``) lowering of each op, run on XLA CPU, against a float64 numpy / scipy
reference: f32 within :data:`BOUND` ULPs on a sweep over the whole f32 range (near overflow, near the
branch points +-1, tiny and huge arguments, edge values); f16 and bf16 exhaustively (every value of the
type) within half an ULP; the NaN / inf / signed-zero pattern of the ``precision=wide`` lowering; no f64 in
the lowered text (and f64 in the wide one).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sc

import hlokit
from hlokit.passes import run_pipeline
from chlo_native import with_platform_tan, xla_compile
from chlo_native import assert_specials_match_wide
from chlo_native import lowered as _lowered
from chlo_native import run as _run
from test_chlo_numerics import ulp_error

#: max ULP of the f32 result per op (measured max over ~1M-point sweeps and every f32 of each op's hardest
#: ranges, see passes/chlo/trig32.py: 1.41 tan (XLA's own f32 tan, next to the poles), <= 0.85 the others)
BOUND = {"sinh": 1.0, "cosh": 1.0, "tan": 1.5, "asin": 1.0, "acos": 1.0, "atan": 1.0, "asinh": 1.0,
         "acosh": 1.0, "atanh": 1.0, "bessel_i1e": 1.0}
#: f16 / bf16 (through f32, one final rounding): every value within half an ULP (measured 0.500)
HALF_BOUND = 0.51
REF = {"sinh": np.sinh, "cosh": np.cosh, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
       "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "bessel_i1e": sc.i1e}
#: (lo, hi) ranges of each op's sweep, besides the log-spaced magnitudes over the whole f32 range
RANGES = {
    "sinh": [(-10, 10), (-1.5, 1.5), (85, 89.5)], "cosh": [(-10, 10), (-1, 1), (85, 89.5)],
    "tan": [(-10, 10), (1.5, 1.65), (6000, 7000)], "asin": [(-1, 1), (0.45, 0.55), (0.999, 1)],
    "acos": [(-1, 1), (-0.55, -0.45), (0.45, 0.55), (0.999, 1), (-1, -0.999)],
    "atan": [(-10, 10), (0.9, 1.1)], "asinh": [(-10, 10), (0.45, 0.55), (1.9, 2.1)],
    "acosh": [(1, 10), (1, 1.01), (1.9, 2.1), (4000, 4200)], "atanh": [(-1, 1), (0.45, 0.55), (0.999, 1)],
    "bessel_i1e": [(-10, 10), (-60, 60), (7.5, 8.5)],
}
EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1.2e-38,
        3.4e38, -3.4e38, 88.72, 89.41, 89.42, -89.42, 64.0, 8.0, 4096.0, 1 - 2.0 ** -24, -1 + 2.0 ** -24,
        1 + 2.0 ** -23, 1.0001, -1.0001]
OPS = list(REF)
TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}
# references beyond the f32 range (cosh(3e38)) overflow when ulp_error rounds them to f32: inf, as meant
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")


@pytest.fixture(scope="module")
def ctx():
    return hlokit.make_context()


def _reference(op: str, xs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return REF[op](xs.astype(np.float64))


def _sweep(op: str, n: int) -> np.ndarray:
    """f32 points: uniform in the op's ranges, log-spaced magnitudes 1e-38..3e38 of both signs, edges;
    subnormal inputs left out (XLA CPU flushes them)."""
    rng = np.random.default_rng(40)
    parts = [rng.uniform(lo, hi, n) for lo, hi in RANGES[op]]
    parts.append(np.exp(rng.uniform(np.log(1.2e-38), np.log(3.4e38), n)) * rng.choice([-1.0, 1.0], n))
    parts.append(EDGE)
    with np.errstate(over="ignore"):
        xs = np.concatenate(parts).astype(np.float32)
    return xs[(np.abs(xs) >= np.finfo(np.float32).tiny) | (xs == 0) | np.isnan(xs)]


@pytest.mark.parametrize("op", with_platform_tan(OPS))
def test_f32_within_bound(ctx, op):
    xs = _sweep(op, 4000)
    got = _run(ctx, op, "f32", xs)
    ref = _reference(op, xs)
    err = ulp_error(got, ref, np.float32)
    worst = int(np.argmax(err))
    assert err.max() <= BOUND[op], f"{op}: {err.max():.3g} ULP at x={xs[worst]!r} (got {got[worst]!r})"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("op", OPS)
def test_half_types_exhaustive(ctx, op, t):
    dtype = TYPES[t]
    xs = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    got = _run(ctx, op, t, xs)
    ref = _reference(op, xs)
    err = ulp_error(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err.max() <= HALF_BOUND, f"{op} {t}: {err.max():.3g} ULP at x={xs[worst]!r} (got {got[worst]!r})"


@pytest.mark.parametrize("op", OPS)
def test_special_values_match_wide(ctx, op):
    xs = np.array(EDGE + [-1.5, 1.5, 100.0, -100.0, 1e10, -1e10], np.float32)
    assert_specials_match_wide(_run(ctx, op, "f32", xs), _run(ctx, op, "f32", xs, "wide"), BOUND[op])


@pytest.mark.parametrize("op", OPS)
def test_native_text_has_no_f64(ctx, op):
    assert "f64" not in str(_lowered(ctx, op, "f32", 4))
    assert "f64" not in str(_lowered(ctx, op, "bf16", 4))
    assert "f64" in str(_lowered(ctx, op, "f32", 4, "wide"))


def test_kernels_are_the_native_table():
    from hlokit.passes.chlo import elementwise, trig32

    for op in OPS:
        assert elementwise.NATIVE[op] is trig32.KERNELS[op]


def test_dynamic_shape(ctx):
    body = "".join(f"  %r{i} = chlo.{op} %a : tensor<?xf32> -> tensor<?xf32>\n" for i, op in enumerate(OPS))
    results = ", ".join(f"%r{i}" for i in range(len(OPS)))
    types = ", ".join(["tensor<?xf32>"] * len(OPS))
    text = (f"func.func @main(%a: tensor<?xf32>) -> ({types}) {{\n{body}"
            f"  return {results} : {types}\n}}\n")
    m = hlokit.parse(text, context=ctx)
    run_pipeline(m, "builtin.module(func.func(chlo-legalize-to-stablehlo))")
    assert "chlo." not in str(m) and "f64" not in str(m)
    run_pipeline(m, "builtin.module(stablehlo-refine-arguments{types='tensor<5xf32>'},"
                    "stablehlo-refine-shapes,func.func(stablehlo-canonicalize-dynamism))")
    xs = np.array([0.0, 0.3, -0.7, 1.5, 30.0], np.float32)
    for op, got in zip(OPS, xla_compile(m)(xs)):
        err = ulp_error(np.asarray(got), _reference(op, xs), np.float32)
        assert err.max() <= BOUND[op], op


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_f32_dense_sweep(ctx, op):
    xs = _sweep(op, 400_000)
    got = _run(ctx, op, "f32", xs)
    err = ulp_error(got, _reference(op, xs), np.float32)
    assert err.max() <= BOUND[op], f"{op}: {err.max():.3g} ULP at x={xs[int(np.argmax(err))]!r}"


@pytest.mark.parametrize("op", OPS)
def test_same_bits_at_any_array_size(ctx, op):
    """XLA CPU vectorises a loop body and runs the remainder as scalars; the exact-arithmetic steps
    (TwoSum, Dekker products) must give the same bits on both paths (its atan2 does not, measured)."""
    xs = _sweep(op, 40)
    full = _run(ctx, op, "f32", xs)
    part = _run(ctx, op, "f32", xs[3:10])
    np.testing.assert_array_equal(part.view(np.uint32), full[3:10].view(np.uint32))


def _emit_run(ctx, fn, xs: np.ndarray) -> np.ndarray:
    """``fn(e, x)`` written on an Emitter over an f32 vector, compiled by XLA CPU, run on ``xs``."""
    from hlokit.passes.builder import Emitter

    e = Emitter()
    (a,) = e.args([((xs.size,), "f32")])
    text = e.text("main", [a], [fn(e, a)]).replace("func.func private @main", "func.func @main")
    return np.asarray(xla_compile(hlokit.parse(text, context=ctx))(xs)[0])


def test_exported_building_blocks(ctx):
    """log32, log1p32 and exp_half32 (used by the complex<f32> kernels): <= 1 ULP, special values."""
    from hlokit.passes.chlo import trig32

    rng = np.random.default_rng(7)
    mags = np.exp(rng.uniform(np.log(1.2e-38), np.log(3.4e38), 20000))
    pos = np.concatenate([mags, rng.uniform(0.5, 2, 20000), [1.0, np.inf, 0.0, np.nan, -1.0]])
    pos = pos.astype(np.float32)
    with np.errstate(all="ignore"):
        got = _emit_run(ctx, trig32.log32, pos)
        assert ulp_error(got, np.log(pos.astype(np.float64)), np.float32).max() <= 1.0
        two = _emit_run(ctx, lambda e, a: trig32.log32(e, a, extra_k=1), pos[:-5])
        assert ulp_error(two, np.log(2.0 * pos[:-5].astype(np.float64)), np.float32).max() <= 1.0
        xs = np.concatenate([pos[:-5] - 1.0, rng.uniform(-1, 1, 20000), np.exp(rng.uniform(-80, 0, 5000)),
                             [0.0, -0.0, -1.0, -2.0, np.inf, np.nan]]).astype(np.float32)
        xs = xs[(np.abs(xs) >= np.finfo(np.float32).tiny) | (xs == 0) | np.isnan(xs)]
        got = _emit_run(ctx, trig32.log1p32, xs)
        assert ulp_error(got, np.log1p(xs.astype(np.float64)), np.float32).max() <= 1.0
        assert np.signbit(got[xs == 0]).tolist() == np.signbit(xs[xs == 0]).tolist()
        ax = np.concatenate([rng.uniform(0, 89.41, 20000), [0.0, 88.72, 89.41, 89.42, np.inf]])
        ax = ax.astype(np.float32)
        got = _emit_run(ctx, trig32.exp_half32, ax)
        assert ulp_error(got, np.exp(ax.astype(np.float64)) / 2, np.float32).max() <= 1.0
