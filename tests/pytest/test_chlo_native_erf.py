"""f32 kernels of ``chlo.erf``, ``chlo.erfc`` and ``chlo.erf_inv`` (passes/chlo/erf32.py).

The default (``precision=native``) lowering of each op, run on XLA CPU, against a float64 scipy reference:
f32 within :data:`BOUND` ULPs on sweeps over the whole domain (the branch seams, erfc's deep tail down
to its underflow, erf_inv next to +-1, tiny and huge arguments, edge values); f16 and bf16 exhaustively
(every value of the type) within 1 ULP; the NaN / inf / signed-zero pattern of the ``precision=wide``
lowering; no f64 in the lowered text (and f64 in the wide one).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sc

import hlokit
from hlokit.passes import run_pipeline
from chlo_native import xla_compile
from chlo_native import assert_specials_match_wide
from chlo_native import lowered as _lowered
from chlo_native import run as _run
from test_chlo_numerics import ulp_error

#: max ULP of the f32 result per op (measured over every f32 of the domain down to 1e-8: 0.83 erf,
#: 1.60 erfc, 1.13 erf_inv; see passes/chlo/erf32.py)
BOUND = {"erf": 1.0, "erfc": 1.75, "erf_inv": 1.25}
REF = {"erf": sc.erf, "erfc": sc.erfc, "erf_inv": sc.erfinv}
#: (lo, hi) ranges of each op's sweep, besides the log-spaced magnitudes over the whole f32 range
RANGES = {
    "erf": [(-6, 6), (0.8, 0.9), (-0.9, -0.8), (0.95, 1.05), (3.5, 4.2)],
    "erfc": [(-6, 10.5), (0.4, 0.6), (-0.6, -0.4), (1.0, 2.2), (8.0, 9.4), (9.1, 9.3)],
    "erf_inv": [(-1, 1), (0.7, 0.8), (-0.8, -0.7), (0.999, 1.0), (-1.0, -0.999)],
}
EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.47, -0.47, 0.75, -0.75, 0.85, -0.85, 1.1, 2.0, 3.1, 4.8, 6.6, 9.3,
        9.2, 10.06, -10.06, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1.2e-38, -1.2e-38, 3.4e38, -3.4e38,
        1 - 2.0 ** -24, -1 + 2.0 ** -24, 1 - 2.0 ** -23, 1 + 2.0 ** -23, -1 - 2.0 ** -23, 1.0001, -1.0001]
OPS = list(REF)
TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}


@pytest.fixture(scope="module")
def ctx():
    return hlokit.make_context()


def _reference(op: str, xs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return REF[op](xs.astype(np.float64))


def _sweep(op: str, n: int) -> np.ndarray:
    """f32 points: uniform in the op's ranges, log-spaced magnitudes 1e-38..3e38 of both signs (for
    erf_inv: 1 - |y| log-spaced down to 2^-24 as well), edges; subnormal inputs left out (XLA CPU
    flushes them)."""
    rng = np.random.default_rng(40)
    parts = [rng.uniform(lo, hi, n) for lo, hi in RANGES[op]]
    parts.append(np.exp(rng.uniform(np.log(1.2e-38), np.log(3.4e38), n)) * rng.choice([-1.0, 1.0], n))
    if op == "erf_inv":
        parts.append((1.0 - np.exp(rng.uniform(np.log(2.0 ** -24), 0.0, n))) * rng.choice([-1.0, 1.0], n))
    parts.append(EDGE)
    with np.errstate(over="ignore"):
        xs = np.concatenate(parts).astype(np.float32)
    return xs[(np.abs(xs) >= np.finfo(np.float32).tiny) | (xs == 0) | np.isnan(xs)]


@pytest.mark.parametrize("op", OPS)
def test_f32_within_bound(ctx, op):
    xs = _sweep(op, 20000)
    got = _run(ctx, op, "f32", xs)
    ref = _reference(op, xs)
    err = ulp_error(got, ref, np.float32)
    worst = int(np.argmax(err))
    assert err.max() <= BOUND[op], f"{op}: {err.max():.3g} ULP at x={xs[worst]!r} (got {got[worst]!r})"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


def test_erfc_relative_in_the_tail(ctx):
    # every 61st f32 in [4, 9.19]: erfc from 1.5e-8 down to FLT_MIN, relative accuracy throughout
    lo, hi = np.float32(4.0).view(np.int32), np.float32(9.19).view(np.int32)
    xs = np.arange(lo, hi, 61, dtype=np.int32).view(np.float32)
    got = _run(ctx, "erfc", "f32", xs)
    err = ulp_error(got, _reference("erfc", xs), np.float32)
    assert err.max() <= BOUND["erfc"], f"{err.max():.3g} ULP at x={xs[int(np.argmax(err))]!r}"
    assert np.all(got > 0)
    # beyond the underflow (below half the least subnormal)
    far = np.array([10.07, 10.5, 27.0, 1e30, np.inf], np.float32)
    np.testing.assert_array_equal(_run(ctx, "erfc", "f32", far), 0.0)
    np.testing.assert_array_equal(_run(ctx, "erfc", "f32", -far), 2.0)


def test_erf_inv_next_to_one(ctx):
    # the 2000 f32 values below 1 (1 - y from 2^-24 up): Newton on erfc keeps full relative accuracy
    one = np.float32(1.0).view(np.int32)
    ys = np.arange(one - 2000, one, dtype=np.int32).view(np.float32)
    ys = np.concatenate([ys, -ys])
    got = _run(ctx, "erf_inv", "f32", ys)
    err = ulp_error(got, _reference("erf_inv", ys), np.float32)
    assert err.max() <= BOUND["erf_inv"], f"{err.max():.3g} ULP at y={ys[int(np.argmax(err))]!r}"
    edge = np.array([1.0, -1.0, 1.0000001, -1.0000001, 2.0, np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)
    got = _run(ctx, "erf_inv", "f32", edge)
    np.testing.assert_array_equal(got[:2], [np.inf, -np.inf])
    assert np.all(np.isnan(got[2:8]))
    np.testing.assert_array_equal(np.signbit(got[8:]), [False, True])
    assert np.all(got[8:] == 0)


def test_roundtrip_erf_of_erf_inv(ctx):
    # erf(erf_inv(y)) ~ y: the two kernels are consistent (a loose check that does not use scipy)
    ys = np.linspace(-0.999, 0.999, 4001).astype(np.float32)
    x = _run(ctx, "erf_inv", "f32", ys)
    back = _run(ctx, "erf", "f32", x)
    assert ulp_error(back, ys.astype(np.float64), np.float32)[np.abs(ys) < 0.9].max() <= 4.0


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("op", OPS)
def test_half_types_exhaustive(ctx, op, t):
    dtype = TYPES[t]
    xs = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    got = _run(ctx, op, t, xs)
    ref = _reference(op, xs)
    err = ulp_error(got, ref, dtype)
    # subnormal inputs: XLA CPU flushes them to zero (the wide lowering and XLA's own alike)
    mag = np.abs(xs.astype(np.float32))
    err[(mag < float(ml_dtypes.finfo(dtype).tiny)) & (mag > 0)] = 0.0
    worst = int(np.argmax(err))
    assert err.max() <= 1.0, f"{op} {t}: {err.max():.3g} ULP at x={xs[worst]!r} (got {got[worst]!r})"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


@pytest.mark.parametrize("op", OPS)
def test_special_values_match_wide(ctx, op):
    xs = np.array(EDGE + [-1.5, 1.5, 100.0, -100.0, 1e10, -1e10, 1e-39, -1e-39], np.float32)
    assert_specials_match_wide(_run(ctx, op, "f32", xs), _run(ctx, op, "f32", xs, "wide"), BOUND[op])


@pytest.mark.parametrize("op", OPS)
def test_native_text_has_no_f64(ctx, op):
    assert "f64" not in str(_lowered(ctx, op, "f32", 4))
    assert "f64" not in str(_lowered(ctx, op, "f16", 4))
    assert "f64" in str(_lowered(ctx, op, "f32", 4, "wide"))


def test_kernels_are_the_native_table():
    from hlokit.passes.chlo import elementwise, erf32

    for op in OPS:
        assert elementwise.NATIVE[op] is erf32.KERNELS[op]


def test_dynamic_shape(ctx):
    text = ("func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
            "  %0 = chlo.erf_inv %a : tensor<?xf32> -> tensor<?xf32>\n"
            "  %1 = chlo.erfc %0 : tensor<?xf32> -> tensor<?xf32>\n"
            "  %2 = chlo.erf %1 : tensor<?xf32> -> tensor<?xf32>\n"
            "  return %2 : tensor<?xf32>\n}\n")
    m = hlokit.parse(text, context=ctx)
    run_pipeline(m, "builtin.module(func.func(chlo-legalize-to-stablehlo))")
    assert "chlo." not in str(m) and "f64" not in str(m)
    run_pipeline(m, "builtin.module(stablehlo-refine-arguments{types='tensor<4xf32>'},stablehlo-refine-shapes,"
                    "func.func(stablehlo-canonicalize-dynamism))")
    xs = np.array([0.0, 0.3, -0.5, 0.99], np.float32)
    got = np.asarray(xla_compile(m)(xs)[0])
    ref = sc.erf(sc.erfc(sc.erfinv(xs.astype(np.float64))))
    assert ulp_error(got, ref, np.float32).max() <= 8.0


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_f32_dense_sweep(ctx, op):
    xs = _sweep(op, 400_000)
    got = _run(ctx, op, "f32", xs)
    err = ulp_error(got, _reference(op, xs), np.float32)
    assert err.max() <= BOUND[op], f"{op}: {err.max():.3g} ULP at x={xs[int(np.argmax(err))]!r}"
