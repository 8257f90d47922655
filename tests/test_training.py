"""Training a tiny GPT built from the book's MultiHeadAttention: tasks, determinism, learning, API.

Budgets are small (a few hundred steps, one intra-op thread) so that each test takes seconds; the
learning assertions have wide margins over chance but can fail (an untrained model is at chance).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest
import torch
import torch.nn as nn

from attention.modules import MultiHeadAttention
from attention.tasks import (
    IGNORE,
    MAX_TEXT_BYTES,
    TEXT_HELD_OUT_FRACTION,
    InductionTask,
    TextTask,
    held_out_mask,
    make_task,
)
from attention.training import (
    PrivateDropout,
    TrainConfig,
    TrainResult,
    build_model,
    compare_dropout,
    private_dropout,
    seeded_generator,
    task_for,
    train,
)
from attention.validate import AttentionInputError
from tests.cases import subcases

SMALL_TEXT = TrainConfig(task="text", seed=1, steps=30, log_every=10, dropout=0.3)


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    """One intra-op thread: tiny models train several times faster on a busy 2-core machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def trained_copy() -> TrainResult:
    """The copy task at its small budget (the copy case of LEARNING_CASES), trained once."""
    return train(LEARNING_CASES["copy"][0])


@pytest.fixture(scope="module")
def small_text() -> TrainResult:
    """``train(SMALL_TEXT)``, once for the tests that compare other runs with it."""
    return train(SMALL_TEXT)


def _same_weights(a: nn.Module, b: nn.Module) -> bool:
    state_a, state_b = a.state_dict(), b.state_dict()
    return state_a.keys() == state_b.keys() and all(
        torch.equal(state_a[k], state_b[k]) for k in state_a
    )


# --- determinism -------------------------------------------------------------------------------


def test_same_config_trains_bitwise_same_weights_even_while_a_thread_uses_the_global_rng() -> None:
    # a few steps with dropout suffice: every step draws batches and masks (the noise thread
    # burns a core all the while, so the run is kept short)
    short = replace(SMALL_TEXT, steps=8, log_every=4)
    torch.manual_seed(2024)
    before = torch.get_rng_state()
    first = train(short)
    assert torch.equal(torch.get_rng_state(), before), "training touched the global generator"

    stop = threading.Event()

    def draw_globally() -> None:  # what another Streamlit session might do meanwhile
        while not stop.is_set():
            torch.manual_seed(7)
            torch.rand(256)
            torch.nn.functional.dropout(torch.ones(64), 0.5)

    noise = threading.Thread(target=draw_globally)
    noise.start()
    try:
        second = train(short)
    finally:
        stop.set()
        noise.join()
    assert _same_weights(first.model, second.model)
    assert first.history == second.history


