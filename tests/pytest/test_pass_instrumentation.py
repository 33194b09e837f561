"""hlokit-opt's pass instrumentation flags (hlokit.passes.instrument), checked against jaxlib's own PassManager.

For pipelines of upstream C++ passes the IR dumps must be identical to what jaxlib's ``PassManager`` (the
MLIR inside jaxlib, as mlir-opt built from it prints) writes for the same pipeline and input: the oracle
runs in a subprocess that uses nothing of hlokit but its dialect registration.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""\
    func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
      %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %2 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
      %3 = stablehlo.add %0, %1 : tensor<2x4xf32>
      %4 = stablehlo.add %3, %2 : tensor<2x4xf32>
      return %4 : tensor<2x4xf32>
    }
    func.func private @unused() {
      return
    }
    """)

ORACLE = textwrap.dedent("""\
    import json, sys
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir.dialects import stablehlo
    from hlokit.jax_private import register_upstream_dialects
    cfg = json.loads(sys.argv[3])
    with ir.Context() as ctx:
        registry = ir.DialectRegistry()
        register_upstream_dialects(registry)
        ctx.append_dialect_registry(registry)
        stablehlo.register_dialect(ctx)
        stablehlo.register_stablehlo_passes()
        ctx.enable_multithreading(False)
        m = ir.Module.parse(open(sys.argv[1]).read())
        pm = passmanager.PassManager.parse(sys.argv[2])
        if cfg:
            pm.enable_ir_printing(**cfg)
        try:
            pm.run(m.operation)
        except ir.MLIRError:
            pass
    """)

PIPELINE = "builtin.module(func.func(cse,canonicalize),symbol-dce)"
ENV = dict(os.environ, JAX_PLATFORMS="cpu")


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text(PROGRAM)
    return path


def oracle(path, pipeline, **cfg) -> str:
    res = subprocess.run([sys.executable, "-c", ORACLE, str(path), pipeline, json.dumps(cfg)],
                         capture_output=True, text=True, env=ENV, timeout=120)
    return res.stderr


def opt(path, *flags, pipeline=PIPELINE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", str(path), f"--pass-pipeline={pipeline}",
                           "-o", os.devnull, *flags], capture_output=True, text=True, env=ENV, timeout=120)


# (hlokit-opt flags, jaxlib enable_ir_printing arguments): mlir-opt's mapping (PassManagerOptions.cpp)
CASES = [
    (["--mlir-print-ir-before-all"], dict(print_before_all=True, print_after_all=False)),
    (["--mlir-print-ir-after-all"], dict(print_after_all=True)),
    (["--mlir-print-ir-after-all", "--mlir-print-ir-after-change"], dict(print_after_all=True, print_after_change=True)),
    (["--mlir-print-ir-after-all", "--mlir-print-ir-module-scope"], dict(print_after_all=True, print_module_scope=True)),
    (["--mlir-print-ir-before-all", "--mlir-elide-elementsattrs-if-larger=2"],
     dict(print_before_all=True, print_after_all=False, large_elements_limit=2)),
]


