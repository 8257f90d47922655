"""The notebook view (``viz.notebook``): a trace's ten steps as HTML that Jupyter shows.

The HTML is read back with the standard library's parser, as a browser would split it into
elements and text: what it shows must be the trace's numbers, in the registry's order, with
hidden and dropped cells marked as in the app, and a hostile token must stay text.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser

import numpy as np
import torch

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.steps import STEPS
from tests.isolated_script import REPO_ROOT
from viz.colors import DROPPED_COLOR, HIDDEN_COLOR
from viz.notebook import show_trace
from viz.vocabulary import format_number

HOSTILE = "<img src=x onerror=alert(1)>"
TOKENS = [HOSTILE, *BOOK_TOKENS[1:]]
ALLOWED_TAGS = {"div", "p", "b", "i", "section", "h4", "table", "thead", "tbody", "tr", "th", "td"}


@dataclass
class Cell:
    text: str = ""
    style: str = ""


@dataclass
class Section:
    name: str
    heading: str = ""
    tables: list[list[list[Cell]]] = field(default_factory=list)  # tables → rows → cells
    text: str = ""


class Reader(HTMLParser):
    """Splits the view's HTML into sections, tables, rows and cells (``th`` and ``td``)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.sections: list[Section] = []
        self.cell: Cell | None = None
        self.in_heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        attributes = dict(attrs)
        if tag == "section":
            self.sections.append(Section(attributes["data-step"] or ""))
        elif tag == "h4":
            self.in_heading = True
        elif tag == "table":
            self.sections[-1].tables.append([])
        elif tag == "tr":
            self.sections[-1].tables[-1].append([])
        elif tag in ("th", "td"):
            self.cell = Cell(style=attributes.get("style") or "")
            self.sections[-1].tables[-1][-1].append(self.cell)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td"):
            self.cell = None
        elif tag == "h4":
            self.in_heading = False

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.text += data
        elif self.in_heading:
            self.sections[-1].heading += data
        elif self.sections:
            self.sections[-1].text += data


def read(html_text: str) -> Reader:
    reader = Reader()
    reader.feed(html_text)
    reader.close()
    return reader


def section(reader: Reader, name: str) -> Section:
    return next(found for found in reader.sections if found.name == name)


def numbers(table: list[list[Cell]]) -> list[list[Cell]]:
    """The cells of a labelled table, without its header row and its label column."""
    return [row[1:] for row in table[1:]]


def test_ten_steps_in_the_registrys_order_with_title_and_formula(six_token_trace) -> None:
    reader = read(show_trace(six_token_trace, BOOK_TOKENS)._repr_html_())
    assert [found.name for found in reader.sections] == [step.name for step in STEPS]
    for number, (found, step) in enumerate(zip(reader.sections, STEPS, strict=True), start=1):
        assert found.heading == f"Step {number} · {step.title}"
        assert step.formula in found.text


def test_a_hostile_token_is_text_never_an_element(six_token_dropout_trace) -> None:
    html_text = show_trace(six_token_dropout_trace, TOKENS)._repr_html_()
    reader = read(html_text)
    assert reader.tags <= ALLOWED_TAGS  # no img, script or anything a token could have opened
    assert "<img" not in html_text and "&lt;img src=x onerror=alert(1)&gt;" in html_text
    weights = section(reader, "softmax").tables[0]
    assert weights[0][1].text == HOSTILE and weights[1][0].text == HOSTILE  # column and row label


def test_cells_are_the_traces_numbers_with_masked_and_dropped_cells_marked(
    six_token_dropout_trace,
) -> None:
    trace = six_token_dropout_trace
    reader = read(show_trace(trace, BOOK_TOKENS)._repr_html_())
    hidden = trace.mask.numpy()  # (6, 6) True above the diagonal
    masked = numbers(section(reader, "masked").tables[0])
    for i in range(6):
        for j in range(6):
            cell = masked[i][j]
            if hidden[i, j]:
                assert cell.text == "−∞" and f"background-color:{HIDDEN_COLOR}" in cell.style
            else:
                value = trace.masked_scores[0, i, j].item()
                assert cell.text == format_number(value, 4, minus="−")
    _before, _, keep, keep_legend, dropped, legend = section(reader, "dropout").tables
    assert [cell.text for cell in keep_legend[0]][1:] == [
        "✓: kept",
        "✗: dropped",
        "—: masked (a future token)",
    ]
    assert [cell.text for cell in legend[0]][-1] == "0: dropped"
    kept = trace.dropout_mask[0].bool().numpy()  # (6, 6)
    dropped_cells = numbers(dropped)
    marked = 0
    for i in range(6):
        for j in range(6):
            assert numbers(keep)[i][j].text == ("—" if hidden[i, j] else "✓" if kept[i, j] else "✗")
            if not kept[i, j] and not hidden[i, j]:
                assert dropped_cells[i][j].text == "0"
                assert f"background-color:{DROPPED_COLOR}" in dropped_cells[i][j].style
                marked += 1
    assert marked > 0  # p = 0.5 with seed 123 drops some visible weights
    context = [[cell.text for cell in row] for row in numbers(section(reader, "context").tables[0])]
    assert context == [
        [format_number(value, 4, minus="−") for value in row] for row in trace.context[0].tolist()
    ]


