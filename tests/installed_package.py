"""The wheel of ``attention`` and ``viz``, built from a copy of this folder and installed into a
fresh virtual environment: what tests/test_package_install.py and tests/test_notebook.py use
(through the session fixture ``installed`` of tests/conftest.py, so it is built once a run).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from tests.isolated_script import REPO_ROOT

PIP_TIMEOUT_S = 180
COPY_IGNORED = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", "build", "dist", "docs", ".*_cache"
)  # fmt: skip


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path  # the virtual environment's interpreter
    site_packages: Path


def _run(command: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        check=False,
    )
    assert completed.returncode == 0, f"{command}\n{completed.stdout}\n{completed.stderr}"
    return completed


def install_wheel(root: Path) -> Installed:
    """Build the wheel in ``root`` and install it into a fresh virtual environment there."""
    source = root / "source"  # the whole project, as `pip install .` sees it
    shutil.copytree(REPO_ROOT, source, ignore=COPY_IGNORED)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", "dist", "./source"], root)  # fmt: skip
    (wheel,) = (root / "dist").glob("attention_lab-*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", "venv"], root)
    python = root / "venv" / "bin" / "python"
    site_packages = Path(
        _run([python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], root)
        .stdout.strip()
    )  # fmt: skip
    # The venv sees the packages of the environment running the tests (pip, torch, plotly, …)
    # through a .pth file, wherever they live: the system's Python or a user's own virtual
    # environment (whose packages --system-site-packages would not see).
    (site_packages / "testing_environment.pth").write_text("\n".join(_environment_paths()) + "\n")
    _run([python, "-m", "pip", "install", "--no-index", "--no-input", "-q", wheel], root)
    return Installed(wheel, python, site_packages)


def _environment_paths() -> list[str]:
    """The site-packages folders of the interpreter running the tests (venv or not)."""
    paths = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    return sorted(path for path in paths if path and Path(path).is_dir())
