"""Helpers for fast ``AppTest`` tests of the pages, frame included."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
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


def plotly_figures(at: AppTest) -> dict[str, dict[str, Any]]:
    """Every Plotly chart of a run as its figure dict, by the ``key`` given to ``show_figure``."""
    figures: dict[str, dict[str, Any]] = {}
    for element in at.get("plotly_chart"):
        proto = element.proto  # type: ignore[attr-defined]
        key = proto.id.split("-", 2)[-1] if proto.id.startswith("$$ID-") else proto.id
        figures[key] = json.loads(proto.spec)
    return figures


def figure_array(value: Any) -> np.ndarray:
    """A data array of a figure dict as NumPy: Plotly may send arrays as base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape is not None:
            dims = [int(n) for n in str(shape).split(",")] if isinstance(shape, str) else shape
            array = array.reshape(dims)
        return array
    return np.asarray(value, dtype=np.float64)


def open_step_tab(at: AppTest, key: str, name: str) -> AppTest:
    """Open the tab of step ``name`` (``attention.steps``) of the step tabs ``key``, then rerun.

    The step tabs keep their open tab's label in the session state (``ui.step_view.show_steps``),
    so setting it is what a click on the tab does; only the open tab's step is drawn.
    """
    from attention.steps import step_number

    prefix = f"{step_number(name)} · "
    (label,) = [tab.label for tab in at.tabs if tab.label.startswith(prefix)]
    at.session_state[key] = label
    return at.run()
