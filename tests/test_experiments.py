"""The teaching experiments: dropout in expectation, softmax saturation, quiz questions."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.experiments import (
    MAX_QUIZ_TOKENS,
    dropout_average,
    dropout_average_error,
    dropout_draws,
    loglog_slope,
    quiz_kinds,
    quiz_question,
    random_queries_keys,
    row_entropy,
    saturation_example_row,
    score_variance,
    softmax_gradient_norm,
    softmax_saturation,
)
from tests.cases import subcases

BOOK_WEIGHTS = trace_attention(BOOK_EMBEDDINGS, AttentionConfig()).attn_weights[0]  # (6, 6)
D_K_VALUES = [1, 4, 16, 64, 256]


@pytest.fixture
def rng_state() -> torch.Tensor:
    """The global RNG moved away from a fresh seed; tests check it is untouched afterwards."""
    torch.manual_seed(2024)
    torch.rand(5)
    return torch.get_rng_state()


# --- dropout in expectation ----------------------------------------------------------------------


@subcases("p", [0.1, 0.5, 0.9])
def test_first_draw_is_exactly_nn_dropout_after_the_same_seed(p: float) -> None:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(7)
        layer = nn.Dropout(p)
        layer.train()
        expected = layer(BOOK_WEIGHTS)
    assert torch.equal(dropout_draws(BOOK_WEIGHTS, p, 1, seed=7)[0], expected)
    average_of_one = dropout_average(BOOK_WEIGHTS, p, 1, seed=7)
    assert torch.equal(average_of_one, expected.to(torch.float64))
    curve = dropout_average_error(BOOK_WEIGHTS, p, 1, seed=7)
    assert float(curve["max_abs_error"][0]) == pytest.approx(
        float((expected.double() - BOOK_WEIGHTS.double()).abs().max())
    )


def test_draws_keep_or_drop_and_scale_by_one_over_one_minus_p() -> None:
    p = 0.25
    draws = dropout_draws(BOOK_WEIGHTS, p, 50, seed=1)  # (50, 6, 6)
    ratio = draws / BOOK_WEIGHTS.clamp_min(1e-12)
    kept = draws != 0
    assert torch.allclose(ratio[kept], torch.full_like(ratio[kept], 1 / (1 - p)))
    assert bool((draws[:, BOOK_WEIGHTS == 0] == 0).all())  # masked weights stay 0


def test_error_falls_as_more_draws_are_averaged() -> None:
    curve = dropout_average_error(BOOK_WEIGHTS, 0.5, 2000, seed=123)
    rms = curve["rms_error"]
    assert rms.shape == (2000,)
    decades = [float(rms[n - 1]) for n in (1, 10, 100, 1000)]
    assert decades == sorted(decades, reverse=True)
    assert float(rms[1999]) < 0.1 * float(rms[0])
    assert float(curve["max_abs_error"][1999]) < float(curve["max_abs_error"][0])


@subcases("p", [0.1, 0.5, 0.9])
def test_error_slope_in_log_log_is_minus_one_half(p: float) -> None:
    # One path of a running mean wanders (its errors are correlated across N), so a single
    # seed's slope scatters by about ±0.05: check each loosely and their average tightly.
    slopes = [dropout_average_error(BOOK_WEIGHTS, p, 2000, seed=seed)["slope"] for seed in range(8)]
    assert all(-0.75 < slope < -0.25 for slope in slopes), slopes
    assert sum(slopes) / len(slopes) == pytest.approx(-0.5, abs=0.06)


def test_reference_curve_is_the_theory_c_over_sqrt_n() -> None:
    p = 0.5
    curve = dropout_average_error(BOOK_WEIGHTS, p, 400, seed=3)
    visible = BOOK_WEIGHTS[BOOK_WEIGHTS > 0].double()
    c = math.sqrt(p / (1 - p) * float(visible.pow(2).mean()))
    assert curve["reference_constant"] == pytest.approx(c)
    n = curve["draws"].double()
    assert torch.allclose(curve["reference"], c / n.sqrt())
    # The measured RMS follows the theory within Monte Carlo noise at large N.
    assert float(curve["rms_error"][-1]) == pytest.approx(float(curve["reference"][-1]), rel=0.5)


def test_running_mean_equals_the_average_of_the_first_n_draws() -> None:
    curve = dropout_average_error(BOOK_WEIGHTS, 0.3, 200, seed=11)
    for n in (1, 17, 200):
        average = dropout_average(BOOK_WEIGHTS, 0.3, n, seed=11)
        error = (average - BOOK_WEIGHTS.double()).abs().max()
        assert float(curve["max_abs_error"][n - 1]) == pytest.approx(float(error), abs=1e-12)


def test_log_spaced_points_start_at_one_and_end_at_max() -> None:
    curve = dropout_average_error(BOOK_WEIGHTS, 0.5, 1000, seed=0, num_points=20)
    draws = curve["draws"].tolist()
    assert draws[0] == 1 and draws[-1] == 1000
    assert draws == sorted(set(draws))
    assert len(curve["rms_error"]) == len(draws)


def test_dropout_experiment_is_reproducible_and_leaves_the_global_rng_alone(
    rng_state: torch.Tensor,
) -> None:
    first = dropout_average_error(BOOK_WEIGHTS, 0.5, 300, seed=42)
    second = dropout_average_error(BOOK_WEIGHTS, 0.5, 300, seed=42)
    other = dropout_average_error(BOOK_WEIGHTS, 0.5, 300, seed=43)
    assert torch.equal(first["rms_error"], second["rms_error"])
    assert not torch.equal(first["rms_error"], other["rms_error"])
    assert torch.equal(torch.get_rng_state(), rng_state)


def test_no_dropout_means_no_error() -> None:
    curve = dropout_average_error(BOOK_WEIGHTS, 0.0, 10, seed=0)
    assert float(curve["rms_error"].abs().max()) == 0.0
    assert curve["reference_constant"] == 0.0


@subcases("p", [-0.1, 1.0, 1.5])
def test_dropout_rate_outside_zero_one_is_refused(p: float) -> None:
    with pytest.raises(ValueError, match="p must be"):
        dropout_average_error(BOOK_WEIGHTS, p, 10, seed=0)


def test_too_many_draws_for_memory_are_refused() -> None:
    with pytest.raises(ValueError, match="too much"):
        dropout_draws(torch.ones(100, 100), 0.5, 10_000, seed=0)


def test_loglog_slope_of_a_power_law() -> None:
    n = torch.arange(1, 101, dtype=torch.float64)
    assert loglog_slope(n, 3.0 / n.sqrt()) == pytest.approx(-0.5)
    assert loglog_slope(n, 2.0 * n) == pytest.approx(1.0)
    assert math.isnan(loglog_slope([1.0], [1.0]))


# --- why √d_k -----------------------------------------------------------------------------------------


def test_entropy_falls_with_d_k_without_scaling() -> None:
    result = softmax_saturation(D_K_VALUES, 8, seed=0, scaled=False)
    entropy = result["mean_entropy"]
    assert entropy == sorted(entropy, reverse=True)
    assert entropy[-1] < 0.3 * result["uniform_entropy"]
    assert result["mean_max_weight"][-1] > 0.9
    assert result["mean_gradient_norm"][-1] < 0.5 * result["mean_gradient_norm"][0]


def test_entropy_stays_roughly_flat_with_scaling() -> None:
    result = softmax_saturation(D_K_VALUES, 8, seed=0, scaled=True)
    entropy = result["mean_entropy"]
    assert max(entropy) - min(entropy) < 0.25 * result["uniform_entropy"]
    assert max(result["mean_max_weight"]) < 0.6


@subcases("seed", [0, 123])
def test_score_variance_grows_like_d_k_and_scaling_keeps_it_near_one(seed: int) -> None:
    unscaled = softmax_saturation([16, 64, 256], 8, seed=seed, scaled=False)
    scaled = softmax_saturation([16, 64, 256], 8, seed=seed, scaled=True)
    for d_k, raw, divided in zip(
        unscaled["d_k"], unscaled["score_variance"], scaled["score_variance"], strict=True
    ):
        assert raw == pytest.approx(d_k, rel=0.5)
        assert divided == pytest.approx(raw / d_k)
        assert divided == pytest.approx(1.0, rel=0.5)


def test_saturation_experiment_says_no_causal_mask_and_leaves_rng_alone(
    rng_state: torch.Tensor,
) -> None:
    result = softmax_saturation([4], 8, seed=1, scaled=True)
    assert result["uniform_entropy"] == pytest.approx(math.log(8))
    assert result["num_tokens"] == 8
    queries, keys = random_queries_keys(4, 3, 8, seed=1)
    assert queries.shape == (3, 4) and keys.shape == (8, 4)
    assert torch.equal(random_queries_keys(4, 3, 8, seed=1)[0], queries)
    assert torch.equal(torch.get_rng_state(), rng_state)


def test_example_row_is_the_first_query_of_the_experiment() -> None:
    queries, keys = random_queries_keys(64, 1, 8, seed=5)
    row = saturation_example_row(64, 8, seed=5, scaled=False)
    assert torch.allclose(row["scores"], (queries @ keys.T)[0])
    assert torch.allclose(row["weights"], torch.softmax(row["scores"], dim=-1))
    assert row["max_weight"] == pytest.approx(float(row["weights"].max()))
    scaled = saturation_example_row(64, 8, seed=5, scaled=True)
    assert torch.allclose(scaled["scores"], row["scores"] / 8.0)
    assert scaled["entropy"] > row["entropy"]


def test_entropy_and_gradient_of_uniform_and_one_hot_rows() -> None:
    uniform = torch.full((4,), 0.25, dtype=torch.float64)
    one_hot = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=torch.float64)
    assert float(row_entropy(uniform)) == pytest.approx(math.log(4))
    assert float(row_entropy(one_hot)) == 0.0
    assert float(softmax_gradient_norm(one_hot)) == 0.0
    assert float(softmax_gradient_norm(uniform)) > 0.3


def test_trace_score_variance_is_divided_by_d_k_by_the_scaling() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=4, seed=9))
    raw = score_variance(trace.attn_scores[0], trace.mask)
    scaled = score_variance(trace.scaled_scores[0], trace.mask)
    visible = trace.attn_scores[0][~trace.mask].double()
    assert raw == pytest.approx(float(visible.var(unbiased=False)))
    assert scaled == pytest.approx(raw / trace.d_k, rel=1e-5)


# --- predict, then reveal --------------------------------------------------------------------------


def _trace(**changes: object) -> object:
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(**changes))  # type: ignore[arg-type]


def test_argmax_question_answer_is_the_argmax_of_the_trace_row() -> None:
    trace = _trace(seed=7)
    for number in range(0, 15, 3):  # the argmax questions without dropout
        question = quiz_question(trace, number)
        assert question.kind == "argmax"
        row = trace.attn_weights[0, question.query]
        assert question.options == tuple(str(j) for j in range(question.query + 1))
        assert str(int(row[: question.query + 1].argmax())) in question.correct
        assert question.row == tuple(row.tolist())
        assert question.value == pytest.approx(float(row.max()))


def test_argmax_questions_visit_every_query_with_a_choice() -> None:
    trace = _trace()
    queries = {quiz_question(trace, number).query for number in range(0, 30, 3)}
    assert queries == {1, 2, 3, 4, 5}


def test_masked_cell_questions_ask_about_a_future_key() -> None:
    trace = _trace(seed=3)
    for number in range(20):
        question = quiz_question(trace, number)
        if question.kind not in ("masked_after", "masked_before"):
            continue
        assert question.key is not None and question.key > question.query
        assert bool(trace.mask[question.query, question.key])
        if question.kind == "masked_after":
            assert question.correct == {"zero"}
            assert float(trace.attn_weights[0, question.query, question.key]) == 0.0
        else:
            assert question.correct == {"minus_inf"}
            assert question.row[question.key] == -math.inf
        raw = float(trace.attn_scores[0, question.query, question.key])
        assert question.value == pytest.approx(raw)


def test_row_sum_question_only_with_dropout_and_answered_from_the_dropped_row() -> None:
    assert "row_sum" not in quiz_kinds(6, dropout_active=False)
    trace = _trace(dropout=0.5, seed=1)
    kinds = quiz_kinds(6, dropout_active=True)
    assert kinds == ("argmax", "masked_after", "masked_before", "row_sum")
    question = quiz_question(trace, 3)
    assert question.kind == "row_sum"
    row_sum = float(trace.dropped_weights[0, question.query].sum())
    assert question.value == pytest.approx(row_sum)
    assert question.correct == {"yes" if abs(row_sum - 1) < 1e-5 else "no"}
    assert question.is_correct(next(iter(question.correct)))
    assert not question.is_correct(None)


def test_questions_are_deterministic_and_kinds_take_turns() -> None:
    trace = _trace()
    first = [quiz_question(trace, n) for n in range(9)]
    again = [quiz_question(trace, n) for n in range(9)]
    assert first == again
    assert [q.kind for q in first[:3]] == ["argmax", "masked_after", "masked_before"]


def test_one_token_gets_only_the_trivial_argmax_question() -> None:
    trace = trace_attention([[0.1, 0.2, 0.3]], AttentionConfig())
    assert quiz_kinds(1, dropout_active=False) == ("argmax",)
    question = quiz_question(trace, 4)
    assert question.kind == "argmax" and question.options == ("0",)
    assert question.correct == {"0"}


def test_questions_stay_within_the_first_tokens_and_count_ties() -> None:
    words = torch.tensor([[0.5, 0.1, 0.2]] * 14)  # identical tokens: every weight ties
    trace = trace_attention(words, AttentionConfig())
    for number in range(12):
        question = quiz_question(trace, number)
        assert question.query < MAX_QUIZ_TOKENS
        if question.kind == "argmax":
            assert question.correct == set(question.options)


def test_quiz_needs_one_head() -> None:
    trace = _trace(d_out=4, num_heads=2)
    with pytest.raises(ValueError, match="one-head"):
        quiz_question(trace, 0)
