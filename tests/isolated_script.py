"""Run a downloaded script the way a user does: saved in a folder of its own, outside this repository.

``python -I`` (isolated mode) puts neither the current folder, nor ``PYTHONPATH``, nor the user's
site folder on ``sys.path``: the script sees only what the interpreter has installed, so a script
that silently needed this repository's ``attention`` folder fails here as it would for a user.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT_TIMEOUT_S = 120


def run_isolated(
    script: str | bytes,
    folder: Path,
    file_name: str = "reproduce_attention.py",
    python: str | Path = sys.executable,
) -> subprocess.CompletedProcess[str]:
    """Save ``script`` as ``folder/file_name`` and run ``python -I file_name`` in ``folder``."""
    folder = folder.resolve()
    assert not folder.is_relative_to(REPO_ROOT), f"{folder} is inside the repository"
    path = folder / file_name
    path.write_bytes(script if isinstance(script, bytes) else script.encode("utf-8"))
    return subprocess.run(
        [str(python), "-I", file_name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )


def printed_context(completed: subprocess.CompletedProcess[str]) -> torch.Tensor:
    """The context vectors a reproduce script printed as JSON on its last line, as float32."""
    assert completed.returncode == 0, completed.stderr
    last_line = completed.stdout.strip().splitlines()[-1]
    return torch.tensor(json.loads(last_line), dtype=torch.float32)
