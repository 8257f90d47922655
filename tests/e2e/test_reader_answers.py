"""The chapter-3 reader's questions, answered on the pages in a real browser (issue 30).

Each answer is a computed number checked against ``attention/``: the book's 3.5.2 dropout demo on
the chapter's path (the "journey" row dropped whole), a row dropped whole on the step page with
its chance, both multi-head classes' parameter counts at two settings, the book's batch of two
(shapes with the batch first), and Find the bug's choice in the link. One shared server.
"""

from __future__ import annotations

import re

import pytest

from attention import AttentionConfig, trace_attention
from attention.chapter import dropout_demo
from attention.examples import BOOK_EMBEDDINGS
from attention.parameter_counts import parameter_count
from tests.e2e.helpers import assert_no_exception, open_app, read_matrix, wait_settled

pytest.importorskip("playwright")
from playwright.sync_api import Page, expect  # noqa: E402

APPEAR_MS = 60_000


def test_the_chapters_dropout_demo_shows_the_vanished_row(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/chapter_path")
    shown = read_matrix(page, "chapter_dropout_weights")
    demo = dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5)
    expected = [[f"{value:.4f}" for value in row] for row in demo.dropped_weights.tolist()]
    assert shown.numbers() == expected
    assert shown.numbers()[1] == ["0.0000"] * 6, "the book's journey row, dropped whole"
    expect(
        page.get_by_text(re.compile(r"Every weight of “journey” \(row 2\) was dropped"))
    ).to_be_visible()
    expect(page.get_by_text(re.compile(r"These are the book's two printouts"))).to_be_visible()
    assert_no_exception(page)


def test_a_dropped_row_is_named_with_its_chance(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/?seed=1&dropout=0.5&step=dropout")
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=1, dropout=0.5))
    assert trace.context[0][2].abs().sum() == 0  # "starts" in this pass
    message = page.get_by_text(re.compile(r"Every weight of “starts” \(row 3\) was dropped"))
    expect(message).to_be_visible(timeout=APPEAR_MS)
    expect(message).to_contain_text("p³ = 0.125")
    assert_no_exception(page)


def test_parameter_counts_at_two_settings(page: Page, streamlit_server: str) -> None:
    for query, d_out in (("heads=2", 2), ("heads=2&d_out=4&qkv_bias=1", 4)):
        open_app(page, streamlit_server, f"/multi_head?{query}")
        bias = "qkv_bias" in query
        for variant in ("wrapper", "fused"):
            count = parameter_count(variant, d_in=3, d_out=d_out, num_heads=2, qkv_bias=bias)
            sentence = page.get_by_text(re.compile(r"MultiHeadAttentionWrapper has \d+ trainable"))
            expect(sentence).to_contain_text(str(count.total), timeout=APPEAR_MS)
        assert_no_exception(page)
    expect(page.get_by_text(re.compile("has 36 trainable"))).to_have_count(0)


def test_the_books_batch_of_two_shows_its_shapes(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/?batch=2")
    expect(page.get_by_text(re.compile(r"shape \(2, 6, 2\), batch item 0"))).to_be_visible(
        timeout=APPEAR_MS
    )
    expect(
        page.get_by_text(re.compile("These are the context vectors the book prints"))
    ).to_be_visible()
    assert_no_exception(page)


def test_find_the_bugs_choice_is_in_the_link(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/find_the_bug?bug=mask_not_applied")
    choice = page.get_by_role("combobox", name="Bug")
    expect(choice).to_have_value("Mask registered but never applied", timeout=APPEAR_MS)
    assert "bug=mask_not_applied" in page.url
    wait_settled(page)
    assert_no_exception(page)
