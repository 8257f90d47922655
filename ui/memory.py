"""Give the server's memory back when sessions end, and tell others that a session ended.

A session's end (Streamlit drops it ``server.disconnectedSessionTTL`` after its tab closed) leaves
memory that nothing frees on its own while nobody uses the server (``benchmarks/README.md``,
"Server memory after sessions end"):

1. **Garbage waiting for a collection**: the sessions' last script runs leave reference cycles
   (frames, figures, tensors), and Streamlit's collection after every run is off
   (``runner.postScriptGC``, see ``ui/frame.py`` and ``benchmarks/README.md``, "the pause
   after every run").
2. **Cached traces**: the large-trace cache (``ui.computation``) keeps a few large traces; its
   ``ttl`` only acts when the cache is next called.
3. **glibc's arenas**: freed memory stays in the allocator's per-thread arenas (Streamlit runs
   each session's script in its own thread) until ``malloc_trim``.

So, when a session's browser disconnects, when the session ends and when a training ends that
nobody watches any more (:func:`release_soon`, from ``ui/train_jobs.py``: the trainings of closed
tabs stop only when their sessions end, after the others were released), :func:`release_memory`
runs on a background thread shortly after and again later (:data:`RELEASE_DELAYS_S`): it drops
the large caches if no session is left, runs a full collection and calls ``malloc_trim(0)``. Each
release is logged on the server's console.

Other parts of the app learn of a session's fate by its token (:func:`session_token`):
:func:`when_session_away` calls a hook once its tab has been gone :data:`AWAY_S` seconds (the
training queue gives its places in the line to others), :func:`when_session_ends` once Streamlit
drops it (the queue withdraws it from every job it asked for, ``pages/train.py``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.logger import get_logger

from . import computation
from .ops_log import event

_LOG = get_logger(__name__)

# Seconds from a session's end to the releases: the first once its script has stopped (at its next
# Streamlit call) and other tabs of a class leaving together can share it; the second for a run
# that was still computing (a 4096-token page takes seconds) when its tab closed.
RELEASE_DELAYS_S = (3.0, 30.0)
# Seconds a tab may be gone (a reload, a network blip) before its session counts as away.
AWAY_S = 10.0

_lock = threading.Lock()
_asked = threading.Condition(_lock)  # notified by every request for a release
_open_sessions = 0  # sessions whose marker exists (created by their first run, released at end)
_registered_total = 0  # sessions registered so far (for tests and logs)
_wanted = False  # a release was asked for since the release worker last looked
_reason = "sessions ended"  # what asked for it (for the log)
_worker: threading.Thread | None = None
_end_hooks: list[Callable[[str], None]] = []  # called with the token of each ended session
_away_hooks: list[Callable[[str], None]] = []  # called with the token of each session gone AWAY_S
_ending: dict[str, threading.Timer] = {}  # disconnected sessions → the timer that ends them


@dataclass(frozen=True)
class Release:
    """What one :func:`release_memory` did, with the resident memory before and after (MB)."""

    rss_before_mb: float
    rss_after_mb: float
    collected: int  # objects the full collection freed
    large_traces_dropped: bool
    trimmed: bool  # malloc_trim ran (glibc only)


def resident_mb() -> float:
    """The process's resident memory (``VmRSS``), in MB; 0 where /proc is not available."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _malloc_trim() -> bool:
    """Ask glibc to return free memory of all its arenas to the system; False elsewhere."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, musl, Windows): nothing to trim
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)  # ctypes releases the GIL during the call
    return True


def release_memory(*, drop_large_traces: bool, reason: str = "sessions ended") -> Release:
    """Free what closed sessions left: large cached traces (if asked), cycles, allocator arenas.

    ``reason`` (what made the release happen) goes into the log line.
    """
    before = resident_mb()
    if drop_large_traces:
        computation.drop_large_traces()
    collected = gc.collect()
    trimmed = _malloc_trim()
    release = Release(
        rss_before_mb=round(before, 1),
        rss_after_mb=round(resident_mb(), 1),
        collected=collected,
        large_traces_dropped=drop_large_traces,
        trimmed=trimmed,
    )
    event(
        "memory_released",
        reason=reason,
        rss_before_mb=release.rss_before_mb,
        rss_after_mb=release.rss_after_mb,
        collected=release.collected,
        large_traces_dropped=release.large_traces_dropped,
        malloc_trim=release.trimmed,
    )
    return release


def registered_sessions() -> int:
    """How many sessions have registered since the server started (never decreases)."""
    return _registered_total


def open_sessions() -> int:
    """Sessions whose tab is connected now (what ``/metrics`` reports)."""
    return _open_sessions


def _short(session_id: str) -> str:
    """A session's id in the operator's log: enough to follow it, not its whole token."""
    return session_id[:8]


def _was_asked() -> bool:
    return _wanted


def _release_worker() -> None:
    """Release after each delay of ``RELEASE_DELAYS_S``; again if more was asked meanwhile."""
    global _wanted, _worker
    while True:
        with _lock:
            if not _wanted:
                _worker = None
                return
            _wanted = False
            reason = _reason
        for index, delay in enumerate(RELEASE_DELAYS_S):
            if index == 0:
                time.sleep(delay)  # gathers the requests of a class leaving together
            else:
                with _asked:  # a request during a later wait is not kept behind it:
                    if _asked.wait_for(_was_asked, timeout=delay):
                        break  # a new series at once, from its first delay
            with _lock:
                last_one_left = _open_sessions == 0
                asked_again = _wanted
            release_memory(drop_large_traces=last_one_left, reason=reason)
            if asked_again:
                break  # asked again meanwhile: a new series, from its first delay


def release_soon(reason: str = "a job ended with nobody watching") -> None:
    """Ask for a release shortly and again later (:data:`RELEASE_DELAYS_S`); one worker thread
    at a time does it, so a class leaving together makes one series. A request while a series
    waits its later delay starts a new series at once (a training that ended unwatched is released
    after the short delay, not behind the long one)."""
    global _wanted, _worker, _reason
    with _lock:
        _wanted = True
        _reason = reason
        _asked.notify_all()
        if _worker is not None:
            return
        _worker = threading.Thread(
            target=_release_worker, name="attention-lab-release-memory", daemon=True
        )
        _worker.start()


class _SessionMarker:
    """One per session; Streamlit hands it to :func:`_session_disconnected` when it disconnects."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.started = time.monotonic()


