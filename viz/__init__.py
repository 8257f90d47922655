"""Figure builders: arrays and labels in, a figure's data out (a matrix view, a chart). No Streamlit.

Every builder is a pure function, so it can be tested without a browser or a server.
"""
