"""``--stablehlo-legalize-deprecated-ops``: the legalized programs against the originals.

For each deprecated op the legalized program runs on XLA CPU (``hlokit.backend``) and on hlokit's
interpreter, and is compared with the original program on XLA where XLA compiles it (einsum,
broadcast, dot, torch_index_select, cross-replica-sum), else with numpy (``numpy.einsum`` for
``unary_einsum`` and for the einsum configurations XLA refuses).

Bounds: integer results and pure data movement (broadcast, gather) are compared exactly. A float
einsum element is a sum of n products; each side's error is at most ``gamma_n = n*u/(1 - n*u)`` times
``sum |a||b|`` (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1, the
inner-product bound), plus one rounding of the stored result (and, for complex, a factor sqrt(2) per
product, Higham Lemma 3.5). Two sides then differ by at most twice that: the tests allow
``4 * (n + 2) * eps * einsum(|a|, |b|)`` with ``eps`` the element type's machine epsilon (u = eps/2),
computed in f64 by numpy.
"""

from __future__ import annotations

import math
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlokit
from hlokit import backend
from hlokit.diagnostics import PassError
from hlokit.passes import run_pipeline
from hlokit.passes.einsum import EinsumError, parse_einsum

from conftest import REPO

PIPELINE = "builtin.module(func.func(stablehlo-legalize-deprecated-ops))"
DEPRECATED = ("stablehlo.broadcast ", "stablehlo.create_token", "stablehlo.cross-replica-sum", "stablehlo.dot ",
              "stablehlo.einsum", "stablehlo.unary_einsum", "stablehlo.torch_index_select")

NP = {"f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16, "f16": np.float16, "i32": np.int32,
      "i64": np.int64, "i8": np.int8, "ui32": np.uint32, "complex<f32>": np.complex64,
      "complex<f64>": np.complex128}


def _ty(shape, t: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{t}>"


def legalize(text: str) -> str:
    """The legalized program's text; asserts that no deprecated op is left."""
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, PIPELINE)
    out = str(m)
    for name in DEPRECATED:
        assert name not in out, (name, out)
    return out


def _random(shape, t: str, rng) -> np.ndarray:
    dt = NP[t]
    if t.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if t.startswith("i") or t.startswith("ui"):
        lo = 0 if t.startswith("ui") else -4
        return rng.integers(lo, 5, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _f64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128) if np.iscomplexobj(x) else x.astype(np.float64)


def _eps(t: str) -> float:
    base = t[len("complex<"):-1] if t.startswith("complex") else t
    return float(ml_dtypes.finfo(NP[base]).eps)


def _close(got: np.ndarray, want: np.ndarray, t: str, bound: np.ndarray | None, what) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    if bound is None or not _is_float(t):
        np.testing.assert_array_equal(got, want, err_msg=str(what))
        return
    diff = np.abs(_f64(got) - _f64(want))
    ok = diff <= bound + np.finfo(np.float64).tiny
    assert ok.all(), (what, float(np.max(diff - bound)), got, want)


# -- einsum ------------------------------------------------------------------------------------------


def einsum_program(config: str, shapes, t: str, out_t: str | None = None) -> str:
    """A one-op program: ``stablehlo.einsum`` (two shapes) or ``stablehlo.unary_einsum`` (one)."""
    plan = parse_einsum(config, shapes)
    out = _ty(plan.output_shape, out_t or t)
    ins = [_ty(s, t) for s in shapes]
    params = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(ins))
    if len(shapes) == 2:
        op = f'stablehlo.einsum %a0, %a1, config = "{config}" : ({ins[0]}, {ins[1]}) -> {out}'
    else:
        op = f'stablehlo.unary_einsum %a0, config = "{config}" : ({ins[0]}) -> {out}'
    return f"func.func @main({params}) -> {out} {{\n  %0 = {op}\n  func.return %0 : {out}\n}}\n"


def _is_float(t: str) -> bool:
    return t.startswith(("f", "bf", "complex"))


def _einsum_bound(config: str, args, t: str) -> np.ndarray | None:
    if not _is_float(t):
        return None
    plan = parse_einsum(config, [a.shape for a in args])
    n = math.prod(plan.sizes[l] for l in set(sum(plan.inputs, ())) if l not in plan.output) or 1
    ref = np.einsum(config, *[np.abs(_f64(a)) for a in args])
    return 4.0 * (n + 2) * _eps(t) * ref


