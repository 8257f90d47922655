"""viz.chart: ticks decided in Python, the chart as JSON data; Backward's loss curve on it; the
embeddings as points in 3, 2 or 1 dimensions, labels as plain data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from viz.chart import linear_axis, log_axis, plotted_features, point_cloud, point_colours
from viz.gradients import loss_curve_chart


def test_tick_labels_are_short_round_numbers_with_a_real_minus() -> None:
    axis = linear_axis("w", -0.5, 1.2)
    assert axis.ticks == (-0.5, 0.0, 0.5, 1.0) and axis.tick_labels == ("−0.5", "0", "0.5", "1.0")
    assert linear_axis("w", 0.0, 1.2).tick_labels == ("0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2")
    decades = log_axis("N", 1.0, 2000.0)
    assert decades.tick_labels == ("1", "10", "100", "1000") and decades.range == (1.0, 2000.0)


def test_a_single_huge_loss_has_readable_ticks_and_its_point() -> None:
    chart = loss_curve_chart([4.891e12], x_title="step", y_title="loss")
    (panel,) = chart.panels
    (line,) = panel.series
    assert line.y == (4.891e12,) and line.markers == (6.0,)  # the last step is the larger dot
    low, high = panel.y.range
    assert low < 4.891e12 < high
    assert all(label.endswith("e+12") and len(label) <= 9 for label in panel.y.tick_labels)
    assert len(set(panel.y.tick_labels)) == len(panel.y.tick_labels) >= 3  # told apart
    assert line.hover == ("step: 0\nloss: 4.891e+12",)
    assert panel.x.tick_labels == ("0",)


def test_a_chart_is_strict_json_without_nan() -> None:
    chart = loss_curve_chart([2.0, float("nan"), 1.0])
    data = json.loads(json.dumps(chart.to_data(), allow_nan=False))
    assert data["panels"][0]["series"][0]["y"] == [2.0, None, 1.0]
    assert data["panels"][0]["x"]["tick_labels"] == ["0", "1", "2"]


def test_book_embeddings_are_3d_points_labelled_with_their_tokens() -> None:
    cloud = point_cloud(BOOK_EMBEDDINGS.numpy(), BOOK_TOKENS, palette="default")
    assert cloud.dims == 3
    np.testing.assert_array_equal(np.array(cloud.points), BOOK_EMBEDDINGS.numpy().astype(float))
    assert cloud.labels == BOOK_TOKENS
    assert [axis.title for axis in cloud.axes] == ["x1", "x2", "x3"]
    for m, axis in enumerate(cloud.axes):  # every point and the origin inside, a margin beyond
        column = BOOK_EMBEDDINGS[:, m].numpy()
        low, high = axis.range
        assert low < min(0.0, column.min()) and high > column.max()
        assert all(low <= tick <= high for tick in axis.ticks)
    assert cloud.hovers[1] == "journey\nx1 = 0.5500\nx2 = 0.8700\nx3 = 0.6600"
    assert cloud.label_above == (True, False, True, False, True, False)
    data = json.loads(json.dumps(cloud.to_data()))  # what the component receives
    assert data["kind"] == "cloud" and data["dims"] == 3 and data["labels"] == list(BOOK_TOKENS)
    assert data["points"][0] == pytest.approx([0.43, 0.15, 0.89])
    assert data["axes"][2]["title"] == "x3" and data["show_labels"] is True


def test_wide_embeddings_plot_three_features_and_hover_eight() -> None:
    values = np.arange(3 * 10, dtype=float).reshape(3, 10) / 10  # (3, 10)
    cloud = point_cloud(values, ["a", "b", "c"], palette="default")
    assert plotted_features(10) == 3 and cloud.dims == 3
    np.testing.assert_array_equal(np.array(cloud.points), values[:, :3])
    assert "x8 = 0.7000" in cloud.hovers[0] and "x9" not in cloud.hovers[0]
    assert cloud.hovers[0].endswith("… (+2)")


def test_two_features_give_a_plane_and_one_a_strip_with_alternating_labels() -> None:
    plane = point_cloud([[0.1, -0.2], [0.3, 0.4]], ["a", "b"], palette="default")
    assert plane.dims == 2 and plane.points == ((0.1, -0.2), (0.3, 0.4))
    assert plane.axes[1].range[0] < -0.2 and plane.axes[1].range[1] > 0.4
    strip = point_cloud([[0.5], [0.1], [0.3]], ["a", "b", "c"], palette="default")
    assert strip.dims == 1 and strip.points == ((0.5,), (0.1,), (0.3,))
    # in x order: b (0.1) above, c (0.3) below, a (0.5) above
    assert strip.label_above == (True, True, False)


def test_labels_are_data_as_typed_repeats_told_apart_long_ones_shortened() -> None:
    tokens = ["<b>x</b>", "**x**", "the", "the", "a" * 40]
    cloud = point_cloud(np.zeros((5, 3)), tokens, palette="default")
    assert cloud.labels[:4] == ("<b>x</b>", "**x**", "the", "the·2")  # never escaped here
    assert cloud.labels[4] == "a" * 23 + "…" and cloud.hovers[4].startswith("a" * 40 + "\n")
    # all at the origin: each axis still has a span
    assert all(axis.range[0] < 0 < axis.range[1] for axis in cloud.axes)


def test_many_points_have_no_text_labels() -> None:
    cloud = point_cloud(np.zeros((101, 2)), [f"t{k}" for k in range(101)], palette="default")
    assert cloud.show_labels is False and len(cloud.hovers) == 101


def test_the_palette_colours_the_points_dark_on_white() -> None:
    default, colorblind = point_colours("default"), point_colours("colorblind")
    assert default != colorblind
    cloud = point_cloud([[1.0]], ["a"], palette="colorblind")
    assert (cloud.point_colour, cloud.line_colour) == colorblind
    for point, _ in (default, colorblind):  # a point is dark enough to see on the page
        red, green, blue = (int(part) for part in point[4:-1].split(","))
        assert 0.299 * red + 0.587 * green + 0.114 * blue < 110


def test_shape_mismatch_is_refused() -> None:
    with pytest.raises(ValueError, match="len\\(tokens\\)"):
        point_cloud(np.zeros((2, 3)), ["only one"], palette="default")
    with pytest.raises(ValueError, match="at least 1"):
        plotted_features(0)
