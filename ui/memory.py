"""Give the server's memory back to the system when sessions end.

Measured (``benchmarks/README.md``, "Server memory after sessions end"): after 8 sessions of 2048
tokens closed, the server stayed at 1204 MB (364 MB fresh) and did not come down while idle, for
three reasons, none of which frees anything on its own while no one uses the server:

1. **Garbage waiting for a collection** (191 MB): the sessions' last script runs leave reference
   cycles (frames, figures, tensors). Streamlit's collection after every run is off
   (``runner.postScriptGC``, see ``benchmarks/gc_pause.py``) and an idle server allocates
   nothing that would start one.
2. **Cached traces**: the large-trace cache (``ui.computation``) keeps up to two traces of up to
   370 MB each; its ``ttl`` only acts when the cache is next called.
3. **glibc's arenas** (584 MB): freed memory stays in the allocator's per-thread arenas for
   reuse (Streamlit runs each session's script in its own thread) until ``malloc_trim``.

So, when a session ends (Streamlit releases its session-scoped resources as the browser
disconnects), :func:`release_memory` runs on a background thread 3 s and again 33 s later: it
drops the large-trace cache if no session is left, runs a full collection and calls
``malloc_trim(0)``. Each release is logged on the server's console.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.logger import get_logger

from . import computation

_LOG = get_logger(__name__)

# Seconds from a session's end to the releases: the first once its script has stopped (at its next
# Streamlit call) and other tabs of a class leaving together can share it; the second for a run
# that was still computing (a 4096-token page takes seconds) when its tab closed.
RELEASE_DELAYS_S = (3.0, 30.0)

_lock = threading.Lock()
_open_sessions = 0  # sessions whose marker exists (created by their first run, released at end)
_registered_total = 0  # sessions registered so far (for tests and logs)
_wanted = False  # a session ended since the release worker last looked
_worker: threading.Thread | None = None


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


def release_memory(*, drop_large_traces: bool) -> Release:
    """Free what closed sessions left: large cached traces (if asked), cycles, allocator arenas."""
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
    _LOG.info(
        "Released memory after sessions ended: %.0f MB -> %.0f MB (collected %d objects, "
        "large traces dropped: %s, malloc_trim: %s)",
        release.rss_before_mb,
        release.rss_after_mb,
        release.collected,
        release.large_traces_dropped,
        release.trimmed,
    )
    return release


def registered_sessions() -> int:
    """How many sessions have registered since the server started (never decreases)."""
    return _registered_total


def open_sessions() -> int:
    """Sessions that have run the app and not ended yet (as seen by :func:`track_session`)."""
    return _open_sessions


def _release_worker() -> None:
    """Release after each delay of ``RELEASE_DELAYS_S``; again if more sessions ended meanwhile."""
    global _wanted, _worker
    while True:
        with _lock:
            if not _wanted:
                _worker = None
                return
            _wanted = False
        for delay in RELEASE_DELAYS_S:
            time.sleep(delay)
            with _lock:
                last_one_left = _open_sessions == 0
            release_memory(drop_large_traces=last_one_left)


def _schedule_release() -> None:
    """Ask for a release; one worker thread at a time does it (a class leaving: one series)."""
    global _wanted, _worker
    with _lock:
        _wanted = True
        if _worker is not None:
            return
        _worker = threading.Thread(
            target=_release_worker, name="attention-lab-release-memory", daemon=True
        )
        _worker.start()


class _SessionMarker:
    """One per session; Streamlit hands it to :func:`_session_ended` when the session ends."""

    def __init__(self) -> None:
        self.started = time.monotonic()


def _session_ended(_marker: _SessionMarker) -> None:
    global _open_sessions
    with _lock:
        _open_sessions = max(0, _open_sessions - 1)
    _schedule_release()


@st.cache_resource(scope="session", on_release=_session_ended, show_spinner=False)
def _session_marker() -> _SessionMarker:
    global _open_sessions, _registered_total
    with _lock:
        _open_sessions += 1
        _registered_total += 1
    return _SessionMarker()


def track_session() -> None:
    """Register the running session (once; every run may call it) so its end frees memory."""
    _session_marker()
