"""JAX's export back-compatibility test data, as test oracles: real modules JAX exported for cuda, rocm and tpu,
with the inputs they were run on and the outputs the hardware gave.

JAX keeps these files (``jax/_src/internal_test_util/export_back_compat_test_data/*.py``, Apache-2.0, in the
installed ``jax`` package) to check that it can still run what it serialized long ago; each defines dictionaries
with ``platform``, ``custom_call_targets``, ``inputs``, ``expected_outputs``, ``mlir_module_text`` and
``mlir_module_serialized`` (VHLO bytecode). This module is the one place the tests reach for them: it reads the
files as data (they import only ``datetime`` and ``numpy``), imports nothing from ``jax._src``, and a test that
needs them skips, saying why, when the installed jax ships no such folder or no such file.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib

import numpy as np
import pytest


@dataclasses.dataclass(frozen=True)
class Case:
    """One exported program: ``name`` (``file:key``), ``platform`` (cuda, rocm, tpu, ...), ``targets`` (its
    custom-call targets), ``serialized`` (VHLO bytecode), ``text`` (its StableHLO text), ``inputs`` and
    ``expected`` (numpy arrays, as JAX ran it on that platform), ``nr_devices``."""

    name: str
    platform: str
    targets: tuple[str, ...]
    serialized: bytes
    text: str
    inputs: tuple[np.ndarray, ...]
    expected: tuple[np.ndarray, ...]
    nr_devices: int


def data_dir() -> pathlib.Path | None:
    """The folder of JAX's back-compatibility data in the installed jax, or None."""
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "_src" / "internal_test_util" / \
        "export_back_compat_test_data"
    return path if path.is_dir() else None


def _walk(value, key: str):
    if isinstance(value, dict) and "mlir_module_serialized" in value:
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{key}/{k}" if key else str(k))


def load(stem: str) -> list[Case]:
    """Every case of ``<stem>.py`` (e.g. ``cuda_qr_cusolver_geqrf``); skips the calling test when absent."""
    root = data_dir()
    if root is None:
        pytest.skip("the installed jax ships no export back-compatibility data")
    path = root / f"{stem}.py"
    if not path.is_file():
        pytest.skip(f"the installed jax has no back-compatibility data '{stem}'")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # (data: datetime, numpy and literals)
    cases = []
    for name, value in sorted(namespace.items()):
        if name.startswith(("data", "array")):
            for key, d in _walk(value, ""):
                cases.append(Case(
                    name=f"{stem}:{name}" + (f"/{key}" if key else ""), platform=d["platform"],
                    targets=tuple(d["custom_call_targets"]), serialized=bytes(d["mlir_module_serialized"]),
                    text=d["mlir_module_text"], inputs=tuple(np.asarray(x) for x in d["inputs"]),
                    expected=tuple(np.asarray(x) for x in d["expected_outputs"]),
                    nr_devices=int(d.get("nr_devices", 1))))
    return cases


def stems(prefix: str = "") -> list[str]:
    """The data files' stems starting with ``prefix`` (none when jax ships no data)."""
    root = data_dir()
    return sorted(p.stem for p in root.glob(f"{prefix}*.py") if p.stem != "__init__") if root else []
