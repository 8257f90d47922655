"""Keep what a select box or radio holds when the labels of its options change.

The browser names the chosen option by its *label*. When the labels change (another language, a
new sentence), it still sends the old label, which is no option's any more, and the choice is
lost. :func:`keep_choices` is the cure: called from the ``on_change`` callback of what changes
the labels (a callback runs while the last run's labels still apply), it writes each value back,
so the run sends it with its new label.

:func:`write_back` keeps a widget's value across reruns while the session holds its key.
:class:`KeptValues` (Compare's B settings, Train's settings) keeps values in one plain dict in
session state, because Streamlit deletes the key of a widget a run does not draw, yet the URL
carries them on every page: each widget starts from the dict (:meth:`KeptValues.restore`) and
writes to it (:meth:`KeptValues.remember`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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

    Only text and numbers are written back (what a choice holds; other such values are unchanged by
    it). Buttons, toggles, uploads and data editors must not be written (Streamlit refuses it), and
    none shows an option label.
    """
    write_back([key for key in st.session_state.keys() if _is_choice_value(st.session_state[key])])


@dataclass(frozen=True)
class KeptValues:
    """A page's settings kept in one dict in session state, beside the widgets that show them.

    ``store`` is the session key of the dict ``{name: value}``; the widget of setting ``name``
    has the key ``prefix + name``. See the module docstring for why a dict and not the widgets.
    """

    store: str
    prefix: str

    def key(self, name: str) -> str:
        """The widget key of setting ``name``."""
        return self.prefix + name

    def get(self) -> dict[str, Any] | None:
        """A copy of the kept values, or None before any were kept."""
        values = st.session_state.get(self.store)
        return None if values is None else dict(values)

    def keep(self, values: Mapping[str, Any]) -> None:
        """Make ``values`` the kept ones (the dict only: the URL reader, before the widgets)."""
        st.session_state[self.store] = dict(values)

    def set(self, values: Mapping[str, Any]) -> None:
        """Make ``values`` the kept ones and the widgets' values (a preset, a task's defaults)."""
        self.keep(values)
        for name, value in values.items():
            st.session_state[self.key(name)] = value

    def remember(self, name: str) -> None:
        """``on_change`` of the widget of ``name``: keep its new value."""
        st.session_state[self.store][name] = st.session_state[self.key(name)]

    def restore(self, name: str) -> str:
        """The widget key of ``name``, holding the kept value if Streamlit dropped the key."""
        key = self.key(name)
        if key not in st.session_state:
            st.session_state[key] = st.session_state[self.store][name]
        return key
