"""The training queue: cached by key and bytes, shared by requesters, bounded in number and time.

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
from ui.train_jobs import (
    CompareKey,
    TrainOutcome,
    lower_priority_here,
    use_threads_here,
    weigh,
)
from ui.train_jobs import run_job as train_work
from ui.train_queue import (
    BUDGET,
    DONE,
    DROPPED,
    FAILED,
    LEFT,
    QUEUED,
    RUNNING,
    Budget,
    QueueFull,
    TrainingQueue,
)

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

    def ask(requester: int) -> None:
        start.wait()
        jobs.append(queue.submit("same", requester))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(job) for job in jobs}) == 1, "every requester watches the one job"
    assert jobs[0].requesters == 6
    assert queue.submit("same", 0) is jobs[0] and jobs[0].requesters == 6, "one requester, once"
    eventually(lambda: jobs[0].state == RUNNING)
    work.gate("same").set()
    assert jobs[0].wait(DEADLINE_S)
    assert work.calls == ["same"] and queue.runs == 1
    assert jobs[0].outcome == ("done", "same")
    assert jobs[0].snapshot().progress == (1, 2), "watchers see every report"

    again = queue.submit("same", 7)  # later: from the cache, at once, no new run
    assert again.done and again.from_cache and again.outcome == ("done", "same")
    assert queue.runs == 1 and queue.cached("same") == ("done", "same")


def test_at_most_max_running_at_once_and_the_others_see_their_place() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=2)
    a, b, c, d = (queue.submit(key, key) for key in "abcd")
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
    running = queue.submit("long", "ann")
    eventually(lambda: running.state == RUNNING)
    waiting = queue.submit("later", "bob")
    assert waiting.leave("bob") == 0  # its only requester left: it never runs
    assert waiting.done and waiting.state == DROPPED

    queue.submit("long", "bob")  # a second requester of the running job
    assert running.leave("ann") == 1, "someone else still wants it: it goes on"
    assert running.leave("ann") == 1, "leaving twice counts once"
    assert not running.snapshot().stopping
    assert running.leave("bob") == 0
    assert running.snapshot().stopping and running.snapshot().stop_reason == LEFT
    work.gate("long").set()
    assert running.wait(DEADLINE_S)
    assert running.outcome == ("stopped", "long") and work.stopped == ["long"]
    assert running.stop_reason == LEFT
    assert queue.cached("long") is None, "a stopped run is not what its key trains to"
    assert work.calls == ["long"], "the dropped job never ran"

    fresh = queue.submit("long", "ann")  # asked again: a new, full run
    work.gate("long").set()
    assert fresh is not running and fresh.wait(DEADLINE_S)
    assert fresh.outcome == ("done", "long") and queue.cached("long") == ("done", "long")


def test_a_session_that_ends_leaves_every_job_it_asked_for() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=1, cacheable=not_stopped)
    alone = queue.submit("alone", "closed tab", slot="train")
    eventually(lambda: alone.state == RUNNING)
    compared = queue.submit("compare", "closed tab", slot="compare")  # waits behind it
    shared = queue.submit("shared", "closed tab", slot="other")
    queue.submit("shared", "open tab")
    assert queue.leave_all("closed tab") == 3
    assert alone.snapshot().stopping, "nobody wants the running job: it stops"
    assert compared.state == DROPPED, "nobody wants the waiting job: it leaves the queue"
    assert shared.requesters == 1 and shared.state == QUEUED, "the open tab still wants this one"
    work.gate("alone").set()
    work.gate("shared").set()
    assert alone.wait(DEADLINE_S) and alone.outcome == ("stopped", "alone")
    assert shared.wait(DEADLINE_S) and shared.outcome == ("done", "shared")
    assert work.calls == ["alone", "shared"]
    assert queue.leave_all("closed tab") == 0, "nothing is held any more"


def test_a_requester_holds_one_job_per_slot_and_the_waiting_line_is_capped() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=1, max_waiting=2, cacheable=not_stopped)
    blocker = queue.submit("blocker", "teacher")
    eventually(lambda: blocker.state == RUNNING)
    first = queue.submit("first", "student")
    second = queue.submit("second", "student")  # a new training leaves the old one
    assert first.state == DROPPED and second.state == QUEUED
    queue.submit("other", "classmate")
    assert queue.waiting() == 2
    with pytest.raises(QueueFull) as full:
        queue.submit("third", "newcomer")
    assert full.value.waiting == 2
    assert queue.submit("other", "newcomer").requesters == 2, "joining a waiting job is free"
    replaced = queue.submit("fourth", "student")  # frees its own place in the line: allowed
    assert second.state == DROPPED and replaced.state == QUEUED and queue.waiting() == 2
    for key in ("blocker", "other", "fourth"):
        work.gate(key).set()
    assert all(job.wait(DEADLINE_S) for job in (blocker, replaced))
    assert work.calls == ["blocker", "other", "fourth"]


def test_a_job_over_its_budget_stops_and_keeps_what_it_has() -> None:
    def busy(key: Hashable, control: Any) -> Any:
        steps = 0
        while not control.should_stop():  # spends CPU until the budget says stop
            steps += 1
            sum(range(1000))
        control(steps)
        return ("partial", steps)

    queue = TrainingQueue(busy, budget=Budget(cpu_seconds=0.05, wall_seconds=DEADLINE_S))
    job = queue.submit("long", "student")
    assert job.wait(DEADLINE_S)
    assert job.state == DONE and job.stop_reason == BUDGET
    assert job.outcome[0] == "partial" and job.outcome[1] > 0
    assert queue.cached("long") is None, "a run cut short is not what its key trains to"

    walled = TrainingQueue(busy, budget=Budget(cpu_seconds=DEADLINE_S, wall_seconds=0.05))
    job = walled.submit("long", "student")
    assert job.wait(DEADLINE_S) and job.stop_reason == BUDGET


def test_the_cache_is_bounded_by_bytes_and_forgets_what_nobody_asks_for() -> None:
    sizes = {"x": 40, "y": 40, "z": 40, "huge": 1000}
    forgotten: list[int] = []
    work = GatedWork()
    queue = TrainingQueue(
        work,
        max_running=1,
        max_cached_bytes=100,
        size_of=lambda outcome: sizes.get(outcome[1], 0),
        on_forget=lambda: forgotten.append(1),
    )
    for key in (*sizes, "boom"):
        work.gate(key).set()
    for key in ("x", "y"):
        assert queue.submit(key, "r").wait(DEADLINE_S)
    assert queue.cached("x") is not None  # a use: y is now the least recently used
    assert queue.submit("z", "r").wait(DEADLINE_S)
    assert queue.cached("y") is None and queue.cached("x") is not None
    assert queue.cached_bytes() == 80 and forgotten
    assert queue.submit("huge", "r").wait(DEADLINE_S)
    assert queue.cached("huge") is None and queue.cached_bytes() == 80, "never over the bound"

    failed = queue.submit("boom", "r")
    assert failed.wait(DEADLINE_S)
    assert failed.state == FAILED and isinstance(failed.error, ValueError)
    assert queue.cached("boom") is None

    idle = TrainingQueue(work, max_idle_s=0.2, on_forget=lambda: forgotten.append(2))
    assert idle.submit("x", "r").wait(DEADLINE_S)
    assert idle.cached("x") is not None
    eventually(lambda: idle.cached_bytes() == 0 and 2 in forgotten)
    assert idle.cached("x") is None, "forgotten after nobody asked for it"


def test_weigh_counts_tensors_text_and_shared_storage_once() -> None:
    weights = torch.zeros(100, 10)  # 4000 bytes
    view = weights[:10]  # the same storage
    assert weigh({"a": weights, "b": [view, weights]}) == 4000
    model = torch.nn.Linear(10, 10)  # 100 weights + 10 biases, float32
    assert weigh(model) == 440
    assert weigh((model, b"x" * 1000)) >= 1440


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


class Watcher:
    """What the queue hands the work: ``watcher(progress)`` keeps it, ``should_stop()`` asks."""

    def __init__(self, keep_going: Callable[[Any], bool] = lambda _p: True, stop_at: int = 0):
        self.reports: list[Any] = []
        self._keep_going = keep_going
        self._asked = 0
        self._stop_at = stop_at  # should_stop() says True from this call on (0: never)

    def __call__(self, progress: Any) -> bool:
        self.reports.append(progress)
        return self._keep_going(progress)

    def should_stop(self) -> bool:
        self._asked += 1
        return self._stop_at > 0 and self._asked >= self._stop_at

    gone = False  # True: every session that asked has ended

    def abandoned(self) -> bool:
        return self.gone


def test_the_training_work_gives_the_weights_of_a_direct_training_and_what_the_page_shows() -> None:
    watcher = Watcher()
    reports = watcher.reports
    results: dict[str, Any] = {}

    def run() -> None:
        results["queued"] = train_work(TINY, watcher)
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
    watcher = Watcher()
    comparison = train_work(CompareKey(cfg, 0.3), watcher)
    assert [(run, record["step"]) for run, record in watcher.reports] == [
        ("without", 0),
        ("without", 3),
        ("without", 6),
        ("with", 0),
        ("with", 3),
        ("with", 6),
    ]
    assert comparison.dropout == 0.3 and comparison.with_dropout.config.dropout == 0.3
    assert comparison.without.config.dropout == 0.0

    stopped = train_work(CompareKey(cfg, 0.3), Watcher(lambda p: p[1]["step"] < 3))
    assert stopped.without.stopped_early and stopped.with_dropout is None  # never started
    assert not stopped.complete

    cut = Watcher(stop_at=2)  # asked before each step: stops before the second step
    stopped = train_work(CompareKey(cfg, 0.3), cut)
    assert stopped.without.steps_done == 1 and stopped.with_dropout is None
    assert [record["step"] for _run, record in cut.reports] == [0, 1], "the last step is measured"


def test_a_gone_tab_gives_up_its_places_in_the_line_and_keeps_its_running_job() -> None:
    work = GatedWork()
    queue = TrainingQueue(work, max_running=1, max_waiting=1, cacheable=not_stopped)
    running = queue.submit("running", "gone tab", slot="train")
    eventually(lambda: running.state == RUNNING)
    waiting = queue.submit("waiting", "gone tab", slot="compare")
    with pytest.raises(QueueFull):
        queue.submit("newcomer", "new tab")  # the abandoned tab holds the only place
    assert queue.leave_waiting("gone tab") == 1
    assert waiting.state == DROPPED
    assert running.state == RUNNING and not running.snapshot().stopping, "it may come back"
    newcomer = queue.submit("newcomer", "new tab")
    assert newcomer.state == QUEUED and newcomer.snapshot().place == 1
    assert queue.leave_waiting("gone tab") == 0
    for key in ("running", "newcomer"):
        work.gate(key).set()
    assert running.wait(DEADLINE_S) and newcomer.wait(DEADLINE_S)


def test_a_run_that_ends_with_nobody_watching_tells_the_server_to_give_memory_back() -> None:
    work = GatedWork()
    unwatched: list[str] = []
    queue = TrainingQueue(
        work, max_running=1, cacheable=not_stopped, on_unwatched=lambda: unwatched.append("end")
    )
    watched = queue.submit("watched", "open tab")
    work.gate("watched").set()
    assert watched.wait(DEADLINE_S) and watched.outcome == ("done", "watched")
    assert unwatched == [], "a watcher still holds the outcome"

    abandoned = queue.submit("abandoned", "closed tab")
    eventually(lambda: abandoned.state == RUNNING)
    queue.leave_all("closed tab")  # its session ended: the run stops at its next check
    work.gate("abandoned").set()
    assert abandoned.wait(DEADLINE_S) and abandoned.stop_reason == LEFT
    eventually(lambda: unwatched == ["end"])


def test_work_learns_whether_its_sessions_ended_or_its_watcher_pressed_stop() -> None:
    gates = {key: threading.Event() for key in ("stopped", "abandoned")}
    seen: dict[str, bool] = {}

    def work(key: str, control: Any) -> str:
        gates[key].wait(DEADLINE_S)
        seen[key] = control.abandoned()  # after Stop, the watcher still draws what it trained
        return key

    queue = TrainingQueue(work, max_running=2)
    stopped = queue.submit("stopped", "tab pressing Stop")
    abandoned = queue.submit("abandoned", "closed tab")
    eventually(lambda: stopped.state == RUNNING and abandoned.state == RUNNING)
    stopped.leave("tab pressing Stop")
    queue.leave_all("closed tab")
    for gate in gates.values():
        gate.set()
    assert stopped.wait(DEADLINE_S) and abandoned.wait(DEADLINE_S)
    assert seen == {"stopped": False, "abandoned": True}


def test_a_training_whose_sessions_ended_stops_without_measuring_its_model() -> None:
    watcher = Watcher(stop_at=1)
    watcher.gone = True
    assert train_work(TINY, watcher) is None, "no accuracy, maps or scores for nobody"
