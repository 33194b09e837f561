"""``--stablehlo-legalize-lapack-custom-calls`` on programs JAX exports for CPU (``examples/linalg/export.py``).

The legalized program runs on XLA CPU and its results are compared with the original (jaxlib's LAPACK
kernels) on the same inputs. Both sides are backward stable, so the relative forward difference is
bounded by ``c * n * eps * cond(A)`` (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
Thm 8.5 for triangular solves, Thm 10.3 / 10.5 for Cholesky): the tolerances below are that bound with a
stated constant, evaluated on the inputs' condition number.
"""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg.lapack
import scipy.optimize

import hlokit
import hlokit.passes.stablehlo_legalize_lapack_custom_calls as lapack_pass
from hlokit.passes.lapack import balance as lapack_balance
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes.builder import Emitter
from hlokit.passes import run_pipeline

from conftest import REPO
from sweeps import f32_and_c128_by_default

_spec = importlib.util.spec_from_file_location("hlokit_linalg_export", REPO / "examples" / "linalg" / "export.py")
export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export)

PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"
STRICT = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls{strict=true}))"

#: Functions whose every LAPACK call is potrf or trsm.
FULL = [
    "cholesky",
    "cho_solve",
    "solve_triangular_lower",
    "solve_triangular_upper_trans_unit",
    "solve_triangular_lower_adjoint",
    "triangular_solve_right",
]
#: Condition numbers per precision (well and ill conditioned).
CONDS = {"float32": (10.0, 1e3), "complex64": (10.0, 1e3), "float64": (10.0, 1e8), "complex128": (10.0, 1e8)}
#: The constant c of the bound c * n * eps * cond.
C = 8.0


def _legalize(text: str, pipeline: str = PIPELINE) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, pipeline)
    return str(m)


def _cond(a: np.ndarray) -> float:
    return float(np.max(np.linalg.cond(a.astype(np.complex128))))


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(want))), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(got - want))) / scale


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
@pytest.mark.parametrize(
    "name, batch", [(name, (2, 3)) for name in FULL] + [("cholesky", ()), ("solve_triangular_lower", ())])
def test_legalized_equals_lapack_on_xla_cpu(name, dtype, batch):
    n = 6
    text = export.lower(name, dtype, batch, n)
    assert "lapack_" in text
    legal = _legalize(text)
    assert "lapack_" not in legal
    original, legalized = backend.compile(text), backend.compile(legal)
    eps = np.finfo(np.dtype(dtype)).eps
    for seed, cond in enumerate(CONDS[dtype]):  # well and ill conditioned
        args = export.inputs(name, dtype, batch, n, cond=cond, seed=seed)
        kappa = _cond(args[0])
        for g, w in zip(legalized(*args), original(*args)):
            assert g.shape == w.shape and g.dtype == w.dtype
            assert _rel(g, w) <= C * n * eps * kappa, (name, dtype, cond, _rel(g, w), kappa)


@pytest.mark.parametrize("dtype", export.DTYPES)
def test_cholesky_not_positive_definite_gives_nan_like_lapack(dtype):
    # Batch element 1 is indefinite: LAPACK reports info > 0 and JAX returns NaN there.
    n = 4
    text = export.lower("cholesky", dtype, (3,), n)
    (a,) = export.inputs("cholesky", dtype, (3,), n)
    a[1] = a[1] - 2.0 * np.eye(n)
    want = backend.compile(text)(a)[0]
    got = backend.compile(_legalize(text))(a)[0]
    lower = np.tril(np.ones((n, n), bool))
    assert np.isnan(want[1][lower]).all() and np.isnan(got[1][lower]).all()
    np.testing.assert_array_equal(got[1][~lower], want[1][~lower])  # zeros above (jnp masks)
    np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=C * n * np.finfo(np.dtype(dtype)).eps * 10)



@pytest.mark.parametrize("dtype", export.DTYPES)
def test_interpreter_cho_solve_not_positive_definite_gives_nan_like_xla(dtype):
    # The NaN factor reaches the triangular solves: the interpreter, like XLA, returns NaNs for that batch
    # element (it used to stop with LAPACK's "Singular matrix" on complex inputs).
    n = 4
    text = export.lower("cho_solve", dtype, (3,), n)
    a, b = export.inputs("cho_solve", dtype, (3,), n)
    a[1] = a[1] - 2.0 * np.eye(n)
    want = backend.compile(text)(a, b)[0]
    got = np.asarray(hlokit.interpret(text, [a, b])[0])
    assert np.isnan(want[1]).all() and np.isnan(got[1]).all()
    np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=C * n * np.finfo(np.dtype(dtype)).eps * 10)

# The custom call as JAX emits it (column-major layouts: LAPACK reads the matrix, not its transpose).
_POTRF = """
func.func @main(%a: tensor<3x4x4x{t}>) -> (tensor<3x4x4x{t}>, tensor<3xi32>) {{
  %0:2 = stablehlo.custom_call @lapack_{c}potrf_ffi(%a) {{mhlo.backend_config = {{uplo = {uplo} : ui8}},
      mhlo.frontend_attributes = {{num_batch_dims = "1"}}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>],
      result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]}}
      : (tensor<3x4x4x{t}>) -> (tensor<3x4x4x{t}>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<3x4x4x{t}>, tensor<3xi32>
}}
"""
_LETTER = {"float32": ("s", "f32"), "float64": ("d", "f64"), "complex64": ("c", "complex<f32>"),
           "complex128": ("z", "complex<f64>")}


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_potrf_factor_and_info_match_lapack(dtype, uplo):
    c, t = _LETTER[dtype]
    text = _POTRF.format(c=c, t=t, uplo=ord(uplo))
    n = 4
    (a,) = export.inputs("cholesky", dtype, (3,), n, cond=100.0)
    a[2] = a[2] - 2.0 * np.eye(n)  # indefinite: info > 0
    want_f, want_info = backend.compile(text)(a)
    got_f, got_info = backend.compile(_legalize(text))(a)
    assert got_info.dtype == np.int32 and got_info.shape == (3,)
    assert want_info[0] == want_info[1] == 0 and want_info[2] > 0
    np.testing.assert_array_equal(got_info != 0, want_info != 0)
    # The computed triangle: backward-stable factors; the other triangle: the input, as LAPACK leaves it.
    tri = np.tril if uplo == "L" else np.triu
    tol = C * n * np.finfo(np.dtype(dtype)).eps * _cond(a[:2])
    assert _rel(tri(got_f[:2]), tri(want_f[:2])) <= tol
    other = np.triu if uplo == "L" else np.tril
    np.testing.assert_array_equal(other(got_f, 1) if uplo == "L" else other(got_f, -1),
                                  other(a, 1) if uplo == "L" else other(a, -1))


