"""How two traces of the same tokens differ: B − A, matrix by matrix, and its largest size.

In float64, so the difference of two float32 numbers is exact and 0 means bitwise equal::

    weights_difference(a, b).values     # (6, 6): B's weights after dropout minus A's
    weights_difference(a, b).max_abs    # the largest |B − A|
    context_difference(a, b)            # None when d_out differs: nothing to subtract
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .validate import AttentionInputError, check_instance, check_int, check_tensor

if TYPE_CHECKING:
    from .trace import AttentionTrace

__all__ = [
    "Difference",
    "OutputChange",
    "changed_cells",
    "context_difference",
    "difference",
    "output_change",
    "weights_difference",
]


@dataclass(frozen=True)
class Difference:
    """``B − A`` of two tensors of one shape, and the largest absolute entry of it."""

    values: torch.Tensor  # float64, the shape of A and B
    max_abs: float  # max |B − A|; 0.0 when they are equal (or empty)


def difference(a: torch.Tensor, b: torch.Tensor) -> Difference | None:
    """``b − a`` in float64 with its largest absolute value; ``None`` if the shapes differ."""
    a, b = check_tensor("a", a), check_tensor("b", b)
    if a.shape != b.shape:
        return None
    values = b.detach().to(torch.float64) - a.detach().to(torch.float64)  # (same shape)
    max_abs = float(values.abs().max()) if values.numel() else 0.0
    return Difference(values=values, max_abs=max_abs)


def _same_tokens(trace_a: AttentionTrace, trace_b: AttentionTrace) -> None:
    from .trace import AttentionTrace  # here, as the type hints: this module loads without it

    check_instance("trace_a", trace_a, AttentionTrace, " (from attention.trace_attention)")
    check_instance("trace_b", trace_b, AttentionTrace, " (from attention.trace_attention)")
    if trace_a.inputs.shape != trace_b.inputs.shape:
        raise AttentionInputError(
            f"the two traces must run on inputs of one shape to be compared; got "
            f"{tuple(trace_a.inputs.shape)} and {tuple(trace_b.inputs.shape)}"
        )


def weights_difference(
    trace_a: AttentionTrace, trace_b: AttentionTrace, *, batch: int = 0
) -> Difference:
    """B's attention weights after dropout (what the context is made of) minus A's, ``(T, T)`` or
    ``(h, T, T)``; both traces have the same tokens and heads.
    """
    _same_tokens(trace_a, trace_b)
    batch = check_int("batch", batch, 0, trace_a.inputs.shape[0] - 1, "a batch item, from 0")
    result = difference(trace_a.dropped_weights[batch], trace_b.dropped_weights[batch])
    if result is None:
        raise AttentionInputError("the two traces have a different number of heads")
    return result


def context_difference(
    trace_a: AttentionTrace, trace_b: AttentionTrace, *, batch: int = 0
) -> Difference | None:
    """B's context vectors minus A's, ``(T, d_out)``; ``None`` when the widths ``d_out`` differ."""
    _same_tokens(trace_a, trace_b)
    batch = check_int("batch", batch, 0, trace_a.inputs.shape[0] - 1, "a batch item, from 0")
    return difference(trace_a.context[batch], trace_b.context[batch])


@dataclass(frozen=True)
class OutputChange:
    """What one change did to the context vectors: ``changed_rows[i]`` when row ``i`` moved;
    ``first_edited_row``: the first edited embedding (None when a setting changed); by causality
    no row before it can change.
    """

    changed_rows: tuple[bool, ...]
    first_edited_row: int | None

    @property
    def count(self) -> int:
        return sum(self.changed_rows)


def output_change(
    inputs_before: torch.Tensor,
    context_before: torch.Tensor,
    inputs_after: torch.Tensor,
    context_after: torch.Tensor,
) -> OutputChange | None:
    """Compare two passes of one sequence (``inputs`` ``(T, d_in)``, ``context`` ``(T, d)``); None
    when another number of tokens or width makes everything new.
    """
    for name, given in (("inputs_before", inputs_before), ("context_before", context_before)):
        check_tensor(name, given)
    for name, given in (("inputs_after", inputs_after), ("context_after", context_after)):
        check_tensor(name, given)
    if context_before.shape != context_after.shape or inputs_before.shape != inputs_after.shape:
        return None
    rows_differ = (context_before != context_after).any(dim=-1)  # (T,) bool
    edited = (inputs_before != inputs_after).any(dim=-1).nonzero()  # (n, 1) rows that differ
    return OutputChange(
        changed_rows=tuple(bool(v) for v in rows_differ),
        first_edited_row=int(edited[0, 0]) if len(edited) else None,
    )


def changed_cells(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor | None:
    """Which entries of two same-shape tensors differ (NaN and equal infinities count as equal);
    None if the shapes do.
    """
    before, after = check_tensor("before", before), check_tensor("after", after)
    if before.shape != after.shape:
        return None
    both_nan = torch.isnan(before) & torch.isnan(after)
    return (before != after) & ~both_nan
