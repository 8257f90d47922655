"""Sessions: a token for each, and hooks for when its tab is gone and when it ends.

Every run registers its session with a session-scoped ``st.cache_resource`` whose
``on_release`` Streamlit calls when the browser disconnects. :func:`when_session_away` hooks run
once the tab has been gone :data:`AWAY_S` seconds (a reload comes back sooner);
:func:`when_session_ends` hooks once Streamlit drops the session, then garbage is collected.
"""

from __future__ import annotations

import gc
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.logger import get_logger

from . import computation
from .ops_log import event

_LOG = get_logger(__name__)
AWAY_S = 5.0  # seconds a tab may be gone before its session counts as away
TOKEN_KEY = "session_token"  # st.session_state: this session's token (kept across reconnects)

_lock = threading.Lock()
_open_sessions = 0  # sessions with a connected tab
_registered_total = 0  # sessions registered so far
_end_hooks: list[Callable[[str], None]] = []
_away_hooks: list[Callable[[str], None]] = []
_ending: dict[str, threading.Timer] = {}  # disconnected sessions → the timer that ends them


def resident_mb() -> float:
    """The process's resident memory (``VmRSS``), in MB; 0 where /proc is not available."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def registered_sessions() -> int:
    """How many sessions have registered since the server started (never decreases)."""
    return _registered_total


def open_sessions() -> int:
    """Sessions whose tab is connected now (what ``/metrics`` reports)."""
    return _open_sessions


def when_session_ends(hook: Callable[[str], None]) -> None:
    """Call ``hook(token)`` when a session ends (registering a hook again does nothing)."""
    with _lock:
        if hook not in _end_hooks:
            _end_hooks.append(hook)


def when_session_away(hook: Callable[[str], None]) -> None:
    """Call ``hook(token)`` once a session's tab has been gone :data:`AWAY_S` seconds (the session
    may still come back until it ends; registering a hook again does nothing)."""
    with _lock:
        if hook not in _away_hooks:
            _away_hooks.append(hook)


def _timer(seconds: float, then: Callable[..., None], *args: object) -> threading.Timer:
    timer = threading.Timer(seconds, then, args=args)
    timer.daemon = True
    timer.start()
    return timer


def _ttl_s() -> float:
    try:
        return max(0.0, float(st.get_option("server.disconnectedSessionTTL")))
    except (RuntimeError, TypeError, ValueError):  # outside a server: Streamlit's default
        return 120.0


def _session_disconnected(session_id: str) -> None:
    """Streamlit's ``on_release``: the tab went away; it is away in AWAY_S, ended after the TTL."""
    global _open_sessions
    with _lock:
        _open_sessions = max(0, _open_sessions - 1)
        old = _ending.pop(session_id, None)
        _ending[session_id] = ending = _timer(_ttl_s(), _session_ended, session_id)
    if old is not None:
        old.cancel()
    event("session_disconnected", session=session_id[:8])
    _timer(AWAY_S, _session_away, session_id, ending)


def _call(hooks: list[Callable[[str], None]], session_id: str) -> None:
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
    _call(hooks, session_id)


def _session_ended(session_id: str) -> None:
    with _lock:
        if _ending.pop(session_id, None) is None:
            return  # the session came back in time
        hooks = list(_end_hooks)
        last_one = _open_sessions == 0
    event("session_closed", session=session_id[:8])
    _call(hooks, session_id)
    before = resident_mb()
    if last_one:
        computation.drop_large_traces()
    collected = gc.collect()
    event(
        "memory_released",
        rss_before_mb=round(before, 1),
        rss_after_mb=round(resident_mb(), 1),
        collected=collected,
        large_traces_dropped=last_one,
    )


@st.cache_resource(scope="session", on_release=_session_disconnected, show_spinner=False)
def _session_marker(session_id: str) -> str:
    global _open_sessions, _registered_total
    with _lock:
        _open_sessions += 1
        _registered_total += 1
        back_in_time = _ending.pop(session_id, None)  # a reconnect: the session goes on
    if back_in_time is not None:
        back_in_time.cancel()
    event("session_reconnected" if back_in_time else "session_opened", session=session_id[:8])
    return session_id


def session_token() -> str:
    """The running session's token, what the hooks receive (registers the session)."""
    return _session_marker(st.session_state.setdefault(TOKEN_KEY, uuid.uuid4().hex))
