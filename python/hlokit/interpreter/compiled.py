"""The compiled executor of the hlokit interpreter: blocks planned once, then walked as steps and compiled to
Python.

:class:`CompiledExecutor` runs the blocks of an :class:`~hlokit.interpreter.evaluator.Interpreter` (its default
executor; ``Interpreter(executor="plain")`` uses the plain walker of :mod:`~hlokit.interpreter.evaluator`
instead, which calls each op's adapter and nothing else). It reads the fields of each op's
:class:`~hlokit.interpreter.registry.OpImpl` that the plain walker ignores, all of which compute what the
adapter computes:

* **Planning** (:class:`_Plan`, once per block): each op's implementation is looked up, passed through the
  interpreter's wrappers and ``prepare``\\ d; SSA values get integer ids and slots; the results of a
  ``folded`` op, and of ops of :data:`FOLDABLE_OPS` on plan-time constants, are computed once here.
* **Walking** (:meth:`_Plan._walker`): the block's steps, each a ``kernel`` call (specialized on its first run
  by the op's ``specialize``) or a call of the adapter, with each value freed after its last use; in a block
  a loop runs, scalar broadcasts are handed to their readers (``scalar_broadcast`` / ``broadcasting``).
* **Code generation** (:meth:`_Plan._compile`, :meth:`_Plan._compile_loop`): a block run more than
  :attr:`_Plan.COMPILE_AFTER` times becomes straight-line Python (``exec`` of generated code that does what the
  walker does, step for step); a ``while`` running that long becomes one Python function with the loop inside.

``docs/interpreter.md`` describes the costs these forms save.
"""

from __future__ import annotations

import functools
import itertools
import operator
import threading
import weakref
from typing import Any, Callable, Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit import opsets
from hlokit.interpreter.errors import (
    InterpreterError,
    NeedsLegalization,
    ResultCountError,
    located,
    reraise,
)
from hlokit.interpreter.registry import OPS, TERMINATORS, UNSUPPORTED
from hlokit.interpreter.values import Value

__all__ = ["CompiledExecutor", "FOLDABLE_OPS", "FOLD_LIMIT_BYTES"]

#: Ops whose result depends only on their operands and attributes (no side effect, no region, no state):
#: when every operand is a plan-time constant, the op runs once, when its block is compiled, and its
#: result is reused by every execution of the block (``constant`` itself; the broadcasts, reshapes and
#: arithmetic JAX emits on constants inside loop bodies).
FOLDABLE_OPS: frozenset[str] = opsets.ELEMENTWISE | frozenset({
    "stablehlo.constant", "stablehlo.iota", "stablehlo.broadcast_in_dim", "stablehlo.reshape",
    "stablehlo.transpose", "stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad", "stablehlo.reverse",
})

#: A folded result larger than this (bytes) is not kept for the life of the plan: it is recomputed at run
#: time, where the walker frees it after its last use (memory over speed for big splats).
FOLD_LIMIT_BYTES = 1 << 16



_NO_VALUES: frozenset = frozenset()


