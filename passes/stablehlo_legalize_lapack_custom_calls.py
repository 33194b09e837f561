"""``--stablehlo-legalize-lapack-custom-calls``: jaxlib's CPU LAPACK custom calls -> portable StableHLO.

JAX lowers ``jnp.linalg`` on CPU to ``stablehlo.custom_call @lapack_<t><routine>_ffi`` (``t`` in
``s d c z`` for f32, f64, complex<f32>, complex<f64>), which run only on XLA CPU with jaxlib's kernels.
This pass rewrites the ones that have a StableHLO op of the same meaning (``docs/lapack.md`` lists every
target, its operands, results and ``mhlo.backend_config`` fields):

* ``potrf`` (Cholesky, ``uplo`` 'L' or 'U') -> ``stablehlo.cholesky`` (StableHLO spec, "cholesky"); the
  triangle LAPACK does not write keeps the input's values, as in LAPACK ``?potrf``; the ``info`` result
  is 0 where the factor's diagonal is positive and otherwise the 1-based index of the first diagonal
  entry that is not (NaN included): XLA fills a non-positive-definite input's factor with NaN, so
  ``info`` is non-zero exactly where LAPACK reports failure (its value may differ from LAPACK's order of
  the failing minor; JAX only tests ``info == 0``).
* ``trsm`` (triangular solve with ``side``, ``uplo``, ``trans_x`` 'N'/'T'/'C', ``diag`` 'U'/'N', alpha
  1) -> ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve").
* ``getrf`` (LU with partial pivoting: factors, 1-based pivots, ``info``) -> a ``stablehlo.while`` over
  the columns (right-looking LAPACK ``?getf2``; the numpy mirror is
  :func:`hlokit.passes.lapack.reference.getrf`): the same pivots as LAPACK (first maximum of ``|x|``,
  ``|re| + |im|`` for complex, as ``i?amax``), ``info`` = 1-based index of the first exactly zero pivot.

Operand and result layouts of the custom calls are physical (column-major, as LAPACK wants): the
logical tensors are the same, so layouts need no rewrite. Batch dimensions lead (``num_batch_dims`` in
``mhlo.frontend_attributes`` equals rank - 2) and map to the StableHLO ops' batch dimensions.

Other ``lapack_*`` targets (geqrf, orgqr/ungqr, syevd/heevd, gesdd, geev) are left as they are;
with ``strict=true`` the pass refuses them with a located error before changing anything.
"""

from __future__ import annotations

import re

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.passes.registry import Option, Pass, fail, register_pass

__all__ = [
    "LAPACK_TARGET",
    "LEGALIZED_ROUTINES",
    "StablehloLegalizeLapackCustomCalls",
    "backend_config",
    "build_cholesky",
    "build_getrf",
    "build_triangular_solve",
    "lapack_routine",
]

#: ``lapack_<type letter><routine>_ffi``: group 1 is the type letter, group 2 the routine.
LAPACK_TARGET = re.compile(r"^lapack_([sdcz])([a-z]+)_ffi$")


def lapack_routine(op) -> tuple[str, str] | None:
    """``(type letter, routine)`` of a ``lapack_*_ffi`` custom call (e.g. ``("s", "potrf")``), else None."""
    m = LAPACK_TARGET.match(attributes.str_value(op, "call_target_name", ""))
    return (m.group(1), m.group(2)) if m else None


def backend_config(op) -> dict[str, str]:
    """The ``mhlo.backend_config`` dictionary of a LAPACK call as characters (``{"uplo": "L", ...}``).

    jaxlib stores each flag as a ``ui8`` ASCII code (76 = 'L', 85 = 'U', 78 = 'N', 84 = 'T', 67 = 'C',
    82 = 'R', 86 = 'V', 65 = 'A', 83 = 'S'). Raises :class:`~hlokit.attributes.AttributeReadError` when
    the attribute is not a dictionary of integers.
    """
    raw = attributes.get(op, "mhlo.backend_config", None)
    if raw is None:
        return {}
    if not isinstance(raw, ir.DictAttr):
        raise attributes.AttributeReadError(f"'mhlo.backend_config' of {op.name} is not a dictionary")
    out = {}
    for named in raw:
        if not isinstance(named.attr, ir.IntegerAttr):
            raise attributes.AttributeReadError(f"'mhlo.backend_config.{named.name}' is not an integer")
        out[named.name] = chr(ir.IntegerAttr(named.attr).value)
    return out


