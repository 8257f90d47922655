"""viz.one_query: the written-out formulas carry the trace's numbers; the figures draw them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.one_query import dot_product_terms, softmax_by_hand, weighted_value_terms
from viz.chart import Arrow, Bars, Chart, Label, Line, Points
from viz.one_query import (
    MAX_ARROWS,
    context_latex,
    dot_product_latex,
    dropout_latex,
    number,
    scale_latex,
    score_row_latex,
    softmax_latex,
    value_vectors_chart,
    vector,
    vectors_latex,
    weights_bar_chart,
)


@pytest.fixture(scope="module")
def trace():
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=2, seed=123))


def test_number_has_four_decimals_and_no_negative_zero() -> None:
    assert number(0.12345678) == "0.1235"
    assert number(-0.5) == "-0.5000"
    assert number(-0.00001) == "0.0000"
    assert number(float("-inf")) == r"-\infty"
    assert vector([0.43, -0.15]) == r"\left(0.4300,\ -0.1500\right)"


def test_vectors_and_dot_product_show_the_trace_numbers(trace) -> None:
    i, j = 1, 0  # q^(2) (journey) and k^(1) (Your), as in the book
    query, key = trace.queries[0, i], trace.keys[0, j]
    latex = vectors_latex(2, 1, query.tolist(), key.tolist())
    assert f"q^{{(2)}} &= {vector(query.tolist())}" in latex
    assert f"k^{{(1)}} &= {vector(key.tolist())}" in latex
    terms = dot_product_terms(query, key)
    score = float(trace.attn_scores[0, i, j])
    latex = dot_product_latex(2, 1, query.tolist(), key.tolist(), terms.tolist(), score)
    assert latex.startswith(r"\begin{aligned}\omega_{2,1} &= q^{(2)} \cdot k^{(1)}")
    for a, b in zip(query.tolist(), key.tolist(), strict=True):
        assert f"({number(a)})({number(b)})" in latex
    for term in terms.tolist():
        assert number(term) in latex
    assert latex.endswith(f"&= {number(score)}" + r"\end{aligned}")


def test_long_dot_products_wrap_and_use_a_sum_sign() -> None:
    query, key = [0.1] * 8, [0.2] * 8
    latex = dot_product_latex(3, 1, query, key, [0.02] * 8, 0.16)
    assert r"\sum_{m=1}^{8}" in latex
    assert latex.count(r"\\") >= 6  # several lines, none too wide for half a page


def test_score_row_marks_the_future_as_minus_infinity(trace) -> None:
    row = trace.masked_scores[0, 1].tolist()
    hidden = trace.mask[1].tolist()
    latex = score_row_latex(2, row, hidden)
    assert latex.count(r"-\infty") == 4
    assert number(row[0]) in latex and number(row[1]) in latex


def test_long_rows_wrap_and_stop_with_dots() -> None:
    latex = score_row_latex(20, [0.5] * 20, [False] * 20)
    assert r"\dots" in latex
    assert latex.count("0.5000") == 12


def test_scale_divides_by_sqrt_dk(trace) -> None:
    i, j = 1, 0
    latex = scale_latex(
        2,
        1,
        float(trace.masked_scores[0, i, j]),
        trace.d_k,
        float(trace.scaled_scores[0, i, j]),
        trace.scaled_scores[0, i].tolist(),
        trace.mask[i].tolist(),
        False,
    )
    assert r"\sqrt{2}" in latex and "1.4142" in latex
    assert f"= {number(float(trace.scaled_scores[0, i, j]))}" in latex


def test_softmax_writes_every_exp_their_sum_and_the_trace_weight(trace) -> None:
    i, j = 2, 1  # query 3 (starts), key 2
    scaled = trace.scaled_scores[0, i]
    hidden = trace.mask[i]
    steps = softmax_by_hand(scaled, hidden)
    weight = float(trace.attn_weights[0, i, j])
    latex = softmax_latex(
        3, 2, scaled.tolist(), hidden.tolist(), steps.exps.tolist(), steps.total, 0.0, weight
    )
    for index in range(3):
        assert f"e^{{{number(float(scaled[index]))}}}" in latex
        assert number(float(steps.exps[index])) in latex
    assert f"{{{number(steps.total)}}} = {number(weight)}" in latex


def test_softmax_of_a_masked_key_is_zero(trace) -> None:
    steps = softmax_by_hand(trace.scaled_scores[0, 0], trace.mask[0])
    latex = softmax_latex(
        1, 4, trace.scaled_scores[0, 0].tolist(), trace.mask[0].tolist(), steps.exps.tolist(),
        steps.total, 0.0, 0.0,
    )  # fmt: skip
    assert r"e^{-\infty}" in latex and latex.endswith(r"= 0\end{aligned}")


def test_softmax_with_a_shift_says_so() -> None:
    latex = softmax_latex(2, 1, [100.0, 99.0], [False, False], [1.0, 0.3679], 1.3679, 100.0, 0.7311)
    assert r"m &= \max_j s_{2,j} = 100.0000" in latex
    assert "e^{0.0000}" in latex and "e^{-1.0000}" in latex


def test_dropout_kept_and_dropped() -> None:
    kept = dropout_latex(2, 1, 0.4833, True, 0.5, 2.0, 0.9666)
    assert r"\frac{1}{1 - 0.50}" in kept and "0.4833 \\times 2.0000 = 0.9666" in kept
    dropped = dropout_latex(2, 1, 0.4833, False, 0.5, 2.0, 0.0)
    assert dropped == r"\alpha'_{2,1} = 0 \times \alpha_{2,1} = 0 \times 0.4833 = 0"


def test_context_is_written_as_the_weighted_sum_of_the_trace(trace) -> None:
    i = 1
    weights = trace.dropped_weights[0, i].tolist()
    values = trace.values[0].tolist()
    context = trace.context[0, i].tolist()
    latex = context_latex(2, weights, values, trace.mask[i].tolist(), context, primed=False)
    assert latex.count(r"\underbrace") == 2  # only the visible keys 1 and 2
    for index in range(2):
        assert f"{number(weights[index])} \\times" in latex
        assert vector(values[index]) in latex
    assert latex.endswith(f"&= {vector(context)}" + r"\end{aligned}")
    assert vector(context) == r"\left(-0.5874,\ 0.0058\right)"  # the book's row 2, seed 123


def test_latex_gets_no_token_text() -> None:
    """Formulas are built from numbers and positions only: no parameter takes a token."""
    latex = context_latex(1, [1.0], [[0.1, 0.2]], [False], [0.1, 0.2])
    assert re.fullmatch(r"[\\a-zA-Z0-9{}()\[\]^_&=+.,\-' \u2032≤]*", latex.replace("\\ ", " "))


def _of(chart: Chart, kind: type) -> list:
    return [series for series in chart.panels[0].series if isinstance(series, kind)]


def test_value_vectors_chart_draws_arrows_weighted_and_the_context(trace) -> None:
    i = 2
    weights = trace.dropped_weights[0, i]
    values = trace.values[0]
    hidden = trace.mask[i].tolist()
    chart = value_vectors_chart(
        values.numpy(),
        weights.tolist(),
        hidden,
        trace.context[0, i].tolist(),
        BOOK_TOKENS,
        3,
        terms=weighted_value_terms(weights, values).numpy(),
        texts={"context": "context vector", "title": "<b>t</b>"},
    )
    assert chart.title == "<b>t</b>" and chart.panels[0].equal_aspect
    arrows = _of(chart, Arrow)[: len(BOOK_TOKENS)]
    widths = [arrow.width for arrow in arrows]
    order = np.argsort(weights[:3].tolist())
    assert list(np.argsort(widths[:3])) == list(order), "line width grows with the weight"
    for index, arrow in enumerate(arrows):
        assert arrow.start == (0.0, 0.0)
        assert arrow.end == pytest.approx(values[index].tolist())  # the trace's value vector
        assert arrow.dash == ("dot" if hidden[index] else "solid")
    assert arrows[0].hover == (
        f"v₁ · Your\n({number(float(values[0, 0]))}, {number(float(values[0, 1]))})"
        f"\nweight {number(float(weights[0]))}"
    )
    assert arrows[4].hover.endswith("\nmasked")
    legend = [entry.name for entry in chart.legend]  # masked keys are not in the legend
    assert legend[:3] == [
        f"v{sub} · {token} (weight {number(float(weights[k]))})"
        for k, (sub, token) in enumerate(zip("₁₂₃", BOOK_TOKENS, strict=False))
    ]
    assert legend[3:] == ["weighted sum, tip to tail", "z⁽³⁾ · context vector"]
    labels = _of(chart, Label)  # masked keys: hover only
    heaviest_first = np.argsort(-weights[:3].numpy(), kind="stable")
    assert [label.text for label in labels] == [
        f"v{'₁₂₃'[k]} · {BOOK_TOKENS[k]}" for k in heaviest_first
    ]
    for label, k in zip(labels, heaviest_first, strict=True):  # the browser places them beside
        assert label.beside and label.at == pytest.approx(values[k].tolist())
    (path,) = _of(chart, Line)
    assert path.x[-1] == pytest.approx(float(trace.context[0, i, 0]), abs=1e-6)
    assert path.y[-1] == pytest.approx(float(trace.context[0, i, 1]), abs=1e-6)
    (star,) = _of(chart, Points)
    assert (star.x[0], star.y[0]) == pytest.approx(trace.context[0, i].tolist())
    assert star.symbol == "star"
    x_axis, y_axis = chart.panels[0].x, chart.panels[0].y
    for axis, column in ((x_axis, 0), (y_axis, 1)):  # every vector inside the axes, 0 ticked
        assert axis.range[0] <= float(values[:, column].min()) <= axis.range[1]
        assert axis.range[0] <= float(values[:, column].max()) <= axis.range[1]
        assert "0" in axis.tick_labels and axis.zero_line


def test_value_vectors_chart_keeps_tokens_as_plain_text() -> None:
    chart = value_vectors_chart(
        [[0.1, 0.2], [0.3, 0.4]], [1.0, 0.0], [False, True], [0.1, 0.2], ["<b>x</b>", "y"], 1
    )
    assert _of(chart, Label)[0].text == "v₁ · <b>x</b>"
    assert chart.legend[0].name == "v₁ · <b>x</b> (weight 1.0000)"
    with pytest.raises(ValueError, match="d_out = 2"):
        value_vectors_chart([[0.1, 0.2, 0.3]], [1.0], [False], [0.1, 0.2, 0.3], ["a"], 1)


def test_many_keys_become_points() -> None:
    count = MAX_ARROWS + 5
    chart = value_vectors_chart(
        np.ones((count, 2)), [1 / count] * count, [False] * count, [1.0, 1.0], ["t"] * count, count
    )
    points, star = _of(chart, Points)
    assert len(points.x) == count and points.symbol == "circle" and star.symbol == "star"
    assert len(_of(chart, Arrow)) == 1 and not _of(chart, Label)  # only the context arrow


def test_weights_bar_chart_labels_masked_keys(trace) -> None:
    i = 1
    chart = weights_bar_chart(
        trace.attn_weights[0, i].tolist(),
        trace.mask[i].tolist(),
        BOOK_TOKENS,
        dropped_weights=trace.dropped_weights[0, i].tolist(),
        texts={"masked": "masked"},
    )
    before, after = _of(chart, Bars)
    x_axis = chart.panels[0].x
    assert x_axis.tick_labels == tuple(f"{n + 1}: {token}" for n, token in enumerate(BOOK_TOKENS))
    assert x_axis.ticks == tuple(float(k) for k in range(6)) and x_axis.range == (-0.5, 5.5)
    assert before.x[0] < 0.0 < after.x[0] and before.width == after.width == 0.4  # grouped
    assert before.y[:2] == pytest.approx(trace.attn_weights[0, i, :2].tolist())
    assert before.texts[0] == number(float(trace.attn_weights[0, i, 0]))
    assert before.texts[2] == "" and before.y[2] == 0.0
    masked = _of(chart, Label)
    assert [label.text for label in masked] == ["masked"] * 4
    assert [label.at[0] for label in masked] == [2.0, 3.0, 4.0, 5.0]
    assert [entry.name for entry in chart.legend] == ["α (before dropout)", "α′ (after dropout)"]
    highest = max(1.0, float(trace.dropped_weights[0, i].max()))
    assert chart.panels[0].y.range == (0.0, pytest.approx(1.3 * highest))  # room for numbers
    assert before.hover[0] == f"key: 1: Your\nα (before dropout): {before.texts[0]}"


def test_weights_bar_chart_keeps_tokens_and_many_keys_drop_the_numbers() -> None:
    chart = weights_bar_chart([1.0], [False], ["<i>a</i>"])
    assert chart.panels[0].x.tick_labels == ("1: <i>a</i>",) and chart.legend == ()
    count = 12
    hidden = [index > 2 for index in range(count)]
    chart = weights_bar_chart([1 / 3] * 3 + [0.0] * 9, hidden, [f"t{n}" for n in range(count)])
    (bars,) = _of(chart, Bars)
    assert set(bars.texts) == {""}
    assert {label.text for label in _of(chart, Label)} == {"−∞"}


def test_wide_vectors_wrap_after_four_components() -> None:
    wide = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    latex = vectors_latex(2, 1, wide, wide)
    assert r"q^{(2)} &= \bigl(0.1000,\ 0.2000,\ 0.3000,\ 0.4000," in latex
    assert r"&\qquad\quad 0.5000,\ 0.6000,\ 0.7000,\ 0.8000\bigr)" in latex
    latex = context_latex(2, [0.5, 0.5], [wide, wide], [False, False], wide)
    assert r"&= 0.5000\, v^{(1)} + 0.5000\, v^{(2)}" in latex
    assert r"v^{(1)} &= \bigl(0.1000" in latex and r"v^{(2)} &= \bigl(0.1000" in latex
    assert r"z^{(2)} &= \bigl(0.1000" in latex
    assert r"\underbrace" not in latex
