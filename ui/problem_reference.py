"""A settings error shown to a user carries a short reference that the operator's log carries too.

"Reference: 3f2a9c" read out to the teacher points at one log line (``event=settings_error
session=… ref=3f2a9c problem=table.bad_number``), written once per session and problem; the
reference is stable across reruns. The log names the message key only, never what was typed.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from .i18n import t
from .ops_log import event
from .sessions import session_token
from .table import InputProblem

LOGGED_KEY = "problem_references_logged"  # st.session_state: the references already logged
MAX_LOGGED = 256  # a session's distinct problems remembered for that (then the log repeats one)


def reference(item: InputProblem) -> str:
    """Six hex digits naming this problem in this session (stable across reruns)."""
    text = f"{session_token()}|{item.key}|{item.values!r}"
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def with_reference(text: str, item: InputProblem) -> str:
    """``text`` (the message shown for ``item``) with its reference below; logs it once."""
    ref = reference(item)
    logged: set[str] = st.session_state.setdefault(LOGGED_KEY, set())
    if ref not in logged:
        if len(logged) >= MAX_LOGGED:
            logged.clear()
        logged.add(ref)
        event("settings_error", session=session_token()[:8], ref=ref, problem=item.key)
    return f"{text}\n\n{t('ops.reference', ref=ref)}"
