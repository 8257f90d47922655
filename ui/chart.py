"""The browser's side of a chart: one component that draws a :class:`viz.chart.Chart` or a
:class:`viz.chart.PointCloud`.

Why not Plotly for these: a Plotly chart costs the browser its large script on a page's first
visit and a full redraw on every change, where a chart of a few dozen lines, bars or points needs
neither (``benchmarks/README.md``, "One chart library"). This component receives the chart as
JSON data and builds one ``<svg>`` with ``document.createElementNS``: ticks, ranges and texts
were decided in Python (``viz.chart``); the JavaScript maps data to pixels and lays out texts (a
chart: the title wrapped, the legend below the plots, panels stacked when the element is narrow;
a cloud: its labels placed again on every turn, none on another).

A 3-D cloud is an orthographic view turned by dragging (pointer events: mouse, pen and touch) or
the arrow keys when it has the focus, with a "Reset view" button; its turn is kept across reruns.
The element keeps its nodes across reruns: the same data changes nothing, new data redraws in
place. It follows its container's width (``ResizeObserver``). A "Download as SVG" link (part of
the same element) serializes the drawing as it is shown, when it is used.

Safety: the JavaScript (``ui/components/chart.js``, with ``shared.js``) is this project's own,
fixed code. Everything from a user (token labels) arrives as JSON *data* and is only ever set as
``textContent`` or as an attribute value: never parsed as HTML or Markdown, so ``<script>`` or
``**x**`` in a label is shown as typed. No ``innerHTML`` anywhere.

Text and axis colours follow the theme (the element's computed text colour and font); they are
written on the SVG elements themselves, so the downloaded file looks like the page. Hover texts
are SVG ``<title>`` children: the browser's tooltips (a long press on a phone).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from viz.chart import Chart, PointCloud

from .components import define, file_name
from .i18n import t

CHART_CLASS = "al-chart"  # the <svg>'s class: the component's CSS and the browser tests find it

_COMPONENT = define("chart", class_name=CHART_CLASS)  # chart.js, .css


def draw_chart(chart: Chart | PointCloud, *, key: str) -> None:
    """Draw ``chart`` as the element keyed from ``key``, with a "Download as SVG" link.

    The file is named ``{key}.svg``. A component's key may not contain ``__`` (Streamlit's
    delimiter for its events): each becomes ``-``. The key must stay the same across reruns for
    a cloud to keep the turn the user gave it.
    """
    name = file_name(key, "chart")
    data = {
        **_chart_data(chart),
        "download_label": t("show.chart_svg"),
        "reset_label": t("show.chart_reset"),
        "file_name": f"{name}.svg",
        "element_id": f"{CHART_CLASS}-{name}",
    }
    _COMPONENT(data=data, key=f"{CHART_CLASS}-{key}".replace("__", "-"))


@lru_cache(maxsize=16)
def _chart_data(chart: Chart | PointCloud) -> dict[str, Any]:
    """``chart.to_data()``, once per chart: a seed change often reruns a page with the same one."""
    return chart.to_data()
