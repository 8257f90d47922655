"""Why √d_k: without the scaling, softmax saturates as d_k grows.

The experiment (``attention.experiments.softmax_saturation``) uses random unit-variance queries and
keys, so ``Var(q · k) = d_k``. The page shows one example row for a chosen ``d_k`` (scaled or not),
the mean entropy / largest weight / gradient size against ``d_k`` for both, and the current
trace's own score variances (read from ``trace.attn_scores`` and ``trace.scaled_scores``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import streamlit as st

from attention.experiments import saturation_example_row, score_variance, softmax_saturation
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.run_slots import slotted
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.experiments import saturation_chart, weight_row_chart
from viz.vocabulary import format_number

D_K_CHOICES = tuple(2**i for i in range(10))  # 1, 2, 4, …, 512
NUM_KEYS = 8
NUM_QUERIES = 256


@st.cache_data(max_entries=16, ttl=1800, show_spinner=False)
def _saturation(seed: int, scaled: bool) -> dict[str, Any]:
    return softmax_saturation(D_K_CHOICES, NUM_KEYS, seed, scaled, num_queries=NUM_QUERIES)


def _fmt(value: float) -> str:
    return format_number(value, minus="−")


def show_example_row(seed: int, scaled: bool, d_k: int, palette: str) -> None:
    """The first query's weights over the random keys, with its spread, entropy and max weight."""
    row = saturation_example_row(d_k, NUM_KEYS, seed, scaled)
    uniform = math.log(NUM_KEYS)
    st.subheader(t("why_sqrt_dk.row_header"))
    left, right = st.columns([2.2, 1])
    with left:
        title = "why_sqrt_dk.row_title_scaled" if scaled else "why_sqrt_dk.row_title_unscaled"
        chart = weight_row_chart(
            row["weights"].tolist(),
            [f"k{j + 1}" for j in range(NUM_KEYS)],
            value_name=t("step.value.weight"),
            x_title=t("step.axis.key"),
            title=t(title, d_k=d_k),
            y_range=(0.0, 1.15),
            palette=palette,
        )
        draw_chart(chart, key="why_sqrt_dk_row")
    with right:
        st.metric(t("why_sqrt_dk.score_std"), _fmt(row["score_std"]))
        st.metric(
            t("why_sqrt_dk.entropy"),
            _fmt(row["entropy"]),
            help=t("why_sqrt_dk.entropy_help", keys=NUM_KEYS, uniform=_fmt(uniform)),
        )
        st.metric(t("why_sqrt_dk.max_weight"), _fmt(row["max_weight"]))


def show_curves(seed: int, d_k: int, palette: str) -> None:
    """Entropy, largest weight and gradient size against d_k, with and without scaling."""
    st.subheader(t("why_sqrt_dk.curves_header"))
    chart = saturation_chart(
        _saturation(seed, True),
        _saturation(seed, False),
        panel_titles=[
            t("why_sqrt_dk.panel_entropy"),
            t("why_sqrt_dk.panel_max"),
            t("why_sqrt_dk.panel_gradient"),
        ],
        scaled_name=t("why_sqrt_dk.with_scaling"),
        unscaled_name=t("why_sqrt_dk.without_scaling"),
        uniform_name=t("why_sqrt_dk.uniform"),
        x_title=t("why_sqrt_dk.x_title"),
        highlight_d_k=d_k,
        palette=palette,
    )
    draw_chart(chart, key="why_sqrt_dk_curves")
    st.caption(t("why_sqrt_dk.curves_caption"))


def show_trace_numbers(view: View) -> None:
    """The current trace's raw and scaled score variances (unmasked cells, one head)."""
    st.subheader(t("why_sqrt_dk.trace_header"))
    trace = view.trace()
    if trace is None:
        return
    raw = score_variance(trace.attn_scores[0], trace.mask)  # q·k, before the mask and scaling
    scaled = score_variance(trace.scaled_scores[0], trace.mask)  # ÷ √d_k
    columns = st.columns(3)
    columns[0].metric(t("why_sqrt_dk.trace_d_k"), str(trace.d_k))
    columns[1].metric(t("why_sqrt_dk.raw_variance"), format_number(raw))
    columns[2].metric(t("why_sqrt_dk.scaled_variance"), format_number(scaled))
    st.caption(t("why_sqrt_dk.trace_caption", scale=format_number(trace.scale), d_k=trace.d_k))


