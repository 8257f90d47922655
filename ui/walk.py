"""A page that walks steps: a table of its entries, and everything a walk needs, written once.

A page that walks steps declares a :class:`Walk`: its entries in order, each an :class:`Entry`
(a name for the link, a tab label, a function that draws it, and, for presenter mode, the parts a
dense entry splits into). From that one table come

- the tabs (only the open tab runs, so a page sends one entry's figures), or every entry on one
  page with a toggle;
- the open entry in the link, ``?step=<name>``, checked against *this* page's entries (a bad name
  is a warning that lists them) and scrolled to;
- the keys (``ui/step_link.js``): ← → walk the tabs; in presenter mode a clicker's keys;
- presenter mode (``?present=1``): one screen at a time with First / Previous / Next / Last, the
  control strip (:func:`ui.sidebar.presenter_controls`) and, where a page has them, its own
  controls.

The page itself keeps one short ``render``: build the context its entries read (a trace, a
backward pass, a query row …), then ``if begin(WALK): present(WALK, context); return``, else draw
its top and ``show_walk(WALK, context)``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from string import ascii_lowercase
from typing import Generic, TypeVar

import streamlit as st

from .choices import write_back
from .class_mode import class_button
from .i18n import t
from .problem_reference import with_reference
from .sidebar import presenter_controls
from .step_link import (
    choose_step,
    open_part,
    open_step,
    presenting,
    record_open,
    register_walk,
    set_presenting,
    step_keys,
    take_link_step,
    take_pending,
)
from .table import message

Context = TypeVar("Context")
Draw = Callable[[Context], None]
SCROLL_KEY = "walk_scroll"  # counts the links that opened a step: the browser scrolls to each once


@dataclass(frozen=True)
class Entry(Generic[Context]):
    """One step of a walk.

    ``name``: in the link (``?step=<name>``). ``label``: the tab's label (called in the run, so
    in the page's language). ``draw``: the entry on the page. ``parts``: presenter mode's
    screens for a dense entry (each one a Next press), from the context; none: ``draw`` is one
    screen. ``keeps``: keys of widgets the entry draws, kept while it is not drawn.
    """

    name: str
    label: Callable[[], str]
    draw: Callable[[Context], None]
    parts: Callable[[Context], tuple[Callable[[Context], None], ...]] | None = None
    keeps: tuple[str, ...] = ()

    def screens(self, context: Context) -> tuple[Callable[[Context], None], ...]:
        return self.parts(context) if self.parts is not None else (self.draw,)


@dataclass(frozen=True)
class Walk(Generic[Context]):
    """A page's entries and how its tabs are kept.

    ``tabs_key``: the session key of the tabs (the open tab's label). ``all_key``: the key of an
    "every entry on one page" toggle (on by default if ``all_default``). ``fragment``: a tab
    switch reruns only the tabs (when nothing above them reads the entries' widgets).
    ``wrap``: a context manager around the open entry (the step page marks what changed).
    ``linked``: the open entry is in the link (``?step=``) and the keys walk it; the Train page
    draws the step page's entries for a trained model, unlinked.
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

    def __post_init__(self) -> None:
        if self.linked:
            register_walk(self.page, self.names)

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
    step_keys(
        present=presenting(),
        tabs_key=walk.tabs_key,
        scroll=int(st.session_state.get(SCROLL_KEY, 0)),
    )
    return presenting()


def _keep_widgets(walk: Walk[Context], drawn: set[str]) -> None:
    """Streamlit forgets a widget not drawn in a run: keep those of the entries not drawn."""
    write_back([key for entry in walk.entries if entry.name not in drawn for key in entry.keeps])


def _draw_tabs(walk: Walk[Context], context: Context, linked: bool) -> None:
    if walk.all_key is not None:
        if walk.all_key not in st.session_state:
            st.session_state[walk.all_key] = walk.all_default
        pending = st.session_state.get(f"walk_pending_{walk.page}") if linked else None
        if pending is not None and pending != walk.names[0]:
            st.session_state[walk.all_key] = False  # a link to a step opens its tab
        if st.toggle(t(walk.all_label), key=walk.all_key, help=t(f"{walk.all_label}_help")):
            take_pending(walk.page)
            for entry in walk.entries:
                with st.container(border=True):
                    entry.draw(context)
            return
    pending = take_pending(walk.page) if linked else None
    if pending is not None:
        st.session_state[walk.tabs_key] = walk.entry(pending).label()
    elif linked and walk.tabs_key not in st.session_state:
        st.session_state[walk.tabs_key] = walk.entry(open_step(walk.page)).label()
    tabs = st.tabs([entry.label() for entry in walk.entries], key=walk.tabs_key, on_change="rerun")
    drawn = set()
    for entry, tab in zip(walk.entries, tabs, strict=True):
        if tab.open:
            drawn.add(entry.name)
            if linked:
                record_open(walk.page, entry.name)
            with tab, walk.wrap() if linked else nullcontext():
                entry.draw(context)
    _keep_widgets(walk, drawn)


_draw_tabs_fragment = st.fragment(_draw_tabs)


def show_walk(walk: Walk[Context], context: Context) -> None:
    """The entries as tabs (only the open one runs), or all on one page with the toggle."""
    (_draw_tabs_fragment if walk.fragment else _draw_tabs)(walk, context, walk.linked)


# --- presenter mode ----------------------------------------------------------------------------


def _screens(walk: Walk[Context], context: Context) -> list[tuple[str, int, int]]:
    """Every screen of the walk: (entry name, part, number of parts), in order."""
    screens = []
    for entry in walk.entries:
        count = len(entry.screens(context))
        screens.extend((entry.name, part, count) for part in range(count))
    return screens


def screen_number(walk: Walk[Context], name: str, part: int, parts: int) -> str:
    """ "2" for a one-screen entry, "2a", "2b" … for the parts of a dense one."""
    number = str(walk.names.index(name) + 1)
    return number + ascii_lowercase[part] if parts > 1 else number


def _go(page: str, name: str, part: int) -> None:
    choose_step(page, name, part)


def _nav_button(
    key: str, label: str, icon: str, target: tuple[str, int, int] | None, page: str
) -> None:
    st.button(
        label,
        key=key,
        on_click=_go,
        args=(page, target[0], target[1]) if target is not None else (page, "", 0),
        disabled=target is None,
        icon=icon,
        width="stretch",
        help=t(f"present.{key.removeprefix('present_')}_help"),
    )


def _navigation(walk: Walk[Context], screens: list[tuple[str, int, int]], at: int) -> None:
    """First / Previous / Next / Last, where we are, and Leave (the keys press these buttons)."""
    page, last = walk.page, len(screens) - 1
    name, part, parts = screens[at]
    widths = [0.6, 1.1, 1.1, 0.6, 1.3, 1.1, 0.9]
    columns = st.columns(widths, vertical_alignment="center", gap="small")
    with columns[0]:
        _nav_button("present_first", "", ":material/first_page:", screens[0] if at else None, page)
    with columns[1]:
        target = screens[at - 1] if at > 0 else None
        _nav_button(
            "present_previous", t("present.previous"), ":material/arrow_back:", target, page
        )
    with columns[2]:
        target = screens[at + 1] if at < last else None
        _nav_button("present_next", t("present.next"), ":material/arrow_forward:", target, page)
    with columns[3]:
        target = screens[last] if at < last else None
        _nav_button("present_last", "", ":material/last_page:", target, page)
    columns[4].markdown(
        t(
            "present.count",
            number=screen_number(walk, name, part, parts),
            total=len(walk.entries),
        )
    )
    columns[5].button(
        t("present.leave"),
        key="present_leave",
        on_click=set_presenting,
        args=(page, False),
        icon=":material/close_fullscreen:",
        width="stretch",
        help=t("present.leave_help"),
    )
    with columns[6]:
        class_button("bar")  # start a class / its link, QR and end (ui/class_mode.py)


def present(
    walk: Walk[Context],
    context: Context,
    *,
    controls: Callable[[], None] | None = None,
) -> None:
    """Presenter mode: one screen at a time, the navigation and the control strip above it.

    ``controls``: the page's own one or two controls, drawn at the end of the strip.
    """
    screens = _screens(walk, context)
    name, part = open_step(walk.page), open_part(walk.page)
    _keep_widgets(walk, {name})  # before any widget of this run is drawn
    spots = [i for i, screen in enumerate(screens) if screen[0] == name]
    at = spots[min(part, len(spots) - 1)]
    with st.container(key="present_bar"):
        _navigation(walk, screens, at)
        presenter_controls(controls)
    entry = walk.entry(name)
    with st.container(key=f"present_step_{name}"):
        entry.screens(context)[screens[at][1]](context)
