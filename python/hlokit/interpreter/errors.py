"""The interpreter's error types, in the lowest layer of :mod:`hlokit.interpreter` (every other module of the
interpreter may import this one; of the interpreter it imports only :mod:`~hlokit.interpreter.values`)."""

from __future__ import annotations

from hlokit.diagnostics import HlokitError, LocatedError
from hlokit.interpreter.values import UnsupportedTypeError

__all__ = ["InterpreterError", "NeedsLegalization", "ResultCountError", "located", "reraise"]


class InterpreterError(LocatedError):
    """A run-time failure of the interpreter: a failed ``check``, an argument that does not match the
    function signature, an unsupported op, or an error the StableHLO spec defines, located at the op.

    ``location`` is the ``ir.Location`` of the op (or None); ``str(err)`` is
    ``FILE:LINE:COL: error: message``.
    """


class NeedsLegalization(Exception):
    """Raised by an :class:`~hlokit.interpreter.evaluator.Interpreter` with a ``legalization_check`` at the first op
    the check accepts, before anything has run: the module needs one of hlokit's legalization passes first."""


class ResultCountError(Exception):
    """An op's implementation returned ``got`` results, a number other than its op's (reported by the executors
    as an :class:`InterpreterError` at the op, :func:`located`)."""

    def __init__(self, got: int):
        super().__init__(got)
        self.got = got


def located(err: BaseException, op) -> BaseException:
    """The error an executor raises when the implementation of ``op`` raised ``err``: an
    :class:`InterpreterError` located at the op (numpy's errors and the like included: never a traceback), a
    :class:`~hlokit.diagnostics.HlokitError` as it is, and ``KeyboardInterrupt`` / ``SystemExit`` unchanged."""
    name = op.operation.name
    if isinstance(err, InterpreterError):
        return err.locate(op.location)
    if isinstance(err, HlokitError):
        return err
    if isinstance(err, ResultCountError):
        return InterpreterError(
            f"'{name}': interpreter produced {err.got} results, the op has {len(op.operation.results)}", op.location
        )
    if isinstance(err, KeyError):
        if isinstance(err.args[0] if err.args else None, int):  # (a value id of the compiled executor)
            return InterpreterError(f"'{name}' uses a value that has no runtime value", op.location)
        return InterpreterError(f"'{name}': internal error: KeyError: {err}", op.location)
    if isinstance(err, UnsupportedTypeError):
        return InterpreterError(f"'{name}': {err}", op.location)
    if isinstance(err, RecursionError):
        return InterpreterError(f"'{name}': recursion too deep", op.location)
    if isinstance(err, MemoryError):  # numpy refuses before allocating: "Unable to allocate 3.55 PiB ..."
        return InterpreterError(f"'{name}': out of memory: {err}", op.location)
    if isinstance(err, Exception):  # numpy errors etc.: located, never a traceback
        result = InterpreterError(f"'{name}': internal error: {type(err).__name__}: {err}", op.location)
        result.__cause__ = err
        return result
    return err  # KeyboardInterrupt, SystemExit, ...


def reraise(err: BaseException, op) -> None:
    """Raise ``err`` as the executors report it at ``op`` (:func:`located`)."""
    result = located(err, op)
    if result is err:
        raise err
    raise result from result.__cause__
