"""SPMD programs on 1, 2, 4 and 8 XLA CPU devices: run time, speed-up, and hlokit against jax.jit.

    python benchmarks/spmd.py [--repeat 10] [--devices 1,2,4,8] [--batch 2048] [--dim 1024]

Starts jax with 8 host devices (``--xla_force_host_platform_device_count``), then for each program and
device count N: exports the program with ``jax.jit`` over a mesh of the first N devices (the data-parallel
MLP shards the batch over N; the tensor-parallel matmul shards the weights over a 2-D mesh, 1x1, 1x2, 2x2
or 2x4), compiles the exported text with ``hlokit.backend.compile`` and runs both on the same inputs.
Prints per row: hlokit's run time (median of --repeat, inputs already on the devices, results back as
numpy), the speed-up against N = 1, jax.jit's run time on the same mesh (same conditions) and the ratio
hlokit / jax (target <= 1.1). XLA's host devices share the machine's cores: the speed-up is bounded by them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ["XLA_FLAGS"] = " ".join(
    [f for f in os.environ.get("XLA_FLAGS", "").split() if "host_platform_device_count" not in f]
    + ["--xla_force_host_platform_device_count=8"]
)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from hlokit import backend  # noqa: E402

P = jax.sharding.PartitionSpec
MESH_2D = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4)}


def mlp(x, w1, b1, w2, b2):
    return jax.nn.log_softmax(jax.nn.relu(x @ w1 + b1) @ w2 + b2)


def programs(batch: int, dim: int):
    f32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float32)  # noqa: E731
    return {
        "dp_mlp": (mlp, (f32(batch, dim), f32(dim, dim), f32(dim), f32(dim, 16), f32(16)),
                   lambda n: ((n,), ("data",)), (P("data", None), P(), P(), P(), P()), P("data", None)),
        "tp_matmul": (lambda x, w: jnp.tanh(x @ w), (f32(batch, dim), f32(dim, dim)),
                      lambda n: (MESH_2D[n], ("x", "y")), (P("x", None), P(None, "y")), P("x", "y")),
    }


def median_time(fn, repeat: int) -> float:
    fn()  # warm
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--devices", default="1,2,4,8")
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--dim", type=int, default=1024)
    args = ap.parse_args()
    counts = [int(c) for c in args.devices.split(",")]
    print(f"jax {jax.__version__}, {len(jax.devices())} CPU devices, {os.cpu_count()} cores; "
          f"batch {args.batch}, dim {args.dim}; median of {args.repeat}")
    print(f"{'program':<10} {'N':>2} {'mesh':<6} {'hlokit ms':>10} {'speed-up':>9} {'jax.jit ms':>11} {'hlokit/jax':>11}")
    for name, (fn, avals, mesh_of, ins, out) in programs(args.batch, args.dim).items():
        rng = np.random.default_rng(0)
        inputs = [rng.standard_normal(a.shape).astype(np.float32) for a in avals]
        base = None
        for n in counts:
            shape, axes = mesh_of(n)
            mesh = jax.make_mesh(shape, axes, devices=jax.devices()[:n])
            named = [jax.sharding.NamedSharding(mesh, s) for s in ins]
            jitted = jax.jit(fn, in_shardings=tuple(named), out_shardings=jax.sharding.NamedSharding(mesh, out))
            text = jitted.lower(*avals).as_text()
            exe = backend.compile(text)
            buffers = exe.put(inputs)
            t_hlokit = median_time(lambda: exe.fetch(exe.execute(buffers)), args.repeat)
            placed = [jax.device_put(a, s) for a, s in zip(inputs, named)]
            t_jax = median_time(lambda: np.asarray(jitted(*placed)), args.repeat)
            got, want = exe.fetch(exe.execute(buffers))[0], np.asarray(jitted(*placed))
            assert np.allclose(got, want, rtol=1e-4, atol=1e-4), name
            base = base or t_hlokit
            print(f"{name:<10} {n:>2} {'x'.join(map(str, shape)):<6} {t_hlokit * 1e3:>10.2f} {base / t_hlokit:>8.2f}x "
                  f"{t_jax * 1e3:>11.2f} {t_hlokit / t_jax:>10.2f}x")


if __name__ == "__main__":
    main()
