"""Charts and matrices of the Train page draw exactly what training measured; their labels are
plain text (as typed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from viz.table_heatmap import matrix_table
from viz.training import (
    attention_map_views,
    dropout_curves_chart,
    loss_curves_chart,
    pattern_scores_chart,
)
from viz.words import FigureWords

WORDS = FigureWords()
HISTORY = [
    {"step": 0, "train_loss": 2.30, "val_loss": 2.31, "val_accuracy": 0.10},
    {"step": 25, "train_loss": 0.50, "val_loss": 0.60, "val_accuracy": 0.80},
    {"step": 50, "train_loss": 0.01, "val_loss": 0.02, "val_accuracy": 1.00},
]


def test_loss_curves_draw_the_history_on_a_fixed_step_axis_with_accuracy_beside() -> None:
    chart = loss_curves_chart(
        HISTORY, total_steps=300, train_name="train <b>", val_name="val", accuracy_name="acc"
    )
    losses, accuracy_panel = chart.panels
    train, val = losses.series
    (accuracy,) = accuracy_panel.series
    assert train.x == (0, 25, 50) and train.y == (2.30, 0.50, 0.01)
    assert val.y == (2.31, 0.60, 0.02) and accuracy.y == (0.10, 0.80, 1.00)
    assert [entry.name for entry in chart.legend] == ["train <b>", "val", "acc"], "as typed"
    assert train.hover[1] == "step: 25\ntrain <b>: 0.5000"
    assert accuracy_panel.y.range == (0, 1.02) and accuracy_panel.y.tick_labels[-1] == "100%"
    assert losses.x.range == (0, 300), "a live curve grows across a fixed axis"
    assert losses.y.log, "losses that fall 200-fold get a log axis"
    flat = loss_curves_chart(HISTORY[:2], total_steps=None)
    assert len(flat.panels) == 1 and not flat.panels[0].y.log  # no accuracy name given
    assert flat.panels[0].y.range[0] == 0 and flat.panels[0].x.range == (0, 25)


def test_loss_curves_of_no_records_yet_are_an_empty_chart() -> None:
    chart = loss_curves_chart([], total_steps=100, accuracy_name="acc")
    assert [len(line.x) for line in chart.panels[0].series] == [0, 0] and len(chart.panels) == 1


def test_dropout_curves_are_four_lines_from_both_histories() -> None:
    with_dropout = [{**r, "train_loss": r["train_loss"] + 1} for r in HISTORY]
    chart = dropout_curves_chart(HISTORY, with_dropout, names={"val_with": "V+"})
    lines = chart.panels[0].series
    assert [entry.name for entry in chart.legend][3] == "V+"
    assert [line.y for line in lines] == [
        (2.30, 0.50, 0.01),
        (2.31, 0.60, 0.02),
        (3.30, 1.50, 1.01),
        (2.31, 0.60, 0.02),
    ]
    assert [line.dash for line in lines] == ["solid", "dash", "solid", "dash"]
    partial = dropout_curves_chart(HISTORY[:1], [])  # the second run has not started
    assert [len(line.x) for line in partial.panels[0].series] == [1, 1, 0, 0]


def test_attention_maps_are_one_matrix_per_layer_and_head_with_the_future_hidden() -> None:
    generator = torch.Generator().manual_seed(0)
    raw = torch.rand(2, 3, 4, 4, generator=generator).tril()
    weights = raw / raw.sum(-1, keepdim=True)  # (layers, heads, T, T), causal rows summing to 1
    tokens = ["a", "<b>", "a", "c"]
    views = attention_map_views(
        weights,
        tokens,
        WORDS,
        layer_names=["L1", "L2"],
        head_names=["h1", "h2", "h3"],
        palette="colorblind",
        stage="before",
    )
    assert [len(row) for row in views] == [3, 3]
    upper = np.triu(np.ones((4, 4), dtype=bool), k=1)
    for layer, row in enumerate(views):
        for head, view in enumerate(row):
            assert np.array_equal(view.values, weights[layer, head].numpy().astype(np.float64))
            assert np.array_equal(view.hidden, upper), "future keys are hidden (grey)"
            assert view.title == f"L{layer + 1} · h{head + 1} · before"
            assert (view.kind, view.zrange, view.hidden_value) == ("sequential", (0.0, 1.0), 0.0)
            assert view.row_labels == view.col_labels == tuple(tokens), "as typed"
            assert (view.row_title, view.col_title) == (WORDS.query, WORDS.key)
            assert view.value_name == WORDS.attention_weight and view.palette == "colorblind"
    table = matrix_table(views[1][2], WORDS)  # 4 tokens: a table of the weights, to read
    assert table.row_labels == ("a", "<b>", "a·2", "c"), "repeated tokens told apart, as typed"
    assert table.cells[1][1].text == f"{weights[1, 2, 1, 1].item():.4f}"
    assert table.cells[1][2].text == "0", "a hidden weight is 0"
    unstaged = attention_map_views(
        weights[:1, :1], tokens, WORDS, layer_names=["L1"], head_names=["h1"], palette="default"
    )
    assert unstaged[0][0].title == "L1 · h1"


def test_attention_maps_refuse_what_they_cannot_label() -> None:
    weights = torch.full((1, 1, 3, 3), 1 / 3)
    names = {"layer_names": ["L"], "head_names": ["h"], "palette": "default"}
    with pytest.raises(ValueError, match="token labels"):
        attention_map_views(weights, ["a", "b"], WORDS, **names)
    with pytest.raises(ValueError, match="one name per layer"):
        attention_map_views(weights, ["a", "b", "c"], WORDS, **{**names, "layer_names": []})
    with pytest.raises(ValueError, match="layers, heads, T, T"):
        attention_map_views(weights[0], ["a", "b", "c"], WORDS, **names)


def test_pattern_scores_are_grouped_bars_layer_by_layer() -> None:
    scores = {
        "previous_token": torch.tensor([[0.9, 0.1], [0.2, 0.3]]),
        "induction": torch.tensor([[0.0, 0.05], [0.1, 0.85]]),
    }
    names = ["L1 H1", "L1 H2", "L2 H1", "L2 H2"]
    chart = pattern_scores_chart(
        scores,
        score_names={"previous_token": "previous", "induction": "induction"},
        head_names=names,
    )
    (panel,) = chart.panels
    previous, induction = panel.series
    assert panel.x.tick_labels == tuple(names) and chart.legend[0].name == "previous"
    assert np.allclose(previous.y, [0.9, 0.1, 0.2, 0.3])
    assert np.allclose(induction.y, [0.0, 0.05, 0.1, 0.85])
    assert induction.texts == ("0.00", "0.05", "0.10", "0.85")
    assert previous.x[0] < 0 < induction.x[0], "a head's bars side by side around its tick"
    with pytest.raises(ValueError, match="head names"):
        pattern_scores_chart(scores, score_names={}, head_names=names[:3])
