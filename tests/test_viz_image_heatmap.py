"""A matrix too large for a table is a picture: the scale's colours, block means, values on hover."""

from __future__ import annotations

import base64
import io

import numpy as np
import plotly.colors
import pytest
from PIL import Image

from viz.colors import DROPPED_COLOR, HIDDEN_COLOR, colorscale
from viz.image_heatmap import (
    COLOUR_LEVELS,
    HIDDEN_INDEX,
    MAX_IMAGE_SIDE,
    block_stats,
    colour_indices,
    colour_lut,
    matrix_image,
    pixel_factors,
)
from viz.matrix import BinaryLook, MatrixView, colour_range, window
from viz.table_heatmap import legend_table
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


def _png(view: MatrixView) -> np.ndarray:
    """The picture of ``view``, decoded to RGB ``(h, w, 3)``."""
    source = matrix_image(view, WORDS).source
    assert source.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1])))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def _rgb(colour: str) -> tuple[int, ...]:
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(round(float(v)) for v in colour[colour.index("(") + 1 : -1].split(","))


def test_a_matrix_is_a_picture_when_too_large_for_a_table() -> None:
    assert not _view(np.zeros((40, 12))).large
    assert _view(np.zeros((41, 12))).large and _view(np.zeros((6, 13))).large
    assert _view(np.zeros((1024, 1024))).large


def test_every_lut_level_is_plotlys_colour_at_its_position() -> None:
    """The picture's colours come from the tables' sampler: Plotly's colour at each level, for
    the named scales and for a yes/no grid's two colours given as pairs; the ends are the scale's."""
    positions = np.linspace(0.0, 1.0, COLOUR_LEVELS).tolist()
    named = [
        colorscale(kind, palette)
        for kind in ("diverging", "sequential")
        for palette in ("default", "colorblind")
    ]
    for scale in [*named, [[0.0, "#f4d6d6"], [1.0, "rgb(214, 236, 210)"]]]:
        lut = colour_lut(scale)
        assert lut.shape == (COLOUR_LEVELS, 3) and lut.dtype == np.uint8
        expected = [_rgb(colour) for colour in plotly.colors.sample_colorscale(scale, positions)]
        assert [tuple(level) for level in lut.tolist()] == expected
        ends = plotly.colors.get_colorscale(scale) if isinstance(scale, str) else scale
        assert (tuple(lut[0]), tuple(lut[-1])) == (_rgb(ends[0][1]), _rgb(ends[-1][1]))


