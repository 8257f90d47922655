"""Dropout in expectation page: the experiment runs on the trace's weights with the right p."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.experiments import dropout_average, dropout_average_error
from tests.apptest_support import (
    matrix_tables,
    page_text,
    run_page,
    svg_charts,
    table_numbers,
)
from viz.vocabulary import DECIMALS, cell_texts, format_number


def _metrics(at: AppTest) -> list[str]:
    return [m.value for m in at.metric]


def _book_weights(**changes: object):  # noqa: ANN202 - a test helper
    cfg = AttentionConfig(**changes)  # type: ignore[arg-type]
    return trace_attention(BOOK_EMBEDDINGS, cfg).attn_weights[0]


VIEW_KEY = "dropout_expectation_view"  # lazy tabs: the curve, then the two heatmaps


def _open(at: AppTest, tab: int) -> AppTest:
    """Open tab ``tab`` (0: the curve, 1: the heatmaps) and rerun: only the open tab runs."""
    at.session_state[VIEW_KEY] = at.tabs[tab].label
    at.run()
    assert not at.exception
    return at


def _figure(at: AppTest, name: str) -> dict[str, Any]:
    """Figure ``dropout_expectation_{name}`` (the curve), its tab opened first."""
    return svg_charts(_open(at, 0))[f"dropout_expectation_{name}"]


def _shown(at: AppTest, name: str) -> list[list[str]]:
    """The cell texts of the matrix table ``dropout_expectation_{name}``, its tab opened first."""
    return matrix_tables(_open(at, 1))[f"dropout_expectation_{name}"].to_numpy().tolist()


def _written(values: np.ndarray) -> list[list[str]]:
    """``values`` as the page writes them in a matrix table (4 decimals, typographic −)."""
    return cell_texts(np.asarray(values, dtype=np.float64), None, DECIMALS)


def test_only_the_open_tab_sends_its_charts() -> None:
    """First paint: the curve only; the heatmaps tab sends its two matrix tables and no chart."""
    at = run_page("dropout_expectation")
    assert set(svg_charts(at)) == {"dropout_expectation_curve"} and not at.get("plotly_chart")
    assert not matrix_tables(at)
    _open(at, 1)
    assert not svg_charts(at)
    assert set(matrix_tables(at)) == {"dropout_expectation_average", "dropout_expectation_true"}


def test_without_dropout_the_page_offers_its_own_p() -> None:
    at = run_page("dropout_expectation")
    assert not at.exception
    assert any("nothing to average" in info.value for info in at.info)
    assert at.slider(key="dropout_expectation_p").value == 0.5
    weights = _book_weights()
    curve = dropout_average_error(weights, 0.5, 2000, seed=123)
    figure = _figure(at, "curve")
    assert figure["panels"][0]["x"]["log"] and figure["panels"][0]["y"]["log"]
    assert _on_curve(figure["panels"][0]["series"][0], curve["rms_error"].numpy())
    assert _metrics(at)[0] == format_number(float(curve["slope"]), minus="−")  # 4 decimals
    assert _shown(at, "true") == _written(weights.double().numpy())
    average = dropout_average(weights, 0.5, 100, seed=123).numpy()
    assert _shown(at, "average") == _written(average)


def _on_curve(line: dict, measured: np.ndarray) -> bool:
    """A line of the error figure shows measured values at its N (log-spaced, N = 1 … 2000)."""
    n = np.asarray(line["x"]).astype(int)
    assert n[0] == 1 and n[-1] == len(measured) and len(n) < len(measured)
    return bool(np.allclose(np.asarray(line["y"], dtype=np.float64), measured[n - 1]))


def test_changing_p_and_n_changes_the_results() -> None:
    at = run_page("dropout_expectation")
    before = _metrics(at)
    at.slider(key="dropout_expectation_p").set_value(0.2).run()
    assert not at.exception
    after_p = _metrics(at)
    assert after_p != before
    at.select_slider(key="dropout_expectation_n").set_value(1).run()
    assert not at.exception
    assert _metrics(at)[1] != after_p[1]
    single = dropout_average(_book_weights(), 0.2, 1, seed=123).numpy()
    assert _shown(at, "average") == _written(single)  # N = 1 is one dropout draw
    assert "N = 1 is a single dropout draw" in page_text(at)


def test_sidebar_dropout_is_used_when_it_acts() -> None:
    at = run_page("dropout_expectation", {"dropout": "0.3", "seed": "7"})
    assert not at.exception
    assert any("p = 0.3" in info.value for info in at.info)
    assert not [s for s in at.slider if s.key == "dropout_expectation_p"]
    curve = dropout_average_error(_book_weights(dropout=0.3, seed=7), 0.3, 2000, seed=7)
    figure = _figure(at, "curve")
    assert _on_curve(figure["panels"][0]["series"][2], curve["reference"].numpy())


def test_eval_mode_is_explained() -> None:
    at = run_page("dropout_expectation", {"dropout": "0.3", "train": "false"})
    assert not at.exception
    assert any("evaluation mode" in info.value for info in at.info)


def test_dropout_expectation_page_in_chinese() -> None:
    at = run_page("dropout_expectation", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "Dropout 的期望" in text and "蒙特卡洛" in text
    assert at.slider(key="dropout_expectation_p").label == "Dropout 比率 p（本页）"


def test_long_sentence_uses_a_block_of_the_first_tokens() -> None:
    at = run_page("dropout_expectation", {"text": " ".join(f"w{i}" for i in range(30))})
    assert not at.exception
    assert "this page uses the first 12" in page_text(at)
    shown = matrix_tables(_open(at, 1))["dropout_expectation_true"]
    assert shown.shape == (12, 12)
    # the page's own table (30 tokens) through the book's attention: its first 12 tokens' weights
    embeddings = torch.tensor(at.session_state["table"].values, dtype=torch.float32)  # (30, 3)
    block = trace_attention(embeddings, AttentionConfig()).attn_weights[0, :12, :12].double()
    assert np.allclose(block.sum(dim=1).numpy(), 1.0, atol=1e-6)  # a causal block: rows sum to 1
    assert shown.to_numpy().tolist() == _written(block.numpy())  # and these are what is shown
    # what a reader adds up: each shown row is 1 within its 12 cells' rounding (half a digit each)
    assert np.allclose(table_numbers(shown).sum(axis=1), 1.0, rtol=0, atol=12 * 0.5e-4)
