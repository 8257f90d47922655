"""One query, by hand: the row of one query through the layer, every number written out.

All results shown are the trace's numbers (one ``CausalAttention`` head, batch row 0); the steps
in between (the products of a dot product, the exps and their sum, the weighted value vectors)
come from :mod:`attention.by_hand`. LaTeX gets only numbers and integer positions; token labels
are shown as plain text beside it (escaped for Markdown).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention.by_hand import dot_product_terms, softmax_by_hand, weighted_value_terms
from attention.dropout import dropout_counts
from ui.frame import page
from ui.i18n import t
from ui.show import show_figure
from ui.view import View
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
    value_vectors_figure,
    vectors_latex,
    weights_bar_figure,
)
from viz.vocabulary import format_short

QUERY_KEY = "one_query_query"
KEY_KEY = "one_query_key"
MAX_STATIC_ROWS = 40  # longer rows are shown in a scrollable data frame instead of a table
HIGHLIGHT = "background-color: #fff3bf"
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


@page
def render(view: View) -> None:
    st.title(t("page.one_query.title"))
    st.markdown(t("one_query.intro"))

    trace = view.trace()  # one head: no head axis; batch of one: index [0]
    if trace is None:
        st.stop()
    tokens = list(view.table.tokens)
    labels = unique_labels(tokens)
    num_tokens = trace.num_tokens

    # the chosen positions must exist in the current table (it may have shrunk since)
    if st.session_state.get(QUERY_KEY) not in range(num_tokens):
        st.session_state[QUERY_KEY] = min(1, num_tokens - 1)  # the book's query: journey
    if st.session_state.get(KEY_KEY) not in range(num_tokens):
        st.session_state[KEY_KEY] = 0

    query_column, key_column = st.columns(2)
    with query_column:
        i = st.selectbox(
            t("one_query.query"),
            options=list(range(num_tokens)),
            format_func=lambda index: f"{index + 1}: {labels[index]}",
            key=QUERY_KEY,
            help=t("one_query.query_help"),
        )
    with key_column:
        j = st.selectbox(
            t("one_query.key"),
            options=list(range(num_tokens)),
            format_func=lambda index: f"{index + 1}: {labels[index]}",
            key=KEY_KEY,
            help=t("one_query.key_help"),
        )
    qp, kp = i + 1, j + 1  # positions as the book counts them

    query = trace.queries[0, i]  # (d_out,)
    key = trace.keys[0, j]  # (d_out,)
    values = trace.values[0]  # (T, d_out)
    hidden = trace.mask[i]  # (T,) True for the future keys of query i
    masked_row = trace.masked_scores[0, i]  # (T,) −inf where hidden
    scaled_row = trace.scaled_scores[0, i]  # (T,)
    weights = trace.attn_weights[0, i]  # (T,) softmax, sums to 1
    dropped = trace.dropped_weights[0, i]  # (T,) after dropout
    keep = trace.dropout_mask[0, i] if trace.dropout_active else None  # (T,) bool or None
    context = trace.context[0, i]  # (d_out,)
    softmax = softmax_by_hand(scaled_row, hidden)
    hidden_list = [bool(h) for h in hidden]
    query_name = escape_markdown(labels[i])
    key_name = escape_markdown(labels[j])

    cfg = trace.config

    def show_vectors_and_dot_product() -> None:
        """Steps ① and ②: q_i, k_j and their dot product, term by term."""
        st.subheader(t("one_query.step1"))
        st.latex(vectors_latex(qp, kp, query.tolist(), key.tolist()))
        st.caption(
            t(
                "one_query.step1_caption",
                si=superscript(qp),
                sj=superscript(kp),
                i=qp,
                j=kp,
                query_token=query_name,
                key_token=key_name,
                d_k=trace.d_k,
            )
        )
        st.subheader(t("one_query.step2"))
        st.caption(t("one_query.step2_caption"))
        terms = dot_product_terms(query, key)  # (d_out,) q_m · k_m
        score = float(trace.attn_scores[0, i, j])  # raw q·k, before the mask
        st.latex(dot_product_latex(qp, kp, query.tolist(), key.tolist(), terms.tolist(), score))
        if hidden_list[j]:
            st.info(t("one_query.future_key", i=qp, j=kp))

    def show_mask_and_scale() -> None:
        """Steps ③ and ④: the masked row of scores and its scaling by √d_k."""
        st.subheader(t("one_query.step3"))
        st.latex(score_row_latex(qp, masked_row.tolist(), hidden_list))
        future = [index + 1 for index, hide in enumerate(hidden_list) if hide]
        if not future:
            st.caption(t("one_query.mask_none"))
        elif len(future) == 1:
            st.caption(t("one_query.mask_reason_one", first=future[0]))
        else:
            st.caption(t("one_query.mask_reason", first=future[0], last=future[-1]))
        st.subheader(t("one_query.step4"))
        st.latex(
            scale_latex(
                qp,
                kp,
                float(masked_row[j]),
                trace.d_k,
                float(scaled_row[j]),
                scaled_row.tolist(),
                hidden_list,
                hidden_list[j],
            )
        )
        st.caption(t("one_query.step4_caption"))

    def show_softmax_and_dropout() -> None:
        """Steps ⑤ and ⑥: exp and normalization, then dropout on the chosen weight."""
        st.subheader(t("one_query.step5"))
        st.latex(
            softmax_latex(
                qp,
                kp,
                scaled_row.tolist(),
                hidden_list,
                softmax.exps.tolist(),
                softmax.total,
                softmax.shift,
                float(weights[j]),
            )
        )
        st.caption(t("one_query.step5_caption"))
        if softmax.shift != 0.0:
            st.caption(t("one_query.step5_shift"))
        st.subheader(t("one_query.step6"))
        counts = dropout_counts(trace, query=i)  # row i's visible weights, kept and dropped
        if keep is None or counts is None:
            st.latex(rf"\alpha'_{{{qp},{kp}}} = \alpha_{{{qp},{kp}}} = {number(float(weights[j]))}")
            off = "one_query.dropout_off_zero" if cfg.training else "one_query.dropout_off_eval"
            st.caption(t(off))
            return
        st.latex(
            dropout_latex(
                qp,
                kp,
                float(weights[j]),
                bool(keep[j]) and not hidden_list[j],
                cfg.dropout,
                trace.dropout_scale,
                float(dropped[j]),
            )
        )
        st.caption(
            t(
                "one_query.dropout_on",
                p=format_short(cfg.dropout),
                visible=counts.visible,
                kept=counts.kept,
                dropped=counts.dropped,
                scale=number(trace.dropout_scale),
                total=number(float(dropped.sum())),
            )
        )

    def row_frame() -> pd.DataFrame:
        """The whole row of query i, one line per key, as text (what the table shows)."""
        exp_column = t("one_query.col_exp" if softmax.shift == 0.0 else "one_query.col_exp_shift")
        rows = []
        for index in range(num_tokens):
            masked = hidden_list[index]
            if masked:
                drop_text = t("one_query.masked")
            elif keep is None:
                drop_text = t("one_query.no_dropout")
            elif bool(keep[index]):
                drop_text = t("one_query.kept", scale=number(trace.dropout_scale))
            else:
                drop_text = t("one_query.dropped")
            rows.append(
                {
                    t("one_query.col_score"): "−∞"
                    if masked
                    else text_number(float(masked_row[index])),
                    t("one_query.col_scaled"): "−∞"
                    if masked
                    else text_number(float(scaled_row[index])),
                    exp_column: "0" if masked else text_number(float(softmax.exps[index])),
                    t("one_query.col_weight"): text_number(float(weights[index])),
                    t("one_query.col_dropout"): drop_text,
                    t("one_query.col_after"): text_number(float(dropped[index])),
                }
            )
        index_labels = [
            escape_markdown(f"{index + 1}: {labels[index]}") for index in range(num_tokens)
        ]
        return pd.DataFrame(rows, index=pd.Index(index_labels, name=t("one_query.col_key")))

    def show_row_table() -> None:
        """Steps ③–⑥ for every key of the row, the chosen key highlighted, and the row sums."""
        st.subheader(t("one_query.row_table"))
        st.caption(t("one_query.row_table_caption", i=qp))
        frame = row_frame()
        if num_tokens <= MAX_STATIC_ROWS:
            chosen = frame.index[j]
            styled = frame.style.apply(
                lambda row: [HIGHLIGHT if row.name == chosen else "" for _ in row], axis=1
            )
            st.table(styled)
        else:
            st.dataframe(frame, height=420)
        exp_name = t("one_query.col_exp" if softmax.shift == 0.0 else "one_query.col_exp_shift")
        sums = {
            exp_name: number(softmax.total),
            t("one_query.col_weight"): number(float(weights.sum())),
            t("one_query.col_after"): number(float(dropped.sum())),
        }
        st.caption(
            " · ".join(f"{t('one_query.sum_row')} {name} = {value}" for name, value in sums.items())
        )

    def show_context_formula() -> None:
        """Step ⑦: the context vector written out as a weighted sum of value vectors."""
        st.subheader(t("one_query.step7"))
        st.caption(t("one_query.step7_caption", si=superscript(qp), query_token=query_name))
        st.latex(
            context_latex(
                qp,
                dropped.tolist(),
                values.tolist(),
                hidden_list,
                context.tolist(),
                primed=keep is not None,
            )
        )

    def show_context_picture() -> None:
        """The value vectors and the context vector (d_out = 2), or the row's weights as bars."""
        if cfg.d_out == 2:
            figure = value_vectors_figure(
                values.numpy(),
                dropped.tolist(),
                hidden_list,
                context.tolist(),
                tokens,
                qp,
                terms=weighted_value_terms(dropped, values).numpy(),
                texts={**figure_texts(), "title": t("one_query.fig_title", i=qp)},
            )
            show_figure(figure, key="one_query_vectors")
            st.caption(t("one_query.plot_caption"))
            if keep is None:
                st.caption(t("one_query.plot_average"))
            return
        st.info(t("one_query.plot_needs_2d", d_out=cfg.d_out))
        figure = weights_bar_figure(
            weights.tolist(),
            hidden_list,
            tokens,
            dropped_weights=None if keep is None else dropped.tolist(),
            texts={**figure_texts(), "title": t("one_query.bar_title", i=qp)},
        )
        show_figure(figure, key="one_query_weights")

    first_left, first_right = st.columns(2, gap="large")
    with first_left:
        show_vectors_and_dot_product()
    with first_right:
        show_mask_and_scale()
    second_left, second_right = st.columns(2, gap="large")
    with second_left:
        show_softmax_and_dropout()
    with second_right:
        show_row_table()
    third_left, third_right = st.columns(2, gap="large")
    with third_left:
        show_context_formula()
    with third_right:
        show_context_picture()
