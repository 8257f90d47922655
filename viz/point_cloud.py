"""The embeddings as a cloud of labelled points: what the app's own point-cloud component draws.

An embedding is a point in ``d_in``-dimensional space. :func:`point_cloud` describes it in as
many dimensions as the screen allows (:func:`plotted_features`): a 3-D view of the first three
features ``x1, x2, x3`` for ``d_in ≥ 3`` (the user turns it by dragging), a plane for ``d_in = 2``
and a line (a "strip") for ``d_in = 1``. Tokens with similar numbers land close together;
attention only ever sees these numbers, never the words.

:class:`PointCloud` is data only (numbers, plain-text labels, colours): ``ui.point_cloud`` draws
it in the browser as SVG and writes every label with ``textContent``, so a token is never parsed
as HTML or Markdown and nothing here is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale

from .colors import colorscale
from .labels import short, unique_labels
from .vocabulary import format_number, input_labels

MAX_HOVER_FEATURES = 8  # a point's hover lists at most this many features of a wide embedding
MAX_LABELLED_POINTS = 100  # above this, points carry no text label (the hover still names them)
LABEL_LIMIT = 24  # characters of a label drawn next to its point (the hover has it in full)
PADDING = 0.08  # each axis reaches this fraction of its span beyond the points and the origin
TICKS = 5  # about this many ticks per axis


def plotted_features(d_in: int) -> int:
    """How many features the plot shows: ``min(d_in, 3)``."""
    if d_in < 1:
        raise ValueError(f"d_in must be at least 1, got {d_in}")
    return min(d_in, 3)


@dataclass(frozen=True)
class Axis:
    """One plotted feature: its title (``x1``), its range and its ticks (values and texts)."""

    title: str
    low: float
    high: float
    ticks: tuple[float, ...]
    tick_texts: tuple[str, ...]


@dataclass(frozen=True)
class PointCloud:
    """One labelled point per token, in 1, 2 or 3 dimensions.

    ``points[i]`` holds the plotted features of token ``i`` (``len(axes)`` numbers), ``labels[i]``
    its label (repeated tokens told apart, long ones shortened), ``hovers[i]`` its full label and
    features, one per line. ``label_above[i]``: the label sits above its point (else below), so
    neighbouring labels alternate. Colours are CSS colours (``rgb(…)``) from the palette.
    """

    points: tuple[tuple[float, ...], ...]  # (T, dims)
    labels: tuple[str, ...]
    hovers: tuple[str, ...]
    label_above: tuple[bool, ...]
    axes: tuple[Axis, ...]
    show_labels: bool
    point_colour: str
    line_colour: str

    @property
    def dims(self) -> int:
        return len(self.axes)

    def to_data(self) -> dict[str, Any]:
        """The cloud as JSON-ready data (the component's ``data``)."""
        return {
            "dims": self.dims,
            "points": [list(point) for point in self.points],
            "labels": list(self.labels),
            "hovers": list(self.hovers),
            "label_above": list(self.label_above),
            "axes": [asdict(axis) for axis in self.axes],
            "show_labels": self.show_labels,
            "point_colour": self.point_colour,
            "line_colour": self.line_colour,
        }


def point_cloud(
    values: np.ndarray | Sequence[Sequence[float]],
    tokens: Sequence[str],
    *,
    palette: str,
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
    axes = tuple(_axis(title, shown[:, m]) for m, title in enumerate(input_labels(dims)))
    point_colour, line_colour = point_colours(palette)
    return PointCloud(
        points=tuple(tuple(float(v) for v in row) for row in shown),
        labels=tuple(short(name, LABEL_LIMIT) for name in names),
        hovers=tuple(_hover(name, row) for name, row in zip(names, values, strict=True)),
        label_above=_alternating(shown[:, 0] if dims == 1 else None, num_tokens),
        axes=axes,
        show_labels=num_tokens <= MAX_LABELLED_POINTS,
        point_colour=point_colour,
        line_colour=line_colour,
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


def _axis(title: str, column: np.ndarray) -> Axis:
    """An axis holding every value of ``column`` and the origin, a little beyond both."""
    low = min(0.0, float(column.min()))
    high = max(0.0, float(column.max()))
    span = high - low if high > low else 1.0
    low, high = low - PADDING * span, high + PADDING * span
    ticks, decimals = nice_ticks(low, high)
    texts = tuple(format_number(tick, decimals, minus="−") for tick in ticks)
    return Axis(title, low, high, ticks, texts)


def nice_ticks(low: float, high: float, count: int = TICKS) -> tuple[tuple[float, ...], int]:
    """About ``count`` round ticks in ``[low, high]`` (steps 1, 2 or 5 × 10^k), and their decimals.

    The step is the round one nearest to ``(high - low) / count`` (on a log scale).
    """
    if not high > low:
        raise ValueError(f"an axis needs low < high, got {low}, {high}")
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda step: abs(math.log(step / raw)))
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = tuple(round(k * step, 12) + 0.0 for k in range(first, last + 1))
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return ticks, decimals


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
