"""``hlokit.interpret``: run a StableHLO program on numpy arrays with the reference interpreter.

Loading (:func:`load_program`): MLIR text, a path or an ``ir.Module``. Text goes through
:func:`hlokit.dialects.check_syntax.to_generic` (the ``check`` dialect's custom syntax) and is parsed with
unregistered ops allowed, but only ``check.*`` ops may be unregistered. Ops the interpreter does not run
itself (CHLO, LAPACK custom calls, deprecated ops, shape computations, batch norm: the ops hlokit's passes
declare illegal that the op table lacks) are legalized first with hlokit's own passes (:func:`prepare_module`,
:func:`hlokit.passes.prepare.prepare`; never jaxlib's).
"""

from __future__ import annotations

import os
import re
import sys
import threading
from typing import TYPE_CHECKING, Callable, Sequence, TextIO

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import attributes
from hlokit.core import load_dialects, only_comments, parse_module_op, read_program
from hlokit.diagnostics import Diagnostic, HlokitError, location_position
from hlokit.passes import register_engine
from hlokit.dialects.check_syntax import OPS as CHECK_OPS
from hlokit.interpreter.collectives import NEWER_OPS, rewrite_newer_ops
from hlokit.interpreter.errors import InterpreterError, NeedsLegalization
from hlokit.interpreter.evaluator import Interpreter
from hlokit.interpreter.process import DEFAULT_TIMEOUT, ProcessGrid
from hlokit.interpreter.registry import CUSTOM_CALLS, OPS
from hlokit.interpreter.values import TOKEN, Token, Value, type_name

if TYPE_CHECKING:  # (annotations only: hlokit.passes.prepare is imported on first use, _prepare)
    from hlokit.passes.prepare import Action, Legalization

__all__ = ["interpret", "run_parallel", "load_program", "prepare_module", "interpreter_legalizations",
           "entry_function", "as_value"]

# The ops the interpreter runs itself: what hlokit.prepare leaves for it (the rest is legalized first). (The
# function lives in the hlokit.passes package: registering loads neither hlokit.passes.prepare nor any pass.)
register_engine("interpreter", OPS, CUSTOM_CALLS)


def _prepare():
    """:mod:`hlokit.passes.prepare`, imported on first use: a program that needs no legalization and has static
    argument shapes runs without it (it loads the pass registry and the pipeline runner, about 5 ms)."""
    from hlokit.passes import prepare

    return prepare


def load_program(
    program, *, context: ir.Context | None = None, source_name: str | None = None, line_offset: int = 0,
    allow_unregistered: bool = False,
) -> ir.Module:
    """Parse ``program`` (text, bytes, path or ``ir.Module``) for the interpreter (see module doc)."""
    if isinstance(program, ir.Module):
        return program
    program, name = read_program(program, source_name=source_name, default_name="<input>")
    if context is None:
        context = hlokit.make_context()
    return _parse_program(program, context, name, line_offset, allow_unregistered)


#: The text pre-processors the interpreter's loader applies (hlokit.core.register_text_preprocessor): the check
#: dialect's syntax, and the names of StableHLO ops newer than jaxlib's (hlokit.interpreter.collectives).
PREPROCESSORS = ("check", "stablehlo-newer-ops")


def _parse_program(program, context: ir.Context, name: str, line_offset: int, allow_unregistered: bool) -> ir.Module:
    if isinstance(program, str) and only_comments(program):  # an empty module
        with context:
            return ir.Module.create(loc=ir.Location.file(name, 1, 1))
    saved = context.allow_unregistered_dialects
    context.allow_unregistered_dialects = True
    try:
        module = hlokit.parse(program, context=context, source_name=name, line_offset=line_offset,
                              preprocessors=PREPROCESSORS, strict_preprocessing=True)
    finally:
        context.allow_unregistered_dialects = saved
    if not allow_unregistered:
        check_registered(module, name)
    return module


def check_registered(module: ir.Module, name: str = "-") -> None:
    """Raise a located error for an unregistered op other than the ``check`` dialect's."""
    _survey(module, name, check=True)


def _survey(module: ir.Module, name: str, *, check: bool) -> list[Action]:
    """One walk of ``module``: with ``check``, :func:`check_registered`'s test; returns the legalizations
    the module needs (:func:`hlokit.passes.prepare.survey` of :func:`interpreter_legalizations`)."""
    bad: list[Diagnostic] = []
    is_registered = module.context.is_registered_operation

    def first_of_name(op):
        opname = op.name
        if check and not bad and not is_registered(opname):
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

    needed = _prepare().survey(module, interpreter_legalizations(), first_of_name=first_of_name if check else None)
    if bad:
        raise HlokitError(bad)
    return needed


