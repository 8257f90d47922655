"""One query's row of attention, worked out the way you would on paper.

The numbers the layer never stores (a dot product's terms, each ``exp`` and their sum, each
weighted value vector), from the trace's own tensors, in float64::

    dot_product_terms(trace.queries[0, 1], trace.keys[0, 0]).sum()  # ≈ trace.attn_scores[0, 1, 0]
    softmax_by_hand(trace.scaled_scores[0, 1], trace.mask[1]).weights  # ≈ trace.attn_weights[0, 1]

The page shows the trace's numbers as the results and these only for the steps in between.
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
    """The products ``q[m] · k[m]`` ``(d_k,)`` float64 whose sum is the score ``ω = q · k``."""
    query, key = check_tensor("query", query), check_tensor("key", key)
    if query.shape != key.shape or query.dim() != 1:
        raise AttentionInputError(
            f"query and key must be vectors of one size, got {query.shape}, {key.shape}"
        )
    return query.detach().to(torch.float64) * key.detach().to(torch.float64)  # (d_k,)


@dataclass(frozen=True)
class SoftmaxByHand:
    """The softmax of one row, step by step: ``exps = exp(score − shift)`` (0 where hidden), their
    ``total``, ``weights = exps / total``; ``shift`` is 0 unless a score is above
    :data:`SHIFT_ABOVE`.
    """

    shift: float
    exps: torch.Tensor
    total: float
    weights: torch.Tensor


def softmax_by_hand(scaled_scores: torch.Tensor, hidden: torch.Tensor) -> SoftmaxByHand:
    """Softmax of one row ``(T,)`` of scaled scores, keeping each ``exp`` and their sum; ``hidden``:
    ``(T,)`` bool, True for the keys the causal mask hides.
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
    """Each value vector times its weight, ``w_j · v_j`` ``(T, d_out)`` float64: summed, the context
    vector ``z``; drawn tip to tail, they walk from the origin to ``z``.
    """
    weights, values = check_tensor("weights", weights), check_tensor("values", values)
    if weights.dim() != 1 or values.dim() != 2 or values.shape[0] != weights.shape[0]:
        raise AttentionInputError(
            f"need weights (T,) and values (T, d), got {weights.shape}, {values.shape}"
        )
    w = weights.detach().to(torch.float64)  # (T,)
    return w[:, None] * values.detach().to(torch.float64)  # (T, d_out)
