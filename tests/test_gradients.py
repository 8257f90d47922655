"""The backward pass (``attention.gradients``) against autograd on the book's recipe.

What is pinned: weight (and input) gradients bitwise equal to ``loss(module(x)).backward()`` on
the book's class after ``torch.manual_seed`` (one head and both multi-head classes); the trace of
the same pass; each wrapper head's step gradients as that head's alone; central finite
differences in float64; the exact zeros (masked scores, dropped weights) and the 1/(1−p) on kept
ones; the autograd graph equal to the book module's; the softmax Jacobian of one row; and learning
steps that lower the loss.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import torch

from attention import AttentionConfig, AttentionInputError, trace_attention, trace_gradients
from attention.examples import BOOK_EMBEDDINGS
from attention.gradients import (
    GRADIENT_FIELDS,
    first_order_change,
    gradient_descent,
    gradient_facts,
    learning_step,
    softmax_row_jacobian,
)
from tests.book_recipe import BOOK_BATCH, book_module, random_inputs
from tests.cases import subcases

TARGET = torch.tensor([0.5, -0.5])


def book_loss(name: str, output: torch.Tensor) -> torch.Tensor:
    """The named losses, written out as a reader would."""
    if name == "sum":
        return output.sum()
    vectors = output.shape[0] * output.shape[1]
    return ((output - TARGET[: output.shape[-1]]) ** 2).sum() / vectors


def book_backward(
    x: torch.Tensor, cfg: AttentionConfig, loss: str
) -> tuple[Any, torch.Tensor, float]:
    """The book's recipe with a backward pass: the module and x (with .grad filled), the loss."""
    x = x.clone().requires_grad_(True)
    module = book_module(
        x.shape[-1],
        d_out=cfg.d_out,
        seed=cfg.seed,
        context_length=x.shape[1],
        dropout=cfg.dropout,
        training=cfg.training,
        qkv_bias=cfg.qkv_bias,
        num_heads=cfg.num_heads,
        variant=cfg.variant,
    )
    value = book_loss(loss, module(x))
    value.backward()
    return module, x, float(value.detach())


def book_weight_grads(module: Any, cfg: AttentionConfig) -> dict[str, torch.Tensor]:
    """The module's .grad in the trace's layout (x @ W: the transpose), stacked per head."""
    heads = list(module.heads) if cfg.num_heads > 1 and cfg.variant == "wrapper" else [module]
    found: dict[str, torch.Tensor] = {}
    for short, name in (("query", "W_query"), ("key", "W_key"), ("value", "W_value")):
        weights = [getattr(head, name).weight.grad.T for head in heads]
        found[name] = torch.stack(weights) if len(heads) > 1 else weights[0]
        if cfg.qkv_bias:
            biases = [getattr(head, name).bias.grad for head in heads]
            found[f"b_{short}"] = torch.stack(biases) if len(heads) > 1 else biases[0]
    if cfg.num_heads > 1 and cfg.variant == "fused":
        found["W_out"] = module.out_proj.weight.grad.T
        found["b_out"] = module.out_proj.bias.grad
    return found


CASES = {
    "book_sum": (AttentionConfig(), "sum"),
    "dropout_bias_distance": (
        AttentionConfig(dropout=0.5, qkv_bias=True, seed=7),
        "squared_distance",
    ),
    "eval_mode": (AttentionConfig(dropout=0.5, training=False, seed=1), "sum"),
    "fused_two_heads": (
        AttentionConfig(d_out=2, num_heads=2, dropout=0.3, seed=123),
        "squared_distance",
    ),
    "wrapper_three_heads": (
        AttentionConfig(num_heads=3, variant="wrapper", dropout=0.5, qkv_bias=True),
        "sum",
    ),
}


@subcases("case", list(CASES))
def test_gradients_equal_autograd_on_the_book_recipe(case: str) -> None:
    cfg, loss = CASES[case]
    target = TARGET[: cfg.d_out] if loss == "squared_distance" else None
    grads = trace_gradients(BOOK_BATCH, cfg, loss, target=target)
    module, x, loss_value = book_backward(BOOK_BATCH, cfg, loss)
    expected = book_weight_grads(module, cfg)
    for name, tensor in expected.items():
        assert torch.equal(getattr(grads, name), tensor), name
    assert torch.equal(grads.inputs, x.grad)
    assert grads.loss == loss_value


