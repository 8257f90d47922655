"""The page "Attention, step by step", run in the app frame with AppTest.

Every number asserted here comes from ``trace_attention`` (or, for the book's default, from the
seed document's printed output): the page must show the trace's numbers, never its own.
"""

from __future__ import annotations

import json

import torch
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, embed_words
from pages.step_by_step import MAX_CONTEXT_ROWS
from tests.apptest_support import (
    matrix_description,
    matrix_images,
    matrix_tables,
    open_step_tab,
    page_text,
    run_page,
    walk_labels,
)
from ui.i18n import t
from viz.markdown_text import escape_markdown
from viz.vocabulary import cell_texts

SEED_DOCUMENT_CONTEXT = [
    ["-0.4519", "0.2216"],
    ["-0.5874", "0.0058"],
    ["-0.6300", "-0.0632"],
    ["-0.5675", "-0.0843"],
    ["-0.5526", "-0.0981"],
    ["-0.5299", "-0.1081"],
]


def shown_context(at: AppTest) -> list[list[str]]:
    """The always-visible context table (the page's first table), as its text cells."""
    return at.table[0].value.to_numpy().tolist()


def expected_context(inputs: torch.Tensor, cfg: AttentionConfig) -> list[list[str]]:
    context = trace_attention(inputs, cfg).context[0]  # (T, d_out)
    return [[f"{v:.4f}" for v in row] for row in context.tolist()]


def edit_cells(at: AppTest, edited_rows: dict[str, dict[str, str]]) -> AppTest:
    """Send an edit of the embedding editor exactly as the browser does, then rerun.

    The browser sends a data editor's edits as one JSON string widget value (edited, added and
    deleted rows); Streamlit then calls the editor's ``on_change``. AppTest has no setter for a
    data editor, so the test adds that widget value to the states of the other widgets.
    """
    editor = at.data_editor[0]
    states = at._tree.get_widget_states()
    delta = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    states.widgets.append(WidgetState(id=editor.proto.id, string_value=json.dumps(delta)))
    return at._run(states)


def test_default_page_shows_the_seed_documents_context_vectors() -> None:
    at = run_page("step")
    assert not at.exception
    assert not at.error and not at.warning
    assert shown_context(at) == SEED_DOCUMENT_CONTEXT
    assert walk_labels(at)[0] == "1 · Embeddings" and len(walk_labels(at)) == 10
    text = page_text(at)
    assert "seed 123" in text and "d_out = 2" in text and "6 tokens" in text
    assert "Step 1 · The embedding table X" in text
    text = page_text(open_step_tab(at, "step_tabs", "mask"))
    assert "register_buffer" in text and "state_dict" in text
    assert "√d_k = 1.4142" in page_text(open_step_tab(at, "step_tabs", "scaled"))
    text = page_text(open_step_tab(at, "step_tabs", "softmax"))
    assert "Row sums, `attn_weights.sum(-1)`: 1.0000, 1.0000" in text
    open_step_tab(at, "step_tabs", "dropout")
    assert any("does nothing" in info.value and "p = 0" in info.value for info in at.info)


