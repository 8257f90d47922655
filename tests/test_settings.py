"""One declaration per setting (``ui.settings.SETTINGS``, a page's own beside it, e.g.
``ui.gradient_state.BACKWARD_SETTINGS``): the controls, the URL and Compare's B controls all take
their range, kind and default from it."""

from __future__ import annotations

import pytest

from tests.apptest_support import run_page
from tests.cases import subcases
from ui.gradient_state import BACKWARD_SETTINGS, MAX_TARGET_NUMBERS
from ui.settings import COMPARE_B_FIELDS, SETTINGS, SIDEBAR
from ui.table import InputProblem

WIDGET_KINDS = {"number": "number_input", "slider": "slider", "toggle": "toggle"}
WIDGET_KINDS |= {"checkbox": "checkbox", "select": "selectbox"}
DECLARED = SETTINGS | BACKWARD_SETTINGS  # the shared settings and a page's own


def _widget(at, where: str, kind: str, key: str):  # noqa: ANN001, ANN202 - AppTest elements
    block = at.sidebar if where == "sidebar" else at.main
    found = [element for element in getattr(block, kind) if element.key == key]
    assert len(found) == 1, f"{kind} {key!r} in the {where}"
    return found[0]


def test_the_sidebar_and_compares_b_controls_follow_the_declarations() -> None:
    at = run_page("compare")
    assert not at.exception
    controls = [("sidebar", name, name) for name in SIDEBAR]
    controls += [("main", name, f"compare_b_{name}") for name in COMPARE_B_FIELDS]
    for where, name, key in controls:
        setting = SETTINGS[name]
        element = _widget(at, where, WIDGET_KINDS[setting.widget], key)
        assert element.value == setting.default, key
        if setting.widget in ("number", "slider"):
            assert (element.min, element.max) == (setting.low, setting.high), key
        if setting.widget == "select":
            shown = [setting.option_label(option, "en") for option in setting.options]
            assert list(element.options) == shown, key


@subcases("name", sorted(DECLARED))
def test_every_default_survives_the_url(name: str) -> None:
    setting = DECLARED[name]
    if setting.name == "target":  # empty text: never written to the URL, read as ""
        assert setting.read("", name) == ("", None)
        return
    assert setting.read(setting.to_url(setting.default), name) == (setting.default, None)


@subcases(
    ("name", "raw", "key"),
    [
        ("seed", "1.5", "url.not_integer"),
        ("dropout", "0.96", "url.out_of_range"),
        ("heads", "9", "url.out_of_range"),
        ("train", "maybe", "url.not_bool"),
        ("palette", "neon", "url.not_choice"),
        ("lr", "nan", "url.out_of_range"),
        ("seed", "\u0663", "url.not_integer"),  # an Arabic-Indic 3: never taken as 3 in silence
        ("dropout", "0.\u0665", "url.not_number"),
    ],
)
def test_a_value_outside_the_declaration_is_refused_with_its_reason(
    name: str, raw: str, key: str
) -> None:
    with pytest.raises(InputProblem) as caught:
        DECLARED[name].read(raw, name)
    assert caught.value.key == key
    assert caught.value.kwargs["name"] == name


def test_a_training_link_with_non_ascii_digits_is_refused_with_a_note() -> None:
    at = run_page("train", query={"train_steps": "\u0663"})
    assert not at.exception
    assert any("train\\_steps=\u0663" in warning.value for warning in at.warning), [
        w.value for w in at.warning
    ]
    assert at.number_input(key="train_steps").value != 3


def test_a_float_between_steps_is_rounded_with_a_note() -> None:
    value, note = BACKWARD_SETTINGS["lr"].read("0.12345", "lr")
    assert value == 0.123
    assert note is not None and note.key == "url.rounded" and note.kwargs["step"] == "0.001"


def test_the_backward_target_holds_as_many_numbers_as_the_widest_d_out() -> None:
    assert MAX_TARGET_NUMBERS == SETTINGS["d_out"].high
