"""The step-by-step matrices draw the trace's own numbers, hide the future, and mark dropout."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.cases import subcases
from tests.step_figures import field_view
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR
from viz.matrix import MatrixView
from viz.table_heatmap import ColouredTable, legend_table, matrix_table
from viz.vocabulary import MINUS_INFINITY
from viz.words import FigureWords

TOKENS = list(BOOK_TOKENS)
WORDS = FigureWords()


def draw(view: MatrixView) -> ColouredTable:
    """The coloured table the app draws for a step's (small) view."""
    return matrix_table(view, WORDS)


def text_of(table: ColouredTable) -> np.ndarray:
    return np.asarray(table.texts(), dtype=object)


def background_of(table: ColouredTable) -> np.ndarray:
    return np.asarray([[cell.background for cell in row] for row in table.cells], dtype=object)


def test_masked_scores_hide_the_future_written_minus_infinity_on_grey(six_token_trace) -> None:
    view = field_view(six_token_trace, "masked_scores", TOKENS, WORDS, palette="default")
    table = draw(view)
    hidden = six_token_trace.mask.numpy()  # (6, 6), True above the diagonal
    np.testing.assert_array_equal(view.hidden, hidden)
    np.testing.assert_array_equal(
        view.values[~hidden], six_token_trace.masked_scores[0].numpy()[~hidden]
    )
    assert (text_of(table)[hidden] == MINUS_INFINITY).all()
    assert (background_of(table)[hidden] == HIDDEN_COLOR).all()
    assert (background_of(table)[~hidden] != HIDDEN_COLOR).all()


def test_raw_scores_hide_nothing(six_token_trace) -> None:
    view = field_view(six_token_trace, "attn_scores", TOKENS, WORDS, palette="default")
    np.testing.assert_array_equal(view.values, six_token_trace.attn_scores[0].numpy())
    assert MINUS_INFINITY not in text_of(draw(view))


@subcases(
    "build",
    [
        lambda tr: field_view(tr, "inputs", TOKENS, WORDS, palette="default"),
        lambda tr: field_view(tr, "W_key", None, WORDS, palette="default"),
        lambda tr: field_view(tr, "values", TOKENS, WORDS, palette="default"),
        lambda tr: field_view(tr, "scaled_scores", TOKENS, WORDS, palette="default"),
        lambda tr: field_view(tr, "attn_weights", TOKENS, WORDS, palette="default"),
        lambda tr: field_view(tr, "context", TOKENS, WORDS, palette="default"),
    ],
)
def test_every_value_matrix_has_a_legend_naming_what_it_measures(build, six_token_trace) -> None:
    view = build(six_token_trace)
    legend = legend_table(view, WORDS)
    assert legend is not None
    assert legend.cells[0][0].text == (view.colorbar_title or view.value_name)
    assert legend.cells[0][0].text, "the legend names what the colours measure"


def test_step_matrices_show_the_traces_tensors(six_token_trace) -> None:
    embeddings = field_view(six_token_trace, "inputs", TOKENS, WORDS, palette="default")
    np.testing.assert_array_equal(embeddings.values, BOOK_EMBEDDINGS.numpy())
    weight = draw(field_view(six_token_trace, "W_query", None, WORDS, palette="default"))
    assert weight.col_labels == ("q1", "q2") and weight.row_labels == ("x1", "x2", "x3")
    assert text_of(weight)[0, 0] == f"{float(six_token_trace.W_query[0, 0]):.4f}".replace("-", "−")
    for name, prefix in {"queries": "q", "keys": "k", "values": "v"}.items():
        view = field_view(six_token_trace, name, TOKENS, WORDS, palette="default")
        np.testing.assert_array_equal(view.values, getattr(six_token_trace, name)[0].numpy())
        assert draw(view).col_labels == (f"{prefix}1", f"{prefix}2")
    context = field_view(six_token_trace, "context", TOKENS, WORDS, palette="default")
    np.testing.assert_array_equal(context.values, six_token_trace.context[0].numpy())
    assert list(draw(context).row_labels) == TOKENS


