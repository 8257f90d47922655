"""The image heatmap of large matrices: colours, block statistics, hover, size, and the dispatch."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import plotly.colors
import plotly.io as pio
import pytest
from PIL import Image

from attention import AttentionConfig, trace_attention
from attention.examples import embed_words
from viz.colors import HIDDEN_COLOR, colorscale
from viz.heatmap import MAX_TICK_LABELS, matrix_heatmap, value_range
from viz.image_heatmap import (
    COLOUR_LEVELS,
    HIDDEN_INDEX,
    MAX_IMAGE_SIDE,
    MAX_NUMERIC_CELLS,
    block_stats,
    colour_indices,
    colour_lut,
    hover_template,
    image_heatmap,
    large_matrix_of,
    use_image,
    window,
)


def _words(count: int) -> list[str]:
    return [f"w{i}" for i in range(count)]


def _causal(count: int) -> np.ndarray:
    return np.triu(np.ones((count, count), dtype=bool), k=1)  # True = hidden


def _png(figure) -> np.ndarray:  # noqa: ANN001 - a go.Figure
    """The layout image of an image heatmap, decoded to RGB ``(h, w, 3)``."""
    source = figure.layout.images[0].source
    assert source.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1])))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def _rgb(colour: str) -> tuple[int, ...]:
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(round(float(v)) for v in colour[colour.index("(") + 1 : -1].split(","))


def test_threshold_is_forty_by_forty_cells() -> None:
    assert MAX_NUMERIC_CELLS == 40 * 40
    assert not use_image(40, 40)
    assert use_image(41, 40)
    assert use_image(1024, 2)  # a tall (T, d_out) matrix too


def test_matrix_heatmap_switches_to_an_image_above_the_threshold() -> None:
    small = matrix_heatmap(np.zeros((40, 40)), _words(40), _words(40))
    large = matrix_heatmap(np.zeros((41, 41)), _words(41), _words(41))
    assert large_matrix_of(small) is None and len(small.layout.images) == 0
    assert large_matrix_of(large) is not None and len(large.layout.images) == 1
    forced = matrix_heatmap(np.zeros((41, 41)), _words(41), _words(41), large="numeric")
    assert large_matrix_of(forced) is None


def test_lut_ends_are_the_colour_scale_ends() -> None:
    for kind in ("diverging", "sequential"):
        for palette in ("default", "colorblind"):
            scale = plotly.colors.get_colorscale(colorscale(kind, palette))
            lut = colour_lut(kind, palette)
            assert lut.shape == (COLOUR_LEVELS, 3)
            assert tuple(lut[0]) == _rgb(scale[0][1])
            assert tuple(lut[-1]) == _rgb(scale[-1][1])


def test_colour_indices_map_range_ends_and_hide_nan() -> None:
    indices = colour_indices(np.array([[-2.0, 0.0, 2.0, np.nan, 5.0]]), -2.0, 2.0)
    assert indices.tolist() == [[0, (COLOUR_LEVELS - 1) // 2, COLOUR_LEVELS - 1, HIDDEN_INDEX, 254]]


def test_block_stats_match_brute_force_with_nan_and_padding() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(7, 5)).astype(np.float32)
    values[0, 0] = np.nan
    values[4:6, 3:5] = np.nan  # one block entirely hidden
    blocks = block_stats(values, 2, 2)  # 4 × 3 blocks, the last row/column padded
    assert blocks.total.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            cell = values[2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
            visible = cell[~np.isnan(cell)]
            assert blocks.cells[i, j] == cell.size
            assert blocks.count[i, j] == visible.size
            if visible.size:
                assert blocks.mean[i, j] == pytest.approx(visible.mean(), rel=1e-6)
                assert blocks.minimum[i, j] == pytest.approx(visible.min())
                assert blocks.maximum[i, j] == pytest.approx(visible.max())
            else:
                assert np.isnan(blocks.mean[i, j])


def test_pixels_are_the_scale_colours_of_block_means_and_hidden_is_grey() -> None:
    count = 100  # one pixel per cell (≤ 512), pixels repeated 4× to stay sharp
    rng = np.random.default_rng(1)
    values = rng.uniform(0, 1, size=(count, count))
    hidden = _causal(count)
    figure = image_heatmap(values, _words(count), _words(count), hidden=hidden,
                           kind="sequential", zrange=(0.0, 1.0))  # fmt: skip
    pixels = _png(figure)
    repeat = pixels.shape[0] // count
    assert pixels.shape == (count * repeat, count * repeat, 3)
    lut = colour_lut("sequential")
    for i, j in [(5, 2), (50, 49), (99, 0), (2, 80)]:
        pixel = tuple(pixels[i * repeat, j * repeat])
        if hidden[i, j]:
            assert pixel == _rgb(HIDDEN_COLOR)
        else:
            level = int(np.rint(values[i, j] * (COLOUR_LEVELS - 1)))
            assert pixel == tuple(lut[level])


def test_large_matrix_is_shrunk_to_block_means() -> None:
    count = 1024
    values = np.tile(np.arange(count, dtype=np.float64), (count, 1))  # column j holds j
    figure = image_heatmap(values, _words(count), _words(count), kind="sequential")
    matrix = large_matrix_of(figure)
    assert (matrix.row_factor, matrix.col_factor) == (2, 2)
    pixels = _png(figure)
    assert pixels.shape[:2] == (MAX_IMAGE_SIDE, MAX_IMAGE_SIDE)
    lut = colour_lut("sequential")
    zmin, zmax = 0.0, count - 1.0
    for j in (0, 100, 511):
        mean = (2 * j + 2 * j + 1) / 2  # mean of columns 2j and 2j + 1
        level = int(np.rint((mean - zmin) / (zmax - zmin) * (COLOUR_LEVELS - 1)))
        assert tuple(pixels[10, j]) == tuple(lut[level])


def test_colour_bar_has_the_numeric_heatmaps_range_and_scale() -> None:
    values = np.linspace(-3, 1, 50 * 50).reshape(50, 50)
    figure = image_heatmap(values, _words(50), _words(50), kind="diverging",
                           colorbar_title="score")  # fmt: skip
    blocks = figure.data[0]
    assert len(figure.data) == 1 and blocks.type == "heatmap"
    assert (blocks.zmin, blocks.zmax) == value_range(values, "diverging") == (-3.0, 3.0)
    assert blocks.showscale is not False and blocks.colorbar.title.text == "score"
    assert blocks.opacity == 0.0  # the image shows the colours
    scaled = image_heatmap(values, _words(50), _words(50), kind="sequential", zrange=(0, 1))
    assert (scaled.data[0].zmin, scaled.data[0].zmax) == (0, 1)


def test_page_updates_of_heatmap_traces_still_work() -> None:
    figure = matrix_heatmap(np.ones((64, 64)), _words(64), _words(64))
    figure.update_traces(showscale=False)  # what a page may do to any heatmap figure
    figure.update_traces(colorbar_title_side="right", selector={"type": "heatmap"})
    assert figure.data[0].showscale is False


def test_hover_reports_block_ranges_and_statistics() -> None:
    count = 200
    values = np.arange(count * count, dtype=np.float64).reshape(count, count)
    hidden = _causal(count)
    figure = image_heatmap(values, _words(count), _words(count), hidden=hidden,
                           row_title="query", col_title="key", value_name="score")  # fmt: skip
    blocks = figure.data[0]
    customdata = np.asarray(blocks.customdata)
    z = np.asarray(blocks.z, dtype=np.float64)
    size = count // z.shape[0] if count % z.shape[0] == 0 else int(np.ceil(count / z.shape[0]))
    first, last, c_first, c_last, low, high, masked = customdata[1, 0]
    assert (first, last) == (size + 1, 2 * size)
    assert (c_first, c_last) == (1, size)
    block = values[size : 2 * size, 0:size]
    block_hidden = hidden[size : 2 * size, 0:size]
    visible = block[~block_hidden]
    assert z[1, 0] == pytest.approx(visible.mean(), rel=1e-6)
    assert (low, high) == (pytest.approx(visible.min()), pytest.approx(visible.max()))
    assert masked == block_hidden.sum()
    assert np.isnan(z[0, -1])  # a block with every cell masked: no colour, no hover
    assert blocks.hoverongaps is False
    for word in ("query", "key", "score", "mean", "min", "max", "masked"):
        assert word in blocks.hovertemplate
    assert list(blocks.x)[0] == -0.5 and list(blocks.x)[-1] == count - 0.5


def test_user_text_is_escaped_in_hover_ticks_and_titles() -> None:
    tokens = [f"<img src=x onerror=alert({i})>" for i in range(50)]
    figure = image_heatmap(np.zeros((50, 50)), tokens, tokens, title="<b>t</b>",
                           row_title="<a href='x'>q</a>", value_name="<br>v")  # fmt: skip
    text = json.dumps(figure.to_plotly_json()["layout"]) + figure.data[0].hovertemplate
    assert "<img" not in text and "<a " not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(0)&gt;"[:12] in " ".join(figure.layout.yaxis.ticktext)
    assert "&lt;br&gt;v" in figure.data[0].hovertemplate
    template = hover_template({"mean": "<i>m</i>"}, value_name="v")
    assert "&lt;i&gt;m&lt;/i&gt;" in template


def test_figure_json_stays_small_at_1024_and_4096_tokens() -> None:
    for count in (1024, 4096):
        words = _words(count)
        trace = trace_attention(embed_words(words), AttentionConfig(dropout=0.1))
        scores = trace.attn_scores[0].numpy()  # (T, T): noisy, the hardest case for PNG
        figure = matrix_heatmap(scores, words, words, value_name="score")
        size = len(pio.to_json(figure, validate=False))
        assert size < 400_000, f"{count} tokens: {size} bytes"
        assert "_attention_lab_matrix" not in pio.to_json(figure, validate=False)


def test_window_gives_exact_values_with_position_labels_and_clips() -> None:
    count = 100
    values = np.arange(count * count, dtype=np.float32).reshape(count, count) / 7
    figure = image_heatmap(values, _words(count), _words(count), hidden=_causal(count))
    matrix = large_matrix_of(figure)
    cut = window(matrix, 16, 10, 12)
    assert cut.values.shape == (12, 12)
    assert cut.values[0, 0] == values[16, 10]  # exact, not a block mean
    assert cut.row_labels[0] == "17 · w16" and cut.col_labels[-1] == "22 · w21"
    assert cut.hidden[0, 7]  # row 17 (0-based 16) cannot see column 18 (0-based 17)
    clipped = window(matrix, 95, 200, 24)
    assert clipped.values.shape == (5, 1) and clipped.row_start == 95 and clipped.col_start == 99


def test_numeric_heatmap_thins_tick_labels_of_long_axes() -> None:
    figure = matrix_heatmap(np.zeros((256, 2)), _words(256), ["q1", "q2"])
    assert len(figure.layout.yaxis.tickvals) <= MAX_TICK_LABELS
    assert list(figure.layout.xaxis.tickvals) == [0, 1]
    small = matrix_heatmap(np.zeros((6, 6)), _words(6), _words(6))
    assert list(small.layout.yaxis.tickvals) == list(range(6))


def test_custom_two_colour_scale_for_yes_no_grids() -> None:
    flags = np.zeros((64, 64))
    flags[:, 32:] = 1.0
    scale = [[0.0, "#f4d6d6"], [1.0, "#d6ecd2"]]
    figure = image_heatmap(flags, _words(64), _words(64), kind="sequential", zrange=(0, 1),
                           scale=scale, colorbar_ticks=([0, 1], ["dropped", "kept"]))  # fmt: skip
    pixels = _png(figure)
    assert tuple(pixels[0, 0]) == _rgb("#f4d6d6")
    assert tuple(pixels[0, -1]) == _rgb("#d6ecd2")
    assert list(figure.data[0].colorbar.ticktext) == ["dropped", "kept"]
