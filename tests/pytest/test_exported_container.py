"""JAX's serialized ``Exported`` (``jax.export.Exported.serialize()``) read by hlokit.parse and every tool,
recognised by content (hlokit.exported), with what it carries used: platforms, device count, argument names
(jax's pytree paths), shardings. Runs are compared with ``Exported.call`` (or, for the 2-device export, jax's
own result of the same function)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")  # jax.export's (de)serialization needs it
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec  # noqa: E402
from jaxlib import xla_client  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402

import hlokit  # noqa: E402
from hlokit import exported  # noqa: E402
from hlokit.tools import hlokit_opt, hlokit_run, hlokit_translate  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mlp(params, x):
    return jnp.tanh(x @ params["w"] + params["b"]), jnp.sum(x * x)


def _two(x, y):
    return jnp.sin(x) @ y, (x * 2).sum()


def _sharded(a, b):
    return jnp.sin(a) * 2 + b.sum(), a.sum()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    """Containers written under names without an MLIR extension: one platform with symbolic shapes and a pytree
    of arguments, cpu+cuda, and a 2-device sharded one."""
    d = tmp_path_factory.mktemp("exported")
    f32 = np.float32
    b = export.symbolic_shape("b")[0]
    mlp = export.export(jax.jit(_mlp))({"w": jax.ShapeDtypeStruct((4, 3), f32), "b": jax.ShapeDtypeStruct((3,), f32)},
                                       jax.ShapeDtypeStruct((b, 4), f32))
    two = export.export(jax.jit(_two), platforms=("cpu", "cuda"))(jax.ShapeDtypeStruct((3, 4), f32),
                                                                   jax.ShapeDtypeStruct((4, 2), f32))
    mesh = AbstractMesh((2,), ("x",))
    s, r = NamedSharding(mesh, PartitionSpec("x")), NamedSharding(mesh, PartitionSpec())
    sharded = export.export(jax.jit(_sharded, in_shardings=(s, r), out_shardings=(s, r)))(
        jax.ShapeDtypeStruct((8, 4), f32), jax.ShapeDtypeStruct((3,), f32))
    out = {}
    for key, exp in (("mlp", mlp), ("two", two), ("sharded", sharded)):
        p = d / f"{key}.data"
        p.write_bytes(exp.serialize())
        out[key] = (str(p), exp)
    return out


def _run(argv, capsys):
    rc = hlokit_run.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_recognised_by_content_not_by_name(artifacts):
    path, exp = artifacts["mlp"]
    data = open(path, "rb").read()
    assert exported.sniff(data) == (True, None)
    assert not exported.is_container(bytes(exp.mlir_module_serialized))  # the bare artifact is MLIR bytecode
    assert not exported.is_container(exp.mlir_module().encode())
    assert not exported.is_container(b"\x93NUMPY" + bytes(100))
    module = hlokit.parse(data, source_name="m")
    assert "jax.platforms = [\"cpu\"]" in hlokit.print_module(module)
    assert hlokit.parse_file(path).operation.attributes["jax.nr_devices"] is not None


def test_names_and_facts_written_onto_the_module(artifacts):
    path, _ = artifacts["mlp"]
    text = hlokit.print_module(hlokit.parse_file(path))
    assert 'jax.arg_info = "args[0][\'b\']"' in text and 'jax.arg_info = "args[0][\'w\']"' in text
    assert 'jax.arg_info = "args[1]"' in text
    assert "jax.calling_convention_version" in text and "jax.nr_devices = 1 : i32" in text


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
def test_symbolic_pytree_export_runs_by_jax_names(artifacts, tmp_path, capsys, engine):
    path, exp = artifacts["mlp"]
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((4, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32)}
    x = rng.standard_normal((5, 4)).astype(np.float32)
    for name, a in (("w", params["w"]), ("b", params["b"]), ("x", x)):
        np.save(tmp_path / f"{name}.npy", a)
    out = str(tmp_path / "out.npz")
    rc, stdout, err = _run([path, "--engine", engine, "--output", out,
                            "--input", f"args[0]['w']={tmp_path / 'w.npy'}",
                            "--input", f"args[0]['b']={tmp_path / 'b.npy'}",
                            "--input", f"args[1]={tmp_path / 'x.npy'}"], capsys)
    assert rc == 0, err
    assert "serialized jax.export for cpu; 1 device;" in stdout
    assert "refined @main: (tensor<3xf32>, tensor<4x3xf32>, tensor<5x4xf32>)" in stdout
    assert "(args[1])" in stdout
    want = exp.call(params, x)
    got = np.load(out)
    np.testing.assert_allclose(got["output_0"], np.asarray(want[0]), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got["output_1"], np.asarray(want[1]), rtol=2e-6)


def test_symbolic_export_names_its_arguments_in_errors(artifacts, tmp_path, capsys):
    path, _ = artifacts["mlp"]
    rc, _, err = _run([path, "--input", f"params={tmp_path / 'nothing.npy'}"], capsys)
    assert rc == 1
    assert "--input params: no such argument" in err and "args[0]['w']" in err
    # a shape jax's assertions refuse: jax's own message, naming args[1]
    rc, _, err = _run([path, "--shape", "args[1]=0x4"], capsys)
    assert rc == 1 and "Expected value >= 1 for dimension variable 'b'" in err and "args[1].shape" in err


@pytest.mark.parametrize("engine", ["xla", "interpreter"])
def test_multi_platform_export_takes_its_platforms_from_the_container(artifacts, tmp_path, capsys, engine):
    path, exp = artifacts["two"]
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    inputs, out = str(tmp_path / "in.npz"), str(tmp_path / "out.npz")
    np.savez(inputs, arg_0=x, arg_1=y)
    rc, stdout, err = _run([path, "--engine", engine, "--inputs", inputs, "--output", out], capsys)
    assert rc == 0, err
    assert "serialized jax.export for cpu, cuda;" in stdout
    assert "platform index 0 (cpu) of the export's lowerings cpu, cuda" in stdout
    want = exp.call(x, y)
    got = np.load(out)
    np.testing.assert_allclose(got["output_0"], np.asarray(want[0]), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got["output_1"], np.asarray(want[1]), rtol=2e-6)


def test_multi_platform_export_refuses_other_listed_platforms(artifacts, capsys):
    path, _ = artifacts["two"]
    rc, _, err = _run([path, "--exported-platforms", "cpu,rocm"], capsys)
    assert rc == 1 and f"{path}: error: --exported-platforms cpu,rocm disagrees" in err and "cpu,cuda" in err
    rc, stdout, err = _run([path, "--platform", "cuda", "--engine", "interpreter"], capsys)
    assert rc == 0, err
    assert "platform index 1 (cuda)" in stdout


def _reference_sharded(a, b):
    return [np.asarray(v) for v in jax.jit(_sharded)(a, b)]


def test_two_device_export_sets_the_device_count_and_shardings(artifacts):
    path, _ = artifacts["sharded"]
    module = hlokit.parse_file(path)
    attrs = module.operation.attributes
    assert ir.IntegerAttr(attrs["mhlo.num_partitions"]).value == 2
    assert ir.IntegerAttr(attrs["jax.nr_devices"]).value == 2


def test_two_device_export_runs_on_two_devices_and_in_the_interpreter(artifacts, tmp_path, capsys):
    path, _ = artifacts["sharded"]
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    inputs = str(tmp_path / "in.npz")
    np.savez(inputs, arg_0=a, arg_1=b)
    want = _reference_sharded(a, b)
    # XLA in a fresh process: hlokit-run gives the CPU platform the 2 devices the container says it needs
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if "host_platform_device_count" not in f)
    out = str(tmp_path / "xla.npz")
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", path, "--inputs", inputs, "--output", out],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "serialized jax.export for cpu; 2 devices;" in proc.stdout
    assert "1 replica(s) x 2 partition(s) on cpu:0, cpu:1" in proc.stdout
    assert "arg_0: tensor<8x4xf32> tiled 2x1" in proc.stdout
    got = np.load(out)
    for i, w in enumerate(want):
        np.testing.assert_allclose(got[f"output_{i}"], w, rtol=2e-6, atol=2e-6)
    out = str(tmp_path / "interp.npz")
    rc, stdout, err = _run([path, "--engine", "interpreter", "--inputs", inputs, "--output", out], capsys)
    assert rc == 0, err
    got = np.load(out)
    for i, w in enumerate(want):
        np.testing.assert_allclose(got[f"output_{i}"], w, rtol=2e-6, atol=2e-6)


def test_too_few_devices_for_the_container(artifacts, capsys):
    path, _ = artifacts["sharded"]
    rc, _, err = _run([path, "--devices", "1"], capsys)
    assert rc == 1 and "needs 2 devices" in err


# -- annotate: the container's facts against a module's own ---------------------------------------------------

_PLAIN = """
module @m {
  func.func public @main(%a: tensor<8x4xf32>{SHARDING}, %b: tensor<3xf32>) -> tensor<8x4xf32> {
    return %a : tensor<8x4xf32>
  }
}
"""


def _container(shardings, nr_devices=2, platforms=("cpu",)):
    return exported.ExportedContainer(
        module=b"ML\xefR", function_name="f", platforms=tuple(platforms), nr_devices=nr_devices,
        calling_convention_version=10, kept=(0, 1), arg_names=["args[0]", "args[1]"],
        in_avals=["float32[8,4]", "float32[3]"], out_avals=["float32[8,4]"],
        in_shardings=[None if s is None else xla_client.HloSharding.from_string(s) for s in shardings],
        out_shardings=[None])


def test_a_sharding_the_module_lacks_is_written_and_devices_follow():
    module = hlokit.parse(_PLAIN.replace("{SHARDING}", ""))
    exported.annotate(module, _container(["{devices=[2,1]<=[2]}", "{replicated}"]), source_name="c")
    text = hlokit.print_module(module)
    assert 'mhlo.sharding = "{devices=[2,1]<=[2]}"' in text and "mhlo.num_partitions = 2" in text
    assert text.count("mhlo.sharding") == 1  # a replicated one adds nothing
    assert 'jax.arg_info = "args[1]"' in text


def test_a_sharding_the_module_declares_otherwise_is_an_error():
    module = hlokit.parse(_PLAIN.replace("{SHARDING}", ' {mhlo.sharding = "{devices=[1,2]<=[2]}"}'))
    with pytest.raises(hlokit.ParseError) as info:
        exported.annotate(module, _container(["{devices=[2,1]<=[2]}", None]), source_name="c")
    msg = str(info.value)
    assert msg.startswith("c: error:") and "argument 0 (args[0])" in msg and "pieces 2x1" in msg and "pieces 1x2" in msg
    module = hlokit.parse(_PLAIN.replace("{SHARDING}", ' {mhlo.sharding = "{devices=[2,1]<=[2]}"}'))
    exported.annotate(module, _container(["{devices=[2,1]0,1}", None]), source_name="c")  # the same pieces


def test_device_count_or_platforms_against_the_module():
    text = _PLAIN.replace("{SHARDING}", "").replace("module @m {", "module @m attributes {mhlo.num_partitions = 4 : i32} {")
    with pytest.raises(hlokit.ParseError, match="exported for 2 device"):
        exported.annotate(hlokit.parse(text), _container([None, None]), source_name="c")
    text = _PLAIN.replace("{SHARDING}", "").replace("module @m {", 'module @m attributes {mhlo.platforms = ["cuda"]} {')
    with pytest.raises(hlokit.ParseError, match="disagree with the module's mhlo.platforms"):
        exported.annotate(hlokit.parse(text), _container([None, None]), source_name="c")


# -- damaged containers ------------------------------------------------------------------------------------------


def _damaged(path, tmp_path):
    data = open(path, "rb").read()
    out = {}
    for cut in (len(data) // 3, len(data) // 2, len(data) - 8):
        p = tmp_path / f"cut{cut}.data"
        p.write_bytes(data[:cut])
        out[f"cut{cut}"] = str(p)
    flipped = bytearray(data)
    root = int.from_bytes(data[:4], "little")
    flipped[root + 2] ^= 0x7F  # the root table's offset to its vtable
    p = tmp_path / "flipped.data"
    p.write_bytes(bytes(flipped))
    out["flipped"] = str(p)
    return out


def test_damaged_containers_are_located_errors_in_every_tool(artifacts, tmp_path, capsys):
    path, _ = artifacts["mlp"]
    damaged = _damaged(path, tmp_path)
    out = tmp_path / "never"
    for key, bad in damaged.items():
        for tool, argv in ((hlokit_run, [bad, "--output", str(out)]), (hlokit_opt, [bad, "-o", str(out)]),
                           (hlokit_translate, ["--interpret", bad, "-o", str(out)]),
                           (hlokit_translate, ["--deserialize", bad, "-o", str(out)])):
            rc = tool.main(argv)
            _, err = capsys.readouterr()
            assert rc == 1, (key, tool.__name__)
            assert err.startswith(f"{bad}: error: "), (key, err)
            assert "Traceback" not in err
            if key.startswith("cut"):
                assert "JAX serialized Exported" in err and "truncated" in err, err
    assert not out.exists()


def test_sniff_reports_truncation_without_jax(artifacts):
    data = open(artifacts["two"][0], "rb").read()
    found, problem = exported.sniff(data[:len(data) - 16])
    assert found and "truncated or corrupt" in problem
    assert exported.sniff(data[:6]) == (False, None)
    with pytest.raises(hlokit.ParseError, match="truncated or corrupt"):
        exported.read_container(data[:len(data) // 2], source_name="x")


# -- the other tools ---------------------------------------------------------------------------------------------


def test_opt_and_translate_read_the_container(artifacts, tmp_path, capsys):
    path, _ = artifacts["two"]
    assert hlokit_opt.main([path, "--canonicalize"]) == 0
    out, _ = capsys.readouterr()
    assert 'jax.platforms = ["cpu", "cuda"]' in out and "jax.global_constant = \"_platform_index\"" in out
    assert hlokit_translate.main(["--deserialize", path]) == 0
    out, _ = capsys.readouterr()
    assert "func.func public @main" in out and 'jax.arg_info = "args[1]"' in out
    art = tmp_path / "again.mlirbc"
    assert hlokit_translate.main(["--serialize", "--target=current", path, "-o", str(art)]) == 0
    again = hlokit.print_module(hlokit.parse_file(str(art)))
    assert 'jax.platforms = ["cpu", "cuda"]' in again  # what the container carried stays with the module
    assert hlokit_translate.main(["--stablehlo-to-hlo-text", artifacts["mlp"][0]]) in (0, 1)
    capsys.readouterr()


def test_jax_is_imported_only_for_a_container(artifacts):
    path, _ = artifacts["mlp"]
    code = (
        "import sys, hlokit\n"
        "hlokit.parse('func.func @main(%a: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }')\n"
        "assert 'jax' not in sys.modules, 'text imported jax'\n"
        f"hlokit.parse_file({path!r})\n"
        "assert 'jax' in sys.modules\n"
        "print('ok')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-2000:]


def test_interpret_reads_a_container(artifacts):
    path, exp = artifacts["mlp"]
    rng = np.random.default_rng(3)
    params = {"w": rng.standard_normal((4, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32)}
    x = rng.standard_normal((2, 4)).astype(np.float32)
    got = hlokit.interpret(path, [params["b"], params["w"], x])  # @main's order: the flattened pytree
    want = exp.call(params, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


def test_names_follow_the_kept_arguments_and_keywords():
    f32 = jax.ShapeDtypeStruct((3,), np.float32)
    exp = export.export(jax.jit(lambda x, unused, z, *, k: x * z + k))(f32, f32, f32, k=f32)
    assert exp.module_kept_var_idx == (0, 2, 3)  # jax drops the unused argument from the module
    text = hlokit.print_module(hlokit.parse(bytes(exp.serialize()), source_name="k"))
    main = next(ln for ln in text.splitlines() if "@main" in ln)
    assert ['"args[0]"', '"args[2]"', "\"kwargs['k']\""] == [p.split("jax.arg_info = ")[1].split("}")[0]
                                                            for p in main.split("%arg")[1:4]]
