"""Find the bug: a gallery bug run on the learner's numbers, beside the book's class.

Everything comes from :func:`attention.bugs.compare_bug` (book and bug on the same weights,
inputs and dropout draws): the changed line, how to spot it, the future-leak test, the row sums,
training against eval, and the steps that change, side by side. A learner's own class is never
run here (that is ``python -m attention check``).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from functools import partial
from textwrap import dedent

import numpy as np
import streamlit as st

from attention import AttentionInputError
from attention.bugs import BUGS, Bug, BugComparison
from ui.book_code import code_in_language
from ui.bug_choice import SELECT_KEY, choose_bug, chosen_bug
from ui.computation import compute_bug_comparison
from ui.frame import page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.show import figure_words, show_matrix
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView
from viz.vocabulary import context_labels, format_difference, format_number

TABLE_DECIMALS = 3  # book and bug side by side fit a 1280-pixel screen with six tokens
SQUARE_ENTRIES = (
    "attn_scores",
    "masked_scores",
    "scaled_scores",
    "attn_weights",
    "dropped_weights",
)
VECTOR_ENTRIES = ("queries", "keys", "values", "context", "output")


LISTED = 12  # a longer list of tokens or row sums shows its first LISTED and "…"
LAST_KEY = "find_the_bug_last"  # (bug, table, config) of the last comparison shown


def _listed(items: list[str]) -> str:
    return ", ".join(items[:LISTED]) + (", …" if len(items) > LISTED else "")


def _number(value: float) -> str:
    return t("find_the_bug.nan") if math.isnan(value) else format_number(value)


@dataclass(frozen=True)
class Found:
    """What the page's screens read: the bug, its comparison with the book, the tokens."""

    name: str
    comparison: BugComparison
    tokens: list[str]
    palette: str


def choose(titles: dict[str, str]) -> str:
    """The bug picker (in the page, and in the deck's bar); the choice goes into the link."""
    if SELECT_KEY not in st.session_state:  # the link's choice, or the one made before
        st.session_state[SELECT_KEY] = chosen_bug()
    name = st.selectbox(
        t("find_the_bug.choose"),
        list(BUGS),
        format_func=titles.__getitem__,
        key=SELECT_KEY,
        filter_mode=None,  # a list to pick from: no search box raising a phone's keyboard
    )
    choose_bug(name)  # into the link (?bug=)
    return name


def _steps_screen(found: Found, sides: tuple[str, ...] = ("book", "bug")) -> None:
    _show_changed_steps(found.name, found.comparison, found.tokens, found.palette, sides)


def _output_screen(found: Found) -> None:
    if _changed(found.comparison):
        _show_output_difference(found.comparison, found.tokens, found.palette)
    else:
        st.info(t("find_the_bug.steps.none"))


