"""Speed of ``hlokit-opt --chlo-legalize-to-stablehlo`` against jaxlib's upstream C++ pass.

    python benchmarks/chlo_speed.py [--ops 10000] [--repeat 3] [--ours CMD]

Generates a module with N CHLO ops (a mix of every elementwise CHLO op over f32/f64/f16/bf16/complex
element types, the broadcast family, top_k, constant_like: :func:`make_module`) and times the whole
process — start-up, parse, pass, verification, print — of

* ours:     ``hlokit-opt --chlo-legalize-to-stablehlo IN -o OUT`` (a subprocess);
* upstream: a Python subprocess that parses with jaxlib, runs jaxlib's C++ ``chlo-legalize-to-stablehlo``
  and prints (an oracle only, never used by hlokit itself).

The measurement is :func:`passes_speed.compare` (the ``chlo`` program of ``benchmarks/passes_speed.py``,
which also times the shape and deprecated-op passes and a model lowered by jax): best-of-``repeat`` wall
and CPU times, interleaved, the ratio ours/upstream for N and 2N ops and the scaling time(2N)/time(N).
Targets (issue 40): ratio <= 1.0, scaling <= 2.1. The whole-process time grows with the number of ops
the expansions write (verification and printing are per output op, in C++ on both sides): the "ops out"
column gives both sides' counts.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile

# (op, operand element type, result element type, arity)
_UNARY = [
    ("acos", "f32"), ("acosh", "f32"), ("asin", "f32"), ("asinh", "f32"), ("atan", "f32"), ("atanh", "f32"),
    ("cosh", "f32"), ("sinh", "f32"), ("tan", "f32"), ("erf", "f32"), ("erfc", "f32"), ("erf_inv", "f32"),
    ("lgamma", "f32"), ("digamma", "f32"), ("bessel_i1e", "f32"), ("square", "f32"), ("conj", "complex<f32>"),
    ("asin", "complex<f32>"), ("atanh", "complex<f64>"), ("erf", "f64"), ("lgamma", "bf16"), ("sinh", "f16"),
]
_PRED = [("is_inf", "f32"), ("is_neg_inf", "f32"), ("is_pos_inf", "f32")]
_BINARY = ["broadcast_add", "broadcast_multiply", "broadcast_subtract", "broadcast_divide", "broadcast_maximum",
           "broadcast_power", "broadcast_atan2", "broadcast_remainder"]


def make_module(n_ops: int, width: int = 16) -> str:
    """A ``func.func @main`` with ``n_ops`` CHLO ops (a fixed cycle over the op mix)."""
    types = sorted({t for _, t in _UNARY + _PRED} | {"f32"})
    args = {t: f"%x_{i}" for i, t in enumerate(types)}
    params = ", ".join(f"{args[t]}: tensor<{width}x{t}>" for t in types)
    lines = [f"func.func @main({params}, %row: tensor<{width}xf32>, %mat: tensor<8x{width}xf32>) -> tensor<{width}xf32> {{"]
    kinds = [("u", u) for u in _UNARY] + [("p", p) for p in _PRED] + [("b", b) for b in _BINARY] + [("k", None), ("c", None)]
    for i in range(n_ops):
        kind, what = kinds[i % len(kinds)]
        if kind == "u":
            op, t = what
            ty = f"tensor<{width}x{t}>"
            lines.append(f"  %r{i} = chlo.{op} {args[t]} : {ty} -> {ty}")
        elif kind == "p":
            op, t = what
            lines.append(f"  %r{i} = chlo.{op} {args[t]} : tensor<{width}x{t}> -> tensor<{width}xi1>")
        elif kind == "b":
            lines.append(f"  %r{i} = chlo.{what} %mat, %row : (tensor<8x{width}xf32>, tensor<{width}xf32>) -> tensor<8x{width}xf32>")
        elif kind == "k":
            lines.append(f"  %r{i}:2 = chlo.top_k(%mat, k = 4) : tensor<8x{width}xf32> -> (tensor<8x4xf32>, tensor<8x4xi32>)")
        else:
            lines.append(f'  %r{i} = "chlo.constant_like"(%row) {{value = 1.0 : f32}} : (tensor<{width}xf32>) -> tensor<{width}xf32>')
    lines.append(f"  return %row : tensor<{width}xf32>\n}}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ours", default=None, metavar="CMD", help="the command that runs ours (default: the "
                    "installed hlokit-opt)")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import passes_speed  # (imports this module for make_module)

    if args.ours:
        passes_speed.OURS[:] = shlex.split(args.ours)
    with tempfile.TemporaryDirectory() as tmp:
        passes_speed.compare("chlo", (args.ops, 2 * args.ops), args.repeat, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
