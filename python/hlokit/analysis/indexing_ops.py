"""Indexing maps of StableHLO ops and of whole functions.

Source: https://openxla.org/xla/indexing, sections "Indexing Maps for Unfused Ops" and "Indexing Maps
for Fusion" (XLA's implementation: ``xla/hlo/analysis/indexing_analysis.cc``, formerly
``xla/service/gpu/model/indexing_analysis.cc``); op semantics from the StableHLO specification
(https://openxla.org/stablehlo/spec), op by op.

* :func:`output_to_input` — for an op and one of its results: per operand, the maps from the result's
  multi-index to the indices of that operand it reads.
* :func:`input_to_output` — for an op and one of its operands: per result, the maps from the operand's
  multi-index to the result indices that read it.
* :func:`function_output_to_input` / :func:`function_input_to_output` — the same for a ``func.func``
  taken as one fusion: per-op maps composed through its body, simplified and deduplicated.

Rules live in two tables, :data:`OUT_TO_IN` and :data:`IN_TO_OUT` (:mod:`hlokit.analysis.indexing_rules`):
a new rule is one function ``rule(op, index) -> OpMaps`` under ``@out_to_in("stablehlo.foo")`` or
``@in_to_out("stablehlo.foo")`` in the module of its kind (:mod:`~hlokit.analysis.indexing_data_movement`,
:mod:`~hlokit.analysis.indexing_structured`; ``func.call`` here, next to the fusion composition it uses);
a second rule for an op raises ``ValueError`` at import. An op without
a rule raises :class:`~hlokit.analysis.indexing.IndexingError` ("no indexing map for
'stablehlo.custom_call'"), never a guessed map. Shapes must be static.
"""

from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.analysis.indexing import (
    Expr,
    IndexingError,
    IndexingMap,
    RTVar,
    const,
    sym,
)
from hlokit.analysis.indexing_memo import Walk, current_walk, walk_scope
from hlokit.attributes import AttributeReadError

# The rule modules register their rules on import; the list is explicit (a renamed module fails here).
from hlokit.analysis import indexing_data_movement, indexing_structured  # noqa: F401
from hlokit.analysis.indexing_rules import (
    IN_TO_OUT,
    OUT_TO_IN,
    OpMaps,
    check_static,
    in_to_out,
    op_label,
    out_to_in,
    register_rule,
    shape_of,
    value_name,
)

__all__ = [
    "output_to_input",
    "input_to_output",
    "function_output_to_input",
    "function_input_to_output",
    "value_name",
    "op_label",
    "supported_ops",
    "fold_constant_rt_vars",
    "OUT_TO_IN",
    "IN_TO_OUT",
    "out_to_in",
    "in_to_out",
    "register_rule",
]

def supported_ops() -> list[str]:
    """Names of the ops with an output-to-input rule."""
    return sorted(OUT_TO_IN)


def output_to_input(op: ir.Operation | ir.OpView, result_index: int = 0) -> OpMaps:
    """Per operand of ``op``, the simplified maps from result ``result_index`` to that operand.

    Runtime variables that read a ``stablehlo.constant`` at a constant index become that (clamped)
    constant. Raises :class:`IndexingError` for an op without a rule, dynamic shapes, or unsupported
    attributes.
    """
    op = op.operation
    fn = OUT_TO_IN.get(op.name)
    if fn is None:
        raise IndexingError(f"no indexing map for '{op.name}'", op)
    return _simplified_maps(op, fn, result_index)


def _simplified_maps(op: ir.Operation, fn, index: int) -> OpMaps:
    """Run the per-op rule ``fn`` and simplify its maps; an error without an op is located at ``op``.

    Inside a fusion walk the result is memoised by the op's signature (rule, index, operand and result
    types, inherent attributes): a rule reads nothing else, except the values its rt vars name, so maps
    with rt vars are not memoised. Rules read only inherent attributes (names without a dot), and only
    those are read here: jaxlib aborts the process when it reads a complex ``dense<...>`` attribute,
    which may be found in a discardable attribute or a constant's ``value`` (ops without operands,
    constants and iotas, are not memoised: their rules return no map)."""
    walk = current_walk()
    operands = op.operands
    if walk is None or not len(operands):
        return _run_rule(op, fn, index)
    attrs = op.attributes
    inherent = []
    for a in map(attrs.__getitem__, range(len(attrs))):
        name = a.name
        if "." not in name:
            inherent.append((name, a.attr))
    sig = (
        fn,
        index,
        op.name,
        tuple([v.type for v in operands]),
        tuple([v.type for v in op.results]),
        tuple(inherent),
    )
    hit = walk.rules.get(sig)
    if hit is None:
        hit = _run_rule(op, fn, index)
        if not any(m.rt_vars for maps in hit for m in maps):
            walk.rules[sig] = hit
    return hit


