"""Charts (curves, bars, point clouds) are drawn by one library: ``viz.chart`` builds them,
``ui.chart`` draws them (matrices have theirs: ``test_one_matrix_renderer.py``).

Read from the source (no page is run): a page that imported Plotly or called ``st.plotly_chart``
itself would be a second chart library beside the first.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _imports_and_calls(path: Path) -> tuple[set[str], set[str]]:
    """The modules ``path`` imports and the names of the attributes it calls (``x.name(...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    calls: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            calls.add(node.func.attr)
    return modules, calls


def test_no_page_draws_with_plotly_itself() -> None:
    pages = sorted((REPO / "pages").glob("*.py"))
    assert len(pages) > 10
    for path in pages:
        modules, calls = _imports_and_calls(path)
        assert not [m for m in modules if m.split(".")[0] == "plotly"], path.name
        assert "plotly_chart" not in calls, path.name


def test_charts_have_one_component() -> None:
    drawers = {
        path.relative_to(REPO).as_posix()
        for folder in ("pages", "ui")
        for path in (REPO / folder).rglob("*.py")
        if "ui.chart" in _imports_and_calls(path)[0]
    }
    assert "pages/embeddings.py" in drawers and "pages/train.py" in drawers
    components = {path.stem for path in (REPO / "ui" / "components").glob("*.js")}
    assert "chart" in components and not components & {"svg_chart", "point_cloud"}
