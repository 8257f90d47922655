"""The export files (CSV, JSON, zip) and the "reproduce this" script, without Streamlit.

The book-style script is run for real, saved in an empty folder outside the repository and run
with ``python -I`` (as a user who downloaded it would), and the context vectors it prints are
compared *bitwise* with the trace: the export is only useful if it reproduces exactly. The
trace-style script, which needs the installed package, is run in tests/test_package_install.py.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import inspect
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from attention import (
    AttentionConfig,
    AttentionInputError,
    AttentionTrace,
    CausalAttention,
    trace_attention,
)
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import (
    MAX_EXPORT_CELLS,
    PACKAGE_INSTALL,
    SNIPPET_FILE_NAMES,
    attention_cells,
    csv_field,
    csv_file_names,
    export_files,
    export_zip,
    exportable,
    float32_text,
    matrix_csv,
    reproduce_snippet,
    trace_csv_file,
    trace_csv_files,
    trace_json,
    trace_json_dict,
)
from tests.isolated_script import printed_context, run_isolated, run_isolated_each

TOKENS = list(BOOK_TOKENS)
ONE_HEAD_FILES = [
    "inputs.csv",
    "W_query.csv",
    "W_key.csv",
    "W_value.csv",
    "queries.csv",
    "keys.csv",
    "values.csv",
    "attn_scores.csv",
    "mask.csv",
    "masked_scores.csv",
    "scaled_scores.csv",
    "attn_weights.csv",
    "dropped_weights.csv",
    "context.csv",
]


def book_trace(**changes: object) -> AttentionTrace:
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(**changes))  # type: ignore[arg-type]


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def body_values(rows: list[list[str]]) -> np.ndarray:
    """The numeric part of a CSV (header row and label column removed), parsed as float32."""
    return np.array([[float(cell) for cell in row[1:]] for row in rows[1:]], dtype=np.float32)


# --- numbers and labels --------------------------------------------------------------------------


def test_float32_text_is_short_for_the_book_values() -> None:
    assert [float32_text(v) for v in BOOK_EMBEDDINGS[0].tolist()] == ["0.43", "0.15", "0.89"]
    assert float32_text(float("-inf")) == "-inf"


def test_float32_text_reads_back_as_the_same_float32_for_many_values() -> None:
    generator = torch.Generator().manual_seed(0)
    values = torch.cat(
        [
            torch.randn(5000, generator=generator),
            torch.randn(2000, generator=generator) * 1e6,
            torch.randn(2000, generator=generator) * 1e-6,
            torch.tensor([0.0, -0.0, 1e-45, 3.4e38, -3.4e38]),
        ]
    )  # float32
    texts = [float32_text(v) for v in values.tolist()]
    back = torch.tensor([float(text) for text in texts], dtype=torch.float32)
    assert torch.equal(back.view(torch.int32), values.view(torch.int32))  # every bit, -0.0 too


def test_matrix_csv_labels_rows_and_columns_and_guards_labels() -> None:
    text = matrix_csv([[1.0, float("-inf")], [0.5, True]], ["=cmd", "b"], ["@x", "y"], "corner")
    assert read_csv(text) == [
        ["corner", "'@x", "y"],
        ["'=cmd", "1.0", "-inf"],
        ["b", "0.5", "1"],
    ]


# --- the CSV files -------------------------------------------------------------------------------


def test_one_head_without_dropout_exports_every_step_in_order() -> None:
    files = trace_csv_files(book_trace(), TOKENS)
    assert list(files) == ONE_HEAD_FILES
    assert csv_file_names(book_trace()) == ONE_HEAD_FILES


def test_bias_and_dropout_add_their_files() -> None:
    names = list(trace_csv_files(book_trace(dropout=0.5, qkv_bias=True), TOKENS))
    for extra in ("b_query.csv", "b_key.csv", "b_value.csv", "dropout_mask.csv"):
        assert extra in names
    assert names.index("dropout_mask.csv") < names.index("dropped_weights.csv")
    assert "dropout_mask.csv" not in trace_csv_files(
        book_trace(dropout=0.5, training=False), TOKENS
    )


def test_every_csv_holds_the_trace_numbers_bitwise_with_token_labels() -> None:
    trace = book_trace(dropout=0.3, seed=7, qkv_bias=True)
    files = trace_csv_files(trace, TOKENS)
    for name, field in [
        ("inputs.csv", trace.inputs[0]),
        ("W_query.csv", trace.W_query),
        ("queries.csv", trace.queries[0]),
        ("attn_scores.csv", trace.attn_scores[0]),
        ("scaled_scores.csv", trace.scaled_scores[0]),
        ("attn_weights.csv", trace.attn_weights[0]),
        ("dropped_weights.csv", trace.dropped_weights[0]),
        ("context.csv", trace.context[0]),
    ]:
        rows = read_csv(files[name])
        assert np.array_equal(body_values(rows), field.numpy()), name
    scores = read_csv(files["attn_scores.csv"])
    assert scores[0] == ["query \\ key", *TOKENS]
    assert [row[0] for row in scores[1:]] == TOKENS
    assert read_csv(files["W_query.csv"])[0] == ["W_query", "q1", "q2"]
    assert [row[0] for row in read_csv(files["W_query.csv"])[1:]] == ["x1", "x2", "x3"]
    assert read_csv(files["b_query.csv"]) == [
        ["b_query", "q1", "q2"],
        ["bias", *(float32_text(v) for v in trace.b_query.tolist())],
    ]


def test_hidden_scores_are_written_minus_inf_and_masks_as_ones_and_zeros() -> None:
    trace = book_trace(dropout=0.5)
    files = trace_csv_files(trace, TOKENS)
    masked = read_csv(files["masked_scores.csv"])
    for i, row in enumerate(masked[1:]):
        for j, cell in enumerate(row[1:]):
            assert (cell == "-inf") == bool(trace.mask[i, j])
    mask = read_csv(files["mask.csv"])
    assert [[int(c) for c in row[1:]] for row in mask[1:]] == trace.mask.int().tolist()
    keep = read_csv(files["dropout_mask.csv"])
    assert [[int(c) for c in row[1:]] for row in keep[1:]] == trace.dropout_mask[0].int().tolist()


def test_user_tokens_are_guarded_and_repeated_tokens_told_apart() -> None:
    tokens = ["=1+1", "the", "@cat", "the", "-5", "+x"]
    files = trace_csv_files(book_trace(), tokens)
    header = read_csv(files["attn_weights.csv"])[0]
    assert header == ["query \\ key", "'=1+1", "the", "'@cat", "the·2", "'-5", "'+x"]
    labels = [row[0] for row in read_csv(files["inputs.csv"])[1:]]
    assert labels == ["'=1+1", "the", "'@cat", "the·2", "'-5", "'+x"]


def test_multi_head_exports_one_file_per_head() -> None:
    fused = trace_csv_files(book_trace(d_out=4, num_heads=2), TOKENS)
    assert "attn_weights_head1.csv" in fused and "attn_weights_head2.csv" in fused
    assert {"W_out.csv", "b_out.csv", "output.csv", "context.csv"} <= set(fused)
    trace = book_trace(num_heads=2, variant="wrapper", qkv_bias=True)
    wrapper = trace_csv_files(trace, TOKENS)
    assert "W_query_head2.csv" in wrapper and "b_value_head1.csv" in wrapper
    assert "output.csv" not in wrapper  # the wrapper's output is its context
    head2 = read_csv(wrapper["attn_weights_head2.csv"])
    assert np.array_equal(body_values(head2), trace.attn_weights[0, 1].numpy())
    assert csv_field("attn_weights_head2.csv") == "attn_weights"
    assert csv_field("head_context_head1.csv") == "head_context"


def test_one_file_can_be_written_alone() -> None:
    trace = book_trace()
    assert trace_csv_file(trace, TOKENS, "mask.csv") == trace_csv_files(trace, TOKENS)["mask.csv"]
    with pytest.raises(AttentionInputError, match="No CSV file 'nope.csv'"):
        trace_csv_file(trace, TOKENS, "nope.csv")


def test_wrong_token_count_or_a_batch_of_different_sequences_is_refused() -> None:
    with pytest.raises(ValueError, match="token labels"):
        trace_csv_files(book_trace(), TOKENS[:3])
    mixed = trace_attention(torch.stack([BOOK_EMBEDDINGS, BOOK_EMBEDDINGS.flip(0)]))
    with pytest.raises(ValueError, match="different sequences"):
        reproduce_snippet(mixed, TOKENS)


def test_size_limit_counts_heads_times_tokens_squared() -> None:
    assert attention_cells(book_trace(d_out=4, num_heads=2)) == 2 * 6 * 6
    assert exportable(book_trace())
    assert MAX_EXPORT_CELLS >= 512 * 512


# --- JSON and zip --------------------------------------------------------------------------------


def test_json_is_strict_and_holds_trace_tokens_settings_and_versions() -> None:
    trace = book_trace(dropout=0.5, seed=9)
    text = trace_json(trace, TOKENS, {"os": "Linux"})
    data = json.loads(text, parse_constant=lambda name: pytest.fail(f"non-JSON constant {name}"))
    assert data["tokens"] == TOKENS
    assert data["torch_version"] == torch.__version__
    assert data["settings"] == trace.config.to_dict()
    assert data["environment"] == {"os": "Linux"}
    assert data["context"] == trace.to_dict()["context"]
    assert data["masked_scores"][0][0][1] is None  # −∞ is null
    assert torch.equal(torch.tensor(data["context"], dtype=torch.float32), trace.context)
    assert trace_json_dict(trace, TOKENS)["format"] == "attention-lab-trace"


def test_zip_holds_every_file_with_a_bom_on_csvs_and_is_deterministic() -> None:
    trace = book_trace(dropout=0.2)
    data = export_zip(trace, TOKENS)
    assert data == export_zip(trace, TOKENS)
    files = export_files(trace, TOKENS)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == list(files)
        assert archive.read("attn_weights.csv").startswith(b"\xef\xbb\xbf")
        assert archive.read("attn_weights.csv").decode("utf-8-sig") == files["attn_weights.csv"]
        assert archive.read("reproduce_attention.py").decode() == reproduce_snippet(trace, TOKENS)
        json.loads(archive.read("trace.json"))
        readme = archive.read("README.txt").decode()
    assert "dropout_mask.csv" in readme and "seed=123" in readme


# --- the snippet, run for real -------------------------------------------------------------------


# (inputs, tokens, config changes): the book's example and each way a script can differ
BOOK_SCRIPT_CASES = [
    (BOOK_EMBEDDINGS, TOKENS, {}),
    (BOOK_EMBEDDINGS, TOKENS, {"dropout": 0.5, "seed": 7, "qkv_bias": True}),
    (BOOK_EMBEDDINGS, TOKENS, {"dropout": 0.5, "training": False}),
    (BOOK_EMBEDDINGS, TOKENS, {"d_out": 4, "num_heads": 2, "dropout": 0.1}),
    (BOOK_EMBEDDINGS, TOKENS, {"num_heads": 3, "variant": "wrapper", "seed": 5}),
    (
        torch.tensor([[0.1234567, -1e-7, 12345.678], [1 / 3, 2 / 3, -0.0]]),
        ["it's", 'a\\"quote'],
        {"dropout": 0.25, "seed": 2**53 - 1},
    ),
    (BOOK_EMBEDDINGS, ["猫", "=1", "@x", "x", "y", "z"], {"dropout": 0.4}),
]


def test_book_script_runs_alone_in_an_empty_folder_and_prints_the_trace_output_bitwise(
    tmp_path: Path, subtests: pytest.Subtests
) -> None:
    """Only torch is needed: ``python -I`` in a fresh folder cannot see this repository."""
    traces = [
        trace_attention(inputs, AttentionConfig(**changes))  # type: ignore[arg-type]
        for inputs, _, changes in BOOK_SCRIPT_CASES
    ]
    snippets = [
        reproduce_snippet(trace, tokens, style="book")
        for trace, (_, tokens, _) in zip(traces, BOOK_SCRIPT_CASES, strict=True)
    ]
    runs = run_isolated_each(snippets, tmp_path)
    for trace, run, (_, tokens, changes) in zip(traces, runs, BOOK_SCRIPT_CASES, strict=True):
        with subtests.test(tokens=tokens, changes=changes):
            assert torch.equal(printed_context(run), trace.output[0])


def test_a_batch_script_stacks_the_inputs_and_prints_every_items_numbers_bitwise(
    tmp_path: Path,
) -> None:
    """The book's ``batch = torch.stack((inputs, inputs))``: each item draws its own dropout."""
    cfg = AttentionConfig(dropout=0.5)
    trace = trace_attention(torch.stack([BOOK_EMBEDDINGS] * 2), cfg)
    assert not torch.equal(trace.output[0], trace.output[1])  # two masks, two outputs
    book = reproduce_snippet(trace, TOKENS)
    assert "batch = torch.stack((inputs, inputs))" in book and "ca(batch)" in book
    assert torch.equal(printed_context(run_isolated(book, tmp_path)), trace.output)
    script = reproduce_snippet(trace, TOKENS, style="trace")
    assert "trace_attention(batch, cfg)" in script
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(script, "reproduce.py", "exec"), namespace)  # noqa: S102 (our own script)
    assert torch.equal(namespace["context_vecs"], trace.output)  # type: ignore[arg-type]
    assert "batch: 2 copies" in export_readme_of(trace)


