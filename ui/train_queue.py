"""A class trains at once: a fair, bounded queue whose jobs run in worker processes.

The Train page keeps one :class:`TrainingQueue` per server (``ui/train_jobs.py``); every browser
session asks it for a :class:`Job` under its own *requester* token and watches that job::

    queue = TrainingQueue(work, budget=Budget(240, 600, 1024), preload=("ui.train_jobs",))
    job = queue.submit(key, requester, slot="train")  # cached → done at once; in flight → shared
    while not job.wait(0.25):                           # the session draws job.snapshot() meanwhile
        ...
    job.outcome                                         # what work(key, report, should_stop) gave

**Worker processes.** Each run calls ``work(key, report, should_stop)`` in a process of its own,
forked from a *forkserver*: a single-threaded Python started once, which imported ``preload``
(torch and the training code), so a run starts in milliseconds and the web server, which runs many
threads, is never forked. The operating system bounds the worker: ``RLIMIT_CPU`` (at the budget's
CPU seconds the kernel signals it, the work is told to stop and keeps what it trained;
:data:`STOP_GRACE_S` later the kernel kills it), ``RLIMIT_AS`` (an allocation past its memory
fails, and the job ends saying so) and a low priority (``nice``: pages answer first). Progress
records and the outcome come back through a pipe as pickled plain data; when the worker exits,
all its memory goes back to the system. One thread of the server, the dispatcher, starts workers,
reads their pipes and ends them: it computes nothing.

What it guarantees:

- **A job belongs to the requesters that want it.** A job remembers *who* asked for it (a set of
  requester tokens, one per browser session). :meth:`Job.leave` withdraws one (Stop: with nobody
  left, the worker is told to stop and its partial outcome is kept); :meth:`TrainingQueue.leave_all`
  withdraws a requester from every job (its tab is gone: with nobody left, a waiting job leaves the
  queue and a running worker is killed at once).
- **Bounded per requester and in total.** A requester holds at most one job per *slot* (the page
  uses ``"train"`` and ``"compare"``); at most ``max_waiting`` jobs wait (one more raises
  :class:`QueueFull`) and ``max_running`` run, first come, first served.
- **Bounded in time and memory** by :class:`Budget`: CPU seconds and memory (the worker's rlimits)
  and wall-clock seconds (the dispatcher tells the worker to stop, then kills it).
- **Cached by key.** ``work`` is deterministic, so a finished outcome is kept under its key (the
  ``max_cached`` most recently used ones) and a later request is answered at once; an outcome for
  which ``cacheable(outcome)`` is false, or of a run told to stop, is not kept.

Every event of a job is one line of the operator's log (``ui.ops_log``): queued, started, over
budget, stopped (done, cancelled, over budget, failed).
"""

from __future__ import annotations

import io
import itertools
import math
import multiprocessing
import os
import pickle
import resource
import signal
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing import forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.connection import Connection, wait
from multiprocessing.context import set_spawning_popen
from typing import Any

__all__ = [
    "Budget",
    "Job",
    "JobFailure",
    "JobSnapshot",
    "QueueFull",
    "TrainingQueue",
]

QUEUED, RUNNING, DONE, FAILED, DROPPED = "queued", "running", "done", "failed", "dropped"
LEFT, BUDGET = "left", "budget"  # why a running job was told to stop
MEMORY, TIME, CRASHED, ERROR = "memory", "time", "crashed", "error"  # JobFailure.kind
STOP_GRACE_S = 20.0  # a worker told to stop (or over its CPU) is killed this much later
TICK_S = 0.25  # the dispatcher looks at wall-clock budgets and stop requests this often

Report = Callable[[Any], None]
Work = Callable[[Hashable, Report, Callable[[], bool]], Any]  # runs in the worker process


@dataclass(frozen=True)
class Budget:
    """What one run may use: CPU seconds, wall-clock seconds, and memory (MB of address space the
    worker may add to what it holds when it starts; 0: no memory limit)."""

    cpu_seconds: float
    wall_seconds: float
    memory_mb: float = 0.0


@dataclass(frozen=True)
class JobFailure:
    """Why a run gave no outcome: ``kind`` is ``"memory"`` (over its memory budget), ``"time"``
    (over its time budget and killed: it did not stop in time), ``"crashed"`` (the worker died:
    ``detail`` is its exit code) or ``"error"`` (the work raised: ``detail`` is the error's
    type, never its text, which may hold the server's paths)."""

    kind: str
    detail: str = ""