# -- small builders (each one op; to be ported onto hlokit's IR builder layer) ------------------------


def _tensor(shape, element: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element)


_NUMPY_OF = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128,
             "i32": np.int32}


def _const(value, element: ir.Type, shape=()) -> ir.Value:
    """A constant of element type f32, f64, complex<f32>, complex<f64> or i32: a rank-0 ``constant``,
    broadcast (``broadcast_in_dim``) to ``shape`` when it is not rank 0."""
    array = np.array(value, dtype=_NUMPY_OF[str(element)])
    scalar = stablehlo.ConstantOp(ir.DenseElementsAttr.get(array, type=_tensor([], element))).result
    return _bcast(scalar, shape, []) if len(shape) else scalar


def _bcast(value: ir.Value, shape, dims) -> ir.Value:
    element = ir.RankedTensorType(value.type).element_type
    return stablehlo.BroadcastInDimOp(_tensor(shape, element), value, list(dims)).result


def _reshape(value: ir.Value, shape) -> ir.Value:
    element = ir.RankedTensorType(value.type).element_type
    return stablehlo.ReshapeOp(_tensor(shape, element), value).result


def _reduce(value: ir.Value, dim: int, init, body) -> ir.Value:
    """``reduce`` of ``value`` over ``dim`` with the binary op class ``body`` (MaxOp, MinOp, AddOp)."""
    t = ir.RankedTensorType(value.type)
    keep = [d for i, d in enumerate(t.shape) if i != dim]
    red = stablehlo.ReduceOp([_tensor(keep, t.element_type)], [value], [_const(init, t.element_type)], [dim])
    scalar = _tensor([], t.element_type)
    block = red.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        stablehlo.ReturnOp([body(block.arguments[0], block.arguments[1]).result])
    return red.result


def _dslice(value: ir.Value, starts: list[ir.Value], sizes) -> ir.Value:
    return stablehlo.DynamicSliceOp(value, starts, list(sizes)).result


def _iota(shape, dim: int, element: ir.Type) -> ir.Value:
    return stablehlo.IotaOp(_tensor(shape, element), dim).result


def _compare(lhs: ir.Value, rhs: ir.Value, direction: str, kind: str) -> ir.Value:
    return stablehlo.CompareOp(
        lhs, rhs, stablehlo.ComparisonDirectionAttr.get(direction),
        compare_type=stablehlo.ComparisonTypeAttr.get(kind),
    ).result


def _select(pred: ir.Value, on_true: ir.Value, on_false: ir.Value) -> ir.Value:
    return stablehlo.SelectOp(pred, on_true, on_false).result


def _triangle_mask(shape, lower: bool) -> ir.Value:
    """i1 mask of the (inclusive) lower or upper triangle of the trailing two dimensions of ``shape``."""
    i32 = ir.IntegerType.get_signless(32)
    rows = _iota(shape, len(shape) - 2, i32)
    cols = _iota(shape, len(shape) - 1, i32)
    return _compare(rows, cols, "GE" if lower else "LE", "SIGNED")


