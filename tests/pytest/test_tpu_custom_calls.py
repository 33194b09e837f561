"""``--stablehlo-legalize-tpu-custom-calls``: artifacts JAX exported for TPU, run on XLA CPU and the interpreter.

Oracles: JAX's export back-compatibility data (tpu_Qr, tpu_Lu, tpu_Eigh, tpu_ApproxTopK, tpu_Sharding: real
modules with the outputs TPUs gave), and modules ``jax.export(..., platforms=["tpu"])`` writes here, against
numpy / scipy with condition-aware bounds: factorizations by their residuals and orthogonality, eigenvalues
as sorted sets, vectors up to sign or phase, ApproxTopK's exact top-k accepted (its recall semantics).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

import hlokit
import jax_back_compat
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline
from hlokit.passes.prepare import plan
from hlokit.passes.stablehlo_legalize_tpu_custom_calls import TPU_TARGETS, tile_offsets
from hlokit.tools import hlokit_opt, hlokit_run

PIPELINE = "builtin.module(func.func(stablehlo-legalize-tpu-custom-calls))"
#: The constant c of the bounds c * n * eps * (norm or condition number).
C = 16.0


# -- helpers ------------------------------------------------------------------------------------------------

def _export_tpu(f, *args, x64: bool = False) -> str:
    """The StableHLO text of ``f`` exported for TPU (the custom calls TPU's lowering writes)."""
    with jax.enable_x64(x64):
        exp = jax.export.export(jax.jit(f), platforms=["tpu"])(*args)
        return exp.mlir_module()


def _targets(text: str) -> set[str]:
    return set(re.findall(r"custom_call @(\w+)", text))


def _run(text_or_module, args, engine: str):
    """Run a program on ``engine`` the way hlokit-run does: prepared by :func:`hlokit.prepare` for it."""
    if engine == "interpreter":
        return [np.asarray(x) for x in hlokit.interpret(text_or_module, list(args))]
    m = text_or_module
    if isinstance(m, (str, bytes)):
        m = hlokit.parse(m, context=hlokit.make_context())
    prepared = hlokit.prepare(m, engine="xla", platform="cpu")
    return [np.asarray(x) for x in backend.compile(prepared.module)(*args)]


def _legalize(text: str) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, PIPELINE)
    return str(m)


def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _matrix(dtype, shape, seed: int, cond: float = 10.0) -> np.ndarray:
    """A matrix (batch) of ``shape`` with condition number about ``cond`` (U diag V^H)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    *batch, m, n = shape
    out = np.empty(shape, dt)
    for idx in np.ndindex(*batch):
        def unitary(k):
            z = rng.standard_normal((k, k)) + (1j * rng.standard_normal((k, k)) if dt.kind == "c" else 0)
            return np.linalg.qr(z)[0]
        k = min(m, n)
        s = np.geomspace(1.0, 1.0 / cond, k)
        a = unitary(m)[:, :k] @ np.diag(s) @ unitary(n)[:k, :]
        out[idx] = a.astype(dt)
    return out


def _hermitian(dtype, shape, seed: int) -> np.ndarray:
    a = _matrix(dtype, shape, seed, cond=50.0)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


#: The tolerance JAX writes into Eigh's backend_config ("lower,sort,100,1e-6", _eigh_tpu_lowering). XLA's own
#: expansion of Eigh (XLA CPU runs it: the policy keeps the call for XLA) stops its Jacobi sweeps there, so in
#: f64 its residuals are about TOL**2 * ||A||, not eps * ||A||; the rewrite sweeps to eps.
EIGH_TOL = 1e-6


def _eigh_eps(dtype, engine: str) -> float:
    """The unit of the eigen-decomposition bounds: eps, plus XLA's stopping point on XLA."""
    return _eps(dtype) + (10 * EIGH_TOL**2 if engine == "xla" else 0.0)


def _rel(x: np.ndarray, scale: float) -> float:
    return float(np.max(np.abs(x))) / max(scale, np.finfo(np.float64).tiny)


# -- the pass's declarations and the engines' policy ----------------------------------------------------------

