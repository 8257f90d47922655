"""Train it: the untrained head beside the trained one, and the repeated-token labels explained."""

from __future__ import annotations

import numpy as np
import torch

from attention.examples import unique_labels
from attention.training import TrainConfig, train
from tests.apptest_support import matrix_images, page_text, run_page
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
    maps = {key: m for key, m in matrix_images(at).items() if key.startswith("train_fig_maps")}
    layers, heads = outcome.untrained_attention.shape[:2]
    keys = [f"train_fig_maps_{layer}_{head}" for layer in range(layers) for head in range(heads)]
    assert sorted(maps) == sorted(keys + [f"{key}_untrained" for key in keys])
    shown = np.array(maps["train_fig_maps_1_0_untrained"]["hover"]["values"], dtype=np.float64)
    assert np.allclose(shown, outcome.untrained_attention[1, 0].numpy(), atol=1e-6)
    titles = [maps[f"train_fig_maps_1_0{end}"]["title"] for end in ("_untrained", "")]
    assert titles == ["Layer 2 · head 1 · before training", "Layer 2 · head 1 · after training"]
    text = page_text(at)
    assert "Before training: the same model before its first step." in text
    assert any("·" in label for label in unique_labels(list(outcome.labels)))
    assert "is the second" in text, "an induction sequence repeats tokens: the ·2 is explained"
