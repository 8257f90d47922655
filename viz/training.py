"""Figures of a training run: loss curves, with/without dropout, attention maps, pattern scores.

Pure builders (numbers from :mod:`attention.training` and already-translated labels in, a
``go.Figure`` out), tested without a browser. Every string that reaches Plotly goes through
:func:`viz.labels.plain`: token labels and titles are shown literally, never as markup.

- :func:`loss_curves_figure`: training and validation loss against the step (and the held-out
  accuracy on a second axis where the task has one), redrawn from ``result.history`` as it grows;
- :func:`dropout_curves_figure`: the four curves of :func:`attention.training.compare_dropout`,
  one colour per run, solid for validation and dashed for training, so the gap is the distance
  between a solid line and the dashed line of the same colour;
- :func:`attention_maps_grid`: ``result.attention(tokens)``, every layer and head, one panel each
  (a row per layer), built from :func:`viz.multi_head.head_weights_grid`;
- :func:`pattern_scores_figure`: ``result.pattern_scores()`` as grouped bars per head (0 … 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import torch

from .experiments import series_colors
from .labels import plain
from .multi_head import head_weights_grid

__all__ = [
    "attention_maps_grid",
    "dropout_curves_figure",
    "loss_curves_figure",
    "panel_titles",
    "pattern_scores_figure",
]

ACCURACY_COLOR = "#2f855a"  # a third colour for the accuracy line, apart from both loss colours


def _legend_layout(figure: go.Figure, x_title: str, y_title: str, height: int) -> None:
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        xaxis={"title": {"text": plain(x_title)}, "gridcolor": "#e5e5e5", "rangemode": "tozero"},
        yaxis={"title": {"text": plain(y_title)}, "gridcolor": "#e5e5e5", "rangemode": "tozero"},
    )


def loss_curves_figure(
    history: Sequence[Mapping[str, float]],
    *,
    train_name: str,
    val_name: str,
    x_title: str,
    y_title: str,
    accuracy_name: str = "",
    accuracy_title: str = "",
    palette: str = "default",
    height: int = 360,
) -> go.Figure:
    """Training and validation loss against the step; held-out accuracy on a right-hand axis.

    ``history`` is ``result.history`` (or the records ``on_progress`` received so far): each has
    ``step``, ``train_loss``, ``val_loss`` and, for the tasks with an answer, ``val_accuracy``.
    The accuracy line is drawn when ``accuracy_name`` is given and the records have it.
    """
    colors = series_colors(palette)
    steps = [int(r["step"]) for r in history]
    figure = go.Figure()
    for key, name, color in (
        ("train_loss", train_name, colors["second"]),
        ("val_loss", val_name, colors["main"]),
    ):
        figure.add_trace(
            go.Scatter(
                x=steps,
                y=[float(r[key]) for r in history],
                mode="lines+markers",
                name=plain(name),
                line={"color": color, "width": 2, "dash": "dash" if key == "train_loss" else None},
                marker={"size": 5},
                hovertemplate=f"{plain(x_title)} %{{x}}<br>%{{y:.4f}}<extra>{plain(name)}</extra>",
            )
        )
    _legend_layout(figure, x_title, y_title, height)
    if accuracy_name and history and all("val_accuracy" in r for r in history):
        figure.add_trace(
            go.Scatter(
                x=steps,
                y=[float(r["val_accuracy"]) for r in history],
                mode="lines",
                name=plain(accuracy_name),
                yaxis="y2",
                line={"color": ACCURACY_COLOR, "width": 1.5, "dash": "dot"},
                hovertemplate=(
                    f"{plain(x_title)} %{{x}}<br>%{{y:.1%}}<extra>{plain(accuracy_name)}</extra>"
                ),
            )
        )
        figure.update_layout(
            yaxis2={
                "title": {"text": plain(accuracy_title or accuracy_name)},
                "overlaying": "y",
                "side": "right",
                "range": [0, 1.02],
                "tickformat": ".0%",
                "showgrid": False,
            }
        )
    return figure


def dropout_curves_figure(
    steps: Sequence[int],
    train_without: Sequence[float],
    val_without: Sequence[float],
    train_with: Sequence[float],
    val_with: Sequence[float],
    *,
    names: Sequence[str],
    x_title: str,
    y_title: str,
    palette: str = "default",
    height: int = 380,
) -> go.Figure:
    """The four curves of a dropout comparison, in the order of ``names``.

    ``names``: four translated legend entries, for training and validation loss without dropout,
    then with dropout. Without dropout is drawn in the reference grey-blue ``main`` colour, with
    dropout in ``second``; training loss dashed, validation solid.
    """
    curves = (train_without, val_without, train_with, val_with)
    if len(names) != 4:
        raise ValueError("four names are needed: train/val without, train/val with dropout")
    if any(len(curve) != len(steps) for curve in curves):
        raise ValueError("every curve needs one value per step")
    colors = series_colors(palette)
    styles = (
        (colors["main"], "dash"),
        (colors["main"], None),
        (colors["second"], "dash"),
        (colors["second"], None),
    )
    figure = go.Figure()
    for curve, name, (color, dash) in zip(curves, names, styles, strict=True):
        figure.add_trace(
            go.Scatter(
                x=list(steps),
                y=[float(v) for v in curve],
                mode="lines",
                name=plain(name),
                line={"color": color, "width": 2, "dash": dash},
                hovertemplate=f"{plain(x_title)} %{{x}}<br>%{{y:.4f}}<extra>{plain(name)}</extra>",
            )
        )
    _legend_layout(figure, x_title, y_title, height)
    return figure


def panel_titles(layers: int, heads: int, template: str) -> list[str]:
    """One title per (layer, head), layer by layer: ``template`` with ``{layer}`` and ``{head}``
    (counted from 1), e.g. ``"Layer {layer} · head {head}"``."""
    return [
        template.format(layer=layer + 1, head=head + 1)
        for layer in range(layers)
        for head in range(heads)
    ]


def attention_maps_grid(
    weights: np.ndarray | torch.Tensor,
    tokens: Sequence[str],
    *,
    title_template: str,
    palette: str = "default",
    row_title: str = "",
    col_title: str = "",
    value_name: str = "weight",
    colorbar_title: str = "",
) -> go.Figure:
    """Every layer's and head's attention weights, one row of panels per layer.

    ``weights`` ``(layers, heads, T, T)`` from ``result.attention(tokens)``; ``tokens`` the ``T``
    labels (``result.labels(tokens)``). Panels keep the order of
    :func:`panel_titles`; one shared 0 … 1 colour bar. Raises ``ValueError`` for a wrong shape
    or more tokens than fit in a grid (see :func:`viz.multi_head.fits_grid`).
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 4:
        raise ValueError(f"weights must be (layers, heads, T, T), got {weights.shape}")
    layers, heads, num_tokens, _ = weights.shape
    flat = weights.reshape(layers * heads, num_tokens, num_tokens)  # (layers·heads, T, T)
    return head_weights_grid(
        flat,
        tokens,
        head_titles=panel_titles(layers, heads, title_template),
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
        colorbar_title=colorbar_title,
        max_columns=heads,
    )