class QueueFull(Exception):
    """``max_waiting`` jobs already wait; ``waiting`` says how many."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} jobs are already waiting")
        self.waiting = waiting


@dataclass(frozen=True)
class JobSnapshot:
    """What a watcher sees of a job at one moment (a consistent copy, taken under the lock)."""

    state: str  # "queued", "running", "done", "failed" or "dropped"
    place: int  # 1-based place in the waiting line (0 unless queued)
    running: int  # jobs running on the server right now
    progress: tuple[Any, ...]  # every report so far, oldest first
    stopping: bool  # the job has been told to stop and has not finished yet
    stop_reason: str | None  # "left" (nobody wants it), "budget" (out of time) or None
    requesters: int  # sessions that want this job
    seconds: float  # how long the job has been waiting (queued) or running so far


class Job:
    """One request of ``key``, shared by every requester that asked for the same key.

    ``outcome`` (after ``state == "done"``) or ``error`` (a :class:`JobFailure`, ``"failed"``)
    hold the result; ``stop_reason`` says why a run was told to stop early (None: it ran to its
    end); ``pid`` is its worker's process id once it runs.
    """

    _ids = itertools.count(1)

    def __init__(self, queue: TrainingQueue, key: Hashable, slot: str) -> None:
        self.key = key
        self.slot = slot
        self.id = next(Job._ids)  # names the job in the log
        self._queue = queue
        self._done = threading.Event()
        self._progress: list[Any] = []
        self._wanted_by: set[Hashable] = set()
        self.state = QUEUED
        self.outcome: Any = None
        self.error: JobFailure | None = None
        self.from_cache = False
        self.stop_reason: str | None = None
        self.pid: int | None = None
        self._since = time.monotonic()  # when it entered its current state (queued, running)
        self._process: Any = None  # its worker (a multiprocessing Process) while it runs
        self._conn: Connection | None = None
        self._stop: Any = None  # an Event the worker asks before every step
        self._kill_at: float | None = None  # told to stop: killed if still running then

    @property
    def requesters(self) -> int:
        """How many requesters still want this job."""
        return len(self._wanted_by)

    @property
    def done(self) -> bool:
        """True once the job has an outcome, an error, or was dropped."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block up to ``timeout`` seconds; True when the job is done."""
        return self._done.wait(timeout)

    def snapshot(self) -> JobSnapshot:
        return self._queue._snapshot(self)

    def leave(self, requester: Hashable) -> int:
        """``requester`` stops waiting (Stop); returns how many requesters still want the job.

        With none left, a waiting job leaves the queue (``"dropped"``) and a running one is told
        to stop (``stop_reason`` ``"left"``): its worker returns the model trained so far.
        """
        return self._queue._leave(self, requester)

    def _finish(self, state: str, outcome: Any = None, error: JobFailure | None = None) -> None:
        self.state, self.outcome, self.error = state, outcome, error
        self._done.set()


def _event(name: str, job: Job, **fields: object) -> None:
    """One line in the operator's log (imported here: the worker processes never log)."""
    from .ops_log import event

    event(name, job=job.id, slot=job.slot, **fields)


