"""The training queue: cached by key, identical requests run once, at most N at once, places, stop.

Plain threads and ``threading.Event`` gates decide the order, so every case is deterministic: a
work function waits at its gate until the test opens it. Waiting loops have generous deadlines
only so that a broken queue fails instead of hanging; nothing is timed.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

import pytest
import torch

from attention.training import TrainConfig, train
from ui.train_jobs import CompareKey, TrainOutcome, lower_priority_here, use_threads_here
from ui.train_jobs import run_job as train_work
from ui.train_queue import DONE, DROPPED, FAILED, QUEUED, RUNNING, TrainingQueue

DEADLINE_S = 60


def eventually(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, "the queue did not get there"
        time.sleep(0.005)


class GatedWork:
    """work(key, report): reports 1, waits at the key's gate, reports 2, returns ("done", key).

    Records every call and the most calls that ran at the same time.
    """

    def __init__(self) -> None:
        self.gates: dict[Hashable, threading.Event] = {}
        self.calls: list[Hashable] = []
        self.running = 0
        self.most_at_once = 0
        self.stopped: list[Hashable] = []
        self._lock = threading.Lock()

    def gate(self, key: Hashable) -> threading.Event:
        with self._lock:
            return self.gates.setdefault(key, threading.Event())

    def __call__(self, key: Hashable, report: Callable[[Any], bool]) -> Any:
        with self._lock:
            self.calls.append(key)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            report(1)
            self.gate(key).wait(DEADLINE_S)
            if report(2) is False:
                self.stopped.append(key)
                return ("stopped", key)
            if key == "boom":
                raise ValueError("the work failed")
            return ("done", key)
        finally:
            with self._lock:
                self.running -= 1


def not_stopped(outcome: Any) -> bool:
    return outcome[0] != "stopped"


def test_identical_concurrent_requests_run_once_and_share_one_outcome() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=2, cacheable=not_stopped)
    jobs: list[Any] = []
    start = threading.Barrier(6)

    def ask() -> None:
        start.wait()
        jobs.append(queue.submit("same"))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(job) for job in jobs}) == 1, "every requester watches the one job"
    assert jobs[0].requesters == 6
    eventually(lambda: jobs[0].state == RUNNING)
    work.gate("same").set()
    assert jobs[0].wait(DEADLINE_S)
    assert work.calls == ["same"] and queue.runs == 1
    assert jobs[0].outcome == ("done", "same")
    assert jobs[0].snapshot().progress == (1, 2), "watchers see every report"

    again = queue.submit("same")  # later: from the cache, at once, no new run
    assert again.done and again.from_cache and again.outcome == ("done", "same")
    assert queue.runs == 1 and queue.cached("same") == ("done", "same")


def test_at_most_max_running_at_once_and_the_others_see_their_place() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=2)
    a, b, c, d = (queue.submit(key) for key in "abcd")
    eventually(lambda: a.state == RUNNING and b.state == RUNNING)
    assert (c.state, d.state) == (QUEUED, QUEUED)
    assert (c.snapshot().place, d.snapshot().place) == (1, 2)
    assert c.snapshot().running == 2 and a.snapshot().place == 0

    work.gate("a").set()  # a finishes: c takes its worker, d moves up to place 1
    eventually(lambda: c.state == RUNNING)
    assert d.snapshot().place == 1 and d.state == QUEUED
    for key in "bcd":
        work.gate(key).set()
    assert all(job.wait(DEADLINE_S) for job in (a, b, c, d))
    assert [job.state for job in (a, b, c, d)] == [DONE] * 4
    assert work.most_at_once == 2 and sorted(work.calls) == list("abcd")


def test_leaving_a_queued_job_drops_it_and_the_last_leaver_stops_a_running_one() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=1, cacheable=not_stopped)
    running = queue.submit("long")
    eventually(lambda: running.state == RUNNING)
    waiting = queue.submit("later")
    assert waiting.leave() is True  # its only requester left: it never runs
    assert waiting.done and waiting.state == DROPPED

    queue.submit("long")  # a second requester of the running job
    assert running.leave() is False, "someone else still wants it: it goes on"
    assert not running.snapshot().stopping
    assert running.leave() is True
    assert running.snapshot().stopping
    work.gate("long").set()
    assert running.wait(DEADLINE_S)
    assert running.outcome == ("stopped", "long") and work.stopped == ["long"]
    assert queue.cached("long") is None, "a stopped run is not what its key trains to"
    assert work.calls == ["long"], "the dropped job never ran"

    fresh = queue.submit("long")  # asked again: a new, full run
    work.gate("long").set()
    assert fresh is not running and fresh.wait(DEADLINE_S)
    assert fresh.outcome == ("done", "long") and queue.cached("long") == ("done", "long")


def test_cache_keeps_the_most_recently_used_entries_and_errors_are_not_cached() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=1, max_cached=2)
    for key in ("x", "y", "z", "boom"):
        work.gate(key).set()
    for key in ("x", "y"):
        assert queue.submit(key).wait(DEADLINE_S)
    assert queue.cached("x") is not None  # a use: y is now the least recently used
    assert queue.submit("z").wait(DEADLINE_S)
    assert queue.cached("y") is None and queue.cached("x") is not None

    failed = queue.submit("boom")
    assert failed.wait(DEADLINE_S)
    assert failed.state == FAILED and isinstance(failed.error, ValueError)
    assert queue.cached("boom") is None
    retry = queue.submit("boom")
    assert retry is not failed and retry.wait(DEADLINE_S) and retry.state == FAILED
    assert work.calls.count("boom") == 2


def test_use_threads_here_changes_this_thread_only() -> None:
    default = torch.get_num_threads()
    count = 2 if default == 1 else 1  # not the default, so that a leak would show
    seen: dict[str, int] = {}

    def worker() -> None:
        use_threads_here(count)
        seen["worker"] = torch.get_num_threads()

        def later() -> None:
            seen["new thread"] = torch.get_num_threads()

        thread = threading.Thread(target=later)
        thread.start()
        thread.join()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen["worker"] == count
    assert seen["new thread"] == default, "other sessions' new threads keep torch's default"
    assert torch.get_num_threads() == default


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice is Linux's")
def test_lower_priority_here_lowers_this_thread_only() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: dict[str, int] = {}

    def worker() -> None:
        assert lower_priority_here(19)
        seen["worker"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen["worker"] == 19
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    assert os.getpriority(os.PRIO_PROCESS, os.getpid()) == before, "not the whole process"


TINY = TrainConfig(task="copy", seed=3, steps=12, log_every=4).resolved()


def test_the_training_work_gives_the_weights_of_a_direct_training_and_what_the_page_shows() -> None:
    reports: list[Any] = []
    results: dict[str, Any] = {}

    def run() -> None:
        results["queued"] = train_work(TINY, lambda record: reports.append(record) or True)
        results["direct"] = train(TINY)  # same thread, same thread count (set by the work)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    outcome: TrainOutcome = results["queued"]
    direct = results["direct"]
    weights, expected = outcome.result.model.state_dict(), direct.model.state_dict()
    assert all(torch.equal(weights[name], expected[name]) for name in expected)
    assert [r["step"] for r in reports] == [0, 4, 8, 12] and reports == direct.history
    assert outcome.threads == 1
    assert outcome.accuracy == direct.evaluate(n=1000, seed=7)
    assert torch.equal(outcome.attention, direct.attention(outcome.tokens))
    assert outcome.labels == tuple(direct.labels(outcome.tokens))
    assert set(outcome.scores) == {"source"} and outcome.scores["source"].shape == (1, 1)


def test_the_comparison_work_reports_both_runs_and_stops_when_told() -> None:
    cfg = TrainConfig(task="text", seed=1, steps=6, log_every=3, width=16, heads=2).resolved()
    seen: list[tuple[str, int]] = []
    comparison = train_work(
        CompareKey(cfg, 0.3), lambda p: seen.append((p[0], p[1]["step"])) or True
    )
    assert seen == [
        ("without", 0),
        ("without", 3),
        ("without", 6),
        ("with", 0),
        ("with", 3),
        ("with", 6),
    ]
    assert comparison.dropout == 0.3 and comparison.with_dropout.config.dropout == 0.3
    assert comparison.without.config.dropout == 0.0

    stopped = train_work(CompareKey(cfg, 0.3), lambda p: p[1]["step"] < 3)
    assert stopped.without.stopped_early and stopped.with_dropout is None  # never started
    assert not stopped.complete
