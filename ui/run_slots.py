"""A few page runs at a time in one server process; the others wait their turn, off the GIL.

Streamlit runs each session's script in a thread of one process, so every run shares one
interpreter lock. With many runs under way at once (a class clicking), each gets the lock in
turn for a few milliseconds, and so does the event loop that carries the finished pages to the
browsers: it gives the lock up at each message it sends, and waits behind every running script
to get it back. The runs then all finish late together. Letting a few runs work at once
(``ATTENTION_LAB_RUN_SLOTS``; the others wait in line, which does not hold the lock)
keeps the loop's wait short and ends each run as soon as its own work is done
(``benchmarks/README.md``, "A class's bursts").

A run that waits for something else (a training's progress, room in the memory budget, a large
computation, the fast path's or the KV cache's measurement) calls :func:`step_aside` first: its
slot goes to the next run, and it goes on without one. Runs take their turns first come first
served; a run waits as long as the line moves, and goes on anyway once no slot has come free for
ten seconds: a stuck run must not stop the others. A fragment's own rerun is a run too
(:meth:`RunSlots.slotted`).
"""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from .limits import limit
from .ops_log import event

P = ParamSpec("P")
R = TypeVar("R")


class RunSlots:
    """``count`` runs at once, first come first served. A run waits as long as the line moves;
    once no slot has come free for ``wait_s``, it goes on anyway (a run stuck in its slot must
    not stop the others)."""

    def __init__(self, count: int, wait_s: float) -> None:
        self.count, self.wait_s = count, wait_s
        self._lock = threading.Lock()
        self._busy = 0  # slots held
        self._line: deque[threading.Event] = deque()  # the waiting runs' turns, oldest first
        self._moved_at = time.monotonic()  # when a slot last came free
        # .slot: this thread's run holds a slot now; .inside: it is within run() (slot or not)
        self._holding = threading.local()

    def held(self) -> int:
        """Runs working in a slot now."""
        with self._lock:
            return self._busy

    def waiting(self) -> int:
        """Runs waiting for a slot now."""
        with self._lock:
            return len(self._line)

    @contextmanager
    def run(self) -> Iterator[None]:
        """Around a whole run: wait for a slot, give it back at the end (if not given before).

        Within a run already (a fragment drawn by its page's full run), it takes nothing more.
        """
        if getattr(self._holding, "inside", False):
            yield
            return
        self._holding.slot = self._take()
        if not self._holding.slot:
            event("run_slot_timeout", slots=self.count, waited_s=self.wait_s)
        self._holding.inside = True
        try:
            yield
        finally:
            self._holding.inside = False
            self.step_aside()

    def slotted(self, func: Callable[P, R]) -> Callable[P, R]:
        """``func`` run inside :meth:`run`: for a fragment, whose reruns (a step switch, a class
        tick) are runs of their own that Streamlit starts without the page's frame."""

        @functools.wraps(func)
        def in_a_slot(*args: P.args, **kwargs: P.kwargs) -> R:
            with self.run():
                return func(*args, **kwargs)

        return in_a_slot

    def step_aside(self) -> None:
        """Before a long wait: this run's slot goes to the next run; this one goes on without."""
        if getattr(self._holding, "slot", False):
            self._holding.slot = False
            self._give()

    def _take(self) -> bool:
        with self._lock:
            if self._busy < self.count and not self._line:
                self._busy += 1
                return True
            turn = threading.Event()
            self._line.append(turn)
        while not turn.wait(self.wait_s):
            with self._lock:
                if turn.is_set():
                    break
                if time.monotonic() - self._moved_at >= self.wait_s:  # no slot came free
                    self._line.remove(turn)
                    return False
        return True  # handed over by a run that ended (still counted as held)

    def _give(self) -> None:
        with self._lock:
            self._moved_at = time.monotonic()
            if self._line:  # straight to the run waiting longest: a newcomer cannot overtake it
                self._line.popleft().set()
            else:
                self._busy -= 1


RUN_SLOTS = RunSlots(int(limit("ATTENTION_LAB_RUN_SLOTS")), wait_s=10.0)
run_slot = RUN_SLOTS.run
slotted = RUN_SLOTS.slotted
step_aside = RUN_SLOTS.step_aside
