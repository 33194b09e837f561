"""``--stablehlo-legalize-tpu-custom-calls``: the custom calls JAX writes for TPU -> portable StableHLO.

``jax.export(..., platforms=["tpu"])`` lowers ``jnp.linalg`` / ``jax.scipy.linalg`` to custom calls that
XLA's TPU compiler expands (``jax/_src/lax/linalg.py``: ``_geqrf_lowering_rule``,
``_householder_product_lowering``, ``_lu_tpu_lowering_rule``; ``jax/_src/tpu/linalg/eigh.py``:
``_eigh_tpu_lowering``), and ``jax.sharding`` / ``shard_map`` under GSPMD to sharding annotations
(``jax/_src/interpreters/mlir.py``: ``wrap_with_sharding_op``, ``wrap_with_full_to_shard_op``,
``wrap_with_shard_to_full_op``). This pass rewrites them so that such an artifact runs on XLA CPU / GPU and
on hlokit's interpreter:

======================================  ========================================================================
target (operands -> results)            rewritten as
======================================  ========================================================================
``Qr`` (a) -> (packed, taus)            :func:`~hlokit.passes.lapack.qr.build_geqrf`: LAPACK ``geqrf``'s
                                        layout (R on and above the diagonal, Householder vectors with an
                                        implicit unit head below it, ``taus`` ``[*b, min(m, n)]``), which is
                                        what XLA's ``Qr`` gives (``xla/hlo/builder/lib/qr.cc``, ``QrBlock``)
``ProductOfElementaryHouseholder``      :func:`~hlokit.passes.lapack.qr.build_orgqr` (LAPACK ``orgqr`` /
``Reflectors`` (a, taus) -> q           ``ungqr``; XLA's ``ProductOfElementaryHouseholderReflectors``)
``LuDecomposition`` (a) -> (lu,         :func:`~hlokit.passes.lapack.lu.build_getrf` (partial pivoting) with
pivots, permutation)                    0-based ``i32`` pivots ``[*b, min(m, n)]`` and the row permutation
                                        ``i32`` ``[*b, m]`` (:func:`~hlokit.passes.lapack.lu.
                                        build_lu_pivots_to_permutation`), as XLA's ``LuDecomposition``
                                        (``xla/hlo/builder/lib/lu_decomposition.h``)
``Eigh`` (a) -> (vectors, values)       :func:`~hlokit.passes.lapack.spectral.build_syevd` on the triangle that
                                        ``backend_config`` names (``"lower,sort,max_iter,tol"``); values
                                        ascending (also with ``sort`` 0: any order is valid then), vectors
                                        in the columns (XLA's ``SelfAdjointEig``,
                                        ``xla/hlo/builder/lib/self_adjoint_eig.cc``)
``Sharding`` (x) -> x                   the identity: a layout annotation for XLA's SPMD partitioner
``SPMDFullToShardShape`` (full) ->      the identity where operand and result have one type (manual axes of
piece, ``SPMDShardToFullShape``         size 1); else, in a module of ``mhlo.num_partitions`` P > 1, the
(piece) -> full                         SPMD program of every partition: this partition's piece by
                                        ``dynamic_slice`` at the offsets its ``partition_id`` has in the
                                        tiled sharding (the preceding ``Sharding``'s for FullToShard, its own
                                        for ShardToFull), and the full value back by an ``all_gather`` over
                                        the P partitions, each piece written at its offsets
======================================  ========================================================================

``ApproxTopK`` is not rewritten: XLA runs it on every platform (``ApproxTopKFallback``,
``xla/hlo/builder/lib/approx_topk.cc``) and hlokit's interpreter has a kernel for it
(``interpreter/data_movement.py``); exact top-k is what both give, a valid answer of its recall semantics.

Calls in the two forms JAX wrote are accepted: several results (today) or one ``tuple`` result read by
``stablehlo.get_tuple_element`` (exports up to 2023, with ``xla_shape``); the tuple form becomes a
``stablehlo.tuple`` of the rewritten values. Element types: ``f32``, ``f64``, ``complex<f32>``,
``complex<f64>`` (what ``jax.lax.linalg`` accepts); batch dimensions lead.

A shard_map region (``SPMDFullToShardShape`` to a smaller shape, ``SPMDShardToFullShape`` back) holds the
program of one device, so it runs only on as many partitions as its shardings name: in a module without
``mhlo.num_partitions`` (JAX's back-compatibility data stores the device count apart, as
``Exported.nr_devices``) the pass refuses it, naming that count. Every partition holds the whole value
outside the region, as the interpreter does for Shardy's ``sdy.manual_computation``; the policy of
:mod:`hlokit.passes.prepare` keeps these annotations for XLA, whose SPMD partitioner reads them.

:class:`StablehloLegalizeTpuOnlyCustomCalls` (``--stablehlo-legalize-tpu-only-custom-calls``) is the same
rewrite restricted to :data:`TPU_ONLY_TARGETS`, the targets no XLA backend but TPU's runs
(``LuDecomposition``; XLA CPU and GPU expand ``Qr``, ``ProductOfElementaryHouseholderReflectors`` and
``Eigh`` themselves): what XLA needs off TPU.

Every call is checked, and its template built, before the first rewrite: a refused call leaves the module
unchanged, with a located error.
"""