def test_a_windowed_export_holds_the_trace_script_the_book_has_no_window() -> None:
    trace = book_trace(window=2)
    files = export_files(trace, TOKENS)
    assert SNIPPET_FILE_NAMES["book"] not in files
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        script = compile(files[SNIPPET_FILE_NAMES["trace"]], "reproduce.py", "exec")
        exec(script, namespace)  # noqa: S102 (our own script)
    assert torch.equal(namespace["context_vecs"], trace.output)  # type: ignore[arg-type]
    assert "sliding window: 2 tokens" in files["README.txt"]


def export_readme_of(trace: AttentionTrace) -> str:
    with zipfile.ZipFile(io.BytesIO(export_zip(trace, TOKENS))) as archive:
        return archive.read("README.txt").decode("utf-8")


def test_book_script_imports_nothing_but_torch_and_json() -> None:
    for changes in ({}, {"d_out": 4, "num_heads": 2}, {"num_heads": 2, "variant": "wrapper"}):
        tree = ast.parse(reproduce_snippet(book_trace(**changes), TOKENS))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add(str(node.module).split(".")[0])
        assert imported == {"json", "torch"}, changes
        classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        wanted = {
            1: {"CausalAttention"},
            2: {"MultiHeadAttention"}
            if changes.get("variant", "fused") == "fused"
            else {"CausalAttention", "MultiHeadAttentionWrapper"},
        }[book_trace(**changes).config.num_heads]
        assert classes == wanted, changes


