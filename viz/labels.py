"""Token labels for figures: told apart when a token repeats, shortened for an axis tick.

Labels stay plain text: the app's components write them with ``textContent``, never as markup.
"""

from __future__ import annotations

from attention.examples import unique_labels

__all__ = ["short", "unique_labels"]


def short(text: str, limit: int = 14) -> str:
    """Shorten a long label for an axis tick (the full label stays in the hover)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
