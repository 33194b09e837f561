"""Linear algebra as a library of StableHLO expansions, written on :class:`~hlokit.passes.builder.Emitter`.

One module per algorithm family, each naming its algorithm and public sources: :mod:`.matrix` (shared matrix
helpers), :mod:`.householder`, :mod:`.cholesky`, :mod:`.triangular_solve`, :mod:`.lu`, :mod:`.qr`,
:mod:`.hessenberg`, :mod:`.tridiagonal`, :mod:`.jacobi` (eigen / singular values), :mod:`.balance`,
:mod:`.schur` (complex Schur form), :mod:`.real_schur` and :mod:`.eig`. The passes that use them:
``--stablehlo-legalize-lapack-custom-calls`` (the routine table,
:mod:`hlokit.passes.stablehlo_legalize_lapack_custom_calls`), ``--stablehlo-expand-cholesky`` and
``--stablehlo-expand-triangular-solve``. ``docs/lapack.md`` describes every expansion.
"""
