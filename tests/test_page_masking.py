"""AppTest tests of the page “Masking two ways”: both methods on the current trace's raw scores."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pytest
import torch

from attention import AttentionConfig, compare_masking, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.apptest_support import page_text, run_page

NUM_CHARTS = (
    7  # raw scores; method 1: softmax, zeroed, row sums, renormalized; method 2: −∞, softmax
)
CHARTS_PER_TAB = (1, 4, 2)  # the lazy stage tabs: raw scores, method 1, method 2
STAGE_KEY = "masking_stage"  # the tabs' key: its value is the open tab's label


def _comparison(seed: int) -> Any:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=seed))
    return compare_masking(trace.attn_scores[0], trace.d_k)


def _figures(at: Any) -> list[dict[str, Any]]:
    """The figures of every stage tab, in page order (each tab opened in turn, then the first)."""
    figures = []
    labels = [tab.label for tab in at.tabs]
    for label in labels:
        at.session_state[STAGE_KEY] = label
        at.run()
        assert not at.exception
        figures += [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    at.session_state[STAGE_KEY] = labels[0]
    at.run()
    return figures


def _z(trace_spec: dict[str, Any]) -> np.ndarray:
    """A heatmap's z, decoded from Plotly's JSON (a list or a typed base64 array)."""
    z = trace_spec["z"]
    if isinstance(z, dict):
        values = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = z.get("shape")
        if isinstance(shape, str):  # Plotly writes "6, 6"
            shape = [int(size) for size in shape.split(",")]
        return values.reshape(shape) if shape is not None else values
    return np.asarray(z, dtype=np.float64)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_masking_page_runs_in_both_languages(lang: str) -> None:
    at = run_page("masking", {"lang": lang})
    assert not at.exception
    latex = 0
    for tab, charts in zip(at.tabs, CHARTS_PER_TAB, strict=True):
        at.session_state[STAGE_KEY] = tab.label
        at.run()
        assert not at.exception
        assert len(at.get("plotly_chart")) == charts
        latex += len(at.latex)
    assert sum(CHARTS_PER_TAB) == NUM_CHARTS
    assert latex >= 6, "each stage has its formula"


def test_only_the_open_stage_tab_runs_and_sends_its_heatmaps() -> None:
    """First paint: the raw scores' one heatmap; method 2's tab sends only its own two."""
    at = run_page("masking")
    assert [len(at.tabs), len(at.get("plotly_chart"))] == [3, 1]
    assert "masking_scores" in at.get("plotly_chart")[0].proto.id
    at.session_state[STAGE_KEY] = at.tabs[2].label
    at.run()
    ids = [chart.proto.id for chart in at.get("plotly_chart")]
    assert len(ids) == 2 and all("masking_neg_inf" in i or "masking_method2" in i for i in ids)
    assert at.metric[0].value, "the comparison below the tabs is always shown"


def test_max_abs_difference_shown_equals_compare_masking_for_seed_123() -> None:
    at = run_page("masking")
    expected = _comparison(123).max_abs_difference
    assert at.metric[0].value == f"{expected:.2e}"
    assert "e-0" in at.metric[0].value or at.metric[0].value == "0.00e+00", "scientific notation"


def test_changing_the_seed_changes_the_weights_and_they_equal_the_trace() -> None:
    at = run_page("masking")
    before = _figures(at)
    at.number_input(key="seed").set_value(7).run()
    assert not at.exception
    comparison = _comparison(7)
    assert at.metric[0].value == f"{comparison.max_abs_difference:.2e}"
    after = _figures(at)
    # chart order: scores, unmasked, zeroed, row sums, method 1, −∞ scores, method 2
    expected = [
        comparison.after_softmax["unmasked_weights"],
        comparison.after_softmax["masked_simple"],
        comparison.after_softmax["row_sums"],
        comparison.after_softmax["attn_weights"],
    ]
    for figure, tensor in zip(after[1:5], expected, strict=True):
        assert np.allclose(_z(figure["data"][0]), tensor.numpy(), atol=1e-7)
    method2 = _z(after[6]["data"][0])
    assert np.allclose(method2, comparison.neg_inf["attn_weights"].numpy(), atol=1e-7)
    assert not np.allclose(_z(before[6]["data"][0]), method2), "seed 7 gives other weights"


def test_method_2_hides_the_future_in_grey_minus_infinity_cells() -> None:
    at = run_page("masking")
    neg_inf_figure = _figures(at)[5]
    main, grey = neg_inf_figure["data"]
    z = _z(main)
    hidden = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1).numpy()
    assert np.isnan(z[hidden]).all(), "−∞ never reaches the colour scale"
    assert np.isfinite(z[~hidden]).all()
    assert grey["showscale"] is False
    written = np.asarray(grey["text"], dtype=object)
    assert (written[hidden] == "−∞").all(), "hidden cells are labelled −∞"


def test_row_sums_are_below_one_except_the_last_row() -> None:
    at = run_page("masking")
    row_sums = _z(_figures(at)[3]["data"][0]).reshape(-1)
    assert (row_sums[:-1] < 1).all()
    assert row_sums[-1] == pytest.approx(1.0, abs=1e-6)


def _text_of_every_tab(at: Any) -> str:
    """The page's text with each stage tab opened in turn."""
    parts = []
    for label in [tab.label for tab in at.tabs]:
        at.session_state[STAGE_KEY] = label
        at.run()
        parts.append(page_text(at))
    return "\n".join(parts)


def test_page_explains_rounding_and_leakage() -> None:
    text = _text_of_every_tab(run_page("masking"))
    assert "float32" in text
    assert "e^(−∞) = 0" in text
    assert "leak" in text
    assert "torch.tril" in text


def test_tokens_with_markdown_are_shown_literally_in_the_number_tables() -> None:
    at = run_page("masking", {"text": "**bold** [x](http://a.b) $y$"})
    assert not at.exception
    index = [str(label) for table in at.table for label in table.value.index]
    assert r"\*\*bold\*\*" in index
    assert "**bold**" not in index