def test_committed_examples_are_what_export_py_writes():
    import jax

    for name, dtype, batch, n in export.COMMITTED:
        text = (REPO / "examples" / "linalg" / export.file_name(name, dtype, batch, n)).read_text()
        if f"with jax {jax.__version__}:" not in text.splitlines()[0]:
            pytest.skip(f"the examples were exported by another jax release ({text.splitlines()[0]}); "
                        f"this is jax {jax.__version__}, which lowers differently")
        assert export.export(name, dtype, batch, n) == text, name


def test_every_committed_example_is_fully_legalized():
    # Every jnp.linalg program of examples/linalg/, in every element type: no LAPACK call is left.
    for name, dtype, batch, n in export.COMMITTED:
        legal = _legalize((REPO / "examples" / "linalg" / export.file_name(name, dtype, batch, n)).read_text())
        assert "lapack_" not in legal, (name, dtype, batch)


def test_examples_cholesky_is_fully_legalized_and_runs():
    text = (REPO / "examples" / "cholesky.mlir").read_text()
    legal = _legalize(text)
    assert "custom_call" not in legal
    x = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    want = backend.compile(text)(x)[0]
    got = backend.compile(legal)(x)[0]
    assert _rel(got, want) <= 1e-4


#: A jaxlib LAPACK target that jax does not emit (``?gesv``, LU solve in one call): not in the pass's table.
_OTHER_TARGET = """
func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0:3 = stablehlo.custom_call @lapack_sgesv_ffi(%a, %b) : (tensor<4x4xf32>, tensor<4x2xf32>)
      -> (tensor<4x4xf32>, tensor<4x2xf32>, tensor<i32>)
  return %0#1 : tensor<4x2xf32>
}
"""


def test_other_targets_are_left_as_they_are():
    legal = _legalize(_OTHER_TARGET)
    assert "lapack_sgesv_ffi" in legal and legal == str(hlokit.parse(_OTHER_TARGET, context=hlokit.make_context()))


#: Functions whose LAPACK calls are getrf and trsm.
LU_FUNCTIONS = ["lu", "lu_factor", "solve", "inv", "det", "slogdet", "matrix_power"]


def _lu_cases():
    # The default run: every function in f32 and c128, lu and solve in all four types; -m slow: all.
    for name in LU_FUNCTIONS:
        for dtype in export.DTYPES:
            quick = dtype in ("float32", "complex128") or name in ("lu", "solve")
            yield pytest.param(name, dtype, marks=() if quick else pytest.mark.slow)


@pytest.mark.parametrize("name, dtype", list(_lu_cases()))
def test_getrf_programs_equal_lapack_on_xla_cpu(name, dtype):
    # lu_factor (jax.scipy.linalg) takes one matrix; the others are batched 2x3.
    batch = () if name == "lu_factor" else (2, 3)
    n = 6
    text = export.lower(name, dtype, batch, n)
    legal = _legalize(text)
    assert "lapack_" not in legal and "stablehlo.while" in legal
    original, legalized = backend.compile(text), backend.compile(legal)
    eps = np.finfo(np.dtype(dtype)).eps
    for seed, cond in enumerate(CONDS[dtype]):
        args = export.inputs(name, dtype, batch, n, cond=cond, seed=seed)
        kappa = _cond(args[0])
        for g, w in zip(legalized(*args), original(*args)):
            assert g.shape == w.shape and g.dtype == w.dtype
            if g.dtype.kind == "i":  # pivots and permutations: the same rows chosen as LAPACK
                np.testing.assert_array_equal(g, w)
            else:
                # inv and matrix_power(-3) amplify by cond more than once (A^-3: cond^3 at most).
                power = 3 if name == "matrix_power" else 1
                assert _rel(g, w) <= C * n * eps * kappa**power, (name, dtype, cond, _rel(g, w), kappa)


_GETRF = """
func.func @main(%a: tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3xi32>, tensor<2xi32>) {
  %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {},
      mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>],
      result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]}
      : (tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3xi32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x3xf64>, tensor<2x3xi32>, tensor<2xi32>
}
"""


def test_getrf_singular_factors_pivots_and_info_match_lapack():
    a = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],    # info 3 (last pivot is 0)
                  [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [0.0, 0.0, 3.0]]])   # info 1, first column zero
    want = backend.compile(_GETRF)(a)
    got = backend.compile(_legalize(_GETRF))(a)
    np.testing.assert_array_equal(got[2], want[2])
    assert list(want[2]) == [3, 1]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[0], want[0], atol=1e-15)


def test_strict_refuses_an_unlegalized_target_with_a_location():
    text = _OTHER_TARGET
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="gesv.mlir")
    before = str(m)
    with pytest.raises(PassError) as info:
        run_pipeline(m, STRICT)
    assert str(info.value).startswith("gesv.mlir:3:")
    assert "error: cannot legalize custom_call @lapack_sgesv_ffi (legalized LAPACK routines: gees, geev" in \
        str(info.value)
    assert str(m) == before


