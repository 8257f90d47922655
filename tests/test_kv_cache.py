"""The KV cache: the same tokens as without it, rows that grow one token at a time, the right mask row."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from attention import AttentionInputError
from attention.examples import BOOK_EMBEDDINGS
from attention.fast_path import _PeakTensorBytes, fast_path_outputs
from attention.kv_cache import (
    GENERATION_CONTEXT,
    LayerCache,
    attend_with_cache,
    cache_bytes,
    cache_growth,
    compare_generation,
    mask_slice_slip,
    through_cache,
    time_generation,
)
from attention.modules import CausalAttention, MultiHeadAttention
from attention.randomness import draws_from, private_generator
from tests.cases import subcases

GPT2_CACHE_BYTES = 75_497_472  # 2 × 12 layers × 1,024 tokens × 768 × 4 bytes (issue 31)
PROMPT = [20, 17, 14, 1, 24, 23, 17, 13, 28, 17]  # ten token ids of the text task's vocabulary


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    """One intra-op thread: a tiny model generates several times faster on a busy 2-core machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("seed", [0, 123])
def test_generation_with_and_without_the_cache_gives_the_same_tokens(seed: int) -> None:
    with_cache, without_cache = compare_generation(prompt_tokens=PROMPT, new_tokens=12, seed=seed)
    assert len(with_cache) == 12
    assert with_cache == without_cache
    assert all(0 <= token < 40 for token in with_cache)  # the text task's 40 characters


def test_the_cache_grows_one_row_per_token_and_gives_the_full_passs_rows() -> None:
    steps = cache_growth(BOOK_EMBEDDINGS, d_out=2, num_heads=2, seed=123)
    full = fast_path_outputs(BOOK_EMBEDDINGS, d_out=2, num_heads=2, seed=123).book[0]  # (6, 2)
    assert [step.keys.shape for step in steps] == [torch.Size([2, n, 1]) for n in range(1, 7)]
    assert [step.attn_weights.shape[-1] for step in steps] == list(range(1, 7))
    last = steps[-1]
    for step in steps:
        n = step.position + 1
        assert torch.equal(last.keys[:, :n], step.keys)  # earlier rows never change
        assert torch.equal(last.values[:, :n], step.values)
        assert torch.allclose(step.context_vec, full[step.position], atol=1e-6)
        assert step.difference <= 1e-6


