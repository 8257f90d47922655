"""A link with the book's batch and a sliding window, in a real browser: the band mask as drawn.

What lives in the browser: the link's values reach the sidebar's controls, and the cells the
window hides are coloured apart from the future's grey cells (AppTests check the numbers).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_no_exception, open_app, read_matrix
from ui.i18n import t

APPEAR_MS = 60_000


def test_batch_and_window_link_shows_the_band_mask_and_batched_shapes(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/?batch=2&window=2&step=mask")
    assert_no_exception(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_label(t("sidebar.window", "en"), exact=True)).to_have_value("2")
    expect(page.get_by_text("shape (2, 6, 2), batch item 0").first).to_be_visible()
    mask = read_matrix(page, "step_fig_mask", timeout=APPEAR_MS)
    assert mask.cells[5] == ["1", "1", "1", "1", "0", "0"]  # "step" sees "one" and itself
    far, future, visible = mask.backgrounds[5][0], mask.backgrounds[0][5], mask.backgrounds[5][5]
    assert len({far, future, visible}) == 3, (far, future, visible)  # three looks, one each
    expect(page.get_by_text("Keys each query sees").first).to_be_visible()
