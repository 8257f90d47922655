"""Smoke test of the e2e infrastructure on a tiny throwaway Streamlit script."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from tests.e2e.server import start_streamlit

TINY_APP = """\
import streamlit as st

st.title("hello")
x = st.slider("x", 0, 10, 3, key="x")
st.write(f"x is {x}")
"""


def test_server_browser_and_helpers(tmp_path: Path, page: Page) -> None:
    """Own server + Chromium: title renders, a widget rerun settles, no exception."""
    script = tmp_path / "tiny_app.py"
    script.write_text(TINY_APP, encoding="utf-8")
    started = time.monotonic()
    with start_streamlit(script, log_path=tmp_path / "streamlit.log") as server:
        print(f"server healthy after {time.monotonic() - started:.1f} s at {server.url}")
        open_app(page, server.url)
        expect(page.get_by_role("heading", name="hello")).to_be_visible()
        expect(page.get_by_text("x is 3")).to_be_visible()

        page.get_by_role("slider").focus()
        page.keyboard.press("ArrowRight")
        wait_settled(page)
        # No auto-retry here: wait_settled itself must have waited for the rerun.
        assert page.get_by_text("x is 4").count() == 1
        assert_no_exception(page)
    assert server.process.poll() is not None, "server still running after the block"
