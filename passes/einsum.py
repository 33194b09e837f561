"""Einsum configurations (``stablehlo.einsum`` / ``stablehlo.unary_einsum``) and their expansion into
core StableHLO: ``transpose``, ``reshape``, ``slice``, ``reduce`` and ``dot_general``.

The ops are outside the StableHLO specification (https://openxla.org/stablehlo/spec lists neither; the
op definitions in ``StablehloOps.td`` say they behave like TensorFlow's ``tf.einsum``,
https://www.tensorflow.org/api_docs/python/tf/einsum) and their verifier checks nothing about the
configuration string, so this module is the one place that parses and checks it. The accepted language is
numpy's ``numpy.einsum`` (https://numpy.org/doc/stable/reference/generated/numpy.einsum.html), which
``tf.einsum`` follows:

* ``"ab,bc->ac"`` (explicit output) or ``"ab,bc"`` (implicit: the ellipsis dimensions, then every label
  that occurs exactly once, in alphabetical order); labels are ASCII letters, spaces are ignored;
* a label repeated within one operand takes that operand's diagonal (``"ii->i"``, ``"iij->j"``);
* a label repeated in the output places the values on that output diagonal, zeros elsewhere (XLA's
  ``Einsum`` accepts this, numpy does not: ``"ij,jk->iik"``);
* a label that is not in the output is summed over (``"ij->"``, ``"ab,cd->ad"``); a label in both
  operands and the output is a batch dimension, in both operands only a contracting dimension;
* ``"..."`` stands for the dimensions not named by labels, aligned from the right across operands and
  broadcast as numpy broadcasts (a dimension of size 1 against size n); the output must carry ``"..."``
  when an operand's ellipsis covers at least one dimension;
* a dimension of size 1 in one operand broadcasts against the same label of size n in the other.

The expansion (:func:`build_einsum`) works per operand first — diagonals by a transpose, a reshape that
merges the repeated dimensions and a strided slice (exact, no arithmetic), then a ``reduce`` over labels
no one else needs — and finishes with one ``dot_general`` (batch and contracting labels; StableHLO spec,
"dot_general") and a ``transpose`` into the output order. This is the plan of XLA's own einsum
(``xla/hlo/builder/lib/matrix.cc``, ``Einsum``: diagonals first, then a reduce of the labels only one
operand has, one ``DotGeneral``, a transpose), except that XLA takes a diagonal with an iota mask, a
select and a reduce, where the strided slice here moves only the diagonal's elements.
"""

from __future__ import annotations

import dataclasses
import string
from typing import Sequence

from hlokit.passes.builder import Emitter, V

__all__ = ["EinsumError", "EinsumPlan", "parse_einsum", "build_einsum"]

_LETTERS = frozenset(string.ascii_letters)


class EinsumError(ValueError):
    """An einsum configuration that is malformed or does not fit the operand / result shapes."""


