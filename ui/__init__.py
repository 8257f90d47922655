"""Streamlit-side helpers shared by the pages: state and URL, messages in two languages, display.

Nothing here computes attention: numbers come from ``attention/``, figures from ``viz/``.
"""
