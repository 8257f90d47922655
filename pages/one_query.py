"""One query, by hand: the row of one query through the layer, every number written out.

Results are the trace's numbers; the steps in between (products, exps, weighted values) come from
:mod:`attention.one_query`. LaTeX gets only numbers and positions; token labels are plain text.
:data:`HAND_STEPS` is a table of the steps (title ``one_query.{name}``, formula, sentences) drawn
by one loop, then the row as a table and the context vector beside its picture. They are a walk
(:data:`WALK`): ``?step=softmax`` in the link, one per screen in presenter mode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import pandas as pd
import streamlit as st
import torch

from attention import AttentionTrace
from attention.dropout import dropout_counts
from attention.one_query import (
    SoftmaxByHand,
    dot_product_terms,
    softmax_by_hand,
    weighted_value_terms,
)
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.matrix_table import draw_table
from ui.view import View
from ui.walk import Entry, Walk, begin, present, show_walk
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.one_query import (
    context_latex,
    dot_product_latex,
    dropout_latex,
    number,
    scale_latex,
    score_row_latex,
    softmax_latex,
    value_vectors_chart,
    vectors_latex,
    weights_bar_chart,
)
from viz.table_heatmap import text_table
from viz.vocabulary import format_short

QUERY_KEY = "one_query_query"
ROW_TABLE_KEY = "one_query_row"  # the row table component's key (``ui.matrix_table.draw_table``)
KEY_KEY = "one_query_key"
MAX_STATIC_ROWS = 40  # longer rows are shown in a scrollable data frame instead of a table
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(position: int) -> str:
    """``12`` → ``¹²`` (for captions such as q⁽¹²⁾)."""
    return str(position).translate(SUPERSCRIPT)


def text_number(value: float) -> str:
    """A number for a table cell (``DECIMALS`` decimals), with a real minus sign."""
    return number(value).replace("-", "−")


def figure_texts() -> dict[str, str]:
    """The translated words of the figures."""
    names = (
        "value",
        "masked",
        "context",
        "path",
        "weight",
        "before",
        "after",
        "key",
        "x_axis",
        "y_axis",
    )
    return {name: t(f"one_query.fig_{name}") for name in names}


@dataclass(frozen=True)
class QueryRow:
    """Query ``i``'s row of the trace and the chosen key ``j``: what every step reads.

    ``qp``/``kp``: the positions as the book counts them (from 1).
    """

    trace: AttentionTrace
    tokens: list[str]
    labels: list[str]
    i: int
    j: int

    @property
    def qp(self) -> int:
        return self.i + 1

    @property
    def kp(self) -> int:
        return self.j + 1

    def row(self, name: str) -> torch.Tensor:
        """Query i's row of a (T, T) step of the trace (``masked_scores``, ``attn_weights`` …)."""
        return getattr(self.trace, name)[0, self.i]  # (T,)

    @property
    def hidden(self) -> list[bool]:
        """True for the keys after query i (the causal mask)."""
        return [bool(h) for h in self.trace.mask[self.i]]

    @property
    def keep(self) -> torch.Tensor | None:
        """Row i of dropout's keep-mask, or None when dropout is off."""
        return self.row("dropout_mask") if self.trace.dropout_active else None

    @cached_property
    def softmax(self) -> SoftmaxByHand:
        return softmax_by_hand(self.row("scaled_scores"), self.trace.mask[self.i])

    def name(self, position: int) -> str:
        return escape_markdown(self.labels[position])


def _vectors_sentence(row: QueryRow) -> list[str]:
    trace = row.trace
    return [
        t(
            "one_query.step1_caption",
            si=superscript(row.qp),
            sj=superscript(row.kp),
            i=row.qp,
            j=row.kp,
            query_token=row.name(row.i),
            key_token=row.name(row.j),
            d_k=trace.d_k,
        )
    ]


def _dot_product_formula(row: QueryRow) -> str:
    query, key = row.trace.queries[0, row.i], row.trace.keys[0, row.j]  # (d_out,) each
    terms = dot_product_terms(query, key)  # (d_out,) q_m · k_m
    score = float(row.trace.attn_scores[0, row.i, row.j])  # raw q·k, before the mask
    return dot_product_latex(row.qp, row.kp, query.tolist(), key.tolist(), terms.tolist(), score)


def _future_key_note(row: QueryRow) -> str | None:
    return t("one_query.future_key", i=row.qp, j=row.kp) if row.hidden[row.j] else None


def _mask_sentence(row: QueryRow) -> list[str]:
    future = [index + 1 for index, hide in enumerate(row.hidden) if hide]
    if not future:
        return [t("one_query.mask_none")]
    if len(future) == 1:
        return [t("one_query.mask_reason_one", first=future[0])]
    return [t("one_query.mask_reason", first=future[0], last=future[-1])]


