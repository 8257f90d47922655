"""Long jobs in a bounded pool of worker processes: the page submits, polls and cancels.

::

    pool = JobPool(work, budget=Budget(240, 600, 1024), preload=("ui.train_jobs",))
    job = pool.submit(key, requester, slot="train")  # cached → done at once; in flight → shared
    while not job.wait(0.25):                         # polling moves the pool on
        job.snapshot()                                # place in line, progress so far
    job.outcome                                       # what work(key, report, should_stop) gave

Workers fork from a *forkserver* (single-threaded, ``preload`` imported once): the threaded web
server is never forked. The kernel bounds each run: ``RLIMIT_CPU`` (SIGXCPU asks it to stop and
keep what it has, then it is killed), ``RLIMIT_AS`` and ``nice``; its memory returns on exit.
No server thread runs jobs: polling moves the pool on. Equal keys share one job; a requester (a
browser session) holds one job per *slot*; a job nobody wants any more is dropped or stopped.
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
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing import forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.connection import Connection
from multiprocessing.context import set_spawning_popen
from typing import Any

QUEUED, RUNNING, DONE, FAILED, DROPPED = "queued", "running", "done", "failed", "dropped"
LEFT, BUDGET = "left", "budget"  # why a running job was told to stop
MEMORY, TIME, CRASHED, ERROR = "memory", "time", "crashed", "error"  # JobFailure.kind
STOP_GRACE_S = 20.0  # a worker told to stop (or over its CPU) is killed this much later
POLL_S = 0.1  # how often Job.wait moves the pool on

Work = Callable[[Hashable, Callable[[Any], None], Callable[[], bool]], Any]  # runs in the worker


@dataclass(frozen=True)
class Budget:
    """What one run may use: CPU seconds, wall-clock seconds, and MB of memory the worker may add
    to what it holds when it starts (0: no memory limit)."""

    cpu_seconds: float
    wall_seconds: float
    memory_mb: float = 0.0


@dataclass(frozen=True)
class JobFailure:
    """Why a run gave no outcome: ``"memory"``, ``"time"`` (killed past its budget), ``"crashed"``
    (``detail``: the exit code) or ``"error"`` (``detail``: the error's type, never its text)."""

    kind: str
    detail: str = ""


class QueueFull(Exception):
    """``max_waiting`` jobs already wait; ``waiting`` says how many."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} jobs are already waiting")
        self.waiting = waiting


@dataclass(frozen=True)
class JobSnapshot:
    """What a watcher sees of a job at one moment."""

    state: str  # "queued", "running", "done", "failed" or "dropped"
    place: int  # 1-based place in the waiting line (0 unless queued)
    running: int  # jobs running now
    progress: tuple[Any, ...]  # every report so far, oldest first
    stopping: bool  # told to stop (or nobody wants it) and not finished yet
    stop_reason: str | None  # "left", "budget" or None
    seconds: float  # waiting (queued) or running so far


class Job:
    """One request of ``key``, shared by every requester of the same key.

    ``outcome`` once done, ``error`` (a :class:`JobFailure`) once failed; ``pid``: its worker's."""

    _ids = itertools.count(1)

    def __init__(self, pool: JobPool, key: Hashable, slot: str) -> None:
        self.key, self.slot, self.id, self._pool = key, slot, next(Job._ids), pool
        self.state, self.outcome, self.error = QUEUED, None, None
        self.from_cache, self.stop_reason, self.pid = False, None, None
        self.wanted_by: set[Hashable] = set()
        self.progress: list[Any] = []
        self.since = time.monotonic()  # when it entered its state (queued, running)
        self.process: Any = None  # its worker while it runs
        self.conn: Connection | None = None
        self.kill_at: float | None = None  # told to stop: killed if still running then

    @property
    def done(self) -> bool:
        return self.state in (DONE, FAILED, DROPPED)

    def snapshot(self) -> JobSnapshot:
        """The job now (the pool moved on first)."""
        return self._pool.poll(self)

    def wait(self, timeout: float | None = None) -> bool:
        """Poll up to ``timeout`` seconds (forever: None); True when the job is done."""
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        while self._pool.poll(self).state not in (DONE, FAILED, DROPPED):
            if time.monotonic() >= deadline:
                return False
            time.sleep(max(0.0, min(POLL_S, deadline - time.monotonic())))
        return True

    def leave(self, requester: Hashable) -> int:
        """``requester`` stops waiting (Stop); returns how many still want the job. With none
        left, a waiting job is dropped and a running one told to stop (its partial outcome kept)."""
        with self._pool.lock:
            self._pool.release(requester, self)
            return len(self.wanted_by)


def _event(name: str, job: Job, **fields: object) -> None:
    """One line in the operator's log (imported here: the worker processes never log)."""
    from .ops_log import event

    event(name, job=job.id, slot=job.slot, **fields)


class JobPool:
    """Run ``work(key, report, should_stop)`` for requested keys in worker processes: cached,
    shared, at most ``max_running`` at once (see the module's docstring)."""

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
        cacheable: Callable[[Any], bool] = lambda _outcome: True,
        preload: tuple[str, ...] = (),
    ) -> None:
        self.work, self.max_running, self.max_waiting = work, max_running, max_waiting
        self.max_cached, self.nice, self.stop_grace_s = max_cached, nice, stop_grace_s
        self.budget = budget or Budget(math.inf, math.inf)
        self.cacheable = cacheable
        self.context = multiprocessing.get_context("forkserver")
        if preload:
            self.context.set_forkserver_preload(list(preload))
        self.lock = threading.Lock()
        self.cache: OrderedDict[Hashable, Any] = OrderedDict()
        self.jobs: list[Job] = []  # waiting and running, in the order they came
        self.held: dict[tuple[Hashable, str], Job] = {}  # (requester, slot) → its job
        self.exiting: list[Job] = []  # ended jobs whose worker has not been reaped yet
        self.runs = 0  # workers started (for tests and benchmarks)

    def warm(self) -> None:
        """Start the forkserver now (it imports ``preload``: seconds), before the first job."""
        forkserver.ensure_running()

    def waiting(self) -> int:
        return sum(job.state == QUEUED for job in self.jobs)

    def running(self) -> int:
        return sum(job.state == RUNNING for job in self.jobs)

    def cached(self, key: Hashable) -> Any | None:
        """The cached outcome of ``key``, or None (counts as a use)."""
        with self.lock:
            if key in self.cache:
                self.cache.move_to_end(key)
            return self.cache.get(key)

    def submit(self, key: Hashable, requester: Hashable, slot: str = "train") -> Job:
        """A job for ``key`` (cached, in flight or new) for ``requester``'s ``slot``.

        Raises :class:`QueueFull` when more than ``max_waiting`` jobs would wait."""
        with self.lock:
            held = self.held.get((requester, slot))
            if key in self.cache:
                job = Job(self, key, slot)
                job.state, job.outcome, job.from_cache = DONE, self.cache[key], True
                self.cache.move_to_end(key)
            else:
                shared = (j for j in self.jobs if j.key == key and j.stop_reason is None)
                job = next(shared, None) or Job(self, key, slot)
                frees = held is not None and held.state == QUEUED and held.wanted_by == {requester}
                if job not in self.jobs and self.waiting() - frees >= self.max_waiting:
                    raise QueueFull(self.waiting())
            if held is not job:
                self.release(requester, held)
            if not job.done and held is not job:
                job.wanted_by.add(requester)
                self.held[(requester, slot)] = job
            if not job.done and job not in self.jobs:
                self.jobs.append(job)
                _event("training_queued", job, waiting=self.waiting())
            return job

    def leave_all(self, requester: Hashable) -> int:
        """``requester`` leaves every job it holds (its tab is gone); a job nobody else wants is
        dropped or its worker killed. Returns how many jobs it left."""
        with self.lock:
            jobs = [job for (who, _slot), job in self.held.items() if who == requester]
            for job in jobs:
                self.release(requester, job, cancel=True)
            for job in self.exiting:  # killed: gone in milliseconds, reaped now (no zombie)
                job.process.join(5)
            self._reap()
            return len(jobs)

    def release(self, requester: Hashable, job: Job | None, *, cancel: bool = False) -> None:
        """(Under the lock.) ``requester`` no longer wants ``job``; with nobody left it is dropped
        (waiting), killed (``cancel``: nobody will look at it) or told to stop."""
        for held in [held for held, held_job in self.held.items() if held_job is job]:
            if held[0] == requester:
                del self.held[held]
        if job is None or job.done or requester not in job.wanted_by:
            return
        job.wanted_by.discard(requester)
        if job.wanted_by:
            return
        if job.state == QUEUED or cancel:
            if job.process is not None:
                job.process.kill()  # its memory goes back with it
            job.stop_reason = job.stop_reason or (LEFT if job.state == RUNNING else None)
            self._end(job, DROPPED, why="cancelled")
        elif job.stop_reason is None:
            self._tell_to_stop(job, LEFT)

    def _tell_to_stop(self, job: Job, reason: str) -> None:
        job.stop_reason = reason
        job.kill_at = time.monotonic() + self.stop_grace_s
        if job.process is not None:  # (one still starting is told once it runs)
            job.process.terminate()  # SIGTERM: the work stops at its next step

    def _end(
        self, job: Job, state: str, outcome: Any = None, error: Any = None, *, why: str
    ) -> None:
        """(Under the lock.) The job is over for its watchers; its worker may still be exiting."""
        for held in [held for held, held_job in self.held.items() if held_job is job]:
            del self.held[held]
        self.jobs.remove(job)
        if job.process is not None:
            self.exiting.append(job)
        job.state, job.outcome, job.error = state, outcome, error
        seconds = round(time.monotonic() - job.since, 1)
        _event("training_stopped", job, why=why, seconds=seconds, pid=job.pid)

    # -- moving on ----------------------------------------------------------------------------

    def poll(self, job: Job) -> JobSnapshot:
        """``job`` as it is now, once the pool has moved on (:meth:`advance`)."""
        self.advance()
        with self.lock:
            waiting = [j for j in self.jobs if j.state == QUEUED]
            return JobSnapshot(
                state=job.state,
                place=waiting.index(job) + 1 if job in waiting else 0,
                running=self.running(),
                progress=tuple(job.progress),
                stopping=not job.done and (not job.wanted_by or job.stop_reason is not None),
                stop_reason=job.stop_reason,
                seconds=time.monotonic() - job.since,
            )

    def advance(self) -> None:
        """Read the workers' pipes, end what exited, enforce the wall clock, start waiting jobs."""
        with self.lock:
            for running in [j for j in self.jobs if j.conn is not None]:
                self._read(running)
            self._reap()
            now = time.monotonic()
            for late in [j for j in self.jobs if j.process is not None]:
                if late.stop_reason is None and now - late.since > self.budget.wall_seconds:
                    seconds = round(now - late.since)
                    _event("training_over_budget", late, budget="wall", seconds=seconds)
                    self._tell_to_stop(late, BUDGET)
                elif late.kill_at is not None and now > late.kill_at:
                    late.process.kill()
            starting = [j for j in self.jobs if j.state == QUEUED]
            starting = starting[: max(0, self.max_running - self.running())]
            for job in starting:
                job.state, job.since = RUNNING, now
        for job in starting:  # outside the lock: the first waits for the forkserver's imports
            self._start(job)

    def _start(self, job: Job) -> None:
        try:
            receiver, sender = self.context.Pipe(duplex=False)
            limits = (self.budget, self.nice, self.stop_grace_s)
            process = _WorkerProcess(
                target=_worker_main, args=(self.work, job.key, sender, *limits), daemon=True
            )
            process.start()
            sender.close()  # the worker holds the only writing end: its exit closes the pipe
        except Exception as error:  # noqa: BLE001 - the job fails, the pool goes on
            with self.lock:
                if not job.done:
                    failure = JobFailure(CRASHED, type(error).__name__)
                    self._end(job, FAILED, error=failure, why="failed")
            return
        with self.lock:
            job.process, job.conn, job.pid = process, receiver, process.pid
            self.runs += 1
            _event("training_started", job, pid=job.pid, running=self.running())
            if job.done:  # cancelled while it started
                process.kill()
                self.exiting.append(job)
            elif job.stop_reason is not None:
                process.terminate()

    def _read(self, job: Job) -> None:
        """(Under the lock.) Take what ``job``'s worker sent; once it has exited, end the job."""
        exited = not job.process.is_alive()  # first: then all it sent is in the pipe
        try:
            while not job.done and job.conn.poll():
                self._take(job, pickle.loads(job.conn.recv_bytes()))
        except (EOFError, OSError):
            pass  # the worker exited (or was killed mid-message)
        except Exception as error:  # noqa: BLE001 - an outcome that cannot be read: one job fails
            job.process.kill()
            if not job.done:
                self._end(job, FAILED, error=JobFailure(ERROR, type(error).__name__), why="failed")
        if exited and not job.done:  # it died without a word: killed by us or by the kernel
            code = job.process.exitcode
            if job.stop_reason == LEFT:
                self._end(job, DROPPED, why="cancelled")
            elif job.stop_reason == BUDGET or code in (-signal.SIGKILL, -signal.SIGXCPU):
                if job.stop_reason is None:
                    _event("training_over_budget", job, budget="cpu")
                self._end(job, FAILED, error=JobFailure(TIME), why="over_budget")
            else:
                self._end(job, FAILED, error=JobFailure(CRASHED, str(code)), why="failed")

    def _take(self, job: Job, message: tuple[Any, ...]) -> None:
        if message[0] == "progress":
            job.progress.append(message[1])
        elif message[0] == "done":
            if message[2] and job.stop_reason is None:  # the kernel's SIGXCPU
                job.stop_reason = BUDGET
                _event("training_over_budget", job, budget="cpu")
            if job.stop_reason is None and self.cacheable(message[1]) and self.max_cached:
                self.cache[job.key] = message[1]
                while len(self.cache) > self.max_cached:
                    self.cache.popitem(last=False)
            why = {None: "done", LEFT: "cancelled", BUDGET: "over_budget"}[job.stop_reason]
            self._end(job, DONE, message[1], why=why)
        else:
            if message[1].kind == MEMORY:
                _event("training_over_budget", job, budget="memory")
            why = "over_budget" if message[1].kind == MEMORY else "failed"
            self._end(job, FAILED, error=message[1], why=why)

    def _reap(self) -> None:
        for job in [job for job in self.exiting if not job.process.is_alive()]:
            self.exiting.remove(job)
            job.process.join()
            job.process.close()
            if job.conn is not None:
                job.conn.close()
            job.conn = None


