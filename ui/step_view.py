"""The ten steps of one attention forward pass, drawn from a one-head trace: one renderer.

Draws :data:`viz.screens.SCREENS` with Streamlit: :func:`draw_step` for a page,
:func:`draw_screen` for presenter mode, :func:`step_walk` for the walk of ten lazy tabs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial

import streamlit as st

from attention import AttentionTrace
from attention.steps import STEPS, step_number
from viz.screens import (
    SCREEN_OF,
    SCREENS,
    Figure,
    Sentence,
    Shown,
    StepScreen,
    figure_values,
)
from viz.screens import figure_view as build_view
from viz.vocabulary import COMPACT_DECIMALS, format_number

from .book_code import show_book_code
from .i18n import t
from .show import figure_words, marking_changes, show_matrix
from .walk import Entry, Walk, show_walk

# The steps whose sentences point at the sidebar or the page's input table: presenter mode says
# the same with what its screen shows (``present.step.<name>.body``).
PRESENTER_NOTES = ("embeddings", "weights")
MAX_FIGURE_COLUMNS = (
    14  # figures stand side by side while their columns add up to this (two 7-wide)
)
# The step that shows a field first keeps the field's plain keys (``step_fig_attn_weights``); a
# later step showing it again (dropout's "before") prefixes its own name.
FIRST_SHOWN = {f.field: s.name for s in reversed(SCREENS) for f in s.figures}


class StepDrawing:
    """What the ten steps are drawn from: a trace and how to draw it (step page, Train page)."""

    def __init__(
        self,
        trace: AttentionTrace,
        tokens: list[str],
        palette: str,
        *,
        key_prefix: str = "step",
        notes: Mapping[str, str] | None = None,
        seeded_weights: bool = True,
        present: bool = False,
    ) -> None:
        """``notes``: a step's name → the message key replacing its body (a trained model's
        page); ``seeded_weights=False``: trained weights; ``present``: presenter mode."""
        self.shown = Shown(trace, tokens, seeded_weights=seeded_weights, present=present)
        self.palette = palette
        self.key_prefix = key_prefix
        self.notes = dict(notes or {})
        if present:
            self.notes = {
                name: f"present.step.{name}.body" for name in PRESENTER_NOTES
            } | self.notes
        self.words = figure_words()  # the figures' words in the page's language

    @property
    def trace(self) -> AttentionTrace:
        return self.shown.trace


# --- the pieces of a screen ------------------------------------------------------------------


def _text(sentence: Sentence) -> str:
    values = {
        name: "; ".join(_text(part) for part in value) if isinstance(value, tuple) else value
        for name, value in sentence.values.items()
    }
    return t(sentence.key, **values)


def write(sentence: Sentence) -> None:
    """One sentence, set in its style."""
    if sentence.style == "code":
        st.code(sentence.values["code"], language="python")
    elif sentence.style == "latex":
        st.latex(sentence.values["latex"])
    elif sentence.style == "caption":
        st.caption(_text(sentence))
    elif sentence.style == "info":
        st.info(_text(sentence), icon="ℹ️")
    else:
        st.markdown(_text(sentence))


def heading(drawing: StepDrawing, name: str, *, body: bool = True) -> None:
    """The step's heading, numbered by its place in the registry, and (``body``) its body text."""
    title = t("step.heading", number=step_number(name), title=t(f"step.{name}.title"))
    st.subheader(title, anchor=f"step-{name}" if body else False)
    if body:
        values = {"tokens": drawing.trace.num_tokens, "d_in": drawing.trace.d_in}
        values |= {"seed": drawing.trace.config.seed, "d_out": drawing.shown.d_out}
        values |= {"d_k": drawing.trace.d_k, "sqrt_dk": format_number(drawing.trace.scale)}
        st.markdown(t(drawing.notes.get(name, f"step.{name}.body"), **values))


def figure(
    drawing: StepDrawing, screen: StepScreen, shown_figure: Figure, *, compact: bool = False
) -> None:
    """One matrix (its title, its coloured table or, large, its picture and zoom window).

    ``compact``: two decimals, where four do not fit (two matrices side by side on a slide)."""
    trace, tokens = drawing.trace, drawing.shown.tokens
    field = shown_figure.field
    key = field if FIRST_SHOWN[field] == screen.name else f"{screen.name}_{field}"
    if shown_figure.title:
        st.markdown(f"**{t(shown_figure.title)}**")
    view = build_view(shown_figure, trace, tokens, drawing.words, palette=drawing.palette)
    if compact:
        view = replace(view, decimals=min(view.decimals, COMPACT_DECIMALS))
    show_matrix(view, drawing.words, key=f"{drawing.key_prefix}_fig_{key}")


def _beside(sentence: Sentence) -> bool:
    """Code and formulas go beside the text, in the formula's column."""
    return sentence.style in ("code", "latex")


def _width(drawing: StepDrawing, group: Sequence[Figure]) -> int:
    """The columns a group needs side by side (a bias stands under its weight, adding none)."""
    return sum(figure_values(f, drawing.trace).shape[1] for f in group if f.rows != "bias")


def _group(drawing: StepDrawing, screen: StepScreen, group: Sequence[Figure]) -> None:
    """A group's figures side by side while they fit (dropout's before | after), else stacked."""
    beside = sum(f.rows != "bias" for f in group) > 1
    beside = beside and _width(drawing, group) <= MAX_FIGURE_COLUMNS
    places = st.columns(len(group), gap="small") if beside else [st.container() for _ in group]
    for place, shown_figure in zip(places, group, strict=True):
        with place:
            figure(drawing, screen, shown_figure, compact=beside and drawing.shown.present)