def _scale_formula(row: QueryRow) -> str:
    masked, scaled = row.row("masked_scores"), row.row("scaled_scores")
    return scale_latex(
        row.qp,
        row.kp,
        float(masked[row.j]),
        row.trace.d_k,
        float(scaled[row.j]),
        scaled.tolist(),
        row.hidden,
        row.hidden[row.j],
    )


def _softmax_formula(row: QueryRow) -> str:
    softmax = row.softmax
    return softmax_latex(
        row.qp,
        row.kp,
        row.row("scaled_scores").tolist(),
        row.hidden,
        softmax.exps.tolist(),
        softmax.total,
        softmax.shift,
        float(row.row("attn_weights")[row.j]),
    )


def _softmax_sentence(row: QueryRow) -> list[str]:
    shift = [t("one_query.step5_shift")] if row.softmax.shift != 0.0 else []
    return [t("one_query.step5_caption"), *shift]


def _dropout_formula(row: QueryRow) -> str:
    weight = float(row.row("attn_weights")[row.j])
    keep, cfg = row.keep, row.trace.config
    if keep is None or dropout_counts(row.trace, query=row.i) is None:
        return rf"\alpha'_{{{row.qp},{row.kp}}} = \alpha_{{{row.qp},{row.kp}}} = {number(weight)}"
    kept = bool(keep[row.j]) and not row.hidden[row.j]
    dropped = float(row.row("dropped_weights")[row.j])
    return dropout_latex(
        row.qp, row.kp, weight, kept, cfg.dropout, row.trace.dropout_scale, dropped
    )


def _dropout_sentence(row: QueryRow) -> list[str]:
    trace, cfg = row.trace, row.trace.config
    counts = dropout_counts(trace, query=row.i)  # row i's visible weights, kept and dropped
    if row.keep is None or counts is None:
        return [t("one_query.dropout_off_zero" if cfg.training else "one_query.dropout_off_eval")]
    sentence = t(
        "one_query.dropout_on",
        p=format_short(cfg.dropout),
        visible=counts.visible,
        kept=counts.kept,
        dropped=counts.dropped,
        scale=number(trace.dropout_scale),
        total=number(float(row.row("dropped_weights").sum())),
    )
    return [sentence]


def _context_formula(row: QueryRow) -> str:
    return context_latex(
        row.qp,
        row.row("dropped_weights").tolist(),
        row.trace.values[0].tolist(),  # (T, d_out)
        row.hidden,
        row.trace.context[0, row.i].tolist(),  # (d_out,)
        primed=row.keep is not None,
    )


def _context_sentence(row: QueryRow) -> list[str]:
    return [t("one_query.step7_caption", si=superscript(row.qp), query_token=row.name(row.i))]


@dataclass(frozen=True)
class HandStep:
    """One step by hand: its title ``one_query.{name}``, its formula, its sentences and a note
    (a box, for what a learner could misread: a future key's score that never counts)."""

    name: str
    formula: Callable[[QueryRow], str]
    sentence: Callable[[QueryRow], list[str]]
    note: Callable[[QueryRow], str | None] = lambda row: None


HAND_STEPS: tuple[HandStep, ...] = (
    HandStep(
        "step1",
        lambda row: vectors_latex(
            row.qp, row.kp, row.trace.queries[0, row.i].tolist(), row.trace.keys[0, row.j].tolist()
        ),
        _vectors_sentence,
    ),
    HandStep(
        "step2",
        _dot_product_formula,
        lambda row: [t("one_query.step2_caption")],
        note=_future_key_note,
    ),
    HandStep(
        "step3",
        lambda row: score_row_latex(row.qp, row.row("masked_scores").tolist(), row.hidden),
        _mask_sentence,
    ),
    HandStep("step4", _scale_formula, lambda row: [t("one_query.step4_caption")]),
    HandStep("step5", _softmax_formula, _softmax_sentence),
    HandStep("step6", _dropout_formula, _dropout_sentence),
)
CONTEXT_STEP = HandStep("step7", _context_formula, _context_sentence)  # beside its picture


def show_hand_step(step: HandStep, row: QueryRow) -> None:
    """One step: its title, then its formula beside its sentences."""
    st.subheader(t(f"one_query.{step.name}"))
    formula_column, sentence_column = st.columns([3, 2], gap="large")
    with formula_column:
        st.latex(step.formula(row))
    with sentence_column:
        for sentence in step.sentence(row):
            st.caption(sentence)
        note = step.note(row)
        if note is not None:
            st.info(note)


