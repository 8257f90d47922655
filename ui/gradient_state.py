"""The backward page's own settings (loss, target, learning rate, steps taken) and its computation.

:data:`BACKWARD_SETTINGS` live in session state under their URL names (``loss``, ``target``,
``lr``, ``grad_steps``), read and written by the URL through :data:`URL_PARAMS`. The computation,
:func:`attention.gradients.gradient_descent`, is cached like the trace (two caches by size).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st

from attention import AttentionConfig, AttentionInputError
from attention.setting_ranges import LOSS_NAMES, MAX_DESCENT_STEPS

if TYPE_CHECKING:
    from attention.gradients import Descent

from .computation import TRACE_CACHE_LARGE, TRACE_CACHE_SMALL
from .i18n import t
from .settings import Setting
from .table import InputProblem, Table, problem, shorten
from .url import settings_params

LEARNING_RATE_DEFAULT = 0.1
LEARNING_RATE_LOW = 0.001
LEARNING_RATE_HIGH = 10.0
LEARNING_RATE_DECIMALS = 3
MAX_TARGET_NUMBERS = 8  # the sidebar's largest d_out
MAX_TARGET_CHARS = 200
STEPS_KEY = "grad_steps"
TARGET_LAST_KEY = "backward_target_last"  # the last target that could be used, by width

__all__ = [
    "BACKWARD_SETTINGS",
    "LEARNING_RATE_DEFAULT",
    "LOSS_NAMES",
    "MAX_DESCENT_STEPS",
    "compute_descent",
    "parse_target",
    "target_numbers",
    "target_for_width",
    "URL_PARAMS",
]


def target_numbers(text: str) -> tuple[float, ...]:
    """The numbers of a typed target (``"0.5, -0.5"``); empty text gives ``()`` (the zero vector).

    Raises InputProblem naming the first entry that is not a usable number.
    """
    if len(text) > MAX_TARGET_CHARS:
        raise problem("backward.target.too_long", chars=len(text), limit=MAX_TARGET_CHARS)
    parts = [part for part in re.split(r"[\s,;]+", text.strip()) if part]
    if len(parts) > MAX_TARGET_NUMBERS:
        raise problem("backward.target.too_many", count=len(parts), limit=MAX_TARGET_NUMBERS)
    numbers = []
    for index, part in enumerate(parts):
        try:
            value = float(part.replace("−", "-"))
        except ValueError:
            raise problem(
                "backward.target.not_number", position=index + 1, value=shorten(part)
            ) from None
        if not math.isfinite(value) or abs(value) > 1e6:
            raise problem("backward.target.not_finite", position=index + 1, value=shorten(part))
        numbers.append(value)
    return tuple(numbers)


def target_for_width(numbers: tuple[float, ...], width: int) -> tuple[float, ...]:
    """The target vector for ``d_out = width``: the zero vector for ``()``, else exactly ``width``."""
    if not numbers:
        return (0.0,) * width
    if len(numbers) != width:
        raise problem("backward.target.width", count=len(numbers), width=width)
    return numbers


def parse_target(raw: str, name: str = "target") -> str:
    """The URL's ``target``: text of at most 8 numbers (checked against d_out on the page)."""
    try:
        target_numbers(raw)
    except InputProblem as error:
        raise problem("url.bad_param", name=name, detail=error) from None
    return raw.strip()


def usable_target(text: str, width: int) -> tuple[tuple[float, ...], InputProblem | None]:
    """The target to compute with, and the problem of the typed text if it cannot be used.

    A bad text keeps the last target that worked at this width (the zero vector at first), so
    the page goes on showing a valid result while the typed text stays in the box.
    """
    last: dict[int, tuple[float, ...]] = st.session_state.setdefault(TARGET_LAST_KEY, {})
    try:
        target = target_for_width(target_numbers(text), width)
    except InputProblem as error:
        return last.get(width, (0.0,) * width), error
    last[width] = target
    return target, None


def _loss_label(option: str, lang: str) -> str:
    return t(f"backward.loss.{option}", lang)


BACKWARD_SETTINGS: dict[str, Setting] = {
    setting.name: setting
    for setting in (
        Setting(
            "loss",
            "sum",
            "radio",
            "backward.loss.label",
            "backward.loss.help",
            options=LOSS_NAMES,
            option_label=_loss_label,
            extra={"horizontal": True},
        ),
        Setting(
            "target",
            "",
            "text",
            "backward.target.label",
            "backward.target.help",
            check=parse_target,
            max_chars=MAX_TARGET_CHARS,
        ),
        Setting(
            "lr",
            LEARNING_RATE_DEFAULT,
            "number",
            "backward.learn.lr",
            "backward.learn.lr_help",
            LEARNING_RATE_LOW,
            LEARNING_RATE_HIGH,
            step=0.01,
            resolution=10**-LEARNING_RATE_DECIMALS,
            number_format=f"%.{LEARNING_RATE_DECIMALS}f",
        ),
        Setting(STEPS_KEY, 1, "none", low=1, high=MAX_DESCENT_STEPS),
    )
}
URL_PARAMS = settings_params(BACKWARD_SETTINGS)


def setting_value(name: str) -> object:
    """The current value of one of :data:`BACKWARD_SETTINGS` (its default before any run)."""
    return st.session_state.get(name, BACKWARD_SETTINGS[name].default)


# --- the computation ----------------------------------------------------------------------------

SMALL_CELLS = 256 * 256  # as ui.computation.LARGE_TRACE_CELLS: above, a pass holds megabytes


def _descent(
    values: bytes,
    shape: tuple[int, int],
    cfg: AttentionConfig,
    loss: str,
    target: tuple[float, ...] | None,
    learning_rate: float,
    steps: int,
) -> Descent:
    inputs = np.frombuffer(values, dtype=np.float64).reshape(shape).astype(np.float32)
    from attention.gradients import gradient_descent  # the backward page's run only

    return gradient_descent(
        inputs,
        cfg,
        loss,
        target=None if target is None else list(target),
        learning_rate=learning_rate,
        steps=steps,
    )


@st.cache_resource(**TRACE_CACHE_SMALL, show_spinner=False)
def _cached_small(*key: Any) -> Descent:
    return _descent(*key)


@st.cache_resource(**TRACE_CACHE_LARGE, show_spinner=False)
def _cached_large(*key: Any) -> Descent:
    return _descent(*key)


def compute_descent(
    table: Table,
    cfg: AttentionConfig,
    loss: str,
    target: tuple[float, ...] | None,
    learning_rate: float,
    steps: int,
) -> Descent:
    """The backward pass of the current view and ``steps`` learning steps, cached.

    Raises AttentionInputError when the settings cannot be computed (too large, for example).
    """
    array = np.asarray(table.values, dtype=np.float64)  # (T, d_in)
    if loss not in LOSS_NAMES:
        raise AttentionInputError(f"unknown loss {loss!r}", field="loss")
    key = (
        array.tobytes(),
        tuple(array.shape),
        cfg,  # the frozen config itself: every field is part of the key
        loss,
        target if loss == "squared_distance" else None,
        float(learning_rate),
        int(steps),
    )
    cells = cfg.num_heads * array.shape[0] * array.shape[0]
    return (_cached_small if cells <= SMALL_CELLS else _cached_large)(*key)
