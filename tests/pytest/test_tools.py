"""CLI plumbing: errors become located messages and exit 1, never tracebacks; -o only on success."""

from __future__ import annotations

import pytest

import hlokit
from hlokit.tools import common, hlokit_opt, hlokit_translate

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
