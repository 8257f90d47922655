"""Language and accessibility in a real browser: Chinese everywhere, keyboard, colour-blind palette.

- a language switch keeps the choices a learner made on a page;
- ``?palette=colorblind`` colours every matrix table's cells with the colour-blind scales of
  ``viz.colors`` (and each table carries its alt text);
- (``/?lang=zh`` showing Chinese labels and titles, and the switch back to English changing them and
  the URL, then every page in English: tests/e2e/test_navigation.py; every page in Chinese:
  tests/test_every_page_in_chinese.py; the sidebar's seed
  and dropout reached with Tab, the arrow keys moving the slider: tests/e2e/test_step_by_step.py).
"""

from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
from playwright.sync_api import Page, expect
from plotly.colors import get_colorscale, unlabel_rgb

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import reproduce_snippet, trace_csv_files
from tests.cases import subcases
from tests.e2e.helpers import (
    MATRIX_BLOCK_SELECTOR,
    assert_no_exception,
    choose,
    matrix_legend,
    open_app,
    read_matrix,
    shown_matrix_keys,
    step_choice,
    wait_settled,
)
from ui.i18n import t
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR, PALETTES


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def checked_option(page: Page, radio_label: str) -> str | None:
    """The text of the option checked in the radio labelled ``radio_label`` (None: none is)."""
    radio = page.locator("[data-testid='stRadio']").filter(has_text=radio_label).first
    expect(radio).to_be_visible()
    checked = radio.locator("label").filter(has=page.locator("input:checked"))
    return checked.first.inner_text().strip() if checked.count() else None


# (path, radio's message key, the option a learner picks, its message key): choices of a page's
# own that are labelled in the page's language.
CHOICES = [
    ("/backward", "backward.loss.label", "backward.loss.squared_distance"),
    ("/train?train_task=text", "train.control.source", "train.source.upload"),
    ("/export?heads=2", "export.layer", "export.layer.wrapper"),
]


@subcases(("path", "radio", "option"), CHOICES)
def test_a_language_switch_keeps_the_choices_a_learner_made(
    streamlit_server: str, page: Page, path: str, radio: str, option: str
) -> None:
    open_app(page, streamlit_server, path + "&lang=zh" if "?" in path else path + "?lang=zh")
    label_zh = t(radio, lang="zh")
    picked = page.locator("[data-testid='stRadio']").filter(has_text=label_zh).first
    picked.get_by_text(t(option, lang="zh", heads=2), exact=True).click()
    wait_settled(page)
    assert checked_option(page, label_zh) == t(option, lang="zh", heads=2)

    choose(page, t("sidebar.lang", lang="zh"), "English")
    assert_no_exception(page)
    # the same option, in English: Streamlit would otherwise get the old label and show none
    assert checked_option(page, t(radio, lang="en")) == t(option, lang="en", heads=2)


# A table cell's colour is sampled from a Plotly scale (linear in RGB between its stops) and
# rounded by the browser to whole channels: "on a scale" = within this RGB distance of it.
ON_SCALE = 1.5
# RdBu and PuOr (the two palettes' diverging scales) share their white middle, rgb(247, 247, 247):
# a value near 0 lies on both. Away from it (measured: beyond 8.3) no colour lies on both palettes.
SHARED_MIDDLE, NEAR_MIDDLE = np.array([247.0, 247.0, 247.0]), 10.0
SPECIAL_COLOURS = {HIDDEN_COLOR, DROPPED_COLOR, "#ffffff"}  # masked, dropped, not finite
STAGES = ("masking.tab.scores", "masking.tab.method1", "masking.tab.method2")


def _rgb(colour: str) -> tuple[float, float, float]:
    if colour.startswith("#"):
        return tuple(float(int(colour[k : k + 2], 16)) for k in (1, 3, 5))  # type: ignore[return-value]
    return tuple(unlabel_rgb(colour))  # type: ignore[return-value]


