"""The trace's contract: ``trace_attention(inputs, cfg).output`` is the book's recipe's output.

One head: bitwise (``torch.equal``), dropout mask included, for many seeds, rates, modes and sizes.
Several heads: ``allclose(atol=1e-6)`` for the fused ``MultiHeadAttention`` and the wrapper.
"""

from __future__ import annotations

import itertools

import pytest
import torch

from attention import AttentionConfig, trace_attention
from tests.book_recipe import BOOK_BATCH, book_recipe, random_inputs

SEEDS = [*range(31), 2**31 - 1, 2**32 + 7, 2**63 + 5, 2**64 - 1]
DROPOUTS = [0.0, 0.1, 0.5, 0.9, 1.0]


@pytest.mark.parametrize("qkv_bias", [False, True], ids=["no_bias", "bias"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dropout", DROPOUTS, ids=lambda p: f"p{p}")
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed{s}")
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


SIZE_CASES = [
    (tokens, d_in, d_out, batch)
    for tokens, d_in, d_out, batch in itertools.product(
        (1, 6, 50), (1, 3, 16), (1, 2, 8), (None, 1, 2, 3)
    )
]  # batch None: a 2-D input (T, d_in)


@pytest.mark.parametrize(
    ("tokens", "d_in", "d_out", "batch"),
    SIZE_CASES,
    ids=[f"T{t}-din{i}-dout{o}-{'2d' if b is None else f'b{b}'}" for t, i, o, b in SIZE_CASES],
)
def test_single_head_output_is_bitwise_the_book_recipe_for_any_size(
    tokens: int, d_in: int, d_out: int, batch: int | None
) -> None:
    shape = (tokens, d_in) if batch is None else (batch, tokens, d_in)
    inputs = random_inputs(shape, seed=tokens * 1000 + d_in * 10 + d_out)
    seed = tokens + d_in + d_out + (batch or 0)
    for dropout, training in ((0.0, True), (0.5, True), (0.5, False)):
        cfg = AttentionConfig(d_out=d_out, seed=seed, dropout=dropout, training=training)
        trace = trace_attention(inputs, cfg)
        expected = book_recipe(inputs, d_out=d_out, seed=seed, dropout=dropout, training=training)
        assert trace.output.shape == (batch or 1, tokens, d_out)
        assert torch.equal(trace.output, expected), (dropout, training)


@pytest.mark.parametrize("context_length", [7, 50, 4096])
@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_context_length_larger_than_tokens_matches_the_recipe(
    context_length: int, dropout: float
) -> None:
    cfg = AttentionConfig(d_out=2, seed=5, dropout=dropout, context_length=context_length)
    trace = trace_attention(BOOK_BATCH, cfg)
    expected = book_recipe(
        BOOK_BATCH, d_out=2, seed=5, dropout=dropout, context_length=context_length
    )
    assert trace.config.context_length == context_length
    assert trace.mask.shape == (6, 6)  # the mask is cut to the tokens present
    assert torch.equal(trace.output, expected)


def test_context_length_defaults_to_the_number_of_tokens() -> None:
    trace = trace_attention(BOOK_BATCH[:, :4], AttentionConfig())
    assert trace.config.context_length == 4


MULTI_HEAD_CASES = [
    (variant, num_heads, d_out, dropout, training, qkv_bias, seed)
    for variant, (num_heads, d_out) in [
        ("fused", (2, 2)),
        ("fused", (2, 4)),
        ("fused", (3, 6)),
        ("fused", (4, 8)),
        ("wrapper", (2, 2)),
        ("wrapper", (2, 3)),
        ("wrapper", (3, 1)),
        ("wrapper", (4, 2)),
    ]
    for dropout, training in [(0.0, True), (0.1, True), (0.5, True), (1.0, True), (0.5, False)]
    for qkv_bias in (False, True)
    for seed in (0, 123, 2**64 - 1)
]


@pytest.mark.parametrize(
    ("variant", "num_heads", "d_out", "dropout", "training", "qkv_bias", "seed"),
    MULTI_HEAD_CASES,
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


@pytest.mark.parametrize("variant", ["fused", "wrapper"])
@pytest.mark.parametrize(("tokens", "batch"), [(1, None), (50, None), (50, 3), (7, 2)])
def test_multi_head_output_matches_the_recipe_for_other_sizes(
    variant: str, tokens: int, batch: int | None
) -> None:
    shape = (tokens, 5) if batch is None else (batch, tokens, 5)
    inputs = random_inputs(shape, seed=tokens)
    cfg = AttentionConfig(d_out=4, seed=tokens, dropout=0.3, num_heads=2, variant=variant)
    trace = trace_attention(inputs, cfg)
    expected = book_recipe(inputs, d_out=4, seed=tokens, dropout=0.3, num_heads=2, variant=variant)
    assert trace.output.shape == expected.shape
    assert torch.allclose(trace.output, expected, atol=1e-6, rtol=0)


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


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 6, 6), (3, 2, 37, 37)])
def test_dropout_is_weights_times_dropout_of_ones_on_this_torch(
    p: float, shape: tuple[int, ...]
) -> None:
    """The identity the trace relies on to draw dropout noise once: ``d(w) == w * d(ones)``."""
    weights = torch.softmax(random_inputs(shape, seed=len(shape)), dim=-1)
    dropout = torch.nn.Dropout(p).train()
    torch.manual_seed(17)
    expected = dropout(weights)
    torch.manual_seed(17)
    assert torch.equal(weights * dropout(torch.ones_like(weights)), expected)
