"""hlokit.backend.guards: integer division reaches jaxlib's converter and XLA without a divisor a folder could
divide by zero (unguarded, ``7 / (x - x)`` killed the process with SIGFPE in XLA's compile and in
``hlokit-translate --stablehlo-to-hlo-text``; found by the program fuzzer, tests/fuzz/programs.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.backend.guards import guard_integer_division, guarded_text, may_crash_xla, unsigned_rng_outputs

INT_TYPES = [("i8", np.int8), ("i32", np.int32), ("i64", np.int64), ("ui8", np.uint8), ("ui32", np.uint32),
             ("ui64", np.uint64)]

#: Divisors a simplifier turns into a constant zero: each crashed XLA's compile before the guard.
FOLDED_ZERO = {
    "constant": "%z = stablehlo.constant dense<0> : tensor<i32>",
    "c - c": "%c = stablehlo.constant dense<3> : tensor<i32>\n  %z = stablehlo.subtract %c, %c : tensor<i32>",
    "x - x": "%z = stablehlo.subtract %x, %x : tensor<i32>",
    "x * 0": "%c = stablehlo.constant dense<0> : tensor<i32>\n  %z = stablehlo.multiply %x, %c : tensor<i32>",
}


def _folded_zero_program(divisor: str, op: str) -> str:
    return f"""func.func @main(%x: tensor<i32>) -> tensor<i32> {{
  {divisor}
  %a = stablehlo.constant dense<7> : tensor<i32>
  %r = stablehlo.{op} %a, %z : tensor<i32>
  func.return %r : tensor<i32>
}}"""


def _division_program(t: str) -> str:
    return f"""func.func @main(%a: tensor<6x{t}>, %b: tensor<6x{t}>) -> (tensor<6x{t}>, tensor<6x{t}>) {{
  %q = stablehlo.divide %a, %b : tensor<6x{t}>
  %r = stablehlo.remainder %a, %b : tensor<6x{t}>
  func.return %q, %r : tensor<6x{t}>, tensor<6x{t}>
}}"""


@pytest.mark.parametrize("t,dt", INT_TYPES, ids=[t for t, _ in INT_TYPES])
def test_guarded_division_gives_xla_and_interpreter_bits(ctx, t, dt):
    info = np.iinfo(dt)
    wrap = (lambda v: v % (1 << info.bits)) if info.min == 0 else (lambda v: v)  # noqa: E731
    a = np.array([wrap(v) for v in (7, -7, info.min, info.min, 0, info.max)], dt)
    b = np.array([wrap(v) for v in (0, 2, -1, 0, 0, 3)], dt)
    text = _division_program(t)
    want = hlokit.interpret(text, [a, b])  # (the spec's results, with XLA's for a zero divisor / INT_MIN / -1)
    module = hlokit.parse(text, context=ctx)
    assert guard_integer_division(module) == 2
    module.operation.verify()
    assert "stablehlo.select" in hlokit.print_module(module)
    guarded = hlokit.interpret(module, [a, b])
    xla = backend.compile(text)(a, b)
    for w, g, x in zip(want, guarded, xla):
        assert w.tobytes() == g.tobytes() == x.tobytes()
    q, r = want
    assert q[0] == (-1 if info.min < 0 else info.max) and r[0] == 7  # x / 0 = all bits set, x % 0 = x


def test_float_division_and_texts_without_division_are_left_alone(ctx):
    text = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xi1>) {
  %q = stablehlo.divide %a, %a : tensor<2xf32>
  %r = stablehlo.and %b, %b : tensor<2xi1>
  func.return %q, %r : tensor<2xf32>, tensor<2xi1>
}"""
    assert guard_integer_division(hlokit.parse(text, context=ctx)) == 0
    assert guarded_text(text, ctx) is text
    plain = "func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n  func.return %a : tensor<2xi32>\n}"
    assert guarded_text(plain, ctx) is plain


