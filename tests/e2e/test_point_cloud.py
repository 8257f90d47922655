"""The Embeddings page's points in a real browser: the app's own SVG drawing, not Plotly.

- Every token is a point with its label as text (a ``<script>`` token included); dragging turns
  the 3-D view, and the turn survives a seed change and a new table; "Reset view" turns it back.
- "Download as SVG" gives a parseable SVG file of the drawing as it is turned.
- On a phone (390 px, touch) nothing leaves the screen and a finger's drag turns the view; the
  book's labels stay apart on a phone and on a wide screen.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import SIDEBAR_SELECTOR, assert_no_exception, open_app, wait_settled
from ui.chart import CHART_CLASS
from ui.i18n import t
from ui.table_state import table_for_words
from viz.vocabulary import format_number

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

WAIT_MS = 60_000
SVG = f"svg.{CHART_CLASS}"
TOKENS = ["<script>__x=1</script>", "**bold**", "cat", "<b>x</b>"]
FIRST_VIEW = "-135 25"  # the view a page opens with (yaw, pitch in degrees)

# Each point's label and the centre of its dot on the screen, in the order of the labels.
_POSITIONS = """
(svg) => [...svg.querySelectorAll('g.al-chart-point')].map((g) => {
  const box = g.querySelector('circle').getBoundingClientRect();
  return [g.querySelector('text').textContent, box.x + box.width / 2, box.y + box.height / 2];
}).sort((a, b) => (a[0] < b[0] ? -1 : 1))
"""


def _view(page: Page) -> str | None:
    return page.locator(SVG).get_attribute("data-view")


def _drag(page: Page, dx: float, dy: float) -> None:
    box = page.locator(SVG).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=8)
    page.mouse.up()


def test_points_are_labelled_as_typed_and_a_drag_turns_the_view_for_good(
    page: Page, streamlit_server: str, tmp_path: Path
) -> None:
    open_app(page, streamlit_server, "/embeddings?text=" + quote(" ".join(TOKENS)))
    svg = page.locator(SVG)
    expect(svg.locator("circle")).to_have_count(4, timeout=WAIT_MS)
    assert_no_exception(page)
    labels = svg.locator(f"text.{CHART_CLASS}-label")
    expect(labels).to_have_count(4)
    shown = sorted(labels.all_text_contents())
    assert shown == sorted(TOKENS)  # as typed: no element, no Markdown
    assert svg.locator("script, b, strong, foreignObject").count() == 0
    assert page.evaluate("() => window.__x") is None
    # the hover names the token and its numbers, those of the table
    first = table_for_words(TOKENS).values[0]
    expected = "\n".join(
        [TOKENS[0], *(f"x{m + 1} = {format_number(v)}" for m, v in enumerate(first))]
    )
    assert expected in svg.locator("g title").all_text_contents()
    assert svg.get_attribute("role") == "img"
    assert (svg.get_attribute("aria-label") or "").startswith("Token embeddings: 4 tokens")
    for axis in ("x1", "x2", "x3"):
        expect(svg.locator(f"text.{CHART_CLASS}-axis", has_text=axis)).to_have_count(1)

    assert _view(page) == FIRST_VIEW
    before = svg.evaluate(_POSITIONS)
    _drag(page, 120, 40)
    turned = "-75 45"  # half a degree per pixel
    expect(svg).to_have_attribute("data-view", turned)
    after = svg.evaluate(_POSITIONS)
    assert [label for label, *_ in after] == [label for label, *_ in before]
    moved = [abs(a[1] - b[1]) + abs(a[2] - b[2]) for a, b in zip(after, before, strict=True)]
    assert max(moved) > 20, moved

    # a seed change reruns the page: same points, same turn, nothing redrawn
    seed = page.locator(SIDEBAR_SELECTOR).get_by_role("spinbutton", name="Seed (torch.manual_seed)")
    seed.fill("7")
    seed.press("Enter")
    wait_settled(page)
    assert "seed=7" in page.url
    assert _view(page) == turned and svg.evaluate(_POSITIONS) == after

    # a new table: new points, drawn in the same element with the same turn
    sentence = page.locator(SIDEBAR_SELECTOR).locator("[data-testid='stTextInput'] input").first
    sentence.fill(" ".join([*TOKENS, "dog"]))
    sentence.press("Enter")
    wait_settled(page)
    expect(svg.locator("circle")).to_have_count(5)
    assert _view(page) == turned

    # the file: parseable SVG of the drawing as turned, labels as text
    link = page.locator(f"a.{CHART_CLASS}-svg")
    expect(link).to_have_text(t("show.chart_svg", "en"))
    with page.expect_download(timeout=WAIT_MS) as download_info:
        link.click()
    saved = download_info.value
    assert saved.suggested_filename == "embeddings_points.svg"
    path = tmp_path / saved.suggested_filename
    saved.save_as(path)
    root = ElementTree.parse(path).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(root.findall(".//svg:circle", ns)) == 5
    texts = [node.text for node in root.findall(".//svg:text", ns)]
    assert sorted(text for text in texts if text in [*TOKENS, "dog"]) == sorted([*TOKENS, "dog"])
    shown = svg.locator("circle").evaluate_all("(cs) => cs.map((c) => c.getAttribute('cx'))")
    assert [node.get("cx") for node in root.findall(".//svg:circle", ns)] == shown

    page.get_by_role("button", name=t("show.chart_reset", "en")).click()
    expect(svg).to_have_attribute("data-view", FIRST_VIEW)
    assert_no_exception(page)


_OVERFLOW = """
(svg) => {
  const width = document.documentElement.clientWidth;
  const frame = svg.getBoundingClientRect();
  const out = [];
  if (document.documentElement.scrollWidth > width) out.push('page scrolls sideways');
  if (frame.left < 0 || frame.right > width) out.push('svg ' + frame.left + '–' + frame.right);
  for (const text of svg.querySelectorAll('text')) {
    if (getComputedStyle(text).display === 'none') continue;  // a label with no free place
    const box = text.getBoundingClientRect();
    if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5 ||
        box.top < frame.top - 0.5 || box.bottom > frame.bottom + 0.5) out.push(text.textContent);
  }
  for (const part of svg.parentElement.querySelectorAll('.al-chart-bar > *')) {
    if (part.getBoundingClientRect().right > width) out.push(part.textContent);
  }
  return out;
}
"""


# Each shown label's box (getBBox, in the drawing's pixels); a hidden label counts as missing.
_LABEL_BOXES = """
(svg) => [...svg.querySelectorAll('text.al-chart-label')]
  .filter((text) => getComputedStyle(text).display !== 'none')
  .map((text) => { const b = text.getBBox(); return [text.textContent, b.x, b.y, b.width, b.height]; })