def test_malformed_backend_config_is_a_located_error_and_changes_nothing():
    text = _POTRF.format(c="s", t="f32", uplo=ord("X"))
    m = hlokit.parse(text, context=hlokit.make_context())
    before = str(m)
    with pytest.raises(PassError, match="uplo"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before


_GEEV_3_RESULTS = """
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}}
      : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<i32>
}
"""


@pytest.mark.parametrize("text, message", [
    (_GEEV_3_RESULTS, "bad.mlir:3:.*geev of tensor<3x3xf32> has 3 results, expected 5: tensor<3xf32>, tensor<3xf32>"),
    (_POTRF.format(c="s", t="f32", uplo=ord("L")).replace("tensor<3xi32>", "tensor<3xi64>"),
     "bad.mlir:3:.*potrf: result #1 has type tensor<3xi64>, expected tensor<3xi32>"),
])
def test_results_unlike_the_kernels_are_a_located_error_and_change_nothing(text, message):
    # A hand-written call whose results are not those jaxlib's kernel writes: refused at the call.
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="bad.mlir")
    before = str(m)
    with pytest.raises(PassError, match=message):
        run_pipeline(m, PIPELINE)
    assert str(m) == before


def test_dynamic_shape_is_a_located_error_and_changes_nothing():
    text = _POTRF.format(c="s", t="f32", uplo=ord("L")).replace("tensor<3x4x4xf32>", "tensor<?x4x4xf32>")
    text = text.replace("tensor<3xi32>", "tensor<?xi32>")
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="dyn.mlir")
    before = str(m)
    with pytest.raises(PassError, match="dyn.mlir:3:.*dynamic shapes are not supported"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before


def test_backend_config_reads_flags_as_characters():
    text = export.lower("solve_triangular_upper_trans_unit", "float32", (), 4)
    m = hlokit.parse(text, context=hlokit.make_context())
    calls = []
    m.operation.walk(lambda o: calls.append(o) or 0 if o.name == "stablehlo.custom_call" else 0)
    (call,) = [o for o in calls if lapack_pass.lapack_routine(o) == ("s", "trsm")]
    assert lapack_pass.backend_config(call) == {"side": "L", "uplo": "U", "trans_x": "T", "diag": "U"}


def _interpret_legalized(name, dtype, n):
    """The legalized program of ``name`` (batch 2, n x n) on the interpreter, the original on XLA CPU, and
    the error bound ``C n eps cond(A)`` between them: ``(got, want, tol)``."""
    text = export.lower(name, dtype, (2,), n)
    args = export.inputs(name, dtype, (2,), n, cond=10.0)
    want = backend.compile(text)(*args)
    got = hlokit.interpret(_legalize(text), args)
    return got, want, C * n * np.finfo(np.dtype(dtype)).eps * _cond(args[0])


@pytest.mark.parametrize("dtype", export.DTYPES)
@pytest.mark.parametrize("name", ["solve_triangular_lower", "solve_triangular_lower_adjoint", "triangular_solve_right"])
def test_interpreter_runs_legalized_triangular_solves(name, dtype):
    got, want, tol = _interpret_legalized(name, dtype, 5)
    for g, w in zip(got, want):
        assert _rel(np.asarray(g), w) <= tol



@pytest.mark.parametrize("dtype", export.DTYPES)
@pytest.mark.parametrize("name", ["lu", "solve", "inv", "slogdet"])
def test_interpreter_runs_legalized_getrf_programs(name, dtype):
    got, want, tol = _interpret_legalized(name, dtype, 4)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        if g.dtype.kind == "i":
            np.testing.assert_array_equal(g, w)
        else:
            assert _rel(g, w) <= tol

# -- numpy references of the loop algorithms (tests/pytest/lapack_reference.py) against LAPACK -----------

import lapack_reference as reference  # noqa: E402

_BATCH = (2, 3)


def _matrix(dtype, shape, cond, seed):
    """``U diag(s) V^H`` with singular values from 1 to 1/cond (random unitary U, V)."""
    rng = np.random.default_rng(seed)
    cplx = np.dtype(dtype).kind == "c"
    m, n = shape[-2], shape[-1]

    def unitary(k):
        x = rng.standard_normal((*shape[:-2], k, k))
        if cplx:
            x = x + 1j * rng.standard_normal(x.shape)
        return np.linalg.qr(x)[0]

    k = min(m, n)
    s = np.geomspace(1.0, 1.0 / cond, k)
    a = (unitary(m)[..., :, :k] * s[..., None, :]) @ np.conj(np.swapaxes(unitary(n)[..., :, :k], -1, -2))
    return a.astype(dtype)


def _eps(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


# The oracle is jaxlib's LAPACK itself (jax.lax.linalg on CPU calls ?getrf, ?geqrf + ?orgqr/?ungqr).


@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6)])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_reference_getrf_matches_lapack(dtype, shape):
    a = _matrix(dtype, (*_BATCH, *shape), 100.0, 1)
    lu, ipiv, info = reference.getrf(a)
    with jax.enable_x64(True):
        want_lu, want_piv, _ = (np.asarray(x) for x in jax.lax.linalg.lu(a))
    np.testing.assert_array_equal(ipiv, want_piv + 1)  # jax returns LAPACK's pivots minus 1
    assert (info == 0).all()
    assert _rel(lu, want_lu) <= 8 * min(shape) * _eps(dtype) * 100.0


def test_reference_getrf_singular_reports_info_like_lapack():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    text = export.lower("lu", "float64", (), 3)
    getrf = text[text.index("stablehlo.custom_call"):].split("\n")[0]
    assert "lapack_dgetrf_ffi" in getrf
    module = (
        'func.func @main(%arg0: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>) {\n'
        f'  %0:3 = {getrf}\n'
        '  return %0#0, %0#1, %0#2 : tensor<3x3xf64>, tensor<3xi32>, tensor<i32>\n}'
    )
    want_lu, want_piv, want_info = backend.compile(module)(a)
    lu, ipiv, info = reference.getrf(a)
    assert info == want_info == 3
    np.testing.assert_array_equal(ipiv, want_piv)
    np.testing.assert_allclose(lu, want_lu, atol=1e-15)


