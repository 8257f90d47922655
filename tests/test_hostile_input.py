"""Hostile and broken input: every case is told to the user, and the page keeps a valid result.

Three kinds of input, each with its own cases:

- **URL values** (a shared link): each bad value gives a warning that names the parameter, and
  the page shows the default result (the book's context vectors) without an exception.
- **Table cells** typed into the embedding editor: each bad cell gives an error naming its row and
  column, the last valid table stays on screen, and the draft keeps exactly what was typed. The
  edit goes through the editor's own callback (:func:`ui.table_state.on_table_edit`) with the delta a
  ``st.data_editor`` stores in session state, before the script body, as Streamlit runs it.
- **Uploads** of a CSV file: each bad file is a :class:`ui.table.InputProblem` with a message.

The numbers asserted come from ``trace_attention`` in the test (and the book's golden row for
seed 123 from REFERENCE.md).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.apptest_support import context_rows, run_page
from tests.cases import subcases
from ui.i18n import t
from ui.table import MAX_UPLOAD_BYTES, InputProblem, table_from_csv, table_from_rows, table_to_csv
from ui.table_state import book_table, random_words

REPO_ROOT = Path(__file__).resolve().parent.parent
BOOK_CONTEXT_ROW_1 = ["-0.4519", "0.2216"]  # REFERENCE.md: CausalAttention, seed 123, row 1


def _expected_rows(inputs: torch.Tensor, **config: object) -> list[list[str]]:
    trace = trace_attention(inputs, AttentionConfig(**config))  # type: ignore[arg-type]
    return [[f"{float(v):.4f}" for v in row] for row in trace.context[0]]


def _messages(at: AppTest) -> str:
    return " ".join(str(w.value) for w in [*at.warning, *at.error]).replace("\\", "")


BOOK_ROWS = _expected_rows(BOOK_EMBEDDINGS)
SIX_ROWS = ";".join(["0.1,0.2,0.3"] * 5)

URL_CASES = {
    "seed not a number": ({"seed": "abc"}, "seed=abc"),
    "seed negative": ({"seed": "-5"}, "seed=-5"),
    "seed of 30 digits": ({"seed": "9" * 30}, "seed=999"),
    "seed of 30 ones": ({"seed": "1" * 30}, "seed=111"),
    "seed NaN": ({"seed": "NaN"}, "seed=NaN"),
    "dropout not a number": ({"dropout": "lots"}, "dropout=lots"),
    "dropout NaN": ({"dropout": "NaN"}, "dropout=NaN"),
    "dropout inf": ({"dropout": "inf"}, "dropout=inf"),
    "dropout out of range": ({"dropout": "1.5"}, "dropout=1.5"),
    "d_out zero": ({"d_out": "0"}, "d_out=0"),
    "d_out 100000": ({"d_out": "100000"}, "d_out=100000"),
    "heads zero": ({"heads": "0"}, "heads=0"),
    "heads not a number": ({"heads": "two"}, "heads=two"),
    "train not a bool": ({"train": "maybe"}, "train=maybe"),
    "qkv_bias inf": ({"qkv_bias": "inf"}, "qkv_bias=inf"),
    "unknown lang": ({"lang": "xx"}, "lang=xx"),
    "unknown palette": ({"palette": "neon"}, "palette=neon"),
    "empty text": ({"text": ""}, "text"),
    "whitespace text": ({"text": "   \t "}, "text"),
    "5000 words": ({"text": " ".join(random_words(4096) + random_words(904))}, "5000"),
    "emb wrong size": ({"emb": "1,2,3"}, "emb"),
    "emb ragged": ({"emb": "1,2,3;1,2;" + ";".join(["1,2,3"] * 4)}, "emb"),
    "emb NaN": ({"emb": "nan,0.2,0.3;" + SIX_ROWS}, "nan"),
    "emb 1e309": ({"emb": "1e309,0.2,0.3;" + SIX_ROWS}, "1e309"),
    "emb letters": ({"emb": "a,b,c;" + SIX_ROWS}, "emb"),
    "unknown parameter": ({"colour": "red"}, "colour"),
}


@subcases("case", list(URL_CASES))
def test_bad_url_value_is_reported_and_default_result_shown(case: str) -> None:
    """One warning, naming the parameter and what was given; every setting at its default."""
    query, named = URL_CASES[case]
    (name,) = query
    at = run_page("step", query)
    assert not at.exception, [e.value for e in at.exception]
    messages = _messages(at)
    warnings = [str(w.value).replace("\\", "") for w in at.warning]  # Markdown escapes removed
    assert len(warnings) == 1, f"{case}: {warnings}"
    assert name in warnings[0], f"{case}: {name!r} not named in {warnings[0]!r}"
    assert named in messages, f"{case}: {named!r} not named in {messages!r}"
    assert at.session_state["table"].tokens == BOOK_TOKENS
    assert at.session_state["seed"] == 123
    assert context_rows(at) == BOOK_ROWS
    assert context_rows(at)[0] == BOOK_CONTEXT_ROW_1


def test_bad_url_value_does_not_hide_the_good_ones() -> None:
    at = run_page("step", {"seed": "7", "dropout": "NaN", "d_out": "3"})
    assert "dropout=NaN" in _messages(at)
    assert context_rows(at) == _expected_rows(BOOK_EMBEDDINGS, seed=7, d_out=3)


def test_4096_random_words_in_the_url_work() -> None:
    words = random_words(4096)
    at = run_page("step", {"text": " ".join(words)}, timeout=300)
    assert not at.exception and not at.warning
    assert at.session_state["table"].tokens == tuple(words)
    assert at.session_state["text"] == " ".join(words)  # the sentence box shows them all


# --- the sentence box: an error, and the typed text stays --------------------------------------


@pytest.mark.parametrize(
    ("typed", "message_key"),
    [("   ", "text.empty"), (" ".join(["w"] * 5000), "text.too_many_words")],
    ids=["whitespace", "5000 words"],
)
def test_bad_sentence_keeps_typed_text_and_last_valid_result(typed: str, message_key: str) -> None:
    at = run_page("step", {"seed": "123"})
    at.text_input(key="text").set_value(typed).run()
    assert not at.exception
    assert at.text_input(key="text").value == typed  # nothing typed is lost
    expected = t(message_key, words=5000, limit=4096)
    assert any(expected in str(e.value) for e in at.error), [e.value for e in at.error]
    assert context_rows(at) == BOOK_ROWS


# --- table cells, through the editor's own callback ---------------------------------------------


def _editing_app() -> None:
    """The app, with a pending data-editor delta applied by the editor's callback first."""
    import streamlit as st

    from ui.frame import run_app
    from ui.table_state import on_table_edit

    delta = st.session_state.pop("pending_edit", None)
    if delta is not None:  # Streamlit runs on_change callbacks before the script body, like this
        st.session_state["editor_under_test"] = delta
        on_table_edit("editor_under_test")
    run_app(default_page="step")


