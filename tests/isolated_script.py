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


_RUN_EACH = """\
import contextlib, io, json, os, runpy, sys, traceback

results = []
for folder in sys.argv[1:]:
    os.chdir(folder)
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path("reproduce_attention.py", run_name="__main__")
        except BaseException:  # the script's own failure, reported as its exit would be
            traceback.print_exc()
            code = 1
    results.append([code, out.getvalue(), err.getvalue()])
sys.__stdout__.write(json.dumps(results))
"""


def run_isolated_each(scripts: list[str], folder: Path) -> list[subprocess.CompletedProcess[str]]:
    """Run each script as ``reproduce_attention.py`` in an empty folder of its own, all in one
    ``python -I`` (torch is imported once instead of once per script).

    Each script still sees only the interpreter's packages and its own empty folder; its printed
    output, errors and exit code (1 if it raised) come back as a ``CompletedProcess``.
    """
    folder = folder.resolve()
    assert not folder.is_relative_to(REPO_ROOT), f"{folder} is inside the repository"
    folders = []
    for index, script in enumerate(scripts):
        own = folder / f"script_{index}"
        own.mkdir()
        (own / "reproduce_attention.py").write_text(script, encoding="utf-8")
        folders.append(str(own))
    (folder / "run_each.py").write_text(_RUN_EACH, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-I", "run_each.py", *folders],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return [
        subprocess.CompletedProcess(["python", "-I", path], code, stdout, stderr)
        for path, (code, stdout, stderr) in zip(folders, json.loads(completed.stdout), strict=True)
    ]
