"""``--stablehlo-expand-rng-bit-generator`` and ``--stablehlo-expand-rng`` against XLA CPU (the oracle).

``rng_bit_generator`` (spec https://openxla.org/stablehlo/spec; XLA ``rng_bit_generator_expander.cc``,
``prng.cc``): the expanded program on XLA and on hlokit's interpreter gives the original op's outputs
and returned states on XLA bit for bit, for every algorithm, state size, element type and many shapes.

``rng`` (XLA ``rng_expander.cc``): XLA keys the op from per-process state, so the original runs in a
fresh subprocess (its first compiled module, first execution) where it is comparable; elsewhere the
reference is hlokit's interpreter, which reproduces those numbers (``test_interpreter_rng.py``).
UNIFORM is compared bit for bit; NORMAL within 4 ULP of the interpreter (which rounds ``log`` / ``sin``
/ ``cos`` correctly where XLA uses its own approximations: 3 ULP seen on 262144 f32 samples) and within
1 ULP of XLA's own expansion.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import hlokit
import hlokit.passes.stablehlo_expand_rng as rng_pass
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.interpreter import rng as interp_rng
from hlokit.interpreter.values import type_name
from hlokit.passes import run_pipeline
from hlokit.passes.builder import Emitter
from hlokit.passes.stablehlo_expand_rng_bit_generator import philox4x32, threefry2x32

from conftest import REPO
from test_interpreter_rng import (
    ALG_STATES,
    BIT_TYPES,
    RNG_CASES,
    SHAPES,
    STATES,
    _ulps,
    _xla_rng_keys_known,
    assert_same_bits,
    program,
    rng_program,
)

RBG = "builtin.module(func.func(stablehlo-expand-rng-bit-generator))"
RNG = "builtin.module(stablehlo-expand-rng)"
BOTH = "builtin.module(stablehlo-expand-rng,func.func(stablehlo-expand-rng-bit-generator))"


def expand(text: str, pipe: str = RBG) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, pipe)
    return str(m)


# ------------------------------------------------------------------------------------------------
# rng_bit_generator


def check_bits(dtype, cases, interpreter: bool = True) -> None:
    """Expanded program on XLA (and on the interpreter) == original on XLA, outputs and states."""
    text = program(dtype, cases)
    expanded = expand(text)
    assert "rng_bit_generator" not in expanded
    args = [STATES[2], STATES[3]]
    want = backend.compile(text)(*args)
    runs = [backend.compile(expanded)(*args)]
    if interpreter:
        runs.append(hlokit.interpret(expanded, args))
    for got in runs:
        for i, case in enumerate(cases):
            assert np.array_equal(got[2 * i], want[2 * i]), f"state {case}"
            assert got[2 * i + 1].dtype == np.dtype(dtype)
            assert_same_bits(got[2 * i + 1], want[2 * i + 1], dtype, f"output {case}")


DEFAULT_TYPES = [np.uint8, np.int16, np.uint32, np.int64, np.float32, ml_dtypes.int4]
DEFAULT_SHAPES = [(), (5,), (3, 4, 5), (7, 1, 9), (2, 0)]


@pytest.mark.parametrize(
    "dtype",
    [t if t in DEFAULT_TYPES else pytest.param(t, marks=pytest.mark.slow) for t in BIT_TYPES],
    ids=lambda d: type_name(np.dtype(d)),
)
def test_rng_bit_generator_expanded_equals_xla(dtype):
    """Every algorithm and state size on rank 0..3 shapes (odd sizes, an empty tensor)."""
    offset = BIT_TYPES.index(dtype)
    cases = [(alg, n, DEFAULT_SHAPES[(offset + j) % len(DEFAULT_SHAPES)]) for j, (alg, n) in enumerate(ALG_STATES)]
    cases += [(alg, n, DEFAULT_SHAPES[(offset + j + 2) % len(DEFAULT_SHAPES)]) for j, (alg, n) in enumerate(ALG_STATES)]
    check_bits(dtype, cases)


@pytest.mark.slow
@pytest.mark.parametrize("alg,n", ALG_STATES)
@pytest.mark.parametrize("dtype", BIT_TYPES, ids=lambda d: type_name(np.dtype(d)))
def test_rng_bit_generator_expanded_equals_xla_all_shapes(dtype, alg, n):
    check_bits(dtype, [(alg, n, shape) for shape in SHAPES])


LARGE = [(np.uint32, "THREE_FRY", 2),
         pytest.param(np.uint32, "PHILOX", 3, marks=pytest.mark.slow),
         pytest.param(np.uint64, "PHILOX", 2, marks=pytest.mark.slow),
         pytest.param(np.uint8, "DEFAULT", 2, marks=pytest.mark.slow),
         pytest.param(np.uint64, "THREE_FRY", 2, marks=pytest.mark.slow)]


@pytest.mark.parametrize("dtype,alg,n", LARGE, ids=lambda v: type_name(np.dtype(v)) if isinstance(v, type) else str(v))
def test_rng_bit_generator_large_expanded_equals_xla(dtype, alg, n):
    check_bits(dtype, [(alg, n, (1001, 999))], interpreter=False)


def test_chained_states_and_nested_ops():
    """Each returned state feeds the next generator, the last one inside a while body."""
    text = """
