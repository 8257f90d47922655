"""Presenter mode as one deck: the bar on every screen, one counter, a lecture across pages.

While presenting (``?present=1``) every page gets the bar: a page that walks screens fills it,
any other still gets one (never a dead end; Esc always leaves), with the control strip under it.
A **lecture** (``?lecture=chapter_path.v1,step.softmax``) walks screens of several pages with one
counter; it travels in the link and as a text file. The main area is one logical canvas
(:data:`CANVAS`) scaled to the window, so a screen looks the same on any projector.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from string import ascii_lowercase

import streamlit as st

from attention.head_split import valid_head_counts, valid_widths

from .choices import keep_choices
from .class_mode import class_button
from .i18n import LANGUAGE_KEY, LANGUAGES, t
from .settings import SETTINGS
from .sidebar import DROPOUT_PRESETS
from .step_link import (
    CURRENT_PAGE_KEY,
    PRESENT_KEY,
    WALK_NAMES,
    choose_step,
    open_step,
    presenting,
    set_presenting,
    step_keys,
)
from .table import InputProblem, message, problem, shorten
from .url import PageParams

LECTURE_PARAM = "lecture"
LECTURE_KEY = "deck_lecture"  # the lecture: a tuple of (page, entry name or "")
LECTURE_LINK_KEY = "deck_lecture_from_link"  # a lecture was read from the link this run
GOTO_KEY = "deck_goto_page"  # a page the deck's navigation switches to on the next run
MAX_LECTURE_ITEMS = 60
MAX_LECTURE_FILE_BYTES = 16_000  # a lecture file is a few lines: read no more than this
LAST_PART = 99  # "the last part": a page shows its last part for any larger number

# Every page that can be presented, by its name (the frame fills it from its page list): its
# title's message key. A page without a walk is one screen.
PRESENTABLE: dict[str, str] = {}
# Other names a lecture may use for a page (its file's name: ``step_by_step`` for ``step``).
PAGE_ALIASES: dict[str, str] = {}
# Each presentable page's module: a lecture naming a page imported by no run yet imports it,
# which registers its walk (a run imports only its own page).
PAGE_MODULES: dict[str, str] = {}


# The titles of the entries of every page that walks screens (for a bar the page did not fill).
TITLES: dict[str, dict[str, Callable[[], str]]] = {}
IGNORES: dict[str, tuple[str, ...]] = {}  # the strip's settings a page does not read


def register_titles(
    page: str, titles: dict[str, Callable[[], str]], ignores: tuple[str, ...] = ()
) -> None:
    TITLES[page] = titles
    IGNORES[page] = ignores


@dataclass(frozen=True)
class Screen:
    """One screen of the deck: a page, its entry (``""``: the page is one screen) and part."""

    page: str
    name: str
    part: int = 0
    parts: int = 1
    title: str = ""


# --- the bar's slot: opened by the frame, filled by the page or by the frame -----------------

_RUN = threading.local()  # this script run's bar (a run is one thread)


def open_bar(page: str) -> None:
    """Presenting: the keys, and an empty bar at the top of the page (filled later in the run)."""
    _RUN.slot, _RUN.filled, _RUN.page = None, False, page
    if not presenting():
        return
    if st.session_state.pop(LECTURE_LINK_KEY, False):  # a lecture's link opens on its first page
        items = lecture()
        here = (page, open_step(page) if WALK_NAMES.get(page) else "")
        if items and here not in items and (page, "") not in items:
            _go(*items[0], 0)
            st.rerun()
    step_keys(present=True, tabs_key="", scroll=0)
    _RUN.slot = st.container(key="present_bar")


def close_bar() -> None:
    """After the page: a bar the page did not fill gets the deck's navigation (never a dead end)."""
    if getattr(_RUN, "slot", None) is None or _RUN.filled:
        return
    page = _RUN.page
    names = WALK_NAMES.get(page, ())
    if names:  # a walk whose screens could not be drawn: walk its entries
        titles = TITLES.get(page, {})
        screens = [
            Screen(page, name, title=screen_title(titles[name]()) if name in titles else name)
            for name in names
        ]
        at = names.index(open_step(page)) if open_step(page) in names else 0
    else:
        screens, at = [Screen(page, "", title=t(PRESENTABLE.get(page, f"page.{page}.title")))], 0
    fill_bar(screens, at)


