"""The server imports the pages' modules before it accepts its first visitor (``app.py``)."""

from __future__ import annotations

import re

from tests.e2e.conftest import SharedApp


def test_modules_are_imported_before_the_server_is_healthy(streamlit_app: SharedApp) -> None:
    """Health answers only after the startup hook has imported torch, pandas, Plotly and the pages.

    ``start_streamlit`` returns as soon as ``/_stcore/health`` says "ok" and before any browser
    connects; the shared server's log was read right then, so the line must already be in it: no
    visitor's first run pays the imports.
    """
    log = streamlit_app.log_when_healthy
    assert re.search(r"Imported the pages' modules in \d+\.\d s", log), log
