"""Masking two ways: the book's two causal masks (section 3.5), side by side, stage by stage.

Both methods run in :func:`attention.masking.compare_masking` on the current trace's raw scores
``trace.attn_scores[0]`` (``(T, T)``, one head, before any mask) with ``trace.d_k``; this page only
draws what it returns:

- method 1: ``softmax(ω / √d_k)`` over all keys → ``* torch.tril(ones)`` → row sums → divide;
- method 2: ``masked_fill(mask, -inf)`` → ``softmax(· / √d_k)``;

then the largest absolute difference between the two and why it is rounding, not leakage.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention.masking import compare_masking
from ui.frame import page
from ui.i18n import t
from ui.show import figure_words, show_matrix, show_numbers
from ui.view import View
from viz.matrix import MatrixView
from viz.vocabulary import format_short

STAGE_TABS = ("masking.tab.scores", "masking.tab.method1", "masking.tab.method2")


@page
def render(view: View) -> None:
    st.title(t("page.masking.title"))
    st.markdown(t("masking.intro"))

    trace = view.trace()  # one CausalAttention head: attn_scores (1, T, T)
    if trace is None:
        st.stop()

    attn_scores = trace.attn_scores[0]  # (T, T): raw q_i · k_j, nothing hidden yet
    comparison = compare_masking(attn_scores, trace.d_k)
    method1 = comparison.after_softmax
    method2 = comparison.neg_inf

    tokens = list(view.table.tokens)
    palette = view.palette
    hidden = trace.mask.numpy()  # (T, T) bool, the book's mask: True above the diagonal
    query_title, key_title = t("masking.axis.query"), t("masking.axis.key")

    def heatmap(
        values: np.ndarray,
        key: str,
        *,
        kind: str,
        value_name: str,
        zrange: tuple[float, float] | None = None,
        hidden: np.ndarray | None = None,
        col_labels: list[str] | None = None,
        col_title: str | None = None,
        colour_bar: bool = True,
    ) -> None:
        """One stage as an annotated heatmap (rows = queries, columns = keys unless told)."""
        matrix = MatrixView(
            values=values,
            row_labels=tuple(tokens),
            col_labels=tuple(tokens if col_labels is None else col_labels),
            kind=kind,
            palette=palette,
            hidden=hidden,
            zrange=zrange,
            row_title=query_title,
            col_title=key_title if col_title is None else col_title,
            value_name=value_name,
            colour_bar=colour_bar,
        )
        show_matrix(matrix, figure_words(), key=f"masking_{key}")

    weight_name = t("masking.value.weight")

    # --- the stages, one lazy tab each ------------------------------------------------------
    # Only the open tab runs and sends its heatmaps (``on_change="rerun"`` + ``.open``): a seed
    # change redraws one to four heatmaps instead of seven (benchmarks/README.md, "After issue 9").
    scores_tab, method1_tab, method2_tab = st.tabs(
        [t(key) for key in STAGE_TABS], key="masking_stage", on_change="rerun"
    )
    if scores_tab.open:
        with scores_tab:
            st.subheader(t("masking.scores.header"))
            scores_column, scores_text = st.columns([3, 2], gap="large")
            with scores_column:
                heatmap(
                    attn_scores.numpy(),
                    kind="diverging",
                    value_name=t("masking.value.score"),
                    key="scores",
                )
            with scores_text:
                st.markdown(
                    t("masking.scores.text", d_k=trace.d_k, scale=format_short(trace.scale))
                )
                st.latex(
                    r"\omega_{ij} = q_i \cdot k_j \;\longrightarrow\; \frac{\omega_{ij}}{\sqrt{d_k}}"
                )
                show_numbers(
                    attn_scores.numpy(),
                    tokens,
                    tokens,
                    key="masking_numbers_scores",
                    label=t("masking.numbers.scores"),
                )
    if method1_tab.open:
        with method1_tab:
            st.subheader(t("masking.method1.header"))
            step1, step2 = st.columns(2, gap="large")
            with step1:
                st.markdown(t("masking.method1.step1"))
                st.latex(
                    r"A_{ij} = \frac{e^{\omega_{ij}/\sqrt{d_k}}}{\sum_{k=1}^{T} e^{\omega_{ik}/\sqrt{d_k}}}"
                )
                heatmap(
                    method1["unmasked_weights"].numpy(),
                    kind="sequential",
                    value_name=weight_name,
                    zrange=(0.0, 1.0),
                    key="unmasked",
                )
            with step2:
                st.markdown(t("masking.method1.step2"))
                st.latex(r"\tilde A = A \odot \operatorname{tril}(\mathbf{1}_{T \times T})")
                heatmap(
                    method1["masked_simple"].numpy(),
                    kind="sequential",
                    value_name=weight_name,
                    zrange=(0.0, 1.0),
                    key="zeroed",
                )
            step3, step4 = st.columns(2, gap="large")
            with step3:
                sums_figure, sums_text = st.columns([2, 3])
                with sums_text:
                    st.markdown(t("masking.method1.step3"))
                    st.latex(r"r_i = \sum_{j \le i} \tilde A_{ij} \;\le\; 1")
                with sums_figure:
                    heatmap(
                        method1["row_sums"].numpy(),  # (T, 1)
                        kind="sequential",
                        value_name=t("masking.value.row_sum"),
                        zrange=(0.0, 1.0),
                        col_labels=[t("masking.col.row_sum")],
                        col_title="",
                        colour_bar=False,  # the numbers say it all; a bar would crowd the narrow column
                        key="row_sums",
                    )
            with step4:
                st.markdown(t("masking.method1.step4"))
                st.latex(r"\hat A_{ij} = \frac{\tilde A_{ij}}{r_i}")
                heatmap(
                    method1["attn_weights"].numpy(),
                    kind="sequential",
                    value_name=weight_name,
                    zrange=(0.0, 1.0),
                    key="method1",
                )
                show_numbers(
                    method1["attn_weights"].numpy(),
                    tokens,
                    tokens,
                    key="masking_numbers_method1",
                    beside_matrix=True,
                    label=t("masking.numbers.method1"),
                )
    if method2_tab.open:
        with method2_tab:
            st.subheader(t("masking.method2.header"))
            step1, step2 = st.columns(2, gap="large")
            with step1:
                st.markdown(t("masking.method2.step1"))
                st.latex(r"\omega_{ij} \leftarrow -\infty \qquad (j > i)")
                heatmap(
                    method2["masked_scores"].numpy(),
                    kind="diverging",
                    value_name=t("masking.value.score"),
                    hidden=hidden,
                    key="neg_inf",
                )
            with step2:
                st.markdown(t("masking.method2.step2"))
                st.latex(
                    r"\hat A_{ij} = \frac{e^{\omega_{ij}/\sqrt{d_k}}}"
                    r"{\sum_{k \le i} e^{\omega_{ik}/\sqrt{d_k}} + \sum_{k > i} e^{-\infty}},"
                    r"\qquad e^{-\infty} = 0"
                )
                heatmap(
                    method2["attn_weights"].numpy(),
                    kind="sequential",
                    value_name=weight_name,
                    zrange=(0.0, 1.0),
                    key="method2",
                )
                show_numbers(
                    method2["attn_weights"].numpy(),
                    tokens,
                    tokens,
                    key="masking_numbers_method2",
                    beside_matrix=True,
                    label=t("masking.numbers.method2"),
                )
            st.info(t("masking.method2.why"))

    # --- how far apart, and why that is not leakage ---------------------------------------------------
    st.divider()
    st.subheader(t("masking.compare.header"))
    metric_column, metric_text = st.columns([1, 2], gap="large")
    difference = comparison.max_abs_difference
    with metric_column:
        st.metric(
            t("masking.compare.metric"),
            f"{difference:.2e}",
            help=t("masking.compare.metric_help", exact=repr(difference)),
        )
    with metric_text:
        st.markdown(t("masking.compare.text"))

    st.subheader(t("masking.leak.header"))
    st.markdown(t("masking.leak.before"))
    st.latex(
        r"\frac{A_{ij}}{\sum_{k \le i} A_{ik}}"
        r" = \frac{e^{\omega_{ij}/\sqrt{d_k}} \,/\, \sum_{k=1}^{T} e^{\omega_{ik}/\sqrt{d_k}}}"
        r"{\sum_{k \le i} e^{\omega_{ik}/\sqrt{d_k}} \,/\, \sum_{k=1}^{T} e^{\omega_{ik}/\sqrt{d_k}}}"
        r" = \frac{e^{\omega_{ij}/\sqrt{d_k}}}{\sum_{k \le i} e^{\omega_{ik}/\sqrt{d_k}}}"
    )
    st.markdown(t("masking.leak.after"))