class _Plan:
    """One block, compiled once into a Python function of its block arguments.

    Every SSA value gets a small integer (``ids``: SSA value -> int, shared by the interpreter). A block's
    own values (its arguments, then its ops' results in order) get consecutive ids ``base .. end - 1``: the
    ops of nested regions are numbered after the block's own (their plans are made once the block's ops are
    read), so a value's slot in the block's list of live values is ``id - base``. The block becomes a list of
    steps (one call of the op's adapter per op, operands and results in slots, each value dropped right after
    its last use: the liveness of the block is computed once, when the block first runs). Values a nested
    region reads (regions run in the scope of their op) also live in the frame dict ``env`` under their id,
    and are removed from it after their last use; a block copies the values of enclosing blocks that its ops
    read from ``env`` when it starts. Ops of :data:`FOLDABLE_OPS` whose operands are all constants run here,
    once (a failure leaves the op to run, and fail, at run time).

    ``fn(env, interp, args) -> list``: run the block; ``steps``: ``(impl, op, operand ids, result
    ids)`` per op that runs; ``nargs``: the number of block arguments; ``free``: the ids of the values of
    enclosing blocks that this block (or a region nested in it) reads.
    """

    __slots__ = ("nargs", "fn", "block", "free", "_parts", "_walk_steps", "__weakref__")

    def __init__(self, block: ir.Block, executor: "CompiledExecutor", interp):
        ids = executor.ids
        get = ids.get
        self.block = block
        base = len(ids)
        ids.update(zip(block.arguments, itertools.count(base)))
        self.nargs = nargs = len(ids) - base
        ops = list(block.operations)
        terminator = None
        if ops and ops[-1].operation.name in TERMINATORS:
            terminator = ops.pop().operation
        used: set[int] = set()  # every value read here (operands, and what nested regions read)
        wrappers = interp.wrappers
        ops_table = OPS
        fold = self._fold
        foldable = FOLDABLE_OPS
        # steps: (impl, op, operand ids, result ids, captured ids used by the op's regions)
        raw: list = []
        consts: dict[int, Any] = {}
        is_const = consts.__contains__
        nested = []  # (step, operation) of the ops whose regions are planned once this block's ops are read
        foreign: set[int] = set()  # ids given to operands with none (not SSA order; never in a verified block)
        check = interp.legalization_check
        for op in ops:
            operation = op.operation  # (an OpView's own properties may shadow name / operands / ...)
            name = operation.name
            if check is not None and check(name, operation):
                raise NeedsLegalization(name)
            impl = ops_table.get(name, UNSUPPORTED)
            for wrap in wrappers:  # e.g. quantized types: dequantize -> op -> quantize
                impl = wrap(op, impl)
            prepare = impl.prepare
            if prepare is not None:  # an op may read its attributes once, at plan time
                try:
                    impl = prepare(op)
                except Exception:  # reported when (if) the op runs
                    pass
            res = operation.results
            n = len(ids)
            if len(res) == 1:  # (most ops: one dict store, no zip)
                ids[res[0]] = n
                results: tuple = (n,)
            else:
                results = tuple(range(n, n + len(res)))
                ids.update(zip(res, results))
            folded = impl.folded  # results its prepare computed (registry: a constant, which has no operands)
            if folded is not None:
                consts.update(zip(results, folded))
                continue
            operands = tuple(map(get, operation.operands))  # defined before use: numbered already
            if None in operands:  # (read from env at run time: a located error if nothing put it there)
                operands = tuple([_number(ids, v, foreign) for v in operation.operands])
            used.update(operands)
            if name in foldable:  # (ops without regions)
                if all(map(is_const, operands)) and fold(impl, op, operands, results, consts, interp):
                    continue
            elif len(operation.regions) and not impl.isolated_regions:  # (registry: nothing captured)
                nested.append((len(raw), operation))
            raw.append((impl, op, operands, results, _NO_VALUES))
        ret_ids = tuple(map(get, terminator.operands)) if terminator is not None else ()
        if None in ret_ids:
            ret_ids = tuple([_number(ids, v, foreign) for v in terminator.operands])
        end = len(ids)
        for k, operation in nested:  # (numbered after this block's own values: see the class doc)
            inner: set[int] = set()
            for region in operation.regions:
                for block_ in region.blocks:
                    inner |= executor.plan_of_block(block_, interp).free
            used |= inner
            raw[k] = raw[k][:4] + (inner,)
        used.update(ret_ids)
        #: values this block (or a region nested in it) reads but does not define: what its parent's op
        #: captures. Nested regions are planned here (bottom-up), so each block is read once.
        self.free = {v for v in used if not base <= v < end or v in foreign}
        self._parts = (nargs, raw, ret_ids, consts, base, end, foreign)
        self.fn = _FirstRun(self)  # the walker is built on the first run (many blocks never run: branches not
        # taken, regions planned only for what they capture); it compiles the block after COMPILE_AFTER runs

    def runner(self):
        """``fn``, with the walker built now if the block has not run yet: a loop calls what this returns on
        every iteration (the walker compiles itself after :attr:`COMPILE_AFTER` runs, whoever holds it). A block
        run by a loop first hands the 0-d operands of its scalar broadcasts to the elementwise ops that read them
        (:func:`_elide_scalar_broadcasts`): one numpy call less per broadcast and iteration."""
        fn = self.fn
        if fn.__class__ is _FirstRun:
            nargs, raw, *rest = self._parts
            elided = _elide_scalar_broadcasts(raw, rest[0])
            if elided is not raw:
                self._parts = (nargs, elided, *rest)
            fn = self.fn = self._walker()
        return fn

    @property
    def steps(self) -> list:
        """``(impl, op, operand ids, result ids)`` of each op that runs, in order (``impl``: its
        :class:`~hlokit.interpreter.registry.OpImpl`, prepared)."""
        return [(a, op, o, r) for a, op, o, r, _ in self._parts[1]]

    def with_returns(self, ret_ids: Sequence[int]) -> "_Plan":
        """This block's plan returning the values ``ret_ids`` (ids of its arguments or op results) instead of
        its terminator's operands: the same prepared steps, only those the values need (and every op
        without results), with liveness recomputed; nothing is planned again."""
        nargs, raw, _, consts, base, end, foreign = self._parts
        need = set(ret_ids)
        kept = []
        for step in reversed(raw):
            _, _, operands, results, inner = step
            if not results or not need.isdisjoint(results):
                kept.append(step)
                need.update(operands)
                need.update(inner)
        kept.reverse()
        plan = _Plan.__new__(_Plan)
        plan.block = self.block
        plan.nargs = self.nargs
        plan.free = self.free
        plan._parts = (nargs, kept, tuple(ret_ids), consts, base, end, foreign)
        plan.fn = _FirstRun(plan)
        return plan

    #: A block is walked step by step for its first runs and compiled to Python after that many: compiling costs
    #: about as much as walking the block 100 to 150 times, and most blocks run once (the measurements behind the
    #: number: docs/interpreter.md, "Steps the walk loop dispatches").
    COMPILE_AFTER = 100

    def _walker(self):
        """The block as a step-by-step walk (the same steps and frees as :meth:`_compile`'s code), which
        replaces itself by the compiled block (``self.fn``) after :attr:`COMPILE_AFTER` runs.

        The values of the block live in a list of slots (slot ``id - base``: arguments first, then every value
        defined here; plan-time constants pre-filled; then the values of enclosing blocks its ops read, copied
        from the frame dict ``env`` when the block starts: SSA values, they cannot change while it runs). One
        backward pass over the steps finds each value's last use (where its slot is freed), the values nested
        regions read (kept in ``env`` from their definition to their last use) and each step's form (see
        :func:`_step`)."""
        nargs, raw, ret_ids, consts, base, end, foreign = self._parts
        def local(v):  # a value of this block
            return base <= v < end and v not in foreign

        slot_of: dict[int, int] = {}  # the slots of the values of enclosing blocks that ops read, after the others
        for step in raw:
            for v in step[2]:
                if (v < base or v >= end or v in foreign) and v not in slot_of:
                    slot_of[v] = end - base + len(slot_of)
        template: list = [None] * (end - base + len(slot_of))
        for v, c in consts.items():
            template[v - base] = c
        imports = tuple([(sl, v) for v, sl in slot_of.items()])
        captured: set[int] = set()
        for step in raw:
            if step[4]:
                captured |= step[4]
        if captured:
            captured = {v for v in captured if local(v)}
        later = set(ret_ids)  # values read after the step at hand
        steps: list = [None] * len(raw)
        for k in range(len(raw) - 1, -1, -1):
            impl, op, operands, results, inner = raw[k]
            drops = [r - base for r in results if r not in later]  # (results nothing reads: dropped at once)
            env_drops = ()
            for v in (*operands, *inner) if inner else operands:  # (inner: values the op's regions read)
                if v not in later:  # the value's last use: its slot freed after this step (and env's entry)
                    later.add(v)
                    if v not in consts:
                        if base <= v < end and v not in foreign:
                            drops.append(v - base)
                        elif v in slot_of:
                            drops.append(slot_of[v])
                    if v in captured:
                        env_drops += (v,)
            if slot_of:
                srcs = tuple([v - base if base <= v < end and v not in foreign else slot_of[v] for v in operands])
            else:
                srcs = tuple([v - base for v in operands])
            exports = tuple([(r - base, r) for r in results if r in captured]) if captured else ()
            steps[k] = _step(impl, op, srcs, tuple([r - base for r in results]), exports, tuple(drops), env_drops)
        cap_consts = tuple([(v - base, v) for v in consts if v in captured]) if captured else ()
        args = range(base, base + nargs)
        arg_exports = tuple([(a - base, a) for a in args if a in captured and a in later])
        dead_args = tuple([a - base for a in args if a not in later])
        prologue = bool(cap_consts or arg_exports or dead_args or imports)
        # (captured values the terminator returns: their last use, after every step)
        ret_env_drops = tuple([v for v in dict.fromkeys(ret_ids) if v in captured]) if captured else ()
        if all(map(local, ret_ids)):
            ret_slots = [v - base for v in ret_ids]
            if len(ret_slots) == 1:
                r0 = ret_slots[0]
                results_of = lambda regs, env: [regs[r0]]  # noqa: E731
            elif ret_slots:
                pick = operator.itemgetter(*ret_slots)
                results_of = lambda regs, env: list(pick(regs))  # noqa: E731
            else:
                results_of = lambda regs, env: []  # noqa: E731
        else:
            ret = tuple([(v - base, True) if local(v) else (v, False) for v in ret_ids])

            def results_of(regs, env):
                try:
                    return [regs[i] if h else env[i] for i, h in ret]
                except KeyError:
                    raise InterpreterError("a region uses a value that has no runtime value", None) from None

        self._walk_steps = steps  # (what a loop compiled with another block calls: _compile_loop)
        if len(steps) == 1 and steps[0][0] and not (cap_consts or arg_exports or imports) and len(ret_ids) == 1 \
                and local(ret_ids[0]) and ret_ids[0] - base == steps[0][4]:  # (dead arguments: no slots to free)
            return _one_step_walker(steps[0], template, nargs)  # (e.g. a loop condition: one compare)
        # kernels that specialize on the operands of their first call (registry): the block's first run asks them
        specializers = [raw[k][0].specialize if step[0] else None for k, step in enumerate(steps)]
        specializing = any(specializers)

        runs = 0
        compile_after = self.COMPILE_AFTER
        compiled = None
        plan_ref = weakref.ref(self)  # (not self: a plan -> walk -> plan cycle would outlive the run, and with it
        # the ops the steps hold and so the whole module, until the cycle collector next runs)

        def walk(env, interp, values):
            nonlocal runs, compiled
            runs += 1
            if runs > compile_after:  # (a caller may still hold this walker: it runs the compiled block)
                if compiled is None:
                    plan = plan_ref()
                    compiled = _Plan._compile(*self_parts, kernels=_kernels_of(steps))
                    if plan is not None:
                        plan.fn = compiled
                return compiled(env, interp, values)
            regs = template.copy()
            regs[:nargs] = values
            if prologue:
                for sl, v in cap_consts:
                    env[v] = regs[sl]
                for sl, v in arg_exports:
                    env[v] = regs[sl]
                for sl in dead_args:
                    regs[sl] = None
                try:
                    for sl, v in imports:
                        regs[sl] = env[v]
                except KeyError as err:  # (located at the first op that reads the value)
                    reraise(err, next(reader for _, reader, operands, _, _ in raw if err.args[0] in operands))
            kind = 0
            try:
                if runs == 1 and specializing:  # (the first run: see _first_walk_loop)
                    _first_walk_loop(steps, specializers, regs, env, interp)
                else:
                    for kind, fn, i0, i1, o0, drops, op in steps:  # (see _step)
                        if kind == 2:
                            regs[o0] = fn(regs[i0], regs[i1])
                        elif kind:
                            regs[o0] = fn(regs[i0])
                        else:
                            fn(regs, env, interp)
                        for d in drops:
                            regs[d] = None
            except BaseException as err:
                if not kind:  # (a general step raised its error located already)
                    raise
                reraise(err, op)
            out = results_of(regs, env)
            for v in ret_env_drops:
                env.pop(v, None)
            return out

        self_parts = self._parts
        return walk

    @staticmethod
    def _fold(impl, op, operands, results, consts, interp) -> bool:
        """Run ``op`` now when every operand is a plan-time constant (see :data:`FOLDABLE_OPS`), recording its
        results in ``consts``; False when it must run at run time instead."""
        try:  # under the caller's np.errstate(all="ignore") (Interpreter.call)
            outs = impl.run(op, [consts[o] for o in operands], interp)
        except Exception:
            return False
        if len(outs) != len(results) or not all(isinstance(o, np.ndarray) for o in outs):
            return False
        if sum(o.nbytes for o in outs) > FOLD_LIMIT_BYTES and op.operation.name != "stablehlo.constant":
            return False
        for r, o in zip(results, outs):
            if o.flags.writeable:
                o.flags.writeable = False  # shared by every execution (values are immutable)
            consts[r] = o
        return True

    @staticmethod
    def _compile(nargs, raw, ret_ids, consts, base, end, foreign, kernels=None):
        """The block as the code of one Python function ``_block(env, interp, args) -> list`` (what the walker
        does, step for step). ``kernels``: for each step, the function the walker calls for it now (a kernel
        specialized on its first run), or None: the ``kernel`` of the step's ``OpImpl``."""
        lines = ["def _block(env, interp, args):", "    _s = -1", "    try:"]
        ops: list = []
        ns: dict[str, Any] = {}

        def terminator(emit, pad, refs):
            emit(pad + f"_s = {len(raw)}")
            emit(pad + "_r = [" + ", ".join(refs) + "]")

        _emit_block(lines.append, ns, ops, (nargs, raw, ret_ids, consts, base, end, foreign), kernels, "        ",
                    "args", terminator)
        lines.append("        return _r")
        return _code_of(lines, ns, ops, "_block", f"<plan of {len(raw)} ops>")

    @staticmethod
    def _compile_loop(cond: "_Plan", body: "_Plan", limit_error: Callable[[int], BaseException]):
        """A ``while`` loop of the blocks ``cond`` and ``body`` (plans whose walkers are built) as the code of one
        Python function ``_loop(interp, values, limit) -> list`` (in the frame of ``interp``'s current scope, where
        the walkers of the blocks read and write): from the loop-carried ``values``, run
        ``cond`` and, while its result is true, ``body``, whose results carry to the next iteration (StableHLO
        spec, ``while``); return the carried values. Each block's steps are its walker's (kernels specialized on
        their first run), with its frees, exports to ``env`` and located errors; the loop adds no call per
        iteration. After ``limit`` runs of ``body`` (None: no limit), a true condition raises
        ``limit_error(limit)``."""
        n = cond.nargs
        carried = [f"L{i}" for i in range(n)]
        lines = ["def _loop(interp, values, limit):", "    env = interp.frame()", "    _s = -1", "    try:",
                 "        (" + "".join(f"{c}, " for c in carried) + ") = values", "        _n = 0",
                 "        while True:"]
        ops: list = []
        ns: dict[str, Any] = {"_LoopLimit": limit_error}
        pad = "            "

        def cond_result(emit, pad, refs):
            emit(pad + "_s = -1")
            emit(pad + f"_c = {refs[0]}")

        def body_results(emit, pad, refs):
            emit(pad + "_s = -1")
            emit(pad + "(" + "".join(f"{c}, " for c in carried) + ") = (" + "".join(f"{r}, " for r in refs) + ")")

        loop: list[str] = []
        outer: dict[int, int] = {}  # values of enclosing blocks the loop reads: read once, before it starts
        _emit_block(loop.append, ns, ops, cond._parts, _kernels_of(cond._walk_steps), pad, carried, cond_result,
                    outer)
        loop += [pad + "if not _c:", pad + "    break", pad + "if _n == limit:", pad + "    raise _LoopLimit(limit)"]
        _emit_block(loop.append, ns, ops, body._parts, _kernels_of(body._walk_steps), pad, carried, body_results,
                    outer)
        for v, s in outer.items():  # (SSA values: they cannot change while the loop runs; a missing one is
            lines.insert(-1, f"        _s = {s}")  # reported at the first op that reads it, as the walker does)
            lines.insert(-1, f"        E{v} = env[{v}]")
        lines.insert(-1, "        _s = -1")
        lines += loop + [pad + "_n += 1", "        return [" + ", ".join(carried) + "]"]
        return _code_of(lines, ns, ops, "_loop", f"<loop of {len(ops)} ops>")


