"""attention.head_split: one rule for splitting d_out into heads, the one the book's class asserts."""

from __future__ import annotations

import pytest

from attention import AttentionConfig, AttentionInputError
from attention.head_split import splits_evenly, valid_head_counts, valid_widths
from attention.modules import MultiHeadAttention
from tests.cases import subcases


def book_class_accepts(d_out: int, num_heads: int) -> bool:
    """Whether the book's ``MultiHeadAttention`` constructor passes its own assert."""
    try:
        MultiHeadAttention(3, d_out, 6, 0.0, num_heads)
    except AssertionError:
        return False
    return True


def test_the_rule_is_the_books_assert() -> None:
    for d_out in range(1, 9):
        for num_heads in range(1, 9):
            assert splits_evenly(d_out, num_heads) == book_class_accepts(d_out, num_heads)


def test_valid_values_are_divisors_and_multiples() -> None:
    assert valid_head_counts(6, 8) == [1, 2, 3, 6]
    assert valid_head_counts(2, 8) == [1, 2]  # the book's d_out = 2: one or two heads
    assert valid_head_counts(7, 8) == [1, 7]
    assert valid_widths(3, 8) == [3, 6]
    assert valid_widths(2, 8) == [2, 4, 6, 8]
    assert valid_widths(1, 3) == [1, 2, 3]
    assert valid_widths(9, 8) == []  # more heads than the widest d_out


@subcases(("d_out", "num_heads"), [(3, 2), (4, 3), (2, 4)])
def test_the_config_refuses_what_does_not_split_for_the_fused_class_only(
    d_out: int, num_heads: int
) -> None:
    fused = AttentionConfig(d_out=d_out, num_heads=num_heads, variant="fused")
    with pytest.raises(AttentionInputError, match="divisible by num_heads") as error:
        fused.validated(6)
    assert error.value.field == "d_out"
    wrapper = AttentionConfig(d_out=d_out, num_heads=num_heads, variant="wrapper")
    assert wrapper.validated(6).num_heads == num_heads  # each wrapper head has d_out outputs
