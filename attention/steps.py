"""The ten steps of one forward pass, in order: one registry for every list of steps.

A causal attention layer goes from embeddings to context vectors in ten steps (chapter 3 of the
book). Each :class:`Step` names the trace fields it shows; each :class:`Field` says how the field
is shaped and labelled. Everything that lists the steps iterates over :data:`STEPS`::

    from attention.steps import STEPS, step_number
    [step.name for step in STEPS]        # "embeddings", "weights", "qkv", … "context"
    step_number("softmax")               # 8: the number a learner reads ("8 · Softmax")
    [f.name for f in FIELDS]             # inputs, W_query, b_query, … output: the export's order

Who reads it: the step page and the Train page (one tab per step, with the messages
``step.<name>.tab``, ``step.<name>.title``, ``step.<name>.body``), the export (one CSV per field,
its README line), the multi-head trace (:data:`PER_HEAD_FIELDS` get a head axis) and the
one-head view of a multi-head trace (:mod:`attention.head_trace`). Adding or moving a step is one
entry here, its messages (``ui/messages/step_by_step.py``) and its drawing (``ui/step_view.py``,
keyed by the step's name).

Pure data: no PyTorch needed, no Streamlit, no Plotly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "FIELDS",
    "PER_HEAD_FIELDS",
    "STEPS",
    "STEP_FIELDS",
    "Field",
    "Step",
    "step_named",
    "step_number",
]

Role = Literal["input", "weight", "step"]


@dataclass(frozen=True)
class Field:
    """One tensor of :class:`attention.AttentionTrace`, as the export and the lists need it.

    ``rows`` and ``cols`` say how a CSV labels the matrix: ``rows`` is "tokens", "features"
    (``x1 …``), "bias" (one row) or "context" (``z1 …``); ``cols`` is "tokens" or the prefix of
    the components (``q`` gives ``q1, q2 …``). ``shape`` is the one-head shape, as the
    ``AttentionTrace`` docstring writes it (``b`` batch, ``T`` tokens). ``per_head``: each head
    computes it on its own, so with several heads it gets a head axis ``(b, h, T, …)``.
    ``heads_only``: only a multi-head trace has it (None with one head). ``readme``: its line in
    the export's README.txt.
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


@dataclass(frozen=True)
class Step:
    """One step of the forward pass: its name (message keys ``step.<name>.*``) and its fields.

    ``title``: its English title (the app's ``step.<name>.title`` in English is this text, the
    notebook view writes it). ``formula``: what the step computes, in one line of plain text
    with the book's names (a notebook shows it as it is, without a maths renderer).
    """

    name: str
    fields: tuple[Field, ...]
    title: str
    formula: str


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


def _square(name: str, readme: str, *, per_head: bool = True) -> Field:
    """A (T, T) matrix of the step view: rows are queries, columns keys."""
    return Field(name, "step", "tokens", "tokens", _QUERY_KEY, "(b, T, T)", readme, per_head)


STEPS: tuple[Step, ...] = (
    Step(
        "embeddings",
        (
            Field(
                "inputs",
                "input",
                "tokens",
                "x",
                _TOKEN,
                "(b, T, d_in)",
                "the embedding vectors x, one row per token",
            ),
        ),
        title="The embedding table X",
        formula="X = inputs: one row x⁽ⁱ⁾ per token, shape (T, d_in)",
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
    ),
    Step(
        "qkv",
        (
            Field(
                "queries",
                "step",
                "tokens",
                "q",
                _TOKEN,
                "(b, T, d_out)",
                "query vectors q, one row per token",
                per_head=True,
            ),
            Field("keys", "step", "tokens", "k", _TOKEN, "(b, T, d_out)", "key vectors k", True),
            Field(
                "values", "step", "tokens", "v", _TOKEN, "(b, T, d_out)", "value vectors v", True
            ),
        ),
        title="Queries, keys and values",
        formula="Q = X W_query,  K = X W_key,  V = X W_value",
    ),
    Step(
        "scores",
        (_square("attn_scores", "raw scores q · k (rows = queries, columns = keys)"),),
        title="Raw attention scores Q Kᵀ",
        formula="attn_scores = Q Kᵀ:  ω_ij = q⁽ⁱ⁾ · k⁽ʲ⁾",
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
            ),
        ),
        title="The causal mask",
        formula="mask = triu(ones(T, T), diagonal=1):  1 where j > i (a future token)",
    ),
    Step(
        "masked",
        (_square("masked_scores", "scores with the future set to -inf"),),
        title="Masked scores",
        formula="masked_scores = attn_scores with −∞ where mask = 1",
    ),
    Step(
        "scaled",
        (_square("scaled_scores", "masked scores divided by sqrt(d_k)"),),
        title="Scaling by √d_k",
        formula="scaled_scores = masked_scores / √d_k,  d_k = keys.shape[-1]",
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
    ),
    Step(
        "dropout",
        (
            _square(
                "dropout_mask",
                "dropout's keep-mask: 1 = kept, 0 = dropped (only when dropout acts)",
            ),
            _square(
                "dropped_weights",
                "weights after dropout: kept ones multiplied by 1/(1-p), dropped ones 0",
            ),
        ),
        title="Dropout on the attention weights",
        formula="dropped_weights = attn_weights × m / (1 − p),  m ~ Bernoulli(1 − p)",
    ),
    Step(
        "context",
        (
            Field(
                "head_context",
                "step",
                "tokens",
                "z",
                _TOKEN,
                "(b, h, T, head_dim)",
                "each head's context vectors",
                heads_only=True,
            ),
            Field(
                "context",
                "step",
                "tokens",
                "z",
                _TOKEN,
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
            Field(
                "output",
                "step",
                "tokens",
                "o",
                _TOKEN,
                "(b, T, d_out)",
                "the layer's output: out_proj(context)",
            ),
        ),
        title="Context vectors",
        formula="context_vec = dropped_weights V:  z⁽ⁱ⁾ = Σ_{j≤i} a_ij v⁽ʲ⁾",
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


def step_number(name: str) -> int:
    """The step's number as a learner reads it (1 … 10): its position in :data:`STEPS`."""
    for number, step in enumerate(STEPS, start=1):
        if step.name == name:
            return number
    raise KeyError(f"no step named {name!r}; the steps are {[s.name for s in STEPS]}")


def step_named(name: str) -> Step:
    """The :class:`Step` called ``name`` (``KeyError`` naming the steps if there is none)."""
    return STEPS[step_number(name) - 1]
