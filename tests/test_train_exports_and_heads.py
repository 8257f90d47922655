"""A trained head through the step code, and a training taken home (weights, retrain script).

- :func:`attention.head_trace.one_head` picks head ``k`` out of a multi-head trace; it must be the
  same head a ``CausalAttention`` with that head's weight columns computes, through the same
  ``trace_module`` code path;
- the retrain script, saved in an empty folder outside the repository and run with the package on
  ``PYTHONPATH``, must report bitwise the same weights — and notice when they are not.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from attention import CausalAttention, trace_module
from attention.head_trace import one_head
from attention.training import TrainConfig, train
from attention.training_export import (
    RETRAIN_SCRIPT_NAME,
    WEIGHTS_FILE_NAME,
    retrain_script,
    weights_bytes,
    weights_fingerprint,
)
from attention.validate import AttentionInputError
from tests.isolated_script import REPO_ROOT, SCRIPT_TIMEOUT_S
from tests.step_figures import field_view
from viz.words import FigureWords


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    """One intra-op thread, as the app trains (tiny models train faster so on a busy machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def trained_two_heads(one_thread: None):
    return train(TrainConfig(task="induction", seed=2, steps=8, log_every=4, width=16, heads=2))


def test_one_head_is_the_causal_attention_of_that_heads_weight_columns(trained_two_heads) -> None:
    result = trained_two_heads
    tokens = result.sample_tokens()
    inputs, module = result.attention_layer_inputs(tokens, layer=1)
    trace = trace_module(module, inputs)  # (1, 2, T, ·) steps of both heads
    head_dim = module.head_dim
    for head in range(2):
        picked = one_head(trace, head)
        assert picked.config.num_heads == 1 and picked.config.d_out == head_dim
        assert torch.equal(picked.attn_weights, trace.attn_weights[:, head])
        assert torch.equal(picked.context, trace.head_context[:, head])
        # the same head, rebuilt as the book's one-head class from the weight columns
        single = CausalAttention(16, head_dim, module.mask.shape[0], 0.0).eval()
        columns = slice(head * head_dim, (head + 1) * head_dim)
        with torch.no_grad():
            for name in ("W_query", "W_key", "W_value"):
                getattr(single, name).weight.copy_(getattr(module, name).weight[columns])
        reference = trace_module(single, inputs)
        assert torch.allclose(picked.attn_weights, reference.attn_weights, atol=1e-6)
        assert torch.allclose(picked.context, reference.context, atol=1e-6)
        # and the step figures accept it (they refuse a multi-head trace)
        field_view(picked, "attn_weights", result.labels(tokens), FigureWords())
    with pytest.raises(ValueError, match="one head"):
        field_view(trace, "attn_weights", result.labels(tokens), FigureWords())
    with pytest.raises(AttentionInputError, match="head"):
        one_head(trace, 2)


def run_script(script: str, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Save the script in ``folder`` (outside the repository) and run it with the package."""
    assert not folder.resolve().is_relative_to(REPO_ROOT)
    (folder / RETRAIN_SCRIPT_NAME).write_text(script, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, RETRAIN_SCRIPT_NAME, *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )


def run_script_here(
    script: str, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[object, str]:
    """Run the saved script in this process as ``python script`` (no arguments) runs it: its exit
    code and what it printed. For a second run of a script :func:`run_script` ran as a file."""
    path = folder / RETRAIN_SCRIPT_NAME
    path.write_text(script, encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [str(path)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(path), run_name="__main__")
    return exited.value.code, capsys.readouterr().out


def test_retrain_script_reports_the_same_weights_and_catches_different_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    uploaded = "The lamp turns once every ten seconds. " * 12 + "Ünïcödé and a\ttab.\n"
    result = train(
        TrainConfig(task="text", seed=5, steps=6, log_every=3, width=16, heads=2, text=uploaded)
    )
    state = result.model.state_dict()
    fingerprint = weights_fingerprint(state)
    threads = torch.get_num_threads()
    (tmp_path / WEIGHTS_FILE_NAME).write_bytes(weights_bytes(result.model))
    loaded = torch.load(tmp_path / WEIGHTS_FILE_NAME, weights_only=True)
    assert weights_fingerprint(loaded) == fingerprint

    script = retrain_script(result.config, fingerprint, threads=threads)
    assert script.startswith('"""Retrain') and "Needs the Attention Lab package" in script[:400]
    install = script[: script.index("then run this file")]
    assert "    pip install .\n" in install and "<" not in install, "a command a user can copy"
    completed = run_script(script, tmp_path, WEIGHTS_FILE_NAME)
    assert completed.returncode == 0, completed.stderr
    assert f"same as {WEIGHTS_FILE_NAME}: True" in completed.stdout
    assert completed.stdout.strip().endswith("same weights: True")

    # a wrong fingerprint (run in this process: the run above shows the script runs as a file)
    other = retrain_script(result.config, "0" * 64, threads=threads)
    code, printed = run_script_here(other, tmp_path, monkeypatch, capsys)
    assert code == 1 and printed.strip().endswith("same weights: False")
    assert torch.get_num_threads() == threads, "the script set the count it already had"


def test_retrain_script_of_a_stopped_training_stops_at_the_same_step(tmp_path: Path) -> None:
    cfg = TrainConfig(task="copy", seed=4, steps=40, log_every=5)
    stopped = train(cfg, on_progress=lambda record: record["step"] < 10)
    assert stopped.stopped_early and stopped.steps_done == 10
    full = train(cfg)
    assert weights_fingerprint(full.model.state_dict()) != weights_fingerprint(
        stopped.model.state_dict()
    )
    script = retrain_script(
        stopped.config,
        weights_fingerprint(stopped.model.state_dict()),
        threads=torch.get_num_threads(),
        stopped_at=stopped.steps_done,
    )
    completed = run_script(script, tmp_path)
    assert completed.returncode == 0, completed.stderr + completed.stdout
    assert "step 10:" in completed.stdout and "same weights: True" in completed.stdout


def test_retrain_script_refuses_a_bad_fingerprint_or_thread_count() -> None:
    cfg = TrainConfig(task="copy").resolved()
    with pytest.raises(ValueError, match="SHA-256"):
        retrain_script(cfg, "print('hello')")
    with pytest.raises(ValueError, match="threads"):
        retrain_script(cfg, "a" * 64, threads=0)
