"""The book's printed examples, one click each: every setting an example needs, written once.

A page showing one of the book's examples draws :func:`show_book_example` with its entry of
:data:`BOOK_EXAMPLES`: when the sidebar is not the example's, a note says what it needs and one
button sets it all; when it is, the note says what the page compared with the book's printout
just now (a page calls numbers the book's only when they hold). The settings are the sidebar's,
so a link (``/masking?seed=789``) opens the example too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from attention.book_outputs import PRINT_TOLERANCE

from .i18n import t
from .settings import SETTINGS
from .table_state import book_table, commit_table
from .url import query_text
from .view import View


def _chapter_3(seed: int, heads: int, batch: int) -> dict[str, Any]:
    """An example's settings: its seed, heads and batch, and what every example of chapter 3
    shares (``d_out = 2``, dropout 0, no bias, the full causal mask: no sliding window)."""
    return {
        "seed": seed,
        "heads": heads,
        "d_out": 2,
        "batch": batch,
        "dropout": 0.0,
        "qkv_bias": False,
        "window": 0,
    }


@dataclass(frozen=True)
class BookExample:
    """One of the book's printed examples as this app sets it up.

    ``name``: its messages, ``book_example.<name>.recipe``; ``section``: the book's section;
    ``settings``: the shared settings it needs (names of ``SETTINGS``), with the book's
    embeddings; ``page_state``: a page's own session keys it needs (written by the button too).
    """

    name: str
    section: str
    settings: Mapping[str, Any]
    page_state: Mapping[str, Any] = field(default_factory=dict)

    def query(self) -> dict[str, str]:
        """The link's parameters that carry it: the settings that differ from their defaults."""
        return {
            name: SETTINGS[name].to_url(value)
            for name, value in self.settings.items()
            if value != SETTINGS[name].default
        }


BOOK_EXAMPLES: dict[str, BookExample] = {
    example.name: example
    for example in (
        BookExample("masking", "3.5.1", _chapter_3(seed=789, heads=1, batch=1)),
        BookExample("multi_head", "3.6", _chapter_3(seed=123, heads=2, batch=2)),
        BookExample(
            "chapter_path",
            "3.3–3.5",
            _chapter_3(seed=123, heads=1, batch=1),
            page_state={"v2_seed": 789},
        ),
        BookExample("fast_path", "3.6.2", _chapter_3(seed=123, heads=2, batch=1)),
    )
}


def set_up(example: BookExample) -> None:
    """Button callback: the example's settings, the book's sentence and embeddings, and its
    page state (widget state may change only here, before the widgets are drawn)."""
    st.session_state.update(dict(example.settings))
    st.session_state.update(dict(example.page_state))
    commit_table(book_table())


def is_set_up(example: BookExample, view: View) -> bool:
    """True when the sidebar, the table and the page state are all the example's."""
    settings = all(
        st.session_state.get(name, SETTINGS[name].default) == value
        for name, value in example.settings.items()
    )
    page = all(
        st.session_state.get(key, value) == value for key, value in example.page_state.items()
    )
    return settings and page and view.table == book_table()


def settings_text(example: BookExample) -> str:
    """``seed=789 · heads=1 · …``: what the example sets, as the link writes it."""
    values = [
        f"`{name}={SETTINGS[name].to_url(value)}`" for name, value in example.settings.items()
    ]
    values += [f"`{key}={value}`" for key, value in example.page_state.items()]
    return " · ".join(values)


def show_book_example(example: BookExample, view: View, difference: float | None = None) -> bool:
    """The example's note: set up (and what the comparison with the printout says now), or
    what it needs with the one button that sets it. Returns whether it is set up.

    ``difference``: the page's largest difference from the book's printout, computed now
    (``attention.book_outputs``), or None when it compared nothing.
    """
    recipe = t(f"book_example.{example.name}.recipe")
    words = {"section": example.section, "settings": settings_text(example), "recipe": recipe}
    compared = ""
    within = difference is None or difference <= PRINT_TOLERANCE  # the printed 4 decimals
    if difference is not None:
        key = "book_example.agrees" if within else "book_example.differs"
        compared = "\n\n" + t(key, difference=f"{difference:.1e}")
    if is_set_up(example, view):
        (st.success if within else st.warning)(t("book_example.set", **words) + compared)
        return True
    query = query_text(example.query())
    link = t("book_example.link", query=query) if query else t("book_example.link_plain")
    with st.container(border=True):  # the note and its button together, the label never cut
        st.markdown(t("book_example.offer", link=link, **words) + compared)
        st.button(
            t("book_example.button", section=example.section),
            on_click=set_up,
            args=(example,),
            key=f"book_example_{example.name}",
            type="primary",
            icon=":material/menu_book:",
        )
    return False
