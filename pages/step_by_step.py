"""Attention, step by step: one forward pass of ``CausalAttention``, embeddings to context vectors.

The app's front door: the settings in words, the pass as one formula, the editable input beside
the output, then ten steps (tabs, or all on one page) each with its sentences, formula, heatmap
and numbers. Every number comes from :meth:`ui.view.View.trace`; row sums are the trace's
tensors summed, as a learner would check them in a notebook.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
import torch

from attention import AttentionTrace
from attention.book_outputs import book_comparison
from attention.differences import OutputChange, output_change
from ui.editor import embedding_editor
from ui.frame import page
from ui.i18n import t
from ui.sidebar import phone_dropout_presets
from ui.step_view import StepDrawing, step_walk
from ui.view import View
from ui.walk import begin, present, show_walk
from viz import steps
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.screens import shape_text
from viz.vocabulary import context_labels, format_number, format_short

# Rows of the always-visible context table: Streamlit renders every table cell as Markdown on
# every rerun, so a long table slows each click (benchmarks/README.md, "Long sequences");
# step 10 has every row.
MAX_CONTEXT_ROWS = 16
SCROLLING_CONTEXT_ROWS = 10  # above this many rows the context table scrolls inside a fixed height
CONTEXT_TABLE_HEIGHT = 420  # px, about the height of the embedding editor beside it
LAST_OUTPUT_KEY = "step_last_output"  # (inputs, context) of the forward pass drawn last
LAST_CHANGE_KEY = "step_last_change"  # the OutputChange of the last edit or setting change

PIPELINE_LATEX = (
    r"\text{context\_vec} = \operatorname{dropout}\!\left(\operatorname{softmax}\!\left("
    r"\frac{\operatorname{mask}\left(Q K^{\top}\right)}{\sqrt{d_k}}\right)\right) V,"
    r"\qquad Q = X W_q,\; K = X W_k,\; V = X W_v"
)


def settings_words(trace: AttentionTrace) -> str:
    """The batch (and the window, when on) for the settings line."""
    words = t("batchwin.settings", batch=int(trace.inputs.shape[0]))
    window = trace.config.window
    if window is not None:
        key = "batchwin.settings_window_one" if window == 1 else "batchwin.settings_window"
        words += " · " + t(key, window=window)
    return words


def context_table(
    trace: AttentionTrace, tokens: list[str], changed: tuple[bool, ...] | None = None
) -> pd.DataFrame:
    """The context vectors as text (``DECIMALS`` decimals, ASCII minus), one row per token.

    ``st.table`` renders Markdown in every cell, index included, so the token labels are escaped.
    ``changed``: rows the last change moved get a mark ● before their token.
    """
    context = steps.batch_row(trace.context)[:MAX_CONTEXT_ROWS]  # (≤ 16, d_out)
    rows = [[format_number(float(v)) for v in row] for row in context]
    labels = [escape_markdown(label) for label in unique_labels(tokens)[:MAX_CONTEXT_ROWS]]
    if changed is not None and any(changed):
        mark = t("step.change.mark")
        labels = [
            f"{mark} {label}" if c else label
            for label, c in zip(labels, changed[:MAX_CONTEXT_ROWS], strict=True)
        ]
    return pd.DataFrame(rows, index=labels, columns=context_labels(context.shape[1]))


def remember_change(trace: AttentionTrace) -> OutputChange | None:
    """The change the last edit or setting made to the context vectors (kept until the next one),
    from the inputs and context vectors drawn last (:func:`attention.differences.output_change`).
    """
    inputs, context = trace.inputs[0], trace.context[0]  # (T, d_in), (T, d_out)
    last = st.session_state.get(LAST_OUTPUT_KEY)
    if last is not None and not (torch.equal(last[0], inputs) and torch.equal(last[1], context)):
        st.session_state[LAST_CHANGE_KEY] = output_change(last[0], last[1], inputs, context)
    elif last is not None and last[0].shape != inputs.shape:
        st.session_state[LAST_CHANGE_KEY] = None
    st.session_state[LAST_OUTPUT_KEY] = (inputs, context)
    return st.session_state.get(LAST_CHANGE_KEY)


def change_sentence(change: OutputChange, tokens: list[str]) -> str:
    """What the last change did, and why earlier rows cannot move when a token was edited."""
    labels = unique_labels(tokens)
    moved = ", ".join(
        f"“{escape_markdown(labels[i])}”" for i, c in enumerate(change.changed_rows) if c
    )
    if change.count == 0:
        return t("step.change.none")
    if change.first_edited_row is None:
        return t("step.change.setting", count=change.count, tokens=len(tokens), rows=moved)
    edited = change.first_edited_row
    return t(
        "step.change.edit", token=escape_markdown(labels[edited]), number=edited + 1, rows=moved
    )


def settings_line(trace: AttentionTrace) -> str:
    cfg = trace.config
    return t(
        "step.settings",
        seed=cfg.seed,
        p=format_short(cfg.dropout),
        mode=t("step.mode.train" if cfg.training else "step.mode.eval"),
        dropout_state=t(
            "step.dropout_state.on" if trace.dropout_active else "step.dropout_state.off"
        ),
        d_out=int(trace.queries.shape[-1]),
        tokens=trace.num_tokens,
        d_in=trace.d_in,
        batch=settings_words(trace),
    )


STEP_WALK = step_walk("step", "step_tabs", all_key="step_all")


@page
def render(view: View) -> None:
    """Draw the page."""
    if begin(STEP_WALK):  # presenter mode: the open step alone, one screen at a time
        trace = view.trace()
        if trace is not None:
            present(STEP_WALK, StepDrawing(trace, view.tokens, view.palette, present=True))
        return
    st.title(t("page.step.title"))
    st.markdown(t("step.intro"))
    trace = view.trace()  # cached; shows the reason and returns None if it cannot be computed
    tokens = list(view.table.tokens)
    if trace is not None:
        st.markdown(settings_line(trace))
        heads = view.heads
        if heads > 1:
            st.caption(t("step.heads_note", heads=heads))
    phone_dropout_presets()  # a phone's sidebar covers the page: p is changed here too
    st.latex(PIPELINE_LATEX)
    st.caption(t("step.pipeline"))

    input_col, output_col = st.columns([5, 4], gap="large")
    with input_col:
        st.subheader(t("step.input.title"), anchor="input")
        st.caption(t("step.input.caption"))
        embedding_editor("step")
    with output_col:
        show_output(trace, tokens)
    if trace is None:
        return
    st.divider()
    show_walk(STEP_WALK, StepDrawing(trace, tokens, view.palette))


def show_output(trace: AttentionTrace | None, tokens: list[str]) -> None:
    """The context vectors beside the input, with the rows the last change moved marked."""
    st.subheader(t("step.output.title"), anchor="output")
    if trace is None:
        return
    d_out = int(trace.context.shape[-1])
    st.caption(t("step.output.caption", shape=shape_text(trace.context), d_out=d_out))
    scrolls = trace.num_tokens > SCROLLING_CONTEXT_ROWS  # beside the editor, not below it
    change = remember_change(trace)
    with st.container(key="step_output_table"):
        st.table(
            context_table(trace, tokens, change.changed_rows if change else None),
            height=CONTEXT_TABLE_HEIGHT if scrolls else "content",
        )
    if change is not None:
        st.caption(change_sentence(change, tokens))
    if trace.num_tokens > MAX_CONTEXT_ROWS:
        st.caption(t("step.output.truncated", shown=MAX_CONTEXT_ROWS, tokens=trace.num_tokens))
    book = book_comparison(trace)  # None unless these are the book's settings and embeddings
    if book is not None and book.passed:
        st.caption(t("step.output.book", difference=book.max_abs_difference))
    elif book is not None:
        st.caption(t("step.output.not_book", difference=book.max_abs_difference))
