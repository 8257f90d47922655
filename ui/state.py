"""Transition: the names ``ui.state`` used to hold, re-exported from the modules that own them now.

``ui/state.py`` had five jobs; each has its module (import from there in new code):

- ``ui.settings``: the declarations of the shared settings (:data:`~ui.settings.SETTINGS`);
- ``ui.url``: the URL read on a session's first run, written on every run, its warnings;
- ``ui.sidebar``: the shared controls;
- ``ui.table_state``: the embedding table's draft and commit;
- ``ui.computation``: the cached trace (its key is the frozen config itself);

and pages get the shared settings from a frozen ``ui.view.View``. This module only keeps code
written against the old names working while branches merge; it adds nothing.
"""

from __future__ import annotations

from .computation import (
    LARGE_TRACE_CELLS,
    TRACE_CACHE_LARGE,
    TRACE_CACHE_SMALL,
    compute_trace,
    config_of,
    drop_large_traces,
    trace_cells,
)
from .settings import COMPARE_B_FIELDS, COMPARE_B_STORE, MAX_APP_SEED, PALETTES, SETTINGS, Setting
from .sidebar import render_sidebar
from .table import MAX_D_IN, message
from .table_state import (
    book_table,
    commit_table,
    current_table,
    on_table_edit,
    parse_sentence,
    random_words,
    table_for_words,
    table_problem,
)
from .url import (
    PageParams,
    init_session,
    register_page_params,
    show_url_warnings,
    sync_url,
    url_state,
)

__all__ = [
    "COMPARE_B_FIELDS",
    "COMPARE_B_STORE",
    "LARGE_TRACE_CELLS",
    "MAX_APP_SEED",
    "MAX_D_IN",
    "PALETTES",
    "SETTINGS",
    "TRACE_CACHE_LARGE",
    "TRACE_CACHE_SMALL",
    "PageParams",
    "Setting",
    "book_table",
    "commit_table",
    "compute_trace",
    "config_of",
    "current_table",
    "drop_large_traces",
    "init_session",
    "message",
    "on_table_edit",
    "parse_sentence",
    "random_words",
    "register_page_params",
    "render_sidebar",
    "show_url_warnings",
    "sync_url",
    "table_for_words",
    "table_problem",
    "trace_cells",
    "url_state",
]
