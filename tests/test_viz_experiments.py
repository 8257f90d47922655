"""Chart builders of the teaching experiments, checked on the chart's data (no browser)."""

from __future__ import annotations

import math

import numpy as np

from attention.experiments import softmax_saturation
from viz.chart import Bars, Line, Points, Rule
from viz.colors import HIDDEN_COLOR
from viz.experiments import (
    MAX_CURVE_POINTS,
    dropout_error_chart,
    saturation_chart,
    series_colors,
    weight_row_chart,
)
from viz.vocabulary import HOVER_DECIMALS

EVIL = "<b>bold</b>"


def _error_figure(count: int = 100, rms: np.ndarray | None = None, **kwargs: object):  # noqa: ANN202
    """The error figure of N = 1 … count, RMS error ``rms`` (default 1/√N), max 2× it."""
    n = np.arange(1, count + 1)
    rms = 1 / np.sqrt(n) if rms is None else rms
    return dropout_error_chart(
        n,
        rms,
        2 * rms,
        1.1 / np.sqrt(n),
        rms_name="RMS",
        max_name="max",
        reference_name="c/√N",
        x_title="N",
        y_title="error",
        **kwargs,  # type: ignore[arg-type]
    )


def test_error_chart_is_log_log_with_three_lines_decade_ticks_and_a_dashed_reference() -> None:
    chart = _error_figure()
    (panel,) = chart.panels
    assert panel.x.log and panel.y.log
    assert panel.x.range == (1.0, 100.0) and panel.x.tick_labels == ("1", "10", "100")
    low, high = panel.y.range  # the errors 0.1 … 2, a little room each side
    assert 0.08 < low < 0.1 and 2 < high < 2.3 and panel.y.tick_labels == ("0.1", "1")
    assert 2.0 in panel.x.minor and 0.5 in panel.y.minor  # faint lines between the decades
    assert [entry.name for entry in chart.legend] == ["RMS", "max", "c/√N"]
    lines = [s for s in panel.series if isinstance(s, Line)]
    assert [line.dash for line in lines] == ["solid", "solid", "dash"]
    assert np.allclose(lines[0].y, 1 / np.sqrt(np.arange(1, 101)))
    assert lines[0].hover[3] == f"RMS\nN = 4\nerror: {0.5:.{HOVER_DECIMALS}f}"


def test_error_chart_marks_the_chosen_n_and_leaves_zero_errors_out() -> None:
    chart = _error_figure(highlight=10, highlight_name=EVIL)
    marker = chart.panels[0].series[-1]
    assert isinstance(marker, Points) and marker.symbol == "ring"
    assert marker.x == (10.0,) and marker.y == (1 / math.sqrt(10),)
    assert chart.legend[-1].name == EVIL  # plain text: the component writes it as text
    zero = dropout_error_chart(
        [1, 2],
        [0.0, 0.5],
        [0.0, 0.5],
        [0.0, 0.0],
        rms_name="a",
        max_name="b",
        reference_name="c",
        x_title="N",
        y_title="e",
    )
    assert zero.panels[0].series[0].y == (None, 0.5)
    assert zero.to_data()["panels"][0]["series"][2]["y"] == [None, None]


def test_a_long_error_curve_keeps_log_spaced_measured_points_and_the_chosen_n() -> None:
    n = np.arange(1, 2001)
    rms = 1 / np.sqrt(n) + 0.01 * np.sin(n)  # not a formula the chart could redraw itself
    chart = _error_figure(2000, rms, highlight=777)
    line = chart.panels[0].series[0]
    x = np.asarray(line.x)
    assert len(x) <= MAX_CURVE_POINTS + 3 and x[0] == 1 and x[-1] == 2000 and 777 in x
    assert np.array_equal(line.y, rms[x.astype(int) - 1]), "measured values, not drawn"
    gaps = np.diff(np.log(x))
    steps = np.diff(x)
    # spread evenly on the log axis: no gap wider than one step of the spread, except where
    # consecutive N are drawn (near N = 1, where every N is kept)
    assert ((gaps < 2 * np.log(2000) / MAX_CURVE_POINTS) | (steps == 1)).all()
    assert chart.panels[0].series[-1].y[0] == rms[776]  # the marker sits on its measured point


