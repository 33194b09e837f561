"""The price of lowering to core StableHLO: run time on XLA of each lowered program against the original,
and the Python time each pass spends per op it rewrites.

    python benchmarks/expanders.py [--repeat 20] [--platform cpu] [--only SUBSTRING]

For every program under ``examples/lower_to_core/`` (one folder per pass family), in one process:
* ``original``: the program as written, compiled by XLA (which expands these ops itself, or runs them
  natively); ``-`` where XLA cannot compile it (e.g. ``unary_einsum``, shape-dialect ops). Programs with
  dynamic shapes carry a ``// types: ...`` line: both versions are refined to those argument types first
  (upstream ``stablehlo-refine-arguments`` / ``stablehlo-refine-shapes``);
* ``lowered``: the program after ``--stablehlo-lower-to-core`` (every step is hlokit's Python pass except
  the closing ``canonicalize`` / ``cse``), compiled by XLA;
* run times: median of ``--repeat`` timed runs after one warm-up, compile time excluded; ``ratio`` is
  lowered / original;
* pass time: the pipeline's wall time on the program (parse excluded), and that time divided by the number
  of ops the pipeline removed (ops of the families the pipeline lowers, counted before it runs).
"""

from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import backend
from hlokit.passes import run_pipeline
from hlokit.passes.stablehlo_lower_to_core import non_core_ops
from hlokit.tools.hlokit_run import random_input
from linalg import median_time  # benchmarks/linalg.py (this script's folder is on sys.path)

REPO = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = REPO / "examples" / "lower_to_core"

def count_lowered(module: ir.Module) -> int:
    """Number of ops in ``module`` that stablehlo-lower-to-core removes (the pipeline's own declared set)."""
    return len(non_core_ops(module))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--platform", default="cpu")
    parser.add_argument("--only", default="", help="run only programs whose path contains this")
    opts = parser.parse_args(argv)
    files = sorted(p for p in PROGRAMS.rglob("*.mlir") if opts.only in str(p))
    print(f"{'program':44s} {'original (ms)':>13s} {'lowered (ms)':>12s} {'ratio':>7s} "
          f"{'ops':>5s} {'pass (ms)':>9s} {'per op (ms)':>11s}")
    for path in files:
        name = str(path.relative_to(PROGRAMS))
        text = path.read_text()
        ctx = hlokit.make_context()
        module = hlokit.parse(text, context=ctx, source_name=name)
        n_ops = count_lowered(module)
        t0 = time.perf_counter()
        run_pipeline(module, "builtin.module(stablehlo-lower-to-core)", source_name=name)
        t_pass = time.perf_counter() - t0
        types = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("// types:")), None)
        refine = f"builtin.module(stablehlo-refine-arguments{{types={types}}},stablehlo-refine-shapes)"
        if types:  # dynamic-shape example: concrete argument types for XLA (upstream refinement)
            run_pipeline(module, refine)
        specs, _ = backend.signature(module)
        rng = np.random.default_rng(0)
        args = [random_input(s, rng) for s in specs]
        lowered = median_time(backend.compile(module, opts.platform), args, opts.repeat)
        try:
            original_module = hlokit.parse(text, context=ctx)
            if types:
                run_pipeline(original_module, refine)
            original_exe = backend.compile(original_module, opts.platform)
        except backend.BackendError:
            original = None
        else:
            original = median_time(original_exe, args, opts.repeat)
        orig_s = f"{original * 1e3:13.3f}" if original is not None else f"{'-':>13s}"
        ratio = f"{lowered / original:7.2f}" if original else f"{'-':>7s}"
        per_op = f"{t_pass * 1e3 / n_ops:11.3f}" if n_ops else f"{'-':>11s}"
        print(f"{name:44s} {orig_s} {lowered * 1e3:12.3f} {ratio} {n_ops:5d} {t_pass * 1e3:9.2f} {per_op}")


if __name__ == "__main__":
    main()
