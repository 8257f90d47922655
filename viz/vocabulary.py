"""The app's vocabulary and rounding, written once: the names of columns and how numbers are shown.

Features are ``x1 … x{d_in}`` for an embedding, ``q1 …``, ``k1 …``, ``v1 …`` for queries, keys
and values, ``z1 … z{d_out}`` for a context vector (the book's ``z``). A number shown has
:data:`DECIMALS` decimals, a hover :data:`HOVER_DECIMALS`, and :data:`COMPACT_DECIMALS` only where
four would not fit, so a number read on one page can be found on another (the sidebar's
``glossary.line`` says so).
"""

from __future__ import annotations

import numpy as np

DECIMALS = 4  # every number shown in a cell, table, caption or metric
HOVER_DECIMALS = 6  # the hover of a heatmap cell: the value to more places
COMPACT_DECIMALS = 2  # only where four decimals do not fit (a crowded grid or window)

INPUT_PREFIX = "x"  # x1 … x_d_in: the features of an embedding (an input row)
QUERY_PREFIX = "q"
KEY_PREFIX = "k"
VALUE_PREFIX = "v"
CONTEXT_PREFIX = "z"  # z1 … z_d_out: the features of a context vector, the book's z


def feature_labels(prefix: str, count: int) -> list[str]:
    """Column names ``{prefix}1 … {prefix}{count}``: feature ``m`` of a vector, counted from 1."""
    return [f"{prefix}{m + 1}" for m in range(count)]


def input_labels(d_in: int) -> list[str]:
    """``x1 … x{d_in}``: the columns of the embedding table."""
    return feature_labels(INPUT_PREFIX, d_in)


def context_labels(d_out: int) -> list[str]:
    """``z1 … z{d_out}``: the columns of a table of context vectors, on every page."""
    return feature_labels(CONTEXT_PREFIX, d_out)


def format_number(value: float, decimals: int = DECIMALS, *, minus: str = "-") -> str:
    """``value`` with ``decimals`` decimals (``-0.4519``), never ``-0.0000``.

    ``minus="−"`` writes the typographic minus sign used in running text and in cells.
    """
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and float(text) == 0.0:
        text = text[1:]
    return minus + text[1:] if text.startswith("-") else text


MINUS_INFINITY = "−∞"  # a masked score, as every cell and hover writes it


def cell_texts(values: np.ndarray, hidden: np.ndarray | None, decimals: int) -> list[list[str]]:
    """The number written in each cell of a matrix (−∞ where hidden), as the page shows it."""
    rows, cols = values.shape
    return [
        [
            MINUS_INFINITY
            if hidden is not None and hidden[i, j]
            else format_number(float(values[i, j]), decimals, minus="−")
            for j in range(cols)
        ]
        for i in range(rows)
    ]


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")  # for str.translate: 12 → ¹², -1 → ⁻¹
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")  # 12 → ₁₂


def format_exponent(exponent: int) -> str:
    """An integer raised: an exponent after its base, ``2`` → ``²`` (``0.5²``), or the book's
    token number, x⁽²⁾."""
    return str(int(exponent)).translate(SUPERSCRIPT)


def format_subscript(number: int) -> str:
    """An integer lowered, as in a name: ``12`` → ``₁₂`` (v₁₂, w₂₁)."""
    return str(int(number)).translate(SUBSCRIPT)


def format_difference(value: float) -> str:
    """A difference between two results: ``0`` when they are exactly equal, else ``4.7e-05``
    (its size, not its digits, is what a reader compares)."""
    return "0" if value == 0 else f"{value:.1e}"


def format_short(value: float, decimals: int = DECIMALS) -> str:
    """A setting written briefly: ``0.5``, ``2.0``, ``1.4286`` (at most ``decimals`` decimals)."""
    text = format_number(value, decimals).rstrip("0")
    return text + "0" if text.endswith(".") else text


LARGE = 1e6  # from here on, a gradient is written with its exponent (4.891e+11), never cut


def gradient_number(value: float) -> str:
    """A number as the gradient tables write it: four decimals, a real minus sign, never
    −0.0000; a large one keeps its size: four significant digits and its power of ten."""
    if abs(value) >= LARGE:
        return f"{value:.4g}".replace("-", "−")
    return format_number(value, minus="−")


def exact_number(value: float) -> str:
    """A measured value in full (``0`` when it is exactly zero): 'the largest |value| is …'."""
    return "0" if value == 0 else f"{value:.3g}".replace("-", "−")
