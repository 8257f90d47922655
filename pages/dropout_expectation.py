"""Dropout in expectation: the average of many dropout draws converges to the undropped weights.

The experiment (``attention.experiments.dropout_average_error``) draws up to ``MAX_DRAWS`` dropout
masks with a private generator seeded by the sidebar seed and measures how far the running mean of
the dropped weights is from ``attn_weights``. The page plots that error on log-log axes next to the
theory ``c/√N`` and shows the averaged weights for a chosen N beside the true ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import streamlit as st
import torch

from attention.dropout import dropout_scale
from attention.experiments import dropout_average, dropout_average_error
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.settings import SETTINGS
from ui.show import figure_words, show_matrix
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.experiments import dropout_error_chart
from viz.matrix import MatrixView
from viz.vocabulary import format_number, format_short

MAX_DRAWS = 2000
MAX_BLOCK_TOKENS = 12  # the first tokens' weights form a self-contained causal block
N_CHOICES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
DEFAULT_PAGE_P = 0.5


@st.cache_data(max_entries=16, ttl=1800, show_spinner=False)
def _error_curve(weights: bytes, shape: tuple[int, int], p: float, seed: int) -> dict[str, Any]:
    block = torch.from_numpy(np.frombuffer(weights, dtype=np.float32).reshape(shape).copy())
    result = dropout_average_error(block, p, MAX_DRAWS, seed)
    return {
        key: value.numpy() if torch.is_tensor(value) else value for key, value in result.items()
    }


@st.cache_data(max_entries=32, ttl=1800, show_spinner=False)
def _average(weights: bytes, shape: tuple[int, int], p: float, seed: int, n: int) -> np.ndarray:
    block = torch.from_numpy(np.frombuffer(weights, dtype=np.float32).reshape(shape).copy())
    return dropout_average(block, p, n, seed).numpy()  # (T, T) float64


def choose_p(trace_dropout_active: bool, sidebar_p: float, training: bool) -> float:
    """The sidebar's p when dropout acts there; otherwise explain and offer a page-local slider."""
    if trace_dropout_active:
        st.info(t("dropout_expectation.using_sidebar", p=format_short(sidebar_p)))
        return sidebar_p
    reason = (
        "dropout_expectation.reason_eval" if not training else "dropout_expectation.reason_zero"
    )
    st.info(t("dropout_expectation.nothing_to_average", reason=t(reason)))
    if "dropout_expectation_p" not in st.session_state:
        st.session_state["dropout_expectation_p"] = DEFAULT_PAGE_P
    return float(
        st.slider(
            t("dropout_expectation.page_p"),
            min_value=0.05,
            max_value=SETTINGS["dropout"].high,
            step=0.05,
            key="dropout_expectation_p",
        )
    )


# Lazy tabs (``on_change="rerun"`` + ``.open``): a change redraws the open tab's charts only.
VIEW_TABS = ("dropout_expectation.tab.curve", "dropout_expectation.tab.heatmaps")


def show_metrics(curve: dict[str, Any], n: int) -> None:
    """The error's slope on a log-log scale, and the error and its theory at N draws."""
    metrics = st.columns(3)
    metrics[0].metric(
        t("dropout_expectation.slope"),
        format_number(float(curve["slope"]), minus="−"),
        help=t("dropout_expectation.slope_help"),
    )
    metrics[1].metric(
        t("dropout_expectation.rms_at_n", n=n), format_number(float(curve["rms_error"][n - 1]))
    )
    metrics[2].metric(
        t("dropout_expectation.theory_at_n", n=n), format_number(float(curve["reference"][n - 1]))
    )


def show_curve(curve: dict[str, Any], n: int, palette: str) -> None:
    """The error of the average of N draws against N, and 1/√N beside it."""
    st.subheader(t("dropout_expectation.curve_header"))
    chart = dropout_error_chart(
        curve["draws"],
        curve["rms_error"],
        curve["max_abs_error"],
        curve["reference"],
        rms_name=t("dropout_expectation.rms"),
        max_name=t("dropout_expectation.max_abs"),
        reference_name=t("dropout_expectation.reference"),
        x_title=t("dropout_expectation.x_title"),
        y_title=t("dropout_expectation.y_title"),
        highlight=n,
        highlight_name=t("dropout_expectation.marker"),
        palette=palette,
    )
    draw_chart(chart, key="dropout_expectation_curve")
    st.markdown(t("dropout_expectation.monte_carlo"))


