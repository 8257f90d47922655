"""The ten steps of one forward pass, in order: each step declared once, with the code it runs.

Each :class:`Step` holds the trace fields it makes (:class:`Field`), the statements of the book's
``CausalAttention`` it stands for (``anchors``), its title and formula, and ``run``, its own
code. :func:`attention.forward.run_forward` runs them in order (the trace, the gradients, the bug
gallery); a variant replaces a step's ``run`` by name::

    [step.name for step in STEPS]        # "embeddings", "weights", "qkv", … "context"
    step_number("softmax")               # 8: the number a learner reads ("8 · Softmax")

Adding a step is one entry here, its messages (``ui/messages/step_by_step.py``) and how it is
shown (``viz/screens.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import torch

if TYPE_CHECKING:
    from .forward import ForwardState

__all__ = [
    "FIELDS",
    "GRADIENT_FIELDS",
    "PER_HEAD_FIELDS",
    "STEPS",
    "STEP_FIELDS",
    "Field",
    "Step",
    "StepFunction",
    "context_of",
    "part_of",
    "step_named",
    "step_number",
]

Role = Literal["input", "weight", "step"]
Part = Literal["inputs", "weights", "projections", "scores", "attention", "context"]
Made = dict[str, Any]  # what a step makes: its fields' tensors by name (None when absent)
StepFunction = Callable[["ForwardState"], Made]


@dataclass(frozen=True)
class Field:
    """One tensor of :class:`attention.AttentionTrace`, as the export and the lists need it.

    ``rows`` ("tokens", "features", "bias", "context") and ``cols`` ("tokens" or a prefix: ``q``
    gives ``q1, q2 …``) label its CSV. ``shape``: the one-head shape. ``per_head``: with several
    heads it gets a head axis; ``heads_only``: None with one head. ``readme``: its export line.
    """

    name: str
    role: Role
    rows: str
    cols: str
    corner: str
    shape: str
    readme: str
    per_head: bool = False
    heads_only: bool = False
    boolean: bool = False  # True/False values (a mask): no gradient


@dataclass(frozen=True)
class Step:
    """One step of the forward pass (message keys ``step.<name>.*``) and its fields.

    ``title``, ``formula``: English plain text; ``anchors`` find the book's statements; ``run``
    reads earlier steps from the :class:`~attention.forward.ForwardState` and returns exactly its
    fields; ``part`` groups steps on the backward page.
    """

    name: str
    fields: tuple[Field, ...]
    title: str
    formula: str
    anchors: tuple[str, ...]
    run: StepFunction
    part: Part

    @property
    def makes(self) -> tuple[str, ...]:
        """The names of the fields this step makes, in order."""
        return tuple(field.name for field in self.fields)


_TOKEN = "token"  # the corner of a table whose rows are tokens
_QUERY_KEY = "query \\ key"  # rows are queries, columns are keys


def _weight(name: str, letter: str, role_text: str) -> tuple[Field, Field]:
    """``W_<name>`` and ``b_<name>``: a projection's weight (d_in, d_out) and its bias."""
    weight = Field(
        f"W_{name}", "weight", "features", letter, f"W_{name}", "(d_in, d_out)", role_text
    )
    bias = Field(
        f"b_{name}",
        "weight",
        "bias",
        letter,
        f"b_{name}",
        "(d_out,)",
        f"{name} bias (only with qkv_bias)",
    )
    return weight, bias


def _tokens(name: str, letter: str, shape: str, readme: str, **flags: Any) -> Field:
    """A matrix whose rows are tokens (``flags``: ``role``, ``per_head``, ``heads_only``)."""
    return Field(name, flags.pop("role", "step"), "tokens", letter, _TOKEN, shape, readme, **flags)


def _square(name: str, readme: str, *, boolean: bool = False) -> Field:
    """A (T, T) matrix of the step view, one per head: rows are queries, columns keys."""
    return Field(
        name, "step", "tokens", "tokens", _QUERY_KEY, "(b, T, T)", readme, True, boolean=boolean
    )


# --- each step's code: the book's statement, on its own ------------------------------------------
# Shapes: one head ``(b, T, ·)``; the fused multi-head class adds a head axis ``(b, h, T, ·)``.


def _embeddings(state: ForwardState) -> Made:
    return {"inputs": state.inputs}  # (b, T, d_in): given, not computed


def _projection_weights(state: ForwardState) -> Made:
    made: Made = {}
    for name in ("query", "key", "value"):
        linear = getattr(state.layer, f"W_{name}")
        made[f"W_{name}"] = linear.weight.detach().T.clone()  # (d_in, d_out): x @ W, as in v1
        made[f"b_{name}"] = None if linear.bias is None else linear.bias.detach().clone()
    return made


