"""Backward pass: how the loss's gradient travels back through every step to W_query, W_key, W_value.

Every number comes from :func:`ui.gradient_state.compute_descent` (the backward pass of the very
forward pass the other pages show: same seed, same dropout mask); the page arranges and labels,
it computes nothing. The backward steps are the registry's :data:`viz.screens.GRADIENTS`, drawn
by one loop (:func:`show_gradient_step`). The four tabs are a walk (:data:`WALK`): ``?step=`` in
the link, one gradient step per screen in presenter mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention import AttentionConfig, AttentionInputError, AttentionTrace
from attention.export import exportable
from attention.gradients import (
    BACKWARD_STEPS,
    Descent,
    GradientFacts,
    GradientTrace,
    SoftmaxRowJacobian,
    first_order_change,
    gradient_facts,
    gradients_json,
    max_descent_steps,
    softmax_row_jacobian,
)
from ui.chart import draw_chart
from ui.choices import write_back
from ui.computation import trace_cells
from ui.frame import page
from ui.gradient_state import (
    BACKWARD_SETTINGS,
    STEPS_KEY,
    compute_descent,
    setting_value,
    usable_target,
)
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.problem_reference import with_reference
from ui.settings import widget
from ui.show import figure_words, show_matrix
from ui.table import message
from ui.view import View
from ui.walk import Entry, Walk, begin, present, show_walk
from viz.gradients import autograd_dot, gradient_view, loss_curve_chart, without_negative_zero
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.screens import GRADIENTS, Gradient, Sentence
from viz.vocabulary import feature_labels, format_number, gradient_number

ROW_KEY = "backward_row"
SECTION_TABS = ("scores", "projections", "graph", "learn")  # backward.tab.* keys
WEIGHT_LATEX = {"W_query": "W_q", "W_key": "W_k", "W_value": "W_v"}
MAX_WRITTEN_KEYS = 6  # the softmax row is written out term by term up to this many keys
# The column prefix of each gradient's features (x1 … for the rows of a weight matrix).
FEATURE_PREFIX = {
    "context": "z",
    "queries": "q",
    "keys": "k",
    "values": "v",
    "W_query": "q",
    "W_key": "k",
    "W_value": "v",
}
GRAPH_STEPS = (
    "loss",
    "output",
    "context",
    "head_context",
    *BACKWARD_STEPS[1:],
    "b_query",
    "b_key",
    "b_value",
    "W_out",
    "b_out",
    "inputs",
)


number = gradient_number  # the gradient tables' way of writing a number


def as_numbers(tensor: torch.Tensor) -> np.ndarray:
    """A gradient as float64 NumPy: row 0 of a batch (the app runs a batch of one), or a matrix."""
    values = tensor.detach().to(torch.float64)
    return (values[0] if values.dim() == 3 else values).numpy()


@dataclass(frozen=True)
class BackwardPass:
    """What every step's entry reads: the gradients, the facts about their zeros, the labels."""

    grads: GradientTrace
    facts: GradientFacts
    cfg: AttentionConfig
    loss_name: str
    labels: list[str]
    palette: str

    @property
    def trace(self) -> AttentionTrace:
        return self.grads.trace


def _jacobian_row(run: BackwardPass, *, choose: bool = True) -> int:
    """The query row whose Jacobian is shown: the select box, or (``choose=False``, presenter
    mode's second Jacobian screen) the row chosen on the first."""
    labels, num_tokens = run.labels, len(run.labels)
    row_kwargs: dict[str, int] = {}
    if ROW_KEY not in st.session_state:
        row_kwargs["index"] = min(2, num_tokens - 1)  # the third token: three keys to weigh
    elif int(st.session_state[ROW_KEY]) >= num_tokens:
        st.session_state[ROW_KEY] = num_tokens - 1  # the table shrank since
    if not choose:
        return int(st.session_state.get(ROW_KEY, row_kwargs.get("index", 0)))
    return int(
        st.selectbox(
            t("backward.jacobian.row"),
            options=list(range(num_tokens)),
            format_func=lambda i: f"{i + 1}: {labels[i]}",
            key=ROW_KEY,
            **row_kwargs,
        )
    )


