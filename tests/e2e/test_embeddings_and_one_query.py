"""Real-browser tests of the pages “Embeddings” (uploads) and “One query, by hand” (numbers)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from pages.one_query import ROW_TABLE_KEY
from tests.e2e.helpers import assert_no_exception, open_app, read_table, wait_settled
from ui.chart import CHART_CLASS
from viz.one_query import number, vector

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 60_000
BOOK_SENTENCE = "Your journey starts with one step"


SENTENCE_BOX = "[data-testid='stSidebar'] [data-testid='stTextInput'] input"


def _sentence(page: Page) -> str:
    return page.locator(SENTENCE_BOX).first.input_value()


def _upload(page: Page, path: Path) -> None:
    page.locator(
        "[data-testid='stMainBlockContainer'] [data-testid='stFileUploader'] input[type='file']"
    ).set_input_files(str(path))
    wait_settled(page)


def test_uploads_junk_keeps_the_table_too_big_is_refused_a_valid_csv_changes_it(
    page: Page, frame_loaded: str, tmp_path: Path, subtests: pytest.Subtests
) -> None:
    """One visit of the Embeddings page, three uploads: binary junk (an error, the table kept), a
    file over the size limit (refused by the browser), then a valid CSV (the table changes)."""
    open_app(page, frame_loaded, "/embeddings")
    expect(page.locator(f"svg.{CHART_CLASS} circle")).to_have_count(6, timeout=WAIT_MS)
    assert_no_exception(page)
    expect(page.locator(SENTENCE_BOX).first).to_have_value(BOOK_SENTENCE, timeout=WAIT_MS)
    with subtests.test("binary junk shows an error and keeps the table"):
        junk = tmp_path / "junk.csv"
        junk.write_bytes(bytes(range(256)) * 8)
        _upload(page, junk)
        alert = page.locator("[data-testid='stAlert']").filter(has_text="was not used")
        expect(alert).to_have_count(1)
        assert "not a text CSV file" in alert.inner_text()
        assert "The table is unchanged" in alert.inner_text()
        assert _sentence(page) == BOOK_SENTENCE

        # A file over the size limit is refused by the browser, in the uploader: the server
        # never hears of it, so the box about the last file stays, and says which file it is
        # about.
        big = tmp_path / "big.csv"
        big.write_text("token,x1\n" + "a,1\n" * 400_000, encoding="utf-8")  # 1.6 MB
        _upload(page, big)
        expect(
            page.locator("[data-testid='stMainBlockContainer'] [data-testid='stFileUploader']")
        ).to_contain_text("1.0MB or smaller")
        expect(alert).to_have_count(1)
        assert "“junk.csv”" in alert.inner_text().replace("\\", "")
        assert _sentence(page) == BOOK_SENTENCE
        assert_no_exception(page)

    with subtests.test("a valid CSV upload changes the table"):
        csv_file = tmp_path / "animals.csv"
        csv_file.write_text(
            "token,x1,x2\ncat,0.1,0.2\ndog,0.3,-0.4\nfish,0.5,0.9\n", encoding="utf-8"
        )
        _upload(page, csv_file)
        expect(page.get_by_text("Loaded the file: 3 tokens with d_in = 2.")).to_be_visible()
        expect(page.locator(SENTENCE_BOX).first).to_have_value("cat dog fish", timeout=WAIT_MS)
        labels = page.locator(f"svg.{CHART_CLASS} text.{CHART_CLASS}-label")
        expect(labels).to_have_text(["cat", "dog", "fish"])
        assert "text=cat+dog+fish" in page.url
        assert_no_exception(page)


def test_one_query_shows_the_trace_numbers_of_a_chosen_query_and_keeps_it_for_a_new_sentence(
    page: Page, frame_loaded: str, subtests: pytest.Subtests
) -> None:
    """One visit of One query (seed 7): the numbers of a chosen query, then new sentences keep
    the chosen query and key under their new names."""
    open_app(page, frame_loaded, "/one_query?seed=7")
    with subtests.test("the trace numbers of a chosen query"):
        read_table(page, ROW_TABLE_KEY, timeout=WAIT_MS)
        assert_no_exception(page)
        query_box = page.get_by_role("combobox", name="Query token (position: token)")
        query_box.click()
        page.get_by_role("option", name="4: with").click()
        wait_settled(page)
        expect(query_box).to_have_value("4: with")
        assert_no_exception(page)

        trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=2, seed=7))
        i = 3
        # KaTeX keeps each formula's source in a MathML annotation: read what was typeset
        latex = "\n".join(page.locator(".katex-mathml annotation").all_text_contents())
        assert f"q^{{(4)}} &= {vector(trace.queries[0, i].tolist())}" in latex
        assert f"&= {number(float(trace.attn_scores[0, i, 0]))}" in latex
        assert f"&= {vector(trace.context[0, i].tolist())}" in latex
        # the row table, as the page shows it (−, the real minus sign)
        table = read_table(page, ROW_TABLE_KEY)
        weights = [row[3] for row in table.numbers()]
        assert weights == [number(weight) for weight in trace.attn_weights[0, i].tolist()]
        assert table.cells[i + 1][4] == "masked"  # the first future key
        # the chosen key's line (the first key, the default) is the one highlighted
        assert len({row[0] for row in table.backgrounds}) == 2
        assert table.backgrounds[0][0] != table.backgrounds[1][0]

    with subtests.test("a new sentence keeps the chosen query and key under their new names"):
        query_box = page.get_by_role("combobox", name="Query token (position: token)")
        key_box = page.get_by_role("combobox", name="Key token (position: token)")
        for box, option in ((query_box, "5: one"), (key_box, "3: starts")):
            box.click()
            page.get_by_role("option", name=option).click()
            wait_settled(page)
        sentence = page.locator("[data-testid='stSidebar'] [data-testid='stTextInput'] input").first
        sentence.fill("My trip begins with a walk")  # six words again: every position still exists
        sentence.press("Enter")
        wait_settled(page)
        assert_no_exception(page)
        # the same positions under the new tokens' names (the option labels of the last run are gone)
        expect(query_box).to_have_value("5: a")
        expect(key_box).to_have_value("3: begins")
        sentence.fill("Short one")  # two words: the chosen positions no longer exist
        sentence.press("Enter")
        wait_settled(page)
        assert_no_exception(page)
        expect(query_box).to_have_value("2: one")
        expect(key_box).to_have_value("1: Short")


def test_one_query_row_table_shows_token_labels_as_typed(page: Page, frame_loaded: str) -> None:
    """The row table's labels are user text: set as plain text, never parsed as Markdown/HTML."""
    open_app(page, frame_loaded, "/one_query?text=%2A%2Abold%2A%2A%20%3Ci%3Eit%3C%2Fi%3E%20c%20d")
    assert_no_exception(page)
    table = read_table(page, ROW_TABLE_KEY, timeout=WAIT_MS)
    assert table.rows[:2] == ["1: **bold**", "2: <i>it</i>"]
    assert table.made == []  # no element inside any label or cell


