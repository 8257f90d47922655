"""The package installs: a wheel of ``attention`` and ``viz`` works outside this folder.

The wheel is built from a copy of the project (so that no ``build/`` folder lands in the
repository; every top-level folder is copied, so setuptools sees what ``pip install .`` sees) with the installed setuptools and no network, then installed into a fresh virtual
environment that sees the test environment's packages (torch, plotly, …) through a ``.pth`` file,
wherever they are installed (the system's Python or a user's virtual environment). ``pip install --no-index``
also checks that the declared dependencies are satisfied by the versions this project pins.
Everything then runs with ``python -I`` in an empty folder outside the repository.
"""

from __future__ import annotations

import json
import re
import tomllib
import zipfile
from pathlib import Path

import torch

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import SNIPPET_FILE_NAMES, reproduce_snippet
from tests.installed_package import Installed
from tests.isolated_script import REPO_ROOT, printed_context, run_isolated

PACKAGES = {"attention", "viz"}  # what a user installs (ui/ and pages/ are the app's)


def _requirement_pins() -> dict[str, str]:
    pins = {}
    for line in (REPO_ROOT / "requirements.txt").read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s#]+)\s*(#.*)?", line.strip())
        if match:
            pins[match[1].lower()] = match[2]
    return pins


def test_declared_dependencies_are_compatible_releases_of_the_projects_pins() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert set(project["tool"]["setuptools"]["packages"]) == PACKAGES
    pins = _requirement_pins()
    declared = {}
    for requirement in project["project"]["dependencies"]:
        name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)~=(\S+)", requirement).groups()
        declared[name.lower()] = version
    assert {"torch", "numpy", "plotly"} <= set(declared)
    for name, version in declared.items():
        assert pins.get(name) == version, f"{name}~={version} but requirements.txt pins {name}"


def test_wheel_holds_attention_and_viz_only(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [
            line.removeprefix("Requires-Dist: ")
            for line in wheel.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist: ")
        ]
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith("-info")}
    assert top_level == PACKAGES
    assert "attention/modules.py" in names and "viz/screens.py" in names
    assert any(r.startswith("torch") for r in requires), requires


def test_installed_package_traces_and_plots_outside_the_repository(
    installed: Installed, tmp_path: Path
) -> None:
    script = "\n".join(
        [
            "import json",
            "import attention, viz",
            "from attention import AttentionConfig, trace_attention",
            "from attention.examples import BOOK_EMBEDDINGS",
            "from viz.notebook import show_trace",
            "trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=7))",
            "figure = show_trace(trace, list('abcdef'))",
            "assert '<table' in figure._repr_html_()",
            "print(json.dumps([attention.__file__, viz.__file__, type(figure).__name__]))",
            "print(json.dumps(trace.output[0].tolist()))",
        ]
    )
    completed = run_isolated(script, tmp_path, "notebook_cell.py", python=installed.python)
    assert completed.returncode == 0, completed.stderr
    attention_file, viz_file, figure_type = json.loads(completed.stdout.splitlines()[0])
    for module_file in (attention_file, viz_file):
        assert Path(module_file).is_relative_to(installed.site_packages), module_file
    assert figure_type == "TraceView"
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=7))
    assert torch.equal(printed_context(completed), trace.output[0])


def test_trace_style_script_runs_with_the_installed_package(
    installed: Installed, tmp_path: Path
) -> None:
    tokens = ["猫", "=1", "@x", *BOOK_TOKENS[3:]]
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.4, d_out=4, num_heads=2))
    snippet = reproduce_snippet(trace, tokens, style="trace")
    completed = run_isolated(snippet, tmp_path, SNIPPET_FILE_NAMES["trace"], installed.python)
    assert torch.equal(printed_context(completed), trace.output[0])
