"""Token labels made safe and unique for Plotly.

Plotly reads a small subset of HTML in every string it draws (``<b>``, ``<br>``, ``<a href>``…),
so a token such as ``<b>hi</b>`` would be drawn bold, and a link could be injected. Every user
string goes through :func:`plain` first, which escapes ``&``, ``<`` and ``>``: Plotly then draws
the characters literally.
"""

from __future__ import annotations

import html

from attention.examples import unique_labels

__all__ = ["plain", "short", "unique_labels"]


def plain(text: str) -> str:
    """``text`` escaped so that Plotly shows it literally, never as markup."""
    return html.escape(str(text), quote=False)


def short(text: str, limit: int = 14) -> str:
    """Shorten a long label for an axis tick (the full label stays in the hover)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
