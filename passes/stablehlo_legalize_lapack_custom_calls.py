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

The expansions are written on hlokit's IR builder (:mod:`hlokit.passes.builder`): one template
function per signature (routine, operand and result types, ``backend_config``) is built with an
``Emitter``, parsed once per context and cloned in place of each call (``instantiate``). Every call is
checked and its template built before the first rewrite, so a refused call leaves the module unchanged.

Other ``lapack_*`` targets (geqrf, orgqr/ungqr, syevd/heevd, gesdd, geev) are left as they are;
with ``strict=true`` the pass refuses them with a located error before changing anything.
"""

from __future__ import annotations

import math
import re

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.builder import (
    COMPLEX_TYPES,
    Emitter,
    TemplateCache,
    UnsupportedError,
    V,
    instantiate,
    relocate,
    shape_prefix,
)
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


# -- the expansions, written on hlokit's IR builder (passes/builder.py) --------------------------------


def _reduce(e: Emitter, x: V, dim: int, init, op: str) -> V:
    """``reduce`` of ``x`` over ``dim`` with the binary ``stablehlo.<op>`` body and a 0-d ``init``."""
    (r,) = e.reduce([x], [e.scalar(init, x.t)], [dim], lambda acc, v: e.bin(op, acc, v))
    return r


def _splat(e: Emitter, value, t: str, shape) -> V:
    """A splat constant ``value`` of element type ``t`` and static ``shape``."""
    return e.const(value, t=t, s=shape_prefix(shape))


def build_cholesky(e: Emitter, a: V, lower: bool) -> tuple[V, V]:
    """``potrf`` of ``a`` (``[*batch, n, n]``, f32/f64/complex): ``(factor, info)``.

    ``factor`` is ``stablehlo.cholesky`` (StableHLO spec, "cholesky") in the ``lower``/upper triangle
    and ``a`` in the other one (what LAPACK leaves there); ``info`` (i32 ``[*batch]``) is 0 when every
    diagonal entry of the factor is > 0, else the 1-based index of the first that is not (NaN included).
    """
    shape = a.shape
    rank, n = len(shape), shape[-1]
    (chol,) = e.op("stablehlo.cholesky", [a], [(a.s, a.t)], f"lower = {'true' if lower else 'false'}")
    rows = e.iota(shape, rank - 2, "i32")
    cols = e.iota(shape, rank - 1, "i32")
    factor = e.select(e.cmp("GE" if lower else "LE", rows, cols, "SIGNED"), chol, a)
    real = e.real(chol) if a.t in COMPLEX_TYPES else chol
    on_diagonal = e.cmp("EQ", rows, cols, "SIGNED")
    positive = e.cmp("GT", real, e.const(0.0, real), "FLOAT")  # false for NaN
    bad = e.land(on_diagonal, e.lnot(positive))
    big = n + 1
    index = e.select(bad, cols + 1, e.const(big, cols))
    first = _reduce(e, _reduce(e, index, rank - 1, big, "minimum"), rank - 2, big, "minimum")
    none = e.cmp("EQ", first, e.const(big, first), "SIGNED")
    info = e.select(none, e.const(0, first), first)
    return factor, info


_TRANSPOSE = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}


def build_triangular_solve(e: Emitter, a: V, b: V, side: str, uplo: str, trans: str, diag: str) -> V:
    """``trsm`` with alpha 1: ``x`` with ``op(a) x = b`` (side 'L') or ``x op(a) = b`` (side 'R').

    ``op`` is identity, transpose or conjugate transpose for ``trans`` 'N', 'T', 'C'; ``a`` is lower
    (``uplo`` 'L') or upper triangular, with an implicit unit diagonal for ``diag`` 'U'. One
    ``stablehlo.triangular_solve`` (StableHLO spec, "triangular_solve"); ``x`` has ``b``'s type.
    """
    def flag(v: bool) -> str:
        return "true" if v else "false"

    attrs = (f"left_side = {flag(side == 'L')}, lower = {flag(uplo == 'L')}, "
             f"unit_diagonal = {flag(diag == 'U')}, transpose_a = #stablehlo<transpose {_TRANSPOSE[trans]}>")
    (x,) = e.op("stablehlo.triangular_solve", [a, b], [(b.s, b.t)], attrs)
    return x


# -- getrf: LU with partial pivoting as a stablehlo.while (passes/lapack/reference.py: getrf) ----------

def _getrf_body(e: Emitter, k: V, lu: V, ipiv: V, info: V) -> list[V]:
    """One step of right-looking LU (``?getf2``) at column ``k``; returns the next loop carry."""
    shape = lu.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    elem = lu.t
    is_complex = elem in COMPLEX_TYPES
    real = elem[len("complex<"):-1] if is_complex else elem
    zero_i = e.scalar(0, "i32")
    bdims = list(range(r))

    def at(value: V, full) -> V:  # broadcast a scalar i32 (k) to ``full``
        return e.broadcast_in_dim(value, full, [])

    col = e.reshape(e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1]), batch + [m])
    mag = e.abs(e.real(col)) + e.abs(e.imag(col)) if is_complex else e.abs(col)
    rows_m = e.iota(batch + [m], r, "i32")
    mag = e.select(e.cmp("GE", rows_m, at(k, batch + [m]), "SIGNED"), mag, _splat(e, -1.0, real, batch + [m]))
    best = _reduce(e, mag, r, -math.inf, "maximum")
    is_best = e.cmp("EQ", mag, e.broadcast_in_dim(best, batch + [m], bdims), "FLOAT")
    p = _reduce(e, e.select(is_best, rows_m, _splat(e, m, "i32", batch + [m])), r, m, "minimum")
    p = e.select(e.cmp("EQ", p, _splat(e, m, "i32", batch), "SIGNED"), at(k, batch), p)
    ipiv = e.dynamic_update_slice(ipiv, e.reshape(p + _splat(e, 1, "i32", batch), batch + [1]), [zero_i] * r + [k])
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    full_dims = list(range(r + 2))
    row_k = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    onehot_p = e.cmp("EQ", rows, e.broadcast_in_dim(p, shape, bdims), "SIGNED")
    row_p = _reduce(e, e.select(onehot_p, lu, _splat(e, 0, elem, shape)), r, 0, "add")
    row_p = e.broadcast_in_dim(row_p, shape, bdims + [r + 1])
    is_row_k = e.cmp("EQ", rows, at(k, shape), "SIGNED")
    lu = e.select(is_row_k, row_p, e.select(onehot_p, row_k, lu))
    pivot = e.dynamic_slice(lu, [zero_i] * r + [k, k], batch + [1, 1])
    zero = e.cmp("EQ", pivot, _splat(e, 0, elem, batch + [1, 1]), "FLOAT")
    first = e.land(e.cmp("EQ", info, _splat(e, 0, "i32", batch), "SIGNED"), e.reshape(zero, batch))
    info = e.select(first, at(k + 1, batch), info)
    safe = e.select(zero, _splat(e, 1, elem, batch + [1, 1]), pivot)
    col = e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1])
    below = e.cmp("GT", e.iota(batch + [m, 1], r, "i32"), at(k, batch + [m, 1]), "SIGNED")
    scale = e.land(below, e.broadcast_in_dim(e.lnot(zero), batch + [m, 1], full_dims))
    quotient = col / e.broadcast_in_dim(safe, batch + [m, 1], full_dims)
    l_full = e.broadcast_in_dim(e.select(scale, quotient, col), shape, full_dims)
    lu = e.select(e.cmp("EQ", cols, at(k, shape), "SIGNED"), l_full, lu)
    urow = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    update = lu - l_full * urow
    trailing = e.land(e.cmp("GT", rows, at(k, shape), "SIGNED"), e.cmp("GT", cols, at(k, shape), "SIGNED"))
    lu = e.select(trailing, update, lu)
    return [k + 1, lu, ipiv, info]


def build_getrf(e: Emitter, a: V) -> list[V]:
    """``getrf`` of ``a`` (``[*batch, m, n]``): ``[lu, ipiv (1-based, i32 [*batch, min(m, n)]), info]``.

    A ``stablehlo.while`` over ``k`` in ``[0, min(m, n))`` carrying ``(k, lu, ipiv, info)``; each step is
    :func:`_getrf_body` (pivot = first maximum of ``|x|`` (``|re| + |im|`` for complex) on or below the
    diagonal, as LAPACK's ``i?amax``; row swap by one-hot masks; ``info`` = 1-based first zero pivot).
    """
    shape = a.shape
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    kmax = min(m, n)
    init = [e.scalar(0, "i32"), a, _splat(e, 0, "i32", batch + [kmax]), _splat(e, 0, "i32", batch)]
    out = e.while_loop(
        init,
        lambda k, *_: e.cmp("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
        lambda k, lu, ipiv, info: _getrf_body(e, k, lu, ipiv, info),
    )
    return out[1:]


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


def _rewrite_potrf(e: Emitter, args: list[V], config: dict[str, str]) -> list[V]:
    return list(build_cholesky(e, args[0], config["uplo"] == "L"))


def _rewrite_getrf(e: Emitter, args: list[V], config: dict[str, str]) -> list[V]:
    return build_getrf(e, args[0])


def _rewrite_trsm(e: Emitter, args: list[V], config: dict[str, str]) -> list[V]:
    a, b = args
    return [build_triangular_solve(e, a, b, config["side"], config["uplo"], config["trans_x"], config["diag"])]


#: routine -> (operand count, allowed backend_config flags, rewrite). A rewrite writes the expansion
#: with an :class:`~hlokit.passes.builder.Emitter` on the template's arguments (the call's operands) and
#: returns the values that replace the custom call's results, in order.
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


def _template(cache: TemplateCache, op, routine: str, config: dict[str, str]) -> ir.Operation:
    """The parsed template of ``op``'s signature (routine, operand and result types, backend_config),
    built and parsed on first use. PassError at the op when it cannot be built."""
    key = (routine, tuple(str(v.type) for v in op.operands), tuple(str(v.type) for v in op.results),
           tuple(sorted(config.items())))
    fn = cache.funcs.get(key)
    if fn is not None:
        return fn
    e = Emitter()
    types = []
    for v in op.operands:
        if not isinstance(v.type, ir.RankedTensorType):
            raise fail(f"{routine} operand of type {v.type} (expected a ranked tensor)", op)
        t = ir.RankedTensorType(v.type)
        types.append((shape_prefix(t.shape), str(t.element_type)))
    args = e.args(types)
    try:
        values = LEGALIZED_ROUTINES[routine][2](e, args, config)
        for old, new in zip(op.results, values):
            if str(old.type) != new.ty:  # pragma: no cover - guarded by the builders
                raise fail(f"internal: result type {new.ty} != {old.type}", op)
        text = e.text(f"lapack_{routine}_{len(cache.funcs)}", args, values[:len(op.results)])
        return cache.parse(key, text, f"lapack {routine}")
    except UnsupportedError as err:
        raise fail(str(err), op) from None


@register_pass
class StablehloLegalizeLapackCustomCalls(Pass):
    """Rewrite jaxlib's ``lapack_*_ffi`` custom calls as StableHLO (see the module docstring)."""

    argument = "stablehlo-legalize-lapack-custom-calls"
    summary = "Legalize jaxlib's CPU LAPACK custom calls (potrf, trsm, getrf) to StableHLO"
    anchor = "func.func"
    options = (
        Option("strict", bool, False, "refuse a lapack_* custom call this pass cannot legalize"),
    )

    def _cache(self, context: ir.Context) -> TemplateCache:
        return TemplateCache.per_context(self.__dict__.setdefault("_caches", {}), context)

    def run_on_operation(self, func_op: ir.Operation) -> None:
        calls = []

        def collect(o):
            if o.name == "stablehlo.custom_call":
                found = lapack_routine(o)
                if found is not None:
                    calls.append((o, found[1]))
            return ir.WalkResult.ADVANCE

        func_op.walk(collect)
        if not calls:
            return
        cache = self._cache(func_op.context)
        plan = []
        for o, routine in calls:
            rewrite = LEGALIZED_ROUTINES.get(routine)
            if rewrite is None:
                if self.strict:
                    raise fail(
                        f"cannot legalize custom_call @{attributes.str_value(o, 'call_target_name')} "
                        f"(legalized LAPACK routines: {', '.join(sorted(LEGALIZED_ROUTINES))})", o)
                continue
            plan.append((o, _template(cache, o, routine, _check(o, routine))))
        for o, fn in plan:  # every call checked and its template built before any rewrite
            instantiate(cache, fn, o, prepare=lambda clone, o=o: relocate(clone, o.location))
