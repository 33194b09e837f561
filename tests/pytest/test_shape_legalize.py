"""shape-legalize-to-stablehlo: hlokit's Python pass runs under the flag, covers what jaxlib's C++ pass
covers, refuses located and atomically, and programs with ``?`` dimensions give the static program's results
on the interpreter and on XLA after shape refinement.

jaxlib's C++ passes (``shape-legalize-to-stablehlo``, ``chlo-legalize-to-stablehlo``) are test tooling here
only, run in a subprocess: the first as the oracle, the second to write the shape-dialect programs that
CHLO's dynamic broadcasting becomes. Shape refinement (``stablehlo-refine-arguments``,
``stablehlo-refine-shapes``, ``stablehlo-canonicalize-dynamism``) is upstream's too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.diagnostics import PassError
from hlokit.passes import get_pass, run_pipeline
from hlokit.passes.builder import TemplateCache
from hlokit.passes.shape_legalize_to_stablehlo import ShapeLegalizeToStablehlo

from conftest import REPO

PASS = "builtin.module(func.func(shape-legalize-to-stablehlo))"
EXAMPLES = REPO / "examples" / "lower_to_core" / "shape"

# Runs one textual pipeline of jaxlib's C++ passes on each program of a JSON list; prints a JSON list of
# [ok, text-or-error]. Python passes of hlokit are not involved (the pass manager is MLIR's own).
_UPSTREAM = r"""
import json, sys
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir._mlir_libs import _stablehlo
import hlokit
_stablehlo.register_stablehlo_passes()
pipeline, programs = json.load(sys.stdin)
out = []
for text in programs:
    ctx = hlokit.make_context()
    try:
        m = hlokit.parse(text, context=ctx)
        with ctx:
            passmanager.PassManager.parse(pipeline).run(m.operation)
        out.append([True, str(m)])
    except Exception as err:
        out.append([False, str(err)])
print(json.dumps(out))
"""


def upstream(pipeline: str, programs: list[str]) -> list[tuple[bool, str]]:
    """Run jaxlib's C++ ``pipeline`` on every program, in one subprocess (the oracle)."""
    proc = subprocess.run([sys.executable, "-c", _UPSTREAM], input=json.dumps([pipeline, programs]),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [tuple(x) for x in json.loads(proc.stdout)]


def ours(text: str, ctx, pipeline: str = PASS):
    module = hlokit.parse(text, context=ctx)
    run_pipeline(module, pipeline)
    return module


def refine(module, types: list[str]):
    """Specialise ``module``'s ``@main`` to ``types`` with upstream's shape refinement."""
    run_pipeline(module, f"builtin.module(stablehlo-refine-arguments{{types='{','.join(types)}'}},"
                         "stablehlo-refine-shapes,func.func(stablehlo-canonicalize-dynamism,canonicalize))")
    return module


def _ttype(a: np.ndarray) -> str:
    et = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}[a.dtype.type]
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + et + ">"


def _left_over(text: str) -> list[str]:
    """Ops this pass must have removed that are still in ``text``."""
    return [w for w in ("shape.", "tensor.", "arith.", "unrealized_conversion_cast") if w in text]


def run_both(module_text: str, args: list[np.ndarray], ctx) -> tuple[list, list]:
    """The legalized ``?``-shaped program on the interpreter (as it is) and on XLA (after refinement)."""
    interp = hlokit.interpret(module_text, args)
    refined = refine(hlokit.parse(module_text, context=ctx), [_ttype(a) for a in args])
    assert "?" not in str(refined).split("func.func")[1].split("{")[0]
    return interp, list(xla_compile(refined)(*args))


# -- the flag is ours -----------------------------------------------------------------------------------

def test_flag_names_the_python_pass():
    assert get_pass("shape-legalize-to-stablehlo") is ShapeLegalizeToStablehlo


@pytest.mark.parametrize("how", [["--shape-legalize-to-stablehlo"],
                                 ["--pass-pipeline=builtin.module(func.func(shape-legalize-to-stablehlo))"],
                                 ["--pass-pipeline=builtin.module(func.func(canonicalize,shape-legalize-to-stablehlo))"]])
def test_ours_runs_where_upstream_refuses(how):
    """Upstream's C++ pass refuses the shape.cstr_broadcastable that CHLO's dynamic broadcasting writes;
    hlokit-opt legalizes it under the same flag, as a flag and inside --pass-pipeline."""
    text = (EXAMPLES / "broadcast_chain.mlir").read_text()
    ((ok, err),) = upstream(PASS, [text])
    assert not ok and "failed to legalize operation 'shape.cstr_broadcastable'" in err
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", *how, "-"], input=text,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not _left_over(proc.stdout) and "stablehlo.dynamic_broadcast_in_dim" in proc.stdout


