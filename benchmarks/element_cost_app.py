"""The page of ``benchmarks/element_cost.py``: the floor plus one way of drawing a matrix.

Not part of the app. ``/?draw=<way>`` adds to the floor (``benchmarks/floor_app.py``: a seed
number input and a 6×2 table) the book's softmax weights at that seed, a ``(6, 6)`` matrix,
drawn by the app's own builders in one of these ways (``WAYS``):

- ``none``: nothing more (the floor itself);
- ``heatmap_numbers``: ``viz.heatmap.matrix_figure`` as the app drew it before: an annotated
  Plotly heatmap, every number written in its cell;
- ``heatmap_plain``: the same figure with the cell numbers left out (hover only);
- ``table``: ``viz.table_heatmap.matrix_table`` and ``legend_table``, coloured ``st.table``s, as
  the app draws a small matrix now;
- ``table_twice``: the coloured table and, under it, the plain numbers table the app used to add.

Run it alone with ``streamlit run benchmarks/element_cost_app.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(REPO_ROOT))

import streamlit as st  # noqa: E402

from attention import AttentionConfig, trace_attention  # noqa: E402
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS  # noqa: E402
from benchmarks.floor_app import SEED_LABEL, numbers  # noqa: E402
from viz.heatmap import cell_texts, matrix_figure  # noqa: E402
from viz.steps import weights_view  # noqa: E402
from viz.table_heatmap import legend_table, matrix_table  # noqa: E402
from viz.words import FigureWords  # noqa: E402

WAYS = ("none", "heatmap_numbers", "heatmap_plain", "table", "table_twice")


def render() -> None:
    way = st.query_params.get("draw", "none")
    seed = st.sidebar.number_input(SEED_LABEL, min_value=0, max_value=2**53 - 1, value=123, step=1)
    st.table(numbers(int(seed)))  # the floor's table: what benchmarks/latency.py watches
    if way == "none":
        return
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=int(seed)))
    words = FigureWords()
    view = weights_view(trace, BOOK_TOKENS, words, palette="default")
    if way.startswith("heatmap"):
        figure = matrix_figure(view, words)
        if way == "heatmap_plain":
            figure.update_traces(texttemplate=None)
        st.plotly_chart(figure, key="matrix")
        return
    st.table(matrix_table(view, words), width="content")
    legend = legend_table(view, words)
    if legend is not None:
        st.table(legend, width="content", hide_index=True, hide_header=True)
    if way == "table_twice":
        st.table(cell_texts(view.values, view.hidden, view.decimals))


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