def test_dropout_slider_shows_the_traces_dropped_weights_and_context() -> None:
    at = open_step_tab(run_page("step"), "step_tabs", "dropout")
    at.slider(key="dropout").set_value(0.5).run()  # the dropout tab stays open
    assert not at.exception
    cfg = AttentionConfig(dropout=0.5)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    assert shown_context(at) == expected_context(BOOK_EMBEDDINGS, cfg)
    assert shown_context(at) != SEED_DOCUMENT_CONTEXT

    dropped = trace.dropped_weights[0]  # (6, 6)
    sums = dropped.sum(-1)  # (6,): rows no longer sum to 1
    keep = trace.dropout_mask[0]
    visible = ~trace.mask  # (6, 6)
    # the coloured tables are the numbers: no second table of the same numbers
    assert not [e for e in at.expander if e.label.startswith("Numbers of")]
    tables = matrix_tables(at)
    # dropout's step shows the weights before it beside the weights after it
    assert set(tables) == {
        "step_fig_dropout_mask",
        "step_fig_dropout_attn_weights",
        "step_fig_dropped_weights",
    }
    before = tables["step_fig_dropout_attn_weights"].to_numpy().tolist()
    assert before[2][:3] == [f"{w:.4f}" for w in trace.attn_weights[0, 2, :3].tolist()]
    # a future cell is masked already: "—", neither kept nor dropped
    assert tables["step_fig_dropout_mask"].to_numpy().tolist() == [
        ["—" if not seen else "✓" if kept else "✗" for kept, seen in zip(*row, strict=True)]
        for row in zip(keep.tolist(), visible.tolist(), strict=True)
    ]
    shown = tables["step_fig_dropped_weights"].to_numpy().tolist()
    for i, row in enumerate(dropped.tolist()):
        for j, value in enumerate(row):
            # a kept weight is written to 4 decimals, a dropped or future one is 0
            expected = f"{value:.4f}" if keep[i, j] and visible[i, j] else "0"
            assert shown[i][j] == expected, (i, j)
    kept = int((keep & visible).sum())
    text = page_text(at)
    assert "kept weights × 2.0" in text
    assert f"{kept} were kept and {21 - kept} dropped" in text
    assert ", ".join(f"{s:.4f}" for s in sums.tolist()) in text
    assert not any("does nothing" in info.value for info in at.info)


def test_eval_mode_says_dropout_does_nothing_and_uses_every_weight() -> None:
    at = open_step_tab(
        run_page("step", {"dropout": "0.5", "train": "false"}), "step_tabs", "dropout"
    )
    assert not at.exception
    notes = [info.value for info in at.info]
    assert any("does nothing" in note and "eval mode" in note for note in notes), notes
    assert shown_context(at) == SEED_DOCUMENT_CONTEXT  # eval: dropout is the identity
    assert "eval mode (dropout does nothing)" in page_text(at)


def test_url_settings_and_embeddings_show_the_traces_numbers() -> None:
    rows = [[0.1, -0.2, 0.3], [0.5, 0.4, -0.6], [1.5, 0.0, 0.25], [-1, 2, 0.5], [0.3, 0.3, 0.3]]
    rows.append([0.9, -0.8, 0.7])
    emb = ";".join(",".join(str(v) for v in row) for row in rows)
    at = run_page("step", {"seed": "7", "dropout": "0.5", "d_out": "3", "emb": emb})
    assert not at.exception and not at.warning
    cfg = AttentionConfig(seed=7, dropout=0.5, d_out=3)
    assert shown_context(at) == expected_context(torch.tensor(rows), cfg)
    assert at.table[0].value.columns.tolist() == ["z1", "z2", "z3"]


def test_a_bad_cell_names_the_cell_and_keeps_the_last_valid_context() -> None:
    at = run_page("step")
    edit_cells(at, {"0": {"x1": "abc"}})
    assert not at.exception
    errors = [error.value for error in at.error]
    assert len(errors) == 1
    assert "Row 1" in errors[0] and "x1" in errors[0] and "abc" in errors[0]
    assert shown_context(at) == SEED_DOCUMENT_CONTEXT  # the last valid table's numbers

    edit_cells(at, {"0": {"x1": "0.5"}})
    assert not at.error
    inputs = BOOK_EMBEDDINGS.clone()
    inputs[0, 0] = 0.5
    assert shown_context(at) == expected_context(inputs, AttentionConfig())
    assert at.query_params["emb"].startswith("0.5,0.15,0.89;")


def test_chinese_page_has_chinese_headings() -> None:
    at = run_page("step", {"lang": "zh"})
    assert not at.exception
    assert at.title[0].value == "注意力，一步一步"
    headings = [subheader.value for subheader in at.subheader]
    assert "输入：嵌入向量表 X" in headings and "输出：上下文向量" in headings
    assert "第 1 步 · 嵌入向量表 X" in headings
    assert walk_labels(at)[9] == "10 · 上下文向量"
    open_step_tab(at, "step_tabs", "mask")
    assert "第 5 步 · 因果掩码" in [subheader.value for subheader in at.subheader]
    assert "缓冲区" in page_text(at)
    open_step_tab(at, "step_tabs", "context")
    assert "第 10 步 · 上下文向量" in [subheader.value for subheader in at.subheader]
    assert shown_context(at) == SEED_DOCUMENT_CONTEXT


