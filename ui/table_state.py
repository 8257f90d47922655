"""The embedding table every page computes from: its draft (as typed) and its commit (valid).

Session state holds ``table`` (the last valid :class:`~ui.table.Table`: every number on screen
comes from it) and ``table_draft`` (strings as typed, shown in every editor), changed only
through :func:`commit_table` and :func:`on_table_edit`.

An editor keeps its widget (an :class:`EditorBase`) across ordinary cell edits, so the browser's
grid stays; a draft set any other way (a new sentence, a reset, an upload, the URL, the other
editor, a cell the app fills in) gives the editor a fresh widget that starts from the draft.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st
import torch

from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS, embed_words, split_words
from viz.markdown_text import escape_markdown

from .choices import keep_choices
from .i18n import t
from .table import MAX_TOKENS, TOKEN_COLUMN, InputProblem, Table, problem, shorten, table_from_rows

MAX_TEXT_CHARS = 100_000


def _rows_of(embeddings: torch.Tensor) -> tuple[tuple[float, ...], ...]:
    """float32 values as the shortest decimals that read back as the same float32 (0.43)."""
    return tuple(
        tuple(float(str(np.float32(v))) for v in row) for row in embeddings.numpy().tolist()
    )


def book_table() -> Table:
    """The book's six tokens and 3-dimensional embeddings."""
    return Table(BOOK_TOKENS, _rows_of(BOOK_EMBEDDINGS))


def table_for_words(words: list[str], d_in: int = 3) -> Table:
    """Labels ``words`` with reproducible embeddings (the book's for the book's words at d_in 3)."""
    embeddings = embed_words(words, d_in=d_in)  # (T, d_in)
    return Table(tuple(words), _rows_of(embeddings))


def parse_sentence(text: str) -> list[str]:
    """The sentence's words, or a InputProblem if it is empty or too long."""
    if len(text) > MAX_TEXT_CHARS:
        raise problem("text.too_long_chars", chars=len(text), limit=MAX_TEXT_CHARS)
    words = split_words(text)
    if not words:
        raise problem("text.empty")
    if len(words) > MAX_TOKENS:
        raise problem("text.too_many_words", words=len(words), limit=MAX_TOKENS)
    for index, word in enumerate(words):
        if len(word) > 100:
            raise problem("table.long_token", row=index + 1)
    return words


def commit_table(table: Table, *, reset_draft: bool = True) -> None:
    """Make ``table`` the valid table every page shows; refresh the editors' drafts.

    The sentence box is written only when its words change: writing a widget's key sends its
    value to the browser again, and a cell edit leaves the words as they are.
    """
    st.session_state["table"] = table
    sentence = " ".join(table.tokens)
    if st.session_state.get("text") != sentence:
        st.session_state["text"] = sentence
    st.session_state.pop("text_problem", None)
    st.session_state.pop("table_problem", None)
    if reset_draft:
        _set_draft(table.to_draft(), [TOKEN_COLUMN, *table.column_names()])


def _set_draft(rows: list[dict[str, str]], columns: list[str]) -> None:
    """A new draft (a new list: every editor's :class:`EditorBase` then starts afresh)."""
    st.session_state["table_draft"] = rows
    st.session_state["table_columns"] = columns


def current_table() -> Table:
    """The last valid embedding table (what every number on screen is computed from)."""
    return st.session_state["table"]


def on_text_change() -> None:
    """``on_change`` of the sentence box: its words become the table's tokens."""
    keep_choices()  # the token labels change: see ui/choices.py
    text = st.session_state.get("text", "")
    try:
        words = parse_sentence(text)
    except InputProblem as error:
        st.session_state["text_problem"] = error
        return
    table = table_for_words(words, d_in=current_table().d_in)
    commit_table(table)


