"""``--stablehlo-legalize-lapack-custom-calls``: jaxlib's CPU LAPACK custom calls -> portable StableHLO.

JAX lowers ``jnp.linalg`` on CPU to ``stablehlo.custom_call @lapack_<t><routine>_ffi`` (``t`` in
``s d c z`` for f32, f64, complex<f32>, complex<f64>), which run only on XLA CPU with jaxlib's kernels.
This pass rewrites every one JAX emits for ``jnp.linalg`` / ``jax.scipy.linalg``; ``docs/lapack.md`` lists
every target, its operands, results and ``mhlo.backend_config`` fields, and how each is rewritten.

This module holds the routine table (:data:`LEGALIZED_ROUTINES`: routine -> operand count, allowed
``backend_config`` flags, builder) with the calling conventions of jaxlib's kernels, and the driver. The
algorithms are a library, one module per family in :mod:`hlokit.passes.lapack`:

========================  ==============================================================================
routine                   builder
========================  ==============================================================================
potrf                     :func:`~hlokit.passes.lapack.cholesky.build_potrf` (``stablehlo.cholesky``; blocked
                          left-looking ``?potrf`` beyond order 16, diagonal blocks with their inverse)
trsm                      :func:`~hlokit.passes.lapack.triangular_solve.build_trsm`
                          (``stablehlo.triangular_solve``; beyond order 32 the blocked expansion)
getrf                     :func:`~hlokit.passes.lapack.lu.build_getrf` (blocked right-looking ``?getrf``, rows in
                          place, ``?getf2`` column loops, trailing windows)
geqrf, orgqr / ungqr,     :mod:`hlokit.passes.lapack.qr` (``?geqr2``, ``?org2r``; blocked ``?geqrf`` /
                          ``?orgqr`` with the compact WY form beyond 64 reflectors; ``?laqp2``)
geqp3
gehrd                     :func:`~hlokit.passes.lapack.hessenberg.build_gehrd` (``?gehd2``)
sytrd / hetrd, gtsv       :mod:`hlokit.passes.lapack.tridiagonal` (``?sytd2`` / ``?hetd2``, blocked ``?sytrd``
                          beyond order 32, ``?gtsv``)
syevd / heevd,            :mod:`hlokit.passes.lapack.spectral`: Jacobi up to order 64; beyond, blocked
gesdd / gesvd             ``?sytrd`` + divide and conquer + ``?ormtr`` (eigh), QDWH polar + eigh (SVD)
gees                      :func:`~hlokit.passes.lapack.schur.build_gees` (complex, ``zlahqr``),
                          :func:`~hlokit.passes.lapack.real_schur.build_gees_real` (real, Francis steps)
geev                      :mod:`hlokit.passes.lapack.eig` (on :mod:`~hlokit.passes.lapack.balance` and
                          the Schur forms)
========================  ==============================================================================

Operand and result layouts of the custom calls are physical (column-major, as LAPACK wants): the
logical tensors are the same, so layouts need no rewrite. Batch dimensions lead (``num_batch_dims`` in
``mhlo.frontend_attributes`` equals rank - 2) and map to the StableHLO ops' batch dimensions.

One template function per signature (routine, operand and result types, ``backend_config``) is built with
an :class:`~hlokit.passes.builder.Emitter`, parsed once per context and cloned in place of each call. Every
call is checked and its template built before the first rewrite, so a refused call leaves the module
unchanged. Other ``lapack_*`` targets (none that jax emits on CPU) are left as they are; with
``strict=true`` the pass refuses them with a located error before changing anything.
"""

from __future__ import annotations

