"""Tables of multi-head attention: shapes and outputs.

:func:`wrapper_shape_steps` and :func:`fused_shape_steps` read the shapes of the book's two
classes off a real trace (the fused ``view`` and ``transpose`` applied to the traced tensors);
:func:`output_frame` writes a matrix as PyTorch prints it, to compare with the book.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from attention.trace import AttentionTrace

from . import vocabulary
from .vocabulary import DECIMALS

__all__ = ["ShapeStep", "fused_shape_steps", "output_frame", "wrapper_shape_steps"]


@dataclass(frozen=True)
class ShapeStep:
    """One line of a shape table: the code of the step, a key naming it, the resulting shape."""

    key: str  # what the step does, for the page's translated explanation
    code: str  # the line of the book's forward pass (or what it computes)
    shape: tuple[int, ...]


def _shape(tensor: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(size) for size in tensor.shape)


def wrapper_shape_steps(trace: AttentionTrace) -> list[ShapeStep]:
    """The shapes in ``MultiHeadAttentionWrapper.forward``: each head, then ``torch.cat``.

    ``trace`` is a wrapper trace (or a one-head trace: a wrapper with one head *is* one
    ``CausalAttention``). The per-head shapes are those of head 1 (all heads have the same).
    """
    per_head = trace.config.num_heads > 1  # tensors carry a head axis: (b, h, …)

    def first_head(tensor: torch.Tensor) -> torch.Tensor:
        return tensor[:, 0] if per_head else tensor  # (b, T, …)

    return [
        ShapeStep("x", "x", _shape(trace.inputs)),
        ShapeStep("queries", "queries = head.W_query(x)", _shape(first_head(trace.queries))),
        ShapeStep(
            "attn_scores",
            "attn_scores = queries @ keys.transpose(1, 2)",
            _shape(first_head(trace.attn_scores)),
        ),
        ShapeStep(
            "attn_weights",
            "attn_weights = softmax(attn_scores / √d_k)",
            _shape(first_head(trace.attn_weights)),
        ),
        ShapeStep(
            "head_context",
            "context_vec = attn_weights @ values",
            _shape(first_head(trace.head_context if per_head else trace.context)),
        ),
        ShapeStep(
            "concat", "torch.cat([head(x) for head in self.heads], dim=-1)", _shape(trace.output)
        ),
    ]


def fused_shape_steps(trace: AttentionTrace) -> list[ShapeStep]:
    """The shapes in ``MultiHeadAttention.forward``, from ``x`` to ``out_proj``.

    ``trace`` must be a fused trace with at least two heads (queries ``(b, h, T, head_dim)``).
    The projection, ``view`` and the way back are rebuilt from the traced queries and context
    by the same reshapes the class uses, so every shape is that of a real tensor.
    """
    if trace.config.num_heads < 2 or trace.config.variant != "fused" or trace.W_out is None:
        raise ValueError("fused_shape_steps needs a MultiHeadAttention trace with 2+ heads")
    b, num_heads, num_tokens, head_dim = _shape(trace.queries)
    queries_split = trace.queries.transpose(1, 2)  # (b, T, h, head_dim): before the transpose
    queries_flat = queries_split.reshape(b, num_tokens, num_heads * head_dim)  # W_query(x)
    assert trace.head_context is not None, "a fused trace keeps each head's context"
    context_back = trace.head_context.transpose(1, 2)  # (b, T, h, head_dim)
    return [
        ShapeStep("x", "x", _shape(trace.inputs)),
        ShapeStep("queries", "queries = self.W_query(x)", _shape(queries_flat)),
        ShapeStep(
            "view", "queries.view(b, num_tokens, num_heads, head_dim)", _shape(queries_split)
        ),
        ShapeStep("transpose", "queries.transpose(1, 2)", _shape(trace.queries)),
        ShapeStep(
            "attn_scores", "attn_scores = queries @ keys.transpose(2, 3)", _shape(trace.attn_scores)
        ),
        ShapeStep(
            "attn_weights",
            "attn_weights = softmax(attn_scores / √head_dim)",
            _shape(trace.attn_weights),
        ),
        ShapeStep(
            "head_context", "context_vec = attn_weights @ values", _shape(trace.head_context)
        ),
        ShapeStep("transpose_back", "context_vec.transpose(1, 2)", _shape(context_back)),
        ShapeStep(
            "join",
            "context_vec.contiguous().view(b, num_tokens, self.d_out)",
            _shape(trace.context),
        ),
        ShapeStep("out_proj", "self.out_proj(context_vec)", _shape(trace.output)),
    ]


def format_shape(shape: Sequence[int]) -> str:
    """``(1, 6, 3)``, as Python prints a tuple (one element: ``(6,)``)."""
    return str(tuple(shape))


def output_frame(
    values: np.ndarray | torch.Tensor,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    decimals: int = DECIMALS,
) -> pd.DataFrame:
    """A ``(T, n)`` matrix as text with ``decimals`` decimals, rows and columns labelled.

    Labels are used as given: escape user text for where the frame is shown (Markdown in
    ``st.table``) before calling.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"values must be 2-D, got shape {array.shape}")
    texts = [[vocabulary.format_number(float(v), decimals) for v in row] for row in array]
    return pd.DataFrame(texts, index=list(row_labels), columns=list(col_labels))