JACOBIAN_LATEX = (
    r"\begin{gathered}J = \operatorname{diag}(A_{i}) - A_{i} A_{i}^{\top} \\ "
    r"\frac{\partial L}{\partial s_{i}} = J\,\frac{\partial L}{\partial A_{i}}"
    r"\end{gathered}"
)


def _jacobian_matrix(run: BackwardPass, jacobian: SoftmaxRowJacobian) -> None:
    key_labels = [run.labels[k] for k in jacobian.keys]
    gradient_block(
        as_numbers(jacobian.jacobian),
        key_labels,
        key_labels,
        key="jacobian",
        name=t("backward.name.jacobian"),
        titles=(t("backward.axis.weight_j"), t("backward.axis.score_k")),
        palette=run.palette,
    )


def _jacobian_vectors(run: BackwardPass, jacobian: SoftmaxRowJacobian) -> None:
    """The weights, the gradient from above and their product J ∂L/∂Aᵢ, one row per key."""
    columns = {"col_weight": jacobian.weights, "col_upstream": jacobian.upstream}
    columns["col_result"] = jacobian.result
    vectors = {
        t(f"backward.jacobian.{name}"): [number(float(v)) for v in values]
        for name, values in columns.items()
    }
    index = [escape_markdown(run.labels[k]) for k in jacobian.keys]
    st.table(pd.DataFrame(vectors, index=index))


def _jacobian_written(row: int, jacobian: SoftmaxRowJacobian) -> None:
    """The row's entries written out, Aᵢⱼ × (∂L/∂Aᵢⱼ − Σₖ Aᵢₖ ∂L/∂Aᵢₖ), up to six keys."""
    shown = min(len(jacobian.keys), MAX_WRITTEN_KEYS)
    mean = format_number(jacobian.weighted_mean)
    terms = [
        rf"\frac{{\partial L}}{{\partial s_{{{row + 1},{jacobian.keys[index] + 1}}}}}"
        rf" &= {format_number(float(jacobian.weights[index]))}\,\big(("
        rf"{format_number(float(jacobian.upstream[index]))}) - ({mean})\big)"
        rf" = {format_number(float(jacobian.result[index]))}"
        for index in range(shown)
    ]
    st.latex(r"\begin{aligned}" + r" \\ ".join(terms) + r"\end{aligned}")
    if shown < len(jacobian.keys):
        st.caption(t("backward.jacobian.more", shown=shown, total=len(jacobian.keys)))


def show_jacobian(run: BackwardPass) -> None:
    """One query row's softmax Jacobian: the matrix, its vectors, and the row written out."""
    st.markdown(f"##### {t('backward.jacobian.header')}")
    row = _jacobian_row(run)
    jacobian = softmax_row_jacobian(run.grads, row)
    jac_left, jac_right = st.columns([3, 2], gap="large")
    with jac_right:
        st.markdown(
            t(
                "backward.jacobian.text",
                token=escape_markdown(run.labels[row]),
                visible=len(jacobian.keys),
                mean=number(jacobian.weighted_mean),
            )
        )
        st.latex(JACOBIAN_LATEX)
    with jac_left:
        _jacobian_matrix(run, jacobian)
        _jacobian_vectors(run, jacobian)
    _jacobian_written(row, jacobian)


def _jacobian_screen(backward: BackwardPage, *, second: bool) -> None:
    """Presenter mode's two Jacobian screens: the matrix (and the row's choice), then the
    row's vectors and its entries written out."""
    run = backward.run
    st.markdown(f"##### {t('backward.jacobian.header')}")
    row = _jacobian_row(run, choose=not second)
    jacobian = softmax_row_jacobian(run.grads, row)
    token = escape_markdown(run.labels[row])
    left, right = st.columns([3, 2] if not second else [1, 1], gap="large")
    with right:
        if not second:
            st.markdown(
                t("backward.jacobian.present_matrix", token=token, visible=len(jacobian.keys))
            )
            st.latex(JACOBIAN_LATEX)
        else:
            mean = number(jacobian.weighted_mean)
            st.markdown(t("backward.jacobian.present_row", token=token, mean=mean))
            _jacobian_written(row, jacobian)
    with left:
        (_jacobian_vectors if second else _jacobian_matrix)(run, jacobian)


