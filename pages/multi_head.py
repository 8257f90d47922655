"""Multi-head: the book's two multi-head classes (section 3.6) on the current tokens and settings.

(a) ``MultiHeadAttentionWrapper``: ``num_heads`` ``CausalAttention`` heads concatenated (width
``num_heads · d_out``); (b) ``MultiHeadAttention``: one projection of width ``d_out`` split into
heads by ``view``/``transpose``, then ``out_proj``. Both traces come from
:meth:`ui.view.View.trace`; the page shows each head's weights, the shapes step by step, the
outputs and the parameter counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd
import streamlit as st
import torch

from attention import AttentionTrace
from attention.book_outputs import book_comparison
from attention.head_split import splits_evenly, valid_head_counts, valid_widths
from attention.parameter_counts import ParameterCount, parameter_count
from ui.book_code import show_multi_head_code
from ui.book_examples import BOOK_EXAMPLES, show_book_example
from ui.deck import offer_fixes, setting_input
from ui.frame import page
from ui.i18n import t
from ui.settings import SETTINGS
from ui.show import figure_words, numbers_frame, show_matrix
from ui.view import View
from ui.walk import Entry, Parts, Walk, begin, part, present
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView, use_table
from viz.multi_head import (
    ShapeStep,
    format_shape,
    fused_shape_steps,
    output_frame,
    wrapper_shape_steps,
)

MAX_SIDEBAR_HEADS = int(SETTINGS["heads"].high)  # the sidebar's ranges, for the suggestions
MAX_SIDEBAR_D_OUT = int(SETTINGS["d_out"].high)
NO_BREAK = "\u00a0"  # keeps a shape such as (1, 2, 6, 6) on one line
MAX_TABLE_TOKENS = 40  # above this, numbers go to a scrollable grid or a figure's zoom window


def book_difference(*traces: AttentionTrace | None) -> float | None:
    """The largest difference of ``traces`` from the book's printouts, compared now; None
    unless every trace shown is one of the book's printed runs (seed 123, two heads, …)."""
    checks = [book_comparison(trace) for trace in traces if trace is not None]
    if not checks or any(check is None for check in checks):
        return None
    return max(check.max_abs_difference for check in checks if check is not None)


def heads_first(tensor: torch.Tensor, num_heads: int) -> torch.Tensor:
    """The first batch row with a head axis: ``(h, T, T)`` (one head: ``(T, T)`` → ``(1, T, T)``)."""
    row = tensor[0]
    return row if num_heads > 1 else row.unsqueeze(0)


def show_weights(
    trace: AttentionTrace, variant: str, tokens: list[str], palette: str, only: int | None = None
) -> None:
    """Each head's weights: one matrix per head, two heads a row.

    ``only``: one head's (presenter mode: one head a screen, its table as large as the prose).
    """
    num_heads = trace.config.num_heads
    weights = heads_first(trace.dropped_weights, num_heads).numpy()  # (h, T, T): what context uses
    titles = [t("multi_head.head_title", index=k + 1) for k in range(num_heads)]
    st.markdown(f"**{t('multi_head.weights.label')}**")
    st.caption(t("multi_head.weights.caption"))
    if trace.dropout_active:
        st.caption(t("multi_head.weights.dropped"))
    top = max(1.0, float(weights.max()))  # one colour range for every head
    heads = [
        MatrixView(
            values=weights[head],
            row_labels=tuple(tokens),
            col_labels=tuple(tokens),
            palette=palette,
            kind="sequential",
            zrange=(0.0, top),
            title=title,
            row_title=t("step.axis.query"),
            col_title=t("step.axis.key"),
            value_name=t("step.value.weight"),
        )
        for head, title in enumerate(titles)
    ]
    words = figure_words()
    if only is not None:
        show_matrix(heads[only], words, key=f"multi_head_{variant}_weights_{only}")
        return
    as_tables = use_table(len(tokens), len(tokens))
    for head, matrix in enumerate(heads):  # a row per two heads: 1 2 / 3 4, also stacked
        if head % 2 == 0:
            columns = st.columns(2)
        with columns[head % 2]:
            show_matrix(matrix, words, key=f"multi_head_{variant}_weights_{head}")
    if len(tokens) <= MAX_TABLE_TOKENS and not as_tables:  # tables are their own numbers
        with st.expander(t("multi_head.numbers")):
            for title, head_weights in zip(titles, weights, strict=True):
                st.caption(title)
                st.table(numbers_frame(head_weights, tokens, tokens))  # escapes the labels