def _projections(state: ForwardState) -> Made:
    layer, x = state.layer, state.inputs
    return {
        "keys": state.split_heads(layer.W_key(x)),  # (b, T, d_out) or (b, h, T, head_dim)
        "queries": state.split_heads(layer.W_query(x)),
        "values": state.split_heads(layer.W_value(x)),
    }


def _scores(state: ForwardState) -> Made:
    return {"attn_scores": state["queries"] @ state["keys"].transpose(-2, -1)}  # q_i · k_j


def _causal_mask(state: ForwardState) -> Made:
    num_tokens = state.num_tokens
    return {"mask": state.layer.mask.bool()[:num_tokens, :num_tokens]}  # (T, T), True = hide


def _masked(state: ForwardState) -> Made:
    return {"masked_scores": state["attn_scores"].masked_fill(state["mask"], -torch.inf)}


def _scaled(state: ForwardState) -> Made:
    # ÷ √d_k keeps the softmax from saturating as the key width grows
    return {"scaled_scores": state["masked_scores"] / state["keys"].shape[-1] ** 0.5}


def _softmax(state: ForwardState) -> Made:
    return {"attn_weights": torch.softmax(state["scaled_scores"], dim=-1)}  # rows sum to 1


def _dropout(state: ForwardState) -> Made:
    keep, dropped = state.drop(state["attn_weights"], state.dropping)
    return {"dropout_mask": keep, "dropped_weights": dropped}


def context_of(state: ForwardState, vectors: torch.Tensor) -> Made:
    """The context step on ``vectors`` (the book's: the values): ``dropped_weights @ vectors``; the
    fused class keeps ``head_context``, joins the heads and mixes them with ``out_proj``.
    """
    head_context = state["dropped_weights"] @ vectors  # (b, T, d) or (b, h, T, head_dim)
    out_proj = getattr(state.layer, "out_proj", None)
    if out_proj is None:
        return {
            "head_context": None,
            "context": head_context,
            "W_out": None,
            "b_out": None,
            "output": head_context,
        }
    context = state.join_heads(head_context)  # (b, T, d_out)
    return {
        "head_context": head_context,
        "context": context,
        "W_out": out_proj.weight.detach().T.clone(),
        "b_out": None if out_proj.bias is None else out_proj.bias.detach().clone(),
        "output": out_proj(context),  # (b, T, d_out)
    }


def _context(state: ForwardState) -> Made:
    return context_of(state, state["values"])


