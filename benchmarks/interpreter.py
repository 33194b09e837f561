"""Interpreter speed: ``hlokit.interpret`` against jaxlib's C++ reference interpreter and XLA.

For each program (same text, same inputs) it times:

* ``single`` — ``hlokit.interpret(text, args)``: parse + plan + run, what one ``hlokit-run`` pays
  (median of ``--repeat`` runs, after one run that pays the imports);
* ``warm``   — ``hlokit.interpret(module, args)`` on a module parsed once (plan + run);
* ``first``  — the first ``hlokit.interpret(text, args)`` of a fresh process, after ``import hlokit.interpreter``
  (what the first call pays for lazy work: the shared context, first-use tables): the median of
  ``--first-runs`` fresh processes, each given the program's text and inputs in files (no jax imported there);
  ``first/warm`` is its ratio to ``warm`` (target: at most 2x). Each process also times ``import
  hlokit.interpreter`` on top of ``import hlokit`` (printed under the row, ``import``);
* ``eval``   — jaxlib's C++ ``stablehlo.eval_module`` (upstream's element-by-element reference
  interpreter, the anchor), in a subprocess that stays up for the program's rounds (it can abort the
  process; :class:`EvalModule`), timed around the call only (the module is parsed before), with a time
  limit per call (``--eval-timeout``): the median of up to 5 calls (one when a call takes over a second;
  its first call is no slower than the next ones);
* ``xla``    — XLA through ``hlokit.backend.compile``: compile + first run, and a warm run;

and prints the ratios ``eval / single`` and ``eval / warm`` (how many times faster hlokit is than the
C++ reference) and ``single / xla c+r``. It also checks that the three agree (max abs difference).

The speed of a shared machine drifts (2x within minutes was seen, for the C++ anchor as much as for
hlokit), so ``single``, ``warm`` and ``eval`` are measured in ``--rounds`` alternating rounds, each a few
milliseconds long for a small program (one round when ``eval`` takes over 5 s): each ratio is the median of
the rounds' ratios, each time the median of the rounds' times.

Programs: ``mlp``, ``elementwise``, ``loop`` (written here), and the JAX exports of
``examples/interpreter_bench/`` (``export.py`` there writes them and makes their inputs):
``while_20`` / ``while_1000`` (``lax.while_loop`` over a 64-vector), ``scan_lstm`` (``lax.scan`` of an LSTM
cell), ``sorts`` (``lax.sort`` with comparator regions) and ``transformer`` (4 layers, batch 4, sequence
128, width 256, 8 heads, exact GELU).

``--memory``: for each program, a fresh subprocess per engine runs it once and reports its time and peak
RSS (``VmHWM``): ``interp`` (parse + plan + run; the RSS before the run, after imports, parse and
inputs, is the runtime's fixed cost) and ``xla`` (compile + run); next to them the program's largest set
of simultaneously live tensors (the entry function's values by their types, each live from its
definition to its last use, arguments included).

``--phases``: where a single-shot run spends its time (shares of the medians of ``--repeat`` runs, and
those shares of ``single``): ``load`` (MLIR parse and verify in C++, the survey for legalizations),
``plan`` (every block's plan: adapters prepared, constants folded, liveness), ``run`` (walking the
blocks, kernels included), next to ``eval / 10`` (what a 10x target allows in all).

``--first-only``: only the cold-start columns (no ``eval_module``, no XLA): for each program ``first`` (median and
best of ``--first-runs`` fresh processes), ``single``, ``warm`` and ``first/warm`` (of the medians and of the best
first), and ``import hlokit.interpreter`` (median and best); quick enough to repeat (issue 40, item 5).

Run:  python benchmarks/interpreter.py [--only while_20] [--repeat 5] [--rounds 3] [--eval-timeout 120]
      [--first-runs 3] [--memory] [--phases] [--first-only]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import hlokit  # noqa: E402


def mlp(batch: int = 64, d_in: int = 784, hidden: int = 256, d_out: int = 10):
    """A two-layer MLP (dot_general + broadcast bias + relu) on a 64x784 input."""
    text = f"""
