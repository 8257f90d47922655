"""attention.dropout: the scale of kept weights and the kept/dropped counts the pages print."""

from __future__ import annotations

import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.dropout import DropoutCounts, count_kept, dropout_counts, dropout_scale
from attention.examples import BOOK_EMBEDDINGS
from tests.book_recipe import book_module, random_inputs
from tests.cases import subcases


def book_dropped_weights(inputs: torch.Tensor, *, seed: int, p: float) -> torch.Tensor:
    """The book's recipe, and what its ``self.dropout(attn_weights)`` returned: ``(1, T, T)``."""
    seen: list[torch.Tensor] = []
    module = book_module(
        inputs.shape[-1], d_out=2, seed=seed, context_length=inputs.shape[0], dropout=p
    )
    module.dropout.register_forward_hook(lambda _layer, _args, output: seen.append(output))
    with torch.no_grad():
        module(inputs.unsqueeze(0))
    return seen[0]


def test_dropout_scale_is_one_over_one_minus_p() -> None:
    assert dropout_scale(0.5) == 2.0  # the book's nn.Dropout(0.5): kept ones become 2.0
    assert dropout_scale(0.0) == 1.0
    assert dropout_scale(0.2) == pytest.approx(1.25)
    assert dropout_scale(1.0) == 0.0  # everything dropped: PyTorch multiplies by 0


@subcases(("seed", "p"), [(123, 0.5), (7, 0.2)])
def test_counts_equal_the_nonzero_weights_of_the_books_dropout(seed: int, p: float) -> None:
    dropped = book_dropped_weights(BOOK_EMBEDDINGS, seed=seed, p=p)[0]  # (6, 6)
    visible = torch.tril(torch.ones(6, 6, dtype=torch.bool))  # softmax > 0 there: 0 = dropped
    kept = int((dropped[visible] != 0).sum())
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=seed, dropout=p))
    assert dropout_counts(trace) == DropoutCounts(visible=21, kept=kept, dropped=21 - kept)
    assert 0 < kept < 21  # both kinds occur, so a swapped count would fail


def test_the_rows_counts_add_up_to_the_matrix_count() -> None:
    trace = trace_attention(random_inputs((9, 3), seed=1), AttentionConfig(dropout=0.5))
    rows = [dropout_counts(trace, query=i) for i in range(9)]
    assert [row.visible for row in rows if row] == list(range(1, 10))  # row i sees i + 1 keys
    whole = dropout_counts(trace)
    assert whole is not None
    assert sum(row.kept for row in rows if row) == whole.kept
    last = trace.dropout_mask[0, 8]  # (9,): the last row sees every key
    assert rows[8] == DropoutCounts(9, int(last.sum()), 9 - int(last.sum()))


def test_future_positions_are_never_counted() -> None:
    keep = torch.ones(4, 4, dtype=torch.bool)  # everything kept, the future too
    mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
    assert count_kept(keep, mask) == DropoutCounts(visible=10, kept=10, dropped=0)
    assert count_kept(~keep, mask) == DropoutCounts(visible=10, kept=0, dropped=10)
    assert count_kept(keep[1], mask[1]) == DropoutCounts(visible=2, kept=2, dropped=0)


def test_no_counts_when_dropout_does_nothing() -> None:
    assert dropout_counts(trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.0))) is None
    eval_mode = AttentionConfig(dropout=0.5, training=False)
    assert dropout_counts(trace_attention(BOOK_EMBEDDINGS, eval_mode)) is None


def test_several_heads_add_up_over_the_heads() -> None:
    cfg = AttentionConfig(dropout=0.5, num_heads=2, d_out=4)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    counts = dropout_counts(trace)
    assert counts is not None and counts.visible == 2 * 21
    visible = ~trace.mask  # (6, 6)
    assert counts.kept == sum(int(trace.dropout_mask[0, h][visible].sum()) for h in range(2))


def test_a_row_dropped_whole_is_named_with_its_chance_and_a_zero_context() -> None:
    """At p = 0.5, seed 1 drops every weight of "starts" (row 3: 3 visible keys, chance 0.5³)
    and seed 6 the single weight of "Your" (chance 0.5); their context vectors are exactly 0."""
    from attention.dropout import dropped_rows

    for seed, query, visible in ((1, 2, 3), (6, 0, 1)):
        trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=seed))
        rows = dropped_rows(trace)
        assert [(row.query, row.visible) for row in rows] == [(query, visible)]
        assert rows[0].chance == 0.5**visible
        assert torch.equal(trace.context[0][query], torch.zeros(2))
        others = [i for i in range(6) if i != query]
        assert bool(trace.dropped_weights[0][others].sum(dim=-1).gt(0).all())


def test_no_row_is_dropped_without_dropout_or_in_eval_mode() -> None:
    from attention.dropout import dropped_rows

    for cfg in (
        AttentionConfig(dropout=0.0, seed=1),
        AttentionConfig(dropout=0.5, seed=1, training=False),
    ):
        assert dropped_rows(trace_attention(BOOK_EMBEDDINGS, cfg)) == ()


def test_dropped_rows_are_per_head() -> None:
    """With two heads a row can vanish in one head only (its half of the concatenation)."""
    from attention.dropout import dropped_rows

    cfg = AttentionConfig(dropout=0.5, seed=1, num_heads=2, d_out=4)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    for row in dropped_rows(trace):
        kept = trace.dropout_mask[0][row.head, row.query, : row.query + 1]
        assert not bool(kept.any())


def test_the_layers_mask_comes_after_its_weights_so_it_is_not_the_books_bare_draw() -> None:
    """Seed 123, p = 0.5: the bare draw is the book's 3.5.2 demo mask (``dropout_demo``'s ones);
    the trace's mask is the draw that follows the layer's W_query, W_key and W_value, and the
    count is the visible cells where the two differ."""
    from attention.chapter import dropout_demo
    from attention.dropout import bare_draw_differences
    from attention.modules import CausalAttention
    from attention.randomness import draws_from, dropout_noise, private_generator

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=123))
    generator = private_generator(123)
    with draws_from(generator):
        CausalAttention(3, 2, 6, 0.5)  # the weights come first
    after_weights = dropout_noise(torch.ones(1, 6, 6), 0.5, generator) != 0  # (1, 6, 6)
    assert torch.equal(trace.dropout_mask, after_weights)
    bare = dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5).ones != 0  # (6, 6)
    differing = int(((trace.dropout_mask[0] != bare) & ~trace.mask).sum())
    assert bare_draw_differences(trace) == differing > 0
    no_dropout = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, training=False))
    assert bare_draw_differences(no_dropout) is None
