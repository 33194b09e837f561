"""Third-party models exported with ``jax.export`` (examples/models: haiku, equinox, optax, flax) run from their
committed portable artifacts (VHLO bytecode) on XLA and on hlokit's interpreter and match JAX's recorded outputs;
their symbolic-batch exports run on concrete inputs of two batch sizes (refined from the inputs' shapes) and
their multi-platform exports run the lowering ``--platform`` picks, with no hand-written pipeline.

The libraries that wrote the artifacts are needed only to regenerate them (examples/models/export_models.py);
these tests read the committed files and never import that script or the libraries.

Tolerances: every model is held to ``hlokit-run --expected``'s default (integers and booleans exact, floats
``|a - b| <= 16 eps * max|expected|`` per output, 1.9e-6 for f32). XLA reproduces JAX's recording exactly here
(same XLA); the interpreter's worst element is 4e-7 of its output's scale (eqx_mlp's tanh output; hundreds of
ULPs on elements near zero, as in flax_transformer's LayerNorm output, 880 ULP at 2.7e-7 of the scale), so a
ULP bound cannot gate these networks and the scale-relative default does, with margin for another XLA build.
"""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest

from hlokit.tools import hlokit_run

from conftest import REPO

MODELS_DIR = REPO / "examples" / "models"
README = MODELS_DIR / "README.md"
MULTI_PLATFORMS = ("cpu", "cuda", "tpu")  # export_models.MULTI_PLATFORMS, in export order
LIBRARIES = ("haiku", "equinox", "optax", "flax", "export_models")


def readme_models() -> dict[str, list[str]]:
    """The README's table: model name -> its files (``| `name` | library | what | `.mlirbc` `.inputs.npz` ... |``)."""
    rows = {}
    for line in README.read_text().splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [m.group(1) + s for s in re.findall(r"`([^`]+)`", m.group(4))]
    return rows


MODELS = readme_models()
NAMES = sorted(MODELS)
POLY = sorted(n for n in NAMES if f"{n}.poly.mlirbc" in MODELS[n])
MULTI = sorted(n for n in NAMES if f"{n}.multi.mlirbc" in MODELS[n])


def path(name: str) -> str:
    return str(MODELS_DIR / name)


def run(capsys, *argv):
    code = hlokit_run.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def num_outputs(expected: str) -> int:
    with np.load(path(expected)) as z:
        return len(z.files)


def check_matches(code, out, err, engine: str, expected: str) -> None:
    """hlokit-run exited 0 and every output of ``engine`` was checked against ``expected`` and found ok."""
    assert code == 0, err
    label = {"xla": "XLA", "interpreter": "interpreter"}[engine]
    n = num_outputs(expected)
    assert len(re.findall(r"^output_\d+: ", out, re.M)) == n, out
    assert out.count(f"  {label} vs expected: ok") == n, out
    assert "MISMATCH" not in out


def small_batch(name: str) -> tuple[str, int]:
    """The second batch size of a symbolic export: ``NAME.poly_b<K>`` (inputs and expected outputs)."""
    (stem,) = [f for f in MODELS[name] if f.endswith(".inputs.npz") and ".poly_b" in f]
    stem = stem[: -len(".inputs.npz")]
    return stem, int(stem.rsplit("_b", 1)[1])


def test_readme_lists_every_model_with_its_files():
    assert len(NAMES) >= 10, NAMES
    libraries = " ".join(README.read_text().split("| model |", 1)[1].splitlines()[2:]).lower()
    for lib in ("haiku", "equinox", "optax", "flax"):
        assert lib in libraries
    listed = set()
    for name, files in MODELS.items():
        for suffix in (".mlirbc", ".inputs.npz", ".expected.npz", ".exported"):
            assert name + suffix in files, (name, suffix)
        for f in files:
            assert (MODELS_DIR / f).is_file(), f"README lists {f}, which is not in examples/models"
        listed.update(files)
    # every artifact in the folder belongs to a listed model; the folder stays small
    present = {p.name for p in MODELS_DIR.iterdir() if p.is_file()} - {"README.md", "export_models.py"}
    assert present == listed, f"not in the README: {sorted(present - listed)}"
    assert sum(p.stat().st_size for p in MODELS_DIR.iterdir() if p.is_file()) < 3 * 2**20
    # at least one symbolic and one multi-platform export per library
    for lib in ("hk_", "eqx_", "optax_", "flax_"):
        assert any(n.startswith(lib) for n in POLY) and any(n.startswith(lib) for n in MULTI), lib


