"""Table builders of the multi-head page, checked on their data (no browser)."""

from __future__ import annotations

import pytest
import torch

from attention import AttentionConfig, AttentionTrace, MultiHeadAttention, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from viz.multi_head import (
    format_shape,
    fused_shape_steps,
    output_frame,
    wrapper_shape_steps,
)
from viz.vocabulary import format_number


def _trace(heads: int, variant: str, d_out: int = 2) -> AttentionTrace:
    cfg = AttentionConfig(d_out=d_out, num_heads=heads, variant=variant)
    return trace_attention(BOOK_EMBEDDINGS, cfg)


# --- shapes --------------------------------------------------------------------------------------


def test_fused_shapes_follow_the_book_for_d_out_4_and_2_heads() -> None:
    steps = fused_shape_steps(_trace(2, "fused", d_out=4))
    shapes = {step.key: step.shape for step in steps}
    assert [step.key for step in steps] == [
        "x",
        "queries",
        "view",
        "transpose",
        "attn_scores",
        "attn_weights",
        "head_context",
        "transpose_back",
        "join",
        "out_proj",
    ]
    assert shapes["x"] == (1, 6, 3)
    assert shapes["queries"] == (1, 6, 4)
    assert shapes["view"] == (1, 6, 2, 2)
    assert shapes["transpose"] == (1, 2, 6, 2)
    assert shapes["attn_scores"] == (1, 2, 6, 6)
    assert shapes["head_context"] == (1, 2, 6, 2)
    assert shapes["join"] == (1, 6, 4)
    assert shapes["out_proj"] == (1, 6, 4)


def test_fused_shapes_match_the_modules_own_forward_pass() -> None:
    """Replay MultiHeadAttention.forward's reshapes on the module itself: same shapes."""
    trace = _trace(4, "fused", d_out=8)
    torch.manual_seed(123)
    module = MultiHeadAttention(3, 8, 6, 0.0, num_heads=4)
    x = BOOK_EMBEDDINGS.unsqueeze(0)  # (1, 6, 3)
    with torch.no_grad():
        queries = module.W_query(x)
        split = queries.view(1, 6, 4, 2)
        output = module(x)
    shapes = {step.key: step.shape for step in fused_shape_steps(trace)}
    assert shapes["queries"] == tuple(queries.shape)
    assert shapes["view"] == tuple(split.shape)
    assert shapes["transpose"] == tuple(split.transpose(1, 2).shape)
    assert shapes["out_proj"] == tuple(output.shape)


def test_wrapper_shapes_per_head_then_concatenated() -> None:
    shapes = {step.key: step.shape for step in wrapper_shape_steps(_trace(3, "wrapper"))}
    assert shapes["queries"] == (1, 6, 2)
    assert shapes["attn_scores"] == (1, 6, 6)
    assert shapes["head_context"] == (1, 6, 2)
    assert shapes["concat"] == (1, 6, 6), "3 heads × d_out 2"
    one_head = {step.key: step.shape for step in wrapper_shape_steps(_trace(1, "wrapper"))}
    assert one_head["concat"] == (1, 6, 2)


def test_fused_shapes_need_a_fused_multi_head_trace() -> None:
    with pytest.raises(ValueError, match="MultiHeadAttention"):
        fused_shape_steps(_trace(2, "wrapper"))


def test_format_shape_reads_like_python() -> None:
    assert format_shape((1, 6, 3)) == "(1, 6, 3)"
    assert format_shape((6,)) == "(6,)"


# --- outputs -------------------------------------------------------------------------------------


def test_output_frame_has_4_decimals_and_an_ascii_minus() -> None:
    trace = _trace(2, "wrapper")
    frame = output_frame(trace.output[0].numpy(), list(BOOK_TOKENS), ["a", "b", "c", "d"])
    assert frame.iloc[0].tolist() == ["-0.4519", "0.2216", "0.4772", "0.1063"]
    assert frame.iloc[5].tolist() == ["-0.5299", "-0.1081", "0.5077", "0.3493"]
    assert list(frame.index) == list(BOOK_TOKENS)


def test_format_number_never_writes_minus_zero() -> None:
    assert format_number(-0.00001) == "0.0000"
    assert format_number(-0.5) == "-0.5000"
    assert format_number(0.123456, 2) == "0.12"