class _WorkerPopen(popen_forkserver.Popen):
    """The forkserver's start, less one step: the worker does not run the server's ``__main__``
    again (Streamlit runs each page's script as ``__main__``: a page would run in the worker)."""

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


def _limit(which: int, soft: int, hard: int) -> None:
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
        _limit(resource.RLIMIT_CPU, soft, soft + math.ceil(grace_s))
    if budget.memory_mb > 0:
        with open("/proc/self/statm") as statm:  # its size now, in pages
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        size += int(budget.memory_mb * 2**20)
        _limit(resource.RLIMIT_AS, size, size)


def _worker_main(
    work: Work, key: Hashable, conn: Connection, budget: Budget, nice: int, grace_s: float
) -> None:
    """The worker process: bound itself, run ``work``, send its reports and its outcome."""
    told: set[int] = set()  # SIGXCPU (over its CPU), SIGTERM (told to stop by the server)
    for signum in (signal.SIGXCPU, signal.SIGTERM):
        signal.signal(signum, lambda received, _frame: told.add(received))
    _bound_this_process(budget, nice, grace_s)

    def send(*message: Any) -> None:
        # plain pickle, not the Connection's: that one would hand tensors over as shared memory
        # owned by this process (torch's reductions), which ends with it
        conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    try:
        outcome = work(key, lambda record: send("progress", record), lambda: bool(told))
        send("done", outcome, signal.SIGXCPU in told)
    except Exception as error:  # noqa: BLE001 - told to the server as a reason, never a traceback
        if isinstance(error, MemoryError) or "can't allocate memory" in str(error):
            send("failed", JobFailure(MEMORY, f"{budget.memory_mb:g}"))
        else:
            send("failed", JobFailure(ERROR, type(error).__name__))
    finally:
        conn.close()
