"""viz.one_query: the written-out formulas carry the trace's numbers; the figures draw them."""

from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from attention import AttentionConfig, trace_attention
from attention.by_hand import dot_product_terms, softmax_by_hand, weighted_value_terms
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from viz.label_layout import PlacedLabel, label_extent, label_size_px, labels_overlap
from viz.one_query import (
    MAX_ARROWS,
    context_latex,
    dot_product_latex,
    drawn_lines,
    dropout_latex,
    least_scale,
    number,
    plot_height_px,
    scale_latex,
    score_row_latex,
    softmax_latex,
    value_vectors_figure,
    vector,
    vectors_latex,
    weights_bar_figure,
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


def test_value_vectors_figure_draws_arrows_weighted_and_the_context(trace) -> None:
    i = 2
    weights = trace.dropped_weights[0, i]
    values = trace.values[0]
    hidden = trace.mask[i].tolist()
    figure = value_vectors_figure(
        values.numpy(),
        weights.tolist(),
        hidden,
        trace.context[0, i].tolist(),
        BOOK_TOKENS,
        3,
        terms=weighted_value_terms(weights, values).numpy(),
        texts={"context": "context vector", "title": "<b>t</b>"},
    )
    arrows = figure.data[: len(BOOK_TOKENS)]
    widths = [trace_.line.width for trace_ in arrows]
    visible_weights = weights[:3].tolist()
    order = np.argsort(visible_weights)
    assert list(np.argsort(widths[:3])) == list(order), "line width grows with the weight"
    for index, arrow in enumerate(arrows):
        assert list(arrow.x) == [0.0, pytest.approx(float(values[index, 0]))]
        if hidden[index]:
            assert arrow.line.dash == "dot" and arrow.showlegend is False
        else:
            assert arrow.line.dash == "solid"
    labelled = [note.text for note in figure.layout.annotations]  # masked keys: hover only
    heaviest_first = np.argsort(-weights[:3].numpy(), kind="stable")
    assert labelled == [f"v<sub>{k + 1}</sub> · {BOOK_TOKENS[k]}" for k in heaviest_first]
    path = figure.data[len(BOOK_TOKENS)]
    assert path.x[-1] == pytest.approx(float(trace.context[0, i, 0]), abs=1e-6)
    assert path.y[-1] == pytest.approx(float(trace.context[0, i, 1]), abs=1e-6)
    context = figure.data[-1]
    assert "context vector" in context.name
    assert context.x[1] == pytest.approx(float(trace.context[0, i, 0]))
    assert figure.layout.title.text == "&lt;b&gt;t&lt;/b&gt;"
    assert "weight" in arrows[0].hovertemplate or "%{customdata[0]}" in arrows[0].hovertemplate


def test_value_vectors_figure_escapes_tokens() -> None:
    figure = value_vectors_figure(
        [[0.1, 0.2], [0.3, 0.4]], [1.0, 0.0], [False, True], [0.1, 0.2], ["<b>x</b>", "y"], 1
    )
    first = figure.data[0]
    assert "&lt;b&gt;x&lt;/b&gt;" in first.name and "<b>x" not in first.name
    assert "&lt;b&gt;x" in first.hovertemplate
    assert figure.layout.annotations[0].text == "v<sub>1</sub> · &lt;b&gt;x&lt;/b&gt;"


def test_value_vectors_figure_needs_two_dimensions() -> None:
    with pytest.raises(ValueError, match="d_out = 2"):
        value_vectors_figure([[0.1, 0.2, 0.3]], [1.0], [False], [0.1, 0.2, 0.3], ["a"], 1)


def test_many_keys_become_one_points_trace() -> None:
    count = MAX_ARROWS + 5
    figure = value_vectors_figure(
        np.ones((count, 2)), [1 / count] * count, [False] * count, [1.0, 1.0], ["t"] * count, count
    )
    assert isinstance(figure.data[0], go.Scatter) and figure.data[0].mode == "markers"
    assert len(figure.data) == 2  # the points and the context vector


def test_weights_bar_figure_labels_masked_keys(trace) -> None:
    i = 1
    figure = weights_bar_figure(
        trace.attn_weights[0, i].tolist(),
        trace.mask[i].tolist(),
        BOOK_TOKENS,
        dropped_weights=trace.dropped_weights[0, i].tolist(),
        texts={"masked": "masked"},
    )
    before, after, masked = figure.data
    assert isinstance(before, go.Bar) and isinstance(after, go.Bar)
    assert list(before.x) == [f"{n + 1}: {token}" for n, token in enumerate(BOOK_TOKENS)]
    assert before.text[0] == number(float(trace.attn_weights[0, i, 0]))
    assert before.text[2] == "" and before.y[2] == 0.0
    assert list(masked.text) == ["masked"] * 4
    assert list(masked.x) == list(before.x[2:])
    assert figure.layout.showlegend is True
    assert "%{y:.4f}" in before.hovertemplate


def test_weights_bar_figure_escapes_tokens() -> None:
    figure = weights_bar_figure([1.0], [False], ["<i>a</i>"])
    assert figure.data[0].x[0] == "1: &lt;i&gt;a&lt;/i&gt;"
    assert figure.layout.showlegend is False


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


def test_many_keys_drop_the_bar_numbers_and_shorten_masked() -> None:
    count = 12
    hidden = [index > 2 for index in range(count)]
    figure = weights_bar_figure([1 / 3] * 3 + [0.0] * 9, hidden, [f"t{n}" for n in range(count)])
    bars, masked = figure.data
    assert set(bars.text) == {""}
    assert set(masked.text) == {"−∞"}


# --- the value vectors' labels: laid out so that none covers another, a point or a line -------


def _layout_of(figure: go.Figure) -> list[PlacedLabel]:
    """The figure's labels as boxes again: centre (tail of the annotation), size of the text."""
    labels = []
    for index, note in enumerate(figure.layout.annotations):
        text = html.unescape(re.sub(r"<[^>]+>", "", note.text))  # "v1 · Your", as measured
        width, height = label_size_px(text)
        labels.append(
            PlacedLabel(index, text, (note.x, note.y), (note.ax, note.ay), width / 2, height / 2)
        )
    return labels


def _figure(trace_, query: int, tokens=BOOK_TOKENS) -> go.Figure:  # noqa: ANN001
    weights = trace_.dropped_weights[0, query]
    values = trace_.values[0]
    return value_vectors_figure(
        values.numpy(),
        weights.tolist(),
        trace_.mask[query].tolist(),
        trace_.context[0, query].tolist(),
        tokens,
        query + 1,
        terms=weighted_value_terms(weights, values).numpy(),
        texts={"title": "Value vectors and the context vector of query 6"},
    )


def _assert_nothing_overlaps(figure: go.Figure, values: np.ndarray, context) -> None:  # noqa: ANN001
    labels = _layout_of(figure)
    scale = figure.layout.meta["label_scale"]
    x_range, y_range = figure.layout.xaxis.range, figure.layout.yaxis.range
    # the plot is drawn at this scale or larger (a wider or taller plot only enlarges it)
    height = plot_height_px(figure.layout.height, len(figure.data), True)
    assert scale <= least_scale(x_range, y_range, height) + 1e-9
    points = np.vstack([values, [context], [[0.0, 0.0]]])
    path = np.asarray(figure.data[len(values)].x), np.asarray(figure.data[len(values)].y)
    lines = drawn_lines(values, np.asarray(context), np.column_stack(path))
    for factor in (1.0, 1.7, 4.0):  # boxes shrink around their centres: apart stays apart
        assert labels_overlap(labels, scale * factor, points, lines) == [], factor
    corners = label_extent(labels, scale)  # every box inside the axes
    assert corners[:, 0].min() >= x_range[0] and corners[:, 0].max() <= x_range[1]
    assert corners[:, 1].min() >= y_range[0] and corners[:, 1].max() <= y_range[1]


@pytest.mark.parametrize(
    ("seed", "dropout", "query"),
    [(123, 0.0, 5), (123, 0.0, 3), (123, 0.5, 5), (7, 0.0, 5), (42, 0.2, 4)],
)
def test_value_vector_labels_never_overlap(seed: int, dropout: float, query: int) -> None:
    trace_ = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=seed, dropout=dropout))
    figure = _figure(trace_, query)
    assert len(figure.layout.annotations) == query + 1  # every visible key is labelled
    _assert_nothing_overlaps(figure, trace_.values[0].double().numpy(), trace_.context[0, query])