def build_cholesky(a: ir.Value, lower: bool) -> tuple[ir.Value, ir.Value]:
    """``potrf`` of ``a`` (``[*batch, n, n]``, f32/f64/complex): ``(factor, info)``.

    ``factor`` is ``stablehlo.cholesky`` in the ``lower``/upper triangle and ``a`` in the other one (what
    LAPACK leaves there); ``info`` (i32 ``[*batch]``) is 0 when every diagonal entry of the factor is
    > 0, else the 1-based index of the first that is not (NaN included).
    """
    t = ir.RankedTensorType(a.type)
    shape = list(t.shape)
    rank, n = len(shape), shape[-1]
    chol = stablehlo.CholeskyOp(a, lower=lower).result
    factor = _select(_triangle_mask(shape, lower), chol, a)
    real = stablehlo.RealOp(chol).result if isinstance(t.element_type, ir.ComplexType) else chol
    real_t = ir.RankedTensorType(real.type)
    zero = _const(0.0, real_t.element_type, shape)
    i32 = ir.IntegerType.get_signless(32)
    rows = _iota(shape, rank - 2, i32)
    cols = _iota(shape, rank - 1, i32)
    on_diagonal = _compare(rows, cols, "EQ", "SIGNED")
    positive = _compare(real, zero, "GT", "FLOAT")  # false for NaN
    bad = stablehlo.AndOp(on_diagonal, stablehlo.NotOp(positive).result).result
    big = n + 1
    one = _const(1, i32, shape)
    index = _select(bad, stablehlo.AddOp(cols, one).result, _const(big, i32, shape))
    first = _reduce(_reduce(index, rank - 1, big, stablehlo.MinOp), rank - 2, big, stablehlo.MinOp)
    batch = shape[:-2]
    none = _compare(first, _const(big, i32, batch), "EQ", "SIGNED")
    info = _select(none, _const(0, i32, batch), first)
    return factor, info


_TRANSPOSE = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}


def build_triangular_solve(a: ir.Value, b: ir.Value, side: str, uplo: str, trans: str, diag: str) -> ir.Value:
    """``trsm`` with alpha 1: ``x`` with ``op(a) x = b`` (side 'L') or ``x op(a) = b`` (side 'R').

    ``op`` is identity, transpose or conjugate transpose for ``trans`` 'N', 'T', 'C'; ``a`` is lower
    (``uplo`` 'L') or upper triangular, with an implicit unit diagonal for ``diag`` 'U'.
    """
    return stablehlo.TriangularSolveOp(
        a, b, side == "L", uplo == "L", diag == "U", stablehlo.TransposeAttr.get(_TRANSPOSE[trans])
    ).result


# -- getrf: LU with partial pivoting as a stablehlo.while (passes/lapack/reference.py: getrf) ----------

