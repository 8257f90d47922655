"""The backward pass: how much the loss changes with every step of one forward pass.

The book prints its context vectors with ``grad_fn=<UnsafeViewBackward0>``: each tensor remembers
the operation that made it, back to the weights (the *autograd graph*); ``loss.backward()`` walks
it and leaves ``d loss / d W`` in every ``.grad``::

    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5), loss="sum")
    grads.W_query            # (d_in, d_out): d loss / d W_query, in the trace's x @ W layout
    grads.attn_scores[0]     # (T, T): exactly 0 above the diagonal, where the mask hid a score
    grads.trace              # the AttentionTrace of the same forward pass (same dropout mask)
    grads.graph.to_dot()     # the autograd graph, as Graphviz DOT text

It runs the trace's forward pass (:func:`attention.trace.run_traced_forward`) with autograd on,
so the graph is the book's module's, and asks autograd for every step's gradient at once
(``torch.autograd.grad``).

Why some gradients are exactly zero: a masked score became the weight 0, and softmax's
derivative ``∂w_j/∂s_k = w_j (δ_jk − w_k)`` is 0 when ``w_j = 0``; a dropped weight was
multiplied by 0, so is its gradient (a kept one's by ``1/(1−p)``).

Losses: ``"sum"``, ``"squared_distance"`` (to a target) or any callable ``output → scalar``
(or a new entry of :data:`LOSS_BUILDERS`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch.nn as nn

from .autograd_graph import AutogradGraph, GraphNode, build_graph
from .modules import MultiHeadAttentionWrapper
from .setting_ranges import LOSS_NAMES, MAX_DESCENT_STEPS
from .steps import FIELDS, GRADIENT_FIELDS, PER_HEAD_FIELDS
from .trace import (
    AttentionConfig,
    AttentionTrace,
    _traced_forward,
    check_config_type,
    checked_inputs,
    json_ready,
    trace_of,
)
from .validate import (
    AttentionInputError,
    check_choice,
    check_instance,
    check_int,
    check_labels,
    check_real,
    check_target,
    guard_loss_function,
)

__all__ = [
    "BACKWARD_STEPS",
    "GRADIENT_FIELDS",
    "LOSS_BUILDERS",
    "LOSS_NAMES",
    "MAX_DESCENT_STEPS",
    "MAX_DESCENT_WORK",
    "MAX_GRADIENT_CELLS",
    "AutogradGraph",
    "check_descent_size",
    "check_learning_rate",
    "Descent",
    "first_order_change",
    "format_weight_gradients",
    "forward_with_graph",
    "gradient_descent",
    "gradient_facts",
    "gradients_json",
    "GradientFacts",
    "GradientTrace",
    "GraphNode",
    "learning_step",
    "make_loss",
    "max_descent_steps",
    "softmax_row_jacobian",
    "SoftmaxRowJacobian",
    "squared_distance_loss",
    "sum_loss",
    "trace_gradients",
]

LossFunction = Callable[[torch.Tensor], torch.Tensor]  # output (b, T, d_out) -> scalar

# One backward pass keeps the trace, a gradient of the same size for each step and autograd's saved
# tensors: about three times a trace. The limit keeps one pass to tens of megabytes (1024 tokens).
MAX_GRADIENT_CELLS = 2**20
# Learning steps × attention cells: 200 steps at 6 tokens, 64 at 256 tokens, 4 at 1024 tokens.
MAX_DESCENT_WORK = 2**22
MAX_LEARNING_RATE = 100.0

# The steps whose tensors are computed from earlier ones (not leaves), in forward order: each node
# of the autograd graph belongs to the first of these whose tensor it helps to make.
_COMPUTED_STEPS = tuple(
    field.name for field in FIELDS if field.role == "step" and not field.boolean
)
# The way the gradient travels, from the context vectors back to the weights (what the page shows).
BACKWARD_STEPS = (
    "context",
    "dropped_weights",
    "attn_weights",
    "scaled_scores",
    "masked_scores",
    "attn_scores",
    "queries",
    "keys",
    "values",
    "W_query",
    "W_key",
    "W_value",
)
# nn.Linear attribute of the book's classes -> (weight field, bias field) of the trace
_LINEAR_FIELDS = {
    "W_query": ("W_query", "b_query"),
    "W_key": ("W_key", "b_key"),
    "W_value": ("W_value", "b_value"),
    "out_proj": ("W_out", "b_out"),
}


# --- losses ------------------------------------------------------------------------------------


def sum_loss(output: torch.Tensor) -> torch.Tensor:
    """The sum of every output entry: ``d loss / d output`` is 1 everywhere (the simplest start)."""
    return output.sum()


def squared_distance_loss(target: torch.Tensor) -> LossFunction:
    """``mean_t ‖output_t − target_t‖²`` over the ``b · T`` context vectors: its gradient points
    away from the target, so a step against it moves the output toward it.
    """

    def loss(output: torch.Tensor) -> torch.Tensor:
        vectors = output.shape[0] * output.shape[1]  # b · T context vectors
        return ((output - target) ** 2).sum() / vectors

    return loss


def _check_target(target: Any, output_shape: torch.Size) -> torch.Tensor:
    """The squared distance's target (see :func:`check_target`), which must fit the output."""
    tensor = check_target(target)  # float32, finite, its size checked before a copy
    if tensor is None:
        raise AttentionInputError(
            "The squared distance needs a target context vector (target=…).", field="target"
        )
    try:
        shape = torch.broadcast_shapes(tensor.shape, output_shape)
    except RuntimeError:
        shape = None
    if shape != output_shape:
        width = output_shape[-1]
        raise AttentionInputError(
            f"The target has shape {tuple(tensor.shape)} but the output is "
            f"{tuple(output_shape)}: give {width} number{'s' if width != 1 else ''}, one per "
            "feature of a context vector (or one vector per token).",
            field="target",
        )
    return tensor