JACOBIAN_AFTER = "scaled_scores"  # the softmax row's Jacobian follows this gradient
SECTION_STEPS = {
    section: [step for step in GRADIENTS if step.section == section] for section in SECTION_TABS
}


def gradient_block(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    key: str,
    name: str,
    titles: tuple[str, str],
    palette: str,
    colorbar_title: str = "",
) -> None:
    """One gradient as a matrix: its coloured table of numbers, or its picture and zoom window."""
    values = without_negative_zero(values)  # an exact zero is written 0.0000, not −0.0000
    gradient = gradient_view(
        values,
        row_labels,
        col_labels,
        palette=palette,
        row_title=titles[0],
        col_title=titles[1],
        value_name=name,
        colorbar_title=colorbar_title,
    )
    show_matrix(gradient, figure_words(), key=f"backward_{key}")


def step_axes(run: BackwardPass, axes: str, tensor: str) -> tuple[list[str], list[str], tuple]:
    """The row labels, column labels and the two axis titles of one step's gradient."""
    feature = t("step.axis.feature")
    if axes == "query":
        titles = (t("step.axis.query"), t("step.axis.key"))
        return run.labels, run.labels, titles
    columns = feature_labels(FEATURE_PREFIX[tensor], run.cfg.d_out)
    if axes == "weight":
        rows = feature_labels("x", run.trace.d_in)
        return rows, columns, (t("step.axis.input_feature"), feature)
    return run.labels, columns, (t("step.axis.token"), feature)


def _said(step: Gradient, run: BackwardPass) -> str:
    return " ".join(t(sentence.key, **sentence.values) for sentence in step.sentence(run))


def show_gradient_step(step: Gradient, run: BackwardPass, *, jacobian: bool = True) -> None:
    """Draw one entry: header; the gradient beside its formula and sentence, or three in a row."""

    def block(tensor: str) -> None:
        rows, columns, titles = step_axes(run, step.axes, tensor)
        values = as_numbers(getattr(run.grads, tensor))
        name = t(f"backward.name.{tensor}")
        gradient_block(
            values, rows, columns, key=tensor, name=name, titles=titles, palette=run.palette
        )

    st.subheader(t(f"backward.{step.name}.header"))
    if len(step.tensors) == 1:
        left, right = st.columns([3, 2], gap="large")
        with right:
            st.latex(step.formula(run))
            st.markdown(_said(step, run))
        with left:
            block(step.tensors[0])
    else:
        st.latex(step.formula(run))
        st.markdown(_said(step, run))
        for column, tensor in zip(
            st.columns(len(step.tensors), gap="medium"), step.tensors, strict=True
        ):
            with column:
                block(tensor)
    if jacobian and step.name == JACOBIAN_AFTER:
        show_jacobian(run)


def show_loss(view: View) -> tuple[str, tuple[float, ...], st.delta_generator.DeltaGenerator]:
    """The loss's choice and target; returns them and the column where its value goes."""
    st.header(t("backward.loss.header"))
    d_out = view.config.d_out
    loss_column, target_column, value_column = st.columns(
        [2, 2, 1.5], gap="large"
    )  # room for 4.891e+11
    with loss_column:
        loss_name = str(widget(BACKWARD_SETTINGS["loss"]))
    with target_column:
        target_text = widget(
            BACKWARD_SETTINGS["target"],
            label_values={"d_out": d_out},
            placeholder=", ".join(["0"] * d_out),
            disabled=loss_name != "squared_distance",
        )
        target, target_problem = usable_target(str(target_text or ""), d_out)
        if target_problem is not None and loss_name == "squared_distance":
            used = ", ".join(format_number(v, 2, minus="−") for v in target)
            shown = t("backward.target.problem", detail=message(target_problem), used=used)
            st.error(with_reference(shown, target_problem))
    return loss_name, target, value_column


