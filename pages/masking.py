"""Masking two ways: the book's two causal masks (section 3.5), side by side, stage by stage.

Both methods run in :func:`attention.masking.compare_masking` on the trace's raw scores; this page
draws what it returns: method 1 (softmax over all keys, ``* tril``, renormalize), method 2
(``masked_fill(-inf)``, softmax), and their largest difference (rounding, not leakage).

:data:`STAGES` is a table: each entry names its tab, its sentence (``masking.{tab}.{name}``), its
formula and the tensor it shows and how. The tabs are a walk (:data:`WALK`): ``?step=scores|
method1|method2`` in the link, one stage per screen in presenter mode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from attention import AttentionTrace
from attention.book_outputs import masking_comparison
from attention.masking import MaskingComparison, compare_masking
from ui.book_examples import BOOK_EXAMPLES, show_book_example
from ui.frame import page
from ui.i18n import t
from ui.show import figure_words, show_matrix
from ui.view import View
from ui.walk import Entry, Walk, begin, present, show_walk
from viz.matrix import MatrixView
from viz.vocabulary import format_difference, format_short

TABS = ("scores", "method1", "method2")  # masking.tab.{name}; only the open one runs


@dataclass(frozen=True)
class Stage:
    """One stage of a masking method, as the page shows it.

    ``tab`` and ``name``: where it is and its sentence, ``masking.{tab}.{name}``. ``formula``: its
    LaTeX. ``tensor``: the (T, T) (or (T, 1)) matrix it shows, from the comparison. ``kind`` and
    ``weights``: the colour scale, on [0, 1] for weights. ``value``: the cell's name
    (``masking.value.{value}``). ``hidden``: the −∞ cells greyed. ``row_sums``: one column of row
    sums, narrow.
    """

    tab: str
    name: str
    key: str
    formula: str
    tensor: Callable[[MaskingComparison], torch.Tensor]
    kind: str = "sequential"
    value: str = "weight"
    hidden: bool = False
    row_sums: bool = False

    @property
    def weights(self) -> bool:
        return self.value in ("weight", "row_sum")


STAGES: tuple[Stage, ...] = (
    Stage(
        "scores",
        "text",
        "scores",
        r"\omega_{ij} = q_i \cdot k_j \;\longrightarrow\; \frac{\omega_{ij}}{\sqrt{d_k}}",
        lambda c: c.attn_scores,
        kind="diverging",
        value="score",
    ),
    Stage(
        "method1",
        "step1",
        "unmasked",
        r"A_{ij} = \frac{e^{\omega_{ij}/\sqrt{d_k}}}{\sum_{k=1}^{T} e^{\omega_{ik}/\sqrt{d_k}}}",
        lambda c: c.after_softmax["unmasked_weights"],
    ),
    Stage(
        "method1",
        "step2",
        "zeroed",
        r"\tilde A = A \odot \operatorname{tril}(\mathbf{1}_{T \times T})",
        lambda c: c.after_softmax["masked_simple"],
    ),
    Stage(
        "method1",
        "step3",
        "row_sums",
        r"r_i = \sum_{j \le i} \tilde A_{ij} \;\le\; 1",
        lambda c: c.after_softmax["row_sums"],  # (T, 1)
        value="row_sum",
        row_sums=True,
    ),
    Stage(
        "method1",
        "step4",
        "method1",
        r"\hat A_{ij} = \frac{\tilde A_{ij}}{r_i}",
        lambda c: c.after_softmax["attn_weights"],
    ),
    Stage(
        "method2",
        "step1",
        "neg_inf",
        r"\omega_{ij} \leftarrow -\infty \qquad (j > i)",
        lambda c: c.neg_inf["masked_scores"],
        kind="diverging",
        value="score",
        hidden=True,
    ),
    Stage(
        "method2",
        "step2",
        "method2",
        r"\begin{gathered}\hat A_{ij} = \frac{e^{\omega_{ij}/\sqrt{d_k}}}"
        r"{\sum_{k \le i} e^{\omega_{ik}/\sqrt{d_k}} + \sum_{k > i} e^{-\infty}} \\"
        r"e^{-\infty} = 0\end{gathered}",
        lambda c: c.neg_inf["attn_weights"],
    ),
)


def stage_matrix(stage: Stage, values: np.ndarray, trace: AttentionTrace, view: View) -> None:
    """One stage's matrix as an annotated heatmap (rows = queries, columns = keys)."""
    tokens = tuple(view.table.tokens)
    matrix = MatrixView(
        values=values,
        row_labels=tokens,
        col_labels=(t("masking.col.row_sum"),) if stage.row_sums else tokens,
        kind=stage.kind,
        palette=view.palette,
        hidden=trace.mask.numpy() if stage.hidden else None,  # (T, T) True above the diagonal
        zrange=(0.0, 1.0) if stage.weights else None,
        row_title=t("step.axis.query"),
        col_title="" if stage.row_sums else t("step.axis.key"),
        value_name=t(f"masking.value.{stage.value}"),
        colour_bar=not stage.row_sums,  # the numbers say it all in a narrow column
    )
    show_matrix(matrix, figure_words(), key=f"masking_{stage.key}")