def when_session_ends(hook: Callable[[str], None]) -> None:
    """Call ``hook(token)`` when a session ends, with that session's :func:`session_token`.

    A session ends when its browser has been gone for ``server.disconnectedSessionTTL`` seconds
    (Streamlit's own time to keep a session for a reconnect); a session that reconnects before
    then goes on. Registering the same hook again does nothing, so a module may register at import.
    """
    with _lock:
        if hook not in _end_hooks:
            _end_hooks.append(hook)


def when_session_away(hook: Callable[[str], None]) -> None:
    """Call ``hook(token)`` once a session's tab has been gone :data:`AWAY_S` seconds.

    The session may still come back (until :func:`when_session_ends`); registering the same hook
    again does nothing.
    """
    with _lock:
        if hook not in _away_hooks:
            _away_hooks.append(hook)


def _disconnected_ttl_s() -> float:
    try:
        return max(0.0, float(st.get_option("server.disconnectedSessionTTL")))
    except (RuntimeError, TypeError, ValueError):  # outside a server: Streamlit's default
        return 120.0


def _session_disconnected(marker: _SessionMarker) -> None:
    """The session's browser went away: free memory soon; end the session if it stays away."""
    global _open_sessions
    with _lock:
        _open_sessions = max(0, _open_sessions - 1)
        timer = threading.Timer(_disconnected_ttl_s(), _session_ended, args=(marker.session_id,))
        timer.daemon = True
        timer.name = "attention-lab-session-end"
        old = _ending.pop(marker.session_id, None)
        _ending[marker.session_id] = timer
    if old is not None:
        old.cancel()
    timer.start()
    event("session_disconnected", session=_short(marker.session_id))
    away = threading.Timer(AWAY_S, _session_away, args=(marker.session_id, timer))
    away.daemon = True
    away.name = "attention-lab-session-away"
    away.start()
    release_soon("sessions ended")


def _call_hooks(hooks: list[Callable[[str], None]], session_id: str) -> None:
    for hook in hooks:
        try:
            hook(session_id)
        except Exception:  # noqa: BLE001 - one hook's failure must not keep the others from running
            _LOG.exception("A session hook failed")


def _session_away(session_id: str, ending: threading.Timer) -> None:
    with _lock:
        if _ending.get(session_id) is not ending:
            return  # the session came back (or went away again: that timer's turn)
        hooks = list(_away_hooks)
    _call_hooks(hooks, session_id)


def _session_ended(session_id: str) -> None:
    with _lock:
        if _ending.pop(session_id, None) is None:
            return  # the session came back in time
        hooks = list(_end_hooks)
    event("session_closed", session=_short(session_id))
    _call_hooks(hooks, session_id)
    release_soon("sessions ended")  # what its state held (a stopped training's model) is garbage


TOKEN_KEY = "session_token"  # st.session_state: this session's token (kept across reconnects)


@st.cache_resource(scope="session", on_release=_session_disconnected, show_spinner=False)
def _session_marker(session_id: str) -> _SessionMarker:
    global _open_sessions, _registered_total
    with _lock:
        _open_sessions += 1
        _registered_total += 1
        back_in_time = _ending.pop(session_id, None)  # a reconnect: the session goes on
    if back_in_time is not None:
        back_in_time.cancel()
    event("session_reconnected" if back_in_time else "session_opened", session=_short(session_id))
    return _SessionMarker(session_id)


def session_token() -> str:
    """The running session's token, what end hooks receive at its end (registers the session)."""
    token = st.session_state.setdefault(TOKEN_KEY, uuid.uuid4().hex)
    return _session_marker(token).session_id


def track_session() -> None:
    """Register the running session (once; every run may call it) so its end frees memory."""
    session_token()