def _figures(drawing: StepDrawing, screen: StepScreen, groups: Sequence[Sequence[Figure]]) -> None:
    """Groups side by side while their columns fit a row (W_q | W_k | W_v; dropout's weights |
    its coin flips), a new row when the next would not fit."""
    rows: list[list[Sequence[Figure]]] = []
    for group in (group for group in groups if group):
        widths = sum(_width(drawing, g) for g in rows[-1]) if rows else MAX_FIGURE_COLUMNS
        if widths + _width(drawing, group) <= MAX_FIGURE_COLUMNS:
            rows[-1].append(group)
        else:
            rows.append([group])
    for row in rows:
        if len(row) == 1:
            _group(drawing, screen, row[0])
            continue
        for place, group in zip(st.columns(len(row), gap="medium"), row, strict=True):
            with place:
                for shown_figure in group:
                    figure(drawing, screen, shown_figure)


def _layout(
    drawing: StepDrawing,
    screen: StepScreen,
    figures: Sequence[Figure],
    sentences: Sequence[Sentence],
    formulas: Sequence[str],
    head: Callable[[], None],
    groups: Sequence[Sequence[Figure]] = (),
) -> None:
    """One matrix: text and formulas on the left, the matrix on the right. Several (or none):
    text and formulas in a row, then the figures in ``groups``."""
    if sum(f.rows != "bias" for f in figures) == 1:  # one matrix (and a bias under it)
        left, right = st.columns([2, 3], gap="medium")
        with left:
            head()
            for sentence in sentences:
                write(sentence)
            for formula in formulas:
                st.latex(formula)
        with right:
            for shown_figure in figures:
                figure(drawing, screen, shown_figure)
        return
    text_place, formula_place = st.columns([3, 2], gap="medium")
    with text_place:
        head()
        for sentence in sentences:
            if not _beside(sentence):
                write(sentence)
    with formula_place:
        for formula in formulas:
            st.latex(formula)
        for sentence in sentences:
            if _beside(sentence):
                write(sentence)
    if figures:
        _figures(drawing, screen, groups or (figures,))


def _aside(screen: StepScreen) -> None:
    """A piece of the book's code beside what it says (the mask's ``register_buffer``)."""
    assert screen.aside is not None
    key, code = screen.aside
    text_place, code_place = st.columns([3, 2], gap="medium")
    with text_place:
        st.markdown(t(key))
    with code_place:
        st.code(code, language="python")


# --- a step on the page, a screen in the deck -------------------------------------------------


def draw_step(drawing: StepDrawing, name: str) -> None:
    """Step ``name`` on the page: every figure and sentence, then the book's lines."""
    screen, shown = SCREEN_OF[name], drawing.shown
    figures = screen.shown_figures(shown)
    sentences = screen.said(shown)
    head = partial(heading, drawing, name)
    groups = screen.screens(shown) if screen.deck else [(f,) for f in figures]
    _layout(drawing, screen, figures, sentences, screen.formulas(shown), head, groups)
    if screen.aside:
        _aside(screen)
    show_book_code(name)


def draw_screen(drawing: StepDrawing, name: str, index: int) -> None:
    """Screen ``index`` of step ``name`` in presenter mode: its figures and its sentences."""
    screen, shown = SCREEN_OF[name], drawing.shown
    groups = screen.screens(shown)
    if screen.aside and index == len(groups) - 1:
        heading(drawing, name, body=False)
        _aside(screen)
        return
    sentences = [s for s in screen.said(shown) if index in s.screens]
    formulas = screen.formulas(shown) if index == 0 else ()
    head = partial(heading, drawing, name, body=index == 0)
    _layout(drawing, screen, groups[index], sentences, formulas, head)


def _screens(drawing: StepDrawing, name: str) -> tuple[Callable[[StepDrawing], None], ...]:
    count = len(SCREEN_OF[name].screens(drawing.shown))
    return tuple(partial(draw_screen, name=name, index=index) for index in range(count))


def tab_label(name: str) -> str:
    """The short label of a step's tab, numbered by its place in the registry: "8 · Softmax"."""
    return t("step.tab_label", number=step_number(name), tab=t(f"step.{name}.tab"))


def step_walk(
    page: str, tabs_key: str, *, all_key: str | None = None, linked: bool = True
) -> Walk[StepDrawing]:
    """The ten steps as a walk: one entry per step of ``attention.steps.STEPS``, by its name.

    The tab strip is a fragment: a tab switch reruns only the tabs, not the page above them.
    """
    return Walk(
        page=page,
        entries=tuple(
            Entry(
                step.name,
                partial(tab_label, step.name),
                partial(draw_step, name=step.name),
                parts=partial(_screens, name=step.name),
            )
            for step in STEPS
        ),
        tabs_key=tabs_key,
        all_key=all_key,
        all_label="step.all_toggle",
        fragment=True,
        wrap=marking_changes,
        linked=linked,
    )


def show_steps(drawing: StepDrawing, *, key: str, all_toggle: str | None = None) -> None:
    """The steps of ``drawing`` as tabs that are not in the link (the Train page's trained head)."""
    show_walk(step_walk(key, key, all_key=all_toggle, linked=False), drawing)
