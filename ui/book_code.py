"""The book's lines beside a step: the class's source with the step's statements marked.

The lines come from :mod:`attention.book_code`, which reads ``attention/modules.py`` itself, so
what a learner reads is the code that computed the numbers on screen. They sit in a collapsed
expander: the step's numbers stay first.
"""

from __future__ import annotations

import streamlit as st

from attention.book_code import MARKER, MULTI_HEAD_ANCHORS, marked_source
from attention.modules import CausalAttention, MultiHeadAttention

from .i18n import t


def _line_ranges(numbers: tuple[int, ...]) -> str:
    """``(94, 95, 96, 112)`` → ``"94–96, 112"``."""
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in ranges)


def show_book_code(step: str, cls: type = CausalAttention) -> None:
    """A collapsed expander with ``cls``'s source, the statements of ``step`` marked ▶."""
    marked = marked_source(cls, step)
    with st.expander(t("book_code.expander", cls=cls.__name__)):
        st.caption(
            t(
                "book_code.caption",
                cls=cls.__name__,
                marker=MARKER,
                lines=_line_ranges(marked.marked_lines),
            )
        )
        st.code(marked.text, language="python", wrap_lines=True)


def show_multi_head_code() -> None:
    """A collapsed expander with ``MultiHeadAttention``'s source and a choice of its stages
    (split, transpose, mask, weights, join, out_proj), the chosen stage's statements marked."""
    with st.expander(t("book_code.multi_head.expander")):
        stages = {stage: t(f"book_code.stage.{stage}") for stage in MULTI_HEAD_ANCHORS}
        stage = st.radio(
            t("book_code.stage.choose"),
            list(stages),
            format_func=stages.__getitem__,
            horizontal=True,
            key="book_code_multi_head_stage",
        )
        marked = marked_source(MultiHeadAttention, stage)
        st.caption(
            t(
                "book_code.caption",
                cls="MultiHeadAttention",
                marker=MARKER,
                lines=_line_ranges(marked.marked_lines),
            )
        )
        st.code(marked.text, language="python", wrap_lines=True)