def test_declares_the_tpu_targets_and_the_policy_routes_them():
    assert TPU_TARGETS == {"Qr", "ProductOfElementaryHouseholderReflectors", "LuDecomposition", "Eigh",
                           "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"}
    lu = hlokit.parse(_export_tpu(jax.scipy.linalg.lu, np.eye(3, dtype=np.float32)), context=hlokit.make_context())
    qr = hlokit.parse(_export_tpu(jnp.linalg.qr, np.eye(3, dtype=np.float32)), context=hlokit.make_context())
    # XLA: LuDecomposition runs only on TPU; XLA CPU / GPU expand Qr and Eigh themselves.
    assert [a.flag for a in plan(lu, engine="xla", platform="cpu")] == ["stablehlo-legalize-tpu-only-custom-calls"]
    assert [a.flag for a in plan(lu, engine="xla", platform="cuda")] == ["stablehlo-legalize-tpu-only-custom-calls"]
    assert plan(lu, engine="xla", platform="tpu") == []
    assert plan(qr, engine="xla", platform="cpu") == []
    # The interpreter: every TPU target it has no kernel for (ApproxTopK it has).
    for m in (lu, qr):
        assert [a.flag for a in plan(m, engine="interpreter")] == ["stablehlo-legalize-tpu-custom-calls"]
    topk = hlokit.parse(_export_tpu(lambda x: jax.lax.approx_max_k(x, 2), np.ones(8, np.float32)),
                        context=hlokit.make_context())
    assert plan(topk, engine="interpreter") == [] and plan(topk, engine="xla") == []


# -- JAX's back-compatibility data: what TPUs gave ------------------------------------------------------------

ENGINES = ["xla", "interpreter"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stem", ["tpu_Qr", "tpu_Lu"])
def test_back_compat_qr_and_lu_equal_the_tpu_outputs(stem, engine):
    (case,) = jax_back_compat.load(stem)
    got = _run(case.serialized, case.inputs, engine)
    assert len(got) == len(case.expected)
    for g, w in zip(got, case.expected):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "i":
            np.testing.assert_array_equal(g, w)  # pivots and permutation exactly
        else:
            assert _rel(g - w, float(np.max(np.abs(w)))) <= 1e-5, (stem, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_back_compat_eigh_values_and_invariant_subspaces(engine):
    (case,) = jax_back_compat.load("tpu_Eigh")
    v, w = _run(case.serialized, case.inputs, engine)
    v_tpu, w_tpu = case.expected
    # The module's input: (iota(8x8) + its transpose) / 2, of rank 2 (six eigenvalues about 0).
    a = np.arange(64, dtype=np.float64).reshape(8, 8)
    a = (a + a.T) / 2
    norm = float(np.linalg.norm(a, 2))
    tol = C * 8 * _eps(np.float32) * norm
    assert np.all(np.diff(w) >= 0)  # sorted ascending, as the call's sort flag asks
    assert np.max(np.abs(np.sort(w) - np.sort(w_tpu))) <= tol
    assert np.max(np.abs(w - np.linalg.eigvalsh(a))) <= tol
    assert np.max(np.abs(a @ v - v * w)) <= tol  # A V = V diag(w)
    assert np.max(np.abs(v.T @ v - np.eye(8))) <= C * 8 * _eps(np.float32)
    # The two eigenvalues far from the others have unique vectors: TPU's, up to sign.
    for j in (0, 7):
        assert abs(abs(float(v[:, j] @ v_tpu[:, j])) - 1) <= 1e-4
    # The vectors of the cluster about 0 span the TPU's subspace (the null space of A).
    cluster = v[:, 1:7]
    proj = cluster @ cluster.T
    assert np.max(np.abs(proj @ v_tpu[:, 1:7] - v_tpu[:, 1:7])) <= 1e-4


@pytest.mark.parametrize("engine", ENGINES)
def test_back_compat_approx_top_k_exact_top_k_is_accepted(engine):
    cases = jax_back_compat.load("tpu_ApproxTopK")
    assert cases
    for case in cases:
        got = _run(case.serialized, case.inputs, engine)
        assert len(got) == len(case.expected)
        for g, w in zip(got, case.expected):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)  # (exact top-k of 7 elements: what a TPU gave here too)


def _gspmd_case():
    (case,) = [c for c in jax_back_compat.load("tpu_Sharding") if c.name.endswith("gspmd")]
    return case


def _with_partitions(case, partitions: int):
    """The case's module with ``mhlo.num_partitions``: JAX's back-compatibility data keeps the device count
    apart (``nr_devices``), as ``Exported.nr_devices``; its current lowering writes the attribute."""
    from jaxlib.mlir import ir

    m = hlokit.parse(case.serialized, context=hlokit.make_context())
    with m.context:
        m.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), partitions)
        m.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1)
    return m



