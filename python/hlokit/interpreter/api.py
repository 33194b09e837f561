"""``hlokit.interpret``: run a StableHLO program on numpy arrays with the reference interpreter.

Loading (:func:`load_program`): MLIR text, a path or an ``ir.Module``. Text goes through
:func:`hlokit.dialects.check_syntax.to_generic` (the ``check`` dialect's custom syntax) and is parsed with
unregistered ops allowed, but only ``check.*`` ops may be unregistered. Ops the interpreter does not run
itself (CHLO, LAPACK custom calls, deprecated ops, shape computations, batch norm) are legalized first with
hlokit's own passes (:func:`prepare_module`; never jaxlib's).
"""

from __future__ import annotations

import functools
import os
import re
import threading
from typing import Callable, Sequence, TextIO

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import passes
from hlokit.core import only_comments, parse_module_op, read_source
from hlokit.diagnostics import Diagnostic, HlokitError, ParseError, location_position
from hlokit.passes.stablehlo_legalize_lapack_custom_calls import lapack_routine
from hlokit.dialects.check_syntax import OPS as CHECK_OPS
from hlokit.dialects.check_syntax import to_generic
from hlokit.interpreter.collectives import NEWER_OPS, rewrite_newer_ops
from hlokit.interpreter.evaluator import Interpreter, InterpreterError, NeedsLegalization
from hlokit.interpreter.process import DEFAULT_TIMEOUT, ProcessGrid
from hlokit.interpreter.values import TOKEN, Token, Value, type_name

__all__ = ["interpret", "run_parallel", "load_program", "prepare_module", "entry_function", "as_value"]


def load_program(
    program, *, context: ir.Context | None = None, source_name: str | None = None, line_offset: int = 0,
    allow_unregistered: bool = False,
) -> ir.Module:
    """Parse ``program`` (text, bytes, path or ``ir.Module``) for the interpreter (see module doc)."""
    if isinstance(program, ir.Module):
        return program
    name = source_name or "<input>"
    if isinstance(program, os.PathLike) or (
        isinstance(program, str) and "\n" not in program and os.path.isfile(program)
    ):
        name = source_name or os.fspath(program)
        program = read_source(program)
    if isinstance(program, (bytes, bytearray)) and bytes(program[:4]) != b"ML\xefR":
        try:
            program = bytes(program).decode("utf-8")
        except UnicodeDecodeError:
            raise HlokitError("input is neither UTF-8 text nor MLIR bytecode", file=name) from None
    if context is None:
        context = hlokit.make_context()
    return _parse_program(program, context, name, line_offset, allow_unregistered)


def _parse_program(program, context: ir.Context, name: str, line_offset: int, allow_unregistered: bool) -> ir.Module:
    if isinstance(program, str):
        if only_comments(program):  # an empty module
            with context:
                return ir.Module.create(loc=ir.Location.file(name, 1, 1))
        problems: list = []
        program = rewrite_newer_ops(to_generic(program, problems))
        if problems:
            raise ParseError([Diagnostic("error", msg, name, line + line_offset, col) for line, col, msg in problems])
    saved = context.allow_unregistered_dialects
    context.allow_unregistered_dialects = True
    try:
        module = hlokit.parse(program, context=context, source_name=name, line_offset=line_offset)
    finally:
        context.allow_unregistered_dialects = saved
    if not allow_unregistered:
        check_registered(module, name)
    return module


def check_registered(module: ir.Module, name: str = "-") -> None:
    """Raise a located error for an unregistered op other than the ``check`` dialect's."""
    _survey(module, name, check=True)


def _survey(module: ir.Module, name: str, *, check: bool) -> list[str]:
    """One walk of ``module``: with ``check``, :func:`check_registered`'s test; returns
    :func:`legalizations_needed`'s flags. Each op name is examined once."""
    seen: set[str] = set()
    needed: set[str] = set()
    bad: list[Diagnostic] = []
    is_registered = module.context.is_registered_operation

    def visit(op):
        opname = op.name
        first = opname not in seen
        if not first and opname != "stablehlo.custom_call":  # (the LAPACK test reads each call's target)
            return ir.WalkResult.ADVANCE
        seen.add(opname)
        if first and check and not bad and not is_registered(opname):
            if not (opname.startswith("check.") and opname[len("check."):] in CHECK_OPS) and opname not in NEWER_OPS:
                file, line, col = location_position(op.location)
                bad.append(
                    Diagnostic(
                        "error",
                        f"'{opname}' op is unregistered (a typo, or a dialect hlokit does not know; "
                        "-allow-unregistered-dialect accepts it)",
                        file or name, line, col,
                    )
                )
        if first:  # (the name settles every test but the LAPACK one, which reads each call's target)
            needed.update(_flags_of_name(opname))
        if _LAPACK_FLAG not in needed and _is_lapack_call(opname, op):
            needed.add(_LAPACK_FLAG)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if bad:
        raise HlokitError(bad)
    return [flag for flag, _ in LEGALIZATIONS if flag in needed]


