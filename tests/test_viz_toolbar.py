"""viz.toolbar: every figure keeps a band at its top free for Plotly's toolbar.

Whether Plotly then really draws nothing under the toolbar is checked in a real browser
(``tests/e2e/test_figure_layout.py``); here, what the figure asks Plotly for.
"""

from __future__ import annotations

import numpy as np

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.step_figures import field_view
from viz.heatmap import matrix_figure
from viz.matrix import MatrixView
from viz.multi_head import head_weights_grid
from viz.toolbar import TOOLBAR_BAND, leave_room_for_toolbar, placed_above_plot
from viz.words import FigureWords

TOKENS = list(BOOK_TOKENS)
WORDS = FigureWords()


def matrix_heatmap(values, rows, cols, **options):  # noqa: ANN001, ANN201
    """The figure of a small matrix view (the default palette)."""
    view = MatrixView(values=values, row_labels=rows, col_labels=cols, palette="default", **options)
    return matrix_figure(view, WORDS)


def test_a_heatmap_with_keys_on_top_gets_a_blank_title_that_holds_the_band() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig())
    figure = matrix_figure(
        field_view(trace, "attn_scores", TOKENS, WORDS, palette="default"), WORDS
    )
    height = figure.layout.height
    leave_room_for_toolbar(figure)
    title = figure.layout.title
    assert title.text.strip() == "" and title.automargin is True
    assert (title.yref, title.y, title.yanchor, title.pad.t) == ("container", 1.0, "top", 30)
    # Plotly reserves the band only when the title needs more than the top margin
    assert title.pad.t > figure.layout.margin.t
    assert (
        figure.layout.height == height + TOOLBAR_BAND
        and figure.layout.meta["toolbar_band"] == TOOLBAR_BAND
    )


def test_a_title_is_kept_and_moved_below_the_band() -> None:
    figure = matrix_heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], title="A <b>", height=300)
    leave_room_for_toolbar(figure)
    assert figure.layout.title.text == "A &lt;b&gt;" and figure.layout.title.pad.t == TOOLBAR_BAND
    assert figure.layout.height == 300 + TOOLBAR_BAND


def test_applying_it_twice_changes_nothing_more() -> None:
    figure = matrix_heatmap(np.eye(2), ["a", "b"], ["a", "b"])
    once = leave_room_for_toolbar(figure).to_json()
    twice = leave_room_for_toolbar(figure).to_json()
    assert once == twice


def test_subplot_titles_in_the_top_margin_move_down_by_the_band() -> None:
    weights = np.full((2, 6, 6), 1 / 6)
    views = [
        MatrixView(
            values=head, row_labels=TOKENS, col_labels=TOKENS, palette="default", title=title
        )
        for head, title in zip(weights, ["head 1", "head 2"], strict=True)
    ]
    figure = head_weights_grid(views, WORDS)
    assert placed_above_plot(figure)
    top = figure.layout.margin.t
    leave_room_for_toolbar(figure)
    assert figure.layout.margin.t == top + TOOLBAR_BAND
    plain = matrix_heatmap(np.eye(2), ["a", "b"], ["a", "b"])
    assert not placed_above_plot(plain)