def interpreter_legalizations() -> tuple[Legalization, ...]:
    """The passes the interpreter runs on ops it has no kernel for, in pipeline order, each with the ops
    that trigger it: ``stablehlo-lower-to-core``'s passes, for the ops they declare illegal that the op table
    (:data:`hlokit.interpreter.registry.OPS`, :data:`~hlokit.interpreter.registry.CUSTOM_CALLS`) lacks
    (:data:`hlokit.passes.prepare.POLICY`). ``dot`` and ``create_token``, deprecated but in the op table, and
    ``cholesky``, ``triangular_solve``, ``rng``, ``rng_bit_generator`` are run directly."""
    return _prepare().legalizations("interpreter")


def _markers(legs: tuple[Legalization, ...]) -> tuple[re.Pattern | None, tuple[str, ...]]:
    """Strings one of which the MLIR text of every op that ``legs`` legalize contains (an op's name is always
    spelled out in text, in custom and in generic form; a custom call names its target): a regular
    expression for the ``stablehlo.`` names (one scan; a name followed by a name character is another op:
    ``broadcast`` is not ``broadcast_in_dim``) and substrings for the rest: the dialect prefix of other op
    names (``chlo.``), the common prefix of a pass's custom-call targets (``lapack_``)."""
    stablehlo_names: set[str] = set()
    others: set[str] = set()
    for leg in legs:
        for opname in leg.ops:
            dialect, _, rest = opname.partition(".")
            if dialect == "stablehlo":
                stablehlo_names.add(rest)
            else:
                others.add(dialect + ".")
        if leg.custom_calls:
            prefix = os.path.commonprefix(sorted(leg.custom_calls))
            others.update([prefix] if prefix else leg.custom_calls)
    return _marker_pattern(stablehlo_names), tuple(sorted(others))


def _marker_pattern(stablehlo_names) -> re.Pattern | None:
    """The regular expression of :func:`_markers` for the ``stablehlo.`` op names ``stablehlo_names``."""
    if not stablehlo_names:
        return None
    return re.compile(r"stablehlo\.(?:" + "|".join(re.escape(n) for n in sorted(stablehlo_names)) + r")(?![\w-])")


#: What :func:`_tables` derived, with the legalizations it derived them from (the per-call cost of interpret
#: stays a few hundred nanoseconds: one identity test).
_TABLES: tuple = (None,)


def _tables() -> tuple:
    """``(legalizations, (by_name, by_target), (pattern, markers))`` of :func:`interpreter_legalizations`:
    :func:`hlokit.passes.prepare.index` and :func:`_markers`, derived once per legalization set."""
    global _TABLES
    legs = interpreter_legalizations()
    tables = _TABLES
    if tables[0] is not legs:
        tables = _TABLES = (legs, _prepare().index(legs), _markers(legs))
    return tables


#: :func:`_markers` of :func:`interpreter_legalizations` for the passes of this source tree: the ``stablehlo.``
#: op names, and the other markers. While the pass registry is not loaded (:func:`_cold`: nothing can have changed
#: the passes' declarations yet), :func:`_survey_from_text` and :func:`_legalization_check` read these, so that
#: the first ``interpret`` of a program that needs no legalization imports no pass (learning the declarations
#: imports every pass module: most of a first call's time); later calls read the live tables.
#: ``tests/pytest/test_interpreter_cold_start.py`` checks that they equal the live ones.
COLD_MARKERS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("batch_norm_grad", "batch_norm_inference", "batch_norm_training", "broadcast", "cross-replica-sum", "einsum",
     "torch_index_select", "unary_einsum"),
    ("Eigh", "LuDecomposition", "ProductOfElementaryHouseholderReflectors", "Qr", "SPMDFullToShardShape",
     "SPMDShardToFullShape", "Sharding", "arith.", "chlo.", "cu", "hip", "lapack_", "shape.", "tensor."),
)


def _cold() -> bool:
    """Whether :data:`COLD_MARKERS` stand for the live tables: they were never derived (:func:`_tables`) and some
    module of :data:`hlokit.passes.registry.PASS_MODULES` is not imported (the registry is not loaded)."""
    if _TABLES[0] is not None:
        return False
    registry = sys.modules.get("hlokit.passes.registry")  # (not imported: no pass can be)
    return registry is None or not all(name in sys.modules for name in registry.PASS_MODULES)


def _has_cold_marker(text: str) -> bool:
    """Whether ``text`` names one of the ``stablehlo.`` ops of :data:`COLD_MARKERS` (what :func:`_marker_pattern` of
    them finds, by ``str.find``: a process's first call does not compile that expression, about 0.2 ms)."""
    for name in COLD_MARKERS[0]:
        needle = "stablehlo." + name
        i = text.find(needle)
        while i >= 0:
            j = i + len(needle)
            if j == len(text) or not (text[j].isalnum() or text[j] in "_-"):  # (else a longer name: broadcast_in_dim)
                return True
            i = text.find(needle, j)
    return False


