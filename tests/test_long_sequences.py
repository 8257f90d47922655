"""Long sequences in the app: random tokens, image heatmaps with a zoom window, windowed tables.

AppTest runs of the real frame and pages at 100 to 4096 tokens. The exact values a zoom window
shows (a coloured table of at most 24 × 24 numbers, ``ui.show.show_matrix``) are compared with
``trace_attention`` run in the test.
"""

from __future__ import annotations

import json

import numpy as np
from plotly.colors import sample_colorscale
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import embed_words
from tests.apptest_support import (
    matrix_cell_styles,
    matrix_components,
    matrix_images,
    matrix_legend,
    matrix_tables,
    run_page,
)
from tests.cases import subcases
from tests.step_figures import field_view
from ui import computation
from ui.frame import PAGE_SPECS
from ui.table_state import random_words
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR, colorscale
from viz.matrix import colour_range
from viz.vocabulary import cell_texts
from viz.words import FigureWords


def _picture(at: AppTest, key: str) -> dict:
    """The picture of matrix ``key`` (its data, as the browser's component gets it)."""
    pictures = matrix_images(at)
    assert key in pictures, f"{key}: not a picture ({sorted(pictures)})"
    return pictures[key]


def _legend(at: AppTest, key: str) -> list[str]:
    """The legend row under the matrix table ``key``: scale name, samples, special cells."""
    legend = matrix_legend(at, key)
    assert legend is not None, f"{key}: no legend"
    return [str(text) for text in legend.iloc[0]]


def _all_steps(query: dict[str, str], timeout: float = 60) -> AppTest:
    """The step page with every step drawn ("all steps on one page"; a tab draws only its own)."""
    at = run_page("step", query, timeout=timeout)
    return at.toggle(key="step_all").set_value(True).run()


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
    at = _all_steps({"text": " ".join(words)})
    scores = _picture(at, "step_fig_attn_scores")
    assert scores["source"].startswith("data:image/png;base64,")
    assert "step_fig_attn_scores__zoom__figure" not in matrix_tables(at)  # lazy: nothing sent

    at.session_state["step_fig_attn_scores__zoom"] = True  # open the lazy expander
    at.run()
    at.number_input(key="step_fig_attn_scores__zoom__row").set_value(40).run()
    at.number_input(key="step_fig_attn_scores__zoom__col").set_value(31).run()
    at.number_input(key="step_fig_attn_scores__zoom__size").set_value(10).run()
    assert not at.exception
    window = matrix_tables(at)["step_fig_attn_scores__zoom__figure"]  # a table of its numbers
    trace = trace_attention(embed_words(words), AttentionConfig())
    expected = trace.attn_scores[0, 39:49, 30:40].double().numpy()  # rows 40–49, cols 31–40
    assert window.to_numpy().tolist() == cell_texts(expected, None, 4)  # written in the cells
    assert list(window.index) == [f"{i} · {words[i - 1]}" for i in range(40, 50)]  # as typed
    assert list(window.columns) == [f"{j} · {words[j - 1]}" for j in range(31, 41)]


