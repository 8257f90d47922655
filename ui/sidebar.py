"""The shared sidebar: a control for each setting of :data:`ui.settings.SIDEBAR`, the sentence box
and the random-tokens generator. Values live in session state under their URL names.
"""

from __future__ import annotations

import streamlit as st

from viz.vocabulary import DECIMALS, HOVER_DECIMALS

from .choices import keep_choices, write_back
from .i18n import LANGUAGE_KEY, t
from .phone import phone_support
from .problem_reference import with_reference
from .settings import SETTINGS, SIDEBAR, SIDEBAR_TEXT_AFTER, widget
from .table import MAX_TOKENS, message
from .table_state import (
    MAX_TEXT_CHARS,
    RANDOM_TOKENS_DEFAULT,
    commit_table,
    current_table,
    on_text_change,
    random_words,
    table_for_words,
)

RESENT_KEYS = (*SETTINGS, "text")
# The settings' values after the last sidebar drawn, off the widgets (_resend_sidebar_values).
KEPT_VALUES_KEY = "sidebar_values"


def _resend_sidebar_values() -> None:
    """Write each sidebar value back to its own key, so this run sends it to the browser again.

    On a page switch the browser can lose a keyed widget's value and fall back to its minimum,
    silently replacing the user's setting; writing the key back (Streamlit's documented way)
    makes the run carry it. A run that the switch cut short before its sidebar (the deck's Next
    to another page) makes Streamlit forget the value itself: it comes back from the last
    sidebar drawn. Only on a switch: in every run a slider would jump back under quick key
    presses.
    """
    for key, value in st.session_state.get(KEPT_VALUES_KEY, {}).items():
        if key not in st.session_state:  # forgotten in a run the switch cut short
            st.session_state[key] = value
    write_back(RESENT_KEYS)


def render_sidebar(page: str = "") -> None:
    """The shared controls, in the order of :data:`ui.settings.SIDEBAR` (``page``: this run's)."""
    if st.session_state.get("sidebar_page") != page:
        _resend_sidebar_values()
        st.session_state["sidebar_page"] = page
    with st.sidebar:
        phone_support()  # 44 px controls on a touch screen; the sidebar closes after a link
        for name in SIDEBAR:
            on_change = keep_choices if name == LANGUAGE_KEY else None
            widget(SETTINGS[name], on_change=on_change)
            if name == "dropout":
                _dropout_presets(t("sidebar.dropout_presets"))
            if name == SIDEBAR_TEXT_AFTER:
                _sentence_box()
                random_tokens_control()
        st.caption(t("glossary.line", decimals=DECIMALS, hover=HOVER_DECIMALS))
    kept = {key: st.session_state[key] for key in RESENT_KEYS if key in st.session_state}
    st.session_state[KEPT_VALUES_KEY] = kept


DROPOUT_PRESETS = (0.0, 0.1, 0.5)  # off, a usual rate in GPTs, the book's rate (3.5.2)


def _dropout_presets(label: str, key: str = "dropout_preset") -> None:
    """One click to the dropout rates a lesson uses: one element that sets the slider's key."""
    dropout = st.session_state.get("dropout")
    st.session_state[key] = dropout if dropout in DROPOUT_PRESETS else None
    st.segmented_control(
        label,
        DROPOUT_PRESETS,
        format_func=lambda value: f"p = {value:g}",
        key=key,
        on_change=_take_preset,
        args=(key,),
        width="stretch",
    )


def _take_preset(key: str) -> None:
    if st.session_state.get(key) is not None:  # a click on the chosen rate unselects it: no change
        st.session_state["dropout"] = st.session_state[key]


PHONE_PRESETS_KEY = "phone_dropout_presets"  # phone.css shows it on a narrow screen only


def phone_dropout_presets() -> None:
    """The dropout presets in the page itself, on a narrow screen only (phone.css).

    There the open sidebar covers the page, hiding what p changes; both write the slider's key.
    """
    with st.container(key=PHONE_PRESETS_KEY):
        _dropout_presets(t("phone.dropout_presets"), "phone_dropout_preset")


def _sentence_box() -> None:
    """The sentence: typed words become the table's tokens (each with its own embedding)."""
    st.text_input(
        t("sidebar.text"),
        key="text",
        on_change=on_text_change,
        help=t("sidebar.text_help"),
        max_chars=MAX_TEXT_CHARS,
    )
    text_problem = st.session_state.get("text_problem")
    if text_problem is not None:
        st.error(with_reference(message(text_problem), text_problem))


# --- random tokens: long sequences in one click ------------------------------------------------


def _on_generate_random() -> None:
    keep_choices()  # the token labels change: see ui/choices.py
    count = int(st.session_state.get("random_tokens_count", RANDOM_TOKENS_DEFAULT))
    commit_table(table_for_words(random_words(count), d_in=current_table().d_in))
    st.session_state["random_tokens_done"] = count


def random_tokens_control() -> None:
    """A sidebar expander: "Random tokens: N [Generate]" replaces the sentence by N made-up words."""
    with st.expander(t("scale.random.title"), icon=":material/casino:"):
        st.number_input(
            t("scale.random.count"),
            min_value=1,
            max_value=MAX_TOKENS,
            value=RANDOM_TOKENS_DEFAULT,
            step=1,
            key="random_tokens_count",
            help=t("scale.random.count_help", limit=MAX_TOKENS),
        )
        st.button(t("scale.random.generate"), on_click=_on_generate_random, key="random_generate")
        done = st.session_state.pop("random_tokens_done", None)
        if done is not None:
            st.caption(t("scale.random.done", count=done))
