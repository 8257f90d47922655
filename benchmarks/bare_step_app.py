"""The bare step page of ``benchmarks/latency.py``: the step page's elements, in Streamlit alone.

Not part of the app. The same kinds and number of Streamlit elements as the app's step page draws
on the book's example (the sidebar's fourteen settings; the page's title, lines, formula, the
editable embedding table beside the context table; the strip of ten steps in a fragment, and the
open step's title, text, formulas, matrix and book-code expander), filled with numbers drawn from
the seed by NumPy: no torch, no app code, no custom component (the matrix is an ``st.table``). A
seed change or a step switch here costs what Streamlit itself costs for a page of this shape, so
the app's times can be read against it: what the app adds above it is the app's, what this page
costs above the floor is the number of elements.

Run it alone with ``streamlit run benchmarks/bare_step_app.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

SEED_LABEL = "Seed"  # benchmarks/latency.py finds the input and the strip by these labels
STRIP_LABEL = "Steps"
STEPS = tuple(
    f"{number} · {name}"
    for number, name in enumerate(
        (
            "Embeddings",
            "Weights",
            "Q K V",
            "Scores",
            "Mask",
            "Scale",
            "Softmax",
            "Softmax",
            "Dropout",
            "Context",
        ),
        start=1,
    )
)
TOKENS = ("Your", "journey", "starts", "with", "one", "step")


def numbers(seed: int, rows: int, columns: int, prefix: str) -> pd.DataFrame:
    """``rows`` × ``columns`` numbers drawn from a private generator seeded with ``seed``, as text."""
    values = np.random.default_rng(seed).standard_normal((rows, columns))  # (rows, columns)
    return pd.DataFrame(
        [[f"{v:.4f}" for v in row] for row in values],
        index=TOKENS[:rows],
        columns=[f"{prefix}{column + 1}" for column in range(columns)],
    )


def sidebar() -> int:
    """The app's fourteen settings, by kind and in order; returns the seed."""
    with st.sidebar:
        st.selectbox("Language", ["English", "中文"])
        st.text_input("Sentence", "Your journey starts with one step")
        with st.expander("Random tokens"):
            st.number_input("How many", 1, 4096, 1024)
            st.button("Generate")
        seed = st.number_input(SEED_LABEL, min_value=0, max_value=2**53 - 1, value=123, step=1)
        st.slider("Dropout p", 0.0, 0.95, 0.0, 0.01)
        st.segmented_control("Presets", ["0.0", "0.5", "0.9"], default="0.0")
        st.toggle("Training mode", True)
        st.slider("d_out", 1, 8, 2)
        st.checkbox("qkv_bias")
        st.slider("Heads", 1, 4, 1)
        st.slider("Batch", 1, 4, 1)
        st.number_input("Window", 0, 64, 0)
        st.selectbox("Palette", ["default", "colour-blind"])
        st.caption("Names on every page: x1, x2, … are the features of an embedding.")
        st.toggle("Lecture")
        st.button("Start a class")
    return int(seed)


@st.fragment
def steps(seed: int) -> None:
    """The strip of steps and the open step, rerun alone when the strip changes (as the app's)."""
    st.toggle("Show all steps")
    chosen = st.segmented_control(
        STRIP_LABEL, STEPS, default=STEPS[0], required=True, label_visibility="collapsed"
    )
    number = STEPS.index(chosen)
    text, matrix = st.columns(2)
    with text:
        st.subheader(f"Step {chosen}")
        st.markdown("Each row is one token; the matrix on the right is this step's result.")
        st.caption(f"Shape (1, 6, {number + 1}), batch item 0.")
        st.latex(r"A = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right)")
        st.latex(rf"A_{{ij}} \in \mathbb{{R}}^{{6 \times {number + 1}}}")
    with matrix:
        st.table(numbers(seed * 10 + number, 6, number + 1, "m"))
    with st.expander("The book's code"):
        st.code("attn_scores = queries @ keys.transpose(1, 2)", language="python")


def render() -> None:
    st.set_page_config(page_title="Bare step page", layout="wide")
    seed = sidebar()
    with st.container(horizontal=True):
        st.button("Present")
    st.title("Attention, step by step")
    st.markdown("Follow one forward pass, from the embeddings to the context vectors.")
    st.markdown(f"**Now:** seed {seed} · dropout p = 0.0 · training mode")
    with st.container():
        st.segmented_control("Dropout", ["0.0", "0.5", "0.9"], default="0.0")
    st.latex(r"\text{context\_vec} = \operatorname{dropout}(\operatorname{softmax}(QK^\top)) V")
    st.caption("The whole forward pass in one line.")
    inputs, outputs = st.columns(2)
    with inputs:
        st.subheader("Input: the embedding table X")
        st.caption("Edit a value and watch every step change.")
        st.data_editor(numbers(0, 6, 3, "x"), key="embeddings")
    with outputs:
        st.subheader("Output: the context vectors")
        st.caption("`context_vec`, shape (1, 6, 2), batch item 0.")
        st.table(numbers(seed, 6, 2, "z"))
        st.caption("These are the context vectors of this seed.")
    st.divider()
    steps(seed)


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
