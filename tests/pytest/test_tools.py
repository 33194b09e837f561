"""CLI plumbing: errors become located messages and exit 1, never tracebacks; -o only on success."""

from __future__ import annotations

import pytest

import hlokit
import numpy as np

from hlokit.tools import common, hlokit_opt, hlokit_run, hlokit_translate

GOOD = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %a : tensor<2xf32>\n}\n"
BAD = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %a : tensor<3xf32>\n}\n"


def test_internal_error_is_one_line_without_traceback(capsys):
    def body(argv):
        raise KeyError("oops")

    assert common.tool_main("hlokit-x", body, []) == 1
    err = capsys.readouterr().err
    assert err.strip() == "hlokit-x: error: internal error: KeyError: 'oops'"


def test_hlokit_error_renders_diagnostics(capsys):
    def body(argv):
        raise hlokit.HlokitError([hlokit.Diagnostic("error", "bad thing", "f.mlir", 3, 4,
                                                    [hlokit.Diagnostic("note", "see here", "f.mlir", 1, 1)])])

    assert common.tool_main("hlokit-x", body, []) == 1
    assert capsys.readouterr().err.splitlines() == ["f.mlir:3:4: error: bad thing", "f.mlir:1:1: note: see here"]


def test_output_written_only_on_success(tmp_path, capsys):
    src_ok, src_bad, out = tmp_path / "ok.mlir", tmp_path / "bad.mlir", tmp_path / "out.mlir"
    src_ok.write_text(GOOD)
    src_bad.write_text(BAD)
    assert hlokit_opt.main([str(src_bad), "-o", str(out)]) == 1
    assert not out.exists()
    assert hlokit_opt.main([str(src_ok), "-o", str(out)]) == 0
    first = out.read_text()
    assert "func.func @main" in first
    # a later failure leaves the earlier output untouched and no temporary files behind
    assert hlokit_opt.main([str(src_bad), "-o", str(out)]) == 1
    assert out.read_text() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "ok.mlir", "out.mlir"]
    err = capsys.readouterr().err
    assert f"{src_bad}:2:15: error:" in err and "Traceback" not in err


def test_split_input_file_continues_after_a_failing_chunk(tmp_path, capsys):
    src = tmp_path / "s.mlir"
    src.write_text(BAD + "\n// -----\n\n" + GOOD)
    assert hlokit_opt.main([str(src), "--split-input-file"]) == 1
    out, err = capsys.readouterr()
    assert "func.func @main" in out  # the good chunk was still processed and printed
    assert f"{src}:2:15: error:" in err


def test_verify_diagnostics_counts_warnings_and_notes(tmp_path):
    src = tmp_path / "v.mlir"
    src.write_text(
        "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  // expected-error @+2 {{use of value '%a' expects different type than prior uses}}\n"
        "  // expected-note @-2 {{prior use here}}\n"
        "  func.return %a : tensor<3xf32>\n"
        "}\n"
    )
    assert hlokit_opt.main([str(src), "--verify-diagnostics"]) == 0


def test_translate_needs_exactly_one_mode(tmp_path, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(GOOD)
    assert hlokit_translate.main([str(src), "--serialize", "--deserialize", "--target=current"]) == 1
    assert "choose exactly one mode" in capsys.readouterr().err


def test_serialize_then_deserialize_round_trip(tmp_path, capsys):
    src, art = tmp_path / "m.mlir", tmp_path / "m.mlirbc"
    src.write_text(GOOD)
    assert hlokit_translate.main([str(src), "--serialize", "--target=current", "-o", str(art)]) == 0
    assert art.read_bytes()[:4] == b"ML\xefR"
    capsys.readouterr()
    assert hlokit_translate.main([str(art), "--deserialize"]) == 0
    assert "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32>" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# bad command lines: exit 1, a tool- or file-prefixed message with the real reason, no output file


def _opt_err(capsys, *argv) -> str:
    assert hlokit_opt.main(list(argv)) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "pipeline, reason",
    [
        ("builtin.module(canonicalize{max-iterations=abc})", "for the --max-iterations option: 'abc' value invalid"),
        ("builtin.module(canonicalize{top-down=maybe})", "'maybe' is invalid value for boolean argument"),
        ("builtin.module(inline{default-pipeline=((((})", "default-pipeline '((((' has unbalanced brackets"),
        ("builtin.module(inline{default-pipeline=bogus-pass})", "'bogus-pass' does not refer to a registered pass"),
        ("builtin.module(cse cse)", "expected ',' or ')' after 'builtin.module(...', found 'c' at position 19"),
        ("builtin.module(,)", "expected a pass or op name, found ','"),
        ("builtin.module(canonicalize{bogus=1})", "no such option bogus"),
        ("builtin.module(" + "func.func(" * 3000 + "cse" + ")" * 3001, "op anchors nested more than 64 deep"),
    ],
)
def test_bad_pass_pipeline_is_prefixed_with_its_reason(tmp_path, capsys, pipeline, reason):
    src, out = tmp_path / "ok.mlir", tmp_path / "out.mlir"
    src.write_text(GOOD)
    err = _opt_err(capsys, str(src), f"--pass-pipeline={pipeline}", "-o", str(out))
    first = err.splitlines()[0]
    assert first.startswith("hlokit-opt: error: invalid pass pipeline '"), err
    assert reason in first, err
    assert not out.exists()


