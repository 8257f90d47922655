"""Small experiments around the attention layer: the math behind the "teaching extras" pages.

* Why is dropout fair? Kept weights are scaled by ``1/(1 − p)``, so ``E[w · keep/(1 − p)] = w``;
  :func:`dropout_average_error` shows the error of an average of N draws falling like ``1/√N``.
* Why divide by √d_k? ``q · k`` sums ``d_k`` products, so its variance grows like ``d_k`` and
  softmax turns nearly one-hot (:func:`softmax_saturation`).
* Can I predict the weights? :func:`quiz_question` asks about a trace's own numbers.

Every function draws from its own seeded ``torch.Generator``; the global RNG is untouched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .randomness import dropout_noise, private_generator
from .trace import AttentionTrace
from .validate import (
    MAX_ATTENTION_CELLS,
    MAX_TOKENS,
    MAX_WIDTH,
    AttentionInputError,
    check_bool,
    check_instance,
    check_int,
    check_list,
    check_real,
    check_seed,
    check_tensor,
    describe,
)

__all__ = [
    "MAX_DROPOUT_CELLS",
    "QuizQuestion",
    "dropout_average",
    "dropout_average_error",
    "dropout_draws",
    "loglog_slope",
    "quiz_kinds",
    "quiz_question",
    "random_queries_keys",
    "row_entropy",
    "saturation_example_row",
    "score_variance",
    "softmax_gradient_norm",
    "softmax_saturation",
]

MAX_DROPOUT_CELLS = 20_000_000  # draws × weights kept in memory at once (80 MB of float32)
MAX_QUIZ_TOKENS = 10  # quiz questions are about the first tokens only (short option lists)


# --- dropout in expectation ----------------------------------------------------------------------


def _check_dropout_p(p: float) -> float:
    p = check_real("p", p, "a dropout probability in [0, 1)")
    if not 0.0 <= p < 1.0:
        raise AttentionInputError(
            f"p must be in [0, 1) to average dropout draws, got {p}", field="p"
        )
    return p


def _check_draws(name: str, num_draws: Any, seed: Any) -> int:
    check_seed(seed)
    return check_int(name, num_draws, 1, MAX_DROPOUT_CELLS, "how many dropout draws")


def _check_sizes(d_k: Any, num_queries: Any, num_tokens: Any, seed: Any) -> tuple[int, int, int]:
    """The sizes of the √d_k experiment: ``num_queries × (d_k + num_tokens)`` numbers at most."""
    check_seed(seed)
    d_k = check_int("d_k", d_k, 1, MAX_WIDTH, "the query and key width")
    num_queries = check_int("num_queries", num_queries, 1, MAX_TOKENS, "how many queries")
    num_tokens = check_int("num_tokens", num_tokens, 1, MAX_TOKENS, "how many keys")
    return d_k, num_queries, num_tokens


def _check_weights(name: str, weights: Any, most: int) -> None:
    """Attention weights: a non-empty tensor of real numbers with at most ``most`` of them."""
    check_tensor(name, weights)
    if weights.dim() == 0 or not 0 < weights.numel() <= most or weights.dtype == torch.bool:
        raise AttentionInputError(
            f"{name} must be rows of 1 to {most:,} attention weights; got {describe(weights)}.",
            field=name,
        )


def _check_series(name: str, values: Any) -> None:
    """One axis of a log-log fit: a 1-D tensor, or a list of at most a million real numbers."""
    if isinstance(values, torch.Tensor):
        if check_tensor(name, values).dim() == 1:
            return
    elif isinstance(values, list | tuple) and len(values) <= 1_000_000:
        for value in values:
            check_real(name, value, "a list of numbers")
        return
    raise AttentionInputError(
        f"{name} must be a list of numbers or a 1-D tensor; got {describe(values)}.", field=name
    )


def dropout_draws(attn_weights: torch.Tensor, p: float, num_draws: int, seed: int) -> torch.Tensor:
    """``num_draws`` dropouts of ``attn_weights``, ``(num_draws, *weights.shape)``, each
    ``nn.Dropout(p)``'s CPU draw from one private generator: draw 0 is
    ``torch.manual_seed(seed); nn.Dropout(p)(attn_weights)``.
    """
    _check_weights("attn_weights", attn_weights, MAX_DROPOUT_CELLS)
    p, num_draws = _check_dropout_p(p), _check_draws("num_draws", num_draws, seed)
    if num_draws * attn_weights.numel() > MAX_DROPOUT_CELLS:
        raise AttentionInputError(
            f"{num_draws} draws of {attn_weights.numel()} weights is too much to keep in memory; "
            "use fewer draws or a smaller block of weights"
        )
    weights = attn_weights.detach().to(torch.float32)
    generator = private_generator(seed)
    draws = torch.empty((num_draws, *weights.shape), dtype=torch.float32)  # (N, …)
    for n in range(num_draws):
        draws[n] = weights * dropout_noise(weights, p, generator)  # kept × 1/(1 − p), as nn.Dropout
    return draws


def dropout_average(
    attn_weights: torch.Tensor, p: float, num_draws: int, seed: int
) -> torch.Tensor:
    """The mean of the first ``num_draws`` draws (float64): the running mean
    :func:`dropout_average_error` measures at ``N = num_draws``.
    """
    draws = dropout_draws(attn_weights, p, num_draws, seed)  # (N, …)
    return draws.to(torch.float64).mean(dim=0)


def loglog_slope(x: Sequence[float] | torch.Tensor, y: Sequence[float] | torch.Tensor) -> float:
    """Least-squares slope of ``log y`` against ``log x``, points with ``y <= 0`` left out."""
    _check_series("x", x)
    _check_series("y", y)
    if len(x) != len(y):
        raise AttentionInputError(f"x and y must be as long: {len(x):,} and {len(y):,} values.")
    xs = torch.as_tensor(x, dtype=torch.float64)
    ys = torch.as_tensor(y, dtype=torch.float64)
    keep = (xs > 0) & (ys > 0)
    log_x, log_y = xs[keep].log(), ys[keep].log()
    if log_x.numel() < 2:
        return float("nan")
    log_x_centred = log_x - log_x.mean()
    denominator = float((log_x_centred**2).sum())
    if denominator == 0.0:
        return float("nan")
    return float((log_x_centred * (log_y - log_y.mean())).sum()) / denominator


def _log_spaced(max_value: int, num_points: int) -> torch.Tensor:
    """Distinct integers from 1 to ``max_value``, evenly spread on a log scale."""
    points = torch.logspace(0.0, math.log10(max_value), steps=num_points, dtype=torch.float64)
    values = torch.unique(points.round().to(torch.int64).clamp(1, max_value))
    if int(values[-1]) != max_value:
        values = torch.cat([values, torch.tensor([max_value])])
    return values


def dropout_average_error(
    attn_weights: torch.Tensor,
    p: float,
    max_draws: int,
    seed: int,
    *,
    num_points: int | None = None,
) -> dict[str, Any]:
    """How fast the average of ``N`` dropout draws approaches the weights without dropout.

    Returns ``draws`` ``(K,)`` (the values of N, log-spaced when ``num_points`` is given);
    ``rms_error`` over the weights that can change (``w > 0``); ``max_abs_error``; ``reference``,
    the theory ``c/√N`` with ``c = √(p/(1 − p) · mean(w²))`` (``reference_constant``); ``slope`` of
    the log-log fit (≈ −0.5); and ``p``, ``seed``, ``max_draws``.
    """
    p, max_draws = _check_dropout_p(p), _check_draws("max_draws", max_draws, seed)
    if num_points is not None:
        num_points = check_int("num_points", num_points, 1, 10_000, "how many values of N")
    draws = dropout_draws(attn_weights, p, max_draws, seed)  # (N, …)
    weights = attn_weights.detach().to(torch.float64).reshape(-1)  # (cells,)
    flat = draws.to(torch.float64).reshape(max_draws, -1)  # (N, cells)
    counts = torch.arange(1, max_draws + 1, dtype=torch.float64).unsqueeze(1)  # (N, 1)
    running_mean = flat.cumsum(dim=0) / counts  # (N, cells): mean of the first n draws
    error = running_mean - weights  # (N, cells)
    changing = weights > 0  # masked (and exactly zero) weights are 0 in every draw
    if bool(changing.any()):
        rms_error = error[:, changing].pow(2).mean(dim=1).sqrt()  # (N,)
        mean_square_weight = float(weights[changing].pow(2).mean())
    else:
        rms_error = torch.zeros(max_draws, dtype=torch.float64)
        mean_square_weight = 0.0
    max_abs_error = error.abs().amax(dim=1)  # (N,)
    reference_constant = math.sqrt(p / (1.0 - p) * mean_square_weight)
    all_draws = torch.arange(1, max_draws + 1, dtype=torch.int64)  # (N,)
    reference = reference_constant / all_draws.to(torch.float64).sqrt()  # c/√N

    fit_points = _log_spaced(max_draws, 60) - 1  # indices, log-spaced: each decade counts alike
    slope = loglog_slope(all_draws[fit_points], rms_error[fit_points])
    chosen = slice(None) if num_points is None else _log_spaced(max_draws, num_points) - 1
    return {
        "draws": all_draws[chosen],
        "rms_error": rms_error[chosen],
        "max_abs_error": max_abs_error[chosen],
        "reference": reference[chosen],
        "reference_constant": reference_constant,
        "slope": slope,
        "p": p,
        "seed": int(seed),
        "max_draws": int(max_draws),
    }


# --- why √d_k --------------------------------------------------------------------------------------


def random_queries_keys(
    d_k: int, num_queries: int, num_tokens: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random ``queries (num_queries, d_k)`` then ``keys (num_tokens, d_k)``, entries ~ N(0, 1),
    from a private generator seeded by ``seed``.
    """
    d_k, num_queries, num_tokens = _check_sizes(d_k, num_queries, num_tokens, seed)
    generator = private_generator(seed)
    queries = torch.randn(num_queries, d_k, generator=generator, dtype=torch.float64)
    keys = torch.randn(num_tokens, d_k, generator=generator, dtype=torch.float64)
    return queries, keys