def show_heatmaps(
    average: np.ndarray,
    weights: np.ndarray,
    tokens: list[str],
    n: int,
    p: float,
    palette: str,
    parts: tuple[str, ...] = ("average", "true"),
) -> None:
    """The average of N dropped weight matrices beside the weights without dropout."""
    st.subheader(t("dropout_expectation.heatmaps_header"))
    if n == 1:
        st.caption(t("dropout_expectation.n_one_note", scale=format_short(dropout_scale(p))))
    top = max(1.0, float(average.max()))
    shown = [
        (values, title, name)
        for values, title, name in (
            (average, t("dropout_expectation.average_title", n=n), "average"),
            (weights.astype(np.float64), t("dropout_expectation.true_title"), "true"),
        )
        if name in parts
    ]
    for column, (values, title, name) in zip(st.columns(2), shown, strict=False):
        with column:
            st.markdown(f"**{title}**")  # above the figure: a plot title would meet the axis title
            heatmap = MatrixView(
                values=values,
                row_labels=tuple(tokens),
                col_labels=tuple(tokens),
                kind="sequential",
                zrange=(0.0, top),
                palette=palette,
                row_title=t("step.axis.query"),
                col_title=t("step.axis.key"),
                value_name=t("step.value.weight"),
            )
            show_matrix(heatmap, figure_words(), key=f"dropout_expectation_{name}")


def choose_draws() -> int:
    """The number of draws N to average (a select slider, 100 at first)."""
    if "dropout_expectation_n" not in st.session_state:
        st.session_state["dropout_expectation_n"] = 100
    return int(
        st.select_slider(
            t("dropout_expectation.n"),
            options=N_CHOICES,
            key="dropout_expectation_n",
            help=t("dropout_expectation.n_help"),
        )
    )


def show_why() -> None:
    """Why the average of many dropout draws is the undropped weights."""
    st.markdown(t("dropout_expectation.intro"))
    st.latex(
        r"m \sim \mathrm{Bernoulli}(1-p):\qquad "
        r"\mathbb{E}\!\left[\frac{m}{1-p}\right] = \frac{(1-p)\cdot 1 + p\cdot 0}{1-p} = 1"
        r"\quad\Rightarrow\quad \mathbb{E}\!\left[w\,\frac{m}{1-p}\right] = w"
    )
    st.markdown(t("dropout_expectation.after_formula"))


@dataclass(frozen=True)
class Experiment:
    """What the screens read: the weights block, p, the seed, the curve and the tokens."""

    key: tuple[bytes, tuple[int, ...], float, int]  # the cached functions' arguments
    weights: np.ndarray  # (t, t) attn_weights before dropout
    tokens: list[str]
    curve: dict[str, Any]
    palette: str

    @property
    def p(self) -> float:
        return self.key[2]


def experiment(view: View) -> Experiment | None:
    """The first tokens' weights and the error curve of their average (None: cannot compute)."""
    trace = view.trace()
    if trace is None:
        return None
    cfg = trace.config
    p = choose_p(trace.dropout_active, cfg.dropout, cfg.training)
    tokens = list(view.table.tokens)
    used = min(len(tokens), MAX_BLOCK_TOKENS)
    if used < len(tokens):
        st.caption(t("dropout_expectation.block_note", total=len(tokens), used=used))
    block = trace.attn_weights[0, :used, :used].detach().to(torch.float32)  # (t, t), before dropout
    weights = block.numpy()
    key = (weights.tobytes(), tuple(weights.shape), p, int(cfg.seed))
    return Experiment(key, weights, tokens[:used], _error_curve(*key), view.palette)


def _draws() -> int:
    return int(st.session_state.get("dropout_expectation_n", 100))


def _curve_screen(run: Experiment) -> None:
    show_metrics(run.curve, _draws())
    show_curve(run.curve, _draws(), run.palette)


def _heatmaps_screen(run: Experiment, parts: tuple[str, ...] = ("average", "true")) -> None:
    n = _draws()
    show_heatmaps(_average(*run.key, n), run.weights, run.tokens, n, run.p, run.palette, parts)


# Presenter mode's screens: the argument, the error against N, the average beside the weights
WALK: Walk[Experiment] = Walk(
    page="dropout_expectation",
    entries=(
        Entry("why", lambda: t("page.dropout_expectation.title"), lambda run: show_why()),
        Entry("curve", lambda: t(VIEW_TABS[0]), _curve_screen),
        Entry(
            "heatmaps",
            lambda: t(VIEW_TABS[1]),
            _heatmaps_screen,
            parts=lambda run: (  # one 6 × 6 table a screen: two do not fit a projector
                partial(_heatmaps_screen, parts=("average",)),
                partial(_heatmaps_screen, parts=("true",)),
            ),
        ),
    ),
    tabs_key="dropout_expectation_view",
)


@page
def render(view: View) -> None:
    if begin(WALK):
        run = experiment(view)
        if run is not None:
            present(WALK, run, controls=choose_draws)
        return
    st.title(t("page.dropout_expectation.title"))
    show_why()
    run = experiment(view)
    if run is None:
        return
    st.caption(t("dropout_expectation.draws_note", seed=run.key[3]))
    n = choose_draws()
    show_metrics(run.curve, n)
    curve_tab, heatmaps_tab = st.tabs(
        [t(key) for key in VIEW_TABS], key="dropout_expectation_view", on_change="rerun"
    )
    if curve_tab.open:
        with curve_tab:
            show_curve(run.curve, n, view.palette)
    if heatmaps_tab.open:
        with heatmaps_tab:
            show_heatmaps(_average(*run.key, n), run.weights, run.tokens, n, run.p, view.palette)
