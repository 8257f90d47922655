"""Compare A/B: the sidebar's settings (A) against settings chosen on this page (B).

Both traces come from ``ui.computation.compute_trace`` on the same table; the page shows the
weights after dropout and the context vectors of both, and B − A, so changing one setting at a
time shows what it does. B's values are kept in ``ui.settings.COMPARE_B_VALUES`` (a
:class:`ui.choices.KeptValues`) and the URL carries them as ``b_*`` where B differs from A.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention import AttentionConfig, AttentionInputError, AttentionTrace
from attention.differences import context_difference, weights_difference
from ui.computation import compute_trace, config_from_settings
from ui.frame import page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.run_slots import slotted
from ui.settings import COMPARE_B_FIELDS, COMPARE_B_VALUES, MAX_APP_SEED, SETTINGS, widget
from ui.show import figure_words, show_matrix
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.matrix import MatrixView
from viz.vocabulary import DECIMALS, context_labels, format_number


def settings_of(cfg: AttentionConfig) -> dict[str, object]:
    """The settings B can change, read from a config (``train`` is ``cfg.training``)."""
    return {
        "seed": int(cfg.seed),
        "dropout": float(cfg.dropout),
        "train": bool(cfg.training),
        "qkv_bias": bool(cfg.qkv_bias),
        "d_out": int(cfg.d_out),
    }


def _preset(kind: str, a: dict[str, object]) -> None:
    """Button callback: B = A (the view's settings ``a``) with one change (``copy``: none)."""
    b = dict(a)
    if kind == "dropout":
        if config_from_settings(a).dropout_active:
            b["dropout"] = 0.0
        else:
            b["dropout"], b["train"] = 0.5, True
    elif kind == "seed":
        b["seed"] = int(a["seed"]) + 1 if int(a["seed"]) < MAX_APP_SEED else 0  # type: ignore[call-overload]
    elif kind == "bias":
        b["qkv_bias"] = not a["qkv_bias"]
    COMPARE_B_VALUES.set(b)


def init_b(a_settings: dict[str, object]) -> None:
    """First visit: B = A. Later visits: put the stored B back into the widgets."""
    if COMPARE_B_VALUES.get() is None:
        COMPARE_B_VALUES.keep(a_settings)
    for name in COMPARE_B_FIELDS:
        COMPARE_B_VALUES.restore(name)


def b_controls(a: dict[str, object]) -> dict[str, object]:
    """Draw B's controls (the sidebar's declarations, B's keys and labels) and presets; return
    B's settings."""
    st.subheader(t("compare.b_header"))
    columns = st.columns([1.3, 1.3, 1, 1, 1.3])
    for column, name in zip(columns, COMPARE_B_FIELDS, strict=True):
        widget(
            SETTINGS[name],
            key=COMPARE_B_VALUES.key(name),
            label=f"compare.{name}",
            container=column,
            on_change=COMPARE_B_VALUES.remember,
            args=(name,),
            with_help=False,
        )
    presets(a)
    return b_values()


def b_values() -> dict[str, object]:
    """B's settings, as its controls hold them."""
    return {name: st.session_state[COMPARE_B_VALUES.key(name)] for name in COMPARE_B_FIELDS}


def presets(a: dict[str, object]) -> None:
    """B = A with one change, in one click: the comparisons a lesson makes."""
    st.caption(t("compare.presets"))
    buttons = st.columns(4)
    for column, kind in zip(buttons, ("copy", "dropout", "seed", "bias"), strict=True):
        column.button(
            t(f"compare.preset.{kind}"),
            key=f"compare_preset_{kind}",
            help=t(f"compare.preset.{kind}_help"),
            on_click=_preset,
            args=(kind, a),
            width="stretch",
        )


def shown_value(value: object) -> str:
    """A setting's value in the reader's language: switches read yes/no, numbers as they are."""
    if isinstance(value, bool):
        return t("compare.value.yes" if value else "compare.value.no")
    return str(value)


def show_differences(a: dict[str, object], b: dict[str, object]) -> None:
    """The settings table (A, B, ≠) and a sentence naming what differs."""
    st.subheader(t("compare.settings_header"))
    rows = [
        {
            t("compare.col.setting"): t(SETTINGS[name].label),
            t("compare.col.a"): shown_value(a[name]),
            t("compare.col.b"): shown_value(b[name]),
            t("compare.col.differs"): t(
                "compare.differs_yes" if a[name] != b[name] else "compare.differs_no"
            ),
        }
        for name in COMPARE_B_FIELDS
    ]
    different = [t(SETTINGS[name].label) for name in COMPARE_B_FIELDS if a[name] != b[name]]
    left, right = st.columns([1.5, 1])  # wide enough for "= 相同" on one line
    left.table(pd.DataFrame(rows).set_index(t("compare.col.setting")))
    with right:
        if different:
            st.info(t("compare.differs_in", names=t("compare.list_separator").join(different)))
        else:
            st.info(t("compare.same_settings"))
        active = {
            key: t(
                "compare.value.yes"
                if config_from_settings(values).dropout_active
                else "compare.value.no"
            )
            for key, values in (("a", a), ("b", b))
        }
        st.caption(t("compare.inactive_note", **active))
        st.caption(t("compare.one_head_note"))


def _heatmap(
    values: np.ndarray, rows: list[str], cols: list[str], key: str, **options: object
) -> None:
    """One annotated heatmap (see ``viz.matrix.MatrixView``) at the column's width."""
    options.setdefault("decimals", DECIMALS)
    matrix = MatrixView(
        values=values,
        row_labels=tuple(rows),
        col_labels=tuple(cols),
        **options,  # type: ignore[arg-type]
    )
    show_matrix(matrix, figure_words(), key=key)


ALL_PARTS = ("a", "b", "diff")  # A's, B's and their difference; presenter mode shows fewer a screen


def show_weights(
    trace_a: AttentionTrace,
    trace_b: AttentionTrace,
    palette: str,
    tokens: list[str],
    parts: tuple[str, ...] = ALL_PARTS,
) -> None:
    """A's and B's weights after dropout side by side, then B − A (diverging, centred at 0)."""
    weights_a = trace_a.dropped_weights[0].numpy().astype(np.float64)  # (T, T)
    weights_b = trace_b.dropped_weights[0].numpy().astype(np.float64)  # (T, T)
    weights_diff = weights_difference(trace_a, trace_b)  # B − A and its largest |·|
    difference = weights_diff.values.numpy()  # (T, T)
    st.subheader(t("compare.weights_header"))
    st.caption(t("compare.weights_caption"))
    top = max(1.0, float(weights_a.max()), float(weights_b.max()))  # dropout can exceed 1
    axes = {"row_title": t("step.axis.query"), "col_title": t("step.axis.key"), "palette": palette}
    shown = [
        (title, values, key)
        for title, values, key in (
            ("compare.a_weights", weights_a, "a"),
            ("compare.b_weights", weights_b, "b"),
        )
        if key in parts
    ]
    for column, (title, values, key) in zip(st.columns(2), shown, strict=False):
        with column:
            _heatmap(
                values,
                tokens,
                tokens,
                f"compare_weights_{key}",
                title=t(title),
                kind="sequential",
                zrange=(0.0, top),
                value_name=t("step.value.weight"),
                **axes,
            )
    if "diff" not in parts:
        return
    right = _difference(difference, tokens, tokens, "compare_weights_diff", axes)
    with right:
        st.metric(t("compare.max_weight_diff"), format_number(weights_diff.max_abs))
        st.caption(t("compare.diff_explain"))


def _difference(
    values: np.ndarray, rows: list[str], cols: list[str], key: str, axes: dict[str, str]
) -> DeltaGenerator:
    """B − A as a diverging heatmap in the left column; returns the right column."""
    left, right = st.columns(2)
    with left:
        title = t("compare.difference")
        _heatmap(values, rows, cols, key, title=title, kind="diverging", value_name=title, **axes)
    return right


def show_contexts(
    trace_a: AttentionTrace,
    trace_b: AttentionTrace,
    palette: str,
    tokens: list[str],
    parts: tuple[str, ...] = ALL_PARTS,
) -> None:
    """Both context matrices side by side, then B − A when they have the same width."""
    context_a = trace_a.context[0].numpy().astype(np.float64)  # (T, d_out of A)
    context_b = trace_b.context[0].numpy().astype(np.float64)  # (T, d_out of B)
    st.subheader(t("compare.context_header"))
    st.caption(t("compare.context_caption"))
    context_diff = context_difference(trace_a, trace_b)  # None when the widths differ
    same_width = context_diff is not None
    if not same_width:
        st.warning(t("compare.widths_differ", a=context_a.shape[1], b=context_b.shape[1]))
        if "diff" in parts:  # the difference's screen shows what the warning says: A beside B
            parts = (*parts, "a", "b")
    bound = max(float(np.abs(context_a).max()), float(np.abs(context_b).max())) or 1.0
    axes = {
        "row_title": t("step.axis.token"),
        "col_title": t("step.axis.feature"),
        "palette": palette,
    }
    left, right = st.columns(2)
    for column, title, values, key in (
        (left, "compare.a_context", context_a, "a"),
        (right, "compare.b_context", context_b, "b"),
    ):
        if key not in parts:
            continue
        with column:
            _heatmap(
                values,
                tokens,
                context_labels(values.shape[1]),
                f"compare_context_{key}",
                title=t(title),
                kind="diverging",
                zrange=(-bound, bound),
                value_name=t("compare.value"),
                **axes,
            )
    if "diff" not in parts or context_diff is None:
        return
    difference = context_diff.values.numpy()  # (T, d_out)
    columns = context_labels(difference.shape[1])
    with _difference(difference, tokens, columns, "compare_context_diff", axes):
        st.metric(t("compare.max_context_diff"), format_number(context_diff.max_abs))


@dataclass(frozen=True)
class Comparison:
    """A and B: their settings and traces, and how to draw them."""

    a: dict[str, object]
    b: dict[str, object]
    trace_a: AttentionTrace
    trace_b: AttentionTrace
    palette: str
    tokens: list[str]


def comparison(view: View, b: dict[str, object]) -> Comparison | None:
    """A's and B's traces (None after saying which cannot be computed)."""
    try:
        trace_a = compute_trace(view.table, view.config, view.batch)
    except AttentionInputError as error:
        show_input_error(error)
        return None
    try:
        # B is A with B's changes: the sidebar's other settings (the window) and batch too
        trace_b = compute_trace(
            view.table, config_from_settings({**view.settings, **b}), view.batch
        )
    except AttentionInputError as error:
        show_input_error(error, "compare.error_b")
        return None
    a = settings_of(view.config)
    return Comparison(a, b, trace_a, trace_b, view.palette, list(view.tokens))


def _screens(
    draw: Callable[..., None], parts: tuple[tuple[str, ...], ...]
) -> tuple[Callable[[Comparison], None], ...]:
    """Presenter mode's screens of a view: a few of its matrices each (a projector's height)."""
    return tuple(
        partial(
            lambda run, shown: draw(run.trace_a, run.trace_b, run.palette, run.tokens, shown),
            shown=part,
        )
        for part in parts
    )


def _settings_screen(run: Comparison) -> None:
    show_differences(run.a, run.b)
    presets(run.a)


# Presenter mode's screens: what differs (with the presets), the weights, the context vectors
WALK: Walk[Comparison] = Walk(
    page="compare",
    entries=(
        Entry("settings", lambda: t("compare.settings_header"), _settings_screen),
        Entry(
            "weights",
            lambda: t("compare.weights_header"),
            lambda run: show_weights(run.trace_a, run.trace_b, run.palette, run.tokens),
            parts=lambda run: _screens(show_weights, (("a",), ("b",), ("diff",))),
        ),
        Entry(
            "contexts",
            lambda: t("compare.context_header"),
            lambda run: show_contexts(run.trace_a, run.trace_b, run.palette, run.tokens),
            parts=lambda run: _screens(show_contexts, (("a", "b"), ("diff",))),
        ),
    ),
    tabs_key="compare_view",
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    if not presenting:
        st.title(t("page.compare.title"))
        st.markdown(t("compare.intro"))
    a = settings_of(view.config)
    init_b(a)
    b = b_values() if presenting else b_controls(a)
    run = comparison(view, b)
    if run is None:
        return
    if presenting:
        present(WALK, run)
        return
    show_differences(a, b)
    show_views(run.trace_a, run.trace_b, view.palette, run.tokens)


VIEW_TABS = ("compare.weights_header", "compare.context_header")


@st.fragment
@slotted
def show_views(
    trace_a: AttentionTrace, trace_b: AttentionTrace, palette: str, tokens: list[str]
) -> None:
    """The weights and the context vectors of A and B, each in a tab that runs only when open.

    ``on_change="rerun"`` + ``.open``: a change of A or B redraws the open tab's three heatmaps,
    not all six; the fragment makes a tab switch rerun only these tabs, not the frame.
    """
    weights_tab, context_tab = st.tabs(
        [t(key) for key in VIEW_TABS], key="compare_view", on_change="rerun"
    )
    if weights_tab.open:
        with weights_tab:
            show_weights(trace_a, trace_b, palette, tokens)
    if context_tab.open:
        with context_tab:
            show_contexts(trace_a, trace_b, palette, tokens)
