"""Placeholder page: export."""

from __future__ import annotations

import streamlit as st

from ui.i18n import t

st.title(t("page.export.title"))
