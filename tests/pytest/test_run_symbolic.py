"""hlokit-run on jax.export programs with symbolic (dynamic) argument shapes: refined to the inputs' shapes
(hlokit.passes.refine.refine_arguments), jax's shape assertions checked, the refined signature printed."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402

import hlokit  # noqa: E402
from hlokit.passes.refine import dynamic_arguments, refine_arguments  # noqa: E402
from hlokit.tools import hlokit_run  # noqa: E402


def _row_sums(x):
    return jnp.sum(jnp.sin(x), axis=1)


def _pair_sums(x):  # the first dimension is 2*k: jax asserts it is even and k >= 1
    return x.reshape(x.shape[0] // 2, 2, x.shape[1]).sum(axis=1)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    d = tmp_path_factory.mktemp("symbolic")
    one = export.export(jax.jit(_row_sums))(jax.ShapeDtypeStruct(export.symbolic_shape("b, 16"), np.float32))
    two = export.export(jax.jit(_pair_sums))(jax.ShapeDtypeStruct(export.symbolic_shape("2*k, c"), np.float32))
    paths = {}
    for key, exp in (("one", one), ("two", two)):
        p = d / f"{key}.mlir"
        p.write_text(exp.mlir_module())
        paths[key] = (str(p), exp)
    return paths


def _run(argv, capsys):
    rc = hlokit_run.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _npz(tmp_path, name, *arrays):
    p = tmp_path / name
    np.savez(p, **{f"arg_{i}": a for i, a in enumerate(arrays)})
    return str(p)


@pytest.mark.parametrize("rows", [8, 3])
def test_one_symbolic_dim_matches_jax(programs, tmp_path, capsys, rows):
    path, exp = programs["one"]
    x = np.random.default_rng(rows).standard_normal((rows, 16)).astype(np.float32)
    out_npz = str(tmp_path / "out.npz")
    rc, out, err = _run([path, "--inputs", _npz(tmp_path, "in.npz", x), "--output", out_npz], capsys)
    assert rc == 0, err
    assert f"refined @main: (tensor<{rows}x16xf32>) -> tensor<{rows}xf32>" in out
    got = np.load(out_npz)["output_0"]
    np.testing.assert_allclose(got, np.asarray(exp.call(x)), rtol=1e-6)


@pytest.mark.parametrize("engine", ["interpreter", "both"])
def test_two_symbolic_dims_engines(programs, tmp_path, capsys, engine):
    path, exp = programs["two"]
    x = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    out_npz = str(tmp_path / "out.npz")
    rc, out, err = _run([path, "--inputs", _npz(tmp_path, "in.npz", x), "--engine", engine, "--output", out_npz],
                        capsys)
    assert rc == 0, err
    assert "refined @main: (tensor<6x5xf32>) -> tensor<3x5xf32>" in out
    np.testing.assert_array_equal(np.load(out_npz)["output_0"], x.reshape(3, 2, 5).sum(axis=1))
    np.testing.assert_array_equal(np.load(out_npz)["output_0"], np.asarray(exp.call(x)))


def test_input_option_gives_the_shape(programs, tmp_path, capsys):
    path, _ = programs["two"]
    x = np.ones((4, 7), np.float32)
    np.save(tmp_path / "x.npy", x)
    rc, out, err = _run([path, "--input", f"arg_0={tmp_path / 'x.npy'}"], capsys)
    assert rc == 0, err
    assert "refined @main: (tensor<4x7xf32>) -> tensor<2x7xf32>" in out


def test_shape_for_seeded_inputs(programs, tmp_path, capsys):
    path, _ = programs["two"]
    out_npz = str(tmp_path / "out.npz")
    rc, out, err = _run([path, "--shape", "arg_0=10x3", "--engine", "both", "--output", out_npz], capsys)
    assert rc == 0, err
    assert "refined @main: (tensor<10x3xf32>) -> tensor<5x3xf32>" in out
    assert np.load(out_npz)["output_0"].shape == (5, 3)


def test_no_shape_for_seeded_inputs_is_an_error(programs, capsys):
    path, _ = programs["one"]
    rc, out, err = _run([path], capsys)
    assert rc == 1
    assert err.startswith(f"{path}: error: argument arg_0 of @main has symbolic shape 'tensor<?x16xf32>'")
    assert "--shape arg_0=" in err and "Traceback" not in err


@pytest.mark.parametrize("bad", ["arg_0", "arg_0=8xq", "arg_0=-1x16"])
def test_malformed_shape_option(programs, capsys, bad):
    path, _ = programs["one"]
    rc, _, err = _run([path, "--shape", bad], capsys)
    assert rc == 1 and "--shape: expected NAME=D0xD1x..." in err


def test_shape_of_unknown_argument(programs, capsys):
    path, _ = programs["one"]
    rc, _, err = _run([path, "--shape", "arg_3=8x16"], capsys)
    assert rc == 1 and f"{path}: error: --shape arg_3: no such argument" in err


def test_failed_shape_assertion_gives_jax_message(programs, tmp_path, capsys):
    path, _ = programs["one"]
    rc, out, err = _run([path, "--inputs", _npz(tmp_path, "in.npz", np.ones((0, 16), np.float32))], capsys)
    assert rc == 1
    assert err.startswith(f"{path}: error: Input shapes do not match the polymorphic shapes specification. "
                          "Expected value >= 1 for dimension variable 'b'")
    assert "Traceback" not in err and "see current operation" not in err


def test_shape_contradicting_a_static_dim(programs, tmp_path, capsys):
    path, _ = programs["one"]
    rc, _, err = _run([path, "--inputs", _npz(tmp_path, "in.npz", np.ones((8, 17), np.float32))], capsys)
    assert rc == 1
    assert err.startswith(f"{path}: error: ")
    assert "tensor<?x16xf32> -> tensor<8x17xf32>" in err and "Traceback" not in err


def test_shape_breaking_the_specification_gives_jax_message(programs, tmp_path, capsys):
    """7 rows are not 2*k: refinement would first fail verifying the reshape inside the program; the shape
    assertions, checked on their own then, give jax's message (hlokit.passes.refine.check_assertions_alone)."""
    path, _ = programs["two"]
    rc, _, err = _run([path, "--inputs", _npz(tmp_path, "in.npz", np.ones((7, 4), np.float32))], capsys)
    assert rc == 1
    assert "error: Input shapes do not match the polymorphic shapes specification. Division had remainder 1 " \
           "when computing the value of 'k'" in err
    assert "Traceback" not in err and "reshape" not in err


