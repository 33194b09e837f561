"""Export ``jnp.linalg`` / ``jax.scipy.linalg`` programs for CPU into ``examples/linalg/*.mlir``.

    python examples/linalg/export.py              # rewrites the committed examples/linalg/*.mlir
    python examples/linalg/export.py --inventory  # prints every lapack_*_ffi call of every function

JAX lowers these functions on CPU to ``stablehlo.custom_call @lapack_*_ffi`` (jaxlib's LAPACK kernels);
``docs/lapack.md`` lists the targets. :data:`FUNCTIONS` maps a name to ``(fn, arity, kind)``: ``fn`` takes
``arity`` arrays (an ``n x n`` matrix, then an ``n x 2`` right-hand side), ``kind`` says which inputs the
function is defined on ("spd": Hermitian positive definite, "tri": triangular, "herm": Hermitian,
"general"). :func:`lower` gives the MLIR text for one element type and batch shape and :func:`inputs`
makes inputs of a chosen condition; the tests use both.
"""

from __future__ import annotations

import pathlib
import re
import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

jax.config.update("jax_platforms", "cpu")

HERE = pathlib.Path(__file__).resolve().parent

DTYPES = ("float32", "float64", "complex64", "complex128")

FUNCTIONS = {
    "cholesky": (jnp.linalg.cholesky, 1, "spd"),
    "solve": (jnp.linalg.solve, 2, "general"),
    "solve_triangular_lower": (lambda a, b: jsl.solve_triangular(a, b, lower=True), 2, "tri"),
    "solve_triangular_upper_trans_unit": (
        lambda a, b: jsl.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True), 2, "tri"),
    "solve_triangular_lower_adjoint": (lambda a, b: jsl.solve_triangular(a, b, lower=True, trans=2), 2, "tri"),
    "cho_solve": (lambda a, b: jsl.cho_solve((jnp.linalg.cholesky(a), True), b), 2, "spd"),
    "triangular_solve_right": (
        lambda a, b: jax.lax.linalg.triangular_solve(a, jnp.swapaxes(b, -1, -2), left_side=False, lower=False,
                                                     transpose_a=True), 2, "tri"),
    "inv": (jnp.linalg.inv, 1, "general"),
    "det": (jnp.linalg.det, 1, "general"),
    "slogdet": (jnp.linalg.slogdet, 1, "general"),
    "lu": (jax.lax.linalg.lu, 1, "general"),
    "lu_factor": (jsl.lu_factor, 1, "general"),
    "qr": (jnp.linalg.qr, 1, "general"),
    "qr_complete": (lambda a: jnp.linalg.qr(a, mode="complete"), 1, "general"),
    "eigh": (jnp.linalg.eigh, 1, "herm"),
    "eigvalsh": (jnp.linalg.eigvalsh, 1, "herm"),
    "svd": (jnp.linalg.svd, 1, "general"),
    "svd_reduced": (lambda a: jnp.linalg.svd(a, full_matrices=False), 1, "general"),
    "svdvals": (lambda a: jnp.linalg.svd(a, compute_uv=False), 1, "general"),
    # SvdAlgorithm.QR: LAPACK gesvd instead of gesdd (the same operands, results and modes).
    "svd_qr": (lambda a: jax.lax.linalg.svd(a, algorithm=jax.lax.linalg.SvdAlgorithm.QR), 1, "general"),
    "svdvals_qr": (lambda a: jax.lax.linalg.svd(a, compute_uv=False, algorithm=jax.lax.linalg.SvdAlgorithm.QR),
                   1, "general"),
    "pinv": (jnp.linalg.pinv, 1, "general"),
    # lstsq takes one matrix: vectorized over the batch (JAX's vmap batches its gesdd call).
    "lstsq": (jnp.vectorize(lambda a, b: jnp.linalg.lstsq(a, b)[0], signature="(n,n),(n,k)->(n,k)"), 2,
              "general"),
    "matrix_power": (lambda a: jnp.linalg.matrix_power(a, -3), 1, "general"),
    "norm2": (lambda a: jnp.linalg.norm(a, 2, axis=(-2, -1)), 1, "general"),
    "eig": (jnp.linalg.eig, 1, "general"),
    "eigvals": (jnp.linalg.eigvals, 1, "general"),
    "eig_left": (lambda a: jax.lax.linalg.eig(a, compute_left_eigenvectors=True), 1, "general"),
    "schur": (jsl.schur, 1, "general"),  # real input: the real Schur form (sgees / dgees)
    # output="complex": the complex Schur form (cgees / zgees, any input; a real input is converted first).
    "schur_complex": (lambda a: jsl.schur(a, output="complex"), 1, "general"),
    "qr_pivoting": (lambda a: jax.lax.linalg.qr(a, pivoting=True, full_matrices=False), 1, "general"),
    "hessenberg": (jax.lax.linalg.hessenberg, 1, "general"),
    "tridiagonal": (lambda a: jax.lax.linalg.tridiagonal(a, lower=True), 1, "herm"),
}

#: The committed examples: (function, element type, batch shape, n): every function in every element type,
#: and a few batched ones.
COMMITTED = [(name, dtype, (), 4) for name in FUNCTIONS for dtype in DTYPES] + [
    ("cholesky", "float64", (2, 3), 4),
    ("cholesky", "complex128", (2,), 4),
    ("solve_triangular_lower", "float64", (2,), 4),
    ("solve_triangular_lower_adjoint", "complex64", (2,), 4),
    ("lu", "complex64", (2,), 4),
    ("qr", "float64", (2,), 4),
    ("eigh", "complex64", (3,), 4),
    ("svd", "complex128", (2,), 4),
]