def _run_rule(op: ir.Operation, fn, index: int) -> OpMaps:
    try:
        check_static(op)
        return [[fold_constant_rt_vars(m).simplify() for m in maps] for maps in fn(op, index)]
    except IndexingError as err:
        if err.op is None:
            raise IndexingError(err.message, op) from None
        raise
    except AttributeReadError as err:  # a missing or malformed attribute (unverified IR)
        raise IndexingError(str(err), op) from None


def _constant_element(value, index: Sequence[int]) -> int | None:
    """The integer element of ``value`` at ``index`` when ``value`` is a ``stablehlo.constant``."""
    if not isinstance(value, ir.OpResult):
        return None
    owner = value.owner
    if owner.name != "stablehlo.constant":
        return None
    attr = attributes.get(owner, "value")
    if not isinstance(attr, ir.DenseIntElementsAttr):
        return None
    if attr.is_splat:
        return int(ir.IntegerAttr(attr.get_splat_value()).value)
    shape = shape_of(value)
    linear = 0
    for i, n in zip(index, shape):
        linear = linear * n + i
    return int(attr[linear])


def fold_constant_rt_vars(m: IndexingMap) -> IndexingMap:
    """Replace each rt var that reads a constant at a constant index by its clamped value."""
    if not m.rt_vars:
        return m
    nr = len(m.range_vars)
    syms: list[Expr] = [sym(j) for j in range(nr)]
    kept = []
    for j, rv in enumerate(m.rt_vars):
        v = None
        if all(e.is_constant() for e in rv.map):
            v = _constant_element(rv.value, [e.const for e in rv.map])
        if v is None:
            syms.append(sym(nr + len(kept)))
            kept.append(rv)
        else:
            syms.append(const(min(max(v, rv.feasible_values.lower), rv.feasible_values.upper)))
    if len(kept) == len(m.rt_vars):
        return m
    return IndexingMap(
        tuple(r.substitute(None, syms) for r in m.results),
        m.dim_vars,
        m.range_vars,
        tuple(RTVar(v.feasible_values, v.value, tuple(x.substitute(None, syms) for x in v.map), v.name) for v in kept),
        {e.substitute(None, syms): iv for e, iv in m.constraints.items()},
    )


def input_to_output(op: ir.Operation | ir.OpView, operand_index: int) -> OpMaps:
    """Per result of ``op``, the simplified maps from operand ``operand_index`` to that result.

    Raises :class:`IndexingError` for an op without an input-to-output rule.
    """
    op = op.operation
    fn = IN_TO_OUT.get(op.name)
    if fn is None:
        if op.name in OUT_TO_IN:
            raise IndexingError(f"no input-to-output indexing map for '{op.name}'", op)
        raise IndexingError(f"no indexing map for '{op.name}'", op)
    return _simplified_maps(op, fn, operand_index)

# ----------------------------------------------------------------------------------------------
# calls: the callee's maps (a call is a fusion)


def _callee(op) -> ir.Operation:
    name = attributes.str_value(op, "callee")
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent
    if parent is None:
        raise IndexingError(f"'func.call': cannot find @{name}")
    for f in parent.regions[0].blocks[0].operations:
        if f.operation.name == "func.func" and attributes.str_value(f, "sym_name", None) == name:
            return f.operation
    raise IndexingError(f"'func.call': cannot find @{name}")


def _callee_maps(op, direction: str, index: int, walk_fn) -> dict[int, list[IndexingMap]]:
    """The callee's fusion maps; inside a fusion walk, computed once per callee and index (a body
    calling one helper function many times, as JAX's ``_pad`` / ``_where`` helpers are, walks it once)."""
    walk = current_walk()
    if walk is None:
        return walk_fn(_callee(op), index)
    key = (direction, attributes.str_value(op, "callee"), index)
    hit = walk.calls.get(key)
    if hit is None:
        hit = walk.calls[key] = walk_fn(_callee(op), index)
    return hit


@out_to_in("func.call")
def _call_oi(op, r):
    maps = _callee_maps(op, "oi", r, function_output_to_input)
    return [maps.get(k, []) for k in range(len(op.operands))]


@in_to_out("func.call")
def _call_io(op, k):
    maps = _callee_maps(op, "io", k, function_input_to_output)
    return [maps.get(j, []) for j in range(len(op.results))]


