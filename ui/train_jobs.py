"""The Train page's trainings: one queue per server, what a finished training hands the page.

No Streamlit here: the work runs on the queue's worker threads (``ui/train_queue.py``), which
have no script context. Two kinds of job, both keyed by frozen, resolved configs (training is
deterministic, so equal keys give equal outcomes and may share one cached result):

- ``TrainConfig`` → :class:`TrainOutcome`: ``train(cfg)``, then everything the page draws from it
  (accuracy, a held-out sequence, its attention maps, the pattern scores), computed once on the
  worker and shared by every session that asks for the same config;
- :class:`CompareKey` → ``DropoutComparison``: ``compare_dropout(cfg, dropout)``, the same data
  and seed with and without attention dropout.

**Threads.** Each training runs with :data:`TRAIN_THREADS` intra-op thread (measured: a tiny model
trains several times faster on one thread on the busy 2-core machine, and two trainings then use
the two cores). The number of threads changes the order of additions in matrix products, so it is
part of what makes a training reproducible: the exported script sets the same number.
``torch.set_num_threads`` also changes the default that *new* threads start with (OpenMP), which
would quietly slow other sessions' pages; :func:`use_threads_here` sets it for the worker only
and puts the default for new threads back.

**Priority.** The workers run at a low CPU priority (:data:`TRAIN_NICE`), so that a student on
another page still gets answers while the class trains (measured in ``benchmarks/``).
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

import torch

from attention.training import (
    DropoutComparison,
    TrainConfig,
    TrainResult,
    compare_dropout,
    train,
)

from .train_queue import Report, TrainingQueue

__all__ = [
    "EVALUATE_SEQUENCES",
    "MAX_CACHED",
    "MAX_RUNNING",
    "QUEUE",
    "TRAIN_NICE",
    "TRAIN_THREADS",
    "CompareKey",
    "TrainOutcome",
    "lower_priority_here",
    "outcome_of",
    "use_threads_here",
]

MAX_RUNNING = 2  # trainings at once on one server (one per core of the 2-core machine)
MAX_CACHED = 16  # finished trainings kept for every session (each about 0.5–10 MB, see below)
# intra-op threads of each training (and of the exported script); the environment variable is
# for benchmarks/train_contention.py, which measures what a different count does to the server
TRAIN_THREADS = int(os.environ.get("ATTENTION_LAB_TRAIN_THREADS", "1"))
EVALUATE_SEQUENCES = 1000  # held-out sequences behind the accuracy the page shows
EVALUATE_SEED = 7
PATTERN_SEQUENCES = 200  # held-out sequences behind the pattern scores

# The workers' CPU priority (Unix nice, 0 … 19): pages first, trainings with what is left. With
# two trainings and a page rerun sharing two cores (and one GIL), a rerun took 3.4× its idle time
# at nice 0 and 1.6× at nice 19 (benchmarks/README.md, "Training while others browse").
TRAIN_NICE = int(os.environ.get("ATTENTION_LAB_TRAIN_NICE", "19"))

_THREADS_LOCK = threading.Lock()


def lower_priority_here(nice: int) -> bool:
    """Give *this* thread the scheduling priority ``nice`` (Linux: a thread has its own nice).

    On Linux ``setpriority(PRIO_PROCESS, thread id, …)`` changes one thread, not the process, so
    the pages' threads keep their priority. Elsewhere it would change the whole server, so
    nothing is done. Returns whether the priority was set (lowering it needs no privileges).
    """
    if not sys.platform.startswith("linux") or nice <= 0:
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(nice, 19))
    except OSError:
        return False
    return True


def _threads_of_a_new_thread() -> int:
    seen: list[int] = []
    reader = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
    reader.start()
    reader.join()
    return seen[0]


def use_threads_here(count: int) -> None:
    """Make torch use ``count`` intra-op threads in *this* thread only.

    ``torch.set_num_threads`` sets this thread's OpenMP thread count and also the count that threads
    created later start with. The second effect is undone from a short-lived helper thread, which
    sets the old default back without touching this thread's own setting.
    """
    with _THREADS_LOCK:
        default = _threads_of_a_new_thread()
        # The first ATen call in a thread sets its count from the default (once per thread):
        # make that happen now, or it would happen after the restore below and undo the set.
        torch.get_num_threads()
        torch.set_num_threads(count)
        restorer = threading.Thread(target=torch.set_num_threads, args=(default,))
        restorer.start()
        restorer.join()


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


def run_job(key: Any, report: Report) -> TrainOutcome | DropoutComparison:
    """The queue's work: train ``key`` (a ``TrainConfig``) or compare dropout (a ``CompareKey``)."""
    use_threads_here(TRAIN_THREADS)
    lower_priority_here(TRAIN_NICE)
    if isinstance(key, CompareKey):
        return compare_dropout(
            key.config,
            key.dropout,
            on_progress=lambda run, record: report((run, record)),
        )
    result = train(key, on_progress=report)
    return outcome_of(result)


def _cacheable(outcome: Any) -> bool:
    """A training stopped early is not what its config trains to: it is not kept."""
    if isinstance(outcome, DropoutComparison):
        return outcome.complete
    return not outcome.result.stopped_early


# One per server process, shared by every session (module state lives as long as the server).
# Memory: a cached outcome holds its model (copy 1 layer width 64: ~0.1 MB; text defaults about
# 0.5 MB) and its task (an uploaded 1 MB text: ~9 MB with its encoded tensor), so 16 entries stay
# under ~150 MB even when every one is an uploaded text.
QUEUE = TrainingQueue(run_job, max_running=MAX_RUNNING, max_cached=MAX_CACHED, cacheable=_cacheable)