def test_two_trainings_in_threads_at_once_give_what_they_give_alone(
    small_text: TrainResult,
) -> None:
    other = TrainConfig(task="copy", seed=3, steps=30, log_every=10, dropout=0.2)
    alone = [small_text, train(other)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = [
            f.result(timeout=600) for f in [pool.submit(train, c) for c in (SMALL_TEXT, other)]
        ]
    for a, b in zip(alone, together, strict=True):
        assert _same_weights(a.model, b.model) and a.history == b.history


def test_seed_and_dropout_change_the_weights_but_dropout_keeps_data_and_init(
    small_text: TrainResult,
) -> None:
    base = small_text
    other_seed = train(TrainConfig(**{**SMALL_TEXT.__dict__, "seed": 2}))
    no_dropout = train(TrainConfig(**{**SMALL_TEXT.__dict__, "dropout": 0.0}))
    assert not _same_weights(base.model, other_seed.model)
    assert not _same_weights(base.model, no_dropout.model)
    assert base.history[0] == no_dropout.history[0]  # same initial weights, same evaluation sets
    assert base.history[1] != no_dropout.history[1]


def test_model_is_built_without_drawing_from_the_global_generator_and_has_the_books_mask() -> None:
    cfg = TrainConfig(task="induction", seed=5).resolved()
    task = task_for(cfg)
    torch.manual_seed(11)
    before = torch.get_rng_state()
    model_a = build_model(task, cfg, seeded_generator(5, "init"))
    assert torch.equal(torch.get_rng_state(), before)
    model_b = build_model(task, cfg, seeded_generator(5, "init"))
    assert _same_weights(model_a, model_b)
    book = MultiHeadAttention(cfg.width, cfg.width, task.context_length, 0.0, cfg.heads)
    for att in model_a.attention_layers():
        assert type(att) is MultiHeadAttention and type(att.dropout) is nn.Dropout
        assert torch.equal(att.mask, book.mask)


def test_private_dropout_keeps_or_drops_and_scales_like_nn_dropout() -> None:
    x = torch.rand(4, 50, generator=torch.Generator().manual_seed(0)) + 0.5
    layer = PrivateDropout(0.25, torch.Generator().manual_seed(1))
    dropped = layer(x)
    kept = dropped != 0
    assert torch.allclose(dropped[kept], x[kept] / 0.75)
    assert 0.6 < kept.float().mean() < 0.9  # 200 coin flips with P(keep) = 0.75
    again = PrivateDropout(0.25, torch.Generator().manual_seed(1))(x)
    assert torch.equal(dropped, again)
    assert torch.equal(layer.eval()(x), x)


# --- tasks -------------------------------------------------------------------------------------


@subcases("name", ["copy", "reverse", "sort"])
def test_digit_task_answers_are_the_known_answer(name: str) -> None:
    task = make_task(name, length=8)
    batch = task.sample(64, torch.Generator().manual_seed(0))
    assert batch.inputs.shape == batch.targets.shape == (64, 15)
    problem = batch.inputs[:, :8]
    answer = batch.targets[:, 7:]  # the query at position 7 + i predicts answer token i
    expected = {
        "copy": problem,
        "reverse": problem.flip(1),
        "sort": problem.sort(dim=1).values,
    }[name]
    assert torch.equal(answer, expected)
    assert (batch.targets[:, :7] == IGNORE).all()
    assert torch.equal(batch.inputs[:, 8:], answer[:, :-1])  # the model sees the answer so far
    if name != "sort":
        rows = torch.arange(64)[:, None]
        sources = batch.sources[:, 7:]
        assert torch.equal(batch.inputs[rows, sources], answer)  # the source holds the answer


def test_induction_sequences_repeat_one_segment_with_varying_period_and_offset() -> None:
    task = make_task("induction", context_length=32)
    assert isinstance(task, InductionTask)
    batch = task.sample(200, torch.Generator().manual_seed(3))
    assert batch.inputs.shape == (200, 32)
    answered = batch.targets != IGNORE
    rows = torch.arange(200)[:, None].expand(-1, 32)
    # the induction source (the token after the earlier copy) holds the answer
    assert torch.equal(
        batch.inputs[rows[answered], batch.sources[answered]], batch.targets[answered]
    )
    # … and the token before it is the current token: the earlier occurrence of the query token
    query_tokens = batch.inputs[answered]
    assert torch.equal(batch.inputs[rows[answered], batch.sources[answered] - 1], query_tokens)
    segment_lengths = answered.sum(dim=1) + 1
    first_answer = answered.float().argmax(dim=1)
    assert len(set(segment_lengths.tolist())) >= 4  # the segment length varies
    assert len(set(first_answer.tolist())) >= 8  # so does where the second copy starts
    first_copy = batch.sources.gather(1, first_answer[:, None])[:, 0] - 1
    assert len(set((first_answer - first_copy).tolist())) >= 4  # and the period
    assert (first_answer - first_copy >= segment_lengths).all()  # the copies do not overlap


@subcases("name", ["copy", "sort", "induction"])
def test_held_out_sequences_never_appear_in_training(name: str) -> None:
    task = make_task(name)
    training = task.sample(2000, torch.Generator().manual_seed(0))
    held_out = task.sample(500, torch.Generator().manual_seed(0), held_out=True)
    seen = {tuple(row) for row in training.inputs.tolist()}
    assert not any(tuple(row) in seen for row in held_out.inputs.tolist())
    assert not held_out_mask(training.inputs[:, : task.context_length]).all()


def test_text_task_holds_out_the_last_tenth_and_labels_characters() -> None:
    text = "the cat sat on the mat. " * 40
    task = make_task("text", context_length=16, text=text)
    assert isinstance(task, TextTask)
    held_out = task.sample(50, torch.Generator().manual_seed(0), held_out=True)
    split = int(len(text) * (1 - TEXT_HELD_OUT_FRACTION))
    tail = task.encoded[split:]
    for row in held_out.inputs:
        assert any(torch.equal(row, tail[s : s + 16]) for s in range(len(tail) - 16))
    assert torch.equal(held_out.targets[:, :-1], held_out.inputs[:, 1:])  # next characters
    assert task.decode(task.encode("a t")) == ["a", "␣", "t"]


# --- learning within a small budget ------------------------------------------------------------

LEARNING_CASES = {
    "copy": (TrainConfig(task="copy", steps=150, log_every=50), 0.9),
    "reverse": (TrainConfig(task="reverse", steps=150, log_every=50), 0.9),
    "sort": (TrainConfig(task="sort", steps=150, log_every=50, length=6), 0.9),
    "induction": (
        TrainConfig(
            task="induction", steps=300, log_every=100, context_length=16, width=32,
            learning_rate=5e-3, batch_size=64,
        ),
        0.8,
    ),
}  # fmt: skip


@subcases("name", list(LEARNING_CASES))
def test_task_is_learned_far_above_chance_within_a_small_budget(
    name: str, trained_copy: TrainResult
) -> None:
    cfg, target = LEARNING_CASES[name]
    result = trained_copy if name == "copy" else train(cfg)  # the fixture is this copy run
    chance = 1 / result.task.vocab_size
    assert result.history[0]["val_accuracy"] < 3 * chance  # untrained: near chance
    assert result.evaluate(n=300, seed=7) >= target


def test_text_model_learns_characters_within_a_small_budget() -> None:
    result = train(TrainConfig(task="text", steps=100, log_every=50))
    first, last = result.history[0], result.history[-1]
    assert first["val_loss"] > 0.9 * math.log(result.task.vocab_size)  # starts near uniform
    assert last["val_loss"] < 0.75 * first["val_loss"]
    assert "val_accuracy" not in last
    assert result.evaluate(n=50) > 2 / result.task.vocab_size


# --- the result's API --------------------------------------------------------------------------


def test_history_records_and_evaluate(trained_copy: TrainResult) -> None:
    steps = [r["step"] for r in trained_copy.history]
    assert steps == [0, 50, 100, 150]
    assert set(trained_copy.history[-1]) == {"step", "train_loss", "val_loss", "val_accuracy"}
    assert trained_copy.evaluate(n=1000, seed=7) == trained_copy.evaluate(n=1000, seed=7)
    assert not trained_copy.stopped_early and trained_copy.steps_done == 150


def test_attention_weights_are_the_books_softmax_of_the_layer_inputs(
    trained_copy: TrainResult,
) -> None:
    tokens = trained_copy.sample_tokens()
    assert tokens.shape == (15,)
    weights = trained_copy.attention(tokens)
    assert weights.shape == (1, 1, 15, 15)  # (layers, heads, T, T)
    x, module = trained_copy.attention_layer_inputs(tokens, layer=0)
    assert isinstance(module, MultiHeadAttention) and not module.training
    block = trained_copy.model.trf_blocks[0]
    positions = torch.arange(15)
    embedded = trained_copy.model.tok_emb(tokens) + trained_copy.model.pos_emb(positions)
    assert torch.allclose(x[0], block.norm1(embedded), atol=1e-6)
    # softmax(q kᵀ / √d_k) with the causal mask, recomputed from the module's own weights
    queries, keys = module.W_query(x[0]), module.W_key(x[0])  # (T, d_out), one head
    scores = (queries @ keys.T).masked_fill(torch.triu(torch.ones(15, 15), 1).bool(), -torch.inf)
    expected = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
    assert torch.allclose(weights[0, 0], expected, atol=1e-6)


def test_copy_head_attends_to_the_source_position(trained_copy: TrainResult) -> None:
    scores = trained_copy.pattern_scores(n=100)
    assert set(scores) == {"source"} and scores["source"].shape == (1, 1)
    assert float(scores["source"].max()) > 0.5  # an untrained head spreads over ~8-15 positions


def test_attention_rejects_bad_tokens_with_clear_messages(trained_copy: TrainResult) -> None:
    with pytest.raises(AttentionInputError, match="Token 2 is 10"):
        trained_copy.attention([1, 10, 2])
    with pytest.raises(AttentionInputError, match="more than the model's context of 15"):
        trained_copy.attention([1] * 16)
    with pytest.raises(AttentionInputError, match="whole-number"):
        trained_copy.attention([0.5, 1.0])


# --- on_progress -------------------------------------------------------------------------------


def test_on_progress_returning_false_stops_early_and_none_continues() -> None:
    seen: list[dict[str, float]] = []

    def stop_at_step_20(record: dict[str, float]) -> bool | None:
        seen.append(record)
        return False if record["step"] >= 20 else None

    result = train(TrainConfig(task="copy", steps=100, log_every=10), on_progress=stop_at_step_20)
    assert [r["step"] for r in seen] == [0, 10, 20]
    assert result.history == seen and result.stopped_early and result.steps_done == 20


def test_an_error_in_on_progress_propagates_out_of_train() -> None:
    def fail(record: dict[str, float]) -> None:
        if record["step"] == 10:
            raise KeyboardInterrupt  # a user interrupting a notebook cell

    with pytest.raises(KeyboardInterrupt):
        train(TrainConfig(task="copy", steps=20, log_every=10), on_progress=fail)


def test_private_dropout_is_swapped_in_only_inside_the_with_block_even_after_an_error() -> None:
    cfg = TrainConfig(task="text", dropout=0.2).resolved()
    model = build_model(task_for(cfg), cfg, seeded_generator(0, "init"))
    with pytest.raises(RuntimeError), private_dropout(model, torch.Generator()):
        assert all(type(att.dropout) is PrivateDropout for att in model.attention_layers())
        raise RuntimeError("stop")
    for att in model.attention_layers():
        assert type(att.dropout) is nn.Dropout and att.dropout.p == 0.2


# --- bad input ---------------------------------------------------------------------------------

BAD_CONFIGS = [
    (TrainConfig(task="translate"), "task", "task must be one of"),
    (TrainConfig(task="copy", heads=3, width=64), "width", "cannot be split evenly into 3 heads"),
    (TrainConfig(task="copy", dropout=1.0), "dropout", "must be below 1"),
    (TrainConfig(task="copy", dropout=-0.1), "dropout", "between 0 and 1"),
    (TrainConfig(task="copy", steps=0), "steps", "between 1 and"),
    (TrainConfig(task="copy", layers=2.5), "layers", "whole number"),  # type: ignore[arg-type]
    (TrainConfig(task="copy", learning_rate=float("nan")), "learning_rate", "above 0"),
    (TrainConfig(task="copy", text="abc"), "text", "only used by the text task"),
    (TrainConfig(task="text", text=""), "text", "empty"),
    (TrainConfig(task="text", text=" \n\t "), "text", "empty"),
    (TrainConfig(task="text", text=b"\x89PNG\r\n\x1a\n\x00\x00"), "text", "not UTF-8"),
    (TrainConfig(task="text", text="ab\x00cd" * 200), "text", "NUL"),
    (TrainConfig(task="text", text=b"a" * (MAX_TEXT_BYTES + 1)), "text", "too large"),
    (TrainConfig(task="text", text="a" * 1000), "text", "only 1 distinct character"),
    (TrainConfig(task="text", text="short text"), "text", "too short"),
    (TrainConfig(task="text", text=12), "text", "str or the bytes"),  # type: ignore[arg-type]
    (TrainConfig(task="text", text=12345), "text", "got int 12345"),  # type: ignore[arg-type]
]


def test_a_config_is_checked_once_and_a_changed_copy_again() -> None:
    resolved = TrainConfig(task="copy", seed=3).resolved()
    assert resolved.resolved() is resolved  # trusted: train() and build_model() check nothing more
    assert resolved == TrainConfig(task="copy", seed=3).resolved()  # the mark is not a field
    with pytest.raises(AttentionInputError, match="between 0 and 1") as caught:
        replace(resolved, dropout=-0.1).resolved()  # a copy with a new value is not trusted
    assert caught.value.field == "dropout"


@subcases(("cfg", "field", "message"), BAD_CONFIGS)
def test_bad_settings_and_texts_give_a_clear_error_naming_the_field(
    cfg: TrainConfig, field: str, message: str
) -> None:
    with pytest.raises(AttentionInputError, match=message) as caught:
        train(cfg)
    assert caught.value.field == field


@subcases("cfg", [None, {"task": "copy"}, "copy", 42])
def test_a_config_of_the_wrong_type_is_named_in_train_and_compare_dropout(cfg: Any) -> None:
    for function in (train, compare_dropout):
        if cfg is None and function is compare_dropout:
            continue  # None means "the text task's defaults" there
        with pytest.raises(AttentionInputError, match="must be a TrainConfig") as caught:
            function(cfg)
        assert caught.value.field == "cfg" and type(cfg).__name__ in str(caught.value)


def test_resolved_keeps_any_text_as_hashable_utf8_bytes() -> None:
    text = "Tiny text, ünïcode too. " * 20
    as_str = TrainConfig(task="text", text=text).resolved()
    as_bytearray = TrainConfig(task="text", text=bytearray(text.encode())).resolved()
    as_memoryview = TrainConfig(task="text", text=memoryview(text.encode())).resolved()
    assert as_str.text == text.encode() and as_str == as_bytearray == as_memoryview
    assert len({as_str, as_bytearray, as_memoryview}) == 1, "one cache key for one text"


def test_should_stop_stops_before_the_next_step_and_measures_where_it_stopped() -> None:
    asked: list[int] = []

    def after_seven() -> bool:
        asked.append(1)
        return len(asked) > 7

    result = train(TrainConfig(task="copy", steps=100, log_every=50), should_stop=after_seven)
    assert result.stopped_early and result.steps_done == 7
    assert [r["step"] for r in result.history] == [0, 7]
    with pytest.raises(AttentionInputError, match="should_stop must be a function"):
        train(TrainConfig(task="copy", steps=1), should_stop=True)  # type: ignore[arg-type]


def test_a_user_text_trains_from_bytes_with_windows_line_endings() -> None:
    text = ("Attention is all you need.\r\n" * 30).encode("utf-8")
    result = train(TrainConfig(task="text", text=text, steps=5, log_every=5, context_length=16))
    assert "\r" not in result.task.text and "⏎" in result.task.vocab
    assert result.attention(result.sample_tokens()).shape == (2, 4, 16, 16)


# --- with and without dropout ------------------------------------------------------------------


def test_dropout_comparison_returns_two_consistent_runs() -> None:
    # a few steps suffice: what is checked is how the two runs relate, not what they learn
    cfg = TrainConfig(task="text", seed=4, steps=8, log_every=4)
    comparison = compare_dropout(cfg, dropout=0.3)
    assert comparison.steps == [0, 4, 8]
    curves = [
        comparison.train_loss_without,
        comparison.val_loss_without,
        comparison.train_loss_with,
        comparison.val_loss_with,
    ]
    assert all(len(curve) == 3 for curve in curves)
    assert (
        comparison.without.config.dropout == 0.0 and comparison.with_dropout.config.dropout == 0.3
    )
    # the same start (same init, same evaluation sets), then the dropout masks make a difference
    assert comparison.train_loss_without[0] == comparison.train_loss_with[0]
    assert comparison.val_loss_without[0] == comparison.val_loss_with[0]
    assert comparison.val_loss_without[-1] != comparison.val_loss_with[-1]
    alone = train(TrainConfig(task="text", seed=4, steps=8, log_every=4, dropout=0.3))
    assert [r["val_loss"] for r in alone.history] == comparison.val_loss_with
    assert comparison.gap_with == pytest.approx(
        comparison.val_loss_with[-1] - comparison.train_loss_with[-1]
    )
    assert comparison.gap_narrowed == (comparison.gap_with < comparison.gap_without)
    assert comparison.complete
    with pytest.raises(AttentionInputError, match="above 0 and below 1"):
        compare_dropout(cfg, dropout=0.0)


def test_stopping_the_first_run_of_a_comparison_skips_the_second() -> None:
    cfg = TrainConfig(task="copy", steps=50, log_every=10)
    comparison = compare_dropout(
        cfg, dropout=0.3, on_progress=lambda run, record: record["step"] < 10
    )
    assert comparison.with_dropout is None and not comparison.complete
    assert comparison.steps == [0, 10] and comparison.val_loss_with == []
    assert math.isnan(comparison.gap_with) and not comparison.gap_narrowed


def test_layer_inputs_of_the_second_block_are_its_norm_of_the_first_blocks_output() -> None:
    result = train(TrainConfig(task="induction", steps=2, log_every=2, context_length=16, width=32))
    tokens = result.sample_tokens()
    x, module = result.attention_layer_inputs(tokens, layer=1)
    model = result.model
    with torch.no_grad():
        hidden = model.tok_emb(tokens[None]) + model.pos_emb(torch.arange(16))
        hidden = model.trf_blocks[0](hidden)
        assert torch.equal(x, model.trf_blocks[1].norm1(hidden))
        assert module is model.trf_blocks[1].att
        assert torch.equal(result.attention(tokens)[1], result.attention_batch(tokens[None])[0, 1])
    with pytest.raises(AttentionInputError, match="layer must be between 0 and 1"):
        result.attention_layer_inputs(tokens, layer=2)
