"""hlokit on an NVIDIA GPU: XLA CUDA through jax's cuda plugin.

These tests run only where ``JAX_PLATFORMS`` names ``cuda`` (``.ci/gpu`` sets it on a machine with a GPU);
the default run and CI set ``cpu`` and every test here skips, saying so. On the GPU they check what
"run every program anywhere" promises there:

1. the committed model artifacts (haiku, equinox, flax, optax exports) and ``examples/*.mlir`` run on the GPU
   through ``hlokit-run --platform cuda`` and agree with JAX's CPU outputs (the multi-platform exports through
   their cuda lowering), and ``--engine both`` agrees on the GPU;
2. programs JAX exported for CPU with LAPACK calls (``examples/linalg``) run on the GPU once legalized, with
   the same results as the legalized program on XLA CPU;
3. programs JAX exports for cuda with cuSOLVER / cuSPARSE / Threefry custom calls, legalized by
   ``--stablehlo-legalize-cuda-custom-calls``, agree with the custom calls themselves run by JAX on the GPU
   (bit for bit for the random bits).

Float outputs of models are compared relative to the output's largest magnitude: XLA CUDA runs f32
``dot_general`` / convolutions at ``DEFAULT`` precision in TF32 (10-bit mantissas) on Hopper, so the bound
there is TF32's, :data:`TF32_RTOL`; the legalized linear algebra asks ``HIGHEST`` and is held to f32 / f64
bounds.
"""

from __future__ import annotations

import os
import pathlib
import re

import numpy as np
import pytest

#: The platform under test: cuda (HLOKIT_TEST_GPU_PLATFORM=cpu runs the checks' own code on XLA CPU, to
#: debug them without a GPU; the cuSOLVER calls then cannot run).
GPU = os.environ.get("HLOKIT_TEST_GPU_PLATFORM", "cuda")
ON_GPU = GPU in os.environ.get("JAX_PLATFORMS", "").split(",")
pytestmark = pytest.mark.skipif(not ON_GPU, reason="GPU check: JAX_PLATFORMS does not name cuda "
                                "(.ci/gpu runs these on a machine with an NVIDIA GPU)")

import hlokit  # noqa: E402
from hlokit import backend  # noqa: E402
from hlokit.passes.prepare import prepare  # noqa: E402
from hlokit.tools import hlokit_run  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
MODELS = REPO / "examples" / "models"
LINALG = REPO / "examples" / "linalg"

#: Relative bound (to an output's largest magnitude) for f32 models on the GPU: products in TF32.
TF32_RTOL = 2e-2


def _rel(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| over the finite entries (NaN / inf positions must agree)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind in "biu":
        return 0.0 if np.array_equal(got, want) else np.inf
    g, w = got.astype(np.complex128), want.astype(np.complex128)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = np.isfinite(w)
    np.testing.assert_array_equal(g[~ok & ~np.isnan(w)], w[~ok & ~np.isnan(w)])
    if not ok.any():
        return 0.0
    scale = max(float(np.max(np.abs(w[ok]))), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(g[ok] - w[ok]))) / scale


def _hlokit_run(capsys, *argv) -> tuple[int, str]:
    code = hlokit_run.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def _npz(path: pathlib.Path) -> list[np.ndarray]:
    with np.load(path) as z:
        return [z[f"output_{i}"] for i in range(len(z.files))]