def _getrf_body(k: ir.Value, lu: ir.Value, ipiv: ir.Value, info: ir.Value) -> list[ir.Value]:
    """One step of right-looking LU (``?getf2``) at column ``k``; returns the next loop carry."""
    t = ir.RankedTensorType(lu.type)
    shape = list(t.shape)
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    elem = t.element_type
    is_complex = isinstance(elem, ir.ComplexType)
    real = ir.ComplexType(elem).element_type if is_complex else elem
    i32 = ir.IntegerType.get_signless(32)
    zero_i = _const(0, i32)
    bdims = list(range(r))

    def at(value, full):  # broadcast a scalar i32 (k) to ``full``
        return _bcast(value, full, [])

    col = _reshape(_dslice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1]), batch + [m])
    if is_complex:
        mag = stablehlo.AddOp(stablehlo.AbsOp(stablehlo.RealOp(col).result).result,
                              stablehlo.AbsOp(stablehlo.ImagOp(col).result).result).result
    else:
        mag = stablehlo.AbsOp(col).result
    rows_m = _iota(batch + [m], r, i32)
    mag = _select(_compare(rows_m, at(k, batch + [m]), "GE", "SIGNED"), mag, _const(-1.0, real, batch + [m]))
    best = _reduce(mag, r, -np.inf, stablehlo.MaxOp)
    is_best = _compare(mag, _bcast(best, batch + [m], bdims), "EQ", "FLOAT")
    p = _reduce(_select(is_best, rows_m, _const(m, i32, batch + [m])), r, m, stablehlo.MinOp)
    p = _select(_compare(p, _const(m, i32, batch), "EQ", "SIGNED"), at(k, batch), p)
    one_b = _const(1, i32, batch)
    ipiv = stablehlo.DynamicUpdateSliceOp(
        ipiv, _reshape(stablehlo.AddOp(p, one_b).result, batch + [1]), [zero_i] * r + [k]).result
    rows, cols = _iota(shape, r, i32), _iota(shape, r + 1, i32)
    full_dims = list(range(r + 2))
    row_k = _bcast(_dslice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    onehot_p = _compare(rows, _bcast(p, shape, bdims), "EQ", "SIGNED")
    row_p = _reduce(_select(onehot_p, lu, _const(0, elem, shape)), r, 0, stablehlo.AddOp)
    row_p = _bcast(row_p, shape, bdims + [r + 1])
    is_row_k = _compare(rows, at(k, shape), "EQ", "SIGNED")
    lu = _select(is_row_k, row_p, _select(onehot_p, row_k, lu))
    pivot = _dslice(lu, [zero_i] * r + [k, k], batch + [1, 1])
    zero = _compare(pivot, _const(0, elem, batch + [1, 1]), "EQ", "FLOAT")
    zero_b = _reshape(zero, batch)
    first = stablehlo.AndOp(_compare(info, _const(0, i32, batch), "EQ", "SIGNED"), zero_b).result
    info = _select(first, at(stablehlo.AddOp(k, _const(1, i32)).result, batch), info)
    safe = _select(zero, _const(1, elem, batch + [1, 1]), pivot)
    col = _dslice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1])
    below = _compare(_iota(batch + [m, 1], r, i32), at(k, batch + [m, 1]), "GT", "SIGNED")
    scale = stablehlo.AndOp(below, _bcast(stablehlo.NotOp(zero).result, batch + [m, 1], full_dims)).result
    quotient = stablehlo.DivOp(col, _bcast(safe, batch + [m, 1], full_dims)).result
    l = _select(scale, quotient, col)
    l_full = _bcast(l, shape, full_dims)
    lu = _select(_compare(cols, at(k, shape), "EQ", "SIGNED"), l_full, lu)
    urow = _bcast(_dslice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    update = stablehlo.SubtractOp(lu, stablehlo.MulOp(l_full, urow).result).result
    trailing = stablehlo.AndOp(_compare(rows, at(k, shape), "GT", "SIGNED"),
                               _compare(cols, at(k, shape), "GT", "SIGNED")).result
    lu = _select(trailing, update, lu)
    return [stablehlo.AddOp(k, _const(1, i32)).result, lu, ipiv, info]


def build_getrf(a: ir.Value) -> list[ir.Value]:
    """``getrf`` of ``a`` (``[*batch, m, n]``): ``[lu, ipiv (1-based, i32 [*batch, min(m, n)]), info]``.

    A ``stablehlo.while`` over ``k`` in ``[0, min(m, n))`` carrying ``(k, lu, ipiv, info)``; each step is
    :func:`_getrf_body` (pivot = first maximum of ``|x|`` (``|re| + |im|`` for complex) on or below the
    diagonal, as LAPACK's ``i?amax``; row swap by one-hot masks; ``info`` = 1-based first zero pivot).
    """
    t = ir.RankedTensorType(a.type)
    shape = list(t.shape)
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    kmax = min(m, n)
    i32 = ir.IntegerType.get_signless(32)
    init = [_const(0, i32), a, _const(0, i32, batch + [kmax]), _const(0, i32, batch)]
    types = [v.type for v in init]
    loop = stablehlo.WhileOp(types, init)
    cond = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond):
        stablehlo.ReturnOp([_compare(cond.arguments[0], _const(kmax, i32), "LT", "SIGNED")])
    body = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body):
        stablehlo.ReturnOp(_getrf_body(*body.arguments))
    return list(loop.results)[1:]


# -- the pass ----------------------------------------------------------------------------------------


