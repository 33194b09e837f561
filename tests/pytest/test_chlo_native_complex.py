"""complex<f32> kernels of chlo-legalize-to-stablehlo in f32 arithmetic (passes/chlo/complex32.py).

The default (``precision=native``) lowering of each complex op, run on XLA CPU, against a complex128
numpy reference: every real and imaginary part within :data:`BOUND` ULPs off the axes, no worse than XLA's
own complex64 lowering (2-ULP floor), the inf / NaN / signed-zero pattern of the ``precision=wide``
lowering on edge values, no f64 in the lowered text (and f64 in the wide one).
"""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
from hlokit.passes import run_pipeline
from chlo_native import with_platform_tan, xla_compile
from test_chlo_numerics import _complex_grid, ulp_error

#: max ULP of each of the real and imaginary parts (measured max on the sweep below: 3.7 for tan,
#: <= 3.3 for the others; see passes/chlo/complex32.py)
BOUND = 4.0
REF = {"asin": np.arcsin, "acos": np.arccos, "asinh": np.arcsinh, "acosh": np.arccosh, "atan": np.arctan,
       "atanh": np.arctanh, "sinh": np.sinh, "cosh": np.cosh, "tan": np.tan}
T = "complex<f32>"


@pytest.fixture(scope="module")
def ctx():
    return hlokit.make_context()


def _program(op: str, n: int) -> str:
    return (f"func.func @main(%a: tensor<{n}x{T}>) -> tensor<{n}x{T}> {{\n"
            f"  %0 = chlo.{op} %a : tensor<{n}x{T}> -> tensor<{n}x{T}>\n"
            f"  return %0 : tensor<{n}x{T}>\n}}\n")


def _lowered(ctx, op: str, n: int, precision: str = "native"):
    m = hlokit.parse(_program(op, n), context=ctx)
    run_pipeline(m, f"builtin.module(func.func(chlo-legalize-to-stablehlo{{precision={precision}}}))")
    return m


def _run(ctx, op: str, zs: np.ndarray, precision: str = "native") -> np.ndarray:
    return np.asarray(xla_compile(_lowered(ctx, op, zs.size, precision))(zs)[0])


def _sweep() -> np.ndarray:
    """Grid over magnitudes 1e-37..1e37 and [-4, 4], random points, and points near the branch points
    +-1, +-i and the unit circle (atan / atanh), off the axes."""
    rng = np.random.default_rng(40)
    mags = np.concatenate([np.linspace(0.25, 4, 16), [0.999, 1.001, 1 - 2.0 ** -24, 1 + 2.0 ** -23, 30.0, 88.0,
                                                       89.5, 100.0, 1e6], 10.0 ** np.arange(-37, 38, 4.0)])
    vals = np.concatenate([mags, -mags])
    n = 1500
    sign = lambda: rng.choice([-1.0, 1.0], n)  # noqa: E731
    parts = [
        (vals[:, None] + 1j * vals[None, :]).ravel(),
        np.exp(rng.uniform(-40, 40, n)) * sign() + 1j * np.exp(rng.uniform(-40, 40, n)) * sign(),
        (1 + rng.standard_normal(n) * 1e-3) * sign() + 1j * rng.standard_normal(n) * np.exp(rng.uniform(-20, 0, n)),
        rng.standard_normal(n) * np.exp(rng.uniform(-20, 0, n)) + 1j * (1 + rng.standard_normal(n) * 1e-3) * sign(),
        np.exp(1j * rng.uniform(-np.pi, np.pi, n)) * (1 + rng.standard_normal(n) * 1e-4),
        rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3,
    ]
    zs = np.concatenate(parts).astype(np.complex64)
    return zs[(zs.real != 0) & (zs.imag != 0)]


def _ulp(got, ref):
    with np.errstate(over="ignore"):  # references beyond the f32 range round to inf
        return np.maximum(ulp_error(got.real, ref.real, np.float32),
                          ulp_error(got.imag, ref.imag, np.float32))


