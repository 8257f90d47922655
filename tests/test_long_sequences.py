"""Long sequences in the app: random tokens, image heatmaps with a zoom window, windowed tables.

AppTest runs of the real frame and pages at 100 to 4096 tokens. The exact values a zoom window
shows are compared with ``trace_attention`` run in the test.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import embed_words
from tests.apptest_support import run_page
from ui import computation
from ui.frame import PAGE_SPECS
from ui.table_state import random_words


def _array(value: object) -> np.ndarray:
    """A Plotly JSON array: a plain list or a typed array ``{"dtype", "bdata", "shape"}``."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(part) for part in str(value.get("shape", flat.size)).split(",")]
        return flat.reshape(shape)
    return np.asarray(value, dtype=np.float64)


def _charts(at: AppTest) -> dict[str, dict]:
    """Every Plotly chart of a run by its element id, as the figure JSON the browser gets."""
    return {chart.proto.id: json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}


def _chart(at: AppTest, key: str) -> dict:
    found = [spec for element_id, spec in _charts(at).items() if element_id.endswith(key)]
    assert len(found) == 1, f"{key}: {len(found)} charts"
    return found[0]


def test_random_words_are_reproducible_short_and_bounded() -> None:
    words = random_words(4096)
    assert len(words) == 4096 and words == random_words(4096)
    assert random_words(4096, seed=1) != words
    assert all(word.isalpha() and word.islower() and 1 <= len(word) <= 6 for word in words)
    assert len(" ".join(words)) < 30_000  # fits a link (measured: fine in Chromium and Streamlit)
    assert len(random_words(10_000)) == 4096


def test_generate_button_fills_the_sentence_and_the_link() -> None:
    at = run_page("step")
    at.number_input(key="random_tokens_count").set_value(300).run()
    at.button(key="random_generate").click().run()
    assert not at.exception
    words = random_words(300)
    assert at.session_state["table"].tokens == tuple(words)
    assert at.session_state["text"] == " ".join(words)
    assert at.query_params["text"] in (" ".join(words), [" ".join(words)])
    assert any("300" in str(caption.value) for caption in at.caption)


def test_zoom_window_shows_exact_values_of_the_large_matrix() -> None:
    words = random_words(100)
    at = run_page("step", {"text": " ".join(words)})
    scores = _chart(at, "step_fig_attn_scores")
    assert scores["layout"]["images"][0]["source"].startswith("data:image/png;base64,")
    assert not any(i.endswith("step_fig_attn_scores__zoom__figure") for i in _charts(at))

    at.session_state["step_fig_attn_scores__zoom"] = True  # open the lazy expander
    at.run()
    at.number_input(key="step_fig_attn_scores__zoom__row").set_value(40).run()
    at.number_input(key="step_fig_attn_scores__zoom__col").set_value(31).run()
    at.number_input(key="step_fig_attn_scores__zoom__size").set_value(10).run()
    assert not at.exception
    window = _chart(at, "step_fig_attn_scores__zoom__figure")
    trace = trace_attention(embed_words(words), AttentionConfig())
    expected = trace.attn_scores[0, 39:49, 30:40].double().numpy()  # rows 40–49, cols 31–40
    shown = _array(window["data"][0]["z"])
    np.testing.assert_allclose(shown, expected, rtol=1e-6)
    assert window["data"][0]["texttemplate"] == "%{text}"  # the numbers are written in the cells
    assert window["layout"]["yaxis"]["ticktext"][0] == "40 · " + words[39]


def test_zoom_window_is_clamped_when_the_sentence_gets_shorter() -> None:
    at = run_page("step", {"text": " ".join(random_words(100))})
    at.session_state["step_fig_attn_weights__zoom"] = True
    at.run()
    at.number_input(key="step_fig_attn_weights__zoom__row").set_value(95).run()
    at.text_input(key="text").set_value(" ".join(random_words(50))).run()
    assert not at.exception
    assert at.number_input(key="step_fig_attn_weights__zoom__row").value <= 50


def _numbers_app() -> None:
    """Two large show_numbers calls without keys and one small one, as a page might write."""
    import numpy as np
    import streamlit as st

    from ui.show import show_numbers

    values = np.arange(100 * 100, dtype=np.float64).reshape(100, 100) / 8
    labels = [f"w{i}" for i in range(100)]
    show_numbers(values, labels, labels, expanded=True)
    show_numbers(values * 2, labels, labels, expanded=st.session_state.get("open_second", False))
    show_numbers(values[:3, :3], labels[:3], labels[:3], expanded=True)


def test_show_numbers_shows_a_window_of_a_large_matrix_never_all_of_it() -> None:
    at = AppTest.from_function(_numbers_app, default_timeout=60).run()
    assert not at.exception
    tables = [table.value for table in at.table]
    assert [frame.shape for frame in tables] == [(8, 8), (3, 3)]  # the second stays closed
    first = tables[0]
    assert list(first.index[:2]) == ["1 · w0", "2 · w1"]
    assert first.iloc[1, 2] == f"{(1 * 100 + 2) / 8:.4f}"
    keys = [n.key for n in at.number_input]
    at.number_input(key=keys[0]).set_value(51).run()  # first row 51
    at.number_input(key=keys[2]).set_value(24).run()  # window 24 × 24
    frame = at.table[0].value
    assert frame.shape == (24, 24) and frame.index[0] == "51 · w50"
    assert frame.iloc[0, 0] == f"{(50 * 100) / 8:.4f}"


@pytest.mark.parametrize("page", [spec.name for spec in PAGE_SPECS])
def test_every_page_works_at_1024_tokens(page: str) -> None:
    at = run_page(page, {"text": " ".join(random_words(1024)), "dropout": "0.1"}, timeout=300)
    assert not at.exception, [str(e.value)[:500] for e in at.exception]
    assert at.session_state["table"].num_tokens == 1024


def test_step_page_works_at_4096_tokens_with_images_only() -> None:
    at = run_page("step", {"text": " ".join(random_words(4096)), "dropout": "0.1"}, timeout=600)
    assert not at.exception, [str(e.value)[:500] for e in at.exception]
    specs = _charts(at)
    total = sum(len(json.dumps(spec)) for spec in specs.values())
    assert total < 3_000_000, total  # every (T, T) matrix is a small PNG
    images = [i for i, spec in specs.items() if spec["layout"].get("images")]
    assert len(images) >= 8, images  # X, Q, K, V, scores ×3, mask, weights, keep, dropped, context
    for element_id, spec in specs.items():
        assert len(json.dumps(spec)) < 400_000, element_id


def test_large_traces_go_to_the_small_cache() -> None:
    assert computation.trace_cells(6, 1) <= computation.LARGE_TRACE_CELLS
    assert (
        computation.trace_cells(256, 1)
        <= computation.LARGE_TRACE_CELLS
        < computation.trace_cells(257, 1)
    )
    assert computation.TRACE_CACHE_LARGE["max_entries"] <= 2
    assert computation.TRACE_CACHE_SMALL["max_entries"] * computation.LARGE_TRACE_CELLS * 22 < 200e6
    for settings in (computation.TRACE_CACHE_SMALL, computation.TRACE_CACHE_LARGE):
        assert settings["ttl"] <= 1800
