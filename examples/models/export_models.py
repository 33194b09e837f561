"""Export small third-party JAX models (haiku, equinox, optax, flax) with ``jax.export`` into ``examples/models/``.

Regenerate (needs the libraries, which hlokit's tests never import; jax, jaxlib and numpy as installed)::

    python3 -m venv --system-site-packages /tmp/venv-models
    /tmp/venv-models/bin/pip install --no-deps dm-haiku==0.0.17 jmp equinox==0.13.8 jaxtyping wadler-lindig \\
        flax==0.12.8 msgpack treescope rich markdown-it-py mdurl pygments tabulate optax==0.2.8 chex absl-py toolz
    JAX_PLATFORMS=cpu /tmp/venv-models/bin/python examples/models/export_models.py          # every model
    JAX_PLATFORMS=cpu /tmp/venv-models/bin/python examples/models/export_models.py hk_lstm  # some of them
    ... export_models.py --out-dir /tmp/models     # elsewhere (compare with the committed files)

For every model ``NAME`` of :data:`MODELS` this writes, next to this file:

* ``NAME.mlirbc``: ``Exported.mlir_module_serialized`` of ``jax.export.export(jax.jit(fn))(*args)``, the portable
  artifact (VHLO bytecode) a user keeps;
* ``NAME.inputs.npz``: the arguments, keys ``arg_0, arg_1, ...`` in the order of the module's ``@main`` (the
  leaves of ``jax.tree_util.tree_leaves(args)`` that jax kept, ``Exported.module_kept_var_idx``), which is
  ``hlokit-run --inputs``'s convention;
* ``NAME.expected.npz``: what ``jax.jit(fn)(*args)`` returned on this machine's CPU, keys ``output_0, ...`` (the
  leaves of the result), as ``hlokit-run --output`` writes them and ``--expected`` reads them;
* ``NAME.exported``: ``Exported.serialize()`` (the container with platforms, shardings and names).

Models with ``poly`` set are also exported with a symbolic batch dimension (``jax.export.symbolic_shape("b")``
on the leading axis of the data arguments): ``NAME.poly.mlirbc`` and ``NAME.poly.exported``, plus
``NAME.poly_b<K>.inputs.npz`` / ``.expected.npz`` for a second, smaller batch ``K`` (the first ``K`` rows of the
data arguments; ``NAME.inputs.npz`` / ``NAME.expected.npz`` serve the full batch). Models with ``multi`` set are
exported for ``platforms=("cpu", "cuda", "tpu")``: ``NAME.multi.mlirbc`` (its ``@main`` takes jax's
``_platform_index`` first; the inputs are ``NAME.inputs.npz``) and ``NAME.multi.exported``.

Parameters are arguments, never baked-in constants, and are tiny, so each file stays small and hlokit's
interpreter runs each model in milliseconds. Seeds are fixed: rerunning with the same versions rewrites the same
bytes (the bytecode carries source locations, relative to site-packages and to the repository, so edits to this
file move them).

Sources of the models: haiku (https://dm-haiku.readthedocs.io: ``hk.Conv2D``, ``hk.BatchNorm``, ``hk.LSTM`` with
``hk.dynamic_unroll``, ``hk.MultiHeadAttention``, ``hk.nets.VectorQuantizer``), equinox
(https://docs.kidger.site/equinox: ``eqx.nn.MLP``, ``eqx.nn.Conv2d``, ``eqx.nn.GRUCell``), optax
(https://optax.readthedocs.io: ``optax.adam``), flax (https://flax.readthedocs.io: ``flax.linen`` attention /
``LayerNorm`` / ``Dense`` and ``flax.nnx`` ``Conv`` / ``Linear``).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import pathlib
import sys
from typing import Any, Callable

import jax

jax.config.update("jax_platforms", "cpu")
# source locations in the artifacts name files relative to site-packages and to the repository
# (flax/linen/attention.py:855, examples/models/export_models.py:120), not this machine's paths
jax.config.update("jax_hlo_source_file_canonicalization_regex", r"^.*/site-packages/|^.*/(?=examples/models/)")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
MULTI_PLATFORMS = ("cpu", "cuda", "tpu")


@dataclasses.dataclass
class Model:
    """One model: ``build()`` -> ``(fn, args)`` (``args`` a tuple of pytrees of numpy arrays); ``data``: the
    indices of the arguments whose leaves have a leading batch axis (made symbolic for ``poly``);
    ``poly``: the smaller batch of the second concrete run of the symbolic export (None: no symbolic export);
    ``multi``: also export for :data:`MULTI_PLATFORMS`."""

    library: str
    what: str
    build: Callable[[], tuple[Callable, tuple]]
    data: tuple[int, ...] = ()
    poly: int | None = None
    multi: bool = False


# -- haiku ---------------------------------------------------------------------------------------------------------

def hk_resnet():
    """A tiny ResNet: conv stem, two residual blocks (conv-BN-relu-conv-BN + skip, the second one strided with a
    1x1 projection), global average pooling, a linear head; batch norm in inference mode (its moving statistics
    are state arguments)."""
    import haiku as hk

    class Block(hk.Module):
        def __init__(self, channels, stride, name=None):
            super().__init__(name=name)
            self.channels, self.stride = channels, stride

        def __call__(self, x, is_training):
            bn = lambda n: hk.BatchNorm(True, True, 0.9, name=n)  # noqa: E731
            y = hk.Conv2D(self.channels, 3, stride=self.stride, with_bias=False, name="conv1")(x)
            y = jax.nn.relu(bn("bn1")(y, is_training))
            y = hk.Conv2D(self.channels, 3, with_bias=False, name="conv2")(y)
            y = bn("bn2")(y, is_training)
            if self.stride != 1 or x.shape[-1] != self.channels:
                x = hk.Conv2D(self.channels, 1, stride=self.stride, with_bias=False, name="proj")(x)
            return jax.nn.relu(x + y)

    def net(x, is_training):
        x = hk.Conv2D(8, 3, name="stem")(x)
        x = Block(8, 1, name="block1")(x, is_training)
        x = Block(16, 2, name="block2")(x, is_training)
        return hk.Linear(10, name="head")(jnp.mean(x, axis=(1, 2)))

    model = hk.transform_with_state(net)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 8, 8, 3)).astype(np.float32)
    params, state = model.init(jax.random.PRNGKey(1), x, True)
    # a few training steps' worth of non-trivial moving statistics
    state = jax.tree_util.tree_map(lambda s: s + 0.1 * rng.standard_normal(s.shape).astype(s.dtype) ** 2, state)

    # only the moving averages are arguments (haiku's state also holds the EMA's counter and debiasing
    # accumulator, which inference never reads and jax would drop from a concrete export's signature)
    averages = {k: v["average"] for k, v in _np(state).items()}

    def fn(params, averages, x):
        full = {k: {**v, "average": averages[k]} for k, v in state.items()}
        logits, _ = model.apply(params, full, None, x, False)
        return logits

    return fn, (_np(params), averages, x)


def hk_lstm():
    """An LSTM (``hk.LSTM``) unrolled over 6 time steps with ``hk.dynamic_unroll`` (a ``scan``: a while loop),
    then a linear readout of every step; returns the outputs and the final (hidden, cell) state."""
    import haiku as hk

    def net(xs):  # xs: [time, batch, features]
        core = hk.LSTM(16)
        ys, state = hk.dynamic_unroll(core, xs, core.initial_state(xs.shape[1]))
        return hk.Linear(4)(ys), state

    model = hk.without_apply_rng(hk.transform(net))
    xs = np.random.default_rng(2).standard_normal((6, 3, 5)).astype(np.float32)
    params = model.init(jax.random.PRNGKey(2), xs)
    return model.apply, (_np(params), xs)


def hk_attention():
    """A pre-norm transformer block: ``hk.LayerNorm``, ``hk.MultiHeadAttention`` (2 heads) with a causal mask,
    a residual, ``hk.LayerNorm`` and a GELU MLP with a residual."""
    import haiku as hk

    def net(x):  # x: [batch, seq, model]
        seq = x.shape[1]
        mask = jnp.tril(jnp.ones((1, 1, seq, seq), bool))
        h = hk.LayerNorm(-1, True, True)(x)
        x = x + hk.MultiHeadAttention(2, 8, w_init=hk.initializers.VarianceScaling(1.0), model_size=16)(h, h, h, mask)
        h = hk.LayerNorm(-1, True, True)(x)
        return x + hk.Linear(16)(jax.nn.gelu(hk.Linear(32)(h)))

    model = hk.without_apply_rng(hk.transform(net))
    x = np.random.default_rng(3).standard_normal((4, 6, 16)).astype(np.float32)
    params = model.init(jax.random.PRNGKey(3), x)
    return model.apply, (_np(params), x)


def hk_vqvae():
    """The VQ-VAE quantizer ``hk.nets.VectorQuantizer`` (12 codes of 4 dims) in inference mode: distances to the
    codebook, ``argmin``, one-hot encodings, the straight-through quantized output, the commitment loss and the
    perplexity."""
    import haiku as hk

    def net(z):
        vq = hk.nets.VectorQuantizer(embedding_dim=4, num_embeddings=12, commitment_cost=0.25)
        out = vq(z, is_training=False)
        return {k: out[k] for k in ("quantize", "loss", "perplexity", "encoding_indices", "encodings", "distances")}

    model = hk.without_apply_rng(hk.transform(net))
    z = np.random.default_rng(4).standard_normal((4, 3, 3, 4)).astype(np.float32)
    params = model.init(jax.random.PRNGKey(4), z)
    return model.apply, (_np(params), z)


# -- equinox -------------------------------------------------------------------------------------------------------

def _eqx_split(model):
    import equinox as eqx

    params, static = eqx.partition(model, eqx.is_array)
    return _np(params), (lambda p: eqx.combine(p, static))


def eqx_mlp():
    """``eqx.nn.MLP`` 8 -> 32 -> 32 -> 3 (softplus hidden activations, tanh at the end), ``vmap``-ed over the
    batch."""
    import equinox as eqx

    model = eqx.nn.MLP(8, 3, 32, 2, activation=jax.nn.softplus, final_activation=jnp.tanh, key=jax.random.PRNGKey(5))
    params, rebuild = _eqx_split(model)
    x = np.random.default_rng(5).standard_normal((6, 8)).astype(np.float32)
    return (lambda params, x: jax.vmap(rebuild(params))(x)), (params, x)


def eqx_cnn():
    """A CNN of ``eqx.nn.Conv2d`` (channels-first), ``eqx.nn.MaxPool2d``, ``eqx.nn.Conv2d`` with stride 2, and an
    ``eqx.nn.Linear`` head with log-softmax, ``vmap``-ed over the batch."""
    import equinox as eqx

    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(6), 3)

    class CNN(eqx.Module):
        c1: eqx.nn.Conv2d
        pool: eqx.nn.MaxPool2d
        c2: eqx.nn.Conv2d
        head: eqx.nn.Linear

        def __init__(self):
            self.c1 = eqx.nn.Conv2d(1, 4, 3, padding=1, key=k1)
            self.pool = eqx.nn.MaxPool2d(2, 2)
            self.c2 = eqx.nn.Conv2d(4, 8, 3, stride=2, padding=1, key=k2)
            self.head = eqx.nn.Linear(8 * 3 * 3, 5, key=k3)

        def __call__(self, x):  # x: [1, 12, 12]
            x = self.pool(jax.nn.relu(self.c1(x)))
            x = jax.nn.relu(self.c2(x))
            return jax.nn.log_softmax(self.head(x.reshape(-1)))

    params, rebuild = _eqx_split(CNN())
    x = np.random.default_rng(6).standard_normal((3, 1, 12, 12)).astype(np.float32)
    return (lambda params, x: jax.vmap(rebuild(params))(x)), (params, x)


def eqx_gru():
    """``eqx.nn.GRUCell`` (6 -> 12) run over a sequence of 5 steps with ``jax.lax.scan``, ``vmap``-ed over the
    batch; returns the final hidden state and every step's."""
    import equinox as eqx

    cell = eqx.nn.GRUCell(6, 12, key=jax.random.PRNGKey(7))
    params, rebuild = _eqx_split(cell)

    def one(p, xs):  # xs: [time, features]
        c = rebuild(p)

        def step(h, x):
            h = c(x, h)
            return h, h

        return jax.lax.scan(step, jnp.zeros(12, xs.dtype), xs)

    xs = np.random.default_rng(7).standard_normal((3, 5, 6)).astype(np.float32)
    return (lambda params, xs: jax.vmap(one, in_axes=(None, 0))(params, xs)), (params, xs)