func.func @main(%x: tensor<{batch}x{d_in}xf32>, %w1: tensor<{d_in}x{hidden}xf32>, %b1: tensor<{hidden}xf32>,
                %w2: tensor<{hidden}x{d_out}xf32>, %b2: tensor<{d_out}xf32>) -> tensor<{batch}x{d_out}xf32> {{
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<{batch}x{d_in}xf32>, tensor<{d_in}x{hidden}xf32>) -> tensor<{batch}x{hidden}xf32>
  %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<{hidden}xf32>) -> tensor<{batch}x{hidden}xf32>
  %h1 = stablehlo.add %h, %bb1 : tensor<{batch}x{hidden}xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<{batch}x{hidden}xf32>
  %r = stablehlo.maximum %h1, %zero : tensor<{batch}x{hidden}xf32>
  %o = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<{batch}x{hidden}xf32>, tensor<{hidden}x{d_out}xf32>) -> tensor<{batch}x{d_out}xf32>
  %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<{d_out}xf32>) -> tensor<{batch}x{d_out}xf32>
  %y = stablehlo.add %o, %bb2 : tensor<{batch}x{d_out}xf32>
  return %y : tensor<{batch}x{d_out}xf32>
}}
"""
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal((batch, d_in)).astype(np.float32),
        (rng.standard_normal((d_in, hidden)) / 28).astype(np.float32),
        rng.standard_normal(hidden).astype(np.float32),
        (rng.standard_normal((hidden, d_out)) / 16).astype(np.float32),
        rng.standard_normal(d_out).astype(np.float32),
    ]
    return text, args


def elementwise(n: int = 256):
    """A chain of elementwise ops on n x n f32 (whole-array numpy work per op)."""
    t = f"tensor<{n}x{n}xf32>"
    text = f"""
func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.multiply %a, %b : {t}
  %1 = stablehlo.add %0, %a : {t}
  %2 = stablehlo.tanh %1 : {t}
  %3 = stablehlo.exponential %2 : {t}
  %4 = stablehlo.subtract %3, %b : {t}
  %5 = stablehlo.abs %4 : {t}
  %6 = stablehlo.sqrt %5 : {t}
  %c = stablehlo.constant dense<0.5> : {t}
  %7 = stablehlo.maximum %6, %c : {t}
  %8 = stablehlo.divide %7, %c : {t}
  return %8 : {t}
}}
"""
    rng = np.random.default_rng(1)
    return text, [rng.standard_normal((n, n)).astype(np.float32) for _ in range(2)]


def loop(iterations: int = 1000):
    """A while loop of scalar ops (per-op interpretation overhead)."""
    text = f"""
func.func @main(%x: tensor<f32>) -> tensor<f32> {{
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<{iterations}> : tensor<i64>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<f32>
   cond {{
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }} do {{
    %i2 = stablehlo.add %i, %one : tensor<i64>
    %a1 = stablehlo.multiply %acc, %half : tensor<f32>
    %a2 = stablehlo.add %a1, %half : tensor<f32>
    stablehlo.return %i2, %a2 : tensor<i64>, tensor<f32>
  }}
  return %r#1 : tensor<f32>
}}
"""
    return text, [np.array(3.0, np.float32)]


_BENCH_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "interpreter_bench")


def _jax_program(name: str):
    """A JAX export of ``examples/interpreter_bench`` (its text and the inputs its exporter makes)."""

    def make():
        sys.path.insert(0, _BENCH_DIR)
        try:
            import export  # examples/interpreter_bench/export.py
        finally:
            sys.path.remove(_BENCH_DIR)
        with open(os.path.join(_BENCH_DIR, name + ".mlir")) as f:
            return f.read(), list(export.PROGRAMS[name][1])

    make.__doc__ = f"examples/interpreter_bench/{name}.mlir"
    return make


PROGRAMS = {"mlp": mlp, "elementwise": elementwise, "loop": loop}
PROGRAMS.update({n: _jax_program(n) for n in ("while_20", "while_1000", "scan_lstm", "sorts", "transformer")})

_EVAL_SERVER = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _stablehlo
    import hlokit
    d = sys.argv[1]
    ctx = hlokit.make_context()
    with ctx, ir.Location.unknown():
        module = hlokit.parse(open(d + "/prog.mlir").read(), context=ctx)
        data = np.load(d + "/args.npz")
        attrs = [ir.DenseElementsAttr.get(np.asarray(data[f"a{i}"], order="C")) for i in range(len(data.files))]
        print("ready", flush=True)
        out = None
        for line in sys.stdin:
            if line.startswith("save"):
                np.savez(d + "/out.npz", *[np.array(o) for o in out])
                print("saved", flush=True)
                continue
            t0 = time.perf_counter()
            out = _stablehlo.eval_module(module, attrs)
            print(time.perf_counter() - t0, flush=True)
    """
)


