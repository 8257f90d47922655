"""The Train page's settings: its controls, its URL parameters and the ``TrainConfig`` they give.

Seven settings (task, layers, heads, width, dropout, steps, seed), each one
:class:`ui.settings.Setting` in :data:`TRAIN_SETTINGS` with its range from
``attention.training.LIMITS``; each is in the URL as ``train_<name>`` when it differs from the
task's default, so a shared link trains the same model.

The values live in :data:`TRAIN_VALUES` (a :class:`ui.choices.KeptValues`: Streamlit deletes the
key of a widget a run does not draw, and the URL must keep them on every page). Choosing another
task loads its defaults (``attention.training.TASK_DEFAULTS``); the seed stays. An uploaded
``.txt`` corpus cannot travel in the URL: the page says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from attention.head_split import splits_evenly
from attention.setting_ranges import LIMITS, TASK_DEFAULTS, TASK_NAMES
from attention.validate import AttentionInputError
from viz.markdown_text import escape_markdown

from .choices import KeptValues

if TYPE_CHECKING:
    from attention.training import TrainConfig
from .i18n import current_language, t
from .input_errors import explain
from .settings import MAX_APP_SEED, Setting, widget
from .table import InputProblem, problem
from .url import PageParams

__all__ = [
    "MAX_TRAIN_DROPOUT",
    "NAMES",
    "TEXT_CONTEXT",
    "TRAIN_SETTINGS",
    "TRAIN_VALUES",
    "URL_PARAMS",
    "config_problem",
    "current_values",
    "default_values",
    "render_controls",
    "train_config",
    "uploaded_text",
]

NAMES = ("task", "layers", "heads", "width", "dropout", "steps", "seed")
PREFIX = "train_"  # URL parameter and widget key of a setting: train_<name>
TRAIN_VALUES = KeptValues(store="train_values", prefix=PREFIX)
SOURCE_KEY = "train_source"  # text task: "corpus" (built in) or "upload"
UPLOAD_KEY = "train_upload"
UPLOADED_KEY = "train_uploaded"  # (file name, bytes) of the last good upload
UPLOAD_PROBLEM_KEY = (
    "train_upload_problem"  # (file name, AttentionInputError) of the last bad upload
)
MAX_TRAIN_DROPOUT = 0.9
TEXT_CONTEXT = TASK_DEFAULTS["text"].context_length  # characters the text model sees
DEFAULT_TASK = "copy"


def default_values(task: str = DEFAULT_TASK, seed: int = 0) -> dict[str, Any]:
    """The settings a task trains with by default (its measured defaults) and ``seed``."""
    defaults = TASK_DEFAULTS[task]
    return {
        "task": task,
        "layers": defaults.layers,
        "heads": defaults.heads,
        "width": defaults.width,
        "dropout": defaults.dropout,
        "steps": defaults.steps,
        "seed": seed,
    }


def _declared(name: str, widget_kind: str, low: float, high: float, step: float) -> Setting:
    """The declaration of ``train_<name>`` (label and help keys ``train.control.<name>[_help]``)."""
    return Setting(
        PREFIX + name,
        default_values()[name],
        widget_kind,  # type: ignore[arg-type]
        f"train.control.{name}",
        f"train.control.{name}_help",
        low,
        high,
        step,
    )


TRAIN_SETTINGS: dict[str, Setting] = {
    "task": Setting(
        PREFIX + "task",
        DEFAULT_TASK,
        "select",
        "train.control.task",
        "train.control.task_help",
        options=TASK_NAMES,
        option_label=lambda name, lang: t(f"train.task.{name}", lang),
    ),
    "layers": _declared("layers", "slider", *LIMITS["layers"], 1),
    "heads": _declared("heads", "number", *LIMITS["heads"], 1),
    "width": _declared("width", "number", *LIMITS["width"], 8),
    "dropout": _declared(
        "dropout", "slider", 0.0, MAX_TRAIN_DROPOUT, 0.01
    ),  # a rounded link says so
    "steps": _declared("steps", "number", *LIMITS["steps"], 50),
    "seed": _declared("seed", "number", 0, MAX_APP_SEED, 1),
}


# --- the URL ---------------------------------------------------------------------------------


def config_problem(values: dict[str, Any]) -> InputProblem | None:
    """What is wrong with a combination of settings (each value alone is in range), or None."""
    if not splits_evenly(values["width"], values["heads"]):
        heads = values["heads"]
        nearest = max(heads, round(values["width"] / heads) * heads)
        if nearest > LIMITS["width"][1]:
            nearest -= heads
        return problem(
            "train.error.width_heads", width=values["width"], heads=heads, suggestion=nearest
        )
    return None


def read_url(params: dict[str, str]) -> list[InputProblem]:
    """A session's first run: the ``train_*`` query parameters into the settings, checked."""
    warnings: list[InputProblem] = []
    task = DEFAULT_TASK
    raw_task = params.get(PREFIX + "task")
    if raw_task is not None:
        try:
            task, _ = TRAIN_SETTINGS["task"].read(raw_task, PREFIX + "task")
        except InputProblem as error:
            warnings.append(error)
    values = default_values(task)
    for name, setting in TRAIN_SETTINGS.items():
        raw = params.get(setting.name)
        if raw is None or name == "task":
            continue
        try:
            values[name], note = setting.read(raw, setting.name)
        except InputProblem as error:
            warnings.append(error)
        else:
            if note is not None:
                warnings.append(note)
    combination = config_problem(values)
    if combination is not None:
        warnings.append(problem("train.url.width_heads", detail=combination))
        defaults = default_values(task)
        values["width"], values["heads"] = defaults["width"], defaults["heads"]
    TRAIN_VALUES.keep(values)
    return warnings