def test_trace_is_the_same_forward_pass_and_shapes_match_it() -> None:
    cfg = AttentionConfig(dropout=0.5, seed=11)
    grads = trace_gradients(BOOK_EMBEDDINGS, cfg)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    for name, tensor in trace.tensors().items():
        assert torch.equal(getattr(grads.trace, name), tensor), name
    for name in GRADIENT_FIELDS:
        value = getattr(trace, name)
        if value is None:
            assert getattr(grads, name) is None, name
        else:
            assert getattr(grads, name).shape == value.shape, name


def test_each_wrapper_heads_step_gradients_are_that_head_alone() -> None:
    """The wrapper's per-head steps are stacked for the trace: head h's slice of every step's
    gradient is what the same head, run as one CausalAttention with its weights, gets (a sum loss
    adds the heads' outputs side by side, so no head's gradient depends on another's)."""
    x = random_inputs((2, 5, 3), seed=4)
    wrapper = trace_gradients(x, AttentionConfig(num_heads=3, variant="wrapper", qkv_bias=True))
    steps = [name for name in GRADIENT_FIELDS if getattr(wrapper, name) is not None]
    steps = [name for name in steps if getattr(wrapper.trace, name).dim() == 4]  # (b, h, …)
    assert set(steps) >= {"queries", "attn_scores", "attn_weights", "head_context"}
    for head in range(3):
        prefix = f"heads.{head}."
        own = {k.removeprefix(prefix): v for k, v in wrapper.parameters.items() if prefix in k}
        alone = trace_gradients(x, AttentionConfig(qkv_bias=True), parameters=own)
        for name in steps:
            single = alone.context if name == "head_context" else getattr(alone, name)
            assert torch.equal(getattr(wrapper, name)[:, head], single), (head, name)


def _loss64(
    weights: dict[str, torch.Tensor], x: torch.Tensor, keep: torch.Tensor | None
) -> torch.Tensor:
    """The sum of CausalAttention's outputs in float64, written out, with a fixed dropout mask."""
    queries, keys, values = x @ weights["W_query"], x @ weights["W_key"], x @ weights["W_value"]
    scores = queries @ keys.transpose(-2, -1)
    hidden = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), diagonal=1)
    attn_weights = torch.softmax(scores.masked_fill(hidden, -torch.inf) / keys.shape[-1] ** 0.5, -1)
    if keep is not None:
        attn_weights = attn_weights * keep
    return (attn_weights @ values).sum()


def test_weight_gradients_match_central_finite_differences_in_float64() -> None:
    cfg = AttentionConfig(dropout=0.5, seed=5)
    grads = trace_gradients(BOOK_EMBEDDINGS, cfg)
    trace = grads.trace
    weights = {name: getattr(trace, name).double() for name in ("W_query", "W_key", "W_value")}
    x = trace.inputs.double()
    keep = trace.dropout_mask.double() * trace.dropout_scale
    eps = 1e-6
    for name, (i, j) in (("W_query", (0, 1)), ("W_key", (2, 0)), ("W_value", (1, 1))):
        plus = {**weights, name: weights[name].clone()}
        minus = {**weights, name: weights[name].clone()}
        plus[name][i, j] += eps
        minus[name][i, j] -= eps
        numeric = float(_loss64(plus, x, keep) - _loss64(minus, x, keep)) / (2 * eps)
        assert abs(numeric - float(getattr(grads, name)[i, j])) <= 1e-4 * max(1.0, abs(numeric))
    assert grads.loss == pytest.approx(float(_loss64(weights, x, keep)), rel=1e-6)


def test_gradients_are_exactly_zero_where_masked_or_dropped_and_kept_ones_scale() -> None:
    cfg = AttentionConfig(dropout=0.5, seed=123)
    grads = trace_gradients(
        random_inputs((2, 7, 3), seed=3), cfg, "squared_distance", target=TARGET
    )
    trace = grads.trace
    hidden = trace.mask.expand_as(trace.attn_scores)
    for name in ("attn_scores", "masked_scores", "scaled_scores"):
        assert bool((getattr(grads, name)[hidden] == 0).all()), name
        assert bool((getattr(grads, name)[~hidden] != 0).any()), name
    # a hidden weight is 0, but its gradient is not: softmax is what stops it
    assert bool((grads.dropped_weights[hidden] != 0).any())
    dropped, kept = ~trace.dropout_mask, trace.dropout_mask
    assert bool(dropped.any()) and bool(kept.any())
    assert bool((grads.attn_weights[dropped] == 0).all())
    assert torch.equal(grads.attn_weights[kept], grads.dropped_weights[kept] * 2.0)  # 1/(1−0.5)
    facts = gradient_facts(grads)
    assert facts.hidden_max_abs == 0.0 and facts.dropped_max_abs == 0.0
    assert facts.hidden_cells == 2 * 21 and facts.dropped_cells == int(dropped.sum())
    assert facts.dropout_scale == 2.0 and facts.kept_ratio_max_error == 0.0