@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6)])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_reference_geqrf_orgqr_match_lapack(dtype, shape):
    a = _matrix(dtype, (*_BATCH, *shape), 100.0, 2)
    qr, tau = reference.geqrf(a)
    m, n = shape
    k = min(m, n)
    tol = 16 * max(m, n) * _eps(dtype)
    q = reference.orgqr(qr[..., :, :k], tau)
    r = np.triu(qr[..., :k, :])
    with jax.enable_x64(True):
        want_q, want_r = (np.asarray(x) for x in jnp.linalg.qr(a))
        want_full = np.asarray(jnp.linalg.qr(a, mode="complete")[0])
    # Same Householder conventions (signs of R's diagonal, phases): same Q and R up to rounding.
    assert _rel(q, want_q) <= tol * 100.0  # forward error with cond(A) = 100
    assert _rel(r, want_r) <= tol * 100.0
    # Q R = A and Q^H Q = I (backward stability, independent of the condition number).
    assert _rel(q @ r, a) <= tol
    assert _rel(np.conj(np.swapaxes(q, -1, -2)) @ q, np.eye(k)) <= tol
    # Complete Q (orgqr of the zero-padded factor, as jnp.linalg.qr(mode="complete") calls it).
    if m > n:
        padded = np.concatenate([qr, np.zeros((*_BATCH, m, m - n), qr.dtype)], axis=-1)
        full = reference.orgqr(padded, tau)
        assert _rel(full, want_full) <= tol * 100.0


@pytest.mark.parametrize("dtype", export.DTYPES)
def test_reference_syevd_matches_lapack(dtype):
    n = 6
    a = _matrix(dtype, (*_BATCH, n, n), 1.0, 3)
    h = a + np.conj(np.swapaxes(a, -1, -2))
    h[..., 0, 1] = 99.0  # the upper triangle is not read (uplo 'L')
    v, w, info = reference.syevd(h)
    herm = np.tril(h) + np.conj(np.swapaxes(np.tril(h, -1), -1, -2))
    want_w = np.linalg.eigvalsh(herm)
    norm = np.max(np.linalg.norm(herm, 2, axis=(-2, -1)))
    tol = 16 * n * _eps(dtype)
    assert (info == 0).all() and w.dtype == np.dtype(dtype).type(0).real.dtype
    assert np.max(np.abs(w - want_w)) <= tol * norm  # Weyl: eigenvalues are perfectly conditioned
    assert (np.diff(w, axis=-1) >= 0).all()
    assert _rel(herm @ v, v * w[..., None, :]) <= tol * 4
    assert _rel(np.conj(np.swapaxes(v, -1, -2)) @ v, np.eye(n)) <= tol


@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6)])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_reference_gesdd_matches_lapack(dtype, shape):
    a = _matrix(dtype, (*_BATCH, *shape), 1e3, 4)
    m, n = shape
    k = min(m, n)
    tol = 16 * max(m, n) * _eps(dtype)
    want_s = np.linalg.svd(a, compute_uv=False)
    s, _, _, _ = reference.gesdd(a, "N")
    assert np.max(np.abs(s - want_s)) <= tol  # ||A||_2 = 1: singular values are perfectly conditioned
    for mode in ("S", "A"):
        s, u, vt, info = reference.gesdd(a, mode)
        assert (info == 0).all() and np.max(np.abs(s - want_s)) <= tol
        assert u.shape[-1] == (k if mode == "S" else m) and vt.shape[-2] == (k if mode == "S" else n)
        recon = (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]
        assert _rel(recon, a) <= tol
        assert _rel(np.conj(np.swapaxes(u, -1, -2)) @ u, np.eye(u.shape[-1])) <= tol * 10
        assert _rel(vt @ np.conj(np.swapaxes(vt, -1, -2)), np.eye(vt.shape[-2])) <= tol * 10


@pytest.mark.parametrize("n", [1, 2, 6])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_reference_geev_matches_lapack(dtype, n):
    a = _matrix(dtype, (*_BATCH, n, n), 1e2, 5)
    w, vl, vr, info = reference.geev(a)
    assert (info == 0).all() and w.dtype == np.result_type(a.dtype, np.complex64)
    tol = 16 * max(n, 2) * _eps(dtype)  # ||A||_2 = 1
    for m, wm in zip(a.reshape(-1, n, n), w.reshape(-1, n)):
        want = np.linalg.eigvals(m.astype(np.complex128))
        rows, cols = scipy.optimize.linear_sum_assignment(np.abs(wm[:, None] - want[None, :]))  # (any order)
        assert np.max(np.abs(wm[rows] - want[cols])) <= tol * 1e2  # (slack for the eigenvalue condition numbers)
    assert np.max(np.abs(a @ vr - vr * w[..., None, :])) <= tol
    vh = np.conj(np.swapaxes(vl, -1, -2))
    assert np.max(np.abs(vh @ a - w[..., :, None] * vh)) <= tol
    np.testing.assert_allclose(np.linalg.norm(vr, axis=-2), 1, atol=tol)
    if a.dtype.kind == "f":  # real input, as dgeev: real eigenvalues with real vectors, exact conjugate pairs
        for wm, lm, rm in zip(w.reshape(-1, n), vl.reshape(-1, n, n), vr.reshape(-1, n, n)):
            firsts = np.flatnonzero(wm.imag > 0)
            np.testing.assert_array_equal(wm[firsts + 1], np.conj(wm[firsts]))
            for v in (lm, rm):
                assert (v[:, wm.imag == 0].imag == 0).all()
                np.testing.assert_array_equal(v[:, firsts + 1], np.conj(v[:, firsts]))