def show_shapes(steps: list[ShapeStep], variant: str, trace: AttentionTrace) -> None:
    """The shape table: the line of code, the shape it produces, what it does."""
    st.markdown(f"**{t('multi_head.shapes.label')}**")
    rows = []
    for step in steps:
        meaning_key = (
            f"multi_head.step.{variant}.queries"
            if step.key == "queries"
            else f"multi_head.step.{step.key}"
        )
        rows.append(
            {
                t("multi_head.shapes.step"): f"`{step.code}`",
                t("multi_head.shapes.shape"): format_shape(step.shape).replace(" ", NO_BREAK),
                t("multi_head.shapes.meaning"): t(meaning_key),
            }
        )
    st.table(pd.DataFrame(rows), hide_index=True)
    st.caption(
        t(
            "multi_head.shapes.caption",
            tokens=trace.num_tokens,
            d_in=trace.d_in,
            heads=trace.config.num_heads,
            batch=int(trace.inputs.shape[0]),
        )
    )


def show_outputs(trace: AttentionTrace, columns: list[str], tokens: list[str]) -> None:
    """The output rows with 4 decimals and an ASCII minus, as PyTorch prints them."""
    safe_tokens = [escape_markdown(label) for label in unique_labels(tokens)]  # for st.table
    st.markdown(f"**{t('multi_head.outputs.label')}**")
    values = trace.output[0].numpy()  # (T, width)
    if len(tokens) <= MAX_TABLE_TOKENS:
        st.table(output_frame(values, safe_tokens, columns))
    else:  # a virtualized grid: no Markdown there, and thousands of rows stay fast
        st.dataframe(output_frame(values, unique_labels(tokens), columns))


def shapes_and_outputs(
    trace: AttentionTrace,
    steps: list[ShapeStep],
    variant: str,
    columns: list[str],
    tokens: list[str],
    shapes: bool = True,
) -> None:
    """Shapes and outputs side by side when the output is narrow, one above the other if wide
    (``shapes=False``: the outputs alone, presenter mode's second screen)."""
    if not shapes:
        show_outputs(trace, columns, tokens)
        return
    if len(columns) <= 6:
        shapes_column, outputs_column = st.columns([3, 2], gap="large")
    else:
        shapes_column, outputs_column = st.container(), st.container()
    with shapes_column:
        show_shapes(steps, variant, trace)
    with outputs_column:
        show_outputs(trace, columns, tokens)


def valid_values(d_out: int, num_heads: int) -> tuple[str, str]:
    """Head counts that divide ``d_out``, and ``d_out`` values divisible by ``num_heads``."""
    heads = valid_head_counts(d_out, MAX_SIDEBAR_HEADS)
    widths = valid_widths(num_heads, MAX_SIDEBAR_D_OUT)
    return ", ".join(map(str, heads)), ", ".join(map(str, widths))


def show_parameter_counts(d_in: int, d_out: int, num_heads: int, qkv_bias: bool) -> None:
    """Both classes' trainable parameters, summed from the modules, and what makes them differ."""
    st.subheader(t("multi_head.parameters.header"))
    sizes = {"d_in": d_in, "d_out": d_out, "num_heads": num_heads, "qkv_bias": qkv_bias}
    counts = [parameter_count("wrapper", **sizes)]
    if splits_evenly(d_out, num_heads):
        counts.append(parameter_count("fused", **sizes))
    st.table(parameter_frame(counts))
    bias = t("multi_head.parameters.bias") if qkv_bias else ""
    if len(counts) == 1:
        st.markdown(
            t(
                "multi_head.parameters.no_fused",
                d_out=d_out,
                heads=num_heads,
                wrapper=counts[0].total,
            )
        )
        return
    st.markdown(
        t(
            "multi_head.parameters.text",
            d_in=d_in,
            d_out=d_out,
            heads=num_heads,
            wrapper=counts[0].total,
            fused=counts[1].total,
            out_proj=counts[1].parts["out_proj"],
            wrapper_bias=bias,
            fused_bias=bias,
        )
    )


