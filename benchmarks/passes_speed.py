"""Speed of hlokit's Python legalization passes against jaxlib's C++ passes of the same flags.

    python benchmarks/passes_speed.py [--ops 10000] [--repeat 3] [--passes chlo,shape,deprecated,model]
    python benchmarks/passes_speed.py --breakdown [--ops 10000]     # where our time goes, in one process

For each pass, a generated program of N and 2N ops (and, for ``chlo``, a real model lowered by jax) is
run through the whole process — start-up, parse, pass, verification,
print — of

* ours:     ``hlokit-opt --FLAG IN -o OUT`` (a subprocess);
* upstream: a Python subprocess that parses with jaxlib, runs jaxlib's C++ pass of that flag and prints
  (an oracle only, never used by hlokit itself).

The programs (each a mix of what the pass rewrites):

* ``chlo`` (``--chlo-legalize-to-stablehlo``): :func:`chlo_speed.make_module`, every elementwise CHLO op
  over f32 / f64 / f16 / bf16 / complex, the broadcast family, ``top_k``, ``constant_like``;
* ``model`` (the same flag): a hyperbolic MLP with exact GELU and top-2 gates as ``jax.jit(...).lower``
  writes it (N ops in all, one in ten a CHLO op: erf, erfc, atanh, acosh, asinh, sinh, cosh, asin, acos,
  top_k);
* ``shape`` (``--shape-legalize-to-stablehlo``): blocks of ``shape.shape_of``, ``shape.broadcast``,
  ``shape.num_elements``, ``tensor.dim`` / ``extract`` / ``from_elements`` and ``arith`` on ``index``
  feeding ``dynamic_broadcast_in_dim`` / ``dynamic_reshape`` (the shape computations of a dynamic
  broadcast, in the subset that jaxlib's C++ pass accepts: it refuses ``shape.cstr_*`` and ``get_extent``);
* ``deprecated`` (``--stablehlo-legalize-deprecated-ops``): ``dot``, ``broadcast``, ``create_token``,
  ``cross-replica-sum``, ``einsum``, ``unary_einsum``, ``torch_index_select`` (jaxlib's pass keeps
  ``einsum`` and ``torch_index_select``: the "left" column counts the deprecated ops each output keeps).

Prints, per program, the best-of-``repeat`` wall times (the four runs of a pass interleaved, so that the
load of a shared machine hits both sides alike) with their spread (max - min), the ratio ours / upstream
(and the ratio of the best CPU times, user + system, which a loaded machine disturbs less), the output's op count of
each side, and the scaling time(2N) / time(N) of ours (target <= 2.1). ``--breakdown`` times ours in one
process by phase: import, parse, find, plan (check + build + parse the templates), instantiate (clone,
move, rewire, erase), verify, print.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chlo_speed  # noqa: E402  (the CHLO program generator)

FLAGS = {"chlo": "chlo-legalize-to-stablehlo", "model": "chlo-legalize-to-stablehlo",
         "shape": "shape-legalize-to-stablehlo", "deprecated": "stablehlo-legalize-deprecated-ops"}

UPSTREAM_SCRIPT = r"""
import sys
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _chlo, _stablehlo, _jax_mlir_ext
ctx = ir.Context()
reg = ir.DialectRegistry(); _jax_mlir_ext.register_dialects(reg); ctx.append_dialect_registry(reg)
_stablehlo.register_dialect(ctx); _chlo.register_dialect(ctx)
ctx.load_all_available_dialects()
_stablehlo.register_stablehlo_passes()
with ctx:
    m = ir.Module.parse(open(sys.argv[2]).read())
    if sys.argv[1] != "none":  # (flag "none": start-up, parse and print only; benchmarks/passes_floor.py)
        pm = passmanager.PassManager.parse(f"builtin.module(func.func({sys.argv[1]}))")
        pm.run(m.operation)
    with open(sys.argv[3], "w") as f:
        f.write(str(m))