def fill_bar(screens: list[Screen], at: int, *, controls: Callable[[], None] | None = None) -> None:
    """The bar: navigation over the page's screens (or the lecture's), and the control strip;
    under it, the strip's settings the page does not read (:func:`register_titles`)."""
    slot = getattr(_RUN, "slot", None)
    if slot is None or _RUN.filled:
        return
    _RUN.filled = True
    with slot:
        _navigation(_lecture_moves(screens[at]) or _page_moves(screens, at))
        presenter_controls(controls)
        ignores = IGNORES.get(screens[at].page, ())
        if ignores:
            st.caption(t(f"present.ignores.{'_'.join(ignores)}"))


def screen_title(label: str) -> str:
    """A tab label without its leading number: "8 · Softmax" → "Softmax"."""
    return re.sub(r"^\s*\d+[a-z]?\s*·\s*", "", label)


# --- navigation ----------------------------------------------------------------------------


def _go(page: str, name: str, part: int) -> None:
    if name:
        choose_step(page, name, part)
    if page != st.session_state.get(CURRENT_PAGE_KEY, page):
        st.session_state[GOTO_KEY] = page


def take_goto() -> str | None:
    """The page the deck's last button leads to (the frame switches to it), once."""
    return st.session_state.pop(GOTO_KEY, None)


def _leave() -> None:
    set_presenting(st.session_state.get(CURRENT_PAGE_KEY, ""), False)


@dataclass(frozen=True)
class Moves:
    """Where the bar's buttons lead from the open screen (None: nowhere), and its place."""

    screen: Screen
    number: str  # "7", or "7b" for the second part of a lecture's seventh item
    total: int
    first: Screen | None
    previous: Screen | None
    next: Screen | None
    last: Screen | None


def _page_moves(screens: list[Screen], at: int) -> Moves:
    """The page's own deck: every screen of its walk counted one by one."""
    end = len(screens) - 1
    return Moves(
        screens[at],
        str(at + 1),
        len(screens),
        screens[0] if at else None,
        screens[at - 1] if at else None,
        screens[at + 1] if at < end else None,
        screens[end] if at < end else None,
    )


def _lecture_moves(screen: Screen) -> Moves | None:
    """In a lecture: its items across pages, one counter; a dense entry's parts lettered."""
    items = lecture()
    if (screen.page, screen.name) not in items:
        return None
    index, count = items.index((screen.page, screen.name)), len(items)
    later = screen.part + 1 < screen.parts
    if screen.part > 0:
        previous: Screen | None = replace(screen, part=screen.part - 1)
    else:  # the previous item at its last part (a page clamps a part beyond its last)
        previous = Screen(*items[index - 1], part=LAST_PART) if index else None
    if later:
        following: Screen | None = replace(screen, part=screen.part + 1)
    else:
        following = Screen(*items[index + 1]) if index + 1 < count else None
    letter = ascii_lowercase[screen.part] if screen.parts > 1 else ""
    return Moves(
        screen,
        f"{index + 1}{letter}",
        count,
        Screen(*items[0]) if previous else None,
        previous,
        following,
        Screen(*items[-1], part=LAST_PART) if following else None,
    )


def _nav_button(key: str, label: str, icon: str, target: Screen | None) -> None:
    st.button(
        label,
        key=key,
        on_click=_go,
        args=(target.page, target.name, target.part) if target else ("", "", 0),
        disabled=target is None,
        icon=icon,
        width="stretch",
        help=t(f"present.{key.removeprefix('present_')}_help"),
    )