def test_colour_indices_map_range_ends_and_hide_nan() -> None:
    indices = colour_indices(np.array([[-2.0, 0.0, 2.0, np.nan, 5.0]]), -2.0, 2.0)
    assert indices.tolist() == [[0, (COLOUR_LEVELS - 1) // 2, COLOUR_LEVELS - 1, HIDDEN_INDEX, 253]]


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
    count = 100  # one pixel per cell (≤ 512); the browser draws them as sharp squares
    rng = np.random.default_rng(1)
    values = rng.uniform(0, 1, size=(count, count))
    hidden = _causal(count)
    pixels = _png(_view(values, hidden=hidden, kind="sequential", zrange=(0.0, 1.0)))
    assert pixels.shape == (count, count, 3)
    lut = colour_lut(colorscale("sequential"))
    for i, j in [(5, 2), (50, 49), (99, 0), (2, 80)]:
        pixel = tuple(pixels[i, j])
        if hidden[i, j]:
            assert pixel == _rgb(HIDDEN_COLOR)
        else:
            level = int(np.rint(values[i, j] * (COLOUR_LEVELS - 1)))
            assert pixel == tuple(lut[level])


def test_large_matrix_is_shrunk_to_block_means() -> None:
    count = 1024
    values = np.tile(np.arange(count, dtype=np.float64), (count, 1))  # column j holds j
    assert pixel_factors(count, count) == (2, 2)
    pixels = _png(_view(values, kind="sequential"))
    assert pixels.shape[:2] == (MAX_IMAGE_SIDE, MAX_IMAGE_SIDE)
    lut = colour_lut(colorscale("sequential"))
    zmin, zmax = 0.0, count - 1.0
    for j in (0, 100, 511):
        mean = (2 * j + 2 * j + 1) / 2  # mean of columns 2j and 2j + 1
        level = int(np.rint((mean - zmin) / (zmax - zmin) * (COLOUR_LEVELS - 1)))
        assert tuple(pixels[10, j]) == tuple(lut[level])


def test_one_cell_pixels_mark_dropped_weights_pink_and_hover_exact_values() -> None:
    count = 50
    rng = np.random.default_rng(2)
    values = rng.uniform(0, 1, size=(count, count))
    dropped = rng.uniform(size=(count, count)) < 0.3
    hidden = _causal(count)
    view = _view(values, hidden=hidden, dropped=dropped, kind="sequential", value_name="w")
    pixels = _png(view)
    i, j = np.argwhere(dropped & ~hidden)[0]
    assert tuple(pixels[i, j]) == _rgb(DROPPED_COLOR)
    assert tuple(pixels[0, count - 1]) == _rgb(HIDDEN_COLOR)
    image = matrix_image(view, WORDS)
    hover = image.hover
    assert image.block == (1, 1)
    kept = np.argwhere(~dropped & ~hidden)[3]
    assert hover["values"][kept[0]][kept[1]] == round(float(values[tuple(kept)]), 6)
    assert hover["states"][i][j] == "d" and hover["states"][0][count - 1] == "h"
    assert hover["row_labels"][kept[0]] == f"w{kept[0]}"
    assert hover["before"] is None  # no weights before dropout given: nothing to multiply
    scaled = matrix_image(
        _view(values * 2, hidden=hidden, undropped=values, dropout_scale=2.0), WORDS
    ).hover
    assert scaled["scale"] == "2" and scaled["before"][5][1] == round(float(values[5, 1]), 6)


def test_a_large_picture_hovers_block_statistics() -> None:
    count = 1024
    values = np.tile(np.arange(count, dtype=np.float64), (count, 1))  # column j holds j
    image = matrix_image(_view(values, hidden=_causal(count), kind="sequential"), WORDS)
    assert image.block == (32, 32)  # 512 pixels of 2 cells: 32 blocks of 16 pixels a side
    hover = image.hover
    assert len(hover["mean"]) == 32 and len(hover["mean"][0]) == 32
    assert hover["min"][0][0] == 0.0 and hover["max"][0][0] == 31.0  # row 1 sees column 1 only…
    assert hover["masked"][0][0] == 32 * 31 // 2  # …the cells above the diagonal are masked
    assert hover["mean"][0][31] is None  # no visible cell: no number
    assert image.row_ticks[0] == (0, "1 w0") and image.col_ticks[-1] == (1023, "1024")


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
    assert part.zrange == colour_range(view)
    assert part.zrange == (0.0, float(values[~_causal(count)].max()))
    assert part.kind == "sequential" and not part.large
    clipped = window(view, 95, 200, 24)
    assert (
        clipped.view.values.shape == (5, 1) and clipped.row_start == 95 and clipped.col_start == 99
    )


def test_a_large_yes_no_grid_is_drawn_in_its_two_colours() -> None:
    flags = np.zeros((64, 64))
    flags[:, 32:] = 1.0
    look = BinaryLook(true_text="✓", false_text="✗", true_name="kept", false_name="dropped",
                      true_color="#d6ecd2", false_color="#f4d6d6")  # fmt: skip
    view = _view(flags, kind="binary", binary=look, decimals=0)
    pixels = _png(view)
    assert tuple(pixels[0, 0]) == _rgb("#f4d6d6")
    assert tuple(pixels[0, -1]) == _rgb("#d6ecd2")
    hover = matrix_image(view, WORDS).hover
    assert hover["states"][0][0] == "0" and hover["states"][0][-1] == "1"
    assert (hover["no"], hover["yes"]) == ("dropped", "kept")
    legend = legend_table(view, WORDS)  # a picture does not write states: its legend does
    assert legend is not None and [cell.text for cell in legend.cells[0][1:]] == [
        "✓: kept",
        "✗: dropped",
    ]