#: Ways to run a Python file by its path or name.
LOADERS = {"spec_from_file_location", "run_path", "run_module", "import_module", "SourceFileLoader", "__import__",
           "exec", "execfile", "load_source"}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def test_tests_do_not_import_the_export_script_or_the_libraries():
    """The artifacts are committed so that tests need neither export_models.py nor haiku / equinox / flax /
    optax: no test module imports them or loads the script by path."""
    offenders = []
    for p in sorted((REPO / "tests").rglob("*.py")):
        tree = ast.parse(p.read_text(), filename=str(p))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Call) and _callee(node) in LOADERS and "export_models" in ast.dump(node):
                names = ["export_models"]  # spec_from_file_location(..., ".../export_models.py") & co.
            if any(n.split(".")[0] in LIBRARIES for n in names):
                offenders.append(f"{p.relative_to(REPO)}:{node.lineno}")
    assert not offenders, offenders


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
@pytest.mark.parametrize("name", NAMES)
def test_model_matches_jax(capsys, name, engine):
    code, out, err = run(capsys, path(f"{name}.mlirbc"), "--engine", engine, "--inputs", path(f"{name}.inputs.npz"),
                         "--expected", path(f"{name}.expected.npz"))
    check_matches(code, out, err, engine, f"{name}.expected.npz")


def test_a_changed_input_is_caught(capsys, tmp_path):
    """The comparison can fail: one weight changed by 1% makes the recorded outputs a mismatch, named."""
    with np.load(path("eqx_mlp.inputs.npz")) as z:
        args = dict(z)
    args["arg_1"] = args["arg_1"] * np.float32(1.01)
    np.savez(tmp_path / "in.npz", **args)
    code, out, err = run(capsys, path("eqx_mlp.mlirbc"), "--engine", "interpreter", "--inputs", tmp_path / "in.npz",
                         "--expected", path("eqx_mlp.expected.npz"))
    assert code == 1 and "interpreter vs expected: MISMATCH" in out
    assert "outputs differ from the recorded ones" in err and "output_0 of interpreter" in err


def _tensor_type(shape: tuple[int, ...], dtype: np.dtype) -> str:
    element = {"float32": "f32", "int32": "i32", "bool": "i1"}[np.dtype(dtype).name]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
@pytest.mark.parametrize("batch", ["full", "small"])
@pytest.mark.parametrize("name", POLY)
def test_symbolic_batch_runs_on_concrete_inputs(capsys, name, batch, engine):
    stem = name if batch == "full" else small_batch(name)[0]
    code, out, err = run(capsys, path(f"{name}.poly.mlirbc"), "--engine", engine, "--inputs",
                         path(f"{stem}.inputs.npz"), "--expected", path(f"{stem}.expected.npz"))
    check_matches(code, out, err, engine, f"{stem}.expected.npz")
    # the refined signature: the inputs' shapes, and results of the recorded outputs' shapes
    with np.load(path(f"{stem}.inputs.npz")) as i, np.load(path(f"{stem}.expected.npz")) as o:
        ins = [_tensor_type(i[f"arg_{k}"].shape, i[f"arg_{k}"].dtype) for k in range(len(i.files))]
        outs = [_tensor_type(o[f"output_{k}"].shape, o[f"output_{k}"].dtype) for k in range(len(o.files))]
    results = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
    assert f"refined @main: ({', '.join(ins)}) -> {results}" in out


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
def test_empty_batch_reports_jax_message(capsys, tmp_path, engine):
    """jax asserts b >= 1; a batch of 0 rows ends in jax's own message, exit 1, on either engine."""
    with np.load(path("eqx_mlp.inputs.npz")) as z:
        args = dict(z)
    last = f"arg_{len(args) - 1}"  # x: [b, 8]
    args[last] = args[last][:0]
    np.savez(tmp_path / "in.npz", **args)
    code, out, err = run(capsys, path("eqx_mlp.poly.mlirbc"), "--engine", engine, "--inputs", tmp_path / "in.npz")
    assert code == 1 and "Traceback" not in err
    assert "eqx_mlp.poly.mlirbc: error: Input shapes do not match the polymorphic shapes specification. Expected " \
           "value >= 1 for dimension variable 'b'" in err


