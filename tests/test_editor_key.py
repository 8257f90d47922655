"""The embedding editor keeps its widget across cell edits and starts afresh on a structural change.

A browser keeps a data editor's grid while its widget id stays the same; a new key (or a new
frame) makes it throw the grid away and mount a new one. The editor's state is every edit since
it was mounted (``edited_rows``, ``added_rows``, ``deleted_rows``), so these tests send what a
browser sends: the page's own editor widget (its element id) with the whole state, as a widget
state of the rerun, and Streamlit runs the editor's callback before the script body.

Expected numbers come from ``trace_attention`` on the edited embeddings.
"""

from __future__ import annotations

import json

import torch
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.apptest_support import context_rows, run_page
from ui.i18n import t
from ui.table_state import book_table, table_for_words


def _send(at: AppTest, **state: object) -> AppTest:
    """Rerun with the page's editor holding ``state`` (every edit since it was mounted)."""
    (editor,) = at.data_editor
    widget_states = at._tree.get_widget_states()  # what AppTest sends for the other widgets
    widget = widget_states.widgets.add()
    widget.id = editor.proto.id
    widget.string_value = json.dumps(
        {"edited_rows": {}, "added_rows": [], "deleted_rows": [], **state}
    )
    return at._run(widget_states)


def _editor_key(at: AppTest) -> str:
    (editor,) = at.data_editor
    assert editor.key is not None
    return editor.key


def _editor_rows(at: AppTest) -> list[list[str]]:
    """The frame the editor's widget was mounted with (the browser draws its edits on top)."""
    (editor,) = at.data_editor
    return editor.value.astype(str).values.tolist()


def _expected_rows(inputs: torch.Tensor) -> list[list[str]]:
    trace = trace_attention(inputs, AttentionConfig())  # the app's defaults: seed 123, d_out 2
    return [[f"{float(v):.4f}" for v in row] for row in trace.context[0]]


def _frame(rows: list[dict[str, str]]) -> list[list[str]]:
    return [[row["token"], row["x1"], row["x2"], row["x3"]] for row in rows]


BOOK_FRAME = _frame(book_table().to_draft())


def test_two_cell_edits_keep_the_editor_and_both_reach_the_context_vectors() -> None:
    at = run_page("step")
    key = _editor_key(at)
    at = _send(at, edited_rows={"0": {"x1": "0.9"}})  # row 1, x1
    assert _editor_key(at) == key
    at = _send(at, edited_rows={"0": {"x1": "0.9"}, "2": {"x2": "-0.25"}})  # then row 3, x2
    assert not at.exception and not at.error
    assert _editor_key(at) == key  # the same widget: the browser keeps its grid
    assert _editor_rows(at) == BOOK_FRAME  # its frame stays; the edits live in the browser
    inputs = BOOK_EMBEDDINGS.clone()  # (6, 3)
    inputs[0, 0] = 0.9
    inputs[2, 1] = -0.25
    assert at.session_state["table"].values[0] == (0.9, 0.15, 0.89)
    assert at.session_state["table"].values[2][1] == -0.25
    assert context_rows(at) == _expected_rows(inputs)
    assert at.session_state["table_draft"][2]["x2"] == "-0.25"
    at = at.run()  # a rerun without an edit (a seed click would be one) keeps the widget too
    assert _editor_key(at) == key and context_rows(at) == _expected_rows(inputs)


def test_a_bad_cell_keeps_the_editor_and_the_last_valid_table_until_it_is_fixed() -> None:
    at = run_page("step")
    key = _editor_key(at)
    at = _send(at, edited_rows={"0": {"x1": "0.9"}})
    at = _send(at, edited_rows={"0": {"x1": "0.9"}, "1": {"x2": "abc"}})
    assert _editor_key(at) == key  # the grid stays and shows what was typed
    assert at.session_state["table_draft"][1]["x2"] == "abc"
    errors = " ".join(str(e.value) for e in at.error)
    assert t("table.not_a_number", row=2, column="x2", token="journey", text="abc") in errors
    inputs = BOOK_EMBEDDINGS.clone()
    inputs[0, 0] = 0.9  # the last valid table: the first edit, not the bad one
    assert context_rows(at) == _expected_rows(inputs)
    at = _send(at, edited_rows={"0": {"x1": "0.9"}, "1": {"x2": "0.5"}})  # fixed
    assert not at.error and _editor_key(at) == key
    inputs[1, 1] = 0.5
    assert context_rows(at) == _expected_rows(inputs)


def test_a_new_sentence_gives_a_fresh_editor_with_its_rows() -> None:
    at = run_page("step")
    at = _send(at, edited_rows={"0": {"x1": "0.9"}})
    key = _editor_key(at)
    at.text_input(key="text").set_value("cats chase mice").run()
    assert not at.exception
    assert _editor_key(at) != key
    words = ["cats", "chase", "mice"]
    assert _editor_rows(at) == _frame(table_for_words(words).to_draft())
    # the new widget starts with no edits: an edit of it is read against the new rows
    at = _send(at, edited_rows={"2": {"x3": "2"}})
    assert at.session_state["table"].tokens == tuple(words)
    assert at.session_state["table"].values[2][2] == 2.0
    assert at.session_state["table"].values[0] == table_for_words(words).values[0]


def test_a_deleted_row_keeps_the_editor_and_an_added_row_starts_a_new_one() -> None:
    at = run_page("step")
    key = _editor_key(at)
    at = _send(at, edited_rows={"0": {"x1": "0.9"}}, deleted_rows=[5])  # "step" deleted
    assert _editor_key(at) == key  # the grid shows the deletion itself
    assert at.session_state["table"].tokens == BOOK_TOKENS[:5]
    assert at.session_state["table"].values[0][0] == 0.9
    # an added row gets a word and its embedding from the app: the grid must show them
    at = _send(at, edited_rows={"0": {"x1": "0.9"}}, deleted_rows=[5], added_rows=[{}])
    assert not at.error
    fresh = _editor_key(at)
    assert fresh != key
    table = at.session_state["table"]
    assert table.tokens == (*BOOK_TOKENS[:5], "token6")
    assert table.values[5] == table_for_words(["token6"]).values[0]
    assert _editor_rows(at)[5][0] == "token6" and _editor_rows(at)[0][1] == "0.9"
    at = _send(at, edited_rows={"1": {"x3": "0.5"}})  # the next edit reads the new frame
    assert _editor_key(at) == fresh
    assert at.session_state["table"].tokens == (*BOOK_TOKENS[:5], "token6")
    assert at.session_state["table"].values[1][2] == 0.5


def test_a_language_change_remounts_the_editor_with_the_draft() -> None:
    at = run_page("step")
    key = _editor_key(at)
    at = _send(at, edited_rows={"3": {"x2": "abc"}})
    at.selectbox(key="lang").set_value("zh").run()
    assert not at.exception
    assert _editor_key(at) != key  # new labels: a new widget, started from the draft as typed
    assert _editor_rows(at)[3][2] == "abc"
    assert at.session_state["table"] == book_table()
