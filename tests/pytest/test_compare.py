"""hlokit.compare: ULP distances, rtol / atol against an output's scale, NaN positions, and what the worst element
of a comparison is (a subnormal against zero, a sign / phase flip of eigen- or singular vectors, a real difference)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlokit.compare import Tolerance, compare, default_tolerance, ulp_distance


def test_ulp_distance_counts_representable_values_across_zero():
    one = np.float32(1)
    up = np.nextafter(one, np.float32(2))
    assert ulp_distance(np.array([up]), np.array([one]))[0] == 1
    assert ulp_distance(np.array([-0.0], np.float32), np.array([0.0], np.float32))[0] == 0
    tiny = np.array([np.float32(1e-45)])  # the smallest subnormal: 1 ULP from zero, 2 from its negation
    assert ulp_distance(tiny, -tiny)[0] == 2
    assert ulp_distance(np.array([np.nan]), np.array([np.nan]))[0] == 0
    assert ulp_distance(np.array([np.nan]), np.array([1.0]))[0] == 2.0**64
    b = np.array([1.0], ml_dtypes.bfloat16)
    assert ulp_distance(b, np.nextafter(b, np.array([2.0], ml_dtypes.bfloat16)))[0] == 1
    c = np.array([1 + 1j], np.complex64)
    c2 = np.array([1 + 1j * float(np.nextafter(np.float32(1), np.float32(0)))], np.complex64)
    assert ulp_distance(c, c2)[0] == 1


def test_relative_tolerance_is_against_the_outputs_largest_magnitude():
    # the flax case: a tiny element of a large output, 4096 ULP off but 2e-7 of the output's scale
    ref = np.array([4.9, -4.6e-4], np.float32)
    x = ref.copy()
    x[1] = np.float32(-4.6e-4) + np.float32(1e-6)
    c = compare(x, ref, Tolerance(max_ulp=16))
    assert not c.ok and c.worst == (1,) and c.worst_ulp > 1000 and c.kind == "difference"
    c = compare(x, ref, Tolerance(rtol=1e-6))
    assert c.ok and c.scale == pytest.approx(4.9) and c.max_rel == pytest.approx(1e-6 / 4.9, rel=0.05)
    assert not compare(x, ref, Tolerance(rtol=1e-8)).ok
    assert compare(x, ref, Tolerance(atol=2e-6)).ok and not compare(x, ref, Tolerance(atol=1e-7)).ok
    # rtol + atol add up; every given bound must hold
    assert compare(x, ref, Tolerance(rtol=1e-7, atol=6e-7)).ok
    assert not compare(x, ref, Tolerance(rtol=1e-6, max_ulp=16)).ok


def test_nan_positions_must_match_under_any_tolerance():
    ref = np.array([1.0, np.nan, 3.0])
    assert compare(ref.copy(), ref, Tolerance(max_ulp=0)).ok  # NaN == NaN at the same place
    moved = np.array([np.nan, 2.0, 3.0])
    c = compare(moved, ref, Tolerance(rtol=1e9, atol=1e9))
    assert not c.ok and c.kind == "nan" and "NaN" in c.describe()
    assert not compare(np.array([1.0, np.inf, 3.0]), np.array([1.0, -np.inf, 3.0]), Tolerance(rtol=1.0)).ok
    assert compare(np.array([np.inf]), np.array([np.inf]), Tolerance(rtol=0.0)).ok


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16, np.complex64])
def test_a_subnormal_against_zero_is_named(dtype):
    tiny = float(ml_dtypes.finfo(np.empty(0, dtype).real.dtype).tiny)
    ours = np.array([1.0, tiny / 4, 2.0], dtype)  # IEEE keeps it; XLA CPU flushes it to zero
    xla = np.array([1.0, 0.0, 2.0], dtype)
    c = compare(ours, xla, Tolerance(max_ulp=0))
    assert not c.ok and c.worst == (1,) and c.kind == "subnormal" and "flushes subnormals" in c.describe()
    assert compare(ours, xla, Tolerance(atol=tiny)).ok
    assert compare(ours, ours).kind == "equal"


def test_a_sign_flip_of_eigenvector_columns_passes_when_allowed():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5, 5))
    _, v = np.linalg.eigh(a + np.swapaxes(a, -1, -2))
    flipped = v * np.array([1, -1, 1, -1, -1])  # columns 1, 3, 4 of every matrix
    plain = compare(flipped, v, Tolerance(rtol=1e-12))
    assert not plain.ok and plain.kind == "difference"
    c = compare(flipped, v, Tolerance(rtol=1e-12), up_to_phase=True)
    assert c.ok and c.kind == "phase" and c.phase_axis == "columns" and c.flipped == 9
    assert "sign flip of 9" in c.describe()
    # rows (the V^H of an SVD) are found too
    c = compare(np.swapaxes(flipped, -1, -2), np.swapaxes(v, -1, -2), Tolerance(rtol=1e-12), up_to_phase=True)
    assert c.ok and c.phase_axis == "rows"
    # a real change is not hidden by the normalisation
    broken = flipped.copy()
    broken[0, 0, 0] += 0.1
    c = compare(broken, v, Tolerance(rtol=1e-12), up_to_phase=True)
    assert not c.ok and c.kind == "difference"


def test_a_phase_of_complex_vectors_is_recognised():
    rng = np.random.default_rng(1)
    m = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    _, v = np.linalg.eigh(m + m.conj().T)
    v = v.astype(np.complex64)
    phases = np.exp(1j * np.array([0.3, -2.0, 0.0, 1.0])).astype(np.complex64)
    c = compare(v * phases, v, Tolerance(rtol=1e-5), up_to_phase=True)
    assert c.ok and c.kind == "phase" and c.flipped == 3 and "phase flip" in c.describe()
    assert not compare(v * phases, v, Tolerance(rtol=1e-5)).ok


def test_integers_are_exact_unless_a_bound_is_given():
    ref = np.array([[5, -7]], np.int8)
    got = np.array([[5, 9]], np.int8)
    c = compare(got, ref)
    assert not c.ok and (c.max_ulp, c.max_abs, c.worst) == (16, 16, (0, 1))
    assert default_tolerance(np.int8) == Tolerance(max_ulp=0)
    assert compare(got, ref, Tolerance(max_ulp=16)).ok and not compare(got, ref, Tolerance(max_ulp=15)).ok
    assert compare(got, ref, Tolerance(atol=16)).ok
    big = np.array([2**63 - 1], np.int64)
    assert compare(big, big).ok
    assert not compare(np.array([True, False]), np.array([True, True])).ok


def test_default_float_tolerance_and_mismatches():
    assert default_tolerance(np.float32).rtol == pytest.approx(16 * 2.0**-23)
    assert default_tolerance(ml_dtypes.bfloat16).rtol == 2.0**-6  # capped: 16 bf16 epsilons would be 1/8
    assert default_tolerance(ml_dtypes.float8_e4m3fn).rtol == 0.125  # at least one epsilon
    f8 = np.array([1, 2, 4], ml_dtypes.float8_e4m3fn)
    assert not compare(f8, np.array([1, 2, 2], ml_dtypes.float8_e4m3fn)).ok
    ref = np.array([1.0, 2.0], np.float32)
    assert compare(ref * np.float32(1 + 2**-22), ref).ok  # 2 ULP: within the default
    assert not compare(ref * np.float32(1.001), ref).ok
    m = compare(np.zeros((2, 2), np.float32), np.zeros(4, np.float32))
    assert not m.ok and m.kind == "shape" and "expected float32[4]" in m.describe()
    assert not compare(np.zeros(2, np.float64), np.zeros(2, np.float32)).ok
    assert compare(np.zeros(0, np.float32), np.zeros(0, np.float32)).worst is None


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.complex64, np.int32, np.bool_])
def test_scalar_outputs_compare_like_arrays(dtype):
    """0-d outputs (found by the program fuzzer: the ULP distance came back 1-d and indexing it failed)."""
    one, two = np.asarray(1, dtype), np.asarray(0 if dtype is np.bool_ else 2, dtype)
    if dtype not in (np.int32, np.bool_):
        assert ulp_distance(one, two).shape == ()
    for tol in (Tolerance(), Tolerance(max_ulp=0), Tolerance(rtol=1e-6)):
        same = compare(one, one, tol)
        assert same.ok and same.worst == ()
        diff = compare(one, two, tol)
        assert not diff.ok and diff.worst == () and diff.kind == "difference"
        assert diff.describe()


def _rotated_eigenbasis(dtype):
    """A symmetric matrix with a doubly repeated eigenvalue: numpy's eigenvectors, and the same basis with the
    repeated pair rotated within its span (another valid answer), and the eigenvalues."""
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    w = np.array([-2.0, 1.0, 1.0, 3.0, 7.0])
    vals, vecs = np.linalg.eigh((q * w) @ q.T)
    c, s = np.cos(0.7), np.sin(0.7)
    rot = np.eye(5)
    rot[1:3, 1:3] = [[c, -s], [s, c]]
    return vecs.astype(dtype), (vecs @ rot).astype(dtype), vals.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectors_of_equal_eigenvalues_match_as_a_group(dtype):
    ref, other, vals = _rotated_eigenbasis(dtype)
    tol = Tolerance(rtol=1e-4)
    assert not compare(other, ref, tol, up_to_phase=True).ok  # (a rotation, not a sign flip)
    c = compare(other, ref, tol, up_to_phase=True, values=[vals])
    assert c.ok and c.kind == "phase" and c.mixed == 2
    assert "2 of them matched as groups of vectors of equal eigen- / singular values" in c.describe()


def test_a_rotation_of_vectors_of_distinct_eigenvalues_is_a_difference():
    ref, _, vals = _rotated_eigenbasis(np.float64)
    c_, s_ = np.cos(0.7), np.sin(0.7)
    rot = np.eye(5)
    rot[3:5, 3:5] = [[c_, -s_], [s_, c_]]  # (eigenvalues 3 and 7: the vectors are determined up to sign)
    c = compare(ref @ rot, ref, Tolerance(rtol=1e-4), up_to_phase=True, values=[vals])
    assert not c.ok and c.kind == "difference"