# ----------------------------------------------------------------------------------------------
# fusion: composition through a function body


class _MapSet:
    """Insertion-ordered set of simplified maps; drops known-empty maps and duplicates."""

    __slots__ = ("maps",)

    def __init__(self):
        self.maps: dict = {}

    def add(self, m: IndexingMap):
        m = fold_constant_rt_vars(m).simplify()
        if m.is_known_empty():
            return
        self.maps.setdefault(m.canonical_key(), m)

    def add_composed(self, walk: Walk, first: IndexingMap, second: IndexingMap):
        """Add ``first.compose(second)``, simplified (memoised per pair of maps in ``walk``)."""
        k = (first.exact_key(), second.exact_key())
        memo = walk.composed
        if k in memo:
            m = memo[k]
        else:
            m = fold_constant_rt_vars(first.compose(second)).simplify()
            if m.is_known_empty():
                m = None
            memo[k] = m
        if m is not None:
            self.maps.setdefault(m.canonical_key(), m)

    def __iter__(self):
        return iter(self.maps.values())


def _body(func: ir.Operation) -> ir.Block:
    func = func.operation
    if not func.regions or not func.regions[0].blocks:
        raise IndexingError(f"'{func.name}' has no body")
    return func.regions[0].blocks[0]


def function_output_to_input(func: ir.Operation | ir.OpView, result_index: int = 0) -> dict[int, list[IndexingMap]]:
    """Maps from result ``result_index`` of ``func`` (a ``func.func``, taken as one fusion) to each
    argument it reads: ``{argument number: [maps]}`` (arguments not read are absent).

    Each op's output-to-input maps are composed with the maps reaching its results (users before
    producers), simplified; equal maps are kept once, different ones all (https://openxla.org/xla/indexing, section "Indexing Maps for Fusion").
    Raises :class:`IndexingError` naming the first op on the way without an indexing map.
    """
    with walk_scope() as walk:
        return _output_to_input_walk(walk, _body(func), result_index)


def _output_to_input_walk(walk: Walk, block: ir.Block, result_index: int) -> dict[int, list[IndexingMap]]:
    ops = list(block.operations)
    root = ops[-1].operands[result_index]
    maps: dict[ir.Value, _MapSet] = {}
    start = _MapSet()
    start.add(IndexingMap.identity(shape_of(root)))
    maps[root] = start
    for op in reversed(ops[:-1]):
        op = op.operation
        reached = [(i, res, maps[res]) for i, res in enumerate(op.results) if res in maps]
        if not reached:
            continue
        for i, res, consumer_maps in reached:
            per_operand = output_to_input(op, i)
            for operand, producer_maps in zip(op.operands, per_operand):
                target = maps.setdefault(operand, _MapSet())
                for cm in consumer_maps:
                    for pm in producer_maps:
                        target.add_composed(walk, cm, pm)
            # every user of a result comes after its op: its set is complete and no longer read
            # (dropping it keeps the live objects, and the garbage collector's work, bounded)
            del maps[res]
    out = {}
    for arg in block.arguments:
        if arg in maps and maps[arg].maps:
            out[arg.arg_number] = list(maps[arg])
    return out


def function_input_to_output(func: ir.Operation | ir.OpView, arg_index: int) -> dict[int, list[IndexingMap]]:
    """Maps from argument ``arg_index`` of ``func`` to each result that reads it:
    ``{result number: [maps]}``, composed op by op in program order (the same section, other direction)."""
    with walk_scope() as walk:
        return _input_to_output_walk(walk, _body(func), arg_index)


def _input_to_output_walk(walk: Walk, block: ir.Block, arg_index: int) -> dict[int, list[IndexingMap]]:
    ops = list(block.operations)
    arg = block.arguments[arg_index]
    maps: dict[ir.Value, _MapSet] = {}
    start = _MapSet()
    start.add(IndexingMap.identity(shape_of(arg)))
    maps[arg] = start
    for op in ops[:-1]:
        op = op.operation
        reached = [(k, maps[v]) for k, v in enumerate(op.operands) if v in maps]
        for k, producer_maps in reached:
            per_result = input_to_output(op, k)
            for res, consumer_maps in zip(op.results, per_result):
                target = maps.setdefault(res, _MapSet())
                for pm in producer_maps:
                    for cm in consumer_maps:
                        target.add_composed(walk, pm, cm)
    out = {}
    for j, v in enumerate(ops[-1].operands):
        if v in maps and maps[v].maps:
            out.setdefault(j, [])
            out[j].extend(maps[v])
    return out
