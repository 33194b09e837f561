"""Brute-force property tests of the indexing maps (https://openxla.org/xla/indexing), independent of
their text form.

For random small shapes and attributes of each supported op, the *true* read set of every output
element is measured from the op's semantics: the program is compiled with XLA
(:func:`hlokit.backend.compile`, an oracle only), run once on random inputs, then once per input
element with that element perturbed; output elements that change read it. Runtime values (offsets,
gather indices) are fixed inputs of the run. The maps of the function (analysed as one fusion, in both
directions, rt vars bound to those runtime values) must then describe

* a superset of the true read set (sound), for every operand, and
* exactly the true read set (precise) where the XLA documentation gives an exact map.

Indices a map denotes outside the operand's shape denote no read (the documentation's
``dynamic_update_slice`` update map ``d0 - s0`` leaves the update for some outputs); every other map
must stay in bounds.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import numpy as np
import pytest

import hlokit
from hlokit.analysis.indexing import IndexingError
from hlokit.analysis.indexing_ops import function_input_to_output, function_output_to_input

backend = pytest.importorskip("hlokit.backend")


# ----------------------------------------------------------------------------------------------
# cases


def ty(shape, et="i32"):
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{et}>"


def arr(vals):
    return f"array<i64{': ' if vals else ''}{', '.join(map(str, vals))}>"


@dataclass
class Case:
    """One random program: ``func @main`` with ``args`` (shape, element type, kind) and one op."""

    name: str
    args: list  # (shape, et, kind) kind in data | index | pred
    results: list  # (shape, et)
    body: str
    exact: dict = field(default_factory=dict)  # arg number -> precise claim (default True for data)
    out_of_bounds_ok: set = field(default_factory=set)  # args whose maps may leave the shape
    no_input_to_output: set = field(default_factory=set)  # args refused in that direction

    def text(self):
        params = ", ".join(f"%a{i}: {ty(s, et)}" for i, (s, et, _) in enumerate(self.args))
        rtypes = ", ".join(ty(s, et) for s, et in self.results)
        return f"func.func @main({params}) -> ({rtypes}) {{\n{self.body}\n}}\n"


def rand_shape(rng, rank, lo=1, hi=4):
    return [rng.randint(lo, hi) for _ in range(rank)]


def case_elementwise(rng):
    shape = rand_shape(rng, rng.randint(0, 3))
    op = rng.choice(["add", "subtract", "multiply", "negate", "convert", "select", "clamp", "compare", "exponential", "bitcast_convert"])
    t = ty(shape)
    if op in ("add", "subtract", "multiply"):
        return Case(op, [(shape, "i32", "data")] * 2, [(shape, "i32")],
                    f"  %0 = stablehlo.{op} %a0, %a1 : {t}\n  return %0 : {t}")
    if op == "negate":
        return Case(op, [(shape, "i32", "data")], [(shape, "i32")], f"  %0 = stablehlo.negate %a0 : {t}\n  return %0 : {t}")
    if op == "exponential":
        tf = ty(shape, "f32")
        return Case(op, [(shape, "f32", "data")], [(shape, "f32")], f"  %0 = stablehlo.exponential %a0 : {tf}\n  return %0 : {tf}")
    if op in ("convert", "bitcast_convert"):
        tf = ty(shape, "f32")
        return Case(op, [(shape, "i32", "data")], [(shape, "f32")], f"  %0 = stablehlo.{op} %a0 : ({t}) -> {tf}\n  return %0 : {tf}")
    if op == "select":
        pshape = shape if rng.random() < 0.7 else []
        return Case(op, [(pshape, "i1", "pred"), (shape, "i32", "data"), (shape, "i32", "data")], [(shape, "i32")],
                    f"  %0 = stablehlo.select %a0, %a1, %a2 : ({ty(pshape, 'i1')}, {t}, {t}) -> {t}\n  return %0 : {t}",
                    exact={1: False, 2: False})
    if op == "clamp":
        bshape = shape if rng.random() < 0.5 else []
        return Case(op, [(bshape, "i32", "data"), (shape, "i32", "data"), (bshape, "i32", "data")], [(shape, "i32")],
                    f"  %0 = stablehlo.clamp %a0, %a1, %a2 : ({ty(bshape)}, {t}, {ty(bshape)}) -> {t}\n  return %0 : {t}",
                    exact={0: False, 1: False, 2: False})
    return Case(op, [(shape, "i32", "data")] * 2, [(shape, "i1")],
                f"  %0 = stablehlo.compare LT, %a0, %a1 : ({t}, {t}) -> {ty(shape, 'i1')}\n  return %0 : {ty(shape, 'i1')}",
                exact={0: False, 1: False})


def case_broadcast(rng):
    rank = rng.randint(0, 2)
    out_rank = rng.randint(rank, 3)
    dims = sorted(rng.sample(range(out_rank), rank))
    out = rand_shape(rng, out_rank)
    src = [out[d] if rng.random() < 0.7 else 1 for d in dims]
    return Case("broadcast_in_dim", [(src, "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.broadcast_in_dim %a0, dims = [{', '.join(map(str, dims))}] : ({ty(src)}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_transpose(rng):
    src = rand_shape(rng, rng.randint(1, 4))
    perm = list(range(len(src)))
    rng.shuffle(perm)
    out = [src[p] for p in perm]
    return Case("transpose", [(src, "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.transpose %a0, dims = [{', '.join(map(str, perm))}] : ({ty(src)}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_reverse(rng):
    src = rand_shape(rng, rng.randint(1, 3))
    dims = sorted(rng.sample(range(len(src)), rng.randint(0, len(src))))
    return Case("reverse", [(src, "i32", "data")], [(src, "i32")],
                f"  %0 = stablehlo.reverse %a0, dims = [{', '.join(map(str, dims))}] : {ty(src)}\n  return %0 : {ty(src)}")


def _factor_shape(rng, factors):
    factors = list(factors)
    rng.shuffle(factors)
    shape = []
    for f in factors:
        if shape and rng.random() < 0.4:
            shape[-1] *= f
        else:
            shape.append(f)
    if rng.random() < 0.3:
        shape.insert(rng.randint(0, len(shape)), 1)
    return shape


def case_reshape(rng):
    factors = [rng.choice([2, 2, 3, 4]) for _ in range(rng.randint(1, 4))]
    src, out = _factor_shape(rng, factors), _factor_shape(rng, factors)
    return Case("reshape", [(src, "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.reshape %a0 : ({ty(src)}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_slice(rng):
    src = rand_shape(rng, rng.randint(1, 3), 1, 9)
    start, limit, strides, out = [], [], [], []
    for n in src:
        a = rng.randint(0, n - 1)
        b = rng.randint(a, n)
        s = rng.randint(1, 3)
        start.append(a), limit.append(b), strides.append(s)
        out.append((b - a + s - 1) // s)
    spec = ", ".join(f"{a}:{b}:{s}" for a, b, s in zip(start, limit, strides))
    return Case("slice", [(src, "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.slice %a0 [{spec}] : ({ty(src)}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_concatenate(rng):
    rank = rng.randint(1, 3)
    axis = rng.randrange(rank)
    base = rand_shape(rng, rank)
    shapes = []
    for _ in range(rng.randint(1, 3)):
        s = list(base)
        s[axis] = rng.randint(0, 3)
        shapes.append(s)
    out = list(base)
    out[axis] = sum(s[axis] for s in shapes)
    operands = ", ".join(f"%a{i}" for i in range(len(shapes)))
    types = ", ".join(ty(s) for s in shapes)
    return Case("concatenate", [(s, "i32", "data") for s in shapes], [(out, "i32")],
                f"  %0 = stablehlo.concatenate {operands}, dim = {axis} : ({types}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_pad(rng):
    src = rand_shape(rng, rng.randint(1, 2), 1, 4)
    low = [rng.randint(-2, 2) for _ in src]
    high = [rng.randint(-2, 2) for _ in src]
    interior = [rng.randint(0, 2) for _ in src]
    out = [l + h + (n - 1) * (i + 1) + 1 for n, l, h, i in zip(src, low, high, interior)]
    if any(o <= 0 for o in out):
        return case_pad(rng)
    return Case("pad", [(src, "i32", "data"), ([], "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.pad %a0, %a1, low = [{', '.join(map(str, low))}], high = [{', '.join(map(str, high))}], "
                f"interior = [{', '.join(map(str, interior))}] : ({ty(src)}, {ty([])}) -> {ty(out)}\n  return %0 : {ty(out)}",
                exact={1: False})


def _add_body(n):
    args = ", ".join(f"%x{i}: tensor<i32>" for i in range(2 * n))
    sums = "\n".join(f"    %s{i} = stablehlo.add %x{i}, %x{n + i} : tensor<i32>" for i in range(n))
    rets = ", ".join(f"%s{i}" for i in range(n))
    return f"  ^bb0({args}):\n{sums}\n    stablehlo.return {rets} : {', '.join(['tensor<i32>'] * n)}\n"


def case_reduce(rng):
    src = rand_shape(rng, rng.randint(1, 3))
    dims = sorted(rng.sample(range(len(src)), rng.randint(1, len(src))))
    out = [n for i, n in enumerate(src) if i not in dims]
    n = rng.randint(1, 2)
    operands = ", ".join(f"%a{i}" for i in range(2 * n))
    types = ", ".join([ty(src)] * n + [ty([])] * n)
    rtypes = ", ".join([ty(out)] * n)
    body = (
        f'  %0:{n} = "stablehlo.reduce"({operands}) <{{dimensions = {arr(dims)}}}> ({{\n{_add_body(n)}  }}) : ({types}) -> ({rtypes})\n'
        f"  return {', '.join(f'%0#{i}' for i in range(n))} : {rtypes}"
    )
    # variadic with an element-wise body: result i reads only input i, so the maps over-approximate
    # init values are identities by contract: how often XLA applies them is implementation-defined
    exact = {n + k: False for k in range(n)} if n == 1 else {k: False for k in range(2 * n)}
    return Case("reduce", [(src, "i32", "data")] * n + [([], "i32", "data")] * n, [(out, "i32")] * n, body, exact=exact)


def case_dot_general(rng):
    nb, nc, nl, nr = rng.randint(0, 1), rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 1)
    b, c = rand_shape(rng, nb, 1, 3), rand_shape(rng, nc, 1, 3)
    lf, rf = rand_shape(rng, nl, 1, 3), rand_shape(rng, nr, 1, 3)
    lhs_axes = [("b", i) for i in range(nb)] + [("c", i) for i in range(nc)] + [("f", i) for i in range(nl)]
    rhs_axes = [("b", i) for i in range(nb)] + [("c", i) for i in range(nc)] + [("f", i) for i in range(nr)]
    rng.shuffle(lhs_axes), rng.shuffle(rhs_axes)
    size = {"b": b, "c": c}

    def shape(axes, free):
        return [size[k][i] if k in size else free[i] for k, i in axes]

    # free dims keep their order in the result, so number them by position
    lhs, rhs = shape(lhs_axes, lf), shape(rhs_axes, rf)
    lb = [lhs_axes.index(("b", i)) for i in range(nb)]
    rb = [rhs_axes.index(("b", i)) for i in range(nb)]
    lc = [lhs_axes.index(("c", i)) for i in range(nc)]
    rc = [rhs_axes.index(("c", i)) for i in range(nc)]
    lfree = [lhs[j] for j, (k, _) in enumerate(lhs_axes) if k == "f"]
    rfree = [rhs[j] for j, (k, _) in enumerate(rhs_axes) if k == "f"]
    out = b + lfree + rfree
    L = lambda xs: ", ".join(map(str, xs))
    return Case("dot_general", [(lhs, "i32", "data"), (rhs, "i32", "data")], [(out, "i32")],
                f"  %0 = stablehlo.dot_general %a0, %a1, batching_dims = [{L(lb)}] x [{L(rb)}], contracting_dims = [{L(lc)}] x [{L(rc)}] "
                f": ({ty(lhs)}, {ty(rhs)}) -> {ty(out)}\n  return %0 : {ty(out)}")


def case_dynamic_slice(rng):
    """Offsets are arguments, or constants (folded into the map, clamped) with probability 0.3."""
    src = rand_shape(rng, rng.randint(1, 3), 1, 5)
    sizes = [rng.randint(1, n) for n in src]
    args = [(src, "i32", "data")]
    lines, idx = [], []
    for i in range(len(src)):
        if rng.random() < 0.3:
            lines.append(f"  %c{i} = stablehlo.constant dense<{rng.randint(-1, 6)}> : tensor<i32>")
            idx.append(f"%c{i}")
        else:
            args.append(([], "i32", "index"))
            idx.append(f"%a{len(args) - 1}")
    itypes = ", ".join([ty([])] * len(src))
    body = "\n".join(lines + [
        f"  %0 = stablehlo.dynamic_slice %a0, {', '.join(idx)}, sizes = [{', '.join(map(str, sizes))}] : ({ty(src)}, {itypes}) -> {ty(sizes)}",
        f"  return %0 : {ty(sizes)}",
    ])
    return Case("dynamic_slice", args, [(sizes, "i32")], body)


def case_dynamic_update_slice(rng):
    src = rand_shape(rng, rng.randint(1, 3), 1, 5)
    upd = [rng.randint(1, n) for n in src]
    args = [(src, "i32", "data"), (upd, "i32", "data")] + [([], "i32", "index")] * len(src)
    idx = ", ".join(f"%a{i + 2}" for i in range(len(src)))
    itypes = ", ".join([ty([])] * len(src))
    return Case("dynamic_update_slice", args, [(src, "i32")],
                f"  %0 = stablehlo.dynamic_update_slice %a0, %a1, {idx} : ({ty(src)}, {ty(upd)}, {itypes}) -> {ty(src)}\n  return %0 : {ty(src)}",
                exact={0: False, **{i + 2: False for i in range(len(src))}}, out_of_bounds_ok={1})


def case_gather(rng):
    """Gathers: collapsed size-1 slice dims, batching dims, a permuted subset of operand dims in
    start_index_map, offset dims anywhere in the output, index_vector_dim anywhere (or implicit)."""
    batch = rand_shape(rng, rng.randint(0, 2), 1, 3)
    pairs = rng.sample(range(len(batch)), rng.randint(0, len(batch))) if rng.random() < 0.4 else []
    entries = [("r", n) for n in rand_shape(rng, rng.randint(1, 3), 1, 5)] + [("b", p) for p in pairs]
    rng.shuffle(entries)
    src = [n if kind == "r" else batch[n] for kind, n in entries]
    regular = [i for i, (kind, _) in enumerate(entries) if kind == "r"]
    k = rng.randint(1, len(regular))
    sim = rng.sample(regular, k)
    sizes = [rng.randint(1, src[i]) if i in regular else 1 for i in range(len(src))]
    collapsed = sorted(i for i in regular if sizes[i] == 1 and rng.random() < 0.5)
    if k == 1 and rng.random() < 0.3:
        ivd, idx = len(batch), list(batch)  # implicit trailing index vector of size 1
    else:
        ivd = rng.randint(0, len(batch))
        idx = batch[:ivd] + [k] + batch[ivd:]
    obd = [i for i, (kind, _) in enumerate(entries) if kind == "b"]
    sibd = [(entries[i][1] if entries[i][1] < ivd else entries[i][1] + 1) for i in obd]
    kept = [i for i in regular if i not in collapsed]
    out_rank = len(batch) + len(kept)
    offset_dims = sorted(rng.sample(range(out_rank), len(kept)))
    out, b, o = [], iter(batch), iter([sizes[i] for i in kept])
    for i in range(out_rank):
        out.append(next(o) if i in offset_dims else next(b))
    L = lambda xs: ", ".join(map(str, xs))
    body = (
        f'  %0 = "stablehlo.gather"(%a0, %a1) <{{dimension_numbers = #stablehlo.gather<offset_dims = [{L(offset_dims)}], '
        f"collapsed_slice_dims = [{L(collapsed)}], operand_batching_dims = [{L(obd)}], start_indices_batching_dims = [{L(sibd)}], "
        f"start_index_map = [{L(sim)}], index_vector_dim = {ivd}>, "
        f"slice_sizes = {arr(sizes)}}}> : ({ty(src)}, {ty(idx)}) -> {ty(out)}\n  return %0 : {ty(out)}"
    )
    return Case("gather", [(src, "i32", "data"), (idx, "i32", "index")], [(out, "i32")], body,
                exact={1: False}, no_input_to_output={0})


def case_sort(rng):
    """Variadic sort by the first operand: every result element depends on whole rows (perturbing
    one element moves only some results, so the claim is sound, not precise)."""
    src = rand_shape(rng, rng.randint(1, 3), 1, 4)
    axis = rng.randrange(len(src))
    n = rng.randint(1, 2)
    args = ", ".join(f"%x{i}: tensor<i32>, %y{i}: tensor<i32>" for i in range(n))
    body = (
        f'  %0:{n} = "stablehlo.sort"({", ".join(f"%a{i}" for i in range(n))}) <{{dimension = {axis} : i64}}> ({{\n'
        f"  ^bb0({args}):\n"
        f"    %c = stablehlo.compare LT, %x0, %y0 : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        f"    stablehlo.return %c : tensor<i1>\n"
        f"  }}) : ({', '.join([ty(src)] * n)}) -> ({', '.join([ty(src)] * n)})\n"
        f"  return {', '.join(f'%0#{i}' for i in range(n))} : {', '.join([ty(src)] * n)}"
    )
    return Case("sort", [(src, "i32", "data")] * n, [(src, "i32")] * n, body, exact={i: False for i in range(n)})


def case_reduce_window(rng):
    src = rand_shape(rng, rng.randint(1, 2), 1, 5)
    r = len(src)
    win = [rng.randint(1, 3) for _ in src]
    strides = [rng.randint(1, 2) for _ in src]
    base = [rng.randint(1, 2) for _ in src]
    wdil = [rng.randint(1, 2) for _ in src]
    pad = [(rng.randint(0, 2), rng.randint(0, 2)) for _ in src]
    out = []
    for i, n in enumerate(src):
        padded = pad[i][0] + (n - 1) * base[i] + 1 + pad[i][1]
        span = (win[i] - 1) * wdil[i] + 1
        if padded < span:
            return case_reduce_window(rng)
        out.append((padded - span) // strides[i] + 1)
    pads = ", ".join(f"[{a}, {b}]" for a, b in pad)
    body = (
        f'  %0 = "stablehlo.reduce_window"(%a0, %a1) <{{window_dimensions = {arr(win)}, window_strides = {arr(strides)}, '
        f"base_dilations = {arr(base)}, window_dilations = {arr(wdil)}, padding = dense<[{pads}]> : tensor<{r}x2xi64>}}> ({{\n"
        f"{_add_body(1)}  }}) : ({ty(src)}, {ty([])}) -> {ty(out)}\n  return %0 : {ty(out)}"
    )
    return Case("reduce_window", [(src, "i32", "data"), ([], "i32", "data")], [(out, "i32")], body, exact={1: False})


def case_convolution(rng):
    ns = rng.randint(1, 2)
    fg = bg = 1
    if rng.random() < 0.4:
        if rng.random() < 0.5:
            fg = rng.randint(2, 3)
        else:
            bg = rng.randint(2, 3)
    nb, ci, fo = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 2) * fg * bg
    b, fi = nb * bg, ci * fg  # lhs batch and features; the kernel has ci input features
    sp = rand_shape(rng, ns, 1, 4)
    k = [rng.randint(1, 2) for _ in range(ns)]
    stride = [rng.randint(1, 2) for _ in range(ns)]
    pad = [(rng.randint(0, 1), rng.randint(0, 1)) for _ in range(ns)]
    ld = [rng.randint(1, 2) for _ in range(ns)]
    rd = [rng.randint(1, 2) for _ in range(ns)]
    rev = [rng.choice(["false", "true"]) for _ in range(ns)]
    out_sp = []
    for i in range(ns):
        padded = pad[i][0] + (sp[i] - 1) * ld[i] + 1 + pad[i][1]
        span = (k[i] - 1) * rd[i] + 1
        if padded < span:
            return case_convolution(rng)
        out_sp.append((padded - span) // stride[i] + 1)
    # random layouts: each of lhs, kernel and output orders its dims its own way
    def layout(named):
        order = list(named)
        rng.shuffle(order)
        return "[" + ", ".join(n for n, _ in order) + "]", [size for _, size in order]

    spatial = lambda sizes: [(str(i), n) for i, n in enumerate(sizes)]
    lhs_dn, lhs = layout([("b", b), ("f", fi)] + spatial(sp))
    rhs_dn, rhs = layout([("o", fo), ("i", ci)] + spatial(k))
    out_dn, out = layout([("b", nb), ("f", fo)] + spatial(out_sp))
    L = lambda xs: ", ".join(map(str, xs))
    body = (
        f"  %0 = stablehlo.convolution(%a0, %a1) dim_numbers = {lhs_dn}x{rhs_dn}->{out_dn}, "
        f"window = {{stride = [{L(stride)}], pad = [{', '.join(f'[{a}, {c}]' for a, c in pad)}], lhs_dilate = [{L(ld)}], rhs_dilate = [{L(rd)}], "
        f"reverse = [{L(rev)}]}} "
        f"{{batch_group_count = {bg} : i64, feature_group_count = {fg} : i64}} : ({ty(lhs)}, {ty(rhs)}) -> {ty(out)}\n  return %0 : {ty(out)}"
    )
    return Case("convolution", [(lhs, "i32", "data"), (rhs, "i32", "data")], [(out, "i32")], body)


GENERATORS = {
    "elementwise": case_elementwise,
    "broadcast_in_dim": case_broadcast,
    "transpose": case_transpose,
    "reverse": case_reverse,
    "reshape": case_reshape,
    "slice": case_slice,
    "concatenate": case_concatenate,
    "pad": case_pad,
    "reduce": case_reduce,
    "dot_general": case_dot_general,
    "dynamic_slice": case_dynamic_slice,
    "dynamic_update_slice": case_dynamic_update_slice,
    "gather": case_gather,
    "reduce_window": case_reduce_window,
    "sort": case_sort,
    "convolution": case_convolution,
}


# ----------------------------------------------------------------------------------------------
# the oracle: read sets measured by perturbation


def make_inputs(case, rng):
    vals = []
    for a, (shape, et, kind) in enumerate(case.args):
        if kind == "pred":
            vals.append(np.array(rng.random(shape) < 0.5))
        elif kind == "index":
            vals.append(rng.integers(-1, 6, size=shape).astype(np.int32))
        elif et == "f32":
            vals.append(rng.uniform(-1, 1, size=shape).astype(np.float32))
        else:
            # distinct odd values, 1 or 3 mod 4 by argument: neighbouring arguments never agree
            n = int(np.prod(shape))
            vals.append((rng.permutation(max(1, n))[:n] * 4 + 1 + 2 * (a % 2)).reshape(shape).astype(np.int32))
    return vals


def perturbed(x):
    x = x.copy()
    if x.dtype == np.bool_:
        return ~x
    return x + (1 if x.dtype != np.float32 else np.float32(0.5))


def _bits(a):
    """Per element, its bytes as one integer (bitwise comparison, NaN-safe)."""
    a = np.array(a, copy=True)  # contiguous, keeps rank 0
    raw = a.reshape(-1).view(np.uint8).reshape(a.size, a.dtype.itemsize)
    return np.array([bytes(row) for row in raw], dtype=object).reshape(a.shape)


def read_sets(case, exe, inputs):
    """``reads[arg][result][out_index] = set of arg indices``, measured by perturbation."""
    base = exe(*inputs)
    reads = {}
    for a, (shape, _, kind) in enumerate(case.args):
        if kind == "index":
            continue
        per_result = [dict() for _ in case.results]
        for y in itertools.product(*[range(n) for n in shape]):
            args = list(inputs)
            x = inputs[a].copy()
            x[y] = perturbed(np.asarray(x[y]))
            args[a] = x
            outs = exe(*args)
            for r, (o, b) in enumerate(zip(outs, base)):
                changed = _bits(o) != _bits(b)
                for xo in np.ndindex(changed.shape):
                    if changed[xo]:
                        per_result[r].setdefault(tuple(int(i) for i in xo), set()).add(y)
        reads[a] = per_result
    return reads


def rt_values(m, point, inputs):
    vals = []
    for rv in m.rt_vars:
        idx = tuple(e.evaluate(point, []) for e in rv.map)
        vals.append(int(inputs[rv.value.arg_number][idx]))
    return vals


def denoted(maps, point, inputs, shape, allow_oob):
    out = set()
    for m in maps:
        for idx in m.image(point, rt_values(m, point, inputs)):
            inside = all(0 <= i < n for i, n in zip(idx, shape))
            assert inside or allow_oob, f"map denotes out-of-bounds index {idx} at {point}:\n{m}"
            if inside:
                out.add(idx)
    return out


def check_case(case, seed):
    ctx = hlokit.make_context()
    module = hlokit.parse(case.text(), context=ctx)
    exe = backend.compile(module)
    rng = np.random.default_rng(seed)
    inputs = make_inputs(case, rng)
    reads = read_sets(case, exe, inputs)
    func = module.body.operations[0]
    with ctx:
        for r, (oshape, _) in enumerate(case.results):
            maps = function_output_to_input(func, r)
            for a, (shape, _, kind) in enumerate(case.args):
                exact = case.exact.get(a, True) and kind != "index"
                for point in itertools.product(*[range(n) for n in oshape]):
                    got = denoted(maps.get(a, []), point, inputs, shape, a in case.out_of_bounds_ok)
                    true = reads[a][r].get(point, set()) if a in reads else set()
                    assert true <= got, f"{case.name} unsound: result {r} at {point} reads {sorted(true - got)} of arg {a}\n{case.text()}"
                    if exact:
                        assert got == true, f"{case.name} imprecise: result {r} at {point}, arg {a}: map {sorted(got)} vs {sorted(true)}\n{case.text()}"
        for a, (shape, _, kind) in enumerate(case.args):
            if a in case.no_input_to_output:
                with pytest.raises(IndexingError):
                    function_input_to_output(func, a)
                continue
            maps = function_input_to_output(func, a)
            exact = case.exact.get(a, True) and kind != "index"
            for r, (oshape, _) in enumerate(case.results):
                users: dict = {}
                if a in reads:
                    for xo, ys in reads[a][r].items():
                        for y in ys:
                            users.setdefault(y, set()).add(xo)
                for y in itertools.product(*[range(n) for n in shape]):
                    got = denoted(maps.get(r, []), y, inputs, oshape, False)
                    true = users.get(y, set())
                    assert true <= got, f"{case.name} unsound (input->output): arg {a} at {y} feeds {sorted(true - got)}\n{case.text()}"
                    if exact:
                        assert got == true, f"{case.name} imprecise (input->output): arg {a} at {y}: {sorted(got)} vs {sorted(true)}\n{case.text()}"


@pytest.mark.parametrize("op", sorted(GENERATORS))
def test_maps_match_measured_reads(op):
    rng = random.Random(f"indexing-{op}")
    for i in range(6):
        check_case(GENERATORS[op](rng), i)


@pytest.mark.slow
@pytest.mark.parametrize("op", sorted(GENERATORS))
def test_maps_match_measured_reads_sweep(op):
    rng = random.Random(f"indexing-sweep-{op}")
    for i in range(60):
        check_case(GENERATORS[op](rng), i)


# ----------------------------------------------------------------------------------------------
# fusions: random chains of ops, analysed as one function


def _chain_case(rng, length):
    """A function of one data argument (plus scalar offsets): ``length`` random ops applied in turn,
    some reading their input twice (``add(x, reverse(x))``)."""
    shape = rand_shape(rng, rng.randint(1, 3), 1, 4)
    args = [(shape, "i32", "data")]
    lines = []
    cur, n = "%a0", 0

    def fresh():
        nonlocal n
        n += 1
        return f"%v{n}"

    for _ in range(length):
        kind = rng.choice(["transpose", "reverse", "reshape", "slice", "pad", "broadcast", "reduce", "self_add", "concat_self", "dynamic_slice"])
        t = ty(shape)
        v = fresh()
        if kind == "transpose":
            perm = list(range(len(shape)))
            rng.shuffle(perm)
            new = [shape[p] for p in perm]
            lines.append(f"  {v} = stablehlo.transpose {cur}, dims = [{', '.join(map(str, perm))}] : ({t}) -> {ty(new)}")
        elif kind == "reverse":
            dims = sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape)))) if shape else []
            new = shape
            lines.append(f"  {v} = stablehlo.reverse {cur}, dims = [{', '.join(map(str, dims))}] : {t}")
        elif kind == "reshape":
            size = int(np.prod(shape))
            factors = []
            k = size
            for p in (2, 3, 5, 7):
                while k % p == 0:
                    factors.append(p)
                    k //= p
            new = _factor_shape(rng, factors or [1])
            lines.append(f"  {v} = stablehlo.reshape {cur} : ({t}) -> {ty(new)}")
        elif kind == "slice":
            if not shape or min(shape) < 1:
                continue
            st = [rng.randint(0, d - 1) for d in shape]
            lim = [rng.randint(a + 1, d) for a, d in zip(st, shape)]
            sd = [rng.randint(1, 2) for _ in shape]
            new = [(b - a + s - 1) // s for a, b, s in zip(st, lim, sd)]
            spec = ", ".join(f"{a}:{b}:{s}" for a, b, s in zip(st, lim, sd))
            lines.append(f"  {v} = stablehlo.slice {cur} [{spec}] : ({t}) -> {ty(new)}")
        elif kind == "pad":
            lo = [rng.randint(-1, 1) for _ in shape]
            hi = [rng.randint(-1, 1) for _ in shape]
            it = [rng.randint(0, 1) for _ in shape]
            new = [l + h + (d - 1) * (i + 1) + 1 for d, l, h, i in zip(shape, lo, hi, it)]
            if any(x <= 0 for x in new):
                continue
            c = fresh()
            lines.append(f"  {c} = stablehlo.constant dense<0> : tensor<i32>")
            lines.append(f"  {v} = stablehlo.pad {cur}, {c}, low = [{', '.join(map(str, lo))}], high = [{', '.join(map(str, hi))}], "
                         f"interior = [{', '.join(map(str, it))}] : ({t}, tensor<i32>) -> {ty(new)}")
        elif kind == "broadcast":
            if len(shape) >= 3:
                continue
            pos = rng.randint(0, len(shape))
            new = shape[:pos] + [rng.randint(1, 3)] + shape[pos:]
            dims = [i if i < pos else i + 1 for i in range(len(shape))]
            lines.append(f"  {v} = stablehlo.broadcast_in_dim {cur}, dims = [{', '.join(map(str, dims))}] : ({t}) -> {ty(new)}")
        elif kind == "reduce":
            if not shape:
                continue
            dims = sorted(rng.sample(range(len(shape)), 1))
            new = [d for i, d in enumerate(shape) if i not in dims]
            c = fresh()
            lines.append(f"  {c} = stablehlo.constant dense<0> : tensor<i32>")
            lines.append(f'  {v} = "stablehlo.reduce"({cur}, {c}) <{{dimensions = {arr(dims)}}}> ({{\n{_add_body(1)}  }}) : ({t}, tensor<i32>) -> {ty(new)}')
        elif kind == "self_add":
            if not shape:
                continue
            r = fresh()
            lines.append(f"  {r} = stablehlo.reverse {cur}, dims = [0] : {t}")
            lines.append(f"  {v} = stablehlo.add {cur}, {r} : {t}")
            new = shape
        elif kind == "concat_self":
            if not shape:
                continue
            ax = rng.randrange(len(shape))
            new = list(shape)
            new[ax] *= 2
            lines.append(f"  {v} = stablehlo.concatenate {cur}, {cur}, dim = {ax} : ({t}, {t}) -> {ty(new)}")
        else:  # dynamic_slice with offsets passed as arguments
            # one per chain: XLA's CPU compiler folds dynamic_slice(dynamic_slice(x, a), b) into one
            # dynamic_slice at a + b clamped once, which differs from the spec (each start index is
            # clamped by its own op) when a is clamped, so the oracle would be wrong
            if not shape or len(args) > 1:
                continue
            sizes = [rng.randint(1, d) for d in shape]
            offs = []
            for _ in shape:
                args.append(([], "i32", "index"))
                offs.append(f"%a{len(args) - 1}")
            new = sizes
            lines.append(f"  {v} = stablehlo.dynamic_slice {cur}, {', '.join(offs)}, sizes = [{', '.join(map(str, sizes))}] : "
                         f"({t}, {', '.join(['tensor<i32>'] * len(shape))}) -> {ty(new)}")
        cur, shape = v, new
        if int(np.prod(shape)) > 200:
            break
    lines.append(f"  return {cur} : {ty(shape)}")
    return Case("chain", args, [(shape, "i32")], "\n".join(lines))


def test_fusion_chains_match_measured_reads():
    rng = random.Random("indexing-chains")
    for i in range(12):
        check_case(_chain_case(rng, rng.randint(2, 5)), i)


@pytest.mark.slow
def test_fusion_chains_match_measured_reads_sweep():
    rng = random.Random("indexing-chains-sweep")
    for i in range(150):
        check_case(_chain_case(rng, rng.randint(2, 7)), i)
