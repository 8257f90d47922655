"""The chapter's path (attention/chapter.py and its page): the book's printed numbers at the defaults.

Golden numbers are the ones the book prints (REFERENCE.md, "The chapter's path before
CausalAttention"); the diff is checked against the classes' own source.
"""

from __future__ import annotations

import torch

from attention.chapter import causal_diff, self_attention_v1, self_attention_v2, simple_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.modules import SelfAttention_v1, SelfAttention_v2
from pages.chapter_path import diff_halves
from tests.apptest_support import matrix_tables, page_text, run_page


def _close(tensor: torch.Tensor, printed: list[float]) -> bool:
    return torch.allclose(tensor, torch.tensor(printed), atol=5e-5)


def test_section_3_3_is_the_books_numbers() -> None:
    path = simple_attention(BOOK_EMBEDDINGS)
    assert _close(path.query_scores, [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])
    assert _close(path.query_weights_by_sum, [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])
    assert _close(path.query_weights, [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
    assert _close(path.query_context, [0.4419, 0.6515, 0.5683])
    assert _close(path.attn_scores[0], [0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310])
    assert _close(path.attn_weights[0], [0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452])
    assert _close(path.context[0], [0.4421, 0.5931, 0.5790])


def test_section_3_4_v1_and_v2_are_the_books_numbers_and_the_modules_own() -> None:
    v1 = self_attention_v1(BOOK_EMBEDDINGS)
    assert _close(v1.query, [0.4306, 1.4551])
    assert abs(v1.query_self_score - 1.8524) < 5e-5
    assert _close(v1.query_scores, [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])
    assert _close(v1.query_weights, [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])
    assert _close(v1.query_context, [0.3061, 0.8210])
    assert torch.equal(v1.context, _book_recipe(SelfAttention_v1, 123))
    assert torch.equal(v1.context, v1.module_output)

    v2 = self_attention_v2(BOOK_EMBEDDINGS)
    assert _close(v2.context[0], [-0.0739, 0.0713])
    assert _close(v2.context[5], [-0.0754, 0.0693])
    assert torch.equal(v2.context, v2.module_output)
    assert torch.equal(v2.context, _book_recipe(SelfAttention_v2, 789))
    assert _close(v2.masked_weights[1, :2], [0.5517, 0.4483])
    assert torch.all(v2.masked_weights[1, 2:] == 0)
    assert _close(v2.masked_weights[5], [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529])


def _book_recipe(cls: type[torch.nn.Module], seed: int) -> torch.Tensor:
    """What a reader of 3.4 types: ``torch.manual_seed(seed)``, build the class, call it."""
    torch.manual_seed(seed)
    with torch.no_grad():
        return cls(3, 2)(BOOK_EMBEDDINGS)


def test_the_diff_shows_the_books_changes_only() -> None:
    """Section 3.5's changes, read from the classes' source; type hints and comments are not
    changes (the unchanged ``keys = self.W_key(x)`` lines differ only in their shape comments)."""
    diff = causal_diff().splitlines()
    changes = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    added = [line[1:].strip() for line in changes if line.startswith("+")]
    removed = [line[1:].strip() for line in changes if line.startswith("-")]
    assert removed == [
        "class SelfAttention_v2(nn.Module):",
        "def __init__(self, d_in, d_out, qkv_bias=False):",
        "attn_scores = queries @ keys.T",
    ]
    assert added == [
        "class CausalAttention(nn.Module):",
        "def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):",
        "self.d_out = d_out",
        "self.dropout = nn.Dropout(dropout)",
        "self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), "
        "diagonal=1))",
        "b, num_tokens, d_in = x.shape",
        "attn_scores = queries @ keys.transpose(1, 2)",
        "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)",
        "attn_weights = self.dropout(attn_weights)",
    ]
    assert "         keys = self.W_key(x)" in diff, "an unchanged line stays unchanged"
    assert not any('"""' in line or "#" in line or "->" in line for line in diff)
    # presenter mode: two screens, __init__'s changes then forward's, every line on one of them
    init, forward = (half.splitlines() for half in diff_halves(causal_diff()))
    assert [text for text in init + forward if text.strip()] == [
        text for text in diff if text.strip()
    ]
    assert forward[0].strip() == "def forward(self, x):" and "register_buffer" in init[-1]


def test_page_shows_the_books_numbers_and_follows_the_embeddings() -> None:
    at = run_page("chapter_path")
    assert not at.exception
    tables = matrix_tables(at)
    assert list(tables["chapter_query_rows"].iloc[0]) == [
        "0.9544",
        "1.4950",
        "1.4754",
        "0.8434",
        "0.7070",
        "1.0865",
    ]
    assert list(tables["chapter_query_context"].iloc[0]) == ["0.4419", "0.6515", "0.5683"]
    assert list(tables["chapter_selfattention_v1_context"].iloc[1]) == ["0.3061", "0.8210"]
    assert list(tables["chapter_selfattention_v2_context"].iloc[0]) == ["−0.0739", "0.0713"]
    text = page_text(at)
    assert "[0.4306, 1.4551]" in text and "1.8524" in text
    assert "register_buffer" in text

    own = run_page("chapter_path", {"text": "a b c", "emb": "1,0,0;0,1,0;0,0,1"})
    assert not own.exception
    scores = matrix_tables(own)["chapter_simple_scores"]
    assert scores.iloc[0, 0] == "1.0000" and scores.iloc[0, 1] == "0.0000"
    assert "not the book's" in page_text(own)


def test_the_books_dropout_demo_is_drawn_with_the_vanished_row_and_the_printout_compared() -> None:
    """3.5.2 on the chapter's path: both draws computed here; "journey" (row 2) loses every
    weight with chance 0.5² = 0.25; the book's printouts are compared, not asserted."""
    from attention.book_outputs import PRINT_TOLERANCE, dropout_demo_differences
    from attention.chapter import dropout_demo

    at = run_page("chapter_path")
    assert not at.exception
    demo = dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5)
    tables = matrix_tables(at)
    shown = tables["chapter_dropout_weights"]
    assert list(shown.iloc[1]) == ["0.0000"] * 6, "the journey row is dropped whole"
    assert list(tables["chapter_dropout_ones"].iloc[0]) == [
        f"{value:.4f}" for value in demo.ones[0].tolist()
    ]
    text = page_text(at)
    assert "Every weight of “journey” (row 2) was dropped" in text
    assert "0.5² = 0.25" in text
    ones, weights = dropout_demo_differences(demo)
    if max(ones, weights) <= PRINT_TOLERANCE:
        assert "These are the book's two printouts, compared now" in text
    else:
        assert "This machine draws other masks than the book's printouts" in text


def test_the_page_and_its_deck_draw_the_same_pieces() -> None:
    """The page draws every section's parts one below another; presenter mode one part a screen
    (``ui.walk.Part``): the same tables and the same code in the same order, over 23 screens."""
    at = run_page("chapter_path")
    assert not at.exception
    page_tables = set(matrix_tables(at)) - {"chapter_inputs"}  # the page's top: its embeddings
    page_code = [block.value for block in at.code]
    at = run_page("chapter_path", {"present": "1"})
    deck_tables: set[str] = set()
    deck_code: list[str] = []
    for number in range(1, 24):
        counter = next(m.value for m in at.markdown if m.value.startswith("Screen "))
        assert counter.replace("*", "").startswith(f"Screen {number} of 23 · "), counter
        deck_tables |= set(matrix_tables(at))
        deck_code += [block.value for block in at.code]
        if number < 23:
            at.button(key="present_next").click().run()
            assert not at.exception
    assert at.button(key="present_next").disabled
    assert deck_tables == page_tables and deck_code == page_code
