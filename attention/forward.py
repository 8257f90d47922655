"""The forward pass, step by step: one runner for the trace, the backward pass and the bug gallery.

:func:`run_forward` runs :data:`attention.steps.STEPS` in order on one of the book's layers; a
variant replaces a step by name::

    made = run_forward(layer, x)                                      # the book's forward pass
    made = run_forward(layer, x, overrides={"mask": sliding_window_step(2)})
    made["attn_weights"]                                              # (b, T, T)

The steps are the layer's ``forward`` statements in the same order, so ``made["output"]`` is
bitwise ``layer(x)`` (pinned by the tests). Dropout draws from ``generator`` when given, else
from torch's global generator, as the layer's own ``forward`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
import torch.nn as nn

from .modules import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper
from .randomness import dropout_noise
from .steps import PER_HEAD_FIELDS, STEPS, StepFunction
from .validate import AttentionInputError

__all__ = ["ForwardState", "Overrides", "run_forward"]

Overrides = Mapping[str, StepFunction]  # step name -> the code run in its place
_STEP_NAMES = tuple(step.name for step in STEPS)


class ForwardState:
    """What the steps of one pass share: the layer (the book's or a gallery bug), its input and
    every tensor made so far (``state["keys"]``).
    """

    def __init__(
        self, layer: nn.Module, inputs: torch.Tensor, generator: torch.Generator | None
    ) -> None:
        self.layer = layer
        self.inputs = inputs  # (b, T, d_in)
        self.generator = generator
        self.made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        return self.made[name]

    @property
    def num_tokens(self) -> int:
        return int(self.inputs.shape[1])

    @property
    def dropping(self) -> bool:
        """Whether the layer's ``nn.Dropout`` acts (its own training flag, as ``nn.Dropout``)."""
        return bool(self.layer.dropout.training)

    def split_heads(self, projected: torch.Tensor) -> torch.Tensor:
        """``(b, T, d_out)`` → ``(b, h, T, head_dim)`` for the fused class; one head: as it is."""
        if not isinstance(self.layer, MultiHeadAttention):
            return projected
        b, num_tokens, _ = projected.shape
        split = projected.view(b, num_tokens, self.layer.num_heads, self.layer.head_dim)
        return split.transpose(1, 2)  # each head's rows are tokens again

    def join_heads(self, head_context: torch.Tensor) -> torch.Tensor:
        """``(b, h, T, head_dim)`` → ``(b, T, d_out)``: the heads side by side, per token."""
        b, _, num_tokens, _ = head_context.shape
        return head_context.transpose(1, 2).contiguous().view(b, num_tokens, self.layer.d_out)

    def drop(
        self, tensor: torch.Tensor, active: bool, *, scaled: bool = True
    ) -> tuple[torch.Tensor | None, torch.Tensor]:
        """``nn.Dropout`` on ``tensor`` when ``active``: the keep-mask (None when inactive) and
        the result, bitwise the layer's dropout. ``scaled=False`` leaves out the ``1/(1−p)``."""
        p = float(self.layer.dropout.p)
        if not active or p == 0.0:
            return None, tensor  # dropout is the identity in eval mode or with p = 0
        noise = dropout_noise(tensor, p, self.generator)  # 1/(1−p) where kept, else 0
        keep = noise != 0
        return keep, tensor * (noise if scaled else keep.to(tensor.dtype))


def _check_overrides(overrides: Overrides | None) -> Overrides:
    if overrides is None:
        return {}
    unknown = [name for name in overrides if name not in _STEP_NAMES]
    if unknown:
        raise AttentionInputError(
            f"overrides name no step: {', '.join(map(str, unknown))}; the steps are "
            f"{', '.join(_STEP_NAMES)}.",
            field="overrides",
        )
    return overrides


def run_forward(
    layer: nn.Module,
    inputs: torch.Tensor,
    generator: torch.Generator | None = None,
    overrides: Overrides | None = None,
) -> dict[str, Any]:
    """Every tensor of ``layer``'s forward pass on ``inputs`` ``(b, T, d_in)``, by field name (the
    wrapper's heads one after the other, and each head's own pass under ``"heads"``);
    ``overrides``: step name → code run instead.
    """
    overrides = _check_overrides(overrides)
    if isinstance(layer, MultiHeadAttentionWrapper):
        return _run_wrapper(layer, inputs, generator, overrides)
    if not isinstance(layer, (CausalAttention, MultiHeadAttention)):
        raise AttentionInputError(
            f"Cannot trace a {type(layer).__name__}: expected the book's CausalAttention, "
            "MultiHeadAttention or MultiHeadAttentionWrapper.",
            field="module",
        )
    state = ForwardState(layer, inputs, generator)
    for step in STEPS:
        made = overrides.get(step.name, step.run)(state)
        if set(made) != set(step.makes):
            raise AttentionInputError(
                f"The {step.name} step must make {', '.join(step.makes)}; it made "
                f"{', '.join(made)}.",
                field="overrides",
            )
        state.made.update(made)
    state.made["d_k"] = int(state["keys"].shape[-1])
    return state.made


def _stack(items: list[Any], dim: int) -> torch.Tensor | None:
    return None if items[0] is None else torch.stack(items, dim=dim)


def _run_wrapper(
    layer: MultiHeadAttentionWrapper,
    inputs: torch.Tensor,
    generator: torch.Generator | None,
    overrides: Overrides,
) -> dict[str, Any]:
    """The wrapper's heads, each a ``CausalAttention`` pass (dropout drawn in head order)."""
    heads = [run_forward(head, inputs, generator, overrides) for head in layer.heads]
    made: dict[str, Any] = {"inputs": inputs, "mask": heads[0]["mask"], "d_k": heads[0]["d_k"]}
    for name in ("W_query", "W_key", "W_value", "b_query", "b_key", "b_value"):
        made[name] = _stack([head[name] for head in heads], dim=0)  # (h, …)
    for name in PER_HEAD_FIELDS:
        made[name] = _stack([head[name] for head in heads], dim=1)  # (b, h, …)
    head_context = [head["context"] for head in heads]
    made["head_context"] = torch.stack(head_context, dim=1)  # (b, h, T, d_out)
    made["context"] = torch.cat(head_context, dim=-1)  # (b, T, h·d_out), as the wrapper
    made.update(output=made["context"], W_out=None, b_out=None)
    made["heads"] = heads  # each head's own pass: the stacks above are copies off the loss's path
    return made
