"""Labels beside points, none on top of another: a small deterministic layout, in pixels.

Each label is a box (:func:`label_size_px`, a conservative width: wide CJK characters count
double) placed greedily, one after another, at the first free candidate around its point, nearest
first and outward from the origin first (an arrow's label continues the arrow). A candidate is
free if it meets no placed box and covers no obstacle (the figure's points and lines).

The layout is computed at the smallest scale the figure can have: drawn larger, every box shrinks
around its centre, so what was apart stays apart. A label with no free place is left out (its
name stays in the hover and the legend).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FONT_SIZE = 12  # px, the labels' font size
CHAR_WIDTH = 0.62  # × font size: an upper bound of a Latin character's width (digits, capitals)
WIDE_CHAR_WIDTH = 1.05  # × font size: a CJK character
LINE_HEIGHT = 1.4  # × font size
BOX_PAD = 2.0  # px around the text (Plotly's annotation border pad is 1 px)
POINT_RADIUS = 6.0  # px: an obstacle point, with its marker, is a square of this half-size
GAP = 3.0  # px kept free between a label and its own point
ANGLES = (0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180)  # degrees from the outward way
DISTANCE_STEP = 8.0  # px between candidate rings
RINGS = 16  # candidate rings around a point


@dataclass(frozen=True)
class PlacedLabel:
    """One label: its point, the centre of its box (data units) and the box's half size (px)."""

    index: int  # which point (0-based)
    text: str
    point: tuple[float, float]
    center: tuple[float, float]
    half_width: float
    half_height: float


def text_width_px(text: str, font_size: float = FONT_SIZE) -> float:
    """An upper estimate of ``text``'s drawn width: wide (CJK) characters count about double."""
    width = 0.0
    for char in text:
        wide = unicodedata.east_asian_width(char) in ("W", "F")
        width += (WIDE_CHAR_WIDTH if wide else CHAR_WIDTH) * font_size
    return width


def label_size_px(text: str, font_size: float = FONT_SIZE) -> tuple[float, float]:
    """``(width, height)`` in pixels of the box a label takes (text plus padding)."""
    return text_width_px(text, font_size) + 2 * BOX_PAD, LINE_HEIGHT * font_size + 2 * BOX_PAD


def _clear_distance(direction: np.ndarray, half_width: float, half_height: float) -> float:
    """How far along ``direction`` a box's centre must be for its point to be ``GAP`` outside."""
    dx, dy = abs(float(direction[0])), abs(float(direction[1]))
    limits = []
    if dx > 1e-9:
        limits.append((half_width + GAP) / dx)
    if dy > 1e-9:
        limits.append((half_height + GAP) / dy)
    return min(limits)


def segment_points(
    segments: Sequence[tuple[Sequence[float], Sequence[float]]], scale: float
) -> np.ndarray:
    """Points along each segment (data units), at most ``POINT_RADIUS`` px apart at ``scale``.

    As obstacles they keep labels off the lines: squares of half-size ``POINT_RADIUS`` that close
    together cover the whole line.
    """
    points = []
    for start, end in segments:
        a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
        length_px = float(np.hypot(*(b - a))) * scale
        steps = max(1, math.ceil(length_px / POINT_RADIUS))
        points.append(a + np.linspace(0.0, 1.0, steps + 1)[:, None] * (b - a))  # (steps + 1, 2)
    return np.vstack(points) if points else np.empty((0, 2))


def place_labels(
    points: np.ndarray | Sequence[Sequence[float]],
    texts: Sequence[str],
    *,
    scale: float,
    obstacles: np.ndarray | Sequence[Sequence[float]] = (),
    segments: Sequence[tuple[Sequence[float], Sequence[float]]] = (),
    bounds: tuple[Sequence[float], Sequence[float]] | None = None,
    order: Sequence[int] | None = None,
    font_size: float = FONT_SIZE,
) -> list[PlacedLabel]:
    """Place one label per point (``texts[i]`` for ``points[i]``, data units) without overlaps.

    ``scale`` is pixels per data unit on both axes (use the smallest the figure can be drawn at);
    ``obstacles`` (points) and ``segments`` (lines) are what no label may cover; ``bounds`` keeps
    every box inside the axes; ``order`` is the order of placing (the first get the nearest places).
    An empty text means no label. Returns the placed labels; a label with no free place is missing.
    """
    anchors = np.asarray(points, dtype=np.float64).reshape(-1, 2) * scale  # (n, 2) px
    blocked = _point_boxes(anchors, obstacles, segments, scale)  # (n + m, 4)
    inf = math.inf
    (x_low, x_high), (y_low, y_high) = bounds or ((-inf, inf), (-inf, inf))
    limits_px = np.array([x_low, x_high, y_low, y_high]) * scale  # (4,)
    turns = np.radians(np.asarray(ANGLES, dtype=np.float64))  # (A,)
    placed: list[PlacedLabel] = []
    if len(texts) != len(anchors):
        raise ValueError(f"{len(texts)} texts for {len(anchors)} points")
    for index in range(len(anchors)) if order is None else order:
        anchor, text = anchors[index], texts[index]
        if not text:
            continue
        width, height = label_size_px(text, font_size)
        half = np.array([width / 2, height / 2])  # (2,)
        center = _free_place(anchor, half, turns, blocked, limits_px)
        if center is None:
            continue  # no free place: the hover and the legend still name this point
        blocked = np.vstack([blocked, [center[0], center[1], half[0], half[1]]])
        placed.append(
            PlacedLabel(
                index=index,
                text=text,
                point=(float(anchor[0] / scale), float(anchor[1] / scale)),
                center=(float(center[0] / scale), float(center[1] / scale)),
                half_width=float(half[0]),
                half_height=float(half[1]),
            )
        )
    return placed


