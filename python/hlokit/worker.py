"""A worker process for calls into C++ that can crash or hang on user input, never a fork of a threaded process.

jaxlib's bytecode reader, StableHLO's portable-artifact reader and XLA's HLO text parser abort the process
(``terminate called ...``, ``Check failed``) or spin forever on some corrupt input. hlokit runs such calls in a
worker process, started on first use and kept for the next calls, that reads requests from a pipe and writes
answers to another. A process that has started other threads (JAX's, once it is imported) must not ``os.fork()``:
the child inherits locks held by threads that do not exist in it (Python warns "os.fork() was called ... will
likely lead to a deadlock"). So the worker is

* a forked copy of this process when the process runs a single thread at the moment of the fork (JAX not
  imported, no other Python thread, and one OS thread right after the fork — numpy's OpenBLAS stops its pool at a
  fork — e.g. ``hlokit-opt`` / ``hlokit-translate`` reading bytecode): it starts in milliseconds with every module
  already imported (:func:`_fork_worker`);
* otherwise a new interpreter, ``python -m hlokit.worker`` started by ``subprocess`` (which ``exec``\\ s at once),
  that imports what its jobs need (a few hundred milliseconds, once per process).

A request names its job as ``"module:function"`` (an importable module, hlokit's own for the product's jobs; the
worker imports it, with this process's ``sys.path``), so that no closure is pickled: the job is a module-level function ``fn(payload: bytes, **options) -> bytes``
whose ``options`` are JSON values. Its answer is one of:

* the bytes it returned;
* the located diagnostics of a :class:`~hlokit.diagnostics.HlokitError` it raised (:class:`JobDiagnostics`);
* the message of any other exception (:class:`JobFailed`);
* nothing, because the worker died (:class:`WorkerCrashed`, with the signal) or did not answer within the time
  limit (:class:`WorkerTimeout`; the worker is killed). A new worker starts on the next call.

Frames: a 4-byte big-endian length, a JSON header (``{"job", "options", "size"}`` / ``{"status", "size"}``),
then ``size`` bytes of payload. The worker's standard streams are ``/dev/null`` (a job's C++ abort text is
replaced by the caller's diagnostic); the frames travel on two extra pipes. Its JAX, if a job imports it, runs on
the CPU only (``JAX_PLATFORMS=cpu``).
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib
import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time

from hlokit.diagnostics import Diagnostic, HlokitError

__all__ = ["run_job", "WorkerCrashed", "WorkerTimeout", "JobFailed", "JobDiagnostics", "shutdown"]

_LENGTH = struct.Struct(">I")


class WorkerCrashed(Exception):
    """The worker died while running a job: ``signal`` is the signal that killed it (0: it exited, ``code``)."""

    def __init__(self, signal_number: int, code: int):
        super().__init__(f"signal {signal_number}" if signal_number else f"exit {code}")
        self.signal = signal_number
        self.code = code


class WorkerTimeout(Exception):
    """The job did not finish within its time limit; the worker was killed."""


class JobFailed(Exception):
    """The job raised an exception other than an HlokitError: ``str(err)`` is its message."""


class JobDiagnostics(Exception):
    """The job raised an :class:`~hlokit.diagnostics.HlokitError`: ``diagnostics`` are its located diagnostics,
    ``default_file`` the file it named for those without one."""

    def __init__(self, diagnostics: list[Diagnostic], default_file: str | None = None):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics
        self.default_file = default_file


# ---- frames ---------------------------------------------------------------------------------------------------

def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _frame(header: dict, payload: bytes) -> bytes:
    head = json.dumps({**header, "size": len(payload)}).encode()
    return _LENGTH.pack(len(head)) + head + payload


class _Reader:
    """Reads frames from ``fd``; with a ``deadline`` (``time.monotonic()``), raises WorkerTimeout past it.
    EOF raises EOFError."""

    def __init__(self, fd: int):
        self.fd = fd

    def read(self, n: int, deadline: float | None) -> bytes:
        chunks, left = [], n
        while left:
            if deadline is not None:
                wait = deadline - time.monotonic()
                if wait <= 0 or not select.select([self.fd], [], [], wait)[0]:
                    raise WorkerTimeout()
            chunk = os.read(self.fd, min(left, 1 << 20))
            if not chunk:
                raise EOFError()
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def frame(self, deadline: float | None = None) -> tuple[dict, bytes]:
        (n,) = _LENGTH.unpack(self.read(_LENGTH.size, deadline))
        header = json.loads(self.read(n, deadline))
        return header, self.read(header["size"], deadline)


# ---- the parent's side ----------------------------------------------------------------------------------------

def _threads() -> int:
    """The number of OS threads of this process (Linux: the entries of ``/proc/self/task``, which count the threads
    that C++ libraries start too); 0 where that cannot be read."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


