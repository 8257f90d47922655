"""Trace one forward pass of causal attention and keep every intermediate tensor.

``trace_attention(inputs, cfg)`` does what the book's recipe does::

    torch.manual_seed(cfg.seed)
    module = CausalAttention(d_in, cfg.d_out, context_length, cfg.dropout, cfg.qkv_bias)
    module.train(cfg.training)
    output = module(batch)

(or a multi-head class when ``num_heads > 1``) and returns every step on the way. It builds the
book's module and runs its own layers through the steps of :mod:`attention.steps`
(:func:`attention.forward.run_forward`); the tests pin ``trace.output`` to ``module(batch)``
bitwise.

Randomness is private: the weights and the dropout mask come from a ``torch.Generator`` seeded
with ``cfg.seed`` (the stream of ``torch.manual_seed(cfg.seed)``). Torch's global generator is
never touched, so traces in Streamlit's threads do not disturb each other; no lock is needed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import torch
import torch.nn as nn

from .dropout import dropout_scale
from .forward import run_forward
from .head_split import splits_evenly
from .modules import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper
from .randomness import draws_from, private_generator
from .steps import STEP_FIELDS
from .validate import (
    MAX_HEADS,
    MAX_TOKENS,
    MAX_WIDTH,
    AttentionInputError,
    check_attention_size,
    check_bool,
    check_dropout,
    check_float32_module,
    check_generator,
    check_int,
    check_module_size,
    check_seed,
    check_traced_input,
    check_variant,
    describe,
    to_input_tensor,
)
from .window import sliding_window_step

__all__ = [
    "AttentionConfig",
    "AttentionTrace",
    "trace_attention",
    "build_module",
    "run_traced_forward",
    "trace_module",
    "config_of",
    "json_ready",
    "STEP_FIELDS",
]


@dataclass(frozen=True)
class AttentionConfig:
    """Settings of one attention layer. Defaults are the book's chapter-3 example."""

    d_out: int = 2  # output width (per head for the wrapper, total for the fused class)
    dropout: float = 0.0  # probability of dropping an attention weight (training mode only)
    seed: int = 123  # as torch.manual_seed(seed) before building the layer: weights and dropout
    qkv_bias: bool = False  # add a bias to the query/key/value projections
    training: bool = True  # dropout acts only in training mode, as in PyTorch
    context_length: int | None = None  # mask size; None means "the number of tokens"
    num_heads: int = 1  # 1: CausalAttention; more: a multi-head class
    variant: str = "fused"  # "fused": MultiHeadAttention; "wrapper": MultiHeadAttentionWrapper
    window: int | None = None  # None: the book's causal mask; k: each token sees its last k tokens

    def validated(self, num_tokens: int | None = None) -> AttentionConfig:
        """Return a checked copy (``context_length`` filled in), or raise AttentionInputError.

        The copy is marked (an attribute, ignored by ``==`` and ``hash``), so the builders trust
        a checked config instead of checking again.
        """
        if getattr(self, "_checked", False) and (
            num_tokens is None
            or (self.context_length is not None and num_tokens <= self.context_length)
        ):
            return self
        d_out = check_int("d_out", self.d_out, 1, MAX_WIDTH, "the output width, at least 1")
        num_heads = check_int("num_heads", self.num_heads, 1, MAX_HEADS, "the number of heads")
        variant = check_variant(self.variant)
        if num_heads > 1 and variant == "fused" and not splits_evenly(d_out, num_heads):
            raise AttentionInputError(
                f"d_out = {d_out} cannot be split evenly into {num_heads} heads: the fused "
                "MultiHeadAttention gives each head d_out / num_heads features, so d_out must be "
                "divisible by num_heads.",
                field="d_out",
                code="d_out_heads_split",
                params={"d_out": d_out, "heads": num_heads},
            )
        if num_heads > 1 and variant == "wrapper" and d_out * num_heads > MAX_WIDTH:
            raise AttentionInputError(
                f"d_out × num_heads = {d_out * num_heads} is too wide (at most {MAX_WIDTH}).",
                field="d_out",
                code="heads_too_wide",
                params={"width": d_out * num_heads, "maximum": MAX_WIDTH},
            )
        context_length = self.context_length
        if context_length is None:
            context_length = num_tokens
        if context_length is not None:
            context_length = check_int(
                "context_length", context_length, 1, MAX_TOKENS, "the size of the causal mask"
            )
            if num_tokens is not None and num_tokens > context_length:
                raise AttentionInputError(
                    f"The input has {num_tokens} tokens but context_length is {context_length}: "
                    "the causal mask only covers context_length positions.",
                    field="context_length",
                    code="longer_than_context",
                    params={"tokens": num_tokens, "context": context_length},
                )
        checked = AttentionConfig(
            d_out=d_out,
            dropout=check_dropout(self.dropout),
            seed=check_seed(self.seed),
            qkv_bias=check_bool("qkv_bias", self.qkv_bias),
            training=check_bool("training", self.training),
            context_length=context_length,
            num_heads=num_heads,
            variant=variant,
            window=None
            if self.window is None
            else check_int("window", self.window, 1, MAX_TOKENS, "how many tokens each sees"),
        )
        object.__setattr__(checked, "_checked", True)
        return checked

    @property
    def dropout_active(self) -> bool:
        """Dropout changes the weights only in training mode with ``p > 0``."""
        return self.training and self.dropout > 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AttentionTrace:
    """Every intermediate tensor of one forward pass, named as the book names them.

    Shapes (``b`` batch, ``T`` tokens, ``h`` heads; with one head there is no head axis):

    ============================  =====================  ==============================
    field                         one head               several heads
    ============================  =====================  ==============================
    inputs                        (b, T, d_in)           (b, T, d_in)
    W_query, W_key, W_value       (d_in, d_out)          fused: (d_in, d_out);
                                                         wrapper: (h, d_in, d_out)
    b_query, b_key, b_value       (d_out,) or None       like the weights, without d_in
    W_out, b_out                  None                   fused: (d_out, d_out), (d_out,)
    queries, keys, values         (b, T, d_out)          (b, h, T, head_dim)
    attn_scores                   (b, T, T)  raw q·kᵀ    (b, h, T, T)
    mask                          (T, T) bool, True = hidden (a future token)
    masked_scores                 (b, T, T)  −inf where hidden
    scaled_scores                 (b, T, T)  masked_scores / √d_k
    attn_weights                  (b, T, T)  softmax, before dropout
    dropout_mask                  (b, T, T) bool keep-mask, or None when dropout is inactive
    dropped_weights               (b, T, T)  after dropout, kept weights × 1/(1−p)
    head_context                  None                   (b, h, T, head_dim)
    context                       (b, T, d_out)          fused: heads joined, (b, T, d_out);
                                                         wrapper: (b, T, h·d_out)
    output                        (b, T, d_out)          fused: out_proj(context);
                                                         wrapper: = context
    ============================  =====================  ==============================

    Weights are stored the way the book's ``SelfAttention_v1`` uses them, ``x @ W_query``:
    ``nn.Linear`` keeps the transpose, ``(d_out, d_in)``.
    """

    config: AttentionConfig
    inputs: torch.Tensor
    W_query: torch.Tensor
    W_key: torch.Tensor
    W_value: torch.Tensor
    b_query: torch.Tensor | None
    b_key: torch.Tensor | None
    b_value: torch.Tensor | None
    W_out: torch.Tensor | None
    b_out: torch.Tensor | None
    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    attn_scores: torch.Tensor
    mask: torch.Tensor
    masked_scores: torch.Tensor
    scaled_scores: torch.Tensor
    attn_weights: torch.Tensor
    dropout_mask: torch.Tensor | None
    dropped_weights: torch.Tensor
    head_context: torch.Tensor | None
    context: torch.Tensor
    output: torch.Tensor
    d_k: int = field(default=1)

    @property
    def num_tokens(self) -> int:
        return int(self.inputs.shape[1])

    @property
    def d_in(self) -> int:
        return int(self.inputs.shape[2])

    @property
    def scale(self) -> float:
        """√d_k, the number the scores are divided by."""
        return math.sqrt(self.d_k)

    @property
    def dropout_active(self) -> bool:
        return self.dropout_mask is not None

    @property
    def dropout_scale(self) -> float:
        """The factor kept weights are multiplied by: 1/(1−p); 1 without dropout, 0 at p = 1."""
        return dropout_scale(self.config.dropout) if self.dropout_active else 1.0

    def tensors(self) -> dict[str, torch.Tensor]:
        """All tensor fields that are set, by name (weights first, then the steps in order)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if isinstance(getattr(self, f.name), torch.Tensor)
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: tensors as nested lists, with ``None`` for −∞ (a hidden score)."""
        result: dict[str, Any] = {"config": self.config.to_dict(), "d_k": self.d_k}
        result["dropout_scale"] = self.dropout_scale
        for name, tensor in self.tensors().items():
            result[name] = json_ready(tensor)
            result[f"{name}_shape"] = list(tensor.shape)
        return result


