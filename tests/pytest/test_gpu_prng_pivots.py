"""StableHLO expansions of two GPU custom calls JAX writes: Threefry-2x32 (``cu_threefry2x32_ffi`` /
``hip_threefry2x32_ffi``, :mod:`hlokit.passes.threefry`) and ``cu_lu_pivots_to_permutation`` /
``hip_lu_pivots_to_permutation`` (:func:`hlokit.passes.lapack.lu.build_lu_pivots_to_permutation`).

Both are integer functions, so every check is bit for bit: the builders' templates against JAX's own
Threefry on CPU (``jax.extend.random.threefry_2x32``) and a numpy transcription of the pivot swaps (JAX's
``_generic_lu_pivots_to_permutation``; jaxlib's GPU kernel skips out-of-range pivots), on hlokit's
interpreter and on XLA CPU, which must also agree with each other; then the calls as JAX writes them for
cuda and rocm (``jax_threefry_gpu_kernel_lowering`` on), legalized by ``--stablehlo-legalize-cuda-custom-calls``
/ ``--stablehlo-legalize-rocm-custom-calls`` and prepared automatically, against ``jax.random.bits`` on CPU,
and JAX's back-compatibility data (what real GPUs gave).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.extend.random import threefry_2x32

import hlokit
import jax_back_compat
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline
from hlokit.passes.builder import Emitter, UnsupportedError
from hlokit.passes.lapack.lu import build_lu_pivots_to_permutation
from hlokit.passes.threefry import build_threefry2x32


def _module(e: Emitter, args, results) -> str:
    return e.text("main", args, results).replace("func.func private @main", "func.func @main")


def _both_engines(text: str, inputs) -> list[np.ndarray]:
    """Run ``text`` on hlokit's interpreter and on XLA CPU; assert identical bits; return the results."""
    module = hlokit.parse(text)
    hlokit.verify(module)
    got_interp = [np.asarray(r) for r in hlokit.interpret(module, [np.asarray(x) for x in inputs])]
    got_xla = [np.asarray(r) for r in backend.compile(text)(*inputs)]
    assert len(got_interp) == len(got_xla)
    for a, b in zip(got_interp, got_xla):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return got_interp


def _jax_threefry(k0, k1, x0, x1):
    """JAX's Threefry-2x32 on CPU, element by element (its keys may differ per element)."""
    shape = np.broadcast_shapes(k0.shape, k1.shape, x0.shape, x1.shape)
    keys = np.stack([np.broadcast_to(k0, shape).ravel(), np.broadcast_to(k1, shape).ravel()], axis=1)
    data = np.stack([np.broadcast_to(x0, shape).ravel(), np.broadcast_to(x1, shape).ravel()], axis=1)
    out = np.asarray(jax.vmap(threefry_2x32)(keys, data)) if keys.size else np.zeros((0, 2), np.uint32)
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)


# --- Threefry-2x32 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 5), (0, 3)])
def test_threefry_builder_matches_jax_bit_for_bit(shape):
    e = Emitter()
    args = e.args([(shape, "ui32")] * 4)
    text = _module(e, args, build_threefry2x32(e, *args))
    rng = np.random.default_rng(len(shape))
    inputs = [rng.integers(0, 2**32, shape, dtype=np.uint32) for _ in range(4)]
    got = _both_engines(text, inputs)
    want = _jax_threefry(*inputs)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_threefry_builder_broadcasts_operands_on_trailing_dimensions():
    # A scalar key against [2, 3] data and [3] data words, as JAX's lowering broadcasts them.
    e = Emitter()
    args = e.args([((), "ui32"), ((2, 1), "ui32"), ((2, 3), "ui32"), ((3,), "ui32")])
    out = build_threefry2x32(e, *args)
    assert [o.shape for o in out] == [[2, 3], [2, 3]]
    inputs = [np.array(7, np.uint32), np.array([[1], [2**32 - 1]], np.uint32),
              np.arange(6, dtype=np.uint32).reshape(2, 3), np.array([9, 10, 11], np.uint32)]
    got = _both_engines(_module(e, args, out), inputs)
    want = _jax_threefry(*inputs)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_threefry_known_answers():
    # Random123's known-answer vectors for threefry2x32 with 20 rounds (its kat_vectors file; JAX's
    # random tests check the same three): (key, counter) -> output.
    kat = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
           ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
           ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    e = Emitter()
    args = e.args([((3,), "ui32")] * 4)
    inputs = [np.array([row[j][i] for row in kat], np.uint32) for j in (0, 1) for i in (0, 1)]
    got = _both_engines(_module(e, args, build_threefry2x32(e, *args)), inputs)
    assert [(int(a), int(b)) for a, b in zip(*got)] == [row[2] for row in kat]


