"""Export real JAX programs as StableHLO into ``examples/*.mlir``.

    python examples/export.py            # rewrites examples/*.mlir

Each program is lowered with ``jax.jit(fn).lower(*avals).as_text()``, which keeps CHLO ops (``chlo.erfc``,
``chlo.lgamma``, ...), jaxlib's LAPACK custom calls and ``sdy`` attributes as JAX emits them: the input
hlokit must read. ``EXAMPLES`` maps a name to ``(fn, avals)``; the tests import it to run ``jax.jit`` of the
same function on the same inputs and compare with ``hlokit-run``.
"""

from __future__ import annotations

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


def export(name: str) -> str:
    """StableHLO text of example ``name`` as JAX lowers it (CHLO kept, no debug locations)."""
    fn, avals = EXAMPLES[name]
    return jax.jit(fn).lower(*avals).as_text()


def main() -> None:
    for name in EXAMPLES:
        path = HERE / f"{name}.mlir"
        text = export(name)
        path.write_text(f"// Exported by examples/export.py with jax {jax.__version__}: {name}\n{text}")
        print(f"wrote {path.relative_to(HERE.parent)} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
