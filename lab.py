"""The script every visit runs: the frame (``ui/frame.py``) and the page it chooses.

``streamlit run app.py`` serves this file (``app.py`` is the server around it, see there). The
frame (shared sidebar, URL, navigation) is in ``ui/frame.py``; each page is a file in ``pages/``.
"""

from __future__ import annotations

from ui.frame import run_app

run_app()
