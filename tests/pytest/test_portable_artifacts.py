"""StableHLO portable artifacts (VHLO bytecode) read by every tool and by ``hlokit.parse`` / ``hlokit.interpret``,
recognised by content and converted to StableHLO (hlokit.core.deserialize_portable_artifact); corrupt, truncated
and too-new artifacts end in a located error, exit 1, nothing written."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

import hlokit
from hlokit import core
from hlokit.tools.translate_portable import deserialize

from conftest import REPO

EXAMPLES = REPO / "examples"
ENV = {**os.environ, "JAX_PLATFORMS": "cpu"}

# A CHLO-free program with a special function, a decomposition and no arguments (so --interpret prints results).
SMALL = """
func.func @main() -> (tensor<3xf32>, tensor<2x2xf32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = stablehlo.logistic %c : tensor<3xf32>
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %l = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  func.return %0, %l : tensor<3xf32>, tensor<2x2xf32>
}
"""


def tool(*argv, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run an hlokit tool's entry point (``hlokit-run`` -> ``hlokit.tools.hlokit_run``) in a fresh process."""
    module = {"hlokit-run": "hlokit_run", "hlokit-opt": "hlokit_opt", "hlokit-translate": "hlokit_translate"}[argv[0]]
    code = f"import sys; from hlokit.tools.{module} import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, argv[1:])], input=stdin, capture_output=True,
                          timeout=300, cwd=REPO, env=ENV)


def serialize_cli(src, target: str, out) -> bytes:
    proc = tool("hlokit-translate", "--serialize", f"--target={target}", src, "-o", out)
    assert proc.returncode == 0, proc.stderr.decode()
    return out.read_bytes()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """Artifacts written with ``hlokit-translate --serialize``: mlp for the current and the minimum version, the
    small program, and transformer_block with its CHLO legalized first (CHLO cannot be serialized)."""
    d = tmp_path_factory.mktemp("artifacts")
    (d / "small.mlir").write_text(SMALL)
    out = {
        "mlp_current": serialize_cli(EXAMPLES / "mlp.mlir", "current", d / "mlp_current.mlirbc"),
        "mlp_minimum": serialize_cli(EXAMPLES / "mlp.mlir", "minimum", d / "mlp_minimum.mlirbc"),
        "small": serialize_cli(d / "small.mlir", "minimum", d / "small.mlirbc"),
    }
    legal = tool("hlokit-opt", "--chlo-legalize-to-stablehlo", EXAMPLES / "transformer_block.mlir")
    assert legal.returncode == 0, legal.stderr.decode()
    (d / "transformer.mlir").write_bytes(legal.stdout)
    out["transformer"] = serialize_cli(d / "transformer.mlir", "current", d / "transformer.mlirbc")
    return d, out


def test_version_is_read_from_the_header(artifacts):
    _, a = artifacts
    from jaxlib.mlir.dialects import stablehlo

    assert core.portable_artifact_version(a["mlp_current"]) == stablehlo.get_current_version()
    assert core.portable_artifact_version(a["mlp_minimum"]) == stablehlo.get_minimum_version()
    assert core.portable_artifact_version(SMALL.encode()) is None
    buf = io.BytesIO()
    hlokit.parse(SMALL).operation.write_bytecode(buf)  # plain MLIR bytecode: not an artifact
    assert core.portable_artifact_version(buf.getvalue()) is None


@pytest.mark.parametrize("key", ["mlp_current", "mlp_minimum"])
def test_parse_bytes_gives_the_stablehlo_module(artifacts, key):
    _, a = artifacts
    module = hlokit.parse(a[key])
    text = str(module)
    assert "vhlo" not in text and "func.func public @main" in text
    # the same ops in the same order as the text (the round trip through VHLO spells defaults out)
    assert op_names(module) == op_names(hlokit.parse_file(EXAMPLES / "mlp.mlir"))


def op_names(module) -> list[str]:
    from jaxlib.mlir import ir

    names = []

    def visit(op):
        names.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def test_interpret_path_matches_text(artifacts):
    d, _ = artifacts
    rng = np.random.default_rng(0)
    module = hlokit.parse_file(d / "transformer.mlir")
    from jaxlib.mlir import ir

    fn = next(op for op in module.body.operations if op.operation.name == "func.func")
    args = []
    for t in ir.FunctionType(fn.attributes["function_type"].value).inputs:
        shaped = ir.RankedTensorType(t)
        args.append(rng.standard_normal(shaped.shape).astype(np.float32))
    from_artifact = hlokit.interpret(str(d / "transformer.mlirbc"), args)
    from_text = hlokit.interpret(str(d / "transformer.mlir"), args)
    assert len(from_artifact) == len(from_text)
    for x, y in zip(from_artifact, from_text):
        np.testing.assert_array_equal(x, y)