def json_ready(tensor: torch.Tensor) -> Any:
    """``tensor`` as nested lists for JSON, ``None`` where a value is not finite (a hidden −∞)."""
    if tensor.dtype == torch.bool:
        return tensor.tolist()
    values = tensor.detach().to(torch.float64)
    listed = torch.where(torch.isfinite(values), values, torch.zeros_like(values)).tolist()
    hidden = (~torch.isfinite(values)).tolist()

    def merge(numbers: Any, holes: Any) -> Any:
        if isinstance(numbers, list):
            return [merge(n, h) for n, h in zip(numbers, holes, strict=True)]
        return None if holes else numbers

    return merge(listed, hidden)


def build_module(
    d_in: int, cfg: AttentionConfig, generator: torch.Generator | None = None
) -> nn.Module:
    """The book's class for ``cfg`` (``CausalAttention``, or the ``variant``'s multi-head class)
    with the weights of ``torch.manual_seed(cfg.seed)``, in ``cfg.training`` mode; pass
    ``generator`` to keep drawing from it afterwards (the dropout mask).
    """
    check_config_type(cfg)
    cfg = (cfg or AttentionConfig()).validated()  # checked; whole-number floats become ints
    if cfg.context_length is None:
        raise AttentionInputError("build_module needs a context_length.", field="context_length")
    d_in = check_module_size(d_in, cfg.d_out, cfg.num_heads, cfg.context_length, cfg.variant)
    check_generator(generator)
    if generator is None:
        generator = private_generator(cfg.seed)
    args = (d_in, cfg.d_out, cfg.context_length, cfg.dropout)
    module: nn.Module
    with draws_from(generator):
        if cfg.num_heads == 1:
            module = CausalAttention(*args, qkv_bias=cfg.qkv_bias)
        elif cfg.variant == "fused":
            module = MultiHeadAttention(*args, num_heads=cfg.num_heads, qkv_bias=cfg.qkv_bias)
        else:
            module = MultiHeadAttentionWrapper(
                *args, num_heads=cfg.num_heads, qkv_bias=cfg.qkv_bias
            )
    module.train(cfg.training)
    return module