def _edit(at: AppTest, row: int, column: str, text: object) -> AppTest:
    at.session_state["pending_edit"] = {
        "edited_rows": {row: {column: text}},
        "added_rows": [],
        "deleted_rows": [],
    }
    return at.run()


CELL_CASES = {
    "text": ("abc", "table.not_a_number"),
    "empty": ("", "table.empty_cell"),
    "NaN": ("NaN", "table.not_finite"),
    "inf": ("inf", "table.not_finite"),
    "-inf": ("-inf", "table.not_finite"),
    "1e309": ("1e309", "table.not_finite"),
    "1e30": ("1e30", "table.too_large"),
}


@subcases("case", list(CELL_CASES))
def test_bad_cell_names_the_cell_keeps_typing_and_last_valid_table(case: str) -> None:
    typed, key = CELL_CASES[case]
    at = AppTest.from_function(_editing_app, default_timeout=60).run()
    assert context_rows(at) == BOOK_ROWS
    at = _edit(at, 1, "x2", typed)  # row 2 ("journey"), column x2
    assert not at.exception
    detail = t(key, row=2, column="x2", token="journey", text=typed, limit="1e6")
    errors = _messages(at)  # Markdown escapes (\\-inf) removed
    assert detail in errors, errors
    assert at.session_state["table_draft"][1]["x2"] == typed  # what was typed stays
    assert at.session_state["table"].tokens == BOOK_TOKENS  # the last valid table
    assert context_rows(at) == BOOK_ROWS


