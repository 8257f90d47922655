"""AppTest tests of the page “Multi-head”: both book classes, the book's numbers at seed 123."""

from __future__ import annotations

from typing import Any

import pandas as pd

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.modules import MultiHeadAttention, MultiHeadAttentionWrapper
from tests.apptest_support import matrix_tables, page_text, run_page
from tests.cases import subcases
from viz.multi_head import output_frame

BOOK_WRAPPER_FIRST = ["-0.4519", "0.2216", "0.4772", "0.1063"]  # REFERENCE.md, row 1
BOOK_WRAPPER_LAST = ["-0.5299", "-0.1081", "0.5077", "0.3493"]  # row 6
BOOK_FUSED = [
    ["0.3190", "0.4858"],
    ["0.2943", "0.3897"],
    ["0.2856", "0.3593"],
    ["0.2693", "0.3873"],
    ["0.2639", "0.3928"],
    ["0.2575", "0.4028"],
]


def _trace(heads: int, variant: str, *, seed: int = 123, d_out: int = 2) -> AttentionTrace:
    cfg = AttentionConfig(d_out=d_out, seed=seed, num_heads=heads, variant=variant)
    return trace_attention(BOOK_EMBEDDINGS, cfg)


def _output_tables(at: Any) -> list[pd.DataFrame]:
    """The tables whose index is the tokens and whose cells are numbers (outputs, weights)."""
    return [table.value for table in at.table if "step" not in map(str, table.value.columns)]


def _has_table(at: Any, values: list[list[str]]) -> bool:
    return any(frame.values.tolist() == values for frame in _output_tables(at))


def _expected(trace: AttentionTrace) -> list[list[str]]:
    """The output table's cells for ``trace``: 4 decimals, ASCII minus (from the trace)."""
    values = trace.output[0].numpy()  # (T, width)
    rows, width = values.shape
    return output_frame(values, [""] * rows, [str(c) for c in range(width)]).values.tolist()


def test_book_numbers_at_seed_123_with_two_heads() -> None:
    at = run_page("multi_head", {"heads": "2"})
    assert not at.exception
    assert _has_table(at, BOOK_FUSED), "the fused class prints the book's numbers"
    wrapper = next(frame for frame in _output_tables(at) if frame.shape == (6, 4))
    assert wrapper.iloc[0].tolist() == BOOK_WRAPPER_FIRST
    assert wrapper.iloc[5].tolist() == BOOK_WRAPPER_LAST
    assert list(wrapper.index) == ["Your", "journey", "starts", "with", "one", "step"]
    # batch 1 is not the book's example (a batch of two), but its rows are compared, and agree
    assert "same to its 4 decimals" in page_text(at)
    text = page_text(at).replace("\u00a0", " ")  # shapes are written with no-break spaces
    for shape in ["(1, 6, 3)", "(1, 6, 2, 1)", "(1, 2, 6, 1)", "(1, 2, 6, 6)", "(1, 6, 4)"]:
        assert shape in text


def test_other_seed_and_heads_give_the_trace_numbers_not_the_books() -> None:
    at = run_page("multi_head", {"heads": "2", "d_out": "4", "seed": "7"})
    assert not at.exception
    assert not at.success, "not the book's configuration"
    assert _has_table(at, _expected(_trace(2, "wrapper", seed=7, d_out=4)))
    assert _has_table(at, _expected(_trace(2, "fused", seed=7, d_out=4)))
    assert not _has_table(at, BOOK_FUSED)


def test_changing_heads_in_the_sidebar_recomputes_both_classes() -> None:
    at = run_page("multi_head", {"heads": "2", "d_out": "4"})
    before = [frame.values.tolist() for frame in _output_tables(at)]
    at.slider(key="heads").set_value(4).run()
    assert not at.exception
    wrapper, fused = _trace(4, "wrapper", d_out=4), _trace(4, "fused", d_out=4)
    assert _has_table(at, _expected(wrapper))
    assert _has_table(at, _expected(fused))
    assert [frame.values.tolist() for frame in _output_tables(at)] != before
    # one table of weights per head and class (six tokens: coloured tables, no chart)
    assert set(matrix_tables(at)) == {
        f"multi_head_{variant}_weights_{head}"
        for variant in ("wrapper", "fused")
        for head in range(4)
    }
    assert not at.get("plotly_chart")


def test_changing_the_seed_recomputes() -> None:
    at = run_page("multi_head", {"heads": "2"})
    at.number_input(key="seed").set_value(99).run()
    assert not at.exception
    assert _has_table(at, _expected(_trace(2, "fused", seed=99)))
    assert not _has_table(at, BOOK_FUSED)


def test_indivisible_d_out_warns_for_the_fused_class_and_keeps_the_wrapper() -> None:
    at = run_page("multi_head", {"heads": "2", "d_out": "3"})
    assert not at.exception
    assert not at.error, "a warning, not an error"
    warning = " ".join(element.value for element in at.warning)
    assert "d_out = 3" in warning and "2 heads" in warning
    assert "1, 3" in warning and "2, 4, 6, 8" in warning, "suggests valid values"
    assert _has_table(at, _expected(_trace(2, "wrapper", d_out=3)))
    assert set(matrix_tables(at)) == {
        "multi_head_wrapper_weights_0",
        "multi_head_wrapper_weights_1",
    }, "only the wrapper's heads are drawn"