func.func @main(%s0: tensor<2xui64>) -> (tensor<3xui32>, tensor<2x2xui64>, tensor<5xui16>, tensor<ui32>, tensor<2xui64>) {
  %s1, %a = "stablehlo.rng_bit_generator"(%s0) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
  %s2, %b = "stablehlo.rng_bit_generator"(%s1) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
  %s3, %c = "stablehlo.rng_bit_generator"(%s2) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui16>)
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %f0 = stablehlo.constant dense<0> : tensor<ui32>
  %w:3 = stablehlo.while(%i = %zero, %s = %s3, %f = %f0) : tensor<i32>, tensor<2xui64>, tensor<ui32>
    cond {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %t, %d = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui32>)
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %t, %d : tensor<i32>, tensor<2xui64>, tensor<ui32>
    }
  return %a, %b, %c, %w#2, %w#1 : tensor<3xui32>, tensor<2x2xui64>, tensor<5xui16>, tensor<ui32>, tensor<2xui64>
}
"""
    expanded = expand(text)
    assert "rng_bit_generator" not in expanded
    state = np.array([42, 2**64 - 2], np.uint64)
    want = backend.compile(text)(state)
    for got in (backend.compile(expanded)(state), hlokit.interpret(expanded, [state])):
        for g, w in zip(got, want):
            assert_same_bits(g, w, w.dtype, "chained")


def _run_emitted(build, n_out: int):
    """Run a template written by ``build(e) -> outputs`` (no arguments) on the interpreter."""
    e = Emitter()
    outs = build(e)
    return hlokit.interpret("module {\n" + e.text("main", [], outs).replace("private ", "") + "}", [])[:n_out]


def test_random123_known_answers():
    """The emitted Threefry-2x32 and Philox-4x32 give Random123's known-answer vectors (Salmon et al.,
    SC 2011, ``kat_vectors``)."""
    def words(e, v):
        return [e.const(v, t="ui32", shape=(1,)) for _ in range(4)]

    for v, want in [(0, [0x6B200159, 0x99BA4EFE]), (0xFFFFFFFF, [0x1CB996FC, 0xBB002BE7])]:
        got = _run_emitted(lambda e: list(threefry2x32(e, *words(e, v))), 2)
        assert [int(g[0]) for g in got] == want
    for v, want in [(0, [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
                    (0xFFFFFFFF, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD])]:
        got = _run_emitted(lambda e: philox4x32(e, words(e, v), *words(e, v)[:2]), 4)
        assert [int(g[0]) for g in got] == want


def test_rng_bit_generator_refusals_are_located_and_change_nothing():
    for out_t, message in [("tensor<4xf6E2M3FN>", "element type 'f6E2M3FN'")]:
        text = (f"func.func @main(%s: tensor<2xui64>) -> {out_t} {{\n"
                f'  %t, %o = "stablehlo.rng_bit_generator"(%s) {{rng_algorithm = #stablehlo<rng_algorithm PHILOX>}} '
                f": (tensor<2xui64>) -> (tensor<2xui64>, {out_t})\n  return %o : {out_t}\n}}\n")
        m = hlokit.parse(text, context=hlokit.make_context(), source_name="rbg.mlir")
        before = str(m)
        with pytest.raises(PassError, match=message) as err:
            run_pipeline(m, RBG)
        assert str(err.value).startswith("rbg.mlir:2:")
        assert str(m) == before


# ------------------------------------------------------------------------------------------------
# rng

#: RNG_CASES of the interpreter's tests plus narrow integers and i1 (XLA CPU aborts on those; the
#: interpreter computes them at 32 bits, as the expansion does).
CASES = RNG_CASES + [
    ("i8", "UNIFORM", "-100", "100", (7,)),
    ("ui16", "UNIFORM", "5", "60000", (4, 3)),
    ("i1", "UNIFORM", "false", "true", (5,)),
    ("f16", "UNIFORM", "-2.0", "3.0", (3, 3)),
    ("bf16", "NORMAL", "0.0", "1.0", (4,)),
    ("f32", "NORMAL", "0.0", "1.0", ()),
]


def _same(a, b) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_rng_expansion_equals_the_interpreters_rng():
    """Expanded (to rng_bit_generator, and on to integer ops) on XLA and on the interpreter against
    the interpreter's ``rng`` on the original (= XLA CPU in a fresh process, test_interpreter_rng.py)."""
    text = rng_program(CASES)
    want = hlokit.interpret(text, [])
    only_rng = expand(text, RNG)
    assert '"stablehlo.rng"' not in only_rng and "stablehlo.rng " not in only_rng
    assert only_rng.count("stablehlo.rng_bit_generator") == len(CASES)
    full = expand(text, BOTH)
    assert "rng" not in full.replace("rng_", "")
    runs = {"xla": backend.compile(full)(), "interp": hlokit.interpret(full, []),
            "interp-rbg": hlokit.interpret(only_rng, [])}
    for name, got in runs.items():
        for case, g, w in zip(CASES, got, want):
            if case[1] == "UNIFORM":
                assert _same(g, w), (name, case, g, w)
            else:
                assert g.shape == w.shape and g.dtype == w.dtype
                assert _ulps(np.ascontiguousarray(g), np.ascontiguousarray(w)) <= 4, (name, case, g, w)