def write_url() -> dict[str, str]:
    """The ``train_*`` parameters that differ from the chosen task's defaults."""
    values = current_values()
    defaults = default_values(values["task"]) | {"task": DEFAULT_TASK}
    return {PREFIX + name: str(values[name]) for name in NAMES if values[name] != defaults[name]}


URL_PARAMS = PageParams(tuple(PREFIX + name for name in NAMES), read_url, write_url)


# --- the controls ----------------------------------------------------------------------------


def current_values() -> dict[str, Any]:
    """The settings now (a copy): what the controls show and the URL holds."""
    values = TRAIN_VALUES.get()
    if values is None:
        values = default_values()
        TRAIN_VALUES.keep(values)
    return values


def _choose_task() -> None:
    """Another task: load its defaults into every control (the seed stays)."""
    seed = current_values()["seed"]
    TRAIN_VALUES.set(default_values(st.session_state[TRAIN_VALUES.key("task")], seed=seed))


def _on_upload() -> None:
    """Check an uploaded text; a bad file is reported and the last good one (if any) stays."""
    uploaded = st.session_state.get(UPLOAD_KEY)
    st.session_state.pop(UPLOAD_PROBLEM_KEY, None)
    if uploaded is None:
        return
    data = uploaded.getvalue()
    try:
        from attention.tasks import check_text  # an upload's check: the Train page only

        check_text(data, TEXT_CONTEXT)
    except AttentionInputError as error:
        st.session_state[UPLOAD_PROBLEM_KEY] = (uploaded.name, error)
        return
    st.session_state[UPLOADED_KEY] = (uploaded.name, data)


def uploaded_text() -> tuple[str, bytes] | None:
    """The last good upload, ``(file name, bytes)``, if the text task is to train on it."""
    values = current_values()
    if values["task"] != "text" or st.session_state.get(SOURCE_KEY, "corpus") != "upload":
        return None
    return st.session_state.get(UPLOADED_KEY)


def needs_upload() -> bool:
    """True while the text task is set to an upload but no good file has been uploaded yet."""
    values = current_values()
    return (
        values["task"] == "text"
        and st.session_state.get(SOURCE_KEY, "corpus") == "upload"
        and st.session_state.get(UPLOADED_KEY) is None
    )


def _control(name: str, **arguments: Any) -> None:
    """The control of ``train_<name>``, from its declaration; a change goes to the kept values."""
    if "on_change" not in arguments:
        arguments.update(on_change=TRAIN_VALUES.remember, args=(name,))
    widget(TRAIN_SETTINGS[name], key=TRAIN_VALUES.restore(name), **arguments)


def render_controls() -> None:
    """The settings as widgets, in three columns; changes go to the stored values at once."""
    values = current_values()
    lang = current_language()  # bound now: AppTest calls format_func outside the session
    what, model, run = st.columns([4, 5, 5], gap="medium")
    with what:
        _control("task", on_change=_choose_task)
        st.caption(t(f"train.task.{values['task']}.about"))
        if values["task"] == "text":
            st.radio(
                t("train.control.source"),
                ("corpus", "upload"),
                format_func=lambda name: t(f"train.source.{name}", lang),
                key=SOURCE_KEY,
                horizontal=True,
            )
            if st.session_state.get(SOURCE_KEY) == "upload":
                st.file_uploader(
                    t("train.control.upload"),
                    type=["txt"],
                    key=UPLOAD_KEY,
                    on_change=_on_upload,
                    help=t("train.control.upload_help", context=TEXT_CONTEXT),
                )
                bad = st.session_state.get(UPLOAD_PROBLEM_KEY)
                if bad is not None:
                    st.error(
                        t(
                            "train.upload.bad",
                            name=escape_markdown(bad[0]),
                            detail=escape_markdown(explain(bad[1])),
                        )
                    )
                good = st.session_state.get(UPLOADED_KEY)
                if good is not None:
                    st.caption(
                        t("train.upload.using", name=escape_markdown(good[0]), size=len(good[1]))
                    )
    with model:
        _control("layers")
        heads_col, width_col = st.columns(2)
        with heads_col:
            _control("heads")
        with width_col:
            _control("width")
    with run:
        _control("dropout")
        steps_col, seed_col = st.columns(2)
        with steps_col:
            _control("steps")
        with seed_col:
            _control("seed")


def train_config(values: dict[str, Any], text: bytes | None = None) -> TrainConfig:
    """The resolved :class:`TrainConfig` of the settings (raises AttentionInputError if bad).

    Fields the page does not set (batch size, learning rate, …) take the task's defaults, as
    ``TrainConfig(task=…)`` in a notebook does; resolving writes every one of them out, so the
    config is a complete cache key and the exported script does not depend on today's defaults.
    """
    from attention.training import TrainConfig  # the Train page's run only

    return TrainConfig(
        task=values["task"],
        seed=int(values["seed"]),
        layers=int(values["layers"]),
        heads=int(values["heads"]),
        width=int(values["width"]),
        dropout=float(values["dropout"]),
        steps=int(values["steps"]),
        text=text,
    ).resolved()
