"""Train it: the untrained head beside the trained one, and the repeated-token labels explained."""

from __future__ import annotations

import numpy as np
import torch

from attention.examples import unique_labels
from attention.training import TrainConfig, train
from tests.apptest_support import figure_array, page_text, plotly_figures, run_page
from ui.train_jobs import QUEUE

INDUCTION_LINK = {"train_task": "induction", "train_steps": "6", "train_seed": "5"}
INDUCTION = TrainConfig(task="induction", seed=5, steps=6).resolved()


def test_initial_attention_is_the_model_before_its_first_step() -> None:
    cfg = TrainConfig(task="sort", seed=3, steps=5).resolved()
    stopped_at_start = train(cfg, on_progress=lambda record: False)  # stops after step 0
    assert stopped_at_start.steps_done == 0
    tokens = stopped_at_start.sample_tokens()
    untrained = stopped_at_start.attention(tokens)
    assert torch.equal(stopped_at_start.initial_attention(tokens), untrained)
    trained = train(cfg)
    assert torch.equal(trained.initial_attention(tokens), untrained)
    assert not torch.equal(trained.attention(tokens), untrained), "training moved the weights"


def test_the_page_shows_the_untrained_maps_beside_the_trained_ones() -> None:
    at = run_page("train", INDUCTION_LINK)
    at.button(key="train_run").click().run()
    assert not at.exception
    outcome = QUEUE.cached(INDUCTION)
    assert outcome is not None and outcome.untrained_attention is not None
    figures = plotly_figures(at)
    before = figures["train_fig_maps_untrained"]["data"]
    layers, heads = outcome.untrained_attention.shape[:2]
    assert len(before) == layers * heads
    z = figure_array(before[0]["z"])
    expected = outcome.untrained_attention[0, 0].numpy()
    visible = ~np.triu(np.ones(expected.shape, dtype=bool), k=1)
    assert np.allclose(z[visible], expected[visible], atol=1e-4)
    text = page_text(at)
    assert "Before training" in text and "After training" in text
    assert any("·" in label for label in unique_labels(list(outcome.labels)))
    assert "is the second" in text, "an induction sequence repeats tokens: the ·2 is explained"
