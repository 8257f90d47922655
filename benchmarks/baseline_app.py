"""The straightforward page the step-by-step page is measured against (not part of the app).

What a first version of the app would do: compute the trace and draw *every* matrix of it as a
numeric Plotly heatmap with its numbers written in the cells (``px.imshow(..., text_auto=".4f")``),
one under another. No image path, no windows, no caching.

Run it alone with ``streamlit run benchmarks/baseline_app.py`` and open ``/?n=1024&dropout=0.1``:
``n`` made-up words (the same as the app's "Random tokens" for that count), the book's settings
(seed 123, d_out 2), dropout from the sidebar slider. ``benchmarks/page_load.py`` starts it next to
the real app and compares bytes and times.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `streamlit run` puts only this folder on the path
    sys.path.insert(0, str(REPO_ROOT))

import plotly.express as px  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import streamlit as st  # noqa: E402
import torch  # noqa: E402

from attention import AttentionConfig, trace_attention  # noqa: E402
from attention.examples import embed_words  # noqa: E402
from ui.table_state import random_words  # noqa: E402


def baseline_matrices(count: int, dropout: float) -> dict[str, torch.Tensor]:
    """Every matrix of the trace of ``count`` made-up words (seed 123, d_out 2)."""
    words = random_words(count)
    inputs = embed_words(words, d_in=3)  # (T, 3)
    trace = trace_attention(inputs, AttentionConfig(d_out=2, dropout=dropout, seed=123))
    matrices = {
        "inputs": trace.inputs[0],
        "W_query": trace.W_query,
        "W_key": trace.W_key,
        "W_value": trace.W_value,
        "queries": trace.queries[0],
        "keys": trace.keys[0],
        "values": trace.values[0],
        "attn_scores": trace.attn_scores[0],
        "mask": trace.mask.float(),
        "masked_scores": trace.masked_scores[0],
        "scaled_scores": trace.scaled_scores[0],
        "attn_weights": trace.attn_weights[0],
        "dropped_weights": trace.dropped_weights[0],
        "context": trace.context[0],
    }
    if trace.dropout_mask is not None:
        matrices["dropout_mask"] = trace.dropout_mask[0].float()
    return matrices


def baseline_figure(matrix: torch.Tensor) -> go.Figure:
    """The straightforward drawing: a numeric heatmap with every number written in its cell."""
    return px.imshow(matrix.detach().numpy(), text_auto=".4f")


def render() -> None:
    st.set_page_config(page_title="Baseline: every matrix as a numeric heatmap", layout="wide")
    count = int(st.query_params.get("n", "6"))
    if "dropout" not in st.session_state:
        st.session_state["dropout"] = float(st.query_params.get("dropout", "0.1"))
    dropout = st.sidebar.slider("dropout", 0.0, 0.95, step=0.01, key="dropout")
    st.title(f"Baseline: {count} tokens, every matrix as a numeric heatmap")
    for name, matrix in baseline_matrices(count, dropout).items():
        st.subheader(name)
        st.plotly_chart(baseline_figure(matrix), key=f"baseline_{name}")


if __name__ == "__main__":  # `streamlit run` runs the file as __main__
    render()
