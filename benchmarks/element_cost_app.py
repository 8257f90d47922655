"""The page of ``benchmarks/element_cost.py``: the floor plus one way of drawing a matrix.

Not part of the app. ``/?draw=<way>`` adds to the floor (``benchmarks/floor_app.py``: a seed
number input and a 6×2 table) the book's softmax weights at that seed, a ``(6, 6)`` matrix,
drawn by the app's own builders in one of these ways (``WAYS``):

- ``none``: nothing more (the floor itself);
- ``heatmap_numbers``: ``viz.heatmap.matrix_figure`` as the app drew it before: an annotated
  Plotly heatmap, every number written in its cell;
- ``heatmap_plain``: the same figure with the cell numbers left out (hover only);
- ``st_table``: ``viz.table_heatmap.matrix_table`` and ``legend_table`` drawn as coloured
  ``st.table``s (a pandas ``Styler`` of the same cells), as the app drew a small matrix before
  its own table component: Streamlit renders each cell, index and header as Markdown;
- ``st_table_twice``: that and, under it, the plain numbers table the app used to add;
- ``table``: the same two tables drawn by ``ui.matrix_table.draw_table``, the app's component
  that writes each cell as plain text (how the app draws a small matrix now);
- ``sidebar``: no matrix, but the app's own sidebar controls beside the seed (every other
  setting of ``ui.settings.SIDEBAR`` and the sentence box, unchanged by the click): what the
  app's sidebar alone costs a rerun;
- ``sidebar_fragment``: the same, with the floor's table in a keyed ``st.fragment`` that the
  seed's ``on_change`` reruns alone (``st.rerun(key)``): the sidebar is not sent again;
- ``prose_<n>`` (``PROSE_COUNTS``): no matrix, ``n`` short paragraphs of text that the click leaves
  as they are, each its own ``st.markdown``: what one more element costs a rerun, whatever it
  shows;
- ``prose_<n>_joined``: the same ``n`` paragraphs in one ``st.markdown`` (one element).

Run it alone with ``streamlit run benchmarks/element_cost_app.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(REPO_ROOT))

import pandas as pd  # noqa: E402
import streamlit as st  # noqa: E402
from pandas.io.formats.style import Styler  # noqa: E402

from attention import AttentionConfig, trace_attention  # noqa: E402
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS  # noqa: E402
from benchmarks.floor_app import SEED_LABEL, numbers  # noqa: E402
from ui.i18n import t  # noqa: E402
from ui.matrix_table import draw_table  # noqa: E402
from ui.settings import SETTINGS, SIDEBAR, widget  # noqa: E402
from viz.heatmap import cell_texts, matrix_figure  # noqa: E402
from viz.markdown_text import escape_markdown  # noqa: E402
from viz.steps import weights_view  # noqa: E402
from viz.table_heatmap import ColouredTable, legend_table, matrix_table  # noqa: E402
from viz.words import FigureWords  # noqa: E402

WAYS = (
    "none",
    "heatmap_numbers",
    "heatmap_plain",
    "st_table",
    "st_table_twice",
    "table",
    "sidebar",
    "sidebar_fragment",
)
PROSE_COUNTS = (4, 12, 24)  # paragraphs of the prose ways
WAYS += tuple(f"prose_{n}" for n in PROSE_COUNTS) + tuple(f"prose_{n}_joined" for n in (12, 24))
FRAGMENT_KEY = "floor_table"
PARAGRAPH = (
    "Paragraph {number}: the attention weights of each row sum to 1, and a token attends only "
    "to itself and the tokens before it."
)


def prose(way: str) -> None:
    """``prose_<n>``: n paragraphs, one ``st.markdown`` each; ``prose_<n>_joined``: one for all."""
    count = int(way.split("_")[1])
    paragraphs = [PARAGRAPH.format(number=number + 1) for number in range(count)]
    if way.endswith("_joined"):
        st.markdown("\n\n".join(paragraphs))
    else:
        for paragraph in paragraphs:
            st.markdown(paragraph)


def as_styler(table: ColouredTable) -> Styler:
    """``table`` as the coloured ``st.table`` the app drew before (labels Markdown-escaped)."""
    frame = pd.DataFrame(table.texts())
    if table.col_labels:
        frame.columns = [escape_markdown(label) for label in table.col_labels]
    if table.row_labels:
        frame.index = pd.Index([escape_markdown(label) for label in table.row_labels])
    css = [
        [
            f"background-color: {c.background}; color: {c.colour}; "
            f"text-align: {c.align} !important; white-space: nowrap !important"
            for c in row
        ]
        for row in table.cells
    ]
    styles = pd.DataFrame(css, index=frame.index, columns=frame.columns)
    return frame.style.apply(lambda _: styles, axis=None)


def app_sidebar() -> None:
    """The app's sidebar controls other than the seed, at their defaults (the click leaves them)."""
    for name in SIDEBAR:
        if name != "seed":
            widget(SETTINGS[name], container=st.sidebar)
    st.sidebar.text_input(t("sidebar.text"), value=" ".join(BOOK_TOKENS), key="text")
    st.sidebar.caption(t("glossary.line", decimals=4, hover=6))


@st.fragment(key=FRAGMENT_KEY)
def floor_table() -> None:
    st.table(numbers(int(st.session_state["seed"])))


def render() -> None:
    way = st.query_params.get("draw", "none")
    on_seed = (lambda: st.rerun(FRAGMENT_KEY)) if way == "sidebar_fragment" else None
    seed = st.sidebar.number_input(
        SEED_LABEL,
        min_value=0,
        max_value=2**53 - 1,
        value=123,
        step=1,
        key="seed",
        on_change=on_seed,
    )
    if way.startswith("sidebar"):
        app_sidebar()
    if way == "sidebar_fragment":
        floor_table()
        return
    st.table(numbers(int(seed)))  # the floor's table: what benchmarks/latency.py watches
    if way.startswith("prose_"):
        prose(way)
        return
    if way in ("none", "sidebar"):
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
    table, legend = matrix_table(view, words), legend_table(view, words)
    if way == "table":
        draw_table(table, key="matrix")
        if legend is not None:
            draw_table(legend, key="legend")
        return
    st.table(as_styler(table), width="content")
    if legend is not None:
        st.table(as_styler(legend), width="content", hide_index=True, hide_header=True)
    if way == "st_table_twice":
        st.table(cell_texts(view.values, view.hidden, view.decimals))


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
