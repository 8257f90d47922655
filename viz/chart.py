"""Charts as data: what the app's one chart component (``ui.chart``) draws.

A :class:`Chart` (a title, :class:`Panel` side by side, each with two :class:`Axis` and a few
series, and a legend) or a :class:`PointCloud` (the Embeddings page: one labelled point per token
in 3, 2 or 1 dimensions). Ranges, ticks, every mark and its hover text are decided here and
tested without a browser; the browser maps data to pixels and lays out texts.

Texts are plain text: the component sets them with ``textContent``, so no escaping is needed.
Series: :class:`Line`, :class:`Bars` (grouped bars offset here), :class:`Arrow`, :class:`Points`,
:class:`Label` (optionally boxed, with a leader line) and :class:`Rule`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale

from .colors import colorscale
from .labels import short, unique_labels
from .vocabulary import format_number, input_labels

MINUS = "−"  # the typographic minus sign of every tick label
GRID_COUNT = 5  # about this many ticks on a linear axis


@dataclass(frozen=True)
class Axis:
    """One axis: ``range`` in data units (a log axis too: its ends, not their logarithms)."""

    title: str
    range: tuple[float, float]
    ticks: tuple[float, ...]
    tick_labels: tuple[str, ...]
    log: bool = False
    minor: tuple[float, ...] = ()  # faint grid lines without labels
    zero_line: bool = False  # a darker line at 0


@dataclass(frozen=True)
class Line:
    """A polyline; ``None`` in ``y`` breaks it. ``markers``: a marker radius (px) per point."""

    x: tuple[float, ...]
    y: tuple[float | None, ...]
    color: str
    width: float = 2.0
    dash: str = "solid"  # solid, dash, dot
    markers: tuple[float, ...] = ()
    hover: tuple[str, ...] = ()
    opacity: float = 1.0
    kind: str = "line"


@dataclass(frozen=True)
class Bars:
    """Bars from 0 to ``y`` centred on ``x`` (``width`` data units), a text above each.

    A text wider than ``text_room`` is turned upright (a narrow bar, a phone)."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    width: float
    colors: tuple[str, ...]
    texts: tuple[str, ...] = ()
    text_colors: tuple[str, ...] = ()
    hover: tuple[str, ...] = ()
    text_room: float = (
        0.0  # data units a number may take across (0: the bar's width); wider: upright
    )
    kind: str = "bars"


@dataclass(frozen=True)
class Arrow:
    """A segment from ``start`` to ``end`` with an arrowhead at ``end`` (``head`` px, 0: none)."""

    start: tuple[float, float]
    end: tuple[float, float]
    color: str
    width: float = 2.0
    dash: str = "solid"
    opacity: float = 1.0
    head: float = 9.0
    hover: str = ""
    kind: str = "arrow"


@dataclass(frozen=True)
class Points:
    """Markers: radius (px) and opacity per point; ``symbol`` circle, star or ring."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    color: str
    sizes: tuple[float, ...]
    opacities: tuple[float, ...] = ()
    symbol: str = "circle"
    hover: tuple[str, ...] = ()
    kind: str = "points"


@dataclass(frozen=True)
class Label:
    """A text at ``at`` (data units) moved by ``offset`` px; ``anchor``: start, middle, end.

    ``leader``: a point (data units) a thin line joins to the text; ``boxed``: a background box
    behind the text (it stays readable over lines). ``beside``: the browser places the text beside
    the point ``at``, joined to it, clear of the panel's points, arrows, lines and the labels
    before it (the first get the nearest places); a label with no free place is left out (the
    hover and the legend keep its name).
    """

    at: tuple[float, float]
    text: str
    color: str = ""  # empty: the theme's text colour
    anchor: str = "middle"
    offset: tuple[float, float] = (0.0, 0.0)
    leader: tuple[float, float] | None = None
    boxed: bool = False
    size: float = 12.0
    hover: str = ""
    beside: bool = False
    kind: str = "label"


@dataclass(frozen=True)
class Rule:
    """A reference line across the plot at ``value`` of axis ``axis`` (``x``: vertical)."""

    axis: str
    value: float
    color: str = "#888888"
    dash: str = "dot"
    width: float = 1.5
    hover: str = ""
    kind: str = "rule"


Series = Line | Bars | Arrow | Points | Label | Rule


@dataclass(frozen=True)
class Panel:
    """One plot: two axes and the series drawn in it, in order (later on top)."""

    x: Axis
    y: Axis
    series: tuple[Series, ...]
    title: str = ""
    equal_aspect: bool = False  # one data unit is as long on x as on y (vectors keep their angle)


@dataclass(frozen=True)
class LegendEntry:
    """A legend line: a swatch (``line``, ``bar``, ``arrow``, ``star``, ``ring``) and its name."""

    name: str
    color: str
    swatch: str = "line"
    dash: str = "solid"


@dataclass(frozen=True)
class Chart:
    """A chart: ``height`` is each panel's plot area in px (titles, axes, legend come on top)."""

    panels: tuple[Panel, ...]
    title: str = ""
    legend: tuple[LegendEntry, ...] = ()
    height: int = 240
    description: str = ""  # the aria-label; empty: the title

    def to_data(self) -> dict[str, Any]:
        """The chart as JSON-able data (non-finite numbers become ``None``)."""
        data = _plain(self)
        data["description"] = self.description or self.title
        data["kind"] = "chart"
        return data


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