def test_token_labels_are_escaped_in_the_context_table() -> None:
    at = run_page("step", {"text": "**bold** [a](http://x.org) <i>z</i>"})
    assert not at.exception
    index = at.table[0].value.index.tolist()
    assert index == [escape_markdown(w) for w in ("**bold**", "[a](http://x.org)", "<i>z</i>")]
    assert all("**bold**" not in heading.value for heading in at.subheader)


def test_matrix_tables_show_markup_labels_as_typed_and_say_what_they_are() -> None:
    """The matrix tables write labels as plain text (``ui.matrix_table``): exactly as typed."""
    labels = ["**bold**", "[a](http://x.org)", "<i>z</i>"]
    at = run_page("step", {"text": " ".join(labels)})
    assert not at.exception
    table = matrix_tables(at)["step_fig_inputs"]
    assert list(table.index) == labels and list(table.columns) == ["x1", "x2", "x3"]
    assert matrix_description(at, "step_fig_inputs").endswith(
        t("show.table_alt", "en", name="", rows=3, cols=3)
    )
    assert matrix_description(at, "step_fig_inputs", legend=True).startswith("colour legend of")


def test_all_steps_toggle_puts_every_step_on_one_page() -> None:
    at = run_page("step")
    at.toggle(key="step_all").set_value(True).run()
    assert not at.exception
    assert len(walk_labels(at)) == 0
    headings = [subheader.value for subheader in at.subheader]
    assert [h for h in headings if h.startswith("Step ")] == [
        h for h in headings if h.split(" · ")[0] in {f"Step {n}" for n in range(1, 11)}
    ]
    assert sum(h.startswith("Step ") for h in headings) == 10


def test_bias_heads_and_wide_outputs_render() -> None:
    at = run_page("step", {"qkv_bias": "true", "heads": "2", "d_out": "8"})
    assert not at.exception and not at.error
    assert "number of heads (2)" in page_text(at)
    assert "qkv_bias is on" in page_text(open_step_tab(at, "step_tabs", "weights"))
    open_step_tab(at, "step_tabs", "qkv")
    assert any("b_q" in latex.value for latex in at.latex)
    cfg = AttentionConfig(qkv_bias=True, d_out=8)
    assert shown_context(at) == expected_context(BOOK_EMBEDDINGS, cfg)


def test_sixty_tokens_run_and_list_every_context_row() -> None:
    """The output box lists the first rows (cheap to redraw); step 10 has all sixty, each row's
    exact values under the pointer of its picture (too long for a table)."""
    words = " ".join(f"w{i}" for i in range(60))
    at = run_page("step", {"text": words, "dropout": "0.2"})
    assert not at.exception and not at.error
    tokens = words.split()
    trace = trace_attention(embed_words(tokens), AttentionConfig(dropout=0.2))
    expected = [[f"{v:.4f}" for v in row] for row in trace.context[0].tolist()]
    assert shown_context(at) == expected[:MAX_CONTEXT_ROWS] and MAX_CONTEXT_ROWS < 60
    assert f"The first {MAX_CONTEXT_ROWS} of 60 rows are listed; step 10 has all of them." in (
        page_text(at)
    )
    open_step_tab(at, "step_tabs", "context")
    picture = matrix_images(at)["step_fig_context"]
    assert (picture["rows"], picture["cols"], picture["block"]) == (60, 2, [1, 1])
    hover = torch.tensor(picture["hover"]["values"], dtype=torch.float64)  # (60, 2)
    assert torch.allclose(hover, trace.context[0].double(), rtol=0, atol=5e-7)  # 6 decimals


def test_only_the_open_tabs_figure_is_sent() -> None:
    at = run_page("step")
    assert set(matrix_tables(at)) == {"step_fig_inputs"}, "closed tabs draw nothing"
    assert not at.get("plotly_chart")  # a 6-token matrix is a coloured table, never also a chart
    open_step_tab(at, "step_tabs", "softmax")
    assert set(matrix_tables(at)) == {"step_fig_attn_weights"} and not at.get("plotly_chart")
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == [
        "Step 8 · Softmax: the attention weights"
    ]