def _text_markers() -> tuple[Callable[[str], object] | None, tuple[str, ...]]:
    """The markers :func:`_survey_from_text` looks for: a test of the ``stablehlo.`` op names (None: there are
    none) and the other markers; :data:`COLD_MARKERS` while :func:`_cold`, else those of :func:`_tables`."""
    if _cold():
        return _has_cold_marker, COLD_MARKERS[1]
    pattern, others = _tables()[2]
    return (pattern.search if pattern is not None else None), others


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


def _survey_from_text(text: str, context: ir.Context) -> list[Action] | None:
    """What :func:`_survey` would find, read off the program's text when the text settles it: ``[]`` when no
    op needs a legalization (no marker of :func:`_markers` occurs) and every generic-form op name is
    registered (so the registration check cannot fail); None when the module must be walked."""
    if "check." in text:
        return None
    has_name, others = _text_markers()
    for marker in others:
        if marker in text:
            return None
    if has_name is not None and has_name(text):
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
    """The flags of the legalizations (:func:`interpreter_legalizations`) ``module`` needs, in pipeline order."""
    return [a.flag for a in _survey(module, "-", check=False)]


def prepare_module(module: ir.Module, name: str = "-", *, needed: Sequence[Action] | None = None) -> ir.Module:
    """Bring ``module`` to the ops the interpreter runs, in place: :func:`hlokit.passes.prepare.prepare` for
    the interpreter (hlokit's own passes, never jaxlib's C++ ones, legalize jaxlib's ``lapack_*`` custom
    calls, CHLO, the deprecated ops the op table lacks, shape-dialect and index computations, and expand
    batch norm: :func:`interpreter_legalizations`), each only when present (``needed``: what
    :func:`_survey` found, when the caller has it already). Raises :class:`hlokit.diagnostics.PassError`
    (located) when a pass refuses an op."""
    if needed is None:
        needed = _survey(module, name, check=False)
    if not needed:
        return module
    load_dialects(module.context)  # (the shared context loads dialects as its texts use them: passes build IR)
    return _prepare().prepare(module, engine="interpreter", source_name=name, actions=needed).module


#: Programs of at most this much text are parsed in a context kept for the thread (:func:`_shared_context`);
#: a bigger one gets a context of its own (whose creation, ~1-2 ms, is small next to its parse).
SHARED_CONTEXT_MAX_TEXT = 1 << 20
#: A shared context is replaced after this much program text: what its programs interned (types, attributes,
#: constants) lives as long as the context, so a long-running caller's memory stays bounded.
SHARED_CONTEXT_BUDGET = 16 << 20
_SHARED = threading.local()


def _shared_context(nbytes: int, text: str = "") -> ir.Context:
    """The calling thread's context for small programs (see :data:`SHARED_CONTEXT_MAX_TEXT`), to parse ``text``
    (``nbytes`` long) in: making a context costs more than parsing and running a small program. Its dialects
    load as the texts parsed in it use them (``hlokit.make_context(load=False)``: a third of the cost of a
    context with every dialect loaded), all of them (``quant`` too) for a text with a quantized type, and before
    passes run in it (:func:`prepare_module`)."""
    ctx = getattr(_SHARED, "context", None)
    used = getattr(_SHARED, "used", 0)
    if ctx is None or used + nbytes > SHARED_CONTEXT_BUDGET:
        ctx = _SHARED.context = hlokit.make_context(load=False)
        _SHARED.loaded = False
        used = 0
    _SHARED.used = used + nbytes
    if "!quant." in text and not getattr(_SHARED, "loaded", False):  # (quant: not registered, the parser cannot)
        load_dialects(ctx)
        _SHARED.loaded = True
    return ctx


