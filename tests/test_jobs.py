"""The job pool: jobs in worker processes, shared by requesters, bounded by the kernel.

The work functions below run in the pool's worker processes (forked from its forkserver), so
they are module functions and their gates are files: a worker waits until its gate's file exists.
Nothing in the pool runs on its own: the tests poll it, as the page does. Waiting loops have
generous deadlines only so that a broken pool fails instead of hanging, except where the bound is
the promise itself (a closed tab's running job ends within 10 s).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from attention.training import TrainConfig, train
from ui.jobs import (
    BUDGET,
    DONE,
    DROPPED,
    FAILED,
    LEFT,
    MEMORY,
    QUEUED,
    RUNNING,
    TIME,
    Budget,
    JobPool,
    QueueFull,
)
from ui.train_jobs import CompareKey, TrainOutcome, run_job

DEADLINE_S = 60
CLOSED_TAB_S = 10  # the promise: a closed tab's running training ends within this


def eventually(condition: Callable[[], bool], bound_s: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + bound_s
    while not condition():
        assert time.monotonic() < deadline, "the pool did not get there"
        time.sleep(0.01)


def gated(key: tuple[str, str], report: Callable[[Any], None], should_stop: Any) -> Any:
    """Report this process's id, wait for the file ``key`` names (or a stop), report again."""
    name, folder = key
    report(os.getpid())
    deadline = time.monotonic() + DEADLINE_S
    while not (Path(folder) / name).exists() and time.monotonic() < deadline:
        if should_stop():
            return ("stopped", name)
        time.sleep(0.01)
    report("after")
    return ("done", name)


def spin(key: str, report: Callable[[Any], None], should_stop: Any) -> Any:
    """Burn CPU: ``"polite"`` stops when told, ``"stubborn"`` never does; ``"greedy"`` allocates
    a gigabyte at a time until something stops it."""
    report(os.getpid())
    hoard = []
    while key == "stubborn" or not should_stop():
        if key == "greedy":
            hoard.append(bytearray(2**30))
    return ("stopped", key)


def not_stopped(outcome: Any) -> bool:
    return outcome[0] != "stopped"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def gates(tmp_path: Path) -> Callable[[str], tuple[str, str]]:
    return lambda name: (name, str(tmp_path))


def open_gate(key: tuple[str, str]) -> None:
    (Path(key[1]) / key[0]).touch()


def test_identical_requests_share_one_worker_process_and_its_outcome_is_cached(gates) -> None:  # noqa: ANN001
    queue = JobPool(gated, max_running=2, cacheable=not_stopped)
    key = gates("same")
    jobs = [queue.submit(key, requester) for requester in range(4)]
    assert len({id(job) for job in jobs}) == 1 and len(jobs[0].wanted_by) == 4
    eventually(lambda: len(jobs[0].snapshot().progress) == 1)
    worker_pid = jobs[0].snapshot().progress[0]
    assert worker_pid == jobs[0].pid != os.getpid(), "the work ran in another process"
    open_gate(key)
    assert jobs[0].wait(DEADLINE_S) and jobs[0].state == DONE
    assert jobs[0].outcome == ("done", "same") and jobs[0].snapshot().progress[1:] == ("after",)
    eventually(lambda: queue.advance() or not alive(worker_pid))  # exited: its memory went back
    again = queue.submit(key, 9)  # later: from the cache, at once, no new worker
    assert again.done and again.from_cache and again.outcome == ("done", "same")
    assert queue.runs == 1


def test_at_most_max_running_and_max_waiting_one_job_per_slot(gates) -> None:  # noqa: ANN001
    queue = JobPool(gated, max_running=1, max_waiting=2)
    a = queue.submit(gates("a"), "ann")
    eventually(lambda: a.snapshot().state == RUNNING)
    b = queue.submit(gates("b"), "bob")
    c = queue.submit(gates("c"), "cy")
    assert [(j.snapshot().state, j.snapshot().place) for j in (b, c)] == [(QUEUED, 1), (QUEUED, 2)]
    with pytest.raises(QueueFull):
        queue.submit(gates("d"), "dee")
    b2 = queue.submit(gates("b2"), "bob")  # bob's new request takes the place of his old one
    assert b.state == DROPPED and b2.snapshot().place == 2 and c.snapshot().place == 1
    for name in ("a", "c", "b2"):
        open_gate(gates(name))
    assert all(job.wait(DEADLINE_S) for job in (a, c, b2))
    assert [job.state for job in (a, c, b2)] == [DONE] * 3 and queue.runs == 3