def scale_segments(palette: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The straight RGB pieces of every colour scale ``viz.colors`` gives ``palette``."""
    segments = []
    for name in PALETTES[palette].values():
        stops = [np.array(_rgb(colour)) for _, colour in get_colorscale(name)]
        segments += list(itertools.pairwise(stops))
    return segments


def distance_to(segments: list[tuple[np.ndarray, np.ndarray]], colour: np.ndarray) -> float:
    """The RGB distance from ``colour`` to the nearest point of the scales' pieces."""
    best = np.inf
    for start, end in segments:
        step = end - start
        along = float(np.clip(np.dot(colour - start, step) / np.dot(step, step), 0.0, 1.0))
        best = min(best, float(np.linalg.norm(colour - (start + along * step))))
    return best


_BACKGROUNDS_JS = """(table) => [...table.querySelectorAll('td')]
    .map(td => getComputedStyle(td).backgroundColor)"""


def drawn_scale_colours(page: Page) -> dict[str, list[np.ndarray]]:
    """Per visible matrix table: the background of every cell on a scale (matrix and legend).

    Masked, dropped and non-finite cells have fixed colours and the legend's name cell none:
    they are left out. Also checks that every matrix table carries its alt text.
    """
    special = {tuple(_rgb(colour)) for colour in SPECIAL_COLOURS}
    found = {}
    for key in shown_matrix_keys(page):
        shown = read_matrix(page, key)
        rows, cols = len(shown.rows), len(shown.columns)
        # "score: a 6 × 6 table of numbers, coloured by value": the name, then the shape
        tail = t("show.table_alt", lang="en", name="", rows=rows, cols=cols)
        assert shown.alt is not None and shown.alt.endswith(tail), (key, shown.alt, tail)
        assert len(shown.alt) > len(tail), (key, shown.alt)  # a name first
        legend = []
        if matrix_legend(page, key).count():  # drawn with its matrix, in the same element
            legend = matrix_legend(page, key).evaluate(_BACKGROUNDS_JS)
        colours = [colour for row in shown.backgrounds for colour in row] + legend
        found[key] = [
            np.array(_rgb(colour))
            for colour in colours
            if colour.startswith("rgb(") and _rgb(colour) not in special
        ]
    return found


def assert_on_palette(drawn: dict[str, list[np.ndarray]], palette: str, other: str) -> None:
    """Every scale cell on ``palette``'s scales; none on ``other``'s, but for the shared white."""
    wanted, unwanted = scale_segments(palette), scale_segments(other)
    for key, colours in drawn.items():
        assert colours, f"{key}: no cell on a colour scale"
        off = [c.tolist() for c in colours if distance_to(wanted, c) > ON_SCALE]
        assert off == [], f"{key}: cells not on the {palette} scales: {off}"
        wrong = [
            c.tolist()
            for c in colours
            if distance_to(unwanted, c) <= ON_SCALE
            and np.linalg.norm(c - SHARED_MIDDLE) > NEAR_MIDDLE
        ]
        assert wrong == [], f"{key}: cells on the {other} scales: {wrong}"


def test_colorblind_palette_reaches_every_matrix_table(streamlit_server: str, page: Page) -> None:
    """Every stage of /masking: each table cell's background is on the colour-blind scales."""
    open_app(page, streamlit_server, "/masking?palette=colorblind")
    assert_no_exception(page)
    seen: list[str] = []
    for tab, stage in enumerate(STAGES):
        if tab:
            step_choice(page, t(stage, lang="en")).click()
            wait_settled(page)
        expect(page.locator(MATRIX_BLOCK_SELECTOR).first).to_be_visible(timeout=60_000)
        drawn = drawn_scale_colours(page)
        assert_on_palette(drawn, "colorblind", "default")
        seen += drawn
    assert len(seen) == len(set(seen)) >= len(STAGES), seen  # each stage drew its own tables

    choose(page, "Colours", "Standard")
    assert "palette" not in query(page)
    expect(page.locator(MATRIX_BLOCK_SELECTOR).first).to_be_visible(timeout=60_000)
    assert_on_palette(drawn_scale_colours(page), "default", "colorblind")


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
