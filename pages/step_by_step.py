"""Attention, step by step: one forward pass of ``CausalAttention``, embeddings to context vectors.

The page is the app's front door. At the top: what it shows, the current settings in words, the
whole forward pass as one formula, and the input (the editable embedding table) beside the output
(the context vectors). Below, ten steps, one per tab (or all on one page with a toggle), each with
a sentence or two that teach, the formula, a heatmap and its numbers as a table.

Every number comes from :meth:`ui.view.View.trace` (one head, row 0 of a batch of one): the
page never computes attention itself. Sums shown for reading (row sums) are the trace's tensors
summed, ``attn_weights.sum(-1)``, exactly as a learner would check them in a notebook.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention import AttentionTrace
from ui.editor import embedding_editor
from ui.frame import page
from ui.i18n import t
from ui.step_view import StepPage, brief_number, show_steps
from ui.view import View
from viz import steps
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.vocabulary import context_labels, format_number

# Rows of the always-visible context table: Streamlit renders every table cell as Markdown on
# every rerun, so a long table slows each click (benchmarks/README.md, "Long sequences");
# step 10 has every row.
MAX_CONTEXT_ROWS = 16
SCROLLING_CONTEXT_ROWS = 10  # above this many rows the context table scrolls inside a fixed height
CONTEXT_TABLE_HEIGHT = 420  # px, about the height of the embedding editor beside it

PIPELINE_LATEX = (
    r"\text{context\_vec} = \operatorname{dropout}\!\left(\operatorname{softmax}\!\left("
    r"\frac{\operatorname{mask}\left(Q K^{\top}\right)}{\sqrt{d_k}}\right)\right) V,"
    r"\qquad Q = X W_q,\; K = X W_k,\; V = X W_v"
)


def context_table(trace: AttentionTrace, tokens: list[str]) -> pd.DataFrame:
    """The context vectors as text (``DECIMALS`` decimals, ASCII minus), one row per token.

    ``st.table`` renders Markdown in every cell, index included, so the token labels are escaped.
    """
    context = steps.batch_row(trace.context)[:MAX_CONTEXT_ROWS]  # (≤ 16, d_out)
    rows = [[format_number(float(v)) for v in row] for row in context]
    labels = [escape_markdown(label) for label in unique_labels(tokens)[:MAX_CONTEXT_ROWS]]
    return pd.DataFrame(rows, index=labels, columns=context_labels(context.shape[1]))


def settings_line(trace: AttentionTrace) -> str:
    cfg = trace.config
    return t(
        "step.settings",
        seed=cfg.seed,
        p=brief_number(cfg.dropout),
        mode=t("step.mode.train" if cfg.training else "step.mode.eval"),
        dropout_state=t(
            "step.dropout_state.on" if trace.dropout_active else "step.dropout_state.off"
        ),
        d_out=int(trace.queries.shape[-1]),
        tokens=trace.num_tokens,
        d_in=trace.d_in,
    )


@page
def render(view: View) -> None:
    """Draw the page."""
    st.title(t("page.step.title"))
    st.markdown(t("step.intro"))
    trace = view.trace()  # cached; shows the reason and returns None if it cannot be computed
    tokens = list(view.table.tokens)
    if trace is not None:
        st.markdown(settings_line(trace))
        heads = view.heads
        if heads > 1:
            st.caption(t("step.heads_note", heads=heads))
    st.latex(PIPELINE_LATEX)
    st.caption(t("step.pipeline"))

    input_col, output_col = st.columns([5, 4], gap="large")
    with input_col:
        st.subheader(t("step.input.title"), anchor="input")
        st.caption(t("step.input.caption"))
        embedding_editor("step")
    with output_col:
        st.subheader(t("step.output.title"), anchor="output")
        if trace is not None:
            d_out = int(trace.context.shape[-1])
            st.caption(t("step.output.caption", tokens=trace.num_tokens, d_out=d_out))
            scrolls = trace.num_tokens > SCROLLING_CONTEXT_ROWS  # beside the editor, not below it
            st.table(
                context_table(trace, tokens), height=CONTEXT_TABLE_HEIGHT if scrolls else "content"
            )
            if trace.num_tokens > MAX_CONTEXT_ROWS:
                st.caption(
                    t("step.output.truncated", shown=MAX_CONTEXT_ROWS, tokens=trace.num_tokens)
                )
    if trace is None:
        return

    page = StepPage(trace, tokens, view.palette)
    st.divider()
    show_steps(page, key="step_tabs", all_toggle="step_all")
