"""The floor of ``benchmarks/latency.py``: the smallest Streamlit page with a seed and a 6×2 table.

Not part of the app. A seed number input in the sidebar and a table of six rows and two columns
that changes with the seed: no torch, no Plotly, no layout. Whatever a click costs here is what
any Streamlit rerun costs on this machine (websocket round trip, script run, the browser drawing
the new table), so the benchmark divides the app's times by this page's.

Run it alone with ``streamlit run benchmarks/floor_app.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

SEED_LABEL = "Seed"  # benchmarks/latency.py finds the input by this label
ROWS, COLUMNS = 6, 2


def numbers(seed: int) -> pd.DataFrame:
    """Six rows of two numbers drawn from a private generator seeded with ``seed``, as text."""
    values = np.random.default_rng(seed).standard_normal((ROWS, COLUMNS))  # (6, 2)
    return pd.DataFrame(
        [[f"{v:.4f}" for v in row] for row in values],
        columns=[f"z{column + 1}" for column in range(COLUMNS)],
    )


def render() -> None:
    seed = st.sidebar.number_input(SEED_LABEL, min_value=0, max_value=2**53 - 1, value=123, step=1)
    st.table(numbers(int(seed)))


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
