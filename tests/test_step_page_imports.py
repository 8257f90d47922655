"""The step page's run imports only what it shows: no other page, no training, gradient or bug code.

A fresh interpreter (so that ``sys.modules`` holds only what this run imported) runs the app on the
step page in ``AppTest``, frame included, and lists the modules of that list it loaded. Who pulled
them in before: the frame imported every page's module to name it in the navigation, the bug choice
in the link imported the gallery (whose KV-cache bug imports the training code), the message
catalogue read the gallery's English, and ``ui.computation`` imported the gallery for Find the bug.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ui.frame import PAGE_SPECS

ROOT = Path(__file__).resolve().parents[1]
OTHER_PAGES = tuple(spec.module for spec in PAGE_SPECS if spec.name != "step")
UNUSED_NOW = (*OTHER_PAGES, "attention.bugs", "attention.kv_cache")
# The link's Train and Backward settings read their ranges from attention.setting_ranges.
UNUSED_LATER = ("attention.training", "attention.tasks", "attention.corpus", "attention.gradients")


def _loaded_by_the_step_page(names: tuple[str, ...]) -> list[str]:
    probe = (
        "import json, sys\n"
        "from tests.apptest_support import run_page\n"
        "at = run_page('step')\n"
        "assert not at.exception, at.exception\n"
        "assert at.button_group, 'the step page drew no strip of steps'\n"
        f"print(json.dumps([name for name in {list(names)!r} if name in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_step_pages_run_imports_no_other_page_and_no_bug_gallery() -> None:
    assert _loaded_by_the_step_page(UNUSED_NOW) == []


def test_the_step_pages_run_imports_no_training_gradient_task_or_corpus_code() -> None:
    assert _loaded_by_the_step_page(UNUSED_LATER) == []
