"""One message catalogue for the whole app, in English and Chinese.

Every label, explanation and message a user sees goes through :func:`t`::

    t("sidebar.seed")                      # the label in the current language
    t("error.cell", row=2, column="x3")    # with named placeholders
    t("step.settings", tokens=1)           # "{tokens:token|tokens}" writes "1 token"

The catalogue is assembled from the ``MESSAGES`` dicts of the modules in ``ui/messages/`` (one per
page or topic, so pages can be worked on side by side); a key may be defined only once, and every
key must have both languages (a test checks).
"""

from __future__ import annotations

import importlib
import pkgutil
import string
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from viz.vocabulary import format_difference, format_exponent

from . import messages as _messages_package

LANGUAGES = {"en": "English", "zh": "中文"}
DEFAULT_LANGUAGE = "en"
LANGUAGE_KEY = "lang"  # the language setting's session key and URL name (ui/settings.py)


def _load_catalogue() -> dict[str, dict[str, str]]:
    catalogue: dict[str, dict[str, str]] = {}
    for module_info in sorted(pkgutil.iter_modules(_messages_package.__path__), key=str):
        module = importlib.import_module(f"{_messages_package.__name__}.{module_info.name}")
        for key, texts in getattr(module, "MESSAGES", {}).items():
            if key in catalogue:
                raise KeyError(f"message key {key!r} is defined twice (in {module_info.name})")
            catalogue[key] = texts
    return catalogue


CATALOGUE: dict[str, dict[str, str]] = _load_catalogue()


_RUN_LANGUAGE: ContextVar[str | None] = ContextVar("run_language", default=None)


@contextmanager
def language_of_this_run() -> Iterator[None]:
    """Within this block, :func:`current_language` is the language read once at its start.

    The frame enters it around the page's run: a page asks for many words, and each session-state
    read goes through Streamlit's locks. Outside it the language is read each time.
    """
    token = _RUN_LANGUAGE.set(current_language())
    try:
        yield
    finally:
        _RUN_LANGUAGE.reset(token)


def current_language() -> str:
    """The language chosen in the sidebar (``en`` outside a Streamlit run)."""
    fixed = _RUN_LANGUAGE.get()
    if fixed is not None:
        return fixed
    try:
        import streamlit as st

        lang = st.session_state.get(LANGUAGE_KEY, DEFAULT_LANGUAGE)
    except Exception:  # noqa: BLE001 - outside a Streamlit script run
        lang = DEFAULT_LANGUAGE
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


class _MessageFormatter(string.Formatter):
    """``str.format`` plus the app's ways of writing a number in a sentence, named in the message:

    - counted nouns: ``{rows:row|rows}`` writes ``1 row``, ``2 rows``; ``{size:,|byte|bytes}``
      formats the number with ``,`` first;
    - ``{visible:exponent}`` writes ``²`` (so ``{p}{visible:exponent}`` reads ``0.5²``);
    - ``{difference:difference}`` writes ``0`` when two results are equal, else ``4.7e-05``.
    """

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "exponent":
            return format_exponent(value)
        if format_spec == "difference":
            return format_difference(value)
        if "|" not in format_spec:
            return super().format_field(value, format_spec)
        *number_spec, one, many = format_spec.split("|")
        number = super().format_field(value, "|".join(number_spec))
        singular = str(value).strip() in ("1", "1.0")  # 1, "1", 1.0, numpy's 1
        return f"{number} {one if singular else many}"


_FORMATTER = _MessageFormatter()


def t(key: str, lang: str | None = None, **values: Any) -> str:
    """The message ``key`` in ``lang`` (default: the current language), placeholders filled."""
    texts = CATALOGUE.get(key)
    if texts is None:
        raise KeyError(f"no message {key!r} in the catalogue")
    text = texts.get(lang or current_language()) or texts[DEFAULT_LANGUAGE]
    if not values:
        return text
    special = "|" in text or ":exponent}" in text or ":difference}" in text
    return _FORMATTER.format(text, **values) if special else text.format(**values)
