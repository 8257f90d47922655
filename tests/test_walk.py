"""Every page that walks steps gets the same tabs, ``?step=``, and presenter mode (``ui/walk.py``)."""

from __future__ import annotations

import pytest

from tests.apptest_support import run_page
from ui.i18n import t

# page, its tabs' key, a step of its own (not its first) and that step's tab label, its names
PAGES = {
    "step": ("step_tabs", "softmax", "8 · Softmax", "embeddings, weights, qkv"),
    "backward": ("backward_section", "graph", "backward.tab.graph", "scores, projections"),
    "masking": ("masking_stage", "method2", "masking.tab.method2", "scores, method1, method2"),
    "one_query": ("one_query_tabs", "softmax", "one_query.step5", "vectors, dot_product"),
    "chapter_path": ("chapter_tabs", "v1", "chapter.s341.title", "simple, v1, v2, causal"),
}


def _screen(at) -> str:  # noqa: ANN001 - an AppTest
    """Presenter mode's "Step 2a of 10" (bold marks dropped)."""
    return next(m.value for m in at.markdown if m.value.startswith("Step ")).replace("*", "")


@pytest.mark.parametrize("page", list(PAGES))
def test_a_link_opens_its_step_a_bad_one_is_named_and_presenter_mode_walks(page: str) -> None:
    tabs_key, step, label, names = PAGES[page]
    at = run_page(page, {"step": step})
    assert not at.exception
    assert at.session_state[tabs_key] == (t(label) if "." in label else label)
    assert at.query_params["step"] in (step, [step])

    bad = run_page(page, {"step": "nope"})
    assert not bad.exception
    warning = " ".join(w.value for w in bad.warning).replace("\\", "")
    assert "step=nope" in warning and names in warning, warning

    at = run_page(page, {"step": step, "present": "1"})
    assert not at.exception and not at.tabs, "presenter mode: one screen, no tabs"
    shown = _screen(at)
    at.button(key="present_next").click().run()
    assert not at.exception and _screen(at) != shown
    at.button(key="present_previous").click().run()
    assert _screen(at) == shown
    assert at.query_params["present"] in ("1", ["1"])
    assert at.button(key="present_seed_up") is not None  # the control strip is there


def test_the_strip_shares_the_sidebars_keys() -> None:
    at = run_page("step", {"present": "1", "step": "dropout"})
    at.button(key="present_dropout_0.5").click().run()
    at.button(key="present_seed_up").click().run()
    at.button(key="present_eval").click().run()
    assert not at.exception
    assert at.slider(key="dropout").value == 0.5 and at.number_input(key="seed").value == 124
    assert at.toggle(key="train").value is False
    assert "Press “train” above" in " ".join(i.value for i in at.info)
    at.button(key="present_train").click().run()
    assert at.query_params["seed"] in ("124", ["124"]) and "train" not in at.query_params
