"""The trace's contract: ``trace_attention(inputs, cfg).output`` is the book's recipe's output.

One head: bitwise (``torch.equal``), dropout mask included. Several heads: ``allclose(atol=1e-6)``
for the fused ``MultiHeadAttention`` and the wrapper.

The cases are chosen, not a grid: the book's seeds (123, 789), the seeds at the edges of the
integer widths torch folds a seed through (2**31 - 1, 2**32 + 7, 2**63 + 5, 2**64 - 1), every
dropout rate the app offers at its ends and middle (0, 0.1, 0.5, 0.9, 1), both modes and both
bias settings. Each value of each parameter appears at least once, and each rate in both modes
where the mode matters, so a path that mishandles one value fails one named case.
"""

from __future__ import annotations

import pytest
import torch

from attention import AttentionConfig, trace_attention
from tests.book_recipe import BOOK_BATCH, book_recipe, random_inputs

# (seed, dropout, training, qkv_bias)
SINGLE_HEAD_CASES = {
    "book_causal_attention": (123, 0.0, True, False),  # the book's CausalAttention, no dropout
    "book_dropout_half": (123, 0.5, True, False),  # section 3.5.2's rate
    "book_v2_seed_eval": (789, 0.5, False, False),  # eval: dropout off whatever p is
    "book_v2_seed_bias": (789, 0.1, True, True),
    "seed0_p09_bias": (0, 0.9, True, True),
    "seed0_p1_drops_all": (0, 1.0, True, False),
    "seed30_p0_eval_bias": (30, 0.0, False, True),
    "int32_max_p1_eval_bias": (2**31 - 1, 1.0, False, True),
    "over_uint32_p05_bias": (2**32 + 7, 0.5, True, True),
    "over_int64_p01_eval": (2**63 + 5, 0.1, False, False),
    "uint64_max_p09": (2**64 - 1, 0.9, True, False),
}


@pytest.mark.parametrize(
    ("seed", "dropout", "training", "qkv_bias"),
    list(SINGLE_HEAD_CASES.values()),
    ids=list(SINGLE_HEAD_CASES),
)
def test_single_head_output_is_bitwise_the_book_recipe_on_the_book_batch(
    seed: int, dropout: float, training: bool, qkv_bias: bool
) -> None:
    cfg = AttentionConfig(d_out=2, seed=seed, dropout=dropout, training=training, qkv_bias=qkv_bias)
    trace = trace_attention(BOOK_BATCH, cfg)
    expected = book_recipe(
        BOOK_BATCH, d_out=2, seed=seed, dropout=dropout, training=training, qkv_bias=qkv_bias
    )
    assert trace.output.shape == expected.shape == (2, 6, 2)
    assert torch.equal(trace.output, expected)


# (tokens, d_in, d_out, batch): each of tokens 1/6/50, d_in 1/3/16, d_out 1/2/8 and batch
# 2-D/1/2/3 at least once; batch None is a 2-D input (T, d_in)
SIZE_CASES = [
    (1, 1, 1, None),
    (1, 16, 8, 3),
    (6, 3, 2, 1),
    (6, 16, 1, 2),
    (50, 1, 8, 2),
    (50, 3, 2, None),
]


def test_single_head_output_is_bitwise_the_book_recipe_for_any_size() -> None:
    for tokens, d_in, d_out, batch in SIZE_CASES:
        shape = (tokens, d_in) if batch is None else (batch, tokens, d_in)
        inputs = random_inputs(shape, seed=tokens * 1000 + d_in * 10 + d_out)
        seed = tokens + d_in + d_out + (batch or 0)
        for dropout, training in ((0.0, True), (0.5, True), (0.5, False)):
            case = (tokens, d_in, d_out, batch, dropout, training)
            cfg = AttentionConfig(d_out=d_out, seed=seed, dropout=dropout, training=training)
            trace = trace_attention(inputs, cfg)
            expected = book_recipe(
                inputs, d_out=d_out, seed=seed, dropout=dropout, training=training
            )
            assert trace.output.shape == (batch or 1, tokens, d_out), case
            assert torch.equal(trace.output, expected), case


def test_context_length_larger_than_tokens_matches_the_recipe() -> None:
    for context_length in (7, 50, 4096):
        for dropout in (0.0, 0.5):
            cfg = AttentionConfig(d_out=2, seed=5, dropout=dropout, context_length=context_length)
            trace = trace_attention(BOOK_BATCH, cfg)
            expected = book_recipe(
                BOOK_BATCH, d_out=2, seed=5, dropout=dropout, context_length=context_length
            )
            assert trace.config.context_length == context_length
            assert trace.mask.shape == (6, 6)  # the mask is cut to the tokens present
            assert torch.equal(trace.output, expected), (context_length, dropout)


def test_context_length_defaults_to_the_number_of_tokens() -> None:
    trace = trace_attention(BOOK_BATCH[:, :4], AttentionConfig())
    assert trace.config.context_length == 4


