"""``python -m attention`` shows the autograd graph's trace (``grad_fn``) and, with ``--grad``, the
weight gradients of ``loss = context_vecs.sum()`` as the book's recipe computes them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attention.__main__ import main
from tests.book_recipe import BOOK_BATCH, book_module
from tests.cases import subcases

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_the_real_entry_point_prints_grad_fn_as_the_seed_document() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "attention"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    assert "[-0.5299, -0.1081]]], grad_fn=<UnsafeViewBackward0>)" in run.stdout
    assert "d loss / d" not in run.stdout  # gradients only when asked


@subcases("argv", [[], ["--heads", "2", "--dropout", "0.5", "--bias"]])
def test_grad_prints_the_book_recipes_weight_gradients(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--grad", *argv]) == 0
    printed = capsys.readouterr().out
    heads = 2 if argv else 1
    module = book_module(
        3,
        d_out=2,
        seed=123,
        context_length=6,
        dropout=0.5 if argv else 0.0,
        qkv_bias=bool(argv),
        num_heads=heads,
    )
    loss = module(BOOK_BATCH).sum()
    loss.backward()
    assert f"loss (sum): {float(loss.detach()):.4f}" in printed
    for name in ("W_query", "W_key", "W_value"):
        assert f"d loss / d {name}:\n{getattr(module, name).weight.grad.T}" in printed
    if argv:
        assert f"d loss / d b_query:\n{module.W_query.bias.grad}" in printed
        assert f"d loss / d W_out:\n{module.out_proj.weight.grad.T}" in printed
    else:
        assert "b_query" not in printed and "W_out" not in printed
