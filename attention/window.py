"""Sliding-window attention: each token sees itself and the ``window − 1`` tokens before it.

Long-context models (Mistral, Gemma, Longformer) cap how far back a token looks: the causal mask
hides the future, a window also hides the distant past, so the work per token stays constant as the
text grows. It is the book's forward pass with one step changed, the mask::

    from attention import AttentionConfig, sliding_window_mask, trace_attention
    sliding_window_mask(6, 2)[5]       # tensor([True, True, True, True, False, False])
    trace_attention(inputs, AttentionConfig(window=2)).attn_weights   # 2 weights per row

The mask keeps the book's convention, ``True`` = hidden.
"""

from __future__ import annotations

from typing import Any

import torch

from .steps import Made, StepFunction
from .validate import MAX_TOKENS, check_int

__all__ = ["sliding_window_mask", "sliding_window_step"]


def sliding_window_mask(num_tokens: int, window: int) -> torch.Tensor:
    """The ``(num_tokens, num_tokens)`` bool mask of a sliding window, ``True`` = hidden.

    Row ``i`` (a query) hides key ``j`` when ``j > i`` (the future, as the book's causal mask)
    or ``j <= i − window`` (``window`` or more tokens back). ``window >= num_tokens`` is the
    book's causal mask; ``window = 1``: each token sees only itself.
    Raises :class:`AttentionInputError` for a size that is not a whole number in range.
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
