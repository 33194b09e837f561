"""The floor under a legalization pass written on MLIR's Python bindings: how close to jaxlib's C++ pass could
any Python pass of the same flag come, whole process, on ``benchmarks/passes_speed.py``'s programs?

Issue 40's target for ``--stablehlo-legalize-deprecated-ops``, ``--shape-legalize-to-stablehlo`` and
``--chlo-legalize-to-stablehlo`` is a whole process (start-up, parse, pass, print) no slower than a Python
process running jaxlib's C++ pass. This script times, interleaved, best of ``--repeat`` (CPU seconds: user +
system of the child, which a shared machine disturbs less than wall time):

* ``C++``       — the upstream process of ``passes_speed.py`` (import jaxlib's MLIR, parse, the C++ pass, print);
* ``C++ none``  — the same process without the pass: what every process that reads and writes this program pays;
* ``ours``      — ``hlokit-opt --FLAG IN -o OUT``;
* ``ours none`` — ``hlokit-opt IN -o OUT`` (hlokit's start-up, checks, parse, print; no pass);

and in this process, on the parsed program:

* ``bindings``  — the fewest binding calls any Python pass makes to replace the ops the pass removes: one walk
  that finds them (by name), each op's operands, result types, attributes and location read once, one
  ``Operation.create`` in its place (a one-op replacement with the same operands, results and attributes: a
  real lowering clones a whole template in the same single call), results rewired, the op erased. No
  checks, no planning, no template;
* ``output``    — verifying (as the pass manager does after every pass) and printing our output, minus the same
  for the input: what the ops a lowering adds cost at the least, their creation not counted (near zero when
  it writes about as many ops as it removes; the accurate CHLO kernels of issue 40 item 4 write ~4x the ops
  the C++ pass writes).

``floor = C++ none + bindings + output`` is the best a Python pass on these bindings could reach in a process
that does nothing else; ``floor / C++`` > 1 means the target cannot be met on them, ``ours / floor`` is what
hlokit's own start-up, checks and pass cost above that floor.

* ``writes``    — ``bindings`` writes one op per op it removes; a lowering writes more (``shape.broadcast``
  becomes a concatenate, a compare and a select): the CPU time of one ``Operation.create`` (one operand, one
  result, no attribute) per op that our output has beyond the input. ``(floor + writes) / C++`` is the same
  bound for a pass that writes our output's ops (which need not be the fewest: the C++ passes write more).

Run:  python benchmarks/passes_floor.py [--ops 10000] [--repeat 5] [--passes deprecated,shape,chlo]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import passes_speed  # noqa: E402  (the programs, the upstream script and the process timer)

def binding_floor(text: str, flag: str) -> tuple[float, int]:
    """(CPU seconds, ops replaced) of the fewest binding calls that replace every op ``flag``'s pass removes in
    ``text`` by one op (see the module docstring); best of 3 fresh parses."""
    import hlokit
    from hlokit.passes import get_pass
    from jaxlib.mlir import ir

    illegal = get_pass(flag).illegal_ops
    ctx = hlokit.make_context()
    best, count = float("inf"), 0
    for _ in range(3):
        module = hlokit.parse(text, context=ctx)
        with ctx:
            t0 = time.process_time()
            found = []

            def visit(op):
                if op.name in illegal:
                    found.append(op)
                return ir.WalkResult.ADVANCE

            module.operation.walk(visit)
            for op in found:
                new = ir.Operation.create(op.name, results=list(op.results.types), operands=list(op.operands),
                                          attributes=dict(op.attributes.items()),
                                          loc=op.location, ip=ir.InsertionPoint(op))
                for old, res in zip(op.results, new.results):
                    old.replace_all_uses_with(res)
                op.erase()
            best, count = min(best, time.process_time() - t0), len(found)
        del module
    return best, count


def write_floor(text: str, count: int) -> float:
    """CPU seconds of ``count`` ``Operation.create`` calls (one operand, one result, no attribute: the cheapest
    op a lowering writes) into ``text``'s parsed module, each before its function's terminator; best of 3
    fresh parses. What writing the ops that a pass's output has beyond its input costs at the least."""
    import hlokit
    from jaxlib.mlir import ir

    if count <= 0:
        return 0.0
    ctx = hlokit.make_context()
    best = float("inf")
    for _ in range(3):
        module = hlokit.parse(text, context=ctx)
        with ctx:
            func = next(op for op in module.body.operations if op.operation.name == "func.func")
            block = func.regions[0].blocks[0]
            arg, last = block.arguments[0], list(block.operations)[-1]
            ty, loc, ip = arg.type, last.location, ir.InsertionPoint(last)
            create = ir.Operation.create
            t0 = time.process_time()
            for _ in range(count):
                create("stablehlo.abs", results=[ty], operands=[arg], loc=loc, ip=ip)
            best = min(best, time.process_time() - t0)
        del module
    return best


