"""hlokit-reduce: shrink a StableHLO program while a test still holds (LLVM ``mlir-reduce``'s conventions).

    hlokit-reduce INPUT.mlir (--test=SCRIPT [--test-arg=ARG ...] | --until=KIND[=VALUE]) [-o OUT.mlir]
                  [--max-time SECONDS] [--max-tests N] [--test-timeout SECONDS]
                  [--rtol X] [--atol X] [--seed N] [--quiet]

A candidate is interesting when ``SCRIPT [ARG...] CANDIDATE.mlir`` exits 0 (as mlir-reduce's ``--test`` /
``--test-arg``, https://mlir.llvm.org/docs/Tools/MLIRReduce/), or, without a script, when a built-in test holds
(:mod:`hlokit.triage.predicates`):

* ``--until=xla-crash``: XLA's compiler or the compiled program's run dies (in a contained child process);
* ``--until=engines-differ[=ULP]``: hlokit's interpreter and XLA differ beyond ULP units in the last place
  (``--rtol`` / ``--atol`` too; none: the default tolerance of ``hlokit-run --engine both``) on seeded random
  inputs (``--seed``) made for each candidate's signature;
* ``--until=error-matches=REGEX``: the parser, the verifier, hlokit's preparation for XLA or XLA reports an
  error matching REGEX;
* ``--until=pass-fails=PIPELINE``: the pipeline (``hlokit-opt --pass-pipeline`` syntax) fails on it.

The test must hold on the input (else an error, exit 1, nothing written). The reduced program (MLIR's pretty
form, the text the test last held on) goes to ``-o`` (default: stdout), written only when the test holds on
it; the input file is never changed. A progress line (ops left, tests run, elapsed time) goes to stderr
(``--quiet``: none). ``--max-time`` / ``--max-tests`` stop the search early with the smallest program found so
far. Errors are ``FILE: error: message`` and exit code 1, never a traceback (:mod:`hlokit.tools.common`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import hlokit
from hlokit.diagnostics import HlokitError
from hlokit.tools.common import (
    add_version_argument, check_output_path, llvm_style_flags,
    read_text, source_name, tool_main, write_output,
)
from hlokit.triage import predicates
from hlokit.triage.reduce import ReduceError, reduce, stderr_progress

__all__ = ["main", "run"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlokit-reduce", allow_abbrev=False,
        description="Shrink a StableHLO program while a test still holds (mlir-reduce's conventions).")
    p.add_argument("input", help="MLIR file (text or bytecode; '-' = stdin)")
    add_version_argument(p)
    p.add_argument("--test", metavar="SCRIPT",
                   help="interestingness test: SCRIPT [ARG...] CANDIDATE.mlir exits 0 on an interesting candidate")
    p.add_argument("--test-arg", action="append", default=[], metavar="ARG",
                   help="an argument for the test script, before the candidate's path (repeatable)")
    p.add_argument("--until", metavar="KIND[=VALUE]",
                   help="a built-in test: xla-crash, engines-differ[=ULP], error-matches=REGEX, pass-fails=PIPELINE")
    p.add_argument("--rtol", type=float, help="engines-differ: relative tolerance (of the output's scale)")
    p.add_argument("--atol", type=float, help="engines-differ: absolute tolerance")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs of the built-in tests (default 0)")
    p.add_argument("-o", dest="output", default="-", metavar="OUT.mlir", help="output file (default: stdout)")
    p.add_argument("--max-time", type=float, metavar="SECONDS", help="stop after this many seconds")
    p.add_argument("--max-tests", type=int, metavar="N", help="stop after this many tests")
    p.add_argument("--test-timeout", type=float, default=predicates.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"time limit of one test on one candidate (default {predicates.DEFAULT_TIMEOUT:g})")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    return p


def _check(args: argparse.Namespace) -> None:
    if (args.test is None) == (args.until is None):
        raise HlokitError("give exactly one of --test=SCRIPT and --until=KIND")
    if args.test_arg and args.test is None:
        raise HlokitError("--test-arg: only with --test=SCRIPT")
    if args.max_time is not None and not args.max_time > 0:
        raise HlokitError(f"--max-time: expected a number of seconds > 0, got {args.max_time:g}")
    if args.max_tests is not None and args.max_tests < 1:
        raise HlokitError(f"--max-tests: expected at least 1, got {args.max_tests}")
    if not args.test_timeout > 0:
        raise HlokitError(f"--test-timeout: expected a number of seconds > 0, got {args.test_timeout:g}")
    for name in ("rtol", "atol"):
        value = getattr(args, name)
        if value is not None and not value >= 0:
            raise HlokitError(f"--{name}: expected a number >= 0, got {value:g}")
    if args.seed < 0:
        raise HlokitError(f"--seed: expected an integer >= 0, got {args.seed}")


def run(argv: Sequence[str]) -> int:
    """hlokit-reduce's body: read the input, make the test, reduce, write the result."""
    parser = _parser()
    args = parser.parse_args(llvm_style_flags(parser, argv))
    _check(args)
    check_output_path(args.output)
    name = source_name(args.input)
    module = hlokit.parse(read_text(args.input), context=hlokit.make_context(), source_name=name)
    if args.test is not None:
        test = predicates.ScriptTest(args.test, args.test_arg, timeout=args.test_timeout)
    else:
        test = predicates.from_until(args.until, rtol=args.rtol, atol=args.atol, seed=args.seed,
                                     timeout=args.test_timeout)
    try:
        result = reduce(module, test, max_time=args.max_time, max_tests=args.max_tests,
                        progress=None if args.quiet else stderr_progress())
    except ReduceError as err:
        raise HlokitError(err.diagnostics, file=name) from None
    finally:
        test.close()
    write_output(args.output, result.text if result.text.endswith("\n") else result.text + "\n")
    if not args.quiet:
        print(f"hlokit-reduce: {result.summary()}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-reduce``."""
    return tool_main("hlokit-reduce", run, argv)


if __name__ == "__main__":
    sys.exit(main())
