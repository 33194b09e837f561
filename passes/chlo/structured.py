"""Builders of the structured CHLO ops: top_k, constant_like, ragged_dot, scan (and constant).

Each ``build_<op>(e, args, info)`` writes the op's expansion into a template (``constant_like``,
``top_k`` and ``ragged_dot`` take dynamic shapes; ``scan`` static ones). ``chlo.constant`` needs no template:
:func:`build_constant` rewrites it in place (its value is copied to a ``stablehlo.constant``).
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit.passes.builder import FLOAT_TYPES, INT_TYPES, Emitter, UnsupportedError, V, replace_with_constant

__all__ = ["build_top_k", "build_constant_like", "build_ragged_dot", "build_scan", "build_constant",
           "SCAN_BODY"]


def build_top_k(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.top_k(x, k)``: the k largest entries of the last dimension and their i32/i64 indices —
    a stable descending ``sort`` of (x, iota) (``TOTALORDER`` for floats, so NaN sorts first; ``true``
    before ``false`` for i1) then a slice of the first k (as XLA's TopK,
    https://openxla.org/xla/operation_semantics#topk). Dynamic dimensions (the sorted one included):
    ``dynamic_iota`` and ``real_dynamic_slice`` on the runtime shape."""
    (x,) = args
    shape = info.operand_shapes[0]
    k = info.attrs["k"]
    if not shape:
        raise UnsupportedError("'chlo.top_k' needs an operand of rank >= 1")
    last = len(shape) - 1
    out_shape = list(shape[:-1]) + [k]
    dynamic = any(d < 0 for d in shape)
    idx = e.dynamic_iota(e.shape_of(x, shape), shape, last, "i32") if dynamic else e.iota(shape, last, "i32")
    ctype = "TOTALORDER" if x.t in FLOAT_TYPES else None
    vals, inds = e.sort([x, idx], last, lambda a, b, c, d: e.compare("GT", a, b, ctype))
    if dynamic:
        zeros = e.const(0, t="i32", shape=(len(shape),))
        ones = e.const(1, t="i32", shape=(len(shape),))
        limit = e.shape_of(x, out_shape)  # runtime sizes of the leading dims, then k
        rv = e.real_dynamic_slice(vals, zeros, limit, ones, out_shape)
        ri = e.real_dynamic_slice(inds, zeros, limit, ones, out_shape)
    else:
        zeros, ones = [0] * len(shape), [1] * len(shape)
        rv = e.slice(vals, zeros, out_shape, ones)
        ri = e.slice(inds, zeros, out_shape, ones)
    return [rv, e.convert(ri, info.result_elems[1])]


