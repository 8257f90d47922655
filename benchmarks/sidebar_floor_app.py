"""The sidebar floor of ``benchmarks/latency.py``: the floor's 6×2 table under the app's own sidebar.

Not part of the app. The same table as ``benchmarks/floor_app.py`` (six rows of two numbers drawn
from the seed, as ``st.table``), but the seed is the app's: the whole shared sidebar of
``ui.sidebar.render_sidebar`` is drawn, with its session set up as the app does
(``ui.url.init_session``). No page, no trace, no figure. A seed change here costs what the
sidebar adds to any page of the app: if it is above a goal, no page with the sidebar can meet
that goal, whatever the page draws.

Run it alone with ``streamlit run benchmarks/sidebar_floor_app.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.floor_app import numbers  # noqa: E402
from ui.sidebar import render_sidebar  # noqa: E402
from ui.url import init_session  # noqa: E402


def render() -> None:
    st.set_page_config(page_title="Sidebar floor", layout="wide")
    init_session()
    render_sidebar("step")
    st.table(numbers(int(st.session_state["seed"])))


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
