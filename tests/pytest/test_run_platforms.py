"""hlokit-run on multi-platform jax.export modules (jax's _platform_index argument filled in from --platform)
and --input NAME=FILE.npy (issue 37, items 1, 3 and 6)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax import lax  # noqa: E402

from hlokit.tools import hlokit_run  # noqa: E402

X = np.arange(3, dtype=np.float32)
Y = np.ones(3, np.float32)


def run(capsys, *argv):
    code = hlokit_run.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """A module jax.export lowered for ("cpu", "cuda") whose lowerings differ (x * 2 on cpu, x * 3 on
    cuda), as text and as the serialized artifact, and a single-platform one with pytree argument names."""
    d = tmp_path_factory.mktemp("platforms")

    def f(x, y):
        return lax.platform_dependent(x, cpu=lambda v: v * 2.0, cuda=lambda v: v * 3.0) + y

    spec = jax.ShapeDtypeStruct((3,), np.float32)
    exp = jax.export.export(jax.jit(f), platforms=("cpu", "cuda"))(spec, spec)
    assert '"_platform_index"' in exp.mlir_module()  # what the rest of this file relies on
    (d / "mp.mlir").write_text(exp.mlir_module())
    (d / "mp.mlirbc").write_bytes(exp.mlir_module_serialized)

    def g(params, x):
        return params["w"] @ x + params["b"]

    exp2 = jax.export.export(jax.jit(g))(
        {"w": jax.ShapeDtypeStruct((2, 3), np.float32), "b": jax.ShapeDtypeStruct((2,), np.float32)}, spec)
    (d / "g.mlir").write_text(exp2.mlir_module())  # arguments: params['b'], params['w'], x
    np.save(d / "x.npy", X)
    np.save(d / "y.npy", Y)
    np.save(d / "w.npy", np.ones((2, 3), np.float32))
    np.save(d / "w64.npy", np.ones((2, 3), np.float64))
    np.savez(d / "xy.npz", arg_0=X, arg_1=Y)
    np.savez(d / "b.npz", arg_0=np.full(2, 0.5, np.float32))
    (d / "junk.npy").write_text("not an array")
    return d


@pytest.mark.parametrize("engine", ["xla", "interpreter", "both"])
def test_platform_index_is_filled_in(artifacts, capsys, tmp_path, engine):
    out = tmp_path / "out.npz"
    code, text, err = run(capsys, artifacts / "mp.mlir", "--engine", engine, "--exported-platforms", "cpu,cuda",
                          "--inputs", artifacts / "xy.npz", "--output", out)
    assert code == 0, err
    assert "platform index 0 (cpu) of the export's lowerings cpu, cuda" in text
    assert "arg_0: tensor<3xf32>" in text and "arg_1: tensor<3xf32>" in text and "arg_2" not in text
    np.testing.assert_array_equal(np.load(out)["output_0"], X * 2 + Y)  # the cpu lowering ran
    if engine == "both":
        assert "interpreter vs XLA: max 0 ULP" in text


def test_platform_order_and_bytecode(artifacts, capsys, tmp_path):
    out = tmp_path / "out.npz"
    # the same module read as the serialized artifact; the platforms as listed pick the branch
    code, text, err = run(capsys, artifacts / "mp.mlirbc", "--engine", "interpreter", "--exported-platforms",
                          "cuda,cpu", "--inputs", artifacts / "xy.npz", "--output", out)
    assert code == 0, err
    assert "platform index 1 (cpu)" in text
    np.testing.assert_array_equal(np.load(out)["output_0"], X * 3 + Y)  # index 1 is the second branch


def test_platform_errors(artifacts, capsys):
    mp = artifacts / "mp.mlir"
    code, _, err = run(capsys, mp)
    assert code == 1 and "error: @main is a multi-platform export" in err and "--exported-platforms" in err
    assert "Traceback" not in err
    code, _, err = run(capsys, mp, "--exported-platforms", "cpu,tpu", "--platform", "cuda")
    assert code == 1 and f"{mp}: error: this multi-platform export has no lowering for cuda: its lowerings are for cpu, tpu" in err
    code, _, err = run(capsys, mp, "--exported-platforms", "cpu,gpu")
    assert code == 1 and "error: --exported-platforms: expected distinct platforms" in err


def test_cuda_lowering_on_a_cpu_machine(artifacts, capsys):
    if any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("a GPU is present")
    code, _, err = run(capsys, artifacts / "mp.mlir", "--exported-platforms", "cpu,cuda", "--platform", "cuda")
    assert code == 1 and "platform 'cuda' is not available" in err  # today's message for an absent platform


def test_input_npy_with_jax_names_and_npz(artifacts, capsys, tmp_path):
    g, out = artifacts / "g.mlir", tmp_path / "out.npz"
    code, text, err = run(capsys, g, "--inputs", artifacts / "b.npz", "--input", f"params['w']={artifacts / 'w.npy'}",
                          "--input", f"arg_2={artifacts / 'x.npy'}", "--output", out)
    assert code == 0, err
    assert "params['w']=" in text.splitlines()[0]
    assert "  arg_1: tensor<2x3xf32>  (params['w'])" in text  # jax's names beside the arguments
    np.testing.assert_array_equal(np.load(out)["output_0"], np.full(2, X.sum() + 0.5, np.float32))
    # --input alone, with the multi-platform module: names are those of the real arguments
    code, text, err = run(capsys, artifacts / "mp.mlir", "--exported-platforms", "cpu,cuda", "--input",
                          f"x={artifacts / 'x.npy'}", "--input", f"arg_1={artifacts / 'y.npy'}", "--output", out)
    assert code == 0, err
    np.testing.assert_array_equal(np.load(out)["output_0"], X * 2 + Y)


def test_input_errors(artifacts, capsys):
    g, a = artifacts / "g.mlir", artifacts

    def error(*argv):
        code, _, err = run(capsys, g, *argv)
        assert code == 1 and "Traceback" not in err
        return err

    assert f"{a / 'nope.npy'}: error: --input x: no such file" in error("--input", f"x={a / 'nope.npy'}")
    assert f"{a / 'junk.npy'}: error: --input x: not an .npy file" in error("--input", f"x={a / 'junk.npy'}")
    assert "is an .npz archive" in error("--input", f"x={a / 'b.npz'}")
    err = error("--input", f"x={a / 'w.npy'}")
    assert f"{a / 'w.npy'}: error: --input x: the array: expected shape (3,)" in err
    err = error("--input", f"params['w']={a / 'w64.npy'}")
    assert "expected element type float32" in err and "got float64" in err
    err = error("--input", f"z={a / 'x.npy'}")
    assert f"{g}: error: --input z: no such argument" in err
    assert "arg_0 (params['b']: tensor<2xf32>), arg_1 (params['w']: tensor<2x3xf32>), arg_2 (x: tensor<3xf32>)" in err
    err = error("--inputs", a / "b.npz", "--input", f"params['b']={a / 'b.npz'}")
    assert "--input params['b']: argument arg_0 is given twice" in err
    err = error("--input", f"x={a / 'x.npy'}", "--input", f"arg_2={a / 'x.npy'}")
    assert "given twice" in err
    err = error("--input", f"x={a / 'x.npy'}")
    assert "missing input(s) arg_0 (params['b']: tensor<2xf32>), arg_1 (params['w']: tensor<2x3xf32>)" in err
    assert "expected NAME=FILE.npy" in error("--input", "x")
    # --inputs alone: the argument-count messages name jax's names too
    err = error("--inputs", a / "b.npz")
    assert "missing input(s) arg_1 (params['w']: tensor<2x3xf32>), arg_2 (x: tensor<3xf32>)" in err


def test_platforms_from_a_module_attribute(artifacts, capsys, tmp_path):
    text = (artifacts / "mp.mlir").read_text()
    marked = tmp_path / "marked.mlir"
    marked.write_text(text.replace("attributes {", 'attributes {mhlo.platforms = ["cuda", "cpu"], ', 1))
    code, out, err = run(capsys, marked, "--engine", "interpreter")
    assert code == 0, err
    assert "platform index 1 (cpu) of the export's lowerings cuda, cpu" in out
