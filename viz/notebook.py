"""The app's step-by-step views in Jupyter: a trace's ten steps as HTML, without Streamlit.

In a notebook, ``show_trace(trace, tokens)`` draws what the app's first page draws: the ten steps
of :data:`attention.steps.STEPS` in order, each with its title, its formula and its matrices as
coloured tables of their numbers (the app's own :class:`~viz.table_heatmap.ColouredTable`, built
by the same :mod:`viz.steps` views): −∞ in grey where the causal mask hides a score, dropped
weights in pink and written 0, a legend row under each table::

    from attention import AttentionConfig, trace_attention
    from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
    from viz.notebook import show_trace

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    show_trace(trace, BOOK_TOKENS)          # the last expression of a cell: Jupyter draws it

Jupyter calls ``_repr_html_`` on the returned :class:`TraceView` (and on a ``ColouredTable``).
Every text that reaches the HTML — tokens, labels, titles — goes through :func:`html.escape`, so
a token such as ``<img src=x onerror=alert(1)>`` is shown as those characters; colours are the
builders' own (``#rrggbb``, ``rgb(…)``) and anything else is dropped. Pure functions: no
Streamlit, no browser; the tests read the HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from attention import AttentionTrace
from attention.head_trace import one_head
from attention.steps import STEPS, Step, step_number
from attention.validate import check_choice, check_instance, check_labels

from . import steps as views
from .colors import PALETTES
from .matrix import MatrixView, window
from .table_heatmap import (
    MAX_COLOURED_COLUMNS,
    ColouredTable,
    legend_table,
    matrix_table,
    use_table,
)
from .vocabulary import format_short
from .window import window_mask_view
from .words import FigureWords

__all__ = [
    "STEP_TABLES",
    "StepSection",
    "TableBlock",
    "TraceView",
    "show_trace",
    "table_html",
]

# A colour the table may set: what viz.table_heatmap writes, and nothing that could end a style.
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}|rgba?\([0-9., ]+\)|transparent|inherit")
_CELL_STYLE = "border:1px solid #c8c8c8;padding:2px 8px;white-space:nowrap"
_TABLE_STYLE = (
    "border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px;margin:2px 0 6px"
)


def _text(value: object) -> str:
    """Any text as HTML text: ``&``, ``<``, ``>`` and quotes escaped."""
    return html.escape(str(value), quote=True)


def _colour(value: str) -> str:
    return value if _COLOUR.fullmatch(value) else "inherit"


def table_html(table: ColouredTable) -> str:
    """``table`` as an HTML ``<table>`` with inline styles: labels, then each cell on its colour.

    The cells keep the table's colours, alignment and texts (−∞, the dropped 0, ✓/✗), so the
    notebook shows what the app's table component shows.
    """
    check_instance("table", table, ColouredTable, " (from viz.table_heatmap.matrix_table)")
    label = f' aria-label="{_text(table.description)}"' if table.description else ""
    parts = [f'<table style="{_TABLE_STYLE}"{label}>']
    if table.col_labels:
        corner = (
            f'<th scope="col" style="{_CELL_STYLE};font-weight:400">{_text(table.corner)}</th>'
            if table.row_labels
            else ""
        )
        heads = "".join(
            f'<th scope="col" style="{_CELL_STYLE};text-align:right">{_text(name)}</th>'
            for name in table.col_labels
        )
        parts.append(f"<thead><tr>{corner}{heads}</tr></thead>")
    parts.append("<tbody>")
    for i, row in enumerate(table.cells):
        cells = []
        if table.row_labels:
            cells.append(
                f'<th scope="row" style="{_CELL_STYLE};text-align:left">'
                f"{_text(table.row_labels[i])}</th>"
            )
        for cell in row:
            style = (
                f"{_CELL_STYLE};background-color:{_colour(cell.background)};"
                f"color:{_colour(cell.colour)};text-align:{_text(cell.align)}"
                + (";font-style:italic" if cell.italic else "")
            )
            cells.append(f'<td style="{style}">{_text(cell.text)}</td>')
        parts.append(f"<tr>{''.join(cells)}</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


@dataclass(frozen=True)
class TableBlock:
    """One matrix of a step: its caption (its name), its coloured table and its legend row.

    ``note``: which part of a matrix too large for a table is shown (empty when all of it is).
    """

    caption: str
    table: ColouredTable
    legend: ColouredTable | None = None
    note: str = ""

    def __repr__(self) -> str:
        return f"TableBlock({self.caption!r}, {self.table!r})"

    def _repr_html_(self) -> str:
        caption = f"<div><b>{_text(self.caption)}</b></div>" if self.caption else ""
        note = f"<div><i>{_text(self.note)}</i></div>" if self.note else ""
        legend = table_html(self.legend) if self.legend is not None else ""
        return f"<div>{caption}{table_html(self.table)}{legend}{note}</div>"


@dataclass(frozen=True)
class StepSection:
    """One step: its number and name in :data:`attention.steps.STEPS`, title, formula, matrices.

    ``note``: a sentence in place of matrices (dropout that does not act).
    """

    number: int
    name: str
    title: str
    formula: str
    blocks: tuple[TableBlock, ...]
    note: str = ""

    def __repr__(self) -> str:
        return f"StepSection({self.number}, {self.name!r}, {len(self.blocks)} tables)"

    def _repr_html_(self) -> str:
        blocks = "".join(
            f'<div style="display:inline-block;vertical-align:top;margin-right:24px">'
            f"{block._repr_html_()}</div>"
            for block in self.blocks
        )
        note = f"<p>{_text(self.note)}</p>" if self.note else ""
        return (
            f'<section data-step="{_text(self.name)}" style="margin-bottom:14px">'
            f'<h4 style="margin:10px 0 4px">Step {self.number} · {_text(self.title)}</h4>'
            f'<div style="font-family:monospace;margin-bottom:6px">{_text(self.formula)}</div>'
            f"{note}<div>{blocks}</div></section>"
        )


@dataclass(frozen=True)
class TraceView:
    """A trace's ten steps, ready to show: Jupyter draws it (``_repr_html_``).

    ``summary``: the settings of the traced layer in one line; ``sections``: the steps in the
    registry's order.
    """

    summary: str
    sections: tuple[StepSection, ...]

    def step(self, name: str) -> StepSection:
        """One step by its name in :data:`attention.steps.STEPS` (``"softmax"``): shown alone."""
        check_choice("name", name, [step.name for step in STEPS])
        return self.sections[step_number(name) - 1]

    def __repr__(self) -> str:
        return f"TraceView({self.summary!r}, {len(self.sections)} steps)"

    def _repr_html_(self) -> str:
        body = "".join(section._repr_html_() for section in self.sections)
        return f'<div class="attention-lab-trace"><p>{_text(self.summary)}</p>{body}</div>'


def _block(
    view: MatrixView, words: FigureWords, caption: str = "", description: str = ""
) -> TableBlock:
    """``view`` as a table and its legend; a window of its top-left corner when it is large."""
    rows, cols = view.shape
    note = ""
    if not use_table(rows, cols):
        view = window(view, 0, 0, MAX_COLOURED_COLUMNS).view
        shown_rows, shown_cols = view.shape
        note = f"rows 1–{shown_rows} and columns 1–{shown_cols} of {rows} × {cols}"
    name = caption or view.title or view.value_name
    text = description or f"{name}: a {rows} × {cols} table of numbers, coloured by value"
    legend = legend_table(view, words, f"colour scale of {name}")
    return TableBlock(caption, matrix_table(view, words, text), legend, note)


def _summary(trace: AttentionTrace, head: int) -> str:
    cfg = trace.config
    if cfg.num_heads == 1:
        layer = "CausalAttention"
    else:
        name = "MultiHeadAttention" if cfg.variant == "fused" else "MultiHeadAttentionWrapper"
        layer = f"{name}, head {head + 1} of {cfg.num_heads}"
    mode = "training mode" if cfg.training else "eval mode"
    return (
        f"{layer} · seed {cfg.seed} · dropout p = {format_short(cfg.dropout)} ({mode}) · "
        f"d_out = {cfg.d_out} · {trace.num_tokens} tokens, d_in = {trace.d_in}"
    )


@dataclass(frozen=True)
class _Drawn:
    """What every step's tables are drawn from: a one-head trace, its labels, words, palette."""

    trace: AttentionTrace
    tokens: list[str]
    words: FigureWords
    palette: str


