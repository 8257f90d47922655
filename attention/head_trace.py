"""One head of a multi-head trace, as a one-head trace the step-by-step figures can draw.

Selecting, never recomputing: the fused class splits one ``W_query`` of ``d_out`` columns with
``view(b, T, h, head_dim)``, so head ``k`` owns columns ``k·head_dim … (k+1)·head_dim − 1`` of
the weights; the wrapper stacks its heads' weights ``(h, d_in, d_out)``, head ``k`` is row ``k``.
A head's context is ``head_context[:, k]``, before ``out_proj`` mixes the heads.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from .steps import PER_HEAD_FIELDS
from .trace import AttentionTrace
from .validate import check_instance, check_int

__all__ = ["one_head"]


def _head_weight(
    weight: torch.Tensor | None, head: int, head_dim: int, fused: bool
) -> torch.Tensor | None:
    if weight is None:
        return None
    if fused:  # (d_in, d_out) or (d_out,): head k's columns
        return weight[..., head * head_dim : (head + 1) * head_dim]
    return weight[head]  # wrapper: (h, d_in, d_out) or (h, d_out)


def one_head(trace: AttentionTrace, head: int) -> AttentionTrace:
    """Head ``head`` (from 0) of a multi-head trace as a one-head trace of views (``context`` =
    ``output`` = its ``head_context``); a ``CausalAttention`` trace is returned as it is.
    """
    check_instance("trace", trace, AttentionTrace, " (from attention.trace_attention)")
    num_heads = trace.config.num_heads
    head = check_int("head", head, 0, num_heads - 1, "the head, counted from 0")
    if trace.head_context is None:  # CausalAttention: already one head
        return trace
    fused = trace.config.variant == "fused"
    head_context = trace.head_context[:, head]  # (b, T, head_dim)
    head_dim = int(head_context.shape[-1])
    steps = {
        name: None if getattr(trace, name) is None else getattr(trace, name)[:, head]
        for name in PER_HEAD_FIELDS
    }
    weights = {
        name: _head_weight(getattr(trace, name), head, head_dim, fused)
        for name in ("W_query", "W_key", "W_value", "b_query", "b_key", "b_value")
    }
    return AttentionTrace(
        config=replace(trace.config, d_out=head_dim, num_heads=1, variant="fused"),
        inputs=trace.inputs,
        **weights,
        W_out=None,
        b_out=None,
        mask=trace.mask,
        **steps,
        head_context=None,
        context=head_context,
        output=head_context,
        d_k=trace.d_k,
    )