@pytest.mark.parametrize("flags,cfg", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_cpp_pipeline_dumps_identical_to_jaxlib(program, flags, cfg):
    expected = oracle(program, PIPELINE, **cfg)
    assert "IR Dump" in expected
    res = opt(program, *flags)
    assert res.returncode == 0, res.stderr
    assert res.stderr == expected


def test_after_failure_identical_to_jaxlib(program):
    pipeline = "builtin.module(stablehlo-refine-arguments{types=tensor<f32>})"  # @main takes 2 arguments: fails
    expected = oracle(program, pipeline, print_after_failure=True)
    assert "Failed" in expected
    res = opt(program, "--mlir-print-ir-after-failure", pipeline=pipeline)
    assert res.returncode == 1
    assert res.stderr.startswith(expected)
    assert "error:" in res.stderr[len(expected):]


def test_selective_dumps_are_the_all_dumps_of_those_passes(program):
    everything = oracle(program, PIPELINE, print_before_all=True, print_after_all=True)
    res = opt(program, "--mlir-print-ir-before=canonicalize", "--mlir-print-ir-after=cse,symbol-dce")
    assert res.returncode == 0, res.stderr
    chunks = ["// -----" + c for c in everything.split("// -----")[1:]]
    kept = [c for c in chunks if c.startswith(("// -----// IR Dump Before CanonicalizerPass",
                                               "// -----// IR Dump After CSEPass", "// -----// IR Dump After SymbolDCE"))]
    assert len(kept) == 5  # cse and canonicalize run on @main and @unused
    assert res.stderr == "".join(kept)


def test_python_pass_is_printed_and_selected(program):
    res = opt(program, "--mlir-print-ir-after=stablehlo-legalize-dot-to-dot-general",
              pipeline="builtin.module(cse,stablehlo-legalize-dot-to-dot-general)")
    assert res.returncode == 0, res.stderr
    assert res.stderr.startswith("// -----// IR Dump After StablehloLegalizeDotToDotGeneral: "
                                 "stablehlo-legalize-dot-to-dot-general //----- //\n")
    assert res.stderr.count("IR Dump") == 1


def test_tree_dir_identical_to_jaxlib(program, tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    oracle(program, PIPELINE, print_after_all=True, tree_printing_dir_path=str(theirs))
    res = opt(program, "--mlir-print-ir-after-all", f"--mlir-print-ir-tree-dir={ours}")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""

    def listing(root):
        return {os.path.relpath(os.path.join(d, f), root): open(os.path.join(d, f)).read()
                for d, _, files in os.walk(root) for f in files}

    got = listing(ours)
    assert got == listing(theirs)
    assert "builtin_module_no-symbol-name/func_func_main/0_0_cse.mlir" in got


def test_unknown_pass_and_bad_combination(program, tmp_path):
    res = opt(program, "--mlir-print-ir-before=no-such-pass")
    assert res.returncode == 1
    assert "error: --mlir-print-ir-before: unknown pass 'no-such-pass'" in res.stderr
    assert "Traceback" not in res.stderr
    res = opt(program, "--mlir-print-ir-after=cse", f"--mlir-print-ir-tree-dir={tmp_path}")
    assert res.returncode == 1 and "cannot be combined" in res.stderr


def test_after_change_alone_prints_nothing(program):
    res = opt(program, "--mlir-print-ir-after-change")  # as in mlir-opt: needs an after-flag
    assert res.returncode == 0 and res.stderr == ""


def test_statistics_of_template_pass(tmp_path):
    path = tmp_path / "erf.mlir"
    path.write_text(textwrap.dedent("""\
        func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
          %0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
          %1 = chlo.erf %b : tensor<4xf32> -> tensor<4xf32>
          return %0, %1 : tensor<4xf32>, tensor<4xf32>
        }
        """))
    res = opt(path, "--mlir-pass-statistics", pipeline="builtin.module(chlo-legalize-to-stablehlo,cse)")
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert lines[1].strip() == "... Pass statistics report ..."
    i = lines.index("ChloLegalizeToStablehlo")
    stats = {ln.split()[2]: int(ln.split()[1]) for ln in lines[i + 1:] if ln.startswith("  (S)")}
    assert stats["num-ops-rewritten"] == 2
    assert stats["num-templates-built"] == 1
    assert stats["num-templates-reused"] == 1
    assert stats["num-ops-erased"] == 2  # the two chlo.erf


def test_statistics_cpp_only_identical_to_jaxlib(program):
    script = ORACLE.replace("if cfg:\n        pm.enable_ir_printing(**cfg)", "pm.enable_statistics()")
    res = subprocess.run([sys.executable, "-c", script, str(program), PIPELINE, "{}"], capture_output=True,
                         text=True, env=ENV, timeout=120)
    ours = opt(program, "--mlir-pass-statistics")
    assert ours.returncode == 0, ours.stderr
    assert "Pass statistics report" in res.stderr
    assert ours.stderr == res.stderr


def test_dump_pass_pipeline(program):
    res = opt(program, "--dump-pass-pipeline",
              pipeline="builtin.module(func.func(cse,canonicalize{max-iterations=3}),stablehlo-legalize-dot-to-dot-general)")
    assert res.returncode == 0, res.stderr
    assert res.stderr == (
        "Pass Manager with 2 passes:\n"
        "builtin.module(\n"
        "  func.func(\n"
        "    cse,\n"
        "    canonicalize{cse-between-iterations=false    max-iterations=3 max-num-rewrites=-1 region-simplify=normal "
        "test-convergence=false top-down=true}\n"
        "  ),\n"
        "  stablehlo-legalize-dot-to-dot-general\n"
        ")\n\n")


def test_dump_pass_pipeline_options_match_jaxlib_headers(program):
    """The options of an upstream pass are printed as jaxlib's MLIR prints them in its own dump headers."""
    header = oracle(program, "builtin.module(func.func(canonicalize{top-down=false}))", print_before_all=True,
                    print_after_all=False).splitlines()[0]
    res = opt(program, "--dump-pass-pipeline", pipeline="builtin.module(func.func(canonicalize{top-down=false}))")
    text = header.split(": ", 1)[1].rsplit(" //----- //", 1)[0]
    assert "top-down=false" in text
    assert f"    {text}\n" in res.stderr


def test_python_pass_failure_is_printed(program, tmp_path):
    plugin = tmp_path / "refuse.py"
    plugin.write_text(textwrap.dedent("""\
        from hlokit.passes.registry import Pass, fail, register_pass

        @register_pass
        class InstrumentTestRefuse(Pass):
            argument = "instrument-test-refuse"
            summary = "refuses every function"

            def run_on_operation(self, op):
                raise fail("instrument-test-refuse: no", op)
        """))
    res = opt(program, f"--load-pass-plugin={plugin}", "--mlir-print-ir-after-failure",
              pipeline="builtin.module(cse,instrument-test-refuse)")
    assert res.returncode == 1
    assert res.stderr.startswith("// -----// IR Dump After InstrumentTestRefuse Failed: instrument-test-refuse //----- //\n"
                                 "module {\n")
    assert res.stderr.count("IR Dump") == 1
    assert "error: instrument-test-refuse: no" in res.stderr


def test_timing_lists_python_and_cpp_passes(program):
    res = opt(program, "--mlir-timing", pipeline="builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general)")
    assert res.returncode == 0, res.stderr
    assert "... Execution time report ..." in res.stderr
    names = [ln.split(")", 1)[1].strip() for ln in res.stderr.splitlines() if "%)" in ln]
    assert "'func.func' Pipeline" in names and "CSEPass" in names
    assert "StablehloLegalizeDotToDotGeneral" in names
