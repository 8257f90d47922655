"""The app's own browser components: their JavaScript and CSS as files, loaded once here.

Each component has ``<stem>.js`` (an ES module whose default export Streamlit calls on every
rerun) and, when it has a look of its own, ``<stem>.css``, named after its module in ``ui/``;
``shared.js`` holds what they have in common.

Streamlit's ``st.components.v2.component`` takes file paths only below an *installed* package's
``asset_dir`` (``ui/`` is not installed), and an inline module cannot ``import`` another file, so
:func:`define` puts ``shared.js`` before the component's own file, and writes the class its
Python module declares where the file says ``__CLASS__``. Files are read once per process,
relative to this file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from streamlit.components.v2.types import ComponentRenderer

FOLDER = Path(__file__).parent
SHARED_JS = "shared.js"
CLASS_PLACEHOLDER = "__CLASS__"
PROJECT = "attention_lab"  # a component's name is "attention_lab.<stem>"

# What :func:`define` handed to Streamlit, by stem: the joined JavaScript and the CSS.
LOADED_JS: dict[str, str] = {}
LOADED_CSS: dict[str, str | None] = {}


def source(stem: str, *, class_name: str) -> tuple[str, str | None]:
    """The JavaScript (``shared.js``, then ``<stem>.js``) and the CSS (``None`` without a
    ``<stem>.css``) of component ``stem``, with ``__CLASS__`` replaced by ``class_name``."""
    own_js = (FOLDER / f"{stem}.js").read_text(encoding="utf-8")
    shared = (FOLDER / SHARED_JS).read_text(encoding="utf-8")
    js = f"// {SHARED_JS}\n{shared}\n// {stem}.js\n{own_js}"
    css_file = FOLDER / f"{stem}.css"
    css = css_file.read_text(encoding="utf-8") if css_file.exists() else None
    if css is not None:
        css = css.replace(CLASS_PLACEHOLDER, class_name)
    return js.replace(CLASS_PLACEHOLDER, class_name), css


def define(stem: str, *, class_name: str) -> ComponentRenderer:
    """Register component ``attention_lab.<stem>`` from its files; its mounting command.

    Its styles are the page's (``isolate_styles=False``): the CSS is scoped by ``class_name``,
    and the theme's CSS variables and the page's layout (a table's column) are reachable.
    """
    js, css = source(stem, class_name=class_name)
    LOADED_JS[stem] = js
    LOADED_CSS[stem] = css
    return st.components.v2.component(f"{PROJECT}.{stem}", js=js, css=css, isolate_styles=False)


def file_name(key: str, fallback: str) -> str:
    """A download's file name (without its extension) from an element's key: letters, digits,
    ``_`` and ``-`` only; ``fallback`` when nothing is left."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or fallback
