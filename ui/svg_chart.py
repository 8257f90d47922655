"""The browser's side of a small chart: a component that draws a :class:`viz.svg_chart.Chart`.

Why not Plotly for these: a Plotly chart costs the browser its large script on a page's first
visit and a full redraw on every change, where a chart of a few dozen lines and bars needs
neither. This component receives the chart as JSON data and builds one ``<svg>`` with
``document.createElementNS``: ticks, ranges and texts were decided in Python
(``viz.svg_chart``); the JavaScript maps data to pixels, lays out texts (wrapping the title,
the legend below the plots, panels stacked when the element is narrow) and redraws in place
when the data or the element's width changes.

Safety: the JavaScript (``ui/components/svg_chart.js``, with ``shared.js``) is this project's
own, fixed code. Everything from a user (token labels) arrives as JSON *data* and is only ever
set as ``textContent`` or as an attribute value: never parsed as HTML or Markdown, so
``<script>`` or ``**x**`` in a label is shown as typed. No ``innerHTML`` anywhere.

Text and axis colours follow the theme (the element's computed text colour and font); they are
written on the SVG elements themselves, so the "Download as SVG" link under the chart (an
``XMLSerializer`` copy of the drawn SVG as a ``data:`` URL, named from the key) gives a file
that looks like the page. Hover texts are SVG ``<title>`` children: the browser's tooltips.
"""

from __future__ import annotations

from viz.svg_chart import Chart

from .components import define, file_name
from .i18n import t

CHART_CLASS = "al-chart"  # the <svg>'s class: the component's CSS and the browser tests find it

_COMPONENT = define("svg_chart", class_name=CHART_CLASS)  # svg_chart.js, .css


def draw_chart(chart: Chart, *, key: str) -> None:
    """Draw ``chart`` as the element keyed from ``key``, with a "Download as SVG" link.

    The file is named ``{key}.svg``. A component's key may not contain ``__`` (Streamlit's
    delimiter for its events): each becomes ``-``.
    """
    name = file_name(key, "chart")
    data = {
        **chart.to_data(),
        "download_label": t("show.chart_svg"),
        "file_name": f"{name}.svg",
        "element_id": f"{CHART_CLASS}-{name}",
    }
    _COMPONENT(data=data, key=f"{CHART_CLASS}-{key}".replace("__", "-"))