def test_cuda_platform_runs_a_program():
    jax = pytest.importorskip("jax")
    assert jax.devices(GPU), f"JAX_PLATFORMS names {GPU} but jax sees no such device"
    exe = backend.compile("func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
                          "  %0 = stablehlo.multiply %a, %a : tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n",
                          platform=GPU)
    assert exe.platform == GPU and all(d.platform in ("gpu", GPU) for d in exe.devices)
    (out,) = exe(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(np.asarray(out), np.array([1.0, 4.0, 9.0], np.float32))


def test_list_devices(capsys):
    code, text = _hlokit_run(capsys, "--list-devices", "--platform", GPU)
    assert code == 0 and re.search(rf"platform: {GPU}\s+devices: [1-9]", text), text


# --- 1. models and examples -----------------------------------------------------------------------------

MODEL_STEMS = sorted(p.name[:-len(".inputs.npz")] for p in MODELS.glob("*.inputs.npz") if ".poly_b" not in p.name)


@pytest.mark.parametrize("stem", MODEL_STEMS)
def test_model_artifact_on_cuda(stem, capsys, tmp_path):
    expected = _npz(MODELS / f"{stem}.expected.npz")
    programs = [(MODELS / f"{stem}.mlirbc", [])]
    if (MODELS / f"{stem}.multi.mlirbc").exists():
        programs.append((MODELS / f"{stem}.multi.mlirbc", ["--exported-platforms", "cpu,cuda,tpu"]))
    for program, extra in programs:
        out = tmp_path / f"{program.name}.npz"
        code, text = _hlokit_run(capsys, program, "--platform", GPU, *extra,
                                 "--inputs", MODELS / f"{stem}.inputs.npz", "--output", out)
        assert code == 0, text
        errs = [_rel(g, w) for g, w in zip(_npz(out), expected)]
        print(f"{program.name}: max relative error vs JAX on CPU {max(errs):.3g}")
        assert max(errs) <= TF32_RTOL, f"{program.name}: relative errors {errs}"


EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.mlir")
                  if not re.search(r"_\d+(x\d+)?\.mlir$|replicas", p.name))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_on_cuda_matches_cpu(name, capsys, tmp_path):
    program = REPO / "examples" / name
    outs = {}
    for platform in ("cpu", GPU):
        outs[platform] = tmp_path / f"{platform}.npz"
        code, text = _hlokit_run(capsys, program, "--platform", platform, "--output", outs[platform])
        assert code == 0, f"{platform}: {text}"
    errs = [_rel(g, w) for g, w in zip(_npz(outs[GPU]), _npz(outs["cpu"]))]
    print(f"{name}: max relative error cuda vs cpu {max(errs):.3g}")
    assert max(errs) <= TF32_RTOL, errs
    code, text = _hlokit_run(capsys, program, "--platform", GPU, "--engine", "both", "--rtol", TF32_RTOL)
    assert code == 0, text


# --- 2. CPU LAPACK exports, legalized, on the GPU -------------------------------------------------------

LINALG_CASES = sorted(p.name for p in LINALG.glob("*.mlir") if re.search(r"_(f32|c128)_4x4\.mlir$", p.name))


#: Families whose functions read a Hermitian positive definite matrix (one triangle).
HERMITIAN = ("cholesky", "cho_solve", "eigh", "eigvalsh")


def _inputs(module, hermitian: bool, seed: int = 0) -> list[np.ndarray]:
    """Seeded standard normal inputs for ``module``'s entry; square matrices made Hermitian positive
    definite where ``hermitian``, else shifted by ``n I`` (well conditioned)."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in backend.signature(module)[0]:
        dt = np.dtype(spec.dtype)
        x = rng.standard_normal(spec.shape)
        if dt.kind == "c":
            x = x + 1j * rng.standard_normal(spec.shape)
        if len(spec.shape) >= 2 and spec.shape[-1] == spec.shape[-2]:
            n = spec.shape[-1]
            x = x @ np.swapaxes(x, -1, -2).conj() + n * np.eye(n) if hermitian else x + n * np.eye(n)
        out.append(np.asarray(x).astype(dt))
    return out


def _schur_ok(a: np.ndarray, t: np.ndarray, z: np.ndarray, eps: float, what: str) -> None:
    """``a = z t z^H`` with ``z`` unitary (a Schur form is unique only up to the phases of ``z``'s columns)."""
    a, t, z = (np.asarray(x).astype(np.complex128) for x in (a, t, z))
    n = a.shape[-1]
    res = np.max(np.abs(z @ t @ z.conj().T - a)) / np.max(np.abs(a))
    orth = np.max(np.abs(z.conj().T @ z - np.eye(n)))
    assert max(res, orth) <= 1e3 * eps, f"{what}: residual {res:.3g}, orthogonality {orth:.3g}"


@pytest.mark.parametrize("name", LINALG_CASES)
def test_legalized_lapack_on_cuda_matches_cpu(name):
    module = hlokit.parse((LINALG / name).read_text(), context=hlokit.make_context())
    prepared = str(prepare(module, engine="xla", platform="cuda").module)
    assert "custom_call @lapack" not in prepared
    args = _inputs(module, hermitian=name.startswith(HERMITIAN))
    cpu = [np.asarray(x) for x in backend.compile(prepared, platform="cpu")(*args)]
    gpu = [np.asarray(x) for x in backend.compile(prepared, platform=GPU)(*args)]
    eps = 1.2e-7 if "f32" in name else 2.3e-16
    if name.startswith("schur"):
        for out, platform in ((cpu, "cpu"), (gpu, GPU)):
            _schur_ok(args[0], out[0], out[1], eps, f"{name} on {platform}")
        cpu, gpu = cpu[:1], gpu[:1]  # T: the same eigenvalues in the same order
        cpu[0], gpu[0] = np.diagonal(cpu[0]).copy(), np.diagonal(gpu[0]).copy()
    errs = [_rel(g, c) for g, c in zip(gpu, cpu)]
    print(f"{name}: max relative difference cuda vs cpu {max(errs):.3g} ({max(errs) / eps:.1f} eps)")
    assert max(errs) <= 1e3 * eps, errs


# --- 3. cuda custom calls, legalized, against the calls themselves ----------------------------------------

def _gpu_custom_call_cases():
    import test_gpu_custom_calls as g
    return g


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", ["cholesky", "lu", "qr", "tridiagonal_upper", "tridiagonal_solve", "eigh", "svd",
                                  "svd_values_jacobi"])
