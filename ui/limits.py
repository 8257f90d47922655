"""Every operator-set limit of the server, declared once and read from the environment.

A :class:`Limit` in :data:`LIMITS` names its variable (``ATTENTION_LAB_*``), default and range;
:func:`limit` reads it. A bad value stops the server at start with one clean line naming the
variable, value and range (:func:`stop_on_bad_limits`, from ``app.py`` before it serves: an
exception in the startup hook would print a traceback) instead of failing in a student's
session. deploy/README.md lists them all (a test checks).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from attention.validate import MAX_TOKENS as CORE_MAX_TOKENS


@dataclass(frozen=True)
class Limit:
    """One limit: where the operator sets it, its default, and the values that make sense."""

    env: str  # the environment variable, ATTENTION_LAB_...
    default: float
    minimum: float
    maximum: float
    what: str  # one line for the operator: what it bounds, and its unit
    integer: bool = False


class LimitError(ValueError):
    """A limit's environment variable holds a value the server cannot run with."""


LIMITS: dict[str, Limit] = {
    limit.env: limit
    for limit in (
        Limit(
            "ATTENTION_LAB_PAGE_THREADS",
            1,
            1,
            64,
            "torch threads of every page's computation",
            True,
        ),
        Limit(
            "ATTENTION_LAB_RUN_SLOTS", 2, 1, 64, "page runs working at once (ui/run_slots.py)", True
        ),
        # The app's largest sentence or table; the core refuses more than its own MAX_TOKENS, so
        # an operator may lower it (memory grows with its square: deploy/README.md), never raise it.
        Limit(
            "ATTENTION_LAB_MAX_TOKENS",
            CORE_MAX_TOKENS,
            6,  # the book's example
            CORE_MAX_TOKENS,
            "tokens of one sentence or embedding table",
            True,
        ),
        Limit(
            "ATTENTION_LAB_TRACE_CACHE_ENTRIES",
            64,
            1,
            4096,
            "small traces kept for every session (each at most 1.5 MB)",
            True,
        ),
        Limit(
            "ATTENTION_LAB_TRACE_CACHE_TTL_S",
            1800,
            1,
            86400,
            "seconds a small trace stays cached unused",
        ),
        Limit(
            "ATTENTION_LAB_LARGE_TRACE_CACHE_ENTRIES",
            2,
            1,
            64,
            "large traces kept (past 256 x 256 attention cells; up to about 0.4 GB each)",
            True,
        ),
        Limit(
            "ATTENTION_LAB_LARGE_TRACE_CACHE_TTL_S",
            600,
            1,
            86400,
            "seconds a large trace stays cached unused",
        ),
        Limit(
            "ATTENTION_LAB_MEMORY_BUDGET_MB",
            3072,
            64,
            1_048_576,
            "MB all sessions' large views may hold at once (ui/budget.py); size it to the "
            "machine's free memory minus the idle server's",
            True,
        ),
        Limit(
            "ATTENTION_LAB_MEMORY_WAIT_S",
            30,
            0,
            600,
            "seconds a large view waits for room in the memory budget before it is refused",
        ),
        Limit("ATTENTION_LAB_CLASS_ROOMS", 100, 1, 10_000, "classes open at once", True),
        Limit("ATTENTION_LAB_CLASS_FOLLOWERS", 500, 1, 5_000, "students following one class", True),
        Limit(
            "ATTENTION_LAB_CLASS_HOURS",
            3,
            0.25,
            24,
            "hours a class lives after its teacher's tab last wrote it",
        ),
        Limit(
            "ATTENTION_LAB_CLASS_POLL_S", 1.0, 0.25, 5, "seconds between a screen's class checks"
        ),
        Limit("ATTENTION_LAB_TRAIN_RUNNING", 2, 1, 64, "trainings running at once", True),
        Limit("ATTENTION_LAB_TRAIN_WAITING", 8, 0, 1000, "trainings waiting in line", True),
        Limit("ATTENTION_LAB_TRAIN_CACHED", 8, 0, 1000, "finished trainings kept", True),
        Limit("ATTENTION_LAB_JOB_CPU_S", 240, 1, 86_400, "CPU seconds of one training"),
        Limit("ATTENTION_LAB_JOB_WALL_S", 600, 1, 86_400, "wall-clock seconds of one training"),
        Limit("ATTENTION_LAB_JOB_MEMORY_MB", 1024, 64, 1_048_576, "MB one training may add"),
        Limit("ATTENTION_LAB_TRAIN_THREADS", 1, 1, 64, "torch threads of a training", True),
        Limit("ATTENTION_LAB_TRAIN_NICE", 19, 0, 19, "a training's CPU priority (nice)", True),
    )
}


def limit(env: str) -> float | int:
    """The value of limit ``env``: the environment's, checked, or the default."""
    spec = LIMITS[env]
    raw = os.environ.get(env, "").strip()
    if not raw:
        return int(spec.default) if spec.integer else spec.default
    try:
        value = int(raw) if spec.integer else float(raw)
    except ValueError:
        kind = "a whole number" if spec.integer else "a number"
        raise LimitError(f"{env}={raw!r} is not {kind} ({spec.what})") from None
    if not spec.minimum <= value <= spec.maximum:
        raise LimitError(
            f"{env}={raw} is outside {spec.minimum:g} … {spec.maximum:g} ({spec.what})"
        )
    return value


def check_all() -> dict[str, float | int]:
    """Every limit's value; raises :class:`LimitError` naming each bad one, all at once."""
    values: dict[str, float | int] = {}
    problems: list[str] = []
    for env in LIMITS:
        try:
            values[env] = limit(env)
        except LimitError as error:
            problems.append(str(error))
    if problems:
        raise LimitError("; ".join(problems))
    return values


def stop_on_bad_limits() -> dict[str, float | int]:
    """Every limit's value, or the server stops here: the problems on standard error, exit 2.

    ``app.py`` calls it before Streamlit serves anything, so a bad value is one clear line in
    the operator's log (no traceback) and the process ends instead of failing in a session.
    """
    try:
        return check_all()
    except LimitError as error:
        sys.stderr.write(
            f"Attention Lab cannot start: {error}. Fix the variable or unset it for its default "
            "(deploy/README.md, Limits).\n"
        )
        sys.stderr.flush()
        raise SystemExit(2) from None
