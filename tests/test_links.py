"""Links the app writes always open; a link's odd parameters are said once (issue 27, item 3).

A query longer than ``MAX_LINK_CHARS`` (a large table: 2,000 × 16 numbers make 375,300
characters, and the server refuses far less) leaves the table out of the address, says so, and
the Reproducibility page offers the table as a CSV file beside the shorter link. Nine hundred
unknown parameters make one note, not nine hundred; a link of more than a thousand, which
Streamlit empties before the app sees it, is said to be unread (the browser counts them:
``tests/e2e/test_hostile_and_xss.py``). Every switch reads the same words.
"""

from __future__ import annotations

import json

import pytest
from streamlit.runtime.state import query_params

from tests.apptest_support import run_page
from ui.link_check import LINK_CHECK_CLASS, MAX_LINK_FIELDS
from ui.settings import parse_bool
from ui.table import InputProblem
from ui.table_state import random_words
from ui.url import MAX_LINK_CHARS, link_params, query_text

LONG_TEXT = " ".join(random_words(1500))  # its query alone is longer than MAX_LINK_CHARS


def test_a_link_keeps_everything_while_it_fits_and_leaves_the_table_out_after() -> None:
    short = {"seed": "7", "text": "a b c", "emb": "1,2,3;4,5,6;7,8,9"}
    assert link_params(short) == (short, False)
    long = {"seed": "7", "text": LONG_TEXT, "emb": "0.5,0.5,0.5;" * 1500}
    assert len(query_text(long)) > MAX_LINK_CHARS
    assert link_params(long) == ({"seed": "7"}, True)


@pytest.mark.parametrize(
    ("words", "value"),
    [(("1", "true", "on", "yes", " TRUE "), True), (("0", "false", "off", "No"), False)],
)
def test_every_switch_reads_the_same_words(words: tuple[str, ...], value: bool) -> None:
    for word in words:
        assert parse_bool(word, "train") is value
    with pytest.raises(InputProblem):
        parse_bool("maybe", "train")


def test_switches_of_the_sidebar_accept_on_and_off_from_a_link() -> None:
    """Presenter mode's switch too: ``?present=on`` as ``?present=1`` (it was refused)."""
    at = run_page("step", {"train": "on", "qkv_bias": "yes", "present": "on"})
    assert not at.exception and not at.warning
    assert at.session_state["train"] is True and at.session_state["qkv_bias"] is True
    assert at.button(key="present_next"), "presenter mode is on"
    at = run_page("step", {"present": "maybe"})
    assert len(at.warning) == 1 and "present" in at.warning[0].value


def test_nine_hundred_unknown_parameters_make_one_note() -> None:
    at = run_page("step", {f"p{index:03d}": "1" for index in range(900)})
    assert not at.exception
    assert len(at.warning) == 1
    note = at.warning[0].value
    assert "900 parameters are unknown" in note and "p000" in note and "…" in note


def test_a_link_streamlit_does_not_read_is_counted_against_streamlits_own_limit() -> None:
    """Streamlit empties a query of 1,001 parameters and reads one of 1,000; the check every page
    mounts counts against that limit, and its report makes one warning in the reader's language."""
    assert MAX_LINK_FIELDS == query_params.CLIENT_STATE_QUERY_STRING_MAX_FIELDS
    fields = [f"p{index}=1" for index in range(MAX_LINK_FIELDS + 1)]
    assert query_params.sanitize_query_string("&".join(fields)) == ""
    assert query_params.sanitize_query_string("&".join(fields[:-1])) != ""
    at = run_page("masking")
    (check,) = [
        c for c in at.get("bidi_component") if c.proto.component_name.endswith("link_check")
    ]
    assert json.loads(check.proto.json) == {"limit": MAX_LINK_FIELDS}
    assert not at.warning

    for lang, words in (("en", "1,001 parameters"), ("zh", "1,001 个参数")):
        at = run_page("masking", {"lang": lang})
        at.session_state[LINK_CHECK_CLASS] = {"fields": MAX_LINK_FIELDS + 1}  # what the JS sends
        at.run()
        assert not at.exception
        assert len(at.warning) == 1 and words in at.warning[0].value


def test_a_table_too_large_for_a_link_leaves_the_address_and_comes_as_a_file() -> None:
    at = run_page("reproducibility", {"text": LONG_TEXT, "seed": "7"})
    assert not at.exception
    assert dict(at.query_params) == {"seed": "7"}, "the address opens: the table is left out"
    assert any("too large for a link" in toast.value for toast in at.toast)
    assert any("too large for a link" in warning.value for warning in at.warning)
    shared = at.code[-1].value
    assert "seed=7" in shared and "text=" not in shared
    assert len(shared) < MAX_LINK_CHARS
    assert at.get("download_button")[-1].proto.label == "Download the table (CSV)"

    at.text_input(key="text").set_value("a short sentence").run()  # fits again: all of it
    assert dict(at.query_params)["text"] == "a short sentence"
    assert not at.warning and "text=a%20short%20sentence" in at.code[-1].value
