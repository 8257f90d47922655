"""Every shared setting, declared once: URL name, default, range and step, widget, label and help.

The sidebar, the URL reader and writer, and Compare's B controls (``b_<name>``) are loops over
:data:`SETTINGS`: adding a setting is one entry there (plus its label and help in
``ui/messages``). Session-state keys equal the URL names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import streamlit as st

from attention.validate import MAX_TOKENS

from .choices import KeptValues
from .i18n import LANGUAGE_KEY, LANGUAGES, current_language, t
from .table import InputProblem, problem, shorten

MAX_APP_SEED = 2**53 - 1  # the largest integer a browser's number field holds exactly
PALETTES = ("default", "colorblind")

Widget = Literal["number", "slider", "toggle", "checkbox", "select", "radio", "text", "none"]


def _plain(number: float) -> str:
    """A range end as a message writes it: ``0``, ``0.95``, ``10`` (no trailing ``.0``)."""
    return f"{number:g}" if isinstance(number, float) else str(number)


# --- URL parsers: the raw URL text and its name in, a value out (or InputProblem) -------------
#
# The name is the parameter the user wrote (``dropout`` or Compare's ``b_dropout``), so a
# message names it.


def parse_int(low: int, high: int) -> Callable[[str, str], int]:
    """A parser of whole numbers in ``[low, high]``."""

    def parse(raw: str, name: str) -> int:
        text = raw.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,40}", text):  # ASCII digits: "٣" is not taken as 3
            raise problem("url.not_integer", name=name, value=shorten(raw))
        value = int(text)
        if not low <= value <= high:
            raise problem("url.out_of_range", name=name, value=shorten(raw), low=low, high=high)
        return value

    return parse


def parse_float(low: float, high: float) -> Callable[[str, str], float]:
    """A parser of finite numbers in ``[low, high]``."""

    def parse(raw: str, name: str) -> float:
        try:
            if not raw.isascii():  # float() reads other scripts' digits ("٣" as 3) silently
                raise ValueError(raw)
            value = float(raw.strip())
        except ValueError:
            raise problem("url.not_number", name=name, value=shorten(raw)) from None
        if not math.isfinite(value) or not low <= value <= high:
            raise problem(
                "url.out_of_range",
                name=name,
                value=shorten(raw),
                low=_plain(low),
                high=_plain(high),
            )
        return value

    return parse


def parse_bool(raw: str, name: str) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case)."""
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise problem("url.not_bool", name=name, value=shorten(raw))


def parse_choice(choices: tuple[str, ...]) -> Callable[[str, str], str]:
    """A parser that accepts exactly one of ``choices``."""

    def parse(raw: str, name: str) -> str:
        if raw.strip() not in choices:
            raise problem(
                "url.not_choice", name=name, value=shorten(raw), choices=", ".join(choices)
            )
        return raw.strip()

    return parse


