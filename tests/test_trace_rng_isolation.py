"""Randomness stays private: the global generator is untouched and threads do not disturb each other."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention import trace as trace_module
from tests.book_recipe import BOOK_BATCH, random_inputs
from tests.cases import subcases

ISOLATION_CONFIGS = [
    AttentionConfig(),
    AttentionConfig(dropout=0.5, seed=7),
    AttentionConfig(d_out=4, dropout=0.3, num_heads=2, seed=2**64 - 1),
    AttentionConfig(d_out=2, dropout=0.9, num_heads=3, variant="wrapper", qkv_bias=True),
]


@subcases("cfg", ISOLATION_CONFIGS)
def test_global_rng_state_is_identical_before_and_after_a_trace(cfg: AttentionConfig) -> None:
    torch.manual_seed(2024)
    torch.rand(3)  # move away from a freshly seeded state
    before = torch.get_rng_state()
    trace_attention(BOOK_BATCH, cfg)
    assert torch.equal(torch.get_rng_state(), before)


def test_random_numbers_after_a_trace_are_those_without_it() -> None:
    torch.manual_seed(99)
    without_trace = torch.rand(10)
    torch.manual_seed(99)
    trace_attention(BOOK_BATCH, AttentionConfig(dropout=0.5, seed=1))
    with_trace = torch.rand(10)
    assert torch.equal(with_trace, without_trace)


def test_a_trace_never_reads_or_writes_the_global_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Replacing the global state mid-trace (as another thread might) changes nothing."""
    expected = trace_attention(BOOK_BATCH, AttentionConfig(seed=5, dropout=0.5))
    real_steps = trace_module.run_forward

    def steps_after_a_foreign_reseed(*args: object, **kwargs: object) -> object:
        torch.manual_seed(999)  # what an unrelated thread could do between init and dropout
        torch.rand(100)
        return real_steps(*args, **kwargs)

    monkeypatch.setattr(trace_module, "run_forward", steps_after_a_foreign_reseed)
    again = trace_attention(BOOK_BATCH, AttentionConfig(seed=5, dropout=0.5))
    assert torch.equal(again.output, expected.output)
    assert torch.equal(again.dropout_mask, expected.dropout_mask)


def test_the_package_has_no_global_rng_lock() -> None:
    import attention

    assert not hasattr(attention, "GLOBAL_RNG_LOCK")
    assert not hasattr(trace_module, "_RNG_LOCK")


def test_trace_does_not_depend_on_the_callers_rng_state() -> None:
    cfg = AttentionConfig(dropout=0.5, seed=42)
    torch.manual_seed(0)
    first = trace_attention(BOOK_BATCH, cfg).output
    torch.manual_seed(1)
    torch.rand(1000)
    second = trace_attention(BOOK_BATCH, cfg).output
    assert torch.equal(first, second)


THREAD_INPUTS = random_inputs((2, 24, 8), seed=1)
THREAD_CONFIGS = [
    AttentionConfig(
        d_out=4,
        seed=seed,
        dropout=(0.0, 0.1, 0.5, 0.9)[seed % 4],
        num_heads=(1, 2)[seed % 2],
        variant=("fused", "wrapper")[(seed // 2) % 2],
    )
    for seed in range(40)
]


def _sequential_outputs() -> list[torch.Tensor]:
    return [trace_attention(THREAD_INPUTS, cfg).output for cfg in THREAD_CONFIGS]


def test_concurrent_traces_from_eight_threads_equal_sequential_traces() -> None:
    expected = _sequential_outputs()
    for _ in range(3):
        with ThreadPoolExecutor(max_workers=8) as pool:
            outputs = list(
                pool.map(lambda cfg: trace_attention(THREAD_INPUTS, cfg).output, THREAD_CONFIGS)
            )
        for index, (output, want) in enumerate(zip(outputs, expected, strict=True)):
            assert torch.equal(output, want), THREAD_CONFIGS[index]


def test_concurrent_traces_keep_their_dropout_masks_apart() -> None:
    cfgs = [AttentionConfig(d_out=2, seed=seed, dropout=0.5) for seed in range(16)]
    expected = [trace_attention(BOOK_BATCH, cfg).dropout_mask for cfg in cfgs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        masks = list(pool.map(lambda cfg: trace_attention(BOOK_BATCH, cfg).dropout_mask, cfgs))
    for mask, want in zip(masks, expected, strict=True):
        assert torch.equal(mask, want)
    assert not all(torch.equal(masks[0], other) for other in masks[1:])  # seeds differ


def test_traces_and_a_thread_using_the_global_generator_do_not_disturb_each_other() -> None:
    """A thread drawing from torch's global generator, with no lock, while 12 threads trace.

    Neither side may see the other: every trace equals its sequential result, and the thread's
    own stream (seeded once, then drawn from over and over) is exactly the stream it would get
    alone. Before the generator was private, 68–212 of 480 traces differed and thousands of the
    thread's values repeated (the trace rewound its stream).
    """
    expected = _sequential_outputs()
    draws_per_chunk = 64
    stop = threading.Event()
    seen: list[torch.Tensor] = []
    started = threading.Event()

    def use_global_generator() -> None:
        torch.manual_seed(2026)
        started.set()
        while not stop.is_set():
            seen.append(torch.rand(draws_per_chunk))

    user = threading.Thread(target=use_global_generator)
    user.start()
    started.wait(timeout=30)
    try:
        with ThreadPoolExecutor(max_workers=12) as pool:
            outputs = list(
                pool.map(lambda cfg: trace_attention(THREAD_INPUTS, cfg).output, THREAD_CONFIGS * 3)
            )
    finally:
        stop.set()
        user.join(timeout=60)
    mismatches = sum(not torch.equal(a, b) for a, b in zip(outputs, expected * 3, strict=True))
    assert mismatches == 0, f"{mismatches} of {len(outputs)} traces changed"
    torch.manual_seed(2026)
    alone = torch.rand(draws_per_chunk * len(seen))  # the stream the thread gets on its own
    assert torch.equal(torch.cat(seen), alone), "the thread's own random stream was disturbed"
