"""A class trains at once: a bounded result cache, one run per identical request, a fair queue.

Pure Python (threads, no Streamlit, no torch), so it can be tested with plain threads. The Train
page keeps one :class:`TrainingQueue` per server process (``ui/train_jobs.py``); every browser
session asks it for a :class:`Job` under its own *requester* token and watches that job::

    queue = TrainingQueue(work, max_running=2, max_waiting=8, max_cached_bytes=200_000_000)
    job = queue.submit(key, requester, slot="train")  # cached → done at once; in flight → shared
    while not job.wait(0.25):                           # the session draws job.snapshot() meanwhile
        ...
    job.outcome                                         # what work(key, control) returned

What it guarantees:

- **A job belongs to the requesters that want it.** A job remembers *who* asked for it (a set of
  requester tokens, one per browser session), not how often. :meth:`Job.leave` withdraws one
  requester (Stop); :meth:`TrainingQueue.leave_all` withdraws a requester from every job (its
  session ended); :meth:`TrainingQueue.leave_waiting` only from the jobs that still wait (its tab
  is gone: its places in the line go to others at once). When nobody is left, a waiting job leaves
  the queue and a running one stops at its next check.
- **Bounded per requester and in total.** A requester holds at most one job per *slot* (the page
  uses ``"train"`` and ``"compare"``): submitting another in the same slot leaves the old one. At
  most ``max_waiting`` jobs wait; one more raises :class:`QueueFull` (joining a job that is already
  waiting or running never does).
- **Bounded in time.** Each run gets a :class:`Budget`: the worker thread's CPU seconds and the
  wall-clock seconds since it started. Over either, the work is told to stop (it keeps what it
  has), and the job's ``stop_reason`` says ``"budget"``.
- **Cached by key, bounded by bytes.** ``work`` is deterministic (the same config trains to bitwise
  the same weights), so a finished outcome is kept under its key and a later request is answered
  at once. The cache holds at most ``max_cached_bytes`` (each outcome weighed by ``size_of``),
  forgetting the least recently used first, and forgets outcomes nobody asked for in
  ``max_idle_s`` seconds (a sweeper thread runs while the cache is not empty). Outcomes for which
  ``cacheable(outcome)`` is false (a training stopped early) are not kept.
- **At most ``max_running`` at once**, first come, first served; :meth:`Job.snapshot` tells a
  waiting job its place.
- **Told when work ends unwatched.** ``on_unwatched()`` runs after a run that nobody wanted any
  more has ended (its requesters left, their sessions ended): what it computed is garbage now, and
  the server may give that memory back.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Budget",
    "Control",
    "Job",
    "JobSnapshot",
    "QueueFull",
    "TrainingQueue",
]

QUEUED, RUNNING, DONE, FAILED, DROPPED = "queued", "running", "done", "failed", "dropped"
LEFT, BUDGET = "left", "budget"  # why a running job was told to stop


@dataclass(frozen=True)
class Budget:
    """How long one job may run: CPU seconds of its worker thread, and wall-clock seconds."""

    cpu_seconds: float
    wall_seconds: float


class QueueFull(Exception):
    """``max_waiting`` jobs already wait; ``waiting`` says how many."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} jobs are already waiting")
        self.waiting = waiting


class Control:
    """What a running ``work(key, control)`` receives from the queue.

    ``control(progress)`` hands a progress record to the watchers and returns False once the job
    should stop; ``control.should_stop()`` asks the same without reporting (cheap enough to call
    every training step).
    """

    def __init__(self, queue: TrainingQueue, job: Job, budget: Budget | None) -> None:
        self._queue = queue
        self._job = job
        self._budget = budget
        self._cpu_start = time.thread_time()  # the work runs on this (the worker's) thread
        self._wall_start = time.monotonic()

    def should_stop(self) -> bool:
        """True once every requester has left or the job is over its budget."""
        job = self._job
        if job.requesters and job.stop_reason is None and self._over_budget():
            with self._queue._lock:
                job.stop_reason = BUDGET
        return not job.requesters or job.stop_reason is not None

    def abandoned(self) -> bool:
        """True once every requester's session has ended (not Stop: a stopped job's requester
        still draws what it trained): what the work would compute next, nobody will see."""
        return not self._job.requesters and self._job.abandoned

    def _over_budget(self) -> bool:
        budget = self._budget
        if budget is None:
            return False
        return (
            time.thread_time() - self._cpu_start > budget.cpu_seconds
            or time.monotonic() - self._wall_start > budget.wall_seconds
        )

    def __call__(self, progress: Any) -> bool:
        with self._queue._lock:
            self._job._progress.append(progress)
        return not self.should_stop()


