"""hlokit-run: parse and verify a StableHLO program, compile it with XLA, run it, report its outputs.

    hlokit-run PROGRAM.mlir [--inputs in.npz] [--output out.npz] [--function main] [--platform cpu]
               [--seed 0] [--repeat 1] [--devices N]
               [--num-processes P --process-id I --coordinator HOST:PORT]

Inputs come from ``--inputs`` (an ``.npz`` with keys ``arg_0``, ``arg_1``, ... in argument order) or, without
it, are seeded random arrays of the signature's shapes and element types. Prints, per output, its shape,
dtype, min/max/mean and NaN count, then the parse / compile / run times (run: median of ``--repeat``).

Multi-device programs (``mhlo.num_partitions`` / ``mhlo.num_replicas`` > 1) run on that many XLA devices
(on CPU, ``--devices N`` host devices, default what the program needs); inputs and outputs are global arrays,
with a leading replica axis for multi-replica programs (see :class:`hlokit.backend.Executable`).
``--num-processes`` / ``--process-id`` / ``--coordinator`` run one process of a multi-process job through
``jax.distributed``; process 0 prints and writes the outputs.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import time
from typing import Sequence

import numpy as np

import hlokit
from hlokit.backend import BackendError, Executable, TensorSpec, compile, initialize, prepare_devices
from hlokit.tools.common import read_text, source_name, tool_main, write_output


def random_input(spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    """A seeded random array for ``spec``: normal floats, small ints (|x| <= 10), random bools."""
    dt = spec.dtype
    if dt == np.bool_:
        return rng.integers(0, 2, size=spec.shape).astype(np.bool_)
    if np.issubdtype(dt, np.complexfloating):
        return (rng.standard_normal(spec.shape) + 1j * rng.standard_normal(spec.shape)).astype(dt)
    small = {"int2": (-2, 2), "int4": (-8, 8), "uint2": (0, 4), "uint4": (0, 16)}
    if dt.name in small:
        lo, hi = small[dt.name]
        return rng.integers(lo, hi, size=spec.shape).astype(dt)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -10
        return rng.integers(lo, 11, size=spec.shape).astype(dt)
    return rng.standard_normal(spec.shape).astype(dt)


def load_inputs(path: str, specs: list[TensorSpec]) -> list[np.ndarray]:
    """Read ``arg_0``, ``arg_1``, ... from an ``.npz``; HlokitError for a missing/extra/mistyped input."""
    try:
        npz = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise hlokit.HlokitError(f"cannot read inputs: {exc}", file=path) from None
    with npz:
        keys = set(npz.files)
        expected = [f"arg_{i}" for i in range(len(specs))]
        missing = [k for k in expected if k not in keys]
        extra = sorted(keys - set(expected))
        if missing:
            want = ", ".join(f"{k} ({specs[int(k[4:])]})" for k in missing)
            raise hlokit.HlokitError(f"missing input(s) {want}; the program takes {len(specs)} argument(s)", file=path)
        if extra:
            raise hlokit.HlokitError(
                f"unexpected input(s) {', '.join(extra)}: the program takes {len(specs)} argument(s) "
                f"(arg_0..arg_{len(specs) - 1})" if specs else f"unexpected input(s) {', '.join(extra)}: the program takes no arguments",
                file=path,
            )
        out = []
        for k, spec in zip(expected, specs):
            a = npz[k]
            if a.dtype.kind == "V" and a.dtype.itemsize == spec.dtype.itemsize:
                a = a.view(spec.dtype)  # ml_dtypes arrays (bf16, f8, ...) come back from .npz as raw bytes
            if a.dtype != spec.dtype:
                raise hlokit.HlokitError(f"input {k}: expected element type {spec.dtype} ({spec}) but got {a.dtype}", file=path)
            if tuple(a.shape) != spec.shape:
                raise hlokit.HlokitError(f"input {k}: expected shape {spec.shape} ({spec}) but got {tuple(a.shape)}", file=path)
            out.append(a)
        return out


def summarize(a: np.ndarray) -> str:
    """One line: shape, dtype, min / max / mean, NaN count."""
    shape = "x".join(map(str, a.shape)) or "scalar"
    if a.size == 0:
        return f"shape={shape} dtype={a.dtype} (empty)"
    if np.issubdtype(a.dtype, np.complexfloating):
        mag = np.abs(a)
        nans = int(np.isnan(a).sum())
        return f"shape={shape} dtype={a.dtype} |min|={mag.min():.6g} |max|={mag.max():.6g} mean={a.mean():.6g} nan={nans}"
    f = a.astype(np.float64)
    nans = int(np.isnan(f).sum())
    finite = f[~np.isnan(f)]
    if finite.size == 0:
        return f"shape={shape} dtype={a.dtype} all NaN nan={nans}"
    return (
        f"shape={shape} dtype={a.dtype} min={finite.min():.6g} max={finite.max():.6g} "
        f"mean={finite.mean():.6g} nan={nans}"
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlokit-run",
        allow_abbrev=False,
        description="Parse, verify, compile with XLA and run a StableHLO program; report its outputs.",
    )
    p.add_argument("program", help="MLIR file (text or bytecode; '-' = stdin)")
    p.add_argument("--inputs", metavar="IN.npz", help="inputs: .npz with keys arg_0, arg_1, ... (default: seeded random)")
    p.add_argument("--output", metavar="OUT.npz", help="write the outputs to an .npz (keys output_0, ...)")
    p.add_argument("--function", default="main", help="entry function (default: main)")
    p.add_argument("--platform", default="cpu", choices=["cpu", "cuda", "rocm", "tpu"], help="XLA platform (default: cpu)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default: 0)")
    p.add_argument("--repeat", type=int, default=1, help="run N times, report the median run time")
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


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if args.num_processes > 1 and not os.environ.get(_CHILD):
        return run_job_process(argv, args)
    if args.repeat < 1:
        raise hlokit.HlokitError("--repeat must be at least 1")
    t0 = time.perf_counter()
    ctx = hlokit.make_context()
    name = source_name(args.program)
    module = hlokit.parse(read_text(args.program), context=ctx, source_name=name)
    t_parse = time.perf_counter() - t0

    t0 = time.perf_counter()
    try:
        prepare_devices(module, args.platform, args.devices, args.num_processes, args.process_id,
                        args.coordinator, args.timeout)
        initialize(args.platform)
        t_init = time.perf_counter() - t0
        t0 = time.perf_counter()
        exe: Executable = compile(module, args.platform, function=args.function,
                                  devices=None if args.num_processes > 1 else args.devices)
    except BackendError as err:
        raise hlokit.HlokitError(err.diagnostics, file=name) from None
    t_compile = time.perf_counter() - t0

    if args.inputs:
        inputs = load_inputs(args.inputs, exe.in_specs)
    else:
        rng = np.random.default_rng(args.seed)
        inputs = [random_input(s, rng) for s in exe.in_specs]

    times = []
    buffers = exe.put(inputs)
    outputs = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        device_outs = exe.execute(buffers)
        outputs = exe.fetch(device_outs)
        times.append(time.perf_counter() - t0)

    if args.process_id != 0:
        return 0  # process 0 reports and writes the outputs
    source = "random (seed %d)" % args.seed if not args.inputs else args.inputs
    print(f"program: {name}  function: @{args.function}  platform: {args.platform}  inputs: {source}")
    for i, (a, spec) in enumerate(zip(inputs, exe.in_specs)):
        print(f"  arg_{i}: {spec}")
    if exe.multi_device:
        print(exe.layout())
    for i, o in enumerate(outputs):
        print(f"output_{i}: {summarize(o)}")
    print(
        f"time: parse {t_parse * 1e3:.2f} ms, XLA start-up {t_init * 1e3:.2f} ms, compile {t_compile * 1e3:.2f} ms, "
        f"run {statistics.median(times) * 1e3:.3f} ms (median of {args.repeat})"
    )
    if args.output:
        buf = io.BytesIO()
        np.savez(buf, **{f"output_{i}": o for i, o in enumerate(outputs)})
        write_output(args.output, buf.getvalue())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point of ``hlokit-run``."""
    return tool_main("hlokit-run", run, argv)


if __name__ == "__main__":
    sys.exit(main())
