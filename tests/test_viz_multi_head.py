"""Figure and table builders of the multi-head page, checked on their data (no browser)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention import AttentionConfig, AttentionTrace, MultiHeadAttention, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from viz.matrix import MatrixView
from viz.multi_head import (
    fits_grid,
    format_shape,
    fused_shape_steps,
    grid_layout,
    output_frame,
    wrapper_shape_steps,
)
from viz.multi_head import head_weights_grid as grid_of_views
from viz.vocabulary import format_number
from viz.words import FigureWords


def _trace(heads: int, variant: str, d_out: int = 2) -> AttentionTrace:
    cfg = AttentionConfig(d_out=d_out, num_heads=heads, variant=variant)
    return trace_attention(BOOK_EMBEDDINGS, cfg)


def _titles(count: int) -> list[str]:
    return [f"Head {k + 1}" for k in range(count)]


def head_weights_grid(weights, tokens, *, head_titles, zrange=(0.0, 1.0), **titles):  # noqa: ANN001, ANN201
    """The grid of one view per head, as the page builds them (weights ``(h, T, T)``)."""
    views = [
        MatrixView(
            values=np.asarray(head, dtype=np.float64),
            row_labels=tuple(tokens),
            col_labels=tuple(tokens),
            palette="default",
            kind="sequential",
            zrange=zrange,
            title=title,
            **titles,
        )
        for head, title in zip(np.asarray(weights), head_titles, strict=True)
    ]
    return grid_of_views(views, FigureWords())


# --- the grid of heads ---------------------------------------------------------------------------


def test_grid_has_one_heatmap_per_head_with_the_traced_weights() -> None:
    trace = _trace(3, "wrapper")
    weights = trace.attn_weights[0].numpy()  # (3, 6, 6)
    figure = head_weights_grid(weights, BOOK_TOKENS, head_titles=_titles(3))
    heatmaps = [data for data in figure.data if data.type == "heatmap"]
    assert len(heatmaps) == 3
    for head, data in enumerate(heatmaps):
        assert np.allclose(np.asarray(data.z, dtype=float), weights[head])
        assert data.name == f"Head {head + 1}"
        assert data.zmin == 0.0 and data.zmax == 1.0, "one shared colour range"
    assert [bool(data.showscale) for data in heatmaps] == [True, False, False], "one colour bar"


def test_grid_hover_names_head_query_key_and_weight() -> None:
    weights = _trace(2, "fused").attn_weights[0].numpy()
    figure = head_weights_grid(
        weights,
        BOOK_TOKENS,
        head_titles=_titles(2),
        row_title="query",
        col_title="key",
        value_name="weight",
    )
    template = figure.data[1].hovertemplate
    assert template.startswith("Head 2<br>")
    assert "query: %{customdata[0]}" in template
    assert "key: %{customdata[1]}" in template
    assert "weight: %{z:.6f}" in template


def test_grid_escapes_user_tokens_and_titles() -> None:
    tokens = ["<b>x</b>", "y", "y"]
    figure = head_weights_grid(
        np.full((2, 3, 3), 1 / 3), tokens, head_titles=["<i>A</i>", "B"], row_title="q"
    )
    ticks = list(figure.layout.yaxis.ticktext)
    assert ticks[0] == "&lt;b&gt;x&lt;/b&gt;", "escaped after shortening, never cut mid-entity"
    assert ticks[1:] == ["y", "y·2"], "repeated tokens told apart"
    assert figure.layout.annotations[0].text == "&lt;i&gt;A&lt;/i&gt;"
    assert figure.data[0].customdata[0][0][0] == "&lt;b&gt;x&lt;/b&gt;"


def test_grid_rows_and_columns() -> None:
    assert grid_layout(1) == (1, 1)
    assert grid_layout(2) == (1, 2)
    assert grid_layout(5) == (2, 4)
    assert grid_layout(8) == (2, 4)
    figure = head_weights_grid(np.zeros((8, 6, 6)), BOOK_TOKENS, head_titles=_titles(8))
    assert len(figure.data) == 8
    assert figure.data[7].xaxis == "x8" and figure.data[7].yaxis == "y8"
    assert figure.layout.height >= 2 * 6 * 38, "two rows of panels, 38 px a token"
    assert figure.data[0].text[1][0] == "0.00", "2 decimals when 4 panels share a row"


def test_grid_refuses_matrices_too_large_for_numbers() -> None:
    assert fits_grid(6) and fits_grid(40) and not fits_grid(41)
    with pytest.raises(ValueError, match="one figure per head"):
        head_weights_grid(
            np.zeros((2, 41, 41)), [f"t{i}" for i in range(41)], head_titles=["a", "b"]
        )
    square = MatrixView(
        values=np.zeros((3, 3)), row_labels="abc", col_labels="abc", palette="default"
    )
    wide = MatrixView(
        values=np.zeros((3, 4)), row_labels="abc", col_labels="abcd", palette="default"
    )
    with pytest.raises(ValueError, match="same"):
        grid_of_views([square, wide], FigureWords())


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
