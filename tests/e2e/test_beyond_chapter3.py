"""Real-browser tests of the pages beyond chapter 3: "The fast path" and "The KV cache"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.sync_api import expect

from attention.fast_path import PATHS
from tests.e2e.helpers import assert_no_exception, open_app, read_matrix, wait_settled

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 60_000


def _metric_values(page: Page) -> list[str]:
    return [text.strip() for text in page.get_by_test_id("stMetricValue").all_inner_texts()]


def test_fast_path_page_in_english_and_chinese(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/fast_path")
    expect(page.get_by_role("heading", name="The fast path")).to_be_visible(timeout=WAIT_MS)
    assert_no_exception(page)
    # The metrics follow the heading once the four paths are computed: wait for all four.
    expect(page.get_by_test_id("stMetricValue")).to_have_count(len(PATHS), timeout=WAIT_MS)
    values = _metric_values(page)
    assert values[:3] == ["6.0e-08"] * 3 and values[3] == "2.8e-01"  # three paths and the slip
    open_app(page, streamlit_server, "/fast_path?lang=zh")
    expect(page.get_by_role("heading", name="快速路径")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("同一个布尔掩码，两种含义")).to_be_visible()
    assert_no_exception(page)


def test_kv_cache_page_in_english_and_chinese(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/kv_cache")
    expect(page.get_by_role("heading", name="The KV cache")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("The same 24 characters both ways.")).to_be_visible()
    gpt2_cache = page.get_by_test_id("stMetricValue").filter(has_text="75,497,472 B")
    expect(gpt2_cache).to_be_visible(timeout=WAIT_MS)
    assert_no_exception(page)
    open_app(page, streamlit_server, "/kv_cache?lang=zh")
    expect(page.get_by_role("heading", name="KV 缓存")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("两种方式写出的 24 个字符完全相同。")).to_be_visible()
    assert_no_exception(page)


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
    for n, screen in enumerate("abcdef", start=1):
        expect(bar).to_contain_text(f"Step 1{screen} of 5", timeout=WAIT_MS)
        assert len(read_matrix(page, "kv_cache_keys").rows) == min(n, 3)
        page.wait_for_function(_FITS_JS, timeout=10_000)  # the columns settle, then it fits
        if n < 6:
            page.keyboard.press("PageDown")
            wait_settled(page)
    expect(page.get_by_text("Cached keys: the last 3 of 6 rows")).to_be_visible()
    assert_no_exception(page)
