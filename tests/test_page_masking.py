"""AppTest tests of the page “Masking two ways”: both methods on the current trace's raw scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from attention import AttentionConfig, compare_masking, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.apptest_support import (
    matrix_cell_styles,
    matrix_legend,
    matrix_tables,
    page_text,
    run_page,
    table_numbers,
    walk_labels,
)
from tests.cases import subcases
from viz.colors import HIDDEN_COLOR
from viz.vocabulary import DECIMALS, MINUS_INFINITY, cell_texts, format_difference

# raw scores; method 1: softmax, zeroed, row sums, renormalized; method 2: −∞, softmax
MATRICES_PER_TAB = (
    ("masking_scores",),
    ("masking_unmasked", "masking_zeroed", "masking_row_sums", "masking_method1"),
    ("masking_neg_inf", "masking_method2"),
)
NUM_MATRICES = 7
STAGE_KEY = "masking_stage"  # the tabs' key: its value is the open tab's label


def _comparison(seed: int) -> Any:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=seed))
    return compare_masking(trace.attn_scores[0], trace.d_k)


def _open(at: Any, tab: int) -> Any:
    """Open stage tab ``tab`` and rerun: only the open tab runs and sends its matrices."""
    at.session_state[STAGE_KEY] = walk_labels(at)[tab]
    at.run()
    assert not at.exception
    return at


def _tables(at: Any) -> dict[str, list[list[str]]]:
    """The cell texts of every stage's matrix table by key (each tab opened in turn, then the
    first)."""
    tables: dict[str, list[list[str]]] = {}
    for tab in range(len(walk_labels(at))):
        tables.update(
            {key: frame.to_numpy().tolist() for key, frame in matrix_tables(_open(at, tab)).items()}
        )
    _open(at, 0)
    return tables


def _written(values: torch.Tensor, hidden: np.ndarray | None = None) -> list[list[str]]:
    """``values`` as the page writes them in a matrix table (4 decimals, −∞ where hidden)."""
    return cell_texts(values.numpy().astype(np.float64), hidden, DECIMALS)


@subcases("lang", ["en", "zh"])
def test_masking_page_runs_in_both_languages(lang: str) -> None:
    at = run_page("masking", {"lang": lang})
    assert not at.exception
    latex = 0
    for tab, keys in enumerate(MATRICES_PER_TAB):
        _open(at, tab)
        assert set(matrix_tables(at)) == set(keys)
        assert not at.get("plotly_chart"), "every stage is a small matrix: a coloured table"
        latex += len(at.latex)
    assert sum(len(keys) for keys in MATRICES_PER_TAB) == NUM_MATRICES
    assert latex >= 6, "each stage has its formula"


def test_only_the_open_stage_tab_runs_and_sends_its_heatmaps() -> None:
    """First paint: the raw scores' one matrix; method 2's tab sends only its own two."""
    at = run_page("masking")
    assert len(walk_labels(at)) == 3
    assert list(matrix_tables(at)) == ["masking_scores"]
    assert not at.get("plotly_chart")
    _open(at, 2)
    assert sorted(matrix_tables(at)) == ["masking_method2", "masking_neg_inf"]
    assert not at.get("plotly_chart")
    assert at.metric[0].value, "the comparison below the tabs is always shown"


def test_max_abs_difference_shown_equals_compare_masking_for_seed_123() -> None:
    at = run_page("masking")
    expected = _comparison(123).max_abs_difference
    assert at.metric[0].value == format_difference(expected)
    assert "e-0" in at.metric[0].value or at.metric[0].value == "0", "scientific notation, or 0"


def test_changing_the_seed_changes_the_weights_and_they_equal_the_trace() -> None:
    at = run_page("masking")
    before = _tables(at)
    at.number_input(key="seed").set_value(7).run()
    assert not at.exception
    comparison = _comparison(7)
    assert at.metric[0].value == format_difference(comparison.max_abs_difference)
    after = _tables(at)
    expected = {
        "masking_unmasked": comparison.after_softmax["unmasked_weights"],
        "masking_zeroed": comparison.after_softmax["masked_simple"],
        "masking_row_sums": comparison.after_softmax["row_sums"],
        "masking_method1": comparison.after_softmax["attn_weights"],
        "masking_method2": comparison.neg_inf["attn_weights"],
    }
    for key, tensor in expected.items():
        assert after[key] == _written(tensor), key
    assert before["masking_method2"] != after["masking_method2"], "seed 7 gives other weights"


def test_method_2_hides_the_future_in_grey_minus_infinity_cells() -> None:
    at = _open(run_page("masking"), 2)
    texts = np.asarray(matrix_tables(at)["masking_neg_inf"].to_numpy(), dtype=object)
    hidden = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1).numpy()
    assert (texts[hidden] == MINUS_INFINITY).all(), "hidden cells are written −∞"
    scores = _comparison(123).neg_inf["masked_scores"]
    assert texts.tolist() == _written(scores, hidden), "the visible cells are the raw scores"
    styles = matrix_cell_styles(at, "masking_neg_inf")
    backgrounds = np.array(
        [[styles[(i, j)]["background-color"] for j in range(6)] for i in range(6)]
    )
    assert (backgrounds[hidden] == HIDDEN_COLOR).all(), "hidden cells are grey"
    # −∞ never reaches the colour scale: every visible cell has a scale colour, none is grey,
    assert all(colour.startswith("rgb(") for colour in backgrounds[~hidden])
    assert len(set(backgrounds[~hidden])) > 1, "visible cells are coloured by their value"
    # and the scale (the legend row) spans the visible scores only (diverging: ± their largest
    # |score|), the grey −∞ cell told apart after it, not as a value on the scale
    legend = matrix_legend(at, "masking_neg_inf")
    assert legend is not None
    bound = float(scores[torch.isfinite(scores)].abs().max())
    ends = [f"−{bound:.4f}", "0.0000", f"{bound:.4f}"]
    assert legend.to_numpy().tolist() == [["score", *ends, f"{MINUS_INFINITY}: masked"]]
    legend_styles = matrix_cell_styles(at, "masking_neg_inf", legend=True)
    assert legend_styles[(0, 4)]["background-color"] == HIDDEN_COLOR
    assert all(legend_styles[(0, j)]["background-color"].startswith("rgb(") for j in (1, 2, 3))


def test_row_sums_are_below_one_except_the_last_row() -> None:
    at = _open(run_page("masking"), 1)
    shown = matrix_tables(at)["masking_row_sums"]
    assert shown.shape == (6, 1)
    row_sums = _comparison(123).after_softmax["row_sums"]  # (6, 1)
    assert shown.to_numpy().tolist() == _written(row_sums)
    written = table_numbers(shown).reshape(-1)
    assert (written[:-1] < 1).all()
    assert written[-1] == 1.0  # "1.0000"
    assert float(row_sums[-1, 0]) == pytest.approx(1.0, abs=1e-6)


def _text_of_every_tab(at: Any) -> str:
    """The page's text with each stage tab opened in turn."""
    parts = []
    for label in walk_labels(at):
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


def test_tokens_with_markdown_are_shown_literally_in_the_matrix_tables() -> None:
    """A matrix's labels are plain text (never Markdown): as typed, nothing escaped or lost."""
    at = run_page("masking", {"text": "**bold** [x](http://a.b) $y$"})
    assert not at.exception
    scores = matrix_tables(at)["masking_scores"]
    assert list(scores.index) == list(scores.columns) == ["**bold**", "[x](http://a.b)", "$y$"]
