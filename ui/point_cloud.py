"""The browser's side of a point cloud: a small component that draws labelled points as SVG.

Why not Plotly: a Plotly 3-D scatter makes a new visitor's browser load Plotly's large chunk and
start WebGL before the Embeddings page settles. This component receives a
:class:`viz.point_cloud.PointCloud` as JSON data and draws one ``<svg>`` with
``document.createElementNS`` and attributes:

- three features: an orthographic 3-D view. Dragging turns it (pointer events: mouse, pen and
  touch), as do the arrow keys when it has the focus; the three axes are drawn through the origin
  and named; points are drawn back to front (nearer ones opaque), each with a thin line from the
  origin (an embedding is a vector) while they carry labels (at most
  ``viz.point_cloud.MAX_LABELLED_POINTS``). A "Reset view" button turns it back.
- two features: a plane with equal scales; one feature: a strip.

A point's ``<title>`` (the hover, or a long press) names its token and numbers. The element keeps
its nodes across reruns: new data redraws them in place, the same data changes nothing, and the
view's rotation stays as the user left it. It follows its container's width (``ResizeObserver``).
A "Download as SVG" link (part of the same element) serializes the drawing as it is shown.

Safety: the JavaScript (``ui/components/point_cloud.js``, with ``shared.js``) is this
project's own, fixed code. Token labels and every other text arrive as JSON *data* and are only
ever assigned to ``textContent``: a token ``<b>x</b>`` or ``**x**`` is shown exactly as typed.
No ``innerHTML`` anywhere.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from viz.point_cloud import PointCloud

from .components import define

CLOUD_CLASS = "al-cloud"  # the <svg>'s class: the component's CSS and the browser tests find it

_COMPONENT = define("point_cloud", class_name=CLOUD_CLASS)  # point_cloud.js, .css


def draw_point_cloud(
    cloud: PointCloud,
    *,
    key: str,
    description: str,
    svg_label: str,
    reset_label: str,
    file_name: str,
) -> None:
    """Draw ``cloud`` as the element keyed ``al-cloud-{key}``.

    ``description``: the drawing's accessible name (``aria-label``); ``svg_label``: the text of
    the link that downloads the drawing as ``file_name``; ``reset_label``: the button that turns
    a 3-D view back to where it started. The key stays the same across reruns so that the
    element, and the rotation the user gave it, are kept.
    """
    data = {
        **_cloud_data(cloud),
        "description": description,
        "svg_label": svg_label,
        "reset_label": reset_label,
        "file_name": file_name,
    }
    _COMPONENT(data=data, key=f"{CLOUD_CLASS}-{key}")


@lru_cache(maxsize=8)
def _cloud_data(cloud: PointCloud) -> dict[str, Any]:
    """``cloud.to_data()``, once per cloud: a seed change reruns the page with the same points."""
    return cloud.to_data()
