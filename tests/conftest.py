"""Fixtures shared by the fast tests: traces of the book's six tokens, computed once per module."""

from __future__ import annotations

import pytest

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS


@pytest.fixture(scope="module")
def six_token_trace() -> AttentionTrace:
    """The seed document's trace: six tokens, d_out = 2, seed 123, no dropout."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig())


@pytest.fixture(scope="module")
def six_token_dropout_trace() -> AttentionTrace:
    """The same with dropout p = 0.5 in training mode (kept weights × 2)."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