Work = Callable[[Hashable, Control], Any]


@dataclass(frozen=True)
class JobSnapshot:
    """What a watcher draws: the state, the place in the queue (1 = next), the progress so far."""

    state: str  # queued | running | done | failed | dropped
    place: int  # 1, 2, … while queued; 0 otherwise
    running: int  # jobs running on the server right now
    progress: tuple[Any, ...]  # every report so far, oldest first
    stopping: bool  # the job has been told to stop and has not finished yet
    stop_reason: str | None  # "left" (nobody wants it), "budget" (out of time) or None
    requesters: int  # sessions that want this job
    seconds: float  # how long the job has been waiting (queued) or running so far


class Job:
    """One request of ``key``, shared by every requester that asked for the same key.

    ``outcome`` (after ``state == "done"``) or ``error`` (``"failed"``) hold the result;
    ``stop_reason`` says why a run was told to stop early (None when it ran to its end).
    """

    def __init__(self, queue: TrainingQueue, key: Hashable) -> None:
        self.key = key
        self._queue = queue
        self._done = threading.Event()
        self._progress: list[Any] = []
        self._wanted_by: set[Hashable] = set()
        self.state = QUEUED
        self.outcome: Any = None
        self.error: BaseException | None = None
        self.from_cache = False
        self.stop_reason: str | None = None
        self.abandoned = False  # its last requester's session ended (leave_all), not Stop
        self._since = time.monotonic()  # when it entered its current state (queued, running)

    @property
    def requesters(self) -> int:
        """How many requesters still want this job."""
        return len(self._wanted_by)

    @property
    def done(self) -> bool:
        """True once the job has an outcome, an error, or was dropped from the queue."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block up to ``timeout`` seconds; True when the job is done."""
        return self._done.wait(timeout)

    def snapshot(self) -> JobSnapshot:
        return self._queue._snapshot(self)

    def leave(self, requester: Hashable) -> int:
        """``requester`` stops waiting; returns how many requesters still want the job.

        With none left, a waiting job leaves the queue (state ``"dropped"``) and a running one
        stops at its next check (its ``stop_reason`` is ``"left"``).
        """
        return self._queue._leave(self, requester)

    def _finish(self, state: str, outcome: Any = None, error: BaseException | None = None) -> None:
        self.state, self.outcome, self.error = state, outcome, error
        self._done.set()


@dataclass
class _Cached:
    outcome: Any
    size: int  # bytes, as size_of weighed it
    used: float  # time.monotonic() of the last request