def parameter_frame(counts: list[ParameterCount]) -> pd.DataFrame:
    """One row per class: its parameters per layer (heads summed) and the total."""
    layers = list(dict.fromkeys(layer for count in counts for layer in count.parts))
    rows = {
        count.class_name: [str(count.parts.get(layer, "–")) for layer in layers]
        + [str(count.total)]
        for count in counts
    }
    frame = pd.DataFrame.from_dict(
        rows, orient="index", columns=[*layers, t("multi_head.parameters.total")]
    )
    frame.index.name = t("multi_head.parameters.class")
    return frame


# --- the page -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heads:
    """What the page's screens read: the wrapper's trace and the fused class's (if it splits)."""

    view: View
    wrapper: AttentionTrace | None
    fused: AttentionTrace | None

    @property
    def num_heads(self) -> int:
        return self.view.heads

    @property
    def d_out(self) -> int:
        return self.view.config.d_out

    def trace_of(self, variant: str) -> AttentionTrace | None:
        return self.wrapper if variant == "wrapper" else self.fused


def heads_of(view: View) -> Heads:
    wrapper = view.trace(num_heads=view.heads, variant="wrapper")  # always possible
    fused_fits = view.heads > 1 and splits_evenly(view.config.d_out, view.heads)
    fused = view.trace(num_heads=view.heads, variant="fused") if fused_fits else None
    return Heads(view, wrapper, fused)


def wrapper_text(heads: Heads) -> None:
    st.subheader(t("multi_head.wrapper.header"))
    st.markdown(
        t(
            "multi_head.wrapper.text",
            heads=heads.num_heads,
            d_out=heads.d_out,
            width=heads.num_heads * heads.d_out,
        )
    )


def _shape_steps(variant: str, trace: AttentionTrace) -> list[ShapeStep]:
    return wrapper_shape_steps(trace) if variant == "wrapper" else fused_shape_steps(trace)


def class_shapes(variant: str, heads: Heads, *, shapes: bool = True) -> None:
    """The class's shape table and output rows (``shapes=False``: the outputs alone)."""
    trace = heads.trace_of(variant)
    if trace is None:
        return
    if variant == "wrapper":
        columns = [
            t("multi_head.outputs.wrapper_column", head=head + 1, index=index + 1)
            for head in range(heads.num_heads)
            for index in range(heads.d_out)
        ]
    else:
        columns = [
            t("multi_head.outputs.fused_column", index=index + 1) for index in range(heads.d_out)
        ]
    steps = _shape_steps(variant, trace)
    shapes_and_outputs(trace, steps, variant, columns, heads.view.tokens, shapes)


def fused_text(heads: Heads, *, code: bool = True) -> bool:
    """The fused class's header and sentence, or why it cannot run; True when it ran."""
    st.subheader(t("multi_head.fused.header"))
    num_heads, d_out = heads.num_heads, heads.d_out
    if num_heads == 1:
        st.info(t("multi_head.one_head"))
        return False
    if not splits_evenly(d_out, num_heads):
        valid_heads, valid_d_out = valid_values(d_out, num_heads)
        st.warning(
            t(
                "multi_head.fused.not_divisible",
                d_out=d_out,
                heads=num_heads,
                valid_heads=valid_heads,
                valid_d_out=valid_d_out,
            )
        )
        offer_fixes("d_out_heads_split", {"d_out": d_out, "heads": num_heads})
        return False
    if heads.fused is None:
        return False
    st.markdown(t("multi_head.fused.text", heads=num_heads, d_out=d_out, head_dim=heads.fused.d_k))
    if code:
        show_multi_head_code()  # the lines of MultiHeadAttention, stage by stage
    return True