def verify_print_time(text: str) -> float:
    """CPU seconds of verifying ``text``'s module (as the pass manager does after a pass) and printing it as
    ``hlokit-opt`` prints it; best of 3."""
    import hlokit

    module = hlokit.parse(text, context=hlokit.make_context())
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        module.operation.verify()
        hlokit.print_module(module, assume_verified=True)
        best = min(best, time.process_time() - t0)
    return best


def measure(which: str, n: int, repeat: int, tmp: str) -> None:
    """Time the four processes and the in-process floor for the ``which`` program of ``n`` ops; print one line."""
    flag = passes_speed.FLAGS[which]
    src = os.path.join(tmp, f"{which}{n}.mlir")
    with open(src, "w") as f:
        f.write(passes_speed.MAKERS[which](n))
    up = os.path.join(tmp, "upstream_none.py")
    with open(up, "w") as f:
        f.write(passes_speed.UPSTREAM_SCRIPT)
    opt = passes_speed.hlokit_opt_path()
    out = {k: os.path.join(tmp, f"{which}{n}.{k}.mlir") for k in ("cxx", "cxx_none", "ours", "ours_none")}
    cmds = {"C++": [sys.executable, up, flag, src, out["cxx"]],
            "C++ none": [sys.executable, up, "none", src, out["cxx_none"]],
            "ours": [opt, f"--{flag}", src, "-o", out["ours"]],
            "ours none": [opt, src, "-o", out["ours_none"]]}
    cpu = {k: float("inf") for k in cmds}
    for _ in range(repeat):
        for k, cmd in cmds.items():
            cpu[k] = min(cpu[k], passes_speed._time(cmd)[1])
    with open(src) as f:
        text = f.read()
    with open(out["ours"]) as f:
        ours_text = f.read()
    bindings, replaced = binding_floor(text, flag)
    output = max(0.0, verify_print_time(ours_text) - verify_print_time(text))
    floor = cpu["C++ none"] + bindings + output
    ops_in = passes_speed.count_all_ops(text)
    extra = passes_speed.count_all_ops(ours_text) - ops_in
    writes = write_floor(text, extra)
    print(f"{which:10s} {ops_in:6d} ops ({replaced} replaced, {max(extra, 0)} more written), "
          "CPU s: " + "  ".join(f"{k} {v:.3f}" for k, v in cpu.items())
          + f"  bindings {bindings:.3f}  output {output:.3f}  floor {floor:.3f}   ours/C++ {cpu['ours'] / cpu['C++']:.2f}"
            f"  floor/C++ {floor / cpu['C++']:.2f}  ours/floor {cpu['ours'] / floor:.2f}"
            f"  (ours none / C++ none {cpu['ours none'] / cpu['C++ none']:.2f})"
            f"  writes {writes:.3f}  (floor + writes) / C++ {(floor + writes) / cpu['C++']:.2f}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=10000, help="program size N (as passes_speed.py; also 2N)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--passes", default="deprecated,shape,chlo", help="comma-separated, of: "
                    + ", ".join(passes_speed.FLAGS))
    args = ap.parse_args(argv)
    which = [w.strip() for w in args.passes.split(",") if w.strip()]
    for w in which:
        if w not in passes_speed.FLAGS:
            ap.error(f"unknown program '{w}' (expected: {', '.join(passes_speed.FLAGS)})")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    with tempfile.TemporaryDirectory() as tmp:
        for w in which:
            for n in (args.ops, 2 * args.ops):
                measure(w, n, args.repeat, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
