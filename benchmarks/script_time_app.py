"""The page of ``benchmarks/script_time.py``: the floor or the app, its script run timed.

Not part of the app. ``SCRIPT_TIME_TARGET`` chooses what this script runs: ``floor``
(``benchmarks/floor_app.py``'s page) or ``app`` (the frame and its pages, ``ui.frame.run_app``,
what ``lab.py`` runs). Every run appends one line to the file ``SCRIPT_TIME_LOG``: the
milliseconds from the first line of the script to its end, on the server, and how the run ended
(``done``, or the name of the exception that ended it: Streamlit's own rerun and stop). That is
the part of a click the browser cannot hurry: the script's own Python and Streamlit's work for
each element it sends (which shares the interpreter with the server thread that sends them).

Run it alone with ``SCRIPT_TIME_TARGET=app SCRIPT_TIME_LOG=/tmp/runs.txt streamlit run
benchmarks/script_time_app.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

started = time.perf_counter()  # before the imports below: a warm server has them already

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import floor_app  # noqa: E402
from ui.frame import run_app  # noqa: E402

ended = "done"
try:
    if os.environ.get("SCRIPT_TIME_TARGET") == "floor":
        floor_app.render()
    else:
        run_app()
except BaseException as error:  # Streamlit ends a run with its own exceptions: note, re-raise
    ended = type(error).__name__
    raise
finally:
    milliseconds = (time.perf_counter() - started) * 1000
    with open(os.environ["SCRIPT_TIME_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{milliseconds:.2f} {ended}\n")