def difference(heads: Heads) -> None:
    st.subheader(t("multi_head.difference.header"))
    st.markdown(
        t(
            "multi_head.difference.text",
            wrapper_width=heads.num_heads * heads.d_out,
            d_out=heads.d_out,
        )
    )
    if heads.wrapper is not None:
        d_in = int(heads.wrapper.inputs.shape[-1])
        show_parameter_counts(d_in, heads.d_out, heads.num_heads, heads.view.config.qkv_bias)


def _weights_of(variant: str, heads: Heads, only: int | None = None) -> None:
    """The class's weights, every head (``only``: one head's)."""
    trace = heads.trace_of(variant)
    if trace is not None:
        show_weights(trace, variant, heads.view.tokens, heads.view.palette, only=only)


def _weights_parts(variant: str) -> Callable[[Heads], Parts[Heads]]:
    """Presenter mode: one head's weights a screen, under the class's header."""

    def parts(heads: Heads) -> Parts[Heads]:
        if heads.trace_of(variant) is None:
            return (partial(fused_text, code=False),)
        header, one = f"multi_head.{variant}.header", partial(_weights_of, variant)
        return tuple(part(header, partial(one, only=head)) for head in range(heads.num_heads))

    return parts


def _shapes_of(variant: str, heads: Heads) -> None:
    trace = heads.trace_of(variant)
    if trace is not None:
        show_shapes(_shape_steps(variant, trace), variant, trace)


def _shape_parts(variant: str) -> Parts[Heads]:
    """Presenter mode: the class's shapes, then its output rows (a screen each)."""
    header = f"multi_head.{variant}.header"
    outputs = partial(class_shapes, variant, shapes=False)
    return (part(header, partial(_shapes_of, variant)), part(header, outputs))


# The page's screens, in order: the page draws them one below another, presenter mode one a screen
WALK: Walk[Heads] = Walk(
    page="multi_head",
    entries=(
        Entry("wrapper", lambda: t("multi_head.wrapper.header"), wrapper_text),
        Entry(
            "wrapper_weights",
            lambda: t("multi_head.weights.label"),
            parts=_weights_parts("wrapper"),
        ),
        Entry(
            "wrapper_shapes", lambda: t("multi_head.outputs.label"), parts=_shape_parts("wrapper")
        ),
        Entry("fused", lambda: t("multi_head.fused.header"), fused_text),
        Entry(
            "fused_weights",
            lambda: t("multi_head.weights.label"),
            parts=_weights_parts("fused"),
        ),
        Entry(
            "fused_shapes",
            lambda: t("multi_head.outputs.label"),
            parts=lambda heads: _shape_parts("fused") if heads.fused is not None else (fused_text,),
        ),
        Entry("difference", lambda: t("multi_head.difference.header"), difference),
    ),
    tabs_key="multi_head_tabs",
)


def _heads_control() -> None:
    setting_input("heads")


@page
def render(view: View) -> None:
    if begin(WALK):
        present(WALK, heads_of(view), controls=_heads_control)
        return
    heads = heads_of(view)
    st.title(t("page.multi_head.title"))
    st.markdown(t("multi_head.intro", heads=heads.num_heads))
    show_book_example(
        BOOK_EXAMPLES["multi_head"], view, book_difference(heads.wrapper, heads.fused)
    )
    if heads.wrapper is not None:  # (a) the wrapper
        wrapper_text(heads)
        _weights_of("wrapper", heads)
        class_shapes("wrapper", heads)
    else:
        st.subheader(t("multi_head.wrapper.header"))
    if fused_text(heads):  # (b) the fused class: needs 2+ heads that divide d_out
        _weights_of("fused", heads)
        class_shapes("fused", heads)
    st.divider()
    difference(heads)