def build_constant_like(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.constant_like(x) {value}``: a splat of ``value`` shaped like ``x`` (dynamic shapes: the
    scalar broadcast to ``x``'s runtime shape)."""
    value = info.attrs["value"]
    shape = info.result_shapes[0]
    dynamic = any(d < 0 for d in shape)
    t = info.result_elems[0]
    c = e.const(value, t=t, shape=() if dynamic else shape)
    if dynamic:  # splat to the operand's runtime shape
        shape_t = e.shape_of(args[0], info.operand_shapes[0])
        c = e.dynamic_broadcast_in_dim(c, shape_t, shape, [])
    return [c]


def build_ragged_dot(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.ragged_dot(lhs, rhs, group_sizes)`` in its three modes (CHLO ``RaggedDotOp``; JAX's
    ``lax.ragged_dot_general`` reference): 1 — the ragged dimension is a non-contracting lhs dimension and
    rhs has a group dimension: ``dot_general`` over all groups, a group mask from the cumulative group
    sizes, ``reduce`` over the group dimension; 2 — ragged contracting dimension; 3 — ragged batch
    dimension (the plain ``dot_general``)."""
    lhs, rhs, gs = args
    dn = info.attrs.get("ragged_dot_dimension_numbers") or {}
    lb, rb = dn.get("lhs_batching_dimensions", []), dn.get("rhs_batching_dimensions", [])
    lc, rc = dn.get("lhs_contracting_dimensions", []), dn.get("rhs_contracting_dimensions", [])
    lr, rg = dn.get("lhs_ragged_dimensions", []), dn.get("rhs_group_dimensions", [])
    ls, rs, gss = info.operand_shapes
    lhs_free = [d for d in range(len(ls)) if d not in lb and d not in lc]
    rhs_free = [d for d in range(len(rs)) if d not in rb and d not in rc]
    nb = len(lb)

    def out_pos(d):  # position of lhs dimension d (batch or free) in the dot_general result
        return lb.index(d) if d in lb else nb + lhs_free.index(d)

    rt = info.result_elems[0]
    if len(lr) == 1 and lr[0] in lc and not rg:
        return [_ragged_dot_contracting(e, lhs, rhs, gs, info, lb, rb, lc, rc, lr[0])]
    if len(lr) == 1 and lr[0] in lb and not rg:
        # Mode 3 (ragged batch dimension): every batch element meets its own rhs, so the grouping does
        # not change the product; it is the plain dot_general (as in JAX's reference implementation).
        return [e.dot_general(lhs, rhs, lb, rb, lc, rc, rt)]
    # Mode 1 (CHLO RaggedDotOp): the ragged dimension is a non-contracting lhs dimension and rhs has one
    # group dimension; group_sizes is [g], or [lhs dims before the ragged one..., g] (batch or free dims).
    lead = list(range(lr[0])) if len(lr) == 1 and len(gss) > 1 else []
    if (
        len(lr) != 1
        or lr[0] not in lhs_free
        or len(rg) != 1
        or rg[0] not in rhs_free
        or list(gss) != [ls[d] for d in lead] + [rs[rg[0]]]
        or any(d in lc for d in lead)
    ):
        raise UnsupportedError(
            "'chlo.ragged_dot': expected one ragged lhs dimension: non-contracting with one rhs group "
            "dimension (mode 1; group_sizes [g] or [lhs dims before the ragged one..., g]), contracting "
            "(mode 2) or batch (mode 3), with no rhs group dimension in modes 2 and 3"
        )
    m = ls[lr[0]]
    _static_groups(gss, m, rs[rg[0]])
    prod = e.dot_general(lhs, rhs, lb, rb, lc, rc, rt)
    out_shape = prod.shape
    m_pos = nb + lhs_free.index(lr[0])
    g_pos = nb + len(lhs_free) + rhs_free.index(rg[0])
    mask = _group_mask(e, gs, gss, m)  # [lead..., m, g]
    runtime = _memo(lambda: e.shape_of(prod, out_shape))
    mask_b = e.broadcast_to(mask, out_shape, [out_pos(d) for d in lead] + [m_pos, g_pos], runtime)
    sel = e.select(mask_b, prod, _zeros(e, rt, out_shape, runtime))
    return [e.reduce_sum(sel, [g_pos])]


def _memo(fn):
    """``fn`` called at most once (a runtime shape tensor is built only when a dynamic shape needs it)."""
    cell = []

    def get():
        if not cell:
            cell.append(fn())
        return cell[0]

    return get


def _zeros(e: Emitter, t: str, shape, runtime) -> V:
    """Zeros of element type ``t`` and ``shape`` (broadcast to ``runtime()`` when it is dynamic)."""
    zero = 0.0 if t not in INT_TYPES else 0
    if all(d >= 0 for d in shape):
        return e.const(zero, t=t, shape=shape)
    return e.broadcast_to(e.const(zero, t=t, shape=()), shape, [], runtime)


def _static_groups(gss, n: int, g: int | None = None) -> None:
    """The ragged dimension (size ``n``), the group count and ``group_sizes`` must be static."""
    if n < 0 or any(d < 0 for d in gss) or (g is not None and g < 0):
        raise UnsupportedError(
            "'chlo.ragged_dot' with a dynamic ragged dimension, group dimension or group_sizes shape is not "
            "supported (other dimensions may be dynamic)"
        )


def _group_mask(e: Emitter, gs: V, gss, n: int) -> V:
    """``[lead..., n, g]`` i1 mask: index i of the ragged dimension (size ``n``) is in group j.

    Group ends are the inclusive cumulative sum of ``group_sizes`` along its last dimension (a
    lower-triangular masked sum); i is in group j when ``starts[j] <= i < ends[j]``.
    """
    gi = gs.t
    gb, g = list(gss[:-1]), gss[-1]
    iota_row = e.iota(gb + [g, g], len(gb), gi)
    iota_col = e.iota(gb + [g, g], len(gb) + 1, gi)
    tri = e.compare("LE", iota_col, iota_row)  # [..., row, col]: col <= row
    gsb = e.broadcast_in_dim(gs, gb + [g, g], list(range(len(gb))) + [len(gb) + 1])
    ends2 = e.select(tri, gsb, e.const(0, gsb))
    ends = e.reduce_sum(ends2, [len(gb) + 1])
    starts = ends - gs
    iota_n = e.iota(gb + [n, g], len(gb), gi)
    gdims = list(range(len(gb))) + [len(gb) + 1]
    sb = e.broadcast_in_dim(starts, gb + [n, g], gdims)
    eb = e.broadcast_in_dim(ends, gb + [n, g], gdims)
    return e.and_(iota_n.ge(sb), iota_n.lt(eb))


def _ragged_dot_contracting(e: Emitter, lhs: V, rhs: V, gs: V, info, lb, rb, lc, rc, k_dim: int) -> V:
    """Mode 2: ``lhs_ragged_dimensions`` is a contracting dimension k and rhs has no group dimension.

    ``result[j, batch..., lhs free..., rhs free...]`` = the dot over the k of group j only: lhs is
    broadcast along a new leading group dimension and zeroed outside each group, then contracted with
    rhs; the group dimension is moved to the front. group_sizes is [g] or [the batch and contracting
    lhs dims before k..., g] (group sizes may vary along those, not along the free dims of the result).
    """
    ls, rs, gss = info.operand_shapes
    lead = [d for d in range(k_dim) if d in lb or d in lc] if len(gss) > 1 else []
    if list(gss[:-1]) != [ls[d] for d in lead]:
        raise UnsupportedError(
            "'chlo.ragged_dot' (mode 2): group_sizes must be [g] or [batch and contracting lhs dims before "
            "the ragged one..., g]"
        )
    g, k = gss[-1], ls[k_dim]
    _static_groups(gss, k)
    rt = info.result_elems[0]
    mask = _group_mask(e, gs, gss, k)  # [lead..., k, g]
    grouped = [g] + list(ls)
    runtime = _memo(lambda: e.concatenate([e.const(g, t="i32", shape=(1,)), e.shape_of(lhs, ls)], 0))
    lhs_b = e.broadcast_to(lhs, grouped, [1 + d for d in range(len(ls))], runtime)
    mask_b = e.broadcast_to(mask, grouped, [1 + d for d in lead] + [1 + k_dim, 0], runtime)
    masked = e.select(mask_b, lhs_b, _zeros(e, lhs.t, grouped, runtime))
    nb = len(lb)
    # dot_general result: [batch..., g, lhs free..., rhs free...]
    prod = e.dot_general(masked, rhs, [1 + d for d in lb], rb, [1 + d for d in lc], rc, rt)
    if not nb:
        return prod
    perm = [nb] + list(range(nb)) + list(range(nb + 1, len(prod.shape)))
    return e.transpose(prod, perm)


#: Callee of the placeholder ``func.call`` that stands for the scan body in a ``chlo.scan`` template.
SCAN_BODY = "__hlokit_scan_body"


def build_scan(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.scan`` as a ``stablehlo.while`` over the scan dimension (XLA's Scan semantics: the body takes
    (input elements..., carries...) and yields (output elements..., new carries...); ``is_reverse``
    walks the dimension from the end). Inputs are read with ``dynamic_slice``, output elements written
    with ``dynamic_update_slice``. The body itself is a placeholder call to :data:`SCAN_BODY` that the
    pass replaces with the op's own region after cloning (static shapes)."""
    n_in, _ = info.attrs["operandSegmentSizes"]
    n_out, n_carry = info.attrs["resultSegmentSizes"]
    dim = info.attrs["dimension"]
    reverse = bool(info.attrs.get("is_reverse", False))
    inputs, inits = args[:n_in], args[n_in:]
    out_shapes = info.result_shapes[:n_out]
    out_elems = info.result_elems[:n_out]
    if n_in:
        length = info.operand_shapes[0][dim]
    elif n_out:
        length = out_shapes[0][dim]
    else:
        length = info.attrs["scan_dim_size"]
    acc_init = [e.const(0, t=t, shape=s) for s, t in zip(out_shapes, out_elems)]
    elem_types = [([n for d, n in enumerate(s) if d != dim], t) for s, t in zip(out_shapes, out_elems)]
    carry_types = [(x.shape, x.t) for x in inits]

    def cond(i, *rest):
        return i.lt(e.scalar(length, "i64"))

    def body(i, *rest):
        cs, accs = rest[:n_carry], rest[n_carry:]
        idx = e.scalar(length - 1, "i64") - i if reverse else i
        zero = e.scalar(0, "i64")

        def starts(rank):
            return [idx if d == dim else zero for d in range(rank)]

        elems = []
        for x, xs in zip(inputs, info.operand_shapes[:n_in]):
            sl = e.dynamic_slice(x, starts(len(xs)), [1 if d == dim else n for d, n in enumerate(xs)])
            elems.append(e.reshape(sl, [n for d, n in enumerate(xs) if d != dim]))
        yielded = e.splice_point(SCAN_BODY, elems + list(cs), elem_types + carry_types)
        new_accs = []
        for acc, y, s in zip(accs, yielded[:n_out], out_shapes):
            upd = e.reshape(y, [1 if d == dim else n for d, n in enumerate(s)])
            new_accs.append(e.dynamic_update_slice(acc, upd, starts(len(s))))
        return [i + 1] + yielded[n_out:] + new_accs

    results = e.while_([e.scalar(0, "i64"), *inits, *acc_init], cond, body)
    return results[1 + n_carry:] + results[1:1 + n_carry]


def build_constant(op: ir.Operation) -> None:
    """``chlo.constant {value}`` -> ``stablehlo.constant {value}`` (rewritten in place, no template)."""
    replace_with_constant(op, op.attributes["value"])
