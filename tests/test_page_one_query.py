"""The One query page writes out the trace's own numbers, and follows every control."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.one_query import dot_product_terms, softmax_by_hand
from pages.one_query import ROW_TABLE_KEY
from tests.apptest_support import (
    chart_series,
    component_table,
    component_table_data,
    page_text,
    run_page,
    svg_charts,
)
from viz.one_query import number, vector
from viz.table_heatmap import HIGHLIGHT_COLOR

QUERY, KEY = "one_query_query", "one_query_key"


def _latex(at: AppTest) -> str:
    return "\n".join(str(element.value) for element in at.latex)


def _trace(at: AppTest) -> AttentionTrace:
    """The trace the page should show: the table in session state, the sidebar's settings."""
    table = at.session_state["table"]
    state = at.session_state
    cfg = AttentionConfig(
        d_out=int(state["d_out"]),
        dropout=float(state["dropout"]),
        seed=int(state["seed"]),
        qkv_bias=bool(state["qkv_bias"]),
        training=bool(state["train"]),
    )
    return trace_attention([list(row) for row in table.values], cfg)


def _assert_row_written_out(at: AppTest, trace: AttentionTrace, i: int, j: int) -> None:
    """Every number of query i / key j on the page equals the trace's (4 decimals)."""
    latex = _latex(at)
    query, key = trace.queries[0, i], trace.keys[0, j]
    assert f"q^{{({i + 1})}} &= {vector(query.tolist())}" in latex
    assert f"k^{{({j + 1})}} &= {vector(key.tolist())}" in latex
    for a, b in zip(query.tolist(), key.tolist(), strict=True):
        assert f"({number(a)})({number(b)})" in latex
    for term in dot_product_terms(query, key).tolist():
        assert number(term) in latex
    assert f"&= {number(float(trace.attn_scores[0, i, j]))}" in latex
    for index in range(i + 1):  # the visible part of the row
        assert number(float(trace.masked_scores[0, i, index])) in latex
        assert number(float(trace.scaled_scores[0, i, index])) in latex
    steps = softmax_by_hand(trace.scaled_scores[0, i], trace.mask[i])
    assert f"{{{number(steps.total)}}} = {number(float(trace.attn_weights[0, i, j]))}" in latex
    context = trace.context[0, i].tolist()
    assert f"&= {vector(context)}" in latex
    for index in range(i + 1):
        assert vector(trace.values[0, index].tolist()) in latex
    # the table of the whole row says the same
    frame = component_table(at, ROW_TABLE_KEY)
    weights = [cell.replace("−", "-") for cell in frame.iloc[:, 3]]
    assert weights == [number(float(w)) for w in trace.attn_weights[0, i]]
    # the chosen key's line is the one highlighted
    backgrounds = [row[0]["background"] for row in component_table_data(at, ROW_TABLE_KEY)["cells"]]
    assert backgrounds == [HIGHLIGHT_COLOR if k == j else "" for k in range(len(backgrounds))]


@pytest.fixture
def at() -> AppTest:
    app = run_page("one_query")
    assert not app.exception
    return app


def test_default_is_the_books_query_journey_with_the_books_numbers(at: AppTest) -> None:
    assert at.selectbox(key=QUERY).value == 1 and at.selectbox(key=KEY).value == 0
    assert at.selectbox(key=QUERY).options[1] == "2: journey"
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=2, seed=123))
    _assert_row_written_out(at, trace, 1, 0)
    # the seed document's context vector of row 2
    assert r"&= \left(-0.5874,\ 0.0058\right)" in _latex(at)
    text = page_text(at)
    assert "Keys 3 to 6 come after the query" in text
    assert "“journey”" in text and "“Your”" in text
    assert not at.get("plotly_chart")
    chart = svg_charts(at)["one_query_vectors"]
    assert chart["legend"][-1]["name"] == "z⁽²⁾ · context vector"
    arrows = chart_series(at, "one_query_vectors", "arrow")  # six value vectors, then z
    assert [arrow["end"] for arrow in arrows[:6]] == trace.values[0].double().tolist()
    assert arrows[6]["end"] == trace.context[0, 1].double().tolist()


def test_choosing_another_query_and_key_changes_the_numbers(at: AppTest) -> None:
    before = _latex(at)
    at.selectbox(key=QUERY).set_value(4).run()
    at.selectbox(key=KEY).set_value(2).run()
    assert not at.exception
    assert _latex(at) != before
    _assert_row_written_out(at, _trace(at), 4, 2)
    assert "Key 6 comes after the query" in page_text(at)


