"""The bug chosen on Find the bug, in the link: ``?bug=<gallery name>`` (``attention.bugs.BUGS``).

The choice is a plain session value (Streamlit forgets a widget's key on pages that do not draw
it), so the link carries it from any page. The gallery is imported only where a bug is named:
every run writes the link, and other pages should not load the gallery and its training code.
"""

from __future__ import annotations

import streamlit as st

from .table import InputProblem, problem, shorten
from .url import PageParams

BUG_PARAM = "bug"
CHOSEN_KEY = "find_the_bug_chosen"  # the chosen bug's gallery name (kept across pages)
SELECT_KEY = "find_the_bug_bug"  # the page's select box: holds a new choice before the page runs


def bug_names() -> tuple[str, ...]:
    """The gallery's names, in its order (``attention.bugs.BUGS``)."""
    from attention.bugs import BUGS  # the training code, which other pages never use

    return tuple(BUGS)


def chosen_bug() -> str:
    """The bug the page shows: a choice just made in the select box (Streamlit sets it before
    the run, so the link follows in the same run), else the link's or the last one chosen,
    else the gallery's first."""
    names = bug_names()
    for key in (SELECT_KEY, CHOSEN_KEY):
        name = st.session_state.get(key)
        if name in names:
            return name
    return names[0]


def choose_bug(name: str) -> None:
    st.session_state[CHOSEN_KEY] = name


def _read_url(params: dict[str, str]) -> list[InputProblem]:
    raw = params.get(BUG_PARAM)
    if raw is None:
        return []
    names = bug_names()
    if raw.strip() in names:
        choose_bug(raw.strip())
        return []
    return [problem("url.bad_bug", value=shorten(raw), bugs=", ".join(names))]


def _write_url() -> dict[str, str]:
    if SELECT_KEY not in st.session_state and CHOSEN_KEY not in st.session_state:
        return {}  # no bug chosen in this session: the gallery's first, which the link leaves out
    name = chosen_bug()
    return {} if name == bug_names()[0] else {BUG_PARAM: name}


URL_PARAMS = PageParams((BUG_PARAM,), _read_url, _write_url)
