"""Structural reductions: inline calls and regions (``while`` -> its body once, ``case`` / ``if`` -> one
branch), drop function results and unused arguments, erase unused functions.

Sites are plain values of the module they were computed on: op walk indices
(:func:`~hlokit.triage.reductions_base.all_ops`) and function names. A set of sites is applied in reverse
walk order (nested ops before the op around them), so any subset is well defined.
"""

from __future__ import annotations

from typing import Sequence

from jaxlib.mlir import ir

from hlokit.triage.reductions_base import (
    ReductionNotApplicable,
    all_ops,
    enclosing_function,
    function_type,
    functions,
    in_context,
    ops_at,
    rebuild_call,
    set_function_type,
    symbol_references,
)

__all__ = ["InlineCalls", "InlineRegions", "DropResults", "DropUnusedArguments", "EraseUnusedFunctions",
           "inline_call"]


def _name(func: ir.Operation) -> str:
    return ir.StringAttr(func.attributes["sym_name"]).value


def _callee(call: ir.Operation) -> str:
    return ir.FlatSymbolRefAttr(call.attributes["callee"]).value


def _splice_block(block: ir.Block, before: ir.Operation, values: Sequence[ir.Value]) -> list[ir.Value]:
    """Move the ops of the single ``block`` (its arguments bound to ``values``) before ``before``; returns the
    operands of its terminator (which stays behind, with the block)."""
    for arg, value in zip(block.arguments, values):
        arg.replace_all_uses_with(value)
    body = list(block.operations)
    for op in body[:-1]:
        op.move_before(before)
    return list(body[-1].operands)


def inline_call(call: ir.Operation, callee: ir.Operation) -> None:
    """Inline the ``func.call`` ``call`` of the single-block function ``callee``: a clone of the callee's body
    takes the call's place, its returned values the call's results (as ``hlokit.passes.refine.inline_calls``
    does for every call). The callee stays."""
    clone = callee.clone(ip=ir.InsertionPoint(call))
    out = _splice_block(clone.regions[0].blocks[0], call, list(call.operands))
    for result, value in zip(call.results, out):
        result.replace_all_uses_with(value)
    call.erase()
    clone.erase()


class InlineCalls:
    """``inline-calls``: inline a ``func.call`` of a single-block function of the module (not a call of the
    function it is in); a callee no longer referenced afterwards (not ``@main``) is erased. Site: the call's walk
    index."""

    name = "inline-calls"

    @in_context
    def sites(self, module: ir.Module) -> list:
        funcs = functions(module)
        out = []
        for i, op in enumerate(all_ops(module)):
            if op.name != "func.call":
                continue
            callee = funcs.get(_callee(op))
            around = enclosing_function(op)
            if callee is None or len(callee.regions[0].blocks) != 1 or around is None or _name(around) == _callee(op):
                continue
            out.append(i)
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        if any(not isinstance(i, int) for i in sites):
            raise ReductionNotApplicable(f"malformed sites {list(sites)}")
        ops = ops_at(module, sites)
        funcs = functions(module)
        called = set()
        for i in sorted(ops, reverse=True):
            call = ops[i]
            callee = funcs.get(_callee(call)) if call.name == "func.call" else None
            if callee is not None:
                called.add(_callee(call))
            if callee is None or len(callee.regions[0].blocks) != 1:
                raise ReductionNotApplicable(f"op #{i} is no call of a single-block function")
            inline_call(call, callee)
        refs = symbol_references(module)
        for name, func in funcs.items():
            if name != "main" and name not in refs and name in called:
                func.erase()


#: Ops with regions that run one of their regions once (``case``, ``if``) or the last region repeatedly
#: (``while``: cond, body): the region index that may replace the op, per op.
_REGION_OPS = ("stablehlo.while", "stablehlo.case", "stablehlo.if")


def _branches(op: ir.Operation) -> list[int]:
    if op.name == "stablehlo.while":
        return [1]
    if op.name in ("stablehlo.case", "stablehlo.if"):
        return list(range(len(op.regions)))
    return []


class InlineRegions:
    """``inline-regions``: replace a ``stablehlo.while`` by its body run once (the body's arguments are the
    while's operands, its returned values the while's results; StableHLO spec, "while"), a
    ``stablehlo.case`` / ``stablehlo.if`` by one branch (spec, "case", "if"). Site: ``(op index, region
    index)``; one site per op is applied (the lowest region)."""

    name = "inline-regions"

    @in_context
    def sites(self, module: ir.Module) -> list:
        out = []
        for i, op in enumerate(all_ops(module)):
            if op.name in _REGION_OPS:
                out.extend((i, k) for k in _branches(op) if len(op.regions[k].blocks) == 1)
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        pairs = sorted(set(_pairs(sites, first=int)))
        ops = ops_at(module, {p[0] for p in pairs})
        chosen: dict[int, int] = {}
        for i, k in pairs:
            chosen.setdefault(i, k)
        for i in sorted(chosen, reverse=True):
            op, k = ops[i], chosen[i]
            if k not in _branches(op) or len(op.regions[k].blocks) != 1:
                raise ReductionNotApplicable(f"op #{i} has no region {k} to inline")
            values = list(op.operands) if op.name == "stablehlo.while" else []
            out = _splice_block(op.regions[k].blocks[0], op, values)
            if len(out) != len(op.results) or any(a.type != b.type for a, b in zip(out, op.results)):
                raise ReductionNotApplicable(f"region {k} of op #{i} does not return the op's types")
            for result, value in zip(op.results, out):
                result.replace_all_uses_with(value)
            op.erase()


