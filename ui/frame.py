"""The frame around every page: page config, shared state, sidebar, URL, navigation.

``lab.py`` calls :func:`run_app` (tests too, with another ``default_page``). A page is
``render(view)`` in ``pages/``, marked with :func:`page` and registered as a *callable*
``st.Page``: its module is imported once, its ``render`` called on every run.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from . import class_mode, deck, heavy, sessions
from .budget import OverBudget
from .computation import use_page_threads
from .i18n import language_of_this_run, t
from .ops_log import count
from .run_slots import run_slot
from .sidebar import render_sidebar
from .step_link import CURRENT_PAGE_KEY, forget_link_step
from .table_state import show_stale_table_notice
from .url import PageParams, init_session, register_page_params, show_url_warnings, sync_url
from .view import View, build_view

PageFunction = Callable[[View], None]


use_page_threads()  # before any script run's thread starts: they all inherit the count
heavy.register_session_hooks()  # a closed tab's large view goes back to the memory budget


@dataclass(frozen=True)
class PageSpec:
    name: str  # url path and message key: page.{name}.title
    file: str  # the page's file; its ``render(view)`` is what runs
    section: str  # message key of the navigation section
    settings: str | None = None  # the module declaring the page's own URL_PARAMS, if it has any
    teaches: bool = True  # a teaching page: a Present button, and a lecture may name it

    @property
    def module(self) -> str:
        """The page file's module name (``pages/masking.py`` → ``pages.masking``)."""
        return self.file.removesuffix(".py").replace("/", ".")

    def render(self) -> PageFunction:
        """The page's function (importing its module the first time)."""
        return importlib.import_module(self.module).render

    def url_params(self) -> PageParams | None:
        """The page's own URL parameters (importing the module that declares them)."""
        if self.settings is None:
            return None
        return importlib.import_module(self.settings).URL_PARAMS


DEFAULT_PAGE = "step"  # the page at "/": the step page, the book's example step by step

PAGE_SPECS = (
    PageSpec("chapter_path", "pages/chapter_path.py", "nav.learn", settings="ui.chapter_settings"),
    PageSpec("step", "pages/step_by_step.py", "nav.learn", settings="ui.step_link"),
    PageSpec("embeddings", "pages/embeddings.py", "nav.learn", teaches=False),
    PageSpec("one_query", "pages/one_query.py", "nav.learn"),
    PageSpec("masking", "pages/masking.py", "nav.learn"),
    PageSpec("multi_head", "pages/multi_head.py", "nav.learn"),
    PageSpec("backward", "pages/backward.py", "nav.learn", settings="ui.gradient_state"),
    PageSpec("compare", "pages/compare.py", "nav.explore"),
    PageSpec("find_the_bug", "pages/find_the_bug.py", "nav.explore", settings="ui.bug_choice"),
    PageSpec("dropout_expectation", "pages/dropout_expectation.py", "nav.explore"),
    PageSpec("why_sqrt_dk", "pages/why_sqrt_dk.py", "nav.explore"),
    PageSpec("quiz", "pages/quiz.py", "nav.explore"),
    PageSpec("train", "pages/train.py", "nav.explore", settings="ui.train_settings", teaches=False),
    PageSpec("fast_path", "pages/fast_path.py", "nav.beyond"),
    PageSpec("kv_cache", "pages/kv_cache.py", "nav.beyond"),
    PageSpec("export", "pages/export.py", "nav.share", teaches=False),
    PageSpec("reproducibility", "pages/reproducibility.py", "nav.share"),
)


TABLE_PAGE = "embeddings"  # where the embedding table is edited (the notice links to it)


def register_page_settings() -> None:
    """Let the URL carry every page's own settings, as each page's ``PageSpec`` names them,
    and the deck's lecture, which names the teaching pages."""
    for spec in PAGE_SPECS:
        if spec.teaches:
            deck.PRESENTABLE[spec.name] = f"page.{spec.name}.title"
            deck.PAGE_MODULES[spec.name] = spec.module
            deck.PAGE_ALIASES[spec.module.removeprefix("pages.")] = spec.name
    register_page_params(deck.URL_PARAMS)
    for spec in PAGE_SPECS:
        params = spec.url_params()
        if params is not None:
            register_page_params(params)
    register_page_params(class_mode.URL_PARAMS)  # ?class=<id>: a student's class link


def import_every_page() -> None:
    """Import every page (and so every module the pages use), then freeze those objects.

    ``gc.freeze()`` moves the imports' long-lived objects out of reach of later collections
    (which hold the GIL), so they walk only what the scripts create.
    """
    for spec in PAGE_SPECS:
        spec.render()
    register_page_settings()
    # Initialising a meta-device model imports torch._dynamo on first use: here, not in a
    # visitor's run, where the import would hold the whole server.
    importlib.import_module("torch._dynamo")
    gc.collect()
    gc.freeze()


