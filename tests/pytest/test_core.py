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


# ---- input that would crash MLIR's recursive parser -------------------------------------------------

_DEEP = 20000  # far past the crash depth of every construct below (1 MiB of text at most)


def _deep(kind: str, n: int = _DEEP) -> str:
    if kind == "array":
        return "module attributes {a = " + "[" * n + "]" * n + "} {}"
    if kind == "tuple":
        return "func.func private @f(%a: " + "tuple<" * n + "f32" + ">" * n + ")"
    if kind == "dense":
        return "module attributes {a = dense<" + "[" * n + "1.0" + "]" * n + "> : tensor<f32>} {}"
    if kind == "callsite":
        return "module {} loc(" + "callsite(" * n + '"a"' + ' at "b")' * n + ")"
    if kind == "region":
        return 'func.func @f() {\n' + '"test.op"() ({' * n + "}) : () -> ()" * n + "\nreturn }"
    return "func.func @f() " + "(" * n


@pytest.mark.parametrize("kind", ["array", "tuple", "dense", "callsite", "region", "parens"])
def test_deep_nesting_is_a_located_error_not_a_crash(kind, ctx):
    with pytest.raises(hlokit.ParseError) as info:
        hlokit.parse(_deep(kind), context=ctx, source_name="deep.mlir")
    d = info.value.diagnostics[0]
    assert (d.file, d.line) == ("deep.mlir", 1 if kind != "region" else 2)
    assert "nested more than 512 levels" in d.message
    # the column points into the nested part, at the first bracket past the limit
    text = _deep(kind)
    line_text = text.split("\n")[d.line - 1]
    assert line_text[d.col - 1] in "([{<"


def test_nesting_at_the_limit_still_parses(ctx):
    from hlokit.core import MAX_NESTING

    def nested(n):  # the attribute dictionary's brace is one level, the n brackets the others
        return "module attributes {h.a = " + "[" * n + "]" * n + "} {}"

    assert hlokit.parse(nested(MAX_NESTING - 1), context=ctx) is not None
    with pytest.raises(hlokit.ParseError):
        hlokit.parse(nested(MAX_NESTING), context=ctx)


_CONV = """func.func @f(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, SPATIAL, f],
    window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
    : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}"""


@pytest.mark.parametrize("spatial", ["2147483647", "99999999999999999999"])
def test_a_huge_convolution_dimension_number_is_a_located_error(spatial, ctx):
    """MLIR's parser lists the spatial dimensions left out of a convolution's dimension numbers, in memory and
    time proportional to the largest one (17 GB for 2147483647): one larger than the text is long is refused
    first, at the number."""
    text = _CONV.replace("SPATIAL", spatial)
    with pytest.raises(hlokit.ParseError) as info:
        hlokit.parse(text, context=ctx, source_name="conv.mlir")
    d = info.value.diagnostics[0]
    assert (d.file, d.line) == ("conv.mlir", 2) and text.split("\n")[1][d.col - 1:].startswith(spatial)
    assert f"spatial dimension {spatial} is out of range" in d.message


def test_smaller_convolution_dimension_numbers_are_left_to_mlir(ctx):
    assert hlokit.parse(_CONV.replace("SPATIAL", "1"), context=ctx) is not None
    with pytest.raises(hlokit.ParseError, match="Expected spatial dimensions"):  # (MLIR's own message)
        hlokit.parse(_CONV.replace("SPATIAL", "7"), context=ctx)


def test_brackets_in_strings_comments_and_arrows_do_not_count(ctx):
    from hlokit.core import check_nesting

    check_nesting('"' + "(" * 5000 + '"', limit=100)
    check_nesting("// " + "[" * 5000 + "\n", limit=100)
    check_nesting("(a) -> (b)\n" * 2000, limit=100)
    with pytest.raises(hlokit.ParseError):
        check_nesting("(" * 101 + "\n", limit=100)


def test_nesting_shortcut_counts_as_the_full_scan():
    """check_nesting's bracket-only shortcut (text without comments or escapes) gives the deepest level the
    regular-expression scan gives, on random texts of brackets, quotes, arrows and newlines, or declines."""
    import random

    from hlokit.core import _deepest_simple, _deepest_stripped as full_scan

    rng = random.Random(0)
    read = 0
    for _ in range(20000):
        data = bytes(rng.choice(b'([{<>)]}"-\n a') for _ in range(rng.randint(0, 24)))
        got = _deepest_simple(data)
        if got is not None:
            read += 1
            assert got == full_scan(data), data
    assert read > 5000  # the shortcut reads most of them (the others have unclosed or multi-line quotes)
    assert _deepest_simple(b'"(((" // (((') is None and _deepest_simple(b'"\\"((("') is None
    assert _deepest_simple(b'f(x) -> (tensor<"a(">)') == 2


