"""Probe files of the hlokit interpreter: what ``interpreter.probe`` writes and ``check.expect_serialized_eq`` reads.

When a run has a probe directory (``Interpreter(probe_dir=DIR)``, ``--probe-output-dir``),
:func:`probe` writes a tensor to ``DIR/<id>_<iteration>.bin`` (MLIR's dense storage layout:
:func:`~hlokit.interpreter.values.to_dense_storage`) and appends ``id,type,path`` to
``DIR/index.csv``; the n-th probe of an id (inside a loop) is iteration n. :func:`read_probe` reads a
file back. The layout follows upstream's interpreter (the ``interpreter`` dialect of
https://github.com/openxla/stablehlo, ``stablehlo/reference/InterpreterOps.td``).
"""

from __future__ import annotations

import os
import re

import numpy as np

from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.values import Value, from_dense_storage, to_dense_storage, value_type_str

__all__ = ["probe", "read_probe"]


def _from_storage(data: bytes, like: np.ndarray) -> np.ndarray:
    raw = np.frombuffer(data, dtype=np.uint8)
    if like.dtype == np.bool_ or like.dtype.itemsize == 1:
        arr = from_dense_storage(raw, like.dtype)
    else:
        arr = raw.view(like.dtype)
    return arr.reshape(like.shape)


def _probe_path(interp, probe_id: str, iteration: int) -> str:
    """``DIR/<sanitized id>_<iteration>.bin`` (characters other than ``[A-Za-z0-9_.-]`` become ``_``)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", probe_id)
    return os.path.join(interp.probe_dir, f"{safe}_{iteration}.bin")


def probe(interp, probe_id: str, value: Value, location=None) -> Value:
    """Record ``value`` under ``probe_id`` (see module doc; nothing without a probe directory) and return
    it unchanged. :class:`InterpreterError` for a non-tensor value or a file that cannot be written."""
    if interp.probe_dir is None:
        return value
    if not isinstance(value, np.ndarray):
        raise InterpreterError("interpreter.probe supports tensors only", location)
    with interp.probe_lock:
        it = interp.probe_counts.get(probe_id, 0)
        interp.probe_counts[probe_id] = it + 1
        os.makedirs(interp.probe_dir, exist_ok=True)
        path = _probe_path(interp, probe_id, it)
        try:
            with open(path, "wb") as f:
                f.write(to_dense_storage(value))
            with open(os.path.join(interp.probe_dir, "index.csv"), "a") as f:
                f.write(f"{probe_id},{value_type_str(value)},{path}\n")
        except OSError as err:
            raise InterpreterError(f"interpreter.probe: cannot write '{path}': {err.strerror}", location) from None
    return value


def read_probe(interp, probe_id: str, iteration: int, like: np.ndarray) -> np.ndarray:
    """The value :func:`probe` recorded for ``probe_id`` at ``iteration``, with ``like``'s shape and dtype;
    :class:`InterpreterError` when there is no such file or its size does not fit ``like``."""
    path = _probe_path(interp, probe_id, iteration)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        raise InterpreterError(f"no probe '{probe_id}' (iteration {iteration}) in '{interp.probe_dir}'") from None
    expected_size = len(to_dense_storage(like))
    if len(data) != expected_size:
        raise InterpreterError(
            f"probe '{probe_id}' holds {len(data)} bytes, a {value_type_str(like)} needs {expected_size}"
        )
    return _from_storage(data, like)
