"""Showing figures and numbers the same way on every page."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from viz.heatmap import cell_texts
from viz.labels import unique_labels

from .i18n import t

PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}


def show_figure(figure: go.Figure, key: str) -> None:
    """Draw a Plotly figure at full width."""
    st.plotly_chart(figure, key=key, config=PLOTLY_CONFIG, width="stretch")


def numbers_frame(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    hidden: np.ndarray | None = None,
    decimals: int = 4,
) -> pd.DataFrame:
    """The matrix as a table of text (−∞ where hidden), labelled by (unique) token names."""
    texts = cell_texts(np.asarray(values, dtype=np.float64), hidden, decimals)
    return pd.DataFrame(
        texts, index=unique_labels(list(row_labels)), columns=unique_labels(list(col_labels))
    )


def show_numbers(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    hidden: np.ndarray | None = None,
    decimals: int = 4,
    expanded: bool = False,
    label: str | None = None,
) -> None:
    """The numeric table alternative of a heatmap (an HTML table: screen readers read it)."""
    frame = numbers_frame(values, row_labels, col_labels, hidden=hidden, decimals=decimals)
    with st.expander(label or t("show.numbers"), expanded=expanded):
        st.table(frame)
