"""The bidiagonal SVD route's pieces: hlokit's ``?gebrd``, bidiagonal divide and conquer and ``?ormbr`` on XLA CPU
against LAPACK's ``?gesdd`` split into ``?gebrd``, ``?bdsdc`` and ``?ormbr`` (issue 40, docs/lapack.md eighth round).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bidiagonal.py [--sizes 256,512] [--dtype float32,float64]
                                                           [--budget 1.5]

For each element type and order ``n`` (a square matrix of condition 1e6, singular values spaced
geometrically) prints median / best milliseconds of LAPACK's ``gesdd`` (``scipy.linalg.lapack``) and of its
``gebrd``, ``bdsdc`` (``compq = 'I'``) and ``ormbr`` (``vect = 'Q'``, one side) called through
``scipy.linalg.cython_lapack``'s function pointers; of hlokit's ``bidiagonal.gebrd_blocked``,
``bidiagonal_svd`` (of the reduced matrix's bidiagonal; LAPACK's is timed on LAPACK's own), ``apply_gebrd_q``
and the whole route ``bidiagonal_svd_tall`` (mode 'S'); then each piece's ratio to LAPACK's and the route's to
``gesdd`` (best times). Single-threaded LAPACK: set ``OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import argparse
import ctypes
import time

import numpy as np
import scipy.linalg.cython_lapack as cython_lapack
import scipy.linalg.lapack as lapack

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import bidiagonal

TYPES = {"float32": ("s", "f32", np.float32), "float64": ("d", "f64", np.float64)}


def lapack_function(name: str, nargs: int):
    """LAPACK routine ``name`` (e.g. ``sgebrd``) from scipy's ``cython_lapack`` as a ctypes function of
    ``nargs`` pointer arguments (Fortran calling convention: every argument by address)."""
    capsule = cython_lapack.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * nargs))(get_pointer(capsule, get_name(capsule)))


def timed(fn, budget: float) -> tuple[float, float]:
    """(median, best) milliseconds of ``fn()`` over ``budget`` seconds (at least 5 runs, after one)."""
    fn()
    times, end = [], time.time() + budget
    while time.time() < end or len(times) < 5:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3, min(times) * 1e3


def compiled(args: list, build):
    """XLA CPU executable of ``build(e, *args)`` (args: (shape, element type) pairs)."""
    e = Emitter()
    vs = e.args(args)
    text = e.text("main", list(vs), list(build(e, *vs))).replace("func.func private @main", "func.func @main")
    return xla_compile(hlokit.parse(text, context=hlokit.make_context()))


def run_xla(exe, *args):
    import jax

    return lambda: jax.block_until_ready(exe(*args))


def lapack_pieces(prefix: str, a: np.ndarray, budget: float) -> dict[str, tuple[float, float]]:
    """LAPACK's gesdd and its three pieces on ``a`` (``n x n``)."""
    n = a.shape[0]
    dt = a.dtype
    keep: list[np.ndarray] = []  # (the arrays whose addresses LAPACK gets stay alive)

    def ptr(x: np.ndarray) -> int:
        keep.append(x)
        return x.ctypes.data

    def i32(v: int) -> np.ndarray:
        return np.array([v], np.int32)

    gebrd = lapack_function(prefix + "gebrd", 11)
    bdsdc = lapack_function(prefix + "bdsdc", 14)
    ormbr = lapack_function(prefix + "ormbr", 14)
    lwork = 64 * n
    work = np.zeros(max(lwork, 3 * n * n + 4 * n), dt)
    iwork = np.zeros(8 * n, np.int32)
    info, nn, lw = i32(0), i32(n), i32(lwork)
    d, e, tauq, taup = (np.zeros(n, dt) for _ in range(4))
    x = np.asfortranarray(a.copy())
    src = np.asfortranarray(a)

    def run_gebrd():
        x[:] = src
        gebrd(ptr(nn), ptr(nn), ptr(x), ptr(nn), ptr(d), ptr(e), ptr(tauq), ptr(taup), ptr(work), ptr(lw), ptr(info))
        del keep[:]

    run_gebrd()
    d0, e0 = d.copy(), e.copy()
    u, vt = np.zeros((n, n), dt, order="F"), np.zeros((n, n), dt, order="F")
    chars = {c: np.array([ord(c)], np.uint8) for c in "UIQLN"}
    q, iq = np.zeros(1, dt), np.zeros(1, np.int32)

    def run_bdsdc():
        d[:], e[:] = d0, e0
        bdsdc(ptr(chars["U"]), ptr(chars["I"]), ptr(nn), ptr(d), ptr(e), ptr(u), ptr(nn), ptr(vt), ptr(nn), ptr(q),
              ptr(iq), ptr(work), ptr(iwork), ptr(info))
        del keep[:]

    run_bdsdc()
    if info[0] != 0:
        raise RuntimeError(f"{prefix}bdsdc info {info[0]}")
    c = np.asfortranarray(u.copy())

    def run_ormbr():
        c[:] = u
        ormbr(ptr(chars["Q"]), ptr(chars["L"]), ptr(chars["N"]), ptr(nn), ptr(nn), ptr(nn), ptr(x), ptr(nn),
              ptr(tauq), ptr(c), ptr(nn), ptr(work), ptr(lw), ptr(info))
        del keep[:]

    gesdd = getattr(lapack, prefix + "gesdd")
    return {"gesdd": timed(lambda: gesdd(a), budget), "gebrd": timed(run_gebrd, budget),
            "bdsdc": timed(run_bdsdc, budget), "ormbr": timed(run_ormbr, budget)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,512")
    parser.add_argument("--dtype", default="float32,float64")
    parser.add_argument("--budget", type=float, default=1.5, help="seconds per measurement")
    opts = parser.parse_args(argv)
    for dtype in opts.dtype.split(","):
        prefix, t, dt = TYPES[dtype]
        for n in (int(s) for s in opts.sizes.split(",")):
            rng = np.random.default_rng(n)
            u, _ = np.linalg.qr(rng.standard_normal((n, n)))
            v, _ = np.linalg.qr(rng.standard_normal((n, n)))
            a = ((u * np.logspace(0, -6, n)) @ v.T).astype(dt)
            lp = lapack_pieces(prefix, a, opts.budget)
            gebrd = compiled([((n, n), t)], lambda e, x: bidiagonal.gebrd_blocked(e, x))
            packed, d, sup, tauq, _ = (np.asarray(y) for y in gebrd(a))
            ormbr = compiled([((n, n), t), ((n,), t), ((n, n), t)],
                             lambda e, p, tq, c: [bidiagonal.apply_gebrd_q(e, p, tq, c)])
            bdsvd = compiled([((n,), t), ((n - 1,), t)], lambda e, dd, oo: list(bidiagonal.bidiagonal_svd(e, dd, oo)))
            route = compiled([((n, n), t)], lambda e, x: list(bidiagonal.bidiagonal_svd_tall(e, x, "S")))
            ours = {"gebrd": timed(run_xla(gebrd, a), opts.budget),
                    "bdsdc": timed(run_xla(bdsvd, d, sup), opts.budget),
                    "ormbr": timed(run_xla(ormbr, packed, tauq, a), opts.budget),
                    "gesdd": timed(run_xla(route, a), opts.budget)}
            print(f"{dtype} n={n}  LAPACK (median / best ms): "
                  + "  ".join(f"{k} {m:.3f} / {b:.3f}" for k, (m, b) in lp.items())
                  + "\n" + " " * len(f"{dtype} n={n}") + "  hlokit: "
                  + "  ".join(f"{k} {m:.3f} / {b:.3f}" for k, (m, b) in ours.items())
                  + "\n" + " " * len(f"{dtype} n={n}") + "  ratios (best): "
                  + "  ".join(f"{k} {ours[k][1] / lp[k][1]:.2f}" for k in ours), flush=True)


if __name__ == "__main__":
    main()
