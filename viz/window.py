"""The mask of a sliding window as a figure: future keys and keys too far back told apart.

A window of ``k`` tokens hides two kinds of keys, and the mask holds 1 for both: the future
(``j > i``, hidden by the book's causal mask too) and the distant past (``j ≤ i − k``). The
figure keeps the future grey, as every step figure does, and puts the keys the window hides at
the top of the colour scale, so the band of visible keys (0) stands out between them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention import AttentionTrace

from .matrix import MatrixView
from .steps import as_array
from .words import FigureWords


def window_mask_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The ``(T, T)`` band mask of ``trace``: 1 grey (future), 1 coloured (too far back), 0 visible.

    Every cell is written as the mask holds it (1 hidden, 0 visible); only the colour tells
    which of the two reasons hides a cell. Without a window there are no far-back cells and the
    figure is the causal mask.
    """
    if len(tokens) != trace.num_tokens:
        raise ValueError(f"{len(tokens)} token labels for {trace.num_tokens} tokens")
    hidden = as_array(trace.mask).astype(bool)  # (T, T), True = hidden
    future = np.triu(np.ones_like(hidden), k=1)  # (T, T), True where key j comes after query i
    return MatrixView(
        values=(hidden & ~future).astype(np.float64),  # 1 where the window hides a past key
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        kind="sequential",
        zrange=(0.0, 1.0),
        decimals=0,
        hidden=future,
        hidden_value=1.0,
        hidden_name=words.future_hidden,
        row_title=words.query,
        col_title=words.key,
        value_name="M",  # the formula's name of the mask
        colour_bar=False,
    )