# -- optax ---------------------------------------------------------------------------------------------------------

def optax_adam_step():
    """One training step of a 2-layer MLP classifier with ``optax.adam`` (lr 1e-2): softmax cross-entropy loss,
    ``jax.value_and_grad``, ``optimizer.update``, ``optax.apply_updates``; (params, Adam state, batch) ->
    (new params, new Adam state, loss). The state holds the step count (int32) and both moments."""
    import optax

    rng = np.random.default_rng(8)
    params = {"w1": (rng.standard_normal((10, 16)) * 0.3).astype(np.float32), "b1": np.zeros(16, np.float32),
              "w2": (rng.standard_normal((16, 4)) * 0.3).astype(np.float32), "b2": np.zeros(4, np.float32)}
    opt = optax.adam(1e-2)

    def loss_fn(p, x, y):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, y))

    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    x = rng.standard_normal((8, 10)).astype(np.float32)
    y = rng.integers(0, 4, 8).astype(np.int32)
    state = opt.init(params)
    for _ in range(3):  # non-zero moments and count
        params, state, _ = jax.jit(step)(params, state, x, y)
    return step, (_np(params), _np(state), x, y)


# -- flax ----------------------------------------------------------------------------------------------------------

def flax_transformer():
    """A ``flax.linen`` post-norm transformer encoder block: ``nn.MultiHeadDotProductAttention`` (4 heads, padding
    mask from ``nn.make_attention_mask``), residual, ``nn.LayerNorm``, a ReLU ``nn.Dense`` MLP, residual,
    ``nn.LayerNorm``; dropout off (deterministic)."""
    import flax.linen as nn

    class Encoder(nn.Module):
        @nn.compact
        def __call__(self, x, valid):  # x: [batch, seq, 16]; valid: [batch, seq] bool
            mask = nn.make_attention_mask(valid, valid)
            a = nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=16, deterministic=True)(x, x, mask=mask)
            x = nn.LayerNorm()(x + a)
            h = nn.Dense(16)(nn.relu(nn.Dense(32)(x)))
            return nn.LayerNorm()(x + h)

    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 7, 16)).astype(np.float32)
    valid = np.arange(7)[None, :] < np.array([7, 5, 3, 6])[:, None]
    model = Encoder()
    params = model.init(jax.random.PRNGKey(9), x, valid)
    return (lambda params, x, valid: model.apply(params, x, valid)), (_np(params), x, valid)