def row_frame(row: QueryRow) -> pd.DataFrame:
    """The whole row of query i, one line per key, as text (what the table shows)."""
    softmax, keep, trace = row.softmax, row.keep, row.trace
    masked_row, scaled_row = row.row("masked_scores"), row.row("scaled_scores")
    weights, dropped = row.row("attn_weights"), row.row("dropped_weights")
    exp_column = t("one_query.col_exp" if softmax.shift == 0.0 else "one_query.col_exp_shift")
    rows = []
    for index, masked in enumerate(row.hidden):
        if masked:
            drop_text = t("one_query.masked")
        elif keep is None:
            drop_text = t("one_query.no_dropout")
        elif bool(keep[index]):
            drop_text = t("one_query.kept", scale=number(trace.dropout_scale))
        else:
            drop_text = t("step.state.dropped")
        rows.append(
            {
                t("one_query.col_score"): "−∞" if masked else text_number(float(masked_row[index])),
                t("one_query.col_scaled"): "−∞"
                if masked
                else text_number(float(scaled_row[index])),
                exp_column: "0" if masked else text_number(float(softmax.exps[index])),
                t("one_query.col_weight"): text_number(float(weights[index])),
                t("one_query.col_dropout"): drop_text,
                t("one_query.col_after"): text_number(float(dropped[index])),
            }
        )
    index_labels = [position_label(row.labels, k) for k in range(len(rows))]  # plain text
    return pd.DataFrame(rows, index=pd.Index(index_labels, name=t("step.axis.key")))


def show_row_table(row: QueryRow) -> None:
    """Steps ③–⑥ for every key of the row, the chosen key highlighted, and the row sums."""
    st.subheader(t("one_query.row_table"))
    st.caption(t("one_query.row_table_caption", i=row.qp))
    frame = row_frame(row)
    if len(frame) <= MAX_STATIC_ROWS:  # the app's table component: every text set as plain text
        table = text_table(
            frame.to_numpy().tolist(),
            list(frame.index),
            list(frame.columns),
            corner=t("step.axis.key"),
            highlight=row.j,
            description=t("one_query.row_table"),
        )
        draw_table(table, key=ROW_TABLE_KEY)
    else:
        st.dataframe(frame, height=420)
    shift = row.softmax.shift != 0.0
    sums = {
        t("one_query.col_exp_shift" if shift else "one_query.col_exp"): number(row.softmax.total),
        t("one_query.col_weight"): number(float(row.row("attn_weights").sum())),
        t("one_query.col_after"): number(float(row.row("dropped_weights").sum())),
    }
    st.caption(
        " · ".join(f"{t('one_query.sum_row')} {name} = {value}" for name, value in sums.items())
    )


def _vectors_chart(row: QueryRow, palette: str) -> None:
    """The value vectors, each weighted vector laid tip to tail, and the context vector."""
    trace, dropped = row.trace, row.row("dropped_weights")
    values = trace.values[0]  # (T, d_out)
    chart = value_vectors_chart(
        values.numpy(),
        dropped.tolist(),
        row.hidden,
        trace.context[0, row.i].tolist(),
        row.tokens,
        row.qp,
        terms=weighted_value_terms(dropped, values).numpy(),
        texts={**figure_texts(), "title": t("one_query.fig_title", i=row.qp)},
        palette=palette,
    )
    draw_chart(chart, key="one_query_vectors")


def show_context_picture(row: QueryRow, palette: str, *, legend_beside: bool = False) -> None:
    """The value vectors and the context vector (d_out = 2), or the row's weights as bars.

    ``legend_beside``: the picture's legend to its right (presenter mode), not under it.
    """
    trace, keep = row.trace, row.keep
    dropped, d_out = row.row("dropped_weights"), trace.config.d_out
    if d_out == 2:
        if legend_beside:
            picture, legend = st.columns([3, 2], gap="large")
        else:
            picture = legend = st.container()
        with picture, st.container(key="one_query_picture"):
            _vectors_chart(row, palette)
        with legend:
            st.caption(t("one_query.plot_caption"))
            if keep is None:
                st.caption(t("one_query.plot_average"))
        return
    st.info(t("one_query.plot_needs_2d", d_out=d_out))
    chart = weights_bar_chart(
        row.row("attn_weights").tolist(),
        row.hidden,
        row.tokens,
        dropped_weights=None if keep is None else dropped.tolist(),
        texts={**figure_texts(), "title": t("one_query.bar_title", i=row.qp)},
        palette=palette,
    )
    draw_chart(chart, key="one_query_weights")


def position_label(labels: list[str], index: int) -> str:
    """``2: journey``: a token with its position as the book counts (from 1)."""
    return f"{index + 1}: {labels[index]}"


