"""What a page sees: one frozen :class:`View` of the shared settings, built once per run.

The frame (``ui/frame.py``) reads the session's shared settings into a ``View`` after drawing the
sidebar and calls the page with it. A page reads its settings there, never from
``st.session_state`` (a page's *own* widgets may keep their state there), so what a page shows
is a function of its view: the same view, the same page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import streamlit as st

from attention import AttentionConfig, AttentionInputError, AttentionTrace

from .computation import compute_trace, config_from_settings
from .i18n import current_language
from .input_errors import show_input_error
from .settings import SETTINGS
from .table import Table
from .table_state import current_table


@dataclass(frozen=True)
class View:
    """The shared settings of one run, read once by the frame.

    ``config``: the sidebar's settings as one ``CausalAttention`` head (``num_heads=1``);
    ``heads``: the sidebar's number of heads, for the pages that show several;
    ``table``: the committed embedding table (the last valid one: while the draft has an error
    the frame says so above the page); ``settings``: every value of
    :data:`ui.settings.SETTINGS` by URL name (read-only); ``url``: the query parameters of this
    view (what a shared link carries); ``page``: the URL path of the page shown; ``batch``: how
    many copies of the table a trace stacks (the book's ``torch.stack((inputs, inputs))``: 2).
    """

    config: AttentionConfig
    heads: int
    palette: str
    language: str
    table: Table
    settings: Mapping[str, Any]
    url: Mapping[str, str]
    page: str = ""
    batch: int = 1

    @property
    def tokens(self) -> list[str]:
        """The table's token labels (a fresh list)."""
        return list(self.table.tokens)

    def config_with(self, *, num_heads: int = 1, variant: str = "fused") -> AttentionConfig:
        """The view's config with ``num_heads`` heads of the fused or wrapper class."""
        return replace(self.config, num_heads=num_heads, variant=variant)

    def trace(
        self, *, num_heads: int = 1, variant: str = "fused", batch: int | None = None
    ) -> AttentionTrace | None:
        """The trace of the view (cached), or None after showing why it cannot be computed.

        ``batch``: fewer batch items than the view's, for a page that shows only the first ones
        (batch item ``k`` of a trace is the same with more items after it: the same weights, and
        the dropout masks drawn in order, item 0 first).
        """
        try:
            cfg = self.config_with(num_heads=num_heads, variant=variant)
            return compute_trace(self.table, cfg, min(self.batch, batch or self.batch))
        except AttentionInputError as error:
            show_input_error(error)
            return None


def build_view(page: str = "", url: Mapping[str, str] | None = None) -> View:
    """The session's shared settings now, frozen (the frame calls it once per run)."""
    settings = {
        name: st.session_state.get(name, setting.default) for name, setting in SETTINGS.items()
    }
    return View(
        config=config_from_settings(settings),
        heads=int(settings["heads"]),
        palette=str(settings["palette"]),
        language=current_language(),
        table=current_table(),
        settings=MappingProxyType(settings),
        url=MappingProxyType(dict(url or {})),
        page=page,
        batch=int(settings["batch"]),
    )
