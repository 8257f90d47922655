"""Figure builders of a training run, checked on their data (no browser, no training needed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from viz.training import (
    attention_maps_grid,
    dropout_curves_figure,
    loss_curves_figure,
    panel_titles,
    pattern_scores_figure,
)

HISTORY = [
    {"step": 0, "train_loss": 2.3, "val_loss": 2.31, "val_accuracy": 0.1},
    {"step": 50, "train_loss": 0.4, "val_loss": 0.5, "val_accuracy": 0.8},
    {"step": 100, "train_loss": 0.01, "val_loss": 0.02, "val_accuracy": 1.0},
]


def test_loss_curves_draw_both_losses_and_the_accuracy_on_a_second_axis() -> None:
    figure = loss_curves_figure(
        HISTORY,
        train_name="training <b>loss</b>",
        val_name="validation loss",
        x_title="step",
        y_title="loss",
        accuracy_name="held-out accuracy",
    )
    train, val, accuracy = figure.data
    assert list(train.x) == [0, 50, 100] and list(train.y) == [2.3, 0.4, 0.01]
    assert list(val.y) == [2.31, 0.5, 0.02] and train.line.dash == "dash"
    assert train.name == "training &lt;b&gt;loss&lt;/b&gt;"  # shown literally, not bold
    assert accuracy.yaxis == "y2" and list(accuracy.y) == [0.1, 0.8, 1.0]
    assert figure.layout.yaxis2.range == (0, 1.02)


def test_loss_curves_without_accuracy_for_text() -> None:
    text_history = [{k: v for k, v in r.items() if k != "val_accuracy"} for r in HISTORY]
    figure = loss_curves_figure(
        text_history, train_name="t", val_name="v", x_title="s", y_title="l", accuracy_name="acc"
    )
    assert len(figure.data) == 2


def test_dropout_curves_keep_the_order_and_style_of_the_four_runs() -> None:
    figure = dropout_curves_figure(
        [0, 10],
        [3.0, 1.0],
        [3.0, 2.5],
        [3.0, 1.5],
        [3.0, 2.0],
        names=["train without", "val without", "train with", "val with"],
        x_title="step",
        y_title="loss",
    )
    assert [trace.name for trace in figure.data] == [
        "train without",
        "val without",
        "train with",
        "val with",
    ]
    assert [trace.y[-1] for trace in figure.data] == [1.0, 2.5, 1.5, 2.0]
    assert figure.data[0].line.color == figure.data[1].line.color != figure.data[2].line.color
    assert [trace.line.dash for trace in figure.data] == ["dash", None, "dash", None]
    with pytest.raises(ValueError, match="one value per step"):
        dropout_curves_figure([0], [1.0, 2.0], [1.0], [1.0], [1.0], names=list("abcd"),
                              x_title="", y_title="")  # fmt: skip


def test_attention_maps_grid_has_a_row_of_panels_per_layer() -> None:
    weights = torch.softmax(torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(0)), -1)
    tokens = ["a", "<i>b</i>", "c", "d"]
    figure = attention_maps_grid(weights, tokens, title_template="Layer {layer} · head {head}")
    heatmaps = [d for d in figure.data if d.type == "heatmap"]
    assert len(heatmaps) == 6
    assert heatmaps[4].name == "Layer 2 · head 2"
    assert np.allclose(np.asarray(heatmaps[4].z, dtype=float), weights[1, 1].numpy())
    assert "&lt;i&gt;b&lt;/i&gt;" in figure.layout.xaxis.ticktext
    assert panel_titles(1, 2, "L{layer}H{head}") == ["L1H1", "L1H2"]
    with pytest.raises(ValueError, match="layers, heads, T, T"):
        attention_maps_grid(weights[0], tokens, title_template="")


def test_pattern_scores_are_grouped_bars_per_head() -> None:
    scores = {
        "previous_token": torch.tensor([[0.9, 0.1], [0.05, 0.02]]),
        "induction": torch.tensor([[0.0, 0.03], [0.97, 0.8]]),
    }
    figure = pattern_scores_figure(
        scores,
        score_names={"previous_token": "previous token", "induction": "induction"},
        head_template="L{layer} H{head}",
        y_title="mean weight",
    )
    previous, induction = figure.data
    assert list(previous.x) == ["L1 H1", "L1 H2", "L2 H1", "L2 H2"]
    assert np.allclose(induction.y, [0.0, 0.03, 0.97, 0.8])
    assert previous.name == "previous token" and figure.layout.barmode == "group"
    with pytest.raises(ValueError, match="no pattern scores"):
        pattern_scores_figure({}, score_names={}, head_template="", y_title="")
