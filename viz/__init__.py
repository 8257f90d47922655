"""Plotly figure builders: arrays and labels in, a ``go.Figure`` out. No Streamlit here.

Every builder is a pure function, so it can be tested without a browser or a server.
"""
