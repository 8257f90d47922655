"""One query's row of attention, worked out the way you would on paper.

:func:`~attention.trace.trace_attention` gives every matrix of the forward pass. To *write out*
one row of it (the "One query, by hand" page), a few numbers that the layer never stores are
needed: the terms of one dot product, the ``exp`` of each scaled score with their sum, and each
value vector multiplied by its weight. This module computes exactly those, from the trace's own
tensors, in float64 so the written numbers are not blurred by rounding::

    trace = trace_attention(BOOK_EMBEDDINGS)
    query, key = trace.queries[0, 1], trace.keys[0, 0]  # q_2 and k_1 (the book counts from 1)
    dot_product_terms(query, key).sum()                 # ≈ trace.attn_scores[0, 1, 0]
    softmax_by_hand(trace.scaled_scores[0, 1], trace.mask[1]).weights  # ≈ trace.attn_weights[0, 1]

Nothing here replaces the layer: the page shows the trace's numbers as the results and uses these
only for the steps in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .validate import AttentionInputError, check_tensor

__all__ = [
    "SHIFT_ABOVE",
    "SoftmaxByHand",
    "dot_product_terms",
    "softmax_by_hand",
    "weighted_value_terms",
]

SHIFT_ABOVE = 50.0  # above this largest score, exp() is written as exp(s − max) to stay readable


def dot_product_terms(query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
    """The products ``q[m] · k[m]`` whose sum is the attention score ``q · k``.

    Args:
        query: one query vector ``(d_k,)``.
        key: one key vector ``(d_k,)``.

    Returns:
        ``(d_k,)`` float64: term ``m`` is ``query[m] * key[m]``; ``.sum()`` is the score
        ``ω = q · k`` (equal to the trace's ``attn_scores`` up to float32 rounding).
    """
    query, key = check_tensor("query", query), check_tensor("key", key)
    if query.shape != key.shape or query.dim() != 1:
        raise AttentionInputError(
            f"query and key must be vectors of one size, got {query.shape}, {key.shape}"
        )
    return query.detach().to(torch.float64) * key.detach().to(torch.float64)  # (d_k,)


@dataclass(frozen=True)
class SoftmaxByHand:
    """The softmax of one row, step by step.

    Attributes:
        shift: the number subtracted from every score before ``exp`` (0 unless the largest score
            is above :data:`SHIFT_ABOVE`; softmax gives the same weights for any shift).
        exps: ``(T,)`` float64, ``exp(score − shift)``; 0 for hidden (masked) keys, as exp(−∞) = 0.
        total: the sum of ``exps``, the normalizer.
        weights: ``(T,)`` float64, ``exps / total``: the attention weights, summing to 1.
    """

    shift: float
    exps: torch.Tensor
    total: float
    weights: torch.Tensor


def softmax_by_hand(scaled_scores: torch.Tensor, hidden: torch.Tensor) -> SoftmaxByHand:
    """``softmax`` of one row of scaled scores, keeping ``exp`` of each score and their sum.

    Args:
        scaled_scores: one row ``(T,)`` of ``masked_scores / √d_k`` (−∞ where hidden is fine).
        hidden: ``(T,)`` bool, True for the keys the causal mask hides (future tokens).

    Returns:
        A :class:`SoftmaxByHand`; its ``weights`` equal the trace's ``attn_weights`` row up to
        float32 rounding.
    """
    scaled_scores = check_tensor("scaled_scores", scaled_scores)
    hidden = check_tensor("hidden", hidden)
    if scaled_scores.shape != hidden.shape or scaled_scores.dim() != 1:
        raise AttentionInputError("scaled_scores and hidden must be rows of one length")
    visible = ~hidden.to(torch.bool)  # (T,)
    if not bool(visible.any()):
        raise AttentionInputError("every key is hidden: softmax of an all −∞ row is undefined")
    scores = scaled_scores.detach().to(torch.float64)  # (T,)
    largest = float(scores[visible].max())
    shift = largest if largest > SHIFT_ABOVE else 0.0
    exps = torch.where(visible, torch.exp(scores - shift), torch.zeros_like(scores))  # (T,)
    total = float(exps.sum())
    if not math.isfinite(total) or total <= 0.0:  # only very negative scores: shift after all
        shift = largest
        exps = torch.where(visible, torch.exp(scores - shift), torch.zeros_like(scores))
        total = float(exps.sum())
    return SoftmaxByHand(shift=shift, exps=exps, total=total, weights=exps / total)


def weighted_value_terms(weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Each value vector times its weight: the terms ``w_j · v_j`` of a context vector.

    Args:
        weights: one row of (dropped) attention weights ``(T,)``.
        values: the value vectors ``(T, d_out)``.

    Returns:
        ``(T, d_out)`` float64; summed over the rows it is the context vector ``z`` (the trace's
        ``context`` row, up to float32 rounding). Drawn tip to tail, the terms walk from the
        origin to ``z``.
    """
    weights, values = check_tensor("weights", weights), check_tensor("values", values)
    if weights.dim() != 1 or values.dim() != 2 or values.shape[0] != weights.shape[0]:
        raise AttentionInputError(
            f"need weights (T,) and values (T, d), got {weights.shape}, {values.shape}"
        )
    w = weights.detach().to(torch.float64)  # (T,)
    return w[:, None] * values.detach().to(torch.float64)  # (T, d_out)
