"""The app's step-by-step views in Jupyter: a trace's ten steps as HTML, without Streamlit.

``show_trace(trace, tokens)`` draws what the app's first page draws: each step of
:data:`attention.steps.STEPS` with its title, formula and matrices as the app's own coloured
tables (the same :mod:`viz.screens` figures)::

    from attention import AttentionConfig, trace_attention
    from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
    from viz.notebook import show_trace

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    show_trace(trace, BOOK_TOKENS)          # the last expression of a cell: Jupyter draws it

Every text that reaches the HTML goes through :func:`html.escape`, so a token such as
``<img src=x onerror=alert(1)>`` is shown as typed; colours other than the builders' own
(``#rrggbb``, ``rgb(…)``) are dropped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from attention import AttentionTrace
from attention.head_trace import one_head
from attention.steps import STEPS, step_number
from attention.validate import check_choice, check_instance, check_labels

from .colors import PALETTES
from .matrix import MatrixView, window
from .screens import SCREENS, Shown, StepScreen, figure_view
from .table_heatmap import (
    MAX_COLOURED_COLUMNS,
    ColouredTable,
    legend_table,
    matrix_table,
    use_table,
)
from .vocabulary import format_short
from .words import FigureWords

__all__ = ["StepSection", "TableBlock", "TraceView", "show_trace", "table_html"]

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


# The notebook's words for a step with no matrices, and for the window's band (English only:
# the notebook has no language setting).
_DROPOUT_OFF = (
    "Dropout does nothing here ({reason}): dropped_weights = attn_weights, and every row still "
    "sums to 1. It acts only in training mode with p > 0."
)


def _section(screen: StepScreen, shown: Shown, words: FigureWords, palette: str) -> StepSection:
    """One step of the registry as tables: the figures it shows, named as the book names them."""
    step, trace = STEPS[step_number(screen.name) - 1], shown.trace
    blocks = tuple(
        _block(figure_view(figure, trace, shown.tokens, words, palette=palette), words, figure.name)
        for figure in screen.shown_figures(shown)
    )
    title, formula, note = step.title, step.formula, ""
    k = trace.config.window
    if screen.name == "mask" and k is not None:  # a band: the future and the keys too far back
        title = f"The sliding-window mask ({k} token{'s' if k != 1 else ''})"
        formula = f"mask: 1 where j > i (a future token) or j ≤ i − {k} (too far back)"
        note = f"Grey: a future token; coloured: {k} or more tokens back, outside the window."
    if not blocks and screen.name == "dropout":
        note = _DROPOUT_OFF.format(reason="p = 0" if trace.config.training else "eval mode")
    return StepSection(step_number(screen.name), screen.name, title, formula, blocks, note)


def show_trace(
    trace: AttentionTrace,
    tokens: Sequence[str] | None = None,
    *,
    head: int = 0,
    palette: str = "default",
    words: FigureWords | None = None,
) -> TraceView:
    """The ten steps of ``trace`` as a :class:`TraceView`, which Jupyter draws as HTML.

    ``tokens``: one label per token (default ``1 … T``); ``head``: which head of a multi-head trace,
    from 0; ``palette``: ``"default"`` or ``"colorblind"``. Row 0 of the batch is drawn. A wrong
    value raises ``AttentionInputError`` naming it; a palette is never replaced silently.
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
    shown = Shown(one, labels)
    sections = tuple(_section(screen, shown, words or FigureWords(), palette) for screen in SCREENS)
    return TraceView(_summary(trace, head), sections)