def _flags(op, config: dict[str, str], allowed: dict[str, str]) -> None:
    for key, values in allowed.items():
        if config.get(key) not in values:
            raise fail(
                f"{attributes.str_value(op, 'call_target_name')}: backend_config '{key}' is "
                f"{config.get(key)!r}, expected one of {', '.join(values)}", op)


def _check_batch(op) -> None:
    """``num_batch_dims`` (when present) must be rank - 2 of the first operand."""
    fa = attributes.get(op, "mhlo.frontend_attributes", None)
    if isinstance(fa, ir.DictAttr) and "num_batch_dims" in fa:
        nb = int(ir.StringAttr(fa["num_batch_dims"]).value)
        rank = ir.RankedTensorType(op.operands[0].type).rank
        if nb != rank - 2:
            raise fail(f"num_batch_dims {nb} does not match operand rank {rank}", op)


def _rewrite_potrf(op, config: dict[str, str]) -> list[ir.Value]:
    return list(build_cholesky(op.operands[0], config["uplo"] == "L"))


def _rewrite_getrf(op, config: dict[str, str]) -> list[ir.Value]:
    return build_getrf(op.operands[0])


def _rewrite_trsm(op, config: dict[str, str]) -> list[ir.Value]:
    a, b = op.operands
    return [build_triangular_solve(a, b, config["side"], config["uplo"], config["trans_x"], config["diag"])]


#: routine -> (operand count, allowed backend_config flags, rewrite). A rewrite returns the values that
#: replace the custom call's results, in order.
LEGALIZED_ROUTINES = {
    "potrf": (1, {"uplo": "LU"}, _rewrite_potrf),
    "trsm": (2, {"side": "LR", "uplo": "LU", "trans_x": "NTC", "diag": "UN"}, _rewrite_trsm),
    "getrf": (1, {}, _rewrite_getrf),
}


def _check(op, routine: str) -> dict[str, str]:
    """Validate a call before any rewrite; its backend_config as characters. PassError at the op."""
    arity, allowed, _ = LEGALIZED_ROUTINES[routine]
    if len(op.operands) != arity:
        raise fail(f"{routine} with {len(op.operands)} operands (expected {arity})", op)
    try:
        config = backend_config(op)
    except attributes.AttributeReadError as exc:
        raise fail(str(exc), op) from None
    _flags(op, config, allowed)
    _check_batch(op)
    return config


@register_pass
class StablehloLegalizeLapackCustomCalls(Pass):
    """Rewrite jaxlib's ``lapack_*_ffi`` custom calls as StableHLO (see the module docstring)."""

    argument = "stablehlo-legalize-lapack-custom-calls"
    summary = "Legalize jaxlib's CPU LAPACK custom calls (potrf, trsm, getrf) to StableHLO"
    anchor = "func.func"
    options = (
        Option("strict", bool, False, "refuse a lapack_* custom call this pass cannot legalize"),
    )

    def run_on_operation(self, func_op: ir.Operation) -> None:
        calls = []

        def collect(o):
            if o.name == "stablehlo.custom_call":
                found = lapack_routine(o)
                if found is not None:
                    calls.append((o, found[1]))
            return ir.WalkResult.ADVANCE

        func_op.walk(collect)
        plan = []
        for o, routine in calls:
            rewrite = LEGALIZED_ROUTINES.get(routine)
            if rewrite is None:
                if self.strict:
                    raise fail(
                        f"cannot legalize custom_call @{attributes.str_value(o, 'call_target_name')} "
                        f"(legalized LAPACK routines: {', '.join(sorted(LEGALIZED_ROUTINES))})", o)
                continue
            plan.append((o, rewrite[2], _check(o, routine)))
        for o, build, config in plan:
            with ir.InsertionPoint(o), o.location:
                values = build(o, config)
            for old, new in zip(o.results, values):
                if old.type != new.type:  # pragma: no cover - guarded by the builders
                    raise fail(f"internal: result type {new.type} != {old.type}", o)
                old.replace_all_uses_with(new)
            o.erase()