def show_loss_formula(run: BackwardPass, target: tuple[float, ...]) -> None:
    if run.loss_name == "sum":
        st.latex(r"L = \sum_{t}\sum_{m} z_{t,m}")
        st.markdown(t("backward.loss.sum_text"))
        return
    target_latex = ", ".join(f"{v:g}" for v in target)
    st.latex(
        r"L = \frac{1}{T}\sum_{t=1}^{T} \lVert z_t - y \rVert^2,\qquad y = (" + target_latex + ")"
    )
    st.markdown(t("backward.loss.distance_text", tokens=len(run.labels)))


def show_graph(run: BackwardPass, *, direction: str = "TB") -> None:
    """The autograd graph as PyTorch records it, each node labelled with its step (drawn left to
    right with ``direction="LR"``: presenter mode's wide screen)."""
    st.header(t("backward.graph.header"))
    graph = run.grads.graph
    first = graph.first_of("context")
    root = first.name if first is not None else "—"
    st.markdown(t("backward.graph.text", nodes=len(graph.nodes), edges=len(graph.edges), root=root))
    step_labels = {step: t(f"backward.node.{step}") for step in GRAPH_STEPS}
    dot = autograd_dot(graph, step_labels, palette=run.palette, direction=direction)
    st.graphviz_chart(dot, width="stretch")
    with st.expander(t("backward.graph.table")):
        rows: dict[str, list[str]] = {}
        for node in graph.nodes:
            rows.setdefault(step_labels.get(node.step, node.step), []).append(node.name)
        frame = {
            t("backward.graph.col_step"): list(rows),
            t("backward.graph.col_nodes"): [", ".join(names) for names in rows.values()],
        }
        st.table(pd.DataFrame(frame))


def _another_step(steps_wanted: int) -> None:
    st.session_state[STEPS_KEY] = steps_wanted + 1


def _start_over() -> None:
    st.session_state[STEPS_KEY] = 1


@dataclass(frozen=True)
class Learning:
    """The learning steps asked for and taken, and their result."""

    descent: Descent
    wanted: int
    limit: int
    learning_rate: float

    @property
    def taken(self) -> int:
        return min(self.wanted, self.limit)


def show_learning_controls(run: BackwardPass, learning: Learning) -> None:
    """The learning rate, "Take another step" and "Start over", and what limits them."""
    lr_column, step_column, reset_column = st.columns([2, 1, 1], vertical_alignment="bottom")
    with lr_column:
        lr = BACKWARD_SETTINGS["lr"]
        widget(lr, label_values={"low": lr.low, "high": lr.high})
    with step_column:
        st.button(
            t("backward.learn.another"),
            on_click=_another_step,
            args=(learning.wanted,),
            disabled=learning.taken >= learning.limit or learning.descent.diverged,
            key="backward_another",
            type="primary",
        )
    with reset_column:
        st.button(t("backward.learn.reset"), on_click=_start_over, key="backward_reset")
    if learning.wanted > learning.limit:
        st.caption(t("backward.learn.limit", limit=learning.limit, tokens=len(run.labels)))
    if learning.descent.diverged:
        lr_text = f"{learning.learning_rate:g}"
        if learning.descent.steps == 0:  # not even the first step: the weights are the seed's
            st.warning(t("backward.learn.diverged_first", lr=lr_text))
        else:
            st.warning(t("backward.learn.diverged", steps=learning.descent.steps, lr=lr_text))


def show_learning(run: BackwardPass, learning: Learning) -> None:
    """Learning steps ``W ← W − η ∂L/∂W``: the loss before and after, the curve, the new weights."""
    for part in LEARNING_PARTS:
        part(run, learning)


