"""hlokit.worker and its two users in hlokit.core (run_contained, check_bytecode): a crash or a hang of contained C++
is a located error, the worker is reused, and nothing forks this (threaded) process.

The jobs below run in the worker process: it imports this module by name (``test_worker:...``).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import hlokit
from hlokit import core, worker
from hlokit.core import ContainedError, run_contained

from conftest import REPO

ADD = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"""


# ---- jobs (run in the worker) ----------------------------------------------------------------------------------

def echo_job(payload: bytes, times: int = 1) -> bytes:
    return payload * times


def pid_job(payload: bytes) -> bytes:
    return str(os.getpid()).encode()


def raise_job(payload: bytes) -> bytes:
    raise ValueError("bad " + payload.decode())


def located_job(payload: bytes) -> bytes:
    raise hlokit.ParseError([hlokit.Diagnostic("error", "located", "in.mlir", 3, 4), hlokit.Diagnostic("error", "b")],
                            file="-")


def abort_job(payload: bytes) -> bytes:
    os.kill(os.getpid(), signal.SIGABRT)
    return b""


def sleep_job(payload: bytes) -> bytes:
    time.sleep(60)
    return b""


def _job(name: str) -> str:
    return f"{__name__}:{name}"


# ---- tests ------------------------------------------------------------------------------------------------------

def test_a_job_returns_its_bytes_and_options_reach_it():
    big = os.urandom(3 << 20)  # larger than a pipe's buffer, both ways
    assert run_contained(_job("echo_job"), big, what="echo", options={"times": 2}) == big * 2
    assert run_contained(_job("echo_job"), b"", what="echo") == b""


def test_the_worker_is_started_once_and_reused():
    first = run_contained(_job("pid_job"), what="pid")
    assert run_contained(_job("pid_job"), what="pid") == first
    assert int(first) != os.getpid()


def test_an_exception_of_the_job_is_a_contained_error():
    with pytest.raises(ContainedError, match="^bad input$"):
        run_contained(_job("raise_job"), b"input", what="raise")
    with pytest.raises(ContainedError, match=r"^in\.mlir:3:4: error: located\n-: error: b$"):
        run_contained(_job("located_job"), what="located")


def test_a_crash_is_a_located_error_and_the_next_call_gets_a_new_worker():
    before = run_contained(_job("pid_job"), what="pid")
    with pytest.raises(hlokit.ParseError, match=r"^x\.bin: error: the reader: crashed on this input \(signal 6\)$"):
        run_contained(_job("abort_job"), what="the reader", source_name="x.bin")
    after = run_contained(_job("pid_job"), what="pid")
    assert after != before


def test_a_hang_is_stopped_at_the_time_limit():
    t0 = time.monotonic()
    with pytest.raises(hlokit.ParseError, match=r"^x\.bin: error: the reader: did not finish within 1 s$"):
        run_contained(_job("sleep_job"), what="the reader", source_name="x.bin", timeout=1.0)
    assert time.monotonic() - t0 < 10
    assert run_contained(_job("echo_job"), b"ok", what="echo") == b"ok"


def test_an_unknown_job_is_a_contained_error():
    with pytest.raises(ContainedError, match="no_such_job"):
        run_contained(_job("no_such_job"), what="x")


def _bytecode(text: str) -> bytes:
    ctx = hlokit.make_context()
    buf = io.BytesIO()
    hlokit.parse(text, context=ctx).operation.write_bytecode(buf)
    return buf.getvalue()


def test_check_bytecode_passes_good_bytecode_and_locates_a_reader_error():
    data = _bytecode(ADD)
    core.check_bytecode(data, source_name="a.mlirbc")
    with pytest.raises(hlokit.ParseError, match=r"^a\.mlirbc"):
        core.check_bytecode(data[:40], source_name="a.mlirbc")


def test_check_bytecode_time_limit():
    with pytest.raises(hlokit.ParseError, match="corrupt MLIR bytecode: the bytecode reader did not finish within 0 s"):
        core.check_bytecode(_bytecode(ADD), source_name="a.mlirbc", timeout=0.0)


def test_shutdown_stops_the_worker():
    run_contained(_job("echo_job"), b"x", what="echo")
    proc = worker._WORKER.proc
    worker.shutdown()
    assert proc.poll() is not None and worker._WORKER is None


_NO_FORK = textwrap.dedent('''
    import io, warnings, numpy as np
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as seen:
        import hlokit
        from hlokit import backend
        from hlokit.tools.translate_portable import deserialize, serialize
        ctx = hlokit.make_context()
        module = hlokit.parse(open(%r).read(), context=ctx)
        out = backend.compile(module)(np.ones(2, np.float32))   # JAX's threads run from here on
        buf = io.BytesIO(); module.operation.write_bytecode(buf)
        hlokit.parse(buf.getvalue(), context=ctx)                  # check_bytecode
        deserialize(serialize(module, "current"), ctx)             # run_contained
    forks = [str(w.message) for w in seen if "fork" in str(w.message)]
    assert not forks, forks
    print("ok", out)
''')


def test_compile_then_parse_bytecode_never_forks(tmp_path):
    """The compile-then-parse-bytecode sequence of an API user: JAX's os.fork() warning must not appear (it did
    when the bytecode check forked this process), neither as a Python warning nor on stderr."""
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    proc = subprocess.run([sys.executable, "-c", _NO_FORK % str(src)],
                          capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "fork" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok")


_MODES = textwrap.dedent('''
    import threading, time, warnings
    warnings.simplefilter("error")                      # Python 3.12's multi-threaded fork warning fails the run
    from hlokit import worker
    from hlokit.core import run_contained
    single = worker._threads() == 1
    run_contained("test_worker:pid_job", what="pid")
    first = type(worker._WORKER.proc).__name__
    try:
        run_contained("test_worker:abort_job", what="the reader")
    except Exception as err:
        crash = str(err)
    worker.shutdown()
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()   # now this process has a second thread
    run_contained("test_worker:pid_job", what="pid")
    second = type(worker._WORKER.proc).__name__
    stop.set()
    print(single, first, second, crash, sep="|")
''')


def test_a_single_threaded_process_forks_its_worker_a_threaded_one_starts_a_new_interpreter():
    """With one thread (OpenBLAS told to start none) the worker is a forked copy; a crash in it is still a located
    error. Once the process has a second thread the worker is a new interpreter (``subprocess``), never a fork."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _MODES], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    single, first, second, crash = proc.stdout.strip().split("|")
    assert single == "True"
    assert (first, second) == ("_ForkedWorker", "Popen")
    assert "crashed on this input (signal 6)" in crash


_FOREIGN_THREAD = textwrap.dedent('''
    import os
    from hlokit import worker
    from hlokit.core import run_contained
    counts = iter([1, 2])                 # one thread before the fork, two right after it: a thread unknown to Python
    worker._threads = lambda: next(counts, 2)
    run_contained("test_worker:pid_job", what="pid")
    kind = type(worker._WORKER.proc).__name__
    children = open(f"/proc/self/task/{os.getpid()}/children").read().split()
    print(kind, len(children), sep="|")
''')


def test_a_fork_made_while_another_thread_ran_is_undone():
    """When the process had more than one thread at the moment of the fork (counted right after it, as CPython
    does), the forked child is killed before it runs a job and the worker is a new interpreter instead."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "OPENBLAS_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _FOREIGN_THREAD], capture_output=True, text=True, timeout=300,
                          cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    kind, children = proc.stdout.strip().split("|")
    assert kind == "Popen"
    assert children == "1"                # the worker; the killed fork is reaped
