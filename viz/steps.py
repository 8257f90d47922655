"""What the step figures share: a trace's tensors as NumPy, and the colours of their two-state cells.

The figures themselves are declared in :mod:`viz.screens` (one :class:`~viz.screens.Figure` per
matrix of a step) and built by one function, :func:`viz.screens.figure_view`.
"""

from __future__ import annotations

import numpy as np
import torch

VISIBLE_COLOR = "#eef4fb"  # a visible cell of the causal mask (0): light, not on any scale
KEPT_COLOR = "#d6ecd2"  # a weight kept by dropout (✓)


def batch_row(tensor: torch.Tensor) -> np.ndarray:
    """Row 0 of a batched tensor as float64 NumPy (the app always runs a batch of one)."""
    return tensor[0].detach().to(torch.float64).cpu().numpy()


def as_array(tensor: torch.Tensor) -> np.ndarray:
    """An unbatched tensor (a weight matrix, a bias, the mask) as NumPy."""
    array = tensor.detach().cpu()
    return array.numpy() if array.dtype == torch.bool else array.to(torch.float64).numpy()
