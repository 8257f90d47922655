"""How many numbers a multi-head class learns: its trainable parameters, summed from the module.

The wrapper has ``num_heads`` heads of ``W_query``, ``W_key``, ``W_value`` (``d_in × d_out``
each); ``MultiHeadAttention`` one set split into heads, plus ``out_proj`` (``d_out × d_out`` and
a bias). With two heads, ``d_in = 3``, ``d_out = 2``: 36 and 24. The modules are built on
``meta``: counting allocates nothing and draws no random number.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .modules import MultiHeadAttention, MultiHeadAttentionWrapper
from .validate import MAX_WIDTH, AttentionInputError, check_bool, check_choice, check_int

__all__ = ["VARIANT_CLASSES", "ParameterCount", "parameter_count"]

VARIANT_CLASSES: dict[str, type[nn.Module]] = {
    "wrapper": MultiHeadAttentionWrapper,
    "fused": MultiHeadAttention,
}
MAX_HEADS = 64


@dataclass(frozen=True)
class ParameterCount:
    """A class's trainable parameters: the total and the count per layer (``W_query`` … )."""

    class_name: str
    total: int
    parts: dict[str, int]  # layer name (heads summed) -> parameters, in the module's order


def _layer_name(parameter_name: str) -> str:
    """``heads.1.W_query.weight`` → ``W_query``; ``out_proj.bias`` → ``out_proj``."""
    parts = parameter_name.split(".")
    return parts[-2] if len(parts) >= 2 else parts[0]


def parameter_count(
    variant: str, *, d_in: int, d_out: int, num_heads: int, qkv_bias: bool = False
) -> ParameterCount:
    """The trainable parameters of ``variant`` (``"wrapper"`` or ``"fused"``), summed from the
    book's module built with these sizes (``numel`` of every parameter that requires a gradient).
    """
    variant = check_choice("variant", variant, tuple(VARIANT_CLASSES))
    qkv_bias = check_bool("qkv_bias", qkv_bias)
    d_in = check_int("d_in", d_in, 1, MAX_WIDTH, "the input width d_in")
    d_out = check_int("d_out", d_out, 1, MAX_WIDTH, "the output width d_out")
    num_heads = check_int("num_heads", num_heads, 1, MAX_HEADS, "the number of heads")
    if variant == "fused" and d_out % num_heads:
        raise AttentionInputError(
            f"MultiHeadAttention needs d_out divisible by num_heads: {d_out} by {num_heads}"
        )
    cls = VARIANT_CLASSES[variant]
    with torch.device("meta"):
        module = cls(d_in, d_out, 1, 0.0, num_heads, qkv_bias=bool(qkv_bias))
    parts: dict[str, int] = {}
    for name, parameter in module.named_parameters():
        if parameter.requires_grad:
            layer = _layer_name(name)
            parts[layer] = parts.get(layer, 0) + parameter.numel()
    return ParameterCount(cls.__name__, sum(parts.values()), parts)
