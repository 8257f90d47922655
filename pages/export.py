"""Export and reproduce: the current view as CSV files, JSON, and a script that recomputes it.

Everything here is built by :mod:`attention.export` from the trace the other pages show (the page
computes nothing itself). Downloads are generated only when a button is clicked (a callable as
``data``), so large views do not slow every rerun down.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention.environment import environment_info
from attention.export import (
    MAX_EXPORT_CELLS,
    SNIPPET_FILE_NAMES,
    SNIPPET_STYLES,
    attention_cells,
    csv_field,
    csv_file_names,
    export_gradients,
    export_zip,
    exportable,
    reproduce_snippet,
    trace_csv_file,
    trace_json,
)
from ui.frame import page
from ui.i18n import t
from ui.show import numbers_frame
from ui.view import View

LAYERS = ("single", "fused", "wrapper")  # CausalAttention, MultiHeadAttention, the wrapper
MAX_SHOWN_SNIPPET_CHARS = 20_000  # longer scripts (many tokens) are offered as a download only
PREVIEW_LINES = 31  # header + 30 rows
PREVIEW_LINE_CHARS = 400
MAX_TABLE_ROWS = 32  # above this, a scrolling dataframe instead of a static table


@page
def render(view: View) -> None:
    st.title(t("page.export.title"))
    st.caption(t("export.intro"))

    # --- which layer ---------------------------------------------------------------------------------
    heads = view.heads
    if heads > 1:
        if st.session_state.get("export_layer") not in LAYERS:
            st.session_state["export_layer"] = "single"
        layer = st.radio(
            t("export.layer"),
            LAYERS,
            format_func=lambda name: t(f"export.layer.{name}", heads=heads),
            key="export_layer",
            horizontal=True,
            help=t("export.layer_help"),
        )
    else:
        layer = "single"
        st.caption(t("export.layer.hint"))
    if layer == "single":
        trace = view.trace()
    else:
        trace = view.trace(num_heads=heads, variant=layer)
    if trace is None:
        st.stop()

    tokens = list(view.table.tokens)
    cfg = trace.config
    st.caption(
        t(
            "export.summary",
            tokens=trace.num_tokens,
            d_in=trace.d_in,
            seed=cfg.seed,
            d_out=cfg.d_out,
            dropout=cfg.dropout,
            mode=t("export.mode.train" if cfg.training else "export.mode.eval"),
            bias=cfg.qkv_bias,
        )
    )

    # --- downloads -----------------------------------------------------------------------------------
    st.subheader(t("export.download.header"))
    if exportable(trace):
        zip_column, json_column = st.columns(2)
        with zip_column:
            st.download_button(
                t("export.zip.label"),
                data=lambda: export_zip(trace, tokens, environment_info(), export_gradients(trace)),
                file_name="attention_lab_export.zip",
                mime="application/zip",
                key="export_zip",
                help=t("export.zip.help"),
                on_click="ignore",
                icon=":material/folder_zip:",
                width="stretch",
            )
        with json_column:
            st.download_button(
                t("export.json.label"),
                data=lambda: trace_json(trace, tokens, environment_info()),
                file_name="attention_trace.json",
                mime="application/json",
                key="export_json",
                help=t("export.json.help"),
                on_click="ignore",
                icon=":material/data_object:",
                width="stretch",
            )
    else:
        st.info(t("export.too_large", cells=attention_cells(trace), limit=MAX_EXPORT_CELLS))
    if exportable(trace):
        st.caption(t("export.csv_notes"))
        file_names = csv_file_names(trace)
        with st.expander(t("export.files.expander")):
            listing = ["README.txt", *file_names, "trace.json", "reproduce_attention.py"]
            st.table(
                pd.DataFrame(
                    {
                        t("export.files.file"): listing,
                        t("export.files.contents"): [
                            t(f"export.file.{csv_field(name) if name.endswith('.csv') else name}")
                            for name in listing
                        ],
                    }
                ).set_index(t("export.files.file"))
            )
        default_preview = next(
            (n for n in file_names if n.startswith("attn_weights")), file_names[0]
        )
        preview = st.selectbox(
            t("export.preview.label"),
            file_names,
            index=file_names.index(default_preview),
            key="export_preview",
        )
        preview_lines = trace_csv_file(trace, tokens, preview).splitlines()
        shown = [line[:PREVIEW_LINE_CHARS] for line in preview_lines[:PREVIEW_LINES]]
        if len(preview_lines) > PREVIEW_LINES:
            shown.append("…")
        st.code("\n".join(shown), language=None)

    # --- reproduce this ------------------------------------------------------------------------------
    st.subheader(t("export.reproduce.header"))
    intro_column, output_column = st.columns([3, 2], gap="large")
    with intro_column:
        st.caption(t("export.reproduce.intro"))
        style = st.radio(
            t("export.style.label"),
            SNIPPET_STYLES,
            format_func=lambda name: t(f"export.style.{name}"),
            key="export_style",
        )
        snippet = reproduce_snippet(
            trace, tokens, style=style
        )  # what is shown is what is downloaded
        st.download_button(
            t("export.py.label"),
            data=snippet,
            file_name=SNIPPET_FILE_NAMES[style],
            mime="text/x-python",
            key="export_py",
            help=t(f"export.py.help.{style}", file=SNIPPET_FILE_NAMES[style]),
            on_click="ignore",
            icon=":material/code:",
        )
    with output_column:
        output = trace.output[0].numpy()  # (T, d_out): what the script prints
        prefix = "o" if trace.W_out is not None else "z"  # MultiHeadAttention: out_proj(context)
        frame = numbers_frame(output, tokens, [f"{prefix}{i + 1}" for i in range(output.shape[1])])
        st.markdown(f"**{t('export.reproduce.expected')}**")
        if trace.num_tokens <= MAX_TABLE_ROWS:
            st.table(frame)
        else:
            st.dataframe(frame, height=320)
    if len(snippet) <= MAX_SHOWN_SNIPPET_CHARS:
        st.code(snippet, language="python")
    else:
        st.info(t("export.snippet_too_long", chars=len(snippet), tokens=trace.num_tokens))
