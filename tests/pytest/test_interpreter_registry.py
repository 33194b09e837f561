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
    assert registry.OPS["stablehlo.dot_general"].__module__ == "hlokit.interpreter.linalg"
    assert registry.OPS["stablehlo.convolution"].__module__ == "hlokit.interpreter.convolution"
    assert registry.OPS["stablehlo.fft"].__module__ == "hlokit.interpreter.fft"


def test_register_refuses_a_second_adapter_for_a_name():
    with pytest.raises(ValueError, match="'stablehlo.add' registered twice"):
        registry.register("stablehlo.add")(lambda op, operands, interp: [])
    assert registry.OPS["stablehlo.add"].__module__ == "hlokit.interpreter.elementwise"


def test_register_custom_call_refuses_a_second_adapter_for_a_target():
    with pytest.raises(ValueError, match="'check.expect_close' registered twice"):
        registry.register_custom_call("check.expect_close")(lambda op, operands, interp: [])


def test_register_adds_a_new_name_once():
    def adapter(op, operands, interp):
        return []

    try:
        registry.register("test.fresh_op")(adapter)
        assert registry.lookup("test.fresh_op") is adapter
        with pytest.raises(ValueError):
            registry.register("test.fresh_op")(lambda op, operands, interp: [])
    finally:
        registry.OPS.pop("test.fresh_op", None)