def _pairs(sites: Sequence, first: type = str) -> list[tuple]:
    """``sites`` as ``(first, int)`` pairs; anything else: :class:`ReductionNotApplicable`."""
    out = []
    for s in sites:
        if not isinstance(s, (tuple, list)) or len(s) != 2 or not isinstance(s[0], first) \
                or not isinstance(s[1], int):
            raise ReductionNotApplicable(f"malformed site {s!r}")
        out.append(tuple(s))
    return out


def _calls_only(module: ir.Module) -> dict[str, list[ir.Operation] | None]:
    """For every function, its calls; None for a function referred to by something else than a call."""
    refs = symbol_references(module)
    out: dict[str, list[ir.Operation] | None] = {}
    for name in functions(module):
        ops = refs.get(name, [])
        out[name] = ops if all(op.name == "func.call" for op in ops) else None
    return out


def _by_function(module: ir.Module, sites: Sequence, usable, what: str) -> list[tuple]:
    """``(name, func, indices, calls)`` per function the ``(function name, index)`` sites name, sorted by name:
    the indices named for it and its calls. :class:`ReductionNotApplicable` when a site is malformed or a
    function is missing, referred to by something else than a call, or not ``usable(func)``."""
    funcs = functions(module)
    calls = _calls_only(module)
    by_func: dict[str, set[int]] = {}
    for name, i in _pairs(sites):
        by_func.setdefault(name, set()).add(i)
    out = []
    for name in sorted(by_func):
        func = funcs.get(name)
        if func is None or calls[name] is None or not usable(func):
            raise ReductionNotApplicable(f"no function @{name} with droppable {what}")
        out.append((name, func, by_func[name], calls[name]))
    return out


def _returns(func: ir.Operation) -> list[ir.Operation]:
    block = func.regions[0].blocks[0]
    return [block.operations[len(block.operations) - 1].operation]


class DropResults:
    """``drop-results``: drop a result of a function (``@main``: a returned value) whose calls do not use it:
    the ``func.return`` loses the operand (its producers left dead stay for ``erase-unused-ops``), ``function_type`` /
    ``res_attrs`` follow, the calls are rebuilt without it. Site: ``(function name, result index)``."""

    name = "drop-results"

    @in_context
    def sites(self, module: ir.Module) -> list:
        calls = _calls_only(module)
        out = []
        for name, func in functions(module).items():
            if calls[name] is None or len(func.regions[0].blocks) != 1:
                continue
            for r in range(len(function_type(func).results)):
                if all(not list(c.results[r].uses) for c in calls[name]):
                    out.append((name, r))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        for name, func, drop, calls in _by_function(module, sites, lambda f: len(f.regions[0].blocks) == 1,
                                                    "results"):
            ft = function_type(func)
            n = len(ft.results)
            if any(not isinstance(r, int) or not 0 <= r < n for r in drop):
                raise ReductionNotApplicable(f"@{name} has no result {sorted(drop)}")
            if any(list(c.results[r].uses) for c in calls for r in drop):
                raise ReductionNotApplicable(f"a call of @{name} uses a dropped result")
            keep = [r for r in range(n) if r not in drop]
            for ret in _returns(func):
                operands = list(ret.operands)
                ir.Operation.create(ret.name, operands=[operands[r] for r in keep], loc=ret.location,
                                    ip=ir.InsertionPoint(ret))
                ret.erase()
            set_function_type(func, ft.inputs, [ft.results[r] for r in keep], keep_results=keep)
            for call in calls:
                rebuild_call(call, range(len(call.operands)), keep)


class DropUnusedArguments:
    """``drop-unused-arguments``: erase a function argument nothing uses (the entry block's argument,
    ``function_type`` / ``arg_attrs``, and the operand of every call). Site: ``(function name, argument
    index)``."""

    name = "drop-unused-arguments"

    @in_context
    def sites(self, module: ir.Module) -> list:
        calls = _calls_only(module)
        out = []
        for name, func in functions(module).items():
            if calls[name] is None or len(func.regions[0].blocks) == 0:
                continue
            for a, arg in enumerate(func.regions[0].blocks[0].arguments):
                if not list(arg.uses):
                    out.append((name, a))
        return out

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        for name, func, drop, calls in _by_function(module, sites, lambda f: len(f.regions[0].blocks) > 0,
                                                    "arguments"):
            block = func.regions[0].blocks[0]
            n = len(block.arguments)
            if any(not isinstance(a, int) or not 0 <= a < n or list(block.arguments[a].uses) for a in drop):
                raise ReductionNotApplicable(f"@{name}: arguments {sorted(drop)} are not all unused")
            ft = function_type(func)
            keep = [a for a in range(n) if a not in drop]
            for a in sorted(drop, reverse=True):
                block.erase_argument(a)
            set_function_type(func, [ft.inputs[a] for a in keep], ft.results, keep_args=keep)
            for call in calls:
                rebuild_call(call, keep, range(len(call.results)))


class EraseUnusedFunctions:
    """``erase-unused-functions``: erase a function nothing refers to, other than ``@main``. Site: its
    name."""

    name = "erase-unused-functions"

    @in_context
    def sites(self, module: ir.Module) -> list:
        refs = symbol_references(module)
        return [name for name in functions(module) if name != "main" and name not in refs]

    @in_context
    def apply(self, module: ir.Module, sites: Sequence) -> None:
        funcs = functions(module)
        refs = symbol_references(module)
        if any(not isinstance(name, str) for name in sites):
            raise ReductionNotApplicable(f"malformed sites {list(sites)}")
        for name in sorted(set(sites)):
            if name not in funcs or name == "main" or name in refs:
                raise ReductionNotApplicable(f"@{name} is no unused function")
        for name in sorted(set(sites)):
            funcs[name].erase()