def test_a_closed_tabs_running_worker_is_killed_and_the_next_job_starts(gates) -> None:  # noqa: ANN001
    queue = JobPool(gated, max_running=1)
    running = queue.submit(gates("never opened"), "closed tab")
    eventually(lambda: len(running.snapshot().progress) == 1)
    waiting = queue.submit(gates("next"), "open tab")
    assert waiting.state == QUEUED
    closed = time.monotonic()
    assert queue.leave_all("closed tab") == 1  # the session's hook: its tab is gone
    assert running.done and not alive(running.pid), "killed and reaped by leave_all itself"
    assert time.monotonic() - closed < CLOSED_TAB_S
    assert running.state == DROPPED and running.stop_reason == LEFT
    eventually(lambda: waiting.snapshot().state == RUNNING)
    open_gate(gates("next"))
    assert waiting.wait(DEADLINE_S) and waiting.outcome == ("done", "next")


def test_stop_tells_the_worker_to_stop_and_keeps_what_it_has(gates) -> None:  # noqa: ANN001
    queue = JobPool(gated, cacheable=not_stopped)
    job = queue.submit(gates("stopped"), "tab pressing Stop")
    eventually(lambda: len(job.snapshot().progress) == 1)
    assert job.leave("tab pressing Stop") == 0
    assert job.wait(DEADLINE_S) and job.state == DONE and job.stop_reason == LEFT
    assert job.outcome == ("stopped", "stopped") and queue.cached(gates("stopped")) is None


def test_the_kernel_bounds_cpu_and_memory_and_the_job_says_which() -> None:
    queue = JobPool(spin, max_running=3, budget=Budget(1, 600, 256), stop_grace_s=1)
    polite, stubborn, greedy = (queue.submit(key, key) for key in ("polite", "stubborn", "greedy"))
    assert all(job.wait(DEADLINE_S) for job in (polite, stubborn, greedy))
    assert (polite.state, polite.stop_reason, polite.outcome) == (
        DONE,
        BUDGET,
        ("stopped", "polite"),
    )
    assert stubborn.state == FAILED and stubborn.error.kind == TIME, "killed by the kernel"
    assert greedy.state == FAILED and greedy.error.kind == MEMORY


TINY = TrainConfig(task="copy", seed=3, steps=12, log_every=4).resolved()


def test_a_training_in_a_worker_gives_bitwise_what_it_gives_in_process() -> None:
    queue = JobPool(run_job, preload=("ui.train_jobs",))
    job = queue.submit(TINY, "tab")
    assert job.wait(DEADLINE_S) and job.state == DONE, job.error
    outcome: TrainOutcome = job.outcome
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the worker's count (ATTENTION_LAB_TRAIN_THREADS)
    try:
        direct = train(TINY)
    finally:
        torch.set_num_threads(threads)
    weights, expected = outcome.result.model.state_dict(), direct.model.state_dict()
    assert all(torch.equal(weights[name], expected[name]) for name in expected)
    assert job.snapshot().progress == tuple(direct.history) == tuple(outcome.result.history)
    assert outcome.accuracy == direct.evaluate(n=1000, seed=7)
    assert torch.equal(outcome.attention, direct.attention(outcome.tokens))
    assert outcome.labels == tuple(direct.labels(outcome.tokens))
    assert set(outcome.scores) == {"source"} and outcome.scores["source"].shape == (1, 1)


def test_the_comparison_work_reports_both_runs_and_stops_when_told() -> None:
    cfg = TrainConfig(task="text", seed=1, steps=6, log_every=3, width=16, heads=2).resolved()
    reports: list[Any] = []
    comparison = run_job(CompareKey(cfg, 0.3), reports.append, lambda: False)
    assert [(run, record["step"]) for run, record in reports] == [
        ("without", 0),
        ("without", 3),
        ("without", 6),
        ("with", 0),
        ("with", 3),
        ("with", 6),
    ]
    assert comparison.dropout == 0.3 and comparison.with_dropout.config.dropout == 0.3
    assert comparison.without.config.dropout == 0.0
    asked = iter(range(100))
    cut: list[Any] = []
    stopped = run_job(CompareKey(cfg, 0.3), cut.append, lambda: next(asked) >= 1)
    assert stopped.without.steps_done == 1 and stopped.with_dropout is None
    assert [record["step"] for _run, record in cut] == [0, 1], "the last step is measured"
