"""A page that walks steps: a table of its entries, and everything a walk needs, written once.

A page declares a :class:`Walk` of :class:`Entry` (a name for the link, a label, its parts: one
presenter screen each, one below another on the page). From that one table come the strip of steps
(one segmented control; only the open entry runs) or every entry on one page with a toggle; the
open entry in the link, ``?step=<name>``, checked against this page's entries; the keys (← →
walk the strip); and presenter mode, one screen at a time under the deck's bar (:mod:`ui.deck`).

A page's ``render`` builds the context its entries read, then ``if begin(WALK): present(WALK,
context); return``, else draws its top and ``show_walk(WALK, context)``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import Generic, TypeVar

import streamlit as st

from .choices import write_back
from .deck import Screen, fill_bar, register_titles, screen_title
from .i18n import t
from .problem_reference import with_reference
from .run_slots import slotted
from .step_link import (
    open_part,
    open_step,
    presenting,
    record_open,
    register_walk,
    step_keys,
    take_link_step,
    take_pending,
)
from .table import message

Context = TypeVar("Context")
Draw = Callable[[Context], None]
Parts = tuple["Part[Context] | Draw[Context]", ...]  # an entry's screens
SCROLL_KEY = "walk_scroll"  # counts the links that opened a step: the browser scrolls to each once


@dataclass(frozen=True)
class Part(Generic[Context]):
    """A share of an entry that is one presenter screen: the page and the deck draw the same pieces.

    On the page its ``pieces`` are drawn one below another; presenting, under ``title`` (a message
    key; none: a piece draws its own header), side by side in ``widths`` if given (a projector
    is wide, not tall). Made with :func:`part`.
    """

    title: str | None
    pieces: tuple[Draw[Context], ...]
    widths: tuple[float, ...] = ()

    def show(self, context: Context, *, presenting: bool = False) -> None:
        if presenting and self.title is not None:
            st.subheader(t(self.title), anchor=False)
        beside = presenting and self.widths
        places = st.columns(list(self.widths), gap="medium") if beside else None
        for index, piece in enumerate(self.pieces):
            with places[index] if places else nullcontext():
                piece(context)


def part(
    title: str | None, *pieces: Draw[Context], widths: tuple[float, ...] = ()
) -> Part[Context]:
    """A presenter screen of ``pieces`` under ``title`` (side by side in ``widths``), one below
    another on the page."""
    return Part(title, pieces, widths)


@dataclass(frozen=True)
class Entry(Generic[Context]):
    """One step of a walk.

    ``name``: in the link (``?step=<name>``). ``label``: its label in the strip (called in the run, so
    in the page's language). ``parts``: presenter mode's screens (each one a Next press), from the
    context or fixed: a :class:`Part` or a function that draws one. ``draw``: the entry on the
    page; none: its parts one below another. No parts: ``draw`` is one screen. ``keeps``: keys
    of widgets the entry draws, kept while it is not drawn.
    """

    name: str
    label: Callable[[], str]
    draw: Draw[Context] | None = None
    parts: Parts[Context] | Callable[[Context], Parts[Context]] | None = None
    keeps: tuple[str, ...] = ()

    def _parts(self, context: Context) -> Parts[Context]:
        return self.parts(context) if callable(self.parts) else self.parts or ()

    def show(self, context: Context) -> None:
        """The entry on the page."""
        if self.draw is not None:
            self.draw(context)
            return
        for piece in self._parts(context):
            piece.show(context) if isinstance(piece, Part) else piece(context)

    def screens(self, context: Context) -> tuple[Draw[Context], ...]:
        """Presenter mode's screens, in order."""
        if self.parts is None and self.draw is not None:
            return (self.draw,)
        return tuple(
            partial(piece.show, presenting=True) if isinstance(piece, Part) else piece
            for piece in self._parts(context)
        )


@dataclass(frozen=True)
class Walk(Generic[Context]):
    """A page's entries and how its strip of steps is kept.

    ``tabs_key``: the session key of the strip (the open entry's label; the key of a page's own
    ``st.tabs`` where it draws them). ``all_key``: the key of an "every entry on one page" toggle
    (on by default if ``all_default``). ``fragment``: a step switch reruns only the strip and its
    entry (when nothing above them reads the entries' widgets).
    ``wrap``: a context manager around the open entry (the step page marks what changed).
    ``linked``: the open entry is in the link (``?step=``) and the keys walk it; the Train page
    draws the step page's entries for a trained model, unlinked. ``ignores``: settings of the
    deck's strip the page does not read (the bar says so: the KV cache has no dropout).
    """

    page: str
    entries: tuple[Entry[Context], ...]
    tabs_key: str
    all_key: str | None = None
    all_default: bool = False
    all_label: str = "walk.all_toggle"
    fragment: bool = False
    wrap: Callable[[], AbstractContextManager[object]] = field(default=nullcontext)
    linked: bool = True
    ignores: tuple[str, ...] = ()  # settings of the deck's strip the page does not read

    def __post_init__(self) -> None:
        if self.linked:
            register_walk(self.page, self.names)
            titles = {entry.name: entry.label for entry in self.entries}
            register_titles(self.page, titles, self.ignores)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in self.entries)

    def entry(self, name: str) -> Entry[Context]:
        return self.entries[self.names.index(name)]


