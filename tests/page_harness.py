"""Run the app with a chosen default page, for ``AppTest`` (see ``ui/frame.py``).

Set ``at.session_state["harness_page"] = "masking"`` before the first ``run()``.
"""

from __future__ import annotations

import streamlit as st

from ui.frame import run_app

run_app(default_page=st.session_state.get("harness_page", "step"))
