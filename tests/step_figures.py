"""A step figure by its trace field, as the step page builds it (viz.screens' registry)."""

from __future__ import annotations

from collections.abc import Sequence

from attention import AttentionTrace
from viz.matrix import MatrixView
from viz.screens import SCREENS, figure_view
from viz.words import FigureWords

FIGURES = {figure.field: figure for screen in reversed(SCREENS) for figure in screen.figures}


def field_view(
    trace: AttentionTrace,
    field: str,
    tokens: Sequence[str] | None = None,
    words: FigureWords | None = None,
    *,
    palette: str = "default",
) -> MatrixView:
    """The registry's figure of ``field`` (the first step that shows it) for ``trace``."""
    labels = tokens if tokens is not None else [str(i + 1) for i in range(trace.num_tokens)]
    return figure_view(FIGURES[field], trace, labels, words or FigureWords(), palette=palette)
