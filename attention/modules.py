"""The attention classes of chapter 3 of *Build a Large Language Model (From Scratch)*, as taught.

Each class is the book's code: the same constructor signature, the same order of parameter creation
(so that after ``torch.manual_seed(s)`` the weights are bitwise the book's), the same forward pass.
They build on each other; the comments mark what each step adds.

Shapes use ``b`` for the batch, ``T`` for tokens (``num_tokens``), ``h`` for heads.

References: S. Raschka, *Build a Large Language Model (From Scratch)*, chapter 3;
rasbt/LLMs-from-scratch ``pkg/llms_from_scratch/ch03.py``.
"""

from __future__ import annotations

import torch
import torch.nn as nn

__all__ = [
    "SelfAttention_v1",
    "SelfAttention_v2",
    "CausalAttention",
    "MultiHeadAttentionWrapper",
    "MultiHeadAttention",
]


class SelfAttention_v1(nn.Module):  # noqa: N801 (the book's name)
    """Self-attention with trainable weights stored as plain ``nn.Parameter`` matrices.

    The weights come from ``torch.rand`` (uniform in [0, 1)), so ``x @ W_query`` is the projection.
    Input is one sequence: ``(T, d_in)``; output ``(T, d_out)``.
    """

    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query  # (T, d_out)
        values = x @ self.W_value  # (T, d_out)
        attn_scores = queries @ keys.T  # omega: (T, T)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec


class SelfAttention_v2(nn.Module):  # noqa: N801 (the book's name)
    """Self-attention with ``nn.Linear`` projections (better initialisation than ``torch.rand``).

    ``nn.Linear`` stores its weight as ``(d_out, d_in)`` and computes ``x @ weight.T``.
    Input ``(T, d_in)``; output ``(T, d_out)``.
    """

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False) -> None:
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)  # (T, d_out)
        values = self.W_value(x)  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = attn_weights @ values  # (T, d_out)
        return context_vec


class CausalAttention(nn.Module):
    """Self-attention that cannot look ahead (a causal mask) and drops weights at random (dropout).

    New against ``SelfAttention_v2``: a batch axis, the ``mask`` buffer (1 above the diagonal = a
    future token, hidden), and ``nn.Dropout`` on the attention weights. The mask is a *buffer*: it is
    not trained and needs no gradient, but it is saved with the model and moves with it between
    devices; it is built once and reused.

    Input ``(b, T, d_in)`` with ``T <= context_length``; output ``(b, T, d_out)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)  # new: dropout layer
        self.register_buffer(  # new: the causal mask, (context_length, context_length)
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)  # (b, T, d_out)
        values = self.W_value(x)  # (b, T, d_out)
        attn_scores = queries @ keys.transpose(1, 2)  # (b, T, T): keep the batch axis first
        attn_scores.masked_fill_(  # new: in place, hide the future with -inf
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf
        )
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)  # new: dropout on the weights
        context_vec = attn_weights @ values  # (b, T, d_out)
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    """Several independent ``CausalAttention`` heads, their outputs concatenated.

    Each head has its own weights (created head after head) and ``d_out`` outputs, so the result
    has ``num_heads * d_out`` features: input ``(b, T, d_in)``, output ``(b, T, num_heads * d_out)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        self.heads = nn.ModuleList(
            [
                CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                for _ in range(num_heads)
            ]
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """Multi-head attention with one set of projections split into heads, then ``out_proj``.

    ``d_out`` is the total width; each head works on ``head_dim = d_out // num_heads`` features.
    Parameters are created in the order W_query, W_key, W_value, out_proj.
    Input ``(b, T, d_in)``; output ``(b, T, d_out)``.
    """

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # a linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # Split the last dimension into heads: (b, T, d_out) -> (b, T, h, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # (b, T, h, head_dim) -> (b, h, T, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Scaled dot-product attention with a causal mask, for every head at once
        attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T, T)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # (b, h, T, head_dim) -> (b, T, h, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads: (b, T, h, head_dim) -> (b, T, d_out)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection
        return context_vec
