"""The bug gallery, the checker of a learner's class and ``python -m attention check``.

Every gallery bug must be caught and named by the checker; the book's classes and a correct class
written differently must pass; the book's lines each bug and each step name must exist in
``attention/modules.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from attention import modules
from attention.book_code import find_statement
from attention.bugs import BUGS, compare_bug, run_steps
from attention.check import check_attention
from attention.check import main as check_main
from attention.examples import BOOK_EMBEDDINGS
from attention.modules import CausalAttention, MultiHeadAttention
from attention.randomness import draws_from, private_generator
from attention.steps import STEPS
from attention.trace import AttentionConfig, trace_attention
from attention.validate import AttentionInputError

ROOT = Path(__file__).resolve().parent.parent
MODULES_LINES = Path(modules.__file__).read_text().splitlines()

LEARNER_FILE = '''
import torch
import torch.nn as nn


class MyCausalAttention(nn.Module):
    """Correct, written another way: layers in another order, the scale on the queries."""

    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        num_tokens = x.shape[1]
        queries = self.W_query(x) / self.W_query.out_features ** 0.5
        scores = queries @ self.W_key(x).mT
        future = torch.ones(num_tokens, num_tokens, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.drop(weights) @ self.W_value(x)


class NoMask(MyCausalAttention):
    """Forgets the causal mask: every token sees the whole sequence."""

    def forward(self, x):
        queries = self.W_query(x) / self.W_query.out_features ** 0.5
        return (queries @ self.W_key(x).mT).softmax(-1) @ self.W_value(x)
'''


@pytest.fixture(scope="module")
def learner(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("learner") / "my_attention.py"
    path.write_text(LEARNER_FILE)
    namespace: dict = {}
    exec(compile(LEARNER_FILE, str(path), "exec"), namespace)  # noqa: S102 (our own test code)
    return path, namespace


@pytest.mark.parametrize("name", list(BUGS))
def test_every_gallery_bug_is_caught_and_named(name: str) -> None:
    bug = BUGS[name]
    report = check_attention(bug.cls)
    assert not report.passed
    assert report.first_difference is not None
    assert name in report.likely_bugs[:2], report.likely_bugs  # dropout_in_eval has an SDPA twin
    assert report.future_leak == bug.future_leak
    assert name in str(report)


def test_the_books_classes_pass_and_leave_the_global_generator_alone() -> None:
    state = torch.random.get_rng_state()
    for cls in (CausalAttention, MultiHeadAttention):
        report = check_attention(cls)
        assert report.passed, str(report)
        assert report.first_difference is None and report.likely_bugs == ()
        assert "behaves as the book's" in str(report)
    assert torch.equal(torch.random.get_rng_state(), state)


def test_a_correct_class_written_differently_passes(learner: tuple[Path, dict]) -> None:
    report = check_attention(learner[1]["MyCausalAttention"])
    assert report.passed, str(report)
    assert not report.future_leak


def test_a_class_without_mask_is_a_future_leak(learner: tuple[Path, dict]) -> None:
    report = check_attention(learner[1]["NoMask"])
    assert not report.passed
    assert report.future_leak
    assert report.leaked_tokens == (0, 1, 2, 3, 4)  # every earlier token of six sees the last
    assert report.likely_bugs == ("mask_not_applied",)  # the gallery names the slip
    assert "Future leak" in str(report)


def test_exceptions_of_the_learners_class_are_reported_not_raised() -> None:
    class RaisesInForward(CausalAttention):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            raise RuntimeError("not written yet")

    class WrongConstructor(nn.Module):
        def __init__(self, d_in: int) -> None:
            super().__init__()

    class OtherNames(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):  # noqa: ANN001
            super().__init__()
            self.query = nn.Linear(d_in, d_out)

    forward = check_attention(RaisesInForward)
    assert not forward.passed
    assert "forward raised RuntimeError: not written yet" in str(forward.first_difference)
    assert "raised an exception in every case" in str(forward)
    built = check_attention(WrongConstructor)
    assert not built.passed and "could not be built: TypeError" in str(built)
    names = check_attention(OtherNames)
    assert not names.passed and "W_query, W_key, W_value" in str(names)
    with pytest.raises(AttentionInputError, match="class derived from torch.nn.Module"):
        check_attention(CausalAttention(3, 2, 6, 0.0))  # an instance, not the class


def test_cli_exit_codes(learner: tuple[Path, dict], tmp_path: Path) -> None:
    path = learner[0]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    targets = {
        0: f"{path}:MyCausalAttention",
        1: f"{path}:NoMask",
        2: f"{path}:NoSuchClass",
    }
    processes = {  # started together: each pays torch's import time
        key: subprocess.Popen(
            [sys.executable, "-m", "attention", "check", target],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for key, target in targets.items()
    }
    results = {key: (p.wait(timeout=120), *p.communicate()) for key, p in processes.items()}
    assert results[0][0] == 0 and "behaves as the book's CausalAttention" in results[0][1]
    assert results[1][0] == 1 and "Future leak" in results[1][1]
    assert results[2][0] == 2 and "has no NoSuchClass; its classes:" in results[2][2]
    assert all("Traceback" not in err for _, _, err in results.values())


def test_cli_usage_errors_exit_2_with_a_plain_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_main([f"{tmp_path / 'missing.py'}:MyCausalAttention"]) == 2
    assert check_main(["my_attention.py"]) == 2  # no class named
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nclass Mine(torch.nn.Module:\n")
    assert check_main([f"{broken}:Mine"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors[0] == f"error: No such file: {tmp_path / 'missing.py'}."
    assert errors[1].startswith("error: Expected FILE.py:ClassName")
    assert errors[2].startswith(f"error: Importing {broken} raised SyntaxError")


def test_each_bug_names_book_lines_that_exist_in_modules_py() -> None:
    for bug in BUGS.values():
        for anchor in bug.book_anchors:
            statement = find_statement(bug.book_class, anchor)
            lines = MODULES_LINES[statement.first_line - 1 : statement.last_line]
            assert anchor in "\n".join(lines)
        assert bug.diff.startswith("- ") and "\n+ " in bug.diff
        assert set(bug.steps) <= {step.name for step in STEPS}


def test_compare_bug_runs_the_books_numbers_and_the_bugs_own_class() -> None:
    cfg = AttentionConfig(seed=123, dropout=0.5)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    comparison = compare_bug("dropout_unscaled", BOOK_EMBEDDINGS, cfg)
    assert torch.equal(comparison.book["output"], trace.output[0])  # bitwise the book's trace
    kept = comparison.book["dropped_weights"] != 0
    assert torch.allclose(  # kept weights are not doubled
        comparison.buggy["dropped_weights"][kept] * 2, comparison.book["dropped_weights"][kept]
    )
    assert comparison.train_eval["eval"] == 0.0 and comparison.train_eval["train"] > 0.1
    leak = compare_bug("mask_after_softmax", BOOK_EMBEDDINGS, cfg)
    assert leak.future_leak and not bool(torch.allclose(leak.row_sums[:-1], torch.ones(5)))

    # The traced steps of a class that calls SDPA are what SDPA computes (same dropout draws).
    x = BOOK_EMBEDDINGS.unsqueeze(0)
    for name in ("sdpa_bool_mask", "sdpa_dropout_in_eval"):
        with draws_from(private_generator(7)):
            module = BUGS[name].cls(3, 2, 6, 0.5)
        for training in (True, False):
            module.train(training)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(5)
                direct = module(x)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(5)
                traced = run_steps(module, x, None)["output"]
            assert torch.allclose(direct, traced, atol=1e-6), (name, training)
