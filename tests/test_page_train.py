"""The page "Train it", run in the app frame with AppTest, with tiny trainings (a dozen steps).

The page must show what the training measured, never numbers of its own: every expected value
here is read from the outcome the server's pool cached for that config (the one the page drew),
and the trained head's step-by-step figures are checked against ``TrainResult.attention``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention.examples import unique_labels
from attention.training import TrainConfig
from tests.apptest_support import (
    matrix_components,
    matrix_images,
    open_step_tab,
    page_text,
    run_page,
    svg_charts,
)
from ui.jobs import CRASHED, ERROR, TIME, Budget, JobFailure
from ui.train_jobs import QUEUE, CompareKey

SORT_LINK = {"train_task": "sort", "train_steps": "12", "train_seed": "3"}
SORT = TrainConfig(task="sort", seed=3, steps=12).resolved()


def metrics(at) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def test_first_visit_shows_the_controls_and_asks_to_train() -> None:
    at = run_page("train")
    assert not at.exception and not at.error and not at.warning
    assert at.title[0].value == "Train it"
    assert at.selectbox(key="train_task").value == "copy"
    assert (at.slider(key="train_layers").value, at.number_input(key="train_steps").value) == (
        1,
        300,
    )
    assert not at.button(key="train_run").disabled and at.button(key="train_stop").disabled
    assert "No training yet" in page_text(at)
    assert dict(at.query_params) == {}


def test_a_link_trains_and_the_page_shows_what_the_training_measured() -> None:
    at = run_page("train", {**SORT_LINK, "train_layers": "9"})
    [warning] = [w.value for w in at.warning]
    assert warning.startswith(
        "Link: “train\\_layers=9” is outside 1 to 4; the default is used instead."
    )
    assert "Reference `" in warning, "the operator's log line can be found from it"
    assert at.selectbox(key="train_task").value == "sort"
    assert at.slider(key="train_layers").value == 2, "the bad value fell back to sort's default"
    at.button(key="train_run").click().run()
    assert not at.exception and not at.error
    outcome = QUEUE.cached(SORT)
    assert outcome is not None and outcome.result.config == SORT
    last = outcome.result.history[-1]
    assert metrics(at) | {"Training time": ""} == {
        "Held-out accuracy": f"{outcome.accuracy:.1%}",
        "Final training loss": f"{last['train_loss']:.4f}",
        "Final validation loss": f"{last['val_loss']:.4f}",
        "Training time": "",
    }
    text = page_text(at)
    assert "**Trained:** Sort digits · layers 2 · heads 2 · width 64" in text
    assert "steps 12 · seed 3" in text
    assert f"**{' '.join(outcome.labels)}**" in text, "the held-out sequence is named"
    assert "no pattern score" in text, "sort has no single right position: said, not faked"

    maps = {key: m for key, m in matrix_images(at).items() if key.startswith("train_fig_maps")}
    for layer in range(2):
        for head in range(2):
            for key, attention in (
                (f"train_fig_maps_{layer}_{head}", outcome.attention),
                (f"train_fig_maps_{layer}_{head}_untrained", outcome.untrained_attention),
            ):
                hover = maps.pop(key)["hover"]
                shown = np.array(hover["values"], dtype=np.float64)
                expected = attention[layer, head].numpy()
                assert np.allclose(shown, expected, atol=1e-6)
                future = np.triu(np.ones(expected.shape, dtype=bool), k=1)
                assert all(  # the causal mask: future keys hidden (grey), never on the scale
                    (state == "h") == hidden
                    for states, row in zip(hover["states"], future, strict=True)
                    for state, hidden in zip(states, row, strict=True)
                )
                assert hover["row_labels"] == list(unique_labels(list(outcome.labels)))
    assert not maps, "one matrix per layer × head, before and after training: no other"
    assert "grey = masked (0)" in page_text(at), "a masked weight is 0, as the legend says"
    assert not at.get("plotly_chart"), "every matrix through the one matrix component"
    curves = svg_charts(at)["train_fig_curves"]["panels"][0]["series"]
    assert [round(y, 6) for y in curves[1]["y"]] == [
        round(record["val_loss"], 6) for record in outcome.result.history
    ]
    # the trained head, step by step: layer 1, head 1 of the trained model on the same sequence
    assert "train_step_fig_attn_weights" not in matrix_components(at), "a closed tab draws nothing"
    open_step_tab(at, "train_step_tabs", "softmax")
    hover = matrix_images(at)["train_step_fig_attn_weights"]["hover"]  # 15 × 15: a picture
    shown = np.array(hover["values"], dtype=np.float64)  # each cell's value, 6 decimals
    expected = outcome.attention[0, 0].numpy()
    lower = np.tril(np.ones(expected.shape, dtype=bool))
    assert np.allclose(shown[lower], expected[lower], atol=1e-6)
    text = page_text(open_step_tab(at, "train_step_tabs", "weights"))
    assert "Step 2 · The weight matrices W_query, W_key, W_value" in text
    assert "torch.manual_seed" not in text, "trained weights are not a seed's draw"
    assert "from its cache" not in text, "this session trained it just now"
    assert [b.label for b in at.get("download_button")] == [
        "Trained weights (.pt)",
        "Retrain-and-check script (.py)",
    ]
    assert dict(at.query_params) == SORT_LINK, "the address bar reproduces this training"


def test_a_model_of_many_heads_shows_its_maps_one_layer_at_a_time() -> None:
    link = {"train_layers": "2", "train_heads": "4", "train_steps": "4", "train_seed": "8"}
    at = run_page("train", link)
    at.button(key="train_run").click().run()
    assert not at.exception

    def shown() -> list[str]:
        return sorted(key for key in matrix_images(at) if key.startswith("train_fig_maps"))

    def keys(layer: int) -> list[str]:
        return sorted(
            f"train_fig_maps_{layer}_{head}{end}" for head in range(4) for end in ("", "_untrained")
        )

    assert shown() == keys(0), "2 × 4 maps: the first layer's, before and after"
    at.selectbox(key="train_maps_layer").set_value(1).run()
    assert shown() == keys(1)
    outcome = QUEUE.cached(TrainConfig(layers=2, heads=4, steps=4, seed=8).resolved())
    values = matrix_images(at)["train_fig_maps_1_3"]["hover"]["values"]
    assert np.allclose(
        np.array(values, dtype=np.float64), outcome.attention[1, 3].numpy(), atol=1e-6
    )


def test_a_classmate_opening_the_same_link_sees_the_result_at_once() -> None:
    first = run_page("train", SORT_LINK)
    if QUEUE.cached(SORT) is None:  # this test alone: train it once
        first.button(key="train_run").click().run()
    runs = QUEUE.runs
    at = run_page("train", SORT_LINK)
    assert not at.exception
    assert "Held-out accuracy" in metrics(at), "shown without pressing Train"
    assert "from its cache" in page_text(at)
    assert QUEUE.runs == runs, "nothing trained again"


def test_a_training_over_its_budget_stops_keeps_its_model_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's pool stops a run at its budget (``ATTENTION_LAB_JOB_CPU_S``, here lowered
    to 1 s of CPU); the training asked for takes far longer, so only the budget can stop it."""
    monkeypatch.setattr(QUEUE, "budget", Budget(cpu_seconds=1.0, wall_seconds=600.0))
    at = run_page("train", {"train_steps": "20000", "train_seed": "105"})
    at.button(key="train_run").click().run()
    assert not at.exception and not at.error
    said = [w.value for w in at.warning if "each training on this shared server" in w.value]
    assert len(said) == 1 and "may use 1 s of CPU (600 s of wall-clock time" in said[0]
    assert "Stopped after step" in said[0] and "of 20000" in said[0]
    assert "train_fig_maps_0_0" in matrix_images(at), "the model as it was is kept and drawn"
    assert "Held-out accuracy" in metrics(at)
    assert not at.button(key="train_run").disabled and at.button(key="train_stop").disabled
    stopped = TrainConfig(steps=20000, seed=105).resolved()
    assert QUEUE.cached(stopped) is None, "a stopped run is not what its settings train to"


