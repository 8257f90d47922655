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
from viz.heatmap import MAX_TICK_LABELS, matrix_figure, value_range
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
    pixel_factors,
    use_image,
)
from viz.matrix import BinaryLook, MatrixView, window
from viz.words import FigureWords

WORDS = FigureWords()


def _words(count: int) -> list[str]:
    return [f"w{i}" for i in range(count)]


def _view(values, rows=None, cols=None, **options) -> MatrixView:  # noqa: ANN001
    """A view of ``values`` labelled w0, w1, … unless told (the default palette)."""
    values = np.asarray(values)
    return MatrixView(
        values=values,
        row_labels=tuple(rows if rows is not None else _words(values.shape[0])),
        col_labels=tuple(cols if cols is not None else _words(values.shape[1])),
        palette=options.pop("palette", "default"),
        **options,
    )


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


def test_the_views_size_chooses_numbers_or_an_image() -> None:
    small, large, tall = (
        _view(np.zeros((40, 40))),
        _view(np.zeros((41, 41))),
        _view(np.zeros((1024, 2))),
    )
    assert not small.large and large.large and tall.large
    assert len(matrix_figure(small, WORDS).layout.images) == 0
    assert len(matrix_figure(large, WORDS).layout.images) == 1
    assert len(matrix_figure(tall, WORDS).layout.images) == 1
    for name in ("_attention_lab_matrix", "_view", "view"):  # nothing rides on the figure
        assert not hasattr(matrix_figure(large, WORDS), name)


def test_lut_ends_are_the_colour_scale_ends() -> None:
    for kind in ("diverging", "sequential"):
        for palette in ("default", "colorblind"):
            scale = plotly.colors.get_colorscale(colorscale(kind, palette))
            lut = colour_lut(colorscale(kind, palette))
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
    figure = image_heatmap(
        _view(values, hidden=hidden, kind="sequential", zrange=(0.0, 1.0)), WORDS
    )
    pixels = _png(figure)
    repeat = pixels.shape[0] // count
    assert pixels.shape == (count * repeat, count * repeat, 3)
    lut = colour_lut(colorscale("sequential"))
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
    figure = image_heatmap(_view(values, kind="sequential"), WORDS)
    assert pixel_factors(count, count) == (2, 2)
    pixels = _png(figure)
    assert pixels.shape[:2] == (MAX_IMAGE_SIDE, MAX_IMAGE_SIDE)
    lut = colour_lut(colorscale("sequential"))
    zmin, zmax = 0.0, count - 1.0
    for j in (0, 100, 511):
        mean = (2 * j + 2 * j + 1) / 2  # mean of columns 2j and 2j + 1
        level = int(np.rint((mean - zmin) / (zmax - zmin) * (COLOUR_LEVELS - 1)))
        assert tuple(pixels[10, j]) == tuple(lut[level])


def test_colour_bar_has_the_numeric_heatmaps_range_and_scale() -> None:
    values = np.linspace(-3, 1, 50 * 50).reshape(50, 50)
    figure = image_heatmap(_view(values, kind="diverging", colorbar_title="score"), WORDS)
    blocks = figure.data[0]
    assert len(figure.data) == 1 and blocks.type == "heatmap"
    assert (blocks.zmin, blocks.zmax) == value_range(values, "diverging") == (-3.0, 3.0)
    assert blocks.showscale is not False and blocks.colorbar.title.text == "score"
    assert blocks.opacity == 0.0  # the image shows the colours
    scaled = image_heatmap(_view(values, kind="sequential", zrange=(0, 1)), WORDS)
    assert (scaled.data[0].zmin, scaled.data[0].zmax) == (0, 1)


def test_the_view_decides_the_colour_bar_of_the_image_too() -> None:
    hidden_bar = matrix_figure(_view(np.ones((64, 64)), colour_bar=False), WORDS)
    assert hidden_bar.data[0].showscale is False
    upright = matrix_figure(_view(np.ones((64, 64)), upright_colorbar=True), WORDS)
    assert upright.data[0].colorbar.title.side == "right"