def test_valid_nested_default_pipeline_still_runs(tmp_path):
    src = tmp_path / "ok.mlir"
    src.write_text(GOOD)
    assert hlokit_opt.main([str(src), "--pass-pipeline=builtin.module(inline{default-pipeline=canonicalize})"]) == 0
    assert hlokit_opt.main([str(src), "--inline=default-pipeline=cse max-iterations=2"]) == 0


def test_argparse_errors_exit_1_with_the_tool_prefix(capsys):
    assert hlokit_translate.main(["--indexing-maps", "--direction=bogus", "x.mlir"]) == 1
    assert "hlokit-translate: error: argument --direction: invalid choice: 'bogus'" in capsys.readouterr().err
    assert hlokit_run.main(["x.mlir", "--platform", "nonsense"]) == 1
    assert "hlokit-run: error: argument --platform: invalid choice: 'nonsense'" in capsys.readouterr().err
    assert hlokit_run.main(["--help"]) == 0


def test_errors_without_a_file_carry_the_tool_name(capsys):
    assert common.tool_main("hlokit-x", lambda argv: (_ for _ in ()).throw(hlokit.HlokitError("plain")), []) == 1
    assert capsys.readouterr().err.strip() == "hlokit-x: error: plain"


def test_output_into_a_missing_directory_is_refused_up_front(tmp_path, capsys):
    src = tmp_path / "ok.mlir"
    src.write_text(GOOD)
    err = _opt_err(capsys, str(src), "-o", str(tmp_path / "no" / "such" / "out.mlir"))
    assert err.startswith("hlokit-opt: error: -o: cannot write ") and "does not exist" in err


RUN_PROGRAM = """func.func @main(%a: tensor<3xi32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.add %b, %b : tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
"""


def _npz_bytes(**arrays) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _good_npz() -> bytes:
    return _npz_bytes(arg_0=np.arange(3, dtype=np.int32), arg_1=np.ones((2, 2), np.float32))


def _npy() -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.arange(3))
    return buf.getvalue()


