"""The straightforward page of ``benchmarks/latency.py`` (not part of the app).

What a first version of the step-by-step page would be: one script, the sidebar's seed and
dropout, the trace computed on every run (no cache), the context vectors as a table, and eight
matrices of the same trace drawn one under another as annotated ``px.imshow`` heatmaps (every
number written in its cell). No tabs, no images for large matrices, no explanations.

Run it alone with ``streamlit run benchmarks/straightforward_app.py``; ``/?n=1024&seed=7`` shows ``n``
made-up words (the same as the app's "Random tokens" for that count) instead of the book's six.
``benchmarks/baseline_app.py`` is a different page (every matrix, for ``page_load.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(REPO_ROOT))

import pandas as pd  # noqa: E402
import plotly.express as px  # noqa: E402
import streamlit as st  # noqa: E402
import torch  # noqa: E402

from attention import AttentionConfig, AttentionTrace, trace_attention  # noqa: E402
from attention.examples import BOOK_TOKENS, embed_words  # noqa: E402
from ui.table_state import random_words  # noqa: E402

SEED_LABEL = "Seed"  # benchmarks/latency.py finds the controls by these labels
DROPOUT_LABEL = "Dropout rate p"


def eight_matrices(trace: AttentionTrace) -> dict[str, torch.Tensor]:
    """The eight matrices the page draws (row 0 of the batch of one)."""
    return {
        "inputs": trace.inputs[0],  # (T, d_in)
        "W_query": trace.W_query,  # (d_in, d_out)
        "W_key": trace.W_key,
        "W_value": trace.W_value,
        "attn_scores": trace.attn_scores[0],  # (T, T)
        "attn_weights": trace.attn_weights[0],  # (T, T)
        "dropped_weights": trace.dropped_weights[0],  # (T, T)
        "context_vec": trace.context[0],  # (T, d_out)
    }


def render() -> None:
    st.set_page_config(page_title="Straightforward: eight annotated heatmaps", layout="wide")
    count = int(st.query_params.get("n", len(BOOK_TOKENS)))
    words = list(BOOK_TOKENS) if count == len(BOOK_TOKENS) else random_words(count)
    first_seed = int(st.query_params.get("seed", 123))
    seed = st.sidebar.number_input(SEED_LABEL, 0, 2**53 - 1, value=first_seed, step=1)
    dropout = st.sidebar.slider(DROPOUT_LABEL, 0.0, 0.95, 0.0, step=0.01)
    inputs = embed_words(words, d_in=3)  # (T, 3): the book's embeddings for the book's words
    trace = trace_attention(inputs, AttentionConfig(d_out=2, dropout=dropout, seed=int(seed)))
    st.title(f"Straightforward: {len(words)} tokens, eight annotated heatmaps")
    context = trace.context[0]  # (T, d_out)
    st.table(
        pd.DataFrame(
            [[f"{v:.4f}" for v in row] for row in context.tolist()[:64]],
            index=words[:64],
            columns=[f"z{column + 1}" for column in range(context.shape[1])],
        )
    )
    for name, matrix in eight_matrices(trace).items():
        st.subheader(name)
        st.plotly_chart(px.imshow(matrix.detach().numpy(), text_auto=".2f"), key=name)


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