def _start_values(word: str, columns: list[str]) -> dict[str, str]:
    """The value cells a row of ``word`` starts with: the word's own embedding, as text.

    The same numbers the sentence box gives the word (:func:`table_for_words`), so a token
    added in the table and the same token typed in the sentence get the same embedding.
    """
    value_columns = [c for c in columns if c != TOKEN_COLUMN]
    start = table_for_words([word], d_in=len(value_columns)).to_draft()[0]
    return {c: start[c] for c in value_columns}


def _placeholder_word(rows: list[dict[str, object]]) -> str:
    """A word for a new row whose token is not typed yet: ``token7`` (unused in the table)."""
    used = {str(row.get(TOKEN_COLUMN, "")).strip() for row in rows}
    number = len(rows) + 1
    while t("table.new_token", n=number) in used:
        number += 1
    return t("table.new_token", n=number)


def _has_start_values(row: dict[str, object], columns: list[str]) -> bool:
    """True while a row's numbers are still its token's own embedding (none typed by hand)."""
    token = str(row.get(TOKEN_COLUMN, "")).strip()
    if not token:
        return False
    start = _start_values(token, columns)
    return all(str(row.get(c, "")).strip() == text for c, text in start.items())


def _draft_from_edits(
    base: list[dict[str, str]], delta: dict, columns: list[str]
) -> tuple[list[dict[str, object]], bool]:
    """Apply a data editor's edits (edited, added, deleted rows) to the frame it was mounted with.

    ``delta`` holds every edit since mounting, applied in Streamlit's order: cells, deleted rows,
    added rows. A new row starts as its typed token (or a placeholder ``token7``) with that word's
    embedding in empty cells; a row whose numbers are still its token's embedding follows its token
    when the word changes, as the sentence box would; numbers typed by hand stay.

    Returns the rows and whether the app filled in a cell the grid does not show (then the editor
    needs a fresh widget).
    """
    rows = [dict(row) for row in base]
    filled = False
    for position, changes in (delta.get("edited_rows") or {}).items():
        index = int(position)
        if not 0 <= index < len(rows):
            continue
        typed = {k: _cell_text(v) for k, v in changes.items() if k in columns}
        renamed_only = set(typed) == {TOKEN_COLUMN} and typed[TOKEN_COLUMN].strip() != ""
        follows_token = renamed_only and _has_start_values(rows[index], columns)
        rows[index].update(typed)
        if follows_token:
            start = _start_values(typed[TOKEN_COLUMN].strip(), columns)
            filled |= any(rows[index].get(c) != text for c, text in start.items())
            rows[index].update(start)
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    rows = [row for i, row in enumerate(rows) if i not in deleted]
    for added in delta.get("added_rows") or []:
        row = {c: _cell_text(added.get(c)) for c in columns}
        word = row[TOKEN_COLUMN].strip() or _placeholder_word(rows)
        if not row[TOKEN_COLUMN]:
            row[TOKEN_COLUMN] = word
            filled = True
        for column, text in _start_values(word, columns).items():
            if row[column].strip() == "":
                row[column] = text
                filled = True
        rows.append(row)
    return rows, filled


def _cell_text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


@dataclass
class EditorBase:
    """One editor's widget: its key, the frame it was mounted with, and the draft its edits made.

    ``draft`` is the draft list this widget's edits made last (compared by identity: while it is
    the session's draft, no other change has replaced it), ``shown`` whether the browser's grid
    shows that draft exactly (not when the app filled in cells the grid does not have).
    """

    key: str
    rows: list[dict[str, str]]  # the frame the widget was mounted with (never changed)
    columns: list[str]
    draft: list[dict[str, str]]
    look: Hashable  # what else the widget's identity depends on (its labels' language, height)
    shown: bool = True
    frame: Any = field(default=None, repr=False, compare=False)  # ``rows`` as the editor's frame


EDITORS_KEY = "table_editors"  # {where: EditorBase}
EDITOR_SERIAL_KEY = "table_editor_serial"  # widgets made so far in this session


