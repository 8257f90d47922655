"""The book's lines beside a step: the class's source with the step's statements marked.

The lines come from :mod:`attention.book_code`, which reads ``attention/modules.py``, so the code
shown is the code that computed the numbers; they sit in a collapsed expander.
:func:`code_in_language` gives any code shown its comments in the reader's language
(``ui/messages/book_code.py``); everything before a ``#`` stays as it is.
"""

from __future__ import annotations

import re
import string
from functools import cache

import streamlit as st

from attention.book_code import MARKER, MULTI_HEAD_ANCHORS, marked_source
from attention.modules import CausalAttention, MultiHeadAttention

from .i18n import current_language, t
from .messages.book_code import CODE_COMMENTS

_QUOTES = ('"""', "'''", '"', "'")


def comment_start(line: str, quote: str | None = None) -> tuple[int | None, str | None]:
    """Where ``line``'s comment starts (its ``#``, or None) and the string still open after it.

    ``quote`` is the triple-quoted string open at the line's start (a docstring): a ``#`` or an
    apostrophe inside a string is text, not a comment. Works on diff lines too (``+``, ``-``).
    """
    i = 0
    while i < len(line):
        if quote is not None:
            if line.startswith(quote, i):
                i, quote = i + len(quote), None
            else:
                i += 2 if line[i] == "\\" else 1
            continue
        if line[i] == "#":
            return i, None
        quote = next((q for q in _QUOTES if line.startswith(q, i)), None)
        i += len(quote) if quote else 1
    return None, quote if quote in ('"""', "'''") else None


@cache
def _comment_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each English comment as a pattern (its ``{fields}`` match any text), and its Chinese."""
    patterns = []
    for english, chinese in CODE_COMMENTS.items():
        parts = [
            re.escape(literal) + (f"(?P<{field}>.+?)" if field else "")
            for literal, field, _, _ in string.Formatter().parse(english)
        ]
        patterns.append((re.compile("".join(parts)), chinese))
    return tuple(patterns)


def translated_comment(comment: str) -> str | None:
    """The Chinese of an English ``comment`` (the text after ``# ``), or None if it has none."""
    for pattern, chinese in _comment_patterns():
        found = pattern.fullmatch(comment)
        if found:
            return chinese.format(**found.groupdict())
    return None


def code_in_language(code: str, lang: str | None = None) -> str:
    """``code`` with its comments in ``lang`` (default: the reader's): only the comments change.

    A comment without a translation (a shape, ``(b, T, d_out)``) stays as it is.
    """
    if (lang or current_language()) != "zh":
        return code
    lines, quote = [], None
    for line in code.split("\n"):
        start, quote = comment_start(line, quote)
        if start is not None:
            chinese = translated_comment(line[start + 1 :].strip())
            if chinese is not None:
                line = f"{line[:start]}# {chinese}"
        lines.append(line)
    return "\n".join(lines)


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
    """A collapsed expander with ``cls``'s source, the statements of ``step`` marked ▶.

    The code is drawn only while the expander is open (opening it reruns): a closed one would
    still make the browser load and run Streamlit's syntax highlighter, and every element of a
    first visit stays a grey placeholder until the last element kind's code has loaded.
    """
    expander = st.expander(
        t("book_code.expander", cls=cls.__name__), key=f"book_code_{step}", on_change="rerun"
    )
    if not expander.open:
        return
    marked = marked_source(cls, step)
    with expander:
        st.caption(
            t(
                "book_code.caption",
                cls=cls.__name__,
                marker=MARKER,
                lines=_line_ranges(marked.marked_lines),
            )
        )
        st.code(code_in_language(marked.text), language="python", wrap_lines=True)


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
        st.code(code_in_language(marked.text), language="python", wrap_lines=True)
