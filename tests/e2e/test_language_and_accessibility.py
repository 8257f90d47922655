"""Language and accessibility in a real browser: Chinese everywhere, keyboard, colour-blind palette.

- ``/?lang=zh`` shows Chinese labels and titles; switching the language back changes them and the URL;
- the sidebar's seed input and dropout slider can be reached with Tab, and the arrow keys move the
  slider (and the URL follows);
- ``?palette=colorblind`` draws every heatmap with the colour-blind scales of ``viz.colors``;
- every page opens in Chinese without an exception and with a Chinese title.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import plotly.graph_objects as go
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import reproduce_snippet, trace_csv_files
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from ui.i18n import t
from viz.colors import HIDDEN_COLOR, PALETTES

CJK = re.compile(r"[\u4e00-\u9fff]")
ALL_PAGES = (
    "/",
    "/embeddings",
    "/one_query",
    "/masking",
    "/multi_head",
    "/compare",
    "/dropout_expectation",
    "/why_sqrt_dk",
    "/quiz",
    "/export",
    "/reproducibility",
)
SIDEBAR = "[data-testid='stSidebar']"
MAX_TABS = 80


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def choose(page: Page, selectbox_label: str, option: str) -> None:
    """Pick ``option`` in the sidebar selectbox labelled ``selectbox_label``, then wait.

    The dropdown can close again if the click lands while the page is still laying out
    (charts resizing), so opening it is retried a few times.
    """
    box = page.locator(f"{SIDEBAR} [data-testid='stSelectbox']").filter(has_text=selectbox_label)
    combobox = box.get_by_role("combobox")
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):
        combobox.click()
        try:
            wanted.wait_for(state="visible", timeout=3_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
    wanted.click()
    wait_settled(page)


def h1_text(page: Page) -> str:
    heading = page.locator("[data-testid='stMain'] h1").first
    expect(heading).to_be_visible()
    return heading.inner_text()


def test_chinese_from_the_url_and_back_to_english(streamlit_server: str, page: Page) -> None:
    open_app(page, streamlit_server, "/?lang=zh")
    assert_no_exception(page)
    sidebar = page.locator(SIDEBAR)
    expect(sidebar).to_contain_text("语言")
    expect(sidebar).to_contain_text("随机种子")
    expect(sidebar).to_contain_text("注意力，一步一步")  # the navigation
    assert CJK.search(h1_text(page)), h1_text(page)

    choose(page, "语言", "English")
    assert_no_exception(page)
    expect(sidebar).to_contain_text("Language")
    expect(sidebar).to_contain_text("Seed (torch.manual_seed)")
    expect(sidebar).not_to_contain_text("随机种子")
    assert not CJK.search(h1_text(page)), h1_text(page)
    assert "lang" not in query(page)


def _focused() -> str:
    return """() => {
        const element = document.activeElement;
        const widget = element && element.closest('[data-testid]');
        return {
            tag: element ? element.tagName : null,
            label: element ? element.getAttribute('aria-label') : null,
            widget: widget ? widget.getAttribute('data-testid') : null,
            inSidebar: !!(element && element.closest("[data-testid='stSidebar']")),
        };
    }"""


def tab_until(page: Page, label: str) -> dict[str, object]:
    """Press Tab until the focused element is labelled ``label``; fail after MAX_TABS presses.

    Waits for the app to settle after each press: leaving an input can start a rerun, and a
    rerun that redraws the sidebar must not swallow the next key press.
    """
    visited = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        wait_settled(page, quiet=150)
        focused = page.evaluate(_focused())
        visited.append(focused["label"] or focused["widget"])
        if focused["label"] == label:
            return focused
    pytest.fail(f"Tab never reached {label!r}; focus went through {visited}")


def test_keyboard_reaches_seed_and_dropout_and_arrows_move_the_slider(
    streamlit_server: str, page: Page
) -> None:
    open_app(page, streamlit_server, "/")
    page.locator("body").focus()
    seed = tab_until(page, "Seed (torch.manual_seed)")
    assert seed["inSidebar"] and seed["widget"] == "stNumberInputField"
    dropout = tab_until(page, "Dropout rate p")
    assert dropout["inSidebar"]

    page.keyboard.press("ArrowRight")
    wait_settled(page)
    assert_no_exception(page)
    assert query(page).get("dropout") == ["0.01"]
    slider = page.locator(f"{SIDEBAR} [data-testid='stSlider']").filter(has_text="Dropout rate p")
    expect(slider).to_contain_text("0.01")


def expected_scales(palette: str) -> list[list[list[object]]]:
    """The colour scales ``viz.colors`` gives ``palette``, as Plotly sends them to the browser."""
    scales = []
    for name in PALETTES[palette].values():
        resolved = go.Heatmap(colorscale=name).colorscale  # ((0.0, '#00224e'), …)
        scales.append([[position, color] for position, color in resolved])
    return scales


def heatmap_scales(page: Page) -> list[list[list[object]]]:
    """The colour scale of every heatmap trace drawn on the page (hidden-cell layers left out)."""
    scales = page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
            .flatMap(el => (el.data || []).filter(d => d.type === 'heatmap')
            .map(d => d.colorscale))"""
    )
    return [s for s in scales if s and {color for _, color in s} != {HIDDEN_COLOR}]