_FRESH = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import hlokit.backend as backend
    original, expanded = json.loads(sys.stdin.read())
    a = backend.compile(original)()  # the first module this process compiles, first execution
    b = backend.compile(expanded)()
    print(json.dumps([[np.ascontiguousarray(o).reshape(-1).view(np.uint8).tolist() for o in r] for r in (a, b)]))
    """
)


def test_rng_expansion_equals_xla_in_a_fresh_process():
    """The original ``rng`` ops on XLA CPU (first module, first execution of a fresh process) against the
    expanded program on XLA: UNIFORM bit for bit, NORMAL within 1 ULP."""
    _xla_rng_keys_known()
    cases = RNG_CASES
    text = rng_program(cases)
    proc = subprocess.run([sys.executable, "-c", _FRESH], input=json.dumps([text, expand(text, BOTH)]),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs, ours = json.loads(proc.stdout.strip().splitlines()[-1])
    ref = hlokit.interpret(text, [])
    for case, r, t, o in zip(cases, ref, theirs, ours):
        t = np.frombuffer(bytes(t), dtype=r.dtype).reshape(r.shape)
        o = np.frombuffer(bytes(o), dtype=r.dtype).reshape(r.shape)
        if case[1] == "UNIFORM":
            assert _same(o, t), (case, o, t)
        else:
            assert _ulps(o, t) <= 1, (case, o, t)


def test_rng_keys_are_the_interpreters():
    assert rng_pass.mt19937_64(5489, 1) == [14514284786278117030]  # the C++ standard's check value
    assert rng_pass.rng_key is interp_rng.rng_key  # one definition (hlokit.xla_rng_state) serves both
    assert rng_pass.RNG_INITIAL_COUNTER == interp_rng.RNG_INITIAL_COUNTER


def test_rng_in_a_loop_repeats_the_first_iterations_numbers():
    """XLA advances an ``rng`` op's counter per execution (new numbers per loop iteration); a StableHLO
    program has no such state, so the expanded op gives the first draw every time (documented)."""
    text = """
func.func @main() -> tensor<2x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<2x4xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %z) : tensor<i32>, tensor<2x4xf32>
    cond {
      %n = stablehlo.constant dense<2> : tensor<i32>
      %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %a = stablehlo.constant dense<0.0> : tensor<f32>
      %b = stablehlo.constant dense<1.0> : tensor<f32>
      %s = stablehlo.constant dense<[4]> : tensor<1xi64>
      %x = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
      %x2 = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<1x4xf32>
      %i32 = stablehlo.constant dense<0> : tensor<i32>
      %u = stablehlo.dynamic_update_slice %acc, %x2, %i, %i32 : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %u : tensor<i32>, tensor<2x4xf32>
    }
  return %r#1 : tensor<2x4xf32>
}
"""
    original = hlokit.interpret(text, [])[0]
    assert not np.array_equal(original[0], original[1])
    for got in (hlokit.interpret(expand(text, BOTH), [])[0], backend.compile(expand(text, BOTH))()[0]):
        assert _same(got[0], original[0]) and _same(got[1], original[0])


def test_rng_refusals_are_located_and_change_nothing():
    text = """func.func @main(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
  %r = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="rng.mlir")
    before = str(m)
    with pytest.raises(PassError, match="static shapes only") as err:
        run_pipeline(m, RNG)
    assert str(err.value).startswith("rng.mlir:2:")
    assert str(m) == before


# ------------------------------------------------------------------------------------------------
# example programs


EXAMPLES = sorted((REPO / "examples" / "lower_to_core" / "rng").glob("*.mlir"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_expand_and_equal_the_original(path):
    """Every rng example: fully expanded; rng_bit_generator results equal the original's on XLA bit for
    bit; rng results equal the interpreter's on the original (XLA's fresh-process numbers)."""
    text = path.read_text()
    full = expand(text, BOTH)
    assert "rng" not in full.replace("rng_", "").replace("rng.mlir", "") and "rng_bit_generator" not in full
    exe = backend.compile(text)
    args = [np.array([7 + i, 2**63 + i, 5][: s.shape[0]], np.uint64) for i, s in enumerate(exe.in_specs)]
    want = hlokit.interpret(text, args) if '"stablehlo.rng"' in text or "stablehlo.rng " in text else exe(*args)
    got = backend.compile(full)(*args)
    for g, w in zip(got, want):
        if np.dtype(w.dtype).kind == "f" and "NORMAL" in text:
            assert _ulps(np.ascontiguousarray(g), np.ascontiguousarray(w)) <= 4, path.name
        else:
            assert_same_bits(g, w, g.dtype, path.name)  # XLA returns generator bits as unsigned