class TrainingQueue:
    """Run ``work(key, control)`` for requested keys: cached, shared, bounded, ``max_running`` at once.

    ``work`` runs on worker threads (started on the first request), never on the requester's
    thread. ``size_of(outcome)`` weighs a finished outcome in bytes for the cache;
    ``cacheable(outcome)`` decides whether it is kept at all; ``on_forget()`` runs (on the thread
    that forgot) after outcomes were dropped from the cache, e.g. to give memory back;
    ``on_unwatched()`` (on the worker) after a run ended with no requester left.
    """

    def __init__(
        self,
        work: Work,
        *,
        max_running: int = 2,
        max_waiting: int = 8,
        max_cached_bytes: int = 200_000_000,
        max_idle_s: float = 1800.0,
        budget: Budget | None = None,
        size_of: Callable[[Any], int] | None = None,
        cacheable: Callable[[Any], bool] | None = None,
        on_forget: Callable[[], None] | None = None,
        on_unwatched: Callable[[], None] | None = None,
        thread_name: str = "training-worker",
    ) -> None:
        if max_running < 1 or max_waiting < 0 or max_cached_bytes < 0 or max_idle_s <= 0:
            raise ValueError(
                "max_running must be at least 1, max_waiting and max_cached_bytes at least 0, "
                "max_idle_s above 0"
            )
        self._work = work
        self.max_running = max_running
        self.max_waiting = max_waiting
        self.max_cached_bytes = max_cached_bytes
        self.max_idle_s = max_idle_s
        self.budget = budget
        self._size_of = size_of or (lambda _outcome: 0)
        self._cacheable = cacheable or (lambda _outcome: True)
        self._on_forget = on_forget
        self._on_unwatched = on_unwatched
        self._thread_name = thread_name
        self._lock = threading.Condition()
        self._cache: OrderedDict[Hashable, _Cached] = OrderedDict()
        self._in_flight: dict[Hashable, Job] = {}
        self._waiting: deque[Job] = deque()
        self._held: dict[tuple[Hashable, str], Job] = {}  # (requester, slot) → the job it holds
        self._running = 0
        self._workers: list[threading.Thread] = []
        self._sweeper: threading.Thread | None = None
        self.runs = 0  # how many times work() was called (for tests and benchmarks)

    # -- requesting ---------------------------------------------------------------------------

    def cached(self, key: Hashable) -> Any | None:
        """The cached outcome of ``key``, or None (counts as a use)."""
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                return None
            self._touch(key, entry)
            return entry.outcome

    def submit(self, key: Hashable, requester: Hashable, slot: str = "train") -> Job:
        """A job for ``key`` wanted by ``requester``, who leaves the job it held in ``slot``.

        Done at once if cached; the job in flight if there is one (``requester`` joins it); else
        a new job at the end of the queue. Raises :class:`QueueFull` when that would make more
        than ``max_waiting`` jobs wait (the old job in ``slot`` is then kept).
        """
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._release_slot(requester, slot)
                self._touch(key, entry)
                job = Job(self, key)
                job.from_cache = True
                job._finish(DONE, entry.outcome)
                return job
            job = self._in_flight.get(key)
            if job is not None and job.requesters and job.stop_reason is None:
                if self._held.get((requester, slot)) is not job:
                    self._release_slot(requester, slot)
                    job._wanted_by.add(requester)
                    self._held[(requester, slot)] = job
                return job
            # (a job told to stop keeps running until its next check: a new request starts anew)
            held = self._held.get((requester, slot))
            frees_a_place = held is not None and held.state == QUEUED and held.requesters == 1
            if len(self._waiting) - frees_a_place >= self.max_waiting:
                raise QueueFull(len(self._waiting))
            self._release_slot(requester, slot)
            job = Job(self, key)
            job._wanted_by.add(requester)
            self._held[(requester, slot)] = job
            self._in_flight[key] = job
            self._waiting.append(job)
            self._start_workers()
            self._lock.notify_all()
            return job

    def leave_all(self, requester: Hashable) -> int:
        """``requester`` leaves every job it holds (its session ended); returns how many."""
        with self._lock:
            slots = [held for held in self._held if held[0] == requester]
            for held in slots:
                self._release_slot(*held, abandoned=True)
            return len(slots)

    def leave_waiting(self, requester: Hashable) -> int:
        """``requester`` leaves every job it holds that still waits (its tab is gone); returns how
        many. A running job goes on: a tab that comes back before its session ends finds it."""
        with self._lock:
            slots = [held for held, job in self._held.items() if held[0] == requester]
            waiting = [held for held in slots if self._held[held].state == QUEUED]
            for held in waiting:
                self._release_slot(*held, abandoned=True)
            return len(waiting)

    def clear(self) -> None:
        """Forget every cached outcome (jobs in flight go on)."""
        with self._lock:
            self._cache.clear()

    def waiting(self) -> int:
        """Jobs waiting for a worker right now."""
        with self._lock:
            return len(self._waiting)

    def cached_bytes(self) -> int:
        """What the cached outcomes weigh, in bytes (as ``size_of`` weighs them)."""
        with self._lock:
            return sum(entry.size for entry in self._cache.values())

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
                stopping=not job.done and (not job.requesters or job.stop_reason is not None),
                stop_reason=job.stop_reason,
                requesters=job.requesters,
                seconds=time.monotonic() - job._since,
            )

    # -- leaving (under the lock) -----------------------------------------------------------------

    def _leave(self, job: Job, requester: Hashable) -> int:
        with self._lock:
            for held, held_job in list(self._held.items()):
                if held[0] == requester and held_job is job:
                    del self._held[held]
            self._withdraw(job, requester)
            return job.requesters

    def _release_slot(self, requester: Hashable, slot: str, *, abandoned: bool = False) -> None:
        job = self._held.pop((requester, slot), None)
        if job is not None:
            self._withdraw(job, requester, abandoned=abandoned)

    def _withdraw(self, job: Job, requester: Hashable, *, abandoned: bool = False) -> None:
        if job.done or requester not in job._wanted_by:
            return
        job._wanted_by.discard(requester)
        if job.requesters:
            return
        job.abandoned = abandoned
        if job.state == QUEUED:
            self._waiting.remove(job)
            self._forget_in_flight(job)
            job._finish(DROPPED)
        elif job.stop_reason is None:
            job.stop_reason = LEFT

    # -- the cache (under the lock) ---------------------------------------------------------------

    def _touch(self, key: Hashable, entry: _Cached) -> None:
        entry.used = time.monotonic()
        self._cache.move_to_end(key)

    def _keep(self, key: Hashable, outcome: Any) -> bool:
        """Cache ``outcome``; returns whether older outcomes had to go."""
        size = max(0, int(self._size_of(outcome)))
        if size > self.max_cached_bytes:
            return False
        self._cache[key] = _Cached(outcome, size, time.monotonic())
        self._cache.move_to_end(key)
        forgot = False
        while sum(entry.size for entry in self._cache.values()) > self.max_cached_bytes:
            self._cache.popitem(last=False)
            forgot = True
        self._start_sweeper()
        return forgot

    def _forget_idle(self) -> float | None:
        """Drop outcomes unused for ``max_idle_s``; the seconds until the next may go, or None."""
        now = time.monotonic()
        for key in [k for k, e in self._cache.items() if now - e.used >= self.max_idle_s]:
            del self._cache[key]
        if not self._cache:
            return None
        return min(e.used for e in self._cache.values()) + self.max_idle_s - now

    def _start_sweeper(self) -> None:
        if self._sweeper is None:
            self._sweeper = threading.Thread(
                target=self._sweep, name=f"{self._thread_name}-sweeper", daemon=True
            )
            self._sweeper.start()

    def _sweep(self) -> None:
        """Forget idle outcomes as they become idle; ends when the cache is empty."""
        while True:
            with self._lock:
                before = len(self._cache)
                wait = self._forget_idle()
                forgot = len(self._cache) < before
                if wait is None:
                    self._sweeper = None
            if forgot and self._on_forget is not None:
                self._on_forget()
            if wait is None:
                return
            time.sleep(max(0.05, wait))

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

    def _forget_in_flight(self, job: Job) -> None:
        if self._in_flight.get(job.key) is job:
            del self._in_flight[job.key]

    def _release_holders(self, job: Job) -> None:
        for held in [held for held, held_job in self._held.items() if held_job is job]:
            del self._held[held]

    def _run(self, job: Job) -> None:
        control = Control(self, job, self.budget)
        try:
            outcome = self._work(job.key, control)
        except Exception as error:  # noqa: BLE001 - handed to the watchers, who show it
            with self._lock:
                self._running -= 1
                self._forget_in_flight(job)
                self._release_holders(job)
                job._finish(FAILED, error=error)
            self._ended(job)
            return
        with self._lock:
            self._running -= 1
            self._forget_in_flight(job)
            self._release_holders(job)
            forgot = False
            if self.max_cached_bytes and job.stop_reason is None and self._cacheable(outcome):
                forgot = self._keep(job.key, outcome)
            job._finish(DONE, outcome)
        if forgot and self._on_forget is not None:
            self._on_forget()
        self._ended(job)

    def _ended(self, job: Job) -> None:
        """After a run: nobody watching, so what it computed is garbage (``on_unwatched``)."""
        if not job.requesters and self._on_unwatched is not None:
            self._on_unwatched()
