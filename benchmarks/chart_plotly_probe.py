"""The Plotly side of ``chart_ab.py``'s comparison (issue 39): the app's charts as lean Plotly.

``chart_figure`` turns a chart of the app (``viz.chart.Chart``; at the time of the measurement
``viz.svg_chart.Chart``) into a ``go.Figure`` showing the same series (lines, bars, arrows as
annotations, points, labels, rules, the legend), ``cloud_figure`` a point cloud (``Scatter3d``
for three features, a plane or a strip otherwise), ``config`` the lean Plotly config:
no toolbar, no zoom (fixed ranges), no double click; ``AL_PROBE_MODE=static`` makes the figure a
static image (``staticPlot``, no hover), ``gl`` draws curves with ``Scattergl``.

The measured checkout was main at 3bd6a96 with this file as ``viz/plotly_probe.py`` and these
lines at the top of ``ui.svg_chart.draw_chart`` (and alike in ``ui.point_cloud.draw_point_cloud``
with ``cloud_figure``); ``AL_PROBE_MODE=none`` draws no chart at all (the "bare" page)::

    import os
    import streamlit as st
    if os.environ.get("AL_PROBE_MODE") == "none":
        return
    from viz.plotly_probe import chart_figure, config
    key = f"{CHART_CLASS}-{key}".replace("__", "-")
    st.plotly_chart(chart_figure(chart), key=key, config=config(key), width="stretch")
    return
"""

from __future__ import annotations

import math
import os

import plotly.graph_objects as go
from plotly.subplots import make_subplots

MODE = os.environ.get("AL_PROBE_MODE", "lean")  # lean | static | gl
DASH = {"solid": "solid", "dash": "dash", "dot": "dot"}
SYMBOL = {"circle": "circle", "star": "star", "ring": "circle-open-dot"}


def _val(v):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def _axis_layout(axis) -> dict:
    rng = [math.log10(axis.range[0]), math.log10(axis.range[1])] if axis.log else list(axis.range)
    return {
        "title": {"text": axis.title},
        "range": rng,
        "type": "log" if axis.log else "linear",
        "tickmode": "array",
        "tickvals": list(axis.ticks),
        "ticktext": list(axis.tick_labels),
        "zeroline": axis.zero_line,
        "fixedrange": True,
        "showline": True,
        "mirror": True,
    }


def chart_figure(chart) -> go.Figure:
    n = len(chart.panels)
    fig = make_subplots(rows=1, cols=n, subplot_titles=[p.title for p in chart.panels])
    scatter = go.Scattergl if MODE == "gl" else go.Scatter
    annotations = list(fig.layout.annotations)
    shapes = []
    for col, panel in enumerate(chart.panels, start=1):
        xref = "x" if col == 1 else f"x{col}"
        yref = "y" if col == 1 else f"y{col}"
        for s in panel.series:
            if s.kind == "line":
                fig.add_trace(
                    scatter(
                        x=list(s.x),
                        y=[_val(v) for v in s.y],
                        mode="lines+markers" if s.markers else "lines",
                        line={"color": s.color, "width": s.width, "dash": DASH[s.dash]},
                        marker={"size": [2 * r for r in s.markers]} if s.markers else None,
                        opacity=s.opacity,
                        hovertext=list(s.hover) or None,
                        hoverinfo="text" if s.hover else "skip",
                        showlegend=False,
                    ),
                    row=1,
                    col=col,
                )
            elif s.kind == "bars":
                fig.add_trace(
                    go.Bar(
                        x=list(s.x),
                        y=list(s.y),
                        width=s.width,
                        marker_color=list(s.colors),
                        text=list(s.texts) or None,
                        textposition="outside",
                        hovertext=list(s.hover) or None,
                        hoverinfo="text" if s.hover else "skip",
                        showlegend=False,
                    ),
                    row=1,
                    col=col,
                )
            elif s.kind == "points":
                fig.add_trace(
                    scatter(
                        x=list(s.x),
                        y=list(s.y),
                        mode="markers",
                        marker={
                            "color": s.color,
                            "size": [2 * r for r in s.sizes],
                            "symbol": SYMBOL[s.symbol],
                            "opacity": list(s.opacities) or None,
                        },
                        hovertext=list(s.hover) or None,
                        hoverinfo="text" if s.hover else "skip",
                        showlegend=False,
                    ),
                    row=1,
                    col=col,
                )
            elif s.kind == "arrow":
                annotations.append(
                    {
                        "x": s.end[0],
                        "y": s.end[1],
                        "ax": s.start[0],
                        "ay": s.start[1],
                        "xref": xref,
                        "yref": yref,
                        "axref": xref,
                        "ayref": yref,
                        "showarrow": True,
                        "arrowhead": 2 if s.head else 0,
                        "arrowwidth": s.width,
                        "arrowcolor": s.color,
                        "opacity": s.opacity,
                        "text": "",
                        "hovertext": s.hover or None,
                    }
                )
            elif s.kind == "label":
                annotations.append(
                    {
                        "x": s.at[0],
                        "y": s.at[1],
                        "xref": xref,
                        "yref": yref,
                        "text": s.text,
                        "showarrow": False,
                        "xshift": s.offset[0],
                        "yshift": -s.offset[1],
                        "font": {"size": s.size, "color": s.color or None},
                        "bgcolor": "rgba(255,255,255,0.85)" if s.boxed else None,
                        "hovertext": s.hover or None,
                    }
                )
            elif s.kind == "rule":
                if s.axis == "x":
                    shapes.append(
                        {
                            "type": "line",
                            "xref": xref,
                            "yref": f"{yref} domain",
                            "x0": s.value,
                            "x1": s.value,
                            "y0": 0,
                            "y1": 1,
                            "line": {"color": s.color, "dash": DASH[s.dash], "width": s.width},
                        }
                    )
                else:
                    shapes.append(
                        {
                            "type": "line",
                            "xref": f"{xref} domain",
                            "yref": yref,
                            "x0": 0,
                            "x1": 1,
                            "y0": s.value,
                            "y1": s.value,
                            "line": {"color": s.color, "dash": DASH[s.dash], "width": s.width},
                        }
                    )
        fig.update_xaxes(**_axis_layout(panel.x), row=1, col=col)
        fig.update_yaxes(**_axis_layout(panel.y), row=1, col=col)
        if panel.equal_aspect:
            fig.update_yaxes(scaleanchor=xref, scaleratio=1, row=1, col=col)
    for entry in chart.legend:
        fig.add_trace(
            scatter(
                x=[None],
                y=[None],
                name=entry.name,
                mode="lines" if entry.swatch in ("line", "arrow") else "markers",
                line={"color": entry.color, "dash": DASH[entry.dash]},
                marker={"color": entry.color, "symbol": SYMBOL.get(entry.swatch, "square")},
                showlegend=True,
            )
        )
    fig.update_layout(
        title={"text": chart.title},
        annotations=annotations,
        shapes=shapes,
        height=chart.height + 140,
        margin={"l": 50, "r": 10, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.25},
        hovermode="closest",
        dragmode=False,
    )
    return fig


