"""The book's lines beside each step: read from attention/modules.py, shown on the step page."""

from __future__ import annotations

from pathlib import Path

from attention import modules
from attention.book_code import MULTI_HEAD_ANCHORS, STEP_ANCHORS, marked_source
from attention.modules import CausalAttention, MultiHeadAttention
from attention.steps import STEPS
from tests.apptest_support import run_page

MODULES_LINES = Path(modules.__file__).read_text().splitlines()


def test_each_steps_marked_lines_are_its_statements_in_modules_py() -> None:
    assert set(STEP_ANCHORS) == {step.name for step in STEPS}
    for step, anchors in STEP_ANCHORS.items():
        marked = marked_source(CausalAttention, step)
        marked_text = "\n".join(MODULES_LINES[number - 1] for number in marked.marked_lines)
        for anchor in anchors:
            assert anchor in marked_text, (step, anchor)
        assert marked.text.count("▶") == len(marked.marked_lines)
    softmax = marked_source(CausalAttention, "softmax")
    assert "torch.softmax(attn_scores" in MODULES_LINES[softmax.marked_lines[0] - 1]
    for stage, anchors in MULTI_HEAD_ANCHORS.items():
        marked = marked_source(MultiHeadAttention, stage)
        marked_text = "\n".join(MODULES_LINES[number - 1] for number in marked.marked_lines)
        assert all(anchor in marked_text for anchor in anchors), stage


def test_the_step_page_shows_the_books_lines_of_the_open_step() -> None:
    at = run_page("step")
    assert not at.exception
    # closed, the expander holds no code block (a first visit loads no syntax highlighter)
    assert not at.code
    at.session_state["book_code_embeddings"] = True  # the reader opens it
    at.run()
    assert not at.exception
    codes = [element.value for element in at.code]
    marked = [line for code in codes for line in code.splitlines() if line.startswith("▶")]
    assert any("class CausalAttention" in code for code in codes)
    assert marked and all(line[1:].strip() in "\n".join(MODULES_LINES) for line in marked)


def test_the_multi_head_page_marks_the_chosen_stage() -> None:
    at = run_page("multi_head", query={"heads": "2"})
    assert not at.exception
    at.radio(key="book_code_multi_head_stage").set_value("out_proj").run()
    code = next(element.value for element in at.code if "class MultiHeadAttention" in element.value)
    marked = [line[1:].strip() for line in code.splitlines() if line.startswith("▶")]
    assert marked[0].startswith("self.out_proj = nn.Linear")
    assert marked[1].startswith("context_vec = self.out_proj(context_vec)")
