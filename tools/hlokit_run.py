"""hlokit-run: parse and verify a StableHLO program, compile it with XLA, run it, report its outputs.

    hlokit-run PROGRAM.mlir [--inputs in.npz] [--input NAME=FILE.npy|@FILE.npy|2x2xf32=1,2,3,4 ...]
               [--shape NAME=8x16 ...] [--output out.npz|DIR/|'out_{}.npy'] [--function main]
               [--print-outputs[=N]] [--benchmark[=N]]
               [--platform cpu] [--exported-platforms cpu,cuda]
               [--seed 0] [--repeat 1] [--devices N] [--engine xla|interpreter|both] [--expected OUT.npz]
               [--max-ulp N] [--rtol X] [--atol X]
               [--num-processes P --process-id I --coordinator HOST:PORT]
    hlokit-run --list-devices [--platform cpu] [--devices N]

PROGRAM is MLIR text, MLIR bytecode, a StableHLO portable artifact or the bytes of JAX's serialized ``Exported``
(``jax.export.Exported.serialize()``, recognised by content: :mod:`hlokit.exported`); from the last, the
platforms (for a multi-platform export's index), the device count, the argument names (jax's pytree paths,
``args[0]['w']``) and the shardings it carries are used, and the header line says so.

Inputs come from ``--inputs`` (an ``.npz`` with keys ``arg_0``, ``arg_1``, ... in argument order) or, without
it, are seeded random arrays of the signature's shapes and element types; ``--input NAME=FILE.npy``
(repeatable, mixes with ``--inputs``, each argument given once) gives one argument, NAME being ``arg_<i>`` or
jax's name of it (``jax.arg_info``, ``loc("params['w']")``). A multi-platform ``jax.export`` (its ``@main``
takes jax's ``_platform_index`` first, and ``case`` ops pick the lowering) runs the lowering of
``--platform``: that argument becomes a constant (:func:`fill_platform_index`; the export's platforms in
order from ``--exported-platforms``, which the module text does not carry, or an ``mhlo.platforms``
attribute), so the inputs are the function's own arguments. A program whose ``@main`` takes symbolic
(dynamic) shapes, as a ``jax.export`` with ``jax.export.symbolic_shape`` gives, is refined to the shapes of
its inputs, or of ``--shape NAME=8x16`` for seeded ones (:func:`refine_from_inputs`; jax's shape assertions
are checked, with jax's message), and the refined signature is printed. Prints, per output, its shape,
dtype, min/max/mean and NaN count, then the parse / compile / run times (run: median of ``--repeat``;
per device for multi-device programs).

The conventions of ``iree-run-module`` and XLA's ``run_hlo_module`` (:mod:`hlokit.tools.run_io`): ``--input``
also takes inline values (``2x2xf32=1,2,3,4``, one value splats) and positional files (``@x.npy``: the argument
after the previous ``--input``'s), ``NAME=@FILE.npy`` too; ``--print-outputs[=N]`` prints the values, elided past
N elements (``--output_max_element_count``); ``--output DIR/`` or ``--output 'out_{}.npy'`` writes one ``.npy``
per output; ``--benchmark[=N]``: one warm-up, then N timed runs per engine (min / median / p90, per device, the
compile apart, :func:`print_benchmark`); ``--list-devices`` lists the devices of ``--platform`` and exits
(:func:`list_devices`). Long work shows progress on stderr when it is a terminal (:class:`run_io.Progress`).

``--engine`` picks what runs the program: ``xla`` (default), ``interpreter`` (hlokit's reference
interpreter, :func:`hlokit.interpret`) or ``both``: the same inputs go to both, and every output gets the
interpreter's distance from XLA's result (:func:`hlokit.compare.compare`): the largest ULP distance (floats
and complex; integers and booleans: the largest difference), the largest absolute and relative (to the
output's largest magnitude) differences and the worst element, with what it is (a subnormal against zero, a
sign / phase flip of eigen- or singular vectors, a real difference). With ``--max-ulp N``, ``--rtol X``,
``--atol X`` (every bound given must hold: ULPs <= N, ``|a - b| <= rtol * max|reference| + atol``) an
output outside them makes the run fail (exit 1; ``--output`` is not written). ``--expected OUT.npz`` checks
the outputs of each engine that ran against recorded ones with the same bounds (none given: integers
exact, floats ``rtol`` = 16 epsilons of their type, within [eps, 2**-6]). Eigen- and singular vectors: for a program calling a
routine of ``VECTORS_UP_TO_PHASE``, an output failing the plain comparison is compared again up to a sign /
unit phase per column (then per row) of each matrix; which output holds the vectors is not traced.

Quantized programs (``!quant.uniform`` element types, which XLA cannot compile): XLA runs a copy lowered by
hlokit's ``stablehlo-legalize-quant-to-math`` pass (one line says so), the interpreter the quantized
original; a quantized argument or result is its storage values (``i8`` for ``!quant.uniform<i8:f32, ...>``)
on both engines.

What each engine runs is the parsed program brought to what that engine runs by :func:`hlokit.prepare`
(:mod:`hlokit.passes.prepare`: XLA off CPU gets jaxlib's LAPACK calls legalized, quantized types lowered;
the interpreter gets CHLO & co. legalized), printed where it changes what runs. The tool is four steps,
one function each: :func:`parse_arguments` (+ :func:`check_arguments`) -> :func:`prepare_programs` ->
:func:`execute` -> :func:`report`.

Multi-device programs (``mhlo.num_partitions`` / ``mhlo.num_replicas`` > 1) run on that many XLA devices
(on CPU, ``--devices N`` host devices, default what the program needs); inputs and outputs are global arrays,
with a leading replica axis for multi-replica programs (see :class:`hlokit.backend.Executable`).
``--num-processes`` / ``--process-id`` / ``--coordinator`` run one process of a multi-process job through
``jax.distributed``; process 0 prints and writes the outputs.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import attributes, opsets
from hlokit.hlo_sharding import tile_dims_in
from hlokit import backend  # (its XLA part, and jax, load on the first use of backend.compile & co.)
from hlokit.backend import BackendError, TensorSpec, module_device_needs, signature
from hlokit.compare import Comparison, Tolerance, compare
from hlokit.interpreter import interpret
from hlokit.passes.prepare import Prepared, prepare
from hlokit.passes.refine import dynamic_arguments, refine_arguments
from hlokit.tools.run_signature import (PLATFORM_INDEX, ExportedFacts, PlatformChoice, argument_names,
                                        exported_facts, fill_platform_index, function_op, module_platforms)
from hlokit.passes.stablehlo_legalize_lapack_custom_calls import (
    EIGENVALUES_UNORDERED, VECTORS_UP_TO_PHASE, lapack_routines)
from hlokit.tools.common import add_version_argument, llvm_style_flags, read_text, source_name, tool_main
from hlokit.tools.translate_interpret import DEFAULT_MAX_STEPS
# (re-exported: tests and benchmarks import these names from here)
from hlokit.tools.run_io import (Progress, check_memory, check_output_target, described_arg,  # noqa: F401
                                 format_values, input_shape, load_expected, load_inputs, load_single_inputs,
                                 parse_input_options, parse_shape_options, physical_memory, random_input,
                                 resolve_input_indices, summarize, timing_summary, write_outputs, peek_shape)


def refine_from_inputs(args: argparse.Namespace, module: ir.Module, name: str,
                       arg_names: Sequence[str | None]) -> str | None:
    """Refine a program whose entry function has symbolic (dynamic) argument shapes to the shapes of its
    inputs (``--inputs``, ``--input``) or, for seeded inputs, of ``--shape NAME=8x16``
    (:func:`hlokit.passes.refine.refine_arguments`, in place). Returns the refined signature, None for a
    static one.

    Raises HlokitError (located) for ``--shape`` of an unknown argument, a dynamic argument with no shape
    given, an entry function other than ``@main``; :class:`hlokit.diagnostics.PassError` for a shape the
    program cannot take (a static dimension contradicted, refinement failing, jax's shape assertions)."""
    shape_pairs = getattr(args, "shape_pairs", None) or []
    dynamic = dynamic_arguments(module, args.function)
    fn = function_op(module, args.function)
    if fn is None:
        return None
    arg_types = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
    by_name = {f"arg_{i}": i for i in range(len(arg_types))}
    for i, n in enumerate(arg_names[:len(arg_types)]):
        if n and n not in by_name:
            by_name[n] = i
    shapes: dict[int, tuple[int, ...]] = {}
    for n, shape in shape_pairs:
        if n not in by_name:
            raise hlokit.HlokitError(f"--shape {n}: no such argument; the program takes {len(arg_types)} argument(s): "
                                     + (", ".join(f"arg_{i} ({t})" for i, t in enumerate(arg_types)) or "none"),
                                     file=name)
        shapes[by_name[n]] = shape
    if not dynamic:
        return None
    if args.function != "main":
        raise hlokit.HlokitError(f"@{args.function} has symbolic argument shapes; only @main is refined to the "
                                 "inputs' shapes (stablehlo-refine-arguments)", file=name)
    if args.inputs:
        for i in dynamic:
            shape = peek_shape(args.inputs, f"arg_{i}")
            if shape is not None:
                shapes[i] = shape
    options = getattr(args, "input_pairs", None) or []
    for opt, i in zip(options, resolve_input_indices(options, len(arg_types), arg_names, name,
                                                      [str(t) for t in arg_types])):
        shape = input_shape(opt)
        if shape is not None:
            shapes[i] = shape
    types = []
    for i, t in enumerate(arg_types):
        if i not in dynamic:
            types.append(t)
            continue
        if i not in shapes:
            jax_name = arg_names[i] if i < len(arg_names) and arg_names[i] else None
            raise hlokit.HlokitError(
                f"argument arg_{i}{f' ({jax_name})' if jax_name else ''} of @main has symbolic shape '{t}': give "
                f"its input (--inputs, --input) or, for a seeded input, its shape (--shape arg_{i}=D0xD1...)",
                file=name)
        types.append(ir.RankedTensorType.get(list(shapes[i]), ir.RankedTensorType(t).element_type,
                                             loc=ir.Location.unknown(module.context)))
    with module.context:
        return refine_arguments(module, types, source_name=name)


def _values_of(references: Sequence[np.ndarray], vectors: np.ndarray) -> list[np.ndarray]:
    """The reference outputs that may be the eigen- / singular values of the matrices of ``vectors`` (real,
    of their batch shape plus their column count): :func:`hlokit.compare.compare` matches the vectors of equal
    values as a group."""
    v = np.asarray(vectors)
    return [r for r in references if v.ndim >= 2 and np.asarray(r).shape == v.shape[:-1]
            and np.asarray(r).dtype.kind == "f"]


def difference(ours: np.ndarray, xla: np.ndarray, tolerance: Tolerance = Tolerance(),
               up_to_phase: bool = False, values: Sequence[np.ndarray] = ()) -> Comparison:
    """Compare the interpreter's result ``ours`` with XLA's ``xla`` (:func:`hlokit.compare.compare`: the
    largest ULP, absolute and relative differences, the worst element and what it is)."""
    return compare(ours, xla, tolerance, up_to_phase=up_to_phase, values=values)


#: Ops whose f16 / bf16 results XLA CPU may leave unrounded inside a fusion (it computes them in f32 and rounds
#: once, at the fusion's end: "excess precision"); the interpreter rounds each, as the spec defines.
_ROUNDING_OPS = frozenset(
    opsets.ELEMENTWISE - {"stablehlo." + n for n in (
        "select", "clamp", "maximum", "minimum", "negate", "abs", "convert", "sign", "floor", "ceil",
        "round_nearest_afz", "round_nearest_even", "bitcast_convert", "reduce_precision", "compare", "not", "and",
        "or", "xor", "is_finite", "real", "imag")}
    | {"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.reduce", "stablehlo.reduce_window"})


def narrow_float_arithmetic(module) -> list[str]:
    """The 16-bit float types (``"bf16"``, ``"f16"``, sorted) that some rounding op of ``module`` (``_ROUNDING_OPS``)
    computes: where XLA CPU's excess precision may differ from the interpreter's per-op rounding."""
    found: set[str] = set()

    def visit(op):
        if op.name in _ROUNDING_OPS:
            for r in op.results:
                t = r.type
                elem = t.element_type if isinstance(t, ir.ShapedType) else t
                if isinstance(elem, (ir.BF16Type, ir.F16Type)):
                    found.add(str(elem))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return sorted(found)


def interpret_global(module, inputs: Sequence[np.ndarray], function: str, max_steps: int | None,
                     num_replicas: int = 1, num_partitions: int = 1) -> list[np.ndarray]:
    """Run ``function`` on hlokit's interpreter with the global inputs of :func:`run` and return global
    results, in the forms the XLA engine uses (:class:`hlokit.backend.Executable`).

    One device: :func:`hlokit.interpret`. Several: the interpreter's process grid
    (``num_replicas`` x ``num_partitions`` processes, one per device). A multi-replica program takes
    and returns a leading replica axis: replica r's processes get row r of every input, and row r of
    each result is the value of process (r, 0). A partitioned program is written on global arrays (its
    shardings only say where XLA puts the pieces): every process gets the whole inputs, and the results
    are process 0's.
    """
    if num_replicas * num_partitions == 1:
        return interpret(module, inputs, function=function, max_steps=max_steps)
    if num_replicas > 1:
        per_process = [[a[k // num_partitions] for a in inputs] for k in range(num_replicas * num_partitions)]
        out = interpret(module, function=function, max_steps=max_steps, num_replicas=num_replicas,
                        num_partitions=num_partitions, process_args=per_process)
        return [np.stack([out[r * num_partitions][i] for r in range(num_replicas)]) for i in range(len(out[0]))]
    out = interpret(module, inputs, function=function, max_steps=max_steps, num_partitions=num_partitions)
    return out[0]


#: ``--benchmark`` alone: this many timed runs; ``--print-outputs`` alone: elide past this many elements.
BENCHMARK_RUNS = 10
PRINT_LIMIT = 1000


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlokit-run",
        allow_abbrev=False,
        description="Parse, verify, compile with XLA and run a StableHLO program; report its outputs.",
    )
    p.add_argument("program", nargs="?", help="MLIR file (text, bytecode, portable artifact or jax.export's serialized Exported; '-' = stdin)")
    add_version_argument(p)
    p.add_argument("--inputs", metavar="IN.npz", help="inputs: .npz with keys arg_0, arg_1, ... (default: seeded random)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="one input (repeatable): NAME=FILE.npy or NAME=@FILE.npy (NAME: arg_0, arg_1, ... or jax's "
                        "argument name, loc(\"params['w']\") / jax.arg_info), @FILE.npy (positional: the argument "
                        "after the previous --input's), TYPE=VALUES inline as iree-run-module takes them "
                        "(2x2xf32=1,2,3,4; one value splats; NAME=TYPE=VALUES names it); mixes with --inputs")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=8x16",
                   help="a program with symbolic (dynamic) argument shapes, seeded inputs: the concrete shape of "
                        "argument NAME (arg_0, ... or jax's name; repeatable); given inputs give theirs")
    p.add_argument("--output", metavar="OUT.npz|DIR/|PATTERN",
                   help="write the outputs (only on success): OUT.npz (keys output_0, ...), DIR/ (a trailing "
                        "slash or an existing directory: DIR/output_0.npy, ...) or a pattern with {} "
                        "('out_{}.npy': out_0.npy, ...)")
    p.add_argument("--print-outputs", type=int, metavar="N", default=None,
                   help="print each output's values, elided past N elements (--print-outputs alone: "
                        f"{PRINT_LIMIT}), as run_hlo_module's --output_max_element_count")
    p.add_argument("--benchmark", type=int, metavar="N", default=None,
                   help=f"one warm-up run, then N timed runs (--benchmark alone: {BENCHMARK_RUNS}) of each engine: "
                        "min / median / p90, per device for multi-device programs, compile time apart")
    p.add_argument("--list-devices", action="store_true",
                   help="list the devices of --platform (kind, count, memory) and exit; no PROGRAM needed")
    p.add_argument("--function", default="main", help="entry function (default: main)")
    p.add_argument("--platform", default="cpu", choices=["cpu", "cuda", "rocm", "tpu"], help="XLA platform (default: cpu)")
    p.add_argument("--exported-platforms", metavar="P1,P2,...",
                   help="a multi-platform jax.export (jax's _platform_index argument): its platforms in export order "
                        "(default: the module's mhlo.platforms attribute); --platform picks the lowering")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    p.add_argument("--repeat", type=int, default=1, help="run N times, report the median run time")
    p.add_argument("--engine", default="xla", choices=["xla", "interpreter", "both"],
                   help="run on XLA (default), on hlokit's reference interpreter, or on both and compare")
    p.add_argument("--expected", metavar="OUT.npz",
                   help="check the outputs (of each engine run) against recorded ones (keys output_0, ... as --output "
                        "writes them); exit 1 on a mismatch, naming the output and its worst element")
    p.add_argument("--max-ulp", type=float, default=None, metavar="N",
                   help="--engine both / --expected: an element may be at most N ULPs away (integers: N apart)")
    p.add_argument("--rtol", type=float, default=None, metavar="X",
                   help="--engine both / --expected: |a - b| <= X * max|reference| (the output's largest finite "
                        "magnitude) + ATOL")
    p.add_argument("--atol", type=float, default=None, metavar="X",
                   help="--engine both / --expected: |a - b| <= RTOL * max|reference| + X. Every bound given must "
                        "hold; NaN positions must match. With none given, --engine both only reports and "
                        "--expected holds integers exact and floats to --rtol 16 epsilons of their type (at most 2**-6, at least 1 "
                        "epsilon)")
    p.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"interpreter: most iterations of one while loop (default {DEFAULT_MAX_STEPS}; 0: no limit)")
    # -- multi-device and multi-process (hlokit.backend.prepare_devices, compile(devices=))
    p.add_argument("--devices", type=int, metavar="N", help="CPU: number of XLA host devices (default: what the program needs)")
    p.add_argument("--num-processes", type=int, default=1, metavar="P", help="processes of a multi-process job")
    p.add_argument("--process-id", type=int, default=0, metavar="I", help="this process's index (0..P-1)")
    p.add_argument("--coordinator", metavar="HOST:PORT", help="jax.distributed coordinator address (process 0 serves it)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds to wait for the other processes")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help=argparse.SUPPRESS)
    return p


_CHILD = "HLOKIT_RUN_JOB_PROCESS"


def run_job_process(argv: Sequence[str], args: argparse.Namespace) -> int:
    """Run one process of a multi-process job in a child and report how it ended, within a bounded wait.

    XLA's coordination service ends a process that cannot form the job (a missing process, a coordinator
    that never answers) with an abort; in a child, that becomes a located error and exit 1 here.
    """
    cmd = [sys.executable, "-m", "hlokit.tools.hlokit_run", *argv]
    limit = args.timeout * 2 + 600  # joining, then compile and run
    try:
        proc = subprocess.run(cmd, env={**os.environ, _CHILD: "1"}, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        raise hlokit.HlokitError(f"process {args.process_id} of {args.num_processes} did not finish within {limit:g} s")
    sys.stdout.write(proc.stdout)
    if proc.returncode in (0, 1):
        sys.stderr.write(proc.stderr)
        return proc.returncode
    lines = [ln for ln in proc.stderr.splitlines() if "DEADLINE_EXCEEDED" in ln or "UNAVAILABLE" in ln or ln.startswith("F")]
    raise hlokit.HlokitError(
        f"process {args.process_id} of {args.num_processes}: the job at {args.coordinator} did not form or lost a "
        f"process within {args.timeout:g} s (start all {args.num_processes} processes with the same --coordinator)"
        + (f"; XLA: {lines[0].strip()[:300]}" if lines else ""), file=source_name(args.program))


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """The command line (argparse: a malformed one exits 2 with its usage, which :func:`main` makes 1).
    ``--benchmark`` and ``--print-outputs`` take N as ``=N`` or as the next argument when that is a number;
    else their defaults (the next argument stays PROGRAM or an option)."""
    bare = {"--benchmark": BENCHMARK_RUNS, "--print-outputs": PRINT_LIMIT}
    argv, out = list(argv), []
    while argv:
        a = argv.pop(0)
        if a in bare:
            a = f"{a}={argv.pop(0) if argv and re.fullmatch(r'-?[0-9]+', argv[0]) else bare[a]}"
        out.append(a)
    argv = out
    parser = _parser()
    return parser.parse_args(llvm_style_flags(parser, argv))


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse values argparse lets through (HlokitError naming the option): ``--repeat`` < 1, a ``--seed``
    outside [0, 2**128), ``--max-steps`` < 0, the
    interpreter in a multi-process job, an unwritable ``--output``, a missing ``--inputs`` file, an ``--input``
    without ``NAME=FILE``, unknown or repeated ``--exported-platforms``; ``--max-ulp``,
    ``--rtol``, ``--atol`` without ``--engine both`` or ``--expected``, negative or NaN; a missing
    ``--expected`` file; no PROGRAM without ``--list-devices``; ``--benchmark`` < 1 or with ``--repeat``;
    ``--print-outputs`` < 0."""
    if args.program is None and not args.list_devices:
        raise hlokit.HlokitError("no PROGRAM given (only --list-devices runs without one)")
    if args.repeat < 1:
        raise hlokit.HlokitError(f"--repeat: expected a positive number of runs, got {args.repeat}")
    if args.benchmark is not None and (args.benchmark < 1 or args.repeat != 1):
        raise hlokit.HlokitError(f"--benchmark: expected a positive number of timed runs, got {args.benchmark}"
                                 if args.benchmark < 1 else "--repeat does not apply with --benchmark N (N timed runs "
                                 "after a warm-up): drop --repeat")
    if args.print_outputs is not None and args.print_outputs < 0:
        raise hlokit.HlokitError(f"--print-outputs: expected a number of elements >= 0, got {args.print_outputs}")
    if args.seed < 0 or args.seed >= 2**128:
        raise hlokit.HlokitError(f"--seed: expected an integer in [0, 2**128), got {args.seed}")
    for flag, value in (("--max-ulp", args.max_ulp), ("--rtol", args.rtol), ("--atol", args.atol)):
        if value is None:
            continue
        if args.engine != "both" and not args.expected:
            raise hlokit.HlokitError(f"{flag} compares the engines: use it with --engine both "
                                     "(or compare with recorded outputs: --expected OUT.npz)")
        if not value >= 0:  # (NaN too)
            raise hlokit.HlokitError(f"{flag}: expected a number >= 0, with --engine both or --expected, got {value:g}")
    if args.max_steps < 0:
        raise hlokit.HlokitError(f"--max-steps: expected a number of iterations >= 0 (0: no limit), got {args.max_steps}")
    if args.engine != "xla" and args.num_processes > 1:
        raise hlokit.HlokitError(f"--engine {args.engine}: the interpreter runs in one process; "
                                 "multi-process jobs run on XLA only (--engine xla)")
    check_output_target(args.output)
    if args.expected and not os.path.isfile(args.expected):
        what = "is a directory" if os.path.isdir(args.expected) else "no such file"
        raise hlokit.HlokitError(f"--expected: {what}", file=args.expected)
    if args.inputs and not os.path.isfile(args.inputs):
        what = "is a directory" if os.path.isdir(args.inputs) else "no such file"
        raise hlokit.HlokitError(f"--inputs: {what}", file=args.inputs)
    args.input_pairs = parse_input_options(args.input)
    args.shape_pairs = parse_shape_options(args.shape)
    args.exported_platform_list = None
    if args.exported_platforms is not None:
        plats = [p.strip() for p in args.exported_platforms.split(",")]
        known = ("cpu", "cuda", "rocm", "tpu")
        bad = [p for p in plats if p not in known]
        if bad or len(set(plats)) != len(plats):
            raise hlokit.HlokitError(f"--exported-platforms: expected distinct platforms of {', '.join(known)}, "
                                     f"comma-separated, got '{args.exported_platforms}'")
        args.exported_platform_list = plats


@dataclasses.dataclass
class Programs:
    """The parsed program and what each engine runs (:func:`prepare_programs`).

    ``module``: the program as parsed (its signature and device needs are read here; when the interpreter
    is the only engine, it is the interpreter's program, prepared in place). ``xla`` / ``interpreter``:
    :func:`hlokit.passes.prepare.prepare` for that engine on ``--platform`` (None: the engine does not run).
    ``routines``: the LAPACK routines the program calls (read for ``--engine both`` and ``--expected``: the
    note on eigen- and singular vectors, and which outputs may be compared up to a sign / phase). ``seconds``: the time to parse and prepare.
    ``platform``: the lowering chosen in a multi-platform export (:func:`fill_platform_index`; None for
    others). ``arg_names``: jax's name of each (real) argument where the module carries it (:func:`argument_names`)."""

    name: str
    module: ir.Module
    xla: Prepared | None
    interpreter: Prepared | None
    routines: list[str]
    seconds: float
    platform: PlatformChoice | None = None
    arg_names: list[str | None] = dataclasses.field(default_factory=list)
    refined: str | None = None
    exported: ExportedFacts | None = None
    partitions: int | None = None


def prepare_programs(args: argparse.Namespace) -> Programs:
    """Parse ``args.program`` and prepare it for each engine ``--engine`` names.

    XLA gets a copy where it needs something (a quantized program, lowered by
    ``stablehlo-legalize-quant-to-math``; LAPACK calls off CPU): the parsed module stays for the signature
    and for the interpreter, which runs quantized programs as they are. The interpreter's legalizations
    (CHLO, ...) run on a copy where XLA compiles the parsed module itself (XLA compiles CHLO with its own
    lowerings), else in place. Raises :class:`hlokit.diagnostics.HlokitError` for a program that does not
    parse or verify, :class:`hlokit.diagnostics.PassError` when a legalization refuses an op."""
    t0 = time.perf_counter()
    ctx = hlokit.make_context()
    name = source_name(args.program)
    module = hlokit.parse(read_text(args.program), context=ctx, source_name=name)
    facts = exported_facts(module)  # a serialized jax.export: its platforms, device count, names, shardings
    listed = getattr(args, "exported_platform_list", None)
    if facts is not None and listed is not None and listed != module_platforms(module):
        raise hlokit.HlokitError(f"--exported-platforms {','.join(listed)} disagrees with the platforms the "
                                 f"serialized jax.export records: {','.join(facts.platforms)}", file=name)
    partitions = partitions_from_devices(module, args.devices)
    # a multi-platform export: its _platform_index argument becomes a constant, before either engine's copy
    choice = fill_platform_index(module, args.function, args.platform, listed, name)
    arg_names = argument_names(module, args.function)
    refined = refine_from_inputs(args, module, name, arg_names)
    routines = linalg_routines(module) if args.engine == "both" or args.expected else []
    xla = interpreter = None
    if args.engine in ("xla", "both"):
        xla = prepare(module, engine="xla", platform=args.platform, copy=True, source_name=name)
    if args.engine in ("interpreter", "both"):
        shared = xla is not None and xla.module is module
        interpreter = prepare(module, engine="interpreter", platform=args.platform, copy=shared, source_name=name)
    return Programs(name, module, xla, interpreter, routines, time.perf_counter() - t0, choice, arg_names,
                    refined, facts, partitions)


def partitions_from_devices(module: ir.Module, devices: int | None) -> int | None:
    """A module with GSPMD shardings (``mhlo.sharding`` attributes, ``@Sharding`` custom calls) but no
    ``mhlo.num_partitions`` / ``mhlo.num_replicas`` (a bare ``Exported.mlir_module_serialized``: jax keeps the
    device count beside the module, in ``Exported.nr_devices``) is given ``mhlo.num_partitions = N``, as jax
    does when it compiles an exported program for N devices, so that XLA's SPMD partitioner (not its sharding
    remover) and the interpreter's partitions read it. N is ``devices`` (``--devices``) where given, else the
    most devices a sharding's tile assignment names (``{devices=[2,1]0,1}``: 2; XLA's HloSharding text).
    Returns N where it set the attribute (N > 1), else None."""
    op = module.operation
    if (devices is not None and devices < 2) or "mhlo.num_partitions" in op.attributes \
            or "mhlo.num_replicas" in op.attributes:
        return None
    texts: list[str] = []

    def visit(o):
        if "mhlo.sharding" in o.attributes:
            texts.append(str(o.attributes["mhlo.sharding"]))
        if o.name == "stablehlo.custom_call" and attributes.str_value(o, "call_target_name", "") == "Sharding":
            texts.append("Sharding")
        if o.name == "func.func":
            texts.extend(str(o.attributes[key]) for key in ("arg_attrs", "res_attrs") if key in o.attributes)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    tiles = [tile_dims_in(t) for t in texts if "devices=" in t or t == "Sharding"]
    if not tiles:
        return None
    if devices is None:
        devices = max((math.prod(dims) for found in tiles for dims in found), default=1)
        if devices < 2:
            return None
    with module.context:
        op.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), devices)
    return devices


#: GPU / TPU spellings of the routines whose vectors are unique up to a sign / phase, as LAPACK names them.
_VECTOR_ROUTINE_NAMES = {"syevj": "syevd", "gesvdj": "gesvd", "gesvdp": "gesvd", "Eigh": "syevd"}
_GPU_TARGET = re.compile(r"^(?:cu|hip)solver_([a-z0-9]+?)(?:_ffi)?$")


def linalg_routines(module: ir.Module) -> list[str]:
    """The LAPACK-named routine of every linear-algebra custom call of ``module`` in program order: jaxlib's
    ``lapack_*`` (:func:`~hlokit.passes.stablehlo_legalize_lapack_custom_calls.lapack_routines`), cuSOLVER /
    hipSOLVER ``*solver_<routine>[_ffi]`` and TPU's ``Eigh`` (``syevj`` and ``Eigh`` as ``syevd``, ``gesvdj`` /
    ``gesvdp`` as ``gesvd``): what says which outputs may be compared up to a sign or phase."""
    found = lapack_routines(module)

    def visit(op):
        if op.name == "stablehlo.custom_call":
            target = attributes.str_value(op, "call_target_name", "")
            m = _GPU_TARGET.match(target)
            name = m.group(1) if m else target if target == "Eigh" else None
            if name is not None:
                found.append(_VECTOR_ROUTINE_NAMES.get(name, name))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


@dataclasses.dataclass
class Results:
    """What :func:`execute` gives: the inputs and their specs, the outputs (XLA's, else the interpreter's),
    the interpreter's outputs (None when it did not run), the XLA executable (None when XLA did not run),
    the recorded outputs of ``--expected`` (None without it), and the times: XLA start-up, compile, each run (and per device), the interpreter's run."""

    inputs: list[np.ndarray]
    in_specs: list[TensorSpec]
    outputs: list[np.ndarray]
    interpreted: list[np.ndarray] | None
    exe: object | None
    t_init: float = 0.0
    t_compile: float = 0.0
    times: list[float] = dataclasses.field(default_factory=list)
    device_times: list[list[float]] = dataclasses.field(default_factory=list)
    t_interp: float = 0.0
    expected: list[np.ndarray] | None = None
    interp_times: list[float] = dataclasses.field(default_factory=list)


def execute(args: argparse.Namespace, programs: Programs) -> Results:
    """Check the signature, the memory the arguments and results need and ``--inputs`` (all before
    compiling), compile and run the XLA program ``--repeat`` times, run the interpreter's program; the same
    inputs go to both engines. Raises :class:`hlokit.diagnostics.HlokitError` (located in the program) for
    a signature XLA cannot take, a program too big for this machine, a bad inputs or ``--expected`` file
    (read before compiling) or an XLA error."""
    name, module = programs.name, programs.module
    try:
        # (the interpreter alone may return results of a shape known only once it has run)
        in_specs, out_specs = signature(module, args.function, dynamic_results=programs.xla is None)
    except BackendError as err:
        raise hlokit.HlokitError(err.diagnostics, file=name) from None
    num_replicas, num_partitions = module_device_needs(module)
    if num_replicas > 1:  # a multi-replica program takes and returns one slice per replica (leading axis)
        in_specs = [TensorSpec((num_replicas, *s.shape), s.dtype) for s in in_specs]
        out_specs = [TensorSpec((num_replicas, *s.shape), s.dtype) for s in out_specs]
    check_memory(name, in_specs, out_specs, physical_memory())
    pairs = getattr(args, "input_pairs", None) or []
    given_inputs = bool(args.inputs or pairs)
    if given_inputs:  # before compiling: a bad inputs file is reported at once
        names = programs.arg_names
        if not pairs:
            inputs = load_inputs(args.inputs, in_specs, names)
        else:
            given = load_inputs(args.inputs, in_specs, names, partial=True) if args.inputs else {}
            given = load_single_inputs(pairs, in_specs, names, given, name)
            missing = [i for i in range(len(in_specs)) if i not in given]
            if missing:
                raise hlokit.HlokitError(
                    f"--input{'/--inputs' if args.inputs else ''}: missing input(s) "
                    f"{', '.join(described_arg(i, names, in_specs) for i in missing)}; the program takes "
                    f"{len(in_specs)} argument(s)", file=name)
            inputs = [given[i] for i in range(len(in_specs))]
    expected = load_expected(args.expected, out_specs) if args.expected else None

    exe = None
    t_init = t_compile = 0.0
    if programs.xla is not None:
        t0 = time.perf_counter()
        try:
            with Progress(f"starting XLA ({args.platform})"):
                backend.prepare_devices(module, args.platform, args.devices, args.num_processes, args.process_id,
                                        args.coordinator, args.timeout)
                backend.initialize(args.platform)
            t_init = time.perf_counter() - t0
            t0 = time.perf_counter()
            with Progress(f"compiling @{args.function} with XLA ({args.platform})"):
                exe = backend.compile(programs.xla.module, args.platform, function=args.function,
                                      devices=None if args.num_processes > 1 else args.devices)
        except BackendError as err:
            raise hlokit.HlokitError(err.diagnostics, file=name) from None
        t_compile = time.perf_counter() - t0
        in_specs = exe.in_specs

    if not given_inputs:
        rng = np.random.default_rng(args.seed)
        inputs = [random_input(s, rng) for s in in_specs]

    results = Results(inputs, in_specs, [], None, exe, t_init, t_compile, expected=expected)
    warmups = 1 if args.benchmark else 0  # (--benchmark: one warm-up run of each engine, then N timed ones)
    if exe is not None:
        buffers = exe.put(inputs)
        total = warmups + (args.benchmark or args.repeat)
        with Progress("running on XLA") as progress:
            for k in range(total):
                progress.update("XLA warm-up run" if k < warmups else f"XLA run {k + 1 - warmups}/{total - warmups}")
                t0 = time.perf_counter()
                device_outs = exe.execute(buffers)
                results.outputs = exe.fetch(device_outs)
                if k >= warmups:
                    results.times.append(time.perf_counter() - t0)
                    results.device_times.append(exe.device_times)

    if programs.interpreter is not None:
        total = warmups + (args.benchmark or 1)
        with Progress(f"interpreting @{args.function}") as progress:
            for k in range(total):
                progress.update(f"interpreting @{args.function}" + (", warm-up run" if k < warmups else
                                                                    f", run {k + 1 - warmups}/{total - warmups}"
                                                                    if total > 1 else ""))
                t0 = time.perf_counter()
                results.interpreted = interpret_global(programs.interpreter.module, inputs, args.function,
                                                       args.max_steps or None, num_replicas, num_partitions)
                if k >= warmups:
                    results.interp_times.append(time.perf_counter() - t0)
        results.t_interp = statistics.median(results.interp_times)
        if exe is None:
            results.outputs = results.interpreted
    return results


#: The pass flags whose actions :func:`report` mentions.
LAPACK_FLAG = "stablehlo-legalize-lapack-custom-calls"
QUANT_FLAG = "stablehlo-legalize-quant-to-math"


def report(args: argparse.Namespace, programs: Programs, results: Results) -> int:
    """Print the program line, what preparing it did (LAPACK calls legalized off CPU, quantized types
    lowered for XLA) and the notes of ``--engine both``, the inputs, each output (with the interpreter's
    distance from XLA's, and each engine's from ``--expected``: :func:`hlokit.compare.compare`), the times;
    write ``--output``. Only process 0 of a job reports. Raises :class:`hlokit.diagnostics.HlokitError` when
    an output is further from XLA's than ``--max-ulp`` / ``--rtol`` / ``--atol`` allow, or further from the
    recorded one than they (or the default) allow (``--output`` is then not written)."""
    if args.process_id != 0:
        return 0  # process 0 reports and writes the outputs
    name, exe, outputs = programs.name, results.exe, results.outputs
    prepared = [p for p in (programs.xla, programs.interpreter) if p is not None]
    given = ([args.inputs] if args.inputs else []) + [o.text for o in getattr(args, "input_pairs", [])]
    source = "random (seed %d)" % args.seed if not given else " ".join(given)
    engine = "" if args.engine == "xla" else f"  engine: {args.engine}"
    print(f"program: {name}  function: @{args.function}  platform: {args.platform}  inputs: {source}{engine}")
    if programs.exported is not None:
        print(f"  {programs.exported.describe()} (platforms, device count, argument names and shardings read "
              "from the container)")
    if programs.platform is not None:
        print(f"  multi-platform export: running {programs.platform.describe()} (jax's {PLATFORM_INDEX} "
              "argument filled in; arg_0, ... are the function's own arguments)")
    if programs.refined is not None:
        print(f"  refined @{args.function}: {programs.refined}")
    if programs.partitions is not None:
        print(f"  the module's GSPMD shardings are read as {programs.partitions} partitions (mhlo.num_partitions "
              "set from --devices or the shardings' tile assignment: the module did not say)")
    lapack = next((a for p in prepared if (a := p.action(LAPACK_FLAG)) is not None), None)
    if lapack is not None and args.platform != "cpu":  # jaxlib's LAPACK kernels run only on XLA CPU
        print(f"  legalized {len(lapack.ops)} lapack_* custom call(s) for {args.platform} ({LAPACK_FLAG})")
    # jaxlib's eigen- / singular-vector routines, which the interpreter (and a non-CPU platform) replaces by
    # hlokit's expansions: their vectors may differ by a sign or phase each (geev, gees: also the eigenvalue order)
    up_to_phase = sorted(VECTORS_UP_TO_PHASE.intersection(programs.routines)) if args.platform == "cpu" and args.engine == "both" else []
    if up_to_phase:
        unordered = [r for r in up_to_phase if r in EIGENVALUES_UNORDERED]
        order = f"; the eigenvalues of {' and '.join(unordered)} may come in another order" if unordered else ""
        print(f"  note: the interpreter computes {', '.join(up_to_phase)} by its own algorithms: eigen- and singular "
              f"vectors may differ from LAPACK's by a sign (complex: a phase) each{order}; the values agree")
    both_on_cpu = args.engine == "both" and args.platform == "cpu"
    narrow = narrow_float_arithmetic(programs.interpreter.module) if both_on_cpu else []
    if narrow:
        print(f"  note: XLA CPU may compute chains of {' / '.join(narrow)} ops in f32 and round once at their end "
              "(excess precision); the interpreter rounds every op's result to its type, as the spec defines: "
              f"results may differ by about an ULP of {' / '.join(narrow)}")
    if programs.xla is not None and programs.xla.action(QUANT_FLAG) is not None:
        tail = "; the interpreter runs the quantized program" if args.engine == "both" else ""
        print(f"  legalized quantized types for XLA ({QUANT_FLAG}){tail}")
    for i, (a, spec) in enumerate(zip(results.inputs, results.in_specs)):
        jax_name = programs.arg_names[i] if i < len(programs.arg_names) else None
        print(f"  arg_{i}: {spec}" + (f"  ({jax_name})" if jax_name else ""))
    if exe is not None and exe.multi_device:
        print(exe.layout())
    tolerance = Tolerance(args.max_ulp, args.rtol, args.atol)
    # outputs of an eigen- / singular-vector routine are unique up to a sign / phase per vector; which output
    # holds them is not traced through the program, so the normalisation is tried on any output of a program
    # calling such a routine, and only when the plain comparison fails
    phase_routines = sorted(VECTORS_UP_TO_PHASE.intersection(programs.routines))
    phase_note = (f" (tried because the plain comparison failed and the program calls {', '.join(phase_routines)})"
                  if phase_routines else "")
    too_far, mismatched = [], []
    engines = [("XLA", outputs if exe is not None else None), ("interpreter", results.interpreted)]
    for i, o in enumerate(outputs):
        print(f"output_{i}: {summarize(o)}")
        if args.print_outputs is not None:
            print(format_values(o, args.print_outputs))
        if args.engine == "both":
            diff = difference(results.interpreted[i], o, tolerance, up_to_phase=bool(phase_routines),
                              values=_values_of(outputs, o) if phase_routines else ())
            print(f"  interpreter vs XLA: {diff.describe()}{phase_note if diff.kind == 'phase' else ''}")
            if tolerance.given and not diff.ok:
                too_far.append(f"output_{i} ({diff.describe()})")
        if results.expected is not None:
            for label, outs in engines:
                if outs is None:
                    continue
                c = compare(outs[i], results.expected[i], tolerance, up_to_phase=bool(phase_routines),
                            values=_values_of(results.expected, outs[i]) if phase_routines else ())
                status = "ok" if c.ok else "MISMATCH"
                print(f"  {label} vs expected: {status}: {c.describe()}{phase_note if c.kind == 'phase' else ''}")
                if not c.ok:
                    worst = c.mismatch or f"worst element {c.worst_element()}: {c.verdict()}"
                    mismatched.append(f"output_{i} of {label}: {worst}")
    parts = [f"parse {programs.seconds * 1e3:.2f} ms"]
    if exe is not None:
        parts += [f"XLA start-up {results.t_init * 1e3:.2f} ms", f"compile {results.t_compile * 1e3:.2f} ms",
                  f"run {statistics.median(results.times) * 1e3:.3f} ms (median of {len(results.times)})"]
    if results.interpreted is not None:
        parts.append(f"interpreter {results.t_interp * 1e3:.2f} ms")
    print("time: " + ", ".join(parts))
    if exe is not None and exe.multi_device and results.device_times and results.device_times[0]:
        runs = results.device_times
        per = [statistics.median(run[k] for run in runs) for k in range(len(runs[0]))]
        shown = ", ".join(f"{d} {t * 1e3:.3f} ms" for d, t in zip(exe.devices, per))
        print(f"per-device run time (dispatch to results ready, median): {shown}")
    if args.benchmark:
        print_benchmark(args.benchmark, results)
    if too_far:
        raise hlokit.HlokitError(
            f"--engine both: the interpreter and XLA differ by more than {tolerance.describe()}: " + "; ".join(too_far),
            file=name)
    if mismatched:
        bound = tolerance.describe() if tolerance.given else "the default (integers exact, floats --rtol 16 epsilons of their type)"
        raise hlokit.HlokitError(
            f"--expected {args.expected}: outputs differ from the recorded ones beyond {bound}: " + "; ".join(mismatched),
            file=name)
    if args.output:
        write_outputs(args.output, outputs)
    return 0


def print_benchmark(runs: int, results: Results) -> None:
    """``--benchmark N``'s lines: each engine's min / median / p90 over its N timed runs (after one
    warm-up), XLA's per device on a multi-device program, with the compile time apart."""
    exe = results.exe
    compiled = f"; XLA compile {results.t_compile * 1e3:.2f} ms, not counted" if exe is not None else ""
    print(f"benchmark: 1 warm-up run, then {runs} timed run(s) per engine{compiled}")
    if exe is not None:
        print(f"  XLA: {timing_summary(results.times)}")
        if exe.multi_device and results.device_times and results.device_times[0]:
            for k, d in enumerate(exe.devices):
                print(f"  XLA {d} (dispatch to results ready): {timing_summary([r[k] for r in results.device_times])}")
    if results.interp_times:
        print(f"  interpreter: {timing_summary(results.interp_times)}")


def list_devices(args: argparse.Namespace) -> int:
    """``--list-devices``: the devices jax gives ``--platform`` (on CPU, ``--devices N`` host devices): a
    header with the platform, its version where jax says it and the count, then per device its id, kind,
    process and memory (``memory_stats()['bytes_limit']`` where the plugin reports it; on CPU the host's
    physical memory, shared by the host devices). Raises HlokitError for a platform jax has no plugin for."""
    import jax  # (after backend.initialize: hlokit.backend has set jax up)

    try:
        if args.devices and args.platform == "cpu":
            backend.set_host_device_count(args.devices)
        backend.initialize(args.platform)
    except BackendError as err:
        raise hlokit.HlokitError(err.diagnostics) from None
    devices = jax.devices(args.platform)
    version = (getattr(devices[0].client, "platform_version", "") or "").strip() if devices else ""
    print(f"platform: {args.platform}  devices: {len(devices)}"
          + (f"  ({version})" if version and version != args.platform else ""))
    host = physical_memory()
    for d in devices:
        try:
            stats = d.memory_stats() or {}
        except Exception:  # (a plugin without memory statistics raises)
            stats = {}
        limit = stats.get("bytes_limit")
        memory = (_gib(limit) if limit else f"{_gib(host)} host memory (shared)" if host and args.platform == "cpu"
                  else "not reported")
        print(f"  {d.id}: {d}  kind: {d.device_kind}  process {d.process_index}  memory: {memory}")
    return 0


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def run(argv: Sequence[str]) -> int:
    """hlokit-run's body: parse the arguments, prepare the program for each engine, run it, report."""
    args = parse_arguments(argv)
    if args.num_processes > 1 and not os.environ.get(_CHILD):
        return run_job_process(argv, args)
    check_arguments(args)
    if args.list_devices:
        return list_devices(args)
    programs = prepare_programs(args)
    results = execute(args, programs)
    return report(args, programs, results)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-run``."""
    return tool_main("hlokit-run", run, argv)


if __name__ == "__main__":
    sys.exit(main())
