"""The step page imports only what it shows: not the training, gradient, task or corpus code.

A fresh interpreter imports the page's module (and with it the frame, the settings, the message
catalogue) and lists which of those modules it loaded. Who pulled them in before: the message
catalogue read the bug gallery's English (whose KV-cache bug imports the training code), and
``ui.computation`` imported the gallery for Find the bug's comparison.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNUSED = ("attention.training", "attention.gradients", "attention.tasks", "attention.corpus")


def test_the_step_pages_module_imports_no_training_gradient_task_or_corpus_code() -> None:
    probe = (
        "import json, sys; import pages.step_by_step; "
        f"print(json.dumps([name for name in {list(UNUSED)!r} if name in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
