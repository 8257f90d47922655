"""The fast path and the KV cache, measured: what the two pages beyond chapter 3 measure on demand.

Prints, for ``attention.fast_path.measure_fast_paths`` (the book's ``MultiHeadAttention(64, 64, T,
0.0, 2)``, SDPA with ``is_causal``, SDPA with an inverted boolean mask, ``nn.MultiheadAttention``
with the book's weights; one sequence of T tokens) the best time per forward pass and the peak
bytes of the tensors each path allocates, and for ``attention.kv_cache.time_generation`` (
the “Train it” page's tiny GPT, fresh weights, 100 new characters after a 16-character prompt) the time per token
with and without the cache. Also checks once, on this machine, whether SDPA with ``dropout_p > 0``
draws the same dropout mask as the book's ``nn.Dropout`` after the same ``torch.manual_seed``
(a script of its own may seed the global generator; the package never does).

Run from the repository root::

    python benchmarks/beyond_chapter3.py              # one thread, as the pages run
    python benchmarks/beyond_chapter3.py --threads 2
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from attention.fast_path import MEASURE_TOKENS, measure_fast_paths  # noqa: E402
from attention.kv_cache import default_prompt, time_generation  # noqa: E402


def dropout_masks_match() -> tuple[float, float]:
    """Largest difference book vs SDPA at p = 0.5 after the same seed: (is_causal, bool mask)."""
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 6, 4, generator=generator) for _ in range(3))
    mask_bool = torch.triu(torch.ones(6, 6), diagonal=1).bool()  # True = hide

    def book() -> torch.Tensor:
        attn_scores = (q @ k.transpose(2, 3)).masked_fill(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / 2.0, dim=-1)
        return F.dropout(attn_weights, 0.5, training=True) @ v

    torch.manual_seed(0)
    reference = book()
    torch.manual_seed(0)
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.5)
    torch.manual_seed(0)
    masked = F.scaled_dot_product_attention(q, k, v, attn_mask=~mask_bool, dropout_p=0.5)
    return float((causal - reference).abs().max()), float((masked - reference).abs().max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds for the fast paths")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"{platform.platform()}, {os.cpu_count()} CPU, torch {torch.__version__}, "
        f"{args.threads} thread(s), load {os.getloadavg()[0]:.1f}"
    )
    timings = measure_fast_paths(MEASURE_TOKENS, budget_s=args.budget)
    print("\npath | " + " | ".join(f"{n:,} tokens" for n in timings.token_counts))
    for path, seconds in timings.seconds.items():
        cells = (
            f"{s * 1000:.3g} ms, {b / 2**20:.3g} MiB"
            for s, b in zip(seconds, timings.peak_bytes[path], strict=True)
        )
        print(f"{path} | " + " | ".join(cells))
    if timings.skipped:
        print(f"skipped: {timings.skipped}")
    generation = time_generation(
        prompt_tokens=default_prompt(), new_tokens=100, seed=123, budget_s=30.0
    )
    print(
        f"\ngeneration, 100 tokens: {generation.seconds_with_cache * 1000:.2f} ms/token with the "
        f"cache, {generation.seconds_without_cache * 1000:.2f} without ({generation.runs} runs)"
    )
    causal, masked = dropout_masks_match()
    print(f"\ndropout 0.5, same seed, SDPA vs the book: is_causal {causal:.1e}, mask {masked:.1e}")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
