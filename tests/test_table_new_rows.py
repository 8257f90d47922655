"""A new row of the embedding table starts as a word and its embedding; a bad table is announced.

The edits are sent through the editor's own callback (``ui.table_state.on_table_edit``), as the browser
sends them: added rows, edited cells. The real-browser version is in
``tests/e2e/test_embeddings_and_one_query.py``.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attention.examples import BOOK_TOKENS, embed_words
from ui.table_state import table_for_words


def _editing_app() -> None:
    """The app, with a pending data-editor delta applied by the editor's callback first."""
    import streamlit as st

    from ui.frame import run_app
    from ui.table_state import on_table_edit

    delta = st.session_state.pop("pending_edit", None)
    if delta is not None:  # Streamlit runs on_change callbacks before the script body, like this
        st.session_state["editor_under_test"] = delta
        on_table_edit("editor_under_test")
    run_app(default_page=st.session_state.get("page_under_test", "embeddings"))


def _app(page: str = "embeddings", query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_function(_editing_app, default_timeout=60)
    at.session_state["page_under_test"] = page
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def _send(at: AppTest, *, edited=None, added=None, deleted=None) -> AppTest:  # noqa: ANN001
    at.session_state["pending_edit"] = {
        "edited_rows": edited or {},
        "added_rows": added or [],
        "deleted_rows": deleted or [],
    }
    return at.run()


def _embedding(word: str, d_in: int = 3) -> tuple[float, ...]:
    return table_for_words([word], d_in=d_in).values[0]


def test_an_added_empty_row_gets_a_placeholder_word_and_its_embedding() -> None:
    at = _send(_app(), added=[{}])
    assert not at.exception
    assert not at.error, [e.value for e in at.error]  # no red error for the fresh row
    table = at.session_state["table"]
    assert table.tokens == (*BOOK_TOKENS, "token7")
    assert table.values[6] == _embedding("token7")
    assert table.values[6] == pytest.approx(embed_words(["token7"])[0].tolist())
    assert at.query_params["text"] == "Your journey starts with one step token7"


def test_an_added_row_with_a_word_gets_that_words_embedding() -> None:
    at = _send(_app(query={"lang": "zh"}), added=[{"token": "cat", "x2": "0.5"}])
    assert not at.error
    table = at.session_state["table"]
    cat = _embedding("cat")
    assert table.tokens[-1] == "cat"
    assert table.values[-1] == (cat[0], 0.5, cat[2])  # typed cells stay, empty ones are filled


def test_a_placeholder_row_follows_the_word_typed_into_it_until_a_number_is_typed() -> None:
    at = _send(_app(), added=[{}])
    at = _send(at, edited={"6": {"token": "cat"}})
    assert not at.error
    assert at.session_state["table"].values[6] == _embedding("cat")
    at = _send(at, edited={"6": {"x1": "0.9"}})  # a number typed by hand…
    at = _send(at, edited={"6": {"token": "dog"}})  # …is kept when the word changes
    table = at.session_state["table"]
    assert table.tokens[6] == "dog" and table.values[6] == (0.9, *_embedding("cat")[1:])


def test_placeholder_words_are_not_reused() -> None:
    at = _send(_app(query={"text": "token3 b"}), added=[{}])
    assert at.session_state["table"].tokens == ("token3", "b", "token4")


def test_while_the_table_has_an_error_every_page_says_the_numbers_are_the_last_valid_ones() -> None:
    at = _send(_app(), edited={"1": {"x2": "abc"}})  # a bad cell typed on the Embeddings page
    notice = "the last valid table (6 tokens: “Your journey starts with one step”)"
    assert any(notice in w.value for w in at.warning)
    assert at.session_state["table"].tokens == BOOK_TOKENS
    # the same draft seen from another page (AppTest cannot click the navigation: this session
    # opens on the masking page and receives the same edit; the browser test clicks)
    at = _send(_app("masking"), edited={"1": {"x2": "abc"}})
    assert not at.exception
    assert at.title[0].value == "Masking two ways"
    assert any(notice in w.value for w in at.warning), [w.value for w in at.warning]
    links = at.get("page_link")
    assert len(links) == 1 and "Embeddings" in links[0].proto.label
    at = _send(at, edited={"1": {"x2": "0.5"}})  # fixed: the notice goes
    assert not any(notice in w.value for w in at.warning)
    assert not at.get("page_link")


def test_the_notice_in_chinese() -> None:
    at = _send(_app("step", {"lang": "zh"}), edited={"0": {"token": ""}})
    assert any("上一个有效的表格（6 个词元" in w.value for w in at.warning)