def test_hover_reports_block_ranges_and_statistics() -> None:
    count = 200
    values = np.arange(count * count, dtype=np.float64).reshape(count, count)
    hidden = _causal(count)
    view = _view(values, hidden=hidden, row_title="query", col_title="key", value_name="score")
    figure = image_heatmap(view, WORDS)
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
    view = _view(np.zeros((50, 50)), tokens, tokens, title="<b>t</b>",
                 row_title="<a href='x'>q</a>", value_name="<br>v")  # fmt: skip
    figure = image_heatmap(view, WORDS)
    text = json.dumps(figure.to_plotly_json()["layout"]) + figure.data[0].hovertemplate
    assert "<img" not in text and "<a " not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(0)&gt;"[:12] in " ".join(figure.layout.yaxis.ticktext)
    assert "&lt;br&gt;v" in figure.data[0].hovertemplate
    template = hover_template(_view(np.zeros((2, 2)), value_name="v"), FigureWords(mean="<i>m</i>"))
    assert "&lt;i&gt;m&lt;/i&gt;" in template


def test_figure_json_stays_small_at_1024_and_4096_tokens() -> None:
    for count in (1024, 4096):
        words = _words(count)
        trace = trace_attention(embed_words(words), AttentionConfig(dropout=0.1))
        scores = trace.attn_scores[0].numpy()  # (T, T): noisy, the hardest case for PNG
        figure = matrix_figure(_view(scores, words, words, value_name="score"), WORDS)
        size = len(pio.to_json(figure, validate=False))
        assert size < 400_000, f"{count} tokens: {size} bytes"
        assert "_attention_lab_matrix" not in pio.to_json(figure, validate=False)


def test_window_gives_exact_values_with_position_labels_and_clips() -> None:
    count = 100
    values = np.arange(count * count, dtype=np.float32).reshape(count, count) / 7
    view = _view(values, hidden=_causal(count), kind="sequential")
    cut = window(view, 16, 10, 12)
    part = cut.view
    assert part.values.shape == (12, 12)
    assert part.values[0, 0] == values[16, 10]  # exact, not a block mean
    assert part.row_labels[0] == "17 · w16" and part.col_labels[-1] == "22 · w21"
    assert part.hidden[0, 7]  # row 17 (0-based 16) cannot see column 18 (0-based 17)
    # the window keeps the whole matrix's colours (its image's colour bar), not its own range
    assert part.zrange == (
        image_heatmap(view, WORDS).data[0].zmin,
        image_heatmap(view, WORDS).data[0].zmax,
    )
    assert part.zrange == (0.0, float(values[~_causal(count)].max()))
    assert part.kind == "sequential" and not part.large
    clipped = window(view, 95, 200, 24)
    assert (
        clipped.view.values.shape == (5, 1) and clipped.row_start == 95 and clipped.col_start == 99
    )


def test_numeric_heatmap_thins_tick_labels_of_long_axes() -> None:
    figure = matrix_figure(_view(np.zeros((256, 2)), cols=["q1", "q2"]), WORDS)
    assert len(figure.layout.yaxis.tickvals) <= MAX_TICK_LABELS
    assert list(figure.layout.xaxis.tickvals) == [0, 1]
    small = matrix_figure(_view(np.zeros((6, 6))), WORDS)
    assert list(small.layout.yaxis.tickvals) == list(range(6))


def test_a_large_yes_no_grid_is_drawn_in_its_two_colours() -> None:
    flags = np.zeros((64, 64))
    flags[:, 32:] = 1.0
    look = BinaryLook(true_text="✓", false_text="✗", true_name="kept", false_name="dropped",
                      true_color="#d6ecd2", false_color="#f4d6d6")  # fmt: skip
    figure = matrix_figure(_view(flags, kind="binary", binary=look, decimals=0), WORDS)
    pixels = _png(figure)
    assert tuple(pixels[0, 0]) == _rgb("#f4d6d6")
    assert tuple(pixels[0, -1]) == _rgb("#d6ecd2")
    assert list(figure.data[0].colorbar.ticktext) == ["dropped", "kept"]
    assert "mean %{z:.2f}" in figure.data[0].hovertemplate, "a share of kept cells, not 0 or 1"