class EvalModule:
    """jaxlib's C++ ``stablehlo.eval_module`` on one program and its inputs, in a subprocess that stays up
    (it can abort the process), so that its calls can alternate with hlokit's runs within milliseconds.
    ``call()`` runs it once on the parsed module and returns the seconds around the call; ``results()`` are
    the last call's results. Each step waits at most ``timeout`` seconds. Raises ``RuntimeError`` with the
    reason (a time-out, or the subprocess's last line of stderr) when the subprocess cannot answer; it is
    killed then. Use it as a context manager."""

    def __init__(self, text: str, args, timeout: float):
        self.timeout = timeout
        self._dir = tempfile.TemporaryDirectory()
        d = self._dir.name
        with open(os.path.join(d, "prog.mlir"), "w") as f:
            f.write(text)
        np.savez(os.path.join(d, "args.npz"), **{f"a{i}": a for i, a in enumerate(args)})
        self._stderr = open(os.path.join(d, "stderr"), "w+")
        self._proc = subprocess.Popen([sys.executable, "-c", _EVAL_SERVER, d], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        self._expect("ready")

    def _expect(self, what: str | None = None) -> str:
        ready, _, _ = select.select([self._proc.stdout], [], [], self.timeout)
        line = self._proc.stdout.readline() if ready else None
        if not line or (what is not None and line.strip() != what):
            self.close()
            if line is None:
                raise RuntimeError(f"timed out after {self.timeout:g} s")
            self._stderr.seek(0)
            raise RuntimeError((self._stderr.read().strip().splitlines() or ["failed"])[-1])
        return line

    def call(self) -> float:
        self._proc.stdin.write("run\n")
        self._proc.stdin.flush()
        return float(self._expect())

    def results(self) -> list:
        self._proc.stdin.write("save\n")
        self._proc.stdin.flush()
        self._expect("saved")
        out = np.load(os.path.join(self._dir.name, "out.npz"))
        return [out[k] for k in sorted(out.files, key=lambda k: int(k.split("_")[-1]))]

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stderr.close()
        self._dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def time_eval_module(ev: EvalModule) -> float:
    """The median seconds of up to 5 calls of ``ev`` (one when a call takes over a second; its first call is no
    slower than the next ones)."""
    times = []
    for _ in range(5):
        times.append(ev.call())
        if times[-1] > 1.0:
            break
    return sorted(times)[(len(times) - 1) // 2]


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _max_abs(a, b) -> float:
    return max(float(np.max(np.abs(np.asarray(x, np.float64) - np.asarray(y, np.float64)), initial=0.0)) for x, y in zip(a, b))


def bench(name: str, repeat: int, eval_timeout: float, rounds: int = 3, first_runs: int = 3) -> dict:
    text, args = PROGRAMS[name]()
    first = measure_first_call(text, args, first_runs)  # (fresh processes: before this one runs anything)
    ours = hlokit.interpret(text, args)  # also pays the imports and first-use costs
    module = hlokit.parse(text, context=hlokit.make_context())
    singles, warms, evals = [], [], []
    eval_out = why = None
    try:
        with EvalModule(text, args, eval_timeout) as ev:
            for _ in range(max(rounds, 1)):
                singles.append(_median_time(lambda: hlokit.interpret(text, args), repeat))
                warms.append(_median_time(lambda: hlokit.interpret(module, args), repeat))
                evals.append(time_eval_module(ev))
                if evals[-1] > 5.0:  # (a slow anchor: one round is precise enough)
                    break
            eval_out = ev.results()
    except RuntimeError as err:
        why = str(err)
        evals = []
    if not singles:
        singles.append(_median_time(lambda: hlokit.interpret(text, args), repeat))
        warms.append(_median_time(lambda: hlokit.interpret(module, args), repeat))

    from hlokit import backend

    t0 = time.perf_counter()
    exe = backend.compile(text)
    xla_first = exe(*args)
    t_compile_run = time.perf_counter() - t0
    t_xla = _median_time(lambda: exe(*args), max(repeat, 5))

    row = {
        "program": name, "single_s": statistics.median(singles), "warm_s": statistics.median(warms), **first,
        "eval_module_s": statistics.median(evals) if evals else None, "rounds": len(singles),
        "eval_over_single": statistics.median([e / t for e, t in zip(evals, singles)]) if evals else None,
        "eval_over_warm": statistics.median([e / t for e, t in zip(evals, warms)]) if evals else None,
        "xla_compile_run_s": t_compile_run, "xla_run_s": t_xla, "eval_note": why,
        "max_abs_diff_vs_xla": _max_abs(ours, xla_first),
    }
    if eval_out is not None:
        row["max_abs_diff_vs_eval"] = _max_abs(ours, eval_out)
    return row


_FIRST_CALL_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import numpy as np
    import hlokit
    t0 = time.perf_counter()
    import hlokit.interpreter
    t1 = time.perf_counter()
    d = sys.argv[1]
    text = open(d + "/prog.mlir").read()
    data = np.load(d + "/args.npz")
    args = [data[f"a{i}"] for i in range(len(data.files))]
    t2 = time.perf_counter()
    hlokit.interpret(text, args)
    t3 = time.perf_counter()
    print(json.dumps({"import_s": t1 - t0, "first_s": t3 - t2}))
    """
)


def measure_first_call(text: str, args, runs: int = 3) -> dict:
    """The first ``hlokit.interpret(text, args)`` of a fresh process (after ``import hlokit.interpreter``,
    untimed) and that import on top of ``import hlokit``: medians and all values over ``runs`` processes, in
    seconds. The processes may write bytecode (``PYTHONDONTWRITEBYTECODE`` unset), and one untimed process runs
    first: the imports read compiled modules, as an installed package's do (with stale or absent ``.pyc`` files
    each process would compile the sources it imports, several milliseconds). Raises ``RuntimeError`` with the
    last line of stderr when a process fails."""
    firsts, imports = [], []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "prog.mlir"), "w") as f:
            f.write(text)
        np.savez(os.path.join(d, "args.npz"), **{f"a{i}": a for i, a in enumerate(args)})
        for k in range(max(runs, 1) + 1):
            p = subprocess.run([sys.executable, "-c", _FIRST_CALL_SCRIPT, d], capture_output=True, text=True, env=env)
            if p.returncode != 0:
                raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
            if k == 0:  # (the untimed process: bytecode written)
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            firsts.append(r["first_s"])
            imports.append(r["import_s"])
    return {"first_s": statistics.median(firsts), "first_all_s": firsts,
            "import_s": statistics.median(imports), "import_all_s": imports}


_MEMORY_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import numpy as np
    import hlokit

    def hwm_kib():  # VmHWM: this process's peak RSS (ru_maxrss would include the parent's, kept over exec)
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])

    d, engine = sys.argv[1], sys.argv[2]
    text = open(d + "/prog.mlir").read()
    data = np.load(d + "/args.npz")
    args = [data[f"a{i}"] for i in range(len(data.files))]
    if engine == "interp":
        hlokit.parse(text, context=hlokit.make_context())  # the fixed cost includes one parse
        fixed = hwm_kib()
        t0 = time.perf_counter()
        hlokit.interpret(text, args)
    else:
        from hlokit import backend
        fixed = hwm_kib()
        t0 = time.perf_counter()
        backend.compile(text)(*args)
    t1 = time.perf_counter()
    print(json.dumps({"seconds": t1 - t0, "fixed_kib": fixed, "peak_kib": hwm_kib()}))
    """
)


