"""hlokit-opt's start-up imports only what the command line asks for (issue 40, item 1).

Structural checks in fresh processes (what is in ``sys.modules``), not timings: a one-pass run imports that
pass's module and no other pass module; the static flag -> module tables of :mod:`hlokit.passes.registry`
(:data:`~hlokit.passes.registry.BUILTIN_PASSES`, :data:`~hlokit.passes.registry.BUILTIN_PIPELINES`) equal what
the pass modules register, so ``--help``, unknown-flag errors and ``--pass-pipeline`` see every builtin pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hlokit.passes import registry
from hlokit.tools import hlokit_opt

PROGRAM = """func.func @main(%a: tensor<4xf32>, %b: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
  %1 = "stablehlo.dot"(%b, %a) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it leaves a JSON-able ``result``, returned here."""
    script = textwrap.dedent(code) + "\nimport json, sys\nsys.__stdout__.write('\\n@@' + json.dumps(result))\n"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.rsplit("\n@@", 1)[1])


def test_tables_equal_what_the_modules_register():
    result = _fresh("""
        import importlib, sys
        from hlokit.passes import registry as r
        result = {"lazy": [], "wrong": []}
        for table, reg in ((r.BUILTIN_PASSES, r.PASSES), (r.BUILTIN_PIPELINES, r.PIPELINES)):
            for flag, module in table.items():
                importlib.import_module(module)  # the module the table names registers the flag
                if flag not in reg:
                    result["wrong"].append([flag, module])
        r.load_builtin_passes()
        result["passes"] = list(r.PASSES)
        result["pipelines"] = list(r.PIPELINES)
        result["modules"] = sorted({c.__module__ for c in r.PASSES.values()})
    """)
    assert result["wrong"] == []
    assert result["passes"] == list(registry.BUILTIN_PASSES)  # (the same flags, in the registration order)
    assert result["pipelines"] == list(registry.BUILTIN_PIPELINES)
    assert sorted(set(registry.BUILTIN_PASSES.values()) | set(registry.BUILTIN_PIPELINES.values())) == sorted(
        registry.PASS_MODULES)
    assert all(registry.BUILTIN_PASSES[a] == c.__module__ for a, c in registry.all_passes().items()
               if a in registry.BUILTIN_PASSES)


@pytest.mark.parametrize("flag", ["chlo-legalize-to-stablehlo", "stablehlo-legalize-dot-to-dot-general", None])
def test_one_pass_run_imports_only_its_module(tmp_path, flag):
    src = tmp_path / "in.mlir"
    src.write_text(PROGRAM)
    result = _fresh(f"""
        import contextlib, io, sys
        from hlokit.passes import registry as r
        from hlokit.tools import hlokit_opt
        args, unknown = hlokit_opt._parser().parse_known_args([{f"'--{flag}', " if flag else ""}{str(src)!r}])
        after_args = [m for m in r.PASS_MODULES if m in sys.modules]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = hlokit_opt.main([{f"'--{flag}', " if flag else ""}{str(src)!r}])
        result = {{"rc": rc, "after_args": after_args, "out": out.getvalue(),
                   "after_run": [m for m in r.PASS_MODULES if m in sys.modules],
                   "metadata": "importlib.metadata" in sys.modules, "ml_dtypes": "ml_dtypes" in sys.modules}}
    """)
    assert result["rc"] == 0
    assert result["after_args"] == []
    assert result["after_run"] == ([registry.BUILTIN_PASSES[flag]] if flag else [])
    assert not result["metadata"]  # (hlokit.jax_private reads the versions only for an error message)
    # (the program has f32 only: the small-float table of hlokit.dtypes, and ml_dtypes with it, is not needed)
    assert not result["ml_dtypes"]
    if flag == "chlo-legalize-to-stablehlo":
        assert "chlo.erf" not in result["out"] and "stablehlo.dot" in result["out"]
    elif flag:
        assert "stablehlo.dot_general" in result["out"] and "chlo.erf" in result["out"]


def test_named_pipeline_in_pass_pipeline_loads_its_passes(tmp_path):
    src = tmp_path / "in.mlir"
    src.write_text(PROGRAM)
    result = _fresh(f"""
        import contextlib, io, sys
        from hlokit.passes import registry as r
        from hlokit.tools import hlokit_opt
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = hlokit_opt.main(["--pass-pipeline=builtin.module(stablehlo-lower-to-core)", {str(src)!r}])
        result = {{"rc": rc, "out": out.getvalue()}}
    """)
    assert result["rc"] == 0
    assert "chlo.erf" not in result["out"] and '"stablehlo.dot"' not in result["out"]
    assert "stablehlo.dot_general" in result["out"]


def test_help_lists_every_builtin_flag(capsys):
    assert hlokit_opt.main(["--help"]) == 0
    out = capsys.readouterr().out
    for flag in [*registry.BUILTIN_PASSES, *registry.BUILTIN_PIPELINES]:
        assert f"  --{flag} " in out, flag
    assert "Upstream C++ passes" in out


def test_unknown_flag_is_reported_without_loading_passes(tmp_path):
    src = tmp_path / "in.mlir"
    src.write_text(PROGRAM)
    result = _fresh(f"""
        import contextlib, io, sys
        from hlokit.passes import registry as r
        from hlokit.tools import hlokit_opt
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = hlokit_opt.main(["--chlo-legalize-to-stablehlo-typo", {str(src)!r}])
        result = {{"rc": rc, "err": err.getvalue(), "loaded": [m for m in r.PASS_MODULES if m in sys.modules]}}
    """)
    assert result["rc"] == 1
    assert "chlo-legalize-to-stablehlo-typo" in result["err"] and "Traceback" not in result["err"]
    assert result["loaded"] == []


def test_builtin_flag_cannot_be_taken_before_its_module_loads():
    result = _fresh("""
        from hlokit.passes import registry as r
        class Mine(r.Pass):
            argument = "stablehlo-expand-cholesky"
        try:
            r.register_pass(Mine)
            result = "registered"
        except ValueError as exc:
            result = str(exc)
        if result != "registered":
            result = [result, r.get_pass("stablehlo-expand-cholesky").__module__]
    """)
    assert result[0] == ("pass 'stablehlo-expand-cholesky' registered twice (builtin "
                         "hlokit.passes.stablehlo_expand_cholesky and Mine)")
    assert result[1] == "hlokit.passes.stablehlo_expand_cholesky"


def test_console_run_freezes_the_collector_and_an_in_process_call_does_not(tmp_path):
    """As a console script (no argv) a tool moves the objects alive before and after its run to the collector's
    permanent generation (no full-heap walk at exit); called with argv (tests, library use) it leaves gc alone."""
    src = tmp_path / "in.mlir"
    src.write_text(PROGRAM)
    result = _fresh(f"""
        import gc, sys
        from hlokit.tools.hlokit_opt import main
        args = ["--stablehlo-legalize-deprecated-ops", {str(src)!r}, "-o", {str(tmp_path / "a.mlir")!r}]
        code_given = main(args)
        after_given = gc.get_freeze_count()
        sys.argv = ["hlokit-opt", *args[:-1], {str(tmp_path / "b.mlir")!r}]
        code_console = main()
        result = [code_given, after_given, code_console, gc.get_freeze_count()]
    """)
    assert result[0] == 0 and result[2] == 0
    assert result[1] == 0 and result[3] > 1000
    assert (tmp_path / "a.mlir").read_text() == (tmp_path / "b.mlir").read_text()
