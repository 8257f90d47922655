"""Every step of the registry (attention.steps) has its drawing and its messages, and no more."""

from __future__ import annotations

import re

from attention.steps import STEPS
from ui.i18n import CATALOGUE, LANGUAGES, t
from ui.step_view import STEP_DRAWINGS, StepDrawing, tab_label

NAMES = [step.name for step in STEPS]


def test_every_step_has_one_drawing_and_no_drawing_is_left_over() -> None:
    assert list(STEP_DRAWINGS) == NAMES
    methods = {name for name in vars(StepDrawing) if name.startswith("step_")}
    assert methods == {f"step_{name}" for name in NAMES}, "a method no step draws"
    assert all(STEP_DRAWINGS[name] is getattr(StepDrawing, f"step_{name}") for name in NAMES)


def test_every_step_has_its_tab_title_and_body_and_no_key_names_a_missing_step() -> None:
    for name in NAMES:
        for part in ("tab", "title", "body"):
            assert set(CATALOGUE[f"step.{name}.{part}"]) == set(LANGUAGES), (name, part)
    numbered = [key for key in CATALOGUE if re.match(r"(train\.)?step\.\d", key)]
    assert not numbered, f"numbered step keys left: {numbered}"
    per_step = {key.split(".")[1] for key in CATALOGUE if re.match(r"step\.\w+\.tab$", key)}
    assert per_step == set(NAMES)


def test_tab_labels_and_headings_are_numbered_by_the_registry() -> None:
    assert [tab_label(name) for name in NAMES][7:] == ["8 · Softmax", "9 · Dropout", "10 · Context"]
    assert t("step.tab_label", lang="zh", number=5, tab=t("step.mask.tab", lang="zh")) == "5 · 掩码"
    heading = t("step.heading", lang="zh", number=5, title=t("step.mask.title", lang="zh"))
    assert heading == "第 5 步 · 因果掩码"