@dataclasses.dataclass(frozen=True)
class EinsumPlan:
    """A checked einsum: per operand its labels (one per dimension; ellipsis dimensions are labelled
    ``".0"``, ``".1"``, ... counted from the right), the output labels and the size of every label
    (the broadcast size where a dimension of size 1 meets size n)."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]
    sizes: dict

    @property
    def output_shape(self) -> list[int]:
        return [self.sizes[l] for l in self.output]


def _split_term(term: str, what: str) -> tuple[list[str], bool, list[str]]:
    """``"ab...c"`` -> (labels before "...", has ellipsis, labels after)."""
    if term.count("...") > 1:
        raise EinsumError(f"{what} '{term}' has more than one ellipsis")
    has_ellipsis = "..." in term
    before, _, after = term.partition("...")
    for ch in before + after:
        if ch not in _LETTERS:
            raise EinsumError(f"{what} '{term}' has the character '{ch}' (labels are ASCII letters)")
    return list(before), has_ellipsis, list(after)


def parse_einsum(config: str, shapes: Sequence[Sequence[int]]) -> EinsumPlan:
    """Parse and check the einsum ``config`` for operands of static ``shapes`` (one or two).

    Returns the :class:`EinsumPlan`; raises :class:`EinsumError` (the message says what is wrong) for a
    malformed configuration, a term whose label count differs from its operand's rank, a label or
    ellipsis dimension whose sizes differ (and neither is 1), a label repeated in one operand with
    different sizes, an output label in no operand, or ellipsis dimensions that the explicit output
    leaves out.
    """
    text = config.replace(" ", "")
    lhs_text, arrow, out_text = text.partition("->")
    if arrow and "->" in out_text:
        raise EinsumError(f"einsum config '{config}' has more than one '->'")
    terms = lhs_text.split(",")
    if len(terms) != len(shapes):
        raise EinsumError(f"einsum config '{config}' has {len(terms)} operand term(s), the op has "
                          f"{len(shapes)} operand(s)")
    sizes: dict[str, int] = {}
    inputs: list[tuple[str, ...]] = []
    ellipsis_rank = 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        before, has_ell, after = _split_term(term, f"operand term {k}")
        named = len(before) + len(after)
        if (not has_ell and named != len(shape)) or (has_ell and named > len(shape)):
            raise EinsumError(f"operand term {k} '{term}' of einsum config '{config}' names {named} "
                              f"dimension(s), the operand has rank {len(shape)}")
        n_ell = len(shape) - named
        for label in set(before + after):
            dims = [shape[i if i < len(before) else i + n_ell] for i, l in enumerate(before + after) if l == label]
            if len(set(dims)) > 1:
                raise EinsumError(f"label '{label}' is repeated in operand term {k} '{term}' with sizes "
                                  f"{', '.join(map(str, dims))} (a diagonal needs equal sizes)")
        ellipsis_rank = max(ellipsis_rank, n_ell)
        labels = before + [f".{n_ell - 1 - i}" for i in range(n_ell)] + after
        for label, size in zip(labels, shape):
            if size < 0:
                raise EinsumError("einsum operands must have static shapes")
            old = sizes.get(label)
            if old is None or old == 1:
                sizes[label] = size
            elif size != old and size != 1:
                name = "an ellipsis dimension" if label.startswith(".") else f"label '{label}'"
                raise EinsumError(f"{name} of einsum config '{config}' has sizes {old} and {size}")
        inputs.append(tuple(labels))
    ell_labels = [f".{ellipsis_rank - 1 - i}" for i in range(ellipsis_rank)]
    if arrow:
        before, has_ell, after = _split_term(out_text, "output term")
        output = before + (ell_labels if has_ell else []) + after
        if not has_ell and ellipsis_rank:
            raise EinsumError(f"einsum config '{config}': the operands have ellipsis dimensions, the "
                              "output has no '...'")
    else:
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                if not label.startswith("."):
                    counts[label] = counts.get(label, 0) + 1
        output = ell_labels + sorted(l for l, c in counts.items() if c == 1)
    for label in output:
        if label not in sizes:
            raise EinsumError(f"output label '{label}' of einsum config '{config}' is in no operand")
    return EinsumPlan(tuple(inputs), tuple(output), sizes)


def _diagonal(e: Emitter, x: V, labels: list[str]) -> tuple[V, list[str]]:
    """Take the diagonal of every label repeated in ``labels``: the repeated dimensions are moved last,
    merged by a reshape (size n^k) and sliced with stride 1 + n + ... + n^(k-1), which picks the
    elements whose k indices are equal."""
    while True:
        repeated = next((l for l in dict.fromkeys(labels) if labels.count(l) > 1), None)
        if repeated is None:
            return x, labels
        dims = [i for i, l in enumerate(labels) if l == repeated]
        rest = [i for i, l in enumerate(labels) if l != repeated]
        shape = x.shape
        n, k = shape[dims[0]], len(dims)
        x = e.transpose(x, rest + dims) if rest + dims != list(range(len(labels))) else x
        keep = [shape[i] for i in rest]
        x = e.reshape(x, keep + [n ** k])
        stride = sum(n ** j for j in range(k)) if n > 1 else 1
        x = e.slice(x, [0] * (len(keep) + 1), keep + [n ** k], [1] * len(keep) + [stride])
        labels = [labels[i] for i in rest] + [repeated]


def _prepare(e: Emitter, x: V, labels: Sequence[str], needed: set, other: Sequence[str], sizes: dict,
             t: str) -> tuple[V, list[str]]:
    """One operand before the contraction: element type ``t``, diagonals taken, size-1 dimensions that
    broadcast against the other operand dropped, labels that no one else needs summed out."""
    x = e.convert(x, t)
    x, labels = _diagonal(e, x, list(labels))
    shape = x.shape
    drop = [i for i, l in enumerate(labels) if shape[i] == 1 and sizes[l] != 1]
    if drop:  # broadcasting: x does not vary along these dimensions
        labels = [l for i, l in enumerate(labels) if i not in drop]
        x = e.reshape(x, [d for i, d in enumerate(shape) if i not in drop])
    sums = [i for i, l in enumerate(labels) if l not in needed and l not in other]
    if sums:
        x = e.reduce_sum(x, sums)
        labels = [l for i, l in enumerate(labels) if i not in sums]
    return x, labels


def _to_output(e: Emitter, x: V, labels: Sequence[str], plan: EinsumPlan) -> V:
    """Transpose ``x`` (dimensions ``labels``: the output's distinct labels in another order) into the
    output order; a label repeated in the output (XLA's extension, ``"ij,jk->iik"``) is broadcast to
    its dimensions and the elements off their diagonal are zeroed."""
    unique = list(dict.fromkeys(plan.output))
    perm = [list(labels).index(l) for l in unique]
    x = e.transpose(x, perm) if perm != list(range(len(perm))) else x
    if len(unique) == len(plan.output):
        return x
    shape = plan.output_shape
    first = [plan.output.index(l) for l in plan.output]
    x = e.broadcast_in_dim(x, shape, [plan.output.index(l) for l in unique])
    mask = None
    for d, f in enumerate(first):
        if f != d:
            eq = e.iota(shape, f).eq(e.iota(shape, d))
            mask = eq if mask is None else e.and_(mask, eq)
    return e.select(mask, x, e.const(0, x))


def build_einsum(e: Emitter, operands: Sequence[V], plan: EinsumPlan, t: str) -> V:
    """The einsum of ``plan`` over one or two ``operands`` (static shapes), result element type ``t``
    (operands are converted to ``t`` first). Integer results are exact; float results are sums in the
    order ``reduce`` / ``dot_general`` choose, as XLA's own einsum."""
    needed = set(plan.output)
    if len(operands) == 1:
        x, labels = _prepare(e, operands[0], plan.inputs[0], needed, (), plan.sizes, t)
        return _to_output(e, x, labels, plan)
    a, b = operands
    la0, lb0 = plan.inputs
    a, la = _prepare(e, a, la0, needed, lb0, plan.sizes, t)
    b, lb = _prepare(e, b, lb0, needed, la, plan.sizes, t)
    # a label summed out of b alone is gone from lb: sum it out of a too when the output lacks it
    extra = [i for i, l in enumerate(la) if l not in needed and l not in lb]
    if extra:
        a = e.reduce_sum(a, extra)
        la = [l for i, l in enumerate(la) if i not in extra]
    batch = [l for l in la if l in lb and l in needed]
    contract = [l for l in la if l in lb and l not in needed]
    r = e.dot_general(a, b, [la.index(l) for l in batch], [lb.index(l) for l in batch],
                      [la.index(l) for l in contract], [lb.index(l) for l in contract], t)
    labels = batch + [l for l in la if l not in lb] + [l for l in lb if l not in la]
    return _to_output(e, r, labels, plan)
