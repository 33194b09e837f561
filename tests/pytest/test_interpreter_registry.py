"""Interpreter op table: one adapter per name; a second registration of a name is refused at import."""

from __future__ import annotations

import pytest

import hlokit.interpreter  # noqa: F401  (registers every family)
from hlokit.interpreter import registry


def test_every_family_is_registered_by_name():
    for name in ("stablehlo.add", "stablehlo.reduce", "stablehlo.dot_general", "stablehlo.convolution",
                 "stablehlo.fft", "stablehlo.triangular_solve", "stablehlo.gather", "stablehlo.while",
                 "stablehlo.custom_call", "check.expect_eq", "interpreter.run_parallel"):
        assert name in registry.OPS, name
    assert registry.OPS["stablehlo.dot_general"].run.__module__ == "hlokit.interpreter.linalg"
    assert registry.OPS["stablehlo.convolution"].run.__module__ == "hlokit.interpreter.convolution"
    assert registry.OPS["stablehlo.fft"].run.__module__ == "hlokit.interpreter.fft"


def test_register_refuses_a_second_adapter_for_a_name():
    with pytest.raises(ValueError, match="'stablehlo.add' registered twice"):
        registry.register("stablehlo.add")(lambda op, operands, interp: [])
    assert registry.OPS["stablehlo.add"].run.__module__ == "hlokit.interpreter.elementwise"


def test_register_custom_call_refuses_a_second_adapter_for_a_target():
    with pytest.raises(ValueError, match="'check.expect_close' registered twice"):
        registry.register_custom_call("check.expect_close")(lambda op, operands, interp: [])


def test_register_adds_a_new_name_once():
    def adapter(op, operands, interp):
        return []

    try:
        registry.register("test.fresh_op")(adapter)
        assert registry.lookup("test.fresh_op").run is adapter
        with pytest.raises(ValueError):
            registry.register("test.fresh_op")(lambda op, operands, interp: [])
    finally:
        registry.OPS.pop("test.fresh_op", None)


def test_every_op_is_an_opimpl_record_and_the_semantics_of_the_dialects_live_in_the_interpreter():
    assert all(isinstance(impl, registry.OpImpl) for impl in registry.OPS.values())
    assert registry.OPS["check.expect_eq"].run.__module__ == "hlokit.interpreter.check_ops"
    assert registry.OPS["interpreter.probe"].run.__module__ == "hlokit.interpreter.probe_ops"
    assert registry.CUSTOM_CALLS["check.expect_close"].__module__ == "hlokit.interpreter.check_ops"
    # the fields the compiled executor reads, on the ops that carry them
    assert registry.OPS["stablehlo.add"].kernel is not None and registry.OPS["stablehlo.add"].specialize is not None
    assert registry.OPS["stablehlo.add"].broadcasting((2,)).kernel is not None
    assert registry.OPS["stablehlo.constant"].prepare is not None and registry.OPS["stablehlo.dot_general"].prepare is None


def test_register_takes_a_function_or_a_record_and_returns_it():
    def adapter(op, operands, interp):
        return []

    record = registry.OpImpl(adapter, isolated_regions=True)
    try:
        assert registry.register("test.fresh_fn")(adapter) is adapter
        assert registry.OPS["test.fresh_fn"].run is adapter and registry.OPS["test.fresh_fn"].kernel is None
        assert registry.register("test.fresh_record")(record) is record
        assert registry.OPS["test.fresh_record"] is record
        assert registry.prepared(lambda op: record)(adapter).prepare(None) is record
    finally:
        registry.OPS.pop("test.fresh_fn", None)
        registry.OPS.pop("test.fresh_record", None)