def row_entropy(weights: torch.Tensor) -> torch.Tensor:
    """Entropy ``−Σ w log w`` of each row: ``log T`` for a uniform row, 0 for a one-hot one."""
    _check_weights("weights", weights, MAX_ATTENTION_CELLS)
    logs = torch.where(weights > 0, weights.log(), torch.zeros_like(weights))
    return -(weights * logs).sum(dim=-1)


def softmax_gradient_norm(weights: torch.Tensor) -> torch.Tensor:
    """Frobenius norm of softmax's Jacobian ``diag(w) − w wᵀ`` per row: it shrinks to 0 as a row
    becomes one-hot, which is why a saturated softmax learns slowly.
    """
    _check_weights("weights", weights, MAX_DROPOUT_CELLS)
    if weights.numel() * weights.shape[-1] > MAX_DROPOUT_CELLS:  # one (T, T) Jacobian per row
        raise AttentionInputError(
            f"weights: too many rows of {weights.shape[-1]:,} for their Jacobians.", field="weights"
        )
    jacobian = torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)
    return jacobian.pow(2).sum(dim=(-2, -1)).sqrt()


def _scores(queries: torch.Tensor, keys: torch.Tensor, scaled: bool) -> torch.Tensor:
    attn_scores = queries @ keys.T  # (Q, T): q · k, variance ≈ d_k
    d_k = keys.shape[-1]
    return attn_scores / d_k**0.5 if scaled else attn_scores  # ÷ √d_k: variance ≈ 1