def test_the_books_v4_v5_v6_are_apart() -> None:
    """The reported pile-up: query 6 of the book's example, v4, v5, v6 nearly at one point."""
    trace_ = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=123))
    labels = {label.text: label for label in _layout_of(_figure(trace_, 5))}
    scale = _figure(trace_, 5).layout.meta["label_scale"]
    names = ("v4 · with", "v5 · one", "v6 · step")
    for first, second in ((0, 1), (0, 2), (1, 2)):
        a, b = labels[names[first]], labels[names[second]]
        apart_x = abs(a.center[0] - b.center[0]) * scale >= a.half_width + b.half_width
        apart_y = abs(a.center[1] - b.center[1]) * scale >= a.half_height + b.half_height
        assert apart_x or apart_y, (names[first], names[second])


def test_identical_vectors_and_long_chinese_labels_still_do_not_overlap() -> None:
    count = 8
    values = np.tile([[-0.5, -0.2]], (count, 1)) + np.linspace(0, 0.01, count)[:, None]
    tokens = [f"很长的词元名字{k}" for k in range(count)]
    weights = [1 / count] * count
    context = values.mean(axis=0)
    figure = value_vectors_figure(
        values, weights, [False] * count, context.tolist(), tokens, count,
        terms=values * np.asarray(weights)[:, None], texts={"title": "t"},
    )  # fmt: skip
    assert len(figure.layout.annotations) >= 6  # a label without a free place is left out
    _assert_nothing_overlaps(figure, values, context)


def test_the_label_layout_is_the_same_every_time(trace) -> None:
    first, second = _figure(trace, 5), _figure(trace, 5)
    assert first.layout.annotations == second.layout.annotations
