"""The main job on real input: every example, and JAX programs we did not write, run by hlokit equal jax.jit."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.tools import hlokit_run

from conftest import REPO

_spec = importlib.util.spec_from_file_location("hlokit_examples_export", REPO / "examples" / "export.py")
export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export)


def _inputs(avals, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape).astype(a.dtype) for a in avals]


def _assert_close(got, want, name):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, name
    # Same XLA, same program: results agree to the last few ULPs (fusion decisions may differ).
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(export.EXAMPLES))
def test_committed_example_is_what_export_py_writes(name):
    text = (REPO / "examples" / f"{name}.mlir").read_text()
    exported = export.export(name)
    # the file names the jax that exported it, which must reproduce it; another jax may lower the same
    # function otherwise (jax 0.12 lowers jax.lax.asin without CHLO)
    exported_with = re.match(r"// Exported by examples/export.py with jax ([^\s:]+)", text)
    if exported_with and exported_with.group(1) != jax.__version__ and exported not in text:
        pytest.skip(f"{name}.mlir was exported with jax {exported_with.group(1)}; jax {jax.__version__} lowers it "
                    "otherwise")
    assert exported in text


@pytest.mark.parametrize("name", sorted(export.EXAMPLES))
def test_hlokit_run_equals_jax_jit(name, tmp_path, capsys):
    fn, avals = export.EXAMPLES[name]
    args = _inputs(avals)
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    np.savez(tmp_path / "in.npz", **{f"arg_{i}": a for i, a in enumerate(args)})
    rc = hlokit_run.main([str(REPO / "examples" / f"{name}.mlir"), "--inputs", str(tmp_path / "in.npz"),
                          "--output", str(tmp_path / "out.npz")])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "Traceback" not in out.err
    got = np.load(tmp_path / "out.npz")
    assert sorted(got.files) == [f"output_{i}" for i in range(len(want))]
    for i, w in enumerate(want):
        _assert_close(got[f"output_{i}"], w, f"{name} output_{i}")
        assert f"output_{i}: shape=" in out.out


def test_special_functions_example_carries_chlo_and_transformer_carries_erfc():
    assert "chlo.erfc" in (REPO / "examples" / "transformer_block.mlir").read_text()
    special = (REPO / "examples" / "special_functions.mlir").read_text()
    for op in ("chlo.lgamma", "chlo.digamma", "chlo.erf_inv", "chlo.bessel_i1e", "chlo.zeta", "chlo.polygamma"):
        assert op in special
    assert "lapack_spotrf_ffi" in (REPO / "examples" / "cholesky.mlir").read_text()


# Programs exported by JAX that hlokit's authors did not write: jax's own library functions, several of
# which call jaxlib's LAPACK kernels through custom calls.
def _spd(a):
    return a @ a.T + a.shape[0] * jnp.eye(a.shape[0])


FOREIGN = {
    "qr": (lambda a: jnp.linalg.qr(a), [(6, 4)]),
    "eigh": (lambda a: jnp.linalg.eigh(_spd(a))[0], [(5, 5)]),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [(6, 4)]),
    "solve": (lambda a, b: jnp.linalg.solve(_spd(a), b), [(5, 5), (5, 2)]),
    "slogdet": (lambda a: jnp.linalg.slogdet(_spd(a))[1], [(4, 4)]),
    "triangular_solve": (lambda a, b: jax.scipy.linalg.solve_triangular(_spd(a), b, lower=False), [(4, 4), (4, 3)]),
    "softmax_logsumexp": (lambda x: (jax.nn.softmax(x), jax.scipy.special.logsumexp(x, axis=0)), [(8, 16)]),
    "fft": (lambda x: jnp.abs(jnp.fft.rfft(x)), [(4, 32)]),
    "sort_argsort_cumsum": (lambda x: (jnp.sort(x), jnp.argsort(x), jnp.cumsum(x)), [(33,)]),
    "scan": (lambda x: jax.lax.scan(lambda c, v: (c * 0.9 + v, c), 0.0, x)[1], [(20,)]),
    "while_loop": (lambda x: jax.lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 1.1), (0, x))[1], [(3,)]),
    "image_resize": (lambda x: jax.image.resize(x, (8, 8), "bilinear"), [(5, 5)]),
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_programs_jax_exports_compile_and_match(name, ctx):
    fn, shapes = FOREIGN[name]
    avals = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
    text = jax.jit(fn).lower(*avals).as_text()
    module = hlokit.parse(text, context=ctx)
    args = _inputs(avals, seed=1)
    got = backend.compile(module)(*args)
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _assert_close(g, w, f"{name}[{i}]")


def test_cli_main_job_in_a_fresh_process():
    proc = subprocess.run(
        [sys.executable, "-m", "hlokit.tools.hlokit_run", str(REPO / "examples" / "transformer_block.mlir")],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "output_0: shape=2x16x64 dtype=float32" in proc.stdout
    assert "time: parse" in proc.stdout