def softmax_saturation(
    d_k_values: Sequence[int],
    num_tokens: int,
    seed: int,
    scaled: bool,
    *,
    num_queries: int = 256,
) -> dict[str, Any]:
    """How peaked softmax rows get as ``d_k`` grows, with or without ``÷ √d_k``.

    For each ``d_k``: random queries against ``num_tokens`` random keys, no mask. Returns lists, one
    value per ``d_k``: ``d_k``, ``score_variance`` (≈ ``d_k`` unscaled, ≈ 1 scaled),
    ``mean_entropy``, ``mean_max_weight`` (1 = one-hot), ``mean_gradient_norm``; plus ``scaled``,
    ``num_tokens`` and ``uniform_entropy`` (``log num_tokens``).
    """
    _check_sizes(1, num_queries, num_tokens, seed)
    scaled = check_bool("scaled", scaled)
    check_list("d_k_values", d_k_values, 64, "widths")
    d_k_values = [
        check_int("d_k", d_k, 1, MAX_WIDTH, "a query and key width") for d_k in d_k_values
    ]
    result: dict[str, Any] = {
        "d_k": [],
        "score_variance": [],
        "mean_entropy": [],
        "mean_max_weight": [],
        "mean_gradient_norm": [],
        "scaled": bool(scaled),
        "num_tokens": int(num_tokens),
        "uniform_entropy": math.log(num_tokens),
    }
    for d_k in d_k_values:
        queries, keys = random_queries_keys(int(d_k), num_queries, num_tokens, seed)
        scores = _scores(queries, keys, scaled)  # (Q, T)
        weights = torch.softmax(scores, dim=-1)  # (Q, T)
        result["d_k"].append(int(d_k))
        result["score_variance"].append(float(scores.var(unbiased=False)))
        result["mean_entropy"].append(float(row_entropy(weights).mean()))
        result["mean_max_weight"].append(float(weights.amax(dim=-1).mean()))
        result["mean_gradient_norm"].append(float(softmax_gradient_norm(weights).mean()))
    return result