# name -> builder(target, output shape) -> loss function. A new named loss is one more entry.
LOSS_BUILDERS: dict[str, Callable[[Any, torch.Size], LossFunction]] = {
    "sum": lambda _target, _shape: sum_loss,
    "squared_distance": lambda target, shape: squared_distance_loss(_check_target(target, shape)),
}
assert tuple(LOSS_BUILDERS) == LOSS_NAMES, "each loss the page offers has its builder"


def make_loss(
    loss: str | LossFunction, output_shape: torch.Size, target: Any = None
) -> tuple[str, LossFunction]:
    """The loss's name and function: a name of :data:`LOSS_NAMES`, or a callable (named "custom")."""
    if callable(loss):
        return getattr(loss, "__name__", "custom"), loss
    loss = check_choice("loss", loss, LOSS_NAMES, " or a function output -> scalar")
    return loss, LOSS_BUILDERS[loss](target, output_shape)


def _scalar_loss(value: Any) -> torch.Tensor:
    if not isinstance(value, torch.Tensor) or value.numel() != 1:
        raise AttentionInputError(
            "The loss must return one number (a scalar tensor), got "
            f"{type(value).__name__}{tuple(value.shape) if isinstance(value, torch.Tensor) else ''}.",
            field="loss",
        )
    if value.grad_fn is None:
        raise AttentionInputError(
            "The loss does not depend on the output, so it has no gradient: compute it from the "
            "output tensor it is given.",
            field="loss",
        )
    return value if value.dim() == 0 else value.reshape(())  # (1, 1) -> ()