def _kernels_of(steps: list) -> list:
    """For each step of a walker (:func:`_step`), the function it calls now (a kernel specialized on its first run),
    or None for a step that calls its adapter: :meth:`_Plan._compile`'s ``kernels``."""
    return [s[1] if s[0] else None for s in steps]


def _emit_block(emit, ns: dict, ops: list, parts: tuple, kernels, pad: str, args_from, terminator,
                outer: dict | None = None) -> None:
    """Emit, at indentation ``pad``, the statements of one block of generated code (:meth:`_Plan._compile`,
    :meth:`_Plan._compile_loop`): what the walker does, step for step. ``parts``: the plan's
    ``(nargs, raw, ret_ids, consts, base, end, foreign)``; ``kernels``: as :meth:`_Plan._compile`'s. Values are
    locals ``v<id>``, plan-time constants globals ``K<id>``, values of enclosing blocks ``env[<id>]``; each value
    is deleted after its last use. ``args_from``: the name of the sequence of the block's arguments (unpacked
    whole), or one name per argument (only the arguments the block reads are bound). The ops of the steps are
    appended to ``ops`` (``_s``, the number of the running step, indexes it: errors are located at that op);
    their adapters and ops go in the globals ``ns``. ``terminator(emit, pad, refs)`` emits what reads the
    terminator's operands (the expressions ``refs``), after which the values whose last use it is are
    deleted. ``outer``: when given, a value of an enclosing block is read as the local ``E<id>`` instead of from
    ``env``, and recorded in ``outer`` (id -> the first step that reads it) for the caller to read once."""
    nargs, raw, ret_ids, consts, base, end, foreign = parts
    args = list(range(base, base + nargs))
    defined = set(range(base, end)) - foreign
    last: dict[int, int] = {}  # the step of each value's last use (len(raw): the terminator)
    captured: set[int] = set()
    for k, (_, _, operands, _, inner) in enumerate(raw):
        for v in operands:
            last[v] = k
        for v in inner:
            last[v] = k
        captured |= inner
    for v in ret_ids:
        last[v] = len(raw)
    captured &= defined
    step0 = len(ops)
    reader = [-1]  # the step being emitted (-1: the terminator)

    def ref(v: int) -> str:
        if v in consts:
            return f"K{v}"
        if v in defined:
            return f"v{v}"
        if outer is not None:
            outer.setdefault(v, reader[0])
            return f"E{v}"
        return f"env[{v}]"  # defined by an enclosing block

    def drop(vs) -> None:
        names = [f"v{v}" for v in vs if v not in consts]
        if names:
            emit(pad + "del " + ", ".join(names))
        for v in vs:
            if v in captured:
                emit(pad + f"del env[{v}]")

    for v, c in consts.items():
        ns[f"K{v}"] = c
        if v in captured:
            emit(pad + f"env[{v}] = K{v}")
    if isinstance(args_from, str):
        if args:
            emit(pad + "(" + "".join(f"v{a}, " for a in args) + f") = {args_from}")
        bound = args
    else:
        bound = [a for a in args if a in last]
        for a in bound:
            emit(pad + f"v{a} = {args_from[a - base]}")
    for a in bound:
        if a in captured:
            emit(pad + f"env[{a}] = v{a}")
    drop([a for a in bound if a not in last])
    ends: dict[int, list] = {}
    for v, k in last.items():
        if v in defined:
            ends.setdefault(k, []).append(v)
    for k, (impl, op, operands, results, _) in enumerate(raw):
        s = reader[0] = step0 + k
        ops.append(op)
        ns[f"O{s}"] = op
        emit(pad + f"_s = {s}")
        kernel = impl.kernel
        if kernel is not None and kernels is not None and kernels[k] is not None:
            kernel = kernels[k]
        if kernel is not None and len(results) == 1:  # (see registry: a one-result op's direct form)
            ns[f"A{s}"] = kernel
            emit(pad + f"v{results[0]} = A{s}(" + ", ".join(ref(v) for v in operands) + ")")
        else:
            ns[f"A{s}"] = impl.run
            emit(pad + f"_o = A{s}(O{s}, [" + ", ".join(ref(v) for v in operands) + "], interp)")
            emit(pad + f"if _len(_o) != {len(results)}: raise _ResultCountError(_len(_o))")
            if results:
                emit(pad + "(" + "".join(f"v{r}, " for r in results) + ") = _o")
        if results:
            for r in results:
                if r in captured:
                    emit(pad + f"env[{r}] = v{r}")
        drop([r for r in results if r not in last] + sorted(ends.get(k, [])))
    reader[0] = -1
    terminator(emit, pad, [ref(v) for v in ret_ids])
    drop(sorted(ends.get(len(raw), [])))