def check_einsum(config: str, shapes, t: str, seed: int = 0, xla_original: bool = True) -> None:
    """Legalize the einsum program; its results on XLA and on the interpreter equal the original's on XLA
    (binary einsum, when XLA compiles it and ``xla_original``) or numpy's (within the module's bound)."""
    text = einsum_program(config, shapes, t)
    legal = legalize(text)
    rng = np.random.default_rng(seed)
    args = [_random(s, t, rng) for s in shapes]
    want = None
    if len(shapes) == 2 and xla_original:
        want = backend.compile(text)(*args)[0]
    if want is None:
        want = np.asarray(np.einsum(config, *[_f64(a) if t in ("bf16", "f16") else a for a in args])).astype(NP[t])
    bound = _einsum_bound(config, args, t)
    (got,) = backend.compile(legal)(*args)
    _close(got, want, t, bound, (config, shapes, t, "xla"))
    (interp,) = hlokit.interpret(legal, args)
    _close(np.asarray(interp), want, t, bound, (config, shapes, t, "interpreter"))


BINARY = [
    ("ab,bc->ac", [(2, 3), (3, 4)]),                    # matmul
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),           # batch label
    ("ijk,ikm->ijm", [(3, 4, 5), (3, 5, 6)]),
    ("ab,cd->ad", [(2, 3), (4, 5)]),                    # labels summed out of one operand each
    ("ab,cb->b", [(2, 3), (4, 3)]),                     # batch-like label, both others summed
    ("ii,ij->j", [(3, 3), (3, 4)]),                     # diagonal in one operand
    ("aab,bcc->ac", [(2, 2, 3), (3, 4, 4)]),            # diagonals in both operands
    ("i,j->ij", [(3,), (4,)]),                          # outer product
    ("abc,cba->", [(2, 3, 4), (4, 3, 2)]),              # full contraction to a scalar
    (",ab->b", [(), (2, 3)]),                           # scalar operand (upstream's unary -> binary form)
    ("ab,bc", [(2, 3), (3, 4)]),                        # implicit output
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),     # ellipsis batch
    ("...ij,jk->...ik", [(2, 1, 3, 4), (4, 5)]),        # ellipsis on one side
    ("i...,i...->i...", [(2, 5, 1), (2, 3)]),           # ellipsis with numpy broadcasting
    ("ij,ij->ij", [(2, 1), (2, 3)]),                    # a size-1 label broadcasts
    ("ba,ab->ba", [(3, 2), (2, 3)]),                    # elementwise with transposes
]
UNARY = [
    ("ab->a", [(8, 16)]),
    ("ab->ba", [(2, 3)]),
    ("ij->", [(3, 4)]),
    ("ii->i", [(4, 4)]),                                # diagonal
    ("iij->j", [(3, 3, 2)]),                            # diagonal summed
    ("iii->i", [(3, 3, 3)]),                            # a label three times
    ("ii", [(3, 3)]),                                   # implicit output: the trace
    ("i->i", [(0,)]),                                   # empty
    ("...ii->...i", [(2, 3, 3)]),                       # ellipsis + diagonal
    ("abc->cab", [(2, 3, 4)]),
]
TYPES = ["f32", "f64", "bf16", "i32", "complex<f32>"]


@pytest.mark.parametrize("config, shapes", BINARY, ids=[c for c, _ in BINARY])
def test_einsum_f32(config, shapes):
    check_einsum(config, shapes, "f32")


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("config, shapes", [BINARY[1], BINARY[6], BINARY[13]], ids=["batch", "diag", "ellipsis"])
def test_einsum_types(config, shapes, t):
    check_einsum(config, shapes, t, seed=1)


@pytest.mark.parametrize("config, shapes", UNARY, ids=[c for c, _ in UNARY])
def test_unary_einsum_f32(config, shapes):
    check_einsum(config, shapes, "f32")


@pytest.mark.parametrize("t", TYPES + ["f16", "i64", "complex<f64>"])
def test_unary_einsum_types(t):
    check_einsum("iij->j", [(3, 3, 5)], t, seed=2)


