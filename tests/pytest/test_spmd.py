"""Multi-device programs through hlokit-run: results equal jax.jit on the same mesh, errors are clear.

XLA fixes the number of CPU devices when jax starts its CPU platform, so every check runs in a fresh
process with 8 host devices (``--xla_force_host_platform_device_count``): one process runs all the
comparisons and reports them as JSON (``python test_spmd.py``), the tests read that report.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
EXAMPLES = REPO / "examples"
SPMD = ["dp_mlp_8", "dp_mlp_2", "tp_matmul_2x2", "collectives_4", "pmap_all_reduce_4"]


def _env(devices: int | None = 8) -> dict:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    flags = [f for f in env.get("XLA_FLAGS", "").split() if "host_platform_device_count" not in f]
    if devices:
        flags.append(f"--xla_force_host_platform_device_count={devices}")
    env["XLA_FLAGS"] = " ".join(flags)
    return env


def _compare_all(tmp: pathlib.Path) -> dict:
    """In a process with 8 CPU devices: every SPMD example through hlokit-run vs jax.jit; a JSON report."""
    import importlib.util

    import jax
    import numpy as np

    from hlokit.tools import hlokit_run

    spec = importlib.util.spec_from_file_location("hlokit_examples_export", EXAMPLES / "export.py")
    export = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(export)
    report = {}

    def run_cli(path, args, name):
        np.savez(tmp / f"{name}.in.npz", **{f"arg_{i}": a for i, a in enumerate(args)})
        out = tmp / f"{name}.out.npz"
        rc = hlokit_run.main([str(path), "--inputs", str(tmp / f"{name}.in.npz"), "--output", str(out)])
        return rc, (np.load(out) if rc == 0 else None)

    for name in SPMD:
        _, avals, *_ = export.SPMD_EXAMPLES[name]
        rng = np.random.default_rng(3)
        args = [rng.integers(-9, 10, a.shape).astype(a.dtype) if a.dtype == np.int32
                else rng.standard_normal(a.shape).astype(a.dtype) for a in avals]
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(export.spmd_jit(name)(*export.spmd_place(name, args)))]
        rc, got = run_cli(EXAMPLES / f"{name}.mlir", args, name)
        committed = (EXAMPLES / f"{name}.mlir").read_text()
        # The committed file is what export.py writes with the jax named in its header; other jax releases
        # may lower shard_map/pmap differently (0.11 does), so the text is compared under that release only.
        same_jax = committed.startswith(f"// Exported by examples/export.py with jax {jax.__version__} ")
        entry = {"rc": rc, "committed": export.export_spmd(name) in committed if same_jax else None}
        if got is not None:
            entry["outputs"] = len(got.files) == len(want)
            entry["diffs"] = []
            for i, w in enumerate(want):
                g = got[f"output_{i}"]
                same_shape = g.shape == w.shape and g.dtype == w.dtype
                if not same_shape:
                    entry["diffs"].append(f"output_{i}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}")
                elif w.dtype.kind in "iu":
                    if not np.array_equal(g, w):
                        entry["diffs"].append(f"output_{i}: integers differ")
                elif not np.allclose(g, w, rtol=2e-5, atol=2e-5):
                    entry["diffs"].append(f"output_{i}: max abs diff {float(np.abs(g - w).max())}")
        report[name] = entry

    # A multi-replica program (mhlo.num_replicas = 4): arguments and results carry a leading replica axis,
    # as jax.pmap's do.
    x = np.random.default_rng(4).integers(-9, 10, (4, 3)).astype(np.int32)
    want = np.asarray(jax.pmap(lambda v: jax.lax.psum(v, "i") * 2 - v, axis_name="i",
                               devices=jax.devices()[:4])(x))
    rc, got = run_cli(EXAMPLES / "replicas_all_reduce.mlir", [x], "replicas")
    report["replicas_all_reduce"] = {"rc": rc, "committed": True, "outputs": True,
                                     "diffs": [] if got is not None and np.array_equal(got["output_0"], want)
                                     else ["replica results differ from jax.pmap"]}
    # GSPMD form (mhlo.sharding strings, no sdy): partitioned by XLA's SPMD partitioner without Shardy.
    path = tmp / "gspmd.mlir"
    path.write_text(GSPMD)
    x = np.arange(16, dtype=np.int32).reshape(4, 4)
    rc, got = run_cli(path, [x], "gspmd")
    ok = got is not None and np.array_equal(got["output_0"], (2 * x).sum(axis=0))
    report["gspmd"] = {"rc": rc, "committed": True, "outputs": True, "diffs": [] if ok else ["gspmd result differs"]}
    return report


GSPMD = """module @gspmd attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xi32> {mhlo.sharding = "{devices=[2,1]<=[2]}"})
      -> (tensor<4xi32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x4xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x4xi32>, tensor<i32>) -> tensor<4xi32>
    return %1 : tensor<4xi32>
  }
}"""


def test_gspmd_sharding_that_does_not_divide_is_refused_before_compiling(ctx):
    import hlokit
    from hlokit import backend

    odd = hlokit.parse(GSPMD.replace("4x4", "3x4"), context=ctx)
    with pytest.raises(backend.BackendError, match=r"argument 0 \(3x4\): its sharding cuts dimension 0 \(size 3\) into 2"):
        backend.compile(odd)


@pytest.fixture(scope="module")
def spmd_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spmd")
    proc = subprocess.run([sys.executable, str(pathlib.Path(__file__)), str(tmp)], capture_output=True, text=True,
                          timeout=600, env=_env(8), cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", SPMD + ["replicas_all_reduce", "gspmd"])
def test_hlokit_run_equals_jax_jit_on_the_same_mesh(spmd_report, name):
    entry = spmd_report[name]
    assert entry["rc"] == 0
    assert entry["committed"] is not False, f"examples/{name}.mlir is not what examples/export.py writes"
    assert entry["outputs"]
    assert entry["diffs"] == []


def _cli(*args, devices=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", *args], capture_output=True, text=True,
                          timeout=timeout, env=_env(devices), cwd=REPO)


def test_default_device_count_is_what_the_program_needs():
    proc = _cli(str(EXAMPLES / "tp_matmul_2x2.mlir"))
    assert proc.returncode == 0, proc.stderr
    assert "devices: 1 replica(s) x 4 partition(s) on cpu:0, cpu:1, cpu:2, cpu:3" in proc.stdout
    assert re.search(r"arg_1: tensor<32x24xi32> tiled 2x2 -> per device tensor<16x12xi32>", proc.stdout)


def test_too_few_devices_is_a_clear_error():
    proc = _cli(str(EXAMPLES / "collectives_4.mlir"), "--devices", "2")
    assert proc.returncode == 1
    assert "needs 4 devices (mhlo.num_replicas = 1 x mhlo.num_partitions = 4) but --devices gives 2" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sharding_that_does_not_divide_is_a_clear_error(tmp_path):
    text = (EXAMPLES / "dp_mlp_2.mlir").read_text().replace("64x", "63x")
    (tmp_path / "odd.mlir").write_text(text)
    proc = _cli(str(tmp_path / "odd.mlir"))
    assert proc.returncode == 1, proc.stdout
    assert "cuts dimension 0 (size 63) into 2 pieces, which does not divide it" in proc.stderr
    assert "Traceback" not in proc.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_on_loopback(tmp_path):
    """One job of two processes (2 CPU devices each) runs a 4-partition program; process 0 writes outputs."""
    port = _free_port()
    out = tmp_path / "out.npz"
    common = [str(EXAMPLES / "collectives_4.mlir"), "--num-processes", "2", "--coordinator", f"127.0.0.1:{port}",
              "--timeout", "60"]
    procs = [subprocess.Popen([sys.executable, "-m", "hlokit.tools.hlokit_run", *common, "--process-id", str(i)]
                              + (["--output", str(out)] if i == 0 else []),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(None), cwd=REPO)
             for i in range(2)]
    try:
        results = [p.communicate(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [p.returncode for p in procs] == [0, 0], results
    assert "output_3: shape=8x8 dtype=int32" in results[0][0]
    assert "output_" not in results[1][0] and "program:" not in results[1][0]
    assert out.exists()


def test_missing_process_is_a_bounded_clear_error():
    """Process 0 of a two-process job whose process 1 never starts: exit 1 within the timeout, no hang."""
    port = _free_port()
    t0 = time.monotonic()
    proc = _cli(str(EXAMPLES / "collectives_4.mlir"), "--num-processes", "2", "--process-id", "0",
                "--coordinator", f"127.0.0.1:{port}", "--timeout", "5", timeout=120)
    assert proc.returncode == 1, proc.stdout
    assert "process 0 of 2: the job at 127.0.0.1:" in proc.stderr and "did not form" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - t0 < 90


if __name__ == "__main__":
    print(json.dumps(_compare_all(pathlib.Path(sys.argv[1]))))
