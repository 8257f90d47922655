"""Placeholder page: dropout_expectation."""

from __future__ import annotations

import streamlit as st

from ui.i18n import t

st.title(t("page.dropout_expectation.title"))
