"""``--stablehlo-lower-to-core``: the named pipeline that brings a program to core StableHLO.

Core StableHLO is what every consumer runs (XLA on every platform, hlokit's interpreter): the ops of the
StableHLO specification (https://openxla.org/stablehlo/spec) without CHLO, shape-dialect computations,
the deprecated ops (``broadcast``, ``dot``, ``einsum``, ``unary_einsum``, ``torch_index_select``,
``create_token``, ``cross-replica-sum``) and the ops XLA itself expands before code generation
(batch norm, ``cholesky``, ``triangular_solve``, ``rng``, ``rng_bit_generator``; XLA's expanders in
``xla/service/*_expander.cc``). The pipeline runs, in order:

1. ``stablehlo-legalize-lapack-custom-calls``: JAX's CPU LAPACK custom calls to StableHLO (it may emit
   ``cholesky`` / ``triangular_solve``, which the expanders below remove);
2. ``chlo-legalize-to-stablehlo`` (may emit shape computations for dynamic broadcasting);
3. ``stablehlo-legalize-deprecated-ops``;
4. ``shape-legalize-to-stablehlo``;
5. the expanders: ``stablehlo-expand-batch-norm``, ``stablehlo-expand-cholesky``,
   ``stablehlo-expand-triangular-solve``, ``stablehlo-expand-rng`` (to ``rng_bit_generator``), then
   ``stablehlo-expand-rng-bit-generator``;
6. ``canonicalize`` and ``cse`` (upstream MLIR passes) to fold what the expansions leave behind.

Every step is one of hlokit's Python passes except the last, so the pipeline never hands a job that
hlokit does itself to jaxlib's C++ passes of the same name.
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.registry import register_pipeline

#: The steps of ``stablehlo-lower-to-core``, in order.
LOWER_TO_CORE_STEPS: tuple[str, ...] = (
    "stablehlo-legalize-lapack-custom-calls",
    "chlo-legalize-to-stablehlo",
    "stablehlo-legalize-deprecated-ops",
    "shape-legalize-to-stablehlo",
    "stablehlo-expand-batch-norm",
    "stablehlo-expand-cholesky",
    "stablehlo-expand-triangular-solve",
    "stablehlo-expand-rng",
    "stablehlo-expand-rng-bit-generator",
    "canonicalize",
    "cse",
)

LOWER_TO_CORE = register_pipeline(
    "stablehlo-lower-to-core",
    "Lower CHLO, shape computations, deprecated ops and expandable ops to core StableHLO",
    ",".join(LOWER_TO_CORE_STEPS),
)

#: Ops that are not core StableHLO: whole dialects ...
NON_CORE_DIALECTS: tuple[str, ...] = ("chlo", "shape", "tensor", "arith")
#: ... and single ops (deprecated, or expanded by the pipeline's expanders).
NON_CORE_OPS: frozenset[str] = frozenset({
    "stablehlo.broadcast", "stablehlo.dot", "stablehlo.einsum", "stablehlo.unary_einsum",
    "stablehlo.torch_index_select", "stablehlo.create_token", "stablehlo.cross-replica-sum",
    "stablehlo.batch_norm_training", "stablehlo.batch_norm_inference", "stablehlo.batch_norm_grad",
    "stablehlo.cholesky", "stablehlo.triangular_solve", "stablehlo.rng", "stablehlo.rng_bit_generator",
})


def non_core_ops(module: ir.Module | ir.Operation) -> list[ir.Operation]:
    """Every op under ``module`` that ``stablehlo-lower-to-core`` removes (see :data:`NON_CORE_DIALECTS`,
    :data:`NON_CORE_OPS`, and ``stablehlo.custom_call`` of a ``lapack_*`` target), in walk order."""
    found: list[ir.Operation] = []
    root = module.operation if isinstance(module, ir.Module) else module

    def visit(op):
        name = op.name
        if name in NON_CORE_OPS or name.split(".", 1)[0] in NON_CORE_DIALECTS:
            found.append(op.operation)
        elif name == "stablehlo.custom_call" and attributes.str_value(op, "call_target_name").startswith("lapack_"):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found