def test_the_last_query_masks_nothing(at: AppTest) -> None:
    at.selectbox(key=QUERY).set_value(5).run()
    assert "nothing is masked" in page_text(at)
    _assert_row_written_out(at, _trace(at), 5, 0)


def test_a_future_key_is_explained(at: AppTest) -> None:
    at.selectbox(key=KEY).set_value(3).run()
    assert not at.exception
    assert any("Key 4 comes after query 2" in info.value for info in at.info)
    assert r"\alpha_{2,4}" in _latex(at) and r"e^{-\infty}" in _latex(at)


def test_seed_changes_every_number(at: AppTest) -> None:
    before = _latex(at)
    at.number_input(key="seed").set_value(7).run()
    assert not at.exception
    assert _latex(at) != before
    _assert_row_written_out(at, _trace(at), 1, 0)


def test_dropout_is_written_out_with_the_trace_mask(at: AppTest) -> None:
    at.slider(key="dropout").set_value(0.5).run()
    at.selectbox(key=QUERY).set_value(5).run()
    assert not at.exception
    trace = _trace(at)
    assert trace.dropout_active
    i = 5
    branches = set()
    for j in range(i + 1):  # every key of the last row: some kept, some dropped
        at.selectbox(key=KEY).set_value(j).run()
        latex = _latex(at)
        weight = number(float(trace.attn_weights[0, i, j]))
        if bool(trace.dropout_mask[0, i, j]):
            dropped = number(float(trace.dropped_weights[0, i, j]))
            assert f"{weight} \\times 2.0000 = {dropped}" in latex
        else:
            expected = (
                rf"\alpha'_{{6,{j + 1}}} = 0 \times \alpha_{{6,{j + 1}}} = 0 \times {weight} = 0"
            )
            assert expected in latex
        branches.add(bool(trace.dropout_mask[0, i, j]))
    assert branches == {True, False}, "seed 123, p = 0.5 keeps some and drops some"
    kept_count = int(trace.dropout_mask[0, i, : i + 1].sum())
    assert f"kept: {kept_count}" in page_text(at)
    for index in range(i + 1):  # the context sum uses the weights after dropout
        assert f"{number(float(trace.dropped_weights[0, i, index]))} \\times" in latex
    assert f"&= {vector(trace.context[0, i].tolist())}" in latex
    frame = component_table(at, ROW_TABLE_KEY)
    after = [cell.replace("−", "-") for cell in frame.iloc[:, 5]]
    assert after == [number(float(w)) for w in trace.dropped_weights[0, i]]


def test_eval_mode_turns_dropout_off(at: AppTest) -> None:
    at.slider(key="dropout").set_value(0.5).run()
    at.toggle(key="train").set_value(False).run()
    assert not at.exception
    assert "inactive in evaluation mode" in page_text(at)
    _assert_row_written_out(at, _trace(at), 1, 0)


def test_other_d_out_shows_weights_as_bars(at: AppTest) -> None:
    at.slider(key="d_out").set_value(3).run()
    assert not at.exception
    assert any("needs d_out = 2" in info.value for info in at.info)
    assert set(svg_charts(at)) == {"one_query_weights"}
    trace = _trace(at)
    (bars,) = chart_series(at, "one_query_weights", "bars")  # dropout off: one row of bars
    assert bars["y"] == pytest.approx(trace.attn_weights[0, 1].double().tolist())
    _assert_row_written_out(at, _trace(at), 1, 0)


def test_a_shorter_table_keeps_the_choice_valid(at: AppTest) -> None:
    at.selectbox(key=QUERY).set_value(5).run()
    at.selectbox(key=KEY).set_value(4).run()
    at.text_input(key="text").set_value("one two").run()
    assert not at.exception
    assert at.selectbox(key=QUERY).value == 1 and at.selectbox(key=KEY).value == 0
    _assert_row_written_out(at, _trace(at), 1, 0)


def test_tokens_are_escaped_where_markdown_is_rendered() -> None:
    at = run_page("one_query", {"text": "**bold** [a](http://x.io)"})
    assert not at.exception
    text = page_text(at)
    assert r"“\*\*bold\*\*”" in text  # the query, in a caption
    assert r"\[a\]\(http" in text  # the key, in the row table's index
    assert "[a](http" not in text
    latex = _latex(at)
    assert "bold" not in latex and "http" not in latex, "no token text in LaTeX"


def test_page_in_chinese() -> None:
    at = run_page("one_query", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "手算一个查询" in text and "上下文向量" in text
    assert r"&= \left(-0.5874,\ 0.0058\right)" in _latex(at)
