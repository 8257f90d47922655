"""Backward pass: how the loss's gradient travels back through every step to W_query, W_key, W_value.

Every number comes from :func:`ui.gradient_state.compute_descent`, i.e.
:func:`attention.gradients.gradient_descent` on the current table and sidebar settings (one
``CausalAttention`` head, row 0 of a batch of one): the backward pass of the very forward pass the
other pages show (same seed, same dropout mask), the facts about its zeros
(:func:`~attention.gradients.gradient_facts`), one softmax row's Jacobian
(:func:`~attention.gradients.softmax_row_jacobian`), the autograd graph and the learning steps.
The page arranges and labels them; it computes nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention import AttentionInputError
from attention.export import exportable
from attention.gradients import (
    BACKWARD_STEPS,
    first_order_change,
    gradient_facts,
    gradients_json,
    max_descent_steps,
    softmax_row_jacobian,
)
from ui.computation import trace_cells
from ui.frame import page
from ui.gradient_state import (
    STEPS_KEY,
    compute_descent,
    usable_target,
)
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.settings import SETTINGS, widget
from ui.show import figure_words, show_figure, show_matrix, show_numbers
from ui.table import message
from ui.view import View
from viz.gradients import (
    autograd_dot,
    gradient_view,
    loss_curve_figure,
    without_negative_zero,
)
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView
from viz.steps import feature_labels

ROW_KEY = "backward_row"
SECTION_TABS = ("scores", "projections", "graph", "learn")  # backward.tab.* keys
WEIGHT_LATEX = {"W_query": "W_q", "W_key": "W_k", "W_value": "W_v"}
MAX_WRITTEN_KEYS = 6  # the softmax row is written out term by term up to this many keys
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


def number(value: float, decimals: int = 4) -> str:
    """A number as the tables write it: fixed decimals, a real minus sign (no "−0.0000")."""
    return latex_number(value, decimals).replace("-", "−")


def latex_number(value: float, decimals: int = 4) -> str:
    """Fixed decimals with an ASCII minus, for LaTeX; a value that rounds to 0 is written 0."""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def exact(value: float) -> str:
    """A measured value in full (``0`` when it is exactly zero), for 'the largest |value| is …'."""
    return "0" if value == 0 else f"{value:.3g}".replace("-", "−")


def row0(tensor: torch.Tensor) -> np.ndarray:
    """Row 0 of the batch (the app runs a batch of one) as float64 NumPy."""
    return tensor[0].detach().to(torch.float64).numpy()


def matrix(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().to(torch.float64).numpy()


def gradient_block(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    key: str,
    name: str,
    row_title: str,
    col_title: str,
    palette: str,
) -> None:
    """One gradient: the heatmap, then its numbers as a table (the accessible alternative)."""
    values = without_negative_zero(values)  # an exact zero is written 0.0000, not −0.0000
    gradient = gradient_view(
        values,
        row_labels,
        col_labels,
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=name,
    )
    show_matrix(gradient, figure_words(), key=f"backward_{key}")
    show_numbers(
        values,
        row_labels,
        col_labels,
        key=f"backward_numbers_{key}",
        beside_matrix=True,
        label=t("backward.numbers", name=name),
    )


def step_header(step: str) -> None:
    st.subheader(t(f"backward.{step}.header"))


def _another_step(steps_wanted: int) -> None:
    st.session_state[STEPS_KEY] = steps_wanted + 1


def _start_over() -> None:
    st.session_state[STEPS_KEY] = 1


@page
def render(view: View) -> None:
    st.title(t("page.backward.title"))
    st.markdown(t("backward.intro"))

    table = view.table
    tokens = list(table.tokens)
    labels = unique_labels(tokens)
    num_tokens = len(tokens)
    cfg = view.config  # one CausalAttention head
    palette = view.palette
    query_title, key_title = t("backward.axis.query"), t("backward.axis.key")
    token_title, feature_title = t("backward.axis.token"), t("backward.axis.feature")

    # --- the loss ----------------------------------------------------------------------------------
    st.header(t("backward.loss.header"))
    loss_column, target_column, value_column = st.columns([2, 2, 1], gap="large")
    with loss_column:
        loss_name = widget(SETTINGS["loss"])
    with target_column:
        target_text = widget(
            SETTINGS["target"],
            label_values={"d_out": cfg.d_out},
            placeholder=", ".join(["0"] * cfg.d_out),
            disabled=loss_name != "squared_distance",
        )
        target, target_problem = usable_target(str(target_text or ""), cfg.d_out)
        if target_problem is not None and loss_name == "squared_distance":
            st.error(
                t(
                    "backward.target.problem",
                    detail=message(target_problem),
                    used=", ".join(number(v, 2) for v in target),
                )
            )

    steps_wanted = int(view.settings[STEPS_KEY])
    step_limit = max_descent_steps(trace_cells(num_tokens, 1))
    steps_taken = min(steps_wanted, step_limit)
    learning_rate = float(view.settings["lr"])
    try:
        descent = compute_descent(
            table, cfg, str(loss_name), target, learning_rate, steps_taken
        )  # the backward pass of the seed's weights, then the learning steps
    except AttentionInputError as error:
        show_input_error(error)
        st.stop()
    grads = descent.start
    trace = grads.trace
    facts = gradient_facts(grads)

    with value_column:
        st.metric(t("backward.loss.value"), number(grads.loss))
    if loss_name == "sum":
        st.latex(r"L = \sum_{t}\sum_{m} z_{t,m}")
        st.markdown(t("backward.loss.sum_text"))
    else:
        target_latex = ", ".join(f"{v:g}" for v in target)
        st.latex(
            r"L = \frac{1}{T}\sum_{t=1}^{T} \lVert z_t - y \rVert^2,\qquad y = ("
            + target_latex
            + ")"
        )
        st.markdown(t("backward.loss.distance_text", tokens=num_tokens))

    # --- the backward pass, the graph and a learning step: one lazy tab each ---------------
    # Only the open tab runs and sends its charts (``on_change="rerun"`` + ``.open``): a seed
    # change redraws 7 heatmaps at most instead of 17 and no graph (benchmarks/README.md).
    x_labels = feature_labels("x", trace.d_in)
    scores_tab, projections_tab, graph_tab, learn_tab = st.tabs(
        [t(f"backward.tab.{name}") for name in SECTION_TABS],
        key="backward_section",
        on_change="rerun",
    )
    # A widget of a closed tab is not drawn, and Streamlit forgets the state of a widget not drawn
    # in a run: written back (Streamlit's documented way), the learning rate and the Jacobian's
    # row survive a switch to another tab. Only while their tab is closed: an open tab draws them.
    for kept, tab in (("lr", learn_tab), (ROW_KEY, scores_tab)):
        if not tab.open and kept in st.session_state:
            st.session_state[kept] = st.session_state[kept]
    if scores_tab.open:
        with scores_tab:
            # --- backward, step by step ----------------------------------------------------------------
            st.header(t("backward.steps.header"))
            st.markdown(t("backward.steps.intro"))

            z_labels = feature_labels("z", cfg.d_out)

            step_header("context")
            left, right = st.columns([3, 2], gap="large")
            with right:
                st.latex(
                    r"\frac{\partial L}{\partial z_{t,m}} = 1"
                    if loss_name == "sum"
                    else r"\frac{\partial L}{\partial z_t} = \frac{2}{T}\,(z_t - y)"
                )
                st.markdown(t(f"backward.context.text_{loss_name}"))
            with left:
                gradient_block(
                    row0(grads.context),
                    labels,
                    z_labels,
                    key="context",
                    name=t("backward.name.context"),
                    row_title=token_title,
                    col_title=feature_title,
                    palette=palette,
                )

            step_header("dropped_weights")
            left, right = st.columns([3, 2], gap="large")
            with right:
                st.latex(
                    r"Z = \tilde A V \;\Rightarrow\; \frac{\partial L}{\partial \tilde A}"
                    r" = \frac{\partial L}{\partial Z}\, V^{\top}"
                )
                st.markdown(t("backward.dropped_weights.text"))
            with left:
                gradient_block(
                    row0(grads.dropped_weights),
                    labels,
                    labels,
                    key="dropped_weights",
                    name=t("backward.name.dropped_weights"),
                    row_title=query_title,
                    col_title=key_title,
                    palette=palette,
                )

            step_header("attn_weights")
            left, right = st.columns([3, 2], gap="large")
            with right:
                if trace.dropout_active:
                    st.latex(
                        r"\tilde A = A \odot \frac{M}{1-p} \;\Rightarrow\; \frac{\partial L}{\partial A}"
                        r" = \frac{\partial L}{\partial \tilde A} \odot \frac{M}{1-p}"
                    )
                    st.markdown(
                        t(
                            "backward.attn_weights.text_dropout",
                            dropped=facts.dropped_cells,
                            largest=exact(facts.dropped_max_abs),
                            kept=facts.kept_cells,
                            scale=number(facts.dropout_scale),
                            p=f"{cfg.dropout:g}",
                            error=exact(facts.kept_ratio_max_error),
                        )
                    )
                else:
                    st.latex(
                        r"\tilde A = A \;\Rightarrow\; \frac{\partial L}{\partial A} = \frac{\partial L}{\partial \tilde A}"
                    )
                    st.markdown(t("backward.attn_weights.text_no_dropout"))
            with left:
                gradient_block(
                    row0(grads.attn_weights),
                    labels,
                    labels,
                    key="attn_weights",
                    name=t("backward.name.attn_weights"),
                    row_title=query_title,
                    col_title=key_title,
                    palette=palette,
                )

            step_header("scaled_scores")
            left, right = st.columns([3, 2], gap="large")
            with right:
                st.latex(
                    r"\frac{\partial L}{\partial s_{ij}} = A_{ij}\Big(\frac{\partial L}{\partial A_{ij}}"
                    r" - \sum_k A_{ik}\frac{\partial L}{\partial A_{ik}}\Big)"
                )
                st.markdown(
                    t(
                        "backward.scaled_scores.text",
                        hidden=facts.hidden_cells,
                        largest=exact(facts.hidden_max_abs),
                    )
                )
            with left:
                gradient_block(
                    row0(grads.scaled_scores),
                    labels,
                    labels,
                    key="scaled_scores",
                    name=t("backward.name.scaled_scores"),
                    row_title=query_title,
                    col_title=key_title,
                    palette=palette,
                )

            # one query row's softmax Jacobian, written out
            st.markdown(f"##### {t('backward.jacobian.header')}")
            row_kwargs: dict[str, int] = {}
            if ROW_KEY not in st.session_state:
                row_kwargs["index"] = min(2, num_tokens - 1)  # the third token: three keys to weigh
            elif int(st.session_state[ROW_KEY]) >= num_tokens:
                st.session_state[ROW_KEY] = num_tokens - 1  # the table shrank since
            row = st.selectbox(
                t("backward.jacobian.row"),
                options=list(range(num_tokens)),
                format_func=lambda i: f"{i + 1}: {labels[i]}",
                key=ROW_KEY,
                **row_kwargs,
            )
            jacobian = softmax_row_jacobian(grads, int(row))
            key_labels = [labels[k] for k in jacobian.keys]
            jac_left, jac_right = st.columns([3, 2], gap="large")
            with jac_right:
                st.markdown(
                    t(
                        "backward.jacobian.text",
                        token=escape_markdown(labels[int(row)]),
                        visible=len(jacobian.keys),
                        mean=number(jacobian.weighted_mean),
                    )
                )
                st.latex(
                    r"\begin{gathered}J = \operatorname{diag}(A_{i}) - A_{i} A_{i}^{\top} \\ "
                    r"\frac{\partial L}{\partial s_{i}} = J\,\frac{\partial L}{\partial A_{i}}"
                    r"\end{gathered}"
                )
            with jac_left:
                gradient_block(
                    matrix(jacobian.jacobian),
                    key_labels,
                    key_labels,
                    key="jacobian",
                    name=t("backward.name.jacobian"),
                    row_title=t("backward.axis.weight_j"),
                    col_title=t("backward.axis.score_k"),
                    palette=palette,
                )
                vectors = pd.DataFrame(
                    {
                        t("backward.jacobian.col_weight"): [
                            number(float(v)) for v in jacobian.weights
                        ],
                        t("backward.jacobian.col_upstream"): [
                            number(float(v)) for v in jacobian.upstream
                        ],
                        t("backward.jacobian.col_result"): [
                            number(float(v)) for v in jacobian.result
                        ],
                    },
                    index=[escape_markdown(label) for label in key_labels],
                )
                st.table(vectors)
            shown = min(len(jacobian.keys), MAX_WRITTEN_KEYS)
            mean = latex_number(jacobian.weighted_mean)
            terms = []
            for index in range(shown):
                w = latex_number(float(jacobian.weights[index]))
                g = latex_number(float(jacobian.upstream[index]))
                result = latex_number(float(jacobian.result[index]))
                terms.append(
                    rf"\frac{{\partial L}}{{\partial s_{{{int(row) + 1},{jacobian.keys[index] + 1}}}}}"
                    rf" &= {w}\,\big(({g}) - ({mean})\big) = {result}"
                )
            st.latex(r"\begin{aligned}" + r" \\ ".join(terms) + r"\end{aligned}")
            if shown < len(jacobian.keys):
                st.caption(t("backward.jacobian.more", shown=shown, total=len(jacobian.keys)))

            step_header("masked_scores")
            left, right = st.columns([3, 2], gap="large")
            with right:
                st.latex(
                    r"s = \frac{\omega^{\text{masked}}}{\sqrt{d_k}} \;\Rightarrow\;"
                    r"\frac{\partial L}{\partial \omega^{\text{masked}}} = \frac{1}{\sqrt{d_k}}"
                    r"\frac{\partial L}{\partial s}"
                )
                st.markdown(
                    t("backward.masked_scores.text", d_k=trace.d_k, scale=number(trace.scale))
                )
            with left:
                gradient_block(
                    row0(grads.masked_scores),
                    labels,
                    labels,
                    key="masked_scores",
                    name=t("backward.name.masked_scores"),
                    row_title=query_title,
                    col_title=key_title,
                    palette=palette,
                )

            step_header("attn_scores")
            left, right = st.columns([3, 2], gap="large")
            with right:
                st.latex(
                    r"\frac{\partial L}{\partial \omega_{ij}} = \begin{cases}"
                    r"\dfrac{\partial L}{\partial \omega^{\text{masked}}_{ij}} & j \le i \\[4pt]"
                    r"0 & j > i\ (\text{masked})\end{cases}"
                )
                st.markdown(
                    t(
                        "backward.attn_scores.text",
                        hidden=facts.hidden_cells,
                        largest=exact(facts.hidden_max_abs),
                    )
                )
            with left:
                gradient_block(
                    row0(grads.attn_scores),
                    labels,
                    labels,
                    key="attn_scores",
                    name=t("backward.name.attn_scores"),
                    row_title=query_title,
                    col_title=key_title,
                    palette=palette,
                )
    if projections_tab.open:
        with projections_tab:
            step_header("projections")
            st.latex(
                r"\omega = Q K^{\top} \;\Rightarrow\; \frac{\partial L}{\partial Q}"
                r" = \frac{\partial L}{\partial \omega} K,\quad \frac{\partial L}{\partial K}"
                r" = \Big(\frac{\partial L}{\partial \omega}\Big)^{\!\top} Q,\qquad "
                r"Z = \tilde A V \;\Rightarrow\; \frac{\partial L}{\partial V} = \tilde A^{\top}"
                r"\frac{\partial L}{\partial Z}"
            )
            st.markdown(t("backward.projections.text"))
            for column, (name, prefix) in zip(
                st.columns(3, gap="medium"),
                (("queries", "q"), ("keys", "k"), ("values", "v")),
                strict=True,
            ):
                with column:
                    gradient_block(
                        row0(getattr(grads, name)),
                        labels,
                        feature_labels(prefix, cfg.d_out),
                        key=name,
                        name=t(f"backward.name.{name}"),
                        row_title=token_title,
                        col_title=feature_title,
                        palette=palette,
                    )

            step_header("weights")
            st.latex(
                r"Q = X W_q \;\Rightarrow\; \frac{\partial L}{\partial W_q} = X^{\top}"
                r"\frac{\partial L}{\partial Q}\quad(\text{and } W_k, W_v \text{ alike})"
            )
            st.markdown(t("backward.weights.text"))
            for column, (name, prefix) in zip(
                st.columns(3, gap="medium"),
                (("W_query", "q"), ("W_key", "k"), ("W_value", "v")),
                strict=True,
            ):
                with column:
                    gradient_block(
                        matrix(getattr(grads, name)),
                        x_labels,
                        feature_labels(prefix, cfg.d_out),
                        key=name,
                        name=t(f"backward.name.{name}"),
                        row_title=t("backward.axis.input_feature"),
                        col_title=feature_title,
                        palette=palette,
                    )
    if graph_tab.open:
        with graph_tab:
            # --- the autograd graph --------------------------------------------------------------------------
            st.header(t("backward.graph.header"))
            graph = grads.graph
            first = graph.first_of("context")
            st.markdown(
                t(
                    "backward.graph.text",
                    nodes=len(graph.nodes),
                    edges=len(graph.edges),
                    root=first.name if first is not None else "—",
                )
            )
            step_labels = {step: t(f"backward.node.{step}") for step in GRAPH_STEPS}
            st.graphviz_chart(autograd_dot(graph, step_labels, palette=palette), width="stretch")
            with st.expander(t("backward.graph.table")):
                rows = {}
                for node in graph.nodes:
                    rows.setdefault(step_labels.get(node.step, node.step), []).append(node.name)
                st.table(
                    pd.DataFrame(
                        {
                            t("backward.graph.col_step"): list(rows),
                            t("backward.graph.col_nodes"): [
                                ", ".join(names) for names in rows.values()
                            ],
                        }
                    )
                )
    if learn_tab.open:
        with learn_tab:
            # --- one learning step -----------------------------------------------------------------------
            st.header(t("backward.learn.header"))
            st.latex(r"W \leftarrow W - \eta\,\frac{\partial L}{\partial W}")
            st.markdown(t("backward.learn.text"))
            lr_column, step_column, reset_column = st.columns(
                [2, 1, 1], vertical_alignment="bottom"
            )
            with lr_column:
                lr = SETTINGS["lr"]
                widget(lr, label_values={"low": lr.low, "high": lr.high})
            with step_column:
                st.button(
                    t("backward.learn.another"),
                    on_click=_another_step,
                    args=(steps_wanted,),
                    disabled=steps_taken >= step_limit or descent.diverged,
                    key="backward_another",
                    type="primary",
                )
            with reset_column:
                st.button(t("backward.learn.reset"), on_click=_start_over, key="backward_reset")
            if steps_wanted > step_limit:
                st.caption(t("backward.learn.limit", limit=step_limit, tokens=num_tokens))
            if descent.diverged:
                st.warning(
                    t("backward.learn.diverged", steps=descent.steps, lr=f"{learning_rate:g}")
                )

            before, after = descent.before, descent.after
            metrics = st.columns(3)
            shown_step = max(descent.steps, 1)
            metrics[0].metric(t("backward.learn.loss_before", step=shown_step), number(before.loss))
            metrics[1].metric(
                t("backward.learn.loss_after", step=shown_step),
                number(after.loss),
                delta=f"{after.loss - before.loss:.4f}",
                delta_color="inverse",  # a falling loss is good news: green
            )
            metrics[2].metric(
                t("backward.learn.predicted"),
                number(first_order_change(before, learning_rate)),
                help=t("backward.learn.predicted_help"),
            )
            curve_column, curve_text = st.columns([3, 2], gap="large")
            with curve_column:
                show_figure(
                    loss_curve_figure(
                        descent.losses,
                        palette=palette,
                        x_title=t("backward.learn.axis_step"),
                        y_title=t("backward.learn.axis_loss"),
                    ),
                    key="backward_loss_curve",
                )
            with curve_text:
                st.markdown(t("backward.learn.same_mask"))
                if cfg.qkv_bias:
                    st.markdown(t("backward.learn.bias"))

            st.markdown(f"##### {t('backward.learn.weights_header', step=descent.steps)}")
            updates = []
            for name in WEIGHT_LATEX:
                old = latex_number(float(getattr(before.trace, name)[0, 0]))
                gradient = latex_number(float(getattr(before, name)[0, 0]))
                new = latex_number(float(getattr(after.trace, name)[0, 0]))
                updates.append(
                    rf"{WEIGHT_LATEX[name]}[1,1] &\leftarrow {old} - {learning_rate:g}\cdot({gradient}) = {new}"
                )
            st.latex(r"\begin{aligned}" + r" \\ ".join(updates) + r"\end{aligned}")
            for column, (name, prefix) in zip(
                st.columns(3, gap="medium"),
                (("W_query", "q"), ("W_key", "k"), ("W_value", "v")),
                strict=True,
            ):
                with column:
                    updated = t("backward.learn.updated", name=WEIGHT_LATEX[name])
                    new_weights = MatrixView(
                        values=matrix(getattr(after.trace, name)),
                        row_labels=tuple(x_labels),
                        col_labels=tuple(feature_labels(prefix, cfg.d_out)),
                        kind="diverging",
                        palette=palette,
                        row_title=t("backward.axis.input_feature"),
                        col_title=feature_title,
                        value_name=updated,
                        colorbar_title=WEIGHT_LATEX[name],
                    )
                    show_matrix(new_weights, figure_words(), key=f"backward_updated_{name}")
                    show_numbers(
                        matrix(getattr(after.trace, name)),
                        x_labels,
                        feature_labels(prefix, cfg.d_out),
                        key=f"backward_numbers_updated_{name}",
                        beside_matrix=True,
                        label=t("backward.numbers", name=updated),
                    )

    # --- take it home ----------------------------------------------------------------------------------
    st.header(t("backward.export.header"))
    if exportable(trace):
        st.download_button(
            t("backward.export.json"),
            data=lambda: gradients_json(grads, tokens),
            file_name="attention_gradients.json",
            mime="application/json",
            key="backward_download",
            help=t("backward.export.json_help"),
        )
    else:
        st.info(t("backward.export.too_large"))