def _navigation(moves: Moves) -> None:
    """First / Previous / Next / Last, "Screen 7 of 17 · Softmax", and Leave."""
    widths = [0.45, 1.0, 1.0, 0.45, 2.6, 1.25, 0.95]
    columns = st.columns(widths, vertical_alignment="center", gap="small")
    with columns[0]:
        _nav_button("present_first", "", ":material/first_page:", moves.first)
    with columns[1]:
        _nav_button(
            "present_previous", t("present.previous"), ":material/arrow_back:", moves.previous
        )
    with columns[2]:
        _nav_button("present_next", t("present.next"), ":material/arrow_forward:", moves.next)
    with columns[3]:
        _nav_button("present_last", "", ":material/last_page:", moves.last)
    with columns[4], st.container(key="present_counter"):
        st.markdown(
            t("present.count", number=moves.number, total=moves.total, title=moves.screen.title)
        )
    columns[5].button(
        t("present.leave"),
        key="present_leave",
        on_click=_leave,
        icon=":material/close_fullscreen:",
        width="stretch",
        help=t("present.leave_help"),
    )
    with columns[6]:
        class_button("bar")  # start a class / its link, QR and end (ui/class_mode.py)


# --- the control strip: the same session keys as the sidebar's widgets ----------------------


def _set(key: str, value: object) -> None:
    st.session_state[key] = value


def _typed_setting(name: str) -> None:
    st.session_state[name] = st.session_state[f"present_{name}"]


def setting_input(name: str, **shown: str) -> None:
    """A shared number setting typed or −/+ in the bar (``seed``, ``heads``): the sidebar's key,
    kept. ``shown``: the box's ``label_visibility`` and ``help``."""
    setting = SETTINGS[name]
    st.session_state[f"present_{name}"] = int(st.session_state.get(name, setting.default))
    st.number_input(
        t(setting.label),
        min_value=int(setting.low or 0),
        max_value=int(setting.high) if setting.high is not None else None,
        step=1,
        key=f"present_{name}",
        on_change=_typed_setting,
        args=(name,),
        **shown,
    )


def _language(lang: str) -> None:
    keep_choices()  # option labels change with the language (ui/choices.py)
    st.session_state[LANGUAGE_KEY] = lang


def presenter_controls(page_controls: Callable[[], None] | None = None) -> None:
    """Seed, dropout p = 0 / 0.1 / 0.5, train / eval, the language, the page's own control.

    They write the session keys the (hidden) sidebar's widgets read, so both show one value.
    """
    dropout = st.session_state.get("dropout", SETTINGS["dropout"].default)
    training = bool(st.session_state.get("train", SETTINGS["train"].default))
    widths = [1.6, 0.35, 0.55, 0.55, 0.55, 0.8, 0.8, 0.9]
    if page_controls is not None:
        widths.append(2.4)
    with st.container(key="present_strip"):
        cells = st.columns(widths, vertical_alignment="center", gap="small")
        with cells[0]:
            setting_input("seed", label_visibility="collapsed", help=t("present.seed_help"))
        cells[1].markdown("p =")
        for cell, value in zip(cells[2:5], DROPOUT_PRESETS, strict=True):
            cell.button(
                f"{value:g}",
                key=f"present_dropout_{value:g}",
                on_click=_set,
                args=("dropout", value),
                width="stretch",
                type="primary" if dropout == value else "secondary",
                help=t("present.dropout", p=f"{value:g}"),
            )
        for cell, on, label in zip(cells[5:7], (True, False), ("train", "eval"), strict=True):
            cell.button(
                t(f"present.{label}"),
                key=f"present_{label}",
                on_click=_set,
                args=("train", on),
                width="stretch",
                type="primary" if training == on else "secondary",
            )
        other = next(lang for lang in LANGUAGES if lang != st.session_state.get(LANGUAGE_KEY))
        cells[7].button(
            LANGUAGES[other],
            key="present_language",
            on_click=_language,
            args=(other,),
            width="stretch",
            help=t("present.language_help"),
        )
        if page_controls is not None:
            with cells[-1]:
                page_controls()


# --- a screen whose settings cannot be computed: the fix, one click away ---------------------


@dataclass(frozen=True)
class Fix:
    """A setting that makes the screen computable again: its session key and value."""

    setting: str
    value: int


