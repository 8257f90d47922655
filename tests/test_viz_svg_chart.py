"""viz.svg_chart: ticks decided in Python, the chart as JSON data; Backward's loss curve on it."""

from __future__ import annotations

import json

from viz.gradients import loss_curve_chart
from viz.svg_chart import linear_axis, log_axis


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
