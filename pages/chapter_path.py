"""The chapter's path: from the first dot product (3.3) to ``CausalAttention`` (3.5), in the book's order.

Every number comes from :mod:`attention.chapter` (the book's classes, seeded with private
generators) on the shared embedding table; the code difference of 3.5 is computed from the
classes' source (:func:`attention.chapter.causal_diff`). With the book's embeddings and seeds the
numbers are the book's printed ones.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st
import torch

from attention import AttentionInputError
from attention.chapter import (
    BOOK_QUERY_INDEX,
    BOOK_SEED_V2,
    SimpleAttention,
    TrainableAttention,
    causal_diff,
    self_attention_v1,
    self_attention_v2,
    simple_attention,
)
from ui.frame import TABLE_PAGE, link_to_page, page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.settings import MAX_APP_SEED
from ui.show import figure_words, show_matrix
from ui.table_state import book_table
from ui.view import View
from viz.chapter import rows_view, weight_matrix_view
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.vocabulary import (
    CONTEXT_PREFIX,
    INPUT_PREFIX,
    KEY_PREFIX,
    QUERY_PREFIX,
    VALUE_PREFIX,
    feature_labels,
    format_number,
)
from viz.words import FigureWords

V2_SEED_KEY = "chapter_v2_seed"
MAX_TOKENS = 256  # the page computes eight (T, T) matrices on every run: a long table is cut here
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def superscript(number: int) -> str:
    """``2`` → ``²``: the book's x⁽²⁾ (the number of a token, counted from 1)."""
    return str(number).translate(_SUPERSCRIPT)


def subscript(number: int) -> str:
    return str(number).translate(_SUBSCRIPT)


def _numbers(vector: torch.Tensor) -> str:
    return ", ".join(format_number(float(v)) for v in vector)


def _section_33(path: SimpleAttention, tokens: list[str], words: FigureWords, palette: str) -> None:
    number = path.query_index + 1
    sup, sub = superscript(number), subscript(number)
    st.header(t("chapter.s33.title"), anchor="s3-3")
    st.markdown(t("chapter.s33.body", sup=sup, token=escape_markdown(tokens[path.query_index])))
    st.code(
        f"query = inputs[{path.query_index}]\n"
        "attn_scores_2 = inputs @ query\n"
        "attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()\n"
        "attn_weights_2 = torch.softmax(attn_scores_2, dim=0)\n"
        "context_vec_2 = attn_weights_2 @ inputs",
        language="python",
    )
    show_matrix(
        rows_view(
            [path.query_scores, path.query_weights_by_sum, path.query_weights],
            [
                t("chapter.row.scores", sup=sup),
                t("chapter.row.by_sum"),
                t("chapter.row.softmax"),
            ],
            tokens,
            value_name=words.score,
            palette=palette,
            row_title=words.query,
            col_title=words.key,
        ),
        words,
        key="chapter_query_rows",
    )
    show_matrix(
        rows_view(
            [path.query_context],
            [f"z⁽{sup}⁾"],
            feature_labels(INPUT_PREFIX, path.inputs.shape[1]),
            value_name=words.context,
            palette=palette,
            title=t("chapter.query_context", sup=sup, sub=sub),
            row_title=words.query,
            col_title=words.feature,
        ),
        words,
        key="chapter_query_context",
    )
    _all_queries(path, tokens, words, palette)


def _all_queries(
    path: SimpleAttention, tokens: list[str], words: FigureWords, palette: str
) -> None:
    """3.3.2: every query at once, the ``(T, T)`` scores and weights and the ``(T, d_in)`` context."""
    st.markdown(t("chapter.s33.all", number=path.query_index + 1))
    scores_col, weights_col = st.columns(2, gap="medium")
    with scores_col:
        show_matrix(
            rows_view(
                [path.attn_scores],
                tokens,
                tokens,
                value_name=words.score,
                palette=palette,
                title=t("chapter.attn_scores"),
                row_title=words.query,
                col_title=words.key,
            ),
            words,
            key="chapter_simple_scores",
        )
    with weights_col:
        show_matrix(
            rows_view(
                [path.attn_weights],
                tokens,
                tokens,
                value_name=words.attention_weight,
                palette=palette,
                weights=True,
                title=t("chapter.attn_weights"),
                row_title=words.query,
                col_title=words.key,
            ),
            words,
            key="chapter_simple_weights",
        )
    show_matrix(
        rows_view(
            [path.context],
            tokens,
            feature_labels(INPUT_PREFIX, path.inputs.shape[1]),
            value_name=words.context,
            palette=palette,
            title=t("chapter.all_context"),
            row_title=words.token,
            col_title=words.feature,
        ),
        words,
        key="chapter_simple_context",
    )


def _weights(step: TrainableAttention, words: FigureWords, palette: str, key: str) -> None:
    places = st.columns(3, gap="medium") if step.W_query.shape[1] <= 3 else [st.container()] * 3
    for place, name, prefix in zip(
        places,
        ("W_query", "W_key", "W_value"),
        (QUERY_PREFIX, KEY_PREFIX, VALUE_PREFIX),
        strict=True,
    ):
        with place:
            show_matrix(
                weight_matrix_view(getattr(step, name), name, prefix, words, palette=palette),
                words,
                key=f"{key}_{name}",
            )


def _context(step: TrainableAttention, tokens: list[str], words: FigureWords, palette: str) -> None:
    number = step.query_index + 1
    show_matrix(
        rows_view(
            [step.context],
            tokens,
            feature_labels(CONTEXT_PREFIX, step.context.shape[1]),
            value_name=words.context,
            palette=palette,
            title=t("chapter.context_of", name=step.class_name, number=number),
            row_title=words.token,
            col_title=words.feature,
        ),
        words,
        key=f"chapter_{step.class_name.lower()}_context",
    )