def show_learning_losses(run: BackwardPass, learning: Learning) -> None:
    """The rule, the controls and the loss before and after the steps taken."""
    st.header(t("backward.learn.header"))
    st.latex(r"W \leftarrow W - \eta\,\frac{\partial L}{\partial W}")
    st.markdown(t("backward.learn.text"))
    show_learning_controls(run, learning)
    descent, learning_rate = learning.descent, learning.learning_rate
    before, after = descent.before, descent.after
    metrics = st.columns(3)
    if descent.steps == 0:  # no step taken: one loss, not a "before" and an equal "after"
        metrics[0].metric(t("backward.learn.loss_now"), number(before.loss))
    else:
        metrics[0].metric(t("backward.learn.loss_before", step=descent.steps), number(before.loss))
        metrics[1].metric(
            t("backward.learn.loss_after", step=descent.steps),
            number(after.loss),
            delta=number(after.loss - before.loss),
            delta_color="inverse",  # a falling loss is good news: green
        )
    metrics[2].metric(
        t("backward.learn.predicted"),
        number(first_order_change(before, learning_rate)),
        help=t("backward.learn.predicted_help"),
    )


def show_learning_curve(run: BackwardPass, learning: Learning) -> None:
    """The loss after each step taken, and why the same dropout mask is kept."""
    curve_column, curve_text = st.columns([3, 2], gap="large")
    with curve_column:
        axis_titles = {
            "x_title": t("backward.learn.axis_step"),
            "y_title": t("backward.learn.axis_loss"),
        }
        chart = loss_curve_chart(learning.descent.losses, palette=run.palette, **axis_titles)
        draw_chart(chart, key="backward_loss_curve")
    with curve_text:
        st.markdown(t("backward.learn.same_mask"))
        if run.cfg.qkv_bias:
            st.markdown(t("backward.learn.bias"))


def _updated_weights(run: BackwardPass, learning: Learning) -> None:
    show_updated_weights(run, learning.descent, learning.learning_rate)


def show_updated_weights(run: BackwardPass, descent: Descent, learning_rate: float) -> None:
    """Each weight's first entry updated by hand, then the three updated matrices."""
    before, after = descent.before, descent.after
    st.markdown(f"##### {t('backward.learn.weights_header', step=descent.steps)}")
    updates = []
    for name, symbol in WEIGHT_LATEX.items():
        old = format_number(float(getattr(before.trace, name)[0, 0]))
        gradient = format_number(float(getattr(before, name)[0, 0]))
        new = format_number(float(getattr(after.trace, name)[0, 0]))
        updates.append(
            rf"{symbol}[1,1] &\leftarrow {old} - {learning_rate:g}\cdot({gradient}) = {new}"
        )
    st.latex(r"\begin{aligned}" + r" \\ ".join(updates) + r"\end{aligned}")
    for column, (name, symbol) in zip(
        st.columns(3, gap="medium"), WEIGHT_LATEX.items(), strict=True
    ):
        with column:
            rows, columns, titles = step_axes(run, "weight", name)
            gradient_block(
                as_numbers(getattr(after.trace, name)),
                rows,
                columns,
                key=f"updated_{name}",
                name=t("backward.learn.updated", name=symbol),
                titles=titles,
                palette=run.palette,
                colorbar_title=symbol,
            )


def show_export(run: BackwardPass, tokens: list[str]) -> None:
    st.header(t("backward.export.header"))
    if not exportable(run.trace):
        st.info(t("backward.export.too_large"))
        return
    st.download_button(
        t("backward.export.json"),
        data=lambda: gradients_json(run.grads, tokens),
        file_name="attention_gradients.json",
        mime="application/json",
        key="backward_download",
        help=t("backward.export.json_help"),
    )


@dataclass(frozen=True)
class BackwardPage:
    """What every tab reads: the backward pass and the learning steps taken from it."""

    run: BackwardPass
    learning: Learning


# The learning steps' tab in three parts (presenter mode shows one per screen).
LEARNING_PARTS: tuple[Callable[[BackwardPass, Learning], None], ...] = (
    show_learning_losses,
    show_learning_curve,
    _updated_weights,
)


def _presented(step: Gradient) -> tuple[Gradient, ...]:
    """Presenter mode's screens of a step: one per tensor where the registry splits it (each
    with its own formula and sentence where it has one), else the step in one."""
    if not step.split:
        return (step,)
    return tuple(
        replace(
            step,
            tensors=(tensor,),
            formula=(lambda run, latex=step.each[tensor][0]: latex)
            if tensor in step.each
            else step.formula,
            sentence=(lambda run, key=step.each[tensor][1]: (Sentence(key),))
            if tensor in step.each
            else step.sentence,
        )
        for tensor in step.tensors
    )