def run_traced_forward(
    x: torch.Tensor,
    cfg: AttentionConfig,
    parameters: Mapping[str, torch.Tensor] | None = None,
) -> tuple[nn.Module, dict[str, Any]]:
    """Build the book's module for ``cfg`` and run its forward pass step by step on ``x`` ``(b, T,
    d_in)``: the module and every step (the wrapper's: each head's pass too, under ``"heads"``).
    One generator gives the weights, then the dropout mask; ``parameters`` (by
    ``named_parameters()`` name) replace the weights, not the mask.
    """
    check_config_type(cfg)
    x = check_traced_input(x)  # (b, T, d_in) float32, neither copied nor detached
    cfg = (cfg or AttentionConfig()).validated(x.shape[1])
    check_attention_size(x.shape[0], cfg.num_heads, x.shape[1])
    return _traced_forward(x, cfg, parameters)


def _traced_forward(
    x: torch.Tensor, cfg: AttentionConfig, parameters: Mapping[str, torch.Tensor] | None = None
) -> tuple[nn.Module, dict[str, Any]]:
    """:func:`run_traced_forward` for ``x`` and ``cfg`` that :func:`checked_inputs` gave."""
    generator = private_generator(cfg.seed)
    module = build_module(x.shape[-1], cfg, generator)
    if parameters is not None:
        _load_parameters(module, parameters)
    overrides = None if cfg.window is None else {"mask": sliding_window_step(cfg.window)}
    return module, run_forward(module, x, generator, overrides)  # a window's own mask step