import re

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter, TemplateCache, UnsupportedError
from hlokit.passes.lapack.cholesky import build_potrf
from hlokit.passes.lapack.eig import build_geev, build_geev_real
from hlokit.passes.lapack.hessenberg import build_gehrd
from hlokit.passes.lapack.spectral import build_gesdd, build_syevd
from hlokit.passes.lapack.lu import build_getrf
from hlokit.passes.lapack.qr import build_geqp3, build_geqrf, build_orgqr
from hlokit.passes.lapack.real_schur import build_gees_real
from hlokit.passes.lapack.schur import build_gees
from hlokit.passes.lapack.triangular_solve import build_trsm
from hlokit.passes.lapack.tridiagonal import build_gtsv, build_sytrd
from hlokit.passes.registry import Option, fail, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = [
    "EIGENVALUES_UNORDERED",
    "ILLEGAL_TARGETS",
    "LAPACK_TARGET",
    "LEGALIZED_ROUTINES",
    "PIPELINE",
    "StablehloLegalizeLapackCustomCalls",
    "VECTORS_UP_TO_PHASE",
    "backend_config",
    "lapack_routine",
    "lapack_routines",
]

#: ``lapack_<type letter><routine>_ffi``: group 1 is the type letter, group 2 the routine.
LAPACK_TARGET = re.compile(r"^lapack_([sdcz])([a-z][a-z0-9]*)_ffi$")


def lapack_routine(op) -> tuple[str, str] | None:
    """``(type letter, routine)`` of a ``lapack_*_ffi`` custom call (e.g. ``("s", "potrf")``), else None."""
    m = LAPACK_TARGET.match(attributes.str_value(op, "call_target_name", ""))
    return (m.group(1), m.group(2)) if m else None


#: The pass as a pipeline on a module (what ``hlokit-run`` and the interpreter apply automatically).
PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"


#: Routines whose vectors are unique only up to a unit factor each (eigenvectors, singular vectors): their
#: expansions compute them by Jacobi rotations (geev, gees: QR steps), LAPACK by other algorithms, so a vector's
#: sign (real) or phase (complex) may differ from LAPACK's while the values agree (geev, gees: also their
#: order).
VECTORS_UP_TO_PHASE = frozenset({"syevd", "heevd", "gesdd", "gesvd", "geev", "gees"})


#: Routines whose eigenvalues come in the order of the expansion's Schur form, not necessarily LAPACK's.
EIGENVALUES_UNORDERED = frozenset({"geev", "gees"})


def lapack_routines(module: ir.Module) -> list[str]:
    """The routine of every ``lapack_*_ffi`` custom call in ``module`` (legalizable or not), in program order
    (e.g. ``["getrf", "trsm", "trsm"]``)."""
    found = []

    def visit(o):
        if o.name == "stablehlo.custom_call":
            routine = lapack_routine(o)
            if routine is not None:
                found.append(routine[1])
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


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


def _flags(op, config: dict[str, str], allowed: dict[str, str]) -> None:
    for key, values in allowed.items():
        if config.get(key) not in values:
            raise fail(
                f"{attributes.str_value(op, 'call_target_name')}: backend_config '{key}' is "
                f"{config.get(key)!r}, expected one of {', '.join(values)}", op)


def _check_batch(op) -> None:
    """``num_batch_dims`` (when present) must be rank - 2 of the matrix operands (those of the highest rank:
    vectors such as ``tau``, ``jpvt`` or gtsv's diagonals have the batch dimensions and one more)."""
    fa = attributes.get(op, "mhlo.frontend_attributes", None)
    if isinstance(fa, ir.DictAttr) and "num_batch_dims" in fa:
        nb = int(ir.StringAttr(fa["num_batch_dims"]).value)
        rank = max((v.type.rank for v in op.operands if isinstance(v.type, ir.RankedTensorType)), default=None)
        if rank is not None and nb != rank - 2:  # (an unranked operand is refused with the template)
            raise fail(f"num_batch_dims {nb} does not match operand rank {rank}", op)


def _rewrite_potrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return list(build_potrf(e, args[0], config["uplo"] == "L"))


def _rewrite_getrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_getrf(e, args[0])