def test_einsum_mixed_result_type():
    """A result element type wider than the operands' (bf16 -> f32): operands are converted first."""
    text = einsum_program("ab,bc->ac", [(2, 3), (3, 4)], "bf16", "f32")
    legal = legalize(text)
    rng = np.random.default_rng(3)
    a, b = _random((2, 3), "bf16", rng), _random((3, 4), "bf16", rng)
    (got,) = backend.compile(legal)(a, b)
    want = (a.astype(np.float64) @ b.astype(np.float64))
    assert np.max(np.abs(got - want)) <= 4 * 5 * 2.0 ** -23 * np.max(np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


@pytest.mark.parametrize("t", ["f32", "i32", "complex<f32>"])
def test_einsum_repeated_output_label(t):
    """XLA's extension: "ij,jk->iik" puts the product on the diagonal of the first two dimensions,
    zeros elsewhere (XLA compiles it; numpy refuses it). Compared with the original on XLA."""
    text = einsum_program("ij,jk->iik", [(2, 3), (3, 4)], t)
    legal = legalize(text)
    rng = np.random.default_rng(9)
    args = [_random((2, 3), t, rng), _random((3, 4), t, rng)]
    (want,) = backend.compile(text)(*args)
    (got,) = backend.compile(legal)(*args)
    (interp,) = hlokit.interpret(legal, args)
    bound = None
    if _is_float(t):
        bound = 4.0 * 5 * _eps(t) * np.einsum("ij,jk->ik", *[np.abs(_f64(a)) for a in args])[:, None, :]
    _close(got, want, t, bound, "xla")
    _close(np.asarray(interp), want, t, bound, "interpreter")
    assert np.all(want[0, 1] == 0) and np.all(want[1, 0] == 0)


def test_unary_einsum_repeated_output_label():
    """"bi->bii": a batch of diagonal matrices (numpy: np.diag per row)."""
    text = einsum_program("bi->bii", [(3, 4)], "f64")
    legal = legalize(text)
    x = np.random.default_rng(10).standard_normal((3, 4))
    want = np.stack([np.diag(r) for r in x])
    (got,) = backend.compile(legal)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(hlokit.interpret(legal, [x])[0]), want)


@st.composite
def einsum_configs(draw, max_labels: int = 5):
    """(config, shapes): one or two operand terms over up to ``max_labels`` labels with sizes 1..4,
    repeated labels allowed, the output a subset of the labels; sometimes an ellipsis (operands may
    cover a different number of its dimensions), a label or ellipsis dimension of size 1 broadcasting
    against the other operand's, and implicit mode."""
    letters = "abcdefgh"[:draw(st.integers(1, max_labels))]
    sizes = {l: draw(st.integers(1, 4)) for l in letters}
    n_ops = draw(st.integers(1, 2))
    terms = [draw(st.lists(st.sampled_from(letters), min_size=0, max_size=4)) for _ in range(n_ops)]
    used = sorted(set(sum(terms, [])))
    ell = draw(st.booleans())
    ell_shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)) if ell else []
    shapes = []
    for term in terms:
        ones = {l for l in term if draw(st.integers(0, 5)) == 0}  # this operand broadcasts along l
        named = tuple(1 if l in ones else sizes[l] for l in term)
        if ell:
            tail = ell_shape[len(ell_shape) - draw(st.integers(0, len(ell_shape))):]
            tail = [1 if draw(st.integers(0, 4)) == 0 else d for d in tail]
            shapes.append(tuple(tail) + named)
        else:
            shapes.append(named)
    texts = [("..." if ell else "") + "".join(term) for term in terms]
    if draw(st.booleans()):
        return ",".join(texts), shapes  # implicit output
    out = draw(st.permutations(used))
    out = out[:draw(st.integers(0, len(out)))]
    return ",".join(texts) + "->" + ("..." if ell else "") + "".join(out), shapes


@settings(max_examples=12)
@given(einsum_configs(), st.sampled_from(["f32", "i32"]))
def test_einsum_hypothesis(cfg, t):
    config, shapes = cfg
    check_einsum(config, shapes, t, xla_original=False)


@pytest.mark.slow
@settings(max_examples=300)
@given(einsum_configs(max_labels=8), st.sampled_from(["f32", "f64", "bf16", "i32", "complex<f32>"]))
def test_einsum_hypothesis_slow(cfg, t):
    config, shapes = cfg
    check_einsum(config, shapes, t)


