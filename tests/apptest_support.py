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


def _matrix_block_tables(at: Any, key: str) -> list[Any]:
    """The table elements in the container of matrix ``key``: the matrix, then its legend row."""
    tables: list[Any] = []

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if isinstance(proto_id, str) and proto_id.endswith(f"-{MATRIX_PREFIX}{key}"):
            tables.extend(child for child in node.children.values() if child.type == "table")
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    assert tables, f"no matrix table {key!r}"
    return tables


def matrix_legend(at: Any, key: str) -> pd.DataFrame | None:
    """The legend row under matrix table ``key`` (scale name, sample values, special cells)."""
    tables = _matrix_block_tables(at, key)
    return tables[1].value if len(tables) > 1 else None


def matrix_cell_styles(
    at: Any, key: str, *, legend: bool = False
) -> dict[tuple[int, int], dict[str, str]]:
    """The CSS of each cell of the matrix table ``key``: ``{(row, col): {"background-color": …}}``.

    ``legend=True``: of its legend row instead. Read from the ``Styler`` rules Streamlit sends
    (``#T_<uuid>_row{i}_col{j} { … }``); pandas writes cells of the same CSS as one rule with
    several selectors (``#T_…_row0_col1, #T_…_row0_col2 { … }``), so every selector of a rule
    gets its declarations.
    """
    table = _matrix_block_tables(at, key)[1 if legend else 0]
    styles: dict[tuple[int, int], dict[str, str]] = {}
    for rule in table.proto.arrow_data.styler.styles.splitlines():
        match = re.search(r"^(.*)\{(.*)\}", rule)
        if not match:
            continue
        declarations = [part.split(":", 1) for part in match.group(2).split(";") if ":" in part]
        css = {name.strip(): value.strip() for name, value in declarations}
        for row, col in re.findall(r"_row(\d+)_col(\d+)\b", match.group(1)):
            styles[(int(row), int(col))] = dict(css)
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
