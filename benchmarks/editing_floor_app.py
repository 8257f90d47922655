"""The editing floor of ``benchmarks/latency.py``: the smallest page with an editable 6×3 table.

Not part of the app. An editable table of six rows and three text columns (``st.data_editor``,
dynamic rows, text columns like the app's embedding table) and a 6×2 ``st.table`` computed from
it (each row's sum and largest value). Whatever a cell edit costs here is what Streamlit's data
editor costs on this machine (the grid's commit, the rerun, the new table drawn), so the
benchmark divides the app's cell edit by this page's.

Run it alone with ``streamlit run benchmarks/editing_floor_app.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

COLUMNS = ("x1", "x2", "x3")
START = np.random.default_rng(123).standard_normal((6, len(COLUMNS)))  # (6, 3)


def start_table() -> pd.DataFrame:
    """The table the editor starts from: six rows of three numbers, as text."""
    return pd.DataFrame([[f"{v:.2f}" for v in row] for row in START], columns=list(COLUMNS))


def summary(edited: pd.DataFrame) -> pd.DataFrame:
    """Each row's sum and largest value (a cell that is not a number counts as 0), as text."""
    values = edited.apply(pd.to_numeric, errors="coerce").fillna(0.0).to_numpy(dtype=float)
    return pd.DataFrame(
        {
            "sum": [f"{v:.4f}" for v in values.sum(axis=1)],
            "max": [f"{v:.4f}" for v in values.max(axis=1)],
        }
    )


def render() -> None:
    column_config = {name: st.column_config.TextColumn(name) for name in COLUMNS}
    edited = st.data_editor(
        start_table(), key="table", num_rows="dynamic", column_config=column_config
    )
    st.table(summary(edited))


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
