"""Interpreter speed: ``hlokit.interpret`` against jaxlib's C++ reference interpreter and XLA.

For each program (same text, same inputs) it times:

* ``hlokit``  — ``hlokit.interpret`` (the module parsed once; median of ``--repeat`` runs);
* ``eval``    — jaxlib's C++ ``stablehlo.eval_module`` (upstream's element-by-element reference
  interpreter), in a subprocess (it can abort the process), timed around the call only, once,
  with a time limit (``--eval-timeout``);
* ``xla``     — XLA through ``hlokit.backend.compile``: compile + first run, and a warm run.

and prints the times and the ratios ``eval / hlokit`` (how many times faster hlokit is than the C++
reference) and ``hlokit / xla-run`` (how many times slower than compiled code). It also checks that
the three agree (max abs difference).

Run:  python benchmarks/interpreter.py [--only mlp] [--repeat 5] [--eval-timeout 120]
"""

from __future__ import annotations

import argparse
import json
import os
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


PROGRAMS = {"mlp": mlp, "elementwise": elementwise, "loop": loop}

_EVAL_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
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
        t0 = time.perf_counter()
        out = _stablehlo.eval_module(module, attrs)
        t1 = time.perf_counter()
        res = [np.array(o) for o in out]
    np.savez(d + "/out.npz", *res)
    print(json.dumps({"seconds": t1 - t0}))
    """
)


def time_eval_module(text: str, args, timeout: float):
    """Seconds of jaxlib's ``stablehlo.eval_module`` on the program (subprocess), its results, or None."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "prog.mlir"), "w") as f:
            f.write(text)
        np.savez(os.path.join(d, "args.npz"), **{f"a{i}": a for i, a in enumerate(args)})
        try:
            p = subprocess.run([sys.executable, "-c", _EVAL_SCRIPT, d], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None, f"timed out after {timeout:.0f} s"
        if p.returncode != 0:
            return None, None, (p.stderr.strip().splitlines() or ["failed"])[-1]
        secs = json.loads(p.stdout.strip().splitlines()[-1])["seconds"]
        out = np.load(os.path.join(d, "out.npz"))
        return secs, [out[k] for k in sorted(out.files)], None


def bench(name: str, repeat: int, eval_timeout: float) -> dict:
    text, args = PROGRAMS[name]()
    module = hlokit.parse(text, context=hlokit.make_context())
    hlokit.interpret(module, args)  # warm (plans, imports)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours = hlokit.interpret(module, args)
        times.append(time.perf_counter() - t0)
    t_ours = statistics.median(times)

    from hlokit import backend

    t0 = time.perf_counter()
    exe = backend.compile(text)
    xla_first = exe(*args)
    t_compile_run = time.perf_counter() - t0
    runs = []
    for _ in range(max(repeat, 5)):
        t0 = time.perf_counter()
        exe(*args)
        runs.append(time.perf_counter() - t0)
    t_xla = statistics.median(runs)

    t_eval, eval_out, why = time_eval_module(text, args, eval_timeout)
    row = {
        "program": name, "hlokit_s": t_ours, "eval_module_s": t_eval, "xla_compile_run_s": t_compile_run,
        "xla_run_s": t_xla, "eval_note": why,
        "max_abs_diff_vs_xla": float(np.max(np.abs(ours[0].astype(np.float64) - xla_first[0].astype(np.float64)))),
    }
    if eval_out is not None:
        row["max_abs_diff_vs_eval"] = float(np.max(np.abs(ours[0].astype(np.float64) - eval_out[0].astype(np.float64))))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(PROGRAMS), action="append")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--eval-timeout", type=float, default=120.0)
    ap.add_argument("--json", action="store_true", help="print one JSON object per program")
    a = ap.parse_args(argv)
    names = a.only or list(PROGRAMS)
    print(f"{'program':12s} {'hlokit':>10s} {'eval_module':>12s} {'xla c+r':>10s} {'xla run':>10s} "
          f"{'eval/hlokit':>12s} {'hlokit/xla':>11s} {'hlokit/xla c+r':>15s}")
    for name in names:
        r = bench(name, a.repeat, a.eval_timeout)
        if a.json:
            print(json.dumps(r))
        ev = f"{r['eval_module_s']:.4f}s" if r["eval_module_s"] is not None else "n/a"
        speedup = f"{r['eval_module_s'] / r['hlokit_s']:.1f}x" if r["eval_module_s"] is not None else f"> {a.eval_timeout / r['hlokit_s']:.0f}x"
        print(f"{name:12s} {r['hlokit_s']:9.4f}s {ev:>12s} {r['xla_compile_run_s']:9.4f}s {r['xla_run_s']:9.5f}s "
              f"{speedup:>12s} {r['hlokit_s'] / r['xla_run_s']:10.1f}x {r['hlokit_s'] / r['xla_compile_run_s']:14.2f}x")
        notes = [f"max|hlokit-xla|={r['max_abs_diff_vs_xla']:.3g}"]
        if "max_abs_diff_vs_eval" in r:
            notes.append(f"max|hlokit-eval|={r['max_abs_diff_vs_eval']:.3g}")
        if r["eval_note"]:
            notes.append(f"eval_module: {r['eval_note']}")
        print("             " + "; ".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
