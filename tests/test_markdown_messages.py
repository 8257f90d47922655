"""No message shows literal Markdown: every text of the catalogue, rendered as CommonMark.

Streamlit renders ``st.markdown``, ``st.info``, captions and labels as CommonMark. A ``**`` that
CommonMark cannot pair stays on screen as two asterisks: in Chinese this happens when bold text
ends in full-width punctuation and a character follows (``**结果：**没有`` is not bold), since a
closing ``**`` after punctuation must be followed by a space or punctuation. This test renders
every message in both languages with its placeholders filled, and looks for what is left over.
"""

from __future__ import annotations

import re
import string

import pytest
from markdown_it import MarkdownIt

from ui.i18n import CATALOGUE, LANGUAGES

COMMONMARK = MarkdownIt("commonmark")
CODE = re.compile(r"<(code|pre)>.*?</\1>", re.S)  # code spans may hold any character
TAG = re.compile(r"<[^>]+>")


class Shown:
    """A placeholder's value: written as ``text`` whatever format the message asks for."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __format__(self, spec: str) -> str:
        return self.text


def filled(text: str, value: str) -> str:
    """``text`` with every ``{placeholder}`` replaced by ``value`` (what a page passes in)."""
    fields = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    return text.format_map(dict.fromkeys(fields, Shown(value))) if fields else text


def leftover_markdown(text: str) -> list[str]:
    """The Markdown marks still visible after rendering ``text``: unpaired ``**`` or backticks."""
    visible = TAG.sub("", CODE.sub("", COMMONMARK.render(text)))
    return [mark for mark in ("**", "`") if mark in visible]


def test_the_check_sees_the_chinese_bold_that_failed() -> None:
    assert leftover_markdown("**上一次改动的结果：**没有任何上下文向量改变。") == ["**"]
    assert leftover_markdown("**上一次改动的结果**：没有任何上下文向量改变。") == []
    assert leftover_markdown("Use `d_k` **here**.") == []


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_no_message_shows_literal_markdown(lang: str) -> None:
    stray = [
        f"{key} [{value!r}]: {marks}"
        for key, texts in sorted(CATALOGUE.items())
        for value in ("7", "word", "−0.25")  # a number, a token, a signed decimal
        if (marks := leftover_markdown(filled(texts[lang], value)))
    ]
    assert not stray, "\n".join(stray)
