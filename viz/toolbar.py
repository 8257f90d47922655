"""Room for Plotly's toolbar: a band at the top of every figure that nothing else is drawn in.

Plotly draws its toolbar (the "modebar": download, zoom, pan, reset…) over the top right corner of
a figure while the pointer is on it. The top of a figure is where the app writes titles, the key
axis of a heatmap (keys on top), legends and subplot titles; on a narrow figure the toolbar, about
220 px wide, covered them ("key", "feature"…).

:func:`leave_room_for_toolbar` keeps a band of :data:`TOOLBAR_BAND` pixels free at the top, in one
of two ways:

- what Plotly lays out itself (axes on top, their titles, the plot): the figure title is moved
  down by the band (``title.pad.t``) with ``title.automargin``, which makes Plotly *reserve* the
  space above the title and lay everything else out below it. A figure without a title gets a
  blank one, which holds the band all the same. (Plotly reserves it only when the title needs
  more than the figure's top margin, which a band of 30 px over a margin of 10 px does.)
- what a builder placed in the top margin by hand (a legend or subplot titles above the plot):
  Plotly does not move those, so the top margin itself grows by the band.

Either way the figure grows by the band, so the plot keeps its size.
"""

from __future__ import annotations

import plotly.graph_objects as go

TOOLBAR_BAND = 30  # px: Plotly's toolbar is 23 px high, 2 px from the top; plus a small gap
BLANK_TITLE = " "  # a title of one space: no text, but Plotly reserves its place
DEFAULT_HEIGHT = 450  # Plotly's height of a figure that sets none
DEFAULT_TOP_MARGIN = 100  # Plotly's top margin of a figure that sets none


def leave_room_for_toolbar(figure: go.Figure) -> go.Figure:
    """Reserve the top :data:`TOOLBAR_BAND` pixels of ``figure`` for Plotly's toolbar.

    Returns the same figure (changed in place), taller by the band. Applying it twice changes
    nothing more (the band is recorded in ``layout.meta``).
    """
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}
    if meta.get("toolbar_band"):
        return figure
    title = figure.layout.title
    blank = title is None or not title.text
    text = BLANK_TITLE if blank else title.text
    top = figure.layout.margin.t if figure.layout.margin.t is not None else DEFAULT_TOP_MARGIN
    figure.update_layout(
        title={
            "text": text,
            "automargin": True,  # the axes and the plot are laid out below the title
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
            "pad": {"t": TOOLBAR_BAND},
            **({"font": {"size": 1}} if blank else {}),  # a blank line takes (almost) no height
        },
        height=(figure.layout.height or DEFAULT_HEIGHT) + TOOLBAR_BAND,
        meta={**meta, "toolbar_band": TOOLBAR_BAND},
    )
    if placed_above_plot(figure):
        figure.update_layout(margin={"t": top + TOOLBAR_BAND})
    return figure


def placed_above_plot(figure: go.Figure) -> bool:
    """True if the builder drew something in the top margin by hand: a legend or subplot titles.

    (Annotations and legends positioned in paper coordinates at ``y >= 1``: Plotly's automatic
    margins do not move them, so the band must be added to the margin itself.)
    """
    layout = figure.layout
    legend_above = (
        layout.showlegend is not False and layout.legend.y is not None and layout.legend.y >= 1
    )
    notes_above = any(
        note.yref in (None, "paper") and note.y is not None and note.y >= 1
        for note in layout.annotations
    )
    return legend_above or notes_above
