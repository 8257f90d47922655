"""The fast path page: the differences attention.fast_path computes, the masks read two ways, the code."""

from __future__ import annotations

from attention.examples import BOOK_EMBEDDINGS
from attention.fast_path import PATHS, SLIP, compare_fast_paths
from tests.apptest_support import matrix_cell_styles, matrix_tables, page_text, run_page
from viz.colors import HIDDEN_COLOR
from viz.vocabulary import format_difference


def _metrics(at: object) -> list[str]:
    return [metric.value for metric in at.metric]  # type: ignore[attr-defined]


def test_the_page_shows_each_paths_difference_and_the_masks_read_both_ways() -> None:
    at = run_page("fast_path")
    assert not at.exception
    differences = compare_fast_paths(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    assert _metrics(at) == [format_difference(differences[path]) for path in PATHS]
    assert _metrics(at) == ["6.0e-08"] * 3 + ["2.8e-01"]  # three paths and the slip, as shown
    assert at.metric[-1].label.endswith("(the slip)") and differences[SLIP] > 0.1
    assert "The fast path" in page_text(at)
    tables = matrix_tables(at)
    book, sdpa = tables["fast_path_mask_book"], tables["fast_path_mask_sdpa"]
    assert book.iloc[0, 1] == "True" and sdpa.iloc[0, 1] == "False"  # the same cell, read two ways
    assert (tables["fast_path_mask_nn"] == book).all().all()  # nn.MultiheadAttention: as the book
    hidden = matrix_cell_styles(at, "fast_path_mask_sdpa")[(0, 1)]["background-color"]
    assert (
        hidden
        == HIDDEN_COLOR
        == matrix_cell_styles(at, "fast_path_mask_book")[(0, 1)]["background-color"]
    )
    assert tables["fast_path_book_output"].iloc[0].tolist() == ["0.3190", "0.4858"]
    code = "\n".join(block.value for block in at.code)
    assert "is_causal=True" in code and "masked_fill_(mask_bool, -torch.inf)" in code
    assert "#149726" in page_text(at)  # why dropout masks differ, not a faked equality


def test_the_page_in_chinese_with_two_heads() -> None:
    at = run_page("fast_path", {"lang": "zh", "heads": "2"})
    assert not at.exception
    differences = compare_fast_paths(BOOK_EMBEDDINGS, d_out=2, num_heads=2, seed=123)
    assert _metrics(at) == [format_difference(differences[path]) for path in PATHS]
    text = page_text(at)
    assert "快速路径" in text and "同一个布尔掩码，两种含义" in text
    assert at.metric[-1].label == "SDPA，attn_mask=mask_bool（失误）"


def test_heads_that_do_not_divide_d_out_are_named_not_a_traceback() -> None:
    at = run_page("fast_path", {"heads": "3"})
    assert not at.exception
    assert any("cannot be split evenly into 3 heads" in error.value for error in at.error)


def test_a_link_opens_the_mask_conventions_and_presenter_mode_walks_the_paths() -> None:
    at = run_page("fast_path", {"step": "masks"})
    assert not at.exception
    assert at.session_state["fast_path_tabs"] == "Mask conventions"
    assert "fast_path_mask_sdpa" in matrix_tables(at) and not at.metric  # only that tab ran

    at = run_page("fast_path", {"present": "1", "lang": "zh"})
    assert not at.exception and not at.tabs
    differences = compare_fast_paths(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    assert _metrics(at) == [format_difference(differences[path]) for path in PATHS]  # screen 1a
    at.button(key="present_next").click().run()
    assert not at.exception and not at.metric  # 1b: the book's output beside the slip's
    assert set(matrix_tables(at)) == {"fast_path_book_output", "fast_path_slip_output"}
    assert "第 **2** 屏，共 15 屏" in page_text(at)
