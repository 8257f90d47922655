"""One line per event, for the operator: sessions, settings errors, trainings, memory released.

``event("session_opened", session="3f2a")`` logs ``event=session_opened session=3f2a`` through
Streamlit's logger, or a JSON object with ``ATTENTION_LAB_LOG_FORMAT=json``. Values are ids,
counts and names of settings, never user text. Every event is counted too (:func:`counts`, served
at ``/metrics``), as are happenings too frequent for a line each (:func:`count`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter

from streamlit.logger import get_logger

_LOG = get_logger("attention_lab.events")
_counts: Counter[str] = Counter()  # event name -> how many since the server started
_counts_lock = threading.Lock()


def count(name: str) -> None:
    """Count one ``name`` without a log line (a rerun: one per click of every student)."""
    with _counts_lock:
        _counts[name] += 1


def counts() -> dict[str, int]:
    """How many of each event or counted happening since the server started."""
    with _counts_lock:
        return dict(_counts)


def _format() -> str:
    return "json" if os.environ.get("ATTENTION_LAB_LOG_FORMAT", "").lower() == "json" else "plain"


def event(name: str, **fields: object) -> str:
    """Log event ``name`` with ``fields`` on one line; returns the line (for tests)."""
    if _format() == "json":
        line = json.dumps({"ts": round(time.time(), 3), "event": name, **fields}, default=str)
    else:
        parts = [f"event={name}"] + [f"{key}={_plain(value)}" for key, value in fields.items()]
        line = " ".join(parts)
    _LOG.info(line)
    count(name)
    return line


def _plain(value: object) -> str:
    """A value on one line without spaces that would split it (quoted when it has any)."""
    text = str(value).replace("\n", " ")
    return json.dumps(text) if (" " in text or not text) else text
