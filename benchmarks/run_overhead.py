"""hlokit-run's compile+run against jax.jit on the same examples and inputs, as a ratio (target <= 1.1x).

    python benchmarks/run_overhead.py [--repeat 5]

For each example of examples/export.py, in one process:
* hlokit: parse the committed .mlir + hlokit.backend.compile (cache cleared) + one run;
* jax:    jax.jit(fn) trace + lower + compile (jax caches cleared) + one run on the same inputs.
Prints the median of --repeat timings of each (alternating which runs first) and the ratio hlokit / jax,
then the geometric mean.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import pathlib
import statistics
import time

import jax
import numpy as np

import hlokit
from hlokit import backend
from hlokit.backend import xla as xla_backend

REPO = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("export", REPO / "examples" / "export.py")
export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export)


def time_hlokit(text: str, args) -> float:
    xla_backend._CACHE.clear()
    t0 = time.perf_counter()
    module = hlokit.parse(text, context=hlokit.make_context())
    exe = backend.compile(module)
    outs = exe(*args)
    return time.perf_counter() - t0, outs


def time_jax(fn, args) -> float:
    jax.clear_caches()
    t0 = time.perf_counter()
    outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    outs = [np.asarray(o) for o in outs]
    return time.perf_counter() - t0, outs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ns = ap.parse_args()
    backend.initialize("cpu")
    print(f"{'example':<20}{'hlokit ms':>12}{'jax.jit ms':>12}{'ratio':>8}")
    ratios = []
    for name, (fn, avals) in export.EXAMPLES.items():
        text = (REPO / "examples" / f"{name}.mlir").read_text()
        rng = np.random.default_rng(0)
        args = [rng.standard_normal(a.shape).astype(a.dtype) for a in avals]
        time_hlokit(text, args), time_jax(fn, args)  # warm-up: imports, first-use initialisation
        h, j = [], []
        for rep in range(ns.repeat):  # alternate who goes first, so neither gets a warmer machine
            if rep % 2:
                tj, outs_j = time_jax(fn, args)
                th, outs_h = time_hlokit(text, args)
            else:
                th, outs_h = time_hlokit(text, args)
                tj, outs_j = time_jax(fn, args)
            h.append(th)
            j.append(tj)
        for a, b in zip(outs_h, outs_j):
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
        mh, mj = statistics.median(h), statistics.median(j)
        ratios.append(mh / mj)
        print(f"{name:<20}{mh * 1e3:>12.1f}{mj * 1e3:>12.1f}{mh / mj:>7.2f}x")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{'geomean':<44}{geo:>7.2f}x   (target <= 1.10x; max {max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