"""

# -- generated programs ------------------------------------------------------------------------------

_SHAPE_BLOCK = """\
  %sx{i} = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %s{i} = shape.broadcast %sx{i}, %sy : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
  %bx{i} = stablehlo.dynamic_broadcast_in_dim %x, %s{i}, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %n{i} = shape.num_elements %s{i} : tensor<2xindex> -> index
  %d{i} = tensor.dim %z, %c{k} : tensor<?x?xf32>
  %m{i} = arith.muli %n{i}, %d{i} : index
  %a{i} = arith.addi %m{i}, %d{i} : index
  %e{i} = tensor.extract %sx{i}[%c0] : tensor<2xindex>
  %f{i} = tensor.from_elements %e{i}, %c4 : tensor<2xindex>
  %r{i} = stablehlo.dynamic_reshape %bx{i}, %f{i} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %g{i} = tensor.extract %s{i}[%c1] : tensor<2xindex>
  %h{i} = arith.subi %a{i}, %g{i} : index
  %q{i} = arith.divsi %h{i}, %a{i} : index
  %i{i} = arith.index_cast %q{i} : index to i32
  %t{i} = arith.maxsi %e{i}, %g{i} : index
  %u{i} = tensor.from_elements %t{i}, %c4 : tensor<2xindex>
  %w{i} = stablehlo.dynamic_broadcast_in_dim %r{i}, %u{i}, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %v{i} = stablehlo.add %w{i}, %bx{i} : tensor<?x4xf32>
"""
_SHAPE_BLOCK_OPS = _SHAPE_BLOCK.count("\n")


def make_shape_module(n_ops: int) -> str:
    """A ``func.func @main`` of about ``n_ops`` ops: repeated shape computations of a dynamic broadcast."""
    lines = ["func.func @main(%x: tensor<?x4xf32>, %y: tensor<4xf32>, %z: tensor<?x?xf32>) -> tensor<?x4xf32> {",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index", "  %c4 = arith.constant 4 : index",
             "  %sy = shape.shape_of %y : tensor<4xf32> -> tensor<1xindex>"]
    blocks = max(1, n_ops // _SHAPE_BLOCK_OPS)
    for i in range(blocks):
        lines.append(_SHAPE_BLOCK.format(i=i, k=i % 2).rstrip("\n"))
    lines.append(f"  return %v{blocks - 1} : tensor<?x4xf32>\n}}")
    return "\n".join(lines) + "\n"


_DEPRECATED = [
    '%r{i} = "stablehlo.dot"(%a, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>',
    '%r{i} = "stablehlo.dot"(%v, %b) : (tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>',
    '%r{i} = "stablehlo.broadcast"(%v) {{broadcast_sizes = array<i64: 2, 3>}} : (tensor<16xf32>) -> tensor<2x3x16xf32>',
    '%r{i} = "stablehlo.broadcast"(%a) {{broadcast_sizes = array<i64: 5>}} : (tensor<8x16xf32>) -> tensor<5x8x16xf32>',
    '%r{i} = "stablehlo.create_token"() : () -> !stablehlo.token',
    '%r{i} = "stablehlo.cross-replica-sum"(%v) {{replica_groups = dense<[[0]]> : tensor<1x1xi64>}} : '
    '(tensor<16xf32>) -> tensor<16xf32>',
    '%r{i} = "stablehlo.einsum"(%a, %b) {{einsum_config = "ij,jk->ik"}} : (tensor<8x16xf32>, tensor<16x4xf32>) '
    '-> tensor<8x4xf32>',
    '%r{i} = "stablehlo.unary_einsum"(%a) {{einsum_config = "ij->j"}} : (tensor<8x16xf32>) -> tensor<16xf32>',
    '%r{i} = "stablehlo.torch_index_select"(%a, %idx) {{dim = 0 : i64, batch_dims = 0 : i64}} : '
    '(tensor<8x16xf32>, tensor<3xi32>) -> tensor<3x16xf32>',
]


def make_deprecated_module(n_ops: int) -> str:
    """A ``func.func @main`` with ``n_ops`` deprecated StableHLO ops (a fixed cycle over the mix)."""
    lines = ["func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %v: tensor<16xf32>, %idx: tensor<3xi32>) "
             "-> tensor<16xf32> {"]
    for i in range(n_ops):
        lines.append("  " + _DEPRECATED[i % len(_DEPRECATED)].format(i=i))
    lines.append("  return %v : tensor<16xf32>\n}")
    return "\n".join(lines) + "\n"


_MODEL_SCRIPT = r"""
import sys
import jax, jax.numpy as jnp
from jax import lax
layers = int(sys.argv[1])
def model(x, ws, c):
    # a hyperbolic (Poincare-ball) MLP with exact GELU and top-2 routing: per layer a matmul, GELU (erf),
    # the ball's exp / log maps and distance (atanh, tanh, acosh, asinh), sinh / cosh features and
    # lax.top_k gates: the CHLO ops jax emits (erf, atanh, acosh, asinh, sinh, cosh, top_k, asin, acos)
    for i in range(layers):
        h = x @ ws[i % ws.shape[0]]
        g = jax.nn.gelu(h, approximate=False)
        n = jnp.sqrt(jnp.sum(g * g, axis=-1, keepdims=True) + 1e-6)
        ball = jnp.tanh(n) * g / n                              # exp map at 0
        back = jnp.arctanh(jnp.clip(n * 0.5, -0.9, 0.9)) * ball  # log map
        d = jnp.arccosh(1.0 + 2.0 * jnp.sum((ball - back) ** 2, axis=-1, keepdims=True) + 1e-3)
        top, _ = lax.top_k(h, 2)
        gate = jnp.sum(top, axis=-1, keepdims=True)
        x = (back + 0.01 * jnp.arcsinh(h) * jnp.cosh(0.1 * d) + 0.01 * jnp.sinh(0.1 * gate)
             + 0.01 * jnp.arcsin(jnp.tanh(c)) * jnp.arccos(jnp.tanh(h)))
    return x
