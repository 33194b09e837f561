"""Every ``dot_general`` the linear-algebra legalizations emit asks for full precision.

A ``dot_general`` without ``precision_config`` (or with ``DEFAULT``) lets XLA's TPU backend round f32 operands to
bf16 and its GPU backend use TF32 (10-bit mantissas) on Ampere and later (StableHLO spec, "dot_general":
``precision_config``; XLA operation semantics, "DotGeneral"), far outside the accuracy bounds of the
algorithms. The legalized programs of ``examples/linalg`` (one per function, f32 and complex128) are prepared
for XLA CUDA, where jax's CPU LAPACK calls do not run, and every ``dot_general`` in them is checked.
"""

from __future__ import annotations

import pathlib
import re

import pytest

import hlokit
from hlokit.passes.prepare import prepare

LINALG = pathlib.Path(__file__).resolve().parents[2] / "examples" / "linalg"
FAMILIES = sorted({re.sub(r"_(f32|f64|c64|c128)_.*", "", p.stem) for p in LINALG.glob("*.mlir")})
DOT = re.compile(r"stablehlo\.dot_general\b[^\n]*")
HIGHEST = re.compile(r"precision = \[HIGHEST, HIGHEST\]|precision_config = \[#stablehlo<precision HIGHEST>, "
                     r"#stablehlo<precision HIGHEST>\]")


def _example(family: str, t: str) -> pathlib.Path | None:
    found = sorted(LINALG.glob(f"{family}_{t}_*.mlir"))
    return found[0] if found else None


@pytest.mark.parametrize("t", ["f32", "c128"])
@pytest.mark.parametrize("family", FAMILIES)
def test_legalized_dot_generals_ask_highest(family, t):
    path = _example(family, t)
    if path is None:
        pytest.skip(f"no {t} example of {family}")
    module = hlokit.parse(path.read_text(), context=hlokit.make_context())
    before = _loose(str(module))  # the program's own products (jnp.linalg.matrix_power's) keep theirs
    text = str(prepare(module, engine="xla", platform="cuda").module)
    assert "custom_call @lapack" not in text
    loose = _loose(text)
    assert len(loose) == len(before), (
        f"{path.name}: {len(loose) - len(before)} dot_general(s) without HIGHEST precision, e.g. {loose[-1]}")


def _loose(text: str) -> list[str]:
    return [m.group(0)[:160] for m in DOT.finditer(text) if not HIGHEST.search(m.group(0))]


def test_the_check_sees_a_default_precision_dot():
    # The pattern above must catch a dot_general the builders leave at the default precision.
    text = ("%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>")
    assert [m for m in DOT.finditer(text) if not HIGHEST.search(m.group(0))]