def measure_memory(text: str, args, engine: str) -> dict:
    """Time and peak RSS of one run in a fresh subprocess: ``engine`` is ``interp`` (hlokit.interpret on the
    text: parse + plan + run) or ``xla`` (compile + run); ``fixed_kib`` is the peak RSS before the run."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "prog.mlir"), "w") as f:
            f.write(text)
        np.savez(os.path.join(d, "args.npz"), **{f"a{i}": a for i, a in enumerate(args)})
        p = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, d, engine], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
        return json.loads(p.stdout.strip().splitlines()[-1])


def peak_live_bytes(text: str) -> int:
    """The program's largest set of simultaneously live tensors, in bytes: the entry function's block
    arguments and op results by their types, each live from its definition to its last use (a use inside
    a nested region counts at the op that holds the region; the terminator's operands live to the end)."""
    from jaxlib.mlir import ir

    from hlokit.interpreter.values import dtype_of

    module = hlokit.parse(text, context=hlokit.make_context())
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    main = next((f for f in funcs if str(f.attributes["sym_name"]).strip('"') == "main"), funcs[0])
    block = main.regions[0].blocks[0]
    ops = list(block.operations)

    def nbytes(v) -> int:
        t = v.type
        if not isinstance(t, ir.RankedTensorType):
            return 0
        return int(np.prod(t.shape, dtype=np.int64)) * dtype_of(t.element_type).itemsize

    def uses(op, out):
        out.extend(op.operands)
        for r in op.regions:
            for b in r.blocks:
                for inner in b.operations:
                    uses(inner, out)

    last = {}
    for i, op in enumerate(ops):
        vs: list = []
        uses(op, vs)
        for v in vs:
            last[v] = i
    live = {a: nbytes(a) for a in block.arguments}
    peak = sum(live.values())
    for i, op in enumerate(ops):
        for r in op.results:
            live[r] = nbytes(r)
        peak = max(peak, sum(live.values()))
        for v in [v for v in live if last.get(v, -1) <= i]:
            del live[v]
    return peak


def phases(name: str, repeat: int) -> dict:
    """Median seconds of the phases of a single-shot ``hlokit.interpret`` of program ``name``: ``load``
    (text -> verified module -> Interpreter), ``plan`` (the entry function's block and the blocks nested in
    it), ``run`` (the call, on the plans made). Uses the interpreter's internals (``api._load_for_run``,
    ``CompiledExecutor.plan_of_block``): the split, not the sum, is what this measures."""
    from hlokit.interpreter import api

    text, args = PROGRAMS[name]()
    hlokit.interpret(text, args)
    times: dict[str, list[float]] = {"load": [], "plan": [], "run": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        interp = api._load_for_run(text)
        fname = api.entry_function(interp)
        t1 = time.perf_counter()
        with np.errstate(all="ignore"):
            interp.executor.plan_of_block(interp.functions[fname].operation.regions[0].blocks[0], interp)
        t2 = time.perf_counter()
        interp.call(fname, [api.as_value(x) for x in args])
        t3 = time.perf_counter()
        times["load"].append(t1 - t0)
        times["plan"].append(t2 - t1)
        times["run"].append(t3 - t2)
    return {k: statistics.median(v) for k, v in times.items()}


def bench_first(name: str, repeat: int, first_runs: int) -> dict:
    """The cold-start columns of program ``name`` (``--first-only``): :func:`measure_first_call`, then ``single``
    and ``warm`` (medians of ``repeat`` runs) in this process."""
    text, args = PROGRAMS[name]()
    first = measure_first_call(text, args, first_runs)
    hlokit.interpret(text, args)
    module = hlokit.parse(text, context=hlokit.make_context())
    single = _median_time(lambda: hlokit.interpret(text, args), repeat)
    warm = _median_time(lambda: hlokit.interpret(module, args), repeat)
    return {"program": name, "single_s": single, "warm_s": warm, **first}


def main_first(names, repeat: int, first_runs: int, as_json: bool) -> int:
    """``--first-only``: one row per program (see the module doc)."""
    print(f"{'program':12s} {'first':>9s} {'best':>9s} {'single':>9s} {'warm':>9s} {'first/warm':>10s} "
          f"{'best/warm':>9s} {'import':>9s} {'best':>9s}")
    for name in names:
        r = bench_first(name, repeat, first_runs)
        if as_json:
            print(json.dumps(r))
        best = min(r["first_all_s"])
        print(f"{name:12s} {r['first_s'] * 1e3:7.2f}ms {best * 1e3:7.2f}ms {r['single_s'] * 1e3:7.2f}ms "
              f"{r['warm_s'] * 1e3:7.2f}ms {r['first_s'] / r['warm_s']:9.2f}x {best / r['warm_s']:8.2f}x "
              f"{r['import_s'] * 1e3:7.2f}ms {min(r['import_all_s']) * 1e3:7.2f}ms")
        print("             first " + "/".join(f"{t * 1e3:.2f}" for t in r["first_all_s"]) + " ms; import "
              + "/".join(f"{t * 1e3:.2f}" for t in r["import_all_s"]) + " ms")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(PROGRAMS), action="append")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--eval-timeout", type=float, default=120.0)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of hlokit and eval_module timings")
    ap.add_argument("--first-runs", type=int, default=3, help="fresh processes timing the first call (median)")
    ap.add_argument("--memory", action="store_true", help="also time and measure peak RSS in fresh subprocesses")
    ap.add_argument("--phases", action="store_true", help="also split the single-shot time into load / plan / run")
    ap.add_argument("--json", action="store_true", help="print one JSON object per program")
    ap.add_argument("--first-only", action="store_true",
                    help="only the cold-start columns: first call in fresh processes, single, warm, import")
    a = ap.parse_args(argv)
    names = a.only or list(PROGRAMS)
    if a.first_only:
        return main_first(names, a.repeat, a.first_runs, a.json)
    print(f"{'program':12s} {'first':>9s} {'single':>9s} {'warm':>9s} {'first/warm':>10s} {'eval_module':>11s} {'xla c+r':>9s} {'xla run':>9s} "
          f"{'eval/single':>11s} {'eval/warm':>10s} {'single/xla c+r':>15s}")
    for name in names:
        r = bench(name, a.repeat, a.eval_timeout, a.rounds, a.first_runs)
        if a.phases:
            r["phases"] = phases(name, max(a.repeat, 5))
        if a.memory:
            text, args = PROGRAMS[name]()
            r["live_peak_bytes"] = peak_live_bytes(text)
            r["memory"] = {engine: measure_memory(text, args, engine) for engine in ("interp", "xla")}
        if a.json:
            print(json.dumps(r))
        ev = f"{r['eval_module_s']:.4f}s" if r["eval_module_s"] is not None else "n/a"

        def speedup(which, t):
            if r["eval_module_s"] is None:
                return f"> {a.eval_timeout / t:.0f}x"
            return f"{r['eval_over_' + which]:.1f}x"

        print(f"{name:12s} {r['first_s']:8.4f}s {r['single_s']:8.4f}s {r['warm_s']:8.4f}s "
              f"{r['first_s'] / r['warm_s']:9.1f}x {ev:>11s} {r['xla_compile_run_s']:8.4f}s "
              f"{r['xla_run_s']:8.5f}s {speedup('single', r['single_s']):>11s} {speedup('warm', r['warm_s']):>10s} "
              f"{r['single_s'] / r['xla_compile_run_s']:14.2f}x")
        notes = [f"max|hlokit-xla|={r['max_abs_diff_vs_xla']:.3g}",
                 "first " + "/".join(f"{t * 1e3:.1f}" for t in r["first_all_s"]) + " ms; import hlokit.interpreter "
                 + "/".join(f"{t * 1e3:.1f}" for t in r["import_all_s"]) + " ms"]
        if "max_abs_diff_vs_eval" in r:
            notes.append(f"max|hlokit-eval|={r['max_abs_diff_vs_eval']:.3g}")
        if r["eval_note"]:
            notes.append(f"eval_module: {r['eval_note']}")
        print("             " + "; ".join(notes))
        if a.phases:
            ph = r["phases"]
            total = sum(ph.values())
            # (shares: measured after the rounds, the machine's speed may differ; the shares hold)
            split = ", ".join(f"{k} {v / total:.0%} ({v / total * r['single_s'] * 1e3:.3f} ms)" for k, v in ph.items())
            budget = f"; eval / 10 = {r['eval_module_s'] * 100:.3f} ms" if r["eval_module_s"] is not None else ""
            print(f"             phases of single: {split}{budget}")
        if a.memory:
            mi, mx = r["memory"]["interp"], r["memory"]["xla"]
            live = r["live_peak_bytes"] / 2**20
            fixed = mi["fixed_kib"] / 1024
            peak = mi["peak_kib"] / 1024
            print(f"             fresh process: interp {mi['seconds']:.3f}s peak RSS {peak:.0f} MiB (fixed {fixed:.0f} MiB, "
                  f"largest live set {live:.1f} MiB: (peak - fixed) / live = {(peak - fixed) / max(live, 1e-9):.2f}); "
                  f"xla c+r {mx['seconds']:.3f}s peak RSS {mx['peak_kib'] / 1024:.0f} MiB; "
                  f"interp / xla c+r = {mi['seconds'] / mx['seconds']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