def test_legalized_cusolver_on_cuda(name, dtype):
    g = _gpu_custom_call_cases()
    fn, make, kind = g.FUNCTIONS[name]
    args = make(dtype, (2,))
    text = g._export(fn, "cuda", *args)
    assert "custom_call @cu" in text
    # As jax runs it: the cuSOLVER / cuSPARSE kernels on the GPU (the policy leaves them on XLA CUDA).
    native = prepare(hlokit.parse(text, context=hlokit.make_context()), engine="xla", platform="cuda")
    assert "custom_call @cu" in str(native.module)
    want = [np.asarray(x) for x in backend.compile(str(native.module), platform=GPU)(*args)]
    # Legalized (the policy's pass for any platform but cuda), then run on the GPU.
    legal = prepare(hlokit.parse(text, context=hlokit.make_context()), engine="xla", platform="cpu")
    assert "custom_call @cu" not in str(legal.module)
    got = [np.asarray(x) for x in backend.compile(str(legal.module), platform=GPU)(*args)]
    what = f"{name} {dtype}"
    g._compare(kind, fn, args, got, what + " legalized")
    g._compare(kind, fn, args, want, what + " cuSOLVER")
    if kind == "exact":
        for i, (a, b) in enumerate(zip(got, want)):
            g._close(a, b, g.C * max(args[0].shape[-2:]) * g._eps(args[0]) * 100, f"{what} output {i}")


def test_threefry_custom_call_bits_on_cuda():
    jax = pytest.importorskip("jax")
    from test_gpu_prng_pivots import _export

    def bits(key):  # key data uint32[2]: the default threefry2x32 implementation
        return jax.random.bits(jax.random.wrap_key_data(key), (3, 1000))

    key = np.array([12345, 678], np.uint32)
    text = _export(bits, [key], "cuda")
    assert "cu_threefry2x32" in text
    with jax.default_device(jax.devices(GPU)[0]):
        want = np.asarray(jax.jit(bits)(key))
    legal = prepare(hlokit.parse(text, context=hlokit.make_context()), engine="xla", platform="cpu")
    assert "cu_threefry2x32" not in str(legal.module)
    (got,) = backend.compile(str(legal.module), platform=GPU)(key)
    np.testing.assert_array_equal(np.asarray(got), want)
    (interp,) = hlokit.interpret(prepare(hlokit.parse(text, context=hlokit.make_context()),
                                         engine="interpreter", platform="cpu").module, [key])
    np.testing.assert_array_equal(np.asarray(interp), want)


@pytest.mark.parametrize("algorithm", ["THREE_FRY", "PHILOX"])
def test_rng_bit_generator_same_bits_on_cuda_cpu_and_interpreter(algorithm):
    state = "2xui64" if algorithm == "THREE_FRY" else "3xui64"
    text = (f"func.func @main(%s: tensor<{state}>) -> (tensor<{state}>, tensor<4x257xui32>) {{\n"
            f"  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = {algorithm} : "
            f"(tensor<{state}>) -> (tensor<{state}>, tensor<4x257xui32>)\n"
            f"  return %0, %1 : tensor<{state}>, tensor<4x257xui32>\n}}\n")
    s = np.arange(1, 3 if algorithm == "THREE_FRY" else 4, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    cuda = [np.asarray(x) for x in backend.compile(text, platform=GPU)(s)]
    cpu = [np.asarray(x) for x in backend.compile(text, platform="cpu")(s)]
    interp = [np.asarray(x) for x in hlokit.interpret(hlokit.parse(text), [s])]
    for a, b, c in zip(cuda, cpu, interp):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
