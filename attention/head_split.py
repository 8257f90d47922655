"""The rule of the book's fused ``MultiHeadAttention``: ``d_out`` must split evenly into the heads.

``MultiHeadAttention`` (section 3.6.2) computes all heads with one ``W_query`` of width ``d_out``
and then cuts each ``(b, T, d_out)`` projection into ``num_heads`` heads of
``head_dim = d_out // num_heads`` features with ``view``. That cut only works when ``d_out`` is a
multiple of ``num_heads`` (the book's class asserts ``d_out % num_heads == 0``)::

    splits_evenly(4, 2)         # True: two heads of 2 features
    splits_evenly(3, 2)         # False
    valid_head_counts(6, 8)     # [1, 2, 3, 6]
    valid_widths(3, 8)          # [3, 6]

The wrapper (``MultiHeadAttentionWrapper``) has no such rule: each head has ``d_out`` outputs.
"""

from __future__ import annotations

__all__ = ["splits_evenly", "valid_head_counts", "valid_widths"]


def splits_evenly(d_out: int, num_heads: int) -> bool:
    """True when ``d_out`` features split into ``num_heads`` heads of ``d_out // num_heads`` each."""
    return d_out % num_heads == 0


def valid_head_counts(d_out: int, max_heads: int) -> list[int]:
    """The head counts from 1 to ``max_heads`` that split ``d_out`` evenly (its divisors)."""
    return [heads for heads in range(1, max_heads + 1) if splits_evenly(d_out, heads)]


def valid_widths(num_heads: int, max_width: int) -> list[int]:
    """The widths ``d_out`` from 1 to ``max_width`` that ``num_heads`` heads split evenly."""
    return [width for width in range(1, max_width + 1) if splits_evenly(width, num_heads)]
