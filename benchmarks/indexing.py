"""Benchmark: indexing maps of a whole JAX-exported function taken as one fusion (https://openxla.org/xla/indexing).

Builds functions of about 1,000 and 10,000 StableHLO ops with JAX (``jax.jit(f).lower(x)``: blocks of
exponential, multiply, add, reshape and transpose chains that cancel, a row reduction broadcast back,
slice and pad), then times :func:`hlokit.analysis.indexing_ops.function_output_to_input` (compose and
simplify the maps of every op from the result back to the argument) and the input-to-output direction.

Prints op counts, seconds (best of ``--repeat`` runs, each cold: the simplifier's memo is emptied
first; the spread is the worst run over the best), microseconds per op and the growth of the time
against the growth of the op count: the same factor means linear growth.

    python benchmarks/indexing.py [--sizes 1000 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def make_module(target_ops: int):
    import jax
    import jax.numpy as jnp
    import numpy as np

    import hlokit

    def block(x):
        y = jnp.exp(x) * 0.5 + x
        z = y.reshape(32, 16).T.T.reshape(16, 32)  # cancels: the simplifier must see the identity
        m = jnp.max(y, axis=1, keepdims=True)
        w = z - m
        return jnp.pad(w[:, 1:], ((0, 0), (1, 0)))  # shifts back: bounded map sets

    def count(n_blocks):
        def f(x):
            for _ in range(n_blocks):
                x = block(x)
            return x

        text = jax.jit(f).lower(np.zeros((16, 32), np.float32)).as_text()
        ctx = hlokit.make_context(allow_unregistered_dialects=True)
        module = hlokit.parse(text, context=ctx)
        func = next(op for op in module.body.operations if op.operation.name == "func.func")
        n_ops = len(list(func.regions[0].blocks[0].operations)) - 1
        return ctx, module, func, n_ops

    ctx, module, func, per = count(10)
    per_block = per / 10
    n_blocks = max(1, round(target_ops / per_block))
    return count(n_blocks)


def run_one(target_ops: int, repeat: int):
    from hlokit.analysis import indexing_memo
    from hlokit.analysis.indexing_ops import function_input_to_output, function_output_to_input

    ctx, module, func, n_ops = make_module(target_ops)
    t_oi, t_io = [], []
    with ctx:
        for _ in range(repeat):
            # every run starts cold: the simplifier's process-wide memo is emptied first
            indexing_memo.SIMPLIFY_MEMO.clear()
            t = time.perf_counter()
            maps = function_output_to_input(func, 0)
            t_oi.append(time.perf_counter() - t)
            indexing_memo.SIMPLIFY_MEMO.clear()
            t = time.perf_counter()
            io = function_input_to_output(func, 0)
            t_io.append(time.perf_counter() - t)
    n_maps = sum(len(v) for v in maps.values())
    shown = [str(m.affine_map) for v in maps.values() for m in v][:3]
    return n_ops, t_oi, t_io, n_maps, shown, sum(len(v) for v in io.values())


def _spread(ts: list[float]) -> str:
    """Best and worst run as a spread over the best, in percent."""
    return f"+{100 * (max(ts) - min(ts)) / min(ts):.0f}%"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    rows = []
    for size in args.sizes:
        n_ops, t_oi, t_io, n_maps, shown, n_io = run_one(size, args.repeat)
        oi, io = min(t_oi), min(t_io)
        rows.append((n_ops, oi, io))
        print(
            f"{n_ops:6d} ops: output->input {oi:8.3f} s ({1e6 * oi / n_ops:7.1f} us/op, spread {_spread(t_oi)}, "
            f"{n_maps} maps: {', '.join(shown)}); "
            f"input->output {io:8.3f} s ({1e6 * io / n_ops:7.1f} us/op, spread {_spread(t_io)}, {n_io} maps)"
        )
    for (n0, a0, b0), (n1, a1, b1) in zip(rows, rows[1:]):
        print(
            f"growth {n0} -> {n1} ops (x{n1 / n0:.2f}): output->input time x{a1 / a0:.2f}, "
            f"input->output time x{b1 / b0:.2f} (linear: the same factor)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
