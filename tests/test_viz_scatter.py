"""viz.scatter: the embedding scatter is 3-D, 2-D or a strip, labelled and escaped."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from viz.scatter import embedding_scatter, plotted_features


def _points(figure: go.Figure):
    return figure.data[0]


def test_book_embeddings_are_drawn_in_3d_with_token_labels() -> None:
    figure = embedding_scatter(BOOK_EMBEDDINGS.numpy(), BOOK_TOKENS, title="Token embeddings")
    points = _points(figure)
    assert isinstance(points, go.Scatter3d)
    assert list(points.text) == list(BOOK_TOKENS)
    np.testing.assert_allclose(points.x, BOOK_EMBEDDINGS[:, 0].numpy())
    np.testing.assert_allclose(points.y, BOOK_EMBEDDINGS[:, 1].numpy())
    np.testing.assert_allclose(points.z, BOOK_EMBEDDINGS[:, 2].numpy())
    assert figure.layout.scene.xaxis.title.text == "x1"
    assert figure.layout.scene.yaxis.title.text == "x2"
    assert figure.layout.scene.annotations[0].text.startswith("x3")
    # one line from the origin to each point, so a token reads as a vector
    lines = figure.data[1]
    assert lines.mode == "lines"
    assert list(lines.x[:3]) == [0.0, pytest.approx(0.43), None]


def test_hover_lists_the_token_and_its_numbers() -> None:
    figure = embedding_scatter(BOOK_EMBEDDINGS.numpy(), BOOK_TOKENS)
    points = _points(figure)
    assert points.hovertemplate == "%{hovertext}<extra></extra>"
    assert points.hovertext[1] == "<b>journey</b><br>x1 = 0.5500<br>x2 = 0.8700<br>x3 = 0.6600"


def test_wide_embeddings_plot_the_first_three_features_and_hover_the_rest() -> None:
    values = np.arange(3 * 10, dtype=float).reshape(3, 10) / 10  # (3, 10)
    figure = embedding_scatter(values, ["a", "b", "c"])
    points = _points(figure)
    assert isinstance(points, go.Scatter3d)
    np.testing.assert_allclose(points.z, values[:, 2])
    assert "x8 = " in points.hovertext[0]
    assert "x9 = " not in points.hovertext[0]
    assert "(2 more)" in points.hovertext[0]
    assert plotted_features(10) == 3


def test_two_features_give_a_plane_with_equal_scales() -> None:
    figure = embedding_scatter([[0.1, 0.2], [0.3, 0.4]], ["a", "b"])
    points = _points(figure)
    assert isinstance(points, go.Scatter)
    assert list(points.y) == [0.2, 0.4]
    assert figure.layout.xaxis.title.text == "x1"
    assert figure.layout.yaxis.title.text == "x2"
    assert figure.layout.yaxis.scaleanchor == "x"


def test_one_feature_gives_a_strip_with_alternating_labels() -> None:
    figure = embedding_scatter([[0.5], [0.1], [0.3]], ["a", "b", "c"])
    points = _points(figure)
    assert isinstance(points, go.Scatter)
    assert list(points.x) == [0.5, 0.1, 0.3]
    assert list(points.y) == [0.0, 0.0, 0.0]
    assert figure.layout.yaxis.visible is False
    # sorted by value: b (0.1) above, c (0.3) below, a (0.5) above
    assert list(points.textposition) == ["top center", "top center", "bottom center"]
    assert figure.layout.height <= 260


def test_token_labels_are_escaped_and_repeats_told_apart() -> None:
    tokens = ["<b>bold</b>", "<a href='x'>link</a>", "the", "the"]
    figure = embedding_scatter(np.zeros((4, 3)), tokens)
    points = _points(figure)
    assert points.text[0] == "&lt;b&gt;bold&lt;/b&gt;"
    assert points.text[1] == "&lt;a href='x'&gt;link&lt;/a&gt;"
    assert list(points.text[2:]) == ["the", "the·2"]
    for hover in points.hovertext:
        assert "<a" not in hover and "<b>bold" not in hover


def test_title_is_escaped() -> None:
    figure = embedding_scatter([[1.0, 2.0]], ["a"], title="<i>t</i>")
    assert figure.layout.title.text == "&lt;i&gt;t&lt;/i&gt;"


def test_shape_mismatch_is_refused() -> None:
    with pytest.raises(ValueError, match="len\\(tokens\\)"):
        embedding_scatter(np.zeros((2, 3)), ["only one"])
    with pytest.raises(ValueError, match="at least 1"):
        plotted_features(0)
