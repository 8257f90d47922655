"""Helpers for fast ``AppTest`` tests of the pages, frame included."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
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


MATRIX_PREFIX = "matrix_"  # ui.show.show_matrix_table: the table's container key


def matrix_tables(at: Any) -> dict[str, pd.DataFrame]:
    """Every matrix drawn as a coloured table, by the ``key`` given to ``show_matrix``.

    Each value is the table as the page shows it: token labels (Markdown-escaped) and the cell
    texts (``"0.3111"``, ``"−∞"``, ``"✓"``). ``at`` is an AppTest or any block of its tree.
    """
    tables: dict[str, pd.DataFrame] = {}

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if isinstance(proto_id, str) and f"-{MATRIX_PREFIX}" in proto_id:
            key = proto_id.split(f"-{MATRIX_PREFIX}", 1)[1]
            found = [child for child in node.children.values() if child.type == "table"]
            tables[key] = found[0].value
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    return tables


def matrix_cell_styles(at: Any, key: str) -> dict[tuple[int, int], dict[str, str]]:
    """The CSS of each cell of the matrix table ``key``: ``{(row, col): {"background-color": …}}``.

    Read from the ``Styler`` rules Streamlit sends (``#T_<uuid>_row{i}_col{j} { … }``).
    """
    tables: list[Any] = []

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if isinstance(proto_id, str) and proto_id.endswith(f"-{MATRIX_PREFIX}{key}"):
            tables.extend(child for child in node.children.values() if child.type == "table")
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    assert tables, f"no matrix table {key!r}"
    styles: dict[tuple[int, int], dict[str, str]] = {}
    # pandas writes cells of equal style as one rule: "#T_x_row0_col1, #T_x_row2_col3 { … }"
    for rule in re.finditer(r"([^{}]*)\{([^{}]*)\}", tables[0].proto.arrow_data.styler.styles):
        declarations = [part.split(":", 1) for part in rule.group(2).split(";") if ":" in part]
        for row, col in re.findall(r"_row(\d+)_col(\d+)\b", rule.group(1)):
            styles[(int(row), int(col))] = {
                name.strip(): value.strip() for name, value in declarations
            }
    return styles


def table_numbers(frame: pd.DataFrame) -> np.ndarray:
    """A matrix table's cells as floats (−∞ as -inf; ``−`` is the typographic minus)."""
    return np.vectorize(lambda text: float(str(text).replace("−∞", "-inf").replace("−", "-")))(
        frame.to_numpy()
    )


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