def _code_of(lines: list, ns: dict, ops: list, name: str, filename: str):
    """The function ``name`` of the generated code ``lines`` (a ``try:`` body, from :func:`_emit_block`), with
    the ``except`` clause that locates an error at the op of the step ``_s`` (``ops[_s]``; none when ``_s`` is
    -1 or past the last step) and the globals ``ns``."""
    lines.append("    except BaseException as _err:")
    lines.append("        _e = _fail(_err, _s)")
    lines.append("        raise _e from _e.__cause__")

    def fail(err: BaseException, s: int) -> BaseException:
        if s < 0 or s >= len(ops):
            return err if not isinstance(err, KeyError) else InterpreterError(
                "a region uses a value that has no runtime value", None)
        return located(err, ops[s])

    ns.update(_ResultCountError=ResultCountError, _len=len, _fail=fail)
    exec(compile("\n".join(lines), filename, "exec"), ns)  # noqa: S102 - our own code
    return ns[name]


def _elide_scalar_broadcasts(raw: list, ret_ids: Sequence[int]) -> list:
    """``raw`` (a block's steps) without the ``broadcast_in_dim`` steps of a 0-d value (their ``OpImpl`` carries
    ``scalar_broadcast``, the result's shape) whose every reader is a two-operand elementwise step whose
    ``OpImpl`` has ``broadcasting``: each reader reads the 0-d value and runs the kernel that
    broadcasts it (the same elementwise operation: the same bits). A broadcast that the block returns, that a
    nested region reads, or whose reader reads it twice or has another elided operand stays. ``raw`` itself
    when nothing changes."""
    candidates = [k for k, step in enumerate(raw) if step[0].scalar_broadcast is not None]
    if not candidates:
        return raw
    raw = list(raw)
    taken: set[int] = set()  # readers with an elided operand already
    removed: set[int] = set()
    for k in candidates:
        impl, _, operands, results, _ = raw[k]
        if len(operands) != 1 or len(results) != 1 or results[0] in ret_ids:
            continue
        (s,), (r,) = operands, results
        ks = [j for j in range(k + 1, len(raw)) if r in raw[j][2]]  # (SSA: its readers come after it)
        if not ks or any(r in step[4] for step in raw) or any(  # (a nested region reads it: it stays)
                j in taken or len(raw[j][2]) != 2 or raw[j][2].count(r) != 1
                or raw[j][0].broadcasting is None for j in ks):
            continue
        for j in ks:
            a, op, ops, res, inner = raw[j]
            raw[j] = (a.broadcasting(impl.scalar_broadcast), op, tuple([s if v == r else v for v in ops]), res, inner)
            taken.add(j)
        removed.add(k)
    return [step for k, step in enumerate(raw) if k not in removed] if removed else raw