def pattern_scores_figure(
    scores: Mapping[str, np.ndarray | torch.Tensor],
    *,
    score_names: Mapping[str, str],
    head_template: str,
    y_title: str,
    palette: str = "default",
    height: int = 320,
) -> go.Figure:
    """Grouped bars: for each head (``"L1 H2"`` …), one bar per score, all on a 0 … 1 axis.

    ``scores``: ``result.pattern_scores()``, name → ``(layers, heads)``. ``score_names``: the
    translated name of each score; ``head_template`` labels a head, with ``{layer}`` and
    ``{head}`` counted from 1.
    """
    if not scores:
        raise ValueError("no pattern scores to draw (this task has none)")
    colors = series_colors(palette)
    palette_cycle = (colors["main"], colors["second"], ACCURACY_COLOR)
    figure = go.Figure()
    for index, (key, values) in enumerate(scores.items()):
        array = np.asarray(values, dtype=np.float64)  # (layers, heads)
        layers, heads = array.shape
        labels = [plain(t) for t in panel_titles(layers, heads, head_template)]
        name = plain(score_names.get(key, key))
        figure.add_trace(
            go.Bar(
                x=labels,
                y=array.reshape(-1),
                name=name,
                marker={"color": palette_cycle[index % len(palette_cycle)]},
                text=[f"{v:.2f}" for v in array.reshape(-1)],
                textposition="outside",
                hovertemplate=f"%{{x}}<br>%{{y:.3f}}<extra>{name}</extra>",
            )
        )
    figure.update_layout(
        barmode="group",
        height=height,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        yaxis={"title": {"text": plain(y_title)}, "range": [0, 1.1], "gridcolor": "#e5e5e5"},
    )
    return figure
