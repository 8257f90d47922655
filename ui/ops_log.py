"""One line per event, for the operator: sessions, settings errors, trainings, memory released.

``event("session_opened", session="3f2a")`` writes one line to standard output through Streamlit's
logger: ``event=session_opened session=3f2a`` by default, or one JSON object per line with
``ATTENTION_LAB_LOG_FORMAT=json`` (what log collectors read). Values are short and never user text
beyond what an operator needs (ids, counts, names of settings); nothing personal is logged.
"""

from __future__ import annotations

import json
import os
import time

from streamlit.logger import get_logger

_LOG = get_logger("attention_lab.events")


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
    return line


def _plain(value: object) -> str:
    """A value on one line without spaces that would split it (quoted when it has any)."""
    text = str(value).replace("\n", " ")
    return json.dumps(text) if (" " in text or not text) else text