def test_saturation_chart_has_both_curves_in_three_panels() -> None:
    scaled = softmax_saturation([1, 4, 16], 8, seed=0, scaled=True)
    unscaled = softmax_saturation([1, 4, 16], 8, seed=0, scaled=False)
    chart = saturation_chart(
        scaled,
        unscaled,
        panel_titles=["entropy", "max", "gradient"],
        scaled_name="scaled",
        unscaled_name="raw",
        uniform_name="ln T",
        x_title="d_k",
        highlight_d_k=4,
        palette="colorblind",
    )
    assert [panel.title for panel in chart.panels] == ["entropy", "max", "gradient"]
    assert [entry.name for entry in chart.legend] == ["scaled", "raw", "ln T"]
    metrics = ("mean_entropy", "mean_max_weight", "mean_gradient_norm")
    for panel, metric in zip(chart.panels, metrics, strict=True):
        assert panel.x.log and panel.x.ticks == (1.0, 4.0, 16.0)
        assert panel.x.tick_labels == ("1", "4", "16")  # the measured d_k, not 1-2-5 ticks
        lines = [s for s in panel.series if isinstance(s, Line)]
        assert [line.y for line in lines] == [tuple(scaled[metric]), tuple(unscaled[metric])]
        assert lines[0].color == series_colors("colorblind")["main"] and lines[1].dash == "dash"
        rules = [s for s in panel.series if isinstance(s, Rule)]
        assert ("x", 4.0) in [(rule.axis, rule.value) for rule in rules]  # d_k marked
        assert panel.y.range[0] == 0.0
        assert panel.y.range[1] >= max(max(scaled[metric]), max(unscaled[metric]))
    uniform = [s for s in chart.panels[0].series if isinstance(s, Rule) and s.axis == "y"]
    assert [rule.value for rule in uniform] == [math.log(8)]
    assert chart.panels[1].y.range == (0.0, 1.05)
    assert chart.panels[0].series[-1].hover[1].startswith("raw\nd_k = 4\nentropy: ")


def test_row_bars_write_values_grey_out_masked_keys_and_show_minus_infinity() -> None:
    chart = weight_row_chart(
        [0.25, -0.5, -math.inf],
        ["a", EVIL, "a"],
        value_name="score",
        x_title="key",
        hidden=[False, False, True],
        highlight=[1],
    )
    (panel,) = chart.panels
    (bars,) = panel.series
    assert isinstance(bars, Bars)
    assert bars.y == (0.25, -0.5, 0.0)  # −∞ is never a height
    assert bars.texts == ("0.2500", "−0.5000", "−∞")
    colors = series_colors()
    assert bars.colors == (colors["main"], colors["second"], HIDDEN_COLOR)
    assert panel.x.tick_labels == ("a", EVIL, "a·2")  # plain text, told apart
    assert bars.hover[1] == f"key: {EVIL}\nscore: −0.5000"
    assert panel.y.range[0] < -0.5 and panel.y.tick_labels[0].startswith("−")


def test_row_bars_cut_long_labels_keep_the_title_and_range() -> None:
    chart = weight_row_chart(
        [0.1, 0.9],
        ["<i>a rather long token</i>", "y"],
        value_name="w",
        x_title="k",
        title=EVIL,
        y_range=(0, 1.2),
    )
    assert chart.title == EVIL and chart.to_data()["description"] == EVIL
    (panel,) = chart.panels
    assert panel.x.tick_labels[0] == "<i>a rather l…"
    assert panel.series[0].hover[0] == "k: <i>a rather long token</i>\nw: 0.1000"
    assert panel.y.range == (0, 1.2)
    assert panel.y.tick_labels == ("0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2")