def test_refine_arguments_in_place(programs):
    path, _ = programs["two"]
    with open(path) as fh:
        module = hlokit.parse(fh.read(), source_name=path)
    assert dynamic_arguments(module) == [0]
    assert refine_arguments(module, ["tensor<4x2xf32>"], source_name=path) == "(tensor<4x2xf32>) -> tensor<2x2xf32>"
    assert dynamic_arguments(module) == []
    assert "shape_assertion" not in str(module) and "call @" not in str(module)
    hlokit.verify(module)


def test_static_program_prints_no_refinement(tmp_path, capsys):
    p = tmp_path / "s.mlir"
    p.write_text("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n")
    rc, out, err = _run([str(p)], capsys)
    assert rc == 0, err
    assert "refined" not in out


@pytest.mark.parametrize("form", ["text", "path", "module"])
def test_interpret_refines_to_the_arguments(programs, form):
    path, exp = programs["two"]
    with open(path) as fh:
        text = fh.read()
    module = hlokit.parse(text, source_name=path) if form == "module" else None
    program = {"text": text, "path": path, "module": module}[form]
    for shape in [(4, 3), (8, 2)]:
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        (got,) = hlokit.interpret(program, [x])
        np.testing.assert_array_equal(got, np.asarray(exp.call(x)))
    if module is not None:
        assert dynamic_arguments(module) == [0]  # (the caller's module is not changed)


def test_interpret_failed_shape_assertion(programs):
    path, _ = programs["one"]
    with pytest.raises(hlokit.HlokitError, match="Expected value >= 1 for dimension variable 'b'"):
        hlokit.interpret(path, [np.ones((0, 16), np.float32)])