# --- ticks -----------------------------------------------------------------------------------


def nice_step(span: float, count: int = GRID_COUNT) -> float:
    """The smallest step of 1, 2 or 5 × 10^k that cuts ``span`` into at most ``count + 1`` parts."""
    magnitude = 10.0 ** math.floor(math.log10(span / max(count, 1)))
    for factor in (1.0, 2.0, 5.0, 10.0, 20.0):
        if span / (factor * magnitude) <= count + 1 + 1e-9:
            return factor * magnitude
    return 50.0 * magnitude


def format_tick(value: float, step: float, largest: float) -> str:
    """``value`` written with as many digits as ``step`` needs: ``0.25``, ``4.9e+12``, ``−1``.

    Beyond a million (or below 0.001) the number is written ``4.891e+12``: short, and never
    Plotly's long SI form.
    """
    if value == 0:
        return "0"
    if largest >= 1e6 or largest < 1e-3:
        digits = max(0, math.floor(math.log10(largest)) - math.floor(math.log10(step)))
        text = f"{value:.{digits}e}"
    else:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        text = f"{value:.{decimals}f}"
    return text.replace("-", MINUS, 1) if text.startswith("-") else text


def linear_axis(
    title: str, low: float, high: float, *, count: int = GRID_COUNT, zero_line: bool = False
) -> Axis:
    """A linear axis over ``[low, high]`` ticked at round numbers inside it."""
    if not high > low:
        pad = max(abs(high) * 0.1, 1e-6)
        low, high = low - pad, high + pad
    step = nice_step(high - low, count)
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    ticks = tuple(k * step for k in range(first, last + 1))
    largest = max(abs(low), abs(high))
    labels = tuple(format_tick(tick, step, largest) for tick in ticks)
    return Axis(title, (low, high), ticks, labels, zero_line=zero_line)


def padded(values: Sequence[float], fraction: float = 0.08) -> tuple[float, float]:
    """The finite values' span widened by ``fraction`` each side (a single value: ±10 %)."""
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    span = (high - low) or max(abs(high) * 0.2, 1e-6)
    return low - fraction * span, high + fraction * span


def decade_label(exponent: int) -> str:
    """``10^exponent`` as a plain number: 0.001 … 100000, else ``1e+6``."""
    if -4 <= exponent <= 5:
        return f"{10.0**exponent:.{max(0, -exponent)}f}"
    return f"1e{exponent:+d}"


def log_axis(title: str, low: float, high: float) -> Axis:
    """A log axis over ``[low, high]`` (> 0), labelled at whole decades, faint lines between."""
    first, last = math.ceil(math.log10(low) - 1e-9), math.floor(math.log10(high) + 1e-9)
    ticks = tuple(10.0**k for k in range(first, last + 1))
    labels = tuple(decade_label(k) for k in range(first, last + 1))
    minor = tuple(
        m * 10.0**k
        for k in range(math.floor(math.log10(low)), last + 1)
        for m in range(2, 10)
        if low <= m * 10.0**k <= high
    )
    return Axis(title, (low, high), ticks, labels, log=True, minor=minor)


