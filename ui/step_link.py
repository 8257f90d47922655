"""The open step of every page that walks steps: in the link (``?step=``), in presenter mode
(``?present=1``), and under the keys (``step_link.js``).

A walking page (:mod:`ui.walk`) registers its entries' names (:func:`register_walk`) and keeps
its open step by name (not by tab label, which depends on the language) under
``walk_open_<page>``. The URL carries it as ``step=<name>`` (left out for the first) and
presenter mode as ``present=1`` (:data:`URL_PARAMS`), so a shared link opens the same step in
the same mode; the page it opens checks it (:func:`take_link_step`).

A link or the presenter's buttons set a *pending* step (:func:`choose_step`); the tabs open it
once (:func:`take_pending`) and report the tab a learner opens (:func:`record_open`), which
rewrites the URL at once (a tab switch reruns only the tabs' fragment, not the frame).

:func:`step_keys` listens to the keys on the whole window (``step_link.js``): a rerun replaces
the focused element, and a fresh link has nothing focused.
"""

from __future__ import annotations

import streamlit as st

from attention.steps import STEPS

from .components import define
from .settings import parse_bool
from .table import InputProblem, problem, shorten
from .url import PageParams

STEP_PARAM = "step"
PRESENT_PARAM = "present"
STEP_PAGE = "step"  # the page at "/": a link without a page path opens its steps
PRESENT_KEY = "walk_present"  # True while presenter mode is on
LINK_STEP_KEY = "walk_link_step"  # the link's ``step=`` text, until the page it opens checks it
CURRENT_PAGE_KEY = "walk_current_page"  # the page this run shows (set by the frame)
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in STEPS)
CANVAS = (
    1024,
    768,
)  # presenter mode's logical canvas, CSS pixels (ui/deck.py; 4:3, scale 1 at 1024×768)
KEYS_CLASS = "al-step-keys"  # the component's marker element: the key handler acts while it exists

# Every page that walks steps, by page name: its entries' names in order.
WALK_NAMES: dict[str, tuple[str, ...]] = {STEP_PAGE: STEP_NAMES}


def register_walk(page: str, names: tuple[str, ...]) -> None:
    """Let ``page``'s entries be opened by a link and written into the URL."""
    WALK_NAMES[page] = names


def _names(page: str) -> tuple[str, ...]:
    return WALK_NAMES.get(page, STEP_NAMES if page == STEP_PAGE else ())


def _open_key(page: str) -> str:
    return f"walk_open_{page}"


def _part_key(page: str) -> str:
    return f"walk_part_{page}"


def _pending_key(page: str) -> str:
    return f"walk_pending_{page}"


def open_step(page: str = STEP_PAGE) -> str:
    """The open entry's name on ``page`` (its first entry until another is opened)."""
    names = _names(page)
    name = st.session_state.get(_open_key(page))
    return name if name in names else names[0]


def open_part(page: str) -> int:
    """Which part of the open entry presenter mode shows (0: the first, or the only one)."""
    return int(st.session_state.get(_part_key(page), 0))


def choose_step(page: str, name: str, part: int = 0) -> None:
    """Open entry ``name`` (at ``part`` in presenter mode) on the next drawing of ``page``."""
    st.session_state[_open_key(page)] = name
    st.session_state[_part_key(page)] = part
    st.session_state[_pending_key(page)] = name


def take_pending(page: str) -> str | None:
    """The entry a link or the presenter chose, once (then the tabs keep what a learner opens)."""
    return st.session_state.pop(_pending_key(page), None)


def record_open(page: str, name: str) -> None:
    """The tabs show entry ``name``: keep it, and put it in the URL now (a fragment rerun)."""
    if st.session_state.get(_open_key(page)) == name and _url_matches(page, name):
        return
    if st.session_state.get(_open_key(page)) != name:
        st.session_state[_part_key(page)] = 0
    st.session_state[_open_key(page)] = name
    if name == _names(page)[0]:
        if STEP_PARAM in st.query_params:
            del st.query_params[STEP_PARAM]
    else:
        st.query_params[STEP_PARAM] = name


def _url_matches(page: str, name: str) -> bool:
    in_url = st.query_params.get(STEP_PARAM)
    return in_url == name or (in_url is None and name == _names(page)[0])


def take_link_step(page: str) -> InputProblem | None:
    """Open the link's ``step=`` on ``page`` if it names one of its entries; else say which.

    Called by the page the link opens (its first run); the text is checked once.
    """
    raw = st.session_state.pop(LINK_STEP_KEY, None)
    if raw is None:
        return None
    names = _names(page)
    if raw in names:
        choose_step(page, raw)
        if raw != names[0]:  # the URL was written before this page read its step: keep it
            st.query_params[STEP_PARAM] = raw
        return None
    if raw in STEP_NAMES:
        return None  # the step page's step, carried by a link to another page (a share box)
    return problem("url.bad_step", value=shorten(raw), steps=", ".join(names))


def forget_link_step() -> None:
    """The link's ``step=`` is for the page it opens: the frame drops it after that page's run."""
    st.session_state.pop(LINK_STEP_KEY, None)


def presenting() -> bool:
    return bool(st.session_state.get(PRESENT_KEY, False))


def set_presenting(page: str, on: bool) -> None:
    """Enter or leave presenter mode (a button's callback: the next run draws the other view)."""
    st.session_state[PRESENT_KEY] = on
    if _names(page):
        choose_step(page, open_step(page), open_part(page) if on else 0)


def _read_url(params: dict[str, str]) -> list[InputProblem]:
    problems: list[InputProblem] = []
    raw = params.get(STEP_PARAM)
    if raw is not None:
        st.session_state[LINK_STEP_KEY] = raw
        if raw in STEP_NAMES:  # the step page's, even when the link opens another page
            choose_step(STEP_PAGE, raw)
    raw = params.get(PRESENT_PARAM)
    if raw is not None:
        try:  # the words every switch of a link reads (ui.settings.parse_bool)
            if parse_bool(raw, PRESENT_PARAM):
                st.session_state[PRESENT_KEY] = True
        except InputProblem as error:
            problems.append(error)
    return problems


def _write_url() -> dict[str, str]:
    shown = st.session_state.get(CURRENT_PAGE_KEY, STEP_PAGE)
    page = shown if shown in WALK_NAMES else STEP_PAGE
    params: dict[str, str] = {}
    if open_step(page) != _names(page)[0]:
        params[STEP_PARAM] = open_step(page)
    if presenting():  # kept on every page: each has the deck's bar
        params[PRESENT_PARAM] = "1"
    return params


URL_PARAMS = PageParams((STEP_PARAM, PRESENT_PARAM), _read_url, _write_url)


# --- the keys and presenter mode's look ----------------------------------------------------------

_KEYS = define(
    "step_link",
    class_name=KEYS_CLASS,
    values={"__W__": str(CANVAS[0]), "__H__": str(CANVAS[1])},  # the deck's canvas
)


def step_keys(*, present: bool, tabs_key: str, scroll: int) -> None:
    """The keys that walk the steps: ←/→ the tabs; in presenter mode the clicker's keys too.

    In presenter mode the marker also carries the class that the presenter's CSS looks for.
    ``tabs_key``: the key of the page's tabs. ``scroll``: changes when a link opened a step,
    and the browser then brings that step's tab into view.
    """
    _KEYS(
        data={
            "mode": "present" if present else "tabs",
            "tabs": tabs_key,
            "scroll": scroll,
            "canvas": list(CANVAS),
        },
        key="al-step-keys",
    )
