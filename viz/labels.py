"""Token labels made safe and unique for Plotly.

Plotly reads a small subset of HTML in every string it draws (``<b>``, ``<br>``, ``<a href>``…),
so a token such as ``<b>hi</b>`` would be drawn bold, and a link could be injected. Every user
string goes through :func:`plain` first, which escapes ``&``, ``<`` and ``>``: Plotly then draws
the characters literally.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence


def plain(text: str) -> str:
    """``text`` escaped so that Plotly shows it literally, never as markup."""
    return html.escape(str(text), quote=False)


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """Labels that tell repeated tokens apart: ``the``, ``cat``, ``the·2`` (not escaped)."""
    counts = Counter(tokens)
    seen: Counter[str] = Counter()
    labels = []
    for token in tokens:
        seen[token] += 1
        labels.append(token if counts[token] == 1 or seen[token] == 1 else f"{token}·{seen[token]}")
    return labels


def short(text: str, limit: int = 14) -> str:
    """Shorten a long label for an axis tick (the full label stays in the hover)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
