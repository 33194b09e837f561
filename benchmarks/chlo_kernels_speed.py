"""XLA run time of CHLO special functions lowered in f32 arithmetic (native) against f64 (wide).

    python benchmarks/chlo_kernels_speed.py [--n 1048576] [--repeat 15] [--runs 1] [--platform cpu|cuda]

Each program is lowered twice by ``chlo-legalize-to-stablehlo``: ``precision=native`` (the default:
f32 kernels, no f64 op in the output) and ``precision=wide`` (every special function evaluated in f64
and rounded once), compiled by XLA for ``--platform`` (default cpu; ``cuda`` on a GPU machine), and run on the same inputs, the two interleaved; the best of
``--repeat`` runs of each is kept (device time from dispatch to ready, inputs already on the device).
Programs:

* ``examples/special_functions.mlir`` (4x32 f32 operands: a mix of every real special function);
* one op on ``--n`` f32 elements each for ``erf``, ``erfc``, ``erf_inv``, ``lgamma``, ``digamma``.

Prints one row per program: native and wide times, the ratio wide / native (> 1: native is faster),
the XLA compile time of each, and whether the native text has no f64. An op without an f32 kernel yet
lowers the same both ways (ratio ~1). ``--runs R`` repeats the whole measurement R times and adds the
spread (lowest and highest ratio of the R runs; the times shown are the best over all runs).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes import run_pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "special_functions.mlir")
#: op -> (lo, hi) of its uniform inputs
OPS = {"erf": (-5.0, 5.0), "erfc": (-3.0, 10.0), "erf_inv": (-1.0, 1.0), "lgamma": (-7.5, 30.0),
       "digamma": (-7.5, 30.0)}
PRECISIONS = ("native", "wide")


def unary_program(op: str, n: int) -> str:
    """``func.func @main`` applying ``chlo.<op>`` to one ``tensor<n x f32>``."""
    return (f"func.func @main(%a: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n"
            f"  %0 = chlo.{op} %a : tensor<{n}xf32> -> tensor<{n}xf32>\n"
            f"  return %0 : tensor<{n}xf32>\n}}\n")


def lower(text: str, precision: str, ctx):
    """The module of ``text`` after ``chlo-legalize-to-stablehlo{precision=...}``."""
    m = hlokit.parse(text, context=ctx)
    run_pipeline(m, f"builtin.module(func.func(chlo-legalize-to-stablehlo{{precision={precision}}}))")
    return m


def inputs(exe, rng, lo: float, hi: float) -> list[np.ndarray]:
    """Uniform random arguments of the executable's argument shapes and dtypes."""
    return [rng.uniform(lo, hi, spec.shape).astype(spec.dtype) for spec in exe.in_specs]


def measure(name: str, text: str, lo: float, hi: float, repeat: int, ctx, rng, platform: str = "cpu") -> dict:
    """Best-of-``repeat`` device times (s) of the native and wide lowerings of ``text``, interleaved."""
    row = {"name": name}
    runs = {}
    for p in PRECISIONS:
        m = lower(text, p, ctx)
        if p == "native":
            row["no_f64"] = "f64" not in str(m)
        t0 = time.perf_counter()
        exe = xla_compile(m, platform=platform)
        row[f"compile_{p}"] = time.perf_counter() - t0
        runs[p] = exe
    args = inputs(runs["native"], rng, lo, hi)
    bufs = {p: runs[p].put(args) for p in PRECISIONS}
    for p in PRECISIONS:  # warm-up
        runs[p].execute(bufs[p])
    best = {p: float("inf") for p in PRECISIONS}
    for _ in range(repeat):
        for p in PRECISIONS:
            runs[p].execute(bufs[p])
            best[p] = min(best[p], runs[p].device_times[0])
    row.update(best)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="elements of the one-op programs")
    ap.add_argument("--repeat", type=int, default=15, help="timed runs of each lowering (best kept)")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated one-op programs to time")
    ap.add_argument("--runs", type=int, default=1, help="whole measurements, for the spread of the ratio")
    ap.add_argument("--platform", default="cpu", help="XLA platform (cpu, cuda, ...)")
    args = ap.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        print(f"error: unknown op(s) {', '.join(unknown)} (known: {', '.join(OPS)})", file=sys.stderr)
        return 1
    ctx = hlokit.make_context()
    rng = np.random.default_rng(0)
    programs = [("special_functions.mlir", open(EXAMPLE).read(), -2.0, 2.0, max(args.repeat, 50))]
    programs += [(f"{op} f32 x {args.n}", unary_program(op, args.n), *OPS[op], args.repeat) for op in ops]
    rows, ratios = [], []
    for _ in range(max(args.runs, 1)):
        runs = [measure(name, text, lo, hi, repeat, ctx, rng, args.platform) for name, text, lo, hi, repeat in programs]
        ratios.append([r["wide"] / r["native"] for r in runs])
        rows = runs if not rows else [{**a, **{p: min(a[p], b[p]) for p in PRECISIONS}} for a, b in zip(rows, runs)]
    print(f"XLA {args.platform} run time, best of {args.repeat} (special_functions.mlir: {max(args.repeat, 50)}) x {args.runs} "
          "run(s), native (f32 kernels) against wide (f64), interleaved")
    print(f"{'program':28s} {'native ms':>10s} {'wide ms':>10s} {'wide/native':>12s} {'spread':>13s} "
          f"{'compile native s':>17s} {'compile wide s':>15s}  no f64 in native")
    for i, r in enumerate(rows):
        col = [run[i] for run in ratios]
        print(f"{r['name']:28s} {r['native'] * 1e3:10.3f} {r['wide'] * 1e3:10.3f} {r['wide'] / r['native']:12.2f} "
              f"{min(col):6.2f}-{max(col):<6.2f} {r['compile_native']:17.2f} {r['compile_wide']:15.2f}  "
              f"{'yes' if r['no_f64'] else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