class _ForkedWorker:
    """The worker as a forked copy of this process, made only while this process has a single thread (so no lock
    can be held by a thread the copy lacks): it has every module this process imported and starts in milliseconds.
    The part of ``subprocess.Popen``'s interface that :class:`_Worker` uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("hlokit.worker", timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _fork_worker(to_child: int, from_child: int, parent_ends: tuple[int, int]) -> _ForkedWorker | None:
    """Fork the worker if this process runs a single thread at the moment of the fork; None (nothing left running)
    otherwise.

    Tried only where JAX is not imported (its fork hook warns whatever the threads) and Python knows of no other
    thread. Libraries may still run threads of their own: numpy's OpenBLAS stops its pool in its ``pthread_atfork``
    handler, so those do not count; any other thread does. Right after the fork the parent counts its OS threads,
    the test CPython applies before it warns that a multi-threaded process forked: with more than one, the child
    (still waiting for its first request) is killed and None returned. The child closes the parent's pipe ends,
    sends its standard streams to ``/dev/null``, runs :func:`main` and exits without this process's exit
    handlers."""
    if "jax" in sys.modules or threading.active_count() != 1 or _threads() == 0:
        return None
    pid = os.fork()
    if pid:
        if _threads() == 1:
            return _ForkedWorker(pid)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    code = 1
    try:
        for fd in parent_ends:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            if fd not in (to_child, from_child):
                os.dup2(null, fd)
        os.environ["JAX_PLATFORMS"] = "cpu"
        code = main([str(to_child), str(from_child)])
    finally:
        os._exit(code)


class _Worker:
    """One worker process and its two pipes."""

    def __init__(self):
        to_child, self._to_worker = os.pipe()
        self._from_worker, from_child = os.pipe()
        try:
            self.proc = _fork_worker(to_child, from_child, (self._to_worker, self._from_worker))
            if self.proc is None:
                # (its jobs need no accelerator: a job that imports JAX gets the CPU backend only)
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "JAX_PLATFORMS": "cpu"}
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "hlokit.worker", str(to_child), str(from_child)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    pass_fds=(to_child, from_child), env=env, close_fds=True)
        finally:
            os.close(to_child)
            os.close(from_child)
        self._reader = _Reader(self._from_worker)
        self.pid = os.getpid()

    def call(self, job: str, payload: bytes, options: dict, timeout: float) -> tuple[dict, bytes]:
        deadline = time.monotonic() + timeout
        try:
            _write_all(self._to_worker, _frame({"job": job, "options": options}, payload))
            return self._reader.frame(deadline)
        except WorkerTimeout:
            self.close(kill=True)
            raise
        except (EOFError, BrokenPipeError):
            code = self._exit_code(deadline)
            self.close(kill=True)
            if code is None:
                raise WorkerTimeout() from None
            raise WorkerCrashed(-code if code < 0 else 0, code) from None

    def _exit_code(self, deadline: float) -> int | None:
        """The worker's exit status after it closed its pipe (negative: the signal); None past ``deadline``."""
        try:
            return self.proc.wait(timeout=max(0.0, deadline - time.monotonic()) + 1.0)
        except subprocess.TimeoutExpired:
            return None

    def close(self, kill: bool = False) -> None:
        for fd in (self._to_worker, self._from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill and self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_LOCK = threading.Lock()
_WORKER: _Worker | None = None


def run_job(job: str, payload: bytes = b"", *, options: dict | None = None, timeout: float = 60.0) -> bytes:
    """Run ``job`` (``"module:function"``, a module-level ``fn(payload: bytes, **options) -> bytes``) on
    ``payload`` in the worker process and return its bytes. Starts the worker on first use (and after a crash or a
    timeout); calls from several threads take turns.

    Raises :class:`WorkerTimeout` (after ``timeout`` seconds; the worker is killed), :class:`WorkerCrashed`,
    :class:`JobDiagnostics` (the job raised an HlokitError) or :class:`JobFailed` (any other exception).
    """
    global _WORKER
    with _LOCK:
        if _WORKER is None or _WORKER.pid != os.getpid():  # (a forked copy of this process starts its own)
            _WORKER = _Worker()
        worker = _WORKER
        try:
            header, data = worker.call(job, payload, options or {}, timeout)
        except (WorkerTimeout, WorkerCrashed):
            _WORKER = None
            raise
    status = header["status"]
    if status == "ok":
        return data
    if status == "diagnostics":
        found = json.loads(data)
        raise JobDiagnostics([_diagnostic_from_dict(d) for d in found["diagnostics"]], found["file"])
    raise JobFailed(data.decode("utf-8", "replace"))


def shutdown() -> None:
    """Stop the worker process (if one runs); the next :func:`run_job` starts a new one."""
    global _WORKER
    with _LOCK:
        if _WORKER is not None and _WORKER.pid == os.getpid():
            _WORKER.close()
        _WORKER = None


atexit.register(shutdown)


def _diagnostic_from_dict(d: dict) -> Diagnostic:
    notes = [_diagnostic_from_dict(n) for n in d.pop("notes", [])]
    return Diagnostic(**d, notes=notes)


# ---- the worker's side ----------------------------------------------------------------------------------------

def _resolve(job: str):
    module, _, name = job.partition(":")
    if not module or not name:
        raise ValueError(f"a job is named 'module:function', not '{job}'")
    return getattr(importlib.import_module(module), name)


def _answer(job: str, options: dict, payload: bytes) -> bytes:
    try:
        data = _resolve(job)(payload, **options)
        return _frame({"status": "ok"}, bytes(data))
    except HlokitError as err:
        found = {"diagnostics": [dataclasses.asdict(d) for d in err.diagnostics], "file": err.default_file}
        return _frame({"status": "diagnostics"}, json.dumps(found).encode())
    except Exception as err:  # noqa: BLE001 - its message goes to the caller
        return _frame({"status": "error"}, str(err).encode("utf-8", "replace"))


def main(argv: list[str]) -> int:
    """The worker's loop: read a request from fd ``argv[0]``, answer on fd ``argv[1]``, until EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the caller, which stops the worker
    reader, out = _Reader(int(argv[0])), int(argv[1])
    while True:
        try:
            header, payload = reader.frame()
        except EOFError:
            return 0
        _write_all(out, _answer(header["job"], header["options"], payload))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