# (variant, num_heads, d_out, dropout, training, qkv_bias, seed): each head shape once, every
# rate and mode for each variant, both bias settings and the edge seeds spread over them
MULTI_HEAD_CASES = {
    "book_fused_seed123": ("fused", 2, 2, 0.0, True, False, 123),  # the book's MultiHeadAttention
    "fused_2x2_p01_bias": ("fused", 2, 4, 0.1, True, True, 0),
    "fused_3x2_p05_max_seed": ("fused", 3, 6, 0.5, True, False, 2**64 - 1),
    "fused_4x2_p05_eval_bias": ("fused", 4, 8, 0.5, False, True, 123),
    "fused_2x1_p1_drops_all": ("fused", 2, 2, 1.0, True, False, 2**64 - 1),
    "book_wrapper_seed123": ("wrapper", 2, 2, 0.0, True, False, 123),  # the book's wrapper
    "wrapper_2x3_p05_bias_max_seed": ("wrapper", 2, 3, 0.5, True, True, 2**64 - 1),
    "wrapper_3x1_p1_drops_all": ("wrapper", 3, 1, 1.0, True, False, 0),
    "wrapper_4x2_p05_eval_bias": ("wrapper", 4, 2, 0.5, False, True, 123),
    "wrapper_2x2_p01_bias": ("wrapper", 2, 2, 0.1, True, True, 0),
}


@pytest.mark.parametrize(
    ("variant", "num_heads", "d_out", "dropout", "training", "qkv_bias", "seed"),
    list(MULTI_HEAD_CASES.values()),
    ids=list(MULTI_HEAD_CASES),
)
def test_multi_head_output_matches_the_book_recipe(
    variant: str,
    num_heads: int,
    d_out: int,
    dropout: float,
    training: bool,
    qkv_bias: bool,
    seed: int,
) -> None:
    cfg = AttentionConfig(
        d_out=d_out,
        seed=seed,
        dropout=dropout,
        training=training,
        qkv_bias=qkv_bias,
        num_heads=num_heads,
        variant=variant,
    )
    trace = trace_attention(BOOK_BATCH, cfg)
    expected = book_recipe(
        BOOK_BATCH,
        d_out=d_out,
        seed=seed,
        dropout=dropout,
        training=training,
        qkv_bias=qkv_bias,
        num_heads=num_heads,
        variant=variant,
    )
    width = d_out if variant == "fused" else num_heads * d_out
    assert trace.output.shape == expected.shape == (2, 6, width)
    assert torch.allclose(trace.output, expected, atol=1e-6, rtol=0)


def test_multi_head_output_matches_the_recipe_for_other_sizes() -> None:
    for variant in ("fused", "wrapper"):
        for tokens, batch in ((1, None), (50, None), (50, 3), (7, 2)):
            shape = (tokens, 5) if batch is None else (batch, tokens, 5)
            inputs = random_inputs(shape, seed=tokens)
            cfg = AttentionConfig(d_out=4, seed=tokens, dropout=0.3, num_heads=2, variant=variant)
            trace = trace_attention(inputs, cfg)
            expected = book_recipe(
                inputs, d_out=4, seed=tokens, dropout=0.3, num_heads=2, variant=variant
            )
            case = (variant, tokens, batch)
            assert trace.output.shape == expected.shape, case
            assert torch.allclose(trace.output, expected, atol=1e-6, rtol=0), case


def test_same_config_twice_gives_identical_traces() -> None:
    cfg = AttentionConfig(d_out=3, seed=99, dropout=0.5, num_heads=2, variant="wrapper")
    first = trace_attention(BOOK_BATCH, cfg)
    second = trace_attention(BOOK_BATCH, cfg)
    for name, tensor in first.tensors().items():
        assert torch.equal(tensor, second.tensors()[name]), name


def test_different_seeds_give_different_weights() -> None:
    first = trace_attention(BOOK_BATCH, AttentionConfig(seed=1))
    second = trace_attention(BOOK_BATCH, AttentionConfig(seed=2))
    assert not torch.equal(first.W_query, second.W_query)
    assert not torch.equal(first.output, second.output)


def test_dropout_is_weights_times_dropout_of_ones_on_this_torch() -> None:
    """The identity the trace relies on to draw dropout noise once: ``d(w) == w * d(ones)``."""
    for shape in ((1, 1, 1), (2, 6, 6), (3, 2, 37, 37)):
        weights = torch.softmax(random_inputs(shape, seed=len(shape)), dim=-1)
        for p in (0.1, 0.5, 0.9, 1.0):
            dropout = torch.nn.Dropout(p).train()
            torch.manual_seed(17)
            expected = dropout(weights)
            torch.manual_seed(17)
            assert torch.equal(weights * dropout(torch.ones_like(weights)), expected), (shape, p)