def test_the_mask_slice_slip_gives_the_first_tokens_row_not_the_last() -> None:
    slip = mask_slice_slip(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    full = fast_path_outputs(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123).book[0]
    assert slip.right_mask.tolist() == [[False] * 6]  # mask[5:6, :6]: nothing in the future
    assert slip.slipped_mask.tolist() == [[False] + [True] * 5]  # mask[:1, :6]: row 0
    assert torch.allclose(slip.right_output, full[5], atol=1e-6)
    assert torch.allclose(slip.slipped_output, full[0], atol=1e-6)  # it sees "Your" only
    assert slip.difference > 0.05
    with pytest.raises(AttentionInputError, match="at least 2 tokens"):
        mask_slice_slip(BOOK_EMBEDDINGS[:1], d_out=2, num_heads=1, seed=123)


@pytest.mark.parametrize(("d_out", "heads", "seed"), [(2, 1, 123), (4, 2, 7)])
def test_through_a_cache_the_right_slice_is_the_full_pass_and_the_slip_moves_the_last_row(
    d_out: int, heads: int, seed: int
) -> None:
    """PR #697: the first five tokens in one pass, then the last alone, through a KV cache."""
    with draws_from(private_generator(seed)):
        layer = MultiHeadAttention(3, d_out, 6, 0.0, heads).eval()
    x = BOOK_EMBEDDINGS[None]  # (1, 6, 3)
    with torch.no_grad():
        full, right = layer(x), through_cache(layer, x)
        slip = through_cache(layer, x, slip=True)
    torch.testing.assert_close(right["output"], full, rtol=0, atol=1e-6)  # float rounding only
    assert torch.equal(slip["output"][:, :5], right["output"][:, :5])  # the prompt: one pass, q = n
    assert float((slip["output"][0, 5] - right["output"][0, 5]).abs().max()) > 0.01
    causal = torch.ones(6, 6).triu(1).bool()
    assert torch.equal(right["mask"], causal)  # the rows of the queries' positions
    assert slip["mask"][5].tolist() == [False] + [True] * 5  # mask[:1, :6]: row 0
    assert bool(right["attn_scores"][0, :, :5, 5].isnan().all())  # key 6 was not cached yet
    assert bool(right["attn_weights"][0, :, :5, 5].eq(0).all())


def test_one_token_through_a_cache_is_one_pass_and_a_single_head_class_is_refused() -> None:
    with draws_from(private_generator(0)):
        layer = MultiHeadAttention(3, 2, 6, 0.0, 1).eval()
    x = BOOK_EMBEDDINGS[None, :1]
    with torch.no_grad():
        assert torch.equal(through_cache(layer, x, slip=True)["output"], layer(x))
    with pytest.raises(AttentionInputError, match="layer"):
        through_cache(CausalAttention(3, 2, 6, 0.0), x)
    with pytest.raises(AttentionInputError, match="1 to 6 tokens"):
        through_cache(layer, torch.zeros(1, 7, 3))


def test_cache_bytes_is_the_formula_for_gpt2_and_grouped_query_attention() -> None:
    assert cache_bytes(layers=12, tokens=1024, d_model=768) == GPT2_CACHE_BYTES
    assert cache_bytes(layers=12, tokens=1024, d_model=768, heads=12, kv_heads=12) == (
        GPT2_CACHE_BYTES
    )
    assert cache_bytes(layers=12, tokens=1024, d_model=768, heads=12, kv_heads=4) == (
        GPT2_CACHE_BYTES // 3
    )
    assert cache_bytes(layers=12, tokens=1024, d_model=768, heads=12, kv_heads=1) == 6_291_456
    assert cache_bytes(layers=1, tokens=6, d_model=2) == 2 * 6 * 2 * 4  # the chapter's layer
    assert cache_bytes(layers=2, tokens=10, d_model=8, bytes_per_value=2, batch=3) == (
        2 * 3 * 2 * 10 * 8 * 2
    )


@subcases(
    ("kwargs", "match"),
    [
        ({"kv_heads": 4}, "both heads and kv_heads"),
        ({"heads": 12, "kv_heads": 5}, "must divide heads"),
        ({"heads": 12, "kv_heads": 13}, "kv_heads"),
        ({"bytes_per_value": 0}, "bytes_per_value"),
    ],
)
def test_cache_bytes_names_a_bad_setting(kwargs: dict[str, int], match: str) -> None:
    with pytest.raises(AttentionInputError, match=match):
        cache_bytes(layers=12, tokens=1024, d_model=768, **kwargs)


def test_generation_refuses_tokens_outside_the_vocabulary_or_the_context() -> None:
    with pytest.raises(AttentionInputError, match=r"prompt_tokens\[1\]"):
        compare_generation(prompt_tokens=[1, 999], new_tokens=2, seed=0)
    with pytest.raises(AttentionInputError, match="new_tokens"):
        compare_generation(prompt_tokens=PROMPT, new_tokens=GENERATION_CONTEXT, seed=0)
    with pytest.raises(AttentionInputError, match="at least one token"):
        compare_generation(prompt_tokens=[], new_tokens=2, seed=0)


def test_timing_stops_at_its_budget() -> None:
    timings = time_generation(prompt_tokens=PROMPT, new_tokens=2, seed=0, budget_s=0.0)
    assert timings.runs == 1 and timings.stopped_by_budget
    assert timings.seconds_with_cache > 0 and timings.seconds_without_cache > 0


def test_cache_growth_is_sized_by_its_cost_and_bounded_in_memory() -> None:
    """4,096 tokens one at a time once went past 6 GiB (a (T, T) mask copy per token, a cache
    copy per step): now the tensors alive at once stay near one full pass's, and a growth whose
    copies and weights do not fit is refused before anything is built."""
    x = torch.randn(4096, 3, generator=private_generator(0))
    counter = _PeakTensorBytes()
    with counter:
        steps = cache_growth(x, d_out=2, num_heads=1, seed=0)
    assert len(steps) == 4096 and steps[-1].difference < 1e-4
    assert counter.peak < 512 * 2**20, counter.peak  # one (T, T) float32 matrix: 64 MiB
    with pytest.raises(AttentionInputError, match="one at a time is too large") as refused:
        cache_growth(x, d_out=64, num_heads=4, seed=0)
    assert refused.value.code == "cache_growth_too_large"


@subcases(
    ("case", "match"),
    [
        ("past the context", "would go past the layer's context_length 6"),
        ("another layer's cache", r"cache.keys must be a float32 tensor \(1, 2, n, 1\)"),
        ("NaN", "x_new holds NaN, infinite or too large values"),
        ("no tokens", r"x_new must be \(b, q, 3\) with at least one token"),
    ],
)
def test_attend_with_cache_names_what_it_cannot_run(case: str, match: str) -> None:
    with draws_from(private_generator(0)):
        layer = MultiHeadAttention(3, 2, 6, 0.0, 2).eval()
        other = MultiHeadAttention(3, 4, 6, 0.0, 1).eval()
    cache = LayerCache()
    x = BOOK_EMBEDDINGS[None]  # (1, 6, 3)
    if case == "past the context":
        attend_with_cache(layer, x[:, :4], cache)
        x_new = x[:, 4:6].repeat(1, 2, 1)  # 4 more tokens after 4: 8 > 6
    elif case == "another layer's cache":
        attend_with_cache(other, x[:, :2], cache)
        x_new = x[:, 2:3]
    else:
        x_new = x[:, :1].clone() if case == "NaN" else x[:, :0]
        x_new[..., 1:] = float("nan")  # (nothing to fill when there are no tokens)
    with pytest.raises(AttentionInputError, match=match):
        attend_with_cache(layer, x_new, cache)


def test_whole_numbers_and_float64_go_through_a_cache_as_float32() -> None:
    with draws_from(private_generator(0)):
        layer = MultiHeadAttention(3, 2, 6, 0.0, 2).eval()
    whole = torch.tensor([[[1, 2, 3], [4, 5, 6], [0, 1, 0]]])  # int64
    with torch.no_grad():
        expected = through_cache(layer, whole.float())["output"]
        assert torch.equal(through_cache(layer, whole)["output"], expected)
        assert torch.equal(through_cache(layer, whole.double())["output"], expected)
        cached = attend_with_cache(layer, whole.double(), LayerCache()).context_vec
    assert cached.dtype == torch.float32
    with pytest.raises(AttentionInputError, match="x holds NaN"):
        through_cache(layer, torch.full((1, 2, 3), float("nan")))
