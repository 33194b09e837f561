"""Crash and failure reproducers (hlokit.passes.reproducer; hlokit-opt --mlir-pass-pipeline-crash-reproducer,
--mlir-pass-pipeline-local-reproducer, --run-reproducer): a failing pass of every kind leaves a file that
--run-reproducer turns into the same failure."""

from __future__ import annotations

import re

import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.passes import parse_pipeline, reproducer
from hlokit.passes.registry import PASSES, Pass, fail, register_pass
from hlokit.tools import hlokit_opt

PROGRAM = """func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  %unused = stablehlo.constant dense<7> : tensor<2xi32>
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xi32>
  %1 = stablehlo.multiply %0, %0 : tensor<2xi32>
  return %1 : tensor<2xi32>
}
"""


class RaisesOnMultiply(Pass):
    """A pass with a bug: a Python exception when it meets stablehlo.multiply."""

    argument = "test-reproducer-raises"
    summary = "test pass raising a Python exception"
    anchor = "func.func"

    def run_on_operation(self, op):
        for block in op.regions[0].blocks:
            for inner in block.operations:
                if inner.operation.name == "stablehlo.multiply":
                    raise ZeroDivisionError("the test pass divided by zero")


class RefusesMultiply(Pass):
    """A pass that refuses stablehlo.multiply with a located error (hlokit.passes.registry.fail)."""

    argument = "test-reproducer-refuses"
    summary = "test pass refusing multiply"
    anchor = "func.func"

    def run_on_operation(self, op):
        for block in op.regions[0].blocks:
            for inner in block.operations:
                if inner.operation.name == "stablehlo.multiply":
                    raise fail("the test pass refuses stablehlo.multiply", inner.operation)


@pytest.fixture
def test_passes():
    for cls in (RaisesOnMultiply, RefusesMultiply):
        register_pass(cls)
    try:
        yield
    finally:
        for cls in (RaisesOnMultiply, RefusesMultiply):
            PASSES.pop(cls.argument, None)


def _errors(text: str) -> list[str]:
    """The messages of the error lines of tool output, without their locations."""
    return [re.sub(r"^.*?: error: ", "", line) for line in text.splitlines() if ": error: " in line]


def _fail_then_rerun(tmp_path, capsys, flags, *, local=False):
    src, repro = tmp_path / "p.mlir", tmp_path / "repro.mlir"
    src.write_text(PROGRAM)
    argv = [str(src), *flags, f"--mlir-pass-pipeline-crash-reproducer={repro}"]
    assert hlokit_opt.main(argv + (["--mlir-pass-pipeline-local-reproducer"] if local else [])) == 1
    first = capsys.readouterr().err
    assert repro.exists() and "Traceback" not in first
    assert "error: Failures have been detected while processing an MLIR pass pipeline" in first
    assert f"reproducer generated at `{repro}`" in first
    assert hlokit_opt.main(["--run-reproducer", str(repro)]) == 1
    again = capsys.readouterr().err
    assert "Traceback" not in again
    # the same failure: the pass's own error(s), without the summary (no reproducer asked for this time)
    assert _errors(again) == _errors(first)[:-1]
    return repro.read_text(), first


@pytest.mark.parametrize("local", [False, True])
def test_python_exception_in_a_pass(tmp_path, capsys, test_passes, local):
    text, first = _fail_then_rerun(tmp_path, capsys, ["--canonicalize", "--test-reproducer-raises"], local=local)
    assert "internal error in pass 'test-reproducer-raises': ZeroDivisionError: the test pass divided by zero" in first
    config = reproducer.read_reproducer(text)
    if local:  # the IR after canonicalize, and the failing pass alone
        assert config.pipeline == "builtin.module(test-reproducer-raises)"
        assert "dense<7>" not in text
        assert "executing `RaisesOnMultiply` on 'builtin.module' operation: reproducer" in first
    else:  # the IR before the pipeline, and all of it
        assert config.pipeline == "builtin.module(canonicalize,test-reproducer-raises)"
        assert "dense<7>" in text
        assert "executing [`RaisesOnMultiply` on 'builtin.module' operation]: reproducer" in first
    assert config.disable_threading and config.verify_each


def test_located_pass_error_nested_pipeline(tmp_path, capsys, test_passes):
    text, first = _fail_then_rerun(
        tmp_path, capsys,
        ["--pass-pipeline=builtin.module(func.func(canonicalize),func.func(cse,test-reproducer-refuses))"], local=True)
    assert "error: the test pass refuses stablehlo.multiply" in first
    # the failing pass keeps its op anchor in the local pipeline
    assert reproducer.read_reproducer(text).pipeline == "builtin.module(func.func(test-reproducer-refuses))"
    assert "executing `RefusesMultiply` on 'func.func' operation" in first


def test_upstream_pass_failure(tmp_path, capsys):
    text, first = _fail_then_rerun(tmp_path, capsys, ["--canonicalize", "--vhlo-to-version=target=0.0.1"])
    assert "error: target version 0.0.1 is less than minimum supported 0.9.0" in first
    assert reproducer.read_reproducer(text).pipeline == "builtin.module(canonicalize,vhlo-to-version{target=0.0.1})"


def test_nothing_written_when_no_pass_fails(tmp_path, capsys):
    src, repro = tmp_path / "p.mlir", tmp_path / "repro.mlir"
    src.write_text(PROGRAM)
    assert hlokit_opt.main([str(src), "--canonicalize", f"--mlir-pass-pipeline-crash-reproducer={repro}"]) == 0
    assert "stablehlo.multiply" in capsys.readouterr().out
    assert not repro.exists()