def saturation_example_row(d_k: int, num_tokens: int, seed: int, scaled: bool) -> dict[str, Any]:
    """The first query's row of :func:`softmax_saturation`: ``scores``, ``weights``, ``score_std``,
    ``entropy`` and ``max_weight``.
    """
    d_k, _, num_tokens = _check_sizes(d_k, 1, num_tokens, seed)
    scaled = check_bool("scaled", scaled)
    queries, keys = random_queries_keys(d_k, 1, num_tokens, seed)
    scores = _scores(queries, keys, scaled)[0]  # (T,)
    weights = torch.softmax(scores, dim=-1)  # (T,)
    return {
        "scores": scores,
        "weights": weights,
        "score_std": float(scores.std(unbiased=False)),
        "entropy": float(row_entropy(weights)),
        "max_weight": float(weights.max()),
    }


def score_variance(scores: torch.Tensor, mask: torch.Tensor | None = None) -> float:
    """Variance of the scores a query can see (``mask`` True = hidden, left out); population."""
    check_tensor("scores", scores)
    if mask is not None and check_tensor("mask", mask).shape != scores.shape:
        raise AttentionInputError(
            f"mask must have the scores' shape {tuple(scores.shape)}; got {describe(mask)}.",
            field="mask",
        )
    values = scores.detach().to(torch.float64)
    if mask is not None:
        values = values[~mask.to(torch.bool)]
    values = values[torch.isfinite(values)]
    if values.numel() == 0:
        return 0.0
    return float(values.var(unbiased=False))


# --- predict, then reveal ----------------------------------------------------------------------