class _FirstRun:
    """``plan.fn`` until the block first runs: builds the walker (:meth:`_Plan._walker`), which replaces it.
    (It holds the plan weakly: a plan -> fn -> plan cycle would keep the module alive until the cycle
    collector ran.)"""

    __slots__ = ("ref",)

    def __init__(self, plan: _Plan):
        self.ref = weakref.ref(plan)

    def __call__(self, env, interp, values):
        plan = self.ref()
        walk = plan.fn = plan._walker()
        return walk(env, interp, values)


def _one_step_walker(step: tuple, template: list, nargs: int):
    """The walker of a block of one kernel step (:func:`_step`, kind 1 or 2) that returns the step's result:
    the kernel called directly on its operands, each a block argument (slot below ``nargs``) or a plan-time
    constant (in a block of one step and no values of enclosing blocks, there is nothing else), with no list
    of slots (compiled Python would be no faster: it is never compiled)."""
    kind, fn, i0, i1, _, _, op = step
    a0, c0 = i0 < nargs, template[i0]
    if kind == 1:
        def walk(env, interp, values):
            try:
                return [fn(values[i0] if a0 else c0)]
            except BaseException as err:
                reraise(err, op)
        return walk
    a1, c1 = i1 < nargs, template[i1]

    def walk(env, interp, values):  # (e.g. a loop condition: compare LT, %i, %constant)
        try:
            return [fn(values[i0] if a0 else c0, values[i1] if a1 else c1)]
        except BaseException as err:
            reraise(err, op)
    return walk