@pytest.mark.parametrize("op", with_platform_tan(sorted(REF)))
def test_native_within_bound(ctx, op):
    zs = _sweep()
    got = _run(ctx, op, zs)
    with np.errstate(all="ignore"):
        ref = REF[op](zs.astype(np.complex128))
    err = _ulp(got, ref)
    worst = int(np.argmax(err))
    assert err.max() <= BOUND, (f"{op}: {err.max():.3g} ULP at z={zs[worst]!r}: got {got[worst]!r}, "
                                f"ref {ref[worst]!r}")
    for part in ("real", "imag"):
        g, r = getattr(got, part), getattr(ref, part)
        assert np.array_equal(np.isnan(g), np.isnan(r)), f"{op} {part}: NaN pattern"


@pytest.mark.parametrize("op", with_platform_tan(sorted(REF)))
def test_native_no_worse_than_xla(ctx, op):
    """test_chlo_numerics.test_complex_unary_no_worse_than_xla's measure, for the native lowering."""
    zs = _complex_grid(np.complex64)
    ours = _run(ctx, op, zs)
    xla = np.asarray(xla_compile(hlokit.parse(_program(op, zs.size), context=ctx))(zs)[0])
    with np.errstate(all="ignore"):
        ref = REF[op](zs.astype(np.complex128))
    keep = (zs.real != 0) & (zs.imag != 0)
    big = np.maximum(np.abs(ref[keep].real), np.abs(ref[keep].imag))
    relevant = (np.abs(ref[keep].real) > 1e-6 * big) & (np.abs(ref[keep].imag) > 1e-6 * big)
    e_ours = _ulp(ours[keep], ref[keep])[relevant]
    e_xla = _ulp(xla[keep], ref[keep])[relevant]
    assert e_ours.max() <= max(e_xla.max(), 2.0), f"{op}: ours {e_ours.max():.3g} ULP, XLA {e_xla.max():.3g}"


# normal f32 values only: XLA CPU treats subnormal operands as zero in compares but not in every op
_EDGES = np.array([0.0, 1.2e-38, 1e-30, 1e-10, 0.5, 1.0, 1.0000001, 2.0, 20.5, 45.0, 89.0, 100.0, 1e10, 2e18,
                   3e18, 1e30, 3.4e38, np.inf, np.nan], np.float32)


@pytest.mark.parametrize("op", sorted(REF) + ["_asin_acos_kernel"])
def test_edge_values_as_wide(ctx, op):
    """inf / NaN positions and signs of zeros as the f64 (wide) lowering; finite values within BOUND
    (+ 0.5 for the wide result's own rounding) of it."""
    v = np.concatenate([_EDGES, -_EDGES])
    with np.errstate(all="ignore"):
        zs = (v[:, None] + 1j * v[None, :]).ravel().astype(np.complex64)
    nat, wide = _run(ctx, op, zs), _run(ctx, op, zs, "wide")
    for part in ("real", "imag"):
        a, b = getattr(nat, part), getattr(wide, part)
        same_nan = np.isnan(a) == np.isnan(b)
        same_inf = np.where(np.isinf(a) | np.isinf(b), a == b, True)
        same_zero = np.where((a == 0) & (b == 0), np.signbit(a) == np.signbit(b), True)
        bad = ~(same_nan & same_inf & same_zero)
        with np.errstate(all="ignore"):
            e = ulp_error(a, b.astype(np.float64), np.float32)
        bad |= np.isfinite(e) & (e > BOUND + 0.5)
        first = np.nonzero(bad)[0][:4]
        assert not bad.any(), f"{op} {part}: " + "; ".join(f"z={zs[i]!r} native {a[i]!r} wide {b[i]!r}" for i in first)


def test_asin_acos_kernel_against_wide(ctx):
    """chlo._asin_acos_kernel: the native (d, l) within BOUND + 0.5 ULP of the f64 kernel rounded once."""
    zs = _sweep()
    nat, wide = _run(ctx, "_asin_acos_kernel", zs), _run(ctx, "_asin_acos_kernel", zs, "wide")
    err = _ulp(nat, wide.astype(np.complex128))
    worst = int(np.argmax(err))
    assert err.max() <= BOUND + 0.5, f"{err.max():.3g} ULP at z={zs[worst]!r}: {nat[worst]!r} vs {wide[worst]!r}"


@pytest.mark.parametrize("op", sorted(REF) + ["_asin_acos_kernel"])
def test_native_text_has_no_f64(ctx, op):
    assert "f64" not in str(_lowered(ctx, op, 4))
    assert "f64" in str(_lowered(ctx, op, 4, "wide"))