def test_deep_input_through_the_tool_exits_1_without_output(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "deep.mlir"
    src.write_text(_deep("array"))
    out = tmp_path / "out.mlir"
    code = "import sys; from hlokit.tools.hlokit_opt import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, str(src), "-o", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert f"{src}:1:" in proc.stderr and "error: brackets nested" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_parse_without_a_context_makes_one(tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    module = hlokit.parse_file(path)  # no context=, no `with ctx:` block
    assert "stablehlo.add" in str(module)
    assert "stablehlo.add" in str(hlokit.parse(ADD))


# ---- corrupt bytecode: the reader must not take the process down ------------------------------------

_SWEEP = r"""
import collections, sys, hlokit
data = open(sys.argv[1], "rb").read()
kinds = collections.Counter()
for pos in range(4, len(data), 4):
    d = bytearray(data); d[pos] ^= 0x80
    try:
        hlokit.parse(bytes(d), source_name="art.mlirbc")
        kinds["ok"] += 1
    except hlokit.ParseError as err:
        text = str(err)
        assert text.startswith("art.mlirbc"), text
        kinds["crash" if "reader crashed" in text else "error"] += 1
print(dict(kinds))
"""


def test_bit_flipped_bytecode_is_an_error_never_an_abort(tmp_path, ctx):
    """Flipping the top bit of bytes of a portable artifact makes strings non-UTF-8: jaxlib's reader
    aborts the process on some of them (SIGABRT from the bindings). Run in a subprocess, so that a
    regression shows as a failed test, not a dead test run."""
    import subprocess
    import sys

    from jaxlib.mlir.dialects import stablehlo as _stablehlo

    import pathlib

    mlp = pathlib.Path(__file__).resolve().parents[2] / "examples" / "mlp.mlir"
    module = hlokit.parse(mlp.read_text(), context=ctx)
    artifact = _stablehlo.serialize_portable_artifact_str(str(module), _stablehlo.get_current_version())
    path = tmp_path / "add.mlirbc"
    path.write_bytes(artifact)
    proc = subprocess.run([sys.executable, "-c", _SWEEP, str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    kinds = eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our own dict literal
    assert kinds.get("error", 0) > 0


def test_parse_module_op_returns_the_parsed_module_op(ctx):
    from hlokit.core import parse_module_op

    text = "module @m attributes {mhlo.num_replicas = 1 : i32} {\n" + ADD + "}\n"
    op = parse_module_op(text, context=ctx, source_name="m.mlir")
    assert isinstance(op, ir.Operation) and op.name == "builtin.module"
    assert str(op.attributes["sym_name"]) == '"m"'
    func = op.regions[0].blocks[0].operations[0]
    assert str(func.location) == 'loc("m.mlir":2:1)'
    # another form (one func, no module) comes back as parse's verified ir.Module
    m = parse_module_op(ADD, context=ctx, source_name="f.mlir")
    assert isinstance(m, ir.Module) and m.body.operations[0].operation.name == "func.func"


@pytest.mark.parametrize("bad", ["parse", "verify", "nesting"])
def test_parse_module_op_errors_as_parse(bad, ctx):
    from hlokit.core import parse_module_op

    if bad == "parse":
        text = "module {\n" + ADD.replace("func.return %0 : tensor<2xf32>", "func.return %0 : tensor<3xf32>") + "}"
    elif bad == "verify":
        text = '''module {
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %a : tensor<2xf32>
}
}'''
    else:
        text = _deep("array")
    with pytest.raises(hlokit.HlokitError) as info:
        parse_module_op(text, context=ctx, source_name="bad.mlir")
    with pytest.raises(hlokit.HlokitError) as expected:
        hlokit.parse(text, context=ctx, source_name="bad.mlir")
    assert str(info.value) == str(expected.value)
    assert str(info.value).startswith("bad.mlir:")


# ---- the one parse entry point and its text pre-processors ---------------------------------------------------

def test_text_preprocessors_are_registered_in_order():
    from hlokit.core import text_preprocessors

    import hlokit.interpreter  # noqa: F401 - registers its pre-processor at import

    names = [p.name for p in text_preprocessors()]
    assert names.index("check") < names.index("stablehlo-newer-ops")
    by_name = {p.name: p for p in text_preprocessors()}
    assert by_name["check"].by_default and not by_name["stablehlo-newer-ops"].by_default


def test_a_registered_preprocessor_runs_in_parse_and_may_be_strict(ctx):
    from hlokit import core

    def rename(text, problems):
        if "@renamed" in text:  # (positions in the text parse sees: line_offset newlines come first)
            at = text.index("@renamed")
            problems.append((text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), "renamed twice"))
        return text.replace("@main_to_rename", "@renamed")

    core.register_text_preprocessor("test-rename", rename, order=99, by_default=False)
    try:
        text = ADD.replace("@main", "@main_to_rename", 1)
        assert "@main_to_rename" in str(hlokit.parse(text, context=ctx))  # not by default
        assert "@renamed" in str(hlokit.parse(text, context=ctx, preprocessors=["test-rename"]))
        # a problem: left to MLIR's parser, or (strict) a located error
        hlokit.parse(ADD.replace("@main", "@renamed", 1), context=ctx, preprocessors=["test-rename"])
        with pytest.raises(hlokit.ParseError, match=r"^x\.mlir:11:11: error: renamed twice$"):
            hlokit.parse(ADD.replace("@main", "@renamed", 1), context=ctx, source_name="x.mlir", line_offset=10,
                         preprocessors=["test-rename"], strict_preprocessing=True)
        with pytest.raises(ValueError, match="unknown text pre-processor"):
            hlokit.parse(ADD, context=ctx, preprocessors=["no-such"])
    finally:
        core._PREPROCESSORS.pop("test-rename")


def test_check_ops_parse_through_the_check_preprocessor(ctx):
    text = ADD.replace("  func.return", "  check.expect_eq_const %0, dense<[2.0, 4.0]> : tensor<2xf32>\n  func.return")
    module = hlokit.parse(text, context=ctx)
    assert '"check.expect_eq_const"' in hlokit.print_module(module, generic=True)
    other = hlokit.make_context()
    with pytest.raises(hlokit.ParseError, match="unregistered"):
        hlokit.parse(ADD.replace("stablehlo.add", '"foo.add"').replace("%a, %a :", "(%a, %a) : (tensor<2xf32>, "
                     "tensor<2xf32>) ->"), context=other)


def test_load_reads_paths_text_and_modules(tmp_path, ctx):
    from hlokit.core import read_program

    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    assert read_program(str(path)) == (ADD.encode(), str(path))
    assert read_program(path, source_name="n") == (ADD.encode(), "n")
    assert read_program(ADD, default_name="<input>") == (ADD, "<input>")
    m = hlokit.load(path, context=ctx)
    assert hlokit.load(m) is m
    assert 'loc("' + str(path) in hlokit.print_module(m, debug_info=True)


class _ImportSpy:
    """A meta-path finder that counts the lookups of modules whose last name part is ``name`` (finds nothing)."""

    def __init__(self, name):
        self.name, self.count = name, 0

    def find_spec(self, fullname, path=None, target=None):
        if fullname.rsplit(".", 1)[-1] == self.name:
            self.count += 1
        return None


@pytest.mark.parametrize("dialect", ["zz_no_module", "zz_no_module_b"])
def test_ops_of_a_dialect_without_python_module_cost_one_failed_import(dialect, monkeypatch):
    """Handing ops of a dialect jaxlib ships no Python module for (shape, tensor, check, unregistered ones) to
    Python looks for its module once, not once per op (each failed import cost ~25-50 us per op); ops of
    dialects with a module keep their op classes."""
    import sys

    import hlokit

    spy = _ImportSpy(dialect)
    monkeypatch.setattr(sys, "meta_path", [spy, *sys.meta_path])
    ctx = hlokit.make_context(allow_unregistered_dialects=True)
    text = ("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            + "".join(f'  "{dialect}.op"(%x) : (tensor<2xf32>) -> ()\n' for _ in range(50))
            + "  %y = stablehlo.add %x, %x : tensor<2xf32>\n  return %y : tensor<2xf32>\n}\n")
    module = hlokit.parse(text, context=ctx)
    ops = list(module.body.operations[0].regions[0].blocks[0].operations)
    ops += list(module.body.operations[0].regions[0].blocks[0].operations)
    assert [o.name for o in ops[:50]] == [f"{dialect}.op"] * 50
    assert 1 <= spy.count <= 2, spy.count  # jaxlib's package, then hlokit's empty one: once for all 100 ops
    assert type(ops[0]).__name__ == "OpView" and type(ops[50]).__name__ == "AddOp"