class TrainingQueue:
    """Run ``work(key, report, should_stop)`` for requested keys in worker processes: cached,
    shared, bounded, at most ``max_running`` at once (see the module's docstring)."""

    def __init__(
        self,
        work: Work,
        *,
        max_running: int = 2,
        max_waiting: int = 8,
        max_cached: int = 8,
        budget: Budget | None = None,
        nice: int = 0,
        stop_grace_s: float = STOP_GRACE_S,
        cacheable: Callable[[Any], bool] | None = None,
        preload: tuple[str, ...] = (),
    ) -> None:
        if max_running < 1 or max_waiting < 0 or max_cached < 0:
            raise ValueError(
                "max_running must be at least 1, max_waiting and max_cached at least 0"
            )
        self._work = work
        self.max_running = max_running
        self.max_waiting = max_waiting
        self.max_cached = max_cached
        self.budget = budget or Budget(math.inf, math.inf)
        self.nice = nice
        self.stop_grace_s = stop_grace_s
        self._cacheable = cacheable or (lambda _outcome: True)
        self._context = multiprocessing.get_context("forkserver")
        if preload:
            self._context.set_forkserver_preload(list(preload))
        self._lock = threading.Condition()
        self._cache: OrderedDict[Hashable, Any] = OrderedDict()
        self._in_flight: dict[Hashable, Job] = {}
        self._waiting: deque[Job] = deque()
        self._running: list[Job] = []
        self._held: dict[tuple[Hashable, str], Job] = {}  # (requester, slot) → the job it holds
        self._dispatcher: threading.Thread | None = None
        self.runs = 0  # how many workers were started (for tests and benchmarks)

    def warm(self) -> None:
        """Start the forkserver now (it imports ``preload``: seconds on a busy machine), so that
        the first Train press finds it ready. Cheap once it runs."""
        forkserver.ensure_running()

    # -- requesting ---------------------------------------------------------------------------

    def cached(self, key: Hashable) -> Any | None:
        """The cached outcome of ``key``, or None (counts as a use)."""
        with self._lock:
            if key not in self._cache:
                return None
            self._cache.move_to_end(key)
            return self._cache[key]

    def submit(self, key: Hashable, requester: Hashable, slot: str = "train") -> Job:
        """A job for ``key`` wanted by ``requester``, who leaves the job it held in ``slot``.

        Done at once if cached; the job in flight if there is one (``requester`` joins it); else
        a new job at the end of the queue. Raises :class:`QueueFull` when that would make more
        than ``max_waiting`` jobs wait (the old job in ``slot`` is then kept).
        """
        with self._lock:
            if key in self._cache:
                self._release_slot(requester, slot)
                self._cache.move_to_end(key)
                job = Job(self, key, slot)
                job.from_cache = True
                job._finish(DONE, self._cache[key])
                return job
            job = self._in_flight.get(key)
            if job is not None and job.requesters and job.stop_reason is None:
                if self._held.get((requester, slot)) is not job:
                    self._release_slot(requester, slot)
                    job._wanted_by.add(requester)
                    self._held[(requester, slot)] = job
                return job
            # (a job told to stop keeps running until it stops: a new request starts anew)
            held = self._held.get((requester, slot))
            frees_a_place = held is not None and held.state == QUEUED and held.requesters == 1
            if len(self._waiting) - frees_a_place >= self.max_waiting:
                raise QueueFull(len(self._waiting))
            self._release_slot(requester, slot)
            job = Job(self, key, slot)
            job._wanted_by.add(requester)
            self._held[(requester, slot)] = job
            self._in_flight[key] = job
            self._waiting.append(job)
            _event("training_queued", job, waiting=len(self._waiting))
            if self._dispatcher is None:
                self._dispatcher = threading.Thread(
                    target=self._dispatch, name="training-dispatcher", daemon=True
                )
                self._dispatcher.start()
            self._lock.notify_all()
            return job

    def leave_all(self, requester: Hashable) -> int:
        """``requester`` leaves every job it holds (its tab is gone, or its session ended); a job
        nobody else wants is dropped or its worker killed. Returns how many jobs it left."""
        with self._lock:
            slots = [held for held in self._held if held[0] == requester]
            for held in slots:
                self._release_slot(*held, cancel=True)
            return len(slots)

    def waiting(self) -> int:
        """Jobs waiting for a worker right now (the operator's /metrics)."""
        with self._lock:
            return len(self._waiting)

    def running(self) -> int:
        """Workers running (or starting) right now."""
        with self._lock:
            return len(self._running)

    # -- what watchers see ----------------------------------------------------------------------

    def _snapshot(self, job: Job) -> JobSnapshot:
        with self._lock:
            place = (
                self._waiting.index(job) + 1 if job.state == QUEUED and job in self._waiting else 0
            )
            return JobSnapshot(
                state=job.state,
                place=place,
                running=len(self._running),
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

    def _release_slot(self, requester: Hashable, slot: str, *, cancel: bool = False) -> None:
        job = self._held.pop((requester, slot), None)
        if job is not None:
            self._withdraw(job, requester, cancel=cancel)

    def _withdraw(self, job: Job, requester: Hashable, *, cancel: bool = False) -> None:
        """``requester`` no longer wants ``job``; with nobody left it is dropped (waiting), killed
        (``cancel``: nobody will look at it) or told to stop and keep what it has."""
        if job.done or requester not in job._wanted_by:
            return
        job._wanted_by.discard(requester)
        if job.requesters:
            return
        if job.state == QUEUED:
            self._waiting.remove(job)
            self._forget_in_flight(job)
            job._finish(DROPPED)
            _event("training_stopped", job, why="cancelled", running=False)
        elif cancel:
            if job._process is not None:  # (one still starting is killed once it runs)
                job._process.kill()  # its memory goes back with it; the dispatcher reaps it
            job.stop_reason = job.stop_reason or LEFT
            self._end(job, DROPPED, why="cancelled")
        elif job.stop_reason is None:
            self._tell_to_stop(job, LEFT)

    def _tell_to_stop(self, job: Job, reason: str) -> None:
        job.stop_reason = reason
        if job._stop is not None:  # (a worker still starting is told once it runs)
            job._stop.set()
        job._kill_at = time.monotonic() + self.stop_grace_s

    # -- the dispatcher ---------------------------------------------------------------------------

    def _dispatch(self) -> None:
        """Start workers for waiting jobs, relay their reports, end them (the server's one thread
        for the queue; it sleeps while nothing runs or waits). Workers start outside the lock:
        the first waits for the forkserver, and watchers must not wait with it."""
        while True:
            with self._lock:
                while not self._waiting and not self._running:
                    self._lock.wait()
                starting = []
                while self._waiting and len(self._running) < self.max_running:
                    job = self._waiting.popleft()
                    job.state, job._since = RUNNING, time.monotonic()
                    self._running.append(job)
                    starting.append(job)
            for job in starting:
                self._start(job)
            with self._lock:
                self._enforce_time()
                running = [job for job in self._running if job._conn is not None]
            handles: list[Any] = [job._conn for job in running]
            handles += [job._process.sentinel for job in running]
            wait(handles, timeout=TICK_S)
            for job in running:
                try:
                    self._read(job)
                except Exception as error:  # noqa: BLE001 - one job fails, the queue goes on
                    job._process.kill()
                    with self._lock:
                        if not job.done:
                            failure = JobFailure(ERROR, type(error).__name__)
                            self._end(job, FAILED, error=failure, why="failed")

    def _start(self, job: Job) -> None:
        try:
            receiver, sender = self._context.Pipe(duplex=False)
            stop = self._context.Event()
            limits = (self.budget, self.nice, self.stop_grace_s)
            process = _WorkerProcess(
                target=_worker_main,
                args=(self._work, job.key, sender, stop, *limits),
                name=f"training-worker-{job.id}",
                daemon=True,
            )
            process.start()
            sender.close()  # the worker holds the only writing end: its exit closes the pipe
        except Exception as error:  # noqa: BLE001 - the job fails, the queue goes on
            with self._lock:
                self._running.remove(job)
                if not job.done:
                    failure = JobFailure(CRASHED, type(error).__name__)
                    self._end(job, FAILED, error=failure, why="failed")
            return
        with self._lock:
            job._process, job._conn, job._stop, job.pid = process, receiver, stop, process.pid
            self.runs += 1
            _event("training_started", job, pid=job.pid, running=len(self._running))
            if job.done:  # cancelled while it started
                process.kill()
            elif job.stop_reason is not None:
                stop.set()

    def _enforce_time(self) -> None:
        now = time.monotonic()
        for job in self._running:
            if job.stop_reason is None and now - job._since > self.budget.wall_seconds:
                _event("training_over_budget", job, budget="wall", seconds=round(now - job._since))
                self._tell_to_stop(job, BUDGET)
            elif job._kill_at is not None and now > job._kill_at and job._process is not None:
                job._process.kill()

    def _read(self, job: Job) -> None:
        """Take what ``job``'s worker sent; once it has exited, end the job."""
        exited = not job._process.is_alive()  # first: then all it sent is in the pipe
        messages: list[tuple[Any, ...]] = []
        try:
            while job._conn is not None and job._conn.poll():
                messages.append(pickle.loads(job._conn.recv_bytes()))
        except (EOFError, OSError):
            pass  # the worker exited (or was killed mid-message)
        with self._lock:
            for message in messages:
                if job.done:
                    break
                if message[0] == "progress":
                    job._progress.append(message[1])
                elif message[0] == "done":
                    if message[2] == BUDGET and job.stop_reason is None:
                        job.stop_reason = BUDGET
                        _event("training_over_budget", job, budget="cpu")
                    if job.stop_reason is None and self._cacheable(message[1]):
                        self._keep(job.key, message[1])
                    why = {None: "done", LEFT: "cancelled", BUDGET: "over_budget"}
                    self._end(job, DONE, message[1], why=why[job.stop_reason])
                else:
                    failure = message[1]
                    if failure.kind == MEMORY:
                        _event("training_over_budget", job, budget="memory")
                    why = "over_budget" if failure.kind == MEMORY else "failed"
                    self._end(job, FAILED, error=failure, why=why)
            if exited and not job.done:  # it died without a word: killed by us or the kernel
                code = job._process.exitcode
                if job.stop_reason == LEFT:
                    self._end(job, DROPPED, why="cancelled")
                elif job.stop_reason == BUDGET or code in (-signal.SIGKILL, -signal.SIGXCPU):
                    if job.stop_reason is None:  # the kernel's CPU limit
                        _event("training_over_budget", job, budget="cpu")
                    self._end(job, FAILED, error=JobFailure(TIME), why="over_budget")
                else:
                    self._end(job, FAILED, error=JobFailure(CRASHED, str(code)), why="failed")
        if exited:
            self._reap(job)

    def _end(
        self,
        job: Job,
        state: str,
        outcome: Any = None,
        error: JobFailure | None = None,
        *,
        why: str,
    ) -> None:
        """The job is over for its watchers (under the lock); the worker may still be exiting."""
        self._forget_in_flight(job)
        for held in [held for held, held_job in self._held.items() if held_job is job]:
            del self._held[held]
        job._finish(state, outcome, error)
        seconds = round(time.monotonic() - job._since, 1)
        _event("training_stopped", job, why=why, seconds=seconds, pid=job.pid)

    def _reap(self, job: Job) -> None:
        with self._lock:
            if job in self._running:
                self._running.remove(job)
        job._process.join(1.0)
        if job._conn is not None:
            job._conn.close()
            job._conn = None
        job._process.close()

    def _forget_in_flight(self, job: Job) -> None:
        if self._in_flight.get(job.key) is job:
            del self._in_flight[job.key]

    def _keep(self, key: Hashable, outcome: Any) -> None:
        if not self.max_cached:
            return
        self._cache[key] = outcome
        self._cache.move_to_end(key)
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)


