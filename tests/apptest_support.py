"""Helpers for fast ``AppTest`` tests of the pages, frame included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parent.parent
HARNESS = str(REPO_ROOT / "tests" / "page_harness.py")
# Pages whose sidebar must show the seed, the dropout slider and the sentence (the browser's walk
# of every page and the AppTest of every page in Chinese both check them there).
SETTINGS_PAGES = ("masking", "one_query", "step")


def run_page(
    page: str = "step", query: dict[str, str] | None = None, timeout: float = 180
) -> AppTest:
    """Run the app on ``page`` (a name of ``ui.frame.PAGE_SPECS``), with URL ``query`` params.

    ``timeout`` bounds each run in seconds: a page run takes about a second, a training a few;
    the bound is for a machine busy with the other workers' browsers and servers, not a budget.
    """
    at = AppTest.from_file(HARNESS, default_timeout=timeout)
    at.session_state["harness_page"] = page
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def page_text(at: AppTest) -> str:
    """All markdown, captions, tables, matrix titles and messages of a run as one string."""
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
    for data in matrix_components(at).values():  # a matrix's title and note are its own texts
        parts.extend(text for text in (data.get("title"), data.get("note")) if text)
    return "\n".join(parts)


def svg_charts(at: Any) -> dict[str, dict[str, Any]]:
    """Every chart of a run drawn by ``ui.chart.draw_chart``, its data by the key given."""
    charts: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if getattr(node, "type", "") == "bidi_component" and "al-chart-" in proto_id:
            charts[proto_id.split("al-chart-", 1)[1]] = json.loads(node.proto.json)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    return charts


def chart_series(at: Any, key: str, kind: str, panel: int = 0) -> list[dict[str, Any]]:
    """The series of ``kind`` (``line``, ``bars``, ``arrow`` …) of chart ``key``'s panel."""
    series = svg_charts(at)[key]["panels"][panel]["series"]
    return [item for item in series if item["kind"] == kind]


def context_rows(at: AppTest) -> list[list[str]]:
    """The step page's always-visible context table (columns z1, z2, …), as text."""
    for table in at.table:
        frame = table.value
        columns = [str(c) for c in frame.columns]
        if columns and columns == [f"z{m + 1}" for m in range(len(columns))]:
            return frame.astype(str).values.tolist()
    raise AssertionError("no context table (z1, z2, …) on the page")


MATRIX_PREFIX = "matrix_"  # ui.matrix_table.MATRIX_PREFIX: a matrix's element key


def _table_data(element: Any) -> dict[str, Any]:
    """The data a matrix component received (``ui.matrix_table``): a table's labels, cells and
    colours, or a picture's (``"image"``), and the legend row's table (``"legend"``)."""
    return json.loads(element.proto.json)


def _as_frame(data: dict[str, Any]) -> pd.DataFrame:
    """A table's texts as a DataFrame labelled as the page shows it (labels exactly as typed)."""
    texts = [[cell["text"] for cell in row] for row in data["cells"]]
    frame = pd.DataFrame(texts, columns=data["columns"] or None)
    if data["rows"]:
        frame.index = pd.Index(data["rows"], name=data["corner"])
    return frame


def matrix_components(at: Any) -> dict[str, dict[str, Any]]:
    """The one component element of each matrix (``ui.show``), by ``show_matrix`` key: its data.

    A component's key has no ``__`` (``ui.matrix_table`` writes ``-``, which a key never holds),
    so a zoom window's key (``{key}__zoom``) is read back from ``{key}-zoom``.
    """
    blocks: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if getattr(node, "type", "") == "bidi_component" and f"-{MATRIX_PREFIX}" in proto_id:
            key = proto_id.split(f"-{MATRIX_PREFIX}", 1)[1].replace("-", "__")
            assert key not in blocks, f"two matrices keyed {key!r}"
            blocks[key] = _table_data(node)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    return blocks


def _matrix_blocks(at: Any) -> dict[str, list[dict[str, Any]]]:
    """The tables of each matrix drawn as a table, by ``show_matrix`` key: matrix, then legend."""
    return {
        key: [data["table"]] + ([data["legend"]] if data["legend"] else [])
        for key, data in matrix_components(at).items()
        if data.get("table")
    }


def matrix_images(at: Any) -> dict[str, dict[str, Any]]:
    """Every matrix drawn as a picture, by ``show_matrix`` key: its data, legend row and title."""
    return {
        key: {**data["image"], "legend": data["legend"], "title": data.get("title", "")}
        for key, data in matrix_components(at).items()
        if data.get("image")
    }


