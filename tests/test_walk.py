"""Every page that walks steps gets the same tabs, ``?step=``, and presenter mode (``ui/walk.py``);
presenter mode is one deck (``ui/deck.py``): the bar on every page, also where the settings cannot
be computed, one counter, a lecture across pages."""

from __future__ import annotations

import pytest

from tests.apptest_support import page_text, run_page, walk_labels
from ui.deck import fixes_for, lecture_text, parse_lecture
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
    """Presenter mode's "Screen 7 of 17 · Softmax" (bold marks dropped)."""
    screens = (m.value for m in at.markdown if m.value.startswith(("Screen ", "第 ")))
    return next(screens).replace("*", "")


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
    assert not at.exception and not at.tabs and not walk_labels(at), "presenter mode: one screen"
    shown = _screen(at)
    at.button(key="present_next").click().run()
    assert not at.exception and _screen(at) != shown
    at.button(key="present_previous").click().run()
    assert _screen(at) == shown
    assert at.query_params["present"] in ("1", ["1"])
    assert at.number_input(key="present_seed") is not None  # the control strip is there


def test_the_step_decks_counter_counts_every_screen_with_its_title() -> None:
    at = run_page("step", {"present": "1", "step": "softmax", "dropout": "0.5"})
    # 10 steps; weights, qkv and dropout in 3 screens, the mask in 2: 17 screens
    assert _screen(at) == "Screen 13 of 17 · Softmax"
    at.button(key="present_language").click().run()
    assert not at.exception and _screen(at) == "第 13 屏，共 17 屏 · Softmax"


def test_the_strip_shares_the_sidebars_keys() -> None:
    at = run_page("step", {"present": "1", "step": "dropout"})
    at.button(key="present_dropout_0.5").click().run()
    at.number_input(key="present_seed").set_value(124).run()
    at.button(key="present_eval").click().run()
    assert not at.exception
    assert at.slider(key="dropout").value == 0.5 and at.number_input(key="seed").value == 124
    assert at.toggle(key="train").value is False
    assert "Press “train” above" in " ".join(i.value for i in at.info)
    at.button(key="present_train").click().run()
    assert at.query_params["seed"] in ("124", ["124"]) and "train" not in at.query_params


def test_a_screen_that_cannot_be_computed_keeps_the_bar_and_offers_the_fix() -> None:
    """Multi-head's 4 heads, then the KV cache at d_out 2: the error, the bar, a working fix."""
    at = run_page("kv_cache", {"heads": "4", "d_out": "2", "present": "1"})
    assert not at.exception
    assert "cannot be split evenly into 4 heads" in page_text(at)
    assert at.button(key="present_leave") is not None and _screen(at).startswith("Screen 1 of")
    at.button(key="fix_heads_2").click().run()
    assert not at.exception and not at.error
    assert at.slider(key="heads").value == 2 if at.slider else at.session_state["heads"] == 2
    assert at.query_params["present"] in ("1", ["1"])


def test_present_is_kept_on_a_page_without_screens_of_its_own() -> None:
    at = run_page("export", {"present": "1"})
    assert not at.exception
    assert at.query_params["present"] in ("1", ["1"])
    assert _screen(at) == f"Screen 1 of 1 · {t('page.export.title')}"
    at.button(key="present_leave").click().run()
    assert "present" not in at.query_params


def test_the_fix_for_heads_that_do_not_split_d_out() -> None:
    fixes = fixes_for("d_out_heads_split", {"d_out": 6, "heads": 4})
    assert [(f.setting, f.value) for f in fixes] == [("heads", 3), ("d_out", 8)]


def test_a_lecture_is_checked_item_by_item_and_written_back_the_same() -> None:
    run_page("step")  # the frame registers the pages a lecture may name
    items, problems = parse_lecture("chapter_path.v1, step_by_step.softmax,quiz,nope,step.x")
    assert items == (
        ("chapter_path", "v1"),
        ("step", "softmax"),
        ("quiz", "question"),
        ("quiz", "answer"),
    )
    assert [p.key for p in problems] == ["lecture.bad_page", "lecture.bad_step"]
    assert lecture_text(items) == "chapter_path.v1,step.softmax,quiz.question,quiz.answer"
    assert parse_lecture(lecture_text(items)) == (items, [])


def test_the_quiz_is_presented_as_predict_then_reveal() -> None:
    at = run_page("quiz", {"present": "1"})
    assert not at.exception and _screen(at).startswith("Screen 1 of 2")
    radio = at.radio(key="quiz_answer")
    radio.set_value(radio.options[0]).run()
    at.button(key="present_next").click().run()  # Next is the reveal
    assert not at.exception and _screen(at).startswith("Screen 2 of 2")
    assert len(at.success) + len(at.error) == 1  # right or wrong, said
    at.button(key="quiz_next").click().run()  # the bar's own control: the next question
    assert _screen(at).startswith("Screen 1 of 2") and at.radio(key="quiz_answer").value is None
    assert "Question 2" in page_text(at) and at.session_state["quiz_answered"] == 1


