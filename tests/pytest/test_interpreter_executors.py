"""The interpreter's two executors agree bit for bit: the plain walker (``Interpreter(executor="plain")``: each op's
adapter, in order) and the compiled executor (plans, plan-time constants, kernels specialized on their first run,
scalar broadcasts handed to their readers, blocks and loops compiled to Python), the latter twice: as it runs by
default (blocks walked as steps, compiled after ``COMPILE_AFTER`` runs) and with ``COMPILE_AFTER = 0`` (every block
and every loop runs generated code from its first run).

Programs: the upstream interpreter suite (``../shared/conformance/interpret``, as ``tests/conformance`` finds it;
skipped with a reason when ``../shared`` is absent), where every value a ``check`` op reads, everything
``interpreter.print`` writes and every result is compared; and the programs of ``examples/`` on seeded random
inputs. Loops run past ``COMPILE_AFTER`` in some of them (``while_1000``, the conformance ``while`` files), so the
generated code runs too. ``-m slow`` adds the transformer.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit import attributes, dtypes
from hlokit.interpreter import registry
from hlokit.interpreter.api import entry_function, load_program, prepare_module
from hlokit.interpreter.compiled import _Plan
from hlokit.interpreter.evaluator import EXECUTOR_ENV, Interpreter

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO.parent / "shared" / "conformance" / "interpret"
EXAMPLES = REPO / "examples"


def _bits(value) -> tuple:
    """A value as comparable bits: arrays by dtype, shape and bytes (NaN payloads and signed zeros count)."""
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, tuple):
        return ("tuple", tuple(_bits(v) for v in value))
    return ("other", repr(value))


@pytest.fixture
def recorded(monkeypatch):
    """Every operand of every ``check`` op (and ``@check.*`` custom call) run, in order, as :func:`_bits`."""
    log: list = []

    def recording(run, name):
        def adapter(op, operands, interp):
            log.append((name, [_bits(v) for v in operands]))
            return run(op, operands, interp)

        return adapter

    for name, impl in list(registry.OPS.items()):
        if name.startswith("check."):
            monkeypatch.setitem(registry.OPS, name, registry.OpImpl(recording(impl.run, name)))
    for name, fn in list(registry.CUSTOM_CALLS.items()):
        if name.startswith("check."):
            monkeypatch.setitem(registry.CUSTOM_CALLS, name, recording(fn, name))
    return log


def _chunks(text: str) -> list[tuple[str, int]]:
    """The ``// -----`` chunks of a lit file with their line offsets."""
    out, offset = [], 0
    for chunk in re.split(r"(?m)^// -----.*\n", text):
        out.append((chunk, offset))
        offset += chunk.count("\n") + 1
    return out


#: the configurations compared: (name, executor, COMPILE_AFTER or None for the default)
CONFIGS = (("plain", "plain", None), ("compiled", "compiled", None), ("generated", "compiled", 0))


def _configure(monkeypatch, config: tuple) -> str:
    """Make ``config`` the configuration of the interpreters made from now on; its executor's name."""
    _, executor, compile_after = config
    monkeypatch.setenv(EXECUTOR_ENV, executor)
    monkeypatch.setattr(_Plan, "COMPILE_AFTER", _DEFAULT_COMPILE_AFTER if compile_after is None else compile_after)
    return executor


_DEFAULT_COMPILE_AFTER = _Plan.COMPILE_AFTER


def _run_file(path: Path, config: tuple, log: list, tmp: Path, monkeypatch) -> list:
    """Run every chunk of a conformance file under ``config``; per chunk, what it printed, its results (bits) or
    its error message, and what its ``check`` ops read."""
    executor = _configure(monkeypatch, config)
    ctx = hlokit.make_context(allow_unregistered_dialects=True)
    probes = tmp / config[0]
    probes.mkdir(exist_ok=True)
    runs = []
    for text, offset in _chunks(path.read_text()):
        log.clear()
        out = io.StringIO()
        try:
            module = load_program(text, context=ctx, source_name=path.name, line_offset=offset, allow_unregistered=True)
            prepare_module(module, path.name)
            interp = Interpreter(module, probe_dir=str(probes), out=out, executor=executor)
            if not interp.functions:
                continue
            results = [_bits(r) for r in interp.call(entry_function(interp), [])]
        except hlokit.HlokitError as err:
            results = ["error", str(err)]
        runs.append((out.getvalue(), results, list(log)))
    return runs


def _interpret_files() -> list[Path]:
    if not SUITE.is_dir():
        return []
    return sorted(p for p in SUITE.glob("*.mlir")
                  if any(l.startswith("// RUN") and "--interpret" in l for l in p.read_text().splitlines()))


@pytest.mark.skipif(not SUITE.is_dir(), reason="../shared/conformance/interpret is absent (the upstream suite)")
def test_conformance_suite_runs_the_same_bits_in_both_executors(recorded, tmp_path, monkeypatch):
    files = _interpret_files()
    assert len(files) > 90
    chunks = checks = 0
    for path in files:
        plain, *others = [_run_file(path, config, recorded, tmp_path, monkeypatch) for config in CONFIGS]
        for config, other in zip(CONFIGS[1:], others):
            assert len(plain) == len(other), path.name
            for k, (p, c) in enumerate(zip(plain, other)):
                assert p == c, f"{path.name}, chunk {k}: the plain walker and {config[0]} differ"
        chunks += len(plain)
        checks += sum(len(p[2]) for p in plain)
    assert chunks > 450 and checks > 450  # (what ran, and the checks whose operands were compared)