def show_stage(
    stage: Stage,
    comparison: MaskingComparison,
    trace: AttentionTrace,
    view: View,
    *,
    beside: bool = False,
) -> None:
    """One stage: its sentence and formula, and its matrix.

    ``beside``: the words to the right of the matrix (a tab of one stage, or a narrow column of
    row sums), else above it.
    """
    values = stage.tensor(comparison).numpy()
    sentence = t(
        f"masking.{stage.tab}.{stage.name}", d_k=trace.d_k, scale=format_short(trace.scale)
    )
    beside = beside or stage.row_sums
    if beside:
        widths, gap = ([2, 3], "small") if stage.row_sums else ([3, 2], "large")
        matrix_column, text_column = st.columns(widths, gap=gap)
    else:
        matrix_column = text_column = st.container()
    with text_column:
        st.markdown(sentence)
        st.latex(stage.formula)
    with matrix_column:
        stage_matrix(stage, values, trace, view)


def show_tab(name: str, comparison: MaskingComparison, trace: AttentionTrace, view: View) -> None:
    """A tab's stages: one beside its words, or two to a row; method 2 ends with why it works."""
    st.subheader(t(f"masking.{name}.header"))
    stages = [stage for stage in STAGES if stage.tab == name]
    if len(stages) == 1:
        show_stage(stages[0], comparison, trace, view, beside=True)
    else:
        for start in range(0, len(stages), 2):
            pair = stages[start : start + 2]
            for column, stage in zip(st.columns(2, gap="large"), pair, strict=False):
                with column:
                    show_stage(stage, comparison, trace, view)
    if name == "method2":
        st.info(t("masking.method2.why"))


def show_comparison(comparison: MaskingComparison) -> None:
    """How far apart the two methods are, and why the difference is rounding, not leakage."""
    st.divider()
    st.subheader(t("masking.compare.header"))
    metric_column, metric_text = st.columns([1, 2], gap="large")
    difference = comparison.max_abs_difference
    with metric_column:
        st.metric(
            t("masking.compare.metric"),
            format_difference(difference),
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


@dataclass(frozen=True)
class Masking:
    """What every tab reads: the two methods' results, the trace they start from, the view."""

    comparison: MaskingComparison
    trace: AttentionTrace
    view: View


def _stage_screen(stage: Stage) -> Callable[[Masking], None]:
    """Presenter mode: one stage per screen, its words beside its matrix."""

    def draw(masking: Masking) -> None:
        st.subheader(t(f"masking.{stage.tab}.header"), anchor=False)
        show_stage(stage, masking.comparison, masking.trace, masking.view, beside=True)

    return draw


def _why_method2(masking: Masking) -> None:
    """Presenter mode's last screen of method 2: why the book prefers it."""
    del masking
    st.subheader(t("masking.method2.header"), anchor=False)
    st.info(t("masking.method2.why"))


def _tab_entry(name: str) -> Entry[Masking]:
    stages = [stage for stage in STAGES if stage.tab == name]
    screens = tuple(_stage_screen(stage) for stage in stages)
    if name == "method2":
        screens = (*screens, _why_method2)
    return Entry(
        name,
        lambda: t(f"masking.tab.{name}"),
        lambda m: show_tab(name, m.comparison, m.trace, m.view),
        parts=lambda m: screens,
    )


WALK: Walk[Masking] = Walk(
    page="masking", entries=tuple(_tab_entry(name) for name in TABS), tabs_key="masking_stage"
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    trace = view.trace()  # one CausalAttention head: attn_scores (1, T, T)
    if trace is None:
        st.stop()
    # (T, T): raw q_i · k_j, nothing hidden yet
    masking = Masking(compare_masking(trace.attn_scores[0], trace.d_k), trace, view)
    if presenting:
        present(WALK, masking)
        return
    st.title(t("page.masking.title"))
    st.markdown(t("masking.intro"))
    # the book's 3.5.1 rows, compared now: None unless this run is the book's (seed 789, …)
    check = masking_comparison(trace, masking.comparison.neg_inf["attn_weights"])
    show_book_example(
        BOOK_EXAMPLES["masking"], view, None if check is None else check.max_abs_difference
    )
    show_walk(WALK, masking)  # only the open tab runs and sends its matrices
    show_comparison(masking.comparison)
