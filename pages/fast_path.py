"""The fast path: PyTorch's SDPA and ``nn.MultiheadAttention`` against the book's class.

Everything is computed by :mod:`attention.fast_path` (every path with the book's weights); the
page shows the largest differences, the slip's output, one boolean mask as each path reads it,
each path's code, and on demand (a bounded job) time and memory against the number of tokens:
five entries of one walk (:mod:`ui.walk`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from textwrap import dedent

import numpy as np
import streamlit as st
import torch

from attention import AttentionInputError
from attention.book_outputs import PRINT_TOLERANCE, book_run_comparison
from attention.environment import environment_info
from attention.fast_path import (
    BOOK_TIMINGS_MS,
    BOOK_TIMINGS_SOURCE,
    FLOAT_ERROR,
    MEASURE_TOKENS,
    PATHS,
    SLIP,
    FastPathOutputs,
    FastPathTimings,
    book_source,
    fast_path_outputs,
    measure_fast_paths,
    path_source,
)
from ui.book_examples import BOOK_EXAMPLES, show_book_example
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.matrix_table import draw_table
from ui.run_slots import step_aside
from ui.show import figure_words, show_matrix
from ui.table import MAX_TOKENS
from ui.view import View
from ui.walk import Entry, Parts, Walk, begin, part, present, show_walk
from viz.fast_path import convention_view, per_size_chart
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView
from viz.table_heatmap import text_table
from viz.vocabulary import format_difference, format_number

MEASURE_BUDGET_S = 60.0  # the page's measurement starts no new size after this
# the sizes measured: the core's, up to the operator's token limit (ui.table.MAX_TOKENS)
MEASURED_SIZES = tuple(n for n in MEASURE_TOKENS if n <= MAX_TOKENS)
MEASURED_KEY = "fast_path_measured"  # session: this visitor asked for the measurement


@st.cache_data(max_entries=16, ttl=1800, show_spinner=False)
def _outputs(
    values: bytes, shape: tuple[int, int], d_out: int, heads: int, seed: int
) -> FastPathOutputs:
    array = np.frombuffer(values, dtype=np.float64).reshape(shape)  # (T, d_in)
    return fast_path_outputs(array, d_out=d_out, num_heads=heads, seed=seed)


@st.cache_data(max_entries=1, ttl=1800, show_spinner=False)
def _measurement() -> FastPathTimings:
    """One bounded measurement per server, shared by every visitor (computed once at a time)."""
    return measure_fast_paths(MEASURED_SIZES, budget_s=MEASURE_BUDGET_S)


def _name(path: str) -> str:
    return t(f"fast_path.path.{path}")


def show_differences(outputs: FastPathOutputs) -> None:
    """A metric per path: its largest absolute difference from the book's output."""
    st.subheader(t("fast_path.differences.header"))
    differences = outputs.differences()
    columns = [column for _ in range(len(PATHS) // 2) for column in st.columns(2)]  # 2 × 2
    for column, path in zip(columns, PATHS, strict=True):
        same = differences[path] <= FLOAT_ERROR
        column.metric(
            _name(path),
            format_difference(differences[path]),
            help=t("fast_path.same" if same else "fast_path.differs"),
        )
        column.caption(
            ("✓ " if same else "✗ ") + t("fast_path.same" if same else "fast_path.differs")
        )
    st.markdown(t("fast_path.differences.text", limit=f"{FLOAT_ERROR:.0e}"))


def _output_view(values: torch.Tensor, view: View, title: str) -> MatrixView:
    columns = tuple(f"z{j + 1}" for j in range(values.shape[1]))
    return MatrixView(
        values=values.numpy(),
        row_labels=tuple(view.tokens),
        col_labels=columns,
        palette=view.palette,
        title=title,
        row_title=t("step.axis.token"),
        col_title=t("step.axis.feature"),
        value_name=t("fast_path.value.context"),
    )


def book_difference(outputs: FastPathOutputs, view: View) -> float | None:
    """The book's class's output against the book's printout, compared now; None unless this
    run is one the book printed (its embeddings, seed 123, two heads, d_out 2)."""
    cfg = outputs.config
    inputs = torch.tensor(view.table.values, dtype=torch.float32)  # (T, d_in)
    check = book_run_comparison(
        inputs,
        outputs.book,
        seed=cfg.seed,
        d_out=cfg.d_out,
        num_heads=cfg.num_heads,
        class_name="MultiHeadAttention",
    )
    return None if check is None else check.max_abs_difference


def output_title(outputs: FastPathOutputs, view: View) -> str:
    """ "The book's printed output" only when the comparison holds; else what this run is."""
    difference = book_difference(outputs, view)
    if difference is not None and difference <= PRINT_TOLERANCE:
        return t("fast_path.outputs.book")
    cfg = outputs.config
    return t("fast_path.outputs.run", seed=cfg.seed, heads=cfg.num_heads, d_out=cfg.d_out)


def show_blind_rows(outputs: FastPathOutputs, view: View) -> None:
    """The slip's queries that see no key, and what their rows are (computed, then said)."""
    for row in outputs.slip_blind_rows():
        words = {"token": escape_markdown(view.tokens[row]), "number": row + 1}
        if outputs.slip_row_is_bias(row):
            bias = ", ".join(format_number(float(v)) for v in outputs.out_proj_bias)
            st.markdown(t("fast_path.outputs.blind", bias=bias, **words))
        else:
            values = ", ".join(format_number(float(v)) for v in outputs.outputs[SLIP][0, row])
            st.markdown(t("fast_path.outputs.blind_other", row=values, **words))


def _slip_matrix(outputs: FastPathOutputs, view: View) -> None:
    slip = _output_view(outputs.outputs[SLIP][0], view, t("fast_path.outputs.slip"))
    show_matrix(slip, figure_words(), key="fast_path_slip_output")


def show_outputs(outputs: FastPathOutputs, view: View) -> None:
    """The book's class's output beside the slip's (the first sequence)."""
    st.subheader(t("fast_path.outputs.header"))
    left, right = st.columns(2, gap="large")
    with left:
        book = _output_view(outputs.book[0], view, output_title(outputs, view))
        show_matrix(book, figure_words(), key="fast_path_book_output")
    with right:
        _slip_matrix(outputs, view)


MASK_PANELS = ("book", "nn", "sdpa")  # the same mask_bool: as the book reads it, as each path does


def show_masks(view: View, panels: tuple[str, ...] = MASK_PANELS) -> None:
    """The same ``mask_bool`` as each of ``panels`` reads it: the book, ``nn.MultiheadAttention``,
    SDPA (given ``~mask_bool``). Presenter mode shows two at a time (the book beside one path)."""
    st.subheader(t("fast_path.masks.header"))
    texts = [t("fast_path.masks.hide")] if "nn" in panels else []
    texts += [t("fast_path.masks.attend")] if "sdpa" in panels else []
    st.markdown(" ".join(texts))
    count = min(len(view.tokens), 12)  # a readable corner of a long mask
    hide = np.triu(np.ones((count, count), dtype=bool), k=1)  # the book's mask_bool
    masks = {"book": (hide, True), "sdpa": (~hide, False), "nn": (hide, True)}
    for column, name in zip(st.columns(len(panels), gap="medium"), panels, strict=True):
        mask, true_hides = masks[name]
        with column:
            st.markdown(t(f"fast_path.masks.{name}"))
            matrix = convention_view(
                mask,
                view.tokens[:count],
                true_hides=true_hides,
                hidden_name=t("fast_path.masks.hidden"),
                attended_name=t("fast_path.masks.attended"),
                row_title=t("step.axis.query"),
                col_title=t("step.axis.key"),
                palette=view.palette,
            )
            show_matrix(matrix, figure_words(), key=f"fast_path_mask_{name}")


def show_code() -> None:
    """Each path's source (a tab each) beside the book's ``forward``."""
    st.subheader(t("fast_path.code.header"))
    tabs = st.tabs([_name(path) for path in PATHS], key="fast_path_code", on_change="rerun")
    for path, tab in zip(PATHS, tabs, strict=True):
        if not tab.open:
            continue
        with tab:
            book_column, path_column = st.columns(2, gap="medium")
            with book_column:
                st.markdown(t("fast_path.code.book"))
                st.code(book_source(), language="python", wrap_lines=True)
            with path_column:
                st.markdown(t("fast_path.code.path"))
                st.code(path_source(path), language="python", wrap_lines=True)
                if path == "nn_multihead_attention":
                    st.caption(t("fast_path.code.nn_note"))


CODE_SCREEN_LINES = 12  # the book's forward in parts this long: one fits a projector at 853×480


def book_parts(source: str, most: int = CODE_SCREEN_LINES) -> list[tuple[int, int]]:
    """The source's lines cut at blank lines into parts of at most ``most`` lines (1-based
    ``(first, last)``), each a presenter screen; a block longer than ``most`` stays whole."""
    lines = source.rstrip().splitlines()
    parts: list[tuple[int, int]] = []
    first = 0
    cut = None  # the last blank line of the part being filled
    for index, line in enumerate(lines):
        if not line.strip():
            cut = index
        if index - first + 1 > most and cut is not None and cut > first:
            parts.append((first + 1, cut))
            first, cut = cut + 1, None
    parts.append((first + 1, len(lines)))
    return parts


def _book_lines(first: int, last: int, fast: FastPath) -> None:
    lines = book_source().rstrip().splitlines()
    st.markdown(t("fast_path.code.book_part", first=first, last=last, total=len(lines)))
    st.code(dedent("\n".join(lines[first - 1 : last])), language="python", wrap_lines=True)


def _path_code(path: str, fast: FastPath) -> None:
    nn_layer = path == "nn_multihead_attention"
    label = "fast_path.code.nn_named" if nn_layer else "fast_path.code.path_named"
    st.markdown(t(label, name=f"**{escape_markdown(_name(path))}**"))
    st.code(path_source(path), language="python", wrap_lines=True)
    if nn_layer:
        st.caption(t("fast_path.code.nn_note"))


def code_screens(fast: FastPath) -> Parts[FastPath]:
    """Presenter mode: the book's ``forward`` in parts, then each path's code, a screen each."""
    book = [partial(_book_lines, first, last) for first, last in book_parts(book_source())]
    pieces = [*book, *(partial(_path_code, path) for path in PATHS)]
    return tuple(part("fast_path.code.header_walk", piece) for piece in pieces)


def show_book_table() -> None:
    """The book's recorded forward-pass timings, with their source."""
    st.subheader(t("fast_path.book_table.header"))
    st.markdown(t("fast_path.book_table.text", url=BOOK_TIMINGS_SOURCE))
    rows = [[f"{cpu:g}", f"{gpu:g}"] for _, cpu, gpu in BOOK_TIMINGS_MS]
    labels = [_name(path) for path, _, _ in BOOK_TIMINGS_MS]
    columns = [t("fast_path.book_table.cpu"), t("fast_path.book_table.gpu")]
    draw_table(text_table(rows, labels, columns), key="fast_path_book_timings")


def show_measurement(view: View) -> None:
    """The bounded measurement: on demand, cached for the server; a chart each, then the table."""
    st.subheader(t("fast_path.measure.header"))
    sizes = ", ".join(f"{n:,}" for n in MEASURED_SIZES)
    st.markdown(t("fast_path.measure.text", sizes=sizes, budget=f"{MEASURE_BUDGET_S:g}"))
    if st.button(t("fast_path.measure.button"), key="fast_path_measure"):
        st.session_state[MEASURED_KEY] = True
    if not st.session_state.get(MEASURED_KEY):
        return
    step_aside()  # a long measurement (or a wait for another visitor's): others go first
    with st.spinner(t("fast_path.measure.running", budget=f"{MEASURE_BUDGET_S:g}")):
        timings = _measurement()
    names = {path: _name(path) for path in timings.seconds}
    milliseconds = {path: [s * 1000 for s in values] for path, values in timings.seconds.items()}
    mebibytes = {path: [b / 2**20 for b in values] for path, values in timings.peak_bytes.items()}
    x_title = t("fast_path.measure.tokens")
    for key, series, title, unit in (
        ("fast_path_time", milliseconds, t("fast_path.measure.time"), "ms"),
        ("fast_path_memory", mebibytes, t("fast_path.measure.memory"), "MiB"),
    ):
        chart = per_size_chart(
            timings.token_counts,
            series,
            names,
            x_title=x_title,
            y_title=title,
            unit=unit,
            palette=view.palette,
        )
        draw_chart(chart, key=key)
    rows = [
        [
            f"{ms:.3g} ms · {mib:.3g} MiB"
            for ms, mib in zip(milliseconds[p], mebibytes[p], strict=True)
        ]
        for p in timings.seconds
    ]
    columns = [f"{n:,}" for n in timings.token_counts]
    table = text_table(
        rows, list(names.values()), columns, corner=t("fast_path.measure.table_corner")
    )
    draw_table(table, key="fast_path_measured_table")
    if timings.skipped:
        st.caption(
            t("fast_path.measure.skipped", sizes=", ".join(f"{n:,}" for n in timings.skipped))
        )
    info = environment_info()
    machine = f"{info['os']} {info['machine']}, {info['cpu_count']} CPU"
    st.caption(
        t(
            "fast_path.measure.machine",
            machine=machine,
            torch=info["torch_version"],
            threads=timings.threads,
        )
    )


@dataclass(frozen=True)
class FastPath:
    """What every entry reads: the paths' outputs on the sidebar's tokens, and the view."""

    outputs: FastPathOutputs
    view: View


def show_dropout() -> None:
    """Why the paths' dropout masks differ (no faked equality)."""
    st.subheader(t("fast_path.dropout.header"))
    st.info(t("fast_path.dropout.text"))


def show_timings(view: View) -> None:
    show_measurement(view)
    show_book_table()


def _show_differences(fast: FastPath) -> None:
    show_differences(fast.outputs)


def _show_outputs(fast: FastPath) -> None:
    show_outputs(fast.outputs, fast.view)


def _show_blind_rows(fast: FastPath) -> None:
    show_blind_rows(fast.outputs, fast.view)


# presenter mode: the book's mask, then each path's reading of it, a screen each (two 6 × 6
# tables do not fit side by side on a projector)
MASK_SCREENS = tuple(
    (lambda f, panel=panel: show_masks(f.view, panel)) for panel in (("book",), ("nn",), ("sdpa",))
)
WALK: Walk[FastPath] = Walk(
    page="fast_path",
    entries=(
        Entry(
            "paths",
            lambda: t("fast_path.tab.paths"),
            parts=(  # the three paths and the slip, the slip's rows that see no key
                _show_differences,
                _show_outputs,
                part("fast_path.outputs.header", _show_blind_rows),
            ),
        ),
        Entry(
            "masks",
            lambda: t("fast_path.tab.masks"),
            lambda f: show_masks(f.view),
            parts=lambda f: MASK_SCREENS,
        ),
        Entry("code", lambda: t("fast_path.tab.code"), lambda f: show_code(), parts=code_screens),
        Entry("dropout", lambda: t("fast_path.tab.dropout"), lambda f: show_dropout()),
        Entry("timings", lambda: t("fast_path.tab.timings"), lambda f: show_timings(f.view)),
    ),
    tabs_key="fast_path_tabs",
    all_key="fast_path_all",
    all_default=True,  # the page reads top to bottom; a link to a part opens its tab
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    cfg = view.config
    if not presenting:
        st.title(t("page.fast_path.title"))
        st.markdown(
            t(
                "fast_path.intro",
                seed=cfg.seed,
                d_out=cfg.d_out,
                heads=view.heads,
                tokens=len(view.tokens),
            )
        )
    array = np.asarray(view.table.values, dtype=np.float64)  # (T, d_in)
    try:
        outputs = _outputs(array.tobytes(), array.shape, cfg.d_out, view.heads, cfg.seed)
    except AttentionInputError as error:
        show_input_error(error)
        st.stop()
    if presenting:
        present(WALK, FastPath(outputs, view))
        return
    show_book_example(BOOK_EXAMPLES["fast_path"], view, book_difference(outputs, view))
    show_walk(WALK, FastPath(outputs, view))
