"""The book's example sentence and embeddings, and reproducible embeddings for any other words.

:func:`embed_words` gives a word a vector that depends only on the word, ``d_in`` and the seed (a
SHA-256 hash, not Python's per-process ``hash``): the same in every run and on every machine.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

import torch

from .validate import MAX_WIDTH, check_instance, check_int, check_words

__all__ = [
    "BOOK_TOKENS",
    "BOOK_EMBEDDINGS",
    "BOOK_SENTENCE",
    "embed_words",
    "split_words",
    "unique_labels",
]

BOOK_TOKENS: tuple[str, ...] = ("Your", "journey", "starts", "with", "one", "step")
BOOK_SENTENCE = " ".join(BOOK_TOKENS)

BOOK_EMBEDDINGS = torch.tensor(
    [
        [0.43, 0.15, 0.89],  # Your     (x^1)
        [0.55, 0.87, 0.66],  # journey  (x^2)
        [0.57, 0.85, 0.64],  # starts   (x^3)
        [0.22, 0.58, 0.33],  # with     (x^4)
        [0.77, 0.25, 0.10],  # one      (x^5)
        [0.05, 0.80, 0.55],  # step     (x^6)
    ]
)  # (6, 3)

_BOOK_VECTORS = {token: BOOK_EMBEDDINGS[i] for i, token in enumerate(BOOK_TOKENS)}


def split_words(text: str) -> list[str]:
    """Split a sentence into tokens on whitespace (the app's simple tokenizer)."""
    check_instance("text", text, str)
    return text.split()


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """Labels that tell repeated tokens apart: ``the``, ``cat``, ``the·2`` (as the app shows them)."""
    tokens = check_words(tokens, limit=None)
    counts = Counter(tokens)
    seen: Counter[str] = Counter()
    labels = []
    for token in tokens:
        seen[token] += 1
        labels.append(token if counts[token] == 1 or seen[token] == 1 else f"{token}·{seen[token]}")
    return labels


def _word_vector(word: str, d_in: int, seed: int) -> torch.Tensor:
    digest = hashlib.sha256(f"{seed}\x00{d_in}\x00{word}".encode()).digest()
    generator = torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))
    values = torch.rand(d_in, generator=generator)  # uniform in [0, 1), like the book's values
    return torch.round(values * 100) / 100  # two decimals, easy to read and to type


def embed_words(words: Sequence[str], d_in: int = 3, seed: int = 0) -> torch.Tensor:
    """Embeddings ``(len(words), d_in)`` for any words, the same in every run: with ``d_in == 3``
    the book's words keep its vectors; others get values in [0, 1) (two decimals) from a
    generator seeded by a hash of (seed, d_in, word).
    """
    words = check_words(words)
    d_in = check_int("d_in", d_in, 1, MAX_WIDTH, "the number of values per word")
    seed = check_int("seed", seed, -(2**63), 2**64 - 1, "a whole number")
    if d_in < 1:
        raise ValueError(f"d_in must be at least 1, got {d_in}.")
    rows = []
    for word in words:
        if d_in == 3 and word in _BOOK_VECTORS:
            rows.append(_BOOK_VECTORS[word].clone())
        else:
            rows.append(_word_vector(word, d_in, seed))
    if not rows:
        return torch.empty(0, d_in)
    return torch.stack(rows)  # (T, d_in)
