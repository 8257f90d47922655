"""Make user text (token labels) safe to put where Streamlit renders Markdown.

``st.markdown`` *and* ``st.table`` (every cell, index and header) render GitHub-flavoured Markdown
with Streamlit's extras (``:red[…]``, ``$…$`` LaTeX, ``:emoji:``). A token such as ``**hi**`` would
be drawn bold and ``[x](http://…)`` would become a link. :func:`escape_markdown` backslash-escapes
every ASCII punctuation character (CommonMark's rule: any of them may be escaped) and breaks the
bare-URL autolinks of GFM (``http://…``, ``www.…``, ``a@b.c``), which ignore backslash escapes, with an
invisible word joiner. HTML needs nothing more: Streamlit never renders raw HTML from Markdown
unless ``unsafe_allow_html=True``, which the app never uses with user text.
"""

from __future__ import annotations

import re

__all__ = ["escape_markdown"]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # all ASCII punctuation
_WORD_JOINER = "\u2060"  # zero-width, keeps the text looking the same


def escape_markdown(text: str) -> str:
    """``text`` written so that Markdown shows it literally (no bold, links, LaTeX or colours)."""
    escaped = _PUNCTUATION.sub(r"\\\1", str(text))
    # GFM autolinks bare URLs even when their punctuation is escaped: break the trigger words.
    escaped = re.sub(
        r"(?i)(https?|ftp|mailto)\\:", lambda m: f"{m.group(1)}{_WORD_JOINER}\\:", escaped
    )
    escaped = re.sub(r"(?i)(www)\\\.", lambda m: f"{m.group(1)}{_WORD_JOINER}\\.", escaped)
    return escaped.replace("\\@", f"{_WORD_JOINER}\\@")  # e-mail addresses autolink too