@pytest.mark.parametrize("config, shapes, message", [
    ("ab,bc->ac", [(2, 3), (4, 5)], "label 'b' of einsum config 'ab,bc->ac' has sizes 3 and 4"),
    ("ab->az", [(2, 3)], "output label 'z' of einsum config 'ab->az' is in no operand"),
    ("ab->c", [(2, 3)], "output label 'c' of einsum config 'ab->c' is in no operand"),
    ("abc->a", [(2, 3)], "names 3 dimension(s), the operand has rank 2"),
    ("ab,b->a->b", [(2, 3), (3,)], "more than one '->'"),
    ("a1->a", [(2, 3)], "has the character '1'"),
    ("...a->a", [(2, 3)], "the output has no '...'"),
    ("ii->i", [(2, 3)], "label 'i' is repeated in operand term 0 'ii' with sizes 2, 3"),
    ("a...b...->a", [(2, 3)], "more than one ellipsis"),
    ("ab->a", [(2, 3), (3,)], "has 1 operand term(s), the op has 2 operand(s)"),
])
def test_einsum_config_errors(config, shapes, message):
    with pytest.raises(EinsumError) as err:
        parse_einsum(config, shapes)
    assert message in str(err.value)


def test_einsum_refusal_is_located_and_leaves_module_unchanged():
    text = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> (tensor<2x3x1xf32>, tensor<2x5xf32>) {
  %0 = stablehlo.broadcast %a, sizes = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %2 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %1, %2 : tensor<2x3x1xf32>, tensor<2x5xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context(), source_name="prog.mlir")
    before = str(m)
    with pytest.raises(PassError) as err:
        run_pipeline(m, PIPELINE)
    assert "label 'b' of einsum config 'ab,bc->ac' has sizes 3 and 4" in str(err.value)
    assert "prog.mlir:4:8: error:" in str(err.value)
    assert str(m) == before


def test_einsum_result_type_mismatch():
    text = """func.func @main(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.unary_einsum %a, config = "ab->a" : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context())
    with pytest.raises(PassError, match=r"gives shape \[2\], the result type is tensor<3xf32>"):
        run_pipeline(m, PIPELINE)


def test_einsum_dynamic_refused():
    text = """func.func @main(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context())
    with pytest.raises(PassError, match="dynamic shape is not supported"):
        run_pipeline(m, PIPELINE)


# -- broadcast, dot, create_token, cross-replica-sum -------------------------------------------------


def _xla_and_interpreter(text: str, args, t: str, bound_of=None) -> None:
    """The legalized program on XLA and on the interpreter equals the original on XLA."""
    legal = legalize(text)
    want = backend.compile(text)(*args)
    got = backend.compile(legal)(*args)
    interp = hlokit.interpret(legal, args)
    interp = interp if isinstance(interp, (list, tuple)) else [interp]
    for g, i, w in zip(got, interp, want):
        bound = bound_of(w) if bound_of else None
        _close(g, w, t, bound, "xla")
        _close(np.asarray(i), w, t, bound, "interpreter")


@pytest.mark.parametrize("t", ["f32", "f64", "bf16", "i32", "ui32", "complex<f32>", "i1"])
@pytest.mark.parametrize("shape, sizes", [((), (3,)), ((2, 3), (4,)), ((1,), (4, 3, 2)), ((2,), ())])
def test_broadcast(shape, sizes, t):
    out = tuple(sizes) + tuple(shape)
    text = (f"func.func @main(%a: {_ty(shape, t)}) -> {_ty(out, t)} {{\n"
            f"  %0 = stablehlo.broadcast %a, sizes = [{', '.join(map(str, sizes))}] : ({_ty(shape, t)}) -> {_ty(out, t)}\n"
            f"  func.return %0 : {_ty(out, t)}\n}}\n")
    rng = np.random.default_rng(4)
    arg = rng.integers(0, 2, size=shape).astype(bool) if t == "i1" else _random(shape, t, rng)
    _xla_and_interpreter(text, [arg], t)


