"""Placeholder page: one_query."""

from __future__ import annotations

import streamlit as st

from ui.i18n import t

st.title(t("page.one_query.title"))
