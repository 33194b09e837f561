"""hlokit-opt --refine-arguments: a program with symbolic argument shapes (jax.export with symbolic_shape) given
concrete ones by the pipeline hlokit-run uses (hlokit.passes.refine.refine_arguments), from every argument's
type, NAME=TYPE pairs (jax's names) or an .npz of inputs; errors located, exit 1, -o written only on success."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402

import hlokit  # noqa: E402
from hlokit.tools import hlokit_opt  # noqa: E402
from hlokit.tools.hlokit_opt import split_types  # noqa: E402


def _pair_sums(x, scale):  # the first dimension is 2*k: jax asserts it is even and k >= 1
    return x.reshape(x.shape[0] // 2, 2, x.shape[1]).sum(axis=1) * scale


def _mlp(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    d = tmp_path_factory.mktemp("refine")
    pairs = export.export(jax.jit(_pair_sums))(jax.ShapeDtypeStruct(export.symbolic_shape("2*k, c"), np.float32),
                                                jax.ShapeDtypeStruct((), np.float32))
    text = d / "pairs.mlir"
    text.write_text(pairs.mlir_module())
    out = {"pairs": (str(text), pairs)}
    if importlib.util.find_spec("flatbuffers") is None:  # jax's serialization needs it
        return out
    b = export.symbolic_shape("b")[0]
    mlp = export.export(jax.jit(_mlp))({"w": jax.ShapeDtypeStruct((4, 3), np.float32),
                                        "b": jax.ShapeDtypeStruct((3,), np.float32)},
                                       jax.ShapeDtypeStruct((b, 4), np.float32))
    container = d / "mlp.data"
    container.write_bytes(mlp.serialize())
    out["mlp"] = (str(container), mlp)
    return out


def _opt(argv, capsys):
    rc = hlokit_opt.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _signature(text: str) -> str:
    line = next(ln for ln in text.splitlines() if "func.func public @main" in ln)
    return line


def test_split_types_keeps_nested_commas():
    assert split_types("tensor<8x16xf32>, tensor<8xi32>") == ["tensor<8x16xf32>", "tensor<8xi32>"]
    assert split_types("tensor<2x!quant.uniform<i8:f32, 0.5:3>>,tensor<f32>") == [
        "tensor<2x!quant.uniform<i8:f32, 0.5:3>>", "tensor<f32>"]
    assert split_types("") == []


def test_every_argument_type(programs, tmp_path, capsys):
    path, exp = programs["pairs"]
    out = tmp_path / "refined.mlir"
    rc, _, err = _opt([path, "--refine-arguments=tensor<6x5xf32>,tensor<f32>", "-o", str(out)], capsys)
    assert rc == 0, err
    text = out.read_text()
    sig = _signature(text)
    assert "tensor<6x5xf32>" in sig and "-> (tensor<3x5xf32>" in sig
    assert "?" not in text.split("func.func")[1].split("{")[0]  # no dynamic dimension left in @main's signature
    assert "shape_assertion" not in text  # checked and dropped
    # the refined module computes what jax's call does
    x = np.arange(30, dtype=np.float32).reshape(6, 5)
    got = hlokit.interpret(text, [x, np.float32(0.5)])
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(exp.call(x, np.float32(0.5))), rtol=1e-6)


def test_then_passes_run_on_the_refined_program(programs, capsys):
    path, _ = programs["pairs"]
    rc, out, err = _opt([path, "--refine-arguments=tensor<4x2xf32>,tensor<f32>", "--canonicalize"], capsys)
    assert rc == 0, err
    assert "tensor<4x2xf32>" in _signature(out)


def test_name_type_pairs_by_jax_names(programs, capsys):
    if "mlp" not in programs:
        pytest.skip("jax's serialization needs the flatbuffers package")
    path, _ = programs["mlp"]
    rc, out, err = _opt([path, "--refine-arguments=args[1]=tensor<7x4xf32>"], capsys)
    assert rc == 0, err
    sig = _signature(out)
    assert "tensor<7x4xf32>" in sig and "tensor<7x3xf32>" in sig
    rc, out, err = _opt([path, "--refine-arguments=arg_2=tensor<2x4xf32>"], capsys)
    assert rc == 0 and "tensor<2x3xf32>" in _signature(out), err


def test_npz_of_inputs(programs, tmp_path, capsys):
    path, _ = programs["pairs"]
    npz = tmp_path / "in.npz"
    np.savez(npz, arg_0=np.zeros((8, 3), np.float32), arg_1=np.float32(1))
    rc, out, err = _opt([path, f"--refine-arguments={npz}"], capsys)
    assert rc == 0, err
    assert "-> (tensor<4x3xf32>" in _signature(out)
    if "mlp" in programs:  # keys by jax's names
        npz = tmp_path / "named.npz"
        np.savez(npz, **{"args[1]": np.zeros((9, 4), np.float32)})
        rc, out, err = _opt([programs["mlp"][0], f"--refine-arguments={npz}"], capsys)
        assert rc == 0, err
        assert "tensor<9x3xf32>" in _signature(out)


@pytest.mark.parametrize("spec, message", [
    ("tensor<6x5xf32>", "@main takes 2 argument(s), got 1 type(s); its arguments: arg_0: tensor<?x?xf32>"),
    ("tensor<6x5xf32>,tensor<f3>", "'tensor<f3>' (for arg_1) is not a type: "),
    ("tensor<6x5xi32>,tensor<f32>", "arg_0: 'tensor<6x5xi32>' does not fit the argument's type tensor<?x?xf32>"),
    ("tensor<?x5xf32>,tensor<f32>", "arg_0: 'tensor<?x5xf32>' is not a tensor type of static shape"),
    ("arg_0=tensor<6x5xf32>,tensor<f32>", "give every argument's type in order, or NAME=TYPE pairs, not both"),
    ("x=tensor<6x5xf32>", "no argument named 'x'; @main takes 2 argument(s)"),
    ("arg_1=tensor<f32>", "argument arg_0 has symbolic shape tensor<?x?xf32>: give its type"),
    ("arg_0=tensor<2x2xf32>,arg_0=tensor<4x2xf32>", "argument arg_0 is given twice"),
])
def test_bad_refinements_are_located_errors(programs, tmp_path, capsys, spec, message):
    path, _ = programs["pairs"]
    out = tmp_path / "never.mlir"
    rc, stdout, err = _opt([path, f"--refine-arguments={spec}", "-o", str(out)], capsys)
    assert rc == 1
    assert err.startswith(f"{path}: error: --refine-arguments: "), err
    assert message in err, err
    assert not out.exists()


def test_a_failed_shape_assertion_is_jax_message_located(programs, tmp_path, capsys):
    path, _ = programs["pairs"]
    out = tmp_path / "never.mlir"
    rc, _, err = _opt([path, "--refine-arguments=tensor<0x3xf32>,tensor<f32>", "-o", str(out)], capsys)
    assert rc == 1
    assert err.startswith(f"{path}: error: Input shapes do not match the polymorphic shapes specification"), err
    assert "Expected value >= 1 for dimension variable 'k'" in err and "args[0].shape = (2*k, c)" in err
    assert not out.exists()


def test_a_bad_npz(programs, tmp_path, capsys):
    path, _ = programs["pairs"]
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    rc, _, err = _opt([path, f"--refine-arguments={bad}"], capsys)
    assert rc == 1 and err.startswith(f"{bad}: error: --refine-arguments: not a readable .npz file"), err
    npz = tmp_path / "f64.npz"
    np.savez(npz, arg_0=np.zeros((2, 2), np.float64), arg_1=np.float32(0))
    rc, _, err = _opt([path, f"--refine-arguments={npz}"], capsys)
    assert rc == 1 and "does not fit the argument's type tensor<?x?xf32>" in err, err
