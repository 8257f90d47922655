"""AppTest tests of the page “Backward pass”: what it shows is what attention.gradients computed."""

from __future__ import annotations

from typing import Any

import numpy as np
from plotly.colors import get_colorscale, sample_colorscale

from attention import AttentionConfig
from attention.examples import BOOK_EMBEDDINGS
from attention.gradients import gradient_descent
from tests.apptest_support import (
    chart_series,
    matrix_cell_styles,
    matrix_tables,
    page_text,
    run_page,
    svg_charts,
    walk_labels,
)
from tests.cases import subcases
from viz.colors import colorscale
from viz.vocabulary import cell_texts

NUM_CHARTS = 17  # 12 gradients, the Jacobian, the loss curve, 3 updated weights
CHARTS_PER_TAB = (7, 6, 0, 4)  # lazy tabs: to the scores, to Q/K/V and W, graph, learning steps
SVG_PER_TAB = (0, 0, 0, 1)  # the loss curve (an SVG chart); every 6-token matrix is a table
NEUTRAL = sample_colorscale(get_colorscale(colorscale("diverging")), [0.5])[0]  # a gradient of 0
SECTION_KEY = "backward_section"  # the tabs' key: its value is the open tab's label


def open_tab(at: Any, index: int) -> Any:
    """Open section tab ``index`` (only the open tab runs and sends its charts)."""
    at.session_state[SECTION_KEY] = walk_labels(at)[index]
    at.run()
    assert not at.exception
    return at


def shown(value: float) -> str:
    """A number as the page writes it (4 decimals, a real minus sign)."""
    text = f"{value:.4f}"
    return text.replace("-", "−")


def descent(steps: int = 1, **kwargs: Any) -> Any:
    loss = kwargs.pop("loss", "sum")
    target = kwargs.pop("target", None)
    return gradient_descent(
        BOOK_EMBEDDINGS, AttentionConfig(**kwargs), loss, target=target, steps=steps
    )


def metric(at: Any, index: int) -> str:
    return str(at.metric[index].value)


def drawn(at: Any) -> dict[str, int]:
    """How many matrix tables and SVG charts the run sent (what a closed tab must not send);
    no Plotly chart at all at 6 tokens."""
    assert not at.get("plotly_chart")
    return {"tables": len(matrix_tables(at)), "charts": len(svg_charts(at))}


def dot_text(at: Any) -> str:
    return str(at.get("graphviz_chart")[0].proto.spec)


@subcases("lang", ["en", "zh"])
def test_backward_page_runs_in_both_languages_with_the_graph(lang: str) -> None:
    at = run_page("backward", {"lang": lang, "dropout": "0.5"})
    assert not at.exception
    first = {"tables": CHARTS_PER_TAB[0] - SVG_PER_TAB[0], "charts": SVG_PER_TAB[0]}
    assert drawn(at) == first, "first paint: the open tab only"
    assert len(at.get("graphviz_chart")) == 0
    for index, (charts, svg) in enumerate(zip(CHARTS_PER_TAB, SVG_PER_TAB, strict=True)):
        assert drawn(open_tab(at, index)) == {"tables": charts - svg, "charts": svg}
        assert len(at.get("graphviz_chart")) == (index == 2)
    assert sum(CHARTS_PER_TAB) == NUM_CHARTS
    dot = dot_text(open_tab(at, 2))
    for name in ("UnsafeViewBackward0", "SoftmaxBackward0", "MaskedFillBackward0", "MulBackward0"):
        assert name in dot
    assert ("上下文向量" in dot) == (lang == "zh")  # the steps' labels are translated


def test_loss_and_gradients_shown_are_the_backward_pass_of_the_current_view() -> None:
    at = run_page("backward", {"dropout": "0.5", "seed": "7"})
    expected = descent(dropout=0.5, seed=7)
    grads = expected.start
    assert metric(at, 0) == shown(grads.loss)
    text = page_text(at)
    tables = matrix_tables(at)
    score_grads = grads.attn_scores[0].double().numpy()  # (6, 6)
    scores = tables["backward_attn_scores"]
    assert scores.to_numpy().tolist() == cell_texts(score_grads, None, 4)  # every cell as shown
    upper = np.triu(np.ones((6, 6), dtype=bool), k=1)  # the masked upper triangle
    assert np.all(score_grads[upper] == 0)  # exactly zero in the backward pass …
    assert (scores.to_numpy()[upper] == "0.0000").all()  # … written as a zero, not −∞ …
    styles = matrix_cell_styles(at, "backward_attn_scores")
    middle = {styles[cell]["background-color"] for cell in zip(*np.nonzero(upper), strict=True)}
    assert middle == {NEUTRAL}  # … on the diverging scale's neutral middle
    weight_grads = grads.attn_weights[0].double().numpy()
    weights = tables["backward_attn_weights"]
    assert weights.to_numpy().tolist() == cell_texts(weight_grads, None, 4)
    dropped = ~grads.trace.dropout_mask[0].numpy()
    assert dropped.any() and np.all(weight_grads[dropped] == 0)
    assert (weights.to_numpy()[dropped] == "0.0000").all()
    w_query = matrix_tables(open_tab(at, 1))["backward_W_query"]
    assert w_query.to_numpy().tolist() == cell_texts(grads.W_query.double().numpy(), None, 4)
    assert f"{int(dropped.sum())} dropped weights get exactly 0" in text


