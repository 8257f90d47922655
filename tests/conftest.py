"""Fixtures shared by the tests: traces of the book's six tokens (once per module), the installed wheel."""

from __future__ import annotations

import pytest

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.installed_package import Installed, install_wheel


@pytest.fixture(scope="module")
def six_token_trace() -> AttentionTrace:
    """The seed document's trace: six tokens, d_out = 2, seed 123, no dropout."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig())


@pytest.fixture(scope="module")
def six_token_dropout_trace() -> AttentionTrace:
    """The same with dropout p = 0.5 in training mode (kept weights × 2)."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from this folder, installed into a fresh virtual environment (built once
    per run: the package tests and the notebook test share it)."""
    return install_wheel(tmp_path_factory.mktemp("package"))