#: Ops the interpreter does not run itself but through one of hlokit's passes, in pipeline order:
#: ``(pass flag, test on an op)``. Every other op is interpreted directly (``dot`` and ``create_token``,
#: deprecated but still in the op table, included).
_LAPACK_FLAG = "stablehlo-legalize-lapack-custom-calls"
#: The legalizations after the LAPACK one, each with its test on an op's name (what :func:`_survey` reads once
#: per name).
_LEGALIZE_BY_NAME: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("chlo-legalize-to-stablehlo", lambda name: name.startswith("chlo.")),
    ("stablehlo-legalize-deprecated-ops", lambda name: name in (
        "stablehlo.broadcast", "stablehlo.einsum", "stablehlo.unary_einsum", "stablehlo.torch_index_select",
        "stablehlo.cross-replica-sum")),
    ("shape-legalize-to-stablehlo", lambda name: name.startswith(("shape.", "tensor.", "arith."))),
    ("stablehlo-expand-batch-norm", lambda name: name.startswith("stablehlo.batch_norm_")),
)
LEGALIZATIONS: tuple[tuple[str, Callable[[ir.Operation], bool]], ...] = (
    (_LAPACK_FLAG, lambda op: _is_lapack_call(op.name, op)),
    *((flag, lambda op, test=test: test(op.name)) for flag, test in _LEGALIZE_BY_NAME),
)


def _is_lapack_call(name: str, op: ir.Operation) -> bool:
    """Whether ``op`` (named ``name``) is a custom call of jaxlib's LAPACK kernels (``_LAPACK_FLAG`` rewrites it)."""
    return name == "stablehlo.custom_call" and lapack_routine(op) is not None


@functools.lru_cache(maxsize=1024)
def _flags_of_name(name: str) -> tuple[str, ...]:
    """The flags of :data:`_LEGALIZE_BY_NAME` whose test accepts an op named ``name``."""
    return tuple(flag for flag, test in _LEGALIZE_BY_NAME if test(name))


#: For each flag of :data:`LEGALIZATIONS`, strings one of which the MLIR text of every op its test accepts
#: contains (an op's name is always spelled out in text, in custom and in generic form; a LAPACK custom
#: call names its ``lapack_*`` target): a program text with none of them needs no legalization. The
#: deprecated ``broadcast`` is found by counting (``broadcast_in_dim`` contains its name).
LEGALIZATION_TEXT: dict[str, tuple[str, ...]] = {
    "stablehlo-legalize-lapack-custom-calls": ("lapack_",),
    "chlo-legalize-to-stablehlo": ("chlo.",),
    "stablehlo-legalize-deprecated-ops": (
        "stablehlo.einsum", "stablehlo.unary_einsum", "stablehlo.torch_index_select", "stablehlo.cross-replica-sum"),
    "shape-legalize-to-stablehlo": ("shape.", "tensor.", "arith."),
    "stablehlo-expand-batch-norm": ("stablehlo.batch_norm_",),
}


def _generic_op_names(text: str) -> set[str] | None:
    """The op names written in generic form (``"dialect.op"(``, the only form in which an op the context does
    not register parses) in ``text``; None when the text has a form this quick scan does not read."""
    found = _QUOTE_PAREN.search(text)
    if found is None:  # (no generic-form op at all: the common case, one scan)
        return set()
    if found.end() - found.start() > 2 or _QUOTE_SPACE_PAREN.search(text, found.end()):
        return None
    names = set()
    i = text.find('"(')
    while i >= 0:
        j = text.rfind('"', 0, i)
        names.add(text[j + 1 : i])
        i = text.find('"(', i + 2)
    return names


_QUOTE_PAREN = re.compile(r'"\s*\(')
_QUOTE_SPACE_PAREN = re.compile(r'"\s+\(')
#: One scan for the markers of :data:`LEGALIZATION_TEXT` that name ``stablehlo.`` ops, and for the deprecated
#: ``stablehlo.broadcast`` (not followed by ``_in_dim``); the others are plain substring tests.
_STABLEHLO_MARKERS = re.compile(
    r"stablehlo\.(?:" + "|".join(re.escape(m[len("stablehlo."):]) for markers in LEGALIZATION_TEXT.values()
                                  for m in markers if m.startswith("stablehlo.")) + r"|broadcast\b(?!_))")
