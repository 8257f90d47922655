"""The book's two ways to hide future tokens, as functions that return every step.

Section 3.5 first masks after softmax (zero the future with ``torch.tril``, renormalise each
row), then fills the scores with ``-inf`` before softmax (``exp(-inf) = 0``). Both give the same
weights; :func:`compare_masking` says how far apart they are in float32.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .validate import check_scores

__all__ = ["MaskingComparison", "mask_after_softmax", "mask_with_neg_inf", "compare_masking"]


def causal_mask(num_tokens: int) -> torch.Tensor:
    """``(T, T)`` bool, True above the diagonal: the future tokens a query must not see."""
    return torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)


def mask_after_softmax(attn_scores: torch.Tensor, d_k: int) -> dict[str, torch.Tensor]:
    """Method 1 on raw scores ``(…, T, T)``: softmax over all tokens, zero the future (``tril``),
    renormalise each row; returns each of those steps.
    """
    attn_scores, d_k = check_scores(attn_scores, d_k)
    num_tokens = attn_scores.shape[-1]
    unmasked_weights = torch.softmax(attn_scores / d_k**0.5, dim=-1)  # (…, T, T)
    mask_simple = torch.tril(torch.ones(num_tokens, num_tokens))  # 1 on and below the diagonal
    masked_simple = unmasked_weights * mask_simple  # future weights become 0
    row_sums = masked_simple.sum(dim=-1, keepdim=True)  # (…, T, 1), each below 1 now
    masked_simple_norm = masked_simple / row_sums  # rows add up to 1 again
    return {
        "unmasked_weights": unmasked_weights,
        "masked_simple": masked_simple,
        "row_sums": row_sums,
        "attn_weights": masked_simple_norm,
    }


def mask_with_neg_inf(attn_scores: torch.Tensor, d_k: int) -> dict[str, torch.Tensor]:
    """Method 2 (the one ``CausalAttention`` uses): −∞ above the diagonal, then softmax."""
    attn_scores, d_k = check_scores(attn_scores, d_k)
    num_tokens = attn_scores.shape[-1]
    masked = attn_scores.masked_fill(causal_mask(num_tokens), -torch.inf)  # (…, T, T)
    attn_weights = torch.softmax(masked / d_k**0.5, dim=-1)
    return {"masked_scores": masked, "attn_weights": attn_weights}


@dataclass(frozen=True)
class MaskingComparison:
    """Both methods' weights, the largest absolute difference between them, and their input."""

    after_softmax: dict[str, torch.Tensor]
    neg_inf: dict[str, torch.Tensor]
    max_abs_difference: float
    attn_scores: torch.Tensor  # (…, T, T) the raw scores both methods start from


def compare_masking(attn_scores: torch.Tensor, d_k: int) -> MaskingComparison:
    """Run both methods on the same raw scores and measure how far apart they are."""
    attn_scores, d_k = check_scores(attn_scores, d_k)  # once here, so the message names this call
    first = mask_after_softmax(attn_scores, d_k)
    second = mask_with_neg_inf(attn_scores, d_k)
    difference = (first["attn_weights"] - second["attn_weights"]).abs().max().item()
    return MaskingComparison(first, second, float(difference), attn_scores)
