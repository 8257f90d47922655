"""The coloured table of a small matrix (``viz.table_heatmap``) says what the heatmap said.

Pure builders, no Streamlit: a ``ColouredTable``'s cells hold the texts a reader sees and their
colours. Views come from the app's own builders (``viz.steps``) on real traces where they can.
"""

from __future__ import annotations

import re

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale

from attention.examples import BOOK_TOKENS, unique_labels
from tests.cases import subcases
from tests.step_figures import field_view
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR, PALETTES, colorscale
from viz.matrix import MatrixView, colour_range
from viz.table_heatmap import (
    DARK_TEXT,
    HIGHLIGHT_COLOR,
    LIGHT_TEXT,
    MAX_COLOURED_COLUMNS,
    MAX_COLOURED_ROWS,
    ColouredTable,
    corner_parts,
    legend_table,
    matrix_table,
    scale_stops,
    text_table,
    use_table,
)
from viz.vocabulary import MINUS_INFINITY, cell_texts
from viz.words import FigureWords

TOKENS = list(BOOK_TOKENS)
WORDS = FigureWords()


def texts(table: ColouredTable) -> np.ndarray:
    return np.array(table.texts(), dtype=object)


CELL_FIELDS = {"background-color": "background", "color": "colour", "text-align": "align"}


def css(table: ColouredTable, name: str) -> np.ndarray:
    """The CSS property ``name`` of every cell, as the browser's table component sets it."""
    rows, cols = table.shape
    out = np.empty((rows, cols), dtype=object)
    for i, row in enumerate(table.cells):
        for j, cell in enumerate(row):
            out[i, j] = getattr(cell, CELL_FIELDS[name])
    return out


