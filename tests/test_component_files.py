"""The components' JavaScript and CSS are files in ``ui/components/``, joined with ``shared.js``.

Each element carries only a small loader; the file it loads is exactly ``shared.js`` (once) and
then the component's own file, with its class put in, named by its content; no file writes HTML
from a string; the helpers of ``shared.js`` are written there only; and no Python string in
``ui/`` holds a component's code.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from ui import chart, components, link_check, matrix_table, phone, step_link

CLASSES = {  # the components moved to files, with the class their Python module declares
    "matrix_table": matrix_table.TABLE_CLASS,
    "chart": chart.CHART_CLASS,
    "phone": phone.PHONE_CLASS,
    "link_check": link_check.LINK_CHECK_CLASS,
    "step_link": step_link.KEYS_CLASS,
}
PAGE_WIDE_CSS = {"phone", "step_link"}  # style Streamlit's own elements (touch targets, a deck)
WITHOUT_CSS = {"link_check"}  # draws nothing, so it has no look
FOLDER = components.FOLDER
UI = FOLDER.parent
# what only shared.js does: elements, observers, files (a component calls its helpers instead)
SHARED_ONLY = (
    "createElementNS(",
    "new ResizeObserver(",
    "new XMLSerializer(",
    "encodeURIComponent(",
)


def _draw_each_component() -> None:
    """An app drawing one of each component, through the functions the pages call."""
    from ui.chart import draw_chart
    from ui.link_check import unread_link_fields
    from ui.matrix_table import draw_table
    from ui.phone import phone_support
    from viz.chart import Axis, Chart, Line, Panel, point_cloud
    from viz.table_heatmap import Cell, ColouredTable

    draw_table(ColouredTable(cells=((Cell("1", "#ffffff", "#000000"),),)), key="files")
    phone_support()
    unread_link_fields()
    axis = Axis(title="x", range=(0.0, 1.0), ticks=(0.0, 1.0), tick_labels=("0", "1"))
    line = Line(x=(0.0, 1.0), y=(0.0, 1.0), color="#000000")
    draw_chart(Chart(panels=(Panel(x=axis, y=axis, series=(line,)),)), key="files")
    cloud = point_cloud([[0.1, 0.2], [0.3, 0.4]], ["a", "b"], palette="default")
    draw_chart(cloud, key="files_cloud")
    from ui.step_link import step_keys

    step_keys(present=False, tabs_key="files_tabs", scroll=0)


def _sent_components(at: AppTest) -> dict[str, Any]:
    """The component elements of a run (their protos), by component name."""
    found: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if getattr(node, "type", "") == "bidi_component":
            found[node.proto.component_name] = node.proto
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def _file(name: str, class_name: str) -> str:
    text = (FOLDER / name).read_text(encoding="utf-8").replace("__CLASS__", class_name)
    canvas = {"__W__": str(step_link.CANVAS[0]), "__H__": str(step_link.CANVAS[1])}
    return text if not name.startswith("step_link.") else _filled(text, canvas)


def _filled(text: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def _asset_names(loader_js: str) -> list[str]:
    return re.findall(r'"([\w.-]+\.(?:js|css))"', loader_js)


def test_each_element_sends_a_loader_and_the_files_hold_shared_js_once_then_the_component() -> None:
    at = AppTest.from_function(_draw_each_component, default_timeout=60).run()
    assert not at.exception
    sent = _sent_components(at)
    shared = (FOLDER / components.SHARED_JS).read_text(encoding="utf-8")
    for stem, class_name in CLASSES.items():
        proto = sent[f"{components.PROJECT}.{stem}"]
        assert len(proto.js_content) < 1000 and not proto.css_content, stem  # the loader only
        names = _asset_names(proto.js_content)
        js = components.ASSETS[next(n for n in names if n.endswith(".js"))][0]
        own = _file(f"{stem}.js", class_name)
        assert js == components.LOADED_JS[stem], stem
        assert js.count(shared) == 1, f"{stem}: shared.js is not in its JavaScript exactly once"
        assert js.index(shared) < js.index(own) and js.count(own) == 1, stem
        assert js.count("export default function") == 1, stem
        assert "__CLASS__" not in js and f"'{class_name}'" in js, stem
        css_names = [n for n in names if n.endswith(".css")]
        if stem in WITHOUT_CSS:
            assert not (FOLDER / f"{stem}.css").exists() and not css_names, stem
            continue
        css = components.ASSETS[css_names[0]][0]
        assert css == _file(f"{stem}.css", class_name), stem
        assert "__CLASS__" not in css
        assert stem in PAGE_WIDE_CSS or f".{class_name}" in css, stem


def test_a_files_name_changes_with_its_content() -> None:
    first = components.loader("a.js", "a.css")
    assert first != components.loader("b.js", "a.css")
    for stem in CLASSES:
        js_names = [n for n in components.ASSETS if n.startswith(f"{stem}.") and n.endswith(".js")]
        assert len(js_names) == 1, stem  # one version of a file per server process
        digest = js_names[0].split(".")[1]
        text = components.ASSETS[js_names[0]][0]
        assert hashlib.sha256(text.encode()).hexdigest().startswith(digest), stem


def test_no_component_file_writes_html_from_a_string() -> None:
    files = sorted(FOLDER.glob("*.js"))
    assert {path.stem for path in files} == {*CLASSES, Path(components.SHARED_JS).stem}
    html_writers = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(")
    for path in files:
        found = html_writers.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} writes HTML or code from a string: {found}"


def test_shared_helpers_are_written_once() -> None:
    shared = (FOLDER / components.SHARED_JS).read_text(encoding="utf-8")
    helpers = set(re.findall(r"^(?:function|const) (\w+)", shared, flags=re.MULTILINE))
    assert {"svgNode", "htmlNode", "observeResize", "svgDataUrl", "hrefOnUse"} <= helpers
    for stem in CLASSES:
        own = (FOLDER / f"{stem}.js").read_text(encoding="utf-8")
        declared = set(re.findall(r"(?:function|const|let) (\w+)\b", own))
        assert not declared & helpers, f"{stem}.js declares shared helpers again"
        assert not [call for call in SHARED_ONLY if call in own], f"{stem}.js: use shared.js"


def test_no_python_string_in_ui_holds_a_components_javascript() -> None:
    for path in sorted(UI.rglob("*.py")):
        strings = [
            node.value
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        ]
        assert not [s for s in strings if "export default function" in s], path


def test_the_files_route_follows_the_servers_base_path() -> None:
    from streamlit import config

    assert components.ASSET_PATH == "/al-assets/"  # the default server: at the root
    before = config.get_option("server.baseUrlPath")
    try:
        config.set_option("server.baseUrlPath", "/lab/")  # served at https://host/lab/
        assert components._asset_path() == "/lab/al-assets/"
    finally:
        config.set_option("server.baseUrlPath", before)