"""


def _overlapping(boxes: list[list]) -> list[tuple[str, str]]:
    return [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[1] + b[3] and b[1] < a[1] + a[3] and a[2] < b[2] + b[4] and b[2] < a[2] + a[4]
    ]


def _books_labels_stay_apart(page: Page, server: str, where: str) -> None:
    """In the book's example journey, starts and with lie close; their labels stay apart, also
    after a turn (a turn lays the labels out again)."""
    open_app(page, server, "/embeddings")
    svg = page.locator(SVG)
    expect(svg.locator("circle")).to_have_count(6, timeout=WAIT_MS)
    svg.scroll_into_view_if_needed()
    boxes = svg.evaluate(_LABEL_BOXES)
    assert sorted(box[0] for box in boxes) == sorted(
        ["Your", "journey", "starts", "with", "one", "step"]
    )
    assert _overlapping(boxes) == [], where
    svg.focus()
    page.keyboard.press("ArrowRight")
    expect(svg).to_have_attribute("data-view", "-125 25")
    boxes = svg.evaluate(_LABEL_BOXES)
    assert len(boxes) == 6 and _overlapping(boxes) == [], where


def test_on_a_phone_nothing_overflows_a_finger_turns_the_view_and_labels_stay_apart(
    browser: Browser, page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """A phone (390×844, touch, one context for both of its pages), then a wide screen (the
    worker's tab at 1400×1000, a mouse)."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        phone = context.new_page()
        with subtests.test("a phone: nothing overflows, a finger turns the view"):
            long_words = "extraordinarily_long_token_name left right " + "w " * 9
            open_app(phone, streamlit_server, "/embeddings?lang=zh&text=" + quote(long_words))
            svg = phone.locator(SVG)
            expect(svg.locator("circle")).to_have_count(12, timeout=WAIT_MS)
            svg.scroll_into_view_if_needed()
            assert svg.evaluate(_OVERFLOW) == []
            assert svg.evaluate("(svg) => getComputedStyle(svg).touchAction") == "none"
            box = svg.bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            session = context.new_cdp_session(phone)
            for kind, dx in (
                ("touchStart", 0),
                ("touchMove", 30),
                ("touchMove", 60),
                ("touchEnd", 60),
            ):
                points = [] if kind == "touchEnd" else [{"x": x + dx, "y": y}]
                session.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
            expect(svg).to_have_attribute("data-view", "-105 25")
            assert svg.evaluate(_OVERFLOW) == []  # turned: still inside
            assert_no_exception(phone)
        with subtests.test("a phone: the book's labels stay apart"):
            _books_labels_stay_apart(phone, streamlit_server, "phone 390×844")
    finally:
        context.close()
    with subtests.test("a wide screen: the book's labels stay apart"):
        page.set_viewport_size({"width": 1400, "height": 1000})
        _books_labels_stay_apart(page, streamlit_server, "wide 1400×1000")
