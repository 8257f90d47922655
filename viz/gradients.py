"""Figures of the backward page: gradients as heatmaps, the loss over learning steps, the graph.

Pure functions of :mod:`attention.gradients`' numbers: :func:`gradient_view` (a gradient on a
diverging scale centred on 0, so an exact zero is neutral and written ``0.0000``),
:func:`loss_curve_chart` and :func:`autograd_dot` (Graphviz DOT, nodes coloured by their group
of steps, :data:`STEP_GROUPS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from attention.autograd_graph import AutogradGraph
from attention.steps import FIELDS, part_of

from .chart import Chart, Line, Panel, linear_axis, padded
from .colors import series_colors
from .matrix import MatrixView

# Which steps share a colour in the graph: the parts of the pass (attention.steps), in the order a
# learner meets them going backward, the loss first.
STEP_GROUPS: dict[str, tuple[str, ...]] = {"loss": ("loss",)} | {
    part: tuple(field.name for field in reversed(FIELDS) if part_of(field) == part)
    for part in ("context", "attention", "scores", "projections", "weights", "inputs")
}
GROUP_COLORS = {
    "default": {
        "loss": "#fde2e2",
        "context": "#e5dbf3",
        "attention": "#dbe9f6",
        "scores": "#fff1c9",
        "projections": "#d9f0d3",
        "weights": "#f9d9b6",
        "inputs": "#eeeeee",
    },
    "colorblind": {  # light tints of the Okabe–Ito colours
        "loss": "#f5d0c0",
        "context": "#eccfe0",
        "attention": "#cce5f4",
        "scores": "#fbf2b8",
        "projections": "#c6ebe0",
        "weights": "#fde3b3",
        "inputs": "#eeeeee",
    },
}


def step_colors(palette: str = "default") -> dict[str, str]:
    """Fill colour of every step's nodes (by :data:`STEP_GROUPS`) in ``palette``."""
    colors = GROUP_COLORS.get(palette, GROUP_COLORS["default"])
    return {step: colors[group] for group, steps in STEP_GROUPS.items() for step in steps}


def autograd_dot(
    graph: AutogradGraph,
    step_labels: Mapping[str, str],
    palette: str = "default",
    direction: str = "TB",
) -> str:
    """The graph as DOT text: PyTorch's name on the first line, the step's label on the second;
    ``direction="LR"`` lays it out left to right (a projector's wide screen)."""
    return graph.to_dot(
        step_labels=step_labels, step_colors=step_colors(palette), direction=direction
    )


def without_negative_zero(values: np.ndarray) -> np.ndarray:
    """``values`` as float64 with ``−0.0`` made ``0.0`` (a dropped weight's gradient is 0 × g,
    which is ``−0.0`` for a negative g; both are exactly zero, written the same)."""
    return np.asarray(values, dtype=np.float64) + 0.0


def gradient_view(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    palette: str,
    row_title: str = "",
    col_title: str = "",
    value_name: str = "d loss / d x",
    colorbar_title: str = "",
) -> MatrixView:
    """One gradient as a matrix view: negative ↔ positive around a neutral 0.

    Nothing is greyed out: a hidden score's gradient is a real number, and it is exactly 0.
    """
    return MatrixView(
        values=without_negative_zero(values),
        row_labels=tuple(row_labels),
        col_labels=tuple(col_labels),
        palette=palette,
        kind="diverging",
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
        colorbar_title=colorbar_title,
    )


def loss_curve_chart(
    losses: Sequence[float],
    *,
    palette: str = "default",
    x_title: str = "step",
    y_title: str = "loss",
) -> Chart:
    """The loss after 0, 1, 2 … learning steps, as a line with markers; the last step is larger.

    The y axis holds every loss (a single one too) and writes a huge or tiny loss in short
    scientific form (``4.9e+12``), never an SI prefix.
    """
    color = series_colors(palette)["value"]
    steps = tuple(float(k) for k in range(len(losses)))
    values = tuple(float(value) for value in losses)
    sizes = [3.5] * len(values)
    if sizes:
        sizes[-1] = 6.0
    hover = tuple(
        f"{x_title}: {k}\n{y_title}: {value:.6g}"
        if abs(value) >= 1e6
        else f"{x_title}: {k}\n{y_title}: {value:.6f}"
        for k, value in enumerate(values)
    )
    count = max(len(values), 1)
    every = max(1, count // 10)
    x_axis = linear_axis(x_title, -0.5, count - 0.5)
    ticks = tuple(float(k) for k in range(0, count, every))
    x_axis = replace(x_axis, ticks=ticks, tick_labels=tuple(str(int(k)) for k in ticks))
    panel = Panel(
        x=x_axis,
        y=linear_axis(y_title, *padded(values)),
        series=(Line(steps, values, color, 2.0, markers=tuple(sizes), hover=hover),),
    )
    return Chart(panels=(panel,), height=180)