def flax_cnn():
    """A ``flax.nnx`` CNN: ``nnx.Conv`` (NHWC, SAME), ``nnx.BatchNorm`` in eval mode, ``nnx.avg_pool``,
    ``nnx.Conv``, ``nnx.max_pool``, ``nnx.Linear`` head; the model is ``nnx.split`` into its graph and state,
    and the state (every variable, as a pytree of arrays) is the argument."""
    from flax import nnx

    class CNN(nnx.Module):
        def __init__(self, rngs):
            self.c1 = nnx.Conv(2, 6, (3, 3), rngs=rngs)
            self.bn = nnx.BatchNorm(6, use_running_average=True, rngs=rngs)
            self.c2 = nnx.Conv(6, 8, (3, 3), rngs=rngs)
            self.head = nnx.Linear(8 * 2 * 2, 3, rngs=rngs)

        def __call__(self, x):  # x: [batch, 8, 8, 2]
            x = nnx.avg_pool(nnx.relu(self.bn(self.c1(x))), (2, 2), strides=(2, 2))
            x = nnx.max_pool(nnx.relu(self.c2(x)), (2, 2), strides=(2, 2))
            return self.head(x.reshape(x.shape[0], -1))

    model = CNN(nnx.Rngs(10))
    rng = np.random.default_rng(10)
    model.bn.mean.value = rng.standard_normal(6).astype(np.float32) * 0.1
    model.bn.var.value = 1.0 + rng.random(6).astype(np.float32)
    graphdef, state = nnx.split(model)
    pure = nnx.to_pure_dict(state)
    x = rng.standard_normal((4, 8, 8, 2)).astype(np.float32)

    def fn(params, x):
        s = nnx.clone(state)
        nnx.replace_by_pure_dict(s, params)
        return nnx.merge(graphdef, s)(x)

    return fn, (_np(pure), x)


