"""Tool environment shared by hlokit's lit configurations (tests/lit and tests/conformance)."""

import os
import shutil
import sys
import sysconfig


def configure_tools(config) -> str:
    """Put hlokit's console scripts on the tests' PATH, pass through the variables the tools read,
    run XLA on the CPU unless told otherwise; return the path of the ``filecheck`` command."""
    scripts = sysconfig.get_path("scripts")  # where `pip install` put hlokit-opt & co. for this Python
    config.environment["PATH"] = os.pathsep.join(
        [scripts, os.path.dirname(sys.executable), os.environ.get("PATH", "")]
    )
    for var in ("HOME", "TMPDIR", "JAX_PLATFORMS", "XLA_FLAGS", "HLOKIT_TRACEBACK"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    config.environment.setdefault("JAX_PLATFORMS", "cpu")
    return shutil.which("filecheck", path=config.environment["PATH"]) or "filecheck"