def test_another_step_lowers_the_loss_as_gradient_descent_says_and_start_over_resets() -> None:
    at = open_tab(run_page("backward"), 3)  # the learning steps' tab
    first = descent(steps=1)
    assert metric(at, 1) == shown(first.before.loss) and metric(at, 2) == shown(first.after.loss)
    at.button(key="backward_another").click().run()
    second = descent(steps=2)
    assert at.query_params["grad_steps"] == "2"
    assert metric(at, 2) == shown(second.after.loss)
    assert second.after.loss < second.before.loss < second.start.loss
    curve = figures_y(at)
    np.testing.assert_allclose(curve, second.losses, rtol=0, atol=0)
    at.button(key="backward_reset").click().run()
    assert "grad_steps" not in at.query_params
    assert metric(at, 2) == shown(first.after.loss)


def figures_y(at: Any) -> np.ndarray:
    return np.asarray(chart_series(at, "backward_loss_curve", "line")[0]["y"])


def test_squared_distance_to_a_target_from_the_url_and_a_bad_typed_target() -> None:
    at = run_page("backward", {"loss": "squared_distance", "target": "0.5, -0.5"})
    expected = descent(loss="squared_distance", target=[0.5, -0.5])
    assert metric(at, 0) == shown(expected.start.loss)
    at.text_input(key="target").input("0.5, x").run()
    assert not at.exception
    errors = " ".join(str(error.value) for error in at.error)
    assert "entry 2" in errors and "0.50, −0.50" in errors  # what is wrong, and what is used
    assert at.text_input(key="target").value == "0.5, x"  # the typed text stays
    assert metric(at, 0) == shown(expected.start.loss)  # the last valid result stays
    at.text_input(key="target").input("1").run()  # one number, but d_out = 2
    assert "d_out = 2" in " ".join(str(error.value) for error in at.error)


def test_a_first_step_that_overflows_says_no_step_was_taken_and_keeps_large_numbers_whole() -> None:
    emb = ";".join(["1000000,1000000,1000000"] * 6)
    query = {"loss": "squared_distance", "target": "1000000,-1000000", "lr": "10", "emb": emb}
    at = open_tab(run_page("backward", {**query, "grad_steps": "200"}), 3)
    expected = gradient_descent(
        np.full((6, 3), 1e6, dtype=np.float32),
        AttentionConfig(),
        "squared_distance",
        target=[1e6, -1e6],
        learning_rate=10.0,
        steps=200,
    )
    assert expected.diverged and expected.steps == 0, "the case this test is about"
    warnings = " ".join(str(warning.value) for warning in at.warning)
    assert "no step was taken" in warnings and "After 0 steps" not in warnings
    labels = [str(m.label) for m in at.metric]
    assert not any("step 1" in label for label in labels), "no 'before/after step 1' for no step"
    loss = next(m for m in at.metric if "no step taken" in str(m.label))
    assert str(loss.value) == f"{expected.start.loss:.4g}", "the size is kept: 4.891e+11, not cut"
    assert "e+" in str(loss.value)


def test_bad_url_values_are_reported_and_replaced_by_defaults() -> None:
    at = run_page("backward", {"lr": "abc", "target": "1,,zz", "loss": "cross_entropy"})
    assert not at.exception
    warnings = " ".join(str(w.value) for w in at.warning)
    assert "lr=abc" in warnings and r"loss=cross\_entropy" in warnings  # Markdown-escaped
    assert "“target” cannot be used: entry 2 (“zz”) is not a number" in warnings
    assert metric(at, 0) == shown(descent().start.loss)


def test_page_settings_survive_a_visit_to_another_page() -> None:
    at = open_tab(run_page("backward"), 3)  # the learning rate is in the learning steps' tab
    at.number_input(key="lr").set_value(0.05).run()
    open_tab(at, 0)  # the rate stays while its tab is closed
    assert at.query_params["lr"] == "0.05"
    at.radio(key="loss").set_value("squared_distance").run()
    at.session_state["harness_page"] = "step"
    at.run()
    at.run()
    assert at.query_params["lr"] == "0.05" and at.query_params["loss"] == "squared_distance"
    at.session_state["harness_page"] = "backward"
    at.run()
    assert open_tab(at, 3).number_input(key="lr").value == 0.05
    expected = descent(loss="squared_distance", target=[0.0, 0.0])
    assert metric(at, 0) == shown(expected.start.loss)
