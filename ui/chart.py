"""The browser's side of a chart: one component draws a :class:`viz.chart.Chart` or a
:class:`viz.chart.PointCloud` as one ``<svg>``.

Ticks, ranges and texts are decided in Python (``viz.chart``); the JavaScript maps data to pixels
and lays out texts, keeps its nodes across reruns (new data redraws in place), follows its
container's width, turns a 3-D cloud by dragging or arrow keys (its turn kept across reruns) and
offers "Download as SVG". Hover texts are SVG ``<title>`` children; colours follow the theme.

Safety: ``ui/components/chart.js`` is this project's fixed code. A user's text (token labels)
arrives as JSON data and is only set as ``textContent`` or an attribute value, never parsed as
HTML or Markdown; no ``innerHTML`` anywhere.
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