from __future__ import annotations


import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.hlo_sharding import parse_tiled
from hlokit.passes.builder import V, Emitter, TemplateCache, UnsupportedError
from hlokit.passes.builder_templates import instantiate_before
from hlokit.passes.lapack.spectral import build_syevd
from hlokit.passes.lapack.lu import build_getrf, build_lu_pivots_to_permutation
from hlokit.passes.lapack.matrix import real_type
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr
from hlokit.passes.registry import fail, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = [
    "ELEMENT_TYPES",
    "LINALG_TARGETS",
    "SHARDING_TARGETS",
    "TPU_ONLY_TARGETS",
    "TPU_TARGETS",
    "StablehloLegalizeTpuCustomCalls",
    "StablehloLegalizeTpuOnlyCustomCalls",
    "eigh_config",
    "tile_offsets",
]

#: The element types of the linear-algebra targets (``jax.lax.linalg``'s ``_float | _complex``).
ELEMENT_TYPES = ("f32", "f64", "complex<f32>", "complex<f64>")

#: The linear-algebra targets: name -> operand count.
LINALG_TARGETS = {"Qr": 1, "ProductOfElementaryHouseholderReflectors": 2, "LuDecomposition": 1, "Eigh": 1}

#: GSPMD's sharding annotations (``mhlo.sharding`` on each).
SHARDING_TARGETS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})

#: Every target :class:`StablehloLegalizeTpuCustomCalls` removes.
TPU_TARGETS = frozenset(LINALG_TARGETS) | SHARDING_TARGETS

#: The targets only XLA's TPU backend runs (XLA CPU / GPU expand the other linear-algebra ones).
TPU_ONLY_TARGETS = frozenset({"LuDecomposition"})


def _target(op) -> str:
    return attributes.str_value(op, "call_target_name", "")


def eigh_config(op) -> tuple[bool, bool]:
    """``(lower, sort)`` of an ``Eigh`` call: its ``backend_config`` string ``"lower,sort,max_iter,tol"``
    (``_eigh_tpu_lowering`` in ``jax/_src/tpu/linalg/eigh.py`` writes ``"1,1,100,1e-6"``; exports of 2023
    ``"1,1,15,0.000010"``); ``max_iter`` and ``tol`` tune TPU's Jacobi sweeps and are not needed here.
    Raises :class:`~hlokit.attributes.AttributeReadError` for another form."""
    text = attributes.str_value(op, "backend_config", "")
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 4 or parts[0] not in ("0", "1") or parts[1] not in ("0", "1"):
        raise attributes.AttributeReadError(
            f"Eigh backend_config '{text}' is not 'lower,sort,max_iter,tol' (lower and sort 0 or 1)")
    try:
        int(parts[2]), float(parts[3])
    except ValueError:
        raise attributes.AttributeReadError(
            f"Eigh backend_config '{text}': max_iter and tol must be numbers") from None
    return parts[0] == "1", parts[1] == "1"


