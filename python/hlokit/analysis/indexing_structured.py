"""Indexing rules of the ops that combine or select elements: ``reduce``, ``sort``, ``gather``,
``dot_general`` / ``dot``, ``pad``, ``reduce_window`` and ``convolution`` (feature and batch groups,
dilations, padding, window reversal).

Each map follows the op's definition in the StableHLO specification (https://openxla.org/stablehlo/spec)
and XLA's indexing analysis (https://openxla.org/xla/indexing, "Indexing Maps for Unfused Ops");
registration: :func:`hlokit.analysis.indexing_rules.out_to_in` / :func:`~hlokit.analysis.indexing_rules.in_to_out`.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.analysis.indexing import (
    DimVar,
    IndexingError,
    IndexingMap,
    Interval,
    const,
    dim,
    range_vars,
    sym,
)
from hlokit.analysis.indexing_rules import (
    all_of,
    in_to_out,
    make_map,
    out_to_in,
    rt_var,
    scalar_read,
    shape_of,
)


# ----------------------------------------------------------------------------------------------
# reduce (variadic)


@out_to_in("stablehlo.reduce")
def _reduce_oi(op, r):
    n = len(op.operands) // 2
    red = sorted(attributes.i64_array(op, "dimensions"))
    out = shape_of(op.results[r])
    maps = []
    for k in range(n):
        src = shape_of(op.operands[k])
        results, j = [], 0
        for i in range(len(src)):
            if i in red:
                results.append(sym(red.index(i)))
            else:
                results.append(dim(j))
                j += 1
        maps.append([make_map(results, out, range_vars([src[i] for i in red]))])
    maps += [[scalar_read(out)] for _ in range(n)]
    return maps


@in_to_out("stablehlo.reduce")
def _reduce_io(op, k):
    n = len(op.operands) // 2
    red = set(attributes.i64_array(op, "dimensions"))
    if k >= n:
        return [[all_of(shape_of(res))] for res in op.results]
    src = shape_of(op.operands[k])
    m = make_map([dim(i) for i in range(len(src)) if i not in red], src)
    return [[m] for _ in op.results]


# ----------------------------------------------------------------------------------------------
# sort: each result element depends on the whole row of every operand along the sort dimension


def _sort_row_map(op, shape_value) -> IndexingMap:
    axis = attributes.int_value(op, "dimension", -1)
    shape = shape_of(shape_value)
    axis = axis % len(shape) if shape else 0
    results = [sym(0) if i == axis else dim(i) for i in range(len(shape))]
    return make_map(results, shape, range_vars([shape[axis]]))


@out_to_in("stablehlo.sort")
def _sort_oi(op, r):
    return [[_sort_row_map(op, op.results[r])] for _ in op.operands]


@in_to_out("stablehlo.sort")
def _sort_io(op, k):
    return [[_sort_row_map(op, op.operands[k])] for _ in op.results]


# ----------------------------------------------------------------------------------------------
# gather


def _gather_layout(op):
    """Dimension bookkeeping of a gather (spec ``gather``, batching dims included).

    Returns ``(src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, sim,
    batching_out)``: output batch dim ``batch_out[p]`` runs along indices dim ``idx_batch[p]``; output
    offset dim ``offset_dims[m]`` along operand dim ``noncollapsed[m]``; start index ``j`` (of ``k``)
    is added to operand dim ``sim[j]``; operand batching dim ``i`` is indexed by output dim
    ``batching_out[i]``.
    """
    dn = stablehlo.GatherDimensionNumbers(attributes.get(op, "dimension_numbers"))
    src, idx, out = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    sizes = attributes.i64_array(op, "slice_sizes")
    ivd = dn.index_vector_dim
    k = idx[ivd] if ivd < len(idx) else 1
    offset_dims = list(dn.offset_dims)
    batching = dict(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    collapsed = set(dn.collapsed_slice_dims) | set(batching)
    batch_out = [i for i in range(len(out)) if i not in offset_dims]
    idx_batch = [q for q in range(len(idx)) if q != ivd]
    noncollapsed = [i for i in range(len(src)) if i not in collapsed]
    # operand batching dim -> the output (batch) dim running along its indices batching dim
    batching_out = {i: batch_out[idx_batch.index(q)] for i, q in batching.items()}
    return src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, list(dn.start_index_map), batching_out


@out_to_in("stablehlo.gather")
def _gather_oi(op, r):
    """Operand: dim ``i`` reads ``start_i + offset_i``, where ``start_i`` is an rt var (the index
    vector element of ``indices`` at the output's batch position, clamped to ``[0, dim_i - size_i]``)
    when ``i`` is in ``start_index_map`` and ``offset_i`` the output offset dim of ``i`` unless ``i`` is
    collapsed, plus the output batch position for an operand batching dim (the simplified gather of
    https://openxla.org/xla/indexing, section "Gather", is the case ``offset_dims = [1..rank]``, ``indices [N, k]``).
    Indices: the whole index vector at the output's batch position (a range var)."""
    src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, sim, batching_out = _gather_layout(op)
    indices = op.operands[1]

    def index_position(j):
        pos = [const(0)] * len(idx)
        for p, q in enumerate(idx_batch):
            pos[q] = dim(batch_out[p])
        if ivd < len(idx):
            pos[ivd] = const(j) if j is not None else sym(0)
        return pos

    rts = [rt_var(indices, Interval(0, src[sim[j]] - sizes[sim[j]]), index_position(j)) for j in range(k)]
    results = []
    for i in range(len(src)):
        e = const(0)
        if i in sim:
            e = e + sym(sim.index(i))
        if i in noncollapsed:
            e = e + dim(offset_dims[noncollapsed.index(i)])
        if i in batching_out:
            e = e + dim(batching_out[i])
        results.append(e)
    operand = make_map(results, out, rts=rts)
    index_map = make_map(index_position(None), out, range_vars([k] if ivd < len(idx) else []))
    return [[operand], [index_map]]


@in_to_out("stablehlo.gather")
def _gather_io(op, k):
    """Indices -> output only (an index vector feeds a whole slice); the operand -> output map would
    invert runtime values and is refused."""
    src, idx, out, sizes, ivd, n, batch_out, idx_batch, offset_dims, noncollapsed, sim, _ = _gather_layout(op)
    if k == 0:
        raise IndexingError("no input-to-output indexing map for the operand of 'stablehlo.gather'")
    results, ranges = [const(0)] * len(out), []
    for p, q in enumerate(idx_batch):
        results[batch_out[p]] = dim(q)
    for o in offset_dims:
        results[o] = sym(len(ranges))
        ranges.append(out[o])
    return [[make_map(results, idx, range_vars(ranges))]]


# ----------------------------------------------------------------------------------------------
# dot_general, dot


def _dot_numbers(op):
    lhs = shape_of(op.operands[0])
    if op.name == "stablehlo.dot":
        return [], [], [len(lhs) - 1], [0]
    dn = stablehlo.DotDimensionNumbers(attributes.get(op, "dot_dimension_numbers"))
    return (
        list(dn.lhs_batching_dimensions),
        list(dn.rhs_batching_dimensions),
        list(dn.lhs_contracting_dimensions),
        list(dn.rhs_contracting_dimensions),
    )


@out_to_in("stablehlo.dot_general", "stablehlo.dot")
def _dot_oi(op, r):
    lb, rb, lc, rc = _dot_numbers(op)
    lhs, rhs, out = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    lfree = [i for i in range(len(lhs)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(rhs)) if i not in rb and i not in rc]
    ranges = range_vars([lhs[i] for i in lc])

    def operand_map(rank, batch, contracting, free, free_offset):
        res = [const(0)] * rank
        for j, i in enumerate(batch):
            res[i] = dim(j)
        for j, i in enumerate(free):
            res[i] = dim(free_offset + j)
        for j, i in enumerate(contracting):
            res[i] = sym(j)
        return make_map(res, out, ranges)

    return [
        [operand_map(len(lhs), lb, lc, lfree, len(lb))],
        [operand_map(len(rhs), rb, rc, rfree, len(lb) + len(lfree))],
    ]


@in_to_out("stablehlo.dot_general", "stablehlo.dot")
def _dot_io(op, k):
    lb, rb, lc, rc = _dot_numbers(op)
    lhs, rhs = shape_of(op.operands[0]), shape_of(op.operands[1])
    lfree = [i for i in range(len(lhs)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(rhs)) if i not in rb and i not in rc]
    if k == 0:
        res = [dim(i) for i in lb] + [dim(i) for i in lfree] + [sym(j) for j in range(len(rfree))]
        return [[make_map(res, lhs, range_vars([rhs[i] for i in rfree]))]]
    res = [dim(i) for i in rb] + [sym(j) for j in range(len(lfree))] + [dim(i) for i in rfree]
    return [[make_map(res, rhs, range_vars([lhs[i] for i in lfree]))]]


# ----------------------------------------------------------------------------------------------
# pad


def _pad_operand_map(out, src, low, high, interior) -> IndexingMap:
    """Map from an index of the padded result to the operand element it holds (https://openxla.org/xla/indexing, section "Pad")."""
    dvars, results, cons = [], [], {}
    for i, n in enumerate(src):
        step = interior[i] + 1
        lo = low[i]
        first = lo if lo >= 0 else lo + (-(lo) + step - 1) // step * step
        last = lo + (n - 1) * step
        if last > out[i] - 1:
            last = lo + ((out[i] - 1 - lo) // step) * step
        if n == 0:
            first, last = 0, -1
        dvars.append(DimVar(Interval(first, last)))
        results.append((dim(i) - lo).floordiv(step))
        if step > 1:
            cons[(dim(i) - lo).mod(step)] = Interval(0, 0)
    return make_map(results, dvars, constraints=cons)


@out_to_in("stablehlo.pad")
def _pad_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    low, high, interior = attributes.i64_array(op, "edge_padding_low"), attributes.i64_array(op, "edge_padding_high"), attributes.i64_array(op, "interior_padding")
    return [[_pad_operand_map(out, src, low, high, interior)], [scalar_read(out)]]


@in_to_out("stablehlo.pad")
def _pad_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if k == 1:
        return [[all_of(out)]]
    low, interior = attributes.i64_array(op, "edge_padding_low"), attributes.i64_array(op, "interior_padding")
    results = [dim(i) * (interior[i] + 1) + low[i] for i in range(len(src))]
    cons = {results[i]: Interval(0, out[i] - 1) for i in range(len(src))}
    return [[make_map(results, src, constraints=cons)]]


# ----------------------------------------------------------------------------------------------
# reduce_window: a window map over the padded, base-dilated operand composed with a pad map


def _window_attrs(op):
    n = len(op.operands) // 2
    src = shape_of(op.operands[0])
    rank = len(src)
    win = attributes.i64_array(op, "window_dimensions")
    strides = attributes.i64_array(op, "window_strides", [1] * rank)
    base = attributes.i64_array(op, "base_dilations", [1] * rank)
    wdil = attributes.i64_array(op, "window_dilations", [1] * rank)
    pad = attributes.i64_array(op, "padding", [0] * (2 * rank))
    return n, src, win, strides, base, wdil, pad[0::2], pad[1::2]


@out_to_in("stablehlo.reduce_window")
def _reduce_window_oi(op, r):
    n, src, win, strides, base, wdil, plo, phi = _window_attrs(op)
    out = shape_of(op.results[r])
    results, ranges = [], []
    for i in range(len(src)):
        e = dim(i) * strides[i]
        if win[i] > 1:
            e = e + sym(len(ranges)) * wdil[i]
            ranges.append(win[i])
        results.append(e)
    window = make_map(results, out, range_vars(ranges))
    padded = [plo[i] + (src[i] - 1) * base[i] + 1 + phi[i] if src[i] else plo[i] + phi[i] for i in range(len(src))]
    pad = _pad_operand_map(padded, src, plo, phi, [b - 1 for b in base])
    operand = window.compose(pad)
    maps = [[operand] for _ in range(n)]
    return maps + [[scalar_read(out)] for _ in range(n)]


@in_to_out("stablehlo.reduce_window")
def _reduce_window_io(op, k):
    """Operand element ``x`` sits at ``x * base_dilation + pad_low`` of the padded input; output ``d``
    reads it through window position ``s`` when ``d * stride + s * window_dilation`` is that place."""
    n, src, win, strides, base, wdil, plo, phi = _window_attrs(op)
    outs = [shape_of(r) for r in op.results]
    if k >= n:
        return [[all_of(o)] for o in outs]
    results, ranges, cons = [], [], {}
    for i in range(len(src)):
        e = dim(i) * base[i] + plo[i]
        if win[i] > 1:
            e = e - sym(len(ranges)) * wdil[i]
            ranges.append(win[i])
        if strides[i] > 1:
            cons[e.mod(strides[i])] = Interval(0, 0)
        q = e.floordiv(strides[i])
        cons[q] = Interval(0, outs[0][i] - 1)
        results.append(q)
    m = make_map(results, src, range_vars(ranges), constraints=cons)
    return [[m] for _ in outs]


# ----------------------------------------------------------------------------------------------
# convolution (feature and batch groups, dilations, padding, window reversal)


def _conv_params(op) -> tuple:
    """What both directions of ``convolution``'s maps read: ``(feature_group_count, batch_group_count,
    dimension_numbers, (lhs, rhs, result shapes), (input, kernel, output spatial dimensions),
    (window_strides, padding flattened as [lo0, hi0, lo1, ...], lhs_dilation, rhs_dilation,
    window_reversal))``, each attribute at its spec default when absent."""
    fg = attributes.int_value(op, "feature_group_count", 1)
    bg = attributes.int_value(op, "batch_group_count", 1)
    dn = stablehlo.ConvDimensionNumbers(attributes.get(op, "dimension_numbers"))
    shapes = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    spatial = list(dn.input_spatial_dimensions), list(dn.kernel_spatial_dimensions), list(dn.output_spatial_dimensions)
    ns = len(spatial[0])
    window = (
        attributes.i64_array(op, "window_strides", [1] * ns),
        attributes.i64_array(op, "padding", [0] * (2 * ns)),
        attributes.i64_array(op, "lhs_dilation", [1] * ns),
        attributes.i64_array(op, "rhs_dilation", [1] * ns),
        attributes.i64_array(op, "window_reversal", [0] * ns),
    )
    return fg, bg, dn, shapes, spatial, window


@out_to_in("stablehlo.convolution")
def _convolution_oi(op, r):
    """Output-to-input maps of ``convolution`` (spec: feature and batch groups, window reversal).

    lhs: read at ``out_spatial * stride + s * rhs_dilation`` in the padded, lhs-dilated input (a pad
    map composed in), the input features of the output feature's group (a range var), the batch
    ``(o floordiv (O/B)) * (N/B) + b`` with batch groups. rhs: the output feature, the window positions
    that meet the input (not padding), all its input features.
    """
    fg, bg, dn, (lhs, rhs, out), (isp, ksp, osp), (strides, pad, ldil, rdil, rev) = _conv_params(op)
    ns = len(isp)
    # symbols: s0..s{ns-1} window positions, s{ns} input feature (within the group)
    ck = rhs[dn.kernel_input_feature_dimension]
    nout, nbatch = out[dn.output_feature_dimension], out[dn.output_batch_dimension]
    ranges = range_vars([rhs[k] for k in ksp] + [ck])
    # lhs: window map into the padded dilated input, then the pad map
    padded_shape, win_res = list(lhs), [const(0)] * len(lhs)
    win_res[dn.input_batch_dimension] = dim(dn.output_batch_dimension)
    if bg > 1:
        win_res[dn.input_batch_dimension] += dim(dn.output_feature_dimension).floordiv(nout // bg) * nbatch
    win_res[dn.input_feature_dimension] = sym(ns)
    if fg > 1:
        win_res[dn.input_feature_dimension] += dim(dn.output_feature_dimension).floordiv(nout // fg) * ck
    plo, phi, interior = [0] * len(lhs), [0] * len(lhs), [0] * len(lhs)
    for j in range(ns):
        i = isp[j]
        win_res[i] = dim(osp[j]) * strides[j] + sym(j) * rdil[j]
        plo[i], phi[i], interior[i] = pad[2 * j], pad[2 * j + 1], ldil[j] - 1
        padded_shape[i] = pad[2 * j] + ((lhs[i] - 1) * ldil[j] + 1 if lhs[i] else 0) + pad[2 * j + 1]
    window = make_map(win_res, out, ranges)
    lhs_map = window.compose(_pad_operand_map(padded_shape, lhs, plo, phi, interior))
    rhs_res = [const(0)] * len(rhs)
    rhs_res[dn.kernel_output_feature_dimension] = dim(dn.output_feature_dimension)
    rhs_res[dn.kernel_input_feature_dimension] = sym(ns)
    for j in range(ns):  # window position s_j meets kernel element s_j, or n - 1 - s_j reversed
        rhs_res[ksp[j]] = (-sym(j) + (rhs[ksp[j]] - 1)) if rev[j] else sym(j)
    # the kernel positions read are those whose input position is not padding
    rhs_map = IndexingMap(tuple(rhs_res), lhs_map.dim_vars, lhs_map.range_vars, (), dict(lhs_map.constraints))
    return [[lhs_map], [rhs_map]]


@in_to_out("stablehlo.convolution")
def _convolution_io(op, k):
    """Input-to-output maps of ``convolution``. An lhs element sits at
    ``x * lhs_dilation + pad_low`` of the padded input; output position ``y`` reads it through window
    position ``s`` when ``y * stride + s * rhs_dilation`` is that place. lhs: all output features, a
    range var per window position; rhs: all batches, a range var per input position."""
    _convolution_oi(op, 0)  # the same restrictions
    fg, bg, dn, (lhs, rhs, out), (isp, ksp, osp), (strides, pad, ldil, rdil, rev) = _conv_params(op)
    ns = len(isp)
    results, ranges, cons = [const(0)] * len(out), [], {}

    def range_var(n):
        ranges.append(n)
        return sym(len(ranges) - 1)

    nout, nbatch = out[dn.output_feature_dimension], out[dn.output_batch_dimension]
    if k == 0:
        batch, feature = dim(dn.input_batch_dimension), dim(dn.input_feature_dimension)
        if bg > 1:  # lhs batch chunk g feeds output feature chunk g
            results[dn.output_batch_dimension] = batch.mod(nbatch)
            results[dn.output_feature_dimension] = batch.floordiv(nbatch) * (nout // bg) + range_var(nout // bg)
        elif fg > 1:  # input feature group g feeds output feature group g
            ck = rhs[dn.kernel_input_feature_dimension]
            results[dn.output_batch_dimension] = batch
            results[dn.output_feature_dimension] = feature.floordiv(ck) * (nout // fg) + range_var(nout // fg)
        else:
            results[dn.output_batch_dimension] = batch
            results[dn.output_feature_dimension] = range_var(nout)
    else:
        results[dn.output_batch_dimension] = range_var(out[dn.output_batch_dimension])
        results[dn.output_feature_dimension] = dim(dn.kernel_output_feature_dimension)
    for j in range(ns):
        if k == 0:
            place = dim(isp[j]) * ldil[j] + pad[2 * j] - range_var(rhs[ksp[j]]) * rdil[j]
        else:
            pos = (-dim(ksp[j]) + (rhs[ksp[j]] - 1)) if rev[j] else dim(ksp[j])
            place = range_var(lhs[isp[j]]) * ldil[j] + pad[2 * j] - pos * rdil[j]
        if strides[j] > 1:
            cons[place.mod(strides[j])] = Interval(0, 0)
        y = place.floordiv(strides[j])
        cons[y] = Interval(0, out[osp[j]] - 1)
        results[osp[j]] = y
    return [[make_map(results, lhs if k == 0 else rhs, range_vars(ranges), constraints=cons)]]
