"""Export the JAX programs of ``benchmarks/interpreter.py`` as StableHLO into ``examples/interpreter_bench/*.mlir``.

    python examples/interpreter_bench/export.py      # rewrites examples/interpreter_bench/*.mlir

Each program is ``jax.jit(fn).lower(*args).as_text()`` of a function below. ``PROGRAMS`` maps a name to
``(fn, args)`` where ``args`` are the (seeded) numpy inputs the benchmark runs it on; the benchmark and
the tests import it, so the inputs are the same everywhere.

* ``while_20`` / ``while_1000``: ``jax.lax.while_loop`` over a 64-element f32 vector (20 / 1000 trips);
* ``scan_lstm``: ``jax.lax.scan`` of an LSTM cell (hidden 32, input 16, 50 steps, batch 4);
* ``sorts``: ``jax.lax.sort`` with several keys (lexicographic comparators), descending sorts,
  ``argsort`` (stable, index operand) on small tensors;
* ``transformer``: a 4-layer pre-LN transformer (batch 4, sequence 128, width 256, 8 heads, MLP 1024,
  exact GELU; about 3.2 M parameters as arguments).
"""

from __future__ import annotations

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

HERE = pathlib.Path(__file__).resolve().parent


def while_loop(x, n):
    """``n`` trips of a small vector update (a damped oscillator step) over a 64-element vector."""

    def cond(s):
        return s[0] < n

    def body(s):
        i, v, acc = s
        v = v * 0.99 + jnp.sin(v) * 0.01 + 0.001 * i.astype(jnp.float32)
        return i + 1, v, acc + jnp.sum(v * v)

    return jax.lax.while_loop(cond, body, (jnp.int32(0), x, jnp.float32(0)))[1:]


def while_20(x):
    return while_loop(x, 20)


def while_1000(x):
    return while_loop(x, 1000)


_LSTM_H, _LSTM_I, _LSTM_T, _LSTM_B = 32, 16, 50, 4


def scan_lstm(xs, wx, wh, b, h0, c0):
    """An LSTM cell scanned over ``xs`` (time-major ``T x B x I``); returns the hidden states and the last cell."""

    def cell(carry, x):
        h, c = carry
        z = x @ wx + h @ wh + b
        i, f, g, o = jnp.split(z, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    (h, c), hs = jax.lax.scan(cell, (h0, c0), xs)
    return hs, c


def sorts(keys, vals, m, ints):
    """Sorts with comparator regions: multi-key lexicographic, descending, stable argsort, per-row."""
    k2, v2 = jax.lax.sort((keys, vals), num_keys=2)
    d = -jnp.sort(-keys)
    idx = jnp.argsort(vals, stable=True)
    rows = jnp.sort(m, axis=-1)
    top = jax.lax.sort((ints, keys), num_keys=1, is_stable=True)
    return k2, v2, d, idx, rows, top[0], top[1]


_TF_L, _TF_B, _TF_T, _TF_D, _TF_H, _TF_F = 4, 4, 128, 256, 8, 1024


def _layer_norm(x, g, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * g


def transformer(x, *weights):
    """A 4-layer pre-LN transformer; ``weights`` are 8 arrays per layer (wq, wk, wv, wo, w1, w2, g1, g2)."""
    b, t, d = x.shape
    hd = d // _TF_H
    for layer in range(_TF_L):
        wq, wk, wv, wo, w1, w2, g1, g2 = weights[8 * layer : 8 * layer + 8]
        h = _layer_norm(x, g1)

        def heads(w):
            return (h @ w).reshape(b, t, _TF_H, hd).transpose(0, 2, 1, 3)

        q, k, v = heads(wq), heads(wk), heads(wv)
        att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd), axis=-1)
        x = x + (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d) @ wo
        h = _layer_norm(x, g2)
        x = x + jax.nn.gelu(h @ w1, approximate=False) @ w2
    return x


def _inputs():
    rng = np.random.default_rng(0)
    f32 = np.float32
    progs = {
        "while_20": (while_20, [rng.standard_normal(64).astype(f32)]),
        "while_1000": (while_1000, [rng.standard_normal(64).astype(f32)]),
        "scan_lstm": (scan_lstm, [
            rng.standard_normal((_LSTM_T, _LSTM_B, _LSTM_I)).astype(f32),
            (rng.standard_normal((_LSTM_I, 4 * _LSTM_H)) / 4).astype(f32),
            (rng.standard_normal((_LSTM_H, 4 * _LSTM_H)) / 6).astype(f32),
            rng.standard_normal(4 * _LSTM_H).astype(f32) * 0.1,
            np.zeros((_LSTM_B, _LSTM_H), f32), np.zeros((_LSTM_B, _LSTM_H), f32),
        ]),
        "sorts": (sorts, [
            rng.integers(0, 8, 256).astype(f32),
            rng.standard_normal(256).astype(f32),
            rng.standard_normal((16, 64)).astype(f32),
            rng.integers(0, 16, 256).astype(np.int32),
        ]),
    }
    d, f = _TF_D, _TF_F
    weights = []
    for _ in range(_TF_L):
        weights += [(rng.standard_normal((d, d)) / 16).astype(f32) for _ in range(4)]
        weights += [(rng.standard_normal((d, f)) / 16).astype(f32), (rng.standard_normal((f, d)) / 32).astype(f32)]
        weights += [np.ones(d, f32), np.ones(d, f32)]
    progs["transformer"] = (transformer, [rng.standard_normal((_TF_B, _TF_T, d)).astype(f32)] + weights)
    return progs


#: name -> (fn, numpy inputs); the .mlir file of each is ``HERE / (name + ".mlir")``.
PROGRAMS = _inputs()


def main() -> None:
    for name, (fn, args) in PROGRAMS.items():
        text = jax.jit(fn).lower(*args).as_text()
        (HERE / f"{name}.mlir").write_text(text)
        print(f"wrote {name}.mlir ({len(text)} chars)")


if __name__ == "__main__":
    main()