def begin(walk: Walk[Context]) -> bool:
    """At the top of the page: check the link's step, mount the keys; True in presenter mode."""
    bad = take_link_step(walk.page)
    if bad is not None:
        st.warning(with_reference(message(bad), bad), icon="⚠️")
    elif st.session_state.get(f"walk_pending_{walk.page}") not in (None, walk.names[0]):
        st.session_state[SCROLL_KEY] = st.session_state.get(SCROLL_KEY, 0) + 1
    if presenting():
        return True  # the frame mounted the keys and the deck's bar
    step_keys(
        present=False, tabs_key=walk.tabs_key, scroll=int(st.session_state.get(SCROLL_KEY, 0))
    )
    return False


def _keep_widgets(walk: Walk[Context], drawn: set[str]) -> None:
    """Streamlit forgets a widget not drawn in a run: keep those of the entries not drawn."""
    write_back([key for entry in walk.entries if entry.name not in drawn for key in entry.keeps])


def _draw_tabs(walk: Walk[Context], context: Context, linked: bool) -> None:
    if walk.all_key is not None:
        if walk.all_key not in st.session_state:
            st.session_state[walk.all_key] = walk.all_default
        pending = st.session_state.get(f"walk_pending_{walk.page}") if linked else None
        if pending is not None and pending != walk.names[0]:
            st.session_state[walk.all_key] = False  # a link to a step opens it alone
        if st.toggle(t(walk.all_label), key=walk.all_key, help=t(f"{walk.all_label}_help")):
            take_pending(walk.page)
            for entry in walk.entries:
                with st.container(border=True):
                    entry.show(context)
            return
    labels = [entry.label() for entry in walk.entries]
    pending = take_pending(walk.page) if linked else None
    if pending is not None:
        st.session_state[walk.tabs_key] = walk.entry(pending).label()
    elif st.session_state.get(walk.tabs_key) not in labels:  # first run, or another language
        st.session_state[walk.tabs_key] = (
            walk.entry(open_step(walk.page)).label() if linked else labels[0]
        )
    # One strip of steps (a radio group): one element, where tabs are one per entry
    # (benchmarks/README.md, "A strip of steps instead of tabs").
    chosen = st.segmented_control(
        t("walk.strip_label"),
        labels,
        key=walk.tabs_key,
        required=True,
        label_visibility="collapsed",
    )
    entry = walk.entries[labels.index(chosen)]
    if linked:
        record_open(walk.page, entry.name)
    with walk.wrap() if linked else nullcontext():
        entry.show(context)
    _keep_widgets(walk, {entry.name})


_draw_tabs_fragment = st.fragment(slotted(_draw_tabs))


def show_walk(walk: Walk[Context], context: Context) -> None:
    """The entries as a strip of steps (only the open one runs), or all on one page with the
    toggle."""
    (_draw_tabs_fragment if walk.fragment else _draw_tabs)(walk, context, walk.linked)


# --- presenter mode ----------------------------------------------------------------------------


def _screens(walk: Walk[Context], context: Context) -> list[Screen]:
    """Every screen of the walk, in order: each entry's parts (one, for most entries)."""
    screens = []
    for entry in walk.entries:
        count, title = len(entry.screens(context)), screen_title(entry.label())
        screens.extend(Screen(walk.page, entry.name, part, count, title) for part in range(count))
    return screens


def present(
    walk: Walk[Context], context: Context, *, controls: Callable[[], None] | None = None
) -> None:
    """Presenter mode: the open screen alone, under the deck's bar (:mod:`ui.deck`).

    ``controls``: the page's own one or two controls, drawn at the end of the bar's strip.
    """
    screens = _screens(walk, context)
    name, part = open_step(walk.page), open_part(walk.page)
    _keep_widgets(walk, {name})  # before any widget of this run is drawn
    spots = [i for i, screen in enumerate(screens) if screen.name == name]
    at = spots[min(part, len(spots) - 1)]
    fill_bar(screens, at, controls=controls)
    with st.container(key=f"present_step_{name}"):
        walk.entry(name).screens(context)[screens[at].part](context)
