"""Export real JAX programs as StableHLO into ``examples/*.mlir``.

    python examples/export.py            # rewrites examples/*.mlir

Each program is lowered with ``jax.jit(fn).lower(*avals).as_text()``, which keeps CHLO ops (``chlo.erfc``,
``chlo.lgamma``, ...), jaxlib's LAPACK custom calls and ``sdy`` attributes as JAX emits them: the input
hlokit must read. ``EXAMPLES`` maps a name to ``(fn, avals)``; the tests import it to run ``jax.jit`` of the
same function on the same inputs and compare with ``hlokit-run``.
"""

from __future__ import annotations

import math
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

HERE = pathlib.Path(__file__).resolve().parent


# Weights are arguments (not baked-in constants), so the files stay small and hlokit-run's seeded
# random inputs exercise the whole program.

# -- MLP: 784 -> 256 -> 10 with ReLU and log-softmax, batch 64 ------------------------------------
def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.log_softmax(h @ w2 + b2)


# -- small CNN: two 3x3 convolutions, max-pool, dense head; NHWC batch 8 of 28x28x1 --------------
def cnn(x, k1, k2, wd):
    dn = ("NHWC", "HWIO", "NHWC")
    y = jax.nn.relu(jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = jax.nn.relu(jax.lax.conv_general_dilated(y, k2, (1, 1), "SAME", dimension_numbers=dn))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return y.reshape(y.shape[0], -1) @ wd


# -- transformer block: pre-LN multi-head attention + MLP with exact GELU (chlo.erfc) -----------
_D, _H, _F = 64, 4, 256


def _layer_norm(x, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps)


def transformer_block(x, wq, wk, wv, wo, wf1, wf2):
    b, t, d = x.shape
    h = _layer_norm(x)

    def heads(w):
        return (h @ w).reshape(b, t, _H, d // _H).transpose(0, 2, 1, 3)

    q, k, v = heads(wq), heads(wk), heads(wv)
    att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // _H), axis=-1)
    x = x + (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d) @ wo
    h = _layer_norm(x)
    return x + jax.nn.gelu(h @ wf1, approximate=False) @ wf2


# -- special functions: CHLO ops (lgamma, digamma, erf_inv, bessel_i1e, erf, tan, asinh, ...) --
def special_functions(x, y):
    s = jax.scipy.special
    ax = jnp.abs(x) + 0.5
    return (
        s.gammaln(ax) + s.digamma(ax) + s.erfinv(jnp.tanh(x)) + s.i1e(x) + s.erf(y) + s.erfc(x),
        jnp.tan(x * 0.5) + jnp.arcsinh(y) + jnp.arccosh(ax + 1.0) + jnp.arctanh(jnp.tanh(y) * 0.5),
        jnp.sinh(x) * jnp.cosh(y) + jax.lax.nextafter(x, y) + s.polygamma(1, ax) + s.zeta(ax + 1.5, ax),
        jnp.isinf(x / y).astype(jnp.float32),
    )


# -- Cholesky: jaxlib's LAPACK kernel through a custom call (lapack_spotrf_ffi) ----------------
def cholesky(a):
    spd = a @ a.T + a.shape[0] * jnp.eye(a.shape[0], dtype=a.dtype)
    return jnp.linalg.cholesky(spd)


def _f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


EXAMPLES = {
    "mlp": (mlp, (_f32(64, 784), _f32(784, 256), _f32(256), _f32(256, 10), _f32(10))),
    "cnn": (cnn, (_f32(8, 28, 28, 1), _f32(3, 3, 1, 8), _f32(3, 3, 8, 16), _f32(7 * 7 * 16, 10))),
    "transformer_block": (
        transformer_block,
        (_f32(2, 16, _D), _f32(_D, _D), _f32(_D, _D), _f32(_D, _D), _f32(_D, _D), _f32(_D, _F), _f32(_F, _D)),
    ),
    "special_functions": (special_functions, (_f32(4, 32), _f32(4, 32))),
    "cholesky": (cholesky, (_f32(16, 16),)),
}


# -- SPMD programs: jax.jit over a Mesh of CPU devices (exported with 8 host devices) ---------------
# Each entry: (fn, avals, mesh shape, mesh axis names, in_specs, out_specs); fn takes the mesh. jax exports
# them with mhlo.num_partitions = mesh size and sdy shardings (Shardy); hlokit-run must give each device
# its piece and assemble the results. Integer programs are compared bit for bit with jax.jit.
P = jax.sharding.PartitionSpec


def dp_mlp(mesh):
    """Data-parallel MLP: batch sharded over 'data', weights replicated."""
    return mlp


def tp_matmul(mesh):
    """Tensor-parallel matmul: weights sharded on both mesh axes (contraction over 'x' needs an all-reduce)."""
    return lambda x, w: jnp.maximum(x @ w, 0)


def collectives(mesh):
    """shard_map with explicit collectives: psum, all_gather, ppermute, all_to_all over axis 'i'."""
    n = mesh.shape["i"]

    def body(x):
        s = jax.lax.psum(x, "i")
        g = jax.lax.all_gather(x, "i", tiled=True)
        r = jax.lax.ppermute(x * 3 + 1, "i", perm=[(j, (j + 1) % n) for j in range(n)])
        t = jax.lax.all_to_all(x, "i", split_axis=1, concat_axis=0, tiled=True)
        return s, g, r, t

    return jax.shard_map(body, mesh=mesh, in_specs=P("i", None),
                         out_specs=(P(), P(), P("i", None), P(None, "i")), check_vma=False)


def pmap_all_reduce(mesh):
    """pmap-style: every device reduces its row with all the others' (jax lowers pmap to a manual computation)."""
    return jax.pmap(lambda x: jax.lax.psum(x, "i") * 2 - x, axis_name="i", devices=mesh.devices.flat)


def _i32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.int32)


SPMD_EXAMPLES = {
    "dp_mlp_8": (dp_mlp, (_f32(64, 784), _f32(784, 256), _f32(256), _f32(256, 10), _f32(10)),
                 (8,), ("data",), (P("data", None), P(), P(), P(), P()), P("data", None)),
    "dp_mlp_2": (dp_mlp, (_f32(64, 784), _f32(784, 256), _f32(256), _f32(256, 10), _f32(10)),
                 (2,), ("data",), (P("data", None), P(), P(), P(), P()), P("data", None)),
    "tp_matmul_2x2": (tp_matmul, (_i32(16, 32), _i32(32, 24)), (2, 2), ("x", "y"),
                      (P(None, "x"), P("x", "y")), P(None, "y")),
    "collectives_4": (collectives, (_i32(8, 8),), (4,), ("i",), (P("i", None),), None),
    "pmap_all_reduce_4": (pmap_all_reduce, (_i32(4, 3),), (4,), ("i",), None, None),
}


def spmd_mesh(name: str) -> jax.sharding.Mesh:
    """The mesh of SPMD example ``name`` over the first devices of the platform."""
    shape, axes = SPMD_EXAMPLES[name][2], SPMD_EXAMPLES[name][3]
    return jax.make_mesh(shape, axes, devices=jax.devices()[: math.prod(shape)])


def spmd_jit(name: str):
    """``jax.jit`` of SPMD example ``name`` on its mesh (in/out shardings as declared)."""
    fn, _, _, _, ins, out = SPMD_EXAMPLES[name]
    mesh = spmd_mesh(name)
    f = fn(mesh)
    if ins is None:  # pmap carries its own placement
        return f
    named = lambda spec: jax.sharding.NamedSharding(mesh, spec)  # noqa: E731
    kw = {"in_shardings": tuple(named(s) for s in ins)}
    if out is not None:
        kw["out_shardings"] = named(out)
    return jax.jit(f, **kw)


def spmd_place(name: str, args):
    """``args`` for ``spmd_jit(name)``: shard_map examples check their inputs' shardings, so put them on the mesh."""
    ins, out = SPMD_EXAMPLES[name][4:]
    if ins is None or out is not None:  # pmap places its own; jit's in_shardings place numpy arrays
        return list(args)
    mesh = spmd_mesh(name)
    return [jax.device_put(a, jax.sharding.NamedSharding(mesh, s)) for a, s in zip(args, ins)]


def export_spmd(name: str) -> str:
    """StableHLO text of SPMD example ``name`` (needs at least its mesh size of devices)."""
    _, avals, _, _, ins, out = SPMD_EXAMPLES[name]
    if ins is not None and out is None:  # shard_map: the avals carry the input shardings it checks
        mesh = spmd_mesh(name)
        avals = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=jax.sharding.NamedSharding(mesh, s))
                 for a, s in zip(avals, ins)]
    return spmd_jit(name).lower(*avals).as_text()


def export(name: str) -> str:
    """StableHLO text of example ``name`` as JAX lowers it (CHLO kept, no debug locations)."""
    fn, avals = EXAMPLES[name]
    return jax.jit(fn).lower(*avals).as_text()


def main() -> None:
    jax.config.update("jax_num_cpu_devices", 8)  # the SPMD examples' meshes (before jax starts the CPU platform)
    for name in SPMD_EXAMPLES:
        path = HERE / f"{name}.mlir"
        text = export_spmd(name)
        path.write_text(f"// Exported by examples/export.py with jax {jax.__version__} on 8 CPU devices: {name}\n{text}")
        print(f"wrote {path.relative_to(HERE.parent)} ({len(text.splitlines())} lines)")
    for name in EXAMPLES:
        path = HERE / f"{name}.mlir"
        text = export(name)
        path.write_text(f"// Exported by examples/export.py with jax {jax.__version__}: {name}\n{text}")
        print(f"wrote {path.relative_to(HERE.parent)} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
