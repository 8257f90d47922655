"""The shared settings ``batch`` (the book's ``torch.stack((inputs, inputs))``) and ``window``
(a sliding window as the mask): the app's trace, the step page's numbers and sentences, the links.

Every number asserted comes from the book's recipe (``tests/book_recipe.py``) or from
``trace_attention`` itself: the page must show the trace's numbers.
"""

from __future__ import annotations

import pytest
import torch

from attention import AttentionConfig, sliding_window_mask, trace_attention
from attention.dropout import batch_mask_differences
from attention.examples import BOOK_EMBEDDINGS
from tests.apptest_support import matrix_tables, open_step_tab, page_text, run_page
from tests.book_recipe import BOOK_BATCH, book_recipe
from tests.cases import subcases
from ui.computation import compute_trace, config_from_settings
from ui.settings import SETTINGS
from ui.table import InputProblem
from ui.table_state import book_table
from viz.screens import counts_in_runs
from viz.window import window_mask_view
from viz.words import FigureWords


def test_the_apps_batch_is_the_books_stack_bitwise_with_its_own_dropout_per_item() -> None:
    cfg = AttentionConfig(dropout=0.5)
    trace = compute_trace(book_table(), cfg, batch=2)
    expected = book_recipe(BOOK_BATCH, d_out=2, seed=123, dropout=0.5)  # CausalAttention(3,2,6,p)
    assert trace.inputs.shape == (2, 6, 3)
    assert torch.equal(trace.output, expected)
    # the same six rows, two masks: the counts are read from the two keep-masks themselves
    keep, visible = trace.dropout_mask, ~trace.mask
    assert batch_mask_differences(trace) == (int(((keep[0] != keep[1]) & visible).sum()),)
    assert batch_mask_differences(trace)[0] > 0  # seed 123 draws different masks
    assert batch_mask_differences(trace_attention(BOOK_BATCH)) is None  # no dropout: no mask
    assert batch_mask_differences(trace_attention(BOOK_EMBEDDINGS, cfg)) == ()


def test_settings_give_the_window_and_zero_turns_it_off() -> None:
    settings = {name: setting.default for name, setting in SETTINGS.items()}
    assert config_from_settings(settings).window is None
    assert config_from_settings({**settings, "window": 3}).window == 3


@subcases(
    ("name", "raw", "key"),
    [("batch", "9", "url.out_of_range"), ("batch", "0", "url.out_of_range")]
    + [("window", "x", "url.not_integer"), ("window", "-1", "url.out_of_range")],
)
def test_a_bad_batch_or_window_in_a_link_is_refused_with_its_reason(
    name: str, raw: str, key: str
) -> None:
    with pytest.raises(InputProblem) as caught:
        SETTINGS[name].read(raw, name)
    assert caught.value.key == key


def test_the_window_figure_tells_the_far_past_from_the_future() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(window=2))
    view = window_mask_view(trace, list("abcdef"), FigureWords(), palette="default")
    future = torch.ones(6, 6, dtype=torch.bool).triu(1)
    assert torch.equal(torch.from_numpy(view.hidden), future)  # grey, as every step draws it
    far = sliding_window_mask(6, 2) & ~future  # j <= i - 2
    assert torch.equal(torch.from_numpy(view.values).bool(), far)
    assert view.values[5].tolist() == [1, 1, 1, 1, 0, 0]


def shown_context(at: object) -> list[list[str]]:
    return at.table[0].value.to_numpy().tolist()  # type: ignore[attr-defined]


def test_batch_2_shows_item_0_and_every_shape_with_the_batch_axis() -> None:
    at = run_page("step", {"batch": "2", "dropout": "0.5"})
    assert not at.exception and not at.warning
    trace = trace_attention(BOOK_BATCH, AttentionConfig(dropout=0.5))
    assert shown_context(at) == [[f"{v:.4f}" for v in row] for row in trace.context[0].tolist()]
    assert shown_context(at) != [[f"{v:.4f}" for v in row] for row in trace.context[1].tolist()]
    text = page_text(at)
    assert "a batch of 2 (batch item 0 shown)" in text
    assert "`context_vec`, shape (2, 6, 2), batch item 0" in text
    assert "`batch`, shape (2, 6, 3)" in text  # step 1
    text = page_text(open_step_tab(at, "step_tabs", "qkv"))
    assert r"(2 \times 6 \times 3)" in text and "`queries` has shape (2, 6, 2)" in text
    text = page_text(open_step_tab(at, "step_tabs", "dropout"))
    (count,) = batch_mask_differences(trace)
    assert f"item 1's mask differs from item 0's in {count} of the 21 visible weights" in text


def test_window_2_shows_the_band_and_the_windowed_context() -> None:
    at = open_step_tab(run_page("step", {"window": "2"}), "step_tabs", "mask")
    assert not at.exception and not at.warning
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(window=2))
    assert shown_context(at) == [[f"{v:.4f}" for v in row] for row in trace.context[0].tolist()]
    assert not torch.equal(trace.context, trace_attention(BOOK_EMBEDDINGS).context)
    mask = matrix_tables(at)["step_fig_mask"].to_numpy().tolist()
    assert mask[5] == ["1", "1", "1", "1", "0", "0"]  # "step" sees "one" and itself only
    assert [row.count("1") for row in mask] == [5, 4, 4, 4, 4, 4]
    text = page_text(at)
    assert "Keys each query sees, `(~mask).sum(-1)`: 1, 2, 2, 2, 2, 2" in text
    assert "sliding window of 2 tokens" in text


def test_a_window_takes_the_books_claim_away_and_bad_links_are_named() -> None:
    book = {"heads": "2", "batch": "2"}  # a batch of copies: still the book's numbers
    text = page_text(run_page("multi_head", book)).replace("\u00a0", " ")
    assert "The book's example (3.6) is set up" in text and "same to its 4 decimals" in text
    assert "(2, 6, 3)" in text and "b = batch (2 here)" in text  # the shapes table
    windowed = page_text(run_page("multi_head", {**book, "window": "3"}))
    assert "is set up" not in windowed and "same to its 4 decimals" not in windowed
    at = run_page("step", {"window": "x", "batch": "9"})
    assert not at.exception
    warnings = " ".join(warning.value for warning in at.warning)
    assert "window=x" in warnings and "batch=9" in warnings, warnings


def test_a_long_windowed_sentence_counts_keys_in_runs_and_a_window_of_one_says_itself() -> None:
    """At 4,096 tokens the step once listed 4,096 counts and said "1 tokens … the 0 before it"."""
    assert counts_in_runs([1, 2, 3, 4] + [4] * 4092) == "1, 2, …, 4, 4 (×4,092)"
    assert counts_in_runs([1, 2, 2, 2, 2, 2]) == "1, 2, 2, 2, 2, 2"  # a short one: every count
    words = " ".join(f"w{i}" for i in range(20))
    text = page_text(
        open_step_tab(run_page("step", {"text": words, "window": "3"}), "step_tabs", "mask")
    )
    assert "`(~mask).sum(-1)`: 1, 2, 3 (×18)." in text
    one = open_step_tab(run_page("step", {"window": "1"}), "step_tabs", "softmax")
    text = page_text(one)
    assert "row i mixes only itself: keys per row 1, 1, 1, 1, 1, 1" in text
    assert "sliding window of 1 token\n" in text and "1 tokens" not in text
    assert "the 0 before it" not in text