def _book_graph(x: torch.Tensor, cfg: AttentionConfig) -> tuple[Counter[str], Counter[Any]]:
    """Node names and (parent, child) name pairs of the book module's autograd graph."""
    x = x.clone().requires_grad_(True)
    module = book_module(
        x.shape[-1],
        d_out=cfg.d_out,
        seed=cfg.seed,
        context_length=x.shape[1],
        dropout=cfg.dropout,
        num_heads=cfg.num_heads,
        variant=cfg.variant,
    )
    root = module(x).sum().grad_fn
    names: Counter[str] = Counter()
    edges: Counter[Any] = Counter()
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names[type(node).__name__] += 1
        for child, _ in node.next_functions:
            if child is not None:
                edges[(type(node).__name__, type(child).__name__)] += 1
                stack.append(child)
    return names, edges


@subcases(
    "cfg",
    [
        AttentionConfig(dropout=0.5),
        AttentionConfig(num_heads=2, dropout=0.5),
        AttentionConfig(num_heads=2, variant="wrapper"),
    ],
    ids=["one_head", "fused", "wrapper"],
)
def test_graph_is_the_book_modules_graph_with_nodes_linked_to_steps(cfg: AttentionConfig) -> None:
    graph = trace_gradients(BOOK_BATCH, cfg).graph
    names, edges = _book_graph(BOOK_BATCH, cfg)
    assert Counter(graph.names()) == names
    by_id = {node.id: node for node in graph.nodes}
    assert Counter((by_id[a].name, by_id[b].name) for a, b in graph.edges) == edges
    assert graph.nodes[0].name == "SumBackward0" and graph.nodes[0].step == "loss"
    assert graph.step_of("SoftmaxBackward0") == {"attn_weights"}
    assert graph.step_of("MaskedFillBackward0") == {"masked_scores"}
    assert graph.step_of("DivBackward0") == {"scaled_scores"}
    leaves = {node.step for node in graph.nodes if node.name == "AccumulateGrad"}
    assert {"inputs", "W_query", "W_key", "W_value"} <= leaves
    assert [n.step for n in graph.nodes].count("loss") == 1  # only the sum is the loss's
    if cfg.dropout_active:
        assert graph.step_of("MulBackward0") == {"dropped_weights"}
    dot = graph.to_dot(step_labels={"attn_weights": 'say "hi"'})
    assert dot.startswith("digraph autograd {") and dot.count(" -> ") == len(graph.edges)
    assert 'SoftmaxBackward0\\nsay \\"hi\\"' in dot
    wide = graph.to_dot(direction="LR")  # presenter mode's wide screen: left to right
    assert "rankdir=LR" in wide and wide.replace("rankdir=LR", "rankdir=TB") == graph.to_dot()
    with pytest.raises(AttentionInputError, match="direction"):
        graph.to_dot(direction="sideways")


def test_printed_context_vectors_carry_the_seed_documents_grad_fn() -> None:
    from attention.gradients import forward_with_graph

    output = forward_with_graph(BOOK_BATCH)
    assert type(output.grad_fn).__name__ == "UnsafeViewBackward0"
    assert "grad_fn=<UnsafeViewBackward0>" in repr(output)


def test_softmax_row_jacobian_is_autograds_and_gives_the_scores_gradient() -> None:
    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5), "sum")
    row = softmax_row_jacobian(grads, 3)
    assert row.keys == (0, 1, 2, 3)
    scores = grads.trace.scaled_scores[0, 3, :4].double()
    expected = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, -1), scores)
    torch.testing.assert_close(row.jacobian, expected)
    torch.testing.assert_close(row.result.float(), grads.scaled_scores[0, 3, :4])
    assert row.weighted_mean == pytest.approx(float((row.weights * row.upstream).sum()))


