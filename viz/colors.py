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


# The lines, bars and arrows of the app's small charts (``viz.chart``), per palette: the
# colour-blind one is Okabe–Ito (blue, orange, vermillion), distinguishable for the common forms.
SERIES_COLORS = {
    "default": {
        "main": "#2b6cb0",
        "second": "#d1495b",
        "reference": "#555555",
        "value": "#1f77b4",
        "path": "#ff7f0e",
        "context": "#d62728",
        "faded": "#b0b0b0",
    },
    "colorblind": {
        "main": "#0072b2",
        "second": "#e69f00",
        "reference": "#555555",
        "value": "#0072b2",
        "path": "#e69f00",
        "context": "#d55e00",
        "faded": "#b0b0b0",
    },
}


def series_colors(palette: str = "default") -> dict[str, str]:
    """The chart colours of ``palette`` (``main``, ``second``, ``reference``, ``value`` …)."""
    return SERIES_COLORS.get(palette, SERIES_COLORS["default"])
