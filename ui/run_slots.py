"""A few page runs at a time in one server process; the others wait their turn, off the GIL.

Streamlit runs each session's script in a thread of one process, so every run shares one
interpreter lock. With many runs under way at once (a class clicking), each gets the lock in
turn for a few milliseconds, and so does the event loop that carries the finished pages to the
browsers: it gives the lock up at each message it sends, and waits behind every running script
to get it back. The runs then all finish late together. Letting a few runs work at once
(``ATTENTION_LAB_RUN_SLOTS``; the others wait on a semaphore, which does not hold the lock)
keeps the loop's wait short and ends each run as soon as its own work is done
(``benchmarks/README.md``, "A class's bursts").

A run that waits for something else (a training's progress, room in the memory budget, a large
computation) calls :func:`step_aside` first: its slot goes to the next run, and it goes on
without one. A run waits at most ten seconds for a slot, then goes on anyway: one stuck run
must not stop the others.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .limits import limit
from .ops_log import event


class RunSlots:
    """``count`` runs at once; a run waits at most ``wait_s`` for its slot, then goes on anyway."""

    def __init__(self, count: int, wait_s: float) -> None:
        self.count, self.wait_s = count, wait_s
        self._free = threading.BoundedSemaphore(count)
        self._holding = threading.local()  # .slot: this thread's run holds a slot now

    @contextmanager
    def run(self) -> Iterator[None]:
        """Around a whole run: wait for a slot, give it back at the end (if not given before)."""
        self._holding.slot = self._free.acquire(timeout=self.wait_s)
        if not self._holding.slot:
            event("run_slot_timeout", slots=self.count, waited_s=self.wait_s)
        try:
            yield
        finally:
            self.step_aside()

    def step_aside(self) -> None:
        """Before a long wait: this run's slot goes to the next run; this one goes on without."""
        if getattr(self._holding, "slot", False):
            self._holding.slot = False
            self._free.release()


RUN_SLOTS = RunSlots(int(limit("ATTENTION_LAB_RUN_SLOTS")), wait_s=10.0)
run_slot = RUN_SLOTS.run
step_aside = RUN_SLOTS.step_aside