def _badly_scaled(dtype, batch: int, n: int, seed: int) -> np.ndarray:
    """``D A D^-1`` for random ``A`` and diagonal ``D`` spanning 10^-8 .. 10^8 (or 2^-40 .. 2^40), some with a
    zero row (a zero row / column is left alone by the scaling)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(batch):
        a = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if np.dtype(dtype).kind == "c" else 0)
        d = 2.0 ** rng.integers(-40, 40, n) if k % 2 else 10.0 ** rng.uniform(-8, 8, n)
        a = a * d[:, None] / d[None, :]
        if k % 5 == 0:
            a[rng.integers(n), :] = 0
        out.append(a)
    return np.stack(out).astype(dtype)


def _with_zero_patterns(a: np.ndarray, seed: int) -> np.ndarray:
    """``a`` ``[b, n, n]`` with zeros that ``?gebal``'s permutation isolates: triangular, permuted triangular,
    sparse and block-triangular batch elements, and some left dense."""
    rng = np.random.default_rng(seed)
    a = a.copy()
    n = a.shape[-1]
    for k, m in enumerate(a):
        kind = k % 6
        if kind == 0:
            m[...] = np.tril(m)
        elif kind == 1:
            p = rng.permutation(n)
            m[...] = np.triu(m)[p][:, p]
        elif kind == 2:
            m[rng.random((n, n)) < 0.6] = 0
        elif kind == 3 and n > 2:
            m[n // 2:, : n // 2] = 0
            m[1:, 0] = 0
    return a


@pytest.mark.parametrize("permute", [False, True])
@pytest.mark.parametrize("n", [1, 2, 6])
@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
def test_balancing_matches_lapack_gebal(dtype, n, permute):
    # ?geev balances first (?gebal, JOB = 'B'): P^T A P (rows and columns that isolate an eigenvalue moved to the
    # ends), then D^-1 (.) D with D powers of 2 on the rest. The emitted loops (on the interpreter and on XLA) and
    # their numpy mirror give LAPACK's own ?gebal (through scipy) bit for bit: the matrix, D, the swaps and ilo/ihi.
    a = _badly_scaled(dtype, 12, n, 11)
    if permute:
        a = _with_zero_patterns(a, 12)
    gebal = getattr(scipy.linalg.lapack, {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}[dtype] + "gebal")
    e = Emitter()
    mlir_type = {"float32": "f32", "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}[dtype]
    (x,) = e.args([(a.shape, mlir_type)])
    text = "module {\n" + e.text("main", [x], list(lapack_balance.gebal(e, x, permute))).replace("private ", "") + "}"
    runs = [reference.gebal(a, permute), hlokit.interpret(text, [a]), backend.compile(text)(a)]
    for k in range(len(a)):
        ba, lo, hi, scale, info = gebal(a[k], scale=1, permute=int(permute))
        assert info == 0
        pivots = np.concatenate([scale[:lo], scale[hi + 1:]]).astype(np.int32) - 1
        for b, d, piv, ilo, ihi in runs:
            np.testing.assert_array_equal(np.asarray(b)[k], ba)
            assert (int(np.asarray(ilo)[k]), int(np.asarray(ihi)[k])) == (lo, hi)
            np.testing.assert_array_equal(np.asarray(d)[k][lo:hi + 1], scale[lo:hi + 1])
            np.testing.assert_array_equal(np.asarray(d)[k][:lo], 1)
            piv = np.asarray(piv)[k]
            np.testing.assert_array_equal(np.concatenate([piv[:lo], piv[hi + 1:]]), pivots)


@pytest.mark.parametrize("n", [1, 2, 3, 7])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reference_real_schur_matches_lapack(dtype, n):
    a = _matrix(dtype, (*_BATCH, n, n), 1e2, 6)
    t, z, wr, wi, info = reference.real_schur(a)
    tol = 16 * max(n, 2) * _eps(dtype)  # ||A||_2 = 1
    assert (info == 0).all()
    assert np.max(np.abs(z @ t @ np.swapaxes(z, -1, -2) - a)) <= tol
    assert np.max(np.abs(np.swapaxes(z, -1, -2) @ z - np.eye(n))) <= tol
    assert (np.tril(t, -2) == 0).all()
    for m, w in zip(a.reshape(-1, n, n), (wr + 1j * wi).reshape(-1, n)):
        want = np.linalg.eigvals(m.astype(np.float64))
        rows, cols = scipy.optimize.linear_sum_assignment(np.abs(w[:, None] - want[None, :]))
        assert np.max(np.abs(w[rows] - want[cols])) <= tol * 1e2  # (slack for the eigenvalue condition numbers)


@pytest.mark.parametrize("block", [(1.0, 2.0, 3.0, 4.0), (0.0, -1.0, 1.0, 0.0), (2.0, 0.0, 5.0, 1.0), (3.0, 1.0, 0.0, 2.0),
                                   (1.0, 1e-20, -1e-20, 1.0), (1.0, 4.0, -1.0, 3.0)])
def test_reference_lanv2(block):
    # ?lanv2: G^T [[a', b'], [c', d']] G = [[a, b], [c, d]]; triangular for real eigenvalues, else a' = d', b'c' < 0.
    a, b, c, d = (np.float64(x) for x in block)
    na, nb, nc, nd, cs, sn = reference.lanv2(a, b, c, d, float(np.finfo(np.float64).eps))
    g = np.array([[cs, sn], [-sn, cs]])
    np.testing.assert_allclose(g.T @ np.array([[na, nb], [nc, nd]]) @ g, [[a, b], [c, d]], atol=1e-15 * 8)
    assert abs(cs * cs + sn * sn - 1) <= 4e-16
    real = (a - d) ** 2 + 4 * b * c >= 0
    if real:
        assert nc == 0
    else:
        assert na == nd and nb * nc < 0


# -- gtsv (jax.lax.linalg.tridiagonal_solve) -----------------------------------------------------------

# The call as jaxlib 0.10.2 emits it (dl[0] and du[n-1] are padding), returning all five results.
_GTSV = """
func.func @main(%dl: tensor<{b}{n}x{t}>, %d: tensor<{b}{n}x{t}>, %du: tensor<{b}{n}x{t}>, %rhs: tensor<{b}{n}x{k}x{t}>)
    -> (tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{k}x{t}>, tensor<{b}i32>) {{
  %0:5 = stablehlo.custom_call @lapack_{c}gtsv_ffi(%dl, %d, %du, %rhs) {{mhlo.backend_config = {{}},
      mhlo.frontend_attributes = {{num_batch_dims = "{nb}"}}, operand_layouts = [{vl}, {vl}, {vl}, {ml}],
      result_layouts = [{vl}, {vl}, {vl}, {ml}, {il}]}}
      : (tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{k}x{t}>)
      -> (tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{k}x{t}>, tensor<{b}i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4
      : tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{t}>, tensor<{b}{n}x{k}x{t}>, tensor<{b}i32>
}}
"""


def _layout(dims) -> str:
    """A minor-to-major layout attribute, as JAX writes them (matrices column-major: LAPACK is Fortran)."""
    return f"dense<[{', '.join(map(str, dims))}]> : tensor<{len(dims)}xindex>"


def _vector_and_matrix_layouts(r: int) -> tuple[str, str]:
    """The layouts of ``[*batch, n]`` vectors and ``[*batch, m, n]`` matrices with ``r`` batch dimensions."""
    return _layout(range(r, -1, -1)), _layout([r, r + 1, *range(r - 1, -1, -1)])


def _gtsv_text(dtype: str, batch: tuple[int, ...], n: int, k: int) -> str:
    c, t = _LETTER[dtype]
    r = len(batch)
    vl, ml = _vector_and_matrix_layouts(r)
    return _GTSV.format(c=c, t=t, b="".join(f"{x}x" for x in batch), n=n, k=k, nb=r, vl=vl, ml=ml,
                        il=_layout(range(r - 1, -1, -1)))


def _gtsv_inputs(dtype: str, batch, n: int, k: int, seed: int = 0):
    """Random diagonals (no diagonal dominance: partial pivoting swaps rows) with garbage in the padding."""
    rng = np.random.default_rng(seed)
    cplx = np.dtype(dtype).kind == "c"

    def rand(*shape):
        x = rng.standard_normal(shape)
        return (x + 1j * rng.standard_normal(shape) if cplx else x).astype(dtype)

    dl, d, du, b = rand(*batch, n), rand(*batch, n), rand(*batch, n), rand(*batch, n, k)
    dl[..., 0] = 7.0  # padding: LAPACK never reads it, and it comes back unchanged
    du[..., n - 1] = -5.0
    return dl, d, du, b


def _tridiagonal(dl, d, du) -> np.ndarray:
    n = d.shape[-1]
    a = np.zeros(d.shape + (n,), np.result_type(d, np.complex128) if np.iscomplexobj(d) else np.float64)
    idx = np.arange(n)
    a[..., idx, idx] = d
    a[..., idx[1:], idx[:-1]] = dl[..., 1:]
    a[..., idx[:-1], idx[1:]] = du[..., :-1]
    return a


@pytest.mark.parametrize("dtype", export.DTYPES)
@pytest.mark.parametrize("batch, n, k", [((2, 3), 6, 2), ((), 9, 1), ((2,), 2, 3), ((), 1, 2)])
def test_gtsv_equals_lapack_on_xla_cpu_and_the_interpreter(dtype, batch, n, k):
    text = _gtsv_text(dtype, batch, n, k)
    legal = _legalize(text)
    assert "lapack_" not in legal
    args = _gtsv_inputs(dtype, batch, n, k)
    want = backend.compile(text)(*args)
    eps = np.finfo(np.dtype(dtype)).eps
    tol = C * n * eps * max(_cond(_tridiagonal(*args[:3])), 1.0)
    ref = reference.gtsv(*args)
    for got in (backend.compile(legal)(*args), [np.asarray(x) for x in hlokit.interpret(text, list(args))]):
        assert [g.dtype for g in got] == [w.dtype for w in want] and [g.shape for g in got] == [w.shape for w in want]
        np.testing.assert_array_equal(got[4], want[4])
        assert not want[4].any()
        for g, w in zip(got[:4], want[:4]):  # the factors of U (the same pivots as LAPACK) and x
            assert _rel(g, w) <= tol, (dtype, _rel(g, w), tol)
        np.testing.assert_array_equal(got[0][..., 0], args[0][..., 0])  # the padding, passed through
        np.testing.assert_array_equal(got[2][..., n - 1], args[2][..., n - 1])
    for r, w in zip(ref, want):  # the numpy mirror
        assert _rel(np.asarray(r), w) <= tol
    if n > 2:
        assert (np.abs(want[1] - args[1]) > 0).any()  # some rows were eliminated (and swapped)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_gtsv_zero_pivot_info_matches_lapack_and_jax_gives_nan(dtype):
    n = 4
    dl, d, du, b = _gtsv_inputs(dtype, (3,), n, 1, seed=3)
    d[1, 0] = dl[1, 1] = 0  # element 1: the first column is zero, info 1
    d[2], dl[2], du[2] = [1, 1, 1, 0], 0, 0  # element 2: diag(1, 1, 1, 0), info n
    text = _gtsv_text(dtype, (3,), n, 1)
    want = backend.compile(text)(dl, d, du, b)
    got = backend.compile(_legalize(text))(dl, d, du, b)
    np.testing.assert_array_equal(want[4], [0, 1, n])
    np.testing.assert_array_equal(got[4], want[4])
    np.testing.assert_array_equal(reference.gtsv(dl, d, du, b)[4], want[4])
    f = jax.jit(jax.lax.linalg.tridiagonal_solve)
    with jax.enable_x64(True):
        jax_text = f.lower(dl, d, du, b).as_text()
        jax_want = np.asarray(f(dl, d, du, b))
    ours = np.asarray(hlokit.interpret(jax_text, [dl, d, du, b])[0])
    assert np.isnan(jax_want[1:]).all() and np.isnan(ours[1:]).all()
    assert _rel(ours[0], jax_want[0]) <= C * n * np.finfo(np.dtype(dtype)).eps * 100


def test_gtsv_with_a_wrong_num_batch_dims_is_a_located_error_and_changes_nothing():
    # the count is checked against the matrix operand (b), not the first one (a vector of the diagonal)
    assert not _legalize(_gtsv_text("float32", (2,), 4, 2)).count("lapack_")
    text = _gtsv_text("float32", (2,), 4, 2).replace('num_batch_dims = "1"', 'num_batch_dims = "2"')
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="gtsv.mlir")
    before = str(m)
    with pytest.raises(PassError, match=r"gtsv.mlir:4:.*num_batch_dims 2 does not match operand rank 3"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before

def test_gtsv_with_mismatched_operands_is_a_located_error_and_changes_nothing():
    text = _gtsv_text("float32", (), 4, 2).replace("%du: tensor<4xf32>", "%du: tensor<5xf32>", 1)
    text = text.replace("(tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>)",
                        "(tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4x2xf32>)")
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="gtsv.mlir")
    before = str(m)
    with pytest.raises(PassError, match=r"gtsv.mlir:4:.*gtsv operands of types"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before


# -- gehrd (jax.lax.linalg.hessenberg), sytrd / hetrd (jax.lax.linalg.tridiagonal) -------------------------

_REDUCTIONS = {
    "hessenberg": lambda a: jax.lax.linalg.hessenberg(a),
    "tridiagonal_lower": lambda a: jax.lax.linalg.tridiagonal(a, lower=True),
    "tridiagonal_upper": lambda a: jax.lax.linalg.tridiagonal(a, lower=False),
}


def _reduction_input(name: str, dtype: str, shape, seed: int = 0) -> np.ndarray:
    """Random; Hermitian for the tridiagonal reductions (only one triangle is read; a real diagonal: LAPACK's
    blocked ?hetrd leaves the imaginary part of one diagonal entry of a non-Hermitian input where its unblocked
    ?hetd2 drops it)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if name != "hessenberg":
        a = 0.5 * (a + np.conj(np.swapaxes(a, -1, -2)))
    return a.astype(dtype)


def _reflectors_q(vectors: np.ndarray, tau: np.ndarray, lower: bool) -> np.ndarray:
    """``Q = H_1 ... H_{n-1}`` from LAPACK's storage of ``?gehrd`` / ``?sytrd`` (uplo L: ``v_i`` below the
    subdiagonal of column i with an implicit 1 at row i + 1; uplo U: above the superdiagonal of column i + 1
    with its 1 at row i, applied as ``H_{n-1} ... H_1``)."""
    n = vectors.shape[-1]
    q = np.eye(n, dtype=np.complex128)
    for i in range(n - 1):
        v = np.zeros(n, np.complex128)
        if lower:
            v[i + 1] = 1
            v[i + 2:] = vectors[i + 2:, i]
            q = q @ (np.eye(n) - tau[i] * np.outer(v, np.conj(v)))
        else:
            v[i] = 1
            v[:i] = vectors[:i, i + 1]
            q = (np.eye(n) - tau[i] * np.outer(v, np.conj(v))) @ q
    return q


def _jax_program(fn, *args):
    """``(text, want)``: the 64-bit-enabled lowering of ``jax.jit(fn)`` on ``args`` and its XLA CPU results."""
    with jax.enable_x64(True):
        text = jax.jit(fn).lower(*args).as_text()
        want = [np.asarray(w) for w in jax.jit(fn)(*args)]
    return text, want


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
@pytest.mark.parametrize("name", sorted(_REDUCTIONS))
@pytest.mark.parametrize("shape", [(5, 5), (2, 6, 6), (1, 1), (2, 2)])
def test_hessenberg_and_tridiagonal_equal_lapack_on_xla_cpu_and_the_interpreter(name, dtype, shape):
    fn = _REDUCTIONS[name]
    a = _reduction_input(name, dtype, shape)
    text, want = _jax_program(fn, a)
    assert "lapack_" in text
    legal = _legalize(text)
    assert "lapack_" not in legal
    n = shape[-1]
    tol = 64 * n * np.finfo(np.dtype(dtype)).eps  # (the unblocked LAPACK loops, step for step)
    for got in (backend.compile(legal)(a), hlokit.interpret(text, [a])):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            assert g.shape == w.shape and g.dtype == w.dtype
            assert w.size == 0 or _rel(g, w) <= tol, (name, dtype, _rel(g, w))


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("name", sorted(_REDUCTIONS))
def test_hessenberg_and_tridiagonal_large_are_similarity_transforms(name, dtype):
    # n = 40: LAPACK switches to its blocked algorithms (other rounding); check what they compute instead:
    # Q^H A Q is the reduced matrix, to a backward error of a few n eps ||A||, and d, e agree with LAPACK's.
    n = 40
    fn = _REDUCTIONS[name]
    a = _reduction_input(name, dtype, (n, n), seed=4)
    text, want = _jax_program(fn, a)
    got = [np.asarray(g) for g in hlokit.interpret(text, [a])]
    eps = np.finfo(np.dtype(dtype)).eps
    norm = np.linalg.norm(a, 2)
    lower = name != "tridiagonal_upper"
    q = _reflectors_q(got[0], got[-1], lower)
    reduced = np.conj(q.T) @ a.astype(np.complex128) @ q
    if name == "hessenberg":
        expect = np.triu(got[0], -1)
    else:
        d, e = got[1], got[2]  # (real: T is real symmetric)
        expect = np.diag(d) + np.diag(e, -1) + np.diag(e, 1)
        for g, w in zip(got[1:3], want[1:3]):
            assert _rel(g, w) <= 16 * n * eps * 10, (name, _rel(g, w))
    assert np.max(np.abs(reduced - expect)) <= 16 * n * eps * norm


def test_gehrd_of_part_of_the_matrix_is_a_located_error_and_changes_nothing():
    with jax.enable_x64(False):
        text = jax.jit(jax.lax.linalg.hessenberg).lower(np.zeros((4, 4), np.float32)).as_text()
    text = text.replace("high = 4 : i32", "high = 3 : i32")
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="gehrd.mlir")
    before = str(m)
    with pytest.raises(PassError, match=r"gehrd.mlir:\d+:\d+: error: .*gehrd with low = 1, high = 3"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before


# -- geqp3 (jax.lax.linalg.qr(pivoting=True), scipy's qr(pivoting=True)) -------------------------------

_GEQP3 = """
func.func @main(%a: tensor<{b}{m}x{n}x{t}>, %p: tensor<{b}{n}xi32>)
    -> (tensor<{b}{m}x{n}x{t}>, tensor<{b}{n}xi32>, tensor<{b}{k}x{t}>) {{
  %0:3 = stablehlo.custom_call @lapack_{c}geqp3_ffi(%a, %p) {{mhlo.backend_config = {{}},
      mhlo.frontend_attributes = {{num_batch_dims = "{nb}"}}, operand_layouts = [{ml}, {vl}],
      result_layouts = [{ml}, {vl}, {vl}]}}
      : (tensor<{b}{m}x{n}x{t}>, tensor<{b}{n}xi32>) -> (tensor<{b}{m}x{n}x{t}>, tensor<{b}{n}xi32>, tensor<{b}{k}x{t}>)
  return %0#0, %0#1, %0#2 : tensor<{b}{m}x{n}x{t}>, tensor<{b}{n}xi32>, tensor<{b}{k}x{t}>
}}
"""


def _geqp3_text(dtype: str, batch, m: int, n: int) -> str:
    c, t = _LETTER[dtype]
    r = len(batch)
    vl, ml = _vector_and_matrix_layouts(r)
    return _GEQP3.format(c=c, t=t, b="".join(f"{x}x" for x in batch), m=m, n=n, k=min(m, n), nb=r, ml=ml, vl=vl)


def _random_matrix(dtype: str, shape, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 6), (1, 1), (2, 7, 2), (12, 9)])
def test_qr_with_pivoting_equals_lapack_on_xla_cpu_and_the_interpreter(dtype, shape):
    fn = lambda a: jax.lax.linalg.qr(a, pivoting=True, full_matrices=False)  # noqa: E731
    a = _random_matrix(dtype, shape, seed=2)
    text, want = _jax_program(fn, a)
    assert "geqp3" in text
    legal = _legalize(text)
    assert "lapack_" not in legal
    tol = 64 * max(shape[-2:]) * np.finfo(np.dtype(dtype)).eps
    for got in (backend.compile(legal)(a), hlokit.interpret(text, [a])):
        q, r, p = (np.asarray(g) for g in got)
        np.testing.assert_array_equal(p, want[2])  # the same pivots as LAPACK
        assert _rel(q, want[0]) <= tol and _rel(r, want[1]) <= tol


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("batch, m, n, jpvt", [
    ((), 5, 4, [0, 0, 1, 0]), ((), 4, 6, [1, 0, 1, 0, 0, 1]), ((), 3, 5, [0, 0, 0, 0, 7]),
    ((2,), 6, 5, [[0, 1, 0, 0, 1], [1, 1, 0, 0, 0]]),
])
def test_geqp3_fixed_columns_follow_lapack(dtype, batch, m, n, jpvt):
    # Columns marked non-zero in jpvt go first, in the order of LAPACK's swaps (not a stable sort), and are
    # factored without pivoting; the free ones are pivoted after them.
    text = _geqp3_text(dtype, batch, m, n)
    a = _random_matrix(dtype, batch + (m, n), seed=3)
    p = np.array(jpvt, np.int32)
    want = backend.compile(text)(a, p)
    tol = 64 * max(m, n) * np.finfo(np.dtype(dtype)).eps
    for got in (backend.compile(_legalize(text))(a, p), hlokit.interpret(text, [a, p])):
        np.testing.assert_array_equal(np.asarray(got[1]), want[1])
        assert _rel(np.asarray(got[0]), want[0]) <= tol and _rel(np.asarray(got[2]), want[2]) <= tol


def test_geqp3_rank_deficient_pivots_like_lapack():
    # a zero column and a repeated one: exact ties go to the first column, as LAPACK's idamax
    a = _random_matrix("float64", (6, 5), seed=5)
    a[:, 1] = 0
    a[:, 3] = a[:, 0]
    text = _geqp3_text("float64", (), 6, 5)
    p = np.zeros(5, np.int32)
    want = backend.compile(text)(a, p)
    got = hlokit.interpret(text, [a, p])
    np.testing.assert_array_equal(np.asarray(got[1]), want[1])
    tol = 64 * 6 * np.finfo(np.float64).eps
    # rank 3: the first three reflectors agree; the fourth reflects rounding noise (any tau is as good)
    assert _rel(np.asarray(got[2])[:3], want[2][:3]) <= tol
    assert _rel(np.triu(np.asarray(got[0]))[:3], np.triu(want[0])[:3]) <= tol
    assert abs(np.asarray(got[0])[3, 3]) <= tol and abs(want[0][3, 3]) <= tol
