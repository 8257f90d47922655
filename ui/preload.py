"""The modules the pages use, imported up front (by the frame, and by benchmarks/gc_pause.py).

Importing them does nothing else: in particular it does not freeze the garbage collector, which
``ui.frame`` does right after (see ``ui.frame._freeze_import_time_objects``).
"""

from __future__ import annotations

import importlib

PAGE_MODULES = (
    "attention.by_hand",
    "attention.environment",
    "attention.experiments",
    "attention.gradients",
    "attention.export",
    "attention.masking",
    "attention.head_trace",
    "attention.training",
    "attention.training_export",
    "ui.editor",
    "ui.gradient_state",
    "ui.show",
    "ui.computation",
    "ui.settings",
    "ui.sidebar",
    "ui.table_state",
    "ui.url",
    "ui.view",
    "ui.table",
    "ui.train_jobs",
    "ui.step_view",
    "viz.experiments",
    "viz.gradients",
    "viz.heatmap",
    "viz.image_heatmap",
    "viz.multi_head",
    "viz.one_query",
    "viz.scatter",
    "viz.steps",
    "viz.training",
)


def import_page_modules() -> None:
    """Import every module of :data:`PAGE_MODULES` (torch, Streamlit, pandas, Plotly with them)."""
    for name in PAGE_MODULES:
        importlib.import_module(name)
