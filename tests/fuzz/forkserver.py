"""A fork server for the fuzzer: imports the three tools once, then forks one child per case.

Starting Python and importing jaxlib takes about half a second per process; a forked child of a process
that has imported the tools (and created no MLIR context, no XLA client, no thread) starts in a few
milliseconds and runs the tool's ``main`` exactly as its console script does. Requests and replies are
JSON lines on stdin / stdout:

    {"tool": "hlokit-opt", "argv": [...], "cwd": DIR, "stdout": FILE, "stderr": FILE, "timeout": 60}
    {"returncode": 0 | 1 | -SIGNAL | null}          (null: killed at the timeout)

The child's exit code is what the console script's would be: ``main()``'s value, 1 with a traceback
for an exception escaping it, ``-N`` when a signal killed it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from hlokit.tools import hlokit_opt, hlokit_run, hlokit_translate  # noqa: E402

MAINS = {"hlokit-opt": hlokit_opt.main, "hlokit-translate": hlokit_translate.main, "hlokit-run": hlokit_run.main}


def _child(req: dict) -> None:
    os.chdir(req["cwd"])
    fd_in = os.open(os.devnull, os.O_RDONLY)
    fd_out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    fd_err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.argv = [req["tool"], *req["argv"]]
    code = 1
    try:
        code = MAINS[req["tool"]](req["argv"])
        code = 0 if code is None else code
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def serve() -> None:
    """Answer requests from stdin until it closes."""
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(req)
        rc = _wait(pid, float(req.get("timeout", 60)))
        sys.stdout.write(json.dumps({"returncode": rc}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