def test_inconsistent_batch_reports_jax_message(capsys, tmp_path):
    """flax_transformer's x and valid share the symbol b: a batch of 4 and one of 3 break jax's specification."""
    with np.load(path("flax_transformer.inputs.npz")) as z:
        args = dict(z)
    last = f"arg_{len(args) - 1}"  # valid: [b, seq] bool
    args[last] = args[last][:3]
    np.savez(tmp_path / "in.npz", **args)
    code, _, err = run(capsys, path("flax_transformer.poly.mlirbc"), "--inputs", tmp_path / "in.npz")
    assert code == 1
    assert "Input shapes do not match the polymorphic shapes specification" in err


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
@pytest.mark.parametrize("name", MULTI)
def test_multi_platform_export_runs_the_cpu_lowering(capsys, name, engine):
    code, out, err = run(capsys, path(f"{name}.multi.mlirbc"), "--platform", "cpu", "--exported-platforms",
                         ",".join(MULTI_PLATFORMS), "--engine", engine, "--inputs", path(f"{name}.inputs.npz"),
                         "--expected", path(f"{name}.expected.npz"))
    check_matches(code, out, err, engine, f"{name}.expected.npz")
    assert "multi-platform export: running platform index 0 (cpu) of the export's lowerings cpu, cuda, tpu" in out


@pytest.mark.parametrize("platform", ["cuda", "tpu"])
@pytest.mark.parametrize("name", MULTI)
def test_multi_platform_export_other_lowerings_on_the_interpreter(capsys, name, platform):
    """The interpreter runs the cuda and tpu lowerings of the same export (no plugin needed) to the same outputs."""
    code, out, err = run(capsys, path(f"{name}.multi.mlirbc"), "--platform", platform, "--exported-platforms",
                         ",".join(MULTI_PLATFORMS), "--engine", "interpreter", "--inputs",
                         path(f"{name}.inputs.npz"), "--expected", path(f"{name}.expected.npz"))
    check_matches(code, out, err, "interpreter", f"{name}.expected.npz")
    index = MULTI_PLATFORMS.index(platform)
    assert f"running platform index {index} ({platform}) of the export's lowerings cpu, cuda, tpu" in out


def test_multi_platform_export_needs_its_platforms(capsys):
    """Bytecode does not record the export's platforms: hlokit-run asks for them instead of guessing."""
    name = MULTI[0]
    code, _, err = run(capsys, path(f"{name}.multi.mlirbc"), "--inputs", path(f"{name}.inputs.npz"))
    assert code == 1 and "--exported-platforms" in err and "_platform_index" in err


EXPORTED = [f[: -len(".exported")] for n in NAMES for f in MODELS[n] if f.endswith(".exported")]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["xla", "interpreter"])
@pytest.mark.parametrize("stem", EXPORTED)
def test_serialized_exported_matches_jax(capsys, stem, engine):
    """``Exported.serialize()`` files (which carry the platforms) run without --exported-platforms."""
    name = stem.split(".")[0]
    code, out, err = run(capsys, path(f"{stem}.exported"), "--engine", engine, "--inputs",
                         path(f"{name}.inputs.npz"), "--expected", path(f"{name}.expected.npz"))
    check_matches(code, out, err, engine, f"{name}.expected.npz")
    if stem.endswith(".multi"):
        assert "running platform index 0 (cpu) of the export's lowerings cpu, cuda, tpu" in out
