"""The old name of :mod:`attention.one_query` (the "One query" page's arithmetic); kept so that
``from attention.by_hand import …`` still works."""

from __future__ import annotations

from .one_query import (
    SHIFT_ABOVE,
    SoftmaxByHand,
    dot_product_terms,
    softmax_by_hand,
    weighted_value_terms,
)

__all__ = [
    "SHIFT_ABOVE",
    "SoftmaxByHand",
    "dot_product_terms",
    "softmax_by_hand",
    "weighted_value_terms",
]
