"""Real-browser tests of the pages beyond chapter 3: "The KV cache" on an old projector.

(Their numbers and texts in both languages are tests/test_page_fast_path.py's and
tests/test_page_kv_cache.py's; that each opens with its title in both languages is
tests/e2e/test_navigation.py's walk of the registry.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.sync_api import expect

from tests.e2e.helpers import assert_no_exception, open_app, read_matrix, wait_settled

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 60_000


# the main scrolling area holds its content: no vertical scroll
_FITS_JS = """() => { const main = document.querySelector('[data-testid="stMain"]');
  return main.scrollHeight <= main.clientHeight; }"""


def test_a_clicker_feeds_the_kv_cache_one_token_a_screen_that_fits_an_old_projector(
    page: Page, streamlit_server: str
) -> None:
    """Presenter mode from a fresh link at 853×480 (1280×720 at 150 %): PageDown is Next, the
    cache gains a row (a longer one shows its last 3), and no token's screen scrolls."""
    page.set_viewport_size({"width": 853, "height": 480})
    open_app(page, streamlit_server, "/kv_cache?present=1&dropout=0.5")
    page.wait_for_function(  # the key listener is on the window and knows it is presenting
        "() => window.__alStepKeysInstalled && window.__alStepKeys?.mode === 'present'",
        timeout=WAIT_MS,
    )
    bar = page.locator(".st-key-present_bar")
    for n in range(1, 7):  # the growth's six screens open the KV cache's deck
        expect(bar).to_contain_text(f"Screen {n} of ", timeout=WAIT_MS)
        assert len(read_matrix(page, "kv_cache_keys").rows) == min(n, 3)
        page.wait_for_function(_FITS_JS, timeout=10_000)  # the columns settle, then it fits
        if n < 6:
            page.keyboard.press("PageDown")
            wait_settled(page)
    expect(page.get_by_text("Cached keys: the last 3 of 6 rows")).to_be_visible()
    assert_no_exception(page)
