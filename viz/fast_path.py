"""Figures of the pages "The fast path" and "The KV cache": pure builders, no Streamlit.

:func:`convention_view` (one boolean mask written as the tensor holds it, coloured by what its
reader does: "hide" for the book, "attend" for SDPA), :func:`per_size_chart` (log-log, one line
per path) and :func:`cache_rows_view` (a layer's cached keys or values, heads side by side).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .chart import Chart, LegendEntry, Line, Panel, log_axis, log_padded
from .colors import HIDDEN_COLOR, series_colors
from .matrix import BinaryLook, MatrixView
from .steps import VISIBLE_COLOR

__all__ = ["cache_rows_view", "convention_view", "per_size_chart"]

LINE_STYLES = (("reference", "solid"), ("main", "solid"), ("second", "dash"), ("path", "dot"))


def convention_view(
    mask: np.ndarray,
    tokens: Sequence[str],
    *,
    true_hides: bool,
    hidden_name: str,
    attended_name: str,
    row_title: str,
    col_title: str,
    palette: str,
    row_labels: Sequence[str] | None = None,
) -> MatrixView:
    """``mask`` ``(rows, T)`` bool as its reader sees it: ``True`` hides (``true_hides``) or attends.

    Rows are labelled ``row_labels`` (default: the tokens), columns by the tokens.
    """
    hide, attend = HIDDEN_COLOR, VISIBLE_COLOR
    return MatrixView(
        values=np.asarray(mask, dtype=bool),
        row_labels=tuple(tokens if row_labels is None else row_labels),
        col_labels=tuple(tokens),
        palette=palette,
        kind="binary",
        binary=BinaryLook(
            true_text="True",
            false_text="False",
            true_name=hidden_name if true_hides else attended_name,
            false_name=attended_name if true_hides else hidden_name,
            true_color=hide if true_hides else attend,
            false_color=attend if true_hides else hide,
        ),
        decimals=0,
        row_title=row_title,
        col_title=col_title,
    )


def per_size_chart(
    token_counts: Sequence[int],
    series: Mapping[str, Sequence[float]],
    names: Mapping[str, str],
    *,
    x_title: str,
    y_title: str,
    unit: str,
    palette: str = "default",
) -> Chart:
    """One line per path of ``series`` (values per token count) on log-log axes, named ``names``.

    ``unit`` follows each value in the hover text ("ms", "MiB"); values ≤ 0 are left out.
    """
    colors = series_colors(palette)
    x = tuple(float(n) for n in token_counts)
    lines: list[Line] = []
    legend: list[LegendEntry] = []
    every: list[float] = []
    for (path, values), (color_name, dash) in zip(series.items(), LINE_STYLES * 2, strict=False):
        ys = tuple(float(v) if v > 0 else None for v in values)
        every += [v for v in ys if v is not None]
        hover = tuple(
            f"{names[path]}\n{int(n)} tokens: {v:.3g} {unit}" if v is not None else ""
            for n, v in zip(token_counts, ys, strict=True)
        )
        color = colors[color_name]
        if color_name == "path" and color == colors["second"]:  # Okabe–Ito: one orange
            color = colors["context"]
        lines.append(Line(x, ys, color, 2.0, dash, markers=(3.5,) * len(x), hover=hover))
        legend.append(LegendEntry(names[path], color, "line", dash))
    x_low, x_high = (x[0] * 0.8, x[-1] * 1.25) if x else (1.0, 10.0)
    panel = Panel(
        x=log_axis(x_title, x_low, x_high),
        y=log_axis(y_title, *log_padded(every)),
        series=tuple(lines),
    )
    return Chart(panels=(panel,), legend=tuple(legend), height=240)


def cache_rows_view(
    rows: np.ndarray,
    tokens: Sequence[str],
    *,
    name: str,
    row_title: str,
    col_title: str,
    palette: str,
) -> MatrixView:
    """Cached keys or values ``(h, n, head_dim)`` as ``(n, h·head_dim)``: a row per cached token.

    Columns are named ``{name}{head}.{feature}`` (``k1.1``, ``k1.2``, ``k2.1`` …), 1-based.
    """
    heads, count, head_dim = rows.shape
    table = np.asarray(rows, dtype=np.float64).transpose(1, 0, 2).reshape(count, heads * head_dim)
    columns = tuple(f"{name}{h + 1}.{j + 1}" for h in range(heads) for j in range(head_dim))
    return MatrixView(
        values=table,
        row_labels=tuple(tokens[:count]),
        col_labels=columns,
        palette=palette,
        kind="diverging",
        row_title=row_title,
        col_title=col_title,
        value_name=name,
    )