def _load_parameters(module: nn.Module, parameters: Any) -> None:
    """Copy ``parameters`` (by ``named_parameters()`` name) into ``module``: each of the module's,
    none other, of its shape and finite; the error names the first that is not.
    """
    if not isinstance(parameters, Mapping):
        raise AttentionInputError(
            "parameters must be a dict of tensors by named_parameters() name, got "
            f"{type(parameters).__name__}.",
            field="parameters",
        )
    expected = dict(module.named_parameters())
    unknown = sorted(str(name) for name in parameters if name not in expected)
    missing = [name for name in expected if name not in parameters]
    if unknown or missing:
        parts = [
            f"{what}: {', '.join(names)}"
            for what, names in zip(("unknown", "missing"), (unknown, missing), strict=True)
            if names
        ]
        raise AttentionInputError(
            f"parameters must name exactly the layer's parameters ({', '.join(expected)}); "
            + "; ".join(parts)
            + ".",
            field="parameters",
        )
    with torch.no_grad():
        for name, parameter in expected.items():
            value = parameters[name]
            try:
                value = torch.as_tensor(value, dtype=parameter.dtype)
            except (TypeError, ValueError, RuntimeError):
                raise AttentionInputError(
                    f"parameters[{name!r}] must be a tensor of numbers, got "
                    f"{type(value).__name__}.",
                    field="parameters",
                ) from None
            if value.shape != parameter.shape:
                raise AttentionInputError(
                    f"parameters[{name!r}] must have shape {tuple(parameter.shape)}, got "
                    f"{tuple(value.shape)}.",
                    field="parameters",
                )
            if not bool(torch.isfinite(value).all()):
                raise AttentionInputError(
                    f"parameters[{name!r}] holds NaN or infinite values.", field="parameters"
                )
            parameter.copy_(value)


def trace_of(cfg: AttentionConfig, traced: Mapping[str, Any]) -> AttentionTrace:
    """The :class:`AttentionTrace` of ``traced`` (:func:`run_traced_forward`'s steps), detached
    from the autograd graph; the wrapper's per-head passes (``"heads"``) are in its stacks."""
    return AttentionTrace(
        config=cfg,
        **{
            name: value.detach()
            if isinstance(value, torch.Tensor) and value.requires_grad
            else value
            for name, value in traced.items()
            if name != "heads"
        },
    )


