"""The server imports the pages' modules before it accepts its first visitor (``app.py``)."""

from __future__ import annotations

import re

from tests.e2e.server import DEFAULT_APP, start_streamlit


def test_modules_are_imported_before_the_server_is_healthy() -> None:
    """Health answers only after the startup hook has imported torch, pandas, Plotly and the pages.

    ``start_streamlit`` returns as soon as ``/_stcore/health`` says "ok" and before any browser
    connects, so the line must already be in the log: no visitor's first run pays the imports.
    """
    with start_streamlit(DEFAULT_APP) as server:
        log = server.read_log()
    assert re.search(r"Imported the pages' modules in \d+\.\d s", log), log
