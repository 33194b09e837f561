"""``hlokit.interpret``: run a StableHLO program on numpy arrays with the reference interpreter.

Loading (:func:`load_program`): MLIR text, a path or an ``ir.Module``. Text goes through
:func:`hlokit.dialects.check_syntax.to_generic` (the ``check`` dialect's custom syntax) and is parsed with
unregistered ops allowed, but only ``check.*`` ops may be unregistered. CHLO ops are legalized first
with hlokit's own ``chlo-legalize-to-stablehlo`` pass (never jaxlib's); without it they are an error.
"""

from __future__ import annotations

import os
import re
from typing import Sequence, TextIO

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit import passes
from hlokit.core import read_source
from hlokit.diagnostics import Diagnostic, HlokitError, ParseError, location_position
from hlokit.passes.chlo import find_chlo_ops
from hlokit.passes.stablehlo_legalize_lapack_custom_calls import PIPELINE as LAPACK_PIPELINE
from hlokit.passes.stablehlo_legalize_lapack_custom_calls import count_lapack_calls
from hlokit.dialects.check_syntax import OPS as CHECK_OPS
from hlokit.dialects.check_syntax import to_generic
from hlokit.interpreter.evaluator import Interpreter, InterpreterError
from hlokit.interpreter.values import TOKEN, Token, Value, type_name

__all__ = ["interpret", "load_program", "prepare_module", "entry_function", "as_value"]


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
    if isinstance(program, str):
        if not re.sub(r"//[^\n]*", "", program).strip():  # only comments: an empty module
            with context:
                return ir.Module.create(loc=ir.Location.file(name, 1, 1))
        problems: list = []
        program = to_generic(program, problems)
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
    bad: list[Diagnostic] = []

    def visit(op):
        opname = op.name
        if not bad and not op.context.is_registered_operation(opname):
            if not (opname.startswith("check.") and opname[len("check."):] in CHECK_OPS):
                file, line, col = location_position(op.location)
                bad.append(
                    Diagnostic(
                        "error",
                        f"'{opname}' op is unregistered (a typo, or a dialect hlokit does not know; "
                        "-allow-unregistered-dialect accepts it)",
                        file or name, line, col,
                    )
                )
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if bad:
        raise HlokitError(bad)


def prepare_module(module: ir.Module, name: str = "-") -> ir.Module:
    """Legalize CHLO ops with hlokit's ``chlo-legalize-to-stablehlo`` pass and jaxlib's ``lapack_*_ffi``
    custom calls with ``stablehlo-legalize-lapack-custom-calls`` (each when any are present)."""
    lapack = count_lapack_calls(module)
    has_chlo = find_chlo_ops(module, first_only=True)
    if not has_chlo and not lapack:
        return module
    if has_chlo and passes.get_pass("chlo-legalize-to-stablehlo") is None:
        file, line, col = location_position(has_chlo[0].location)
        raise InterpreterError(
            [Diagnostic("error", f"'{has_chlo[0].name}': CHLO ops need hlokit's chlo-legalize-to-stablehlo "
                        "pass, which is not available", file or name, line, col)]
        )
    ctx = module.context
    saved = ctx.allow_unregistered_dialects
    ctx.allow_unregistered_dialects = True  # the check ops (only they: see check_registered) verify
    try:
        if lapack:
            passes.run_pipeline(module, LAPACK_PIPELINE, source_name=name)
        if has_chlo:
            passes.run_pipeline(module, "builtin.module(chlo-legalize-to-stablehlo)", source_name=name)
    finally:
        ctx.allow_unregistered_dialects = saved
    return module


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
) -> list[np.ndarray]:
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

    Raises :class:`~hlokit.interpreter.InterpreterError` (located at the op) when a ``check`` fails,
    an argument does not match the signature, an op is unsupported, or the spec defines an error;
    :class:`hlokit.ParseError` / :class:`hlokit.VerifyError` for a program that does not load.
    """
    module = load_program(program)
    prepare_module(module)
    interp = Interpreter(module, probe_dir=probe_dir, out=out, max_steps=max_steps)
    name = entry_function(interp, function)
    try:
        values = [as_value(a) for a in args]
    except TypeError as err:
        raise InterpreterError(str(err), interp.functions[name].location) from None
    with np.errstate(all="ignore"):
        results = interp.call(name, values)
    return [_writable(r) for r in results]


def _writable(value: Value) -> Value:
    """Results handed to the caller are the caller's: copy arrays the interpreter shares (constants)."""
    if isinstance(value, tuple):
        return tuple(_writable(v) for v in value)
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return value.copy()
    return value
