"""Make user text (token labels) safe to put where Streamlit renders Markdown.

``st.markdown`` and every cell of ``st.table`` render Markdown with Streamlit's extras, so
``**hi**`` would be bold and ``[x](http://…)`` a link. :func:`escape_markdown` backslash-escapes
every ASCII punctuation character and breaks GFM's bare-URL autolinks (which ignore escapes) with
an invisible word joiner. Raw HTML is never rendered: the app never passes user text with
``unsafe_allow_html``.
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