class _WorkerPopen(popen_forkserver.Popen):
    """The forkserver's way to start a process, less one step: the worker does not run the
    server's ``__main__`` again. Streamlit runs each page's script as ``__main__``, and
    multiprocessing would otherwise run it in the worker before the work (a page, in a worker)."""

    def _launch(self, process_obj: Any) -> None:  # CPython 3.11's, with prep_data trimmed
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        _parent_w = os.dup(w)  # the child's sign that its parent lives
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class _WorkerProcess(multiprocessing.context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> _WorkerPopen:  # noqa: N802 - multiprocessing's name
        return _WorkerPopen(process_obj)


# --- in the worker process ---------------------------------------------------------------------


def _address_space() -> int:
    """This process's virtual memory (``VmSize``), in bytes; 0 where /proc is not available."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _set_limit(which: int, soft: int, hard: int) -> None:
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(which, (soft, hard))


def _bound_this_process(budget: Budget, nice: int, grace_s: float) -> None:
    """The worker's limits, enforced by the kernel: CPU seconds, address space, priority."""
    if nice > 0:
        os.nice(min(nice, 19))
    if math.isfinite(budget.cpu_seconds):
        soft = max(1, math.ceil(budget.cpu_seconds))
        _set_limit(resource.RLIMIT_CPU, soft, soft + math.ceil(grace_s))
    if budget.memory_mb > 0:
        size = _address_space() + int(budget.memory_mb * 2**20)
        _set_limit(resource.RLIMIT_AS, size, size)


def _out_of_memory(error: BaseException) -> bool:
    return isinstance(error, MemoryError) or "can't allocate memory" in str(error)


def _worker_main(
    work: Work,
    key: Hashable,
    conn: Connection,
    stop: Any,
    budget: Budget,
    nice: int,
    grace_s: float,
) -> None:
    """The worker process: bound itself, run ``work``, send its reports and its outcome."""
    over_cpu = threading.Event()
    signal.signal(signal.SIGXCPU, lambda _signum, _frame: over_cpu.set())
    _bound_this_process(budget, nice, grace_s)

    def should_stop() -> bool:
        return over_cpu.is_set() or stop.is_set()

    def send(*message: Any) -> None:
        # plain pickle, not the Connection's: that one would hand tensors over as shared memory
        # owned by this process (torch's reductions), which ends with it
        conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    try:
        outcome = work(key, lambda record: send("progress", record), should_stop)
        send("done", outcome, BUDGET if over_cpu.is_set() else None)
    except Exception as error:  # noqa: BLE001 - told to the server as a reason, never a traceback
        if _out_of_memory(error):
            failure = JobFailure(MEMORY, f"{budget.memory_mb:g}")
        else:
            failure = JobFailure(ERROR, type(error).__name__)
        send("failed", failure)
    finally:
        conn.close()