def matrix_tables(at: Any) -> dict[str, pd.DataFrame]:
    """Every matrix drawn as a coloured table, by the ``key`` given to ``show_matrix``.

    Each value is the table as the page shows it: token labels (exactly as typed, told apart
    when repeated), the corner naming the axes and the cell texts (``"0.3111"``, ``"−∞"``,
    ``"✓"``). ``at`` is an AppTest or any block of its tree.
    """
    return {key: _as_frame(tables[0]) for key, tables in _matrix_blocks(at).items()}


def component_table_data(at: Any, key: str) -> dict[str, Any]:
    """The data of the table component drawn with ``ui.matrix_table.draw_table(..., key=key)``."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        proto_id = getattr(getattr(node, "proto", None), "id", "") or ""
        if getattr(node, "type", "") == "bidi_component" and proto_id.endswith(f"-{key}"):
            data = _table_data(node)
            found.append(data.get("table", data))  # a matrix component's table, or its own data
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree if hasattr(at, "_tree") else at)
    assert len(found) == 1, f"{len(found)} table components keyed {key!r}"
    return found[0]


def component_table(at: Any, key: str) -> pd.DataFrame:
    """The texts of the table component ``key`` as a DataFrame labelled as the page shows it."""
    return _as_frame(component_table_data(at, key))


def _matrix_block_tables(at: Any, key: str) -> list[dict[str, Any]]:
    tables = _matrix_blocks(at).get(key)
    assert tables, f"no matrix table {key!r}"
    return tables


def _matrix_table_data(at: Any, key: str, *, legend: bool) -> dict[str, Any]:
    """The data of matrix ``key``'s table, or of its legend row (``legend=True``)."""
    tables = _matrix_block_tables(at, key)
    assert len(tables) > (1 if legend else 0), f"matrix {key!r} has no legend"
    return tables[1 if legend else 0]


def matrix_description(at: Any, key: str, *, legend: bool = False) -> str:
    """What a screen reader says of matrix table ``key`` (its ``aria-label``), or of its legend."""
    return _matrix_table_data(at, key, legend=legend)["description"]


def matrix_legend(at: Any, key: str) -> pd.DataFrame | None:
    """The legend row under matrix table ``key`` (scale name, sample values, special cells)."""
    tables = _matrix_block_tables(at, key)
    return _as_frame(tables[1]) if len(tables) > 1 else None


def matrix_cell_styles(
    at: Any, key: str, *, legend: bool = False
) -> dict[tuple[int, int], dict[str, str]]:
    """The CSS of each cell of the matrix table ``key``: ``{(row, col): {"background-color": …}}``.

    ``legend=True``: of its legend row instead. Read from the data the table component draws
    (``background-color``, ``color``, ``text-align``; ``font-style`` where italic).
    """
    data = _matrix_table_data(at, key, legend=legend)
    styles: dict[tuple[int, int], dict[str, str]] = {}
    for i, row in enumerate(data["cells"]):
        for j, cell in enumerate(row):
            css = {
                "background-color": cell["background"],
                "color": cell["colour"],
                "text-align": cell["align"],
            }
            if cell["italic"]:
                css["font-style"] = "italic"
            styles[(i, j)] = css
    return styles


def table_numbers(frame: pd.DataFrame) -> np.ndarray:
    """A matrix table's cells as floats (−∞ as -inf; ``−`` is the typographic minus)."""
    return np.vectorize(lambda text: float(str(text).replace("−∞", "-inf").replace("−", "-")))(
        frame.to_numpy()
    )


def walk_labels(at: AppTest) -> list[str]:
    """The labels of the page's strip of steps (``ui.walk``: one segmented control), in order."""
    from ui.i18n import t

    names = {t("walk.strip_label", lang) for lang in ("en", "zh")}
    strips = [group for group in at.button_group if group.label in names]
    return list(strips[0].options) if strips else []


def open_step_tab(at: AppTest, key: str, name: str) -> AppTest:
    """Open step ``name`` (``attention.steps``) of the strip of steps ``key``, then rerun.

    The strip keeps its open step's label in the session state (``ui.walk``), so setting it is
    what a click on the step does; only the open step is drawn.
    """
    from attention.steps import step_number

    prefix = f"{step_number(name)} · "
    (label,) = [label for label in walk_labels(at) if label.startswith(prefix)]
    at.session_state[key] = label
    return at.run()
