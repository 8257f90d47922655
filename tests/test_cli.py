"""``python -m attention``: the seed document's run, its options, and clean failures.

One run goes through the real entry point, a ``python -m attention`` subprocess (it pays torch's
import time); every other run calls ``main(argv)`` in this process, which is what that entry point
runs (``raise SystemExit(main())``), its output and exit status captured the same way.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.__main__ import MATRIX_STEPS, main, write_json
from attention.examples import embed_words
from tests.book_recipe import BOOK_BATCH

REPO_ROOT = Path(__file__).resolve().parents[1]
BOOK_NUMBERS = ["-0.4519", "0.2216", "-0.5874", "0.0058", "-0.6300", "-0.0632"]
BOOK_NUMBERS += ["-0.5675", "-0.0843", "-0.5526", "-0.0981", "-0.5299", "-0.1081"]

RUNS: dict[str, list[str]] = {
    "default": [],
    "json": ["--json"],
    "json_matrices": ["--json", "--matrices", "--dropout", "0.5"],
    "json_options": [
        "--json",
        *("--seed", "7", "--dropout", "0.5", "--d-out", "3"),
        *("--heads", "2", "--variant", "wrapper", "--bias"),
    ],
    "bad_seed": ["--seed", "-1"],
    "bad_dropout": ["--dropout", "2"],
    "bad_heads": ["--heads", "3", "--d-out", "4"],
    "bad_variant": ["--heads", "2", "--variant", "nope"],
    "blank_text": ["--text", "   "],
    "malformed_seed": ["--seed", "abc"],
}


def run_in_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` as the entry point runs it: its exit status (an argparse exit included),
    stdout and stderr. An exception other than ``SystemExit`` escapes: a traceback fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exited:
            code = exited.code
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def runs() -> dict[str, subprocess.CompletedProcess[str]]:
    """Every run above by name: ``default`` as a real ``python -m attention``, the rest in-process."""
    done = {
        "default": subprocess.run(
            [sys.executable, "-m", "attention"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=180,
        )
    }
    for name, argv in RUNS.items():
        if name != "default":
            done[name] = run_in_process(argv)
    return done


def test_default_run_prints_the_seed_documents_output(
    runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    result = runs["default"]
    assert result.returncode == 0, result.stderr
    assert "context_length: 6" in result.stdout
    assert "batch.shape: torch.Size([2, 6, 3])" in result.stdout
    assert "torch.Size([2, 6, 2])" in result.stdout
    context_part = result.stdout.split("context_vecs:")[1]
    for number in BOOK_NUMBERS:
        assert context_part.count(number) == 2, number  # both batch rows
    assert result.stderr == ""


def test_json_run_parses_and_its_context_vectors_are_the_trace(
    runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    result = runs["json"]
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    expected = trace_attention(BOOK_BATCH, AttentionConfig())
    assert data["context_length"] == 6
    assert data["shape"] == [2, 6, 2] and data["batch_shape"] == [2, 6, 3]
    assert data["tokens"] == ["Your", "journey", "starts", "with", "one", "step"]
    assert torch.equal(torch.tensor(data["context_vecs"]), expected.output)
    assert data["matrices_included"] is False and "masked_scores" not in data["trace"]
    assert data["trace"]["masked_scores_shape"] == [2, 6, 6]


def test_json_run_with_matrices_writes_the_whole_trace(
    runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    result = runs["json_matrices"]
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    expected = trace_attention(BOOK_BATCH, AttentionConfig(dropout=0.5))
    assert data["matrices_included"] is True
    assert data["trace"] == expected.to_dict()  # every step, the mask's −inf as null
    assert data["trace"]["masked_scores"][0][0][1] is None
    assert torch.equal(torch.tensor(data["context_vecs"]), expected.output)


def test_json_run_with_options_matches_the_trace_of_those_options(
    runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    result = runs["json_options"]
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    cfg = AttentionConfig(
        d_out=3, seed=7, dropout=0.5, num_heads=2, variant="wrapper", qkv_bias=True
    )
    expected = trace_attention(BOOK_BATCH, cfg)
    assert data["shape"] == [2, 6, 6]
    assert torch.equal(torch.tensor(data["context_vecs"]), expected.output)
    assert data["trace"]["config"]["seed"] == 7
    assert data["trace"]["config"]["variant"] == "wrapper"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("bad_seed", "-1"),
        ("bad_dropout", "2.0"),
        ("bad_heads", "3 heads"),
        ("bad_variant", "'nope'"),
        ("blank_text", "--text is empty"),
        ("malformed_seed", "'abc'"),
    ],
)
def test_bad_options_exit_2_with_a_message_and_no_traceback(
    runs: dict[str, subprocess.CompletedProcess[str]], name: str, shown: str
) -> None:
    result = runs[name]
    assert result.returncode == 2
    assert shown in result.stderr
    assert "error" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


# --- options, in-process -----------------------------------------------------------------------


def _json_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("argv", "cfg"),
    [
        (["--seed", "7"], AttentionConfig(seed=7)),
        (["--dropout", "0.5"], AttentionConfig(dropout=0.5)),
        (["--dropout", "0.5", "--eval"], AttentionConfig(dropout=0.5, training=False)),
        (["--d-out", "5"], AttentionConfig(d_out=5)),
        (["--heads", "2", "--d-out", "4"], AttentionConfig(d_out=4, num_heads=2)),
        (
            ["--heads", "3", "--variant", "wrapper"],
            AttentionConfig(num_heads=3, variant="wrapper"),
        ),
        (["--bias"], AttentionConfig(qkv_bias=True)),
    ],
    ids=["seed", "dropout", "eval", "d_out", "heads", "variant", "bias"],
)
def test_each_option_reaches_the_trace(
    argv: list[str], cfg: AttentionConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _json_main(argv, capsys)
    expected = trace_attention(BOOK_BATCH, cfg)
    assert data["shape"] == list(expected.output.shape)
    assert torch.equal(torch.tensor(data["context_vecs"]), expected.output)
    assert data["trace"]["config"] == expected.config.to_dict()


def test_eval_mode_ignores_dropout(capsys: pytest.CaptureFixture[str]) -> None:
    with_eval = _json_main(["--dropout", "0.5", "--eval", "--matrices"], capsys)
    without_dropout = _json_main([], capsys)
    assert with_eval["context_vecs"] == without_dropout["context_vecs"]
    assert "dropout_mask" not in with_eval["trace"] and "dropped_weights" in with_eval["trace"]


def test_text_option_embeds_the_words(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json_main(["--text", "the cat  sat"], capsys)
    assert data["tokens"] == ["the", "cat", "sat"]
    assert data["context_length"] == 3 and data["batch_shape"] == [2, 3, 3]
    words = embed_words(["the", "cat", "sat"], 3)
    expected = trace_attention(torch.stack((words, words)), AttentionConfig())
    assert torch.equal(torch.tensor(data["context_vecs"]), expected.output)


def test_text_option_prints_human_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--text", "hello world"]) == 0
    out = capsys.readouterr().out
    assert "context_length: 2" in out and "torch.Size([2, 2, 2])" in out


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["--seed", "-1"], "seed must not be negative"),
        (["--dropout", "2"], "dropout"),
        (["--d-out", "0"], "d_out"),
        (["--heads", "3", "--d-out", "4"], "divisible"),
        (["--variant", "nope"], "'nope'"),
        (["--text", "   "], "--text is empty"),
    ],
)
def test_main_returns_2_and_explains_bad_options(
    argv: list[str], shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and shown in captured.err


# --- what --json contains ----------------------------------------------------------------------

TOP_LEVEL_KEYS = {
    "tokens",
    "batch_shape",
    "context_length",
    "context_vecs",
    "shape",
    "matrices_included",
    "trace",
}


def test_default_json_at_a_moderate_size_has_the_documented_keys_and_no_matrices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = [f"w{i}" for i in range(64)]
    data = _json_main(["--text", " ".join(words), "--dropout", "0.5", "--heads", "2"], capsys)
    embedded = embed_words(words, 3)
    expected = trace_attention(
        torch.stack((embedded, embedded)), AttentionConfig(dropout=0.5, num_heads=2)
    )
    assert set(data) == TOP_LEVEL_KEYS and data["matrices_included"] is False
    full = expected.to_dict()
    steps = {name for name in expected.tensors() if name in MATRIX_STEPS}
    assert steps == set(MATRIX_STEPS)  # dropout acts: all seven (T, T) steps exist
    assert set(data["trace"]) == set(full) - steps  # everything else, shapes of all included
    for name in steps:
        assert data["trace"][f"{name}_shape"][-2:] == [64, 64]
    for name, value in data["trace"].items():
        assert value == full[name], name


def test_help_documents_every_key_json_writes(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json_main(["--matrices", "--dropout", "0.5", "--bias", "--heads", "2"], capsys)
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    help_text = capsys.readouterr().out
    assert "--matrices" in help_text
    for key in [*data, *(k for k in data["trace"] if not k.endswith("_shape"))]:
        assert key in help_text, key


def test_matrices_without_json_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--matrices"])
    assert exited.value.code == 2
    assert "--matrices only changes the --json output" in capsys.readouterr().err


class _LargestWrite(io.StringIO):
    """A text stream that remembers the longest single ``write``."""

    largest = 0

    def write(self, text: str) -> int:
        self.largest = max(self.largest, len(text))
        return super().write(text)


def test_json_with_matrices_is_written_row_by_row_not_as_one_string() -> None:
    words = [f"w{i}" for i in range(256)]
    embedded = embed_words(words, 3)
    batch = torch.stack((embedded, embedded))
    trace = trace_attention(batch, AttentionConfig(dropout=0.1))
    out = _LargestWrite()
    write_json(out, words, batch, trace, matrices=True)
    assert json.loads(out.getvalue())["trace"] == trace.to_dict()
    assert len(out.getvalue()) > 10_000_000  # seven (2, 256, 256) steps, ~1.4 MB per matrix
    assert out.largest < 100_000  # a row, or the (2, T, d) vectors: never a (T, T) matrix