def _same_scale(a: list[list[object]], b: list[list[object]]) -> bool:
    return len(a) == len(b) and all(
        abs(float(pa) - float(pb)) < 1e-9 and ca == cb
        for (pa, ca), (pb, cb) in zip(a, b, strict=True)
    )


def test_colorblind_palette_reaches_every_heatmap(streamlit_server: str, page: Page) -> None:
    open_app(page, streamlit_server, "/masking?palette=colorblind")
    assert_no_exception(page)
    expect(page.locator(".js-plotly-plot").first).to_be_attached(timeout=30_000)
    colorblind, default = expected_scales("colorblind"), expected_scales("default")
    drawn = heatmap_scales(page)
    assert drawn, "no heatmap on /masking"
    for scale in drawn:
        assert any(_same_scale(scale, wanted) for wanted in colorblind), scale
        assert not any(_same_scale(scale, other) for other in default)

    choose(page, "Colours", "Standard")
    assert "palette" not in query(page)
    drawn = heatmap_scales(page)
    assert drawn
    for scale in drawn:
        assert any(_same_scale(scale, wanted) for wanted in default), scale


@pytest.mark.parametrize("path", ALL_PAGES)
def test_every_page_opens_in_chinese(streamlit_server: str, page: Page, path: str) -> None:
    open_app(page, streamlit_server, f"{path}?lang=zh")
    assert_no_exception(page)
    title = h1_text(page)
    assert CJK.search(title), f"{path}: the title {title!r} is not Chinese"
    expect(page.locator(SIDEBAR)).to_contain_text("语言")


def test_export_downloads_the_zip_json_and_script(
    streamlit_server: str, page: Page, tmp_path: Path
) -> None:
    """The Export page's buttons build their files on click (deferred data): check each one."""
    open_app(page, streamlit_server, "/export?seed=7&dropout=0.5")
    assert_no_exception(page)
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7, dropout=0.5))
    saved = {}
    for key in ("export_zip", "export_json", "export_py"):
        label = t(f"export.{key.removeprefix('export_')}.label", lang="en")
        with page.expect_download() as download_info:
            page.get_by_role("button", name=label).click()
        download = download_info.value
        saved[key] = tmp_path / download.suggested_filename
        download.save_as(saved[key])
    with zipfile.ZipFile(saved["export_zip"]) as archive:
        names = archive.namelist()
        assert "dropout_mask.csv" in names and "attn_weights.csv" in names
        weights = archive.read("attn_weights.csv").decode("utf-8-sig")
    assert weights == trace_csv_files(trace, list(BOOK_TOKENS))["attn_weights.csv"]
    data = json.loads(saved["export_json"].read_text(encoding="utf-8"))
    assert data["settings"]["seed"] == 7 and data["tokens"] == list(BOOK_TOKENS)
    assert saved["export_py"].read_text(encoding="utf-8") == reproduce_snippet(
        trace, list(BOOK_TOKENS)
    )
