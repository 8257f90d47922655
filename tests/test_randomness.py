"""attention.randomness: private generators give the book's draws and leave the global one alone."""

from __future__ import annotations

import pytest
import torch

from attention.modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttention_v1,
    SelfAttention_v2,
)
from attention.randomness import (
    UnroutedRandomDrawError,
    build_seeded,
    draws_from,
    dropout_noise,
    private_generator,
)
from tests.cases import subcases

BUILDERS = [
    ("SelfAttention_v1", lambda: SelfAttention_v1(3, 2)),
    ("SelfAttention_v2", lambda: SelfAttention_v2(3, 2, qkv_bias=True)),
    ("CausalAttention", lambda: CausalAttention(3, 2, 6, 0.5)),
    ("MultiHeadAttentionWrapper", lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=3)),
    ("MultiHeadAttention", lambda: MultiHeadAttention(5, 4, 9, 0.1, num_heads=2, qkv_bias=True)),
]


@subcases(("name", "build"), BUILDERS, ids=[name for name, _ in BUILDERS])
@subcases("seed", [0, 123, 2**64 - 1])
def test_build_seeded_gives_the_weights_of_torch_manual_seed(name, build, seed) -> None:
    torch.manual_seed(seed)
    book = build()
    torch.manual_seed(31)
    before = torch.get_rng_state()
    private = build_seeded(seed, build)
    assert torch.equal(torch.get_rng_state(), before), "the global generator moved"
    book_state, private_state = book.state_dict(), private.state_dict()
    assert list(book_state) == list(private_state)
    for key, value in book_state.items():
        assert torch.equal(value, private_state[key]), f"{name}.{key}"


@subcases("p", [0.1, 0.5, 0.9, 1.0])
def test_dropout_noise_is_bitwise_nn_dropout(p: float) -> None:
    weights = torch.rand(2, 7, 7, generator=private_generator(3))
    torch.manual_seed(11)
    book = torch.nn.Dropout(p)(weights)
    assert torch.equal(weights * dropout_noise(weights, p, private_generator(11)), book)


def test_a_dropout_call_inside_draws_from_is_refused_not_silently_global() -> None:
    with pytest.raises(UnroutedRandomDrawError, match="dropout_noise"):
        with draws_from(private_generator(0)):
            torch.nn.Dropout(0.5)(torch.ones(3))


def test_other_threads_are_not_routed_while_one_thread_builds() -> None:
    from concurrent.futures import ThreadPoolExecutor

    generator = private_generator(5)
    torch.manual_seed(8)
    expected = torch.rand(4)
    torch.manual_seed(8)
    with draws_from(generator), ThreadPoolExecutor(max_workers=1) as pool:
        seen = pool.submit(torch.rand, 4).result(timeout=30)  # another thread: global generator
    assert torch.equal(seen, expected)