args = (jax.ShapeDtypeStruct((8, 32), jnp.float32), jax.ShapeDtypeStruct((4, 32, 32), jnp.float32),
        jax.ShapeDtypeStruct((8, 32), jnp.float32))
# (jax.jit(...).lower: the CHLO ops as jax emits them; jax.export would wrap each in a stablehlo.composite whose
# decomposition jax has already written out)
sys.stdout.write(jax.jit(model).lower(*args).as_text())
"""


def make_model_module(n_ops: int) -> str:
    """The model of ``_MODEL_SCRIPT`` as jax lowers it (``jax.jit(model).lower(...)``: its CHLO ops kept),
    with enough layers for about ``n_ops`` ops in all (about one in ten a CHLO op)."""
    def export(layers):
        proc = subprocess.run([sys.executable, "-c", _MODEL_SCRIPT, str(layers)], capture_output=True, text=True,
                              env={**os.environ, "JAX_PLATFORMS": "cpu"})
        if proc.returncode != 0:
            raise SystemExit(f"model export failed:\n{proc.stderr[-2000:]}")
        return proc.stdout
    per_layer = max(1, count_all_ops(export(2)) - count_all_ops(export(1)))
    return export(max(1, n_ops // per_layer))


MAKERS = {"chlo": chlo_speed.make_module, "shape": make_shape_module, "deprecated": make_deprecated_module,
          "model": make_model_module}
#: What counts as "left" in the output of each program: the ops the pass should have removed.
LEFT = {"chlo": r"\bchlo\.", "model": r"\bchlo\.",
        "shape": r"\b(shape\.|tensor\.(dim|extract|from_elements)\b)",
        "deprecated": r"stablehlo\.(dot |broadcast |create_token|cross-replica-sum|einsum|unary_einsum|"
                      r"torch_index_select)|\"stablehlo\.(dot|broadcast|einsum|unary_einsum|torch_index_select)\""}


def count_ops(text: str, prefix: str) -> int:
    """Ops whose name starts with ``prefix`` in printed IR (``%r = prefix...``, ``%r:2 = prefix...`` or a
    result-less op, pretty or generic form)."""
    return len(re.findall(r"(?m)^\s*(?:%[\w.:#, %]*=\s*)?\"?" + re.escape(prefix), text))


def count_all_ops(text: str) -> int:
    """Lines of printed IR that hold an op (rough: one op a line in MLIR's pretty form)."""
    return len(re.findall(r"(?m)^\s*(%[^=]*=\s*)?\"?[a-z_]+\.[a-z_\-.]+", text))


def _time(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run of ``cmd``; exits with its stderr on failure."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return dt, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def hlokit_opt_path() -> str:
    path = os.path.join(os.path.dirname(sys.executable), "hlokit-opt")
    return path if os.path.exists(path) else "hlokit-opt"


#: The command that runs ours (``--ours``: e.g. another checkout's hlokit-opt, for a before / after table).
OURS: list[str] = []
#: A second command timed in the same interleaved runs (``--base``: the "before" of a before / after table).
BASE: list[str] = []


def compare(which: str, sizes: tuple[int, ...], repeat: int, tmp: str) -> dict:
    """Time ours and upstream on the ``which`` program at every size; print one line per size."""
    flag = FLAGS[which]
    up_script = os.path.join(tmp, "upstream.py")
    with open(up_script, "w") as f:
        f.write(UPSTREAM_SCRIPT)
    cmds = {}
    for n in sizes:
        src = os.path.join(tmp, f"{which}{n}.mlir")
        with open(src, "w") as f:
            f.write(MAKERS[which](n))
        cmds[n] = ([*(OURS or [hlokit_opt_path()]), f"--{flag}", src, "-o", os.path.join(tmp, f"{which}{n}.ours.mlir")],
                   [sys.executable, up_script, flag, src, os.path.join(tmp, f"{which}{n}.up.mlir")])
        if BASE:
            cmds[n] += ([*BASE, f"--{flag}", src, "-o", os.path.join(tmp, f"{which}{n}.base.mlir")],)
    sides = (0, 1, 2) if BASE else (0, 1)
    best, spread, cpu = {}, {}, {}
    times = {(n, w): [] for n in sizes for w in sides}
    for _ in range(repeat):
        for n in sizes:
            for w in sides:
                times[(n, w)].append(_time(cmds[n][w]))
    results = {}
    for key, ts in times.items():
        walls = [t for t, _ in ts]
        best[key], spread[key], cpu[key] = min(walls), max(walls) - min(walls), min(c for _, c in ts)
    for n in sizes:
        with open(os.path.join(tmp, f"{which}{n}.mlir")) as f:
            n_in = count_all_ops(f.read())
        outs = []
        for side in ("ours", "up"):
            with open(os.path.join(tmp, f"{which}{n}.{side}.mlir")) as f:
                text = f.read()
            outs.append((count_all_ops(text), len(re.findall(LEFT[which], text))))
        ours, up = best[(n, 0)], best[(n, 1)]
        results[n] = (ours, up)
        print(f"{which:10s} {n_in:7d} ops in: ours {ours:6.2f} s (+{spread[(n, 0)]:.2f})  C++ {up:6.2f} s "
              f"(+{spread[(n, 1)]:.2f})  ratio {ours / up:5.2f}  (CPU {cpu[(n, 0)]:.2f} / {cpu[(n, 1)]:.2f} s: "
              f"{cpu[(n, 0)] / cpu[(n, 1)]:.2f})   ops out ours/C++ {outs[0][0]}/{outs[1][0]}"
              f"   left ours/C++ {outs[0][1]}/{outs[1][1]}", flush=True)
        if BASE:
            base = best[(n, 2)]
            print(f"{'':10s} {'':7s}         base {base:6.2f} s (+{spread[(n, 2)]:.2f})  ratio {base / up:5.2f}  (CPU "
                  f"{cpu[(n, 2)]:.2f} s: {cpu[(n, 2)] / cpu[(n, 1)]:.2f})   ours / base: wall {ours / base:.2f}, CPU "
                  f"{cpu[(n, 0)] / cpu[(n, 2)]:.2f}", flush=True)
    if len(sizes) == 2:
        n1, n2 = sizes
        print(f"{which:10s} scaling time(2N)/time(N): ours {results[n2][0] / results[n1][0]:.2f} (target <= 2.1), "
              f"C++ {results[n2][1] / results[n1][1]:.2f}", flush=True)
    return results


# -- in-process breakdown of ours ----------------------------------------------------------------------

def breakdown(which: str, n: int) -> None:
    """Time the phases of ours on the ``which`` program of ``n`` ops in this process (CPU seconds; import
    time from ``python -X importtime`` of the tool's module in a fresh interpreter): parse, find, plan
    (check every op, build and parse its template), rewrite (clone, move, rewire, erase), verify, print."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import hlokit.tools.hlokit_opt"],
                          capture_output=True, text=True)
    imp = max((int(line.split("|")[1]) for line in proc.stderr.splitlines() if line.startswith("import time:")
               and line.split("|")[1].strip().isdigit()), default=0) / 1e6
    import hlokit
    from hlokit.passes import build_pass_manager, parse_pipeline, run_pass_manager
    from hlokit.passes import shape_legalize_to_stablehlo as shape_pass
    from hlokit.passes.template_pass import TemplatePass

    phases: dict[str, float] = {}
    saved = []

    def timed(owner, name, phase):
        original = owner.__dict__[name]

        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                phases[phase] = phases.get(phase, 0.0) + time.process_time() - t0
        saved.append((owner, name, original))
        setattr(owner, name, wrapper)

    for owner, name, phase in ((TemplatePass, "find", "find"), (TemplatePass, "plan", "plan"),
                               (TemplatePass, "rewrite", "rewrite"), (shape_pass._Planner, "walk_ops", "plan"),
                               (shape_pass, "check_no_escape", "check"), (shape_pass._Rewriter, "run", "rewrite")):
        if name in owner.__dict__:
            timed(owner, name, phase)
    try:
        text = MAKERS[which](n)
        ctx = hlokit.make_context()
        clock = time.process_time
        t0 = clock()
        m = hlokit.parse(text, context=ctx)
        t1 = clock()
        pm = build_pass_manager(parse_pipeline(f"builtin.module(func.func({FLAGS[which]}))"), context=ctx)
        pm.enable_verifier(False)
        run_pass_manager(pm, m.operation)
        t2 = clock()
        m.operation.verify()
        t3 = clock()
        out = hlokit.print_module(m, assume_verified=True)
        t4 = clock()
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    parts = {"import (wall, -X importtime)": imp, "parse": t1 - t0, **phases, "pass manager": t2 - t1 - sum(phases.values()),
             "verify": t3 - t2, "print": t4 - t3}
    print(f"{which:10s} {count_all_ops(text):7d} ops in, {count_all_ops(out)} out (s, CPU unless said): "
          + "  ".join(f"{k} {v:.3f}" for k, v in parts.items()) + f"  (total {sum(parts.values()):.2f})", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=10000, help="N (the programs have N and 2N ops)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--passes", default="chlo,shape,deprecated,model",
                    help="comma-separated, of: chlo, shape, deprecated, model (the exported jax model)")
    ap.add_argument("--breakdown", action="store_true", help="time the phases of ours in one process instead")
    ap.add_argument("--ours", default=None, metavar="CMD", help="the command that runs ours (default: the "
                    "installed hlokit-opt), e.g. 'python run_checkout.py OLD_TREE' for a before / after table")
    ap.add_argument("--base", default=None, metavar="CMD", help="a second command of ours timed in the same "
                    "interleaved runs (the 'before' of a before / after table: e.g. 'python run_checkout.py OLD_TREE')")
    args = ap.parse_args(argv)
    if args.ours:
        OURS[:] = shlex.split(args.ours)
    if args.base:
        BASE[:] = shlex.split(args.base)
    which = [w.strip() for w in args.passes.split(",") if w.strip()]
    for w in which:
        if w not in MAKERS:
            ap.error(f"unknown program '{w}' (expected: {', '.join(MAKERS)})")
    with tempfile.TemporaryDirectory() as tmp:
        for w in which:
            if args.breakdown:
                breakdown(w, args.ops)
            else:
                compare(w, (args.ops, 2 * args.ops), args.repeat, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
