"""The step-by-step figures draw the trace's own numbers, hide the future, and escape user text."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.cases import subcases
from tests.step_figures import field_view
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR
from viz.heatmap import MINUS_INFINITY, matrix_figure
from viz.matrix import MatrixView
from viz.words import FigureWords

TOKENS = list(BOOK_TOKENS)
WORDS = FigureWords()


def draw(view: MatrixView):  # noqa: ANN201 - a go.Figure
    """The figure the app draws for a step's view."""
    return matrix_figure(view, WORDS)


def z_of(figure, index: int = 0) -> np.ndarray:
    return np.asarray(figure.data[index].z, dtype=np.float64)


def text_of(figure, index: int = 0) -> np.ndarray:
    return np.asarray(figure.data[index].text, dtype=object)


def test_masked_scores_hide_the_future_as_nan_written_minus_infinity(six_token_trace) -> None:
    figure = draw(field_view(six_token_trace, "masked_scores", TOKENS, WORDS, palette="default"))
    hidden = six_token_trace.mask.numpy()  # (6, 6), True above the diagonal
    z = z_of(figure)
    assert np.isnan(z[hidden]).all()
    np.testing.assert_array_equal(z[~hidden], six_token_trace.masked_scores[0].numpy()[~hidden])
    assert (text_of(figure)[hidden] == MINUS_INFINITY).all()
    grey = figure.data[1]
    assert grey.colorscale[0][1] == HIDDEN_COLOR
    grey_text = np.asarray(grey.text, dtype=object)
    assert (grey_text[hidden] == MINUS_INFINITY).all()
    assert (grey_text[~hidden] == "").all(), "the grey layer must not write over visible cells"


def test_scaled_scores_are_the_traces_and_raw_scores_hide_nothing(six_token_trace) -> None:
    scaled = draw(field_view(six_token_trace, "scaled_scores", TOKENS, WORDS, palette="default"))
    hidden = six_token_trace.mask.numpy()
    np.testing.assert_array_equal(
        z_of(scaled)[~hidden], six_token_trace.scaled_scores[0].numpy()[~hidden]
    )
    raw = draw(field_view(six_token_trace, "attn_scores", TOKENS, WORDS, palette="default"))
    assert len(raw.data) == 1
    np.testing.assert_array_equal(z_of(raw), six_token_trace.attn_scores[0].numpy())
    assert MINUS_INFINITY not in text_of(raw)


def test_token_labels_are_escaped_everywhere(six_token_trace) -> None:
    tokens = ["<b>b</b>", "a&b", "<a href='x'>link</a>", "with", "one", "step"]
    figures = [
        draw(field_view(six_token_trace, "inputs", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "queries", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "masked_scores", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "mask", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "attn_weights", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "context", tokens, WORDS, palette="default")),
    ]
    for figure in figures:
        serialized = figure.to_json()
        assert "<b>b" not in serialized and "<a href" not in serialized
        assert figure.layout.yaxis.ticktext[0].startswith("&lt;b&gt;b")
        customdata = np.asarray(figure.data[0].customdata, dtype=object)
        assert customdata[0, 0, 0] == "&lt;b&gt;b&lt;/b&gt;"
        assert customdata[1, 0, 0] == "a&amp;b"


def test_long_labels_are_shortened_before_they_are_escaped(six_token_trace) -> None:
    tokens = ["<" * 20, "&" * 20, "with", "one", "step", "journey"]
    for figure in (
        draw(field_view(six_token_trace, "mask", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "attn_weights", tokens, WORDS, palette="default")),
        draw(field_view(six_token_trace, "attn_scores", tokens, WORDS, palette="default")),
    ):
        for tick in [*figure.layout.xaxis.ticktext, *figure.layout.yaxis.ticktext]:
            assert not re.search(r"&[a-z]*…", tick), f"an entity was cut in half: {tick!r}"
        assert figure.layout.yaxis.ticktext[0] == "&lt;" * 13 + "…"


def test_axis_titles_and_hover_names_are_escaped_too(six_token_trace) -> None:
    words = FigureWords(query="<i>q</i>", key="k", attention_weight="<b>w</b>")
    figure = matrix_figure(
        field_view(six_token_trace, "attn_weights", TOKENS, words, palette="default"), words
    )
    assert figure.layout.yaxis.title.text == "&lt;i&gt;q&lt;/i&gt;"
    assert "&lt;b&gt;w&lt;/b&gt;" in figure.data[0].hovertemplate
    assert "<b>w" not in figure.to_json()


