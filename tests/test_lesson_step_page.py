"""The step page as a lesson: the step in the link, presenter mode, and what an edit changed."""

from __future__ import annotations

from attention import AttentionConfig, trace_attention
from attention.differences import output_change
from attention.examples import BOOK_EMBEDDINGS
from tests.apptest_support import _matrix_table_data, page_text, run_page
from tests.test_page_step_by_step import edit_cells


def _open_tab(at) -> str:  # noqa: ANN001 - an AppTest
    return at.session_state["step_tabs"]


def test_the_link_opens_its_step_and_a_bad_step_is_named() -> None:
    at = run_page("step", {"step": "softmax"})
    assert not at.exception
    assert _open_tab(at) == "8 · Softmax"
    assert "Step 8 · " in page_text(at)
    bad = run_page("step", {"step": "sofmax"})
    assert not bad.exception
    warning = " ".join(w.value for w in bad.warning)
    assert "step=sofmax" in warning and "softmax" in warning and "embeddings" in warning
    assert _open_tab(bad) == "1 · Embeddings"


def _screen(at) -> str:  # noqa: ANN001 - an AppTest
    """The presenter's "Screen 2 of 15" (bold marks dropped, the screen's title cut)."""
    shown = next(m.value for m in at.markdown if m.value.startswith("Screen "))
    return shown.replace("*", "").split(" · ")[0]


def test_presenter_mode_walks_every_screen_and_leaves_on_the_shown_step() -> None:
    at = run_page("step", {"present": "1"})
    assert not at.exception
    assert not at.data_editor, "presenter mode shows the step alone"
    seen = [_screen(at)]
    while not at.button(key="present_next").disabled:
        at.button(key="present_next").click().run()
        assert not at.exception
        seen.append(_screen(at))
    # the dense steps split into parts, one Next press each (dropout is off: one screen)
    assert seen == [f"Screen {number} of 15" for number in range(1, 16)]
    assert "Press 0.5 beside “p =” above" in page_text(
        at.button(key="present_previous").click().run()
    )
    at.button(key="present_leave").click().run()
    assert not at.exception and at.data_editor
    assert _open_tab(at) == "9 · Dropout"


def test_output_change_marks_only_the_edited_token_and_later_rows() -> None:
    inputs = BOOK_EMBEDDINGS.clone()
    inputs[4, 0] = 0.1  # "one"
    before = trace_attention(BOOK_EMBEDDINGS, AttentionConfig())
    after = trace_attention(inputs, AttentionConfig())
    change = output_change(before.inputs[0], before.context[0], after.inputs[0], after.context[0])
    assert change is not None
    assert change.changed_rows == (False, False, False, False, True, True)
    assert change.first_edited_row == 4
    assert (
        output_change(before.inputs[0], before.context[0], inputs[:3], after.context[0, :3]) is None
    )


def test_the_page_marks_the_rows_an_edit_changed_and_says_why() -> None:
    at = run_page("step")
    edit_cells(at, {"4": {"x1": "0.1"}})
    assert not at.exception
    index = at.table[0].value.index.tolist()
    assert index == ["Your", "journey", "starts", "with", "● one", "● step"]
    text = page_text(at)
    assert "only sees itself and the tokens before it" in text
    assert "“one”, “step”" in text
    scores = matrix_block(at, "step_fig_inputs")
    marked = [[cell["marked"] for cell in row] for row in scores["cells"]]
    assert marked == [[False] * 3] * 4 + [[True, False, False], [False] * 3]
    at.number_input(key="seed").set_value(7).run()
    assert all(label.startswith("● ") for label in at.table[0].value.index)
    assert "a setting changed" in page_text(at)


def matrix_block(at, key: str) -> dict:  # noqa: ANN001 - an AppTest
    """The data the table of matrix ``key`` received (cells with their ``marked`` flags)."""
    return _matrix_table_data(at, key, legend=False)


def test_dropout_presets_set_the_rate_in_one_click() -> None:
    at = run_page("step")
    at.button_group(key="dropout_preset").set_value(0.5).run()
    assert not at.exception
    assert at.slider(key="dropout").value == 0.5
    assert at.query_params["dropout"] in ("0.5", ["0.5"])
    assert at.button_group(key="dropout_preset").value == 0.5  # the chosen rate shows
    at.button_group(key="dropout_preset").set_value(0.0).run()
    assert at.slider(key="dropout").value == 0.0 and "dropout" not in at.query_params
    at.slider(key="dropout").set_value(0.3).run()
    assert at.button_group(key="dropout_preset").value is None  # no preset: none chosen


def test_the_share_box_carries_the_open_step() -> None:
    at = run_page("reproducibility", {"step": "softmax", "seed": "7"})
    assert not at.exception
    links = [code.value for code in at.code if "seed=7" in code.value]
    assert links and all("step=softmax" in link for link in links)