def chosen_positions(count: int) -> tuple[int, int]:
    """The query and key chosen (the book's "journey" and the first key until chosen), valid
    for a table of ``count`` tokens."""
    if st.session_state.get(QUERY_KEY) not in range(count):  # the table may have shrunk since
        st.session_state[QUERY_KEY] = min(1, count - 1)  # the book's query: journey
    if st.session_state.get(KEY_KEY) not in range(count):
        st.session_state[KEY_KEY] = 0
    return int(st.session_state[QUERY_KEY]), int(st.session_state[KEY_KEY])


def choose_positions(labels: list[str], *, compact: bool = False) -> tuple[int, int]:
    """The query and key select boxes; the chosen positions exist in the current table.

    ``compact``: presenter mode's strip, each box's name in its options instead of above it.
    """
    count = len(labels)
    chosen_positions(count)
    chosen = []
    for column, (name, key) in zip(
        st.columns(2), (("query", QUERY_KEY), ("key", KEY_KEY)), strict=True
    ):
        with column:
            chosen.append(
                st.selectbox(
                    t(f"one_query.{name}"),
                    options=list(range(count)),
                    format_func=(
                        (
                            lambda index, name=name: (
                                f"{t(f'one_query.short_{name}')} {index + 1}: {labels[index]}"
                            )
                        )
                        if compact
                        else (lambda index: position_label(labels, index))
                    ),
                    key=key,
                    help=t(f"one_query.{name}_help"),
                    label_visibility="collapsed" if compact else "visible",
                )
            )
    return int(chosen[0]), int(chosen[1])


@dataclass(frozen=True)
class OneQuery:
    """What every step reads: the chosen query's row, and the colours."""

    row: QueryRow
    palette: str


def show_context_step(row: QueryRow, palette: str) -> None:
    """Step ⑦: the context vector's formula beside its picture."""
    formula_column, picture_column = st.columns(2, gap="large")
    with formula_column:
        st.subheader(t(f"one_query.{CONTEXT_STEP.name}"))
        for sentence in CONTEXT_STEP.sentence(row):
            st.caption(sentence)
        st.latex(CONTEXT_STEP.formula(row))
    with picture_column:
        show_context_picture(row, palette)


def _context_formula_screen(query: OneQuery) -> None:
    """Presenter mode's first screen of step ⑦: the context vector written out."""
    st.subheader(t(f"one_query.{CONTEXT_STEP.name}"))
    formula_column, sentence_column = st.columns([3, 2], gap="large")
    with sentence_column:
        for sentence in CONTEXT_STEP.sentence(query.row):
            st.caption(sentence)
    with formula_column:
        st.latex(CONTEXT_STEP.formula(query.row))


def _context_picture_screen(query: OneQuery) -> None:
    """Presenter mode's second screen of step ⑦: the picture, its legend beside it."""
    st.subheader(t(f"one_query.{CONTEXT_STEP.name}"))
    show_context_picture(query.row, query.palette, legend_beside=True)


def _hand_entry(name: str, step: HandStep) -> Entry[OneQuery]:
    return Entry(name, lambda: t(f"one_query.{step.name}"), lambda q: show_hand_step(step, q.row))


# The link's names of the steps (``?step=softmax``), in the page's order.
LINK_NAMES = ("vectors", "dot_product", "mask", "scale", "softmax", "dropout")
WALK: Walk[OneQuery] = Walk(
    page="one_query",
    entries=(
        *(_hand_entry(name, step) for name, step in zip(LINK_NAMES, HAND_STEPS, strict=True)),
        Entry("row", lambda: t("one_query.row_table"), lambda q: show_row_table(q.row)),
        Entry(
            "context",
            lambda: t(f"one_query.{CONTEXT_STEP.name}"),
            lambda q: show_context_step(q.row, q.palette),
            parts=lambda q: (_context_formula_screen, _context_picture_screen),
        ),
    ),
    tabs_key="one_query_tabs",
    all_key="one_query_all",
    all_default=True,  # the page reads top to bottom; a link to a step opens its tab
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    if not presenting:
        st.title(t("page.one_query.title"))
        st.markdown(t("one_query.intro"))
    # One head: no head axis. Only batch item 0 is shown, so only it is computed: at 4,096 tokens
    # in a batch of 4 that is a quarter of the memory and time (benchmarks/README.md).
    trace = view.trace(batch=1)
    if trace is None:
        st.stop()
    tokens = list(view.table.tokens)
    labels = unique_labels(tokens)
    if presenting:  # the query and key boxes go into the control strip
        i, j = chosen_positions(len(labels))
        present(
            WALK,
            OneQuery(QueryRow(trace, tokens, labels, i, j), view.palette),
            controls=lambda: choose_positions(labels, compact=True),
        )
        return
    i, j = choose_positions(labels)
    show_walk(WALK, OneQuery(QueryRow(trace, tokens, labels, i, j), view.palette))
