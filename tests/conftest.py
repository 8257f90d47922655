"""Fixtures shared by the tests: traces of the book's six tokens (once per module), the installed wheel."""

from __future__ import annotations

import os

import pytest
import torch

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.installed_package import Installed, install_wheel

# One intra-op thread per test process and for the processes it starts (CLI runs, servers, scripts):
# several workers share the cores, and a thread team per worker only waits on the others. The
# numbers are the same with any count (tests/test_page_threads.py pins the forward pass bitwise).
torch.set_num_threads(1)
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The suite runs on several pytest-xdist workers (`-n`, `--dist loadgroup` in pyproject.toml): each
# test goes to whichever worker is free, except the tests of a module below, which share one
# costly setup and so run on one worker, where that setup is made once.
SHARED_SETUP = {
    "test_package_install": "wheel",  # the `installed` wheel and its virtual environment
    "test_notebook": "wheel",
    "test_cli": "cli",  # ten `python -m attention` runs, made at once for the module
    "test_class_load": "class_load",  # a `streamlit run` of its own
    "test_class_mode": "class_mode",  # two replicas and a redis-server of its own
    "test_training": "training",  # trained models shared by the module
    "test_train_exports_and_heads": "train_exports",  # a trained model and its exports
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests of each module of ``SHARED_SETUP`` on one worker (``xdist_group``)."""
    for item in items:
        group = SHARED_SETUP.get(item.path.stem)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="module")
def six_token_trace() -> AttentionTrace:
    """The seed document's trace: six tokens, d_out = 2, seed 123, no dropout."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig())


@pytest.fixture(scope="module")
def six_token_dropout_trace() -> AttentionTrace:
    """The same with dropout p = 0.5 in training mode (kept weights × 2)."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from this folder, installed into a fresh virtual environment (built once
    per run: the package tests and the notebook test share it)."""
    return install_wheel(tmp_path_factory.mktemp("package"))


@pytest.fixture(autouse=True)
def _large_views_given_back() -> object:
    """An ``AppTest`` session never ends, so the large view it holds in the server's memory budget
    (``ui/budget.py``) is given back after each test, as a real session's end gives it back."""
    yield
    from ui.budget import BUDGET  # (only the budget's module: no Streamlit page is imported)

    for session in BUDGET.sessions():
        BUDGET.release(session)