def _np(tree):
    """A pytree's leaves as numpy arrays (host copies: the inputs written and fed to jax are the same bits)."""
    return jax.tree_util.tree_map(np.asarray, tree)


#: Every model: name -> :class:`Model`. The README's table lists the same names.
MODELS: dict[str, Model] = {
    "hk_resnet": Model("haiku", "Conv2D (SAME, strided, 1x1), BatchNorm (inference), residual adds, mean pool",
                       hk_resnet, data=(2,), poly=2, multi=True),
    "hk_lstm": Model("haiku", "LSTM over 6 steps via hk.dynamic_unroll (while loop), tanh/sigmoid gates",
                     hk_lstm),
    "hk_attention": Model("haiku", "MultiHeadAttention with causal mask, LayerNorm, GELU MLP, softmax",
                          hk_attention, data=(1,), poly=1, multi=True),
    "hk_vqvae": Model("haiku", "VectorQuantizer: distances, argmin, one_hot, straight-through, perplexity",
                      hk_vqvae),
    "eqx_mlp": Model("equinox", "MLP under vmap, softplus / tanh", eqx_mlp, data=(1,), poly=2, multi=True),
    "eqx_cnn": Model("equinox", "Conv2d (NCHW, padded, strided), MaxPool2d, Linear, log_softmax under vmap",
                     eqx_cnn),
    "eqx_gru": Model("equinox", "GRUCell under lax.scan (while loop) under vmap", eqx_gru),
    "optax_adam_step": Model("optax", "value_and_grad of cross-entropy (reverse mode), Adam update, int32 count",
                             optax_adam_step, data=(2, 3), poly=3, multi=True),
    "flax_transformer": Model("flax.linen", "MultiHeadDotProductAttention with padding mask, LayerNorm, Dense",
                              flax_transformer, data=(1, 2), poly=2, multi=True),
    "flax_cnn": Model("flax.nnx", "nnx.Conv (NHWC), BatchNorm (eval), avg_pool / max_pool, Linear",
                      flax_cnn, data=(1,), poly=2),
}