def test_fixing_the_cell_commits_and_the_numbers_follow() -> None:
    at = AppTest.from_function(_editing_app, default_timeout=60).run()
    at = _edit(at, 1, "x2", "abc")
    at = _edit(at, 1, "x2", "0.5")
    assert not at.error
    inputs = BOOK_EMBEDDINGS.clone()
    inputs[1, 1] = 0.5
    assert context_rows(at) == _expected_rows(inputs)


def test_empty_token_cell_is_named() -> None:
    at = AppTest.from_function(_editing_app, default_timeout=60).run()
    at = _edit(at, 3, "token", "")
    assert t("table.empty_token", row=4) in " ".join(str(e.value) for e in at.error)
    assert at.session_state["table_draft"][3]["token"] == ""
    assert context_rows(at) == BOOK_ROWS


@pytest.mark.parametrize(
    ("typed", "key"),
    [("abc", "table.not_a_number"), ("", "table.empty_cell"), ("nan", "table.not_finite"),
     ("inf", "table.not_finite"), ("1e30", "table.too_large"), (None, "table.empty_cell")],
)  # fmt: skip
def test_cell_parser_rejects_each_bad_value_with_its_place(typed: object, key: str) -> None:
    rows = [{"token": "a", "x1": "0.1"}, {"token": "b", "x1": typed}]
    with pytest.raises(InputProblem) as caught:
        table_from_rows(rows, ["token", "x1"])
    assert caught.value.key == key
    assert caught.value.kwargs["row"] == 2 and caught.value.kwargs["column"] == "x1"


# --- uploads ------------------------------------------------------------------------------------


def _csv(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


UPLOAD_CASES = {
    "wrong columns": (_csv(["word,a,b", "x,1,2"]), "upload.header"),
    "missing token column": (_csv(["x1,x2", "1,2"]), "upload.header"),
    "non-numeric": (_csv(["token,x1,x2", "a,1,two"]), "table.not_a_number"),
    "NaN cell": (_csv(["token,x1", "a,nan"]), "table.not_finite"),
    "1e30 cell": (_csv(["token,x1", "a,1e30"]), "table.too_large"),
    "ragged row": (_csv(["token,x1,x2", "a,1"]), "upload.ragged"),
    "too many rows": (
        _csv(["token,x1", *[f"w{i},0.5" for i in range(4097)]]),
        "table.too_many_rows",
    ),  # fmt: skip
    "larger than the limit": (
        b"token,x1\n" + b"a,0.5\n" * (MAX_UPLOAD_BYTES // 6 + 1),
        "upload.too_large",
    ),  # fmt: skip
    "binary junk": (bytes(range(256)) * 8, "upload.binary"),
    "not utf-8": (b"token,x1\n\xff\xfe,1\n", "upload.not_utf8"),
    "empty": (b"", "upload.empty"),
}


@pytest.mark.parametrize("case", list(UPLOAD_CASES))
def test_bad_upload_is_a_problem_with_a_message(case: str) -> None:
    data, key = UPLOAD_CASES[case]
    with pytest.raises(InputProblem) as caught:
        table_from_csv(data)
    assert caught.value.key == key
    assert t(caught.value.key, **caught.value.kwargs)  # a message exists in the catalogue


def test_good_upload_still_reads() -> None:
    table = table_from_csv(table_to_csv(book_table()).encode())
    assert table.tokens == BOOK_TOKENS


def test_server_limits_upload_size_and_keeps_xsrf_protection() -> None:
    config = tomllib.loads((REPO_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == 1  # megabytes
    assert config["server"].get("enableXsrfProtection", True) is True
    assert MAX_UPLOAD_BYTES <= 1024 * 1024
