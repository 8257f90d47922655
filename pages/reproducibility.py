"""Reproducibility: what the numbers depend on, a live check against the book, a shareable link.

The checks are computed by :mod:`attention.book_outputs` and :mod:`attention.environment`; this
page only shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st
import torch

from attention import AttentionConfig, AttentionTrace
from attention.book_outputs import CAUSAL_SEED_123, DROPOUT_CHECKS, BookCheck, check_book_outputs
from attention.environment import RecomputeCheck, dropout_on_ones, environment_info, recompute_check
from attention.export import attention_cells
from ui.frame import PAGE_SPECS, page
from ui.i18n import t
from ui.show import numbers_frame
from ui.step_link import STEP_PARAM, WALK_NAMES, open_step
from ui.table import table_csv_file
from ui.url import MAX_LINK_CHARS, link_params, query_text
from ui.view import View
from ui.walk import Entry, Walk, begin, present
from viz.vocabulary import format_difference

THIS_PAGE = "reproducibility"
DEFAULT_PAGE = "step"  # the page app.py opens at "/" (ui.frame.run_app's default_page)
MAX_RECHECK_CELLS = 2**20  # T × T: larger views (T > 1024) are not recomputed twice on every run
MACHINE_FACTS = (
    "torch_version",
    "python_version",
    "os",
    "machine",
    "platform",
    "torch_threads",
    "cpu_count",
    "default_dtype",
)


@st.cache_resource(show_spinner=False)
def book_checks() -> list[BookCheck]:
    """The book's examples recomputed on this machine, once per server process.

    They depend on no setting, so every later run shows the same computed result (recomputing
    them took most of this page's run).
    """
    return check_book_outputs()


@st.cache_resource(max_entries=64, ttl=1800, show_spinner=False)
def view_check(
    values: bytes, shape: tuple[int, ...], cfg: AttentionConfig, _trace: AttentionTrace
) -> RecomputeCheck:
    """:func:`recompute_check` of a view, once per view (table values and settings).

    ``_trace`` (the trace the pages show, not hashed: it is the cached trace of this view) is
    compared with the two fresh traces as well.
    """
    return recompute_check(_trace.inputs, cfg, reference=_trace)  # the whole batch


def app_base_url() -> str:
    """The app's address as the browser sees it (``http://host:port/prefix``), or "" if unknown."""
    url = st.context.url
    if not url:
        return ""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if path.endswith(f"/{THIS_PAGE}"):
        path = path[: -len(THIS_PAGE) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def share_link(page_name: str, url: Mapping[str, str], base: str = "") -> str:
    """The link that opens ``page_name`` with the view's query ``url`` (``View.url``: the
    sentence, embeddings and every setting that differs from its default)."""
    query = query_text(url)
    path = "/" if page_name == DEFAULT_PAGE else f"/{page_name}"
    return f"{base}{path}" + (f"?{query}" if query else "")


def with_open_step(params: Mapping[str, str], page_name: str) -> dict[str, str]:
    """The link's ``step=``: the step open on the page it leads to (not this page's screen)."""
    linked = {name: value for name, value in params.items() if name != STEP_PARAM}
    names = WALK_NAMES.get(page_name, ())
    if names and open_step(page_name) != names[0]:
        linked[STEP_PARAM] = open_step(page_name)
    return linked


def facts_table(rows: list[tuple[str, object]]) -> pd.DataFrame:
    """Two text columns, ``what`` and ``value``, with translated headers."""
    return pd.DataFrame(
        {
            t("repro.table.fact"): [label for label, _ in rows],
            t("repro.table.value"): [str(value) for _, value in rows],
        }
    ).set_index(t("repro.table.fact"))


def dropout_verdict(checks: list[BookCheck]) -> str:
    """What this machine's dropout draws are, measured: the book's 3.5.2 printouts or not."""
    dropout = [check for check in checks if check.name in DROPOUT_CHECKS]
    differing = [check for check in dropout if not check.passed]
    if not differing:
        return t("repro.dropout.same", count=len(dropout))
    cells = sum(
        int((torch.tensor(check.actual) - torch.tensor(check.expected)).abs().gt(1e-4).sum())
        for check in differing
    )
    return t("repro.dropout.different", cells=cells, count=len(differing))


def show_machine(view: View) -> None:
    """The facts a result depends on, and whether this machine draws the book's dropout masks."""
    machine_column, dropout_column = st.columns(2)
    with machine_column:
        st.subheader(t("repro.machine.header"))
        info = environment_info()
        rows: list[tuple[str, object]] = [(t("repro.fact.seed"), view.config.seed)]
        rows += [(t(f"repro.fact.{name}"), info[name]) for name in MACHINE_FACTS]
        st.table(facts_table(rows))
    with dropout_column:
        st.subheader(t("repro.dropout.header"))
        st.info(dropout_verdict(book_checks()))
        st.caption(t("repro.dropout.platforms"))
        with st.expander(t("repro.dropout.expander")):
            st.code(
                "torch.manual_seed(123)\ntorch.nn.Dropout(0.5)(torch.ones(6, 6))", language="python"
            )
            st.caption(t("repro.dropout.caption"))
            mask = dropout_on_ones(seed=123, p=0.5, size=6).numpy()  # (6, 6): 0 or 2
            labels = [str(i + 1) for i in range(mask.shape[0])]
            st.table(numbers_frame(mask, labels, labels, decimals=0))


def show_book_checks(*, compact: bool = False) -> None:
    """The book's examples recomputed here, each against its printed numbers.

    ``compact`` (presenter mode): without the recipes' column, which a projector cannot hold."""
    st.subheader(t("repro.book.header"))
    st.caption(t("repro.book.intro"))
    checks = book_checks()
    verdicts = [t("repro.book.agrees" if c.passed else "repro.book.differs") for c in checks]
    table = {
        t("repro.book.check"): [t(f"repro.check.{check.name}") for check in checks],
        t("repro.book.recipe"): [check.recipe for check in checks],
        t("repro.book.result"): verdicts,
        t("repro.book.difference"): [
            format_difference(check.max_abs_difference) for check in checks
        ],
    }
    if compact:
        del table[t("repro.book.recipe")]
    st.table(pd.DataFrame(table).set_index(t("repro.book.check")))
    failed = sum(not check.passed for check in checks)
    if failed:
        st.error(
            t("repro.book.some_fail", failed=failed, count=len(checks)), icon=":material/error:"
        )
    else:
        st.success(t("repro.book.all_pass", count=len(checks)), icon=":material/check_circle:")
    if compact:  # a projector's screen: the verdicts; the numbers are the page's
        return
    with st.expander(t("repro.book.numbers")):
        both = [
            list(printed) + list(now)
            for printed, now in zip(CAUSAL_SEED_123, checks[0].actual, strict=True)
        ]
        printed_name, now_name = t("repro.book.printed"), t("repro.book.now")
        columns = [f"{printed_name} z1", f"{printed_name} z2", f"{now_name} z1", f"{now_name} z2"]
        st.table(numbers_frame(both, [str(i + 1) for i in range(len(both))], columns, decimals=6))


def show_view_check(view: View) -> None:
    """The current view computed again from scratch, compared tensor by tensor."""
    st.subheader(t("repro.current.header"))
    st.caption(t("repro.current.intro"))
    trace = view.trace()
    if trace is None:
        return
    if attention_cells(trace) > MAX_RECHECK_CELLS:
        st.info(t("repro.current.too_large", cells=attention_cells(trace), limit=MAX_RECHECK_CELLS))
        return
    inputs = trace.inputs.numpy()  # (b, T, d_in)
    result = view_check(inputs.tobytes(), inputs.shape, trace.config, trace)
    if result.reproducible:
        st.success(
            t("repro.current.ok", fields=result.fields_compared, runs=result.runs),
            icon=":material/check_circle:",
        )
    else:
        st.error(
            t("repro.current.fail", names=", ".join(result.differing)), icon=":material/error:"
        )


def show_link(view: View) -> None:
    """A link to the current view, on the page the reader chooses."""
    st.subheader(t("repro.link.header"))
    st.caption(t("repro.link.explain"))
    page_names = [spec.name for spec in PAGE_SPECS]
    link_page = st.selectbox(
        t("repro.link.page"),
        page_names,
        index=page_names.index(DEFAULT_PAGE),
        format_func=lambda name: t(f"page.{name}.title"),
        key="repro_link_page",
        filter_mode=None,  # a short list: picked, not typed
    )
    base = app_base_url()
    params, left_out = link_params(view.url)
    if left_out:  # a link that long would not open: the table goes as a file instead
        st.warning(t("repro.link.too_long", chars=len(query_text(view.url)), limit=MAX_LINK_CHARS))
    st.code(share_link(link_page, with_open_step(params, link_page), base), language=None)
    if not base:
        st.caption(t("repro.link.relative"))
    if left_out:
        st.download_button(
            t("repro.link.table_csv"),
            data=table_csv_file(view.table),
            file_name="attention_lab_embeddings.csv",
            mime="text/csv",
            key="repro_table_csv",
            on_click="ignore",
        )


# Presenter mode's screens: the machine and dropout's randomness, the book's printed outputs,
# the current settings, the link that reproduces them
WALK: Walk[View] = Walk(
    page="reproducibility",
    entries=(
        Entry("machine", lambda: t("repro.machine.header"), show_machine),
        Entry(
            "book",
            lambda: t("repro.book.header"),
            lambda view: show_book_checks(),
            parts=lambda view: (lambda view: show_book_checks(compact=True),),
        ),
        Entry("current", lambda: t("repro.current.header"), show_view_check),
        Entry("link", lambda: t("repro.link.header"), show_link),
    ),
    tabs_key="reproducibility_tabs",
)


@page
def render(view: View) -> None:
    if begin(WALK):
        present(WALK, view)
        return
    st.title(t("page.reproducibility.title"))
    st.caption(t("repro.intro"))
    for entry in WALK.entries:
        entry.draw(view)