def _registered_pages(
    view_of_run: list[View], default_page: str | None
) -> tuple[dict[str, list[st.Page]], dict[str, st.Page]]:
    """Every page as a callable ``st.Page``, by navigation section and by name.

    Each runs ``render`` with this run's ``view_of_run`` and imports its module only when it runs.
    """
    sections: dict[str, list[st.Page]] = {}
    pages: dict[str, st.Page] = {}
    for spec in PAGE_SPECS:

        def run_page(spec: PageSpec = spec) -> None:
            spec.render()(view_of_run[0])

        page_object = st.Page(
            run_page,
            title=t(f"page.{spec.name}.title"),
            url_path=spec.name,
            default=spec.name == default_page,
        )
        sections.setdefault(t(spec.section), []).append(page_object)
        pages[spec.name] = page_object
    return sections, pages


def link_to_page(
    name: str, label: str, *, icon: str | None = None, query_params: dict[str, str] | None = None
) -> None:
    """A link to the page ``name`` of :data:`PAGE_SPECS` (its URL path), optionally with parameters.

    Streamlit finds a callable page by its URL path, so a fresh ``st.Page`` with the same path
    names the registered one.
    """
    if name not in {spec.name for spec in PAGE_SPECS}:
        raise KeyError(f"no page named {name!r}")
    target = st.Page(lambda: None, title=t(f"page.{name}.title"), url_path=name)
    st.page_link(target, label=label, icon=icon, query_params=query_params)


def run_app(default_page: str = DEFAULT_PAGE) -> None:
    """Set up the page and shared state, draw the sidebar, then run the chosen page.

    A few runs work at once, the others wait their turn (:mod:`ui.run_slots`).
    """
    with run_slot():
        _run_app(default_page)


def _run_app(default_page: str) -> None:
    st.set_page_config(page_title="Attention Lab", page_icon="🔎", layout="wide")
    register_page_settings()
    init_session()
    sessions.session_token()  # registers the session: its tab's jobs and large view end with it
    count("rerun")  # what /metrics reports as reruns (ui/metrics.py)
    view_of_run: list[View] = []
    sections, pages = _registered_pages(view_of_run, default_page)
    current = st.navigation(sections, expanded=True)  # every page listed, none behind "View more"
    goto = deck.take_goto()  # the deck's Next leads to a screen of another page
    if goto is not None and goto != (current.url_path or default_page) and goto in pages:
        st.switch_page(pages[goto])
    if class_mode.follow(current.url_path or default_page, pages):  # a class's change to apply
        init_session()
    render_sidebar(current.url_path)
    deck.lecture_panel(current.url_path or default_page)
    st.session_state[CURRENT_PAGE_KEY] = current.url_path or default_page
    with language_of_this_run():  # settled by the sidebar
        url = sync_url()
        show_url_warnings()
        class_mode.class_tick()  # a student follows, a teacher publishes (ui/class_mode.py)
        with st.sidebar:
            class_mode.class_button("sidebar")
        if show_stale_table_notice() and current.url_path != TABLE_PAGE:
            st.page_link(pages[TABLE_PAGE], label=t("table.stale_link"), icon=":material/edit:")
        view_of_run.append(build_view(current.url_path, url))
        name = current.url_path or default_page
        spec = next((s for s in PAGE_SPECS if s.name == name), None)
        deck.open_bar(name)  # presenting: the bar, before the page
        if spec is not None and spec.teaches and not deck.presenting():
            deck.present_button(spec.name)
        heavy.begin_run()
        completed = False  # stays False when a click stops the run (Streamlit's rerun)
        try:
            current.run()
            completed = True
        except OverBudget as refused:  # a large view the memory budget cannot admit now
            heavy.show_refusal(refused)
            completed = True
        except (MemoryError, RuntimeError) as error:  # the one place an allocation failure ends
            if not heavy.is_allocation_failure(error):
                raise
            heavy.show_out_of_memory()
            completed = True
        finally:
            deck.close_bar()  # a bar the page could not fill (an error, no walk): never a dead end
            heavy.end_run(completed=completed)  # large results a whole run did not show go back
            forget_link_step()  # a link's step= is for the page it opens, checked there


def page(render: PageFunction) -> PageFunction:
    """Mark a page's function: ``@page`` above ``def render(view: View) -> None`` in ``pages/``.

    Until ``st.navigation`` has run once, Streamlit treats a ``pages/`` folder as a *legacy*
    multipage app: a fresh server's first deep link (``/masking``) runs the page file alone as
    ``__main__``, without the frame. Run so, the mark calls ``st.navigation`` with every page
    (hidden), which switches to navigation mode for good, and reruns into ``app.py``. Imported
    normally, it does nothing.
    """
    if render.__module__ == "__main__":
        # the same default page as the app's: a default page's URL is "/", not its own path
        _sections, pages = _registered_pages([], DEFAULT_PAGE)
        st.navigation(list(pages.values()), position="hidden")
        st.rerun()
    return render
