"""A class trains at once: a bounded result cache, one run per identical request, a fair queue.

Pure Python (threads, no Streamlit, no torch), so it can be tested with plain threads. The Train
page keeps one :class:`TrainingQueue` per server process (``ui/train_jobs.py``); every browser
session asks it for a :class:`Job` and watches that job from its own script thread::

    queue = TrainingQueue(work, max_running=2, max_cached=16)
    job = queue.submit(key)       # cached → done at once; same key in flight → the same job
    while not job.wait(0.25):     # the session draws job.snapshot() meanwhile
        ...
    job.outcome                   # what work(key, report) returned (or job.error)

What it guarantees:

- **Cached by key.** ``work`` must be deterministic (training is: the same config gives bitwise the
  same weights), so a finished outcome is kept under its key in a least-recently-used cache of
  ``max_cached`` entries, shared by every session; a later request for the same key is answered
  at once. Outcomes for which ``cacheable(outcome)`` is false (a training stopped early) are not
  kept.
- **Identical requests run once.** While a key is queued or running, ``submit(key)`` returns the
  job already there; the second requester waits for the first one's result (and sees its
  progress).
- **At most ``max_running`` at once.** Jobs wait in a first-come, first-served queue and run on
  ``max_running`` worker threads; :meth:`Job.snapshot` tells a waiting job its place in the queue.
- **Stop.** :meth:`Job.leave` withdraws one requester. When the last one has left, a queued job is
  dropped and a running one is told to stop (``report`` returns False; the work decides what to
  return then).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["Job", "JobSnapshot", "TrainingQueue"]

# work(key, report) -> outcome; report(progress) -> False once the job should stop
Report = Callable[[Any], bool]
Work = Callable[[Hashable, Report], Any]

QUEUED, RUNNING, DONE, FAILED, DROPPED = "queued", "running", "done", "failed", "dropped"


@dataclass(frozen=True)
class JobSnapshot:
    """What a watcher draws: the state, the place in the queue (1 = next), the progress so far."""

    state: str  # queued | running | done | failed | dropped
    place: int  # 1, 2, … while queued; 0 otherwise
    running: int  # jobs running on the server right now
    progress: tuple[Any, ...]  # every report so far, oldest first
    stopping: bool  # every requester has left; the job stops at its next report
    seconds: float  # how long the job has been waiting (queued) or running so far


class Job:
    """One request of ``key``, shared by every session that asked for the same key.

    ``outcome`` (after ``state == "done"``) or ``error`` (``"failed"``) hold the result.
    """

    def __init__(self, queue: TrainingQueue, key: Hashable) -> None:
        self.key = key
        self._queue = queue
        self._done = threading.Event()
        self._progress: list[Any] = []
        self.state = QUEUED
        self.requesters = 1
        self.outcome: Any = None
        self.error: BaseException | None = None
        self.from_cache = False
        self._since = time.monotonic()  # when it entered its current state (queued, running)

    @property
    def done(self) -> bool:
        """True once the job has an outcome, an error, or was dropped from the queue."""
        return self._done.is_set()

    @property
    def stopping(self) -> bool:
        return self.requesters == 0

    def wait(self, timeout: float | None = None) -> bool:
        """Block up to ``timeout`` seconds; True when the job is done."""
        return self._done.wait(timeout)

    def snapshot(self) -> JobSnapshot:
        return self._queue._snapshot(self)

    def leave(self) -> bool:
        """This requester stops waiting. Returns True if that stops (or drops) the job itself.

        The job goes on while other requesters still want it; with none left, a queued job is
        removed from the queue and a running one stops at its next report.
        """
        return self._queue._leave(self)

    def _finish(self, state: str, outcome: Any = None, error: BaseException | None = None) -> None:
        self.state, self.outcome, self.error = state, outcome, error
        self._done.set()


class TrainingQueue:
    """Run ``work(key, report)`` for requested keys: cached, deduplicated, ``max_running`` at once.

    ``work`` runs on worker threads (started on the first request), never on the requester's
    thread. ``report(progress)`` stores ``progress`` on the job for watchers and returns False
    once every requester has left. ``cacheable(outcome)`` decides whether a finished outcome is
    kept (default: always).
    """

    def __init__(
        self,
        work: Work,
        *,
        max_running: int = 2,
        max_cached: int = 16,
        cacheable: Callable[[Any], bool] | None = None,
        thread_name: str = "training-worker",
    ) -> None:
        if max_running < 1 or max_cached < 0:
            raise ValueError("max_running must be at least 1 and max_cached at least 0")
        self._work = work
        self.max_running = max_running
        self.max_cached = max_cached
        self._cacheable = cacheable or (lambda _outcome: True)
        self._thread_name = thread_name
        self._lock = threading.Condition()
        self._cache: OrderedDict[Hashable, Any] = OrderedDict()
        self._in_flight: dict[Hashable, Job] = {}
        self._waiting: deque[Job] = deque()
        self._running = 0
        self._workers: list[threading.Thread] = []
        self.runs = 0  # how many times work() was called (for tests and benchmarks)

    # -- requesting ---------------------------------------------------------------------------

    def cached(self, key: Hashable) -> Any | None:
        """The cached outcome of ``key``, or None (counts as a use for the LRU order)."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            return None

    def submit(self, key: Hashable) -> Job:
        """A job for ``key``: done at once if cached, the job in flight if there is one, else new."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                job = Job(self, key)
                job.from_cache = True
                job._finish(DONE, self._cache[key])
                return job
            job = self._in_flight.get(key)
            if job is not None and job.requesters > 0:
                job.requesters += 1
                return job
            # (a job whose requesters all left may already have been told to stop: start anew)
            job = Job(self, key)
            self._in_flight[key] = job
            self._waiting.append(job)
            self._start_workers()
            self._lock.notify_all()
            return job

    def clear(self) -> None:
        """Forget every cached outcome (jobs in flight go on)."""
        with self._lock:
            self._cache.clear()

    # -- what watchers see ----------------------------------------------------------------------

    def _snapshot(self, job: Job) -> JobSnapshot:
        with self._lock:
            place = 0
            if job.state == QUEUED and job in self._waiting:
                place = self._waiting.index(job) + 1
            return JobSnapshot(
                state=job.state,
                place=place,
                running=self._running,
                progress=tuple(job._progress),
                stopping=job.stopping and not job.done,
                seconds=time.monotonic() - job._since,
            )

    def _leave(self, job: Job) -> bool:
        with self._lock:
            if job.done or job.requesters == 0:
                return False
            job.requesters -= 1
            if job.requesters > 0:
                return False
            if job.state == QUEUED:
                self._waiting.remove(job)
                self._forget(job)
                job._finish(DROPPED)
            return True

    # -- the workers ----------------------------------------------------------------------------

    def _start_workers(self) -> None:
        while len(self._workers) < self.max_running:
            worker = threading.Thread(
                target=self._serve,
                name=f"{self._thread_name}-{len(self._workers) + 1}",
                daemon=True,
            )
            self._workers.append(worker)
            worker.start()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    self._lock.wait()
                job = self._waiting.popleft()
                job.state = RUNNING
                job._since = time.monotonic()
                self._running += 1
                self.runs += 1
            self._run(job)

    def _forget(self, job: Job) -> None:
        if self._in_flight.get(job.key) is job:
            del self._in_flight[job.key]

    def _run(self, job: Job) -> None:
        def report(progress: Any) -> bool:
            with self._lock:
                job._progress.append(progress)
                return job.requesters > 0

        try:
            outcome = self._work(job.key, report)
        except Exception as error:  # noqa: BLE001 - handed to the watchers, who show it
            with self._lock:
                self._running -= 1
                self._forget(job)
                job._finish(FAILED, error=error)
            return
        with self._lock:
            self._running -= 1
            self._forget(job)
            if self.max_cached and self._cacheable(outcome):
                self._cache[job.key] = outcome
                self._cache.move_to_end(job.key)
                while len(self._cache) > self.max_cached:
                    self._cache.popitem(last=False)
            job._finish(DONE, outcome)
