"""The Train page's trainings: one worker pool per server, what a finished training hands the page.

No Streamlit here: :func:`run_job` runs in the pool's worker processes (``ui/jobs.py``). Two kinds
of job, keyed by frozen, resolved configs (training is deterministic, so equal keys share one
cached result): ``TrainConfig`` → :class:`TrainOutcome` (the training and everything the page
draws from it) and :class:`CompareKey` → ``DropoutComparison`` (the same run with and without
attention dropout). Both come back as plain data.

Each worker trains with ``ATTENTION_LAB_TRAIN_THREADS`` intra-op threads (one by default: two
trainings then share the two cores). The thread count changes the order of additions, so it is
part of what makes a training reproducible: the exported script sets it too. The limits of
``ui/limits.py``, not the settings, bound a job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from attention.training import DropoutComparison, TrainConfig, TrainResult, compare_dropout, train

from .jobs import Budget, JobPool
from .limits import limit

__all__ = [
    "EVALUATE_SEQUENCES",
    "JOB_BUDGET",
    "QUEUE",
    "TRAIN_THREADS",
    "CompareKey",
    "TrainOutcome",
    "outcome_of",
    "run_job",
]

JOB_BUDGET = Budget(
    cpu_seconds=limit("ATTENTION_LAB_JOB_CPU_S"),
    wall_seconds=limit("ATTENTION_LAB_JOB_WALL_S"),
    memory_mb=limit("ATTENTION_LAB_JOB_MEMORY_MB"),
)
TRAIN_THREADS = int(limit("ATTENTION_LAB_TRAIN_THREADS"))
EVALUATE_SEQUENCES = 1000  # held-out sequences behind the accuracy the page shows
EVALUATE_SEED = 7
PATTERN_SEQUENCES = 200  # held-out sequences behind the pattern scores


@dataclass(frozen=True)
class CompareKey:
    """A request to train ``config`` with dropout 0 and with ``dropout``: a cache key."""

    config: TrainConfig  # resolved
    dropout: float


@dataclass(frozen=True)
class TrainOutcome:
    """A finished (or stopped) training and what the page shows of it, computed on the worker.

    ``attention`` ``(layers, heads, T, T)``: the softmax weights in eval mode on ``tokens``, a
    held-out sequence (``labels`` are its tokens as text); ``untrained_attention`` the same for
    the initial weights (the seed's, before step 1). ``scores``: the pattern scores,
    score name → ``(layers, heads)``. ``threads``: intra-op threads the training used.
    """

    result: TrainResult
    accuracy: float
    tokens: torch.Tensor  # (T,)
    labels: tuple[str, ...]
    attention: torch.Tensor  # (layers, heads, T, T)
    scores: dict[str, torch.Tensor]
    threads: int
    untrained_attention: torch.Tensor | None = None  # (layers, heads, T, T) before training

    @property
    def config(self) -> TrainConfig:
        return self.result.config


def outcome_of(result: TrainResult, threads: int = TRAIN_THREADS) -> TrainOutcome:
    """Measure what the page shows of a trained model (accuracy, maps, pattern scores)."""
    tokens = result.sample_tokens()
    return TrainOutcome(
        result=result,
        accuracy=result.evaluate(n=EVALUATE_SEQUENCES, seed=EVALUATE_SEED),
        tokens=tokens,
        labels=tuple(result.labels(tokens)),
        attention=result.attention(tokens),
        scores=result.pattern_scores(n=PATTERN_SEQUENCES),
        threads=threads,
        untrained_attention=result.initial_attention(tokens),
    )


def run_job(
    key: Any, report: Callable[[Any], None], should_stop: Callable[[], bool]
) -> TrainOutcome | DropoutComparison:
    """The worker's work: train ``key`` (a ``TrainConfig``) or compare dropout (a ``CompareKey``).

    ``report`` receives every progress record (a comparison's as ``(run, record)``);
    ``should_stop()`` is asked before every step (Stop, or the budget): the outcome then holds
    the model trained so far.
    """
    torch.set_num_threads(TRAIN_THREADS)  # this worker process only
    if isinstance(key, CompareKey):
        return compare_dropout(
            key.config,
            key.dropout,
            on_progress=lambda run, record: report((run, record)),
            should_stop=should_stop,
        )
    return outcome_of(train(key, on_progress=report, should_stop=should_stop))


def _cacheable(outcome: TrainOutcome | DropoutComparison) -> bool:
    """A training stopped early is not what its config trains to."""
    if isinstance(outcome, DropoutComparison):
        return outcome.complete
    return not outcome.result.stopped_early


# One per server process, shared by every session (module state lives as long as the server).
QUEUE = JobPool(
    run_job,
    max_running=int(limit("ATTENTION_LAB_TRAIN_RUNNING")),
    max_waiting=int(limit("ATTENTION_LAB_TRAIN_WAITING")),
    max_cached=int(limit("ATTENTION_LAB_TRAIN_CACHED")),
    budget=JOB_BUDGET,
    nice=int(limit("ATTENTION_LAB_TRAIN_NICE")),
    cacheable=_cacheable,
    # the forkserver imports these once for every worker: the training code, and what the
    # optimiser's first step imports (torch._dynamo: benchmarks/README.md, "Trainings in worker processes")
    preload=(__name__, "torch._dynamo"),
)