_SHORT = {"float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128"}


def avals(name: str, dtype: str, batch: tuple[int, ...] = (), n: int = 4) -> list[jax.ShapeDtypeStruct]:
    """The abstract arguments of ``name``: an ``(*batch, n, n)`` matrix, then an ``(*batch, n, 2)`` rhs."""
    arity = FUNCTIONS[name][1]
    shapes = [(*batch, n, n), (*batch, n, 2)][:arity]
    return [jax.ShapeDtypeStruct(s, dtype) for s in shapes]


def lower(name: str, dtype: str, batch: tuple[int, ...] = (), n: int = 4) -> str:
    """MLIR text of ``jax.jit(fn)`` lowered for CPU (with jaxlib's LAPACK custom calls), whatever jax's
    default platform is."""
    fn = FUNCTIONS[name][0]
    with jax.enable_x64(True):  # f64 / c128 programs, without changing the caller's jax configuration
        return jax.jit(fn).trace(*avals(name, dtype, batch, n)).lower(lowering_platforms=("cpu",)).as_text()


def file_name(name: str, dtype: str, batch: tuple[int, ...], n: int) -> str:
    """``<name>_<dtype>_<batch x ...>n.mlir`` (the committed example's file name)."""
    b = "".join(f"{d}x" for d in batch)
    return f"{name}_{_SHORT[dtype]}_{b}{n}x{n}.mlir"


def inputs(name: str, dtype: str, batch: tuple[int, ...] = (), n: int = 4, *, cond: float = 10.0,
           singular: bool = False, seed: int = 0) -> list[np.ndarray]:
    """Inputs for ``name`` with 2-norm condition number about ``cond`` (exactly singular: ``singular``).

    The matrix is ``U diag(s) V^H`` with random unitary ``U, V`` and singular values spaced
    geometrically from 1 to ``1/cond`` (the last one 0 when ``singular``); "spd"/"herm" kinds use
    ``V = U`` (with random signs for "herm"), "tri" keeps the lower or upper triangle of a well-scaled
    matrix with its diagonal set to values in [1, cond] (its condition number grows with ``cond``).
    """
    rng = np.random.default_rng(seed)
    kind = FUNCTIONS[name][2]
    cplx = np.dtype(dtype).kind == "c"

    def rand(*shape):
        x = rng.standard_normal(shape)
        return x + 1j * rng.standard_normal(shape) if cplx else x

    def unitary():
        q, r = np.linalg.qr(rand(*batch, n, n))
        d = np.diagonal(r, axis1=-2, axis2=-1)
        return q * (d / np.abs(d))[..., None, :]

    s = np.geomspace(1.0, 1.0 / cond, n)
    if singular:
        s[-1] = 0.0
    if kind == "tri":
        a = rand(*batch, n, n) / np.sqrt(n)
        idx = np.arange(n)
        a[..., idx, idx] = np.geomspace(1.0, cond, n)[::-1] * rng.choice([-1, 1], n)
        if singular:
            a[..., idx[-1], idx[-1]] = 0.0
        a = np.triu(a) if ("upper" in name or "right" in name) else np.tril(a)
    else:
        u = unitary()
        if kind == "spd":
            a = (u * s[..., None, :]) @ np.conj(np.swapaxes(u, -1, -2))
        elif kind == "herm":
            sign = rng.choice([-1.0, 1.0], n)
            a = (u * (s * sign)[..., None, :]) @ np.conj(np.swapaxes(u, -1, -2))
        else:
            a = (u * s[..., None, :]) @ np.conj(np.swapaxes(unitary(), -1, -2))
        if kind in ("spd", "herm"):
            a = 0.5 * (a + np.conj(np.swapaxes(a, -1, -2)))
    out = [a.astype(dtype)]
    if FUNCTIONS[name][1] == 2:
        out.append(rand(*batch, n, 2).astype(dtype))
    return out


_CALL = re.compile(r"stablehlo\.custom_call @(lapack_\w+)\(.*?\) \{(.*)\} : (.*)$")


def inventory(text: str) -> list[tuple[str, str, str, str]]:
    """Every ``lapack_*`` custom call in ``text``: (target, backend config, num_batch_dims, signature)."""
    out = []
    for line in text.splitlines():
        m = _CALL.search(line)
        if m:
            cfg = re.search(r"mhlo\.backend_config = \{(.*?)\}", m.group(2))
            nb = re.search(r'num_batch_dims = "(\d+)"', m.group(2))
            out.append((m.group(1), cfg.group(1) if cfg else "", nb.group(1) if nb else "", m.group(3)))
    return out


def export(name: str, dtype: str, batch: tuple[int, ...], n: int) -> str:
    """The text of one committed example: a header line and the lowered module."""
    return f"// Exported by examples/linalg/export.py with jax {jax.__version__}: {name} {dtype} batch={batch} n={n}\n" + lower(name, dtype, batch, n)


def main(argv: list[str]) -> None:
    if "--inventory" in argv:
        for name in FUNCTIONS:
            for dtype in DTYPES:
                for target, cfg, nb, sig in inventory(lower(name, dtype, (2,), 4)):
                    print(f"{name:34s} {dtype:10s} {target:22s} {{{cfg}}} num_batch_dims={nb} {sig}")
        return
    for old in HERE.glob("*.mlir"):
        old.unlink()
    for name, dtype, batch, n in COMMITTED:
        (HERE / file_name(name, dtype, batch, n)).write_text(export(name, dtype, batch, n))


if __name__ == "__main__":
    main(sys.argv[1:])