@pytest.mark.parametrize("t", ["f32", "f64", "bf16", "i32", "complex<f64>"])
@pytest.mark.parametrize("ls, rs", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4))])
def test_dot(ls, rs, t):
    out = tuple(ls[:-1]) + tuple(rs[1:])
    text = (f"func.func @main(%a: {_ty(ls, t)}, %b: {_ty(rs, t)}) -> {_ty(out, t)} {{\n"
            f"  %0 = stablehlo.dot %a, %b : ({_ty(ls, t)}, {_ty(rs, t)}) -> {_ty(out, t)}\n"
            f"  func.return %0 : {_ty(out, t)}\n}}\n")
    rng = np.random.default_rng(5)
    args = [_random(ls, t, rng), _random(rs, t, rng)]
    ref = np.abs(_f64(args[0])) @ np.abs(_f64(args[1]))
    _xla_and_interpreter(text, args, t, lambda w: 4.0 * (3 + 2) * _eps(t) * ref if _is_float(t) else None)


@pytest.mark.parametrize("t", ["f32", "i32", "complex<f32>"])
def test_cross_replica_sum_one_replica(t):
    text = (f"func.func @main(%a: {_ty((2, 3), t)}) -> {_ty((2, 3), t)} {{\n"
            f'  %0 = "stablehlo.cross-replica-sum"(%a) {{replica_groups = dense<[[0]]> : tensor<1x1xi64>}} '
            f": ({_ty((2, 3), t)}) -> {_ty((2, 3), t)}\n"
            f"  func.return %0 : {_ty((2, 3), t)}\n}}\n")
    legal = legalize(text)
    assert '"stablehlo.all_reduce"' in legal and "stablehlo.add" in legal
    arg = _random((2, 3), t, np.random.default_rng(6))
    (want,) = backend.compile(text)(arg)
    (got,) = backend.compile(legal)(arg)
    np.testing.assert_array_equal(got, want)


CRS_4 = """module attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    func.return %0 : tensor<3xf32>
  }
}
"""


@pytest.mark.slow
def test_cross_replica_sum_four_replicas(tmp_path):
    """4 replicas, two groups: the legalized all_reduce on XLA gives the original's sums (hlokit-run)."""
    legal = legalize(CRS_4)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.savez(tmp_path / "in.npz", arg_0=x)
    outs = []
    for name, text in (("orig", CRS_4), ("legal", legal)):
        (tmp_path / f"{name}.mlir").write_text(text)
        subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_run", str(tmp_path / f"{name}.mlir"), "--inputs",
                        str(tmp_path / "in.npz"), "--output", str(tmp_path / f"{name}.npz"), "--devices", "4"],
                       check=True, capture_output=True)
        outs.append(np.load(tmp_path / f"{name}.npz")["output_0"])
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1], np.stack([x[0] + x[2], x[1] + x[3], x[0] + x[2], x[1] + x[3]]))


def test_create_token():
    text = """func.func @main(%a: tensor<2xf32>) -> (!stablehlo.token, tensor<2xf32>) {
  %0 = stablehlo.create_token : !stablehlo.token
  %1 = stablehlo.after_all %0 : !stablehlo.token
  func.return %1, %a : !stablehlo.token, tensor<2xf32>
}
"""
    legal = legalize(text)
    assert "stablehlo.after_all  : !stablehlo.token" in legal
    tok, x = hlokit.interpret(legal, [np.ones(2, np.float32)])
    np.testing.assert_array_equal(x, np.ones(2, np.float32))


# -- torch_index_select ------------------------------------------------------------------------------


def torch_index_select_reference(x: np.ndarray, index: np.ndarray, dim: int, batch_dims: int) -> np.ndarray:
    """numpy mirror of XLA's TorchIndexSelect: result[b..., i..., j...] = x[b..., index[b..., i...], j...]."""
    out_shape = x.shape[:dim] + index.shape[batch_dims:] + x.shape[dim + 1:]
    out = np.empty(out_shape, x.dtype)
    for pos in np.ndindex(*out_shape):
        b = pos[:batch_dims]
        mid = pos[batch_dims:dim]
        i = pos[dim:dim + index.ndim - batch_dims]
        j = pos[dim + index.ndim - batch_dims:]
        k = int(index[b + i])
        out[pos] = x[b + mid + (k,) + j]
    return out