def _point_boxes(
    anchors: np.ndarray,
    obstacles: np.ndarray | Sequence[Sequence[float]],
    segments: Sequence[tuple[Sequence[float], Sequence[float]]],
    scale: float,
) -> np.ndarray:
    """``(n + m, 4)`` boxes ``[x, y, half width, half height]`` (px): every point a small square."""
    others = (
        np.vstack(
            [
                np.asarray(obstacles, dtype=np.float64).reshape(-1, 2),
                segment_points(segments, scale),
            ]
        )
        * scale
    )  # (m, 2) px
    centres = np.vstack([anchors, others])  # (n + m, 2)
    return np.column_stack([centres, np.full((len(centres), 2), POINT_RADIUS)])


def _free_place(
    anchor: np.ndarray,
    half: np.ndarray,
    turns: np.ndarray,
    blocked: np.ndarray,
    limits_px: np.ndarray,
) -> np.ndarray | None:
    """The nearest free centre (px) for a ``2·half`` box around ``anchor``, or ``None``.

    Candidates lie on rings around the anchor, nearest ring first; in a ring, the outward way
    first (turned by each of ``turns``). A candidate is free when it stays inside ``limits_px``
    (``x_low, x_high, y_low, y_high``) and is apart from every ``blocked`` box.
    """
    x_low, x_high, y_low, y_high = limits_px
    length = float(np.hypot(*anchor))
    outward = anchor / length if length > 1e-9 else np.array([0.0, 1.0])  # (2,)
    directions = np.column_stack(  # (A, 2): the outward way turned by each angle
        [
            outward[0] * np.cos(turns) - outward[1] * np.sin(turns),
            outward[0] * np.sin(turns) + outward[1] * np.cos(turns),
        ]
    )
    clear = np.array([_clear_distance(d, half[0], half[1]) for d in directions])  # (A,)
    reach = float(clear.max()) + RINGS * DISTANCE_STEP + float(half.max())
    near = np.abs(blocked[:, :2] - anchor).max(axis=1) <= reach + blocked[:, 2:].max(axis=1)
    nearby = blocked[near]  # (B, 4): only boxes a candidate could touch
    for ring in np.arange(RINGS, dtype=np.float64) * DISTANCE_STEP:  # (R,)
        candidates = anchor + (clear + ring)[:, None] * directions  # (A, 2) px
        free = (
            (candidates[:, 0] - half[0] >= x_low)
            & (candidates[:, 0] + half[0] <= x_high)
            & (candidates[:, 1] - half[1] >= y_low)
            & (candidates[:, 1] + half[1] <= y_high)
        )
        apart = np.abs(candidates[:, None, :] - nearby[None, :, :2]) >= (
            half[None, None, :] + nearby[None, :, 2:]
        )  # (A, B, 2): separated along x, along y
        free &= apart.any(axis=2).all(axis=1)  # apart from every box: along x or along y
        if free.any():
            return candidates[int(np.argmax(free))]  # (2,): the first free candidate
    return None


def label_extent(labels: Sequence[PlacedLabel], scale: float) -> np.ndarray:
    """``(2 × len(labels), 2)`` the corners (lower left, upper right) of every box, data units."""
    corners = []
    for label in labels:
        half = np.array([label.half_width, label.half_height]) / scale  # (2,)
        center = np.array(label.center)  # (2,)
        corners += [center - half, center + half]
    return np.asarray(corners, dtype=np.float64).reshape(-1, 2)