def test_the_book_numbers_without_dropout_and_the_note_in_place_of_dropout(
    six_token_trace,
) -> None:
    reader = read(show_trace(six_token_trace, BOOK_TOKENS)._repr_html_())
    context = [[cell.text for cell in row] for row in numbers(section(reader, "context").tables[0])]
    assert context[0] == ["−0.4519", "0.2216"] and context[5] == ["−0.5299", "−0.1081"]
    dropout = section(reader, "dropout")
    assert dropout.tables == [] and "Dropout does nothing here (p = 0)" in dropout.text


def test_one_head_of_a_multi_head_trace_and_its_table_csv() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=4, num_heads=2, qkv_bias=True))
    view = show_trace(trace, BOOK_TOKENS, head=1)
    assert view.summary.startswith("MultiHeadAttention, head 2 of 2")
    softmax = next(found for found in view.sections if found.name == "softmax")
    table = softmax.blocks[0].table
    rows = list(csv.reader(io.StringIO(table.csv)))
    assert rows[0][1:] == list(BOOK_TOKENS) and [row[0] for row in rows[1:]] == list(BOOK_TOKENS)
    values = torch.tensor([[float(cell) for cell in row[1:]] for row in rows[1:]])
    assert torch.equal(values.to(torch.float32), trace.attn_weights[0, 1])  # head 2, every bit
    weights = next(found for found in view.sections if found.name == "weights")
    assert [block.caption for block in weights.blocks] == [
        "W_query",
        "b_query",
        "W_key",
        "b_key",
        "W_value",
        "b_value",
    ]
    assert table._repr_html_().startswith("<table")  # a ColouredTable draws itself too


def test_a_long_sentence_shows_a_window_and_says_which() -> None:
    inputs = torch.rand(50, 3, generator=torch.Generator().manual_seed(0))  # (50, 3)
    view = show_trace(trace_attention(inputs, AttentionConfig()))
    scores = next(found for found in view.sections if found.name == "scores").blocks[0]
    assert scores.table.shape == (12, 12)
    assert scores.note == "rows 1–12 and columns 1–12 of 50 × 50"
    assert np.array(scores.table.texts()).shape == (12, 12)


def test_the_view_works_where_streamlit_cannot_be_imported() -> None:
    script = "\n".join(
        [
            "import sys",
            "sys.modules['streamlit'] = None  # any import of streamlit now fails",
            "from attention import trace_attention",
            "from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS",
            "from viz.notebook import show_trace",
            "print(len(show_trace(trace_attention(BOOK_EMBEDDINGS), BOOK_TOKENS)._repr_html_()))",
        ]
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert int(completed.stdout) > 10_000


def test_a_sliding_windows_mask_is_named_a_band_not_the_causal_mask() -> None:
    """With ``window=2`` the mask hides keys two or more tokens back as well: the section says
    so, and its figure tells the two kinds of hidden keys apart (viz.window)."""
    book = show_trace(trace_attention(BOOK_EMBEDDINGS, AttentionConfig()))
    banded = show_trace(trace_attention(BOOK_EMBEDDINGS, AttentionConfig(window=2)))
    book_mask, band = (next(s for s in v.sections if s.name == "mask") for v in (book, banded))
    assert book_mask.title == "The causal mask" and "1 where j > i" in book_mask.formula
    assert band.title == "The sliding-window mask (2 tokens)"
    assert band.formula == "mask: 1 where j > i (a future token) or j ≤ i − 2 (too far back)"
    assert "2 or more tokens back" in band.note
    assert "causal mask" not in banded._repr_html_()
