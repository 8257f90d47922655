"""The replica's load in Prometheus' text format, served at ``/metrics`` (``app.py``).

Sessions connected, reruns, the events of ``ui.ops_log``, the training queue and the process's
resident memory; each replica answers for itself. Counts and sizes only: nothing a user typed.
"""

from __future__ import annotations

import sys

from . import ops_log, sessions
from .run_slots import RUN_SLOTS

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _training_queue() -> dict[str, int]:
    """Trainings running and waiting, and the queue's bounds, if the Train page's queue exists."""
    module = sys.modules.get("ui.train_jobs")
    queue = getattr(module, "QUEUE", None)
    if queue is None:
        return {}
    figures = {
        "waiting": queue.waiting(),
        "running": queue.running(),
        "max_running": queue.max_running,
        "max_waiting": queue.max_waiting,
    }
    return {name: int(value) for name, value in figures.items()}


def _family(lines: list[str], name: str, kind: str, help_text: str) -> None:
    lines.append(f"# HELP {name} {help_text}")
    lines.append(f"# TYPE {name} {kind}")


def render() -> str:
    """The exposition text: one ``# HELP``/``# TYPE`` pair per family, then its samples."""
    lines: list[str] = []
    _family(lines, "attention_lab_sessions", "gauge", "Sessions with a connected tab.")
    lines.append(f"attention_lab_sessions {sessions.open_sessions()}")
    _family(lines, "attention_lab_sessions_started_total", "counter", "Sessions registered.")
    lines.append(f"attention_lab_sessions_started_total {sessions.registered_sessions()}")
    counts = ops_log.counts()
    _family(lines, "attention_lab_reruns_total", "counter", "Script runs (a click each).")
    lines.append(f"attention_lab_reruns_total {counts.pop('rerun', 0)}")
    _family(lines, "attention_lab_events_total", "counter", "Logged events, by name.")
    for name, value in sorted(counts.items()):
        lines.append(f'attention_lab_events_total{{event="{name}"}} {value}')
    queue = _training_queue()
    if queue:
        _family(lines, "attention_lab_trainings", "gauge", "Trainings by state, and the bounds.")
        for state, value in queue.items():
            lines.append(f'attention_lab_trainings{{state="{state}"}} {value}')
    _family(lines, "attention_lab_page_runs", "gauge", "Page runs working and waiting, and slots.")
    for state, value in (
        ("working", RUN_SLOTS.held()),
        ("waiting", RUN_SLOTS.waiting()),
        ("slots", RUN_SLOTS.count),
    ):
        lines.append(f'attention_lab_page_runs{{state="{state}"}} {value}')
    _family(lines, "attention_lab_resident_memory_bytes", "gauge", "The replica's RSS.")
    lines.append(f"attention_lab_resident_memory_bytes {int(sessions.resident_mb() * 2**20)}")
    return "\n".join(lines) + "\n"
