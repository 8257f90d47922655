"""Why √d_k page: the toggle and d_k change the example row; the trace's variances are shown."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.experiments import saturation_example_row, score_variance, softmax_saturation
from tests.apptest_support import chart_series, page_text, run_page, svg_charts
from viz.vocabulary import format_number


def _row_heights(at: AppTest) -> np.ndarray:
    return np.asarray(chart_series(at, "why_sqrt_dk_row", "bars")[0]["y"])


def _metric(at: AppTest, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_default_view_shows_the_scaled_row_and_both_curves() -> None:
    at = run_page("why_sqrt_dk")
    assert not at.exception
    expected = saturation_example_row(64, 8, seed=123, scaled=True)
    assert np.allclose(_row_heights(at), expected["weights"].numpy())
    assert set(svg_charts(at)) == {"why_sqrt_dk_row"}, "lazy tabs: only the open one runs"
    assert not at.get("plotly_chart")
    at.session_state["why_sqrt_dk_view"] = at.tabs[1].label  # the curves' tab
    at.run()
    assert set(svg_charts(at)) == {"why_sqrt_dk_curves"}
    chart = svg_charts(at)["why_sqrt_dk_curves"]
    unscaled = softmax_saturation([2**i for i in range(10)], 8, 123, scaled=False)
    assert [entry["name"] for entry in chart["legend"]][1] == "no scaling"
    raw_entropy = chart_series(at, "why_sqrt_dk_curves", "line")[1]  # scaled, then not
    assert np.allclose(raw_entropy["y"], unscaled["mean_entropy"])
    rules = chart_series(at, "why_sqrt_dk_curves", "rule", panel=2)
    assert [(rule["axis"], rule["value"]) for rule in rules] == [("x", 64)]  # the chosen d_k
    assert "no causal mask" in page_text(at).lower()


def test_turning_scaling_off_and_raising_d_k_saturates_the_row() -> None:
    at = run_page("why_sqrt_dk")
    scaled_max = float(_metric(at, "largest weight"))
    at.toggle(key="why_sqrt_dk_scaled").set_value(False).run()
    at.select_slider(key="why_sqrt_dk_dk").set_value(512).run()
    assert not at.exception
    expected = saturation_example_row(512, 8, seed=123, scaled=False)
    assert np.allclose(_row_heights(at), expected["weights"].numpy())
    assert float(_metric(at, "largest weight")) > max(scaled_max, 0.95)


def test_trace_variances_are_the_traces_own() -> None:
    at = run_page("why_sqrt_dk", {"d_out": "4", "seed": "9"})
    assert not at.exception
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=4, seed=9))
    raw = score_variance(trace.attn_scores[0], trace.mask)
    scaled = score_variance(trace.scaled_scores[0], trace.mask)
    assert _metric(at, "d_k of the trace") == "4"
    assert _metric(at, "variance of raw scores") == format_number(raw)
    assert _metric(at, "variance of scaled scores") == format_number(scaled)


def test_why_sqrt_dk_page_in_chinese() -> None:
    at = run_page("why_sqrt_dk", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "为什么除以 √d_k？" in text and "饱和" in text
    assert at.toggle(key="why_sqrt_dk_scaled").label == "除以 √d_k"