def _rewrite_trsm(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    a, b = args
    return [build_trsm(e, a, b, config["side"], config["uplo"], config["trans_x"], config["diag"])]


def _rewrite_geqrf(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_geqrf(e, args[0])


def _rewrite_orgqr(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return [build_orgqr(e, args[0], args[1])]


def _rewrite_syevd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_syevd(e, args[0], config["uplo"] == "L", vectors=config["mode"] == "V")


def _rewrite_gtsv(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    dl, d, du, b = args
    vector = b.shape[:-1]
    if len(b.shape) < 2 or any(v.shape != vector for v in (dl, d, du)) or len({v.t for v in args}) != 1:
        raise UnsupportedError(f"gtsv operands of types {', '.join(v.ty for v in args)} (expected dl, d, du of "
                               "shape [*batch, n] and b of shape [*batch, n, k], one element type)")
    return build_gtsv(e, dl, d, du, b)


def _rewrite_gehrd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"gehrd of a {a.ty} (expected a square matrix)")
    low, high = (ord(config[key]) if key in config else None for key in ("low", "high"))
    if (low, high) != (1, a.shape[-1]):
        raise UnsupportedError(f"gehrd with low = {low}, high = {high} (only the whole matrix, 1 and "
                               f"{a.shape[-1]}, is legalized)")
    return build_gehrd(e, a)


def _rewrite_sytrd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"sytrd of a {a.ty} (expected a square matrix)")
    return build_sytrd(e, a, config["uplo"] == "L")


def _rewrite_geqp3(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    a, jpvt = args
    if len(a.shape) < 2 or jpvt.t != "i32" or jpvt.shape != a.shape[:-2] + [a.shape[-1]]:
        raise UnsupportedError(f"geqp3 of {a.ty} and {jpvt.ty} (expected a [*batch, m, n] matrix and "
                               "[*batch, n] i32 pivots)")
    return build_geqp3(e, a, jpvt)


def _rewrite_gesdd(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    return build_gesdd(e, args[0], config["mode"], results)


def _rewrite_gees(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"gees of a {a.ty} (expected a square matrix)")
    if a.t in COMPLEX_TYPES:
        return build_gees(e, a, config["mode"] == "V")
    return build_gees_real(e, a, config["mode"] == "V")


def _rewrite_geev(e: Emitter, args: list[V], config: dict[str, str], results: list[list[int]]) -> list[V]:
    (a,) = args
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise UnsupportedError(f"geev of a {a.ty} (expected a square matrix)")
    left, right = config["compute_left"] == "V", config["compute_right"] == "V"
    if a.t in COMPLEX_TYPES:
        return build_geev(e, a, left, right)
    return build_geev_real(e, a, left, right)


#: routine -> (operand count, allowed backend_config flags, rewrite). A rewrite writes the expansion
#: with an :class:`~hlokit.passes.builder.Emitter` on the template's arguments (the call's operands) and
#: returns the values that replace the custom call's results, in order.
LEGALIZED_ROUTINES = {
    "potrf": (1, {"uplo": "LU"}, _rewrite_potrf),
    "trsm": (2, {"side": "LR", "uplo": "LU", "trans_x": "NTC", "diag": "UN"}, _rewrite_trsm),
    "getrf": (1, {}, _rewrite_getrf),
    "geqrf": (1, {}, _rewrite_geqrf),
    "orgqr": (2, {}, _rewrite_orgqr),
    "ungqr": (2, {}, _rewrite_orgqr),
    "syevd": (1, {"mode": "VN", "uplo": "LU"}, _rewrite_syevd),
    "heevd": (1, {"mode": "VN", "uplo": "LU"}, _rewrite_syevd),
    "gesdd": (1, {"mode": "ASN"}, _rewrite_gesdd),
    "gesvd": (1, {"mode": "ASN"}, _rewrite_gesdd),
    "geev": (1, {"compute_left": "NV", "compute_right": "NV"}, _rewrite_geev),
    "gees": (1, {"mode": "NV", "sort": "N"}, _rewrite_gees),
    "gtsv": (4, {}, _rewrite_gtsv),
    "gehrd": (1, {}, _rewrite_gehrd),
    "geqp3": (2, {}, _rewrite_geqp3),
    "sytrd": (1, {"uplo": "LU"}, _rewrite_sytrd),
    "hetrd": (1, {"uplo": "LU"}, _rewrite_sytrd),
}


#: Every ``call_target_name`` the pass removes: each legalized routine in the four type letters.
ILLEGAL_TARGETS = frozenset(f"lapack_{letter}{routine}_ffi" for routine in LEGALIZED_ROUTINES for letter in "sdcz")


@register_pass
class StablehloLegalizeLapackCustomCalls(TemplatePass):
    """Rewrite jaxlib's ``lapack_*_ffi`` custom calls as StableHLO (see the module docstring).

    A :class:`~hlokit.passes.template_pass.TemplatePass` whose :attr:`illegal_custom_calls` are
    :data:`ILLEGAL_TARGETS`. It looks at every ``lapack_*_ffi`` call (:meth:`matches`), so that ``strict``
    can refuse the others; a legalized call's signature is its routine, ``backend_config`` and types.
    Raises :class:`~hlokit.diagnostics.PassError` located at the call, before anything changes, for a call
    with another operand count, an unknown ``backend_config`` flag value, ``num_batch_dims`` unlike the
    operands' rank, a non-ranked or dynamically shaped operand, results unlike those of jaxlib's kernel, or
    (``strict``) a target not in :data:`LEGALIZED_ROUTINES`.
    """

    argument = "stablehlo-legalize-lapack-custom-calls"
    summary = "Legalize jaxlib's CPU LAPACK custom calls (potrf, trsm, getrf, geqrf, orgqr, syevd, gesdd, gesvd, geev, gees, gtsv, gehrd, sytrd, geqp3) to StableHLO"
    options = (
        Option("strict", bool, False, "refuse a lapack_* custom call this pass cannot legalize"),
    )
    illegal_custom_calls = ILLEGAL_TARGETS

    def matches(self, op: ir.Operation) -> bool:
        return op.name == "stablehlo.custom_call" and lapack_routine(op) is not None

    def plan_op(self, cache: TemplateCache, op: ir.Operation, index: int):
        if not self.is_illegal(op):
            if self.strict:
                raise fail(
                    f"cannot legalize custom_call @{attributes.str_value(op, 'call_target_name')} "
                    f"(legalized LAPACK routines: {', '.join(sorted(LEGALIZED_ROUTINES))})", op)
            return None
        return super().plan_op(cache, op, index)

    def check(self, op: ir.Operation) -> None:
        routine = lapack_routine(op)[1]
        arity, allowed, _ = LEGALIZED_ROUTINES[routine]
        if len(op.operands) != arity:
            raise fail(f"{routine} with {len(op.operands)} operands (expected {arity})", op)
        try:
            config = backend_config(op)
        except attributes.AttributeReadError as exc:
            raise fail(str(exc), op) from None
        _flags(op, config, allowed)
        _check_batch(op)
        for v in op.operands:
            if not isinstance(v.type, ir.RankedTensorType):
                raise fail(f"{routine} operand of type {v.type} (expected a ranked tensor)", op)
            if not ir.RankedTensorType(v.type).has_static_shape:
                raise fail(f"{routine} operand of type {v.type}: dynamic shapes are not supported "
                           "(the expansions are built for static shapes)", op)
        for v in op.results:
            if not isinstance(v.type, ir.RankedTensorType):
                raise fail(f"{routine} result of type {v.type} (expected a ranked tensor)", op)

    def attributes(self, op: ir.Operation) -> tuple:
        """``(routine, backend_config items)``: with the types, the template's signature."""
        return (lapack_routine(op)[1], tuple(sorted(backend_config(op).items())))

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        routine, config = info.attrs
        values = LEGALIZED_ROUTINES[routine][2](e, operands, dict(config), info.result_shapes)
        if len(info.result_types) != len(values):  # (a hand-written call: the results LAPACK's kernel writes)
            raise UnsupportedError(
                f"{routine} of {', '.join(info.operand_types)} has {len(info.result_types)} results, "
                f"expected {len(values)}: {', '.join(v.ty for v in values)}")
        for i, (old, new) in enumerate(zip(info.result_types, values)):
            if old != new.ty:
                raise UnsupportedError(f"{routine}: result #{i} has type {old}, expected {new.ty}")
        return values
