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
another page still gets answers while the class trains (``benchmarks/README.md``, "Training while
others browse").

**Bounds.** At most :data:`MAX_RUNNING` jobs run and :data:`MAX_WAITING` wait; each run stops
when it has used :data:`JOB_BUDGET` (the worker's CPU seconds, or wall-clock seconds on a busy
machine) and keeps what it trained so far. The largest training the page allows would take hours
(``benchmarks/README.md``, "Bounded trainings"), so the budget, not the limits, is what bounds a job.
Finished outcomes are cached up to :data:`MAX_CACHED_BYTES`, weighed by :func:`weigh`, and
forgotten after :data:`MAX_IDLE_S` seconds nobody asked for them.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Mapping
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

from .train_queue import Budget, Control, TrainingQueue

__all__ = [
    "EVALUATE_SEQUENCES",
    "JOB_BUDGET",
    "MAX_CACHED_BYTES",
    "MAX_IDLE_S",
    "MAX_RUNNING",
    "MAX_WAITING",
    "QUEUE",
    "TRAIN_NICE",
    "TRAIN_THREADS",
    "CompareKey",
    "TrainOutcome",
    "lower_priority_here",
    "outcome_of",
    "use_threads_here",
    "weigh",
]

MAX_RUNNING = 2  # trainings at once on one server (one per core of the 2-core machine)
MAX_WAITING = 8  # trainings waiting for a worker; one more is refused with a clear message
# each run's budget: CPU seconds of its worker thread, and wall-clock seconds (a busy machine)
JOB_BUDGET = Budget(
    cpu_seconds=float(os.environ.get("ATTENTION_LAB_JOB_CPU_S", "240")),
    wall_seconds=float(os.environ.get("ATTENTION_LAB_JOB_WALL_S", "600")),
)
MAX_CACHED_BYTES = 256 * 2**20  # finished outcomes kept for every session, by weight
MAX_IDLE_S = 1800.0  # a finished outcome nobody asked for in this long is forgotten
# intra-op threads of each training (and of the exported script); the environment variable lets
# a measurement try another count (``benchmarks/README.md``, "Training while others browse")
TRAIN_THREADS = int(os.environ.get("ATTENTION_LAB_TRAIN_THREADS", "1"))
EVALUATE_SEQUENCES = 1000  # held-out sequences behind the accuracy the page shows
EVALUATE_SEED = 7
PATTERN_SEQUENCES = 200  # held-out sequences behind the pattern scores

# The workers' CPU priority (Unix nice, 0 … 19): pages first, trainings with what is left.
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


def run_job(key: Any, control: Control) -> TrainOutcome | DropoutComparison | None:
    """The queue's work: train ``key`` (a ``TrainConfig``) or compare dropout (a ``CompareKey``).

    ``control`` receives every progress record and is asked before every step whether to stop
    (nobody wants the job any more, or it is over its budget). A training whose sessions have all
    ended stops with no outcome (None): nobody is left to draw it.
    """
    use_threads_here(TRAIN_THREADS)
    lower_priority_here(TRAIN_NICE)
    if isinstance(key, CompareKey):
        return compare_dropout(
            key.config,
            key.dropout,
            on_progress=lambda run, record: control((run, record)),
            should_stop=control.should_stop,
        )
    result = train(key, on_progress=control, should_stop=control.should_stop)
    if control.abandoned():
        return None  # the sessions that asked have ended: measuring the model is for nobody
    return outcome_of(result)


def weigh(value: Any) -> int:
    """The bytes ``value`` holds in tensors, text and bytes, following what it refers to.

    Walks dataclasses, modules (their parameters and buffers), mappings and sequences; a tensor's
    storage and any object are counted once. What a cached outcome weighs in memory, near enough
    to bound the cache by bytes.
    """
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, torch.Tensor):
            storage = item.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        elif isinstance(item, str | bytes | bytearray):
            total += sys.getsizeof(item)
        elif isinstance(item, torch.nn.Module):
            stack.extend(item.state_dict(keep_vars=True).values())
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, Mapping):  # (its keys are names: a few bytes, not counted)
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return total


def _cacheable(outcome: Any) -> bool:
    """A training stopped early (or abandoned: None) is not what its config trains to."""
    if outcome is None:
        return False
    if isinstance(outcome, DropoutComparison):
        return outcome.complete
    return not outcome.result.stopped_early


def _give_memory_back() -> None:
    """After cached outcomes were forgotten: collect them and return the memory to the system."""
    from .memory import release_memory  # (memory imports Streamlit; only the server gets here)

    release_memory(drop_large_traces=False)


def _give_memory_back_soon() -> None:
    """After a run nobody watched any more ended (its tabs closed): release memory shortly, once
    the sessions that asked for it have let go of it too (``ui.memory.release_soon``)."""
    from .memory import release_soon

    release_soon()


# One per server process, shared by every session (module state lives as long as the server).
QUEUE = TrainingQueue(
    run_job,
    max_running=MAX_RUNNING,
    max_waiting=MAX_WAITING,
    max_cached_bytes=MAX_CACHED_BYTES,
    max_idle_s=MAX_IDLE_S,
    budget=JOB_BUDGET,
    size_of=weigh,
    cacheable=_cacheable,
    on_forget=_give_memory_back,
    on_unwatched=_give_memory_back_soon,
)
