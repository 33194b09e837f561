"""The floor under single-shot interpretation of ``while_20``: how fast could any interpreter built on MLIR's
parser, its Python bindings and numpy run this program from its text?

``while_20`` (``examples/interpreter_bench/while_20.mlir``, a JAX ``lax.while_loop`` of 20 iterations over a
64-vector) is the one program of ``benchmarks/interpreter.py`` whose single-shot target (10x jaxlib's C++
``stablehlo.eval_module``) is not met. This script times, in alternating rounds in one run:

* ``single`` — ``hlokit.interpret(text, args)``, as ``benchmarks/interpreter.py`` does;
* ``floor``  — what no interpreter of this text can skip, with no interpretation at all:

  - ``parse``: the text checks and MLIR's parse and verify, as ``hlokit.interpret`` does them
    (``hlokit.core.parse_module_op`` in the interpreter's context);
  - ``read``: one pass over every op through the bindings: its name, its results and operands numbered
    (SSA values to ints), its attributes read by name, a constant's value as an ndarray, nested regions
    walked; no adapters, no liveness, no checks;
  - ``run``: this program's loop written by hand in numpy, the same numpy calls the interpreter's kernels
    make (sine in f64 rounded once to f32, ``add.reduce`` in f32), constants hoisted, no dispatch. Its
    results are checked bit for bit against ``hlokit.interpret``'s;

* ``eval``   — ``stablehlo.eval_module`` (``benchmarks/interpreter.py``'s ``EvalModule``, the median of up to 5
  calls a round).

It prints the medians and ``eval / single``, ``eval / floor`` (the best ratio any interpreter on these
layers could reach) and the budget the 10x target leaves for interpretation (``eval / 10 - floor``).

Run:  python benchmarks/interpreter_floor.py [--repeat 50] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import hlokit  # noqa: E402
from hlokit import core  # noqa: E402
from hlokit.interpreter import api  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interpreter as bench  # noqa: E402  (benchmarks/interpreter.py)

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def read_ops(op, ids: dict, consts: list) -> None:
    """Every op nested in ``op`` read once through the bindings (see the module doc: ``read``)."""
    for region in op.regions:
        for block in region.blocks:
            for arg in block.arguments:
                ids[arg] = len(ids)
            for child in block.operations:
                operation = child.operation
                name = operation.name
                for r in operation.results:
                    ids[r] = len(ids)
                tuple(map(ids.get, operation.operands))
                attrs = operation.attributes
                if name == "stablehlo.constant":
                    consts.append(np.array(attrs["value"]))
                else:
                    for i in range(len(attrs)):
                        attrs[i]
                if len(operation.regions):
                    read_ops(operation, ids, consts)


def while_20_by_hand(x: np.ndarray) -> list:
    """``while_20``'s function in numpy, call for call what the interpreter's kernels compute."""
    i, acc = np.asarray(np.int32(0)), np.asarray(np.float32(0))
    n, one = np.asarray(np.int32(20)), np.asarray(np.int32(1))
    a, b, c = np.float32(0.99), np.float32(0.01), np.float32(1e-3)
    while np.less(i, n):
        y = np.add(np.add(np.multiply(x, a), np.multiply(np.sin(x, dtype=_F64).astype(_F32), b)),
                   np.multiply(c, i.astype(_F32)))
        i = np.add(i, one)
        acc = np.asarray(np.add(acc, np.add.reduce(np.multiply(y, y), axis=0, dtype=_F32), dtype=_F32))
        x = y
    return [x, acc]


def floor_shot(text: str, args: list) -> tuple[list, dict]:
    """One ``floor`` run (see the module doc): the results and the seconds of each part."""
    t0 = time.perf_counter()
    ctx = api._shared_context(len(text))
    module = core.parse_module_op(text, context=ctx, source_name="<input>")
    t1 = time.perf_counter()
    read_ops(module, {}, [])
    t2 = time.perf_counter()
    with np.errstate(all="ignore"):
        out = while_20_by_hand(args[0])
    t3 = time.perf_counter()
    return out, {"parse": t1 - t0, "read": t2 - t1, "run": t3 - t2}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50, help="shots per round for single and floor")
    ap.add_argument("--rounds", type=int, default=20, help="alternating rounds of single, floor and eval")
    a = ap.parse_args(argv)
    text, args = bench.PROGRAMS["while_20"]()
    ours = hlokit.interpret(text, args)
    by_hand, _ = floor_shot(text, args)
    same = all(x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(ours, by_hand))
    if not same:
        print("the hand-written loop does not give hlokit.interpret's bits", file=sys.stderr)
        return 1
    singles, floors, evals = [], [], []
    parts: dict[str, list[float]] = {"parse": [], "read": [], "run": []}  # (each round's median)
    try:
        with bench.EvalModule(text, args, 120.0) as eval_module:
            for _ in range(a.rounds):
                singles.append(bench._median_time(lambda: hlokit.interpret(text, args), a.repeat))
                shots, split = [], []
                for _ in range(a.repeat):
                    t0 = time.perf_counter()
                    _, p = floor_shot(text, args)
                    shots.append(time.perf_counter() - t0)
                    split.append(p)
                floors.append(statistics.median(shots))
                for k in parts:
                    parts[k].append(statistics.median([p[k] for p in split]))
                evals.append(bench.time_eval_module(eval_module))
    except RuntimeError as err:
        print(f"eval_module did not run: {err}", file=sys.stderr)
        return 1
    single, floor, ev = (statistics.median(v) for v in (singles, floors, evals))
    ratio = lambda ts: statistics.median([e / t for e, t in zip(evals, ts)])  # noqa: E731
    print(f"while_20: single {single * 1e3:.3f} ms, floor {floor * 1e3:.3f} ms "
          f"({', '.join(f'{k} {statistics.median(v) * 1e3:.3f}' for k, v in parts.items())}), "
          f"eval_module {ev * 1e3:.3f} ms")
    print(f"eval / single = {ratio(singles):.2f}x; eval / floor = {ratio(floors):.2f}x; "
          f"single / floor = {statistics.median([s / f for s, f in zip(singles, floors)]):.2f}x")
    print(f"budget for interpretation at 10x: eval / 10 - floor = {(ev / 10 - floor) * 1e6:.0f} us "
          f"(single - floor = {(single - floor) * 1e6:.0f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
