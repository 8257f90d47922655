"""Matrices of the chapter's path (sections 3.3 to 3.5): :class:`~viz.matrix.MatrixView` builders.

Each builder takes tensors of :mod:`attention.chapter` and labels, and describes one table the
page "The chapter's path" shows; ``ui.show.show_matrix`` draws it. Scores use a diverging scale
centred on 0, weights a sequential one from 0, as on the step page.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .matrix import MatrixView
from .vocabulary import INPUT_PREFIX, feature_labels
from .words import FigureWords


def _array(tensor: torch.Tensor) -> np.ndarray:
    array = tensor.detach().to(torch.float64).cpu().numpy()
    return array[None, :] if array.ndim == 1 else array  # a vector is drawn as one row


def rows_view(
    rows: Sequence[torch.Tensor],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    value_name: str,
    palette: str,
    weights: bool = False,
    title: str = "",
    row_title: str = "",
    col_title: str = "",
) -> MatrixView:
    """Vectors or matrices stacked as the rows of one table (each 1-D tensor is one row).

    ``weights=True``: values from 0 up on a sequential scale (attention weights); else a
    diverging scale centred on 0 (scores, projections, context vectors).
    """
    values = np.vstack([_array(row) for row in rows])  # (rows, cols)
    return MatrixView(
        values=values,
        row_labels=tuple(row_labels),
        col_labels=tuple(col_labels),
        palette=palette,
        kind="sequential" if weights else "diverging",
        zrange=(0.0, max(float(np.nanmax(values)), 1e-12)) if weights else None,
        title=title,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
    )


def weight_matrix_view(
    weight: torch.Tensor, name: str, prefix: str, words: FigureWords, *, palette: str
) -> MatrixView:
    """A projection ``W`` ``(d_in, d_out)``: rows ``x1 …``, columns ``q1 …`` (or ``k``, ``v``)."""
    array = _array(weight)  # (d_in, d_out)
    return MatrixView(
        values=array,
        row_labels=tuple(feature_labels(INPUT_PREFIX, array.shape[0])),
        col_labels=tuple(feature_labels(prefix, array.shape[1])),
        palette=palette,
        title=name,
        row_title=words.input_feature,
        col_title=words.output_feature,
        value_name=words.weight,
    )
