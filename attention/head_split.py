"""The rule of the book's fused ``MultiHeadAttention``: ``d_out`` must split evenly into the heads.

It cuts each ``(b, T, d_out)`` projection into heads of ``d_out // num_heads`` features with
``view`` (the book asserts ``d_out % num_heads == 0``); the wrapper has no such rule::

    valid_head_counts(6, 8)     # [1, 2, 3, 6]
    valid_widths(3, 8)          # [3, 6]
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