def scale_colour(kind: str, palette: str, positions: list[float]) -> list[str]:
    """Plotly's own sampling of the app's scale: the colours a heatmap would give."""
    return sample_colorscale(get_colorscale(colorscale(kind, palette)), positions)


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb`` or ``rgb(r, g, b)``."""
    if colour.startswith("#"):
        channels = [int(colour[k : k + 2], 16) for k in (1, 3, 5)]
    else:
        channels = [float(part) for part in re.findall(r"[\d.]+", colour)]
    lin = [
        c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
        for c in channels
    ]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_cells_write_the_traces_scores_as_the_heatmap_did(six_token_trace) -> None:
    view = field_view(six_token_trace, "masked_scores", TOKENS, WORDS, palette="default")
    shown = texts(matrix_table(view, WORDS))
    hidden = six_token_trace.mask.numpy()  # (6, 6) True above the diagonal
    assert shown.tolist() == cell_texts(view.values, view.hidden, 4)
    assert (shown[hidden] == MINUS_INFINITY).all() and hidden.any()
    scores = six_token_trace.masked_scores[0].double().numpy()
    assert shown[1, 0] == f"{scores[1, 0]:.4f}".replace("-", "−")  # typographic minus
    assert not any("-" in text for text in shown.ravel())
    assert (css(matrix_table(view, WORDS), "background-color")[hidden] == HIDDEN_COLOR).all()


def test_a_weight_view_writes_its_hidden_cells_0_on_grey(six_token_trace) -> None:
    view = field_view(six_token_trace, "attn_weights", TOKENS, WORDS, palette="default")
    table = matrix_table(view, WORDS)
    hidden = six_token_trace.mask.numpy()
    expected = np.array(cell_texts(view.values, None, 4), dtype=object)
    expected[hidden] = "0"  # hidden_value=0: a weight of a future token is 0, not −∞
    assert texts(table).tolist() == expected.tolist()
    assert (css(table, "background-color")[hidden] == HIDDEN_COLOR).all()
    assert HIDDEN_COLOR not in css(table, "background-color")[~hidden]


def test_dropped_weights_are_0_on_pink_and_kept_ones_on_the_scale(six_token_dropout_trace) -> None:
    view = field_view(six_token_dropout_trace, "dropped_weights", TOKENS, WORDS, palette="default")
    table = matrix_table(view, WORDS)
    hidden = six_token_dropout_trace.mask.numpy()
    dropped = ~six_token_dropout_trace.dropout_mask[0].numpy().astype(bool) & ~hidden
    kept = ~dropped & ~hidden
    assert dropped.any() and kept.any()
    shown, background = texts(table), css(table, "background-color")
    assert (shown[dropped] == "0").all() and (background[dropped] == DROPPED_COLOR).all()
    assert (background[hidden] == HIDDEN_COLOR).all()
    values = six_token_dropout_trace.dropped_weights[0].double().numpy()
    assert (
        shown[kept].tolist() == np.array(cell_texts(values, None, 4), dtype=object)[kept].tolist()
    )
    low, high = colour_range(view)
    assert background[kept].tolist() == scale_colour(
        "sequential", "default", ((values[kept] - low) / (high - low)).tolist()
    )


@subcases("palette", sorted(PALETTES))
def test_a_diverging_zero_is_the_scales_middle_and_plus_minus_max_its_ends(palette: str) -> None:
    view = MatrixView(
        values=np.array([[-2.5, 0.0, 2.5], [1.0, -1.0, 0.5]]),
        row_labels=("a", "b"),
        col_labels=("x", "y", "z"),
        palette=palette,
    )
    background = css(matrix_table(view, WORDS), "background-color")
    ends = scale_colour("diverging", palette, [0.0, 0.5, 1.0])
    assert background[0].tolist() == ends
    assert background[1].tolist() == scale_colour("diverging", palette, [0.7, 0.3, 0.6])
    assert len(set(ends)) == 3


def test_the_two_palettes_give_different_colours(six_token_trace) -> None:
    colours = {
        palette: css(
            matrix_table(
                field_view(six_token_trace, "attn_scores", TOKENS, WORDS, palette=palette),
                WORDS,
            ),
            "background-color",
        )
        for palette in PALETTES
    }
    assert not (colours["default"] == colours["colorblind"]).any()


@subcases("palette", sorted(PALETTES))
@subcases("kind", ["diverging", "sequential"])
def test_text_has_the_higher_contrast_on_every_colour_of_the_scale(kind: str, palette: str) -> None:
    values = np.linspace(-1.0 if kind == "diverging" else 0.0, 1.0, 101).reshape(1, -1)
    cells = values.shape[1]
    view = MatrixView(
        values=values,
        row_labels=("r",),
        col_labels=tuple(str(j) for j in range(cells)),
        palette=palette,
        kind=kind,  # type: ignore[arg-type]
    )
    table = matrix_table(view, WORDS)
    for background, text in zip(
        css(table, "background-color")[0], css(table, "color")[0], strict=True
    ):
        other = LIGHT_TEXT if text == DARK_TEXT else DARK_TEXT
        assert contrast(text, background) >= contrast(other, background), (background, text)


def test_fixed_colours_of_special_cells_are_readable(six_token_dropout_trace) -> None:
    table = matrix_table(
        field_view(six_token_dropout_trace, "dropped_weights", TOKENS, WORDS, palette="default"),
        WORDS,
    )
    mask_table = matrix_table(
        field_view(six_token_dropout_trace, "mask", TOKENS, WORDS, palette="default"), WORDS
    )
    for styler in (table, mask_table):
        pairs = zip(
            css(styler, "background-color").ravel(), css(styler, "color").ravel(), strict=True
        )
        assert all(contrast(text, background) >= 4.5 for background, text in pairs)


def test_a_yes_no_grid_writes_and_colours_its_states(six_token_dropout_trace) -> None:
    view = field_view(six_token_dropout_trace, "mask", TOKENS, WORDS, palette="default")
    flags, look, table = (
        six_token_dropout_trace.mask.numpy(),
        view.binary,
        matrix_table(view, WORDS),
    )
    assert flags.any() and (~flags).any()
    assert texts(table).tolist() == np.where(flags, look.true_text, look.false_text).tolist()
    assert (
        css(table, "background-color").tolist()
        == np.where(flags, look.true_color, look.false_color).tolist()
    )
    assert legend_table(view, WORDS) is None  # its cells say their state


def test_keep_mask_cells_the_causal_mask_hides_are_grey_not_dropped(
    six_token_dropout_trace,
) -> None:
    view = field_view(six_token_dropout_trace, "dropout_mask", TOKENS, WORDS, palette="default")
    keep = six_token_dropout_trace.dropout_mask[0].numpy().astype(bool)
    hidden = six_token_dropout_trace.mask.numpy()  # above the diagonal
    assert (~keep & hidden).any() and (~keep & ~hidden).any()  # dropout drew ✗ on both sides
    table = matrix_table(view, WORDS)
    cell_texts, colours = texts(table), css(table, "background-color")
    assert set(cell_texts[hidden]) == {"—"} and set(colours[hidden]) == {HIDDEN_COLOR}
    dropped = ~keep & ~hidden
    assert set(cell_texts[dropped]) == {"✗"} and set(colours[dropped]) == {DROPPED_COLOR}
    assert set(cell_texts[keep & ~hidden]) == {"✓"}
    legend = texts(legend_table(view, WORDS))[0].tolist()  # the legend names all three
    assert legend == ["m", "✓: kept", "✗: dropped", f"—: {WORDS.future_masked}"]


def test_legend_samples_are_the_ranges_ends_and_middle(six_token_trace) -> None:
    view = field_view(six_token_trace, "attn_scores", TOKENS, WORDS, palette="colorblind")
    legend = legend_table(view, WORDS)
    low, high = colour_range(view)
    assert low == -high < 0
    cells = texts(legend)[0].tolist()
    written = [f"{value:.4f}".replace("-", "−") for value in (low, 0.0, high)]
    assert cells == [view.value_name, *written]  # nothing masked, nothing dropped
    assert legend.cells[0][0].italic and not legend.row_labels and not legend.col_labels
    assert css(legend, "background-color")[0, 1:].tolist() == scale_colour(
        "diverging", "colorblind", [0, 0.5, 1]
    )


def test_legend_lists_masked_and_dropped_cells_only_when_present(
    six_token_trace, six_token_dropout_trace
) -> None:
    weights = field_view(six_token_trace, "attn_weights", TOKENS, WORDS, palette="default")
    assert texts(legend_table(weights, WORDS))[0, 4:].tolist() == [f"0: {WORDS.masked}"]
    masked = field_view(six_token_trace, "masked_scores", TOKENS, WORDS, palette="default")
    assert texts(legend_table(masked, WORDS))[0, 4:].tolist() == [
        f"{MINUS_INFINITY}: {WORDS.masked}"
    ]
    dropped = field_view(
        six_token_dropout_trace, "dropped_weights", TOKENS, WORDS, palette="default"
    )
    legend = legend_table(dropped, WORDS)
    assert texts(legend)[0, 4:].tolist() == [f"0: {WORDS.masked}", f"0: {WORDS.dropped}"]
    assert css(legend, "background-color")[0, 4:].tolist() == [HIDDEN_COLOR, DROPPED_COLOR]
    # dropout also "drops" hidden weights (already 0): those are grey, never listed as dropped
    only_hidden = MatrixView(
        values=np.array([[0.5, 0.0], [0.4, 0.6]]),
        row_labels=("a", "b"),
        col_labels=("a", "b"),
        palette="default",
        kind="sequential",
        hidden=np.array([[False, True], [False, False]]),
        hidden_value=0.0,
        dropped=np.array([[False, True], [False, False]]),
    )
    legend = texts(legend_table(only_hidden, WORDS))[0].tolist()
    assert legend[-1] == f"0: {WORDS.masked}" and not any(WORDS.dropped in cell for cell in legend)
    assert css(matrix_table(only_hidden, WORDS), "background-color")[0, 1] == HIDDEN_COLOR


def test_token_labels_are_kept_as_typed_and_unique() -> None:
    """Labels are data, shown as plain text by the browser (``ui.matrix_table``): exactly as
    typed, never Markdown-escaped, and told apart when repeated."""
    labels = ("**b**", "<img src=x onerror=alert(1)>", "[x](http://e.vil)", "**b**")
    view = MatrixView(
        values=np.eye(4),
        row_labels=labels,
        col_labels=labels,
        palette="default",
        row_title="*query*",
        value_name="$x$",
    )
    table = matrix_table(view, WORDS, "a description")
    expected = tuple(unique_labels(list(labels)))
    assert table.row_labels == expected and table.col_labels == expected
    assert len(set(table.row_labels)) == 4  # the two "**b**" stay two rows
    assert expected[:3] == labels[:3]
    # the corner: its two axis titles, each drawn as one block that keeps its words together
    # while the column is wide enough and wraps between words (never inside one) when not
    assert table.corner == f"*query*\u00a0↓\u00a0· {WORDS.column}\u00a0→"
    assert corner_parts(table.corner) == ("*query*\u00a0↓\u00a0·", f"{WORDS.column}\u00a0→")
    assert corner_parts("cached\u00a0token\u00a0↓\u00a0· 键\u00a0→") == (
        "cached token\u00a0↓\u00a0·",  # words may part; the arrow stays with its word
        "键\u00a0→",
    )
    assert table.to_data()["corner_parts"] == list(corner_parts(table.corner))
    assert texts(legend_table(view, WORDS))[0, 0] == "$x$"
    data = table.to_data()  # what the browser receives: the same texts, as JSON data
    assert data["rows"] == list(expected) and data["description"] == "a description"
    assert [cell["text"] for cell in data["cells"][0]] == texts(table)[0].tolist()


def test_use_table_bounds() -> None:
    assert (MAX_COLOURED_ROWS, MAX_COLOURED_COLUMNS) == (40, 12)
    assert use_table(1, 1) and use_table(6, 6) and use_table(40, 12)
    assert not use_table(41, 12) and not use_table(40, 13) and not use_table(6, 100)


def test_a_text_table_keeps_its_texts_and_highlights_one_row_readably() -> None:
    rows = [["0.1000", "masked"], ["−0.2000", "kept ×2"]]
    labels = ["1: **bold**", "2: <i>it</i>"]  # user text: kept exactly as typed
    table = text_table(rows, labels, ["score", "dropout"], corner="key", highlight=1)
    assert table.texts() == rows
    assert table.to_data()["rows"] == labels and table.corner == "key"
    assert [cell.background for cell in table.cells[0]] == ["", ""]  # the page's own colours
    assert {(cell.background, cell.colour) for cell in table.cells[1]} == {
        (HIGHLIGHT_COLOR, DARK_TEXT)
    }
    assert contrast(HIGHLIGHT_COLOR, DARK_TEXT) >= 4.5
    assert all(
        cell.background == "" for row in text_table(rows, labels, ["a", "b"]).cells for cell in row
    )


@subcases("name", sorted({n for p in PALETTES.values() for n in p.values()}))
def test_sampling_a_scale_gives_plotlys_colours_string_for_string(name: str) -> None:
    """The whole-matrix sampler equals ``plotly.colors.sample_colorscale`` at both ends, on the
    scale's own stops (where the interpolation switches segments) and at random points."""
    stops = [float(stop) for stop, _ in get_colorscale(name)]
    points = np.concatenate([[0.0, 1.0, 0.5], stops, np.random.default_rng(7).random(300)])
    assert scale_stops(name).sample(points) == sample_colorscale(name, points.tolist())