@pytest.mark.parametrize(
    "content, message",
    [
        (lambda: _good_npz()[:200], "--inputs: not a readable .npz file"),
        (lambda: b"", "--inputs: not a readable .npz file (numpy.savez): EOFError"),
        (lambda: b"\x00" * 64, "--inputs: not a readable .npz file"),
        (_npy, "--inputs: is a single .npy array; expected an .npz archive"),
        (lambda: _npz_bytes(arg_0=np.array([1, "x", None], dtype=object), arg_1=np.ones((2, 2), np.float32)),
         "--inputs: input arg_0 is an object array"),
        (lambda: _npz_bytes(arg_0=np.arange(3, dtype=np.int32)), "--inputs: missing input(s) arg_1 (tensor<2x2xf32>)"),
        (lambda: _npz_bytes(arg_0=np.arange(3, dtype=np.int32), arg_1=np.ones((2, 2), np.float32), w=np.zeros(1)),
         "--inputs: unexpected input(s) w"),
        (lambda: _npz_bytes(arg_0=np.arange(4, dtype=np.int32), arg_1=np.ones((2, 2), np.float32)),
         "--inputs: input arg_0: expected shape (3,)"),
        (lambda: _npz_bytes(arg_0=np.arange(3, dtype=np.int64), arg_1=np.ones((2, 2), np.float32)),
         "--inputs: input arg_0: expected element type int32"),
    ],
)
def test_run_bad_inputs_file_names_the_argument(tmp_path, capsys, content, message):
    src, npz, out = tmp_path / "p.mlir", tmp_path / "in.npz", tmp_path / "out.npz"
    src.write_text(RUN_PROGRAM)
    npz.write_bytes(content())
    assert hlokit_run.main([str(src), "--inputs", str(npz), "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{npz}: error: {message}"), err
    assert "internal error" not in err and not out.exists()


def test_run_bad_numbers_and_paths(tmp_path, capsys):
    src = tmp_path / "p.mlir"
    src.write_text(RUN_PROGRAM)
    cases = [
        (["--seed", "-1"], "hlokit-run: error: --seed: expected an integer in [0, 2**128), got -1"),
        (["--repeat", "0"], "hlokit-run: error: --repeat: expected a positive number of runs, got 0"),
        (["--output", str(tmp_path / "no" / "x.npz")], "hlokit-run: error: --output: cannot write"),
        (["--inputs", str(tmp_path / "missing.npz")], f"{tmp_path / 'missing.npz'}: error: --inputs: no such file"),
        (["--function", "nope"], f"{src}: error: no function '@nope' in the module (functions: main)"),
    ]
    for extra, message in cases:
        assert hlokit_run.main([str(src), *extra]) == 1
        err = capsys.readouterr().err
        assert err.startswith(message), (extra, err)


def test_run_refuses_arrays_larger_than_memory_before_allocating(tmp_path, capsys):
    src = tmp_path / "big.mlir"
    t = "tensor<100000x100000x100000xf32>"
    src.write_text(f"func.func @main(%a: {t}) -> {t} {{\n  func.return %a : {t}\n}}\n")
    assert hlokit_run.main([str(src)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{src}: error: the arguments and results of this program need 7.105 PiB, more than")
    assert f"the largest is {t} (3.553 PiB)" in err


from hlokit.passes import build_pass_manager, parse_pipeline  # noqa: E402


def _help_upstream_names(help_text: str) -> dict[str, str]:
    """The upstream pass names hlokit-opt --help lists, each with the anchor its section names."""
    names: dict[str, str] = {}
    lines = help_text.split("Upstream C++ passes", 1)[1].split("Pass options:", 1)[0].splitlines()[1:]
    anchor = "builtin.module"
    for line in lines:
        if not line.startswith("  "):
            anchor = "func.func"  # the heading of the function-level list
            continue
        for name in line.replace(",", " ").split():
            names[name] = anchor
    return names


def test_opt_help_lists_only_upstream_passes_that_run(tmp_path, capsys):
    assert hlokit_opt.main(["--help"]) == 0
    listed = _help_upstream_names(capsys.readouterr().out)
    assert "stablehlo-aggressive-simplification" not in listed  # not registered in jaxlib's MLIR
    assert listed["stablehlo-refine-shapes"] == "builtin.module"
    assert listed["stablehlo-check-shape-assertions"] == "func.func"
    assert listed == hlokit_opt.runnable_upstream_passes()
    src = tmp_path / "ok.mlir"
    src.write_text(GOOD)
    ctx = hlokit.make_context()
    for name, anchor in listed.items():
        pipeline = f"builtin.module({name})" if anchor == "builtin.module" else f"builtin.module(func.func({name}))"
        build_pass_manager(parse_pipeline(pipeline), context=ctx)  # raises PipelineError if rejected
        build_pass_manager(hlokit_opt._pass_flags([f"--{name}"]), context=ctx, implicit_nesting=True)
        for argv in ([f"--pass-pipeline={pipeline}"], [f"--{name}"]):
            # runs (some passes need options to succeed on this module, e.g. stablehlo-refine-arguments)
            if hlokit_opt.main([str(src), *argv]) != 0:
                err = capsys.readouterr().err
                assert "invalid pass pipeline" not in err and "registered pass" not in err, (name, err)
    capsys.readouterr()


def test_opt_runnable_upstream_passes_leaves_out_unregistered_names(monkeypatch):
    monkeypatch.setattr(hlokit_opt, "_RUNNABLE_CACHE", None)
    monkeypatch.setattr(hlokit_opt, "UPSTREAM_CANDIDATES", ("cse", "no-such-pass", "stablehlo-canonicalize-dynamism"))
    assert hlokit_opt.runnable_upstream_passes() == {"cse": "builtin.module", "stablehlo-canonicalize-dynamism": "func.func"}
    monkeypatch.setattr(hlokit_opt, "UPSTREAM_CANDIDATES", ())
    assert hlokit_opt.runnable_upstream_passes() == {"cse": "builtin.module", "stablehlo-canonicalize-dynamism": "func.func"}  # cached
