"""The IR reductions of hlokit-reduce (hlokit.triage.reductions): per reduction, on small programs, the sites
are listed deterministically, applying all / one / a subset of them gives a module that verifies and is
smaller (fewer ops, or smaller shapes / simpler constants), and a program where a reduction does not fit has
no sites; then a sweep over the examples: each site alone either verifies or is refused, never a crash."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.interpreter.values import dense_attribute
from hlokit.triage.reductions import REDUCTIONS, ReductionNotApplicable, by_name
from hlokit.triage.reductions_base import all_ops

REPO = pathlib.Path(__file__).resolve().parents[2]


def _parse(text: str) -> ir.Module:
    return hlokit.parse(text)


def _clone(module: ir.Module) -> ir.Module:
    """A copy the way the driver makes one (generic form, debug info kept)."""
    text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
    return ir.Module.parse(text, module.context)


def _ops(module: ir.Module) -> list[str]:
    """Names of the ops of the module but functions and terminators (what the reducer counts)."""
    out = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                ops = list(block.operations)
                for i, child in enumerate(ops):
                    child = child.operation
                    if child.name != "func.func" and not (i == len(ops) - 1 and not len(child.results)):
                        out.append(child.name)
                    visit(child)

    visit(module.operation)
    return out


def _apply(name: str, module: ir.Module, sites) -> ir.Module:
    """Apply reduction ``name`` at ``sites`` to a clone of ``module``; the clone must verify."""
    copy = _clone(module)
    by_name(name).apply(copy, list(sites))
    copy.operation.verify()
    assert "hlokit.reduce" not in str(copy)  # no marker left behind
    return copy


def _main_type(module: ir.Module) -> str:
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return str(ir.TypeAttr(op.attributes["function_type"]).value)
    raise AssertionError("no @main")


# -- the interface ------------------------------------------------------------------------------------------

def test_every_reduction_has_a_flag_like_unique_name():
    names = [r.name for r in REDUCTIONS]
    assert len(set(names)) == len(names) == 14
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)+", n) for n in names), names
    assert names[:3] == ["drop-results", "erase-unused-functions", "erase-unused-ops"]  # big wins first
    with pytest.raises(KeyError):
        by_name("no-such-reduction")


def _plain(site) -> bool:
    if isinstance(site, (int, str)):
        return True
    return isinstance(site, tuple) and all(isinstance(x, (int, str)) for x in site)


BIG = """
func.func private @f(%x: tensor<8x4xf32>, %unused: tensor<i32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = stablehlo.exponential %x : tensor<8x4xf32>
  return %0, %x : tensor<8x4xf32>, tensor<8x4xf32>
}
func.func private @dead(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @main(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>, %i: tensor<i32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %c = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<8x4xf32>
  %0 = stablehlo.add %a, %b : tensor<8x4xf32>
  %1:2 = func.call @f(%0, %i) : (tensor<8x4xf32>, tensor<i32>) -> (tensor<8x4xf32>, tensor<8x4xf32>)
  %dead = stablehlo.multiply %1#0, %1#0 : tensor<8x4xf32>
  %2:2 = stablehlo.while(%it = %1#0, %k = %i) : tensor<8x4xf32>, tensor<i32>
    cond {
      %c10 = stablehlo.constant dense<10> : tensor<i32>
      %lt = stablehlo.compare LT, %k, %c10 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %k1 = stablehlo.add %k, %one : tensor<i32>
      %n = stablehlo.tanh %it : tensor<8x4xf32>
      stablehlo.return %n, %k1 : tensor<8x4xf32>, tensor<i32>
    }
  %3 = stablehlo.multiply %2#0, %cb : tensor<8x4xf32>
  return %3, %b : tensor<8x4xf32>, tensor<8x4xf32>
}
"""


@pytest.mark.parametrize("reduction", REDUCTIONS, ids=lambda r: r.name)
def test_sites_are_plain_deterministic_and_the_same_on_a_copy(reduction):
    module = _parse(BIG)
    sites = reduction.sites(module)
    assert sites, reduction.name  # BIG has a place for every reduction
    assert all(_plain(s) for s in sites), sites
    assert sites == reduction.sites(module) == reduction.sites(_clone(module))
    before = str(module)
    for s in sites:  # each alone: verifies or is refused (the driver drops a candidate that does not verify)
        copy = _clone(module)
        try:
            reduction.apply(copy, [s])
        except ReductionNotApplicable:
            continue
        try:
            copy.operation.verify()
        except ir.MLIRError:
            assert reduction.name == "shrink-shapes", (reduction.name, s)
    assert str(module) == before  # sites() never changes the module


@pytest.mark.parametrize("reduction", REDUCTIONS, ids=lambda r: r.name)
def test_any_subset_of_sites_is_well_defined_and_deterministic(reduction):
    module = _parse(BIG)
    sites = reduction.sites(module)
    forward, backward = _clone(module), _clone(module)
    try:
        reduction.apply(forward, sites)
        reduction.apply(backward, sites[::-1])
        assert str(forward) == str(backward)  # the order sites are given in does not matter
    except ReductionNotApplicable:
        pass
    for subset in (sites, sites[::2], sites[1::2], sites[len(sites) // 2:]):
        if not subset:
            continue
        texts = []
        for _ in range(2):
            copy = _clone(module)
            try:
                reduction.apply(copy, subset)
            except ReductionNotApplicable:
                texts.append(None)
                continue
            texts.append(str(copy))
        assert texts[0] == texts[1], (reduction.name, subset)  # the same candidate every time
        if texts[0] is not None and reduction.name != "shrink-shapes":
            copy = _clone(module)
            reduction.apply(copy, subset)
            copy.operation.verify()
            assert texts[0] != str(module)


@pytest.mark.parametrize("reduction", REDUCTIONS, ids=lambda r: r.name)
def test_a_site_of_another_module_is_refused(reduction):
    module = _parse("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}")
    assert reduction.sites(module) == [] or reduction.name in ("shrink-shapes", "drop-results")
    with pytest.raises(ReductionNotApplicable):
        reduction.apply(_clone(module), [(999, 0, 0)] if reduction.name == "replace-with-operand"
                        else [(999, 0)] if reduction.name in ("replace-with-zero", "replace-with-one",
                                                               "replace-with-argument", "inline-regions")
                        else [("nosuch", 0)] if reduction.name in ("drop-results", "drop-unused-arguments")
                        else ["nosuch"] if reduction.name == "erase-unused-functions"
                        else [999])


# -- one test per reduction ---------------------------------------------------------------------------------

DEAD = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.negate %a : tensor<4xf32>
  %3 = stablehlo.custom_call @effect(%a) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""


def test_erase_unused_ops_takes_dead_chains_and_keeps_effects():
    module = _parse(DEAD)
    r = by_name("erase-unused-ops")
    sites = r.sites(module)
    assert len(sites) == 2  # add and exponential (the chain); not the side-effecting custom_call
    assert _ops(_apply(r.name, module, sites)) == ["stablehlo.negate", "stablehlo.custom_call"]
    assert _ops(_apply(r.name, module, [sites[1]])) == ["stablehlo.add", "stablehlo.negate", "stablehlo.custom_call"]
    with pytest.raises(ReductionNotApplicable):  # the producer alone: its consumer still uses it
        r.apply(_clone(module), [sites[0]])
    assert r.sites(_apply(r.name, module, sites)) == []


ELEMENTWISE = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.convert %1 : (tensor<4xf32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}
"""


def test_replace_with_operand():
    module = _parse(ELEMENTWISE)
    r = by_name("replace-with-operand")
    sites = r.sites(module)
    assert sites == [(1, 0, 0), (1, 0, 1), (2, 0, 0)]  # add (either operand), exponential; not convert
    out = _apply(r.name, module, [(2, 0, 0)])
    assert _ops(out) == ["stablehlo.add", "stablehlo.convert"]
    out = _apply(r.name, module, [(1, 0, 1)])
    assert _ops(out) == ["stablehlo.exponential", "stablehlo.convert"]
    assert "stablehlo.exponential %arg1" in str(out)
    out = _apply(r.name, module, sites)  # two sites of one result: the first wins; all together
    assert _ops(out) == ["stablehlo.convert"]
    assert "stablehlo.convert %arg0" in str(out)
    assert r.sites(_parse("func.func @main(%a: tensor<4xf32>) -> tensor<4xi32> {\n"
                          "  %0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>\n"
                          "  return %0 : tensor<4xi32>\n}")) == []


TYPES = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xbf16>, %c: tensor<2xcomplex<f32>>, %d: tensor<2xi8>,
                %e: tensor<2xi1>, %f: tensor<2xui4>, %g: tensor<2xf8E4M3FN>)
    -> (tensor<2xf32>, tensor<2xbf16>, tensor<2xcomplex<f32>>, tensor<2xi8>, tensor<2xi1>, tensor<2xui4>,
        tensor<2xf8E4M3FN>) {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = stablehlo.negate %b : tensor<2xbf16>
  %2 = stablehlo.negate %c : tensor<2xcomplex<f32>>
  %3 = stablehlo.negate %d : tensor<2xi8>
  %4 = stablehlo.not %e : tensor<2xi1>
  %5 = stablehlo.not %f : tensor<2xui4>
  %6 = stablehlo.abs %g : tensor<2xf8E4M3FN>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xf32>, tensor<2xbf16>, tensor<2xcomplex<f32>>, tensor<2xi8>,
    tensor<2xi1>, tensor<2xui4>, tensor<2xf8E4M3FN>
}
"""


@pytest.mark.parametrize("name, value", [("replace-with-zero", 0), ("replace-with-one", 1)])
def test_replace_with_a_constant_of_every_element_type(name, value):
    module = _parse(TYPES)
    r = by_name(name)
    sites = r.sites(module)
    assert sites == [(i, 0) for i in range(1, 8)]
    for s in sites:
        out = _apply(name, module, [s])
        assert len(_ops(out)) == 7 and _ops(out).count("stablehlo.constant") == 1
    out = _apply(name, module, sites[::2])  # a subset
    assert _ops(out).count("stablehlo.constant") == 4
    out = _apply(name, module, sites)
    assert set(_ops(out)) == {"stablehlo.constant"}
    for op in out.body.operations[0].regions[0].blocks[0].operations:
        if op.operation.name == "stablehlo.constant":
            arr = dense_attribute(op, "value")
            assert np.all(arr.astype(np.complex128) == value), (op, arr)
    assert r.sites(_parse("func.func @main() -> tensor<2xf32> {\n"
                          "  %0 = stablehlo.constant dense<2.0> : tensor<2xf32>\n"
                          "  return %0 : tensor<2xf32>\n}")) == []


def test_replace_with_a_constant_leaves_dead_producers_to_erase_unused_ops():
    module = _parse(ELEMENTWISE)
    out = _apply("replace-with-zero", module, [(3, 0)])  # convert's result: convert goes, its producers stay
    assert _ops(out) == ["stablehlo.add", "stablehlo.exponential", "stablehlo.constant"]
    erase = by_name("erase-unused-ops")
    assert erase.sites(out) == [1, 2]  # the dead chain, at once or one op at a time
    assert _ops(_apply(erase.name, out, [2])) == ["stablehlo.add", "stablehlo.constant"]
    assert _ops(_apply(erase.name, out, [1, 2])) == ["stablehlo.constant"]


def test_replace_with_argument_only_in_uncalled_functions():
    module = _parse(BIG)
    r = by_name("replace-with-argument")
    names = [op.name for op in all_ops(module)]
    sites = r.sites(module)
    assert names[:3] == ["func.func", "stablehlo.exponential", "func.return"]
    assert all(i > 5 for i, _ in sites)  # the ops of @f (called) and @dead are no sites; @main's are
    add = names.index("stablehlo.add")
    assert (add, 0) in sites
    out = _apply(r.name, module, [(add, 0)])
    assert _main_type(out).startswith("(tensor<8x4xf32>, tensor<8x4xf32>, tensor<i32>, tensor<8x4xf32>) ->")
    assert "stablehlo.add %arg0, %arg1" not in str(out) and "stablehlo.add %arg0, %arg1" in str(module)
    out = _apply(r.name, module, sites[:3])
    assert _main_type(out).count(",") == _main_type(module).count(",") + 3
    calls = _parse(CALLS)  # the ops of @g (called) are no sites, @main's calls are
    assert {all_ops(calls)[i].name for i, _ in r.sites(calls)} == {"func.call"}


def test_drop_results_of_main_and_of_a_function_whose_calls_ignore_them():
    module = _parse(BIG)
    r = by_name("drop-results")
    sites = r.sites(module)
    assert sites == [("f", 1), ("dead", 0), ("main", 0), ("main", 1)]  # @f's result 0 is used
    out = _apply(r.name, module, [("main", 0)])
    assert _main_type(out).endswith("-> tensor<8x4xf32>")
    dead = by_name("erase-unused-ops").sites(out)  # the producers of the dropped value, left dead
    assert [all_ops(out)[i].name for i in dead][-2:] == ["stablehlo.while", "stablehlo.multiply"]
    out = _apply(r.name, module, [("f", 1)])
    assert re.search(r"call @f\(%\d+, %arg2\) : \(tensor<8x4xf32>, tensor<i32>\) -> tensor<8x4xf32>\n", str(out))
    out = _apply(r.name, module, sites)
    assert _main_type(out).endswith("-> ()")
    with pytest.raises(ReductionNotApplicable):
        r.apply(_clone(module), [("f", 0)])


def test_drop_unused_arguments_updates_the_calls():
    module = _parse(BIG)
    r = by_name("drop-unused-arguments")
    assert r.sites(module) == [("f", 1)]
    out = _apply(r.name, module, [("f", 1)])
    assert re.search(r"call @f\(%\d+\) : \(tensor<8x4xf32>\) ->", str(out))
    assert "func.func private @f(%arg0: tensor<8x4xf32>) ->" in str(out)
    assert r.sites(_parse(ELEMENTWISE)) == []


def test_erase_unused_functions():
    module = _parse(BIG)
    r = by_name("erase-unused-functions")
    assert r.sites(module) == ["dead"]
    out = _apply(r.name, module, ["dead"])
    assert "@dead" not in str(out) and "@f(" in str(out)
    with pytest.raises(ReductionNotApplicable):
        r.apply(_clone(module), ["f"])  # called
    assert r.sites(_parse(ELEMENTWISE)) == []


CALLS = """
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.sine %x : tensor<4xf32>
  %1 = stablehlo.cosine %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @g(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def test_inline_calls():
    module = _parse(CALLS)
    r = by_name("inline-calls")
    sites = r.sites(module)
    assert sites == [5, 6]  # pre-order: @g, its 3 ops, @main, the calls
    out = _apply(r.name, module, [6])
    assert _ops(out).count("func.call") == 1 and "func.func private @g" in str(out)
    out = _apply(r.name, module, sites)  # the callee, no longer called, goes too
    assert _ops(out) == ["stablehlo.sine", "stablehlo.cosine"] * 2 and "@g" not in str(out)
    assert r.sites(_parse(ELEMENTWISE)) == []


CASE = """
func.func @main(%i: tensor<i32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %a : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %c = stablehlo.cosine %a : tensor<4xf32>
    %t = stablehlo.tanh %c : tensor<4xf32>
    stablehlo.return %t : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_inline_regions_case_and_while():
    module = _parse(CASE)
    r = by_name("inline-regions")
    assert r.sites(module) == [(1, 0), (1, 1)]
    assert _ops(_apply(r.name, module, [(1, 1)])) == ["stablehlo.cosine", "stablehlo.tanh"]
    assert _ops(_apply(r.name, module, [(1, 0)])) == ["stablehlo.sine"]
    assert _ops(_apply(r.name, module, [(1, 1), (1, 0)])) == ["stablehlo.sine"]  # one branch per op
    module = _parse(BIG)
    (site,) = r.sites(module)
    out = _apply(r.name, module, [site])
    assert "stablehlo.while" not in str(out) and "stablehlo.tanh" in str(out)
    assert "stablehlo.compare" not in str(out)
    assert r.sites(_parse(ELEMENTWISE)) == []


SHAPES = """
func.func @main(%a: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %0 = stablehlo.add %a, %bb : tensor<8x4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.multiply %0, %wb : tensor<8x4xf32>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [1]
    : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = stablehlo.exponential %2 : tensor<8xf32>
  return %3 : tensor<8xf32>
}
"""


def test_shrink_shapes_halves_a_size_through_the_program():
    module = _parse(SHAPES)
    r = by_name("shrink-shapes")
    assert r.sites(module) == [8, 4]
    out = _apply(r.name, module, [8])
    assert _main_type(out) == "(tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>"
    out = _apply(r.name, module, [4])
    assert _main_type(out) == "(tensor<8x2xf32>, tensor<2xf32>) -> tensor<8xf32>"
    assert "dense<[1.000000e+00, 2.000000e+00]>" in str(out)  # the constant keeps its first half
    out = _apply(r.name, module, [8, 4])
    assert _main_type(out) == "(tensor<4x2xf32>, tensor<2xf32>) -> tensor<4xf32>"
    assert r.sites(_parse("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}")) == []


def test_shrink_shapes_follows_slices_or_refuses_them():
    module = _parse("""
func.func @main(%a: tensor<8x5xf32>, %i: tensor<i32>) -> (tensor<6x5xf32>, tensor<8x2xf32>, tensor<2x5xf32>) {
  %0 = stablehlo.slice %a [2:8, 0:5] : (tensor<8x5xf32>) -> tensor<6x5xf32>
  %1 = stablehlo.slice %a [0:8, 1:3] : (tensor<8x5xf32>) -> tensor<8x2xf32>
  %2 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 5]
    : (tensor<8x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x5xf32>
  return %0, %1, %2 : tensor<6x5xf32>, tensor<8x2xf32>, tensor<2x5xf32>
}""")
    r = by_name("shrink-shapes")
    assert r.sites(module) == [8, 5]
    out = _apply(r.name, module, [8])  # even windows of an even size halve; a whole dimension stays whole
    assert _main_type(out) == "(tensor<4x5xf32>, tensor<i32>) -> (tensor<3x5xf32>, tensor<4x2xf32>, tensor<1x5xf32>)"
    assert "[1:4, 0:5]" in str(out) and "[0:4, 1:3]" in str(out)
    with pytest.raises(ReductionNotApplicable):  # [1:3] of 5 -> 2: past the first 2, and 5 is odd
        r.apply(_clone(module), [5])


CONSTANTS = """
func.func @main() -> (tensor<6xi32>, tensor<2x2xbf16>, tensor<3xf32>) {
  %0 = stablehlo.constant dense<[5, 7, 9, 7, 11, 5]> : tensor<6xi32>
  %1 = stablehlo.constant dense<[[1.5, 2.5], [3.5, 1.5]]> : tensor<2x2xbf16>
  %2 = stablehlo.constant dense<2.0> : tensor<3xf32>
  return %0, %1, %2 : tensor<6xi32>, tensor<2x2xbf16>, tensor<3xf32>
}
"""


def test_simplify_constants():
    module = _parse(CONSTANTS)
    r = by_name("simplify-constants")
    assert r.sites(module) == [(1, "splat"), (1, "fewer-values"), (2, "splat"), (2, "fewer-values")]
    out = _apply(r.name, module, [(1, "splat")])
    assert "dense<5> : tensor<6xi32>" in str(out)
    out = _apply(r.name, module, [(1, "fewer-values")])  # 4 distinct values: 5 and 7 kept
    assert "dense<[5, 7, 5, 7, 5, 5]> : tensor<6xi32>" in str(out)
    out = _apply(r.name, module, [(2, "splat"), (1, "fewer-values"), (1, "splat")])
    assert "dense<5> : tensor<6xi32>" in str(out) and "dense<1.500000e+00> : tensor<2x2xbf16>" in str(out)
    assert r.sites(out) == []


# -- every site of every example, alone -------------------------------------------------------------------

EXAMPLES = sorted(REPO.glob("examples/*.mlir")) + sorted(REPO.glob("examples/models/*.mlirbc"))


def _sweep(path: pathlib.Path, limit: int | None) -> None:
    module = hlokit.load(str(path))
    for reduction in REDUCTIONS:
        sites = reduction.sites(module)
        assert sites == reduction.sites(module)
        step = 1 if limit is None else max(1, len(sites) // limit)
        for site in sites[::step]:
            copy = _clone(module)
            try:
                reduction.apply(copy, [site])
            except ReductionNotApplicable:
                continue
            try:
                copy.operation.verify()  # or not: the driver drops it
            except ir.MLIRError:
                continue
            assert "hlokit.reduce" not in str(copy)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_sites_apply_alone(path):
    _sweep(path, limit=6)


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_every_site_applies_alone(path):
    _sweep(path, limit=None)
