"""hlokit.core: context, parsing (text, bytecode, files, stdin), verification, printing, splitting."""

from __future__ import annotations

import io

import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.core import DIALECTS, split_input

ADD = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def test_context_loads_every_dialect(ctx):
    for name in DIALECTS:
        assert ctx.dialects[name] is not None
    for name in ("builtin", "func", "stablehlo", "chlo", "shape", "tensor", "arith", "math", "scf", "cf", "vhlo", "sdy"):
        assert name in DIALECTS


def test_parse_program_with_every_dialect(ctx):
    text = """
    module @m attributes {mhlo.num_partitions = 1 : i32} {
      sdy.mesh @mesh = <["x"=1]>
      func.func @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %s: !shape.shape) -> tensor<4xf32> {
        %c = arith.constant 1 : index
        %t = tensor.empty() : tensor<4xf32>
        %m = math.absf %a : tensor<4xf32>
        %e = chlo.erf %m : tensor<4xf32> -> tensor<4xf32>
        %r = scf.execute_region -> tensor<4xf32> {
          cf.br ^bb1
        ^bb1:
          scf.yield %e : tensor<4xf32>
        }
        func.return %r : tensor<4xf32>
      }
    }
    """
    m = hlokit.parse(text, context=ctx)
    out = hlokit.print_module(m)
    assert "module @m attributes {mhlo.num_partitions = 1 : i32}" in out
    for piece in ("sdy.mesh", "arith.constant", "tensor.empty", "math.absf", "chlo.erf", "scf.execute_region", "!shape.shape"):
        assert piece in out


def test_parse_wraps_several_top_level_ops_and_keeps_lines(ctx):
    text = "// comment\n\nfunc.func @a() {\n  func.return\n}\nfunc.func @b() {\n  func.return\n}\n"
    m = hlokit.parse(text, context=ctx, source_name="two.mlir")
    names = [op.attributes["sym_name"].value for op in m.body.operations]
    assert names == ["a", "b"]
    first = m.body.operations[0]
    assert str(first.location) == 'loc("two.mlir":3:1)'


def test_parse_error_is_located(ctx):
    bad = ADD.replace("func.return %0 : tensor<2xf32>", "func.return %0 : tensor<3xf32>")
    with pytest.raises(hlokit.ParseError) as info:
        hlokit.parse(bad, context=ctx, source_name="bad.mlir", line_offset=10)
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.col, d.severity) == ("bad.mlir", 13, 15, "error")
    assert "expects different type than prior uses" in d.message
    assert d.notes and d.notes[0].line == 12
    assert str(info.value).startswith("bad.mlir:13:15: error: use of value '%0'")


def test_verifier_error_is_located(ctx):
    bad = '''func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %a : tensor<2xf32>
}'''
    with pytest.raises(hlokit.HlokitError) as info:
        hlokit.parse(bad, context=ctx, source_name="v.mlir")
    assert str(info.value).startswith("v.mlir:2:8: error: 'stablehlo.add' op requires the same shape")


def test_bytecode_round_trip(ctx):
    m = hlokit.parse(ADD, context=ctx)
    buf = io.BytesIO()
    m.operation.write_bytecode(buf)
    data = buf.getvalue()
    assert data[:4] == b"ML\xefR"
    again = hlokit.parse(data, context=ctx)
    assert hlokit.print_module(again) == hlokit.print_module(m)


def test_parse_file_and_load(tmp_path, ctx):
    p = tmp_path / "add.mlir"
    p.write_text(ADD)
    m1 = hlokit.parse_file(p, context=ctx)
    m2 = hlokit.load(str(p), context=ctx)
    m3 = hlokit.load(ADD, context=ctx)
    assert hlokit.load(m1) is m1
    assert hlokit.print_module(m1) == hlokit.print_module(m2) == hlokit.print_module(m3)
    assert f'loc("{p}":2:8)' in hlokit.print_module(m1, debug_info=True)
    with pytest.raises(hlokit.ParseError, match="could not open input file"):
        hlokit.parse_file(tmp_path / "missing.mlir", context=ctx)


def test_print_generic_and_debuginfo(ctx):
    m = hlokit.parse(ADD, context=ctx, source_name="x.mlir")
    generic = hlokit.print_module(m, generic=True)
    assert '"stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>' in generic
    assert hlokit.print_module(hlokit.parse(generic, context=ctx)) == hlokit.print_module(m)
    assert 'loc("x.mlir":2:8)' in hlokit.print_module(m, debug_info=True)


def test_split_input_offsets():
    text = "a\nb\n// -----\nc\n// -----\n\nd\n"
    chunks = split_input(text)
    assert [c for c, _ in chunks] == ["a\nb\n", "\nc\n", "\n\nd\n"]
    assert [o for _, o in chunks] == [0, 2, 4]
    whole = text.split("\n")
    for chunk, offset in chunks:
        # padded by its offset, a chunk's lines sit on their line numbers in the whole file
        for i, line in enumerate(("\n" * offset + chunk).split("\n")):
            if line:
                assert whole[i] == line


def test_split_marker_anywhere_on_a_line():
    chunks = split_input("a\n// // -----\nb\n// CHECK: // -----\nc\n")
    assert [c for c, _ in chunks] == ["a\n// ", "\nb\n// CHECK: ", "\nc\n"]
    assert [o for _, o in chunks] == [0, 1, 3]


def test_non_utf8_input_is_a_parse_error(ctx):
    with pytest.raises(hlokit.ParseError, match="neither UTF-8 text nor MLIR bytecode"):
        hlokit.parse(b"\xff\xfe\x00garbage", context=ctx)
