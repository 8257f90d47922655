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

Before any of that, the operator's limits are checked (``ui.limits``, listed in deploy/README.md):
a bad value stops the process with one line naming it, before the server takes a visitor. The
app also serves ``/metrics``, the replica's load in Prometheus' text format (``ui.metrics``), and
``/al-assets/…``, the app's components' JavaScript and CSS (``ui.components``).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from streamlit.logger import get_logger

from ui.components import ASSET_PATH
from ui.limits import stop_on_bad_limits

LIMITS = stop_on_bad_limits()  # exits with a message if an ATTENTION_LAB_* limit is bad
_LOG = get_logger("attention_lab.startup")


@asynccontextmanager
async def import_before_first_visit(_app: st.App) -> AsyncIterator[None]:
    """Import every page module before the server accepts visitors."""
    started = time.perf_counter()
    importlib.import_module("ui.frame").import_every_page()
    _LOG.info("Imported the pages' modules in %.1f s", time.perf_counter() - started)
    limits = {env.removeprefix("ATTENTION_LAB_").lower(): value for env, value in LIMITS.items()}
    importlib.import_module("ui.ops_log").event("server_started", **limits)
    yield


async def component_file(request: Request) -> Response:
    """A component's JavaScript or CSS (``ui.components.ASSETS``), kept by the browser for good."""
    found = importlib.import_module("ui.components").ASSETS.get(request.path_params["name"])
    if found is None:
        return PlainTextResponse("Not found", status_code=404)
    text, media_type = found
    return Response(text, media_type=media_type, headers={"Cache-Control": IMMUTABLE})


async def metrics(_request: Request) -> PlainTextResponse:
    """This replica's sessions, reruns, events, training queue and memory (``ui.metrics``)."""
    module = importlib.import_module("ui.metrics")
    return PlainTextResponse(module.render(), media_type=module.CONTENT_TYPE)


IMMUTABLE = "public, max-age=31536000, immutable"  # a file's name changes with its content
app = st.App(
    "lab.py",
    lifespan=import_before_first_visit,
    routes=[
        Route("/metrics", metrics),
        Route(ASSET_PATH + "{name}", component_file),
    ],
)
