"""Quiz page: the right answer is the trace's argmax, a wrong one is reported wrong, score kept."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.apptest_support import chart_series, matrix_tables, page_text, run_page


def _score(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label in ("Score", "得分"))


def _reveal(at: AppTest, answer: str) -> AppTest:
    at.radio(key="quiz_answer").set_value(answer).run()
    at.button(key="quiz_reveal").click().run()
    assert not at.exception
    return at


def test_first_question_asks_the_last_query_and_reveal_needs_an_answer() -> None:
    at = run_page("quiz", {"seed": "7"})
    assert not at.exception
    radio = at.radio(key="quiz_answer")
    assert radio.value is None
    assert radio.options == [f"“{token}” (position {j + 1})" for j, token in enumerate(BOOK_TOKENS)]
    assert at.button(key="quiz_reveal").disabled
    assert "“step”" in page_text(at)
    assert _score(at) == "0 / 0"


def test_correct_answer_is_the_argmax_of_the_trace_row() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7))
    row = trace.attn_weights[0, 5]  # the first question asks about the last query, "step"
    best = int(row.argmax())
    at = _reveal(run_page("quiz", {"seed": "7"}), str(best))
    assert [s.value for s in at.success] == [
        f"Right! The answer is “{BOOK_TOKENS[best]}” (position {best + 1})."
    ]
    assert _score(at) == "1 / 1"
    (bars,) = chart_series(at, "quiz_row", "bars")
    assert np.allclose(bars["y"], row.double().numpy())
    numbers = matrix_tables(at)["quiz_numbers"]  # the row's numbers: the one matrix component
    assert list(numbers.index) == ["step"] and list(numbers.columns) == list(BOOK_TOKENS)
    assert numbers.iloc[0].tolist() == [f"{float(v):.4f}" for v in row]
    assert at.radio(key="quiz_answer").disabled
    at.run()  # a rerun never counts the same question twice
    assert _score(at) == "1 / 1"


def test_wrong_answer_is_reported_wrong() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7))
    row = trace.attn_weights[0, 5]
    wrong = int(row.argmin())
    at = _reveal(run_page("quiz", {"seed": "7"}), str(wrong))
    assert not at.success
    assert at.error[0].value.startswith(f"Not quite: you chose “{BOOK_TOKENS[wrong]}”")
    assert _score(at) == "0 / 1"


def test_next_question_asks_about_a_masked_cell_and_resets_the_answer() -> None:
    at = _reveal(run_page("quiz"), "0")
    at.button(key="quiz_next").click().run()
    assert not at.exception
    assert at.session_state["quiz_number"] == 1
    assert at.radio(key="quiz_answer").value is None
    assert not at.button(key="quiz_next").disabled
    assert "after softmax" in page_text(at)
    _reveal(at, "minus_inf")
    assert at.error and "the answer is 0" in at.error[0].value
    at.button(key="quiz_next").click().run()
    assert "just before softmax" in page_text(at)
    _reveal(at, "minus_inf")
    assert at.success
    assert at.session_state["quiz_answered"] == 3
    (bars,) = chart_series(at, "quiz_row", "bars")
    assert "−∞" in bars["texts"]  # the masked scores of the row
    numbers = matrix_tables(at)["quiz_numbers"].iloc[0].tolist()
    assert numbers[0] != "−∞" and numbers[1:] == ["−∞"] * 5  # the first query sees itself only


def test_row_sum_question_appears_with_dropout() -> None:
    at = run_page("quiz", {"dropout": "0.5"})
    for _ in range(3):
        at.button(key="quiz_next").click().run()
    assert "after dropout" in page_text(at)
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    question_row_sums = {round(float(s), 4) for s in trace.dropped_weights[0].sum(dim=-1)}
    _reveal(at, "no")
    explanation = page_text(at)
    assert any(f"{value:.4f}" in explanation for value in question_row_sums)


def test_quiz_page_in_chinese() -> None:
    at = run_page("quiz", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "先预测，再揭晓" in text and "对哪个词元的注意力最大" in text
    assert at.button(key="quiz_reveal").label == "揭晓"
    assert at.radio(key="quiz_answer").options[0] == "“Your”（位置 1）"


def test_long_sentence_asks_about_the_first_tokens_only() -> None:
    at = run_page("quiz", {"text": " ".join(f"w{i}" for i in range(30))})
    assert not at.exception
    assert "first 10 tokens" in page_text(at)
    assert len(at.radio(key="quiz_answer").options) == 10
