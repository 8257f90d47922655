"""Placeholder page: step_by_step."""

from __future__ import annotations

import streamlit as st

from ui.i18n import t

st.title(t("page.step.title"))
