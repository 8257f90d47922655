"""The Embeddings page: d_in, reset, upload and download change (or keep) the shared table."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS, embed_words
from tests.apptest_support import component_table_data, page_text, run_page
from ui.table import MAX_UPLOAD_BYTES, InputProblem, Table, table_from_csv, table_to_csv

UPLOAD = "embeddings_upload"
D_IN = "embeddings_d_in"


def _table(at: AppTest) -> Table:
    return at.session_state["table"]


def _points(at: AppTest) -> dict[str, Any]:
    """The data the page's chart component received (``ui.chart``); no Plotly."""
    assert len(at.get("plotly_chart")) == 0
    return component_table_data(at, "embeddings_points")


def _upload(at: AppTest, content: bytes, name: str = "table.csv") -> AppTest:
    return at.file_uploader(key=UPLOAD).set_value((name, content, "text/csv")).run()


@pytest.fixture
def at() -> AppTest:
    app = run_page("embeddings")
    assert not app.exception
    return app


def test_page_shows_the_book_table_and_its_points_in_3d(at: AppTest) -> None:
    table = _table(at)
    assert table.tokens == BOOK_TOKENS
    assert table.values[1] == pytest.approx(BOOK_EMBEDDINGS[1].tolist())
    points = _points(at)
    assert points["dims"] == 3
    assert points["labels"] == list(BOOK_TOKENS)
    np.testing.assert_array_equal(points["points"], table.values)  # the table's own numbers
    np.testing.assert_allclose(points["points"], BOOK_EMBEDDINGS.numpy(), rtol=1e-6)
    assert points["description"].startswith("Token embeddings: 6 tokens as points in 3-D")
    assert points["download_label"] == "⤓ Download as SVG" and points["reset_label"] == "Reset view"
    text = page_text(at)
    assert "embedding" in text and "only ever sees these numbers" in text
    assert at.number_input(key=D_IN).value == 3


def test_changing_d_in_regenerates_the_table_and_the_plot(at: AppTest) -> None:
    at.number_input(key=D_IN).set_value(2).run()
    assert not at.exception
    table = _table(at)
    assert table.d_in == 2 and table.tokens == BOOK_TOKENS
    expected = embed_words(list(BOOK_TOKENS), d_in=2)
    assert table.values[0] == pytest.approx(expected[0].tolist())
    points = _points(at)
    assert points["dims"] == 2
    np.testing.assert_array_equal(points["points"], table.values)
    assert "d_in = 2" in page_text(at)

    at.number_input(key=D_IN).set_value(1).run()
    assert not at.exception and _table(at).d_in == 1
    assert "d_in = 1" in page_text(at)
    assert _points(at)["dims"] == 1

    at.number_input(key=D_IN).set_value(5).run()
    assert not at.exception and _table(at).d_in == 5
    assert "first three numbers x1, x2, x3" in page_text(at)
    points = _points(at)
    assert points["dims"] == 3  # the first three of five features
    np.testing.assert_array_equal(points["points"], np.array(_table(at).values)[:, :3])

    # back at 3: the book's words get the book's vectors again
    at.number_input(key=D_IN).set_value(3).run()
    assert _table(at).values[1] == pytest.approx(BOOK_EMBEDDINGS[1].tolist())


def test_reset_goes_back_to_the_book(at: AppTest) -> None:
    at.number_input(key=D_IN).set_value(4).run()
    assert _table(at).d_in == 4
    at.button(key="embeddings_reset").click().run()
    assert not at.exception
    table = _table(at)
    assert table.tokens == BOOK_TOKENS and table.d_in == 3
    assert table.values[0] == pytest.approx(BOOK_EMBEDDINGS[0].tolist())
    assert at.number_input(key=D_IN).value == 3


def test_d_in_follows_a_table_changed_elsewhere(at: AppTest) -> None:
    at.text_input(key="text").set_value("a b").run()
    assert _table(at).tokens == ("a", "b")
    _upload(at, b"token,x1,x2,x3,x4\nu,1,2,3,4\nv,5,6,7,8\n")
    assert not at.exception
    assert at.number_input(key=D_IN).value == 4


