"""LAPACK lowerings: :mod:`hlokit.passes.lapack.reference` holds numpy references of the loop algorithms."""