def fixes_for(code: str | None, params: dict[str, object]) -> list[Fix]:
    """The nearest valid settings for an error the settings caused (none: it names no fix)."""
    if code == "d_out_heads_split":
        d_out, heads = int(params["d_out"]), int(params["heads"])  # type: ignore[call-overload]
        high = int(SETTINGS["d_out"].high or d_out * heads)
        fewer = valid_head_counts(d_out, heads)[-1]  # the most heads that split d_out
        wider = next((w for w in valid_widths(heads, high) if w >= d_out), None)
        found = [Fix("heads", fewer)]
        return found + ([Fix("d_out", wider)] if wider is not None else [])
    if code in ("too_large_to_trace", "heads_too_wide", "backward_too_large"):
        return [Fix("heads", 1)] if int(params.get("heads", 1) or 1) > 1 else []  # type: ignore[call-overload]
    return []


def offer_fixes(code: str | None, params: dict[str, object]) -> None:
    """A button per fix ("Set heads = 2"); a click changes the setting and keeps the screen."""
    found = fixes_for(code, params)
    if not found:
        return
    row = st.container(horizontal=True, key="present_fixes")
    for fix in found:
        row.button(
            t("present.fix", setting=fix.setting, value=fix.value),
            key=f"fix_{fix.setting}_{fix.value}",
            on_click=_set,
            args=(fix.setting, fix.value),
            type="primary",
            icon=":material/build:",
        )


# --- a lecture: screens from several pages, in a link and a file ------------------------------


def _page_name(raw: str) -> str | None:
    name = PAGE_ALIASES.get(raw, raw)
    return name if name in PRESENTABLE else None


def _walk_names(page: str | None) -> tuple[str, ...]:
    """The entries of ``page``'s walk (its module imported first, if no run has yet)."""
    if page is not None and page not in WALK_NAMES and page in PAGE_MODULES:
        importlib.import_module(PAGE_MODULES[page])
    return WALK_NAMES.get(page or "", ())


def parse_lecture(text: str) -> tuple[tuple[tuple[str, str], ...], list[InputProblem]]:
    """``"chapter_path.v1, step.softmax, multi_head"`` → its items, and a problem per bad one.

    An item is ``page.entry`` (one entry of a page that walks screens) or ``page`` (every entry
    of that page, or the page as one screen). Items are separated by commas or new lines.
    """
    items: list[tuple[str, str]] = []
    problems: list[InputProblem] = []
    for raw in (part.strip() for part in re.split(r"[,\n]", text)):
        if not raw or raw.startswith("#"):
            continue
        page_text, _, name = raw.partition(".")
        page = _page_name(page_text)
        names = _walk_names(page)
        if page is None:
            problems.append(
                problem("lecture.bad_page", value=shorten(raw), pages=", ".join(PRESENTABLE))
            )
        elif name and name not in names:
            problems.append(
                problem(
                    "lecture.bad_step",
                    value=shorten(raw),
                    steps=", ".join(names) or t("lecture.no_steps"),
                )
            )
        else:
            items.extend([(page, name)] if name or not names else [(page, n) for n in names])
    if len(items) > MAX_LECTURE_ITEMS:
        problems.append(problem("lecture.too_long", count=len(items), limit=MAX_LECTURE_ITEMS))
        items = items[:MAX_LECTURE_ITEMS]
    return tuple(items), problems


def lecture_text(items: tuple[tuple[str, str], ...]) -> str:
    """The lecture as the link writes it: ``page.entry`` (or ``page``) joined by commas."""
    return ",".join(f"{page}.{name}" if name else page for page, name in items)


def lecture() -> tuple[tuple[str, str], ...]:
    return tuple(st.session_state.get(LECTURE_KEY, ()))


def set_lecture(items: tuple[tuple[str, str], ...]) -> None:
    st.session_state[LECTURE_KEY] = items


def start_lecture() -> None:
    """Present the lecture from its first screen (a button's callback)."""
    items = lecture()
    if not items:
        return
    st.session_state[PRESENT_KEY] = True
    page, name = items[0]
    _go(page, name, 0)
    st.session_state[GOTO_KEY] = page