def _hlokit_run(*args, timeout=300):
    """hlokit-run in a process of its own: it gives XLA's CPU platform the devices the program needs before
    jax starts (this process has started jax with one)."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if "host_platform_device_count" not in f)
    return subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_back_compat_sharding_gspmd_on_two_partitions_of_both_engines(tmp_path):
    case = _gspmd_case()
    assert case.nr_devices == 2
    m = _with_partitions(case, case.nr_devices)
    assert plan(m, engine="xla", platform="cpu") == []  # the annotations are kept for XLA's partitioner
    program = tmp_path / "gspmd.mlir"
    program.write_text(str(m))
    np.savez(tmp_path / "in.npz", arg_0=case.inputs[0])
    np.savez(tmp_path / "exp.npz", output_0=case.expected[0])
    r = _hlokit_run(program, "--inputs", tmp_path / "in.npz", "--engine", "both", "--expected", tmp_path / "exp.npz",
                    "--max-ulp", "0")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "XLA vs expected: ok" in r.stdout and "interpreter vs expected: ok" in r.stdout
    # in this process (one partition): the interpreter on a grid of two
    out = hlokit.interpret(m, list(case.inputs), num_partitions=2)
    for per_process in out:  # every partition holds the whole result
        np.testing.assert_array_equal(np.asarray(per_process[0]), case.expected[0])


def test_back_compat_sharding_gspmd_without_a_device_count_is_a_located_error():
    case = _gspmd_case()
    m = hlokit.parse(case.text, context=hlokit.make_context(), source_name="gspmd.mlir")
    before = str(m)
    with pytest.raises(PassError) as info:
        run_pipeline(m, PIPELINE)
    message = str(info.value)
    assert re.search(r"gspmd\.mlir:\d+:\d+: error: SPMDFullToShardShape \(tensor<2x4xf32> -> tensor<1x4xf32>\)",
                     message), message
    assert "set mhlo.num_partitions = 2" in message
    assert str(m) == before


def test_back_compat_sharding_shardy_runs_on_both_engines(tmp_path):
    (case,) = [c for c in jax_back_compat.load("tpu_Sharding") if c.name.endswith("shardy")]
    program = tmp_path / "shardy.mlirbc"
    program.write_bytes(case.serialized)
    np.savez(tmp_path / "in.npz", arg_0=case.inputs[0])
    np.savez(tmp_path / "exp.npz", output_0=case.expected[0])
    r = _hlokit_run(program, "--inputs", tmp_path / "in.npz", "--engine", "both", "--expected", tmp_path / "exp.npz",
                    "--max-ulp", "0", "--devices", case.nr_devices)
    assert r.returncode == 0, r.stderr[-3000:]


def test_hlokit_run_expected_on_the_tpu_lu_artifact(tmp_path, capsys):
    (case,) = jax_back_compat.load("tpu_Lu")
    program = tmp_path / "lu.mlirbc"
    program.write_bytes(case.serialized)
    np.savez(tmp_path / "exp.npz", **{f"output_{i}": x for i, x in enumerate(case.expected)})
    argv = [str(program), "--engine", "both", "--expected", str(tmp_path / "exp.npz"), "--rtol", "1e-5"]
    code = hlokit_run.main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err[-2000:]
    assert "XLA vs expected: ok" in out.out and "interpreter vs expected: ok" in out.out
    # a recorded output changed: exit 1, naming it
    np.savez(tmp_path / "exp.npz", **{f"output_{i}": x + (i == 0) for i, x in enumerate(case.expected)})
    assert hlokit_run.main(argv) == 1
    assert "output_0" in capsys.readouterr().err


# -- jax.export(..., platforms=["tpu"]) against numpy / scipy ------------------------------------------------

#: (dtype, shape) of the default run: small matrices, one batched, one complex; the rest are slow.
FAST = [("float32", (4, 3)), ("complex64", (3, 3)), ("float32", (2, 3, 3))]
SLOW = [("float64", (5, 4)), ("complex128", (2, 4, 4)), ("float32", (3, 5)), ("complex64", (2, 3, 5))]


def _params(fast, slow):
    return [pytest.param(*p) for p in fast] + [pytest.param(*p, marks=pytest.mark.slow) for p in slow]


def _x64(dtype) -> bool:
    return np.dtype(dtype) in (np.float64, np.complex128)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype, shape", _params(FAST, SLOW))
def test_qr_exported_for_tpu(dtype, shape, engine):
    a = _matrix(dtype, shape, seed=1)
    text = _export_tpu(jnp.linalg.qr, a, x64=_x64(dtype))
    assert {"Qr", "ProductOfElementaryHouseholderReflectors"} <= _targets(text)
    q, r = _run(text, [a], engine)
    m, n = shape[-2:]
    k = min(m, n)
    assert q.shape == shape[:-2] + (m, k) and r.shape == shape[:-2] + (k, n) and q.dtype == a.dtype
    eps, norm = _eps(dtype), float(np.max(np.linalg.norm(a.astype(np.complex128), 2, axis=(-2, -1))))
    assert _rel(q @ r - a, norm) <= C * max(m, n) * eps
    qh = np.conj(np.swapaxes(q, -1, -2))
    assert np.max(np.abs(qh @ q - np.eye(k))) <= C * max(m, n) * eps
    assert np.all(np.tril(r, -1) == 0)
    # |diag R| is unique (R up to the signs / phases of its rows): numpy's, within cond * eps.
    want = np.abs(np.diagonal(np.linalg.qr(a.astype(np.complex128))[1], axis1=-2, axis2=-1))
    assert np.max(np.abs(np.abs(np.diagonal(r, axis1=-2, axis2=-1)) - want)) <= C * max(m, n) * eps * 10 * norm


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype, shape", _params([("float32", (4, 4)), ("complex64", (2, 3, 3))],
                                                 [("float64", (5, 5)), ("complex128", (3, 3)), ("float32", (4, 3))]))
def test_lu_exported_for_tpu_matches_scipy(dtype, shape, engine):
    a = _matrix(dtype, shape, seed=2, cond=100.0)
    text = _export_tpu(jax.lax.linalg.lu, a, x64=_x64(dtype))
    assert "LuDecomposition" in _targets(text)
    lu, pivots, perm = _run(text, [a], engine)
    m, n = shape[-2:]
    k = min(m, n)
    assert pivots.shape == shape[:-2] + (k,) and perm.shape == shape[:-2] + (m,) and pivots.dtype == np.int32
    eps = _eps(dtype)
    for idx in np.ndindex(*shape[:-2]):
        lu_s, piv_s = scipy.linalg.lu_factor(a[idx].astype(np.complex128 if a.dtype.kind == "c" else np.float64))
        np.testing.assert_array_equal(pivots[idx], piv_s[:k])  # partial pivoting on a generic matrix: one choice
        swapped = np.arange(m)
        for i, p in enumerate(pivots[idx]):
            swapped[[i, p]] = swapped[[p, i]]
        np.testing.assert_array_equal(perm[idx], swapped)
        lower = np.tril(lu[idx], -1)[:, :k] + np.eye(m, k)
        upper = np.triu(lu[idx])[:k, :]
        norm = float(np.linalg.norm(a[idx], 2))
        assert _rel(lower @ upper - a[idx][perm[idx]], norm) <= C * max(m, n) * eps
        assert _rel(lu[idx] - lu_s, float(np.max(np.abs(lu_s)))) <= C * max(m, n) * eps * 100  # cond 100


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype, shape", _params([("float32", (4, 4)), ("complex64", (2, 3, 3))],
                                                 [("float64", (6, 6)), ("complex128", (2, 4, 4))]))
def test_eigh_exported_for_tpu(dtype, shape, engine):
    a = _hermitian(dtype, shape, seed=3)
    text = _export_tpu(jnp.linalg.eigh, a, x64=_x64(dtype))
    assert "Eigh" in _targets(text)
    w, v = _run(text, [a], engine)
    n = shape[-1]
    eps = _eigh_eps(dtype, engine)
    want = np.linalg.eigvalsh(a.astype(np.complex128))
    norm = float(np.max(np.abs(want)))
    assert w.dtype == np.finfo(a.dtype).dtype and np.all(np.diff(w, axis=-1) >= 0)
    assert np.max(np.abs(w - want)) <= C * n * eps * norm  # eigenvalues as (sorted) sets
    av = a @ v
    assert np.max(np.abs(av - v * w[..., None, :])) <= C * n * eps * norm
    vh = np.conj(np.swapaxes(v, -1, -2))
    assert np.max(np.abs(vh @ v - np.eye(n))) <= C * n * eps
    # Each vector equals numpy's up to phase (distinct eigenvalues, gap-aware).
    _, v_np = np.linalg.eigh(a.astype(np.complex128))
    gap = np.min(np.diff(want, axis=-1))
    overlap = np.abs(np.sum(np.conj(v_np) * v, axis=-2))
    assert np.max(np.abs(overlap - 1)) <= C * n * eps * norm / gap


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype, shape", _params([("float32", (4, 3))], [("complex64", (3, 3)), ("float64", (2, 4, 4))]))
def test_svd_exported_for_tpu(dtype, shape, engine):
    # jnp.linalg.svd on TPU: QDWH polar decomposition (Qr + ProductOfElementaryHouseholderReflectors) and
    # Eigh of the Hermitian factor, unsorted (sort flag 0).
    a = _matrix(dtype, shape, seed=4, cond=20.0)
    text = _export_tpu(jnp.linalg.svd, a, x64=_x64(dtype))
    assert {"Eigh", "Qr"} <= _targets(text)
    u, s, vh = _run(text, [a], engine)
    eps = _eigh_eps(dtype, engine)
    m, n = shape[-2:]
    want = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    assert np.max(np.abs(s - want)) <= C * max(m, n) * eps * 20 * float(np.max(want))
    k = min(m, n)
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    assert _rel(rebuilt - a, float(np.max(want))) <= C * max(m, n) * eps * 20


@pytest.mark.parametrize("engine", ENGINES)
def test_approx_max_k_exported_for_tpu_is_exact(engine):
    x = np.random.default_rng(5).standard_normal((3, 16)).astype(np.float32)
    text = _export_tpu(lambda v: jax.lax.approx_max_k(v, 4), x)
    assert _targets(text) >= {"ApproxTopK"}
    values, indices = _run(text, [x], engine)
    want = -np.sort(-x, axis=-1)[:, :4]
    np.testing.assert_array_equal(values, want)  # exact top-k: a valid answer at any recall target
    np.testing.assert_array_equal(np.take_along_axis(x, indices, axis=-1), values)


# -- the sharding rewrite -------------------------------------------------------------------------------------

def test_tile_offsets_read_xla_sharding_texts():
    assert tile_offsets("{devices=[2,1]0,1}", [2, 4], [1, 4]) == {0: (0, 0), 1: (1, 0)}
    assert tile_offsets("{devices=[1,2]1,0}", [2, 4], [2, 2]) == {1: (0, 0), 0: (0, 2)}
    assert tile_offsets("{devices=[2,2]<=[2,2]T(1,0)}", [4, 4], [2, 2]) == \
        {0: (0, 0), 2: (0, 2), 1: (2, 0), 3: (2, 2)}
    assert tile_offsets("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", [4, 3], [2, 3]) == \
        {0: (0, 0), 1: (0, 0), 2: (2, 0), 3: (2, 0)}
    from hlokit.passes.builder import UnsupportedError
    with pytest.raises(UnsupportedError, match="not a tiled sharding"):
        tile_offsets("{devices=[1,1,2]0,1 last_tile_dims={manual}}", [2, 4], [2, 4])
    with pytest.raises(UnsupportedError, match="does not cut"):
        tile_offsets("{devices=[2,1]0,1}", [2, 4], [2, 4])


_SHARD_MAP = """
module attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {{
    %0 = stablehlo.custom_call @Sharding(%arg0) {{mhlo.sharding = "{s}"}} : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {{mhlo.sharding = "{{manual}}"}} : (tensor<4x6xf32>) -> tensor<{p}xf32>
    %2 = stablehlo.partition_id : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<{p}xf32>
    %5 = stablehlo.add %1, %4 : tensor<{p}xf32>
    %6 = stablehlo.custom_call @Sharding(%5) {{mhlo.sharding = "{{manual}}"}} : (tensor<{p}xf32>) -> tensor<{p}xf32>
    %7 = stablehlo.custom_call @SPMDShardToFullShape(%6) {{mhlo.sharding = "{s}"}} : (tensor<{p}xf32>) -> tensor<4x6xf32>
    return %7 : tensor<4x6xf32>
  }}
}}
"""


@pytest.mark.parametrize("sharding, piece", [
    ("{devices=[2,2]0,1,2,3}", "2x3"),
    ("{devices=[1,2,2]<=[4] last_tile_dim_replicate}", "4x3"),
    ("{devices=[4,1]3,2,1,0}", "1x6"),
])
def test_shard_map_regions_on_the_interpreter_equal_xla(sharding, piece, tmp_path):
    # Each partition adds its id to its piece: the layout decides which id lands where. XLA partitions the
    # annotated program (4 devices); the interpreter runs the rewritten one on a grid of 4.
    program = tmp_path / "shard_map.mlir"
    program.write_text(_SHARD_MAP.format(s=sharding, p=piece))
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.savez(tmp_path / "in.npz", arg_0=x)
    r = _hlokit_run(program, "--inputs", tmp_path / "in.npz", "--engine", "both", "--max-ulp", "0",
                    "--output", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "max 0 ULP" in r.stdout
    got = np.load(tmp_path / "out.npz")["output_0"]
    assert not np.array_equal(got, x)
    # the pieces' offsets, as the layout says (in this process: the interpreter alone)
    out = hlokit.interpret(program.read_text(), [x], num_partitions=4)
    np.testing.assert_array_equal(np.asarray(out[0][0]), got)


# -- refusals: located, the module unchanged ------------------------------------------------------------------

_QR = """func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0:2 = stablehlo.custom_call @Qr(%a) : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  %1:2 = stablehlo.custom_call @Qr(%a) : (tensor<3x3xf32>) -> (RESULTS)
  return %0#0 : tensor<3x3xf32>
}
"""

_EIGH = """func.func @main(%a: tensor<TYPE>) -> tensor<TYPE> {
  %0:2 = stablehlo.custom_call @Qr(%a) : (tensor<TYPE>) -> (tensor<TYPE>, tensor<TAUS>)
  %1:2 = stablehlo.custom_call @Eigh(%a) {backend_config = "CONFIG"} : (tensor<TYPE>) -> (tensor<TYPE>, tensor<VALS>)
  return %0#0 : tensor<TYPE>
}
"""


@pytest.mark.parametrize("text, message", [
    (_QR.replace("RESULTS", "tensor<3x3xf32>, tensor<2xf32>"),
     r"bad\.mlir:3:\d+: error: Qr of tensor<3x3xf32> has results \(tensor<3x3xf32>, tensor<2xf32>\), expected "
     r"\(tensor<3x3xf32>, tensor<3xf32>\)"),
    (_EIGH.replace("TYPE", "3x3xf32").replace("TAUS", "3xf32").replace("VALS", "3xf32").replace("CONFIG", "1,x"),
     r"bad\.mlir:3:\d+: error: .*Eigh backend_config '1,x' is not 'lower,sort,max_iter,tol'"),
    (_EIGH.replace("TYPE", "3x4xf32").replace("TAUS", "3xf32").replace("VALS", "4xf32").replace("CONFIG", "1,1,100,1e-6"),
     r"bad\.mlir:3:\d+: error: Eigh of tensor<3x4xf32> \(expected a square matrix\)"),
    (_EIGH.replace("TYPE", "3x3xi32").replace("TAUS", "3xi32").replace("VALS", "3xi32").replace("CONFIG", "1,1,100,1e-6"),
     r"bad\.mlir:2:\d+: error: Qr of tensor<3x3xi32> \(expected a \[\.\.\., m, n\] matrix of f32, f64"),
    (_EIGH.replace("TYPE", "?x3xf32").replace("TAUS", "3xf32").replace("VALS", "3xf32").replace("CONFIG", "1,1,100,1e-6"),
     r"bad\.mlir:2:\d+: error: Qr operand of type tensor<\?x3xf32>: dynamic shapes are not supported"),
    ("""module attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main(%a: tensor<2x4xf32>) -> tensor<1x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[1,1,2]0,1 last_tile_dims={manual}}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<1x4xf32>
    return %1 : tensor<1x4xf32>
  }
}
""", r"bad\.mlir:4:\d+: error: SPMDFullToShardShape .*is not a tiled sharding"),
    ("""func.func @main(%a: tensor<2x4xf32>) -> tensor<1x4xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