def tis_program(xs, xt, qs, qt, dim, batch_dims) -> str:
    out = tuple(xs[:dim]) + tuple(qs[batch_dims:]) + tuple(xs[dim + 1:])
    return (f"func.func @main(%x: {_ty(xs, xt)}, %i: {_ty(qs, qt)}) -> {_ty(out, xt)} {{\n"
            f'  %0 = "stablehlo.torch_index_select"(%x, %i) {{dim = {dim} : i64, batch_dims = {batch_dims} : i64}} '
            f": ({_ty(xs, xt)}, {_ty(qs, qt)}) -> {_ty(out, xt)}\n"
            f"  func.return %0 : {_ty(out, xt)}\n}}\n")


TIS = [  # operand shape, index shape, dim, batch_dims
    ((5, 3), (2,), 0, 0),
    ((5, 1, 5), (2,), 0, 0),
    ((4, 6), (3, 2), 1, 0),
    ((2, 5, 3), (2, 4), 1, 1),
    ((2, 3, 5, 4), (2, 3, 2), 2, 2),
    ((2, 3, 5, 4), (2, 6), 2, 1),
    ((3, 4), (), 1, 0),
]


@pytest.mark.parametrize("xt", ["f32", "bf16", "i32", "complex<f64>"])
@pytest.mark.parametrize("qt", ["i32", "i64", "ui32"])
@pytest.mark.parametrize("xs, qs, dim, batch_dims", TIS)
def test_torch_index_select(xs, qs, dim, batch_dims, xt, qt):
    text = tis_program(xs, xt, qs, qt, dim, batch_dims)
    legal = legalize(text)
    rng = np.random.default_rng(7)
    x = _random(xs, xt, rng)
    index = rng.integers(0, xs[dim], size=qs).astype(NP[qt])
    want = torch_index_select_reference(x, index, dim, batch_dims)
    try:
        (xla_orig,) = backend.compile(text)(x, index)
    except hlokit.HlokitError:
        xla_orig = want
    np.testing.assert_array_equal(xla_orig, want)
    (got,) = backend.compile(legal)(x, index)
    np.testing.assert_array_equal(got, want)
    (interp,) = hlokit.interpret(legal, [x, index])
    np.testing.assert_array_equal(np.asarray(interp), want)


def test_torch_index_select_negative_dim():
    text = ("func.func @main(%x: tensor<4x6xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {\n"
            '  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = -1 : i64, batch_dims = 0 : i64} '
            ": (tensor<4x6xf32>, tensor<3xi32>) -> tensor<4x3xf32>\n  func.return %0 : tensor<4x3xf32>\n}\n")
    legal = legalize(text)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    i = np.array([5, 0, 2], np.int32)
    (got,) = backend.compile(legal)(x, i)
    np.testing.assert_array_equal(got, x[:, i])


@pytest.mark.parametrize("xs, qs, dim, batch_dims, message", [
    ((5, 3), (2,), 2, 0, "dim 2 and batch_dims 0 do not fit"),
    ((2, 5, 3), (3, 4), 1, 1, "the first 1 dimension(s) of the operand [2, 5, 3] and the index [3, 4] differ"),
    ((2, 5), (2, 4), 0, 1, "dim 0 and batch_dims 1 do not fit"),
])
def test_torch_index_select_errors(xs, qs, dim, batch_dims, message):
    out = (7,)
    text = (f"func.func @main(%x: {_ty(xs, 'f32')}, %i: {_ty(qs, 'i32')}) -> {_ty(out, 'f32')} {{\n"
            f'  %0 = "stablehlo.torch_index_select"(%x, %i) {{dim = {dim} : i64, batch_dims = {batch_dims} : i64}} '
            f": ({_ty(xs, 'f32')}, {_ty(qs, 'i32')}) -> {_ty(out, 'f32')}\n"
            f"  func.return %0 : {_ty(out, 'f32')}\n}}\n")
    m = hlokit.parse(text, context=hlokit.make_context())
    with pytest.raises(PassError) as err:
        run_pipeline(m, PIPELINE)
    assert message in str(err.value)


# -- the pass that runs is hlokit's ------------------------------------------------------------------

EINSUM = """func.func @main(%a: tensor<3x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = stablehlo.einsum %a, %b, config = "ijk,ikm->ijm" : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  func.return %0 : tensor<3x4x6xf32>
}
"""

