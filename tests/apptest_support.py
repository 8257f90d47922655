"""Helpers for fast ``AppTest`` tests of the pages, frame included."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parent.parent
HARNESS = str(REPO_ROOT / "tests" / "page_harness.py")


def run_page(
    page: str = "step", query: dict[str, str] | None = None, timeout: float = 60
) -> AppTest:
    """Run the app on ``page`` (a name of ``ui.frame.PAGE_SPECS``), with URL ``query`` params."""
    at = AppTest.from_file(HARNESS, default_timeout=timeout)
    at.session_state["harness_page"] = page
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def page_text(at: AppTest) -> str:
    """All markdown, captions, tables and messages of a run as one string (for assertions)."""
    parts: list[str] = []
    for kind in (
        "markdown",
        "caption",
        "title",
        "header",
        "subheader",
        "error",
        "warning",
        "info",
        "success",
        "latex",
        "code",
    ):
        parts.extend(str(element.value) for element in getattr(at, kind))
    parts.extend(table.value.to_string() for table in at.table)
    return "\n".join(parts)