def _legalization_check() -> Callable[[str, ir.Operation], bool]:
    """The test the planner of an un-walked module applies to each op (``Interpreter(legalization_check=)``):
    whether one of :func:`interpreter_legalizations` must rewrite ``op`` (named ``name``) first. While
    :func:`_cold`, a test from :data:`COLD_MARKERS` that may say yes where no legalization applies (the caller then
    walks the module with the live tables: :func:`interpret`), never no where one does."""
    if _cold():
        names = frozenset("stablehlo." + n for n in COLD_MARKERS[0])
        others = COLD_MARKERS[1]

        def may_need(name: str, op: ir.Operation) -> bool:
            if name in names:
                return True
            if name == "stablehlo.custom_call":
                target = attributes.str_value(op, "call_target_name", "")
                return any(m in target for m in others)
            return not name.startswith("stablehlo.") and any(m in name for m in others)

        return may_need
    by_name, by_target = _tables()[1]
    if not by_target:
        return lambda name, op: name in by_name

    def needs(name: str, op: ir.Operation) -> bool:
        if name in by_name:
            return True
        return name == "stablehlo.custom_call" and attributes.str_value(op, "call_target_name", "") in by_target

    return needs


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
        interp = Interpreter(program, legalization_check=_legalization_check() if optimistic else None, **kwargs)
        if optimistic and len(interp.functions) == 1:  # (one function: the planner reads every op before any runs)
            return interp
        interp.legalization_check = None
        needed = _survey(program, "-", check=False)
        if not needed:
            return interp
        prepare_module(program, needed=needed)  # (passes rewrite the module: a new interpreter reads it)
        return Interpreter(program, **kwargs)
    text = program if isinstance(program, str) and "\n" in program else None  # (else bytes or a path)
    context = None
    if text is not None:
        kwargs["source_text"] = text
        if len(text) <= SHARED_CONTEXT_MAX_TEXT:
            context = _shared_context(len(text), text)
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
    program that does not load. ``TypeError`` when ``args`` is one array rather than a sequence of arguments.
    """
    if isinstance(args, np.ndarray) or np.isscalar(args):
        raise TypeError(f"interpret: args is a sequence with one entry per function argument (e.g. [x]), "
                        f"not a single {type(args).__name__}")
    single = num_replicas is None and num_partitions is None and not infeed and outfeed is None
    if single and args and function == "main":
        program = _refined_to(program, args)
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


def _refined_to(program, args: Sequence):
    """``program`` refined to the shapes of ``args`` where its ``@main`` takes symbolic (dynamic) shapes
    (:func:`hlokit.passes.prepare.refine_arguments`: a new module; an ``ir.Module`` given stays as it was),
    else ``program`` itself. Text without a ``?`` dimension is not parsed here. Raises
    :class:`hlokit.diagnostics.PassError` for shapes the program cannot take (jax's shape assertions)."""
    if isinstance(program, str) and "\n" in program and "?" not in program:
        return program
    if isinstance(program, (str, os.PathLike)) and not (isinstance(program, str) and "\n" in program):
        try:
            with open(program, "rb") as f:
                head = f.read(4)
                if head != b"ML\xefR" and b"?" not in head + f.read():
                    return program  # (a text without a '?' dimension: not parsed here)
        except OSError:
            return program  # (the loader reports it)
    if isinstance(program, ir.Module):
        if _static_main(program) or not _prepare().dynamic_arguments(program, "main"):
            return program
        text = program.operation.get_asm(enable_debug_info=True)
        name = location_position(program.operation.location)[0] or "-"
        module = hlokit.parse(text, context=hlokit.make_context(allow_unregistered_dialects=True), source_name=name)
    else:
        module = load_program(program, allow_unregistered=True)
        name = location_position(module.operation.location)[0] or "<input>"
    dynamic = _prepare().dynamic_arguments(module, "main")
    if not dynamic or not all(isinstance(a, (np.ndarray, np.generic)) for a in args):
        return program
    fn = next(op for op in module.body.operations if op.operation.name == "func.func"
              and ir.StringAttr(op.attributes["sym_name"]).value == "main")
    arg_types = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).inputs)
    if len(arg_types) != len(args):
        return program  # (the interpreter reports the count)
    loc = ir.Location.unknown(module.context)
    types = [ir.RankedTensorType.get(list(np.shape(a)), ir.RankedTensorType(t).element_type, loc=loc)
             if i in dynamic else t for i, (a, t) in enumerate(zip(args, arg_types))]
    _prepare().refine_arguments(module, types, source_name=name)
    if _has_custom_call(module, "stablehlo.shape_refinement_operand_wrapper"):
        # refine-shapes could not take every value through (e.g. shape-dialect computations): run the program
        # as given, on the concrete values, as for any dynamic program
        return program
    return module


def _static_main(module: ir.Module) -> bool:
    """Whether ``module``'s ``@main`` surely takes static shapes (no ``?`` in its function type's spelling; true
    when it has no ``@main``): then :func:`_refined_to` need not load the passes that refine shapes."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and attributes.str_value(op, "sym_name", "") == "main":
            return "?" not in str(op.attributes["function_type"])
    return True


def _has_custom_call(module: ir.Module, target: str) -> bool:
    """Whether ``module`` holds a ``stablehlo.custom_call`` to ``target``."""
    found = []

    def visit(op):
        if op.name == "stablehlo.custom_call" and attributes.str_value(op, "call_target_name") == target:
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return bool(found)


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
