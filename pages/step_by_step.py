"""Attention, step by step: one forward pass of ``CausalAttention``, embeddings to context vectors.

The page is the app's front door. At the top: what it shows, the current settings in words, the
whole forward pass as one formula, and the input (the editable embedding table) beside the output
(the context vectors). Below, ten steps, one per tab (or all on one page with a toggle), each with
a sentence or two that teach, the formula, a heatmap and its numbers as a table.

Every number comes from :func:`ui.state.current_trace` (one head, row 0 of a batch of one): the
page never computes attention itself. Sums shown for reading (row sums) are the trace's tensors
summed, ``attn_weights.sum(-1)``, exactly as a learner would check them in a notebook.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention import AttentionTrace
from ui.editor import embedding_editor
from ui.frame import require_frame
from ui.i18n import t
from ui.markdown_text import escape_markdown
from ui.show import show_figure, show_numbers
from ui.state import current_table, current_trace
from viz import steps
from viz.labels import unique_labels
from viz.vocabulary import (
    DECIMALS,
    context_labels,
    format_number,
    format_short,
    input_labels,
)

require_frame()

MAX_CONTEXT_ROWS = 64  # rows of the always-visible context table
SCROLLING_CONTEXT_ROWS = 10  # above this many rows the context table scrolls inside a fixed height
CONTEXT_TABLE_HEIGHT = 420  # px, about the height of the embedding editor beside it
MAX_LISTED_SUMS = 12  # row sums listed one by one up to this many rows, as a range beyond

PIPELINE_LATEX = (
    r"\text{context\_vec} = \operatorname{dropout}\!\left(\operatorname{softmax}\!\left("
    r"\frac{\operatorname{mask}\left(Q K^{\top}\right)}{\sqrt{d_k}}\right)\right) V,"
    r"\qquad Q = X W_q,\; K = X W_k,\; V = X W_v"
)


def _sums_text(sums: np.ndarray) -> str:
    return ", ".join(format_number(float(s)) for s in sums)


class StepPage:
    """The page's steps, drawn from one trace. Each ``step_*`` method draws one section."""

    def __init__(self, trace: AttentionTrace, tokens: list[str], palette: str) -> None:
        self.trace = trace
        self.tokens = tokens
        self.palette = palette
        self.num_tokens = trace.num_tokens
        self.d_out = int(trace.queries.shape[-1])
        self.hidden = steps.as_array(trace.mask)  # (T, T) bool, True = a future token
        self.query = t("step.axis.query")
        self.key = t("step.axis.key")
        self.token = t("step.axis.token")

    # --- layout helpers ----------------------------------------------------------------------

    def heading(self, number: int, **values: object) -> None:
        st.subheader(t(f"step.{number}.title"), anchor=f"step-{number}")
        st.markdown(t(f"step.{number}.body", **values))

    def numbers(
        self,
        values: np.ndarray,
        rows: list[str],
        cols: list[str],
        *,
        hidden: np.ndarray | None = None,
        name: str | None = None,
        decimals: int = DECIMALS,
    ) -> None:
        """The heatmap's numbers as a table (``show_numbers`` windows a large matrix itself)."""
        label = t("step.numbers_of", name=name) if name else None
        show_numbers(values, rows, cols, hidden=hidden, label=label, decimals=decimals)

    def three_places(self) -> list[DeltaGenerator]:
        """Three figures side by side while they are narrow (d_out ≤ 3), else one below another."""
        if self.d_out <= 3:
            return list(st.columns(3, gap="medium"))
        return [st.container() for _ in range(3)]

    def text_and_figure(
        self, draw_text: Callable[[], None], draw_figure: Callable[[], None]
    ) -> None:
        """Explanation and formula on the left, the heatmap on the right."""
        left, right = st.columns([2, 3], gap="medium")
        with left:
            draw_text()
        with right:
            draw_figure()

    # --- the ten steps -----------------------------------------------------------------------

    def step_1(self) -> None:
        trace = self.trace
        inputs = steps.batch_row(trace.inputs)  # (T, d_in)

        def text() -> None:
            self.heading(1, tokens=self.num_tokens, d_in=trace.d_in)
            st.latex(
                rf"X \in \mathbb{{R}}^{{T \times d_{{in}}}} = \mathbb{{R}}^{{{self.num_tokens}"
                rf" \times {trace.d_in}}}"
            )
            st.latex(r"x^{(i)} = X_{i,:} \in \mathbb{R}^{d_{in}}")

        def figure() -> None:
            show_figure(
                steps.embeddings_figure(
                    trace,
                    self.tokens,
                    palette=self.palette,
                    row_title=self.token,
                    col_title=t("step.axis.feature"),
                    value_name=t("step.value.embedding"),
                ),
                key="step_fig_inputs",
            )
            self.numbers(inputs, self.tokens, input_labels(trace.d_in), name="X")

        self.text_and_figure(text, figure)

    def step_2(self) -> None:
        trace = self.trace
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading(2, seed=trace.config.seed, d_out=self.d_out)
            st.caption(t("step.2.linear"))
        with formula_col:
            st.latex(
                rf"W_q, W_k, W_v \in \mathbb{{R}}^{{d_{{in}} \times d_{{out}}}} = "
                rf"\mathbb{{R}}^{{{trace.d_in} \times {self.d_out}}}"
            )
            st.code(f"torch.manual_seed({trace.config.seed})", language="python")
            st.markdown(t("step.2.bias_on" if trace.config.qkv_bias else "step.2.bias_off"))
        for column, name in zip(self.three_places(), steps.WEIGHTS, strict=True):
            bias_name, prefix = steps.WEIGHTS[name]
            with column:
                show_figure(
                    steps.weight_figure(
                        trace,
                        name,
                        palette=self.palette,
                        row_title=t("step.axis.input_feature"),
                        col_title=t("step.axis.output_feature"),
                        value_name=t("step.value.weight"),
                    ),
                    key=f"step_fig_{name}",
                )
                if getattr(trace, bias_name) is not None:
                    show_figure(
                        steps.bias_figure(
                            trace,
                            bias_name,
                            palette=self.palette,
                            col_title="",  # the weight's heatmap just above names the columns
                            value_name=t("step.value.bias"),
                        ),
                        key=f"step_fig_{bias_name}",
                    )
                weight = steps.as_array(getattr(trace, name))  # (d_in, d_out)
                self.numbers(
                    weight,
                    input_labels(trace.d_in),
                    steps.feature_labels(prefix, self.d_out),
                    name=name,
                )

    def step_3(self) -> None:
        trace = self.trace
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading(3, d_out=self.d_out)
        with formula_col:
            if trace.config.qkv_bias:
                st.latex(
                    r"\begin{aligned} Q &= X W_q + b_q \\ K &= X W_k + b_k \\"
                    r" V &= X W_v + b_v \end{aligned}"
                )
            else:
                st.latex(r"Q = X W_q,\quad K = X W_k,\quad V = X W_v")
            st.latex(
                rf"({self.num_tokens} \times {trace.d_in})\,({trace.d_in} \times {self.d_out})"
                rf" = ({self.num_tokens} \times {self.d_out})"
            )
        places = self.three_places()
        for column, (name, prefix) in zip(places, steps.PROJECTIONS.items(), strict=True):
            with column:
                show_figure(
                    steps.projection_figure(
                        trace,
                        name,
                        self.tokens,
                        palette=self.palette,
                        row_title=self.token,
                        col_title=t("step.axis.feature"),
                        value_name=t(f"step.value.{name}"),
                    ),
                    key=f"step_fig_{name}",
                )
                self.numbers(
                    steps.batch_row(getattr(trace, name)),
                    self.tokens,
                    steps.feature_labels(prefix, self.d_out),
                    name={"queries": "Q", "keys": "K", "values": "V"}[name],
                )

    def _scores_step(
        self, number: int, stage: str, formulas: tuple[str, ...], **values: object
    ) -> None:
        trace = self.trace
        hidden = None if stage == "attn_scores" else self.hidden
        value_name = t("step.value.scaled" if stage == "scaled_scores" else "step.value.score")

        def text() -> None:
            self.heading(number, **values)
            for formula in formulas:
                st.latex(formula)

        def figure() -> None:
            show_figure(
                steps.scores_figure(
                    trace,
                    stage,
                    self.tokens,
                    palette=self.palette,
                    row_title=self.query,
                    col_title=self.key,
                    value_name=value_name,
                ),
                key=f"step_fig_{stage}",
            )
            self.numbers(
                steps.batch_row(getattr(trace, stage)),
                self.tokens,
                self.tokens,
                hidden=hidden,
                name=stage,
            )

        self.text_and_figure(text, figure)

    def step_4(self) -> None:
        self._scores_step(
            4,
            "attn_scores",
            (r"\text{attn\_scores} = Q K^{\top}", r"\omega_{ij} = q^{(i)} \cdot k^{(j)}"),
        )

    def step_5(self) -> None:
        trace = self.trace

        def text() -> None:
            self.heading(5)
            st.latex(r"M = \operatorname{triu}\left(\mathbf{1}_{T \times T},\ 1\right)")
            st.latex(r"M_{ij} = 1 \iff j > i")

        def figure() -> None:
            show_figure(
                steps.causal_mask_figure(
                    trace,
                    self.tokens,
                    row_title=self.query,
                    col_title=self.key,
                    hidden_name=t("step.state.hidden"),
                    visible_name=t("step.state.visible"),
                ),
                key="step_fig_mask",
            )
            st.caption(t("step.5.legend"))
            self.numbers(
                self.hidden.astype(np.float64), self.tokens, self.tokens, name="mask", decimals=0
            )

        self.text_and_figure(text, figure)
        buffer_text, buffer_code = st.columns([3, 2], gap="medium")
        with buffer_text:
            st.markdown(t("step.5.buffer"))
        with buffer_code:
            st.code(
                "# CausalAttention.__init__\n"
                "self.register_buffer(\n"
                "    'mask',\n"
                "    torch.triu(torch.ones(context_length, context_length),\n"
                "               diagonal=1),\n"
                ")",
                language="python",
            )

    def step_6(self) -> None:
        self._scores_step(
            6,
            "masked_scores",
            (
                r"\text{masked}_{ij} = \begin{cases} \omega_{ij} & j \le i \\ -\infty & j > i"
                r"\end{cases}",
            ),
        )

    def step_7(self) -> None:
        trace = self.trace
        sqrt_dk = format_number(trace.scale)
        self._scores_step(
            7,
            "scaled_scores",
            (
                r"\text{scaled\_scores} = \frac{\text{masked\_scores}}{\sqrt{d_k}}",
                rf"d_k = {trace.d_k},\qquad \sqrt{{d_k}} = {sqrt_dk}",
            ),
            d_k=trace.d_k,
            sqrt_dk=sqrt_dk,
        )

    def _with_row_sums(self, values: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """The matrix with one more column, its row sums (read from the trace's own sum)."""
        return np.hstack([values, sums[:, None]]), [*self.tokens, t("step.row_sum")]

    def _sums_caption(self, key: str, sums: np.ndarray) -> None:
        if len(sums) <= MAX_LISTED_SUMS:
            st.caption(t(key, sums=_sums_text(sums)))
        else:
            st.caption(
                t(
                    f"{key}_range",
                    low=format_number(float(sums.min())),
                    high=format_number(float(sums.max())),
                )
            )

    def step_8(self) -> None:
        trace = self.trace
        weights = steps.batch_row(trace.attn_weights)  # (T, T)
        sums = steps.batch_row(trace.attn_weights.sum(-1, keepdim=True))[:, 0]  # (T,)

        def text() -> None:
            self.heading(8)
            st.latex(r"a_{ij} = \frac{e^{s_{ij}}}{\sum_{j' \le i} e^{s_{ij'}}}")
            st.latex(r"\textstyle\sum_j a_{ij} = 1,\qquad a = \text{attn\_weights}")
            self._sums_caption("step.8.sums", sums)

        def figure() -> None:
            show_figure(
                steps.weights_figure(
                    trace,
                    self.tokens,
                    palette=self.palette,
                    row_title=self.query,
                    col_title=self.key,
                    value_name=t("step.value.weights"),
                    hidden_name=t("step.state.masked"),
                ),
                key="step_fig_attn_weights",
            )
            values, cols = self._with_row_sums(weights, sums)
            self.numbers(values, self.tokens, cols, name="attn_weights")

        self.text_and_figure(text, figure)

    def step_9(self) -> None:
        trace = self.trace
        cfg = trace.config
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading(9)
        with formula_col:
            st.latex(r"\text{dropped}_{ij} = \frac{m_{ij}}{1 - p}\;\text{attn\_weights}_{ij}")
            st.latex(r"m_{ij} \sim \operatorname{Bernoulli}(1 - p)")
        if trace.dropout_mask is None:
            st.info(t("step.9.inactive_p0" if cfg.training else "step.9.inactive_eval"), icon="ℹ️")
            return
        keep = steps.batch_row(trace.dropout_mask).astype(bool)  # (T, T)
        visible = ~self.hidden
        kept = int((keep & visible).sum())  # counted for the caption only
        st.markdown(
            t(
                "step.9.active",
                p=format_short(cfg.dropout),
                scale=format_short(trace.dropout_scale),
                visible=int(visible.sum()),
                kept=kept,
                dropped=int(visible.sum()) - kept,
            )
        )
        dropped_weights = steps.batch_row(trace.dropped_weights)  # (T, T)
        sums = steps.batch_row(trace.dropped_weights.sum(-1, keepdim=True))[:, 0]  # (T,)
        self._sums_caption("step.9.sums", sums)
        keep_col, weights_col = st.columns(2, gap="medium")
        with keep_col:
            st.markdown(f"**{t('step.9.keep_title')}**")
            show_figure(
                steps.keep_mask_figure(
                    trace,
                    self.tokens,
                    row_title=self.query,
                    col_title=self.key,
                    kept_name=t("step.state.kept"),
                    dropped_name=t("step.state.dropped"),
                ),
                key="step_fig_dropout_mask",
            )
            self.numbers(
                keep.astype(np.float64), self.tokens, self.tokens, name="dropout_mask", decimals=0
            )
        with weights_col:
            st.markdown(f"**{t('step.9.dropped_title')}**")
            show_figure(
                steps.dropped_weights_figure(
                    trace,
                    self.tokens,
                    palette=self.palette,
                    row_title=self.query,
                    col_title=self.key,
                    value_name=t("step.value.dropped"),
                    hidden_name=t("step.state.masked"),
                    dropped_name=t("step.state.dropped"),
                ),
                key="step_fig_dropped_weights",
            )
            values, cols = self._with_row_sums(dropped_weights, sums)
            self.numbers(values, self.tokens, cols, name="dropped_weights")

    def step_10(self) -> None:
        trace = self.trace

        def text() -> None:
            self.heading(10, d_out=self.d_out)
            st.latex(r"\text{context\_vec} = \text{dropped\_weights}\; V")
            st.latex(r"z^{(i)} = \textstyle\sum_{j \le i} a_{ij}\, v^{(j)}")

        def figure() -> None:
            show_figure(
                steps.context_figure(
                    trace,
                    self.tokens,
                    palette=self.palette,
                    row_title=self.token,
                    col_title=t("step.axis.feature"),
                    value_name=t("step.value.context"),
                ),
                key="step_fig_context",
            )
            self.numbers(
                steps.batch_row(trace.context),
                self.tokens,
                context_labels(self.d_out),
                name="context_vec",
            )

        self.text_and_figure(text, figure)

    def all_steps(self) -> list[Callable[[], None]]:
        return [getattr(self, f"step_{number}") for number in range(1, 11)]


def context_table(trace: AttentionTrace, tokens: list[str]) -> pd.DataFrame:
    """The context vectors as text (``DECIMALS`` decimals, ASCII minus), one row per token.

    ``st.table`` renders Markdown in every cell, index included, so the token labels are escaped.
    """
    context = steps.batch_row(trace.context)[:MAX_CONTEXT_ROWS]  # (≤ 64, d_out)
    rows = [[format_number(float(v)) for v in row] for row in context]
    labels = [escape_markdown(label) for label in unique_labels(tokens)[:MAX_CONTEXT_ROWS]]
    return pd.DataFrame(rows, index=labels, columns=context_labels(context.shape[1]))


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
    )


def render() -> None:
    """Draw the page."""
    st.title(t("page.step.title"))
    st.markdown(t("step.intro"))
    trace = current_trace()  # cached; shows the reason and returns None if it cannot be computed
    tokens = list(current_table().tokens)
    if trace is not None:
        st.markdown(settings_line(trace))
        heads = int(st.session_state.get("heads", 1))
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

    page = StepPage(trace, tokens, st.session_state.get("palette", "default"))
    st.divider()
    show_all = st.toggle(t("step.all_toggle"), key="step_all", help=t("step.all_toggle_help"))
    if show_all:
        for draw in page.all_steps():
            with st.container(border=True):
                draw()
    else:
        tabs = st.tabs([t(f"step.tab.{number}") for number in range(1, 11)])
        for tab, draw in zip(tabs, page.all_steps(), strict=True):
            with tab:
                draw()


render()
