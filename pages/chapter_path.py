"""The chapter's path: from the first dot product (3.3) to ``CausalAttention`` (3.5), in the book's order.

Every number comes from :mod:`attention.chapter` (the book's classes, private generators) on the
shared table, the diff of 3.5 from the classes' source; with the book's embeddings and seeds the
numbers are the book's. The four sections are a walk (:data:`WALK`): all on one page by default,
one per tab with the toggle or a link (``?step=v1``), a few screens each in presenter mode.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import streamlit as st
import torch

from attention import AttentionInputError
from attention.book_outputs import PRINT_TOLERANCE, chapter_comparisons, dropout_demo_differences
from attention.chapter import (
    BOOK_DROPOUT,
    BOOK_QUERY_INDEX,
    BOOK_SEED_V1,
    BOOK_SEED_V2,
    Normalisations,
    SimpleAttention,
    TrainableAttention,
    causal_diff,
    dropout_demo,
    normalisations,
    self_attention_v1,
    self_attention_v2,
    simple_attention,
)
from attention.masking import MaskingComparison, compare_masking
from ui.book_code import code_in_language
from ui.book_examples import BOOK_EXAMPLES, show_book_example
from ui.chapter_settings import CHAPTER_SETTINGS, V2_SEED_KEY
from ui.frame import TABLE_PAGE, link_to_page, page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.settings import widget
from ui.show import figure_words, show_matrix
from ui.table_state import book_table
from ui.view import View
from ui.walk import Entry, Walk, begin, part, present, show_walk
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
    format_short,
)
from viz.words import FigureWords

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


@dataclass(frozen=True)
class Chapter:
    """What every section reads: the inputs, 3.3's and 3.4.1's results, labels and colours."""

    inputs: torch.Tensor  # (T, d_in)
    tokens: list[str]
    words: FigureWords
    palette: str
    d_out: int
    query_index: int
    simple: SimpleAttention
    v1: TrainableAttention
    presenting: bool = False  # presenter mode: v2's seed is in the control strip

    @property
    def v2_seed(self) -> int:
        """The seed chosen on the page for ``SelfAttention_v2`` (the book's 789 first)."""
        return int(st.session_state.get(V2_SEED_KEY, BOOK_SEED_V2))

    def v2(self) -> TrainableAttention | None:
        """3.4.2's ``SelfAttention_v2`` with the seed chosen on the page."""
        try:
            return self_attention_v2(self.inputs, self.d_out, self.v2_seed, self.query_index)
        except AttentionInputError as error:
            show_input_error(error)
            return None


def _s33_text(chapter: Chapter) -> None:
    number = chapter.simple.query_index + 1
    token = escape_markdown(chapter.tokens[chapter.simple.query_index])
    st.header(t("chapter.s33.title"), anchor="s3-3")
    st.markdown(t("chapter.s33.body", sup=superscript(number), token=token))


def _s33_code(chapter: Chapter) -> None:
    st.code(
        code_in_language(
            f"query = inputs[{chapter.simple.query_index}]\n"
            "attn_scores_2 = inputs @ query\n"
            "attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()\n"
            "attn_weights_2 = torch.softmax(attn_scores_2, dim=0)\n"
            "context_vec_2 = attn_weights_2 @ inputs"
        ),
        language="python",
    )


def _s33_tables(chapter: Chapter) -> None:
    """3.3.1's numbers: the query's scores and weights two ways, then its context vector."""
    path, tokens, words, palette = chapter.simple, chapter.tokens, chapter.words, chapter.palette
    number = path.query_index + 1
    sup, sub = superscript(number), subscript(number)
    show_matrix(
        rows_view(
            [path.query_scores, path.query_weights_by_sum, path.query_weights],
            [t("chapter.row.scores", sup=sup), t("chapter.row.by_sum"), t("chapter.row.softmax")],
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


SOFTMAX_SCORES_KEY = "chapter_softmax_scores"  # the editable case's text
SOFTMAX_LAST_KEY = "chapter_softmax_last"  # its last valid scores
NEAR_ZERO_CASE = (1.0, -0.5, -0.45)  # a sum near 0: 0.05


def _case_text(values: list[float] | tuple[float, ...]) -> str:
    return ", ".join(format_short(float(v)) for v in values)


def softmax_cases(simple: SimpleAttention) -> dict[str, str]:
    """The editable case's presets: the book's scores with the smallest made negative (the
    default), the book's scores as they are, and three scores whose sum is near 0."""
    scores = [float(v) for v in simple.query_scores]
    negative = list(scores)
    smallest = min(range(len(scores)), key=lambda j: scores[j])
    negative[smallest] = -abs(negative[smallest]) or -1.0
    return {
        "negative": _case_text(negative),
        "near_zero": _case_text(NEAR_ZERO_CASE),
        "book": _case_text(scores),
    }


def _parse_scores(text: str) -> list[float] | str:
    """The case's scores, or the message naming the first item that is not a number."""
    items = [item for item in text.replace(";", ",").split(",") if item.strip()]
    if not items:
        return t("chapter.softmax.empty")
    values = []
    for number, item in enumerate(items, start=1):
        try:
            values.append(float(item.strip().replace("−", "-")))
        except ValueError:
            return t("chapter.softmax.bad", value=escape_markdown(item.strip()[:20]), number=number)
    return values


def softmax_case(chapter: Chapter, *, report: bool = False) -> Normalisations | None:
    """The case the reader typed, both ways (:func:`attention.chapter.normalisations`); a bad
    one is named (``report``: where the scores are typed) and the last valid case stays."""
    parsed = _parse_scores(str(st.session_state.get(SOFTMAX_SCORES_KEY, "")))
    if not isinstance(parsed, str):
        try:
            case = normalisations(parsed)
        except AttentionInputError as error:
            if report:
                show_input_error(error)
        else:
            st.session_state[SOFTMAX_LAST_KEY] = tuple(parsed)
            return case
    elif report:
        st.error(parsed, icon="⚠️")
    last = st.session_state.get(SOFTMAX_LAST_KEY)
    return None if last is None else normalisations(last)


def _labels(case: Normalisations, tokens: list[str]) -> list[str]:
    count = len(case.scores)
    return list(tokens) if count == len(tokens) else [str(j + 1) for j in range(count)]


def _weights_text(case: Normalisations, weights: torch.Tensor, labels: list[str]) -> str:
    return ", ".join(
        f"“{escape_markdown(labels[j])}” {format_number(float(weights[j]), minus='−')}"
        for j in range(len(labels))
    )


def why_softmax_sentences(case: Normalisations, labels: list[str]) -> list[str]:
    """What the numbers of ``case`` show, each sentence chosen and filled from them."""
    total = format_number(case.score_sum, minus="−")
    sentences = []
    if not case.by_sum_finite:
        sentences.append(t("chapter.softmax.zero_sum", total=total))
    elif case.negative:
        names = _weights_text(case, case.by_sum, labels)
        negative = ", ".join(f"“{escape_markdown(labels[j])}”" for j in case.negative)
        sentences.append(t("chapter.softmax.negative", total=total, names=negative, weights=names))
    if case.by_sum_finite and case.by_sum_largest > 1:
        sentences.append(
            t("chapter.softmax.blows_up", total=total, largest=format_number(case.by_sum_largest))
        )
    if case.by_sum_in_range:
        sentences.append(t("chapter.softmax.both_work", total=total))
    sentences.append(
        t(
            "chapter.softmax.softmax_ok",
            low=format_number(float(case.softmax.min())),
            high=format_number(float(case.softmax.max())),
        )
    )
    top = case.top
    factor = f"{case.factor:g}"
    if case.by_sum_finite:
        sentences.append(
            t(
                "chapter.softmax.extreme",
                factor=factor,
                change=f"{case.extreme_by_sum_change:.1e}",
                token=escape_markdown(labels[top]),
                before=format_number(float(case.softmax[top])),
                after=format_number(float(case.softmax_extreme[top])),
            )
        )
    if case.naive_overflows:
        sentences.append(t("chapter.softmax.overflow", factor=factor))
    return sentences


def _set_case(text: str) -> None:
    st.session_state[SOFTMAX_SCORES_KEY] = text


def _softmax_intro(chapter: Chapter) -> None:
    """The case's title and why it is there."""
    del chapter
    st.subheader(t("chapter.softmax.title"), anchor="why-softmax")
    st.markdown(t("chapter.softmax.intro"))


def _softmax_inputs(chapter: Chapter) -> None:
    """The case's presets and its scores (editable); a bad one is named here."""
    cases = softmax_cases(chapter.simple)
    for column, name in zip(st.columns(len(cases)), cases, strict=True):
        column.button(
            t(f"chapter.softmax.case.{name}"),
            on_click=_set_case,
            args=(cases[name],),
            key=f"chapter_softmax_{name}",
            width="stretch",
        )
    st.session_state.setdefault(SOFTMAX_SCORES_KEY, cases["negative"])  # the first case shown
    st.text_input(t("chapter.softmax.input"), key=SOFTMAX_SCORES_KEY, max_chars=2000)
    softmax_case(chapter, report=True)


def _softmax_table(chapter: Chapter) -> None:
    """The case's scores, both normalisations, and both again on scores ten times larger."""
    case = softmax_case(chapter)
    if case is None:
        return
    labels = _labels(case, chapter.tokens)
    factor = f"{case.factor:g}"
    rows = [
        (case.scores, t("chapter.softmax.row.scores")),
        (case.by_sum, t("chapter.row.by_sum")),
        (case.softmax, t("chapter.row.softmax")),
        (case.by_sum_extreme, t("chapter.softmax.row.by_sum_extreme", factor=factor)),
        (case.softmax_extreme, t("chapter.softmax.row.softmax_extreme", factor=factor)),
    ]
    rows = [(values, name) for values, name in rows if bool(torch.isfinite(values).all())]
    view = rows_view(
        [values for values, _ in rows],
        [name for _, name in rows],
        labels,
        value_name=chapter.words.score,
        palette=chapter.palette,
        col_title=chapter.words.key,
    )  # a sum of 0 leaves the division no numbers: its rows are left out, and said
    show_matrix(view, chapter.words, key="chapter_why_softmax")


def _softmax_sentences(chapter: Chapter) -> None:
    case = softmax_case(chapter)
    if case is not None:
        for sentence in why_softmax_sentences(case, _labels(case, chapter.tokens)):
            st.markdown(sentence)


def _all_text(chapter: Chapter) -> None:
    st.markdown(t("chapter.s33.all", number=chapter.simple.query_index + 1))


def _all_matrix(field: str, chapter: Chapter) -> None:
    """3.3.2's ``attn_scores``, ``attn_weights`` or ``context`` of every query at once."""
    path, words, tokens = chapter.simple, chapter.words, chapter.tokens
    if field == "context":
        columns = feature_labels(INPUT_PREFIX, path.inputs.shape[1])
        axes = {"row_title": words.token, "col_title": words.feature}
        title, value_name = "chapter.all_context", words.context
    else:
        columns, axes = tokens, {"row_title": words.query, "col_title": words.key}
        title = f"chapter.{field}"
        value_name = words.score if field == "attn_scores" else words.attention_weight
    view = rows_view(
        [getattr(path, field)],
        tokens,
        columns,
        value_name=value_name,
        palette=chapter.palette,
        weights=field == "attn_weights",
        title=t(title),
        **axes,
    )
    show_matrix(view, words, key=f"chapter_simple_{field.removeprefix('attn_')}")


_all_scores = partial(_all_matrix, "attn_scores")
_all_weights = partial(_all_matrix, "attn_weights")
_all_context = partial(_all_matrix, "context")


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


def _s341_text(chapter: Chapter) -> None:
    step = chapter.v1
    d_out = int(step.queries.shape[1])
    st.header(t("chapter.s341.title"), anchor="s3-4-1")
    st.markdown(t("chapter.s341.body", seed=step.seed, d_k=step.d_k, d_out=d_out))


def _class_code(step: TrainableAttention, version: int, weight: str) -> None:
    """How the book builds and calls ``SelfAttention_v{version}``, with this step's seed."""
    st.code(
        code_in_language(
            f"torch.manual_seed({step.seed})\n"
            f"sa_v{version} = SelfAttention_v{version}"
            f"(d_in={step.inputs.shape[1]}, d_out={step.queries.shape[1]})\n"
            f"# inside: self.W_query = {weight}, then W_key, W_value\n"
            f"print(sa_v{version}(inputs))"
        ),
        language="python",
    )


def _s341_code(chapter: Chapter) -> None:
    step = chapter.v1
    _class_code(step, 1, "nn.Parameter(torch.rand(d_in, d_out))")
    if step.seed != 123:
        st.caption(t("chapter.v1_seed_note", seed=step.seed))


def _v1_weights(chapter: Chapter) -> None:
    _weights(chapter.v1, chapter.words, chapter.palette, "chapter_v1")


def _v1_query_text(chapter: Chapter) -> None:
    step = chapter.v1
    number = step.query_index + 1
    st.markdown(
        t(
            "chapter.one_query",
            token=escape_markdown(chapter.tokens[step.query_index]),
            number=number,
            sup=superscript(number),
            query=_numbers(step.query),
            self_score=format_number(step.query_self_score),
        )
    )


def _v1_query_rows(chapter: Chapter) -> None:
    step, words = chapter.v1, chapter.words
    number = step.query_index + 1
    show_matrix(
        rows_view(
            [step.query_scores, step.query_weights],
            [t("chapter.row.scores_qk", number=number), t("chapter.row.weights_qk", number=number)],
            chapter.tokens,
            value_name=words.score,
            palette=chapter.palette,
            row_title=words.query,
            col_title=words.key,
        ),
        words,
        key="chapter_v1_query_rows",
    )


def _v1_context(chapter: Chapter) -> None:
    _context(chapter.v1, chapter.tokens, chapter.words, chapter.palette)


def _s342_text(chapter: Chapter) -> None:
    st.header(t("chapter.s342.title"), anchor="s3-4-2")
    st.markdown(t("chapter.s342.body"))
    if not chapter.presenting:
        seed_col, _rest = st.columns([1, 2])
        with seed_col:
            v2_seed_input()


def _s342_code(chapter: Chapter) -> None:
    step = chapter.v2()
    if step is not None:
        _class_code(step, 2, "nn.Linear(d_in, d_out, bias=False)")


def _v2_weights(chapter: Chapter) -> None:
    step = chapter.v2()
    if step is not None:
        _weights(step, chapter.words, chapter.palette, "chapter_v2")


def v2_seed_input(*, compact: bool = False) -> None:
    """The seed of ``SelfAttention_v2``'s ``nn.Linear`` weights (the book's 789 first).

    ``compact``: presenter mode's strip, a short name beside the box (one row, not two).
    """
    if compact:
        name_column, place = st.columns([1.2, 1], vertical_alignment="center", gap="small")
        name_column.markdown(t("chapter.v2_seed_short"))
    else:
        place = st.container()
    widget(
        CHAPTER_SETTINGS[V2_SEED_KEY],
        container=place,
        label_visibility="collapsed" if compact else "visible",
    )


def _s342_context(chapter: Chapter) -> None:
    step = chapter.v2()
    if step is not None:
        _context(step, chapter.tokens, chapter.words, chapter.palette)


DROPOUT_DEMO_CODE = """torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5)  # dropout rate of 50%
example = torch.ones(6, 6)  # create a matrix of ones
print(dropout(example))
torch.manual_seed(123)
print(dropout(attn_weights))"""


def _s35_text(chapter: Chapter) -> None:
    st.header(t("chapter.s35.title"), anchor="s3-5")
    st.markdown(t("chapter.s35.body", seed=chapter.v2_seed))


def _v2_masking(chapter: Chapter) -> tuple[TrainableAttention, MaskingComparison] | None:
    """v2's scores masked both of the book's ways (:func:`attention.masking.compare_masking`)."""
    step = chapter.v2()
    if step is None:
        return None
    return step, compare_masking(step.attn_scores, step.d_k)  # (T, T) raw scores


def _masked_table(chapter: Chapter, weights: torch.Tensor, title: str, key: str) -> None:
    """A (T, T) table of masked weights, the future's cells greyed (0 there)."""
    tokens, words = chapter.tokens, chapter.words
    num_tokens = len(tokens)
    future = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool().numpy()
    view = rows_view(
        [weights], tokens, tokens, value_name=words.attention_weight, palette=chapter.palette,
        weights=True, title=title, row_title=words.query, col_title=words.key,
    )  # fmt: skip
    show_matrix(
        replace(view, hidden=future, hidden_value=0.0, hidden_name=words.future_masked),
        words,
        key=key,
    )


def _tril_weights(chapter: Chapter, weights_name: str, title_key: str) -> None:
    """3.5.1's first way, one of its tables: SelfAttention_v2's weights named ``weights_name`` in
    the masking comparison (``masked_simple``: softmax, then ``tril`` zeroes the future;
    ``attn_weights``: each row then divided by its new sum)."""
    masked = _v2_masking(chapter)
    if masked is not None:
        step, comparison = masked
        title = t(title_key, seed=step.seed)
        _masked_table(
            chapter, comparison.after_softmax[weights_name], title, title_key.replace(".", "_")
        )


def _tril_table(chapter: Chapter) -> None:
    """3.5.1, the book's first way, first half: softmax, then ``tril`` zeroes the future."""
    _tril_weights(chapter, "masked_simple", "chapter.masked_simple")


def _renormalised_table(chapter: Chapter) -> None:
    """3.5.1, the book's first way, second half: each row divided by its new sum."""
    _tril_weights(chapter, "attn_weights", "chapter.masked_simple_norm")


def _s35_neg_inf_text(chapter: Chapter) -> None:
    """3.5.1, then the book's −∞ way, and how far the two ways are apart, computed."""
    masked = _v2_masking(chapter)
    if masked is not None:
        difference = f"{masked[1].max_abs_difference:.1e}"
        st.markdown(t("chapter.s35.neg_inf", difference=difference))


def _s35_table(chapter: Chapter) -> None:
    """3.5.1's −∞ way: the future's scores at −∞, then softmax (v2's scores)."""
    masked = _v2_masking(chapter)
    if masked is None:
        return
    step, comparison = masked
    _masked_table(
        chapter,
        comparison.neg_inf["attn_weights"],
        t("chapter.masked_weights", seed=step.seed),
        "chapter_masked_weights",
    )


def _s352_text(chapter: Chapter) -> None:
    del chapter
    st.subheader(t("chapter.s352.title"), anchor="s3-5-2")
    st.markdown(t("chapter.s352.body"))


def _s352_code(chapter: Chapter) -> None:
    del chapter
    st.code(code_in_language(DROPOUT_DEMO_CODE), language="python")


def _s352_ones_table(chapter: Chapter) -> None:
    demo = dropout_demo(chapter.inputs, seed=BOOK_SEED_V1, p=BOOK_DROPOUT)
    positions = [str(i + 1) for i in range(len(chapter.tokens))]
    view = rows_view(
        [demo.ones], positions, positions, value_name=chapter.words.attention_weight,
        palette=chapter.palette, title=t("chapter.s352.ones"),
    )  # fmt: skip
    show_matrix(view, chapter.words, key="chapter_dropout_ones")


def _s352_weights_table(chapter: Chapter) -> None:
    tokens, words = chapter.tokens, chapter.words
    demo = dropout_demo(chapter.inputs, seed=BOOK_SEED_V1, p=BOOK_DROPOUT)
    view = rows_view(
        [demo.dropped_weights], tokens, tokens, value_name=words.attention_weight,
        palette=chapter.palette, title=t("chapter.s352.weights"), row_title=words.query,
        col_title=words.key,
    )  # fmt: skip
    show_matrix(view, words, key="chapter_dropout_weights")


def _s352_notes(chapter: Chapter) -> None:
    """The rows dropout emptied, and whether the two printouts are the book's."""
    tokens = chapter.tokens
    demo = dropout_demo(chapter.inputs, seed=BOOK_SEED_V1, p=BOOK_DROPOUT)
    for row in demo.vanished:
        st.info(
            t(
                "chapter.s352.vanished",
                token=escape_markdown(tokens[row.query]),
                number=row.query + 1,
                visible=row.visible,
                p=format_short(demo.p),
                chance=f"{row.chance:.4g}",
            )
        )
    differences = dropout_demo_differences(demo)
    if differences is not None and max(differences) <= PRINT_TOLERANCE:
        st.success(t("chapter.s352.book", ones=differences[0], weights=differences[1]))
    elif differences is not None:
        st.warning(t("chapter.s352.not_book", ones=differences[0], weights=differences[1]))


def diff_halves(diff: str) -> tuple[str, str]:
    """The diff cut where ``forward`` begins: ``__init__``'s changes, then ``forward``'s."""
    lines = diff.splitlines()
    cut = next(i for i, line in enumerate(lines) if "def forward(" in line)
    return "\n".join(lines[:cut]).rstrip(), "\n".join(lines[cut:])


def _diff_code(half: int, chapter: Chapter) -> None:
    """3.5: one half of the code from ``SelfAttention_v2`` to ``CausalAttention`` (the page says
    first what the diff is; a projector shows the code and why)."""
    if half == 0 and not chapter.presenting:
        st.markdown(t("chapter.diff_intro"))
    code = diff_halves(causal_diff())[half].splitlines()
    # the code, not the diff's file and hunk headers (---, +++, @@)
    code = [line for line in code if not line.startswith(("---", "+++", "@@"))]
    st.code(code_in_language("\n".join(code)), language="diff")


def _diff_why(half: int, chapter: Chapter) -> None:
    """Why each half of the diff changes: the mask, then dropout and the batch."""
    del chapter
    if half == 0:
        st.markdown(t("chapter.why_mask"))
    else:
        st.markdown(t("chapter.why_dropout"))
        st.caption(t("chapter.why_batch"))


S33, S341, S342, S35, S352 = (
    "chapter.s33.title",
    "chapter.s341.title",
    "chapter.s342.title",
    "chapter.s35.title",
    "chapter.s352.title",
)
WALK: Walk[Chapter] = Walk(
    page="chapter_path",
    entries=(
        Entry(  # 3.3.1: one query's scores, its weights two ways, its context; why softmax; 3.3.2
            "simple",
            lambda: t(S33),
            parts=(
                part(None, _s33_text, _s33_code, widths=(1, 1)),
                part(S33, _s33_tables),
                part(None, _softmax_intro, _softmax_inputs, widths=(1, 1)),
                part("chapter.softmax.title", _softmax_table),
                part("chapter.softmax.title", _softmax_sentences),
                part(None, _all_text, _all_scores, widths=(2, 3)),
                part(S33, _all_weights),
                part(S33, _all_context),
            ),
        ),
        Entry(  # 3.4.1: SelfAttention_v1's torch.rand weights, one query through them, every context
            "v1",
            lambda: t(S341),
            parts=(
                part(None, _s341_text, _s341_code, widths=(1, 1)),
                part(S341, _v1_weights),
                part(S341, _v1_query_text, _v1_query_rows),
                part(S341, _v1_context),
            ),
        ),
        Entry(  # 3.4.2: SelfAttention_v2's seed, code, nn.Linear weights and context
            "v2",
            lambda: t(S342),
            parts=(
                part(None, _s342_text, _s342_code, widths=(1, 1)),
                part(S342, _v2_weights),
                part(S342, _s342_context),
            ),
            keeps=(V2_SEED_KEY,),
        ),
        Entry(  # 3.5.1 masking both ways, 3.5.2 dropout's two draws, the diff to CausalAttention
            "causal",
            lambda: t(S35),
            parts=(
                part(None, _s35_text, _tril_table, widths=(2, 3)),
                part(S35, _renormalised_table),
                part(None, _s35_neg_inf_text, _s35_table, widths=(2, 3)),
                part(None, _s352_text, _s352_code, widths=(1, 1)),
                part(S352, _s352_ones_table),
                part(S352, _s352_weights_table, _s352_notes, widths=(3, 2)),
                *(
                    part(S35, partial(_diff_code, h), partial(_diff_why, h), widths=(2, 1))
                    for h in (0, 1)
                ),
            ),
        ),
    ),
    tabs_key="chapter_tabs",
    all_key="chapter_all",
    all_default=True,  # the chapter reads top to bottom; a link to a section opens its tab
)


def show_inputs(view: View, inputs: torch.Tensor, tokens: list[str], words: FigureWords) -> None:
    """The embeddings every section starts from, and where to edit them."""
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
            palette=view.palette,
            row_title=words.token,
            col_title=words.feature,
        ),
        words,
        key="chapter_inputs",
    )
    link_to_page(TABLE_PAGE, t("chapter.edit_link"), icon=":material/edit:")


def show_comparisons(chapter: Chapter, view: View) -> None:
    """The book's example (one click), and which sections equal the book's printouts now."""
    v2 = self_attention_v2(chapter.inputs, chapter.d_out, chapter.v2_seed, chapter.query_index)
    differences = chapter_comparisons(chapter.simple, chapter.v1, v2)
    compared = [d for d in differences.values() if d is not None]
    whole = max(compared) if len(compared) == len(differences) else None
    show_book_example(BOOK_EXAMPLES["chapter_path"], view, whole)
    agree = [name for name, d in differences.items() if d is not None and d <= PRINT_TOLERANCE]
    other = [name for name in differences if name not in agree]
    if agree:
        st.caption(t("chapter.compared", sections=", ".join(agree)))
    if other:
        st.caption(t("chapter.this_run", sections=", ".join(other)))


@page
def render(view: View) -> None:
    """Draw the page."""
    presenting = begin(WALK)
    words = figure_words()
    tokens = unique_labels(view.tokens)[:MAX_TOKENS]
    inputs = torch.tensor(view.table.values[:MAX_TOKENS], dtype=torch.float32)  # (T, d_in)
    if not presenting:
        st.title(t("page.chapter_path.title"))
        st.markdown(t("chapter.intro"))
        show_inputs(view, inputs, tokens, words)
    query_index = min(BOOK_QUERY_INDEX, len(tokens) - 1)
    d_out = view.config.d_out
    try:
        simple = simple_attention(inputs, query_index)
        v1 = self_attention_v1(inputs, d_out, view.config.seed, query_index)
    except AttentionInputError as error:
        show_input_error(error)
        return
    chapter = Chapter(
        inputs, tokens, words, view.palette, d_out, query_index, simple, v1, presenting
    )
    if not presenting:
        show_comparisons(chapter, view)
    if presenting:
        present(WALK, chapter, controls=lambda: v2_seed_input(compact=True))
        return
    show_walk(WALK, chapter)
    st.divider()
    st.markdown(t("chapter.next"))
    link_to_page("step", t("chapter.to_step"), icon=":material/arrow_forward:")
    link_to_page("multi_head", t("chapter.to_multi_head"), icon=":material/arrow_forward:")