def test_a_valid_upload_replaces_the_table(at: AppTest) -> None:
    _upload(at, b"token,x1,x2\ncat,0.1,0.2\ndog,0.3,-0.4\nfish,1e-3,2\n")
    assert not at.exception
    table = _table(at)
    assert table.tokens == ("cat", "dog", "fish")
    assert table.values == ((0.1, 0.2), (0.3, -0.4), (0.001, 2.0))
    assert "Loaded the file: 3 tokens with d_in = 2." in [s.value for s in at.success]
    assert at.session_state["text"] == "cat dog fish"
    assert _points(at)["labels"] == ["cat", "dog", "fish"]


BAD_UPLOADS = {
    "binary junk": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text CSV"),
    "not utf-8": (b"token,x1\n\xff\xfe,1\n", "not UTF-8"),
    "wrong columns": (b"word,a,b\nx,1,2\n", "header token,x1"),
    "non-numeric": (b"token,x1\nx,abc\n", "is not a number"),
    "ragged": (b"token,x1,x2\nx,1\n", "has 2 cells"),
    "empty": (b"\n\n", "empty"),
    "too many rows": (b"token,x1\n" + b"".join(b"t%d,1\n" % n for n in range(4097)), "at most"),
    "too large": (b"token,x1\n" + b"a,1\n" * (MAX_UPLOAD_BYTES // 4 + 1), "at most 1048576 bytes"),
    "infinite": (b"token,x1\nx,inf\n", "not a finite number"),
}


def test_bad_uploads_show_a_message_and_keep_the_table(at: AppTest) -> None:
    before = _table(at)
    for name, (content, expected) in BAD_UPLOADS.items():
        _upload(at, content, name=f"{name}.csv")
        assert not at.exception, name
        assert _table(at) == before, name
        errors = [e.value for e in at.error]
        assert len(errors) == 1, (name, errors)
        assert f"The uploaded file “{name}.csv” was not used" in errors[0].replace("\\", ""), name
        # the message is escaped for Markdown: compare without the backslashes
        assert expected in errors[0].replace("\\", ""), (name, errors[0])
        assert "The table is unchanged" in errors[0], name


def test_upload_messages_quote_the_file_escaped(at: AppTest) -> None:
    _upload(at, b"token,x1\n**x**,[y](http://example.com)\n")
    error = at.error[0].value
    assert r"\[y\]\(http" in error and r"\*\*x\*\*" in error


def test_a_good_upload_after_a_bad_one_clears_the_error(at: AppTest) -> None:
    _upload(at, b"\x00\x01")
    assert len(at.error) == 1
    _upload(at, b"token,x1\na,1\n")
    assert len(at.error) == 0 and _table(at).tokens == ("a",)


def test_download_offers_the_table_as_csv(at: AppTest) -> None:
    button = at.download_button(key="embeddings_download")
    assert button.label == "Download the table as CSV"
    assert button.proto.url.endswith(".csv")
    # what the button serves reads back as the same table
    table = _table(at)
    assert table_from_csv(table_to_csv(table).encode()) == table


def test_parse_errors_are_table_problems() -> None:
    for content, _ in BAD_UPLOADS.values():
        with pytest.raises(InputProblem):
            table_from_csv(content)


def test_page_in_chinese() -> None:
    at = run_page("embeddings", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "嵌入向量" in text and "注意力只看得到这些数字" in text
    assert at.number_input(key=D_IN).label == "嵌入维度 d_in（每个词元的数字个数）"
    points = _points(at)
    assert points["description"].startswith("词元嵌入向量：6 个词元")
    assert points["download_label"] == "⤓ 下载 SVG"
    # (no interaction here: AppTest formats the sidebar's palette choices outside the session,
    # in English, and then cannot find them among the Chinese options)