def test_learning_step_moves_every_weight_against_its_gradient_and_lowers_the_loss() -> None:
    cfg = AttentionConfig(dropout=0.5)
    for loss, target in (("sum", None), ("squared_distance", TARGET)):
        before = trace_gradients(BOOK_EMBEDDINGS, cfg, loss, target=target)
        after = learning_step(before, 0.1)
        for name in ("W_query", "W_key", "W_value"):
            moved = getattr(before.trace, name) - 0.1 * getattr(before, name)
            assert torch.equal(getattr(after.trace, name), moved), name
        assert torch.equal(after.trace.dropout_mask, before.trace.dropout_mask)
        assert after.loss < before.loss and after.loss_name == loss
        small = learning_step(before, 1e-3)  # a small step changes the loss by about −lr·Σg²
        predicted = first_order_change(before, 1e-3)
        assert predicted < 0 and abs((small.loss - before.loss) - predicted) < 0.01 * -predicted
    descent = gradient_descent(
        BOOK_EMBEDDINGS, cfg, "squared_distance", target=TARGET, learning_rate=0.1, steps=6
    )
    assert descent.steps == 6 and not descent.diverged and descent.start.loss == descent.losses[0]
    assert descent.after.loss == descent.losses[6] and descent.before.loss == descent.losses[5]
    assert all(b < a for a, b in zip(descent.losses, descent.losses[1:], strict=False))


def test_too_large_a_learning_rate_is_reported_as_divergence() -> None:
    descent = gradient_descent(
        BOOK_EMBEDDINGS,
        AttentionConfig(),
        "squared_distance",
        target=TARGET,
        learning_rate=100.0,
        steps=200,
    )
    assert descent.diverged and descent.steps < 200


@subcases(
    ("kwargs", "field"),
    [
        ({"loss": "cross_entropy"}, "loss"),
        ({"loss": "squared_distance"}, "target"),
        ({"loss": "squared_distance", "target": [1.0, 2.0, 3.0]}, "target"),
        ({"loss": "squared_distance", "target": [float("nan"), 0.0]}, "target"),
        ({"loss": lambda output: output}, "loss"),
        ({"loss": lambda output: torch.tensor(1.0)}, "loss"),
    ],
    ids=["unknown", "no_target", "wrong_width", "nan_target", "not_scalar", "detached"],
)
def test_bad_losses_and_targets_say_what_is_wrong(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(AttentionInputError) as error:
        trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(), **kwargs)
    assert error.value.field == field


_W = torch.zeros(2, 3)  # one (d_out, d_in) weight of the book's layer


@subcases(
    ("kwargs", "says"),
    [
        ({"cfg": {"d_out": 2}}, "cfg must be an AttentionConfig"),
        ({"parameters": {"bogus": torch.zeros(1)}}, "unknown: bogus"),
        ({"parameters": {"W_query.weight": _W}}, "missing: W_key.weight, W_value.weight"),
        (
            {
                "parameters": {
                    "W_query.weight": torch.zeros(3, 3),
                    "W_key.weight": _W,
                    "W_value.weight": _W,
                }
            },
            "must have shape (2, 3), got (3, 3)",
        ),
        ({"parameters": [_W]}, "parameters must be a dict"),
        (
            {"parameters": {"W_query.weight": "x", "W_key.weight": _W, "W_value.weight": _W}},
            "must be a tensor of numbers",
        ),
    ],
    ids=["cfg_dict", "unknown_name", "partial", "wrong_shape", "not_a_dict", "not_numbers"],
)
def test_wrong_types_in_the_api_say_what_was_given_and_what_is_expected(
    kwargs: dict[str, Any], says: str
) -> None:
    with pytest.raises(AttentionInputError) as error:
        trace_gradients(BOOK_EMBEDDINGS, **kwargs)
    assert says in str(error.value)


def test_learning_rate_is_checked_and_the_global_generator_untouched() -> None:
    state = torch.get_rng_state()
    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    for bad in (0.0, -1.0, float("inf"), 1e9, "0.1"):
        with pytest.raises(AttentionInputError):
            learning_step(grads, bad)  # type: ignore[arg-type]
    assert torch.equal(torch.get_rng_state(), state)


def test_gradients_json_has_the_tokens_loss_every_gradient_and_the_graph() -> None:
    import json

    from attention.examples import BOOK_TOKENS
    from attention.gradients import gradients_json

    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    data = json.loads(gradients_json(grads, BOOK_TOKENS))
    assert data["tokens"] == list(BOOK_TOKENS) and data["loss"] == grads.loss
    assert data["gradients"]["W_query"] == grads.W_query.double().tolist()
    assert data["gradients"]["attn_scores_shape"] == [1, 6, 6]
    assert "b_query" not in data["gradients"]  # no bias: no gradient
    assert [node["name"] for node in data["graph"]["nodes"]] == grads.graph.names()