def _is_plain(tree) -> bool:
    """Whether a pytree has only dict / list / tuple / None nodes (which ``Exported.serialize`` can write and
    ``jax.export.deserialize`` read without registering the library's node types)."""
    if type(tree) in (dict, list, tuple):
        return all(_is_plain(v) for v in (tree.values() if isinstance(tree, dict) else tree))
    return tree is None or isinstance(tree, (np.ndarray, np.generic, jax.Array))


def _as_dict(tree) -> tuple[dict, Callable]:
    """A pytree as a dict ``{jax.tree_util.keystr(path): leaf}`` and the function that rebuilds the pytree."""
    pairs, treedef = jax.tree_util.tree_flatten_with_path(tree)
    keys = [jax.tree_util.keystr(k) for k, _ in pairs]
    return dict(zip(keys, (v for _, v in pairs))), (lambda d: treedef.unflatten([d[k] for k in keys]))


def plain(fn: Callable, args: tuple) -> tuple[Callable, tuple]:
    """``fn`` and ``args`` with the library's pytree nodes (equinox modules, optax's named tuples, haiku's
    ``LSTMState``) replaced by dicts keyed by their paths, in the arguments and the result, so the export
    serializes (:func:`_is_plain`) and its argument names read like ``params["[0].mu['w1']"]``."""
    rebuilds, new_args = [], []
    for a in args:
        if _is_plain(a):
            new_args.append(a)
            rebuilds.append(None)
        else:
            d, rebuild = _as_dict(a)
            new_args.append(d)
            rebuilds.append(rebuild)

    @functools.wraps(fn)  # jax names the arguments after fn's parameters (loc("params['w1']"), jax.arg_info)
    def wrapped(*xs):
        out = fn(*(x if r is None else r(x) for x, r in zip(xs, rebuilds)))
        return out if _is_plain(out) else _as_dict(out)[0]

    return wrapped, tuple(new_args)


