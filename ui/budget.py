"""One memory budget for every large computation the server runs, shared by all sessions.

A computation whose estimate (:mod:`attention.memory_estimate`) reaches :data:`HEAVY_BYTES` is
*admitted* before it starts: its bytes are reserved in :data:`BUDGET`
(``ATTENTION_LAB_MEMORY_BUDGET_MB``); what does not fit waits, first come first served, at most
:data:`WAIT_S` seconds, then is refused in words; what exceeds the whole budget is refused at
once.

Each session holds at most one large view, kept for that session (not in the shared cache) and
counted while kept; a run that shows something else gives it back (:meth:`Budget.end_run`), and
so does the session's end (:mod:`ui.sessions`, ``server.disconnectedSessionTTL`` after its tab
closed, as Streamlit keeps the session for a reconnect). Smaller computations never touch the
budget.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .limits import limit

MB = 2**20
HEAVY_BYTES = 32 * MB  # estimates below this take the fast path, unbudgeted
WAIT_S = float(limit("ATTENTION_LAB_MEMORY_WAIT_S"))  # how long a view waits for room
POLL_S = 1.0  # how often a waiting view says how long it has waited

T = TypeVar("T")


class OverBudget(Exception):
    """A computation the budget cannot admit: larger than the budget, or no room in time."""

    def __init__(self, needed: int, total: int, *, busy: bool, waited_s: float = 0.0) -> None:
        super().__init__(f"needs {needed / MB:.0f} MB of a {total / MB:.0f} MB budget")
        self.needed = needed
        self.total = total
        self.busy = busy  # True: it would fit, but other views hold the room; False: never fits
        self.waited_s = waited_s


@dataclass
class _Hold:
    """What one session keeps: its large results and the bytes reserved for them."""

    reserved: int = 0
    results: dict[Hashable, tuple[int, Any]] = field(default_factory=dict)
    used: set[Hashable] = field(default_factory=set)  # keys the current run asked for


class Budget:
    """A number of bytes shared by sessions; each session holds at most one large view in it."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._changed = threading.Condition()
        self._holds: dict[str, _Hold] = {}
        self._line: deque[object] = deque()  # waiting requests, first come first served
        self._running: set[str] = set()  # sessions whose page run is under way
        self._ended: set[str] = set()  # sessions that ended during a run: given back at its end

    def in_use(self) -> int:
        """Bytes reserved by every session now."""
        with self._changed:
            return sum(hold.reserved for hold in self._holds.values())

    def sessions(self) -> list[str]:
        """The sessions that hold a large view now."""
        with self._changed:
            return list(self._holds)

    def begin_run(self, session: str) -> None:
        """A new run of ``session``: nothing of its kept results is used by it yet."""
        with self._changed:
            self._running.add(session)
            hold = self._holds.get(session)
            if hold is not None:
                hold.used.clear()

    def end_run(self, session: str, *, completed: bool = True) -> list[Any]:
        """Give back what the run that ends did not use (the session moved to another view);
        everything, if the session ended meanwhile: then its results are returned, to be freed
        now that nothing draws them (see :meth:`session_ended`). A run that did not complete (a
        click stopped it for a rerun before it reached its view) gives nothing back."""
        with self._changed:
            self._running.discard(session)
            if session in self._ended:
                self._ended.discard(session)
                return self._release(session)
            hold = self._holds.get(session)
            if hold is not None and completed:
                self._drop_unused(session, hold)
            return []

    def release(self, session: str) -> list[Any]:
        """Give back everything ``session`` holds (its view was refused); returns its results."""
        with self._changed:
            return self._release(session)

    def session_ended(self, session: str) -> list[Any]:
        """``session`` ended: give back what it holds and return its results, to be freed; unless
        a run of it is still under way (its tab closed while it computed), whose end does it."""
        with self._changed:
            if session in self._running:
                self._ended.add(session)
                return []
            return self._release(session)

    def _release(self, session: str) -> list[Any]:
        hold = self._holds.pop(session, None)
        self._changed.notify_all()
        return [] if hold is None else [result for _bytes, result in hold.results.values()]

    def kept(self, session: str, key: Hashable) -> Any | None:
        """The result ``session`` keeps for ``key`` (marked as used by this run), or None."""
        with self._changed:
            hold = self._holds.get(session)
            if hold is None or key not in hold.results:
                return None
            hold.used.add(key)
            return hold.results[key][1]

    def compute(
        self,
        session: str,
        key: Hashable,
        needed: int,
        compute: Callable[[], T],
        *,
        wait_s: float | None = None,
        waiting: Callable[[float], None] | None = None,
    ) -> T:
        """``compute()`` once ``needed`` bytes are reserved for ``session``; kept under ``key``.

        ``waiting(seconds_waited)`` is called about every :data:`POLL_S` while it waits (Streamlit stops
        a run left behind there). Raises :class:`OverBudget` when ``needed`` exceeds the budget or no
        room came in ``wait_s`` (default :data:`WAIT_S`).
        """
        found = self.kept(session, key)
        if found is not None:
            return found
        hold = self._reserve(session, needed, WAIT_S if wait_s is None else wait_s, waiting)
        try:
            result = compute()
        except BaseException:
            with self._changed:
                if self._holds.get(session) is hold:  # (else released meanwhile, bytes included)
                    hold.reserved -= needed
                    self._changed.notify_all()
            raise
        with self._changed:
            if self._holds.get(session) is not hold:  # released while it computed: not kept
                return result
            hold.results[key] = (needed, result)
            hold.used.add(key)
        return result

    def _drop_unused(self, session: str, hold: _Hold) -> None:
        for key in [key for key in hold.results if key not in hold.used]:
            needed, _result = hold.results.pop(key)
            hold.reserved -= needed
        if not hold.results and hold.reserved <= 0:
            del self._holds[session]
        self._changed.notify_all()

    def _reserve(
        self, session: str, needed: int, wait_s: float, waiting: Callable[[float], None] | None
    ) -> _Hold:
        if needed > self.total:
            raise OverBudget(needed, self.total, busy=False)
        ticket = object()
        started = time.monotonic()
        with self._changed:
            hold = self._holds.setdefault(session, _Hold())
            self._drop_unused(session, hold)  # this run asks for another view: the old one goes
            self._holds.setdefault(session, hold)
            self._line.append(ticket)
            try:
                while True:
                    used = sum(h.reserved for h in self._holds.values())
                    if self._line[0] is ticket and used + needed <= self.total:
                        hold = self._holds.setdefault(session, hold)  # (released while waiting)
                        hold.reserved += needed
                        return hold
                    waited = time.monotonic() - started
                    if waited >= wait_s:
                        raise OverBudget(needed, self.total, busy=True, waited_s=waited)
                    self._changed.wait(min(POLL_S, wait_s - waited))
                    if waiting is not None:
                        self._changed.release()  # the page's message is drawn unlocked
                        try:
                            waiting(time.monotonic() - started)
                        finally:
                            self._changed.acquire()
            finally:
                self._line.remove(ticket)
                self._changed.notify_all()


BUDGET = Budget(int(limit("ATTENTION_LAB_MEMORY_BUDGET_MB")) * MB)