VIEW_TABS = ("why_sqrt_dk.tab.row", "why_sqrt_dk.tab.curves")


def _defaults() -> None:
    for key, default in (("why_sqrt_dk_scaled", True), ("why_sqrt_dk_dk", 64)):
        if key not in st.session_state:
            st.session_state[key] = default


def controls() -> tuple[bool, int]:
    """The page's own controls: scaled or not, and d_k (in the page, and in the deck's bar)."""
    _defaults()
    left, right = st.columns([1, 2])
    scaled = bool(
        left.toggle(
            t("why_sqrt_dk.scaled"), key="why_sqrt_dk_scaled", help=t("why_sqrt_dk.scaled_help")
        )
    )
    d_k = int(right.select_slider(t("why_sqrt_dk.d_k"), D_K_CHOICES, key="why_sqrt_dk_dk"))
    return scaled, d_k


@st.fragment
@slotted
def experiment(seed: int, palette: str) -> None:
    """The page's own controls and the experiment they steer: the example row and the curves.

    A fragment: the toggle, the d_k slider and a tab switch rerun only this part, not the frame.
    The lazy tabs (``on_change="rerun"`` + ``.open``) draw one chart per run, not both.
    """
    scaled, d_k = controls()
    st.caption(
        t(
            "why_sqrt_dk.setup",
            queries=NUM_QUERIES,
            keys=NUM_KEYS,
            seed=seed,
            uniform=_fmt(math.log(NUM_KEYS)),
        )
    )
    row_tab, curves_tab = st.tabs(
        [t(key) for key in VIEW_TABS], key="why_sqrt_dk_view", on_change="rerun"
    )
    if row_tab.open:
        with row_tab:
            show_example_row(seed, scaled, d_k, palette)
    if curves_tab.open:
        with curves_tab:
            show_curves(seed, d_k, palette)


def show_why() -> None:
    """Why the scores' variance grows with d_k, and what dividing by √d_k does."""
    st.markdown(t("why_sqrt_dk.intro"))
    st.latex(
        r"\mathrm{Var}(q\cdot k) = \sum_{i=1}^{d_k} \mathrm{Var}(q_i k_i) = d_k"
        r"\qquad\Rightarrow\qquad"
        r"\mathrm{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right) = 1"
    )
    st.markdown(t("why_sqrt_dk.explain"))


@dataclass(frozen=True)
class Lesson:
    """What the page's screens read: the view (seed, palette, trace)."""

    view: View


def _chosen() -> tuple[bool, int]:
    _defaults()
    return bool(st.session_state["why_sqrt_dk_scaled"]), int(st.session_state["why_sqrt_dk_dk"])


# The page's screens in presenter mode: the argument, the example row, the curves, the trace's own
WALK: Walk[Lesson] = Walk(
    page="why_sqrt_dk",
    entries=(
        Entry("why", lambda: t("page.why_sqrt_dk.title"), lambda lesson: show_why()),
        Entry(
            "row",
            lambda: t("why_sqrt_dk.tab.row"),
            lambda lesson: show_example_row(
                lesson.view.config.seed, *_chosen(), lesson.view.palette
            ),
        ),
        Entry(
            "curves",
            lambda: t("why_sqrt_dk.tab.curves"),
            lambda lesson: show_curves(lesson.view.config.seed, _chosen()[1], lesson.view.palette),
        ),
        Entry(
            "trace",
            lambda: t("why_sqrt_dk.trace_header"),
            lambda lesson: show_trace_numbers(lesson.view),
        ),
    ),
    tabs_key="why_sqrt_dk_view",
    ignores=("dropout", "train"),  # random unit-variance q and k; the scores before dropout
)


@page
def render(view: View) -> None:
    if begin(WALK):
        present(WALK, Lesson(view), controls=controls)
        return
    st.title(t("page.why_sqrt_dk.title"))
    show_why()
    experiment(view.config.seed, view.palette)
    show_trace_numbers(view)