# -- every case upstream legalizes, legalized with the same results ----------------------------------

# Programs with tensor boundaries; each is legalized by upstream's C++ pass (asserted) and by ours, then
# both run on the interpreter.
UPSTREAM_CASES = {
    "shape_of_broadcast_to": ("""
func.func @main(%x: tensor<?x1xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %y : tensor<?x?xf32> -> tensor<2xindex>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %r = stablehlo.add %b, %y : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""", [(3, 1), (3, 5)]),
    "num_elements_flatten": ("""
func.func @main(%x: tensor<?x?x2xf32>) -> tensor<?xf32> {
  %s = shape.shape_of %x : tensor<?x?x2xf32> -> tensor<3xindex>
  %n = shape.num_elements %s : tensor<3xindex> -> index
  %t = tensor.from_elements %n : tensor<1xindex>
  %r = stablehlo.dynamic_reshape %x, %t : (tensor<?x?x2xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}""", [(3, 4, 2)]),
    "dim_muli_reshape": ("""
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n = arith.muli %d0, %d1 : index
  %t = tensor.from_elements %n, %c1 : tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %t : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}""", [(2, 3)]),
    "broadcast_of_ranks": ("""
func.func @main(%x: tensor<?x1x?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?x?xf32> {
  %a = shape.shape_of %x : tensor<?x1x?xf32> -> tensor<3xindex>
  %b = shape.shape_of %y : tensor<?x1xf32> -> tensor<2xindex>
  %s = shape.broadcast %a, %b : tensor<3xindex>, tensor<2xindex> -> tensor<3xindex>
  %bx = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1, 2] : (tensor<?x1x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %by = stablehlo.dynamic_broadcast_in_dim %y, %s, dims = [1, 2] : (tensor<?x1xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %r = stablehlo.multiply %bx, %by : tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}""", [(2, 1, 1), (3, 1)]),
    "const_shape": ("""
func.func @main(%x: tensor<?xf32>) -> tensor<?x?xf32> {
  %s = shape.const_shape [2, 3] : tensor<2xindex>
  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""", [(3,)]),
    "extract_from_shape": ("""
func.func @main(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %d = tensor.extract %s[%c1] : tensor<2xindex>
  %n = arith.muli %d, %d : index
  %t = tensor.from_elements %n : tensor<1xindex>
  %z = stablehlo.constant dense<2.0> : tensor<f32>
  %r = stablehlo.dynamic_broadcast_in_dim %z, %t, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}""", [(2, 3)]),
    "index_cast_i64": ("""
func.func @main(%x: tensor<?x3xf32>) -> (tensor<i64>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x3xf32>
  %i = arith.index_cast %d : index to i64
  %t = tensor.from_elements %i : tensor<i64>
  %g = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %gi = stablehlo.reshape %g : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %s32 = stablehlo.concatenate %gi, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %s = arith.index_cast %s32 : tensor<2xi32> to tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %t, %r : tensor<i64>, tensor<?x3xf32>
}""", [(4, 3)]),
}


@pytest.fixture(scope="module")
def upstream_results():
    return dict(zip(UPSTREAM_CASES, upstream(PASS + "".join([]), [t for t, _ in UPSTREAM_CASES.values()])))


