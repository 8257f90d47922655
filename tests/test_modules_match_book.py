"""The book's printed numbers (shared/REFERENCE.md), pinned to 4 decimals for every class.

Each expected value is copied from the book's output; ``atol=1e-4`` matches the printed precision.
The classes are compared directly and through ``trace_attention``, so both views are held to the book.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttention_v1,
    SelfAttention_v2,
)
from tests.book_recipe import BOOK_BATCH, book_recipe
from tests.cases import subcases

ATOL = 1e-4  # the book prints 4 decimals

CAUSAL_SEED_123 = torch.tensor(
    [
        [-0.4519, 0.2216],
        [-0.5874, 0.0058],
        [-0.6300, -0.0632],
        [-0.5675, -0.0843],
        [-0.5526, -0.0981],
        [-0.5299, -0.1081],
    ]
)
SELF_ATTENTION_V1_SEED_123 = torch.tensor(
    [
        [0.2996, 0.8053],
        [0.3061, 0.8210],
        [0.3058, 0.8203],
        [0.2948, 0.7939],
        [0.2927, 0.7891],
        [0.2990, 0.8040],
    ]
)
SELF_ATTENTION_V2_SEED_789 = torch.tensor(
    [
        [-0.0739, 0.0713],
        [-0.0748, 0.0703],
        [-0.0749, 0.0702],
        [-0.0760, 0.0685],
        [-0.0763, 0.0679],
        [-0.0754, 0.0693],
    ]
)
MASKED_WEIGHTS_ROW_2 = torch.tensor([0.5517, 0.4483, 0.0, 0.0, 0.0, 0.0])
MASKED_WEIGHTS_ROW_6 = torch.tensor([0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529])
WRAPPER_ROW_1 = torch.tensor([-0.4519, 0.2216, 0.4772, 0.1063])
WRAPPER_ROW_6 = torch.tensor([-0.5299, -0.1081, 0.5077, 0.3493])
FUSED_SEED_123 = torch.tensor(
    [
        [0.3190, 0.4858],
        [0.2943, 0.3897],
        [0.2856, 0.3593],
        [0.2693, 0.3873],
        [0.2639, 0.3928],
        [0.2575, 0.4028],
    ]
)


def test_book_embeddings_are_the_six_tokens_of_the_seed_document() -> None:
    assert BOOK_BATCH.shape == (2, 6, 3)
    assert torch.allclose(BOOK_EMBEDDINGS[0], torch.tensor([0.43, 0.15, 0.89]))
    assert torch.allclose(BOOK_EMBEDDINGS[5], torch.tensor([0.05, 0.80, 0.55]))


def test_causal_attention_context_matches_book_for_seed_123_in_both_batch_rows() -> None:
    torch.manual_seed(123)
    context_length = BOOK_BATCH.shape[1]
    ca = CausalAttention(3, 2, context_length, 0.0)
    with torch.no_grad():
        context_vecs = ca(BOOK_BATCH)
    assert context_length == 6
    assert context_vecs.shape == torch.Size([2, 6, 2])
    assert torch.allclose(context_vecs[0], CAUSAL_SEED_123, atol=ATOL)
    assert torch.allclose(context_vecs[1], CAUSAL_SEED_123, atol=ATOL)


def test_trace_output_matches_book_for_default_config() -> None:
    trace = trace_attention(BOOK_BATCH)  # the default config is the book's: d_out 2, seed 123
    assert trace.output.shape == (2, 6, 2)
    assert torch.allclose(trace.output[0], CAUSAL_SEED_123, atol=ATOL)
    assert torch.allclose(trace.output[1], CAUSAL_SEED_123, atol=ATOL)


def test_self_attention_v1_matches_book_for_seed_123() -> None:
    torch.manual_seed(123)
    with torch.no_grad():
        context = SelfAttention_v1(3, 2)(BOOK_EMBEDDINGS)
    assert context.shape == (6, 2)
    assert torch.allclose(context, SELF_ATTENTION_V1_SEED_123, atol=ATOL)


def test_self_attention_v2_matches_book_for_seed_789() -> None:
    torch.manual_seed(789)
    with torch.no_grad():
        context = SelfAttention_v2(3, 2)(BOOK_EMBEDDINGS)
    assert context.shape == (6, 2)
    assert torch.allclose(context, SELF_ATTENTION_V2_SEED_789, atol=ATOL)


def test_masked_weights_from_self_attention_v2_seed_789_match_book_rows_2_and_6() -> None:
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    with torch.no_grad():
        queries = sa_v2.W_query(BOOK_EMBEDDINGS)
        keys = sa_v2.W_key(BOOK_EMBEDDINGS)
    attn_scores = queries @ keys.T
    mask = torch.triu(torch.ones(6, 6), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1] ** 0.5, dim=-1)
    assert torch.allclose(attn_weights[1], MASKED_WEIGHTS_ROW_2, atol=ATOL)
    assert torch.allclose(attn_weights[5], MASKED_WEIGHTS_ROW_6, atol=ATOL)


def test_multi_head_wrapper_matches_book_rows_1_and_6_for_seed_123() -> None:
    torch.manual_seed(123)
    wrapper = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
    with torch.no_grad():
        context_vecs = wrapper(BOOK_BATCH)
    assert context_vecs.shape == torch.Size([2, 6, 4])
    for batch_row in context_vecs:
        assert torch.allclose(batch_row[0], WRAPPER_ROW_1, atol=ATOL)
        assert torch.allclose(batch_row[5], WRAPPER_ROW_6, atol=ATOL)


def test_multi_head_wrapper_first_head_is_causal_attention_with_the_same_seed() -> None:
    torch.manual_seed(123)
    wrapper = MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)
    with torch.no_grad():
        context_vecs = wrapper(BOOK_BATCH)
    assert torch.allclose(context_vecs[0, :, :2], CAUSAL_SEED_123, atol=ATOL)


def test_multi_head_attention_matches_book_for_seed_123() -> None:
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    with torch.no_grad():
        context_vecs = mha(BOOK_BATCH)
    assert context_vecs.shape == torch.Size([2, 6, 2])
    assert torch.allclose(context_vecs[0], FUSED_SEED_123, atol=ATOL)
    assert torch.allclose(context_vecs[1], FUSED_SEED_123, atol=ATOL)


def test_multi_head_attention_creates_parameters_in_book_order() -> None:
    torch.manual_seed(123)
    mha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    torch.manual_seed(123)
    expected_query = nn.Linear(3, 2, bias=False).weight
    expected_key = nn.Linear(3, 2, bias=False).weight
    expected_value = nn.Linear(3, 2, bias=False).weight
    expected_out = nn.Linear(2, 2)
    assert torch.equal(mha.W_query.weight, expected_query)
    assert torch.equal(mha.W_key.weight, expected_key)
    assert torch.equal(mha.W_value.weight, expected_value)
    assert torch.equal(mha.out_proj.weight, expected_out.weight)
    assert torch.equal(mha.out_proj.bias, expected_out.bias)


@subcases(
    ("num_heads", "variant", "expected_rows"),
    [
        (2, "wrapper", {0: WRAPPER_ROW_1, 5: WRAPPER_ROW_6}),
        (2, "fused", dict(enumerate(FUSED_SEED_123))),
    ],
)
def test_trace_matches_book_multi_head_numbers(
    num_heads: int, variant: str, expected_rows: dict[int, torch.Tensor]
) -> None:
    trace = trace_attention(
        BOOK_BATCH, AttentionConfig(d_out=2, seed=123, num_heads=num_heads, variant=variant)
    )
    for row, expected in expected_rows.items():
        assert torch.allclose(trace.output[0, row], expected, atol=ATOL)
        assert torch.allclose(trace.output[1, row], expected, atol=ATOL)


def test_dropout_half_keeps_only_zeros_and_twos() -> None:
    torch.manual_seed(123)
    dropped = nn.Dropout(0.5)(torch.ones(6, 6))
    values = set(dropped.unique().tolist())
    assert values <= {0.0, 2.0}
    assert values == {0.0, 2.0}  # 36 coin flips: both outcomes occur for seed 123


def test_trace_dropout_mask_is_the_same_recipe_run_on_this_machine() -> None:
    """The trace's mask is the book's recipe run here (whether it equals the printed one is
    measured by attention.book_outputs, not assumed)."""
    cfg = AttentionConfig(d_out=2, seed=123, dropout=0.5)
    trace = trace_attention(BOOK_BATCH, cfg)
    expected = book_recipe(BOOK_BATCH, d_out=2, seed=123, dropout=0.5)
    assert torch.equal(trace.output, expected)
    assert trace.dropout_mask is not None
    kept = trace.dropped_weights[trace.dropout_mask]
    assert torch.allclose(kept, trace.attn_weights[trace.dropout_mask] * 2.0)
    assert bool((trace.dropped_weights[~trace.dropout_mask] == 0).all())