def _flat_inputs(exp: export.Exported, args: tuple) -> list[np.ndarray]:
    leaves = jax.tree_util.tree_leaves(args)
    return [np.asarray(leaves[i]) for i in exp.module_kept_var_idx]


def _save_npz(path: pathlib.Path, prefix: str, arrays) -> None:
    buf = io.BytesIO()
    np.savez_compressed(buf, **{f"{prefix}_{i}": a for i, a in enumerate(arrays)})
    path.write_bytes(buf.getvalue())


def _symbolic(args: tuple, data: tuple[int, ...]):
    """``jax.ShapeDtypeStruct`` trees of ``args`` whose data arguments' leading axis is the symbol ``b``."""
    (b,) = export.symbolic_shape("b")

    def spec(a, poly):
        shape = (b, *a.shape[1:]) if poly else a.shape
        return jax.ShapeDtypeStruct(shape, a.dtype)

    return tuple(jax.tree_util.tree_map(lambda a, i=i: spec(a, i in data), arg) for i, arg in enumerate(args))


def _slice_batch(args: tuple, data: tuple[int, ...], k: int) -> tuple:
    return tuple(jax.tree_util.tree_map(lambda a: a[:k], arg) if i in data else arg for i, arg in enumerate(args))


def export_model(name: str, out_dir: pathlib.Path = HERE) -> dict[str, Any]:
    """Export model ``name`` and write its files into ``out_dir``; returns a summary (files, shapes)."""
    m = MODELS[name]
    fn, args = plain(*m.build())
    jitted = jax.jit(fn)
    files = {}

    def write(suffix: str, data: bytes) -> None:
        (out_dir / f"{name}{suffix}").write_bytes(data)
        files[suffix] = len(data)

    exp = export.export(jitted)(*args)
    write(".mlirbc", exp.mlir_module_serialized)
    write(".exported", exp.serialize())
    inputs = _flat_inputs(exp, args)
    _save_npz(out_dir / f"{name}.inputs.npz", "arg", inputs)
    outputs = [np.asarray(o) for o in jax.tree_util.tree_leaves(jitted(*args))]
    _save_npz(out_dir / f"{name}.expected.npz", "output", outputs)
    files[".inputs.npz"] = files[".expected.npz"] = 0
    if m.poly is not None:
        pexp = export.export(jitted)(*_symbolic(args, m.data))
        write(".poly.mlirbc", pexp.mlir_module_serialized)
        write(".poly.exported", pexp.serialize())
        small = _slice_batch(args, m.data, m.poly)
        _save_npz(out_dir / f"{name}.poly_b{m.poly}.inputs.npz", "arg", _flat_inputs(pexp, small))
        _save_npz(out_dir / f"{name}.poly_b{m.poly}.expected.npz", "output",
                  [np.asarray(o) for o in jax.tree_util.tree_leaves(jitted(*small))])
        assert list(pexp.module_kept_var_idx) == list(exp.module_kept_var_idx), name
    if m.multi:
        mexp = export.export(jitted, platforms=MULTI_PLATFORMS)(*args)
        write(".multi.mlirbc", mexp.mlir_module_serialized)
        write(".multi.exported", mexp.serialize())
    return {"name": name, "arguments": len(inputs), "outputs": len(outputs), "files": sorted(files)}


def main(argv: list[str]) -> int:
    """``export_models.py [--out-dir DIR] [NAME ...]``: export the models named (default: all) into DIR (default:
    this folder); prints one JSON line per model."""
    import argparse

    p = argparse.ArgumentParser(description="Export the models of examples/models with jax.export.")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"models to export (default: all of {', '.join(MODELS)})")
    p.add_argument("--out-dir", type=pathlib.Path, default=HERE, help="where to write (default: this folder)")
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for n in args.names or list(MODELS):
        print(json.dumps(export_model(n, args.out_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