# --- the declaration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One URL-bound setting, everything about it in one place.

    ``resolution``: a float setting takes only its multiples; :meth:`read` says when it rounded
    a URL value (a link never changes silently). ``label``/``help``: message keys. ``check``: a
    parser for text settings. ``widget="none"``: set by a page's buttons.
    """

    name: str
    default: Any
    widget: Widget
    label: str = ""
    help: str | None = None
    low: float | None = None
    high: float | None = None
    step: float | None = None
    resolution: float | None = None
    options: tuple[str, ...] = ()
    option_label: Callable[[str, str], str] | None = None
    check: Callable[[str, str], Any] | None = None
    number_format: str | None = None
    max_chars: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # more arguments of the widget

    @property
    def is_float(self) -> bool:
        return isinstance(self.default, float)

    def parse(self, raw: str, name: str) -> Any:
        """The value of URL text ``raw`` (parameter ``name``); raises InputProblem if unusable."""
        if self.check is not None:
            return self.check(raw, name)
        if self.options:
            return parse_choice(self.options)(raw, name)
        if isinstance(self.default, bool):
            return parse_bool(raw, name)
        if isinstance(self.default, int):
            return parse_int(int(self.low), int(self.high))(raw, name)  # type: ignore[arg-type]
        if self.is_float:
            return parse_float(self.low, self.high)(raw, name)  # type: ignore[arg-type]
        raise TypeError(f"setting {self.name!r} needs a check for its URL text")

    def to_url(self, value: Any) -> str:
        """The URL text of ``value`` (``true``/``false`` for switches)."""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def read(self, raw: str, name: str) -> tuple[Any, InputProblem | None]:
        """The value of URL text ``raw`` and, if it had to be rounded, a note saying so.

        Raises:
            InputProblem: the text is not a valid value (the caller keeps the default).
        """
        value = self.parse(raw, name)
        resolution = self.resolution or (self.step if self.is_float else None)
        if resolution is None:
            return value, None
        decimals = max(0, -math.floor(math.log10(resolution)))
        used = round(round(value / resolution) * resolution, decimals)
        if used == value:
            return used, None
        note = problem(
            "url.rounded",
            name=name,
            value=shorten(raw),
            used=self.to_url(used),
            step=self.to_url(resolution),
        )
        return used, note


def widget(
    setting: Setting,
    *,
    key: str | None = None,
    label: str | None = None,
    container: Any = None,
    on_change: Callable[..., None] | None = None,
    label_values: Mapping[str, Any] | None = None,
    with_help: bool = True,
    **arguments: Any,
) -> Any:
    """Draw ``setting``'s control (its value in session state under ``key``) and return it.

    ``label`` replaces the label's message key; ``arguments`` go to the widget as they are.
    """
    where = container if container is not None else st
    text = t(label or setting.label, **(label_values or {}))
    common: dict[str, Any] = {"key": key or setting.name, **setting.extra, **arguments}
    if on_change is not None:
        common["on_change"] = on_change
    if with_help and setting.help is not None:
        common["help"] = t(setting.help, **(label_values or {}))
    number = float if setting.is_float else int
    if setting.widget in ("number", "slider"):
        common |= {"min_value": number(setting.low), "max_value": number(setting.high)}
        if setting.step is not None:
            common["step"] = number(setting.step)
        if setting.number_format is not None:
            common["format"] = setting.number_format
        draw = where.number_input if setting.widget == "number" else where.slider
        return draw(text, **common)
    if setting.widget == "toggle":
        return where.toggle(text, **common)
    if setting.widget == "checkbox":
        return where.checkbox(text, **common)
    if setting.widget in ("select", "radio"):
        lang = current_language()  # bound now: AppTest calls format_func later, outside the run
        write = setting.option_label
        if write is not None:
            common["format_func"] = lambda option: write(option, lang)
        if setting.widget == "radio":
            return where.radio(text, options=list(setting.options), **common)
        # a short list: picked, not typed (no search box raising a phone's keyboard)
        return where.selectbox(text, options=list(setting.options), filter_mode=None, **common)
    if setting.widget == "text":
        return where.text_input(text, max_chars=setting.max_chars, **common)
    raise ValueError(f"setting {setting.name!r} has no control of its own")


def _translated(prefix: str) -> Callable[[str, str], str]:
    return lambda option, lang: t(f"{prefix}.{option}", lang)


SETTINGS: dict[str, Setting] = {
    setting.name: setting
    for setting in (
        Setting(
            "seed", 123, "number", "sidebar.seed", "sidebar.seed_help", 0, MAX_APP_SEED, step=1
        ),
        Setting(
            "dropout", 0.0, "slider", "sidebar.dropout", "sidebar.dropout_help", 0.0, 0.95, 0.01
        ),
        Setting("train", True, "toggle", "sidebar.train", "sidebar.train_help"),
        Setting("d_out", 2, "slider", "sidebar.d_out", "sidebar.d_out_help", 1, 8),
        Setting("qkv_bias", False, "checkbox", "sidebar.qkv_bias", "sidebar.qkv_bias_help"),
        Setting("heads", 1, "slider", "sidebar.heads", "sidebar.heads_help", 1, 8),
        Setting("batch", 1, "slider", "sidebar.batch", "sidebar.batch_help", 1, 4),
        Setting("window", 0, "number", "sidebar.window", "sidebar.window_help", 0, MAX_TOKENS, 1),
        Setting(
            LANGUAGE_KEY,
            "en",
            "select",
            "sidebar.lang",
            options=tuple(LANGUAGES),
            option_label=lambda option, lang: LANGUAGES[option],
        ),
        Setting(
            "palette",
            "default",
            "select",
            "sidebar.palette",
            options=PALETTES,
            option_label=_translated("sidebar.palette"),
        ),
    )
}

SIDEBAR = (
    LANGUAGE_KEY,
    "seed",
    "dropout",
    "train",
    "d_out",
    "qkv_bias",
    "heads",
    "batch",
    "window",
    "palette",
)
SIDEBAR_TEXT_AFTER = LANGUAGE_KEY  # the sentence box (and random tokens) come right after this one

# Compare A/B: B is A (the sidebar's settings) with some changed, kept in :data:`COMPARE_B_VALUES`
# and in the URL as ``b_<name>`` only where B differs: ``seed=7&b_seed=8`` is "B = A, seed 8".
COMPARE_B_FIELDS = ("seed", "dropout", "train", "qkv_bias", "d_out")  # names of SETTINGS
COMPARE_B_VALUES = KeptValues(store="compare_b_store", prefix="compare_b_")
COMPARE_B_PREFIX = "b_"

__all__ = [
    "COMPARE_B_FIELDS",
    "COMPARE_B_PREFIX",
    "COMPARE_B_VALUES",
    "MAX_APP_SEED",
    "PALETTES",
    "SETTINGS",
    "SIDEBAR",
    "Setting",
    "parse_bool",
    "parse_choice",
    "parse_float",
    "parse_int",
    "widget",
]
