"""Predict, then reveal: questions read off the current trace, answered before they are shown.

``attention.experiments.quiz_question(trace, number)`` builds the question; this page draws it:
a radio with no preselected answer, **Reveal** (right or wrong, the row of numbers, why) and
**Next question**. Session keys start with ``quiz_``; ``quiz_scored`` (the last question counted)
keeps a rerun from counting one twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention import AttentionTrace
from attention.experiments import MAX_QUIZ_TOKENS, QuizQuestion, quiz_question
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.show import figure_words, show_matrix
from ui.step_link import choose_step
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.experiments import weight_row_chart
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView
from viz.vocabulary import format_number, format_short

DEFAULTS = {
    "quiz_number": 0,
    "quiz_correct": 0,
    "quiz_answered": 0,
    "quiz_revealed": False,
    "quiz_revealed_answer": None,
    "quiz_scored": -1,
}


def _on_reveal() -> None:
    st.session_state["quiz_revealed"] = True
    st.session_state["quiz_revealed_answer"] = st.session_state.get("quiz_answer")


def _on_next() -> None:
    st.session_state["quiz_number"] = int(st.session_state["quiz_number"]) + 1
    st.session_state["quiz_revealed"] = False
    st.session_state["quiz_revealed_answer"] = None
    st.session_state["quiz_answer"] = None
    choose_step("quiz", "question")  # presenter mode: back to the question's screen


def option_label(question: QuizQuestion, option: str, labels: list[str]) -> str:
    """The text of one answer (Markdown: token labels are escaped)."""
    if question.kind == "argmax":
        position = int(option)
        return t(
            "quiz.option.token", token=escape_markdown(labels[position]), position=position + 1
        )
    if option == "raw_score":
        return t("quiz.option.raw_score", value=format_number(question.value, minus="−"))
    return t(f"quiz.option.{option}")


def question_text(question: QuizQuestion, labels: list[str], trace: AttentionTrace) -> str:
    """The question in the current language, token labels escaped for Markdown."""
    values = {
        "query": escape_markdown(labels[question.query]),
        "query_pos": question.query + 1,
        "p": format_short(trace.config.dropout),
    }
    if question.key is not None:
        values.update(key_token=escape_markdown(labels[question.key]), key_pos=question.key + 1)
    return t(f"quiz.q.{question.kind}", **values)


def explanation(question: QuizQuestion, labels: list[str], trace: AttentionTrace) -> str:
    return t(
        f"quiz.explain.{question.kind}",
        query=escape_markdown(labels[question.query]),
        value=format_number(question.value, minus="−"),
        scale=format_short(trace.dropout_scale),
    )


def show_reveal(
    question: QuizQuestion, labels: list[str], trace: AttentionTrace, palette: str
) -> None:
    """Right or wrong, the row of numbers the answer comes from, and why."""
    answer = st.session_state.get("quiz_revealed_answer")
    right = t("quiz.or").join(
        option_label(question, option, labels)
        for option in question.options
        if option in question.correct
    )
    if answer is None:
        st.warning(t("quiz.no_answer", answer=right))
    elif question.is_correct(answer):
        st.success(t("quiz.right", answer=right))
    else:
        st.error(t("quiz.wrong", chosen=option_label(question, answer, labels), answer=right))

    row_kind = {"masked_before": "masked_scores", "row_sum": "dropped"}.get(
        question.kind, "weights"
    )
    highlight = (
        [int(option) for option in question.correct]
        if question.kind == "argmax"
        else [question.key]
        if question.key is not None
        else []
    )
    hidden = list(question.row_hidden)
    values = np.asarray(question.row, dtype=np.float64)  # (T,)
    scores = row_kind == "masked_scores"
    value_name = t("quiz.score_name" if scores else "step.value.weight")
    left, right_column = st.columns([2, 1])
    with left:
        chart = weight_row_chart(
            values.tolist(),
            labels,
            value_name=value_name,
            x_title=t("step.axis.key"),
            hidden=hidden,
            highlight=highlight,
            title=t(f"quiz.row_title.{row_kind}", query=labels[question.query]),
            palette=palette,
        )
        draw_chart(chart, key="quiz_row")
    with right_column:
        st.markdown(explanation(question, labels, trace))
    row = MatrixView(
        values=values[np.newaxis, :],  # (1, T)
        row_labels=(labels[question.query],),
        col_labels=tuple(labels),
        palette=palette,
        kind="diverging" if scores else "sequential",
        zrange=None if scores else (0.0, max(1.0, float(values.max()))),  # dropout scales up
        hidden=np.asarray([hidden]),  # (1, T) the masked keys: −∞ before softmax, 0 after
        hidden_value=None if scores else 0.0,
        row_title=t("step.axis.query"),
        col_title=t("step.axis.key"),
        value_name=value_name,
    )
    show_matrix(row, figure_words(), key="quiz_numbers")


@dataclass(frozen=True)
class Round:
    """One question of the quiz and what its screens read."""

    question: QuizQuestion
    labels: list[str]
    trace: AttentionTrace
    palette: str


def quiz_round(view: View) -> Round | None:
    """This run's question, after counting a revealed answer once (None: cannot compute)."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    trace = view.trace()
    if trace is None:
        return None
    question = quiz_question(trace, int(st.session_state["quiz_number"]))
    _score(question)
    return Round(question, unique_labels(list(view.table.tokens)), trace, view.palette)