def tile_offsets(sharding: str, full: list[int], piece: list[int]) -> dict[int, tuple[int, ...]]:
    """Device id -> the offsets of its piece (``piece`` shape) in an array of shape ``full`` laid out by the
    HLO sharding text ``sharding`` (``{devices=[2,1]0,1}``; ``last_tile_dim_replicate``: devices of one
    replication group hold the same piece). Semantics: XLA's ``HloSharding`` (``xla/hlo/ir/hlo_sharding.h``,
    tile assignment in row-major order). Raises UnsupportedError for another form of sharding, a tiling
    of another rank, or a ``piece`` that is not ``full`` divided by the tiling."""
    parsed = parse_tiled(sharding)
    if parsed is None:
        raise UnsupportedError(f"sharding \"{sharding}\" is not a tiled sharding '{{devices=[...]...}}' "
                               "(optionally last_tile_dim_replicate)")
    tiles, ids, replicate = parsed.tiles, parsed.device_ids, parsed.replicate
    count = int(np.prod(tiles))
    tiled = tiles[:-1] if replicate else tiles
    if len(ids) != count or len(set(ids)) != count:
        raise UnsupportedError(f"sharding \"{sharding}\" lists {len(ids)} devices for a tiling of {count}")
    if len(tiled) != len(full) or any(f != p * t for f, p, t in zip(full, piece, tiled)):
        raise UnsupportedError(f"sharding \"{sharding}\" does not cut an array of shape {full} into pieces of "
                               f"shape {piece}")
    out = {}
    for pos, device in enumerate(ids):
        coords = np.unravel_index(pos, tiles)
        out[device] = tuple(int(c) * p for c, p in zip(coords[:len(full)], piece))
    return out


def _device_needs(op) -> tuple[int, int]:
    """``(mhlo.num_replicas, mhlo.num_partitions)`` of the module holding ``op`` (1 where absent)."""
    o = op.operation
    while o is not None and o.name != "builtin.module":
        o = o.parent
    if o is None:
        return 1, 1
    return attributes.int_value(o, "mhlo.num_replicas", 1), attributes.int_value(o, "mhlo.num_partitions", 1)


def _result_types(op) -> tuple[list[ir.Type], bool]:
    """The result types of ``op`` flattened, and whether they come as one ``tuple`` result."""
    if len(op.results) == 1 and isinstance(op.results[0].type, ir.TupleType):
        t = ir.TupleType(op.results[0].type)
        return [t.get_type(i) for i in range(t.num_types)], True
    return [v.type for v in op.results], False


def _dims(t) -> list[int]:
    return list(ir.RankedTensorType(t).shape)


