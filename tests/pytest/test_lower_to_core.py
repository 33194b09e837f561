"""``--stablehlo-lower-to-core``: every program of examples/ becomes core StableHLO that XLA runs with the
original's results, and that the interpreter runs too."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit import backend
from hlokit.backend import module_device_needs
from hlokit.passes import get_pipeline, run_pipeline
from hlokit.passes.registry import Pass, register_pass
from hlokit.passes.stablehlo_lower_to_core import (
    LOWER_TO_CORE_STEPS, lowering_passes, non_core_custom_calls, non_core_op_names, non_core_ops)
from hlokit.tools.hlokit_run import random_input

REPO = pathlib.Path(__file__).resolve().parents[2]
# (examples/reduce/ holds programs that show a problem on purpose: one crashes XLA's compiler, one makes XLA and
# the interpreter differ; hlokit-reduce shrinks them in tests/pytest/test_reduce.py)
EXAMPLES = sorted(p for p in (REPO / "examples").rglob("*.mlir") if p.parent.name != "reduce")
PIPELINE = "builtin.module(stablehlo-lower-to-core)"


def _id(p: pathlib.Path) -> str:
    return str(p.relative_to(REPO / "examples"))


def _lowered(path: pathlib.Path, ctx):
    module = hlokit.parse(path.read_text(), context=ctx, source_name=str(path))
    run_pipeline(module, PIPELINE, source_name=str(path))
    return module


def test_the_pipeline_is_registered_with_every_step():
    pipeline = get_pipeline("stablehlo-lower-to-core")
    assert pipeline is not None
    assert pipeline.text.split(",") == list(LOWER_TO_CORE_STEPS)
    for step in LOWER_TO_CORE_STEPS:
        if step not in ("canonicalize", "cse"):
            assert hlokit.passes.get_pass(step) is not None, step  # each step is hlokit's Python pass


@pytest.mark.parametrize("path", EXAMPLES, ids=_id)
def test_every_example_lowers_to_core(path):
    ctx = hlokit.make_context()
    module = _lowered(path, ctx)
    module.operation.verify()
    left = sorted({op.name for op in non_core_ops(module)})
    assert not left, f"{_id(path)}: not lowered: {left}"
    names = set()
    module.operation.walk(lambda op: names.add(op.name) or ir.WalkResult.ADVANCE)
    assert {n.split(".", 1)[0] for n in names} <= {"builtin", "func", "stablehlo", "sdy"}, f"{_id(path)}: {sorted(names)}"


def test_nothing_left_is_the_union_of_what_the_steps_declare():
    """The "nothing left" set is derived: every op of it is declared by a step of the pipeline and every
    declared op is in it; it covers the ops that are not core StableHLO, per dialect and by name."""
    classes = lowering_passes()
    assert [c.argument for c in classes] == [s for s in LOWER_TO_CORE_STEPS if s not in ("canonicalize", "cse")]
    names, targets = non_core_op_names(), non_core_custom_calls()
    assert names == set().union(*(c.illegal_ops for c in classes))
    assert targets == set().union(*(c.illegal_custom_calls for c in classes))
    for op in names:
        assert any(op in c.illegal_ops for c in classes), op
    assert {"stablehlo.dot", "stablehlo.create_token", "stablehlo.cholesky", "stablehlo.rng", "chlo.erf",
            "shape.shape_of", "stablehlo.batch_norm_training", "stablehlo.einsum"} <= names
    assert {n.split(".", 1)[0] for n in names} == {"chlo", "shape", "tensor", "arith", "stablehlo"}
    assert "lapack_sgetrf_ffi" in targets and {"LuDecomposition", "Sharding"} <= targets
    assert "stablehlo.add" not in names and "stablehlo.dot_general" not in names


def test_a_step_that_declares_an_op_adds_it_to_what_must_be_left(monkeypatch):
    """A pass added to the pipeline contributes its declared ops (a fresh registry state: nothing leaks)."""
    from hlokit.passes import registry

    registry.load_builtin_passes()
    monkeypatch.setattr(registry, "PASSES", dict(registry.PASSES))
    monkeypatch.setattr(registry, "PIPELINES", dict(registry.PIPELINES))

    @register_pass
    class RemoveCosine(Pass):
        argument = "test-remove-cosine"
        illegal_ops = frozenset({"stablehlo.cosine"})
        illegal_custom_calls = frozenset({"my_target"})

    pipeline = registry.PIPELINES["stablehlo-lower-to-core"]
    registry.PIPELINES["stablehlo-lower-to-core"] = type(pipeline)(pipeline.argument, pipeline.summary,
                                                                   pipeline.text + ",test-remove-cosine")
    assert "stablehlo.cosine" in non_core_op_names() and "my_target" in non_core_custom_calls()
    module = hlokit.parse("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.cosine %x : tensor<2xf32>
  %1 = stablehlo.custom_call @my_target(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = stablehlo.custom_call @other(%1) : (tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}""", context=hlokit.make_context())
    found = non_core_ops(module)
    assert [op.name for op in found] == ["stablehlo.cosine", "stablehlo.custom_call"]
    assert "my_target" in str(found[1])


