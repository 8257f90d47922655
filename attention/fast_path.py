"""PyTorch's fast paths against the book's ``MultiHeadAttention``: same weights, same numbers.

Each path keeps the book's projections, head split, head merge and ``out_proj`` and replaces the
steps in between by one call: ``F.scaled_dot_product_attention`` (SDPA) or
``nn.MultiheadAttention``::

    compare_fast_paths(BOOK_EMBEDDINGS, d_out=2, num_heads=1, seed=123)
    # {"sdpa_is_causal": 6e-08, ..., "sdpa_book_mask": 0.2...}   (the slip)

Masks: the book's and ``nn.MultiheadAttention``'s boolean mask mean ``True`` = hide; SDPA's means
``True`` = attend, so the book's mask goes to SDPA inverted. Passed unchanged
(``"sdpa_book_mask"``), every query sees exactly the keys the book hides.

Dropout: SDPA and ``nn.MultiheadAttention`` draw from torch's global generator (no
``generator=``), so the paths are compared at dropout 0. On a GPU SDPA's fused kernels draw
their masks tile by tile, so even one seed need not give the book's masks (PyTorch #149726).

:func:`measure_fast_paths` is bounded (fixed sizes, a time budget). Its peak memory counts the
tensors a path allocates (a ``TorchDispatchMode``, per thread): the book's path keeps
``(b, h, T, T)`` scores, SDPA with ``is_causal`` need not; a fused kernel's scratch is not seen.
"""

from __future__ import annotations

import inspect
import math
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from .modules import MultiHeadAttention
from .randomness import build_seeded, private_generator
from .trace import AttentionConfig, checked_inputs
from .validate import (
    MAX_TOKENS,
    MAX_WIDTH,
    AttentionInputError,
    check_attention_size,
    check_int,
    check_list,
    check_real,
    describe,
)

__all__ = [
    "BOOK_TIMINGS_MS",
    "BOOK_TIMINGS_SOURCE",
    "MEASURE_TOKENS",
    "PATHS",
    "SLIP",
    "FastPathOutputs",
    "FastPathTimings",
    "book_module",
    "book_source",
    "compare_fast_paths",
    "fast_path_outputs",
    "measure_fast_paths",
    "path_source",
]

PathFunction = Callable[[MultiHeadAttention, torch.Tensor], torch.Tensor]

MEASURE_TOKENS = (6, 64, 256, 1024, 4096)  # the page's sizes: the chapter's six tokens … 4,096
MEASURE_WIDTH = 64  # d_in = d_out of the measured layer
MEASURE_HEADS = 2  # 2 heads × 4096² float32 scores: 128 MiB per (b, h, T, T) tensor
FLOAT_ERROR = 1e-5  # a difference below this is float rounding, not another result

# The book's own recorded timings (forward pass, ms; batch 8 × 1,024 tokens × 768, 12 heads):
# rasbt/LLMs-from-scratch, ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb,
# sections 10.1 (M3 MacBook Air CPU, PyTorch 2.4.0) and 10.2 (Nvidia A100, PyTorch 2.6.0).
BOOK_TIMINGS_SOURCE = (
    "https://github.com/rasbt/LLMs-from-scratch/blob/main/"
    "ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb"
)
BOOK_TIMINGS_MS: tuple[tuple[str, float, float], ...] = (  # (path, M3 CPU, A100)
    ("book", 166.0, 3.08),  # 2) the multi-head attention class from chapter 3
    ("sdpa_is_causal", 110.0, 1.1),  # 5) SDPA, is_causal=True
    ("sdpa_bool_mask", 99.5, 1.8),  # 6) SDPA with an explicit mask (no FlashAttention)
    ("nn_multihead_attention", 168.0, 2.13),  # 8) nn.MultiheadAttention, need_weights=False
)


# --- the paths: the book's steps before and after, one call in between ------------------------


