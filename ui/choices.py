"""Keep what a select box or radio holds when the labels of its options change.

A select box or radio tells the server which option is chosen by the option's *label*: "平方距离…"
for the loss ``squared_distance``, "3: starts" for the third token. When the labels change under
a widget the browser shows (a switch of language, a new sentence in the sidebar), the browser
still sends the old label, which is no option's label any more. Streamlit then hands the page
that label instead of the option, and the browser shows nothing chosen, or the old label: a
learner's choice is lost (Backward, Export, Train it and One query have such widgets).

:func:`keep_choices` is the cure. Call it from the ``on_change`` callback of what changes the
labels: a callback runs before the page, while Streamlit still reads the labels of the last
run, so each value read there is the option itself. Writing it back makes the run send it
with its new label. A page still checks that a chosen position exists in a shorter table.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st


def _is_choice_value(value: object) -> bool:
    """A value a choice widget can hold: text or a number, or a tuple or list of them."""
    if isinstance(value, tuple | list):
        return all(_is_choice_value(item) for item in value)
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def write_back(keys: Iterable[str]) -> None:
    """Write each of ``keys`` that the session holds back to itself, unchanged.

    Writing a widget's key is how this run comes to *send* the widget its value (a run carries a
    widget's value only where its key was written): the cure here, and the sidebar's on a page
    switch (``ui.sidebar``).
    """
    for key in list(keys):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def keep_choices() -> None:
    """Write every choice in the session back to its key (call it from an ``on_change``).

    Only text and numbers are written back: what a choice holds. Other session values of that
    kind are written back unchanged, which changes nothing. Buttons, toggles, uploads and data
    editors hold other kinds of value and must not be written (Streamlit refuses it); none of
    them shows an option label that could be orphaned.
    """
    write_back([key for key in st.session_state.keys() if _is_choice_value(st.session_state[key])])