Blocks = tuple[tuple[TableBlock, ...], str]  # a step's tables, and a sentence in their place


def _embeddings(d: _Drawn) -> Blocks:
    view = views.embeddings_view(d.trace, d.tokens, d.words, palette=d.palette)
    return (_block(view, d.words, "X"),), ""


def _weights(d: _Drawn) -> Blocks:
    found = []
    for weight, (bias, _) in views.WEIGHTS.items():
        found.append(
            _block(views.weight_view(d.trace, weight, d.words, palette=d.palette), d.words)
        )
        if getattr(d.trace, bias) is not None:
            view = views.bias_view(d.trace, bias, d.words, palette=d.palette)
            found.append(_block(view, d.words, bias))
    return tuple(found), ""


def _qkv(d: _Drawn) -> Blocks:
    return tuple(
        _block(views.projection_view(d.trace, name, d.tokens, d.words, palette=d.palette), d.words)
        for name in views.PROJECTIONS
    ), ""


def _scores(stage: str) -> Callable[[_Drawn], Blocks]:
    def draw(d: _Drawn) -> Blocks:
        view = views.scores_view(d.trace, stage, d.tokens, d.words, palette=d.palette)
        return (_block(view, d.words, stage),), ""

    return draw


def _mask(d: _Drawn) -> Blocks:
    k = d.trace.config.window
    if k is not None:  # a band: the future and the keys too far back are both hidden
        view = window_mask_view(d.trace, d.tokens, d.words, palette=d.palette)
        label = (
            f"mask: 1 = hidden (grey: a future token; coloured: {k} or more tokens back, "
            "outside the window), 0 = visible"
        )
        return (_block(view, d.words, label),), ""
    view = views.causal_mask_view(d.trace, d.tokens, d.words, palette=d.palette)
    return (_block(view, d.words, "mask: 1 = hidden (a future token), 0 = visible"),), ""


