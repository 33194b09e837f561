"""Run time of LAPACK-legalized programs against jaxlib's LAPACK originals on XLA CPU (and on a GPU).

    python benchmarks/linalg.py [--platform cpu|cuda] [--repeat 20] [--budget 5] [--functions cholesky,...]
                                [--sizes 16,64,256] [--batches 1,32] [--trials 1] [--dtype float32[,float64]]
                                [--cond 10]

The issue-40 table (f32 and f64, n = 64 .. 1024, best of 3 with the spread, compile seconds), in one run:

    OPENBLAS_NUM_THREADS=1 python benchmarks/linalg.py --functions cholesky,solve_triangular_lower,lu_factor,qr,eigh,svd \
        --dtype float32,float64 --sizes 64,256,512,1024 --batches 1 --trials 3 --budget 2

For each function of ``examples/linalg/export.py`` chosen (default: one per LAPACK routine family:
potrf, trsm, getrf + trsm, geqrf + orgqr, syevd, gesdd), each n of ``--sizes`` and batch of ``--batches``,
in one process:
* original: the exported program (``lapack_*_ffi`` custom calls) compiled by XLA CPU;
* legalized: the program after ``--stablehlo-legalize-lapack-custom-calls`` compiled for ``--platform``.
Prints the median of ``--repeat`` timed runs of each (after one warm-up; compile time excluded; fewer
runs, at least one, where ``--repeat`` runs would exceed ``--budget`` seconds) and the ratio
legalized / original, then the XLA compile time of the legalized program (seconds). With ``--trials T``
each run time is measured ``T`` times: the best (least) median is printed, with the spread
``(worst - best) / best`` of each; a measurement whose first trial's warm-up run alone exceeds ``--budget``
seconds is not repeated (spread printed as ``-``). ``--dtype`` takes a comma-separated list (one row per
element type). jaxlib's OpenBLAS threads oversubscribe a loaded machine (run-to-run spreads of 10x), so the
ratios of issue 40 are against single-thread LAPACK: set ``OPENBLAS_NUM_THREADS=1`` in the environment.
``--interleave`` times the two programs in turns instead of one after the other (the legalized program's
compile, seconds long, no longer sits between them): rounds of 5 runs of each, each round's ratio of the two
blocks' medians, each trial the median of its rounds' ratios, the printed ratio the median over the trials
(the times beside it still the best medians); on a machine whose speed drifts within a minute this ratio
moves less. ``--cond`` sets the 2-norm condition number of the inputs (``export.inputs``; default 10): e.g. ``--cond 1e6``
(the QDWH-SVD, ``spectral.SVD_ROUTE = "polar"``, takes its slower path for matrices its run-time certificate
rejects; the default bidiagonal route's cost does not depend on it). On a GPU platform the original still
runs on CPU (it cannot run on a GPU).
"""

from __future__ import annotations

import argparse
import math
import importlib.util
import os
import pathlib
import statistics
import time

import hlokit
import hlokit.passes.stablehlo_legalize_lapack_custom_calls  # noqa: F401  (registers the pass)
from hlokit import backend
from hlokit.passes import run_pipeline

REPO = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("linalg_export", REPO / "examples" / "linalg" / "export.py")
export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export)
# (the exporter keeps jax on CPU, where the LAPACK calls it writes run; --platform cuda needs jax's other
# platforms back, as the environment gives them)
export.jax.config.update("jax_platforms", os.environ.get("JAX_PLATFORMS") or None)

FUNCTIONS = ["cholesky", "solve_triangular_lower", "solve", "inv", "qr", "eigh", "svd"]


def runs_within(repeat: int, budget: float, warm: float) -> int:
    """``repeat``, or fewer (at least one) where runs of ``warm`` seconds each would take more than ``budget``."""
    return max(1, min(repeat, int(budget / max(warm, 1e-9)))) if math.isfinite(budget) else repeat