def _first_walk_loop(steps: list, specializers: list, regs: list, env: dict, interp) -> None:
    """The walk loop of a block's first run (:meth:`_Plan._walker`): the steps of :func:`_step`, where each kernel
    step whose op has ``specialize`` (``specializers[k]``, the :class:`~hlokit.interpreter.registry.OpImpl`'s
    field) first asks it for ``specialize(*operands)`` on the operands of this call and puts the function it gets in its place in ``steps``: an op's operand types are static, so
    every later call has operands of the same element types and ranks. The kernel itself computes this run's
    result. Errors are located at the step's op, as in the walk loop. (Threads that share the walker may both
    specialize a step: either result is the same function.)"""
    kind = 0
    try:
        for k, (kind, fn, i0, i1, o0, drops, op) in enumerate(steps):
            if kind:
                operands = (regs[i0], regs[i1]) if kind == 2 else (regs[i0],)
                specialize = specializers[k]
                if specialize is not None:
                    fast = specialize(*operands)
                    if fast is not None:
                        steps[k] = (kind, fast, i0, i1, o0, drops, op)
                regs[o0] = fn(*operands)
                operands = None  # (a dead operand is freed by its drop below, as in the walk loop)
            else:
                fn(regs, env, interp)
            for d in drops:
                regs[d] = None
    except BaseException as err:
        if not kind:  # (a general step raised its error located already)
            raise
        reraise(err, op)