def test_reproducer_parses_with_jaxlib_and_hlokit(tmp_path, capsys, test_passes):
    text, _ = _fail_then_rerun(tmp_path, capsys, ["--test-reproducer-refuses"])
    ctx = hlokit.make_context()
    warnings = []
    handle = ctx.attach_diagnostic_handler(lambda d: warnings.append(str(d)) or True)
    try:
        with ctx:
            ir.Module.parse(text)  # jaxlib's own parser: only a warning about the unknown resource
        assert any("mlir_reproducer" in w for w in warnings)
        warnings.clear()
        module = hlokit.parse(text, context=ctx)  # hlokit's: the entry is blanked out, no warning
        assert warnings == []
    finally:
        handle.detach()
    assert "stablehlo.multiply" in hlokit.print_module(module)
    stripped = reproducer.strip_reproducer(text, [])
    assert "mlir_reproducer" not in stripped and stripped.count("\n") == text.count("\n")


def test_resources_are_merged_and_strings_escaped():
    ctx = hlokit.make_context()
    src = ('func.func @main() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xf32>\n'
           '  return %0 : tensor<2xf32>\n}\n{-#\n  dialect_resources: {\n    builtin: {\n'
           '      blob1: "0x040000000000803F00000040"\n    }\n  }\n#-}\n')
    module = hlokit.parse(src, context=ctx)
    pipeline = 'builtin.module(odd{value="a\\b"})'
    text = reproducer.reproducer_text(hlokit.print_module(module), pipeline, verify_each=False)
    assert text.count("{-#") == 1 and "dialect_resources" in text and "external_resources" in text
    config = reproducer.read_reproducer(text)
    assert config.pipeline == pipeline and config.verify_each is False and config.disable_threading is True
    again = hlokit.print_module(hlokit.parse(text, context=ctx))  # (a second blob1 in ctx is renamed blob1_1)
    assert "dense_resource<blob1" in again and '"0x040000000000803F00000040"' in again


def test_python_api(tmp_path, test_passes):
    ctx = hlokit.make_context()
    module = hlokit.parse(PROGRAM, context=ctx, source_name="p.mlir")
    elements = parse_pipeline("builtin.module(cse,func.func(test-reproducer-refuses))")
    from hlokit.passes import build_pass_manager

    pm = build_pass_manager(elements, context=ctx)
    path = tmp_path / "r.mlir"
    with pytest.raises(hlokit.PassError) as info:
        reproducer.run_with_reproducer(pm, module.operation, elements, str(path), local=True, source_name="p.mlir")
    messages = [d.message for d in info.value.diagnostics]
    assert messages[0] == "the test pass refuses stablehlo.multiply"
    assert messages[-1] == "Failures have been detected while processing an MLIR pass pipeline"
    assert info.value.diagnostics[-1].notes[0].message.endswith(f"reproducer generated at `{path}`")
    assert reproducer.read_reproducer(path.read_text()).pipeline == "builtin.module(func.func(test-reproducer-refuses))"


def test_bad_reproducer_is_a_located_error(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(PROGRAM + '{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: 3\n    }\n  }\n#-}\n')
    assert hlokit_opt.main(["--run-reproducer", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"{bad}:10:17: error: expected a string for the reproducer's 'pipeline'"


def test_debuginfo_keeps_the_original_locations(tmp_path, capsys, test_passes):
    src, repro = tmp_path / "p.mlir", tmp_path / "repro.mlir"
    src.write_text(PROGRAM)
    assert hlokit_opt.main([str(src), "--test-reproducer-refuses", "--mlir-print-debuginfo",
                            f"--mlir-pass-pipeline-crash-reproducer={repro}"]) == 1
    first = capsys.readouterr().err.splitlines()
    assert first[0] == f"{src}:4:8: error: the test pass refuses stablehlo.multiply"
    assert hlokit_opt.main(["--run-reproducer", str(repro)]) == 1
    assert capsys.readouterr().err.splitlines() == first[:1]  # the very same line, located in the original


def test_unwritable_reproducer_is_reported(tmp_path, capsys, test_passes):
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    target = tmp_path / "missing" / "r.mlir"
    assert hlokit_opt.main([str(src), "--test-reproducer-refuses", f"--mlir-pass-pipeline-crash-reproducer={target}"]) == 1
    err = capsys.readouterr().err
    assert "Pipeline failed while executing [`RefusesMultiply` on 'builtin.module' operation]: failed to create " \
           "output stream" in err and not target.exists()


def test_run_pipeline_with_reproducer(tmp_path):
    ctx = hlokit.make_context()
    module = hlokit.parse(PROGRAM, context=ctx)
    path = tmp_path / "r.mlir"
    reproducer.run_pipeline_with_reproducer(module, "builtin.module(canonicalize)", str(path))
    assert not path.exists() and "dense<7>" not in hlokit.print_module(module)
    with pytest.raises(hlokit.PassError, match="less than minimum supported"):
        reproducer.run_pipeline_with_reproducer(module, "builtin.module(cse,vhlo-to-version{target=0.0.1})",
                                                str(path), local=True)
    assert reproducer.read_reproducer(path.read_text()).pipeline == "builtin.module(vhlo-to-version{target=0.0.1})"
