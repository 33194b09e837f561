"""Write the reducer's example programs (run from the repository root; needs jax):

* ``deviation.mlir``: a ~500-op JAX program (a stack of MLP / layer-norm / softmax blocks) with one injected
  deviation: an activation multiplied by 1e-39 and back by 1e38. XLA CPU flushes the subnormal product to zero
  (denormals are zero), the interpreter keeps it (IEEE 754, the StableHLO spec), so the engines disagree there
  and nowhere else beyond a few ULP: ``hlokit-reduce deviation.mlir --until=engines-differ --rtol 1e-3`` ends at
  the two multiplies.
* ``xla_crash.mlir``: the program fuzzer's XLA crash (a bitwise ``or`` of a narrowing signed integer convert,
  ``x.astype(int8) | y``; jaxlib 0.10.2's XLA CPU compiler dies on it) inside a small MLP:
  ``hlokit-reduce xla_crash.mlir --until=xla-crash`` ends at the convert and the ``or``.
* ``train_step.mlir``: a ~600-op training step of a small CNN with max pooling (jax.grad of it lowers the pool's
  gradient to ``stablehlo.select_and_scatter``): ``hlokit-reduce train_step.mlir --test=has_select_and_scatter.sh``
  ends at one ``select_and_scatter`` and what it needs.

    python examples/reduce/make_examples.py
"""

import pathlib

import jax
import jax.numpy as jnp

HERE = pathlib.Path(__file__).resolve().parent


def deviation_program(x, ws):
    h = x
    for i, w in enumerate(ws):
        h = jnp.tanh(h @ w)
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        h = (h - mu) / jnp.sqrt(var + 1e-5)
        h = jax.nn.softmax(h, axis=-1) * 4.0 + jax.nn.gelu(h)
        if i == len(ws) // 2:
            h = (h * 1e-39) * 1e38  # the injected deviation
    return h


def xla_crash_program(x, ws, n, m):
    h = x
    for w in ws:
        h = jax.nn.relu(h @ w)
    r = n.astype(jnp.int8) | m  # what jaxlib 0.10.2's XLA CPU compiler dies on (SIGSEGV)
    return h.sum() + jnp.sum(h > 0), r, jnp.argmax(h, -1) * 2


def train_step(params, x, y):
    def loss(params):
        h = x
        for k, b in params[:-1]:
            h = jax.lax.conv_general_dilated(h, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = jax.nn.relu(h + b)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        w, b = params[-1]
        logits = h.reshape(h.shape[0], -1) @ w + b
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, -1))

    grads = jax.grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)


def main():
    f32 = jnp.float32
    x = jax.ShapeDtypeStruct((4, 16), f32)
    ws = [jax.ShapeDtypeStruct((16, 16), f32)] * 8
    text = jax.jit(deviation_program).lower(x, ws).as_text()
    (HERE / "deviation.mlir").write_text(text)
    text = jax.jit(xla_crash_program).lower(x, ws[:3], jax.ShapeDtypeStruct((4, 16), jnp.int32), jax.ShapeDtypeStruct((4, 16), jnp.int8)).as_text()
    (HERE / "xla_crash.mlir").write_text(text)
    convs = [(jax.ShapeDtypeStruct((3, 3, c_in, 8), f32), jax.ShapeDtypeStruct((8,), f32)) for c_in in (3,) + (8,) * 18]
    params = convs + [(jax.ShapeDtypeStruct((4 * 4 * 8, 10), f32), jax.ShapeDtypeStruct((10,), f32))]
    text = jax.jit(train_step).lower(params, jax.ShapeDtypeStruct((2, 8, 8, 3), f32),
                                     jax.ShapeDtypeStruct((2, 10), f32)).as_text()
    (HERE / "train_step.mlir").write_text(text)


if __name__ == "__main__":
    main()