def _steps_screens(step: Gradient) -> tuple[Callable[[BackwardPage], None], ...]:
    """A step's screens, and the Jacobian's two after the scaled scores' (one screen each)."""
    screens: list[Callable[[BackwardPage], None]] = [
        partial(_gradient_screen, step=part) for part in _presented(step)
    ]
    if step.name == JACOBIAN_AFTER:  # two screens: the matrix, then its row written out
        screens.extend(partial(_jacobian_screen, second=second) for second in (False, True))
    return tuple(screens)


def _gradient_screen(backward: BackwardPage, step: Gradient) -> None:
    show_gradient_step(step, backward.run, jacobian=False)


def _section_entry(name: str) -> Entry[BackwardPage]:
    """One tab: a section's gradient steps (one screen each in presenter mode), or the graph or
    the learning steps."""
    steps = SECTION_STEPS[name]
    if steps:

        def draw(backward: BackwardPage) -> None:
            if name == "scores":
                st.header(t("backward.steps.header"))
                st.markdown(t("backward.steps.intro"))
            for step in steps:
                show_gradient_step(step, backward.run)

        screens = tuple(screen for step in steps for screen in _steps_screens(step))
        return Entry(
            name,
            lambda: t(f"backward.tab.{name}"),
            draw,
            parts=lambda b: screens,
            keeps=(ROW_KEY,) if name == "scores" else (),
        )
    if name == "graph":
        return Entry(
            name,
            lambda: t("backward.tab.graph"),
            lambda b: show_graph(b.run),
            parts=lambda b: (lambda b: show_graph(b.run, direction="LR"),),
        )
    return Entry(
        name,
        lambda: t(f"backward.tab.{name}"),
        lambda b: show_learning(b.run, b.learning),
        parts=lambda b: tuple(partial(_learning_screen, part=part) for part in LEARNING_PARTS),
        keeps=("lr",),
    )


def _learning_screen(
    backward: BackwardPage, part: Callable[[BackwardPass, Learning], None]
) -> None:
    part(backward.run, backward.learning)


WALK: Walk[BackwardPage] = Walk(
    page="backward",
    entries=tuple(_section_entry(name) for name in SECTION_TABS),
    tabs_key="backward_section",
)
LOSS_KEYS = ("loss", "target")  # the loss's widgets, above the tabs (kept in presenter mode)


def _loss_in_presenter_mode(view: View) -> tuple[str, tuple[float, ...]]:
    """The loss chosen on the page, read without its widgets (presenter mode hides them)."""
    write_back(LOSS_KEYS)
    target, _problem = usable_target(str(setting_value("target") or ""), view.config.d_out)
    return str(setting_value("loss")), target


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    if presenting:
        loss_name, target = _loss_in_presenter_mode(view)
    else:
        st.title(t("page.backward.title"))
        st.markdown(t("backward.intro"))
        loss_name, target, value_column = show_loss(view)
    tokens = list(view.table.tokens)
    cfg = view.config  # one CausalAttention head
    wanted = int(setting_value(STEPS_KEY))
    limit = max_descent_steps(trace_cells(len(tokens), 1))
    learning_rate = float(setting_value("lr"))
    try:  # the backward pass of the seed's weights, then the learning steps
        descent = compute_descent(
            view.table, cfg, loss_name, target, learning_rate, min(wanted, limit)
        )
    except AttentionInputError as error:
        show_input_error(error)
        st.stop()
    grads = descent.start
    run = BackwardPass(
        grads, gradient_facts(grads), cfg, loss_name, unique_labels(tokens), view.palette
    )
    backward = BackwardPage(run, Learning(descent, wanted, limit, learning_rate))
    if presenting:
        present(WALK, backward)
        return
    with value_column:
        st.metric(t("backward.loss.value"), number(grads.loss))
    show_loss_formula(run, target)
    show_walk(WALK, backward)  # one lazy tab per section: only the open tab runs
    show_export(run, tokens)
