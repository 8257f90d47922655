"""The KV cache page: the cache's rows, the mask row of one query, generation both ways, the bytes."""

from __future__ import annotations

from attention.examples import BOOK_EMBEDDINGS
from attention.kv_cache import (
    cache_growth,
    compare_generation,
    decode,
    default_prompt,
    mask_slice_slip,
)
from tests.apptest_support import matrix_tables, page_text, run_page
from viz.markdown_text import escape_markdown
from viz.vocabulary import format_number


def test_the_page_shows_the_cache_the_slip_the_same_tokens_and_gpt2s_bytes() -> None:
    at = run_page("kv_cache")
    assert not at.exception
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["difference from the full forward pass (row 6)"] == "0"
    slip = mask_slice_slip(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    assert metrics["largest difference, slip vs right"] == f"{slip.difference:.4f}"
    assert metrics["cache size"] == "75,497,472 B"  # GPT-2 124M in fp32, the inputs' defaults
    tables = matrix_tables(at)
    right, slipped = tables["kv_cache_slice_masks"].values.tolist()
    assert right == ["False"] * 6 and slipped == ["False"] + ["True"] * 5
    with_cache, without_cache = compare_generation(
        prompt_tokens=default_prompt(), new_tokens=24, seed=123
    )
    code = [block.value for block in at.code]
    assert code[1:] == [decode(with_cache), decode(without_cache)]
    assert "The same 24 characters both ways." in page_text(at)
    assert "The KV cache" in page_text(at)


def test_the_cache_has_as_many_rows_as_tokens_fed() -> None:
    at = run_page("kv_cache")
    at.slider(key="kv_cache_tokens").set_value(3).run()
    assert not at.exception
    tables = matrix_tables(at)
    assert tables["kv_cache_keys"].shape == (3, 2) and tables["kv_cache_values"].shape == (3, 2)
    assert tables["kv_cache_weights"].shape == (1, 3)  # one head, the new query over 3 keys


def test_the_page_in_chinese_and_a_bad_head_count_is_named() -> None:
    at = run_page("kv_cache", {"lang": "zh"})
    assert not at.exception
    text = page_text(at)
    assert "KV 缓存" in text and "两种方式写出的 24 个字符完全相同。" in text
    at.number_input(key="kv_cache_memory_kv_heads").set_value(5).run()
    assert not at.exception
    assert at.error and "kv_heads = 5 必须整除 heads" in at.error[0].value


def test_a_token_is_shown_as_typed_not_as_markdown() -> None:
    at = run_page("kv_cache", {"text": "**bold** <b>x</b>"})
    assert not at.exception
    texts = [block.value for block in at.markdown]
    assert any(escape_markdown("**bold**") in text for text in texts)  # the slice's first token
    assert any(escape_markdown("<b>x</b>") in text for text in texts)  # the growth's last token


def _screen(at) -> str:  # noqa: ANN001 - an AppTest
    """Presenter mode's "Screen 2 of 12" (bold marks dropped, the screen's title cut)."""
    shown = next(m.value for m in at.markdown if m.value.startswith("Screen "))
    return shown.replace("*", "").split(" · ")[0]


def test_a_link_opens_a_part_and_presenter_mode_feeds_one_token_a_screen() -> None:
    at = run_page("kv_cache", {"step": "slice"})
    assert not at.exception
    assert at.session_state["kv_cache_tabs"] == "The mask slice"
    assert at.toggle(key="kv_cache_all").value is False  # a link to a part opens its tab
    tables = matrix_tables(at)
    assert "kv_cache_slice_masks" in tables and "kv_cache_keys" not in tables  # one tab ran

    at = run_page("kv_cache", {"present": "1"})
    assert not at.exception and not at.tabs
    assert "holds 1 row of keys and 1 of values; the new query meets that one key" in page_text(at)
    steps = cache_growth(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    for n in (1, 2, 3, 4):
        assert _screen(at) == f"Screen {n} of 12"
        tables = matrix_tables(at)
        shown = min(n, 3)  # a projector's screen: the cache's last 3 rows, titled "of n"
        assert tables["kv_cache_keys"].shape == (shown, 2)
        title = f"Cached keys: the last 3 of {n} rows"  # a matrix's title: its own plain text
        assert (n > 3) == (title in page_text(at))
        assert tables["kv_cache_weights"].shape == (1, n)  # the new query over every key
        cached, full = tables["kv_cache_output_rows"].values.tolist()
        assert cached == full == [format_number(value) for value in steps[n - 1].full_row.tolist()]
        at.button(key="present_next").click().run()
    assert not at.exception and _screen(at) == "Screen 5 of 12"
    at.button(key="present_last").click().run()
    assert _screen(at) == "Screen 12 of 12" and at.metric[0].value == "75,497,472 B"


def test_the_page_says_why_the_sidebars_dropout_does_not_act_on_it() -> None:
    """p = 0.5 in training mode: the page says its layer runs in eval mode with dropout off (the
    cache's rows still equal the full pass's: nothing was dropped); at p = 0 it says nothing."""
    at = run_page("kv_cache", {"dropout": "0.5"})
    assert not at.exception
    assert "Dropout p = 0.5 and training mode do not act on this page" in page_text(at)
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["difference from the full forward pass (row 6)"] == "0"
    assert "do not act on this page" not in page_text(run_page("kv_cache"))


def test_presenting_the_slice_its_first_screen_shows_the_two_mask_rows_and_the_next_the_outputs() -> (
    None
):
    at = run_page("kv_cache", {"present": "1", "step": "slice"})
    assert not at.exception
    assert "kv_cache_slice_masks" in matrix_tables(at)  # why row n−1, beside the rows it compares
    at.button(key="present_next").click().run()
    assert not at.exception and at.metric  # what each row outputs, and their difference
    assert "kv_cache_slice_masks" not in matrix_tables(at)
