"""The book's recipe, written out independently of ``attention.trace``, for the tests to compare to.

``book_recipe`` is what a reader of chapter 3 types: seed torch, build the class, pick the mode,
call it on a batch. It deliberately does not use ``attention.trace.build_module``.
"""

from __future__ import annotations

import torch

from attention.examples import BOOK_EMBEDDINGS
from attention.modules import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper

BOOK_BATCH = torch.stack((BOOK_EMBEDDINGS, BOOK_EMBEDDINGS), dim=0)  # (2, 6, 3), as in the book


def book_module(
    d_in: int,
    *,
    d_out: int,
    seed: int,
    context_length: int,
    dropout: float = 0.0,
    training: bool = True,
    qkv_bias: bool = False,
    num_heads: int = 1,
    variant: str = "fused",
) -> torch.nn.Module:
    """``torch.manual_seed(seed)``, build the book's class, ``.train(training)``: ready to call."""
    torch.manual_seed(seed)
    module: torch.nn.Module
    if num_heads == 1:
        module = CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
    elif variant == "fused":
        module = MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads, qkv_bias)
    else:
        module = MultiHeadAttentionWrapper(
            d_in, d_out, context_length, dropout, num_heads, qkv_bias
        )
    module.train(training)
    return module


def book_recipe(
    inputs: torch.Tensor,
    *,
    d_out: int,
    seed: int,
    dropout: float = 0.0,
    training: bool = True,
    qkv_bias: bool = False,
    context_length: int | None = None,
    num_heads: int = 1,
    variant: str = "fused",
) -> torch.Tensor:
    """``torch.manual_seed(seed)``, build the book's class, ``.train(training)``, call it.

    ``inputs`` is ``(T, d_in)`` (made a batch of one) or ``(b, T, d_in)``; returns ``(b, T, ·)``.
    """
    batch = inputs.unsqueeze(0) if inputs.dim() == 2 else inputs
    _, num_tokens, d_in = batch.shape
    module = book_module(
        d_in,
        d_out=d_out,
        seed=seed,
        context_length=num_tokens if context_length is None else context_length,
        dropout=dropout,
        training=training,
        qkv_bias=qkv_bias,
        num_heads=num_heads,
        variant=variant,
    )
    with torch.no_grad():
        return module(batch)


def random_inputs(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Embeddings in [-1, 1) from a private generator (the global RNG is left alone)."""
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=generator) * 2 - 1
