"""Export and reproduce: the current view as CSV files, JSON, and a script that recomputes it.

Everything here is built by :mod:`attention.export` from the trace the other pages show (the page
computes nothing itself). Downloads are generated only when a button is clicked (a callable as
``data``), so large views do not slow every rerun down.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from attention import AttentionTrace
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
from ui.book_code import code_in_language
from ui.frame import page
from ui.i18n import t
from ui.show import numbers_frame
from ui.view import View

LAYERS = ("single", "fused", "wrapper")  # CausalAttention, MultiHeadAttention, the wrapper
MAX_SHOWN_SNIPPET_CHARS = 20_000  # longer scripts (many tokens) are offered as a download only
PREVIEW_LINES = 31  # header + 30 rows
PREVIEW_LINE_CHARS = 400
MAX_STATIC_ROWS = 32  # above this, a scrolling dataframe instead of a static table


def choose_trace(view: View) -> AttentionTrace | None:
    """The trace of the layer to export: one head, or with several heads the fused or wrapper."""
    heads = view.heads
    if heads == 1:
        st.caption(t("export.layer.hint"))
        return view.trace()
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
    return view.trace() if layer == "single" else view.trace(num_heads=heads, variant=layer)


def show_summary(trace: AttentionTrace) -> None:
    cfg = trace.config
    mode = t("step.mode.train" if cfg.training else "export.mode.eval")
    st.caption(
        t(
            "export.summary",
            tokens=trace.num_tokens,
            d_in=trace.d_in,
            seed=cfg.seed,
            d_out=cfg.d_out,
            dropout=cfg.dropout,
            mode=mode,
            bias=cfg.qkv_bias,
        )
    )


def show_downloads(trace: AttentionTrace, tokens: list[str]) -> None:
    """The zip of every CSV and the trace as JSON (built only when clicked)."""
    st.subheader(t("export.download.header"))
    if not exportable(trace):
        st.info(t("export.too_large", cells=attention_cells(trace), limit=MAX_EXPORT_CELLS))
        return
    downloads = (
        ("zip", lambda: export_zip(trace, tokens, environment_info(), export_gradients(trace))),
        ("json", lambda: trace_json(trace, tokens, environment_info())),
    )
    files = {"zip": "attention_lab_export.zip", "json": "attention_trace.json"}
    kinds = {"zip": ("application/zip", "folder_zip"), "json": ("application/json", "data_object")}
    for column, (name, data) in zip(st.columns(2), downloads, strict=True):
        with column:
            st.download_button(
                t(f"export.{name}.label"),
                data=data,
                file_name=files[name],
                mime=kinds[name][0],
                key=f"export_{name}",
                help=t(f"export.{name}.help"),
                on_click="ignore",
                icon=f":material/{kinds[name][1]}:",
                width="stretch",
            )
    show_files(trace, tokens)


def show_files(trace: AttentionTrace, tokens: list[str]) -> None:
    """What the zip holds, and a preview of one of its CSV files."""
    st.caption(t("export.csv_notes"))
    file_names = csv_file_names(trace)
    with st.expander(t("export.files.expander")):
        listing = ["README.txt", *file_names, "trace.json", "reproduce_attention.py"]
        contents = [
            t(f"export.file.{csv_field(name) if name.endswith('.csv') else name}")
            for name in listing
        ]
        frame = pd.DataFrame(
            {t("export.files.file"): listing, t("export.files.contents"): contents}
        )
        st.table(frame.set_index(t("export.files.file")))
    default_preview = next((n for n in file_names if n.startswith("attn_weights")), file_names[0])
    preview = st.selectbox(
        t("export.preview.label"),
        file_names,
        index=file_names.index(default_preview),
        key="export_preview",
        filter_mode=None,  # a short list: picked, not typed
    )
    preview_lines = trace_csv_file(trace, tokens, preview).splitlines()
    shown = [line[:PREVIEW_LINE_CHARS] for line in preview_lines[:PREVIEW_LINES]]
    if len(preview_lines) > PREVIEW_LINES:
        shown.append("…")
    st.code("\n".join(shown), language=None)


def show_reproduce(trace: AttentionTrace, tokens: list[str]) -> None:
    """A script that prints the same context vectors, and what it prints."""
    st.subheader(t("export.reproduce.header"))
    intro_column, output_column = st.columns([3, 2], gap="large")
    with intro_column:
        st.caption(t("export.reproduce.intro"))
        windowed = trace.config.window is not None  # the book's classes have no window
        style = st.radio(
            t("export.style.label"),
            ("trace",) if windowed else SNIPPET_STYLES,
            format_func=lambda name: t(f"export.style.{name}"),
            key="export_style_window" if windowed else "export_style",
        )
        # shown is what is downloaded, its comments in the reader's language
        snippet = code_in_language(reproduce_snippet(trace, tokens, style=style))
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
        if trace.num_tokens <= MAX_STATIC_ROWS:
            st.table(frame)
        else:
            st.dataframe(frame, height=320)
    if len(snippet) <= MAX_SHOWN_SNIPPET_CHARS:
        st.code(snippet, language="python")
    else:
        st.info(t("export.snippet_too_long", chars=len(snippet), tokens=trace.num_tokens))


@page
def render(view: View) -> None:
    st.title(t("page.export.title"))
    st.caption(t("export.intro"))
    trace = choose_trace(view)
    if trace is None:
        st.stop()
    tokens = list(view.table.tokens)
    show_summary(trace)
    show_downloads(trace, tokens)
    show_reproduce(trace, tokens)
