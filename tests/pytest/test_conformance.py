"""The upstream StableHLO interpreter suite (../shared/conformance/interpret) through lit.

Runs ``lit tests/conformance`` (stablehlo-translate -> hlokit-translate, stablehlo-opt -> hlokit-opt,
FileCheck -> filecheck), prints the pass count, and asserts that every file listed in
``tests/conformance/expected_pass.txt`` passes. Skipped when ``../shared`` is absent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO.parent / "shared" / "conformance" / "interpret"
EXPECTED = REPO / "tests" / "conformance" / "expected_pass.txt"


def _expected() -> list[str]:
    lines = EXPECTED.read_text().splitlines()
    return [l.strip() for l in lines if l.strip() and not l.startswith("#")]


def test_expected_pass_list_names_existing_files():
    if not SUITE.is_dir():
        pytest.skip("../shared/conformance/interpret is absent")
    missing = [f for f in _expected() if not (SUITE / f).is_file()]
    assert not missing, f"expected_pass.txt names files that are not in the suite: {missing}"


@pytest.mark.skipif(not SUITE.is_dir(), reason="../shared/conformance/interpret is absent")
def test_conformance_suite():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run(
        [sys.executable, "-c", "import lit.main; lit.main.main()", "-v", "-j2", str(REPO / "tests" / "conformance")],
        capture_output=True, text=True, env=env, timeout=900,
    )
    results = dict(
        (m.group(2), m.group(1))
        for m in re.finditer(r"^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS|UNRESOLVED|TIMEOUT): [^:]+ :: (\S+)", proc.stdout, re.M)
    )
    assert results, f"lit ran no tests:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    passed = sorted(f for f, r in results.items() if r == "PASS")
    print(f"\nconformance: {len(passed)} of {len(results)} files pass")
    failing_expected = [f for f in _expected() if results.get(f) != "PASS"]
    assert not failing_expected, (
        f"{len(failing_expected)} files of expected_pass.txt do not pass: {failing_expected}\n"
        + proc.stdout[-4000:]
    )