def _read_url(params: dict[str, str]) -> list[InputProblem]:
    raw = params.get(LECTURE_PARAM)
    if raw is None:
        return []
    items, problems = parse_lecture(raw)
    if items:
        set_lecture(items)
        page, name = items[0]
        if name:
            choose_step(page, name)
        st.session_state[LECTURE_LINK_KEY] = True  # the deck's bar: is the link's page in it?
    return problems


def _write_url() -> dict[str, str]:
    items = lecture()
    return {LECTURE_PARAM: lecture_text(items)} if items else {}


URL_PARAMS = PageParams((LECTURE_PARAM,), _read_url, _write_url)


# --- the lecture panel (the sidebar): pick screens, get the link and the file -----------------

LECTURE_OPEN_KEY = "lecture_open"  # the sidebar's lecture panel is open
LECTURE_TEXT_KEY = "lecture_text"  # the panel's text box: one item a line
LECTURE_PROBLEMS_KEY = "lecture_problems"


def _take_lecture(text: str) -> None:
    items, problems = parse_lecture(text)
    set_lecture(items)
    st.session_state[LECTURE_PROBLEMS_KEY] = problems


def _typed() -> None:
    _take_lecture(str(st.session_state.get(LECTURE_TEXT_KEY, "")))


def _uploaded() -> None:
    upload = st.session_state.get("lecture_file")
    if upload is not None:
        _take_lecture(upload.getvalue()[:MAX_LECTURE_FILE_BYTES].decode("utf-8", "replace"))


def _add(page: str) -> None:
    name = open_step(page) if WALK_NAMES.get(page) else ""
    if (page, name) not in lecture():
        set_lecture((*lecture(), (page, name))[:MAX_LECTURE_ITEMS])


def _clear() -> None:
    set_lecture(())
    st.session_state[LECTURE_PROBLEMS_KEY] = []


def lecture_panel(page: str) -> None:
    """The sidebar's lecture: add the open screen, edit the list, present it, keep it as a file.

    Closed, the panel is one toggle: its elements are sent on every rerun only while it is open.
    """
    if not st.sidebar.toggle(t("lecture.title"), key=LECTURE_OPEN_KEY):
        return
    items = lecture()
    text = "\n".join(lecture_text(items).split(","))
    if st.session_state.get(LECTURE_TEXT_KEY) != text and items is not None:
        st.session_state[LECTURE_TEXT_KEY] = text if items else ""
    with st.sidebar.container(border=True):
        st.caption(t("lecture.help"))
        columns = st.columns(2)
        if page in PRESENTABLE:
            columns[0].button(
                t("lecture.add"), key="lecture_add", on_click=_add, args=(page,), width="stretch"
            )
        columns[1].button(t("lecture.clear"), key="lecture_clear", on_click=_clear, width="stretch")
        st.text_area(t("lecture.items"), key=LECTURE_TEXT_KEY, on_change=_typed, height=120)
        for found in st.session_state.get(LECTURE_PROBLEMS_KEY, []):
            st.warning(message(found))
        st.button(
            t("lecture.start", count=len(items)),
            key="lecture_start",
            on_click=start_lecture,
            disabled=not items,
            type="primary",
            icon=":material/slideshow:",
            width="stretch",
        )
        if items:
            st.code(f"?{LECTURE_PARAM}={lecture_text(items)}&present=1", language=None)
            st.download_button(
                t("lecture.download"),
                data=text + "\n",
                file_name="lecture.txt",
                mime="text/plain",
                key="lecture_download",
                on_click="ignore",
            )
        st.file_uploader(t("lecture.upload"), type=["txt"], key="lecture_file", on_change=_uploaded)


def _enter(page: str) -> None:
    set_presenting(page, True)


def present_button(page: str) -> None:
    """The Present button at the top right of a teaching page."""
    with st.container(key="present_enter_row", horizontal=True, horizontal_alignment="right"):
        st.button(
            t("present.enter"),
            key="present_enter",
            on_click=_enter,
            args=(page,),
            icon=":material/slideshow:",
            help=t("present.enter_help"),
        )