def _type_text(shape, elem: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{elem}>"


def _expected_results(target: str, operands: list[ir.Type]) -> list[str]:
    """The result types JAX's lowering writes for ``target`` on ``operands`` (ranked, static, checked)."""
    a = _dims(operands[0])
    elem = str(ir.RankedTensorType(operands[0]).element_type)
    batch, m, n = a[:-2], a[-2], a[-1]
    if target == "Qr":
        return [_type_text(a, elem), _type_text(batch + [min(m, n)], elem)]
    if target == "ProductOfElementaryHouseholderReflectors":
        return [_type_text(a, elem)]
    if target == "LuDecomposition":
        return [_type_text(a, elem), _type_text(batch + [min(m, n)], "i32"), _type_text(batch + [m], "i32")]
    return [_type_text(a, elem), _type_text(batch + [n], real_type(elem))]  # Eigh


@register_pass
class StablehloLegalizeTpuCustomCalls(TemplatePass):
    """Rewrite the custom calls JAX writes for TPU as StableHLO (see the module docstring).

    A :class:`~hlokit.passes.template_pass.TemplatePass` whose :attr:`illegal_custom_calls` are
    :data:`TPU_TARGETS`; a linear-algebra call's signature is its target, ``Eigh``'s ``(lower, sort)`` and
    its types. Raises :class:`~hlokit.diagnostics.PassError` located at the call, before anything changes,
    for another operand count, an operand that is not a ranked, statically shaped tensor of rank >= 2 of
    an element type in :data:`ELEMENT_TYPES` (a square matrix for ``Eigh``), results unlike those of
    JAX's lowering, a malformed ``Eigh`` ``backend_config``, shape operands of a symbolic-shape export
    (refine first), a ``Sharding`` that changes its type, and a shard_map boundary that is not between a
    tiled sharding and its pieces on the module's ``mhlo.num_partitions`` (none: one device) partitions.
    """

    argument = "stablehlo-legalize-tpu-custom-calls"
    summary = ("Legalize the custom calls JAX writes for TPU (Qr, ProductOfElementaryHouseholderReflectors, "
               "LuDecomposition, Eigh; Sharding annotations as the identity, shard_map regions per partition) "
               "to StableHLO")
    illegal_custom_calls = TPU_TARGETS

    # -- checking -------------------------------------------------------------------------------------
    def check(self, op: ir.Operation) -> None:
        target = _target(op)
        if target in SHARDING_TARGETS:
            self._check_sharding(op, target)
            return
        arity = LINALG_TARGETS[target]
        if attributes.has(op, "indices_of_shape_operands"):  # (a symbolic-shape export; refinement drops them)
            raise fail(f"{target} with shape operands (indices_of_shape_operands): dynamic shapes are not "
                       "supported (refine the program's shapes first, e.g. hlokit-run --shape / "
                       "hlokit-opt --refine-arguments)", op)
        if len(op.operands) != arity:
            raise fail(f"{target} with {len(op.operands)} operands (expected {arity})", op)
        types = [v.type for v in op.operands]
        for t in types:
            if not isinstance(t, ir.RankedTensorType):
                raise fail(f"{target} operand of type {t} (expected a ranked tensor)", op)
            if not ir.RankedTensorType(t).has_static_shape:
                raise fail(f"{target} operand of type {t}: dynamic shapes are not supported (refine the "
                           "program's shapes first; the expansions are built for static shapes)", op)
        a = ir.RankedTensorType(types[0])
        elem = str(a.element_type)
        if a.rank < 2 or elem not in ELEMENT_TYPES:
            raise fail(f"{target} of {a} (expected a [..., m, n] matrix of "
                       f"{', '.join(ELEMENT_TYPES)})", op)
        if target == "Eigh" and a.shape[-1] != a.shape[-2]:
            raise fail(f"Eigh of {a} (expected a square matrix)", op)
        if target == "ProductOfElementaryHouseholderReflectors":
            taus = ir.RankedTensorType(types[1])
            if (str(taus.element_type) != elem or list(taus.shape[:-1]) != list(a.shape[:-2])
                    or taus.rank != a.rank - 1 or taus.shape[-1] > min(a.shape[-2:])):
                raise fail(f"{target} of {a} and {taus} (expected taus of shape [..., k], k <= min(m, n), "
                           "of the matrix's element type)", op)
        results, _ = _result_types(op)
        expected = _expected_results(target, types)
        got = [str(t) for t in results]
        if got != expected:
            raise fail(f"{target} of {a} has results ({', '.join(got)}), expected ({', '.join(expected)})", op)

    def _check_sharding(self, op: ir.Operation, target: str) -> None:
        if len(op.operands) != 1 or len(op.results) != 1:
            raise fail(f"{target} with {len(op.operands)} operands and {len(op.results)} results "
                       "(expected one each)", op)
        src, dst = op.operands[0].type, op.results[0].type
        if src == dst:
            return
        for t in (src, dst):
            if not isinstance(t, ir.RankedTensorType) or not ir.RankedTensorType(t).has_static_shape:
                raise fail(f"{target} of {src} -> {dst} (expected statically shaped tensors)", op)
        if target == "Sharding" or ir.RankedTensorType(src).element_type != ir.RankedTensorType(dst).element_type:
            raise fail(f"{target} changes the type {src} to {dst}", op)
        try:
            self._shard_attributes(op)
        except UnsupportedError as err:
            raise fail(f"{target} ({src} -> {dst}): {err}", op) from None

    def _shard_attributes(self, op: ir.Operation) -> tuple:
        """``(target, offsets by device, P, writers)`` of a shard_map boundary on ``P`` partitions (``writers``:
        the first device of each replication group, in the tile assignment's order); UnsupportedError
        when the module cannot run it (one partition, replicas, a sharding of another form)."""
        target = _target(op)
        src, dst = _dims(op.operands[0].type), _dims(op.results[0].type)
        full, piece = (src, dst) if target == "SPMDFullToShardShape" else (dst, src)
        if target == "SPMDFullToShardShape":
            owner = op.operands[0].owner
            if isinstance(owner, ir.Block) or owner.name != "stablehlo.custom_call" or _target(owner) != "Sharding":
                raise UnsupportedError("its operand is not a custom_call @Sharding, which names the layout "
                                       "of the full array")
            sharding = attributes.str_value(owner, "mhlo.sharding", "")
        else:
            sharding = attributes.str_value(op, "mhlo.sharding", "")
        offsets = tile_offsets(sharding, full, piece)
        replicas, partitions = _device_needs(op)
        if partitions == 1:
            raise UnsupportedError(
                f"the sharding \"{sharding}\" cuts the array over {len(offsets)} devices, the module runs on "
                f"one (no mhlo.num_partitions): a shard_map region is the program of one device, so the module "
                f"runs only partitioned over {len(offsets)} devices; set mhlo.num_partitions = {len(offsets)} "
                "(the device count jax.export recorded, Exported.nr_devices)")
        if replicas != 1:
            raise UnsupportedError(f"a shard_map region in a module of mhlo.num_replicas = {replicas} "
                                   "(only partitions are supported)")
        if sorted(offsets) != list(range(partitions)):
            raise UnsupportedError(f"the sharding \"{sharding}\" names devices {sorted(offsets)}, the module "
                                   f"has partitions 0..{partitions - 1} (mhlo.num_partitions = {partitions})")
        seen, writers = set(), []
        for device, offset in offsets.items():  # (in the order of the tile assignment)
            if offset not in seen:
                seen.add(offset)
                writers.append(device)
        return (target, tuple(offsets[d] for d in range(partitions)), partitions, tuple(writers))

    def attributes(self, op: ir.Operation) -> tuple:
        """``(target,)``; ``("Eigh", lower, sort)`` for ``Eigh``; :meth:`_shard_attributes` for a shard_map
        boundary (checked first)."""
        target = _target(op)
        if target == "Eigh":
            return (target,) + eigh_config(op)
        if target in SHARDING_TARGETS:
            return self._shard_attributes(op)
        return (target,)

    def op_info(self, op: ir.Operation, index: int = 0) -> OpInfo:
        """The :class:`~hlokit.passes.template_pass.OpInfo` of a checked call, a ``tuple`` result flattened
        into its elements."""
        try:
            attrs = self.attributes(op)
        except attributes.AttributeReadError as err:
            raise fail(f"'{op.name}' @{_target(op)}: {err}", op) from None
        o_types = [v.type for v in op.operands]
        r_types, _ = _result_types(op)
        return OpInfo(op.name, [_dims(t) for t in o_types], [str(t.element_type) for t in o_types],
                      [_dims(t) for t in r_types], [str(ir.RankedTensorType(t).element_type) for t in r_types],
                      attrs, o_types, r_types, index)

    # -- rewriting ------------------------------------------------------------------------------------
    def plan_op(self, cache: TemplateCache, op: ir.Operation, index: int):
        self.check(op)
        if _target(op) in SHARDING_TARGETS and op.operands[0].type == op.results[0].type:
            return _identity
        return self.template(cache, op, self.op_info(op, index))

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> list[V]:
        target = info.attrs[0]
        if target == "Qr":
            return build_geqrf(e, operands[0])
        if target == "ProductOfElementaryHouseholderReflectors":
            return [build_orgqr(e, operands[0], operands[1])]
        if target == "LuDecomposition":
            a = operands[0]
            lu, ipiv, _ = build_getrf(e, a)
            pivots = ipiv - 1  # LAPACK's 1-based row swaps -> XLA's 0-based ones
            return [lu, pivots, build_lu_pivots_to_permutation(e, pivots, a.shape[-2])]
        if target == "Eigh":
            _, lower, _sort = info.attrs  # (values ascending either way: a valid unsorted order too)
            v, w, _ = build_syevd(e, operands[0], lower)
            return [v, w]
        if target == "SPMDFullToShardShape":
            return [_full_to_shard(e, operands[0], info.result_shapes[0], *info.attrs[1:])]
        if target == "SPMDShardToFullShape":
            return [_shard_to_full(e, operands[0], info.result_shapes[0], *info.attrs[1:])]
        raise UnsupportedError(f"no rewrite of custom_call @{target}")  # (not reached: checked)

    def instantiate(self, cache: TemplateCache, op: ir.Operation, template) -> None:
        if callable(template) or not _result_types(op)[1]:
            super().instantiate(cache, op, template)
            return
        # the tuple form: the template's values gathered into one stablehlo.tuple
        values = instantiate_before(cache, template, op, list(op.operands))
        with op.location, ir.InsertionPoint(op):
            packed = stablehlo.TupleOp(values).result
        op.results[0].replace_all_uses_with(packed)
        op.erase()


#: The channel of the ``all_gather`` that closes a shard_map region (any id > 0: a device-to-device channel).
SHARD_TO_FULL_CHANNEL = 0x5348


def _full_to_shard(e: Emitter, x: V, piece: list[int], offsets: tuple, partitions: int, writers: tuple) -> V:
    """This partition's piece of the full value ``x``: a ``dynamic_slice`` at the offsets of partition
    ``partition_id`` (``offsets[p]``, one tuple per partition)."""
    pid = e.convert(e.partition_id(), "i32")
    starts = []
    for k in range(len(piece)):
        table = e.constant([o[k] for o in offsets], "i32", [partitions])
        starts.append(e.reshape(e.dynamic_slice(table, [pid], [1]), []))
    return e.dynamic_slice(x, starts, piece)


def _shard_to_full(e: Emitter, y: V, full: list[int], offsets: tuple, partitions: int, writers: tuple) -> V:
    """The full value assembled from every partition's piece ``y``: an ``all_gather`` over the partitions
    (flattened device ids 0..P-1), the piece of each of ``writers`` written at its offsets (of a replication
    group, whose pieces a shard_map body keeps equal, the first device's, as XLA's partitioner takes it)."""
    piece = y.shape
    rank = len(piece)
    gathered = e.all_gather(e.reshape(y, [1] + piece), 0, [list(range(partitions))], SHARD_TO_FULL_CHANNEL)
    out = e.const(0, t=y.t, shape=full)
    for p in writers:
        part = e.reshape(e.slice(gathered, [p] + [0] * rank, [p + 1] + piece), piece)
        out = e.dynamic_update_slice(out, part, [e.scalar(o, "i32") for o in offsets[p]])
    return out


def _identity(op: ir.Operation) -> None:
    """Replace a sharding annotation (operand and result of one type) by its operand."""
    op.results[0].replace_all_uses_with(op.operands[0])
    op.erase()


@register_pass
class StablehloLegalizeTpuOnlyCustomCalls(StablehloLegalizeTpuCustomCalls):
    """:class:`StablehloLegalizeTpuCustomCalls` restricted to :data:`TPU_ONLY_TARGETS` (``LuDecomposition``):
    the TPU custom calls that no other XLA backend runs, what XLA needs on CPU and GPU. Same checks and
    errors."""

    argument = "stablehlo-legalize-tpu-only-custom-calls"
    summary = "Legalize the TPU custom calls no other XLA backend runs (LuDecomposition) to StableHLO"
    illegal_custom_calls = TPU_ONLY_TARGETS
