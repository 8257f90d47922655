"""The book's examples, one click or one link each, and "the book's" said only where computed.

AppTest runs each page inside the frame (``tests/page_harness.py``): a fresh session with a
link's query is what a reader who opens a shared link gets.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.book_outputs import chapter_comparisons, masking_comparison
from attention.chapter import normalisations, self_attention_v1, self_attention_v2, simple_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.masking import compare_masking
from tests.apptest_support import matrix_tables, page_text, run_page, walk_labels
from tests.cases import subcases
from ui.book_examples import BOOK_EXAMPLES
from ui.i18n import CATALOGUE

STARTS = ["0.3800", "0.3097", "0.3103"]  # the book's 3.5.1 row 3 ("starts"), both ways


def _row(at: Any, key: str, token: str) -> list[str]:
    return matrix_tables(at)[key].loc[token].tolist()


def _open_tab(at: Any, key: str, index: int) -> Any:
    at.session_state[key] = walk_labels(at)[index]
    return at.run()


@subcases("how", ["link", "click"])
def test_masking_shows_the_books_351_rows_from_a_link_or_one_click(how: str) -> None:
    """A fresh link (``?seed=789``, the example's own query) or the button from other settings
    shows the book's "starts" row both ways, and the note says it was compared now."""
    example = BOOK_EXAMPLES["masking"]
    assert example.query() == {"seed": "789"}
    if how == "link":
        at = run_page("masking", example.query())
    else:
        at = run_page("masking", {"seed": "5", "heads": "2", "d_out": "4", "text": "a b c"})
        assert not at.success, "no note calls these numbers the book's"
        at.button(key="book_example_masking").click().run()
    assert not at.exception
    _open_tab(at, "masking_stage", 1)
    assert _row(at, "masking_method1", "starts")[:3] == STARTS
    _open_tab(at, "masking_stage", 2)
    assert _row(at, "masking_method2", "starts")[:3] == STARTS
    note = " ".join(element.value for element in at.success)
    assert "3.5.1" in note and "`seed=789`" in note and "same to its 4 decimals" in note


def test_masking_at_seed_123_names_nothing_the_books() -> None:
    at = run_page("masking")
    assert not at.success
    assert "Compared just now" not in page_text(at)
    assert _row(at, "masking_scores", "starts") != STARTS


def test_seed_789_causal_attention_has_self_attention_v2s_scores() -> None:
    """The masking note's claim: CausalAttention at seed 789 is v2's scores, exactly."""
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=789))
    assert torch.equal(trace.attn_scores[0], self_attention_v2(BOOK_EMBEDDINGS).attn_scores)
    comparison = compare_masking(trace.attn_scores[0], trace.d_k)
    check = masking_comparison(trace, comparison.after_softmax["attn_weights"])
    assert check is not None and check.passed
    other = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=789, d_out=3))
    assert masking_comparison(other, other.attn_weights[0]) is None


def test_fast_path_calls_its_output_the_books_only_when_the_printout_agrees() -> None:
    """Seed 123 with one head is not the book's printout (its rows 2–6 differ): the table is
    named for what it is; with the book's two heads the title is earned by the comparison."""
    at = run_page("fast_path")
    assert not at.exception
    text = page_text(at).replace("\\", "")  # its sentences are escaped Markdown
    assert "MultiHeadAttention's output: this run, seed 123, num_heads = 1" in text
    assert "book's printed output" not in text
    assert "Compared just now" not in text, "the book printed no one-head MultiHeadAttention"
    journey = _row(at, "fast_path_book_output", "journey")
    assert journey == ["0.2926", "0.3896"], "one head: not the book's 0.2943 0.3897"
    at.button(key="book_example_fast_path").click().run()
    assert "book's printed output" in page_text(at).replace("\\", "")
    assert _row(at, "fast_path_book_output", "journey") == ["0.2943", "0.3897"]


def test_fast_path_says_the_slips_blind_row_is_out_proj_bias() -> None:
    """The slip's last query sees no key; its row is out_proj's bias, checked before said."""
    at = run_page("fast_path", {"heads": "2"})
    assert _row(at, "fast_path_slip_output", "step") == ["0.1934", "0.6825"]
    assert "“step” (row 6) sees no key at all" in page_text(at)
    assert "`out_proj`'s bias alone: [0.1934, 0.6825]" in page_text(at)