def test_zoom_window_of_dropped_weights_keeps_the_views_masks_and_chinese_words() -> None:
    """The window is cut from the same description as the image: its exact weights on the
    image's colours, the dropout's pink cells where the keep-mask dropped, the grey ones where
    the mask hides; the picture's hover and the window's legend speak the page's language."""
    words = random_words(60)
    at = _all_steps({"text": " ".join(words), "dropout": "0.5", "lang": "zh"})
    image = _picture(at, "step_fig_dropped_weights")
    hover = image["hover"]
    assert hover["row_title"] == "查询" and hover["dropped"] == "0 (丢弃)"
    assert hover["hidden"].startswith("0 (") and "被掩码" in hover["hidden"]
    at.session_state["step_fig_dropped_weights__zoom"] = True
    at.run()
    at.number_input(key="step_fig_dropped_weights__zoom__row").set_value(11).run()
    at.number_input(key="step_fig_dropped_weights__zoom__col").set_value(11).run()
    assert not at.exception
    key = "step_fig_dropped_weights__zoom__figure"
    window = matrix_tables(at)[key].to_numpy()  # rows and columns 11–18: the diagonal's block
    assert window.shape == (8, 8)
    trace = trace_attention(embed_words(words), AttentionConfig(dropout=0.5))
    dropped = trace.dropped_weights[0, 10:18, 10:18].double().numpy()
    keep = trace.dropout_mask[0, 10:18, 10:18].numpy().astype(bool)
    visible = ~trace.mask[10:18, 10:18].numpy()
    kept = keep & visible
    assert kept.any() and (~keep & visible).any() and (~visible).any()
    texts = np.asarray(cell_texts(dropped, None, 4), dtype=object)
    assert (window[kept] == texts[kept]).all()  # the exact weights, written
    assert (window[~keep & visible] == "0").all()  # a dropped weight is written 0 …
    styles = matrix_cell_styles(at, key)
    background = np.array([[styles[i, j]["background-color"] for j in range(8)] for i in range(8)])
    assert (background[~keep & visible] == DROPPED_COLOR).all()  # … on pink, never the scale
    assert (window[~visible] == "0").all() and (background[~visible] == HIDDEN_COLOR).all()
    picture_legend = image["legend"]["cells"][0]  # the picture's colour range, written
    low, high = float(picture_legend[1]["text"]), float(picture_legend[3]["text"])
    view = field_view(trace, "dropped_weights", words, FigureWords(), palette="default")
    assert (low, high) == tuple(round(bound, 4) for bound in colour_range(view))
    low, high = colour_range(view)
    scale = colorscale("sequential", "default")
    on_image = sample_colorscale(scale, ((dropped[kept] - low) / (high - low)).tolist())
    assert background[kept].tolist() == on_image, "a kept weight has the image's colour"
    legend = _legend(at, key)
    assert legend[1] == f"{low:.4f}" and legend[3] == f"{high:.4f}"  # the same range, written
    assert legend[-2:] == ["0: 被掩码", "0: 丢弃"]  # grey, pink: the page's language
    assert "查询" in matrix_tables(at)[key].index.name  # the axes too


def test_zoom_window_is_clamped_when_the_sentence_gets_shorter() -> None:
    at = _all_steps({"text": " ".join(random_words(100))})
    at.session_state["step_fig_attn_weights__zoom"] = True
    at.run()
    at.number_input(key="step_fig_attn_weights__zoom__row").set_value(95).run()
    at.text_input(key="text").set_value(" ".join(random_words(50))).run()
    assert not at.exception
    assert at.number_input(key="step_fig_attn_weights__zoom__row").value <= 50


@subcases("page", [spec.name for spec in PAGE_SPECS])
def test_every_page_works_at_1024_tokens(page: str) -> None:
    at = run_page(page, {"text": " ".join(random_words(1024)), "dropout": "0.1"}, timeout=300)
    assert not at.exception, [str(e.value)[:500] for e in at.exception]
    assert at.session_state["table"].num_tokens == 1024


def test_step_page_works_at_4096_tokens_with_images_only() -> None:
    at = _all_steps({"text": " ".join(random_words(4096)), "dropout": "0.1"}, timeout=600)
    assert not at.exception, [str(e.value)[:500] for e in at.exception]
    drawn = matrix_components(at)
    total = sum(len(json.dumps(data)) for data in drawn.values())
    assert total < 3_000_000, total  # every (T, T) matrix is a small PNG
    images = matrix_images(at)
    assert len(images) >= 8, images  # X, Q, K, V, scores ×3, mask, weights, keep, dropped, context
    for key, data in drawn.items():
        assert len(json.dumps(data)) < 400_000, key
    assert not at.get("plotly_chart")


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