_UPSTREAM = """
import sys
from jaxlib.mlir import passmanager
from jaxlib.mlir.dialects import stablehlo
import hlokit
stablehlo.register_stablehlo_passes()
with hlokit.make_context():
    m = hlokit.parse(sys.stdin.read())
    passmanager.PassManager.parse("builtin.module(func.func(stablehlo-legalize-deprecated-ops))").run(m.operation)
    print(m)
"""


def test_ours_runs_not_upstream(tmp_path):
    """jaxlib's C++ pass of the same flag (run as an oracle in a subprocess) keeps the einsum; hlokit-opt
    with the flag and inside --pass-pipeline leaves none."""
    upstream = subprocess.run([sys.executable, "-c", _UPSTREAM], input=EINSUM, capture_output=True, text=True,
                              check=True).stdout
    assert "stablehlo.einsum" in upstream
    path = tmp_path / "einsum.mlir"
    path.write_text(EINSUM)
    for flags in (["--stablehlo-legalize-deprecated-ops"],
                  ["--pass-pipeline=builtin.module(func.func(stablehlo-legalize-deprecated-ops))"]):
        out = subprocess.run([sys.executable, "-m", "hlokit.tools.hlokit_opt", str(path), *flags],
                             capture_output=True, text=True, check=True).stdout
        assert "stablehlo.einsum" not in out and "stablehlo.dot_general" in out, out


@pytest.mark.parametrize("fail_on_unused, refused", [(False, False), (True, True)])
def test_fail_on_unused(fail_on_unused, refused):
    text = """func.func @main(%lo: tensor<f32>, %hi: tensor<f32>) -> tensor<10xf32> {
  %s = stablehlo.constant dense<10> : tensor<1xi64>
  %0 = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<10xf32>
  func.return %0 : tensor<10xf32>
}
"""
    m = hlokit.parse(text, context=hlokit.make_context())
    pipeline = ("builtin.module(func.func(stablehlo-legalize-deprecated-ops{fail-on-unused="
                f"{'true' if fail_on_unused else 'false'}}}))")
    if refused:
        with pytest.raises(PassError, match="'stablehlo.rng' is deprecated with no replacement"):
            run_pipeline(m, pipeline)
    else:
        run_pipeline(m, pipeline)
        assert "stablehlo.rng" in str(m)


def test_broadcast_dynamic_on_interpreter():
    """A dynamic operand dimension: dynamic_broadcast_in_dim to the runtime shape (interpreter)."""
    text = """func.func @main(%a: tensor<?x3xi32>) -> tensor<5x?x3xi32> {
  %0 = stablehlo.broadcast %a, sizes = [5] : (tensor<?x3xi32>) -> tensor<5x?x3xi32>
  func.return %0 : tensor<5x?x3xi32>
}
"""
    legal = legalize(text)
    assert "stablehlo.dynamic_broadcast_in_dim" in legal
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    (got,) = hlokit.interpret(legal, [x])
    np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(x, (5, 4, 3)))


# -- the example programs (examples/lower_to_core/deprecated/) ---------------------------------------

EXAMPLES = sorted((REPO / "examples" / "lower_to_core" / "deprecated").glob("*.mlir"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_legalize(path):
    legalize(path.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_on_xla(path):
    """Each example legalized runs on XLA with the original's results (numpy for unary_einsum, which XLA
    cannot compile); f32/f64 within 1e-5 / 1e-12 relative to the output's scale (sums of up to 512
    products), bf16 exact (the same dot_general)."""
    text = path.read_text()
    legal = backend.compile(legalize(text))
    rng = np.random.default_rng(8)
    args = []
    for spec in legal.in_specs:
        if np.issubdtype(spec.dtype, np.integer):
            args.append(rng.integers(0, 512, size=spec.shape).astype(spec.dtype))
        else:
            args.append(rng.standard_normal(spec.shape).astype(spec.dtype))
    got = legal(*args)
    if "unary_einsum" in text:
        a, b, c = [x.astype(np.float64) for x in args]
        want = [np.einsum("bii->b", a), np.einsum("bii,bij->bj", a, b), np.einsum("bij,jk->bk", b, c)]
    else:
        want = backend.compile(text)(*args)
    for g, w in zip(got, want):
        tol = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}.get(np.dtype(g.dtype), 0.0)
        scale = float(np.max(np.abs(np.asarray(w, np.float64))))
        assert float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64)))) <= tol * scale, path.name