def _single_device(path) -> bool:
    module = hlokit.parse(path.read_text(), context=hlokit.make_context())
    replicas, partitions = module_device_needs(module)
    return replicas * partitions == 1


SINGLE = [p for p in EXAMPLES if _single_device(p)]


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Bit patterns equal, or: integers and booleans exactly; floats to max(1e-3, 16 eps) of the output's
    largest magnitude (the expansions reassociate sums and use other algorithms than XLA's, e.g. for
    cholesky; bf16 / f16 results round coarsely); NaNs where XLA has them."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if got.tobytes() == want.tobytes():
        return
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    w = want.astype(g.dtype)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=what)
    finite = ~np.isnan(w)
    scale = max(1.0, float(np.max(np.abs(w[finite]), initial=0.0)))
    eps = float(np.finfo(want.real.dtype).eps) if want.dtype.kind in "fc" and want.dtype.itemsize >= 2 else 2.0**-7
    assert np.max(np.abs(g[finite] - w[finite]), initial=0.0) <= max(1e-3, 16 * eps) * scale, what


#: Examples whose outputs are compared elsewhere, with the right notion of "equal":
#: eigenvectors and singular vectors are unique only up to sign / phase, and eig's eigenvalues (geev; the complex
#: Schur form's diagonal: gees) have no set order (tests/pytest/test_lapack_decompositions.py);
#: XLA's ``rng`` draws from per-process state, so it is compared in a fresh process (tests/pytest/test_expand_rng.py);
#: XLA runs quantized programs only after stablehlo-legalize-quant-to-math (not a lower-to-core step: quantized
#: types are core StableHLO), compared with the interpreter in tests/pytest/test_legalize_quant_to_math.py.
COMPARED_ELSEWHERE = ("linalg/eig", "linalg/schur_", "linalg/svd_", "lower_to_core/rng/rng_", "quantized_")


def _refined(module, text: str):
    """``module`` with the concrete argument types of the program's ``// types: ...`` line (dynamic-shape
    examples), through upstream's refinement passes (tools here, not hlokit's job); None without one."""
    line = next((ln for ln in text.splitlines() if ln.startswith("// types:")), None)
    if line is None:
        return None
    types = line.split(":", 1)[1].strip()
    run_pipeline(module, f"builtin.module(stablehlo-refine-arguments{{types={types}}},stablehlo-refine-shapes)")
    return module


@pytest.mark.parametrize("path", SINGLE, ids=_id)
def test_lowered_examples_give_xlas_results_on_xla_and_on_the_interpreter(path):
    """XLA runs the lowered program with the original's results (dynamic-shape programs: after shape
    refinement), and so does the interpreter; where XLA cannot compile the original (shape-dialect
    ops, unary_einsum), the lowered program on XLA and on the interpreter agree."""
    if _id(path).startswith(COMPARED_ELSEWHERE):
        pytest.skip("compared with its own notion of equality in a dedicated test")
    ctx = hlokit.make_context()
    text = path.read_text()
    module = _lowered(path, ctx)
    dynamic = _refined(module, text) is not None
    specs, _ = backend.signature(module)
    rng = np.random.default_rng(0)
    # Floats scaled down: the deep examples (a 4-layer transformer) would amplify rounding differences
    # of unit-variance weights beyond any honest bound.
    args = [a * np.asarray(0.25, a.dtype) if a.dtype.kind in "fc" else a
            for a in (random_input(s, rng) for s in specs)]
    got = backend.compile(module)(*args)
    original = hlokit.parse(text, context=ctx)
    if dynamic:
        _refined(original, text)
    try:
        want = backend.compile(original)(*args)
    except backend.BackendError:
        want = got  # XLA cannot run the original (shape-dialect ops, unary_einsum): the engines must agree
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{_id(path)} output {i} (XLA)")
    interpreted = hlokit.interpret(module, args)
    for i, (g, w) in enumerate(zip(interpreted, want)):
        _close(g, w, f"{_id(path)} output {i} (interpreter)")


def test_hlokit_opt_flag_runs_hlokits_passes(tmp_path):
    """The flag works from the command line; ``--mlir-timing`` shows hlokit's Python passes ran (their
    class names), not jaxlib's C++ passes of the same flags."""
    src = REPO / "examples" / "special_functions.mlir"
    proc = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", str(src), "--stablehlo-lower-to-core",
                           "--mlir-timing"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "chlo." not in proc.stdout
    assert "ChloLegalizeToStablehlo" in proc.stderr