@pytest.mark.parametrize("name", sorted(UPSTREAM_CASES))
def test_upstream_legalized_cases_agree(name, upstream_results, ctx):
    text, shapes = UPSTREAM_CASES[name]
    ok, up_text = upstream_results[name]
    assert ok, up_text  # the case is one upstream legalizes
    mine = ours(text, ctx, "builtin.module(func.func(shape-legalize-to-stablehlo,canonicalize))")
    assert not _left_over(str(mine)), str(mine)
    theirs = hlokit.parse(up_text, context=ctx)
    run_pipeline(theirs, "builtin.module(func.func(canonicalize))")
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got = hlokit.interpret(str(mine), args)
    want = hlokit.interpret(str(theirs), args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_upstream_test_inputs_all_legalized_where_upstream_does(ctx):
    """Every function of upstream's own test of this pass (written out here as our own programs of the
    same shapes) that upstream legalizes is legalized by ours; ours legalizes more."""
    cases = [
        "func.func @f(%a: tensor<2xindex>) -> index {\n %0 = shape.num_elements %a : tensor<2xindex> -> index\n return %0 : index\n}",
        "func.func @f(%a: tensor<?x1xf32>) -> tensor<2xindex> {\n %0 = shape.shape_of %a : tensor<?x1xf32> -> tensor<2xindex>\n return %0 : tensor<2xindex>\n}",
        "func.func @f(%a: tensor<?x?xf32>) -> index {\n %c = arith.constant 1 : index\n %0 = tensor.dim %a, %c : tensor<?x?xf32>\n return %0 : index\n}",
        "func.func @f(%a: index) -> tensor<2xindex> {\n %c = arith.constant 5 : index\n %0 = tensor.from_elements %c, %a : tensor<2xindex>\n return %0 : tensor<2xindex>\n}",
        "func.func @f(%a: i64) -> tensor<i64> {\n %0 = tensor.from_elements %a : tensor<i64>\n return %0 : tensor<i64>\n}",
        "func.func @f(%a: tensor<3xindex>, %b: tensor<3xindex>) -> tensor<3xindex> {\n %0 = shape.broadcast %a, %b : tensor<3xindex>, tensor<3xindex> -> tensor<3xindex>\n return %0 : tensor<3xindex>\n}",
        "func.func @f(%a: tensor<1xindex>, %b: tensor<3xindex>) -> tensor<3xindex> {\n %0 = shape.broadcast %a, %b : tensor<1xindex>, tensor<3xindex> -> tensor<3xindex>\n return %0 : tensor<3xindex>\n}",
        "func.func @f() -> tensor<3xindex> {\n %0 = shape.const_shape [1, 2, 3] : tensor<3xindex>\n return %0 : tensor<3xindex>\n}",
        "func.func @f(%a: tensor<3xindex>) -> tensor<3xi32> {\n %0 = arith.index_cast %a : tensor<3xindex> to tensor<3xi32>\n return %0 : tensor<3xi32>\n}",
        "func.func @f(%a: tensor<3xi32>) -> tensor<3xindex> {\n %0 = arith.index_cast %a : tensor<3xi32> to tensor<3xindex>\n return %0 : tensor<3xindex>\n}",
        "func.func @f(%a: index) -> i32 {\n %0 = arith.index_cast %a : index to i32\n return %0 : i32\n}",
        "func.func @f(%a: index) -> i64 {\n %0 = arith.index_cast %a : index to i64\n return %0 : i64\n}",
        "func.func @f(%a: i32) -> index {\n %0 = arith.index_cast %a : i32 to index\n return %0 : index\n}",
        "func.func @f(%a: index, %b: index) -> index {\n %0 = arith.muli %a, %b : index\n return %0 : index\n}",
        "func.func @f(%a: tensor<2x4xindex>) -> index {\n %c0 = arith.constant 1 : index\n %c1 = arith.constant 3 : index\n %0 = tensor.extract %a[%c0, %c1] : tensor<2x4xindex>\n return %0 : index\n}",
        "func.func @f(%a: tensor<2x4xi32>) -> i32 {\n %c0 = arith.constant 0 : index\n %0 = tensor.extract %a[%c0, %c0] : tensor<2x4xi32>\n return %0 : i32\n}",
        "func.func @f() -> tensor<0xindex> {\n %0 = stablehlo.constant dense<1.0> : tensor<f32>\n %1 = shape.shape_of %0 : tensor<f32> -> tensor<0xindex>\n return %1 : tensor<0xindex>\n}",
        # refused upstream, legalized here
        "func.func @f(%a: tensor<?x?xf32>, %i: index) -> index {\n %0 = tensor.dim %a, %i : tensor<?x?xf32>\n return %0 : index\n}",
        # (a !shape.shape used inside the computation; returned, both refuse it: ESCAPES below)
        "func.func @f(%a: tensor<?x1xf32>) -> tensor<2xindex> {\n %0 = shape.shape_of %a : tensor<?x1xf32> -> !shape.shape\n"
        " %1 = shape.to_extent_tensor %0 : !shape.shape -> tensor<2xindex>\n return %1 : tensor<2xindex>\n}",
        "func.func @f(%a: tensor<2xindex>, %b: tensor<2xindex>, %c: tensor<1xindex>) -> tensor<2xindex> {\n %0 = shape.broadcast %a, %b, %c : tensor<2xindex>, tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>\n return %0 : tensor<2xindex>\n}",
        "func.func @f(%a: tensor<?x3xindex>) -> index {\n %c = arith.constant 1 : index\n %0 = tensor.extract %a[%c, %c] : tensor<?x3xindex>\n return %0 : index\n}",
    ]
    results = upstream(PASS, cases)
    assert sum(ok for ok, _ in results) == 17
    for text, (up_ok, _) in zip(cases, results):
        module = ours(text, ctx)
        out = str(module)
        assert not re.findall(r"(?<![!\w])(?:shape|tensor|arith)\.\w+", out), out
        module.operation.verify()


def test_scalar_arithmetic_outside_shapes_stays(ctx):
    """arith on i32 / f32 scalars that no shape value feeds is not a shape computation: left as it is
    (upstream refuses arith.muli on i32); a tensor.cast of a data tensor becomes a same-type convert."""
    text = """func.func @f(%x: tensor<?x4xf32>, %a: i32) -> (tensor<3x4xf32>, i32, f32) {
  %c = arith.constant 2 : i32
  %f = arith.constant 1.5 : f32
  %y = tensor.cast %x : tensor<?x4xf32> to tensor<3x4xf32>
  %m = arith.muli %a, %c : i32
  return %y, %m, %f : tensor<3x4xf32>, i32, f32
}"""
    out = str(ours(text, ctx))
    assert "arith.muli %arg1, %c2_i32 : i32" in out and "arith.constant 1.5" in out
    assert "stablehlo.convert %arg0 : (tensor<?x4xf32>) -> tensor<3x4xf32>" in out
    assert "unrealized_conversion_cast" not in out and "tensor.cast" not in out


# -- refused: located, naming the op and the reason, module unchanged ----------------------------------

REFUSED = {
    "witness_returned": ("func.func @f(%a: tensor<2xindex>, %b: tensor<2xindex>) -> !shape.witness {\n"
                         "  %c = arith.constant 3 : index\n"
                         "  %0 = shape.cstr_broadcastable %a, %b : tensor<2xindex>, tensor<2xindex>\n"
                         "  return %0 : !shape.witness\n}", "'func.return' takes a !shape.witness"),
    "unranked": ("func.func @f(%a: tensor<*xf32>) -> tensor<?xindex> {\n"
                 "  %c = arith.constant 3 : index\n"
                 "  %0 = shape.shape_of %a : tensor<*xf32> -> tensor<?xindex>\n"
                 "  return %0 : tensor<?xindex>\n}", "'shape.shape_of' takes an unranked tensor"),
    "shape_argument": ("func.func @f(%a: !shape.shape) -> !shape.size {\n"
                       "  %c = arith.constant 3 : index\n"
                       "  %0 = shape.num_elements %a : !shape.shape -> !shape.size\n"
                       "  return %0 : !shape.size\n}", "'shape.num_elements' takes a !shape.shape of unknown rank"),
    "split_at_dynamic": ("func.func @f(%a: tensor<?x?xf32>, %i: index) -> tensor<?xindex> {\n"
                         "  %s = shape.shape_of %a : tensor<?x?xf32> -> tensor<2xindex>\n"
                         "  %h, %t = \"shape.split_at\"(%s, %i) : (tensor<2xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)\n"
                         "  return %h : tensor<?xindex>\n}", "'shape.split_at' with a non-constant index"),
    "extract_out_of_range": ("func.func @f(%a: tensor<3xindex>) -> index {\n"
                             "  %c = arith.constant 3 : index\n"
                             "  %0 = tensor.extract %a[%c] : tensor<3xindex>\n"
                             "  return %0 : index\n}", "'tensor.extract' index 3 is out of range for dimension 0 of size 3"),
    "unknown_shape_op": ("func.func @f(%a: tensor<2xindex>) -> tensor<2xindex> {\n"
                         "  %c = arith.constant 3 : index\n"
                         "  %0 = shape.shape_of %a : tensor<2xindex> -> tensor<1xindex>\n"
                         "  %1 = tensor.empty() : tensor<2xindex>\n"
                         "  return %1 : tensor<2xindex>\n}", "'tensor.empty' is not supported by shape-legalize-to-stablehlo"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_cases_are_located_and_atomic(name, ctx):
    text, message = REFUSED[name]
    module = hlokit.parse(text, context=ctx, source_name="case.mlir")
    before = str(module)
    with pytest.raises(PassError) as info:
        run_pipeline(module, PASS)
    op = message.split("'")[1].split(".", 1)[1]
    line = next(i for i, l in enumerate(text.splitlines(), 1) if re.search(rf"\b{op}\b", l))
    assert str(info.value).startswith(f"case.mlir:{line}:") and message in str(info.value), str(info.value)
    assert str(module) == before
    module.operation.verify()


# -- programs with ? dimensions: results of the static program ----------------------------------------

# CHLO dynamic broadcasting (jaxlib's C++ CHLO legalization writes the shape dialect for it) and its
# static twin: the same CHLO ops on the concrete types, compiled by XLA.
CHLO_BROADCAST = """
func.func @main(%a: tensor<{A}xf32>, %b: tensor<{B}xf32>, %c: tensor<{C}xf32>) -> (tensor<{R}xf32>, tensor<{R}xf32>, tensor<{R}xi1>) {{
  %0 = chlo.broadcast_multiply %a, %b : (tensor<{A}xf32>, tensor<{B}xf32>) -> tensor<{R}xf32>
  %1 = chlo.broadcast_add %0, %c : (tensor<{R}xf32>, tensor<{C}xf32>) -> tensor<{R}xf32>
  %2 = chlo.broadcast_compare %1, %a {{comparison_direction = #chlo<comparison_direction GT>}} : (tensor<{R}xf32>, tensor<{A}xf32>) -> tensor<{R}xi1>
  return %0, %1, %2 : tensor<{R}xf32>, tensor<{R}xf32>, tensor<{R}xi1>
}}"""

CHLO_NEXT_AFTER = """
func.func @main(%a: tensor<{A}xf32>, %b: tensor<{A}xf32>) -> (tensor<{A}xf32>, tensor<{A}xf32>) {{
  %0 = "chlo.constant_like"(%a) {{value = 0.5 : f32}} : (tensor<{A}xf32>) -> tensor<{A}xf32>
  %1 = chlo.next_after %a, %b : tensor<{A}xf32>, tensor<{A}xf32> -> tensor<{A}xf32>
  %2 = stablehlo.multiply %1, %0 : tensor<{A}xf32>
  return %1, %2 : tensor<{A}xf32>, tensor<{A}xf32>
}}"""


def _prefix(shape) -> str:
    return "x".join("?" if d is None else str(d) for d in shape)


DYNAMIC = {"A": _prefix([None, 1]), "B": _prefix([1, None]), "C": _prefix([None]), "R": _prefix([None, None])}
BROADCAST_SHAPES = [((3, 1), (1, 5), (5,)), ((1, 1), (1, 4), (1,)), ((0, 1), (1, 2), (2,)), ((2, 1), (1, 0), (0,))]


@pytest.fixture(scope="module")
def shape_programs():
    """The shape-dialect forms of the CHLO programs (jaxlib's C++ CHLO legalization, in a subprocess)."""
    texts = [CHLO_BROADCAST.format(**DYNAMIC), CHLO_NEXT_AFTER.format(A="?x4")]
    results = upstream("builtin.module(func.func(chlo-legalize-to-stablehlo))", texts)
    assert all(ok for ok, _ in results), results
    assert all("shape.assuming" in t or "shape.shape_of" in t for _, t in results)
    return {"broadcast": results[0][1], "next_after": results[1][1]}


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=lambda s: "_".join("x".join(map(str, x)) for x in s))
def test_chlo_dynamic_broadcasting_equals_static_program(shapes, shape_programs, ctx):
    legal = str(ours(shape_programs["broadcast"], ctx))
    assert not _left_over(legal)
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    r = np.broadcast_shapes(*shapes)
    static = CHLO_BROADCAST.format(A=_prefix(shapes[0]), B=_prefix(shapes[1]), C=_prefix(shapes[2]), R=_prefix(r))
    want = xla_compile(hlokit.parse(static, context=ctx))(*args)
    interp, xla = run_both(legal, args, ctx)
    a, b, c = args
    exact = [a * b, a * b + c, a * b + c > a]  # the interpreter rounds each op, as numpy does
    for g_i, g_x, w, e in zip(interp, xla, want, exact):
        assert g_i.shape == w.shape and g_x.shape == w.shape
        np.testing.assert_array_equal(g_i, e)
        if w.dtype == np.bool_:
            np.testing.assert_array_equal(g_x, w)
        else:  # XLA may contract a * b + c into one rounding in one program and not in the other
            np.testing.assert_array_max_ulp(g_x, w, maxulp=1)


def test_chlo_dynamic_constants_equal_static_program(shape_programs, ctx):
    legal = str(ours(shape_programs["next_after"], ctx))
    assert not _left_over(legal)
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = np.where(rng.random((3, 4)) < 0.3, a, rng.standard_normal((3, 4))).astype(np.float32)
    want = xla_compile(hlokit.parse(CHLO_NEXT_AFTER.format(A="3x4"), context=ctx))(a, b)
    interp, xla = run_both(legal, [a, b], ctx)
    for g_i, g_x, w in zip(interp, xla, want):
        np.testing.assert_array_equal(g_i, w)
        np.testing.assert_array_equal(g_x, w)


@pytest.mark.parametrize("shape", [(3, 5, 4), (1, 2, 4), (4, 1, 4)])
def test_index_arithmetic_example_equals_numpy(shape, ctx):
    legal = str(ours((EXAMPLES / "index_arith.mlir").read_text(), ctx))
    assert not _left_over(legal)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    d0, d1, _ = shape
    want = [x.reshape(-1), x.reshape(d0 * d1, 4), np.arange(-(-d0 * d1 // 2), dtype=np.int32),
            np.ones((max(d0, d1), 4), np.float32)]
    interp, xla = run_both(legal, [x], ctx)
    for g_i, g_x, w in zip(interp, xla, want):
        np.testing.assert_array_equal(g_i, w)
        np.testing.assert_array_equal(g_x, w)


@pytest.mark.parametrize("path", sorted(p.name for p in EXAMPLES.glob("*.mlir")))
def test_examples_lower_and_run(path, ctx):
    """Every example lowers to StableHLO that stays dynamic; on the concrete types its ``// types:`` line
    names, the interpreter (on the ? program) and XLA (after refinement) agree."""
    text = (EXAMPLES / path).read_text()
    out = str(ours(text, ctx))
    assert not _left_over(out)
    assert "?" in out  # still dynamic: refinement is the consumer's step
    (types,) = re.findall(r"^// types: (.*)$", text, re.M)
    rng = np.random.default_rng(5)
    args = []
    for t in types.split(","):
        dims, et = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", t.strip()).groups()
        shape = [int(d) for d in dims.split("x")[:-1]]
        dtype = {"f32": np.float32, "i32": np.int32}[et]
        args.append(rng.integers(0, 8, shape).astype(dtype) if et == "i32" else rng.standard_normal(shape).astype(dtype))
    interp, xla = run_both(out, args, ctx)
    assert len(interp) == len(xla)
    for g_i, g_x in zip(interp, xla):
        assert g_i.shape == g_x.shape and g_i.dtype == g_x.dtype
        if g_i.dtype == np.float32:
            np.testing.assert_allclose(g_i, g_x, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(g_i, g_x)


def test_jax_export_symbolic_program_equals_static(ctx):
    """A JAX program exported with symbolic shapes (shape computations already StableHLO, dimension
    variables, shape assertions) goes through the pass unchanged in meaning and equals jax.jit."""
    from jax import export

    a, b = export.symbolic_shape("a, b")

    def f(x, y):
        z = jnp.tanh(x[:, None, :] * y) + x.shape[0]
        return jnp.sum(z, axis=-1), z.reshape(-1, 4)

    exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((a, 4), jnp.float32), jax.ShapeDtypeStruct((b, 4), jnp.float32))
    text = exp.mlir_module()
    module = ours(text, ctx, "builtin.module(func.func(chlo-legalize-to-stablehlo,shape-legalize-to-stablehlo))")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((2, 4)).astype(np.float32)
    want = jax.jit(f)(x, y)
    refined = refine(module, [_ttype(x), _ttype(y)])
    run_pipeline(refined, "builtin.module(func.func(stablehlo-check-shape-assertions))")
    got = xla_compile(refined)(x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6, atol=1e-6)
    interp = hlokit.interpret(str(refined), [x, y])
    for g, w in zip(interp, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)


def test_index_bitwidth_64(ctx):
    text, shapes = UPSTREAM_CASES["dim_muli_reshape"]
    module = ours(text, ctx, "builtin.module(func.func(shape-legalize-to-stablehlo{index-bitwidth=64}))")
    out = str(module)
    assert "tensor<2xi64>" in out and not _left_over(out)
    x = np.arange(6, dtype=np.float32).reshape(shapes[0])
    np.testing.assert_array_equal(hlokit.interpret(out, [x])[0], x.reshape(-1, 1))


def test_templates_are_reused(ctx):
    """One template per signature: a second identical op clones the parsed template."""
    p = ShapeLegalizeToStablehlo()
    text = (EXAMPLES / "broadcast_chain.mlir").read_text()
    module = hlokit.parse(text, context=ctx)
    func = module.body.operations[0]
    p.run_on_operation(func.operation)
    n = len(TemplateCache.of_pass(p, ctx).funcs)
    module2 = hlokit.parse(text, context=ctx)
    p.run_on_operation(module2.body.operations[0].operation)
    assert len(TemplateCache.of_pass(p, ctx).funcs) == n
    assert str(module) == str(module2)


REQUIRE = """func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c0 : tensor<?x3xf32>
  %ok = arith.cmpi sge, %d, %c2 : index
  %w = shape.cstr_require %ok, "needs at least 2 rows"
  %r = shape.assuming %w -> (tensor<?x3xf32>) {
    %y = stablehlo.add %x, %x : tensor<?x3xf32>
    shape.assuming_yield %y : tensor<?x3xf32>
  }
  return %r : tensor<?x3xf32>
}"""


@pytest.mark.parametrize("rows", [1, 2, 4])
def test_assertions_option_checks_constraints_after_refinement(rows, ctx):
    """assertions=true: a constraint becomes JAX's shape_assertion custom call, which upstream's
    stablehlo-check-shape-assertions decides once shapes are refined (default: constraints are dropped)."""
    dropped = str(ours(REQUIRE, ctx))
    assert "shape_assertion" not in dropped and not _left_over(dropped)
    module = ours(REQUIRE, ctx, "builtin.module(func.func(shape-legalize-to-stablehlo{assertions=true}))")
    assert 'error_message = "needs at least 2 rows"' in str(module) and not _left_over(str(module))
    x = np.ones((rows, 3), np.float32)
    if rows < 2:
        with pytest.raises(PassError, match="needs at least 2 rows"):
            run_pipeline(refine(module, [_ttype(x)]), "builtin.module(func.func(stablehlo-check-shape-assertions))")
        return
    run_pipeline(refine(module, [_ttype(x)]), "builtin.module(func.func(stablehlo-check-shape-assertions))")
    assert "shape_assertion" not in str(module)
    np.testing.assert_array_equal(xla_compile(module)(x)[0], x + x)


def test_assertions_for_broadcasting_fold_after_refinement(ctx):
    module = ours((EXAMPLES / "broadcast_chain.mlir").read_text(), ctx,
                  "builtin.module(func.func(shape-legalize-to-stablehlo{assertions=true}))")
    assert str(module).count("@shape_assertion") == 3
    args = [np.full((3, 1), 2, np.float32), np.full((1, 5), 3, np.float32), np.ones(5, np.float32)]
    refine(module, [_ttype(a) for a in args])
    run_pipeline(module, "builtin.module(func.func(stablehlo-check-shape-assertions))")
    assert "shape_assertion" not in str(module)
    np.testing.assert_array_equal(xla_compile(module)(*args)[1], np.full((3, 5), 7, np.float32))


@pytest.mark.parametrize("shapes", [[(0, 1), (1, 1)], [(2, 1, 3), (3,), (1, 1, 1)], [(1,), (5,)], [(4, 0), (1, 1), (1,)],
                                    [(), (2, 3)], [(3, 1), (1, 0)]])
def test_broadcast_of_many_shapes_follows_numpy(shapes, ctx):
    """shape.broadcast of any number of shapes (ranks aligned on the right, 1 stretches, 0 stays 0:
    numpy's and the shape dialect's rule) on the interpreter: the broadcast ones' shape."""
    r = len(max(shapes, key=len))
    args = ", ".join(f"%a{i}: tensor<{'?x' * len(s)}f32>" for i, s in enumerate(shapes))
    lines = [f"  %s{i} = shape.shape_of %a{i} : tensor<{'?x' * len(s)}f32> -> tensor<{len(s)}xindex>"
             for i, s in enumerate(shapes)]
    operands = ", ".join(f"%s{i}" for i in range(len(shapes)))
    types = ", ".join(f"tensor<{len(s)}xindex>" for s in shapes)
    text = (f"func.func @main({args}) -> tensor<{'?x' * r}f32> {{\n" + "\n".join(lines) + "\n"
            f"  %b = shape.broadcast {operands} : {types} -> tensor<{r}xindex>\n"
            "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
            f"  %r = stablehlo.dynamic_broadcast_in_dim %one, %b, dims = [] : (tensor<f32>, tensor<{r}xindex>) -> tensor<{'?x' * r}f32>\n"
            f"  return %r : tensor<{'?x' * r}f32>\n}}")
    out = str(ours(text, ctx))
    assert not _left_over(out)
    (got,) = hlokit.interpret(out, [np.zeros(s, np.float32) for s in shapes])
    assert got.shape == np.broadcast_shapes(*shapes)


# -- a !shape.* result that leaves the computation fails as upstream fails it ------------------------

ESCAPES = {
    "num_elements": ("""
func.func @main(%arg0: tensor<2xindex>) -> !shape.size {
  %0 = shape.num_elements %arg0 : tensor<2xindex> -> !shape.size
  func.return %0 : !shape.size
}""", "shape.num_elements", 3),
    "shape_of": ("""
func.func @main(%arg0: tensor<?x1xf32>) -> !shape.shape {
  %0 = shape.shape_of %arg0 : tensor<?x1xf32> -> !shape.shape
  func.return %0 : !shape.shape
}""", "shape.shape_of", 3),
    "broadcast": ("""
func.func @main(%arg0: tensor<4xindex>, %arg1: tensor<4xindex>) -> !shape.shape {
  %0 = shape.broadcast %arg0, %arg1 : tensor<4xindex>, tensor<4xindex> -> !shape.shape
  func.return %0 : !shape.shape
}""", "shape.broadcast", 3),
    "used_by_a_call": ("""
func.func private @sink(!shape.size)
func.func @main(%arg0: tensor<2x?xf32>) -> index {
  %s = shape.shape_of %arg0 : tensor<2x?xf32> -> !shape.shape
  %n = shape.num_elements %s : !shape.shape -> !shape.size
  func.call @sink(%n) : (!shape.size) -> ()
  %i = shape.size_to_index %n : !shape.size
  func.return %i : index
}""", "shape.num_elements", 5),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_shape_typed_result_leaving_the_computation_fails_like_upstream(name, ctx):
    text, op, line = ESCAPES[name]
    module = hlokit.parse(text, context=ctx)
    before = str(module)
    with pytest.raises(PassError) as info:
        run_pipeline(module, PASS)
    (diag,) = info.value.diagnostics
    assert diag.message.startswith(f"failed to legalize operation '{op}' that was explicitly marked illegal: ")
    assert diag.line == line
    assert str(module) == before  # nothing rewritten
    assert module.operation.verify()


def test_upstream_refuses_the_same_programs():
    names = sorted(ESCAPES)
    for name, (ok, err) in zip(names, upstream(PASS, [ESCAPES[n][0] for n in names])):
        assert not ok, name
        # upstream refuses every !shape.shape result, even one used inside the computation (hlokit lowers those)
        op = "shape.shape_of" if name == "used_by_a_call" else ESCAPES[name][1]
        assert f"failed to legalize operation '{op}' that was explicitly marked illegal" in err, (name, err)


def test_shape_typed_values_consumed_inside_are_still_lowered(ctx):
    module = ours("""
func.func @main(%arg0: tensor<2x?xf32>) -> index {
  %s = shape.shape_of %arg0 : tensor<2x?xf32> -> !shape.shape
  %n = shape.num_elements %s : !shape.shape -> !shape.size
  %i = shape.size_to_index %n : !shape.size
  func.return %i : index
}""", ctx)
    assert "!shape" not in str(module) and "stablehlo.get_dimension_size" in str(module)


def test_hlokit_opt_reports_the_escape_located(tmp_path):
    src = tmp_path / "esc.mlir"
    src.write_text(ESCAPES["shape_of"][0])
    out = tmp_path / "out.mlir"
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", "--shape-legalize-to-stablehlo",
                           str(src), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{src}:3:8: error: failed to legalize operation 'shape.shape_of' "
                                  "that was explicitly marked illegal")
    assert "Traceback" not in proc.stderr and not out.exists()


# -- the fast paths of issue 40 item 1 (one read per op) --------------------------------------------------

def test_generated_benchmark_program_runs(ctx):
    """benchmarks/passes_speed.py's shape program (a data tensor and the same index constants used by every
    block, extents read twice, casts, arith on index) legalized: every shape op gone, each data argument read
    where it is used, and the results those of numpy on the refined shapes."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import passes_speed
    finally:
        sys.path.pop(0)
    text = passes_speed.make_shape_module(60)
    out = str(ours(text, ctx))
    assert not _left_over(out) and out.count("stablehlo.dynamic_reshape") == text.count("stablehlo.dynamic_reshape")
    # (rows >= 4: each block broadcasts its reshape to max(rows, 4) rows)
    x, y, z = np.arange(20, dtype=np.float32).reshape(5, 4), np.ones(4, np.float32), np.zeros((2, 5), np.float32)
    (got,) = hlokit.interpret(out, [x, y, z])
    np.testing.assert_array_equal(got, 2 * x)