def test_switching_tabs_shows_the_new_tabs_numbers() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=5))
    at = open_step_tab(run_page("step", {"seed": "5"}), "step_tabs", "softmax")
    weights = trace.attn_weights[0]  # (6, 6), each row sums to 1
    shown = matrix_tables(at)["step_fig_attn_weights"].to_numpy().tolist()
    for i, row in enumerate(weights.tolist()):
        # visible weights to 4 decimals; a future token's weight is written 0 (grey)
        assert shown[i] == [f"{v:.4f}" if j <= i else "0" for j, v in enumerate(row)]
    sums = ", ".join(f"{s:.4f}" for s in weights.sum(-1).tolist())
    assert f"Row sums, `attn_weights.sum(-1)`: {sums}" in page_text(at)
    open_step_tab(at, "step_tabs", "scores")
    assert set(matrix_tables(at)) == {"step_fig_attn_scores"}
    shown = matrix_tables(at)["step_fig_attn_scores"]  # the coloured table of the open tab
    expected = trace.attn_scores[0].double().numpy()
    assert shown.to_numpy().tolist() == cell_texts(expected, None, 4)


def test_the_books_numbers_are_claimed_only_when_compared_equal() -> None:
    """ "= the book" under the context vectors: at the book's settings (a batch of two too),
    computed by comparison; another seed, dropout acting or a window gets no such line."""
    for query in ({}, {"batch": "2"}, {"dropout": "0.5", "train": "0"}):
        text = page_text(run_page("step", query))
        assert "These are the context vectors the book prints" in text, query
    for query in ({"seed": "124"}, {"dropout": "0.5"}, {"window": "2"}):
        text = page_text(run_page("step", query))
        assert "the book prints" not in text and "book's, but" not in text, query


def test_the_books_seed_and_p_say_why_the_mask_is_not_the_books_printout() -> None:
    """Seed 123 and p = 0.5 (the sidebar's "book's rate"): the dropout step says its mask is not
    3.5.2's and by how much it differs from the bare draw; another seed says nothing of it."""
    from attention.dropout import bare_draw_differences

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    count = bare_draw_differences(trace)
    at = open_step_tab(run_page("step", {"dropout": "0.5"}), "step_tabs", "dropout")
    text = page_text(at)
    assert "Not the book's 3.5.2 printout" in text
    assert f"it differs from that bare draw in {count} of the 21 visible weights" in text
    at = open_step_tab(run_page("step", {"dropout": "0.5", "lang": "zh"}), "step_tabs", "dropout")
    assert f"21 个可见权重中有 {count} 个不同" in page_text(at)
    at = open_step_tab(run_page("step", {"dropout": "0.5", "seed": "7"}), "step_tabs", "dropout")
    assert "Not the book's 3.5.2 printout" not in page_text(at)


def test_a_row_dropped_whole_is_named_on_the_dropout_step() -> None:
    """Seed 1, p = 0.5: "starts" loses its three weights; the step says its context is 0 and
    why (0.5³ = 0.125), and the context table shows zeros in its row."""
    at = open_step_tab(run_page("step", {"seed": "1", "dropout": "0.5"}), "step_tabs", "dropout")
    text = page_text(at)
    assert "Every weight of “starts” (row 3) was dropped in this pass" in text
    assert "p³ = 0.125" in text
    assert shown_context(at)[2] == ["0.0000", "0.0000"]


def test_switching_the_language_keeps_the_open_step() -> None:
    at = open_step_tab(run_page("step"), "step_tabs", "context")
    at.selectbox(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.session_state["step_tabs"] == walk_labels(at)[9] == "10 · 上下文向量"
    assert "第 10 步" in " ".join(subheader.value for subheader in at.subheader)
    at.selectbox(key="lang").set_value("en").run()
    assert at.session_state["step_tabs"] == "10 · Context" and at.query_params["step"] == "context"
