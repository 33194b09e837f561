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
hlokit does itself to jaxlib's C++ passes of the same name. What is left after it ("nothing left") is
derived from what those passes declare they remove (:func:`non_core_op_names`,
:func:`non_core_custom_calls`); the interpreter's automatic legalizations are the same passes, for the
declared ops it has no kernel for (:mod:`hlokit.passes.prepare`).
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit import attributes
from hlokit.passes.prepare import pipeline_passes
from hlokit.passes.registry import Pass, register_pipeline

#: The steps of ``stablehlo-lower-to-core``, in order.
LOWER_TO_CORE_STEPS: tuple[str, ...] = (
    "stablehlo-legalize-lapack-custom-calls",
    "stablehlo-legalize-cuda-custom-calls",
    "stablehlo-legalize-rocm-custom-calls",
    "stablehlo-legalize-tpu-custom-calls",
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

def lowering_passes() -> list[type[Pass]]:
    """The Python passes of :data:`LOWER_TO_CORE_STEPS`, in order (``canonicalize`` and ``cse`` are upstream)."""
    return pipeline_passes(LOWER_TO_CORE.argument)


def non_core_op_names() -> frozenset[str]:
    """The op names that are not core StableHLO: the union of what the pipeline's passes declare illegal
    (:attr:`hlokit.passes.registry.Pass.illegal_ops`)."""
    return frozenset().union(*(cls.illegal_ops for cls in lowering_passes()))


def non_core_custom_calls() -> frozenset[str]:
    """The ``stablehlo.custom_call`` targets the pipeline removes (its passes' ``illegal_custom_calls``)."""
    return frozenset().union(*(cls.illegal_custom_calls for cls in lowering_passes()))


def non_core_ops(module: ir.Module | ir.Operation) -> list[ir.Operation]:
    """Every op under ``module`` that ``stablehlo-lower-to-core`` removes (:func:`non_core_op_names`, and a
    ``stablehlo.custom_call`` of a target in :func:`non_core_custom_calls`), in walk order."""
    names, targets = non_core_op_names(), non_core_custom_calls()
    found: list[ir.Operation] = []
    root = module.operation if isinstance(module, ir.Module) else module

    def visit(op):
        name = op.name
        if name in names or (name == "stablehlo.custom_call"
                             and attributes.str_value(op, "call_target_name", "") in targets):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found
