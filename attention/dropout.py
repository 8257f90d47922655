"""What dropout did to the attention weights: the scale of the kept ones and how many were kept.

``nn.Dropout(p)`` keeps each weight with probability ``1 − p`` and scales it by ``1/(1 − p)``
(right on average). The keep-mask (``trace.dropout_mask``, ``True`` = kept) covers the whole
``(T, T)`` matrix, but future weights are already 0: only the visible ones count::

    dropout_scale(0.5)                 # 2.0
    dropout_counts(trace)              # over the (6, 6) matrix: 21 visible weights
    dropout_counts(trace, query=5)     # the last query's row: 6 visible weights
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .randomness import dropout_noise, private_generator
from .validate import AttentionInputError, check_dropout, check_instance, check_int, check_tensor

if TYPE_CHECKING:
    from .trace import AttentionTrace

__all__ = [
    "bare_draw_differences",
    "batch_mask_differences",
    "DropoutCounts",
    "DroppedRow",
    "count_kept",
    "dropout_counts",
    "dropout_scale",
    "dropped_rows",
]


def dropout_scale(p: float) -> float:
    """The factor ``1/(1 − p)`` dropout multiplies kept weights by; 0 at ``p = 1`` (all dropped)."""
    p = check_dropout(p)
    return 0.0 if p >= 1.0 else 1.0 / (1.0 - p)


@dataclass(frozen=True)
class DropoutCounts:
    """How many visible weights (not hidden by the causal mask) dropout kept and dropped."""

    visible: int  # weights on or below the diagonal: what the queries can see
    kept: int  # visible weights the dropout mask kept (scaled by 1/(1 − p))
    dropped: int  # visible weights set to 0: visible − kept


def count_kept(dropout_mask: torch.Tensor, mask: torch.Tensor) -> DropoutCounts:
    """Count the kept and dropped weights among the visible ones: ``dropout_mask`` (``True`` = kept)
    and the causal ``mask`` (``True`` = hidden), a matrix ``(…, T, T)`` or a row ``(T,)``.
    """
    dropout_mask, mask = check_tensor("dropout_mask", dropout_mask), check_tensor("mask", mask)
    if (
        mask.dim() > dropout_mask.dim()
        or mask.shape != dropout_mask.shape[dropout_mask.dim() - mask.dim() :]
    ):
        raise AttentionInputError(
            f"mask {tuple(mask.shape)} must be the trailing shape of dropout_mask "
            f"{tuple(dropout_mask.shape)}.",
            field="mask",
        )
    visible = (~mask.bool()).expand_as(dropout_mask)  # (…, T, T) or (T,): True where seen
    kept = int((dropout_mask.bool() & visible).sum())
    total = int(visible.sum())
    return DropoutCounts(visible=total, kept=kept, dropped=total - kept)


def dropout_counts(
    trace: AttentionTrace, *, query: int | None = None, batch: int = 0
) -> DropoutCounts | None:
    """The kept/dropped counts of one batch row of ``trace`` (None when dropout is inactive), of
    ``query``'s row or the whole matrix, added over the heads.
    """
    from .trace import AttentionTrace  # here: trace.py imports this module

    check_instance("trace", trace, AttentionTrace, " (from attention.trace_attention)")
    batch = check_int("batch", batch, 0, trace.inputs.shape[0] - 1, "a batch item, from 0")
    if query is not None:
        query = check_int("query", query, 0, trace.num_tokens - 1, "a query position, from 0")
    if trace.dropout_mask is None:
        return None
    keep = trace.dropout_mask[batch]  # (T, T), or (h, T, T) with several heads
    mask = trace.mask  # (T, T) bool, True = hidden
    if query is not None:
        keep, mask = keep[..., query, :], mask[query]  # (T,) or (h, T); (T,)
    return count_kept(keep, mask)


@dataclass(frozen=True)
class DroppedRow:
    """A query whose every visible weight was dropped: its context vector is 0 in this pass (the
    whole row goes with probability ``p ** visible``).
    """

    query: int  # 0-based row of the weights
    head: int  # 0 with one head
    visible: int  # keys this query sees
    chance: float  # p ** visible: how often a pass drops the whole row


def dropped_rows(trace: AttentionTrace, *, batch: int = 0) -> tuple[DroppedRow, ...]:
    """The rows of ``trace`` (one batch item) whose visible weights were all dropped (the book's
    3.5.2 demo drops the whole "journey" row); empty when dropout is inactive.
    """
    if trace.dropout_mask is None:
        return ()
    keep = trace.dropout_mask[batch]  # (T, T), or (h, T, T) with several heads
    heads = keep if keep.dim() == 3 else keep.unsqueeze(0)  # (h, T, T)
    visible = ~trace.mask.bool()  # (T, T): True where a query sees a key
    kept_visible = (heads & visible).any(dim=-1)  # (h, T): False where a row lost everything
    seen = visible.sum(dim=-1)  # (T,)
    p = trace.config.dropout
    return tuple(
        DroppedRow(query=query, head=head, visible=int(seen[query]), chance=p ** int(seen[query]))
        for head, query in (~kept_visible).nonzero().tolist()
        if int(seen[query]) > 0
    )


def batch_mask_differences(trace: AttentionTrace) -> tuple[int, ...] | None:
    """Per batch item after the first, in how many visible weights its keep-mask differs from item
    0's (None without dropout): identical copies get different masks, drawn element by element.
    """
    if trace.dropout_mask is None:
        return None
    visible = ~trace.mask.bool()  # (T, T): True where a query sees a key
    first = trace.dropout_mask[0]  # (T, T), or (h, T, T) with several heads
    return tuple(int(((item != first) & visible).sum()) for item in trace.dropout_mask[1:])


def bare_draw_differences(trace: AttentionTrace) -> int | None:
    """In how many visible weights of item 0 the keep-mask differs from a bare ``nn.Dropout(p)``
    drawn after ``torch.manual_seed(seed)`` (the book's 3.5.2 demo); None without dropout. The
    trace draws its layer's weights first, so the same seed gives another mask.
    """
    from .trace import AttentionTrace  # here: trace.py imports this module

    check_instance("trace", trace, AttentionTrace, " (from attention.trace_attention)")
    if trace.dropout_mask is None:
        return None
    cfg = trace.config
    ones = torch.ones_like(trace.attn_weights)  # (b, T, T), or (b, h, T, T)
    bare = dropout_noise(ones, cfg.dropout, private_generator(cfg.seed))  # 0 or 1/(1 − p)
    kept_bare = bare[0] != 0  # (T, T), or (h, T, T) with several heads
    visible = ~trace.mask.bool()  # (T, T): True where a query sees a key
    return int(((trace.dropout_mask[0] != kept_bare) & visible).sum())
