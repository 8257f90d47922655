"""The words a matrix figure writes, in one mapping: :class:`FigureWords`.

The words a builder writes that a :class:`viz.matrix.MatrixView` does not carry (the hover's
"rows", "mean", a masked cell's name, axis and value names) come in one frozen object built from
the catalogue (``ui.show.figure_words``); the English defaults serve a test or a notebook.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FigureWords:
    """Every translated word the figure builders of ``viz`` need (English by default)."""

    # any matrix: the hover of a cell, a block of an image heatmap, a hidden cell
    row: str = "row"  # an axis without a title
    column: str = "column"
    rows: str = "rows"  # a block of an image heatmap spans rows … and columns …
    columns: str = "columns"
    mean: str = "mean"
    min: str = "min"
    max: str = "max"
    masked_cells: str = "masked (−∞) cells"  # how many cells of a block are hidden
    masked: str = "masked"  # a hidden cell's hover: "score: −∞ (masked)"
    # the step page: axes
    token: str = "token"
    feature: str = "feature"
    input_feature: str = "input feature"
    output_feature: str = "output feature"
    query: str = "query"
    key: str = "key"
    # the step page: what a matrix holds (the colour bar's title)
    embedding: str = "x"
    weight: str = "weight"
    bias: str = "bias"
    queries: str = "queries"
    keys: str = "keys"
    values: str = "values"
    score: str = "score"
    scaled_score: str = "scaled score"
    attention_weight: str = "attention weight"
    dropped_weight: str = "weight after dropout"
    context: str = "context_vec"
    # the step page: states of a cell
    future_hidden: str = "1: hidden (a future token)"  # the causal mask's 1
    visible: str = "0: visible"  # the causal mask's 0
    future_masked: str = "masked (a future token)"  # a weight of a future token
    kept: str = "kept"
    dropped: str = "dropped"
