"""Shared fixtures of hlokit's pytest suite."""

from __future__ import annotations

import os
import pathlib

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from hypothesis import settings  # noqa: E402

# CI runs the same examples every time (a red CI names a real, reproducible failure); local runs keep
# hypothesis' random exploration. Tests set their own example counts; deadlines are off everywhere.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"


@pytest.fixture
def ctx():
    import hlokit

    return hlokit.make_context()


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def shared_dir() -> pathlib.Path:
    """``../shared`` beside the checkout; tests using it skip cleanly when it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present beside the checkout")
    return SHARED


# CI runs with ../shared beside the checkout: there a test skipped for its absence is a failure (a skip would hide
# that the upstream conformance suite did not run).
_SHARED_SKIPS: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and "shared" in str(report.longrepr):
        _SHARED_SKIPS.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("CI") and _SHARED_SKIPS:
        print(f"\nCI: {len(_SHARED_SKIPS)} test(s) skipped because ../shared is absent: {_SHARED_SKIPS[:5]}")
        session.exitstatus = 1