def log_padded(values: Sequence[float], fraction: float = 0.04) -> tuple[float, float]:
    """The positive values' span, widened by ``fraction`` of its decades each side."""
    positive = [float(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    if not positive:
        return 0.1, 10.0
    low, high = math.log10(min(positive)), math.log10(max(positive))
    pad = fraction * ((high - low) or 1.0)
    return 10.0 ** (low - pad), 10.0 ** (high + pad)


def category_axis(title: str, labels: Sequence[str]) -> Axis:
    """Categories at 0, 1, 2 …, each ticked with its label."""
    count = len(labels)
    return Axis(title, (-0.5, count - 0.5), tuple(float(k) for k in range(count)), tuple(labels))


def grouped_offsets(groups: int, width: float = 0.8) -> tuple[float, list[float]]:
    """The bar width and the offset of each of ``groups`` bars sharing a category slot."""
    bar = width / groups
    return bar, [(k - (groups - 1) / 2) * bar for k in range(groups)]


# --- point clouds ----------------------------------------------------------------------------

MAX_HOVER_FEATURES = 8  # a point's hover lists at most this many features of a wide embedding
MAX_LABELLED_POINTS = 100  # above this, points carry no text label (the hover still names them)
LABEL_LIMIT = 24  # characters of a label drawn next to its point (the hover has it in full)
PADDING = 0.08  # each axis reaches this fraction of its span beyond the points and the origin


def plotted_features(d_in: int) -> int:
    """How many features a point cloud shows: ``min(d_in, 3)``."""
    if d_in < 1:
        raise ValueError(f"d_in must be at least 1, got {d_in}")
    return min(d_in, 3)


@dataclass(frozen=True)
class PointCloud:
    """One labelled point per token, in 1, 2 or 3 dimensions (``len(axes)``).

    ``points[i]`` holds the plotted features of token ``i``, ``labels[i]`` its label (repeated
    tokens told apart, long ones shortened), ``hovers[i]`` its full label and features, one per
    line. ``label_above[i]``: the label sits above its point (else below), so neighbouring labels
    alternate. Colours are CSS colours (``rgb(…)``) from the palette. ``description``: the
    drawing's accessible name.
    """

    points: tuple[tuple[float, ...], ...]  # (T, dims)
    labels: tuple[str, ...]
    hovers: tuple[str, ...]
    label_above: tuple[bool, ...]
    axes: tuple[Axis, ...]
    show_labels: bool
    point_colour: str
    line_colour: str
    description: str = ""

    @property
    def dims(self) -> int:
        return len(self.axes)

    def to_data(self) -> dict[str, Any]:
        """The cloud as JSON-ready data (the component's ``data``)."""
        return {**_plain(self), "dims": self.dims, "kind": "cloud"}


def point_cloud(
    values: np.ndarray | Sequence[Sequence[float]],
    tokens: Sequence[str],
    *,
    palette: str,
    description: str = "",
) -> PointCloud:
    """The embedding table ``values`` ``(T, d_in)`` as labelled points (at most 3 features).

    ``palette``: the sidebar's palette (``viz.colors.PALETTES``), which colours the points.

    Raises:
        ValueError: ``values`` is not ``(len(tokens), d_in)`` with ``d_in ≥ 1``.
    """
    values = np.asarray(values, dtype=np.float64)  # (T, d_in)
    if values.ndim != 2 or values.shape[0] != len(tokens):
        raise ValueError(f"values must be (len(tokens), d_in), got {values.shape}")
    num_tokens, d_in = values.shape
    dims = plotted_features(d_in)
    shown = values[:, :dims]  # (T, dims)
    names = unique_labels([str(token) for token in tokens])
    point_colour, line_colour = point_colours(palette)
    return PointCloud(
        points=tuple(tuple(float(v) for v in row) for row in shown),
        labels=tuple(short(name, LABEL_LIMIT) for name in names),
        hovers=tuple(_hover(name, row) for name, row in zip(names, values, strict=True)),
        label_above=_alternating(shown[:, 0] if dims == 1 else None, num_tokens),
        axes=tuple(_cloud_axis(title, shown[:, m]) for m, title in enumerate(input_labels(dims))),
        show_labels=num_tokens <= MAX_LABELLED_POINTS,
        point_colour=point_colour,
        line_colour=line_colour,
        description=description,
    )


def _hover(name: str, row: np.ndarray) -> str:
    """A point's hover: the token, then ``x1 = 0.4300`` one feature per line."""
    d_in = row.shape[0]
    lines = [name]
    lines += [
        f"{label} = {format_number(row[m])}"
        for m, label in enumerate(input_labels(min(d_in, MAX_HOVER_FEATURES)))
    ]
    if d_in > MAX_HOVER_FEATURES:
        lines.append(f"… (+{d_in - MAX_HOVER_FEATURES})")
    return "\n".join(lines)


def _alternating(order_by: np.ndarray | None, count: int) -> tuple[bool, ...]:
    """Above, below, above… in token order, or in the order of ``order_by`` (a strip's x)."""
    if order_by is None:
        return tuple(index % 2 == 0 for index in range(count))
    above = [True] * count
    for rank, index in enumerate(np.argsort(order_by, kind="stable")):
        above[int(index)] = rank % 2 == 0
    return tuple(above)


def _cloud_axis(title: str, column: np.ndarray) -> Axis:
    """An axis holding every value of ``column`` and the origin, a little beyond both."""
    low = min(0.0, float(column.min()))
    high = max(0.0, float(column.max()))
    span = high - low if high > low else 1.0
    return linear_axis(title, low - PADDING * span, high + PADDING * span)


def point_colours(palette: str) -> tuple[str, str]:
    """A point's colour and its line's lighter one: the palette's sequential scale, dark end."""
    scale = get_colorscale(colorscale("sequential", palette))
    ends = sample_colorscale(scale, [0.0, 1.0])
    dark_at_top = _brightness(ends[1]) < _brightness(ends[0])
    point, line = (0.85, 0.45) if dark_at_top else (0.15, 0.55)
    return tuple(sample_colorscale(scale, [point, line]))  # type: ignore[return-value]


def _brightness(colour: str) -> float:
    red, green, blue = (float(part) for part in colour[colour.index("(") + 1 : -1].split(","))
    return 0.299 * red + 0.587 * green + 0.114 * blue