_OTHER_MARKERS = tuple(m for markers in LEGALIZATION_TEXT.values() for m in markers if not m.startswith("stablehlo."))


def _survey_from_text(text: str, context: ir.Context) -> list[str] | None:
    """What :func:`_survey` would find, read off the program's text when the text settles it: ``[]`` when no
    op needs a legalization (no string of :data:`LEGALIZATION_TEXT` occurs) and every generic-form op name is
    registered (so the registration check cannot fail); None when the module must be walked."""
    if "check." in text:
        return None
    for marker in _OTHER_MARKERS:
        if marker in text:
            return None
    if _STABLEHLO_MARKERS.search(text):
        return None
    names = _generic_op_names(text)
    if names is None:
        return None
    is_registered = context.is_registered_operation
    for name in names:
        if not is_registered(name):
            return None
    return []


def legalizations_needed(module: ir.Module) -> list[str]:
    """The flags of :data:`LEGALIZATIONS` whose ops ``module`` carries, in pipeline order."""
    return _survey(module, "-", check=False)


def prepare_module(module: ir.Module, name: str = "-", *, needed: Sequence[str] | None = None) -> ir.Module:
    """Bring ``module`` to the ops the interpreter runs: hlokit's own passes (never jaxlib's C++ ones)
    legalize jaxlib's ``lapack_*`` custom calls, CHLO, the deprecated ops the op table lacks, shape-dialect
    and index computations, and expand batch norm (:data:`LEGALIZATIONS`), each only when present
    (``needed``: the flags of :func:`legalizations_needed`, when the caller has them already).
    Raises :class:`hlokit.diagnostics.PassError` (located) when a pass refuses an op."""
    if needed is None:
        needed = legalizations_needed(module)
    if not needed:
        return module
    ctx = module.context
    saved = ctx.allow_unregistered_dialects
    ctx.allow_unregistered_dialects = True  # the check ops (only they: see check_registered) verify
    try:
        passes.run_pipeline(module, f"builtin.module({','.join(needed)})", source_name=name)
    finally:
        ctx.allow_unregistered_dialects = saved
    return module


#: Programs of at most this much text are parsed in a context kept for the thread (:func:`_shared_context`);
#: a bigger one gets a context of its own (whose creation, ~1-2 ms, is small next to its parse).
SHARED_CONTEXT_MAX_TEXT = 1 << 20
#: A shared context is replaced after this much program text: what its programs interned (types, attributes,
#: constants) lives as long as the context, so a long-running caller's memory stays bounded.
SHARED_CONTEXT_BUDGET = 16 << 20
_SHARED = threading.local()


def _shared_context(nbytes: int) -> ir.Context:
    """The calling thread's context for small programs (see :data:`SHARED_CONTEXT_MAX_TEXT`): making a
    context (loading a dozen dialects) costs more than parsing and running a small program."""
    ctx = getattr(_SHARED, "context", None)
    used = getattr(_SHARED, "used", 0)
    if ctx is None or used + nbytes > SHARED_CONTEXT_BUDGET:
        ctx = _SHARED.context = hlokit.make_context()
        used = 0
    _SHARED.used = used + nbytes
    return ctx


def _needs_legalization(name: str, op: ir.Operation) -> bool:
    """Whether one of :data:`LEGALIZATIONS` must rewrite ``op`` (named ``name``) first."""
    return bool(_flags_of_name(name)) or _is_lapack_call(name, op)


def _load_for_run(program, *, optimistic: bool = False, **kwargs) -> Interpreter:
    """An :class:`Interpreter` (``kwargs``: its options) of :func:`load_program` + :func:`check_registered`
    + :func:`prepare_module`, as :func:`interpret` needs them: one walk of the module; text up to
    :data:`SHARED_CONTEXT_MAX_TEXT` parses in the thread's shared context. Text that the survey of its text
    settles (nothing to legalize or rewrite, every generic-form op registered) is run on the
    ``builtin.module`` op MLIR parsed (:func:`hlokit.core.parse_module_op`: no copy into a new module).
    ``optimistic``: an ``ir.Module`` of one function is not walked first; its planner raises
    :class:`~hlokit.interpreter.evaluator.NeedsLegalization` at an op that needs a legalization, before
    anything runs (the caller then legalizes: :func:`interpret`)."""
    if isinstance(program, ir.Module):
        interp = Interpreter(program, legalization_check=_needs_legalization if optimistic else None, **kwargs)
        if optimistic and len(interp.functions) == 1:  # (one function: the planner reads every op before any runs)
            return interp
        interp.legalization_check = None
        needed = legalizations_needed(program)
        if not needed:
            return interp
        prepare_module(program, needed=needed)  # (passes rewrite the module: a new interpreter reads it)
        return Interpreter(program, **kwargs)
    text = program if isinstance(program, str) and "\n" in program else None  # (else bytes or a path)
    context = None
    if text is not None:
        kwargs["source_text"] = text
        if len(text) <= SHARED_CONTEXT_MAX_TEXT:
            context = _shared_context(len(text))
            if rewrite_newer_ops(text) is text and _survey_from_text(text, context) == []:
                return Interpreter(parse_module_op(text, context=context, source_name="<input>"), **kwargs)
    module = load_program(program, context=context, allow_unregistered=True)
    needed = _survey_from_text(text, module.context) if text is not None else None
    if needed is None:  # (errors name the file load_program gave the module's location)
        needed = _survey(module, location_position(module.operation.location)[0] or "<input>", check=True)
    return Interpreter(prepare_module(module, needed=needed), **kwargs)


