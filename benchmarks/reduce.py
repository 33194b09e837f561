"""How fast the test-case reducer (hlokit.reduce, hlokit-reduce) shrinks programs of 200+ ops.

    python benchmarks/reduce.py [--only NAME] [--max-time SECONDS]

For each case: a program of 200+ ops and an interestingness test as a user would write one, reduced through
:func:`hlokit.reduce` with the library's reductions (:data:`hlokit.triage.reductions.REDUCTIONS`). Prints, per
case, ops before -> after, the tests run, the seconds, and how many changes each reduction gave:

* ``train_step`` — examples/reduce/train_step.mlir (a CNN training step, ~620 ops) with the script
  examples/reduce/has_select_and_scatter.sh (the issue's "still contains a select_and_scatter");
* ``deviation`` — examples/reduce/deviation.mlir (~520 ops, one injected subnormal multiply) with
  ``--until=engines-differ --rtol 1e-3`` (the interpreter against XLA, in the worker process);
* ``adam_dot`` — examples/models/optax_adam_step.mlirbc (~240 ops) with a script asking for a ``dot_general``;
* ``attention_exp`` — examples/models/hk_attention.poly.mlirbc (~250 ops, symbolic shapes) with a script
  asking for an ``exponential``;
* ``adam_poly_sqrt`` — examples/models/optax_adam_step.poly.mlirbc (~330 ops) with a script asking for a
  ``sqrt`` next to a ``divide``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import stat
import tempfile

import hlokit
from hlokit.triage import predicates

REPO = pathlib.Path(__file__).resolve().parents[1]


def _grep_script(directory: str, name: str, *patterns: str) -> str:
    path = pathlib.Path(directory) / f"{name}.sh"
    path.write_text("#!/bin/sh\n" + "\n".join(f"grep -q '{p}' \"$1\" || exit 1" for p in patterns) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def cases(directory: str):
    """(name, program path, test) for each benchmark case."""
    ex = REPO / "examples"
    yield ("train_step", ex / "reduce" / "train_step.mlir",
           predicates.ScriptTest(str(ex / "reduce" / "has_select_and_scatter.sh")))
    yield ("deviation", ex / "reduce" / "deviation.mlir", predicates.from_until("engines-differ", rtol=1e-3))
    yield ("adam_dot", ex / "models" / "optax_adam_step.mlirbc",
           predicates.ScriptTest(_grep_script(directory, "dot", "stablehlo.dot_general")))
    yield ("attention_exp", ex / "models" / "hk_attention.poly.mlirbc",
           predicates.ScriptTest(_grep_script(directory, "exp", "stablehlo.exponential")))
    yield ("adam_poly_sqrt", ex / "models" / "optax_adam_step.poly.mlirbc",
           predicates.ScriptTest(_grep_script(directory, "sqrt", "stablehlo.sqrt", "stablehlo.divide")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only this case")
    ap.add_argument("--max-time", type=float, default=300.0, help="budget of each case, seconds (default 300)")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    print(f"{'case':<16} {'ops before':>10} {'after':>6} {'tests':>6} {'seconds':>8}  changes")
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, test in cases(tmp):
            if args.only and name != args.only:
                continue
            try:
                r = hlokit.reduce(str(path), test, max_time=args.max_time)
            finally:
                test.close()
            changes = ", ".join(f"{k} {v}" for k, v in sorted(r.by_reduction.items(), key=lambda kv: -kv[1]))
            stop = f"  (stopped by {r.stopped})" if r.stopped else ""
            print(f"{name:<16} {r.ops_before:>10} {r.ops_after:>6} {r.tests:>6} {r.seconds:>8.1f}  {changes}{stop}",
                  flush=True)


if __name__ == "__main__":
    main()
