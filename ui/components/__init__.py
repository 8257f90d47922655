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

import hashlib
import json
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


def _asset_path() -> str:
    """The files' route (app.py), under the server's ``server.baseUrlPath`` when it has one."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/al-assets/" if base else "/al-assets/"


ASSET_PATH = _asset_path()
# The joined JavaScript and the CSS of each component, by stem, and the files the route serves
# (content-addressed names: a browser keeps each one until the code changes).
LOADED_JS: dict[str, str] = {}
LOADED_CSS: dict[str, str | None] = {}
ASSETS: dict[str, tuple[str, str]] = {}  # file name -> (text, media type)


def source(
    stem: str, *, class_name: str, values: dict[str, str] | None = None
) -> tuple[str, str | None]:
    """The JavaScript (``shared.js``, then ``<stem>.js``) and the CSS (``None`` without a
    ``<stem>.css``) of component ``stem``, with ``__CLASS__`` replaced by ``class_name`` and
    each other placeholder of ``values`` (``{"__W__": "1024"}``) by its value."""
    own_js = (FOLDER / f"{stem}.js").read_text(encoding="utf-8")
    shared = (FOLDER / SHARED_JS).read_text(encoding="utf-8")
    js = f"// {SHARED_JS}\n{shared}\n// {stem}.js\n{own_js}"
    css_file = FOLDER / f"{stem}.css"
    css = css_file.read_text(encoding="utf-8") if css_file.exists() else None
    for placeholder, value in {CLASS_PLACEHOLDER: class_name, **(values or {})}.items():
        js = js.replace(placeholder, value)
        css = None if css is None else css.replace(placeholder, value)
    return js, css


def _asset(stem: str, text: str, extension: str, media_type: str) -> str:
    name = f"{stem}.{hashlib.sha256(text.encode()).hexdigest()[:12]}.{extension}"
    ASSETS[name] = (text, media_type)
    return name


def loader(js_name: str, css_name: str | None) -> str:
    """The inline module Streamlit sends with each element: it imports the component's file.

    Streamlit 1.67 sends a component's inline ``js`` and ``css`` with every element on every
    rerun, so each element carries this stub instead of the code. The browser fetches the files
    once (the stylesheet before the first draw) and keeps them: their names change with their
    content.
    """
    base = f"new URL({json.dumps(ASSET_PATH)}, location.href)"
    style = ""
    if css_name is not None:
        style = f"""const css = {json.dumps(css_name)};
if (!document.querySelector(`link[data-al-asset="${{css}}"]`)) {{
  const link = Object.assign(document.createElement('link'), {{ rel: 'stylesheet' }});
  link.dataset.alAsset = css;
  link.href = new URL(css, {base}).href;
  const loaded = new Promise((done) => {{ link.onload = link.onerror = done; }});
  document.head.append(link);
  await loaded;
}}
"""
    return (
        f"{style}const module = await import(new URL({json.dumps(js_name)}, {base}).href);\n"
        "const draw = module.default;\nexport { draw as default };\n"
    )


def define(
    stem: str, *, class_name: str, values: dict[str, str] | None = None
) -> ComponentRenderer:
    """Register component ``attention_lab.<stem>`` from its files; its mounting command.

    Its styles are the page's (``isolate_styles=False``): the CSS is scoped by ``class_name``,
    and the theme's CSS variables and the page's layout (a table's column) are reachable.
    """
    js, css = source(stem, class_name=class_name, values=values)
    LOADED_JS[stem] = js
    LOADED_CSS[stem] = css
    js_name = _asset(stem, js, "js", "text/javascript")
    css_name = None if css is None else _asset(stem, css, "css", "text/css")
    return st.components.v2.component(
        f"{PROJECT}.{stem}", js=loader(js_name, css_name), isolate_styles=False
    )


def file_name(key: str, fallback: str) -> str:
    """A download's file name (without its extension) from an element's key: letters, digits,
    ``_`` and ``-`` only; ``fallback`` when nothing is left."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or fallback