STEPS: tuple[Step, ...] = (
    Step(
        "embeddings",
        (
            _tokens(
                "inputs",
                "x",
                "(b, T, d_in)",
                "the embedding vectors x, one row per token",
                role="input",
            ),
        ),
        title="The embedding table X",
        formula="X = inputs: one row x⁽ⁱ⁾ per token, shape (T, d_in)",
        anchors=("def forward(self, x", "b, num_tokens, d_in = x.shape"),
        run=_embeddings,
        part="inputs",
    ),
    Step(
        "weights",
        (
            *_weight("query", "q", "query weights (x @ W_query = queries); rows x1…, columns q1…"),
            *_weight("key", "k", "key weights (x @ W_key = keys)"),
            *_weight("value", "v", "value weights (x @ W_value = values)"),
        ),
        title="The weight matrices W_query, W_key, W_value",
        formula="W_query, W_key, W_value: shape (d_in, d_out), nn.Linear's weights transposed",
        anchors=(
            "self.W_query = nn.Linear",
            "self.W_key = nn.Linear",
            "self.W_value = nn.Linear",
        ),
        run=_projection_weights,
        part="weights",
    ),
    Step(
        "qkv",
        (
            _tokens(
                "queries", "q", "(b, T, d_out)", "query vectors q, one row per token", per_head=True
            ),
            _tokens("keys", "k", "(b, T, d_out)", "key vectors k", per_head=True),
            _tokens("values", "v", "(b, T, d_out)", "value vectors v", per_head=True),
        ),
        title="Queries, keys and values",
        formula="Q = X W_query,  K = X W_key,  V = X W_value",
        anchors=("keys = self.W_key(x)", "queries = self.W_query(x)", "values = self.W_value(x)"),
        run=_projections,
        part="projections",
    ),
    Step(
        "scores",
        (_square("attn_scores", "raw scores q · k (rows = queries, columns = keys)"),),
        title="Raw attention scores Q Kᵀ",
        formula="attn_scores = Q Kᵀ:  ω_ij = q⁽ⁱ⁾ · k⁽ʲ⁾",
        anchors=("attn_scores = queries @ keys.transpose(1, 2)",),
        run=_scores,
        part="scores",
    ),
    Step(
        "mask",
        (
            Field(
                "mask",
                "step",
                "tokens",
                "tokens",
                _QUERY_KEY,
                "(T, T)",
                "the causal mask: 1 = a future token, hidden",
                boolean=True,
            ),
        ),
        title="The causal mask",
        formula="mask = triu(ones(T, T), diagonal=1):  1 where j > i (a future token)",
        anchors=('"mask", torch.triu(', "self.mask.bool()[:num_tokens, :num_tokens]"),
        run=_causal_mask,
        part="scores",
    ),
    Step(
        "masked",
        (_square("masked_scores", "scores with the future set to -inf"),),
        title="Masked scores",
        formula="masked_scores = attn_scores with −∞ where mask = 1",
        anchors=("attn_scores.masked_fill_(",),
        run=_masked,
        part="scores",
    ),
    Step(
        "scaled",
        (_square("scaled_scores", "masked scores divided by sqrt(d_k)"),),
        title="Scaling by √d_k",
        formula="scaled_scores = masked_scores / √d_k,  d_k = keys.shape[-1]",
        anchors=("attn_scores / keys.shape[-1] ** 0.5",),
        run=_scaled,
        part="scores",
    ),
    Step(
        "softmax",
        (
            _square(
                "attn_weights", "softmax of each row: the attention weights (each row sums to 1)"
            ),
        ),
        title="Softmax: the attention weights",
        formula="attn_weights = softmax(scaled_scores, dim=-1): each row sums to 1",
        anchors=("torch.softmax(",),
        run=_softmax,
        part="attention",
    ),
    Step(
        "dropout",
        (
            _square(
                "dropout_mask",
                "dropout's keep-mask: 1 = kept, 0 = dropped (only when dropout acts)",
                boolean=True,
            ),
            _square(
                "dropped_weights",
                "weights after dropout: kept ones multiplied by 1/(1-p), dropped ones 0",
            ),
        ),
        title="Dropout on the attention weights",
        formula="dropped_weights = attn_weights × m / (1 − p),  m ~ Bernoulli(1 − p)",
        anchors=("self.dropout = nn.Dropout(", "attn_weights = self.dropout(attn_weights)"),
        run=_dropout,
        part="attention",
    ),
    Step(
        "context",
        (
            _tokens(
                "head_context",
                "z",
                "(b, h, T, head_dim)",
                "each head's context vectors",
                heads_only=True,
            ),
            _tokens(
                "context",
                "z",
                "(b, T, d_out)",
                "context vectors z = weights @ values (heads joined)",
            ),
            Field(
                "W_out",
                "weight",
                "context",
                "o",
                "W_out",
                "(d_out, d_out)",
                "out_proj weights of MultiHeadAttention (context @ W_out + b_out = output)",
                heads_only=True,
            ),
            Field(
                "b_out",
                "weight",
                "bias",
                "o",
                "b_out",
                "(d_out,)",
                "out_proj bias of MultiHeadAttention",
                heads_only=True,
            ),
            _tokens("output", "o", "(b, T, d_out)", "the layer's output: out_proj(context)"),
        ),
        title="Context vectors",
        formula="context_vec = dropped_weights V:  z⁽ⁱ⁾ = Σ_{j≤i} a_ij v⁽ʲ⁾",
        anchors=("context_vec = attn_weights @ values", "return context_vec"),
        run=_context,
        part="context",
    ),
)

FIELDS: tuple[Field, ...] = tuple(field for step in STEPS for field in step.fields)
"""Every field of the trace the steps show, in the order of the forward pass (the export's)."""

PER_HEAD_FIELDS: tuple[str, ...] = tuple(field.name for field in FIELDS if field.per_head)
"""The fields each head computes on its own: with several heads they get a head axis."""

STEP_FIELDS: tuple[str, ...] = tuple(
    field.name for field in FIELDS if field.role == "step" and not field.heads_only
)
"""The intermediate results of every forward pass, queries to output (none is a weight)."""


def part_of(field: Field) -> Part:
    """The part of the pass ``field`` belongs to: its step's, or "weights" for a weight."""
    if field.role == "weight":
        return "weights"
    return next(step.part for step in STEPS if field in step.fields)


GRADIENT_FIELDS: tuple[str, ...] = tuple(field.name for field in FIELDS if not field.boolean)
"""The fields that get a gradient in the backward pass (every one but the masks), forward order."""


def step_number(name: str) -> int:
    """The step's number as a learner reads it (1 … 10): its position in :data:`STEPS`."""
    for number, step in enumerate(STEPS, start=1):
        if step.name == name:
            return number
    raise KeyError(f"no step named {name!r}; the steps are {[s.name for s in STEPS]}")


def step_named(name: str) -> Step:
    """The :class:`Step` called ``name`` (``KeyError`` naming the steps if there is none)."""
    return STEPS[step_number(name) - 1]