def test_the_lecture_panel_adds_screens_checks_typed_ones_and_presents_them() -> None:
    at = run_page("step", {"step": "softmax"})
    assert "lecture_add" not in [button.key for button in at.button]
    at.toggle(key="lecture_open").set_value(True).run()  # closed, the panel is its toggle alone
    at.button(key="lecture_add").click().run()
    assert at.query_params["lecture"] in ("step.softmax", ["step.softmax"])
    at.text_area(key="lecture_text").input("step.softmax\nmulti_head.difference\nstep.nope").run()
    warned = " ".join(w.value for w in at.warning).replace("\\", "")
    assert not at.exception and "step.nope" in warned, warned
    wanted = "step.softmax,multi_head.difference"
    assert at.query_params["lecture"] in (wanted, [wanted])
    at.button(key="lecture_start").click().run()
    assert not at.exception and _screen(at) == "Screen 1 of 2 · Softmax"
    assert at.query_params["present"] in ("1", ["1"])


def test_multi_head_is_presented_a_head_a_screen_with_its_heads_in_the_bar() -> None:
    at = run_page("multi_head", {"present": "1", "heads": "2", "step": "fused_weights"})
    assert not at.exception and at.query_params["present"] in ("1", ["1"])
    assert _screen(at).startswith("Screen 7 of 11")  # 2 heads: weights 2 screens, shapes 2
    at.number_input(key="present_heads").set_value(4).run()  # d_out 2: the fused class cannot
    assert not at.exception and at.session_state["heads"] == 4
    assert "d_out = 2" in page_text(at) and at.button(key="fix_heads_2") is not None


def test_find_the_bug_is_presented_with_its_picker_in_the_bar() -> None:
    at = run_page("find_the_bug", {"present": "1", "bug": "no_scaling"})
    assert not at.exception and _screen(at).startswith("Screen 1 of ")
    while not at.button(key="present_next").disabled:
        at.button(key="present_next").click().run()
        assert not at.exception
    assert _screen(at).startswith("Screen 5 of 5")  # the diff, the checks, book, bug, output
    assert at.selectbox(key="find_the_bug_bug").value == "no_scaling"  # the picker in the bar


def test_every_teaching_page_declares_its_screens_once_as_a_walk() -> None:
    """The deck reads every page's screens from the one walk registry: each teaching page of the
    frame registers a walk (so Present, ``?step=``, the counter and a lecture work on it)."""
    from ui.frame import PAGE_SPECS
    from ui.step_link import WALK_NAMES

    for spec in PAGE_SPECS:
        spec.render()  # imports the page; its Walk registers itself
    teaching = {spec.name for spec in PAGE_SPECS if spec.teaches}
    assert teaching <= set(WALK_NAMES), teaching - set(WALK_NAMES)
    assert all(len(set(WALK_NAMES[name])) == len(WALK_NAMES[name]) for name in teaching)


def test_dropouts_screen_shows_a_weight_before_and_after_dropout() -> None:
    """p = 0.5: a kept weight doubles (× 1/(1 − p)), a dropped one becomes 0, on one screen."""
    import re

    at = run_page("step", {"present": "1", "step": "dropout", "dropout": "0.5"})
    at.button(key="present_next").click().run()  # the coin flips
    at.button(key="present_next").click().run()  # the dropped weights' screen
    text = page_text(at).replace("*", "").replace("\\", "")
    kept = re.search(r"(\d\.\d{4}) → (\d\.\d{4}) \(kept\)", text)
    dropped = re.search(r"(\d\.\d{4}) → (\d\.\d{4}) \(dropped\)", text)
    assert kept and dropped, text
    assert abs(2 * float(kept.group(1)) - float(kept.group(2))) <= 1e-4
    assert float(dropped.group(1)) > 0 and float(dropped.group(2)) == 0


def test_a_lecture_link_opened_on_another_page_starts_at_its_first_screen() -> None:
    """The panel's link (``?lecture=…&present=1``, no page in it) opens on the app's first page:
    the deck goes to the lecture's first screen, on its own page."""
    from ui.frame import PAGE_SPECS

    for spec in PAGE_SPECS:  # as the server's startup does: every page's walk registered
        spec.render()
    at = run_page("step", {"lecture": "chapter_path.v1,step.softmax", "present": "1"})
    assert not at.exception
    assert _screen(at).startswith("Screen 1a of 2 · 3.4.1"), _screen(at)  # v1: parts a, b, …
    assert at.session_state["walk_current_page"] == "chapter_path"