def test_a_training_over_its_memory_is_ended_by_the_kernel_and_the_page_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker's address space is capped (``ATTENTION_LAB_JOB_MEMORY_MB``, here lowered to
    16 MB over what it starts with); the largest text model and its optimiser need more."""
    monkeypatch.setattr(QUEUE, "budget", Budget(cpu_seconds=600, wall_seconds=600, memory_mb=16))
    link = {"train_task": "text", "train_layers": "4", "train_width": "256", "train_heads": "8",
            "train_seed": "106"}  # fmt: skip
    at = run_page("train", link)
    at.button(key="train_run").click().run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert said == [
        "This training needed more memory than one training may use on this shared server "
        "(16 MB), so it was ended and nothing is kept. A smaller model fits (fewer layers or "
        "heads, a smaller width)."
    ]
    assert not at.button(key="train_run").disabled and at.button(key="train_stop").disabled


def test_every_way_a_worker_ends_without_an_outcome_is_said_in_plain_words() -> None:
    from pages.train import _failure_text

    budget = QUEUE.budget
    said = {kind: _failure_text(JobFailure(kind, "9")) for kind in (TIME, CRASHED, ERROR)}
    assert said[TIME].startswith("This training went past its time on this shared server")
    assert (
        f"({budget.cpu_seconds:g} s of CPU, {budget.wall_seconds:g} s of wall-clock" in said[TIME]
    )
    assert "ended unexpectedly (exit code 9)" in said[CRASHED]
    assert said[ERROR] == "These settings cannot be computed: 9"


def test_a_width_the_heads_cannot_split_is_named_and_the_result_stays() -> None:
    at = run_page("train", SORT_LINK)
    if not at.metric:
        at.button(key="train_run").click().run()
    at.number_input(key="train_heads").set_value(3).run()
    assert [e.value for e in at.error] == [
        "Width 64 cannot be split evenly into 3 heads: each head gets width / heads features, "
        "so the width must be divisible by 3 (for example 63)."
    ]
    assert at.button(key="train_run").disabled
    assert "Held-out accuracy" in metrics(at), "the last result stays"
    assert any("have changed" in info.value for info in at.info)
    assert at.query_params["train_heads"] == "3"


def test_choosing_a_task_loads_its_measured_defaults_and_keeps_the_seed() -> None:
    at = run_page("train", {"train_seed": "7"})
    at.selectbox(key="train_task").set_value("induction").run()
    assert not at.exception
    from attention.training import TASK_DEFAULTS

    induction = TASK_DEFAULTS["induction"]
    assert (induction.layers, induction.steps) != (
        TASK_DEFAULTS["copy"].layers,
        TASK_DEFAULTS["copy"].steps,
    )
    assert at.slider(key="train_layers").value == induction.layers
    assert at.number_input(key="train_heads").value == induction.heads
    assert at.number_input(key="train_steps").value == induction.steps
    assert at.number_input(key="train_seed").value == 7
    assert dict(at.query_params) == {"train_task": "induction", "train_seed": "7"}


def test_the_dropout_comparison_says_only_what_the_two_runs_measured() -> None:
    link = {
        "train_task": "text",
        "train_width": "16",
        "train_heads": "2",
        "train_steps": "8",
        "train_dropout": "0.3",
        "train_seed": "11",
    }
    at = run_page("train", link)
    assert not at.button(key="train_compare_run").disabled
    at.button(key="train_compare_run").click().run()
    assert not at.exception and not at.error
    cfg = TrainConfig(task="text", width=16, heads=2, steps=8, dropout=0.3, seed=11).resolved()
    comparison = QUEUE.cached(CompareKey(cfg, 0.3))
    assert comparison is not None
    text = page_text(at)
    from viz.vocabulary import format_number

    assert format_number(comparison.gap_without) in text
    assert format_number(comparison.gap_with) in text
    narrowed = "**Dropout narrowed the gap" in text
    assert narrowed == comparison.gap_narrowed, "the sentence follows the measured gaps"
    assert ("did not narrow the gap" in text) == (not comparison.gap_narrowed)
    curves = svg_charts(at)["train_fig_compare"]["panels"][0]["series"]
    assert len(curves) == 4
    assert list(curves[3]["y"]) == comparison.val_loss_with


def test_the_page_in_chinese() -> None:
    at = run_page("train", {"lang": "zh", "train_steps": "10", "train_seed": "5"})
    assert at.title[0].value == "动手训练"
    assert at.button(key="train_run").label == "训练"
    at.button(key="train_run").click().run()
    assert not at.exception
    assert "留出集准确率" in metrics(at)
    text = page_text(at)
    assert "每一层、每个头的注意力图" in text
    assert "第 1 层 · 头 1 · 训练之前" in text and "第 1 层 · 头 1 · 训练之后" in text
    assert torch.is_tensor(
        QUEUE.cached(TrainConfig(task="copy", steps=10, seed=5).resolved()).tokens
    )