def _section_341(
    step: TrainableAttention, tokens: list[str], words: FigureWords, palette: str
) -> None:
    number = step.query_index + 1
    d_out = int(step.queries.shape[1])
    st.header(t("chapter.s341.title"), anchor="s3-4-1")
    st.markdown(t("chapter.s341.body", seed=step.seed, d_k=step.d_k, d_out=d_out))
    st.code(
        f"torch.manual_seed({step.seed})\n"
        f"sa_v1 = SelfAttention_v1(d_in={step.inputs.shape[1]}, d_out={d_out})\n"
        "# inside: self.W_query = nn.Parameter(torch.rand(d_in, d_out)), then W_key, W_value\n"
        "print(sa_v1(inputs))",
        language="python",
    )
    if step.seed != 123:
        st.caption(t("chapter.v1_seed_note", seed=step.seed))
    _weights(step, words, palette, "chapter_v1")
    st.markdown(
        t(
            "chapter.one_query",
            token=escape_markdown(tokens[step.query_index]),
            number=number,
            sup=superscript(number),
            query=_numbers(step.query),
            self_score=format_number(step.query_self_score),
        )
    )
    show_matrix(
        rows_view(
            [step.query_scores, step.query_weights],
            [
                t("chapter.row.scores_qk", number=number),
                t("chapter.row.weights_qk", number=number),
            ],
            tokens,
            value_name=words.score,
            palette=palette,
            row_title=words.query,
            col_title=words.key,
        ),
        words,
        key="chapter_v1_query_rows",
    )
    _context(step, tokens, words, palette)


def _section_342(
    step: TrainableAttention, tokens: list[str], words: FigureWords, palette: str
) -> None:
    d_out = int(step.queries.shape[1])
    st.code(
        f"torch.manual_seed({step.seed})\n"
        f"sa_v2 = SelfAttention_v2(d_in={step.inputs.shape[1]}, d_out={d_out})\n"
        "# inside: self.W_query = nn.Linear(d_in, d_out, bias=False), then W_key, W_value\n"
        "print(sa_v2(inputs))",
        language="python",
    )
    _weights(step, words, palette, "chapter_v2")
    _context(step, tokens, words, palette)


def _section_35(
    step: TrainableAttention, tokens: list[str], words: FigureWords, palette: str
) -> None:
    st.header(t("chapter.s35.title"), anchor="s3-5")
    st.markdown(t("chapter.s35.body", seed=step.seed))
    num_tokens = len(tokens)
    future = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool().numpy()
    view = rows_view(
        [step.masked_weights],
        tokens,
        tokens,
        value_name=words.attention_weight,
        palette=palette,
        weights=True,
        title=t("chapter.masked_weights", seed=step.seed),
        row_title=words.query,
        col_title=words.key,
    )
    show_matrix(
        replace(view, hidden=future, hidden_value=0.0, hidden_name=words.future_masked),
        words,
        key="chapter_masked_weights",
    )
    st.markdown(t("chapter.diff_intro"))
    st.code(causal_diff(), language="diff")
    st.markdown(t("chapter.why_mask"))
    st.markdown(t("chapter.why_dropout"))
    st.caption(t("chapter.why_batch"))


@page
def render(view: View) -> None:
    """Draw the page."""
    st.title(t("page.chapter_path.title"))
    st.markdown(t("chapter.intro"))
    words = figure_words()
    palette = view.palette
    tokens = unique_labels(view.tokens)[:MAX_TOKENS]
    inputs = torch.tensor(view.table.values[:MAX_TOKENS], dtype=torch.float32)  # (T, d_in)

    st.subheader(t("chapter.inputs"), anchor="inputs")
    book = view.table == book_table()
    st.caption(t("chapter.book_inputs" if book else "chapter.own_inputs"))
    if view.table.num_tokens > MAX_TOKENS:
        st.info(t("chapter.first_tokens", shown=MAX_TOKENS, tokens=view.table.num_tokens))
    show_matrix(
        rows_view(
            [inputs],
            tokens,
            feature_labels(INPUT_PREFIX, inputs.shape[1]),
            value_name=words.embedding,
            palette=palette,
            row_title=words.token,
            col_title=words.feature,
        ),
        words,
        key="chapter_inputs",
    )
    link_to_page(TABLE_PAGE, t("chapter.edit_link"), icon=":material/edit:")

    query_index = min(BOOK_QUERY_INDEX, len(tokens) - 1)
    d_out = view.config.d_out
    try:
        simple = simple_attention(inputs, query_index)
        v1 = self_attention_v1(inputs, d_out, view.config.seed, query_index)
    except AttentionInputError as error:
        show_input_error(error)
        return
    _section_33(simple, tokens, words, palette)
    _section_341(v1, tokens, words, palette)

    st.header(t("chapter.s342.title"), anchor="s3-4-2")
    st.markdown(t("chapter.s342.body"))
    seed_col, _rest = st.columns([1, 2])
    seed_v2 = seed_col.number_input(
        t("chapter.v2_seed"),
        min_value=0,
        max_value=MAX_APP_SEED,
        value=BOOK_SEED_V2,
        step=1,
        key=V2_SEED_KEY,
        help=t("chapter.v2_seed_help"),
    )
    try:
        v2 = self_attention_v2(inputs, d_out, int(seed_v2), query_index)
    except AttentionInputError as error:
        show_input_error(error)
        return
    _section_342(v2, tokens, words, palette)
    _section_35(v2, tokens, words, palette)

    st.divider()
    st.markdown(t("chapter.next"))
    link_to_page("step", t("chapter.to_step"), icon=":material/arrow_forward:")
    link_to_page("multi_head", t("chapter.to_multi_head"), icon=":material/arrow_forward:")
