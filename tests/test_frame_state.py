"""The frame's shared state: URL both ways, settings kept, the table's draft and commit."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from attention.examples import BOOK_TOKENS
from tests.apptest_support import run_page
from ui.table import emb_to_text
from ui.table_state import table_for_words


def test_default_url_is_clean_and_view_is_the_book() -> None:
    at = run_page("step")
    assert not at.exception
    assert dict(at.query_params) == {}
    assert at.session_state["table"].tokens == BOOK_TOKENS
    assert at.session_state["seed"] == 123
    assert at.session_state["dropout"] == 0.0


def test_url_values_become_the_shared_state() -> None:
    query = {
        "seed": "7",
        "dropout": "0.5",
        "train": "false",
        "d_out": "3",
        "qkv_bias": "true",
        "heads": "2",
        "lang": "zh",
        "text": "the cat sat",
        "emb": "1,2;3,4;5,6",
    }
    at = run_page("step", query)
    assert not at.exception
    assert not at.warning
    state = at.session_state
    assert (state["seed"], state["dropout"], state["train"], state["d_out"]) == (7, 0.5, False, 3)
    assert (state["qkv_bias"], state["heads"], state["lang"]) == (True, 2, "zh")
    assert state["table"].tokens == ("the", "cat", "sat")
    assert state["table"].values == ((1.0, 2.0), (3.0, 4.0), (5.0, 6.0))


def test_url_round_trips_through_the_state() -> None:
    query = {"seed": "42", "dropout": "0.25", "d_out": "4", "text": "a b c d"}
    at = run_page("step", query)
    assert dict(at.query_params) == query
    table = table_for_words(["a", "b", "c", "d"], d_in=2)
    query_2d = {"text": "a b c d", "emb": emb_to_text(table)}
    at = run_page("step", query_2d)
    assert dict(at.query_params) == query_2d
    assert at.session_state["table"] == table


def test_changing_a_control_updates_the_url() -> None:
    at = run_page("step")
    at.slider(key="dropout").set_value(0.3).run()
    at.number_input(key="seed").set_value(9).run()
    assert dict(at.query_params) == {"dropout": "0.3", "seed": "9"}
    at.slider(key="dropout").set_value(0.0).run()
    assert dict(at.query_params) == {"seed": "9"}


# A bad value in the link (one warning naming it, every setting at its default, the book's
# numbers): tests/test_hostile_input.py's grid of URL cases.


def test_a_bad_sentence_keeps_what_was_typed_and_the_last_table() -> None:
    at = run_page("step")
    at.text_input(key="text").set_value("   ").run()
    assert at.text_input(key="text").value == "   "
    assert at.session_state["table"].tokens == BOOK_TOKENS
    assert any("empty" in e.value for e in at.error)
    at.text_input(key="text").set_value("hello world").run()
    assert at.session_state["table"].tokens == ("hello", "world")
    assert not at.error
    assert at.query_params["text"] == "hello world"


def test_a_table_problem_can_pass_through_a_context_manager() -> None:
    """Python sets ``__traceback__`` on an exception leaving a ``with`` block; it must not fail."""
    import contextlib

    from ui.table import InputProblem, problem

    @contextlib.contextmanager
    def block():
        yield

    with pytest.raises(InputProblem) as caught:
        with block():
            raise problem("table.empty")
    assert caught.value.key == "table.empty"


def _infos(at: AppTest) -> list[str]:
    return [info.value.replace("\\", "") for info in at.info]  # Markdown escapes removed


def test_a_url_dropout_between_slider_steps_is_rounded_and_says_so() -> None:
    at = run_page("step", {"dropout": "0.123456", "seed": "7"})
    assert not at.exception and not at.warning
    assert at.session_state["dropout"] == 0.12
    assert at.slider(key="dropout").value == 0.12
    assert at.query_params["dropout"] == "0.12"  # the link now says what is used
    notes = [text for text in _infos(at) if "dropout=0.123456" in text]
    assert notes == [
        "Link: “dropout=0.123456” was rounded to 0.12 (the control moves in steps of 0.01)."
    ]


def test_a_url_value_the_app_keeps_has_no_rounding_note() -> None:
    at = run_page("step", {"dropout": "0.25", "seed": "+7"})  # +7 is the same number 7
    assert not at.exception
    assert not [text for text in _infos(at) if "rounded" in text]
    assert (at.session_state["dropout"], at.session_state["seed"]) == (0.25, 7)


def test_compare_b_values_in_the_url_follow_the_same_rules() -> None:
    at = run_page("step", {"b_dropout": "0.3333", "b_d_out": "99", "b_seed": "8"})
    assert not at.exception
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert len(warnings) == 1 and "b_d_out=99" in warnings[0]  # bad: B keeps A's d_out
    assert [text for text in _infos(at) if "rounded" in text] == [
        "Link: “b_dropout=0.3333” was rounded to 0.33 (the control moves in steps of 0.01)."
    ]
    store = at.session_state["compare_b_store"]
    assert store == {"seed": 8, "dropout": 0.33, "train": True, "qkv_bias": False, "d_out": 2}
    assert dict(at.query_params) == {"b_seed": "8", "b_dropout": "0.33"}  # only where B ≠ A


def test_a_lecture_crossing_to_another_page_keeps_every_setting() -> None:
    """The deck's Next to another page switches in a run cut short before its sidebar: the
    settings must survive it (they fell back to the widgets' minimums: seed 0, eval, d_out 1)."""
    query = {"seed": "7", "train": "false", "d_out": "3", "dropout": "0.5", "text": "a b c"}
    lecture = {"lecture": "kv_cache.generate,multi_head.fused", "present": "1"}
    at = run_page("kv_cache", query | lecture)
    at.button(key="present_next").click().run()  # the kv cache's last screen → Multi-head
    assert not at.exception
    assert at.session_state["sidebar_page"] == "multi_head"
    kept = {name: at.session_state[name] for name in ("seed", "train", "d_out", "dropout", "text")}
    assert kept == {"seed": 7, "train": False, "d_out": 3, "dropout": 0.5, "text": "a b c"}
    assert {name: at.query_params[name] for name in query} == query