def _score(question: QuizQuestion) -> None:
    """Count a revealed answer, once per question."""
    number = int(st.session_state["quiz_number"])
    if st.session_state["quiz_revealed"] and st.session_state["quiz_scored"] != number:
        st.session_state["quiz_scored"] = number
        st.session_state["quiz_answered"] += 1
        if question.is_correct(st.session_state["quiz_revealed_answer"]):
            st.session_state["quiz_correct"] += 1


def show_question(round_: Round) -> str | None:
    """The question, the score so far and the answers (a radio, none chosen); the chosen one."""
    question, labels = round_.question, round_.labels
    header, score = st.columns([4, 1])
    number = int(st.session_state["quiz_number"])
    header.subheader(t("quiz.question_number", number=number + 1))
    score.metric(
        t("quiz.score"),
        t(
            "quiz.score_value",
            correct=st.session_state["quiz_correct"],
            answered=st.session_state["quiz_answered"],
        ),
    )
    if len(labels) > MAX_QUIZ_TOKENS:
        st.caption(t("quiz.few_tokens", limit=MAX_QUIZ_TOKENS))
    st.markdown(question_text(question, labels, round_.trace))
    if st.session_state.get("quiz_answer") not in question.options:
        st.session_state["quiz_answer"] = None  # the question changed under the radio
    return st.radio(
        t("quiz.answer_label"),
        options=list(question.options),
        index=None,
        format_func=lambda option: option_label(question, option, labels),
        key="quiz_answer",
        disabled=bool(st.session_state["quiz_revealed"]),
        horizontal=question.kind != "argmax" or len(question.options) <= 6,
    )


def _answer_screen(round_: Round) -> None:
    """Presenter mode's second screen: the answer revealed (Next is the reveal)."""
    if not st.session_state["quiz_revealed"]:
        _on_reveal()
        _score(round_.question)
    show_reveal(round_.question, round_.labels, round_.trace, round_.palette)


def _next_question() -> None:
    st.button(t("quiz.next"), key="quiz_next", on_click=_on_next, width="stretch")


# Presenter mode: predict, then reveal (the answer chosen on the question's screen is kept)
WALK: Walk[Round] = Walk(
    page="quiz",
    entries=(
        Entry("question", lambda: t("page.quiz.title"), show_question, keeps=("quiz_answer",)),
        Entry("answer", lambda: t("quiz.reveal"), _answer_screen),
    ),
    tabs_key="quiz_tabs",
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    if not presenting:
        st.title(t("page.quiz.title"))
        st.markdown(t("quiz.intro"))
    round_ = quiz_round(view)
    if round_ is None:
        return
    if presenting:
        present(WALK, round_, controls=_next_question)
        return
    answer = show_question(round_)
    revealed = bool(st.session_state["quiz_revealed"])
    buttons = st.columns([1, 1, 4])
    buttons[0].button(
        t("quiz.reveal"),
        key="quiz_reveal",
        on_click=_on_reveal,
        disabled=revealed or answer is None,
        help=t("quiz.reveal_help") if answer is None and not revealed else None,
        type="primary",
        width="stretch",
    )
    buttons[1].button(t("quiz.next"), key="quiz_next", on_click=_on_next, width="stretch")
    if revealed:
        show_reveal(round_.question, round_.labels, round_.trace, view.palette)