def split_heads(
    module: MultiHeadAttention, x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The book's projections and head split: queries, keys, values, each ``(b, h, T, head_dim)``."""
    b, num_tokens, _ = x.shape

    def heads(t: torch.Tensor) -> torch.Tensor:  # (b, T, d_out) -> (b, h, T, head_dim)
        return t.view(b, num_tokens, module.num_heads, module.head_dim).transpose(1, 2)

    return heads(module.W_query(x)), heads(module.W_key(x)), heads(module.W_value(x))


def merge_heads(module: MultiHeadAttention, context: torch.Tensor) -> torch.Tensor:
    """The book's head merge and ``out_proj``: ``(b, h, T, head_dim)`` -> ``(b, T, d_out)``."""
    b, _, num_tokens, _ = context.shape
    context_vec = context.transpose(1, 2).contiguous().view(b, num_tokens, module.d_out)
    return module.out_proj(context_vec)


def sdpa_is_causal(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """SDPA builds the causal mask itself: no mask tensor at all."""
    queries, keys, values = split_heads(module, x)  # (b, h, T, head_dim)
    context = F.scaled_dot_product_attention(queries, keys, values, is_causal=True)
    return merge_heads(module, context)  # (b, T, d_out)


def sdpa_bool_mask(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """SDPA with an explicit boolean mask: the book's ``True = hide`` inverted to ``True = attend``."""
    queries, keys, values = split_heads(module, x)  # (b, h, T, head_dim)
    num_tokens = x.shape[1]
    mask_bool = module.mask.bool()[:num_tokens, :num_tokens]  # the book's: True = hide
    context = F.scaled_dot_product_attention(queries, keys, values, attn_mask=~mask_bool)
    return merge_heads(module, context)


def sdpa_book_mask(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """The slip: the book's ``True = hide`` mask given to SDPA, which reads ``True = attend``."""
    queries, keys, values = split_heads(module, x)  # (b, h, T, head_dim)
    num_tokens = x.shape[1]
    mask_bool = module.mask.bool()[:num_tokens, :num_tokens]  # True = hide ... to the book
    context = F.scaled_dot_product_attention(queries, keys, values, attn_mask=mask_bool)
    return merge_heads(module, context)


def torch_multihead_attention(module: MultiHeadAttention, d_in: int) -> nn.MultiheadAttention:
    """``nn.MultiheadAttention`` holding the book's weights (built on ``meta``: nothing drawn); when
    ``d_in != d_out`` its query projection is the identity and the caller applies ``W_query``.
    """
    d_out = module.d_out
    with torch.device("meta"):
        layer = nn.MultiheadAttention(
            d_out, module.num_heads, bias=True, kdim=d_in, vdim=d_in, batch_first=True
        )
    layer = layer.to_empty(device="cpu").eval()
    book = (module.W_query, module.W_key, module.W_value)
    with torch.no_grad():
        if d_in == d_out:  # one packed (3·d_out, d_in) projection: W_query, W_key, W_value
            layer.in_proj_weight.copy_(torch.cat([linear.weight for linear in book]))
        else:
            layer.q_proj_weight.copy_(torch.eye(d_out))
            layer.k_proj_weight.copy_(module.W_key.weight)
            layer.v_proj_weight.copy_(module.W_value.weight)
        biases = [
            torch.zeros(d_out)
            if linear.bias is None or (d_in != d_out and linear is book[0])
            else linear.bias
            for linear in book
        ]
        layer.in_proj_bias.copy_(torch.cat(biases))
        layer.out_proj.weight.copy_(module.out_proj.weight)
        layer.out_proj.bias.copy_(module.out_proj.bias)
    return layer


def nn_multihead_attention(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """``nn.MultiheadAttention`` with the book's weights; its boolean mask means ``True = hide``."""
    d_in, num_tokens = x.shape[2], x.shape[1]
    layer = torch_multihead_attention(module, d_in)
    query = x if d_in == module.d_out else module.W_query(x)  # (b, T, d_out)
    mask_bool = module.mask.bool()[:num_tokens, :num_tokens]  # True = hide, as the book's
    context_vec, _ = layer(query, x, x, attn_mask=mask_bool, need_weights=False)
    return context_vec  # (b, T, d_out), out_proj included


PATH_FUNCTIONS: dict[str, PathFunction] = {
    "sdpa_is_causal": sdpa_is_causal,
    "sdpa_bool_mask": sdpa_bool_mask,
    "nn_multihead_attention": nn_multihead_attention,
    "sdpa_book_mask": sdpa_book_mask,
}
PATHS = tuple(PATH_FUNCTIONS)
SLIP = "sdpa_book_mask"  # the one path that must differ from the book's


def path_source(name: str) -> str:
    """The source of path ``name``, to show beside the book's ``forward``."""
    if not isinstance(name, str) or name not in PATH_FUNCTIONS:
        raise AttentionInputError(
            f"No fast path named {describe(name, 40)}; choose one of {PATHS}.", field="name"
        )
    return inspect.getsource(PATH_FUNCTIONS[name])


def book_source() -> str:
    """The book's ``MultiHeadAttention.forward``, the reference every path is compared with."""
    return inspect.getsource(MultiHeadAttention.forward)


# --- comparing --------------------------------------------------------------------------------


def book_module(
    d_in: int, d_out: int, num_heads: int, context_length: int, seed: int
) -> MultiHeadAttention:
    """The book's ``MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads)`` in eval mode,
    with the weights of ``torch.manual_seed(seed)`` drawn from a private generator.
    """
    d_in = check_int("d_in", d_in, 1, MAX_WIDTH, "the input width d_in")
    context_length = check_int("context_length", context_length, 1, MAX_TOKENS, "tokens")
    cfg = AttentionConfig(d_out=d_out, num_heads=num_heads, seed=seed).validated(context_length)
    check_attention_size(1, cfg.num_heads, context_length)  # the mask buffer is (T, T)
    return _built(d_in, cfg)


def _built(d_in: int, cfg: AttentionConfig) -> MultiHeadAttention:
    """:func:`book_module` for a checked ``cfg`` (its ``context_length`` filled in)."""
    args = (d_in, cfg.d_out, cfg.context_length, 0.0, cfg.num_heads)
    return build_seeded(cfg.seed, lambda: MultiHeadAttention(*args)).eval()


@dataclass(frozen=True)
class FastPathOutputs:
    """The book's output and every path's, each ``(b, T, d_out)``, from the same weights."""

    book: torch.Tensor
    outputs: dict[str, torch.Tensor]
    config: AttentionConfig
    out_proj_bias: torch.Tensor | None = None  # (d_out,) the book's out_proj.bias

    def slip_blind_rows(self) -> tuple[int, ...]:
        """The queries the slip lets see no key at all (0-based): SDPA reads the book's
        ``mask_bool`` (True above the diagonal) as True = attend, so the last query, with no key
        after it, attends to none."""
        num_tokens = self.book.shape[1]
        attend = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
        return tuple(i for i in range(num_tokens) if not bool(attend[i].any()))

    def slip_row_is_bias(self, row: int) -> bool:
        """True when the slip's output row ``row`` (first sequence) is ``out_proj.bias`` alone:
        its context was all zeros (what SDPA returns here for a query that sees no key)."""
        if self.out_proj_bias is None:
            return False
        output = self.outputs[SLIP][0, row]  # (d_out,)
        return bool(torch.allclose(output, self.out_proj_bias, rtol=0.0, atol=1e-6))

    def differences(self) -> dict[str, float]:
        """Per path, the largest absolute difference from the book's output (NaN counts as ∞)."""
        return {
            name: float(torch.nan_to_num((out - self.book).abs(), nan=math.inf).max())
            for name, out in self.outputs.items()
        }


def fast_path_outputs(inputs: Any, *, d_out: int, num_heads: int, seed: int) -> FastPathOutputs:
    """The book's ``MultiHeadAttention`` and every fast path on ``inputs``, at dropout 0 (bad inputs
    or settings raise :class:`AttentionInputError`).
    """
    x, cfg = checked_inputs(inputs, AttentionConfig(d_out=d_out, num_heads=num_heads, seed=seed))
    module = _built(x.shape[2], cfg)
    with torch.no_grad():
        book = module(x)  # (b, T, d_out)
        outputs = {name: run(module, x) for name, run in PATH_FUNCTIONS.items()}
    bias = module.out_proj.bias.detach().clone()  # (d_out,)
    return FastPathOutputs(book=book, outputs=outputs, config=cfg, out_proj_bias=bias)


def compare_fast_paths(inputs: Any, *, d_out: int, num_heads: int, seed: int) -> dict[str, float]:
    """Per path (:data:`PATHS`), the largest absolute difference from the book's output: float
    rounding for every path but :data:`SLIP`, whose difference is the size of the outputs.
    """
    return fast_path_outputs(inputs, d_out=d_out, num_heads=num_heads, seed=seed).differences()


# --- measuring --------------------------------------------------------------------------------


class _PeakTensorBytes(TorchDispatchMode):
    """The peak bytes of the tensors created inside the ``with`` (per thread): each new storage is
    counted until its last tensor is freed; tensors from before the block are not.
    """

    def __init__(self) -> None:
        super().__init__()
        self.alive: dict[int, list[int]] = {}  # storage pointer -> [bytes, tensors on it]
        self.now = 0
        self.peak = 0

    def _release(self, pointer: int) -> None:
        entry = self.alive[pointer]
        entry[1] -= 1
        if entry[1] == 0:
            self.now -= entry[0]
            del self.alive[pointer]

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        out = func(*args, **(kwargs or {}))
        for tensor in tree_flatten(out)[0]:
            if not isinstance(tensor, torch.Tensor):
                continue
            storage = tensor.untyped_storage()
            pointer = storage.data_ptr()
            if pointer not in self.alive:
                self.alive[pointer] = [storage.nbytes(), 0]
                self.now += storage.nbytes()
                self.peak = max(self.peak, self.now)
            self.alive[pointer][1] += 1
            weakref.finalize(tensor, self._release, pointer)
        return out


@dataclass
class FastPathTimings:
    """Seconds per forward pass and peak bytes, per path and token count; what was skipped."""

    token_counts: list[int] = field(default_factory=list)
    seconds: dict[str, list[float]] = field(default_factory=dict)  # path -> per size
    peak_bytes: dict[str, list[int]] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)  # sizes the time budget did not reach
    threads: int = 1
    width: int = MEASURE_WIDTH
    heads: int = MEASURE_HEADS


MEASURED_PATHS = ("book", "sdpa_is_causal", "sdpa_bool_mask", "nn_multihead_attention")  # in order


def _book_path(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    return module(x)  # the book's forward pass itself


def _measure_one(
    path: PathFunction,
    module: MultiHeadAttention,
    x: torch.Tensor,
    repeats: int,
    min_seconds: float,
    deadline: float,
) -> tuple[float, int] | None:
    """Best time of ``path(module, x)`` over the runs, and its peak tensor bytes (the first run);
    None when the ``deadline`` (a ``perf_counter`` time) passes before a timed run starts."""
    counter = _PeakTensorBytes()
    with counter:
        path(module, x)  # also warms up
    best, runs, spent = math.inf, 0, 0.0
    # at least ``repeats`` runs; a fast path runs until ``min_seconds`` are spent (at most 50
    # runs), so that one busy moment of the machine does not decide a small size's figure
    while runs < repeats or (spent < min_seconds and runs < 50):
        if time.perf_counter() > deadline:
            if not runs:
                return None
            break
        start = time.perf_counter()
        path(module, x)
        seconds = time.perf_counter() - start
        best, runs, spent = min(best, seconds), runs + 1, spent + seconds
    return best, counter.peak


def _timed_paths(module: MultiHeadAttention) -> dict[str, PathFunction]:
    """The measured paths; ``nn.MultiheadAttention`` is built once, outside the timed calls."""
    layer = torch_multihead_attention(module, module.d_out)  # d_in = d_out here

    def torch_layer(module: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
        num_tokens = x.shape[1]
        mask_bool = module.mask.bool()[:num_tokens, :num_tokens]  # True = hide
        return layer(x, x, x, attn_mask=mask_bool, need_weights=False)[0]

    return {
        "book": _book_path,
        "sdpa_is_causal": sdpa_is_causal,
        "sdpa_bool_mask": sdpa_bool_mask,
        "nn_multihead_attention": torch_layer,
    }


def measure_fast_paths(
    token_counts: Sequence[int] = MEASURE_TOKENS,
    *,
    budget_s: float = 60.0,
    repeats: int = 3,
    min_seconds: float = 0.02,
) -> FastPathTimings:
    """Time (best of ``repeats``) and peak tensor memory of each path, size by size, bounded.

    ``MultiHeadAttention(64, 64, T, 0.0, 2)`` on one random sequence; one timed run per path
    beyond 1,024 tokens; sizes the ``budget_s`` will not reach (time grows with T²) are skipped.
    """
    check_list("token_counts", token_counts, 64, "sizes")
    sizes = sorted({check_int("token_counts", n, 1, MAX_TOKENS, "tokens") for n in token_counts})
    budget_s = check_real("budget_s", budget_s, "seconds")
    min_seconds = check_real("min_seconds", min_seconds, "seconds")
    if not (0 <= budget_s <= 3600 and 0 <= min_seconds <= 60):
        raise AttentionInputError(
            f"budget_s must be 0 to 3600 s and min_seconds 0 to 60 s; got {budget_s:g} and "
            f"{min_seconds:g}.",
            field="budget_s",
        )
    repeats = check_int("repeats", repeats, 1, 100, "timed runs per path")
    result = FastPathTimings(threads=torch.get_num_threads())
    result.seconds = {name: [] for name in MEASURED_PATHS}
    result.peak_bytes = {name: [] for name in MEASURED_PATHS}
    generator = private_generator(0)
    started, last = time.perf_counter(), (0, 0.0)
    for size in sizes:
        elapsed = time.perf_counter() - started
        # time grows like T² once the (T, T) matrices dominate; below 256 tokens, overheads do
        predicted = last[1] * (size / last[0]) ** 2 if last[0] >= 256 else 0.0
        if elapsed >= budget_s or elapsed + predicted > budget_s:
            result.skipped.append(size)
            continue
        x = torch.randn(1, size, MEASURE_WIDTH, generator=generator)  # (1, T, width)
        # context_length = T, as the bonus notebook builds it; the weights do not depend on it
        module = book_module(MEASURE_WIDTH, MEASURE_WIDTH, MEASURE_HEADS, size, seed=0)
        runs = repeats if size <= 1024 else 1
        size_start = time.perf_counter()
        measured = {}
        with torch.no_grad():
            for name, path in _timed_paths(module).items():
                one = _measure_one(path, module, x, runs, min_seconds, started + budget_s)
                if one is None:  # out of time inside this size: none of its figures are kept
                    break
                measured[name] = one
        if len(measured) < len(MEASURED_PATHS):
            result.skipped.append(size)
            continue
        for name, (seconds, peak) in measured.items():
            result.seconds[name].append(seconds)
            result.peak_bytes[name].append(peak)
        result.token_counts.append(size)
        last = (size, time.perf_counter() - size_start)
    return result