def _signature(text: str):
    module = load_program(text)
    interp = Interpreter(module)
    func = interp.functions[entry_function(interp)]
    ft = ir.FunctionType(attributes.type_value(func, "function_type"))
    num_replicas = num_partitions = 1
    attrs = module.operation.attributes
    if "mhlo.num_replicas" in attrs:
        num_replicas = ir.IntegerAttr(attrs["mhlo.num_replicas"]).value
    if "mhlo.num_partitions" in attrs:
        num_partitions = ir.IntegerAttr(attrs["mhlo.num_partitions"]).value
    return [ir.RankedTensorType(t) for t in ft.inputs], num_replicas, num_partitions


def _random(t: ir.RankedTensorType, rng: np.random.Generator) -> np.ndarray:
    dt = dtypes.dtype_of(t.element_type)
    shape = tuple(d if d >= 0 else 3 for d in t.shape)  # (a dynamic dimension: 3)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(0, 8, shape).astype(dt)
    if dt.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dt)
    return rng.normal(size=shape).astype(dt)


def _example_inputs(path: Path, types, rng) -> list[np.ndarray]:
    args = [_random(t, rng) for t in types]
    if any(s in path.name for s in ("cholesky", "cho_solve", "eigh")):  # a symmetric (Hermitian) positive definite
        fixed = []  # first operand: A A^H + n I, batch by batch
        for i, a in enumerate(args):
            if i == 0 and a.ndim >= 2 and a.shape[-1] == a.shape[-2] and a.dtype.kind in "fc":
                n = a.shape[-1]
                a = (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(a.dtype)
            fixed.append(a)
        args = fixed
    return args


def _examples(slow: bool) -> list[Path]:
    """The programs of examples/ (every ``.mlir`` file under it); the transformer only in the slow sweep (10 s in
    the plain walker, which keeps every value until its call returns)."""
    every = sorted(EXAMPLES.rglob("*.mlir"))
    return [p for p in every if (p.name == "transformer.mlir") == slow]


def _run_example(path: Path, monkeypatch) -> dict:
    text = path.read_text()
    types, r, p = _signature(text)
    args = _example_inputs(path, types, np.random.default_rng(0))
    got = {}
    for config in CONFIGS:
        executor = config[0]
        _configure(monkeypatch, config)
        try:
            if r * p > 1:
                out = hlokit.interpret(text, num_replicas=r, num_partitions=p, process_args=[args] * (r * p))
                got[executor] = [[_bits(v) for v in proc] for proc in out]
            else:
                got[executor] = [_bits(v) for v in hlokit.interpret(text, args)]
        except hlokit.HlokitError as err:  # (the same error in both)
            got[executor] = str(err)
    return got


@pytest.mark.parametrize("path", _examples(slow=False), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_examples_run_the_same_bits_in_both_executors(path, monkeypatch):
    got = _run_example(path, monkeypatch)
    assert got["plain"] == got["compiled"] == got["generated"]


@pytest.mark.slow
@pytest.mark.parametrize("path", _examples(slow=True), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_the_transformer_runs_the_same_bits_in_both_executors(path, monkeypatch):
    got = _run_example(path, monkeypatch)
    assert got["plain"] == got["compiled"] == got["generated"]


def test_a_long_loop_is_compiled_by_one_executor_only(monkeypatch):
    """The loop of ``while_1000`` runs past ``COMPILE_AFTER``: the compiled executor generates code for it, the plain
    walker none (so the comparison above covers generated code)."""
    compiled_loops = []
    real = _Plan._compile_loop
    monkeypatch.setattr(_Plan, "_compile_loop", staticmethod(lambda *a: compiled_loops.append(1) or real(*a)))
    _run_example(EXAMPLES / "interpreter_bench" / "while_1000.mlir", monkeypatch)
    assert compiled_loops == [1, 1]  # (compiled after COMPILE_AFTER iterations; generated from the first)


def test_the_executor_is_chosen_by_argument_or_environment(monkeypatch):
    module = load_program("func.func @main() -> () {\n  return\n}")
    monkeypatch.delenv(EXECUTOR_ENV, raising=False)
    assert Interpreter(module).executor.name == "compiled"
    assert Interpreter(module, executor="plain").executor.name == "plain"
    monkeypatch.setenv(EXECUTOR_ENV, "plain")
    assert Interpreter(module).executor.name == "plain"
    with pytest.raises(ValueError, match="unknown interpreter executor 'fast'"):
        Interpreter(module, executor="fast")


def test_the_plain_walker_asks_for_legalization_before_anything_runs():
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  interpreter.print %x : tensor<2xf32>
  %y = stablehlo.add %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}"""
    from hlokit.interpreter.errors import NeedsLegalization

    out = io.StringIO()
    interp = Interpreter(load_program(text), executor="plain", out=out,
                         legalization_check=lambda name, op: name == "stablehlo.add")
    with pytest.raises(NeedsLegalization):
        interp.call("main", [np.ones(2, np.float32)])
    assert out.getvalue() == ""  # (the print before the add never ran)