def test_the_causal_mask_is_written_as_the_buffer_holds_it(six_token_trace) -> None:
    view = field_view(six_token_trace, "mask", TOKENS, WORDS, palette="default")
    np.testing.assert_array_equal(
        text_of(draw(view)), np.where(torch.triu(torch.ones(6, 6), 1).numpy() == 1, "1", "0")
    )
    assert legend_table(view, WORDS) is None  # two states written in the cells, not a scale


def test_weights_are_on_a_zero_to_one_scale_and_masked_cells_are_grey_zeros(
    six_token_trace,
) -> None:
    view = field_view(six_token_trace, "attn_weights", TOKENS, WORDS, palette="default")
    table = draw(view)
    hidden = six_token_trace.mask.numpy()
    assert view.zrange == (0.0, 1.0)
    np.testing.assert_array_equal(
        view.values[~hidden], six_token_trace.attn_weights[0].numpy()[~hidden]
    )
    assert (text_of(table)[hidden] == "0").all()
    assert (background_of(table)[hidden] == HIDDEN_COLOR).all()


def test_dropped_weights_show_kept_cells_scaled_and_dropped_cells_pink(
    six_token_dropout_trace,
) -> None:
    view = field_view(six_token_dropout_trace, "dropped_weights", TOKENS, WORDS, palette="default")
    table = draw(view)
    hidden = six_token_dropout_trace.mask.numpy()
    keep = six_token_dropout_trace.dropout_mask[0].numpy()
    kept, dropped = keep & ~hidden, ~keep & ~hidden
    assert kept.any() and dropped.any()
    np.testing.assert_array_equal(
        view.values[kept], six_token_dropout_trace.dropped_weights[0].numpy()[kept]
    )
    assert view.zrange is not None and view.zrange[1] >= 2.0, "a kept weight × 2 must fit"
    assert (background_of(table)[dropped] == DROPPED_COLOR).all()
    assert (text_of(table)[dropped] == "0").all()
    assert not (background_of(table)[kept] == DROPPED_COLOR).any()


def test_without_dropout_the_dropped_weights_are_the_weights(six_token_trace) -> None:
    view = field_view(six_token_trace, "dropped_weights", TOKENS, WORDS, palette="default")
    assert not (background_of(draw(view)) == DROPPED_COLOR).any()
    hidden = six_token_trace.mask.numpy()
    np.testing.assert_array_equal(
        view.values[~hidden], six_token_trace.attn_weights[0].numpy()[~hidden]
    )


def test_the_keep_mask_marks_kept_and_dropped_and_needs_active_dropout(
    six_token_trace, six_token_dropout_trace
) -> None:
    table = draw(
        field_view(six_token_dropout_trace, "dropout_mask", TOKENS, WORDS, palette="default")
    )
    keep = six_token_dropout_trace.dropout_mask[0].numpy()
    hidden = six_token_dropout_trace.mask.numpy()  # the causal mask hides these already
    assert (keep & hidden).any() and (~keep & hidden).any()  # both states drawn above it
    np.testing.assert_array_equal(
        text_of(table), np.where(hidden, "—", np.where(keep, "✓", "✗"))
    )  # above the diagonal: neither kept nor dropped, grey
    assert (background_of(table)[hidden] == HIDDEN_COLOR).all()
    with pytest.raises(ValueError, match="dropout_mask is None"):
        draw(field_view(six_token_trace, "dropout_mask", TOKENS, WORDS, palette="default"))


def test_bias_matrices_exist_only_with_qkv_bias(six_token_trace) -> None:
    with pytest.raises(ValueError, match="b_query is None"):
        draw(field_view(six_token_trace, "b_query", None, WORDS, palette="default"))
    biased = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(qkv_bias=True))
    view = field_view(biased, "b_value", None, WORDS, palette="default")
    np.testing.assert_array_equal(view.values, biased.b_value.numpy()[None, :])


def test_builders_refuse_a_multi_head_trace_and_wrong_labels(six_token_trace) -> None:
    multi = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(num_heads=2, d_out=4))
    with pytest.raises(ValueError, match="one head"):
        draw(field_view(multi, "attn_scores", TOKENS, WORDS, palette="default"))
    with pytest.raises(ValueError, match="labels"):
        draw(field_view(six_token_trace, "context", TOKENS[:3], WORDS, palette="default"))