@subcases(
    "build",
    [
        lambda tr: draw(field_view(tr, "inputs", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "W_key", None, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "values", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "attn_scores", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "scaled_scores", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "attn_weights", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "dropped_weights", TOKENS, WORDS, palette="default")),
        lambda tr: draw(field_view(tr, "context", TOKENS, WORDS, palette="default")),
    ],
)
def test_every_value_figure_hovers_the_exact_value_and_has_a_colour_bar(
    build, six_token_trace
) -> None:
    figure = build(six_token_trace)
    main = figure.data[0]
    assert "%{z:.6f}" in main.hovertemplate
    assert main.showscale is not False
    assert main.colorbar.title.text, "the colour bar names what it measures"
    assert main.colorbar.title.side == "right"
    assert figure.layout.xaxis.side == "top"
    assert figure.layout.yaxis.autorange == "reversed"


def test_step_figures_show_the_traces_tensors(six_token_trace) -> None:
    np.testing.assert_array_equal(
        z_of(draw(field_view(six_token_trace, "inputs", TOKENS, WORDS, palette="default"))),
        BOOK_EMBEDDINGS.numpy(),
    )
    weight = draw(field_view(six_token_trace, "W_query", None, WORDS, palette="default"))
    np.testing.assert_array_equal(z_of(weight), six_token_trace.W_query.numpy())
    assert list(weight.layout.xaxis.ticktext) == ["q1", "q2"]
    assert list(weight.layout.yaxis.ticktext) == ["x1", "x2", "x3"]
    for name, prefix in {"queries": "q", "keys": "k", "values": "v"}.items():
        figure = draw(field_view(six_token_trace, name, TOKENS, WORDS, palette="default"))
        np.testing.assert_array_equal(z_of(figure), getattr(six_token_trace, name)[0].numpy())
        assert list(figure.layout.xaxis.ticktext) == [f"{prefix}1", f"{prefix}2"]
    context = draw(field_view(six_token_trace, "context", TOKENS, WORDS, palette="default"))
    np.testing.assert_array_equal(z_of(context), six_token_trace.context[0].numpy())
    assert list(context.layout.yaxis.ticktext) == TOKENS


def test_the_causal_mask_is_written_as_the_buffer_holds_it(six_token_trace) -> None:
    figure = draw(field_view(six_token_trace, "mask", TOKENS, WORDS, palette="default"))
    hidden = six_token_trace.mask.numpy()
    np.testing.assert_array_equal(z_of(figure), hidden.astype(float))
    np.testing.assert_array_equal(
        text_of(figure), np.where(torch.triu(torch.ones(6, 6), 1).numpy() == 1, "1", "0")
    )
    assert figure.data[0].showscale is False  # two colours, not a scale
    assert "%{customdata[2]}" in figure.data[0].hovertemplate
    states = np.asarray(figure.data[0].customdata, dtype=object)[:, :, 2]
    assert states[0, 1].startswith("1") and states[1, 0].startswith("0")


def test_weights_are_on_a_zero_to_one_scale_and_masked_cells_are_grey_zeros(
    six_token_trace,
) -> None:
    figure = draw(field_view(six_token_trace, "attn_weights", TOKENS, WORDS, palette="default"))
    hidden = six_token_trace.mask.numpy()
    main = figure.data[0]
    assert (main.zmin, main.zmax) == (0.0, 1.0)
    z = z_of(figure)
    assert np.isnan(z[hidden]).all()
    np.testing.assert_array_equal(z[~hidden], six_token_trace.attn_weights[0].numpy()[~hidden])
    assert (text_of(figure)[hidden] == "").all()
    grey = figure.data[1]
    assert grey.colorscale[0][1] == HIDDEN_COLOR
    grey_text = np.asarray(grey.text, dtype=object)
    assert (grey_text[hidden] == "0").all() and (grey_text[~hidden] == "").all()


def test_dropped_weights_show_kept_cells_scaled_and_dropped_cells_pink(
    six_token_dropout_trace,
) -> None:
    figure = draw(
        field_view(six_token_dropout_trace, "dropped_weights", TOKENS, WORDS, palette="default")
    )
    hidden = six_token_dropout_trace.mask.numpy()
    keep = six_token_dropout_trace.dropout_mask[0].numpy()
    kept, dropped = keep & ~hidden, ~keep & ~hidden
    assert kept.any() and dropped.any()
    z = z_of(figure)
    np.testing.assert_array_equal(z[kept], six_token_dropout_trace.dropped_weights[0].numpy()[kept])
    assert np.isnan(z[dropped | hidden]).all()
    assert figure.data[0].zmax >= 2.0, "a kept weight × 2 must fit on the scale"
    assert "× 2" in figure.data[0].hovertemplate
    before = np.asarray(figure.data[0].customdata, dtype=object)[:, :, 2]
    row, col = np.argwhere(kept)[0]
    assert before[row, col] == f"{float(six_token_dropout_trace.attn_weights[0, row, col]):.6f}"
    pink = next(trace for trace in figure.data[1:] if trace.colorscale[0][1] == DROPPED_COLOR)
    pink_text = np.asarray(pink.text, dtype=object)
    assert (pink_text[dropped] == "0").all() and (pink_text[~dropped] == "").all()
    assert "dropped" in pink.hovertemplate
    # a kept cell under the pink layer hovers its weight, never the layer's "0 (dropped)"
    assert all(layer.hoverongaps is False for layer in figure.data[1:])