def _number(ids: dict, value: ir.Value, foreign: set) -> int:
    """The id of ``value``; for an operand that has none (see :class:`_Plan`), a new one, recorded in
    ``foreign``."""
    i = ids.get(value)
    if i is None:
        i = ids[value] = len(ids)
        foreign.add(i)
    return i


def _step(impl, op, srcs, outs, exports, drops, env_drops) -> tuple:
    """One step of :meth:`_Plan._walker` as ``(kind, fn, i0, i1, out, drops, op)``, which the walk loop
    dispatches on ``kind``:

    * ``2`` / ``1``: ``regs[out] = fn(regs[i0], regs[i1])`` / ``fn(regs[i0])``, then the slots ``drops`` are
      freed: a one-result op whose :class:`~hlokit.interpreter.registry.OpImpl` has a ``kernel`` and whose result no nested region
      reads (the two shapes of elementwise ops in loop bodies), called by the walk loop itself: no frame of
      its own, no operand list, no result-count check. The walk loop locates its errors at ``op``.
    * ``0``: ``fn(regs, env, interp)`` does the whole step: calls the op's adapter on the operand slots
      ``srcs``, checks the number of results, stores them in the slots ``outs`` (and in ``env`` for
      ``exports``), frees the slots ``drops`` (and the ``env`` entries ``env_drops``); it raises its errors
      located at ``op`` (:func:`~hlokit.interpreter.errors.located`).
    """
    kernel = impl.kernel
    if kernel is not None and not exports and not env_drops and len(outs) == 1 and 0 < len(srcs) < 3:
        return (len(srcs), kernel, srcs[0], srcs[1] if len(srcs) == 2 else None, outs[0], drops, op)
    return (0, _general_step(impl.run, op, srcs, outs, exports, drops, env_drops), None, None, None, (), op)


