"""Colour scales: one diverging scale (negative ↔ positive) and one sequential scale (0 → 1).

Two palettes: ``default`` (red–blue, blues) and ``colorblind`` (orange–purple and cividis, which
stay distinguishable for the common forms of colour blindness). Hidden (masked) cells are never on
a scale: they get :data:`HIDDEN_COLOR` and the label −∞.
"""

from __future__ import annotations

PALETTES = {
    "default": {"diverging": "RdBu_r", "sequential": "Blues"},
    "colorblind": {"diverging": "PuOr_r", "sequential": "Cividis"},
}
HIDDEN_COLOR = "#d9d9d9"
HIDDEN_TEXT_COLOR = "#555555"
DROPPED_COLOR = "#f4d6d6"


def colorscale(kind: str, palette: str = "default") -> str:
    """The Plotly colour-scale name for ``kind`` (``diverging``/``sequential``) in ``palette``."""
    return PALETTES.get(palette, PALETTES["default"])[kind]