def test_book_script_defines_the_class_exactly_as_the_package_does() -> None:
    tree = ast.parse(reproduce_snippet(book_trace(), TOKENS))
    (defined,) = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    package = ast.parse(inspect.getsource(CausalAttention)).body[0]
    assert ast.dump(defined) == ast.dump(package)


def test_trace_script_says_first_how_to_install_the_package(tmp_path: Path) -> None:
    trace = book_trace(dropout=0.4)
    snippet = reproduce_snippet(trace, TOKENS, style="trace")
    assert snippet != reproduce_snippet(trace, TOKENS, style="book")
    assert SNIPPET_FILE_NAMES["trace"] != SNIPPET_FILE_NAMES["book"]
    first_lines = "\n".join(snippet.splitlines()[:8])
    assert "Needs the Attention Lab package `attention`" in first_lines
    for line in PACKAGE_INSTALL:
        assert line in first_lines
    # without the package (python -I, an empty folder): the same advice, not a traceback
    completed = run_isolated(snippet, tmp_path, SNIPPET_FILE_NAMES["trace"])
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert "needs the Attention Lab package" in completed.stderr
    assert PACKAGE_INSTALL[0] in completed.stderr


def test_book_snippet_uses_the_books_recipe() -> None:
    snippet = reproduce_snippet(book_trace(dropout=0.5, training=False), TOKENS)
    for line in (
        "torch.manual_seed(seed)",
        "ca = CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)",
        "ca.eval()",
        "context_vecs = ca(inputs.unsqueeze(0))",
        "        [0.43, 0.15, 0.89],",
        "dropout = 0.5",
    ):
        assert line in snippet
    fused = reproduce_snippet(book_trace(d_out=4, num_heads=2), TOKENS)
    assert (
        "mha = MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads, qkv_bias)"
        in (fused)
    )
    with pytest.raises(ValueError, match="style"):
        reproduce_snippet(book_trace(), TOKENS, style="nope")


def test_the_zip_holds_the_backward_pass_with_exact_zeros_under_the_mask() -> None:
    """/export's zip adds d loss / d step for loss = sum, the same numbers as trace_gradients."""
    from attention.export import export_gradients, export_zip
    from attention.gradients import trace_gradients

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=123))
    gradients = export_gradients(trace)
    archive = zipfile.ZipFile(io.BytesIO(export_zip(trace, BOOK_TOKENS, None, gradients)))
    names = archive.namelist()
    assert "gradients/d_attn_scores.csv" in names and "gradients/d_W_query.csv" in names
    assert "gradients/d_mask.csv" not in names  # a mask has no gradient
    assert "gradients/d_dropout_mask.csv" not in names
    text = archive.read("gradients/d_attn_scores.csv").decode("utf-8-sig")
    rows = [row[1:] for row in list(csv.reader(io.StringIO(text)))[1:]]  # (6, 6), no labels
    expected = trace_gradients(BOOK_EMBEDDINGS, trace.config, loss="sum").attn_scores[0]
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            assert np.float32(cell) == expected[i, j].item()  # float32 text reads back exactly
            if j > i:
                assert float(cell) == 0.0  # a hidden score gets no gradient
    assert "loss = sum" in archive.read("README.txt").decode()
