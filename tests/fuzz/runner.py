"""Run the fuzzer and print counts per tool mode and class.

    python benchmarks/fuzz.py --seed 0 --count 2000 --jobs 2 [--save] [--show CLASS]
    python benchmarks/fuzz.py --programs --seed 0 --count 500 [--max-ops 16]   (interpreter against XLA)

``--save`` writes every failing case to ``tests/fuzz/reproducers/`` (a JSON file per case);
``--show CLASS`` prints the stderr tail of the cases of that class; ``--slow SECONDS`` lists the cases that ran
longer (whatever their class: a clean error that takes a minute, or gigabytes, is still worth a look). Exit 1
when a case failed.
"""

from __future__ import annotations

import argparse
import sys
import time

from fuzz.fuzzer import OK_CLASSES, REPRODUCERS, run_many, save_reproducer, table


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--no-fork", action="store_true", help="a new Python process per case (no fork server)")
    p.add_argument("--save", action="store_true", help=f"save failures to {REPRODUCERS}")
    p.add_argument("--show", action="append", default=[], metavar="CLASS", help="print the failures of CLASS")
    p.add_argument("--slow", type=float, default=10.0, metavar="SECONDS", help="list the cases that ran longer")
    p.add_argument("--programs", action="store_true",
                   help="random valid programs through hlokit-run --engine both (interpreter against XLA)")
    p.add_argument("--max-ops", type=int, default=16, help="ops per program, with --programs")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    done = [0]

    def progress(res):
        done[0] += 1
        if done[0] % 100 == 0:
            print(f"  ... {done[0]}/{args.count} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    results = run_many(args.seed, args.count, jobs=args.jobs, timeout=args.timeout, start=args.start, progress=progress,
                        fork=not args.no_fork, programs=args.programs, max_ops=args.max_ops)
    print(f"seed {args.seed}, cases {args.start}..{args.start + args.count - 1}, jobs {args.jobs}, "
          f"{time.perf_counter() - t0:.1f} s")
    print(table(results))
    bad = [r for r in results if r.cls not in OK_CLASSES]
    for r in bad:
        c = r.case
        print(f"FAIL {r.cls:<16} #{c.index:<5} {c.mode:<22} {c.mutation:<24} {c.input_name}: {_last_line(r)[:200]}")
        if r.cls in args.show:
            print("    argv:", c.argv)
            print("    " + r.stderr[-1500:].replace("\n", "\n    "))
        if args.save:
            save_reproducer(r)
    for r in sorted((r for r in results if r.seconds > args.slow), key=lambda r: -r.seconds):
        c = r.case
        print(f"SLOW {r.seconds:6.1f} s {r.cls:<12} #{c.index:<5} {c.mode:<22} {c.mutation:<24} {c.input_name}: "
              f"{_last_line(r)[:160]}")
    return 1 if bad else 0


def _last_line(result) -> str:
    """The last line of a run's stderr that is not blank ("" when there is none)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""