def _title_and_formula(step: Step, trace: AttentionTrace) -> tuple[str, str]:
    """The step's title and formula; a sliding window's mask is a band, not the causal mask."""
    k = trace.config.window
    if step.name != "mask" or k is None:
        return step.title, step.formula
    return (
        f"The sliding-window mask ({k} token{'s' if k != 1 else ''})",
        f"mask: 1 where j > i (a future token) or j ≤ i − {k} (too far back)",
    )


def _softmax(d: _Drawn) -> Blocks:
    view = views.weights_view(d.trace, d.tokens, d.words, palette=d.palette)
    return (_block(view, d.words, "attn_weights"),), ""


def _dropout(d: _Drawn) -> Blocks:
    trace = d.trace
    if trace.dropout_mask is None:
        reason = "p = 0" if trace.config.training else "eval mode"
        return (), (
            f"Dropout does nothing here ({reason}): dropped_weights = attn_weights, and every "
            "row still sums to 1. It acts only in training mode with p > 0."
        )
    keep = views.keep_mask_view(trace, d.tokens, d.words, palette=d.palette)
    dropped = views.dropped_weights_view(trace, d.tokens, d.words, palette=d.palette)
    scale = format_short(trace.dropout_scale)
    return (
        _block(
            keep, d.words, "keep-mask m: ✓ kept, ✗ dropped, — masked (a future token: 0 either way)"
        ),
        _block(dropped, d.words, f"dropped_weights: kept ones × {scale}, dropped ones 0"),
    ), ""


def _context(d: _Drawn) -> Blocks:
    view = views.context_view(d.trace, d.tokens, d.words, palette=d.palette)
    return (_block(view, d.words, "context_vec"),), ""


STEP_TABLES: dict[str, Callable[[_Drawn], Blocks]] = {
    "embeddings": _embeddings,
    "weights": _weights,
    "qkv": _qkv,
    "scores": _scores("attn_scores"),
    "mask": _mask,
    "masked": _scores("masked_scores"),
    "scaled": _scores("scaled_scores"),
    "softmax": _softmax,
    "dropout": _dropout,
    "context": _context,
}
"""Which tables each step of :data:`attention.steps.STEPS` shows, by the step's name."""


def show_trace(
    trace: AttentionTrace,
    tokens: Sequence[str] | None = None,
    *,
    head: int = 0,
    palette: str = "default",
    words: FigureWords | None = None,
) -> TraceView:
    """The ten steps of ``trace`` as a :class:`TraceView`, which Jupyter draws as HTML.

    ``tokens``: one label per token (default ``1 … T``). ``head``: which head of a multi-head
    trace to follow, counted from 0 (:func:`attention.head_trace.one_head`). ``palette``:
    ``"default"`` or ``"colorblind"``. Row 0 of the batch is drawn; every number is the trace's.
    A wrong value (no trace, a label too many, a misspelt palette) raises ``AttentionInputError``
    naming it; a palette is never replaced silently.
    """
    check_instance("trace", trace, AttentionTrace, " (from attention.trace_attention)")
    palette = check_choice("palette", palette, tuple(PALETTES))
    if words is not None:
        check_instance("words", words, FigureWords, " (viz.words.FigureWords)")
    one = one_head(trace, head)
    labels = (
        check_labels(tokens, one.num_tokens)
        if tokens is not None
        else [str(i + 1) for i in range(one.num_tokens)]
    )
    drawn = _Drawn(one, labels, words or FigureWords(), palette)
    sections = []
    for number, step in enumerate(STEPS, start=1):
        blocks, note = STEP_TABLES[step.name](drawn)
        title, formula = _title_and_formula(step, one)
        sections.append(StepSection(number, step.name, title, formula, blocks, note))
    return TraceView(_summary(trace, head), tuple(sections))