def test_without_dropout_the_dropped_weights_are_the_weights(six_token_trace) -> None:
    figure = draw(field_view(six_token_trace, "dropped_weights", TOKENS, WORDS, palette="default"))
    assert len(figure.data) == 2  # the weights and the grey masked cells: nothing dropped
    hidden = six_token_trace.mask.numpy()
    np.testing.assert_array_equal(
        z_of(figure)[~hidden], six_token_trace.attn_weights[0].numpy()[~hidden]
    )


def test_the_keep_mask_marks_kept_and_dropped_and_needs_active_dropout(
    six_token_trace, six_token_dropout_trace
) -> None:
    figure = draw(
        field_view(six_token_dropout_trace, "dropout_mask", TOKENS, WORDS, palette="default")
    )
    keep = six_token_dropout_trace.dropout_mask[0].numpy()
    hidden = six_token_dropout_trace.mask.numpy()  # the causal mask hides these already
    assert (keep & hidden).any() and (~keep & hidden).any()  # both states drawn above it
    np.testing.assert_array_equal(z_of(figure), np.where(hidden, 0.5, keep.astype(float)))
    np.testing.assert_array_equal(
        text_of(figure), np.where(hidden, "—", np.where(keep, "✓", "✗"))
    )  # above the diagonal: neither kept nor dropped, grey (the colour scale's middle)
    assert [0.25, HIDDEN_COLOR] in [list(stop) for stop in figure.data[0].colorscale]
    with pytest.raises(ValueError, match="dropout_mask is None"):
        draw(field_view(six_token_trace, "dropout_mask", TOKENS, WORDS, palette="default"))


def test_bias_figures_exist_only_with_qkv_bias(six_token_trace) -> None:
    with pytest.raises(ValueError, match="b_query is None"):
        draw(field_view(six_token_trace, "b_query", None, WORDS, palette="default"))
    biased = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(qkv_bias=True))
    figure = draw(field_view(biased, "b_value", None, WORDS, palette="default"))
    np.testing.assert_array_equal(z_of(figure), biased.b_value.numpy()[None, :])


def test_thirty_tokens_leave_numbers_out_of_the_cells_but_keep_the_hover() -> None:
    words = [f"w{i}" for i in range(30)]  # 900 cells: more than 24 × 24, fewer than 40 × 40
    trace = trace_attention(torch.rand(30, 3, generator=torch.Generator().manual_seed(0)))
    for figure in (
        draw(field_view(trace, "masked_scores", words, WORDS, palette="default")),
        draw(field_view(trace, "attn_weights", words, WORDS, palette="default")),
        draw(field_view(trace, "mask", words, WORDS, palette="default")),
    ):
        assert all(layer.texttemplate is None for layer in figure.data)
        assert "%{customdata[0]}" in figure.data[0].hovertemplate
        assert figure.layout.height <= 720


def test_sixty_tokens_are_handed_to_the_large_matrix_drawing() -> None:
    words = [f"w{i}" for i in range(60)]
    trace = trace_attention(
        torch.rand(60, 3, generator=torch.Generator().manual_seed(0)), AttentionConfig(dropout=0.3)
    )
    figures = [
        draw(field_view(trace, "attn_weights", words, WORDS, palette="default")),
        draw(field_view(trace, "dropped_weights", words, WORDS, palette="default")),
        draw(field_view(trace, "dropout_mask", words, WORDS, palette="default")),
        draw(field_view(trace, "mask", words, WORDS, palette="default")),
    ]
    for figure in figures:
        heatmaps = [layer for layer in figure.data if layer.type == "heatmap"]
        assert heatmaps and all(layer.hovertemplate for layer in heatmaps)
        assert len(figure.to_json()) < 500_000


def test_builders_refuse_a_multi_head_trace_and_wrong_labels(six_token_trace) -> None:
    multi = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(num_heads=2, d_out=4))
    with pytest.raises(ValueError, match="one head"):
        draw(field_view(multi, "attn_scores", TOKENS, WORDS, palette="default"))
    with pytest.raises(ValueError, match="labels"):
        draw(field_view(six_token_trace, "context", TOKENS[:3], WORDS, palette="default"))
