"""Attention Lab: see causal self-attention with dropout, step by step.

Run with ``streamlit run app.py``. The frame (shared sidebar, URL, navigation) is in
``ui/frame.py``; each page is a file in ``pages/``.
"""

from __future__ import annotations

from ui.frame import run_app

run_app()