# The page's screens: the changed line, the three checks, the changed step (book, then bug, in
# presenter mode: two 6 × 6 tables do not fit side by side on a projector), the output's change
WALK: Walk[Found] = Walk(
    page="find_the_bug",
    entries=(
        Entry(
            "diff",
            lambda: t("find_the_bug.diff.header"),
            lambda found: _show_bug(found.name, found.comparison, found.tokens),
        ),
        Entry(
            "checks",
            lambda: t("find_the_bug.checks.header"),
            lambda found: _show_checks(found.comparison, found.tokens),
        ),
        Entry(
            "steps",
            lambda: t("find_the_bug.steps.header"),
            _steps_screen,
            parts=lambda found: (
                (partial(_steps_screen, sides=("book",)), partial(_steps_screen, sides=("bug",)))
                if _changed(found.comparison)
                else (_steps_screen,)
            ),
        ),
        Entry("output", lambda: t("find_the_bug.output.header"), _output_screen),
    ),
    tabs_key="find_the_bug_tabs",
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    titles = {n: t(f"find_the_bug.bug.{n}") for n in BUGS}  # read now, in this run's language
    if not presenting:
        st.title(t("page.find_the_bug.title"))
        st.markdown(t("find_the_bug.intro"))
        choose(titles)
    if view.config.window is not None:  # the bugs are slips in the book's classes: no window
        st.caption(t("find_the_bug.window_unused", window=view.config.window))
    shown = _comparison(st.session_state.get(SELECT_KEY) or chosen_bug(), view, titles)
    if shown is None:
        return
    found = Found(*shown, view.palette)
    if presenting:
        present(WALK, found, controls=lambda: choose(titles))
        return
    _show_bug(found.name, found.comparison, found.tokens)
    _show_checks(found.comparison, found.tokens)
    if _show_changed_steps(found.name, found.comparison, found.tokens, view.palette):
        _show_output_difference(found.comparison, found.tokens, view.palette)


def _comparison(
    name: str, view: View, titles: dict[str, str]
) -> tuple[str, BugComparison, list[str]] | None:
    """Bug ``name`` on the view's table (cached), with its tokens; under a refusal (too large to
    trace, say) the message and the last comparison this session saw, or None if there is none.
    """
    cfg = view.config_with(num_heads=view.heads)
    try:
        comparison = compute_bug_comparison(name, view.table, cfg)
    except AttentionInputError as error:
        show_input_error(error)
        last = st.session_state.get(LAST_KEY)
        if last is None:
            return None
        st.caption(t("find_the_bug.last_shown", bug=titles[last[0]], tokens=last[1].num_tokens))
        return last[0], compute_bug_comparison(*last), list(last[1].tokens)
    st.session_state[LAST_KEY] = (name, view.table, cfg)
    return name, comparison, view.tokens


def statement_count(code: str) -> int:
    """How many statements ``code`` holds (a call over several lines is one; a comment, none)."""
    return len(ast.parse(dedent(code)).body)


def _statements(count: int) -> str:
    if count == 1:
        return t("find_the_bug.statements.one")
    return t("find_the_bug.statements.many", count=count)


def change_size(bug: Bug) -> str:
    """How much the bug changes, counted from its diff: statements of the book's, and its own."""
    book, own = len(bug.book_anchors), statement_count(bug.code)
    first, last = bug.book_line_numbers
    if first == last:
        where = t("find_the_bug.where.line", line=first)
    else:
        where = t("find_the_bug.where.lines", first=first, last=last)
    if book == 1 and own == 1:
        return t("find_the_bug.size.one", where=where)
    if own == 0:
        return t("find_the_bug.size.left_out", book=_statements(book), where=where)
    return t(
        "find_the_bug.size.replaced", book=_statements(book), own=_statements(own), where=where
    )


def _show_bug(name: str, comparison: BugComparison, tokens: list[str]) -> None:
    """The changed line as a diff beside how to spot the bug."""
    bug = BUGS[name]
    code_column, spot_column = st.columns([3, 2], gap="medium")
    with code_column:
        st.subheader(t("find_the_bug.diff.header"))
        st.markdown(change_size(bug))
        first, last = bug.book_line_numbers
        st.code(code_in_language(bug.diff), language="diff", wrap_lines=True)
        if bug.cached:
            st.caption(t("find_the_bug.diff.caption_cache", file=bug.book_file, lines=first))
        elif first == last:
            st.caption(t("find_the_bug.diff.caption", lines=first))
        else:
            st.caption(t("find_the_bug.diff.caption_many", lines=f"{first}–{last}"))
    with spot_column:
        st.subheader(t("find_the_bug.spot.header"))
        st.info(t(f"find_the_bug.spot.{name}"))
        if bug.cached:
            _cached_note(comparison, tokens)
        elif bug.multi_head:
            st.caption(
                t(
                    "find_the_bug.heads.note",
                    heads=comparison.num_heads,
                    d_out=int(comparison.book["output"].shape[-1]),
                )
            )


def _cached_note(comparison: BugComparison, tokens: list[str]) -> None:
    """A KV-cache bug: how both sides fed the tokens, and how close the book's side is."""
    difference = comparison.full_pass_difference
    st.caption(
        t(
            "find_the_bug.cached.note",
            prompt=len(tokens) - 1,
            token=escape_markdown(tokens[-1]),
            heads=comparison.num_heads,
            d_out=int(comparison.book["output"].shape[-1]),
            difference="–" if difference is None else format_difference(difference),
        )
    )


def _show_checks(comparison: BugComparison, tokens: list[str]) -> None:
    """The three checks: the largest difference, the future-leak test, the row sums; eval mode."""
    st.subheader(t("find_the_bug.checks.header"))
    sums = comparison.row_sums
    rows_sum_to_one = bool(np.allclose(sums.numpy(), 1.0, atol=1e-5))
    difference, leak, rows = st.columns(3)
    nan_rows = [i for i, row in enumerate(comparison.buggy["output"]) if bool(row.isnan().any())]
    largest = comparison.max_difference
    difference.metric(
        t("find_the_bug.metric.difference"),
        t("find_the_bug.metric.nan") if math.isnan(largest) else format_number(largest),
    )
    leak.metric(
        t("find_the_bug.metric.leak"),
        t("find_the_bug.yes") if comparison.future_leak else t("find_the_bug.no"),
    )
    rows.metric(
        t("find_the_bug.metric.rows"),
        t("find_the_bug.yes") if rows_sum_to_one else t("find_the_bug.no"),
    )
    if nan_rows:
        names = _listed([f"“{escape_markdown(tokens[i])}”" for i in nan_rows])
        st.markdown(t("find_the_bug.nan_rows", rows=len(nan_rows), total=len(tokens), tokens=names))
    last_token = escape_markdown(tokens[comparison.leak_position])  # the learner's words
    moved = [escape_markdown(tokens[i]) for i in np.flatnonzero(comparison.moved.numpy())]
    if moved:
        st.markdown(t("find_the_bug.leak.moved", token=last_token, moved=_listed(moved)))
    else:
        st.markdown(t("find_the_bug.leak.none", token=last_token))
    st.markdown(t("find_the_bug.rows.text", sums=_listed([_number(float(s)) for s in sums])))
    st.markdown(
        t(
            "find_the_bug.modes.text",
            train=_number(comparison.train_eval["train"]),
            eval=_number(comparison.train_eval["eval"]),
        )
    )


def _changed(comparison: BugComparison) -> list[str]:
    """The steps the bug changes that the page can draw."""
    return [
        entry
        for entry in comparison.changed_steps
        if entry in SQUARE_ENTRIES or entry in VECTOR_ENTRIES
    ]


def _show_changed_steps(
    name: str,
    comparison: BugComparison,
    tokens: list[str],
    palette: str,
    sides: tuple[str, ...] = ("book", "bug"),
) -> bool:
    """The chosen changed step, book and bug side by side; ``False`` when no step changes."""
    st.subheader(t("find_the_bug.steps.header"))
    changed = _changed(comparison)
    if not changed:
        st.info(t("find_the_bug.steps.none"))
        return False
    entry_titles = {e: t(f"find_the_bug.entry.{e}") for e in changed}
    entry = st.radio(
        t("find_the_bug.steps.choose"),
        changed,
        format_func=entry_titles.__getitem__,
        horizontal=True,
        key=f"find_the_bug_step_{name}",
    )
    words = figure_words()
    both = (
        ("book", comparison.book, t("find_the_bug.book")),
        ("bug", comparison.buggy, t("find_the_bug.buggy")),
    )
    shown = [(steps, steps["mask"], title) for side, steps, title in both if side in sides]
    for column, (steps, mask, title) in zip(st.columns(2, gap="small"), shown, strict=False):
        with column:
            show_matrix(
                _entry_view(entry, steps, mask, tokens, title, palette),
                words,
                key=f"find_the_bug_{'bug' if steps is comparison.buggy else 'book'}_step",
            )
    return True


def _show_output_difference(comparison: BugComparison, tokens: list[str], palette: str) -> None:
    """The bug's output minus the book's, ``(T, d_out)``, as a diverging table."""
    st.subheader(t("find_the_bug.output.header"))
    gap = comparison.output_difference.numpy()  # (T, d_out)
    show_matrix(
        MatrixView(
            values=gap,
            row_labels=tuple(tokens),
            col_labels=tuple(context_labels(gap.shape[-1])),
            palette=palette,
            kind="diverging",
            value_name=t("find_the_bug.value.difference"),
            row_title=t("step.axis.token"),
        ),
        figure_words(),
        key="find_the_bug_difference",
    )


def _entry_view(
    entry: str, steps: dict, mask: object, tokens: list[str], title: str, palette: str
) -> MatrixView:
    """One step's matrix (head 1 of a multi-head run) as a coloured table's description."""
    values = steps[entry].numpy()
    if values.ndim == 3:
        values = values[0]  # (h, T, T) or (h, T, head_dim) -> head 1
    square = entry in SQUARE_ENTRIES
    masked = entry in ("masked_scores", "scaled_scores")
    return MatrixView(
        values=values,
        row_labels=tuple(tokens),
        col_labels=tuple(tokens if square else context_labels(values.shape[-1])),
        palette=palette,
        kind="sequential" if entry in ("attn_weights", "dropped_weights") else "diverging",
        zrange=(0.0, 1.0) if entry == "attn_weights" else None,
        hidden=np.isneginf(values) if masked else None,
        decimals=TABLE_DECIMALS,
        title=title,
        row_title=t("step.axis.query" if square else "step.axis.token"),
        col_title=t("step.axis.key") if square else "",
        value_name=t(f"find_the_bug.entry.{entry}"),
    )