@pytest.mark.parametrize("divisor", sorted(FOLDED_ZERO), ids=sorted(FOLDED_ZERO))
@pytest.mark.parametrize("op,want", [("divide", -1), ("remainder", 7)])
def test_a_divisor_folded_to_zero_compiles_and_runs(tmp_path, divisor, op, want):
    path = tmp_path / "p.mlir"
    path.write_text(_folded_zero_program(FOLDED_ZERO[divisor], op))
    # (in a subprocess: unguarded, XLA's constant folding kills the process with SIGFPE)
    code = ("import sys, numpy as np; from hlokit import backend; "
            "print(int(backend.compile(open(sys.argv[1]).read())(np.array(3, np.int32))[0]))")
    p = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert int(p.stdout.split()[-1]) == want
    p = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_translate", "--stablehlo-to-hlo-text", str(path)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"constant({want})" in p.stdout or "select" in p.stdout  # (folded, or computed with the guards)


@pytest.mark.parametrize("et", ["i32", "f32", "i64", "f64", "i8", "ui32"])
@pytest.mark.parametrize("algorithm", ["THREE_FRY", "PHILOX"])
def test_random_bits_of_any_type_reach_xla_as_unsigned_integers(ctx, et, algorithm):
    # XLA makes unsigned bits whatever the declared type: an op reading a signed or float output failed XLA's
    # verifier ("Clamp with incompatible element types: s32[4], u32[4]"; found by the program fuzzer)
    text = f"""func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4x{et}>) {{
  %s2, %bits = "stablehlo.rng_bit_generator"(%s) {{rng_algorithm = #stablehlo<rng_algorithm {algorithm}>}}
      : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4x{et}>)
  %r = stablehlo.maximum %bits, %bits : tensor<3x4x{et}>
  func.return %s2, %r : tensor<2xui64>, tensor<3x4x{et}>
}}"""
    module = hlokit.parse(text, context=ctx)
    assert unsigned_rng_outputs(module) == (0 if et.startswith("ui") else 1)
    module.operation.verify()
    state = np.array([42, 7], np.uint64)
    want = hlokit.interpret(text, [state])
    got = backend.compile(text)(state)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.tobytes() == g.tobytes()


CRASHES_JAXLIB_0_10 = """func.func @main(%x: tensor<4xi32>, %c: tensor<4xi8>) -> tensor<4xi8> {
  %n = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi8>
  %r = stablehlo.or %n, %c : tensor<4xi8>
  func.return %r : tensor<4xi8>
}"""


def test_the_program_that_crashes_xla_is_recognised(ctx):
    import jaxlib

    text = hlokit.print_module(hlokit.parse(CRASHES_JAXLIB_0_10, context=ctx))
    old = jaxlib.__version__.startswith("0.10.")
    assert may_crash_xla(text) == old
    assert not may_crash_xla(text.replace("stablehlo.or", "stablehlo.xor"))
    scalar = text.replace("4xi32", "i32").replace("4xi8", "i8")
    assert not may_crash_xla(scalar)


def test_a_program_xla_cannot_compile_is_a_clean_error(tmp_path):
    # x.astype(int8) | y: jaxlib 0.10.2's XLA CPU compiler dies with SIGSEGV (found by the program fuzzer); the
    # compile runs in a subprocess first, and hlokit-run reports it; the interpreter runs the program
    import jaxlib

    path = tmp_path / "p.mlir"
    path.write_text(CRASHES_JAXLIB_0_10)
    run = [sys.executable, "-m", "hlokit.tools.hlokit_run", str(path)]
    p = subprocess.run(run, capture_output=True, text=True, timeout=600)
    if jaxlib.__version__.startswith("0.10."):
        assert p.returncode == 1, p.stderr[-2000:]
        assert "error: XLA's compiler crashed (signal 11)" in p.stderr, p.stderr[-2000:]
    else:
        assert p.returncode == 0, p.stderr[-2000:]
    p = subprocess.run(run + ["--engine", "interpreter"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
