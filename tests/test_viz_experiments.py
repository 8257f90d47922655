"""Figure builders of the teaching experiments, checked on the figure's data (no browser)."""

from __future__ import annotations

import math

import numpy as np

from attention.experiments import softmax_saturation
from viz.colors import HIDDEN_COLOR
from viz.experiments import (
    MAX_CURVE_POINTS,
    dropout_error_figure,
    saturation_figure,
    series_colors,
    weight_row_bars,
)
from viz.vocabulary import HOVER_DECIMALS

EVIL = "<b>bold</b>"


def _error_figure(count: int = 100, rms: np.ndarray | None = None, **kwargs: object):  # noqa: ANN202
    """The error figure of N = 1 … count, RMS error ``rms`` (default 1/√N), max 2× it."""
    n = np.arange(1, count + 1)
    rms = 1 / np.sqrt(n) if rms is None else rms
    return dropout_error_figure(
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


def test_error_figure_is_log_log_with_three_lines_and_a_dashed_reference() -> None:
    figure = _error_figure()
    assert figure.layout.xaxis.type == "log" and figure.layout.yaxis.type == "log"
    assert [trace.name for trace in figure.data] == ["RMS", "max", "c/√N"]
    assert figure.data[2].line.dash == "dash"
    assert np.allclose(figure.data[0].y, 1 / np.sqrt(np.arange(1, 101)))
    assert "N = %{x:d}" in figure.data[0].hovertemplate
    assert f"error: %{{y:.{HOVER_DECIMALS}f}}" in figure.data[0].hovertemplate


def test_error_figure_marks_the_chosen_n_and_leaves_zero_errors_out() -> None:
    figure = _error_figure(highlight=10, highlight_name="here")
    marker = figure.data[-1]
    assert marker.name == "here" and list(marker.x) == [10]
    assert marker.y[0] == 1 / math.sqrt(10)
    zero = dropout_error_figure(
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
    assert math.isnan(zero.data[0].y[0]) and zero.data[0].y[1] == 0.5


def test_a_long_error_curve_keeps_log_spaced_measured_points_and_the_chosen_n() -> None:
    n = np.arange(1, 2001)
    rms = 1 / np.sqrt(n) + 0.01 * np.sin(n)  # not a formula the figure could redraw itself
    figure = _error_figure(2000, rms, highlight=777)
    x = np.asarray(figure.data[0].x)
    assert len(x) <= MAX_CURVE_POINTS + 3 and x[0] == 1 and x[-1] == 2000 and 777 in x
    assert np.array_equal(figure.data[0].y, rms[x.astype(int) - 1]), "measured values, not drawn"
    gaps = np.diff(np.log(x))
    steps = np.diff(x)
    # spread evenly on the log axis: no gap wider than one step of the spread, except where
    # consecutive N are drawn (near N = 1, where every N is kept)
    assert ((gaps < 2 * np.log(2000) / MAX_CURVE_POINTS) | (steps == 1)).all()
    assert figure.data[-1].y[0] == rms[776]  # the marker sits on its measured point


def test_error_figure_escapes_its_labels() -> None:
    figure = _error_figure(highlight=5, highlight_name=EVIL)
    assert figure.data[-1].name == "&lt;b&gt;bold&lt;/b&gt;"


def test_saturation_figure_has_both_curves_in_three_panels() -> None:
    scaled = softmax_saturation([1, 4, 16], 8, seed=0, scaled=True)
    unscaled = softmax_saturation([1, 4, 16], 8, seed=0, scaled=False)
    figure = saturation_figure(
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
    lines = [trace for trace in figure.data if trace.name in ("scaled", "raw")]
    assert len(lines) == 6  # two curves × three panels
    assert list(lines[0].y) == scaled["mean_entropy"]
    assert list(lines[1].y) == unscaled["mean_entropy"]
    assert list(lines[3].y) == unscaled["mean_max_weight"]
    assert list(lines[5].y) == unscaled["mean_gradient_norm"]
    assert lines[0].line.color == series_colors("colorblind")["main"]
    assert sum(trace.showlegend is not False for trace in lines) == 2  # one legend entry each
    uniform = next(trace for trace in figure.data if trace.name == "ln T")
    assert uniform.y[0] == math.log(8)
    assert figure.layout.xaxis.type == "log"
    assert [a.text for a in figure.layout.annotations] == ["entropy", "max", "gradient"]
    assert len(figure.layout.shapes) == 3  # the d_k marker in every panel
    assert "d_k = %{x}" in lines[0].hovertemplate


def test_row_bars_write_values_grey_out_masked_keys_and_show_minus_infinity() -> None:
    figure = weight_row_bars(
        [0.25, -0.5, -math.inf],
        ["a", EVIL, "a"],
        value_name="score",
        x_title="key",
        hidden=[False, False, True],
        highlight=[1],
    )
    bar = figure.data[0]
    assert list(bar.y) == [0.25, -0.5, 0.0]  # −∞ is never a height
    assert list(bar.text) == ["0.2500", "−0.5000", "−∞"]
    colors = series_colors()
    assert list(bar.marker.color) == [colors["main"], colors["second"], HIDDEN_COLOR]
    assert list(figure.layout.xaxis.ticktext) == ["a", "&lt;b&gt;bold&lt;/b&gt;", "a·2"]
    assert bar.customdata[1][0] == "&lt;b&gt;bold&lt;/b&gt;"
    assert bar.hovertemplate == "key: %{customdata[0]}<br>score: %{customdata[1]}<extra></extra>"
    assert figure.layout.yaxis.range[0] < -0.5


def test_row_bars_cut_long_labels_before_escaping_them() -> None:
    figure = weight_row_bars([1.0], ["<i>a rather long token</i>"], value_name="w", x_title="k")
    tick = figure.layout.xaxis.ticktext[0]
    assert tick == "&lt;i&gt;a rather l…"  # an entity such as &lt; is never cut in half
    assert figure.data[0].customdata[0][0] == "&lt;i&gt;a rather long token&lt;/i&gt;"


def test_row_bars_title_and_range_are_kept() -> None:
    figure = weight_row_bars(
        [0.1, 0.9], ["x", "y"], value_name="w", x_title="k", title=EVIL, y_range=(0, 1.2)
    )
    assert figure.layout.title.text == "&lt;b&gt;bold&lt;/b&gt;"
    assert list(figure.layout.yaxis.range) == [0, 1.2]
