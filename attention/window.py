"""Sliding-window attention: each token sees itself and the ``window − 1`` tokens before it.

Long-context models (Mistral, Gemma, Longformer) also hide the distant past, so the work per
token stays constant; it is the book's pass with one step changed, the mask (``True`` = hidden)::

    sliding_window_mask(6, 2)[5]       # tensor([True, True, True, True, False, False])
    trace_attention(inputs, AttentionConfig(window=2)).attn_weights   # 2 weights per row
"""

from __future__ import annotations

from typing import Any

import torch

from .steps import Made, StepFunction
from .validate import MAX_TOKENS, check_int

__all__ = ["sliding_window_mask", "sliding_window_step"]


def sliding_window_mask(num_tokens: int, window: int) -> torch.Tensor:
    """The ``(num_tokens, num_tokens)`` bool mask of a sliding window, ``True`` = hidden: key ``j``
    is hidden from query ``i`` when ``j > i`` or ``j <= i − window``.
    """
    num_tokens = check_int("num_tokens", num_tokens, 1, MAX_TOKENS, "the number of tokens")
    window = check_int("window", window, 1, MAX_TOKENS, "how many tokens each token sees")
    position = torch.arange(num_tokens)
    back = position.unsqueeze(1) - position.unsqueeze(0)  # (T, T): i − j, how far back key j is
    return (back < 0) | (back >= window)


def sliding_window_step(window: Any) -> StepFunction:
    """The mask step of a sliding window of ``window`` tokens: an override for ``run_forward``."""
    window = check_int("window", window, 1, MAX_TOKENS, "how many tokens each token sees")

    def windowed_mask(state: Any) -> Made:
        return {"mask": sliding_window_mask(state.num_tokens, window)}

    return windowed_mask