def entry_function(interp: Interpreter, function: str = "main") -> str:
    """The function to run: ``function`` if present; else, for ``"main"``, the only function."""
    if function in interp.functions:
        return function
    if function == "main" and len(interp.functions) == 1:
        return next(iter(interp.functions))
    raise InterpreterError(
        f"function '@{function}' not found in the module"
        + (f" (it has: {', '.join('@' + n for n in interp.functions)})" if interp.functions else " (it has no functions)"),
        interp.module.operation.location,
    )


def as_value(x) -> Value:
    """A Python argument as a runtime value: arrays / numpy scalars / Python numbers -> ndarray,
    :data:`~hlokit.interpreter.values.TOKEN` stays, tuples recurse. ``TypeError`` otherwise."""
    if isinstance(x, Token):
        return TOKEN
    if isinstance(x, tuple):
        return tuple(as_value(v) for v in x)
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, (np.generic, bool, int, float, complex, list)):
        arr = np.asarray(x)
    else:
        raise TypeError(f"cannot pass a {type(x).__name__} to the interpreter (use numpy arrays)")
    try:
        type_name(arr.dtype)
    except KeyError:
        raise TypeError(f"dtype {arr.dtype} is not a StableHLO element type") from None
    return arr


def interpret(
    program,
    args: Sequence = (),
    *,
    function: str = "main",
    probe_dir: str | None = None,
    out: TextIO | None = None,
    max_steps: int | None = None,
    num_replicas: int | None = None,
    num_partitions: int | None = None,
    process_args: Sequence[Sequence] | None = None,
    infeed: Sequence = (),
    outfeed: list | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list:
    """Run ``function`` of a StableHLO program on ``args`` with hlokit's reference interpreter.

    ``program``: MLIR text, a path, or an ``ir.Module``. ``args``: one per function argument:
    numpy arrays whose dtype is the element type (``np.bool_`` for i1, ``ml_dtypes`` types for
    bf16, f8*, f4E2M1FN, f6*, int2/int4/uint2/uint4, ``np.complex64/128``; 0-d arrays or numpy
    scalars for 0-d tensors), :data:`hlokit.interpreter.values.TOKEN` for ``!stablehlo.token``,
    Python tuples for ``tuple<...>``. Returns the results in order, in the same forms.

    ``function`` defaults to ``main`` (a module with a single function runs that one).
    ``probe_dir``: directory for ``interpreter.probe``; ``out``: stream of ``interpreter.print``.
    ``max_steps``: the most iterations any one ``stablehlo.while`` may run (None: unbounded); a loop
    that reaches it raises :class:`~hlokit.interpreter.InterpreterError` at the op.

    SPMD (StableHLO spec "Execution"): with ``num_replicas`` and/or ``num_partitions`` (either one
    given; the other defaults to 1) the function runs on every process of a ``num_replicas x
    num_partitions`` grid (one thread each, :func:`run_parallel`) and the return value is **one list of
    results per process**, replica-major: ``results[r * num_partitions + p]`` is the list of results of
    process ``(replica_id=r, partition_id=p)``. Every process gets ``args``, or its own
    ``process_args[k]`` (one argument list per process, same order). A JAX ``shard_map`` program
    (``sdy.manual_computation``) takes global arguments and returns global results on every process;
    a pmap-style program (``mhlo.num_replicas``) gets each replica's own arguments through
    ``process_args``. ``infeed``, ``outfeed``, ``timeout``: see :func:`run_parallel`. Without a grid,
    ``infeed`` / ``outfeed`` serve the single process (0, 0).

    Raises :class:`~hlokit.interpreter.InterpreterError` (located at the op) when a ``check`` fails,
    an argument does not match the signature, an op is unsupported, the spec defines an error, or a
    collective's peers never arrive; :class:`hlokit.ParseError` / :class:`hlokit.VerifyError` for a
    program that does not load.
    """
    single = num_replicas is None and num_partitions is None and not infeed and outfeed is None
    interp = _load_for_run(program, probe_dir=probe_dir, out=out, max_steps=max_steps, optimistic=single)
    name = entry_function(interp, function)
    if num_replicas is None and num_partitions is None:
        if process_args is not None:
            raise ValueError("process_args needs num_replicas / num_partitions")
        if infeed or outfeed is not None:
            return run_parallel(interp, [[name]], [args], infeed=infeed, outfeed=outfeed, timeout=timeout)[0]
        try:
            values = [as_value(a) for a in args]
        except TypeError as err:
            raise InterpreterError(str(err), interp.functions[name].location) from None
        try:
            results = interp.call(name, values)  # (numpy's floating-point warnings off inside: Interpreter.call)
        except NeedsLegalization:  # (an ir.Module not walked first: legalize it, then run it from the start)
            interp = _load_for_run(program, probe_dir=probe_dir, out=out, max_steps=max_steps)
            results = interp.call(name, values)
        return [_writable(r) for r in results]
    R = 1 if num_replicas is None else int(num_replicas)
    P = 1 if num_partitions is None else int(num_partitions)
    if R < 1 or P < 1:
        raise ValueError(f"a process grid needs at least one replica and one partition, got {R} x {P}")
    if process_args is None:
        process_args = [args] * (R * P)
    elif len(process_args) != R * P:
        raise ValueError(f"process_args has {len(process_args)} argument lists for {R * P} processes")
    return run_parallel(interp, [[name] * P for _ in range(R)], process_args, infeed=infeed, outfeed=outfeed,
                        timeout=timeout)


def run_parallel(
    program,
    programs: Sequence[Sequence[str]],
    args: Sequence[Sequence] = (),
    *,
    infeed: Sequence = (),
    outfeed: list | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[list]:
    """Run ``programs[r][p]`` (function names) as process ``(replica_id=r, partition_id=p)`` of a
    ``len(programs) x len(programs[0])`` process grid, concurrently (one thread per process;
    :class:`~hlokit.interpreter.process.ProcessGrid`), as ``interpreter.run_parallel`` does.

    ``program``: MLIR text, a path, an ``ir.Module`` or an
    :class:`~hlokit.interpreter.evaluator.Interpreter`. ``args[k]``: the arguments of process ``k``
    in replica-major order (empty: no arguments for any process). ``infeed``: the items the ``infeed``
    ops read in order, each a list of values (one per ``infeed`` result but the token) or a single
    array. ``outfeed``: a list to which ``(replica_id, partition_id, [values])`` is appended for every
    ``outfeed`` op, in the order they ran. ``timeout``: the most seconds one process waits at a
    collective or ``recv`` (peers that finished and deadlocks are reported at once).

    Returns one list of results per process, replica-major. Raises ``ValueError`` for ragged
    ``programs`` or a wrong number of argument lists; :class:`~hlokit.interpreter.InterpreterError`
    as :func:`interpret`, the first failing process's error when several fail.
    """
    if isinstance(program, Interpreter):
        interp = program
    else:
        interp = _load_for_run(program)
    R = len(programs)
    P = len(programs[0]) if R else 0
    if any(len(row) != P for row in programs):
        raise ValueError("every row of 'programs' needs the same number of functions")
    names = [interp.function(n) and n for row in programs for n in row]
    if not args:
        args = [()] * len(names)
    if len(args) != len(names):
        raise ValueError(f"{len(args)} argument lists for {len(names)} processes")
    calls = []
    for n, a in zip(names, args):
        try:
            calls.append((n, [as_value(x) for x in a]))
        except TypeError as err:
            raise InterpreterError(str(err), interp.functions[n].location) from None
    items = [list(v) if isinstance(v, (list, tuple)) else [v] for v in infeed]
    items = [[as_value(x) for x in item] for item in items]
    grid = ProcessGrid(R, P, timeout=timeout, infeed=items)
    results = grid.run(interp, calls)
    if outfeed is not None:
        outfeed.extend((r, p, [_writable(v) for v in vals]) for r, p, vals in grid.outfeed)
    return [[_writable(v) for v in res] for res in results]


def _writable(value: Value) -> Value:
    """Results handed to the caller are the caller's: copy arrays the interpreter shares (constants)."""
    if isinstance(value, tuple):
        return tuple(_writable(v) for v in value)
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return value.copy()
    return value
