"""Attention Lab: see causal self-attention with dropout, step by step.

Run with ``streamlit run app.py``. Streamlit finds the ``st.App`` below and serves ``lab.py`` (the
script every visit runs: the frame and the page it chooses) with its own server.

Why an ``st.App`` and not ``lab.py`` directly: Streamlit imports a script's modules when the
script first runs, so on a fresh server the first visitor would wait for torch, pandas and Plotly
(``benchmarks/README.md``, "First visits"). The ``lifespan`` below is Streamlit's public startup
hook (it runs once, before the server accepts its first connection, so ``/_stcore/health``
answers only once the imports are done): it imports every page, and with them every module the
pages use, and freezes those objects out of the garbage collector's way
(``ui.frame.import_every_page``). The first visit then only runs the frame and its page.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st
from streamlit.logger import get_logger

_LOG = get_logger("attention_lab.startup")


@asynccontextmanager
async def import_before_first_visit(_app: st.App) -> AsyncIterator[None]:
    """Import every page module before the server accepts visitors."""
    started = time.perf_counter()
    importlib.import_module("ui.frame").import_every_page()
    _LOG.info("Imported the pages' modules in %.1f s", time.perf_counter() - started)
    yield


app = st.App("lab.py", lifespan=import_before_first_visit)
