"""The companion notebook (``notebooks/chapter3.ipynb``) runs as a learner runs it.

The notebook is copied to an empty folder outside the repository and executed by nbclient with a
kernel started from the virtual environment the built wheel is installed into (the fixture
``installed`` of tests/conftest.py, shared with tests/test_package_install.py), with ``python -I``: it imports ``attention``
and ``viz`` from the installed wheel, never from this folder. Any error in any cell fails the
test; its outputs must hold the book's context vectors, and ``show_trace``'s HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.installed_package import Installed
from tests.isolated_script import REPO_ROOT

NOTEBOOK = REPO_ROOT / "notebooks" / "chapter3.ipynb"
KERNEL_NAME = "attention-lab-wheel"
CELL_TIMEOUT_S = 300
BOOK_CONTEXT_VECS = [  # the seed document's context_vecs, as torch prints them
    "[-0.4519,  0.2216]",
    "[-0.5874,  0.0058]",
    "[-0.6300, -0.0632]",
    "[-0.5675, -0.0843]",
    "[-0.5526, -0.0981]",
    "[-0.5299, -0.1081]",
]
# A last cell the test adds: where the packages came from, and whether anything imported Streamlit.
WHERE_CELL = (
    "import json, sys, attention, viz\n"
    "print(json.dumps([attention.__file__, viz.__file__, 'streamlit' in sys.modules]))"
)


def test_the_notebook_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert len(code) >= 8
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def _kernel_for(python: Path, folder: Path) -> Path:
    """A kernel spec that starts ``python -I -m ipykernel_launcher``; returns its Jupyter path."""
    spec = folder / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [str(python), "-I", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "attention-lab wheel", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    return folder


def _texts(notebook: nbformat.NotebookNode) -> tuple[list[str], list[str]]:
    """Every printed or returned text/plain output, and every text/html output, in cell order."""
    plain, html = [], []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                plain.append(output.text)
            elif output.output_type in ("execute_result", "display_data"):
                plain.append(output.data.get("text/plain", ""))
                html.append(output.data.get("text/html", ""))
    return plain, html


def test_the_notebook_runs_outside_the_repository_against_the_installed_wheel(
    installed: Installed,  # the wheel's venv (tests/conftest.py)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "learner"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(REPO_ROOT)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(WHERE_CELL))
    nbformat.write(notebook, folder / NOTEBOOK.name)  # the learner's copy
    monkeypatch.setenv("JUPYTER_PATH", str(_kernel_for(installed.python, tmp_path / "jupyter")))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(folder)}},  # the kernel's working folder
    )
    client.execute()  # raises CellExecutionError, naming the cell, on any error

    plain, html = _texts(notebook)
    attention_file, viz_file, imported_streamlit = json.loads(plain[-1])
    for module_file in (attention_file, viz_file):
        assert Path(module_file).is_relative_to(installed.site_packages), module_file
    assert not imported_streamlit
    printed = "\n".join(plain)
    for row in BOOK_CONTEXT_VECS:
        assert printed.count(row) >= 3, row  # the book's batch of two, and the trace
    drawn = next(page for page in html if "attention-lab-trace" in page)  # show_trace's view
    assert "−0.4519" in drawn and "0.2216" in drawn and "−∞" in drawn
    assert "torch.Size([2, 6, 2])" in printed and "torch.Size([2, 6, 4])" in printed
    assert (
        "held-out accuracy:" in printed and "same as autograd on the book's module: True" in printed
    )
    assert "likely bugs: ('mask_after_softmax',)" in printed, "the checker names the learner's bug"
    # issue 30's answers: the 3.5.2 demo's vanished row, a row dropped whole, the parameter counts
    assert "rows the book's demo drops whole: ['journey']" in printed
    assert "seed 1: 'starts' dropped whole (chance 0.125)" in printed
    assert "MultiHeadAttentionWrapper 36 " in printed and "MultiHeadAttention 24 " in printed