def config_of(module: nn.Module, seed: int = 0) -> AttentionConfig:
    """The :class:`AttentionConfig` of an existing book module; ``seed`` is that of the dropout mask
    only (the weights are the module's own).
    """
    seed = check_seed(seed)
    if isinstance(module, CausalAttention):
        heads, variant, first = 1, "fused", module
        d_out = module.W_query.out_features
    elif isinstance(module, MultiHeadAttention):
        heads, variant, first, d_out = module.num_heads, "fused", module, module.d_out
    elif isinstance(module, MultiHeadAttentionWrapper):
        first = module.heads[0]
        heads, variant, d_out = len(module.heads), "wrapper", first.W_query.out_features
    else:
        raise AttentionInputError(
            f"Cannot trace a {type(module).__name__}: expected the book's CausalAttention, "
            "MultiHeadAttention or MultiHeadAttentionWrapper.",
            field="module",
        )
    return AttentionConfig(
        d_out=d_out,
        dropout=float(first.dropout.p),
        seed=seed,
        qkv_bias=first.W_query.bias is not None,
        training=module.training,
        context_length=int(first.mask.shape[0]),
        num_heads=heads,
        variant=variant,
    )


def trace_module(module: nn.Module, inputs: Any, seed: int = 0) -> AttentionTrace:
    """Trace an existing book module (a *trained* head, say) with its own weights; in training mode
    the dropout mask comes from a private generator seeded with ``seed``.
    """
    check_float32_module(module)  # a module.double() is refused in words, not by torch
    x = to_input_tensor(inputs)  # (b, T, d_in)
    cfg = config_of(module, seed).validated(x.shape[1])
    check_attention_size(x.shape[0], cfg.num_heads, x.shape[1])
    first = module.heads[0] if isinstance(module, MultiHeadAttentionWrapper) else module
    expected_d_in = first.W_query.in_features  # config_of took only the book's classes
    if x.shape[2] != expected_d_in:
        raise AttentionInputError(
            f"The inputs have {x.shape[2]} features per token but the module expects "
            f"{expected_d_in}.",
            field="inputs",
        )
    with torch.no_grad():
        traced = run_forward(module, x, private_generator(cfg.seed))
    return trace_of(cfg, traced)


def check_config_type(cfg: Any) -> None:
    """Raise a clear error unless ``cfg`` is an :class:`AttentionConfig` or None."""
    if cfg is not None and not isinstance(cfg, AttentionConfig):
        raise AttentionInputError(
            f"cfg must be an AttentionConfig (or None for the book's settings); got a value of "
            f"type {type(cfg).__name__}: {describe(cfg)}. For a dict: AttentionConfig(**it).",
            field="cfg",
        )


def checked_inputs(
    inputs: Any, cfg: AttentionConfig | None, *, first_sequence: bool = False
) -> tuple[torch.Tensor, AttentionConfig]:
    """The one check at the entry of a forward pass: ``inputs`` as a float32 tensor ``(b, T,
    d_in)`` (``(1, T, d_in)`` with ``first_sequence``) and ``cfg`` (None: the book's example)
    checked against them, their attention matrices small enough; else AttentionInputError.
    """
    check_config_type(cfg)
    x = to_input_tensor(inputs)  # (b, T, d_in), float32, checked
    if first_sequence:
        x = x[:1]
    cfg = (cfg or AttentionConfig()).validated(x.shape[1])
    check_attention_size(x.shape[0], cfg.num_heads, x.shape[1])
    return x, cfg


def trace_attention(inputs: Any, cfg: AttentionConfig | None = None) -> AttentionTrace:
    """Run the book's attention layer on ``inputs`` ``(T, d_in)`` or ``(b, T, d_in)`` and return
    every intermediate tensor; ``cfg`` None is the book's example. ``trace.output`` equals the
    book's recipe after ``torch.manual_seed(cfg.seed)``, dropout mask included.
    """
    x, cfg = checked_inputs(inputs, cfg)
    with torch.no_grad():
        _module, traced = _traced_forward(x, cfg)
    if not bool(torch.isfinite(traced["output"]).all()):
        raise AttentionInputError(
            "The numbers overflowed float32 on the way through the layer; use smaller embeddings.",
            field="inputs",
            code="overflow",
        )
    return trace_of(cfg, traced)