@dataclass(frozen=True)
class QuizQuestion:
    """One quiz question read off a trace (one head, batch index 0).

    ``kind``: ``argmax`` (the largest weight), ``masked_after`` (a masked cell after softmax: 0),
    ``masked_before`` (before it: −∞), ``row_sum`` (a row's sum after dropout). ``correct``:
    every right option; ``row``: shown on reveal; ``value``: the number the explanation quotes.
    """

    number: int
    kind: str
    query: int
    key: int | None
    options: tuple[str, ...]
    correct: frozenset[str]
    row: tuple[float, ...]
    row_hidden: tuple[bool, ...]
    value: float

    def is_correct(self, answer: str | None) -> bool:
        """True if ``answer`` is one of the right options."""
        return answer is not None and answer in self.correct


def quiz_kinds(num_tokens: int, dropout_active: bool) -> tuple[str, ...]:
    """The question kinds that make sense: masked cells need 2 tokens, row sums need dropout."""
    num_tokens = check_int("num_tokens", num_tokens, 1, MAX_TOKENS, "the number of tokens")
    dropout_active = check_bool("dropout_active", dropout_active)
    kinds = ["argmax"]
    if num_tokens >= 2:
        kinds += ["masked_after", "masked_before"]
    if dropout_active:
        kinds.append("row_sum")
    return tuple(kinds)


def _row(values: torch.Tensor) -> tuple[float, ...]:
    return tuple(float(v) for v in values.tolist())


def quiz_question(trace: AttentionTrace, number: int) -> QuizQuestion:
    """Question ``number`` for a one-head ``trace``, deterministic in both; kinds take turns and
    every answer is read from the trace's tensors (first ``MAX_QUIZ_TOKENS`` tokens).
    """
    check_instance("trace", trace, AttentionTrace, " (from trace_attention)")
    number = check_int("number", number, 0, 2**62, "the question's number")
    if trace.attn_weights.dim() != 3:
        raise AttentionInputError(
            "quiz questions need a one-head trace (attn_weights of shape (b, T, T))"
        )
    limit = min(trace.num_tokens, MAX_QUIZ_TOKENS)
    kinds = quiz_kinds(trace.num_tokens, trace.dropout_active)
    kind = kinds[number % len(kinds)]
    turn = number // len(kinds)  # how many questions of this kind came before
    attn_weights = trace.attn_weights[0]  # (T, T), before dropout
    queries_with_choice = list(range(1, limit)) or [0]  # a query with at least two keys

    def question(
        query: int, key: int | None, options: Any, correct: Any, row: Any, value: float
    ) -> QuizQuestion:
        hidden = tuple(bool(h) for h in trace.mask[query].tolist())  # True = hidden
        return QuizQuestion(
            number, kind, query, key, tuple(options), frozenset(correct), _row(row), hidden, value
        )

    if kind == "argmax":
        query = queries_with_choice[-1 - turn % len(queries_with_choice)]  # last query first
        row = attn_weights[query]  # (T,)
        visible = row[: query + 1]
        best = float(visible.max())
        correct = (str(j) for j in range(query + 1) if float(visible[j]) >= best - 1e-6)
        return question(query, None, (str(j) for j in range(query + 1)), correct, row, best)

    if kind in ("masked_after", "masked_before"):
        pairs = [(i, j) for i in range(limit) for j in range(i + 1, limit)]
        query, key = pairs[(turn * 7 + (kind == "masked_before") * 3) % len(pairs)]
        shown = attn_weights if kind == "masked_after" else trace.masked_scores[0]  # (T, T)
        options = ("zero", "minus_inf", "one", "raw_score")
        correct = {"zero" if kind == "masked_after" else "minus_inf"}
        score = float(trace.attn_scores[0, query, key])  # q·k before the mask hid it
        return question(query, key, options, correct, shown[query], score)

    query = queries_with_choice[turn % len(queries_with_choice)]  # kind: row_sum
    dropped_row = trace.dropped_weights[0, query]  # (T,), after dropout
    row_sum = float(dropped_row.sum())
    correct = {"yes" if abs(row_sum - 1.0) < 1e-5 else "no"}
    return question(query, None, ("yes", "no"), correct, dropped_row, row_sum)