""", r"bad\.mlir:2:\d+: error: Sharding changes the type tensor<2x4xf32> to tensor<1x4xf32>"),
])
def test_refusals_are_located_and_change_nothing(text, message):
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="bad.mlir")
    before = str(m)
    with pytest.raises(PassError, match=message):
        run_pipeline(m, PIPELINE)
    assert str(m) == before  # (the first call, valid, is not rewritten either)


def test_hlokit_opt_refusal_is_one_located_line(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(_EIGH.replace("TYPE", "3x3xf32").replace("TAUS", "3xf32").replace("VALS", "3xf32")
                   .replace("CONFIG", "2,1,100,1e-6"))
    code = hlokit_opt.main([str(bad), "--stablehlo-legalize-tpu-custom-calls"])
    err = capsys.readouterr().err
    assert code == 1
    assert re.match(rf"{re.escape(str(bad))}:3:\d+: error: .*Eigh backend_config '2,1,100,1e-6'", err), err
    assert "Traceback" not in err


def test_tuple_form_and_legalized_text_has_no_tpu_call():
    (case,) = jax_back_compat.load("tpu_Qr")
    assert "tuple<" in case.text and "xla_fallback_geqrf" in case.text
    legal = _legalize(case.text)
    assert not _targets(legal) & TPU_TARGETS
    assert "stablehlo.tuple" in legal


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_reads_the_triangle_backend_config_names(lower, engine):
    # Unsymmetrized input: only the triangle the flag names is the matrix (LAPACK's and XLA's uplo).
    h = _hermitian("float32", (4, 4), seed=6)
    junk = np.random.default_rng(7).standard_normal((4, 4)).astype(np.float32)
    a = np.where(np.tri(4, dtype=bool) if lower else np.tri(4, dtype=bool).T, h, junk)
    text = _export_tpu(lambda x: jax.lax.linalg.eigh(x, lower=lower, symmetrize_input=False), a)
    assert f'backend_config = "{int(lower)},1,' in text
    v, w = _run(text, [a], engine)
    want = np.linalg.eigvalsh(h)
    assert np.max(np.abs(w - want)) <= C * 4 * _eps(np.float32) * float(np.max(np.abs(want)))


def test_symbolic_batch_export_for_tpu_runs_once_refined(tmp_path, capsys):
    spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("b, 3, 3"), np.float32)
    text = jax.export.export(jax.jit(jax.lax.linalg.lu), platforms=["tpu"])(spec).mlir_module()
    assert "indices_of_shape_operands" in text  # JAX's dynamic form of the call
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="sym.mlir")
    before = str(m)
    with pytest.raises(PassError, match=r":\d+:\d+: error: LuDecomposition with shape operands"):
        run_pipeline(m, PIPELINE)
    assert str(m) == before
    program = tmp_path / "lu_sym.mlir"
    program.write_text(text)
    code = hlokit_run.main([str(program), "--shape", "arg_0=2x3x3", "--engine", "both", "--rtol", "1e-5"])
    out = capsys.readouterr()
    assert code == 0, out.err[-2000:]
    assert "refined @main: (tensor<2x3x3xf32>)" in out.out


def test_serialized_exported_for_tpu_runs_on_both_engines(tmp_path, capsys):
    # What a user keeps: Exported.serialize() of a program exported for TPU (lu, qr, eigh, approx_max_k).
    x = _matrix("float32", (2, 4, 4), seed=8)

    def f(a):
        lu, pivots, perm = jax.lax.linalg.lu(a)
        q, r = jnp.linalg.qr(a)
        w, v = jnp.linalg.eigh(a @ jnp.swapaxes(a, -1, -2))
        return lu, pivots, perm, q, r, w, jnp.abs(v), jax.lax.approx_max_k(a.reshape(2, 16), 3)[0]

    exp = jax.export.export(jax.jit(f), platforms=["tpu"])(x)
    assert {"LuDecomposition", "Qr", "Eigh", "ApproxTopK"} <= _targets(exp.mlir_module())
    program = tmp_path / "f.jax_exported"
    program.write_bytes(exp.serialize())
    np.savez(tmp_path / "in.npz", arg_0=x)
    code = hlokit_run.main([str(program), "--inputs", str(tmp_path / "in.npz"), "--engine", "both",
                            "--rtol", "1e-5", "--output", str(tmp_path / "out.npz")])
    out = capsys.readouterr()
    assert code == 0, out.err[-2000:]
    assert out.out.count("interpreter vs XLA:") == 8
    got = np.load(tmp_path / "out.npz")
    lu, pivots = got["output_0"], got["output_1"]
    for b in range(2):
        np.testing.assert_array_equal(pivots[b], scipy.linalg.lu_factor(x[b])[1])
    np.testing.assert_allclose(got["output_5"], np.linalg.eigvalsh(x @ np.swapaxes(x, -1, -2)), rtol=1e-5, atol=1e-5)