def median_time(exe, args, repeat: int, budget: float = math.inf) -> float:
    """Median wall time of ``repeat`` runs of ``exe`` on device buffers (after one warm-up run), fewer
    (at least one) where the warm-up says ``repeat`` runs would take more than ``budget`` seconds."""
    buffers = exe.put(args)
    t0 = time.perf_counter()
    exe.execute(buffers)
    repeat = runs_within(repeat, budget, time.perf_counter() - t0)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        exe.execute(buffers)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved_times(exe_a, args_a, exe_b, args_b, repeat: int, budget: float = math.inf,
                      block: int = 5) -> tuple[float, float, float]:
    """``(median a, median b, median ratio b / a)`` of ``exe_a`` and ``exe_b`` timed in turns: rounds of
    ``block`` runs of ``a`` then ``block`` runs of ``b`` (one warm-up run of each first), ``repeat`` runs of
    each in all (fewer, at least one round, where the warm-up says they would take more than ``budget``
    seconds); the ratio of each round is of its two blocks' medians. Each block runs with the caches its own
    program left (as :func:`median_time`'s runs do), and a machine whose speed drifts between the two
    programs' measurements no longer moves the ratio: the two blocks of a round are seconds apart at most."""
    buf_a, buf_b = exe_a.put(args_a), exe_b.put(args_b)
    t0 = time.perf_counter()
    exe_a.execute(buf_a)
    exe_b.execute(buf_b)
    repeat = runs_within(repeat, budget, time.perf_counter() - t0)
    rounds = max(1, -(-repeat // block))
    per = max(1, min(block, repeat))
    ta, tb, ratios = [], [], []
    for _ in range(rounds):
        ra, rb = [], []
        for exe, buf, out in ((exe_a, buf_a, ra), (exe_b, buf_b, rb)):
            for _ in range(per):
                t0 = time.perf_counter()
                exe.execute(buf)
                out.append(time.perf_counter() - t0)
        ta += ra
        tb += rb
        ratios.append(statistics.median(rb) / statistics.median(ra))
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cpu")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per measurement (at least one run)")
    parser.add_argument("--functions", default=",".join(FUNCTIONS))
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--sizes", default="16,64,256", help="matrix orders n, comma-separated")
    parser.add_argument("--batches", default="1,32", help="batch sizes, comma-separated (1: no batch dimension)")
    parser.add_argument("--trials", type=int, default=1, help="measure each T times: best median and spread")
    parser.add_argument("--cond", type=float, default=10.0, help="2-norm condition number of the inputs")
    parser.add_argument("--interleave", action="store_true",
                        help="time the original and the legalized program in turns, 5 runs each (the ratio printed: "
                             "the median over the trials of each trial's median ratio of neighbouring blocks)")
    opts = parser.parse_args(argv)
    print(f"{'function':24s} {'dtype':>8s} {'n':>4s} {'batch':>5s} {'LAPACK cpu (ms)':>16s} {'spread':>6s} "
          f"{'legalized ' + opts.platform + ' (ms)':>20s} {'spread':>6s} {'ratio':>7s} {'compile (s)':>11s}",
          flush=True)
    sizes = [int(n) for n in opts.sizes.split(",")]
    batches = [() if int(b) == 1 else (int(b),) for b in opts.batches.split(",")]

    def best(exe, args):
        times = []
        for _ in range(max(1, opts.trials)):
            t0 = time.perf_counter()
            times.append(median_time(exe, args, opts.repeat, opts.budget))
            if time.perf_counter() - t0 > 2 * opts.budget:
                break
        if len(times) == 1 and opts.trials > 1:
            return times[0], math.nan
        return min(times), (max(times) - min(times)) / min(times)

    def spread(s: float) -> str:
        return f"{'-':>6s}" if math.isnan(s) else f"{s:6.0%}"

    for dtype, name in [(d, f) for d in opts.dtype.split(",") for f in opts.functions.split(",")]:
        for n in sizes:
            for batch in batches:
                text = export.lower(name, dtype, batch, n)
                module = hlokit.parse(text, context=hlokit.make_context())
                run_pipeline(module, "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))")
                args = export.inputs(name, dtype, batch, n, cond=opts.cond)
                original = backend.compile(text, "cpu")
                if not opts.interleave:
                    t_orig, s_orig = best(original, args)
                t0 = time.perf_counter()
                exe = backend.compile(module, opts.platform)
                t_compile = time.perf_counter() - t0
                if opts.interleave:
                    trials = [interleaved_times(original, args, exe, args, opts.repeat, opts.budget)
                              for _ in range(max(1, opts.trials))]
                    (t_orig, s_orig), (t_new, s_new) = (
                        (min(x), (max(x) - min(x)) / min(x)) for x in zip(*[tr[:2] for tr in trials]))
                    ratio = statistics.median([tr[2] for tr in trials])
                else:
                    t_new, s_new = best(exe, args)
                    ratio = t_new / t_orig
                b = batch[0] if batch else 1
                print(f"{name:24s} {dtype:>8s} {n:4d} {b:5d} {t_orig * 1e3:16.3f} {spread(s_orig)} "
                      f"{t_new * 1e3:20.3f} {spread(s_new)} {ratio:7.2f} {t_compile:11.2f}", flush=True)


if __name__ == "__main__":
    main()