# --- the result --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradientTrace:
    """``d loss / d field`` for every tensor of one forward pass, plus the pass and its graph.

    Named and shaped as :class:`~attention.trace.AttentionTrace`'s fields, weights in its ``x @
    W`` layout (the transpose of ``weight.grad``); ``parameters``/``parameter_grads``: the
    module's own, by ``named_parameters()`` name: what a learning step updates.
    """

    trace: AttentionTrace
    loss_name: str
    loss: float
    graph: AutogradGraph
    field_gradients: dict[str, torch.Tensor | None] = field(repr=False)  # by GRADIENT_FIELDS
    parameters: dict[str, torch.Tensor] = field(repr=False)
    parameter_grads: dict[str, torch.Tensor] = field(repr=False)
    loss_function: LossFunction = field(repr=False)

    def __getattr__(self, name: str) -> torch.Tensor | None:
        """``grads.W_query``, ``grads.attn_scores``…: the gradient of the trace's field ``name``."""
        if name in GRADIENT_FIELDS:
            return self.__dict__["field_gradients"][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def gradients(self) -> dict[str, torch.Tensor]:
        """Every gradient that is set, by field name, in forward order."""
        return {
            name: value
            for name, value in self.field_gradients.items()
            if isinstance(value, torch.Tensor)
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the loss, the config, every gradient (nested lists) and the graph."""
        result: dict[str, Any] = {
            "loss_name": self.loss_name,
            "loss": self.loss,
            "config": self.trace.config.to_dict(),
            "weights_layout": "x @ W: (d_in, d_out), the transpose of nn.Linear's weight.grad",
        }
        gradients = {}
        for name, tensor in self.gradients().items():
            gradients[name] = json_ready(tensor)
            gradients[f"{name}_shape"] = list(tensor.shape)
        result["gradients"] = gradients
        result["graph"] = self.graph.to_dict()
        return result


def _check_size(x: torch.Tensor, cfg: AttentionConfig) -> None:
    batch, num_tokens, _ = x.shape
    cells = batch * cfg.num_heads * num_tokens * num_tokens
    if cells > MAX_GRADIENT_CELLS:
        raise AttentionInputError(
            f"This is too large for the backward pass: batch × heads × tokens² = {batch} × "
            f"{cfg.num_heads} × {num_tokens}² = {cells:,} attention weights (at most "
            f"{MAX_GRADIENT_CELLS:,}, about {math.isqrt(MAX_GRADIENT_CELLS)} tokens with one "
            "head). Use fewer tokens or heads.",
            field="inputs",
            code="backward_too_large",
            params={
                "batch": batch,
                "heads": cfg.num_heads,
                "tokens": num_tokens,
                "cells": cells,
                "maximum": MAX_GRADIENT_CELLS,
                "tokens_one_head": math.isqrt(MAX_GRADIENT_CELLS),
            },
        )


def _leaf_steps(module: nn.Module, x: torch.Tensor) -> dict[int, tuple[str, int | None]]:
    """id of each leaf tensor → (its trace field, its head in the wrapper or None)."""
    steps: dict[int, tuple[str, int | None]] = {id(x): ("inputs", None)}
    wrapper = isinstance(module, MultiHeadAttentionWrapper)
    for head, layer in enumerate(module.heads if wrapper else [module]):
        for name, (weight_field, bias_field) in _LINEAR_FIELDS.items():
            linear = getattr(layer, name, None)  # out_proj: the fused class only
            if linear is None:
                continue
            index = head if wrapper else None
            steps[id(linear.weight)] = (weight_field, index)
            if linear.bias is not None:
                steps[id(linear.bias)] = (bias_field, index)
    return steps


def _parameter_gradients(
    module: nn.Module, x: torch.Tensor, grad_of: Mapping[int, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """Weight and bias gradients (``grad_of``: by the tensor's id) by trace field, in its layout:
    ``x @ W`` (the transpose of ``weight.grad``), stacked per head for the wrapper."""
    found: dict[str, list[torch.Tensor]] = {}
    for tensor_id, (name, _head) in _leaf_steps(module, x).items():
        if name != "inputs":
            grad = grad_of[tensor_id]
            found.setdefault(name, []).append(grad.T if name.startswith("W_") else grad)
    wrapper = isinstance(module, MultiHeadAttentionWrapper)
    return {name: torch.stack(parts) if wrapper else parts[0] for name, parts in found.items()}


def trace_gradients(
    inputs: Any,
    cfg: AttentionConfig | None = None,
    loss: str | LossFunction = "sum",
    *,
    target: Any = None,
    parameters: Mapping[str, torch.Tensor] | None = None,
) -> GradientTrace:
    """Run the book's layer on ``inputs``, compute a loss of its output and send it back.

    ``loss``: ``"sum"``, ``"squared_distance"`` (with ``target``: ``(d_out,)``, ``(T, d_out)`` or
    ``(b, T, d_out)``) or a function ``output (b, T, d_out) → scalar``. ``parameters`` replace
    the seed's (after a learning step), by ``named_parameters()`` names.

    The weight gradients equal the book's recipe's (``torch.manual_seed(seed)``, the class,
    ``loss(module(x)).backward()``; ``W_query`` as ``weight.grad.T``) and ``trace`` is bitwise
    :func:`trace_attention`'s. Raises :class:`AttentionInputError` for bad inputs, settings,
    target or loss, or numbers that overflow.
    """
    check_config_type(cfg)
    if not callable(loss):
        check_choice("loss", loss, LOSS_NAMES, " or a function output -> scalar")
    loss = guard_loss_function(loss) if callable(loss) else loss  # its errors, in words
    target = check_target(target)  # (…, d_out) float32 or None, its size checked before a copy
    x, cfg = checked_inputs(inputs, cfg)
    _check_size(x, cfg)
    x = x.detach().clone().requires_grad_(True)  # a leaf: d loss / d inputs is filled in too
    with torch.enable_grad():
        module, traced = _traced_forward(x, cfg, parameters)
        output = traced["output"]
        _check_finite_output(output)
        loss_name, loss_function = make_loss(loss, output.shape, target)
        loss_value = _scalar_loss(loss_function(output))
        if not bool(torch.isfinite(loss_value)):
            raise AttentionInputError(
                "The loss is not a finite number.", field="loss", code="loss_not_finite"
            )
        graph, found, grad_of = _backward(loss_value, traced, module, x)
    parameters = dict(module.named_parameters())
    return GradientTrace(
        trace=trace_of(cfg, traced),
        loss_name=loss_name,
        loss=float(loss_value.detach()),
        graph=graph,
        field_gradients={name: found.get(name) for name in GRADIENT_FIELDS},  # None where unset
        parameters={name: p.detach().clone() for name, p in parameters.items()},
        parameter_grads={name: grad_of[id(p)] for name, p in parameters.items()},
        loss_function=loss_function,
    )


def _check_finite_output(output: torch.Tensor) -> None:
    if not bool(torch.isfinite(output).all()):
        raise AttentionInputError(
            "The numbers overflowed float32 on the way through the layer; use smaller "
            "embeddings (or, after learning steps, a smaller learning rate).",
            field="inputs",
            code="overflow_backward",
        )


def _backward(
    loss_value: torch.Tensor,
    traced: Mapping[str, Any],
    module: nn.Module,
    x: torch.Tensor,
) -> tuple[AutogradGraph, dict[str, torch.Tensor], dict[int, torch.Tensor]]:
    """Send ``loss_value`` back: the graph, ``d loss / d`` every trace field (by name) and every
    leaf tensor (by id), zeros where the loss does not reach.

    The wrapper's per-head steps are stacked for the trace off the loss's path: their gradient is
    the stack of its heads' own (each head's pass under ``traced["heads"]``).
    """
    steps = {name: traced[name] for name in _COMPUTED_STEPS if traced.get(name) is not None}
    graph = build_graph(loss_value, steps, _leaf_steps(module, x))
    heads = traced.get("heads") or ()
    stacked = steps.keys() & {*PER_HEAD_FIELDS, "head_context"} if heads else set()
    sources = {  # a head's context is its own head_context
        name: [head["context" if name == "head_context" else name] for head in heads]
        if name in stacked
        else [tensor]
        for name, tensor in steps.items()
    }
    leaves = [x, *module.parameters()]
    tensors = [*leaves, *(tensor for listed in sources.values() for tensor in listed)]
    found = iter(
        torch.autograd.grad(loss_value, tensors, allow_unused=True, materialize_grads=True)
    )
    grad_of = {id(leaf): next(found) for leaf in leaves}
    fields = {"inputs": grad_of[id(x)], **_parameter_gradients(module, x, grad_of)}
    for name, listed in sources.items():
        parts = [next(found) for _ in listed]
        fields[name] = torch.stack(parts, dim=1) if name in stacked else parts[0]  # (b, h, …)
    return graph, fields, grad_of


def forward_with_graph(inputs: Any, cfg: AttentionConfig | None = None) -> torch.Tensor:
    """The layer's output with its autograd graph, as the book's module returns it
    (``tensor([...], grad_fn=<UnsafeViewBackward0>)``).
    """
    x, cfg = checked_inputs(inputs, cfg)
    with torch.enable_grad():
        _module, traced = _traced_forward(x, cfg)
    return traced["output"]


# --- what the zeros say ------------------------------------------------------------------------


@dataclass(frozen=True)
class GradientFacts:
    """The exact zeros and the 1/(1−p) of one backward pass: the largest ``|gradient|`` on the
    hidden cells and the dropped weights (0.0 exactly), and the kept weights' ratio ``d loss / d
    attn_weights ÷ d loss / d dropped`` off ``dropout_scale``.
    """

    hidden_cells: int
    hidden_max_abs: float
    dropped_cells: int
    dropped_max_abs: float
    kept_cells: int
    dropout_scale: float
    kept_ratio_max_error: float


def gradient_facts(grads: GradientTrace) -> GradientFacts:
    """Measure where the gradients are zero, and the ratio on kept weights (see GradientFacts)."""
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    trace = grads.trace
    hidden = trace.mask.expand_as(trace.attn_scores)  # (…, T, T) bool, True above the diagonal
    hidden_max = max(
        float(getattr(grads, name)[hidden].abs().max()) if bool(hidden.any()) else 0.0
        for name in ("attn_scores", "masked_scores", "scaled_scores")
    )
    dropped_cells = kept_cells = 0
    dropped_max = ratio_error = 0.0
    if trace.dropout_mask is not None:
        dropped = ~trace.dropout_mask
        dropped_cells = int(dropped.sum())
        if dropped_cells:
            dropped_max = float(grads.attn_weights[dropped].abs().max())
        kept = trace.dropout_mask & (grads.dropped_weights != 0)
        kept_cells = int(trace.dropout_mask.sum())
        if bool(kept.any()):
            ratio = grads.attn_weights[kept].double() / grads.dropped_weights[kept].double()
            ratio_error = float((ratio - trace.dropout_scale).abs().max())
    return GradientFacts(
        hidden_cells=int(hidden.sum()),
        hidden_max_abs=hidden_max,
        dropped_cells=dropped_cells,
        dropped_max_abs=dropped_max,
        kept_cells=kept_cells,
        dropout_scale=trace.dropout_scale,
        kept_ratio_max_error=ratio_error,
    )


@dataclass(frozen=True)
class SoftmaxRowJacobian:
    """Softmax's derivative for one query row: how the scores' gradient is made.

    Over the visible keys (a hidden key has ``w = 0``, so a zero row and column), with ``g = d
    loss / d attn_weights``: ``jacobian = diag(w) − w wᵀ``, ``weighted_mean = Σ_k w_k g_k`` and
    ``result = jacobian @ g = w_j (g_j − weighted_mean)``, i.e. ``d loss / d scaled_scores``.
    """

    row: int
    keys: tuple[int, ...]
    weights: torch.Tensor  # (n,)
    upstream: torch.Tensor  # (n,)
    jacobian: torch.Tensor  # (n, n)
    weighted_mean: float
    result: torch.Tensor  # (n,)


def softmax_row_jacobian(
    grads: GradientTrace, row: int, *, batch: int = 0, head: int | None = None
) -> SoftmaxRowJacobian:
    """The softmax Jacobian of query ``row`` (0-based) and the product that gives its gradient."""
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    trace = grads.trace
    row = check_int("row", row, 0, trace.num_tokens - 1, "a query position")
    batch = check_int("batch", batch, 0, trace.inputs.shape[0] - 1, "a batch item")
    if head is not None:
        head = check_int("head", head, 0, trace.config.num_heads - 1, "a head, from 0")
    weights, upstream = trace.attn_weights[batch], grads.attn_weights[batch]
    if weights.dim() == 3:  # several heads: (h, T, T)
        weights, upstream = weights[head or 0], upstream[head or 0]
    visible = (~trace.mask[row]).nonzero().flatten()  # the keys j ≤ row
    w = weights[row, visible].double()  # (n,)
    g = upstream[row, visible].double()  # (n,)
    jacobian = torch.diag(w) - torch.outer(w, w)  # (n, n): ∂w_j/∂s_k
    return SoftmaxRowJacobian(
        row=row,
        keys=tuple(int(k) for k in visible.tolist()),
        weights=w,
        upstream=g,
        jacobian=jacobian,
        weighted_mean=float((w * g).sum()),
        result=jacobian @ g,
    )


# --- learning: W ← W − lr · d loss / d W -----------------------------------------------------


def check_learning_rate(learning_rate: Any) -> float:
    """A learning rate: a finite number in ``(0, MAX_LEARNING_RATE]``."""
    value = check_real("learning_rate", learning_rate, "a number")  # 10**5000 included
    if not math.isfinite(value) or not 0.0 < value <= MAX_LEARNING_RATE:
        raise AttentionInputError(
            f"The learning rate must be above 0 and at most {MAX_LEARNING_RATE:g}, got {value}.",
            field="learning_rate",
            code="learning_rate_range",
            params={"maximum": MAX_LEARNING_RATE, "value": value},
        )
    return value


def learning_step(grads: GradientTrace, learning_rate: float) -> GradientTrace:
    """One step ``W ← W − lr · d loss / d W`` on every parameter, then the same pass and loss again.

    The same inputs and seed give the same dropout mask, so the losses differ only by the step
    (to first order by ``−lr · Σ (d loss / d W)²``).
    """
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    lr = check_learning_rate(learning_rate)
    updated = {
        name: value - lr * grads.parameter_grads[name] for name, value in grads.parameters.items()
    }
    after = trace_gradients(
        grads.trace.inputs, grads.trace.config, grads.loss_function, parameters=updated
    )
    return replace(after, loss_name=grads.loss_name)


@dataclass(frozen=True)
class Descent:
    """Several learning steps, the loss after each (``losses[k]``), the seed's pass (``start``) and
    the last two (``before``, ``after``); ``diverged``: a further step overflowed (too large a
    learning rate).
    """

    learning_rate: float
    start: GradientTrace
    before: GradientTrace
    after: GradientTrace
    losses: tuple[float, ...]
    diverged: bool = False

    @property
    def steps(self) -> int:
        return len(self.losses) - 1


def max_descent_steps(cells: int) -> int:
    """How many learning steps :func:`gradient_descent` takes at most when a pass has ``cells``
    attention weights (batch × heads × T × T): 200 at 6 tokens, 64 at 256, 4 at 1024."""
    cells = check_int("cells", cells, 0, 2**62, "a number of attention weights")
    return max(1, min(MAX_DESCENT_STEPS, MAX_DESCENT_WORK // max(1, cells)))


def check_descent_size(grads: GradientTrace, steps: int) -> None:
    """Refuse more learning steps than :func:`max_descent_steps` allows at this size."""
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    steps = check_int("steps", steps, 0, MAX_DESCENT_STEPS, "the number of learning steps")
    trace = grads.trace
    limit = max_descent_steps(trace.attn_weights.numel())
    if steps > limit:
        raise AttentionInputError(
            f"{steps} learning steps on {trace.num_tokens} tokens is too much work: at most "
            f"{limit} steps at this size.",
            field="steps",
            code="too_many_steps",
            params={"steps": steps, "tokens": trace.num_tokens, "limit": limit},
        )


def gradient_descent(
    inputs: Any,
    cfg: AttentionConfig | None = None,
    loss: str | LossFunction = "sum",
    *,
    target: Any = None,
    learning_rate: float = 0.1,
    steps: int = 1,
) -> Descent:
    """``steps`` learning steps from the seed's weights, every pass with the same dropout mask."""
    lr = check_learning_rate(learning_rate)
    steps = check_int("steps", steps, 0, MAX_DESCENT_STEPS, "the number of learning steps")
    start = trace_gradients(inputs, cfg, loss, target=target)
    check_descent_size(start, steps)
    before = after = start
    losses = [start.loss]
    for _ in range(steps):
        try:
            following = learning_step(after, lr)
        except AttentionInputError:
            return Descent(lr, start, before, after, tuple(losses), diverged=True)
        before, after = after, following
        losses.append(after.loss)
    return Descent(lr, start, before, after, tuple(losses))


def gradients_json(grads: GradientTrace, tokens: Sequence[str]) -> str:
    """The backward pass as JSON text: the tokens, the loss, every gradient and the graph."""
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    check_labels(tokens, grads.trace.num_tokens)
    return json.dumps({"tokens": list(tokens), **grads.to_dict()})


def first_order_change(grads: GradientTrace, learning_rate: float) -> float:
    """The change one step predicts to first order, ``−lr · Σ (d loss / d θ)²`` (Taylor); the gap to
    the real change is the curvature.
    """
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    lr = check_learning_rate(learning_rate)
    squares = sum(float((grad.double() ** 2).sum()) for grad in grads.parameter_grads.values())
    return -lr * squares


# --- text for the command line -------------------------------------------------------------


def format_weight_gradients(grads: GradientTrace) -> str:
    """The loss and the weight gradients as ``python -m attention --grad`` prints them."""
    check_instance("grads", grads, GradientTrace, " (from trace_gradients)")
    lines = [
        f"loss ({grads.loss_name}): {grads.loss:.4f}",
        "d loss / d W in the layout x @ W, (d_in, d_out): the transpose of module.W_query.weight.grad",
    ]
    for name in ("W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "W_out", "b_out"):
        tensor = getattr(grads, name)
        if tensor is not None:
            lines.append(f"d loss / d {name}:\n{tensor}")
    return "\n".join(lines)
