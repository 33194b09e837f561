"""``--stablehlo-legalize-cuda-custom-calls`` / ``--stablehlo-legalize-rocm-custom-calls``: jaxlib's GPU solver
custom calls rewritten as StableHLO, run on XLA CPU and on hlokit's interpreter.

Oracles:

1. JAX's export back-compatibility data (``jax_back_compat``): programs JAX exported for cuda / rocm with the
   outputs the GPU gave. Deterministic factorizations (potrf, getrf, geqrf + orgqr, sytrd, gtsv2) are compared
   entry by entry; eigen- and singular vectors are unique only up to a unit factor per vector (and to a basis
   of each cluster of equal values), so they are compared through their spectral projectors
   ``X_g X_g^H`` per cluster ``g`` (Davis-Kahan: the error of a projector is bounded by the residual over the
   gap to the rest of the spectrum) and, for the SVD, through ``U diag(s) V^H``.
2. ``jax.export(..., platforms=["cuda"|"rocm"])`` of ``jnp.linalg`` / ``jax.lax.linalg`` functions over the
   element types and a batched shape, against JAX on CPU (jaxlib's LAPACK kernels: the same factorizations)
   and numpy (eigenvalues, singular values, residuals).
3. Refusals: a call with another operand count, a bad ``backend_config`` flag, unexpected layouts or a bad
   legacy descriptor gets a located error and the module is left unchanged.

Bounds are ``C * n * eps`` times the relevant condition number (Higham, "Accuracy and Stability of Numerical
Algorithms", 2nd ed.: backward-stable factorizations; Golub & Van Loan, 4th ed., §8.1.3 / §8.6.1 for the
perturbation of eigen- and singular subspaces).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.lax import linalg as lax_linalg

import hlokit
import hlokit.passes.stablehlo_legalize_gpu_custom_calls as gpu_pass
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline
from hlokit.passes.prepare import plan

import jax_back_compat

C = 64.0  # the constant of the bounds


def _pipeline(platform: str, strict: bool = False) -> str:
    opt = "{strict=true}" if strict else ""
    return f"builtin.module(func.func(stablehlo-legalize-{platform}-custom-calls{opt}))"


def _eps(x: np.ndarray) -> float:
    return float(np.finfo(np.asarray(x).real.dtype).eps)


def _run(text: str, inputs, engine: str) -> list[np.ndarray]:
    """Prepare ``text`` for ``engine`` on CPU (hlokit.prepare: the policy picks the GPU pass) and run it."""
    module = hlokit.parse(text, context=hlokit.make_context())
    prepared = hlokit.prepare(module, engine=engine, platform="cpu")
    assert "custom_call @cu" not in str(prepared.module) and "custom_call @hip" not in str(prepared.module)
    if engine == "xla":
        return [np.asarray(r) for r in backend.compile(str(prepared.module))(*inputs)]
    return [np.asarray(r) for r in hlokit.interpret(prepared.module, [np.asarray(x) for x in inputs])]


def _close(got: np.ndarray, want: np.ndarray, tol: float, what: str) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, got.dtype, want.shape, want.dtype)
    if want.size == 0:
        return
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    scale = max(float(np.max(np.abs(want))), np.finfo(np.float64).tiny)
    err = float(np.max(np.abs(got - want))) / scale
    assert err <= tol, f"{what}: relative error {err:.3g} > {tol:.3g}"


def _clusters(values: np.ndarray, tol: float) -> list[list[int]]:
    """Indices of ``values`` (1-D, sorted either way) grouped where neighbours differ by at most ``tol``."""
    groups = [[0]]
    for i in range(1, len(values)):
        if abs(values[i] - values[i - 1]) <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _same_subspaces(got: np.ndarray, want: np.ndarray, values: np.ndarray, what: str) -> None:
    """The columns of ``got`` and ``want`` (``[*b, m, p]``) span the same subspace for every cluster of
    ``values`` (``[*b, q]``; columns past ``q`` belong to the value 0: a full U's completion); the bound is
    ``C n eps scale / gap`` for a cluster at distance ``gap`` from the rest of the spectrum."""
    eps = _eps(want)
    m, p = want.shape[-2:]
    got, want = got.reshape(-1, m, p), want.reshape(-1, m, p)
    values = values.reshape(got.shape[0], -1).astype(np.float64)
    for b in range(got.shape[0]):
        vals = np.concatenate([values[b], np.zeros(max(0, p - values.shape[1]))])[:p]
        scale = max(float(np.max(np.abs(vals))), 1e-30)
        order = np.argsort(vals, kind="stable")
        groups = _clusters(vals[order], np.sqrt(eps) * scale)
        for g in groups:
            idx = order[g]
            rest = np.delete(vals, idx)
            gap = float(np.min(np.abs(rest[:, None] - vals[idx][None, :]))) if rest.size else np.inf
            tol = min(C * max(m, p) * eps * scale / max(gap, 1e-30), 0.5)
            pg = got[b][:, idx] @ got[b][:, idx].conj().T
            pw = want[b][:, idx] @ want[b][:, idx].conj().T
            err = float(np.max(np.abs(pg - pw)))
            assert err <= tol, f"{what}: projector of values {vals[idx]} differs by {err:.3g} > {tol:.3g}"


# --- 1. JAX's back-compatibility data ----------------------------------------------------------------------

#: stem -> how its outputs compare: "exact" (entry by entry), "eigh" (v, w), "svd" (u, s, vt).
BACK_COMPAT = {
    "cuda_cholesky_solver_potrf": "exact",
    "cuda_eigh_cusolver_syev": "eigh",
    "cuda_lu_cusolver_getrf": "exact",
    "cuda_qr_cusolver_geqrf": "exact",
    "cuda_svd_cusolver_gesvd": "svd",
    "cuda_tridiagonal_cusolver_sytrd": "exact",
    "cuda_tridiagonal_solve": "exact",
    "rocm_cholesky_solver_potrf": "exact",
    "rocm_eigh_hipsolver_syev": "eigh",
    "rocm_lu_rocsolver_getrf": "exact",
    "rocm_qr_hipsolver_geqrf": "exact",
    "rocm_svd_hipsolver_gesvd": "svd",
    "rocm_tridiagonal_hipsolver_sytrd": "exact",
    "gpu_eigh_solver_syev": "eigh",
}


def _check_case(kind: str, got: list[np.ndarray], want: tuple[np.ndarray, ...], name: str) -> None:
    assert len(got) == len(want), name
    n = max(max(w.shape[-2:], default=1) for w in want if w.ndim)
    tol = C * n * _eps(want[0])
    if kind == "exact":
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, tol, f"{name} output {i}")
    elif kind == "eigh":
        v, w = got
        _close(w, want[1], tol, f"{name} eigenvalues")
        _same_subspaces(v, want[0], want[1], f"{name} eigenvectors")
    else:
        u, s, vt = got
        _close(s, want[1], tol, f"{name} singular values")
        k = s.shape[-1]
        _same_subspaces(u, want[0], want[1], f"{name} U")
        _same_subspaces(np.swapaxes(vt, -1, -2).conj(), np.swapaxes(want[2], -1, -2).conj(), want[1], f"{name} V")
        rec = (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]
        rec_want = (want[0][..., :, :k] * want[1][..., None, :]) @ want[2][..., :k, :]
        _close(rec, rec_want, tol, f"{name} U diag(s) V^H")


#: The element types of the cases the default run gives the interpreter (the others are slow).
QUICK = ("f32", "c128", "f32_syevj")


def _quick(case_name: str) -> bool:
    return case_name.rsplit("/", 1)[-1] in QUICK


def _cases(stem: str, engine: str, quick: bool | None) -> None:
    cases = [c for c in jax_back_compat.load(stem) if quick is None or _quick(c.name) == quick]
    for case in cases:
        got = _run(case.text, case.inputs, engine)
        _check_case(BACK_COMPAT[stem], got, case.expected, case.name)


@pytest.mark.parametrize("stem", sorted(BACK_COMPAT))
def test_back_compat_on_interpreter(stem):
    _cases(stem, "interpreter", None)


@pytest.mark.parametrize("stem", sorted(BACK_COMPAT))
def test_back_compat_on_xla_cpu(stem):
    _cases(stem, "xla", True)


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(BACK_COMPAT))
def test_back_compat_on_xla_cpu_every_type(stem):
    _cases(stem, "xla", False)


def test_policy_runs_the_gpu_passes_off_their_platform():
    case = jax_back_compat.load("cuda_cholesky_solver_potrf")[0]
    module = hlokit.parse(case.text, context=hlokit.make_context())
    flags = [a.flag for a in plan(module, engine="xla", platform="cpu")]
    assert "stablehlo-legalize-cuda-custom-calls" in flags
    assert not [a for a in plan(module, engine="xla", platform="cuda")
                if a.flag == "stablehlo-legalize-cuda-custom-calls"]
    rocm = hlokit.parse(jax_back_compat.load("rocm_cholesky_solver_potrf")[0].text, context=hlokit.make_context())
    assert "stablehlo-legalize-rocm-custom-calls" in [a.flag for a in plan(rocm, engine="xla", platform="cuda")]
    assert "stablehlo-legalize-rocm-custom-calls" not in [a.flag for a in plan(rocm, engine="xla", platform="rocm")]


# --- 2. jax.export for cuda / rocm against JAX on CPU and numpy ----------------------------------------------

DTYPES = ["float32", "float64", "complex64", "complex128"]


def _export(fn, platform: str, *args) -> str:
    checks = [jax.export.DisabledSafetyCheck.custom_call(t) for t in
              ("cusolver_gesvdp_ffi", "hipsolver_gesvdp_ffi", "hipsparse_gtsv2_ffi", "hipsolver_gesdd_ffi")]
    with jax.enable_x64(True):
        exp = jax.export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(
            *[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args])
    return exp.mlir_module()


def _cpu(fn, *args):
    with jax.enable_x64(True):
        out = jax.jit(fn)(*args)
    return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]


def _matrix(dtype: str, shape, cond: float = 10.0, seed: int = 0, hermitian: bool = False) -> np.ndarray:
    """A random ``shape`` matrix (batch leading) with 2-norm condition number about ``cond``."""
    rng = np.random.default_rng(seed)
    cplx = np.dtype(dtype).kind == "c"
    *batch, m, n = shape

    def rand(*s):
        x = rng.standard_normal(s)
        return x + 1j * rng.standard_normal(s) if cplx else x

    k = min(m, n)
    u = np.linalg.qr(rand(*batch, m, m))[0][..., :, :k]
    v = u if hermitian else np.linalg.qr(rand(*batch, n, n))[0][..., :, :k]
    s = np.geomspace(1.0, 1.0 / cond, k)
    if hermitian:
        s = s * rng.choice([-1.0, 1.0], k)
    return ((u * s) @ np.swapaxes(v, -1, -2).conj()).astype(dtype)


def _spd(dtype: str, shape, seed: int = 0) -> np.ndarray:
    a = _matrix(dtype, shape, seed=seed, hermitian=True)
    return (a @ np.swapaxes(a, -1, -2).conj()).astype(dtype)


#: name -> (function, inputs(dtype, batch), comparison): "exact" against JAX on CPU, "eigh", "svd".
FUNCTIONS = {
    "cholesky": (jnp.linalg.cholesky, lambda t, b: [_spd(t, b + (4, 4))], "exact"),
    "lu": (lax_linalg.lu, lambda t, b: [_matrix(t, b + (3, 4))], "exact"),
    "qr": (jnp.linalg.qr, lambda t, b: [_matrix(t, b + (4, 3))], "exact"),
    "tridiagonal_upper": (lambda a: lax_linalg.tridiagonal(a, lower=False),
                          lambda t, b: [_matrix(t, b + (4, 4), hermitian=True)], "exact"),
    "tridiagonal_solve": (lax_linalg.tridiagonal_solve,
                          lambda t, b: [x.astype(t) for x in (np.r_[0, 1, 2, 3.0], np.r_[5, 6, 7, 8.0],
                                                              np.r_[1, 2, 3, 0.0])] +
                          [_matrix(t, (4, 2), seed=1)], "exact"),
    "eigh": (jnp.linalg.eigh, lambda t, b: [_matrix(t, b + (4, 4), hermitian=True)], "eigh"),
    "svd": (jnp.linalg.svd, lambda t, b: [_matrix(t, b + (4, 3))], "svd"),
    "svd_wide_qr": (lambda a: lax_linalg.svd(a, full_matrices=False, algorithm=lax_linalg.SvdAlgorithm.QR),
                    lambda t, b: [_matrix(t, b + (3, 5))], "svd"),
    "svd_values_qr": (lambda a: lax_linalg.svd(a, compute_uv=False, algorithm=lax_linalg.SvdAlgorithm.QR),
                      lambda t, b: [_matrix(t, b + (4, 3))], "values"),
    "svd_values_jacobi": (lambda a: jnp.linalg.svd(a, compute_uv=False),
                          lambda t, b: [_matrix(t, b + (3, 5))], "values"),
    "svd_polar": (lambda a: lax_linalg.svd(a, algorithm=lax_linalg.SvdAlgorithm.POLAR),
                  lambda t, b: [_matrix(t, b + (4, 3))], "svd"),
}


def _compare(kind: str, fn, args, got: list[np.ndarray], what: str) -> None:
    a = args[0]
    eps = _eps(a)
    n = max(a.shape[-2:])
    cond = 10.0 ** 2  # (inputs are built with cond 10; squared for the Gram-type problems)
    tol = C * n * eps * cond
    if kind == "exact":
        want = _cpu(fn, *args)
        assert len(got) == len(want), what
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, tol, f"{what} output {i}")
        return
    with jax.enable_x64(True):
        a128 = a.astype(np.complex128)
    if kind == "eigh":
        w, v = got  # (jnp.linalg.eigh: eigenvalues first)
        _close(w, np.linalg.eigvalsh(a).astype(w.dtype), tol, f"{what} eigenvalues")
        res = a128 @ v - v * w[..., None, :]
        assert np.max(np.abs(res)) <= tol * np.max(np.abs(w)), what
        _close(np.swapaxes(v, -1, -2).conj() @ v, np.broadcast_to(np.eye(n, dtype=v.dtype), v.shape).copy(), tol,
               f"{what} V^H V")
        return
    s_want = np.linalg.svd(a, compute_uv=False).astype(got[0].dtype if kind == "values" else got[1].dtype)
    if kind == "values":
        _close(got[0], s_want, tol, f"{what} singular values")
        return
    u, s, vt = got
    _close(s, s_want, tol, f"{what} singular values")
    k = s.shape[-1]
    _close(((u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]).astype(a.dtype), a, tol, f"{what} U diag(s) V^H")
    for x, name in ((u, "U"), (np.swapaxes(vt, -1, -2).conj(), "V")):
        gram = np.swapaxes(x, -1, -2).conj() @ x
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), gram.shape).copy()
        _close(gram, eye, tol, f"{what} {name}^H {name}")


def _exported_case(name: str, platform: str, dtype: str, batch, engine: str) -> None:
    fn, make, kind = FUNCTIONS[name]
    args = make(dtype, batch)
    text = _export(fn, platform, *args)
    prefix = "cu" if platform == "cuda" else "hip"
    assert f"custom_call @{prefix}" in text, "the export should hold a GPU custom call"
    got = _run(text, args, engine)
    _compare(kind, fn, args, got, f"{name} {platform} {dtype} {batch} {engine}")


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_exported_on_interpreter(name, dtype, platform):
    _exported_case(name, platform, dtype, (), "interpreter")


@pytest.mark.parametrize("name", ["cholesky", "lu", "qr", "eigh", "svd", "tridiagonal_upper"])
def test_exported_batched_on_interpreter(name):
    _exported_case(name, "cuda", "complex64", (2, 3), "interpreter")
    _exported_case(name, "rocm", "float64", (2,), "interpreter")


def test_exported_gesdd_rocm():
    fn = lambda a: lax_linalg.svd(a, algorithm=lax_linalg.SvdAlgorithm.DIVIDE_AND_CONQUER)  # noqa: E731
    for dtype in DTYPES:
        a = _matrix(dtype, (2, 3, 5))
        text = _export(fn, "rocm", a)
        assert "hipsolver_gesdd_ffi" in text
        _compare("svd", fn, [a], _run(text, [a], "interpreter"), f"gesdd {dtype}")


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
def test_exported_econ_gesvdj_on_xla_cpu(platform):
    # m, n > 32 and full_matrices=False: gesvdj's econ mode, U [m, k] and V [n, k]
    fn = lambda a: jnp.linalg.svd(a, full_matrices=False)  # noqa: E731
    a = _matrix("float32", (34, 33))
    text = _export(fn, platform, a)
    assert "full_matrices = false" in text and "solver_gesvdj_ffi" in text
    _compare("svd", fn, [a], _run(text, [a], "xla"), f"econ gesvdj {platform}")


@pytest.mark.parametrize("name, dtype, platform", [("svd", "float32", "cuda"), ("eigh", "complex64", "rocm"),
                                                   ("lu", "float64", "cuda"), ("svd_wide_qr", "complex128", "rocm")])
def test_exported_on_xla_cpu(name, dtype, platform):
    _exported_case(name, platform, dtype, (2,), "xla")


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_exported_on_xla_cpu_every_type(name, dtype, platform):
    _exported_case(name, platform, dtype, (2,), "xla")


# --- 3. refusals -----------------------------------------------------------------------------------------

POTRF = """func.func @f(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>) {{
  %0:2 = stablehlo.custom_call @{target}({operands}) {{mhlo.backend_config = {config}, operand_layouts = [{layouts}], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]}} : ({types}) -> (tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<i32>
}}
"""
COL = "dense<[0, 1]> : tensor<2xindex>"


def _potrf(target="cusolver_potrf_ffi", config="{lower = true}", layouts=COL, operands="%arg0",
           types="tensor<4x4xf32>") -> str:
    return POTRF.format(target=target, config=config, layouts=layouts, operands=operands, types=types)


def test_potrf_text_is_legalized():
    for platform, target in (("cuda", "cusolver_potrf_ffi"), ("rocm", "hipsolver_potrf_ffi")):
        m = hlokit.parse(_potrf(target=target), context=hlokit.make_context())
        run_pipeline(m, _pipeline(platform))
        assert "custom_call" not in str(m) and "stablehlo.cholesky" in str(m)


@pytest.mark.parametrize("text, message", [
    (_potrf(operands="%arg0, %arg0", types="tensor<4x4xf32>, tensor<4x4xf32>",
            layouts=COL + ", " + COL), "cusolver_potrf_ffi with 2 operands (expected 1)"),
    (_potrf(config="{lower = 1 : ui8}"), "backend_config 'lower' is 1, expected one of False, True"),
    (_potrf(config="{lower = true, uplo = 76 : ui8}"), "unknown backend_config flag 'uplo'"),
    (_potrf(config="{}"), "backend_config 'lower' is None"),
    (_potrf(layouts="dense<[1, 0]> : tensor<2xindex>"), "operand #0 has layout [1, 0], expected [0, 1]"),
    (_potrf(config='{lower = true}, mhlo.frontend_attributes = {num_batch_dims = "1"}'),
     "num_batch_dims 1 does not match operand rank 2"),
    (_potrf().replace("tensor<4x4xf32>, tensor<i32>)\n", "tensor<4x4xf32>, tensor<i64>)\n", 1)
     .replace("-> (tensor<4x4xf32>, tensor<i32>) {", "-> (tensor<4x4xf32>, tensor<i64>) {")
     .replace("return %0#0, %0#1 : tensor<4x4xf32>, tensor<i32>", "return %0#0, %0#1 : tensor<4x4xf32>, tensor<i64>"),
     "result #1 has type tensor<i64>, expected tensor<i32>"),
    (_potrf().replace("4x4xf32", "4x4xf16"), "of element type f16 (expected one of"),
])
def test_bad_call_is_refused_with_a_located_error(text, message):
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="bad.mlir")
    before = str(m)
    with pytest.raises(PassError) as info:
        run_pipeline(m, _pipeline("cuda"))
    assert message in str(info.value)
    assert str(info.value).startswith("bad.mlir:2:")  # located at the custom call
    assert str(m) == before


def test_refusal_leaves_every_call_in_place():
    good = _potrf().replace("@f(", "@g(")
    bad = _potrf(config="{lower = 2 : ui8}")
    m = hlokit.parse(good + bad, context=hlokit.make_context())
    before = str(m)
    with pytest.raises(PassError):
        run_pipeline(m, _pipeline("cuda"))
    assert str(m) == before and str(m).count("custom_call @cusolver_potrf_ffi") == 2


def test_other_platform_and_unknown_targets():
    # The cuda pass leaves hipsolver calls alone, and an unknown cusolver target unless strict.
    m = hlokit.parse(_potrf(target="hipsolver_potrf_ffi"), context=hlokit.make_context())
    run_pipeline(m, _pipeline("cuda"))
    assert "hipsolver_potrf_ffi" in str(m)
    unknown = _potrf(target="cusolver_potrs_ffi")
    m = hlokit.parse(unknown, context=hlokit.make_context())
    run_pipeline(m, _pipeline("cuda"))
    assert "cusolver_potrs_ffi" in str(m)
    with pytest.raises(PassError, match="cannot legalize custom_call @cusolver_potrs_ffi"):
        run_pipeline(m, _pipeline("cuda", strict=True))


LEGACY = """func.func @f(%arg0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>) {{
  %0:4 = stablehlo.custom_call @hipsolver_syevj(%arg0) {{api_version = 2 : i32, backend_config = "{descriptor}", operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>]}} : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>, tensor<i32>, tensor<256xf32>)
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8xf32>
}}
"""


@pytest.mark.parametrize("descriptor, message", [
    (r"\01\00\00\00z\00\00\00\01\00\00\00\08\00\00\00\00\01\00\00", "does not match the operand's element type f32"),
    (r"\00\00\00\00\05\00\00\00\01\00\00\00\08\00\00\00\00\01\00\00", "descriptor uplo 5"),
    (r"\00\00\00\00z\00\00\00\01\00\00\00\07\00\00\00\00\01\00\00", "descriptor batch 1, n 7"),
    (r"\00\00\00\00z\00\00\00", "opaque descriptor of 8 bytes"),
])
def test_bad_legacy_descriptor_is_refused(descriptor, message):
    m = hlokit.parse(LEGACY.format(descriptor=descriptor), context=hlokit.make_context())
    before = str(m)
    with pytest.raises(PassError, match=message):
        run_pipeline(m, _pipeline("rocm"))
    assert str(m) == before


def test_legacy_descriptor_reads_uplo():
    upper = r"\00\00\00\00y\00\00\00\01\00\00\00\08\00\00\00\00\01\00\00"  # 121: upper
    a = _matrix("float32", (8, 8), hermitian=True)
    lower_only = np.tril(a) + np.triu(np.full_like(a, 7.0), 1)  # the upper triangle is garbage
    upper_only = np.triu(a) + np.tril(np.full_like(a, 7.0), -1)
    for descriptor, x in ((upper, upper_only), (upper.replace(r"\00y", r"\00z"), lower_only)):
        text = LEGACY.format(descriptor=descriptor).replace("func.func @f", "func.func @main")
        v, w = _run(text, [x], "xla")
        _close(w, np.linalg.eigvalsh(a), C * 8 * _eps(a) * 10, "legacy syevj eigenvalues")


def test_tables_declare_the_targets():
    assert "cusolver_gesvdj_ffi" in gpu_pass.CUDA_TARGETS and "hipsolver_gesvdj_ffi" in gpu_pass.ROCM_TARGETS
    assert "hipsolver_syevd" in gpu_pass.ROCM_TARGETS and "cusolver_syevd" not in gpu_pass.CUDA_TARGETS
    assert "hipsolver_gesdd_ffi" in gpu_pass.ROCM_TARGETS and "cusolver_gesdd_ffi" not in gpu_pass.CUDA_TARGETS
    assert not {t for t in gpu_pass.CUDA_TARGETS if not t.startswith("cu")}
    assert not {t for t in gpu_pass.ROCM_TARGETS if not t.startswith("hip")}
