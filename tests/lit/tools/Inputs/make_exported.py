"""Write jax.export's serialized Exported containers for tests/lit/tools/exported_container.test:
PREFIX.one.data (one platform, a pytree of arguments, a symbolic dimension), PREFIX.multi.data (cpu + cuda),
PREFIX.sharded.data (2 devices, the first argument split in two along its rows). No MLIR extension: the tools
recognise the container by its content."""

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec


def main(prefix: str) -> None:
    f32 = np.float32
    b = export.symbolic_shape("b")[0]
    one = export.export(jax.jit(lambda p, x: jnp.tanh(x @ p["w"])))(
        {"w": jax.ShapeDtypeStruct((4, 3), f32)}, jax.ShapeDtypeStruct((b, 4), f32))
    multi = export.export(jax.jit(lambda x: jnp.sin(x) * 2), platforms=("cpu", "cuda"))(jax.ShapeDtypeStruct((3,), f32))
    mesh = AbstractMesh((2,), ("x",))
    s, r = NamedSharding(mesh, PartitionSpec("x")), NamedSharding(mesh, PartitionSpec())
    sharded = export.export(jax.jit(lambda a, c: a * c, in_shardings=(s, r), out_shardings=s))(
        jax.ShapeDtypeStruct((4, 2), f32), jax.ShapeDtypeStruct((), f32))
    for key, exp in (("one", one), ("multi", multi), ("sharded", sharded)):
        with open(f"{prefix}.{key}.data", "wb") as f:
            f.write(exp.serialize())
    np.save(f"{prefix}.w.npy", np.ones((4, 3), f32))
    np.save(f"{prefix}.x.npy", np.full((2, 4), 0.25, f32))


if __name__ == "__main__":
    main(sys.argv[1])
