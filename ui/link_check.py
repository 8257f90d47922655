"""A link with more parameters than Streamlit reads is said to be unread, not opened as if empty.

Streamlit empties a query of more than :data:`MAX_LINK_FIELDS` parameters before the app sees it,
so only the browser still has the link: ``components/link_check.js`` counts its parameters once
per tab and reports a count over the limit, which the frame says beside the link's other warnings
(:func:`ui.url.show_url_warnings`). The component draws nothing.
"""

from __future__ import annotations

from .components import define

LINK_CHECK_CLASS = "al-link-check"
# Streamlit's CLIENT_STATE_QUERY_STRING_MAX_FIELDS (tests/test_links.py pins that they agree).
MAX_LINK_FIELDS = 1000
_COMPONENT = define("link_check", class_name=LINK_CHECK_CLASS)


def _reported() -> None:
    """The report only needs the rerun it causes; the count is read from the result."""


def unread_link_fields() -> int:
    """Mount the check; the number of parameters of this tab's link if Streamlit read none of
    them for having more than :data:`MAX_LINK_FIELDS`, else 0."""
    result = _COMPONENT(
        key=LINK_CHECK_CLASS,
        data={"limit": MAX_LINK_FIELDS},
        default={"fields": 0},
        on_fields_change=_reported,
    )
    fields = result.get("fields")  # what the browser sent: a count, or nothing yet
    if isinstance(fields, bool) or not isinstance(fields, int | float):
        return 0
    return int(fields) if fields > MAX_LINK_FIELDS else 0