def test_jax_export_bytes_parse_and_run():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    exported = jax.export.export(jax.jit(lambda x, y: jnp.tanh(x) @ y))(
        jax.ShapeDtypeStruct((3, 4), jnp.float32), jax.ShapeDtypeStruct((4, 2), jnp.float32))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    y = np.arange(8, dtype=np.float32).reshape(4, 2)
    (got,) = hlokit.interpret(exported.mlir_module_serialized, [x, y])
    np.testing.assert_allclose(got, np.asarray(exported.call(x, y)), rtol=1e-5, atol=1e-6)


def test_other_producer_vhlo_bytecode_is_converted(artifacts):
    """VHLO bytecode whose header names another producer is recognised by its vhlo ops."""
    _, a = artifacts
    data = a["small"]
    producer = data[data.index(b"StableHLO_v"):data.index(b"\x00", 5)]
    other = data.replace(producer, b"X" * len(producer), 1)
    assert core.portable_artifact_version(other) is None
    assert "stablehlo.cholesky" in str(hlokit.parse(other))


def test_too_new_artifact_names_both_versions(artifacts, tmp_path):
    _, a = artifacts
    from jaxlib.mlir.dialects import stablehlo

    data = a["small"]
    i = data.index(b"StableHLO_v") + len(b"StableHLO_v")
    newer = data[:i] + b"9" + data[i + 1:]  # 0.9.0 -> 9.9.0, same length
    version = core.portable_artifact_version(newer)
    assert version.startswith("9.")
    with pytest.raises(hlokit.ParseError) as err:
        hlokit.parse(newer, source_name="new.mlirbc")
    msg = str(err.value)
    assert msg.startswith("new.mlirbc: error: cannot deserialize the StableHLO portable artifact")
    assert f"StableHLO {version}" in msg and f"StableHLO {stablehlo.get_current_version()}" in msg
    with pytest.raises(hlokit.HlokitError, match=f"written by StableHLO {version}"):
        deserialize(newer, hlokit.make_context(), "new.mlirbc")


@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_bad_artifact_is_a_located_parse_error(artifacts, damage):
    _, a = artifacts
    data = bytearray(a["mlp_current"])
    if damage == "truncated":
        data = data[:300]
    else:
        for i in range(100, len(data), 97):
            data[i] ^= 0x5A
    with pytest.raises(hlokit.ParseError) as err:
        hlokit.parse(bytes(data), source_name="bad.mlirbc")
    msg = str(err.value)
    assert msg.startswith("bad.mlirbc: error: cannot deserialize the StableHLO portable artifact: ")
    assert msg.count("cannot deserialize") == 1  # one prefix, not one per layer
    assert "Traceback" not in msg


def test_hlokit_run_artifact_on_both_engines_matches_text(artifacts, tmp_path):
    d, a = artifacts
    text_out, bc_out = tmp_path / "text.npz", tmp_path / "bc.npz"
    proc = tool("hlokit-run", EXAMPLES / "mlp.mlir", "--output", text_out)
    assert proc.returncode == 0, proc.stderr.decode()
    proc = tool("hlokit-run", d / "mlp_minimum.mlirbc", "--engine", "both", "--output", bc_out)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"interpreter vs XLA" in proc.stdout
    np.testing.assert_array_equal(np.load(text_out)["output_0"], np.load(bc_out)["output_0"])
    proc = tool("hlokit-run", d / "small.mlirbc", "--engine", "interpreter", "--output", tmp_path / "s.npz")
    assert proc.returncode == 0, proc.stderr.decode()
    np.testing.assert_allclose(np.load(tmp_path / "s.npz")["output_1"], [[2, 0], [1, np.sqrt(2)]], rtol=1e-6)


def test_opt_and_interpret_read_artifacts(artifacts):
    d, _ = artifacts
    proc = tool("hlokit-opt", d / "small.mlirbc", "--stablehlo-lower-to-core")
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode()
    assert "vhlo" not in out and "func.func @main" in out and "stablehlo.cholesky" not in out
    proc = tool("hlokit-translate", "--interpret", d / "small.mlirbc")
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == tool("hlokit-translate", "--interpret", d / "small.mlir").stdout.decode()
    assert "[7.310586e-01, 8.807971e-01, 9.525741e-01]" in proc.stdout.decode()


def test_tools_on_a_truncated_artifact_exit_1_and_write_nothing(artifacts, tmp_path):
    _, a = artifacts
    bad = tmp_path / "trunc.mlirbc"
    bad.write_bytes(a["mlp_current"][:200])
    out = tmp_path / "out"
    for argv in (("hlokit-run", bad, "--output", out), ("hlokit-opt", bad, "--canonicalize", "-o", out),
                 ("hlokit-translate", "--interpret", bad, "-o", out)):
        proc = tool(*argv)
        err = proc.stderr.decode()
        assert proc.returncode == 1, (argv, err)
        assert f"{bad}: error: cannot deserialize the StableHLO portable artifact" in err, err
        assert "Traceback" not in err
        assert not out.exists()