def cloud_figure(cloud) -> go.Figure:
    pts = cloud.points
    mode = "markers+text" if cloud.show_labels else "markers"
    text = list(cloud.labels) if cloud.show_labels else None
    hover = [h.replace("\n", "<br>") for h in cloud.hovers]
    if cloud.dims == 3:
        trace = go.Scatter3d(
            x=[p[0] for p in pts],
            y=[p[1] for p in pts],
            z=[p[2] for p in pts],
            mode=mode,
            text=text,
            hovertext=hover,
            hoverinfo="text",
            marker={"size": 5, "color": cloud.point_colour},
        )
        ax = [
            {
                "title": {"text": a.title},
                "range": [a.low, a.high],
                "tickvals": list(a.ticks),
                "ticktext": list(a.tick_texts),
            }
            for a in cloud.axes
        ]
        fig = go.Figure(trace)
        fig.update_layout(
            scene={"xaxis": ax[0], "yaxis": ax[1], "zaxis": ax[2], "aspectmode": "cube"},
            height=480,
            margin={"l": 0, "r": 0, "t": 10, "b": 0},
        )
        return fig
    scatter = go.Scattergl if MODE == "gl" else go.Scatter
    fig = go.Figure(
        scatter(
            x=[p[0] for p in pts],
            y=[p[1] if cloud.dims == 2 else 0 for p in pts],
            mode=mode,
            text=text,
            textposition=["top center" if a else "bottom center" for a in cloud.label_above],
            hovertext=hover,
            hoverinfo="text",
            marker={"size": 10, "color": cloud.point_colour},
        )
    )
    ax = cloud.axes[0]
    fig.update_xaxes(
        range=[ax.low, ax.high],
        tickvals=list(ax.ticks),
        ticktext=list(ax.tick_texts),
        title=ax.title,
        fixedrange=True,
    )
    if cloud.dims == 2:
        ay = cloud.axes[1]
        fig.update_yaxes(
            range=[ay.low, ay.high],
            tickvals=list(ay.ticks),
            ticktext=list(ay.tick_texts),
            title=ay.title,
            scaleanchor="x",
            fixedrange=True,
        )
    else:
        fig.update_yaxes(visible=False, fixedrange=True)
    fig.update_layout(
        height=420 if cloud.dims == 2 else 190, margin={"l": 40, "r": 10, "t": 10, "b": 40}
    )
    return fig


def config(key: str) -> dict:
    if MODE == "static":
        return {"staticPlot": True, "displayModeBar": False}
    return {
        "displayModeBar": False,
        "scrollZoom": False,
        "doubleClick": False,
        "toImageButtonOptions": {"format": "svg", "filename": key},
    }
