"""The URL describes the view, both ways.

On a session's first run (:func:`init_session`) every query parameter is read and checked: a bad
value is replaced by its default and reported, a value between two steps of its control rounded
and said (``url.rounded``). After that the URL is rewritten on every run from the state
(:func:`sync_url`), keeping only values that differ from the defaults. Both directions loop over
:data:`ui.settings.SETTINGS`, the table (``text``, ``emb``), Compare's ``b_*`` and the parameters
a page declares (:func:`register_page_params`).

A link the app writes always opens: past :data:`MAX_LINK_CHARS` the address leaves the table out
(:func:`link_params`) and says so once. Unknown parameters make one note; a query longer than
Streamlit reads is said to be unread (``ui/link_check.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import streamlit as st

from attention.examples import BOOK_TOKENS

from .i18n import t
from .link_check import MAX_LINK_FIELDS, unread_link_fields
from .problem_reference import with_reference
from .settings import COMPARE_B_FIELDS, COMPARE_B_PREFIX, COMPARE_B_VALUES, SETTINGS, Setting
from .table import (
    InputProblem,
    Table,
    emb_to_text,
    message,
    problem,
    shorten,
    table_from_text_and_emb,
)
from .table_state import book_table, commit_table, current_table, parse_sentence, table_for_words

# The longest query a link carries. Far below what the server still opens, so that a proxy, a
# chat program or a browser on the way opens it too (benchmarks/README.md, "Links that open").
MAX_LINK_CHARS = 8_000
TABLE_PARAMS = ("text", "emb")  # what a link leaves out when the query is too long
LEFT_OUT_KEY = "url_table_left_out"  # the length of the query whose table the address left out
UNKNOWN_LISTED = 5  # unknown parameters named in the one note about them (then "…")


@dataclass(frozen=True)
class PageParams:
    """URL parameters that one page owns (e.g. the Train page's, ``ui/train_settings.py``).

    ``read(params)`` runs on a session's first run with every query parameter and returns the
    problems it found (reported like the shared settings'); ``write()`` runs on every run and
    returns the page's parameters that differ from their defaults.
    """

    names: tuple[str, ...]
    read: Callable[[dict[str, str]], list[InputProblem]]
    write: Callable[[], dict[str, str]]


def settings_params(settings: Mapping[str, Setting]) -> PageParams:
    """The URL parameters of a page's own settings, kept in session state under their URL names.

    Read like the shared settings (a bad value keeps the default and is reported, a rounded one
    is said); written where a value differs from its default.
    """

    def read(params: dict[str, str]) -> list[InputProblem]:
        problems: list[InputProblem] = []
        for name, setting in settings.items():
            st.session_state[name] = setting.default
            if name not in params:
                continue
            try:
                st.session_state[name], note = setting.read(params[name], name)
            except InputProblem as error:
                problems.append(error)
                continue
            if note is not None:
                problems.append(note)
        return problems

    def write() -> dict[str, str]:
        values = {name: st.session_state.get(name, s.default) for name, s in settings.items()}
        return {
            name: settings[name].to_url(value)
            for name, value in values.items()
            if value != settings[name].default
        }

    return PageParams(tuple(settings), read, write)


PAGE_PARAMS: list[PageParams] = []


def register_page_params(params: PageParams) -> None:
    """Let the URL carry a page's own parameters (the frame registers each page's, once)."""
    PAGE_PARAMS[:] = [p for p in PAGE_PARAMS if p.names != params.names] + [params]


def _query() -> dict[str, str]:
    return {key: st.query_params.get(key) for key in st.query_params.keys()}  # noqa: SIM118


def init_session() -> None:
    """On a session's first run: defaults, then every query parameter, checked one by one."""
    if st.session_state.get("initialized"):
        return
    warnings: list[InputProblem] = []
    notes: list[InputProblem] = []  # values the app changed (rounded): said, never silent
    params = _query()

    def read(name: str, url_name: str, fallback: Any) -> Any:
        raw = params.get(url_name)
        if raw is None:
            return fallback
        try:
            value, note = SETTINGS[name].read(raw, url_name)
        except InputProblem as error:
            warnings.append(error)
            return fallback
        if note is not None:
            notes.append(note)
        return value

    for name, setting in SETTINGS.items():
        st.session_state[name] = read(name, name, setting.default)
    b_names = [COMPARE_B_PREFIX + name for name in COMPARE_B_FIELDS]
    if any(name in params for name in b_names):  # B = A, changed by the b_ parameters
        COMPARE_B_VALUES.keep(
            {
                name: read(name, COMPARE_B_PREFIX + name, st.session_state[name])
                for name in COMPARE_B_FIELDS
            }
        )

    table = book_table()
    text, emb = params.get("text"), params.get("emb")
    words = list(BOOK_TOKENS)
    if text is not None:
        try:
            words = parse_sentence(text)
            table = table_for_words(words)
        except InputProblem as error:
            warnings.append(problem("url.bad_param", name="text", detail=error))
    if emb is not None:
        try:
            table = table_from_text_and_emb(words, emb)
        except InputProblem as error:
            warnings.append(problem("url.bad_param", name="emb", detail=error))
    known = set(SETTINGS) | set(b_names) | {"text", "emb"}
    for page_params in PAGE_PARAMS:
        warnings.extend(page_params.read(params))
        known.update(page_params.names)
    unknown = [name for name in params if name not in known]
    if len(unknown) == 1:
        warnings.append(problem("url.unknown", name=shorten(unknown[0])))
    elif unknown:  # one note for all of them, however many a link has
        listed = ", ".join(shorten(name, 20) for name in unknown[:UNKNOWN_LISTED])
        more = ", …" if len(unknown) > UNKNOWN_LISTED else ""
        warnings.append(problem("url.unknown_many", count=len(unknown), names=listed + more))
    commit_table(table)
    st.session_state["url_warnings"] = warnings
    st.session_state["url_notes"] = notes
    st.session_state["initialized"] = True


def url_state() -> dict[str, str]:
    """The query parameters that describe the current view (defaults left out)."""
    params: dict[str, str] = {}
    for name, setting in SETTINGS.items():
        value = st.session_state.get(name, setting.default)
        if value != setting.default:
            params[name] = setting.to_url(value)
    b_settings = COMPARE_B_VALUES.get() or {}
    for name, value in b_settings.items():  # only where B differs from A
        if value != st.session_state.get(name, SETTINGS[name].default):
            params[COMPARE_B_PREFIX + name] = SETTINGS[name].to_url(value)
    table = current_table()
    if list(table.tokens) != list(BOOK_TOKENS):
        params["text"] = " ".join(table.tokens)
    if not _is_own_embedding(table):
        params["emb"] = emb_to_text(table)
    for page_params in PAGE_PARAMS:
        params.update(page_params.write())
    return params


@functools.lru_cache(maxsize=8)
def _is_own_embedding(table: Table) -> bool:
    """True if the table holds its words' own embeddings (then the URL needs no ``emb``).

    Cached by table (frozen, hashable): :func:`url_state` asks on every run, and recomputing the
    words' embeddings grows with the number of tokens.
    """
    return table == table_for_words(list(table.tokens), d_in=3)


def query_text(params: Mapping[str, str]) -> str:
    """``params`` as a link's query (after the ``?``), encoded as the browser shows it."""
    return urlencode(dict(params), quote_via=quote)


def link_params(params: Mapping[str, str]) -> tuple[dict[str, str], bool]:
    """What a link can carry of ``params``: all of them, or, past :data:`MAX_LINK_CHARS`, all but
    the table (its sentence and embeddings); and whether the table was left out."""
    if len(query_text(params)) <= MAX_LINK_CHARS:
        return dict(params), False
    return {name: value for name, value in params.items() if name not in TABLE_PARAMS}, True


def sync_url() -> dict[str, str]:
    """Rewrite the URL from the state (only when it changed, to keep history quiet).

    Returns the whole view's parameters (``View.url``); the address gets :func:`link_params`: a
    table too large for a link is left out, and a toast says so once per table.
    """
    wanted = url_state()
    written, left_out = link_params(wanted)
    if left_out:
        length = len(query_text(wanted))
        if st.session_state.get(LEFT_OUT_KEY) != length:
            st.toast(t("url.table_left_out", chars=length, limit=MAX_LINK_CHARS), icon="ℹ️")
        st.session_state[LEFT_OUT_KEY] = length
    else:
        st.session_state.pop(LEFT_OUT_KEY, None)
    if _query() != written:
        st.query_params.from_dict(written)
    return wanted


def show_url_warnings() -> None:
    """Tell the user which URL values were not usable or were rounded, and what was used; or
    that the link was not read at all (more parameters than Streamlit reads: ``link_check``)."""
    with st.sidebar:  # the check draws nothing
        unread = unread_link_fields()
    if unread:
        st.warning(t("url.too_many_fields", count=unread, limit=MAX_LINK_FIELDS), icon="⚠️")
    for warning in st.session_state.get("url_warnings", []):
        st.warning(with_reference(message(warning), warning), icon="⚠️")
    for note in st.session_state.get("url_notes", []):
        st.info(message(note), icon="ℹ️")