def editor_base(where: str, look: Hashable) -> EditorBase:
    """The widget of the editor ``where`` (one per page): the one it has, or a fresh one.

    The widget stays while the session's draft is the one its edits made and its grid shows it, its
    ``look`` is unchanged, and its state is alive (a widget not drawn last run has lost its state).
    Otherwise a new key starts a new widget from the current draft.
    """
    draft = st.session_state["table_draft"]
    editors: dict[str, EditorBase] = st.session_state.setdefault(EDITORS_KEY, {})
    base = editors.get(where)
    if (
        base is None
        or base.draft is not draft
        or not base.shown
        or base.look != look
        or base.key not in st.session_state
    ):
        serial = st.session_state.get(EDITOR_SERIAL_KEY, 0) + 1
        st.session_state[EDITOR_SERIAL_KEY] = serial
        columns = st.session_state["table_columns"]
        base = EditorBase(f"table_editor_{where}_{serial}", draft, columns, draft, look)
        editors[where] = base
    return base


def _editor_with_key(editor_key: str) -> EditorBase | None:
    for base in st.session_state.get(EDITORS_KEY, {}).values():
        if base.key == editor_key:
            return base
    return None


def on_table_edit(editor_key: str) -> None:
    """Callback of every embedding editor: keep the typed draft, commit it if it is valid.

    The editor's state is read against the frame its widget was mounted with (or, for an editor the
    session does not know, the current draft). An editor whose draft another change of the same run
    replaced (a sentence, reset or upload) is left out: its grid is about to be replaced.
    """
    draft = st.session_state["table_draft"]
    base = _editor_with_key(editor_key)
    if base is not None and base.draft is not draft:
        return
    columns = base.columns if base is not None else st.session_state["table_columns"]
    frame = base.rows if base is not None else draft
    rows, filled = _draft_from_edits(frame, st.session_state.get(editor_key) or {}, columns)
    draft = [{c: _cell_text(row.get(c)) for c in columns} for row in rows]
    _set_draft(draft, columns)
    if base is not None:
        base.draft, base.shown = draft, not filled
    try:
        table = table_from_rows(rows, columns)
    except InputProblem as error:
        st.session_state["table_problem"] = error
        return
    commit_table(table, reset_draft=False)


def table_problem() -> InputProblem | None:
    """The problem of the current draft (None when what is shown is what was typed)."""
    return st.session_state.get("table_problem")


# --- session start: defaults, then the URL ---------------------------------------------------


def show_stale_table_notice() -> bool:
    """While the edited table has an error, say that the numbers shown are the last valid table's.

    Called by the frame on every page (one notice for all of them). Returns True if shown.
    """
    if table_problem() is None:
        return False
    table = current_table()
    st.warning(
        t(
            "table.stale_notice",
            tokens=table.num_tokens,
            sentence=escape_markdown(shorten(" ".join(table.tokens), 60)),
        ),
        icon="⚠️",
    )
    return True


# --- random tokens: long sequences in one click ------------------------------------------------

_SYLLABLE_STARTS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "")
_SYLLABLE_VOWELS = ("a", "e", "i", "o", "u")
RANDOM_TOKENS_DEFAULT = min(1024, MAX_TOKENS)  # at most the operator's token limit


def random_words(count: int, seed: int = 0) -> list[str]:
    """``count`` made-up words (``"tavo"``, ``"mi"``…), the same for the same count and seed.

    A private NumPy generator (the global RNGs are untouched) draws 1 to 3 syllables per word, so
    4096 words still fit the ``text`` URL value.
    """
    count = max(0, min(int(count), MAX_TOKENS))
    generator = np.random.default_rng([seed, count])
    lengths = generator.integers(1, 4, size=count)  # syllables per word
    starts = generator.integers(0, len(_SYLLABLE_STARTS), size=(count, 3))
    vowels = generator.integers(0, len(_SYLLABLE_VOWELS), size=(count, 3))
    return [
        "".join(
            _SYLLABLE_STARTS[starts[i, k]] + _SYLLABLE_VOWELS[vowels[i, k]]
            for k in range(lengths[i])
        )
        for i in range(count)
    ]