def test_indivisible_warning_is_translated() -> None:
    at = run_page("multi_head", {"heads": "3", "lang": "zh"})
    assert not at.exception
    assert "无法" in " ".join(element.value for element in at.warning)


def test_one_head_explains_and_shows_causal_attention() -> None:
    at = run_page("multi_head")
    assert not at.exception
    assert any("nothing to split" in element.value for element in at.info)
    # a wrapper with one head is one CausalAttention: the seed document's numbers
    assert _has_table(at, _expected(_trace(1, "wrapper")))


def _shapes(at: Any) -> list[str]:
    """The shapes of the shape tables, in order (spaces as the page writes them)."""
    return [
        str(shape).replace("\u00a0", " ")
        for table in at.table
        if "step" in map(str, table.value.columns)
        for shape in table.value.iloc[:, 1]
    ]


def test_book_example_is_one_click_with_the_books_batch_of_two() -> None:
    """From other settings and words, the button sets the book's 3.6 example: a batch of two,
    shapes (2, 6, 4) and (2, 6, 2), the book's first rows, and a note of the comparison."""
    at = run_page("multi_head", {"seed": "5", "d_out": "3", "text": "a b c"})
    assert not at.success, "no note calls these numbers the book's"
    at.button(key="book_example_multi_head").click().run()
    assert not at.exception
    assert (at.session_state["heads"], at.session_state["batch"]) == (2, 2)
    shapes = _shapes(at)
    assert "(2, 6, 4)" in shapes and "(2, 6, 2)" in shapes
    wrapper_first = ["-0.4519", "0.2216", "0.4772", "0.1063"]
    assert any(frame.values.tolist()[0] == wrapper_first for frame in _output_tables(at))
    assert _has_table(at, BOOK_FUSED)
    note = " ".join(element.value for element in at.success)
    assert "3.6" in note and "same to its 4 decimals" in note
    assert "1 rows" not in page_text(at)


@subcases("query", [{"heads": "8", "d_out": "8", "lang": "zh"}, {"dropout": "0.5"}])
def test_page_runs_with_many_heads_chinese_and_dropout(query: dict[str, str]) -> None:
    at = run_page("multi_head", {"heads": "2", **query})
    assert not at.exception
    heads = int(query.get("heads", "2"))
    trace = _trace(heads, "fused", d_out=int(query.get("d_out", "2")))
    if "dropout" in query:
        cfg = AttentionConfig(dropout=0.5, num_heads=2, variant="fused")
        trace = trace_attention(BOOK_EMBEDDINGS, cfg)
        assert any("after dropout" in element.value for element in at.caption)
    assert _has_table(at, _expected(trace))


def test_tokens_with_markdown_are_escaped_in_the_tables() -> None:
    at = run_page("multi_head", {"heads": "2", "text": "**a** [b](http://x.y) c"})
    assert not at.exception
    index = [str(label) for frame in _output_tables(at) for label in frame.index]
    assert r"\*\*a\*\*" in index
    assert "**a**" not in index


def _parameter_table(at: Any) -> pd.DataFrame:
    return next(table.value for table in at.table if "total" in table.value.columns)


def test_parameter_counts_are_summed_from_the_modules_at_two_settings() -> None:
    """The book's two heads (d_in 3, d_out 2): 36 and 24, out_proj's 6 making the difference
    in kind; with d_out 4 and qkv_bias the counts follow the modules (biases included)."""
    at = run_page("multi_head", {"heads": "2"})
    table = _parameter_table(at)
    assert table.loc["MultiHeadAttentionWrapper", "total"] == "36"
    assert table.loc["MultiHeadAttention", "total"] == "24"
    assert table.loc["MultiHeadAttention", "out_proj"] == "6"
    assert "MultiHeadAttentionWrapper has 36 trainable parameters" in page_text(at)

    at = run_page("multi_head", {"heads": "2", "d_out": "4", "qkv_bias": "1"})
    table = _parameter_table(at)
    modules = {
        "MultiHeadAttentionWrapper": MultiHeadAttentionWrapper(3, 4, 6, 0.0, 2, qkv_bias=True),
        "MultiHeadAttention": MultiHeadAttention(3, 4, 6, 0.0, 2, qkv_bias=True),
    }
    for name, module in modules.items():
        total = sum(p.numel() for p in module.parameters() if p.requires_grad)
        assert table.loc[name, "total"] == str(total)
    assert table.loc["MultiHeadAttention", "out_proj"] == str(4 * 4 + 4)


def test_parameter_counts_without_the_fused_class() -> None:
    at = run_page("multi_head", {"heads": "3", "d_out": "2"})
    table = _parameter_table(at)
    assert list(table.index) == ["MultiHeadAttentionWrapper"]
    assert table.loc["MultiHeadAttentionWrapper", "total"] == str(3 * 3 * 3 * 2)


def test_the_heads_weights_are_drawn_in_order_two_per_row() -> None:
    """Four heads: Head 1, 2 in the first row, 3, 4 in the next (a phone stacks the columns, so
    the order of the page is the order read)."""
    at = run_page("multi_head", {"heads": "4", "d_out": "4"})
    assert not at.exception
    keys = [key for key in matrix_tables(at) if "_weights_" in key]
    wrapper = [key for key in keys if key.startswith("multi_head_wrapper")]
    assert wrapper == [f"multi_head_wrapper_weights_{head}" for head in range(4)], keys
