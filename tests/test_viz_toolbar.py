"""viz.toolbar: every figure keeps a band at its top free for Plotly's toolbar.

Whether Plotly then really draws nothing under the toolbar is checked in a real browser
(``tests/e2e/test_figure_layout.py``); here, what the figure asks Plotly for.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.toolbar import TOOLBAR_BAND, leave_room_for_toolbar, placed_above_plot
from viz.training import attention_maps_figure

TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


def matrix_heatmap(title: str = "", height: int | None = None) -> go.Figure:
    """A small heatmap with its keys on top, as a Plotly matrix figure lays one out."""
    figure = go.Figure(go.Heatmap(z=np.eye(3)))
    figure.update_layout(
        title={"text": title} if title else None,
        height=height or 300,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        xaxis={"side": "top"},
    )
    return figure


def maps(layers: int = 1, heads: int = 2) -> go.Figure:
    """The Train page's attention maps: one panel per layer and head, titled above it."""
    return attention_maps_figure(
        np.full((layers, heads, 6, 6), 1 / 6),
        TOKENS,
        layer_names=[f"Layer {k + 1}" for k in range(layers)],
        head_names=[f"head {k + 1}" for k in range(heads)],
    )


def test_a_heatmap_with_keys_on_top_gets_a_blank_title_that_holds_the_band() -> None:
    figure = matrix_heatmap()
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
    figure = matrix_heatmap(title="A &lt;b&gt;", height=300)
    leave_room_for_toolbar(figure)
    assert figure.layout.title.text == "A &lt;b&gt;" and figure.layout.title.pad.t == TOOLBAR_BAND
    assert figure.layout.height == 300 + TOOLBAR_BAND


def test_applying_it_twice_changes_nothing_more() -> None:
    figure = matrix_heatmap()
    once = leave_room_for_toolbar(figure).to_json()
    twice = leave_room_for_toolbar(figure).to_json()
    assert once == twice


def test_subplot_titles_in_the_top_margin_move_down_by_the_band() -> None:
    figure = maps()
    assert placed_above_plot(figure)
    top = figure.layout.margin.t
    leave_room_for_toolbar(figure)
    assert figure.layout.margin.t == top + TOOLBAR_BAND
    assert not placed_above_plot(matrix_heatmap())
