"""The app's own charts (``ui.chart``) in a real browser: One query's value vectors.

- the arrows end at the trace's value vectors, read back from the drawn SVG through the plot's
  axis mapping (its pixel box and ranges, written on the plot group);
- a token ``<b>x</b>`` is shown as typed, never as markup;
- the "Download as SVG" link gives a parseable SVG file holding the drawing and its texts;
- on a phone (390 px) the redrawn chart fits its container: no text outside it, no legend
  entries or labels on top of each other.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import torch
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from ui.chart import CHART_CLASS
from ui.table_state import table_for_words

WAIT_MS = 60_000
WORDS = ["<b>x</b>", "journey", "**starts**", "with", "one", "step"]
CHART = f".st-key-{CHART_CLASS}-one_query_vectors"

# The value vectors' arrow tips in data units: pixels mapped back through the plot's box/ranges.
_ARROW_ENDS = """
(root) => {
  const plot = root.querySelector('g.__CLASS__-plot');
  const n = (name) => Number(plot.getAttribute('data-' + name));
  const [x0, x1] = plot.getAttribute('data-x-range').split(' ').map(Number);
  const [y0, y1] = plot.getAttribute('data-y-range').split(' ').map(Number);
  const scale = n('width') / (x1 - x0);
  const ends = [...root.querySelectorAll('g.__CLASS__-arrow')].map((arrow) => {
    const [px, py] = arrow.getAttribute('data-end').split(' ').map(Number);
    return [x0 + (px - n('left')) / scale, y1 - (py - n('top')) / (n('height') / (y1 - y0))];
  });
  return {ends, scale};
}
""".replace("__CLASS__", CHART_CLASS)

# Every text's box against the chart's element, and the pairs of labels or legend entries that
# share area.
_FIT = """
(root) => {
  const outer = root.getBoundingClientRect();
  const svg = root.querySelector('svg.__CLASS__').getBoundingClientRect();
  const outside = [...root.querySelectorAll('svg text')].filter((text) => {
    const b = text.getBoundingClientRect();
    return b.left < outer.left - 0.5 || b.right > outer.right + 0.5;
  }).map((text) => text.textContent);
  const boxes = [...root.querySelectorAll('g.__CLASS__-label text, g.__CLASS__-legend-item')]
    .map((node) => [node.textContent, node.getBoundingClientRect()]);
  const overlaps = [];
  boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
    if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5) overlaps.push([a, b]);
  }));
  return {outerWidth: outer.width, svgWidth: svg.width, outside, overlaps,
          scrolls: root.scrollWidth > root.clientWidth + 1};
}
""".replace("__CLASS__", CHART_CLASS)


def test_value_vectors_chart_draws_the_trace_as_text_and_downloads_as_svg(
    page: Page, streamlit_server: str, tmp_path: Path
) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    open_app(page, streamlit_server, "/one_query?text=" + quote(" ".join(WORDS)))
    chart = page.locator(CHART)
    expect(chart.locator(f"g.{CHART_CLASS}-arrow")).to_have_count(7, timeout=WAIT_MS)
    assert_no_exception(page)
    inputs = torch.tensor(table_for_words(WORDS).values)  # (6, 3): the app's embeddings
    trace = trace_attention(inputs, AttentionConfig(d_out=2))
    drawn = chart.evaluate(_ARROW_ENDS)
    expected = [*trace.values[0].tolist(), trace.context[0, 1].tolist()]  # six v, then z⁽²⁾
    tolerance = 0.6 / drawn["scale"]  # the SVG's coordinates are rounded to 0.01 px
    for (x, y), (ex, ey) in zip(drawn["ends"], expected, strict=True):
        assert abs(x - ex) < tolerance and abs(y - ey) < tolerance, ((x, y), (ex, ey))
    labels = chart.locator(f"g.{CHART_CLASS}-label text").all_text_contents()
    assert sorted(labels) == ["v₁ · <b>x</b>", "v₂ · journey"]  # the visible keys, as typed
    svg = chart.locator(f"svg.{CHART_CLASS}")
    assert svg.locator("b").count() == 0
    expect(svg).to_have_attribute("aria-label", re.compile(r"^Value vectors .* query 2$"))
    with page.expect_download(timeout=WAIT_MS) as download_info:
        chart.locator(f"a.{CHART_CLASS}-svg").click()
    saved = download_info.value
    assert saved.suggested_filename == "one_query_vectors.svg"
    path = tmp_path / saved.suggested_filename
    saved.save_as(path)
    root = ET.parse(path).getroot()  # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [node.text for node in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "v₁ · <b>x</b>" in texts and "component 1" in texts
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polygon"))) >= 6  # heads, the star

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the chart redraws narrower
    wait_settled(page)
    page.wait_for_function(
        "(sel) => document.querySelector(sel + ' svg').getBoundingClientRect().width < 390",
        arg=CHART,
        timeout=WAIT_MS,
    )
    fit = chart.evaluate(_FIT)
    assert fit["svgWidth"] <= fit["outerWidth"] + 0.5 and not fit["scrolls"], fit
    assert fit["outside"] == [] and fit["overlaps"] == [], fit
    drawn = chart.evaluate(_ARROW_ENDS)  # still the trace's vectors after the redraw
    x, y = drawn["ends"][0]
    assert abs(x - expected[0][0]) < 0.6 / drawn["scale"]
    assert abs(y - expected[0][1]) < 0.6 / drawn["scale"]
    assert_no_exception(page)
