"""The frame around every page: page config, shared state, sidebar, URL, navigation.

``lab.py`` (the script ``app.py`` serves) calls :func:`run_app`. Tests call it too with another
``default_page`` (see ``tests/page_harness.py``): Streamlit's ``AppTest.switch_page`` runs a file
of ``pages/`` without this frame, so the harness makes the wanted page the default one instead,
frame included.
"""

from __future__ import annotations

import gc
import threading
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from . import memory, state, train_settings  # noqa: F401 - train_settings registers its URL parameters
from .i18n import t
from .preload import import_page_modules

REPO_ROOT = Path(__file__).resolve().parent.parent

# Set while run_app() runs a page in this thread (each session's script runs in one thread).
_FRAME = threading.local()


def _freeze_import_time_objects() -> None:
    """Import everything the pages use, then move those objects out of the garbage collector's way.

    torch, Streamlit, pandas and Plotly create ~200k long-lived objects at import. A full
    collection walks all of them (~250 ms here, with the GIL held, so every session waits).
    ``gc.freeze()`` moves them to the permanent generation once; later collections only walk what
    the scripts create. (``runner.postScriptGC`` is off in .streamlit/config.toml for the same
    reason.)
    """
    import_page_modules()
    gc.collect()
    gc.freeze()


_freeze_import_time_objects()


@dataclass(frozen=True)
class PageSpec:
    name: str  # url path and message key: page.{name}.title
    file: str
    section: str  # message key of the navigation section


PAGE_SPECS = (
    PageSpec("step", "pages/step_by_step.py", "nav.learn"),
    PageSpec("embeddings", "pages/embeddings.py", "nav.learn"),
    PageSpec("one_query", "pages/one_query.py", "nav.learn"),
    PageSpec("masking", "pages/masking.py", "nav.learn"),
    PageSpec("multi_head", "pages/multi_head.py", "nav.learn"),
    PageSpec("backward", "pages/backward.py", "nav.learn"),
    PageSpec("compare", "pages/compare.py", "nav.explore"),
    PageSpec("dropout_expectation", "pages/dropout_expectation.py", "nav.explore"),
    PageSpec("why_sqrt_dk", "pages/why_sqrt_dk.py", "nav.explore"),
    PageSpec("quiz", "pages/quiz.py", "nav.explore"),
    PageSpec("train", "pages/train.py", "nav.explore"),
    PageSpec("export", "pages/export.py", "nav.share"),
    PageSpec("reproducibility", "pages/reproducibility.py", "nav.share"),
)


TABLE_PAGE = "embeddings"  # where the embedding table is edited (the notice links to it)


def run_app(default_page: str = "step") -> None:
    """Set up the page and shared state, draw the sidebar, then run the chosen page."""
    st.set_page_config(page_title="Attention Lab", page_icon="🔎", layout="wide")
    state.init_session()
    memory.track_session()  # its end frees memory (ui/memory.py)
    sections: dict[str, list[st.Page]] = {}
    pages: dict[str, st.Page] = {}
    for spec in PAGE_SPECS:
        page = st.Page(
            REPO_ROOT / spec.file,
            title=t(f"page.{spec.name}.title"),
            url_path=spec.name,
            default=spec.name == default_page,
        )
        sections.setdefault(t(spec.section), []).append(page)
        pages[spec.name] = page
    current = st.navigation(sections, expanded=True)  # every page listed, none behind "View more"
    state.render_sidebar(current.url_path)
    state.sync_url()
    state.show_url_warnings()
    if state.show_stale_table_notice() and current.url_path != TABLE_PAGE:
        st.page_link(pages[TABLE_PAGE], label=t("table.stale_link"), icon=":material/edit:")
    _FRAME.active = True
    try:
        current.run()
    finally:
        _FRAME.active = False


def require_frame() -> None:
    """Make sure this page runs inside the frame; call it first in every page file.

    Streamlit decides once per server whether an app with a ``pages/`` folder is a legacy
    multipage app. Until ``st.navigation`` has run once, the first visitor of ``/masking`` on a
    fresh server gets ``pages/masking.py`` executed on its own, without ``app.py`` (no shared
    state, no sidebar). Here the page notices, switches Streamlit to ``st.navigation`` mode for
    good and reruns: the rerun executes ``app.py``, which resolves the same page by its URL path.
    """
    if getattr(_FRAME, "active", False):
        return
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.rerun()