def _general_step(adapter, op, srcs, outs, exports, drops, env_drops):
    """The function of a kind-``0`` step of :func:`_step` (a function of its own: the kernel steps, most of
    them, do not pay for this closure's cells)."""
    n = len(outs)

    def step(regs, env, interp):
        try:
            got = adapter(op, [regs[i] for i in srcs], interp)
            if len(got) != n:
                raise ResultCountError(len(got))
        except BaseException as err:
            reraise(err, op)
        for sl, x in zip(outs, got):
            regs[sl] = x
        for sl, v in exports:
            env[v] = regs[sl]
        for sl in drops:
            regs[sl] = None
        for v in env_drops:
            env.pop(v, None)

    return step



def single_block(region: ir.Region) -> ir.Block:
    """The one block of ``region``; :class:`InterpreterError` at the region's op otherwise."""
    blocks = region.blocks
    if len(blocks) != 1:
        raise InterpreterError("the interpreter supports regions of exactly one block", region.owner.location)
    return blocks[0]


class CompiledExecutor:
    """The interpreter's default executor (see the module doc): the plans of one module's blocks, shared by an
    interpreter and its forks (the processes of a grid). Each method takes the running interpreter ``interp``,
    whose ``_frames`` hold, per function call, the values nested regions read (by value id)."""

    #: the name ``Interpreter(executor=...)`` gives it
    name = "compiled"

    def __init__(self):
        self.plans: dict[Any, _Plan] = {}
        #: SSA value -> its id (see :class:`_Plan`)
        self.ids: dict[ir.Value, int] = {}
        self.lock = threading.RLock()

    def call(self, interp, region: ir.Region, args: Sequence[Value]) -> list[Value]:
        """Run a function's body ``region`` on ``args`` in a new frame of ``interp``."""
        plan = self.plan_of_block(single_block(region), interp)
        frames = interp.frames
        frames.append({})
        try:
            return self._run(plan, args, region, frames[-1], interp)
        finally:
            frames.pop()

    def region_function(self, interp, region: ir.Region) -> Callable[..., list[Value]]:
        """See :meth:`Interpreter.region_function <hlokit.interpreter.evaluator.Interpreter.region_function>`."""
        plan = self.plan_of_block(single_block(region), interp)
        env = interp.frame()
        nargs = plan.nargs

        def run(*args):
            if len(args) != nargs:
                raise InterpreterError(f"region expects {nargs} arguments, got {len(args)}", region.owner.location)
            return plan.fn(env, interp, args)

        return run

    def loop_functions(self, interp, regions: Sequence[ir.Region], nargs: int) -> list:
        """See :meth:`Interpreter.loop_functions <hlokit.interpreter.evaluator.Interpreter.loop_functions>`."""
        env = interp.frame()
        fns = []
        for region in regions:
            plan = self.plan_of_block(single_block(region), interp)
            if plan.nargs != nargs:
                raise InterpreterError(f"region expects {plan.nargs} arguments, got {nargs}", region.owner.location)
            fns.append(functools.partial(plan.runner(), env, interp))  # (a C-level call per iteration)
        return fns

    @property
    def compile_after(self) -> int:
        """:attr:`_Plan.COMPILE_AFTER` (read when asked: tests change it)."""
        return _Plan.COMPILE_AFTER

    def compiled_loop(self, interp, cond: ir.Region, body: ir.Region, limit_error) -> Callable[..., list[Value]]:
        """See :meth:`Interpreter.compiled_loop <hlokit.interpreter.evaluator.Interpreter.compiled_loop>`."""
        with self.lock:
            return _Plan._compile_loop(self.plan_of_block(single_block(cond), interp),
                                       self.plan_of_block(single_block(body), interp), limit_error)

    def eval_region_values(self, interp, region: ir.Region, args: Sequence[Value],
                           values: Sequence[ir.Value]) -> list[Value]:
        """See :meth:`Interpreter.eval_region_values <hlokit.interpreter.evaluator.Interpreter.eval_region_values>`."""
        block = single_block(region)
        key = (block, tuple(values))
        plan = self.plans.get(key)
        if plan is None:
            with self.lock:
                base = self.plan_of_block(block, interp)
                ids = self.ids
                plan = self.plans[key] = base.with_returns([ids[v] for v in values])
        return self._run(plan, args, region, interp.frame(), interp)

    def plan_of_block(self, block: ir.Block, interp) -> _Plan:
        """The plan of ``block``, made (with those of the regions nested in it) the first time it is asked for."""
        plan = self.plans.get(block)
        if plan is None:
            with self.lock:
                plan = self.plans.get(block)
                if plan is None:
                    plan = self.plans[block] = _Plan(block, self, interp)
        return plan

    @staticmethod
    def _run(plan: _Plan, args: Sequence[Value], region: ir.Region, env: dict, interp) -> list[Value]:
        if len(args) != plan.nargs:
            raise InterpreterError(f"region expects {plan.nargs} arguments, got {len(args)}", region.owner.location)
        return plan.fn(env, interp, args)