def test_threefry_builder_refuses_other_types_and_shapes():
    e = Emitter()
    a, b = e.args([((3,), "ui32"), ((3,), "i32")])
    with pytest.raises(UnsupportedError, match="'ui32' operands"):
        build_threefry2x32(e, a, a, a, b)
    c, d = e.args([((3,), "ui32"), ((4,), "ui32")])
    with pytest.raises(UnsupportedError, match="do not broadcast"):
        build_threefry2x32(e, c, c, c, d)


# --- lu_pivots_to_permutation ----------------------------------------------------------------------------


def pivots_to_permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """numpy reference: apply the swaps ``(i, pivots[..., i])`` to the identity, in order; an out-of-range
    pivot swaps nothing (jaxlib's ``lu_pivot_kernels.cu.cc``)."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    out = np.broadcast_to(np.arange(m, dtype=np.int32), batch + (m,)).copy()
    for idx in np.ndindex(*batch):
        perm = out[idx]
        for i in range(k):
            j = int(pivots[idx + (i,)])
            if 0 <= j < m:
                perm[i], perm[j] = perm[j], perm[i]
    return out


@pytest.mark.parametrize("batch, k, m", [((), 4, 4), ((), 3, 7), ((5,), 4, 6), ((2, 3), 4, 8), ((2,), 0, 3),
                                         ((3,), 1, 1)])
def test_pivots_builder_matches_numpy(batch, k, m):
    e = Emitter()
    (p,) = e.args([(batch + (k,), "i32")])
    out = build_lu_pivots_to_permutation(e, p, m)
    assert out.shape == list(batch) + [m] and out.t == "i32"
    rng = np.random.default_rng(k * 10 + m)
    # LAPACK-like pivots (i <= piv < m) mixed with a few out-of-range ones (-1, m).
    pivots = rng.integers(0, m, batch + (k,)).astype(np.int32) if m else np.zeros(batch + (k,), np.int32)
    pivots = np.maximum(pivots, np.arange(k, dtype=np.int32))
    if k:
        pivots.reshape(-1, k)[::3, -1] = -1
        pivots.reshape(-1, k)[1::3, 0] = m
    (got,) = _both_engines(_module(e, [p], [out]), [pivots])
    np.testing.assert_array_equal(got, pivots_to_permutation(pivots, m))
    assert got.dtype == np.int32


def test_pivots_of_a_real_lu_give_jax_permutation():
    a = np.random.default_rng(3).standard_normal((2, 6, 4)).astype(np.float32)
    _, pivots, perm = jax.lax.linalg.lu(a)
    e = Emitter()
    (p,) = e.args([((2, 4), "i32")])
    (got,) = _both_engines(_module(e, [p], [build_lu_pivots_to_permutation(e, p, 6)]), [np.asarray(pivots)])
    np.testing.assert_array_equal(got, np.asarray(perm))


def test_pivots_builder_refuses_bad_requests():
    e = Emitter()
    p, q = e.args([((2, 4), "i32"), ((4,), "i64")])
    with pytest.raises(UnsupportedError, match="smaller than the number of pivots"):
        build_lu_pivots_to_permutation(e, p, 3)
    with pytest.raises(UnsupportedError, match="'i32' pivots"):
        build_lu_pivots_to_permutation(e, q, 4)


# --- the calls as JAX writes them, through the passes and hlokit.prepare ----------------------------------

PASSES = {"cuda": "stablehlo-legalize-cuda-custom-calls", "rocm": "stablehlo-legalize-rocm-custom-calls"}
PREFIX = {"cuda": "cu", "rocm": "hip"}


def _export(f, args, platform: str, threefry_kernel: bool = True) -> str:
    with _kernel_flag(threefry_kernel):
        return jax.export.export(jax.jit(f), platforms=[platform])(*args).mlir_module()


class _kernel_flag:
    """``jax_threefry_gpu_kernel_lowering`` set for a block (the config has no context manager in every jax)."""

    def __init__(self, value: bool):
        self.value = value

    def __enter__(self):
        self.saved = jax.config.jax_threefry_gpu_kernel_lowering
        jax.config.update("jax_threefry_gpu_kernel_lowering", self.value)

    def __exit__(self, *exc):
        jax.config.update("jax_threefry_gpu_kernel_lowering", self.saved)


def _run_prepared(text: str, args, engine: str) -> list[np.ndarray]:
    """Run ``text`` on ``engine`` the way hlokit-run does: prepared by :func:`hlokit.prepare` for it."""
    if engine == "interpreter":
        return [np.asarray(x) for x in hlokit.interpret(text, [np.asarray(a) for a in args])]
    m = hlokit.parse(text, context=hlokit.make_context())
    prepared = hlokit.prepare(m, engine="xla", platform="cpu")
    return [np.asarray(x) for x in backend.compile(prepared.module)(*args)]


def _legalize(text: str, platform: str) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, f"builtin.module(func.func({PASSES[platform]}))")
    return str(m)


def _bits(shape):
    return lambda k: jax.random.bits(jax.random.wrap_key_data(k), shape)


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("shape, batch", [((3, 5), None), ((7,), None), ((1,), None), ((2, 3, 3), None),
                                          ((5,), 3)])
def test_random_bits_exported_for_gpu_equal_jax_on_cpu(platform, shape, batch):
    key = np.asarray(jax.random.key_data(jax.random.key(2024 + len(shape))))
    f = _bits(shape)
    if batch is not None:  # a batch of keys (vmap): the call's key operands vary per element
        key = np.stack([key + np.uint32(i) for i in range(batch)])
        f = jax.vmap(f)
    text = _export(f, [key], platform)
    assert f"@{PREFIX[platform]}_threefry2x32_ffi" in text
    want = np.asarray(jax.jit(f)(key))
    legal = _legalize(text, platform)
    assert "threefry2x32_ffi" not in legal
    got = {engine: _run_prepared(text, [key], engine)[0] for engine in ("interpreter", "xla")}
    for engine, g in got.items():
        assert g.dtype == want.dtype and g.shape == want.shape, engine
        np.testing.assert_array_equal(g, want, err_msg=engine)
    np.testing.assert_array_equal(backend.compile(legal)(key)[0], want)


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
def test_random_uniform_and_split_exported_for_gpu_equal_jax_on_cpu(platform):
    def f(k):
        k = jax.random.wrap_key_data(k)
        a, b = jax.random.split(k)
        return jax.random.uniform(a, (4, 3)), jax.random.normal(b, (5,))

    key = np.asarray(jax.random.key_data(jax.random.key(7)))
    text = _export(f, [key], platform)
    want = [np.asarray(w) for w in jax.jit(f)(key)]
    for engine in ("interpreter", "xla"):
        got = _run_prepared(text, [key], engine)
        np.testing.assert_array_equal(got[0], want[0], err_msg=engine)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-6, err_msg=engine)  # (log, erf_inv)


@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("batch, k, m", [((), 4, 4), ((3,), 2, 5), ((2, 2), 3, 6)])
def test_pivots_to_permutation_exported_for_gpu(platform, batch, k, m):
    text = _export(lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, m),
                   [np.zeros(batch + (k,), np.int32)], platform)
    assert f"@{PREFIX[platform]}_lu_pivots_to_permutation" in text
    rng = np.random.default_rng(m)
    pivots = np.maximum(rng.integers(0, m, batch + (k,)), np.arange(k)).astype(np.int32)
    want = pivots_to_permutation(pivots, m)
    np.testing.assert_array_equal(
        np.asarray(jax.jit(lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, m))(pivots)), want)
    got = {engine: _run_prepared(text, [pivots], engine)[0] for engine in ("interpreter", "xla")}
    for engine, g in got.items():
        assert g.dtype == np.int32
        np.testing.assert_array_equal(g, want, err_msg=engine)
    assert "lu_pivots_to_permutation" not in _legalize(text, platform)


@pytest.mark.parametrize("engine", ["interpreter", "xla"])
@pytest.mark.parametrize("stem", ["cuda_threefry2x32", "rocm_threefry2x32", "cuda_lu_pivots_to_permutation",
                                  "rocm_lu_pivots_to_permutation"])
def test_back_compat_cases_equal_what_gpus_gave(stem, engine):
    cases = jax_back_compat.load(stem)
    assert cases
    for case in cases:
        m = hlokit.parse(case.serialized, context=hlokit.make_context())
        got = _run_prepared(str(m), case.inputs, engine)
        assert len(got) == len(case.expected)
        for g, w in zip(got, case.expected):
            assert g.shape == w.shape and g.dtype == w.dtype
            # integers exactly; the threefry cases return uniform floats made from the bits by exact
            # integer and bit operations (shift, or, bitcast, subtract 1.0), so they are exact too
            np.testing.assert_array_equal(g, w, err_msg=case.name)


_LEGACY = """
func.func @main(%k0: tensor<4xui32>, %k1: tensor<4xui32>, %x0: tensor<4xui32>, %x1: tensor<4xui32>)
    -> (tensor<4xui32>, tensor<4xui32>) {
  %0:2 = stablehlo.custom_call @cu_threefry2x32(%k0, %k1, %x0, %x1) {api_version = 2 : i32,
    backend_config = "DESCRIPTOR", operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>,
    dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>],
    result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>]}
    : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return %0#0, %0#1 : tensor<4xui32>, tensor<4xui32>
}
"""


def _descriptor(n: int) -> str:
    return "".join(f"\\{b:02X}" for b in int(n).to_bytes(8, "little", signed=True))


def test_legacy_threefry_with_its_descriptor():
    rng = np.random.default_rng(5)
    args = [rng.integers(0, 2**32, 4, dtype=np.uint32) for _ in range(4)]
    legal = _legalize(_LEGACY.replace("DESCRIPTOR", _descriptor(4)), "cuda")
    assert "custom_call" not in legal
    want = _jax_threefry(*args)
    got = backend.compile(legal)(*args)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    with pytest.raises(PassError, match="element count 5 is not the result's 4"):
        _legalize(_LEGACY.replace("DESCRIPTOR", _descriptor(5)), "cuda")
    with pytest.raises(PassError, match="8-byte ThreeFry2x32Descriptor"):
        _legalize(_LEGACY.replace("DESCRIPTOR", "abc"), "cuda")


_THREEFRY_I32 = """
func.func @main(%k: tensor<3xi32>, %x: tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>) {
  %0:2 = stablehlo.custom_call @cu_threefry2x32_ffi(%k, %k, %x, %x) {mhlo.backend_config = {}}
    : (tensor<3xi32>, tensor<3xi32>, tensor<3xui32>, tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>)
  return %0#0, %0#1 : tensor<3xui32>, tensor<3xui32>
}
"""

_PIVOTS_SHORT = """
func.func @main(%p: tensor<2x4xi32>) -> tensor<2x3xi32> {
  %0 = stablehlo.custom_call @hip_lu_pivots_to_permutation(%p) {mhlo.backend_config = {},
    mhlo.frontend_attributes = {num_batch_dims = "1"}} : (tensor<2x4xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
"""


@pytest.mark.parametrize("text, platform, message", [
    (_THREEFRY_I32, "cuda", r"cu_threefry2x32_ffi of element type i32 \(expected one of ui32\)"),
    (_PIVOTS_SHORT, "rocm", "permutation size 3 is smaller than the number of pivots 4"),
    (_PIVOTS_SHORT.replace('"1"', '"0"'), "rocm", "num_batch_dims 0 does not match operand rank 2"),
])
def test_refused_calls_are_located_and_change_nothing(text, platform, message):
    m = hlokit.parse(text, source_name="bad.mlir", context=hlokit.make_context())
    before = str(m)
    with pytest.raises(PassError, match=message) as err:
        run_pipeline(m, f"builtin.module(func.func({PASSES[platform]}))")
    assert "bad.mlir:" in str(err.value)
    assert str(m) == before


@pytest.mark.parametrize("stem", ["rocm_threefry2x32", "cuda_lu_pivots_to_permutation"])
def test_hlokit_run_expected_on_back_compat_artifacts(stem, tmp_path, capsys):
    """``hlokit-run ARTIFACT.mlirbc --engine both --expected OUT.npz``: both engines give exactly what the GPU
    gave, and a changed expected value fails."""
    from hlokit.tools import hlokit_run

    (case,) = jax_back_compat.load(stem)
    artifact = tmp_path / "a.mlirbc"
    artifact.write_bytes(case.serialized)
    inputs, expected = tmp_path / "in.npz", tmp_path / "exp.npz"
    np.savez(inputs, **{f"arg_{i}": x for i, x in enumerate(case.inputs)})
    np.savez(expected, **{f"output_{i}": x for i, x in enumerate(case.expected)})
    argv = [artifact, "--inputs", inputs, "--engine", "both", "--max-ulp", "0", "--expected", expected]
    code = hlokit_run.main([str(a) for a in argv])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "interpreter vs expected: ok" in out and "XLA vs expected: ok" in out
    wrong = [x.copy() for x in case.expected]
    wrong[0].reshape(-1)[0] += 1
    np.savez(expected, **{f"output_{i}": x for i, x in enumerate(wrong)})
    assert hlokit_run.main([str(a) for a in argv]) == 1


def test_legacy_pivots_call_with_an_opaque_descriptor():
    # jaxlib before its FFI kernels wrote the same target with api_version 2 and an opaque descriptor
    # (batch size, pivot size, permutation size) in 'backend_config'; the result type gives all of it.
    text = """
func.func @main(%p: tensor<3x2xi32>) -> tensor<3x4xi32> {
  %0 = stablehlo.custom_call @cu_lu_pivots_to_permutation(%p) {api_version = 2 : i32,
    backend_config = "\\03\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\04\\00\\00\\00",
    operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]}
    : (tensor<3x2xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
"""
    pivots = np.array([[3, 1], [1, 3], [0, 2]], np.int32)
    legal = _legalize(text, "cuda")
    assert "custom_call" not in legal
    np.testing.assert_array_equal(backend.compile(legal)(pivots)[0], pivots_to_permutation(pivots, 4))