# The value vectors' labels as drawn: each label's box (the rect behind its text), the plot's box,
# and the marks no label may cover (the arrow tips and the star), in the drawing's pixels.
_LABELS = """
(root) => {
  const plot = root.querySelector('g.__CLASS__-plot');
  const n = (name) => Number(plot.getAttribute('data-' + name));
  const box = (b) => [b.x, b.y, b.x + b.width, b.y + b.height];
  const labels = [...root.querySelectorAll('g.__CLASS__-label')].filter((g) => g.querySelector('rect'))
    .map((g) => [g.textContent, ...box(g.querySelector('rect').getBBox())]);
  const tips = [...root.querySelectorAll('g.__CLASS__-arrow')]
    .map((arrow) => arrow.getAttribute('data-end').split(' ').map(Number));
  const star = root.querySelector('g.__CLASS__-points polygon').getBBox();
  tips.push([star.x + star.width / 2, star.y + star.height / 2]);
  return {labels, tips, plot: [n('left'), n('top'), n('left') + n('width'), n('top') + n('height')]};
}
""".replace("__CLASS__", CHART_CLASS)


def _label_faults(chart) -> tuple[list[str], list]:  # noqa: ANN001
    """The drawn labels, and every fault: two labels sharing area, a label out of the plot or
    on an arrow's tip or the star."""
    drawn = chart.evaluate(_LABELS)
    labels, faults = drawn["labels"], []
    left, top, right, bottom = drawn["plot"]
    for k, (text, x0, y0, x1, y1) in enumerate(labels):
        if x0 < left - 0.5 or y0 < top - 0.5 or x1 > right + 0.5 or y1 > bottom + 0.5:
            faults.append((text, "outside the plot"))
        faults += [
            (text, other[0]) for other in labels[k + 1 :] if _meet((x0, y0, x1, y1), other[1:])
        ]
        faults += [(text, tip) for tip in drawn["tips"] if _meet((x0, y0, x1, y1), tip * 2)]
    return [label[0] for label in labels], faults


def _meet(a, b) -> bool:  # noqa: ANN001
    """Do two boxes [left, top, right, bottom] share area (a point: lies inside)?"""
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_value_vector_labels_lie_apart_inside_the_plot_off_the_tips(
    page: Page, frame_loaded: str, subtests: pytest.Subtests
) -> None:
    """The browser places the value vectors' labels: none on another, none out of the plot, none
    on an arrow's tip or the context star; a label with no free place is left out."""
    chart = page.locator(f".st-key-{CHART_CLASS}-one_query_vectors")
    cases = [  # a sentence and its last query: every key visible
        ("the book's sentence (v₄, v₅, v₆ nearly at one point)", BOOK_SENTENCE, "6: step"),
        ("eight identical vectors with long Chinese names", " ".join(["很长的词元名字"] * 8), None),
    ]
    for name, sentence, option in cases:
        with subtests.test(name):
            page.set_viewport_size({"width": 1280, "height": 900})
            open_app(page, frame_loaded, "/one_query?text=" + quote(sentence))
            query_box = page.get_by_role("combobox", name="Query token (position: token)")
            query_box.click()
            last = page.get_by_role("option").last
            option = option or last.inner_text()
            last.click()
            wait_settled(page)
            expect(query_box).to_have_value(option)
            expect(chart.locator(f"g.{CHART_CLASS}-arrow")).to_have_count(
                len(sentence.split()) + 1, timeout=WAIT_MS
            )
            shown, faults = _label_faults(chart)
            assert faults == [], faults
            if option == "6: step":
                assert len(shown) == 6, shown  # every visible key named beside its arrow
            else:
                assert len(shown) >= 3, shown  # a pile-up: the first get places, others hover
            page.set_viewport_size({"width": 390, "height": 844})  # a phone: drawn again
            page.wait_for_function(
                "(sel) => document.querySelector(sel + ' svg').getBoundingClientRect().width < 390",
                arg=f".st-key-{CHART_CLASS}-one_query_vectors",
                timeout=WAIT_MS,
            )
            shown, faults = _label_faults(chart)
            assert faults == [] and shown, (shown, faults)
            assert_no_exception(page)