def test_chapter_path_tells_351_in_the_books_order() -> None:
    """tril and renormalise first, then −∞: the sentences and the tables in that order, and
    both ways give the book's row for "starts"."""
    at = run_page("chapter_path")
    assert not at.exception
    text = page_text(at)
    assert text.index("`torch.tril` keeps the weights") < text.index("fill the scores above")
    tables = list(matrix_tables(at))
    order = ["chapter_masked_simple", "chapter_masked_simple_norm", "chapter_masked_weights"]
    assert [key for key in tables if key in order] == order
    for key in order[1:]:
        assert _row(at, key, "starts")[:3] == STARTS
    assert "3.3.1, 3.4.1, 3.4.2, 3.5.1 print the book's numbers" in text


def test_chapter_path_names_this_runs_numbers_at_another_seed() -> None:
    at = run_page("chapter_path", {"seed": "7"})
    text = page_text(at)
    assert (
        "Numbers of this run, not the book's printout (other embeddings, seed or d_out): 3.4.1."
        in text
    )
    assert "3.3.1, 3.4.2, 3.5.1 print the book's numbers" in text


def test_why_softmax_on_the_chapters_editable_case() -> None:
    """The default case: the book's scores with the smallest ("one") made negative. Dividing by
    the sum gives it a negative weight, softmax does not; a sum near 0 blows a weight up; ten
    times larger scores leave the division unchanged and sharpen softmax."""
    at = run_page("chapter_path")
    table = matrix_tables(at)["chapter_why_softmax"]
    assert table.iloc[0].tolist() == ["0.9544", "1.4950", "1.4754", "0.8434", "−0.7070", "1.0865"]
    assert table.iloc[1].tolist() == ["0.1854", "0.2904", "0.2866", "0.1638", "−0.1373", "0.2111"]
    assert table.iloc[2].tolist()[4] == "0.0287"
    assert table.iloc[3].tolist() == table.iloc[1].tolist(), "×10: the division is unchanged"
    assert table.iloc[4].tolist()[1] == "0.5421", "×10: softmax sharpens towards journey"
    text = page_text(at)
    assert "gives a negative weight** to “one”: the scores add up to 5.1477" in text
    assert "“one” −0.1373" in text and "(10 times larger)" in text
    assert "goes from 0.2591 to 0.5421" in text
    at.button(key="chapter_softmax_near_zero").click().run()
    assert "blows a weight up to 20.0000" in page_text(at)
    at.text_input(key="chapter_softmax_scores").input("1, oops").run()
    assert not at.exception
    assert "item 2, “oops”, is not a number" in " ".join(e.value for e in at.error)
    kept = matrix_tables(at)["chapter_why_softmax"]
    assert kept.iloc[0].tolist() == ["1.0000", "−0.5000", "−0.4500"], "the last valid case stays"


def test_normalisations_and_the_chapters_printouts() -> None:
    case = normalisations([1.0, -1.0])
    assert not case.by_sum_finite and case.negative == (1,)
    assert torch.allclose(case.softmax.sum(), torch.tensor(1.0))
    assert normalisations([100.0, 1.0]).naive_overflows, "e^1000 overflows float32"
    with pytest.raises(ValueError, match="scores"):
        normalisations([])
    simple, v1 = simple_attention(BOOK_EMBEDDINGS), self_attention_v1(BOOK_EMBEDDINGS)
    found = chapter_comparisons(simple, v1, self_attention_v2(BOOK_EMBEDDINGS))
    assert all(value is not None and value <= 5e-5 + 1e-7 for value in found.values()), found
    other = chapter_comparisons(simple, self_attention_v1(BOOK_EMBEDDINGS, seed=7), None)
    assert other["3.4.1"] is None and other["3.4.2"] is None and other["3.3.1"] is not None


def test_find_the_bug_says_nan_in_words_and_how_much_each_bug_changes() -> None:
    at = run_page("find_the_bug", {"bug": "mask_inverted"})
    assert at.metric[0].value == "not a number"
    assert "holds NaN (not a number)** in 1 of its 6 rows: “step”" in page_text(at)
    at = run_page("find_the_bug", {"bug": "sdpa_bool_mask"})
    text = page_text(at)
    assert "replaces 5 statements of the book's (lines 107–113) with one statement" in text
    assert "one statement changed" not in CATALOGUE["find_the_bug.intro"]["en"]


def test_the_chapters_v2_seed_is_in_the_link_and_the_example_sets_it_back() -> None:
    at = run_page("chapter_path", {"v2_seed": "5"})
    assert at.number_input(key="v2_seed").value == 5
    assert "(other embeddings, seed or d_out): 3.4.2, 3.5.1." in page_text(at)
    at.button(key="book_example_chapter_path").click().run()
    assert at.number_input(key="v2_seed").value == 789
    assert "v2_seed" not in at.query_params, "the book's 789 is the default: a plain link"
    assert "3.3.1, 3.4.1, 3.4.2, 3.5.1 print the book's numbers" in page_text(at)
