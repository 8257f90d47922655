"""The KV cache: generate token by token without recomputing the keys and values of the past.

A token only attends to itself and earlier tokens, so earlier keys and values never change: a
cache keeps each layer's keys and values, and each new token adds one row and brings one query.
The book's ``MultiHeadAttention`` is used as it is; only its keys and values (the cache's rows)
and its mask rows (those of the queries' *positions*, ``mask[start:start+q, :n]``) change.
Slicing from row 0 (``mask[:q, :n]``, rasbt/LLMs-from-scratch PR #697) is the slip
:func:`mask_slice_slip` shows. The generating model is "Train it"'s :class:`TinyGPT`, untrained.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .forward import ForwardState, Overrides, run_forward
from .modules import MultiHeadAttention
from .randomness import build_seeded
from .steps import Made
from .trace import AttentionConfig, checked_inputs
from .training import TinyGPT, TrainConfig, build_model, seeded_generator, task_for
from .validate import (
    MAX_ABS_VALUE,
    MAX_ATTENTION_CELLS,
    MAX_TOKENS,
    AttentionInputError,
    check_attention_size,
    check_bool,
    check_float32_module,
    check_generator,
    check_instance,
    check_int,
    check_real,
    check_seed,
    check_tensor,
    describe,
)

__all__ = [
    "GENERATION_CONTEXT",
    "CacheStep",
    "GenerationTimings",
    "LayerCache",
    "SliceSlip",
    "attend_with_cache",
    "cache_bytes",
    "cached_steps",
    "cache_growth",
    "compare_generation",
    "decode",
    "default_prompt",
    "generate",
    "generation_model",
    "mask_slice_slip",
    "through_cache",
    "time_generation",
]

GENERATION_CONTEXT = 128  # the model's context length: prompt + new tokens fit in it
PROMPT_LENGTH = 16  # the default prompt: the first characters of the built-in story


@dataclass
class LayerCache:
    """One attention layer's cache: keys and values of every token so far, ``(b, h, n, head_dim)``."""

    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """How many tokens the cache holds (``n``)."""
        return 0 if self.keys is None else int(self.keys.shape[2])

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        """Add the new tokens' keys and values as rows at the end (the token axis, 2)."""
        if self.keys is None or self.values is None:
            self.keys, self.values = keys, values
        else:
            self.keys = torch.cat([self.keys, keys], dim=2)
            self.values = torch.cat([self.values, values], dim=2)


@dataclass(frozen=True)
class CachedAttention:
    """What one cached call computed: the output and, for showing, the weights and the mask."""

    context_vec: torch.Tensor  # (b, q, d_out), after out_proj
    attn_weights: torch.Tensor  # (b, h, q, n)
    mask_bool: torch.Tensor  # (q, n), True = hide


def attend_with_cache(
    module: MultiHeadAttention, x_new: torch.Tensor, cache: LayerCache, *, slip: bool = False
) -> CachedAttention:
    """The book's ``MultiHeadAttention.forward`` for ``q`` new tokens, keys and values from ``cache``.

    ``x_new`` ``(b, q, d_in)`` holds the tokens at positions ``cache.length …``; ``slip``: PR #697.
    """
    check_instance("module", module, MultiHeadAttention)
    check_float32_module(module)
    slip = check_bool("slip", slip)
    x_new = _layer_input("x_new", x_new, module)
    b, num_tokens_q, _ = x_new.shape
    _check_cache(cache, module, b)
    start, context = cache.length, module.mask.shape[0]
    if start + num_tokens_q > context:
        raise AttentionInputError(
            f"x_new's {num_tokens_q:,} token{'s' if num_tokens_q != 1 else ''} at position "
            f"{start:,} on would go past the layer's context_length {context:,} (the cache holds "
            f"{start:,}): the causal mask has no rows for them. Start a new LayerCache, or build "
            "the layer with a longer context_length.",
            field="x_new",
        )
    check_attention_size(b, module.num_heads, num_tokens_q + start)
    made = run_forward(module, x_new, overrides=cached_steps(cache, slip=slip))
    return CachedAttention(made["output"], made["dropped_weights"], made["mask"])


def _layer_input(name: str, x: Any, layer: MultiHeadAttention) -> torch.Tensor:
    """``x`` ``(b, q, d_in)`` as the layer's float32; non-finite or huge values are refused."""
    d_in = layer.W_query.in_features
    if check_tensor(name, x).dim() != 3 or x.shape[2] != d_in or 0 in x.shape:
        raise AttentionInputError(
            f"{name} must be (b, q, {d_in}) with at least one token; got {describe(x)}.",
            field=name,
        )
    check_attention_size(x.shape[0], layer.num_heads, x.shape[1])  # before reading or copying
    x = x.to(device="cpu", dtype=torch.float32)  # the book's layers: float32, on the CPU
    bad = ~torch.isfinite(x.detach()) | (x.detach().abs() > MAX_ABS_VALUE)
    if bool(bad.any()):
        where = tuple(int(i) for i in torch.nonzero(bad)[0])
        raise AttentionInputError(
            f"{name} holds NaN, infinite or too large values (at most ±{MAX_ABS_VALUE:g}); the "
            f"first at batch {where[0]}, token {where[1]}, feature {where[2]}.",
            field=name,
        )
    return x


def _check_cache(cache: Any, layer: MultiHeadAttention, batch: int) -> None:
    """Empty, or this layer's float32 keys and values ``(batch, heads, n, head_dim)``."""
    check_instance("cache", cache, LayerCache)
    if cache.keys is None and cache.values is None:
        return
    expected = f"({batch}, {layer.num_heads}, n, {layer.head_dim})"
    shapes = []
    for name in ("keys", "values"):
        held = getattr(cache, name)
        if (
            not isinstance(held, torch.Tensor)
            or held.dtype != torch.float32
            or held.device.type != "cpu"
            or held.dim() != 4
            or (held.shape[0], held.shape[1], held.shape[3])
            != (batch, layer.num_heads, layer.head_dim)
        ):
            raise AttentionInputError(
                f"cache.{name} must be a float32 tensor {expected} (batch, heads, cached tokens, "
                f"head_dim) for this layer and input; got {describe(held)}. Use a new "
                "LayerCache for each layer and each batch.",
                field="cache",
            )
        shapes.append(held.shape[2])
    if shapes[0] != shapes[1]:
        raise AttentionInputError(
            f"cache.keys holds {shapes[0]:,} tokens but cache.values {shapes[1]:,}: they must "
            "grow together (LayerCache.append).",
            field="cache",
        )


def cached_steps(cache: LayerCache, *, slip: bool = False) -> Overrides:
    """The two steps a cache changes (``qkv``, ``mask``), as overrides of ``run_forward``.

    Every other step is the book's, computed as the layer computes it.
    """
    check_instance("cache", cache, LayerCache)
    slip = check_bool("slip", slip)
    start = cache.length  # the first new token's position

    def cached_projections(state: ForwardState) -> Made:
        layer, x = state.layer, state.inputs  # (b, q, d_in): the new tokens only
        cache.append(state.split_heads(layer.W_key(x)), state.split_heads(layer.W_value(x)))
        return {
            "keys": cache.keys,  # (b, h, n, head_dim): every token so far
            "queries": state.split_heads(layer.W_query(x)),  # (b, h, q, head_dim)
            "values": cache.values,
        }

    def position_rows(state: ForwardState) -> Made:
        q, n = state.num_tokens, cache.length  # q new queries meet n cached keys
        mask_bool = state.layer.mask[start : start + q, :n].bool()  # the queries' own rows
        return {"mask": mask_bool}

    return {"qkv": cached_projections, "mask": slipped_mask_rows if slip else position_rows}


def slipped_mask_rows(state: ForwardState) -> Made:
    """PR #697's slip as the mask step: ``mask[:q, :n]``, the rows of positions ``0 … q−1``.

    Right on a full pass (``q = n``); through a cache one query gets row 0: all keys but one hidden.
    """
    q, n = state.num_tokens, int(state["keys"].shape[-2])
    mask_bool = state.layer.mask[:q, :n].bool()  # rows from 0 (PR #697's slip)
    return {"mask": mask_bool}


# The cells of a row whose key was not in the cache yet (the prompt's rows, the last key):
# no score was computed, the key is hidden, its weight is 0.
_NOT_CACHED_YET: dict[str, float | bool] = {
    "attn_scores": float("nan"),
    "mask": True,
    "masked_scores": float("-inf"),
    "scaled_scores": float("-inf"),
    "attn_weights": 0.0,
    "dropout_mask": False,
    "dropped_weights": 0.0,
}


def through_cache(
    layer: MultiHeadAttention,
    x: torch.Tensor,
    generator: torch.Generator | None = None,
    *,
    slip: bool = False,
) -> dict[str, Any]:
    """Every step of ``layer`` on ``x`` ``(b, T, d_in)`` fed through a KV cache, a row per token.

    A prompt pass of ``T − 1`` tokens, then the last token alone, stacked into the full pass's
    shapes (the prompt rows' last key was not cached yet: score NaN, weight 0).
    """
    check_instance("layer", layer, MultiHeadAttention)
    check_float32_module(layer)
    check_generator(generator)
    slip = check_bool("slip", slip)
    x = _layer_input("x", x, layer)
    num_tokens = x.shape[1]
    if not 1 <= num_tokens <= layer.mask.shape[0]:
        raise AttentionInputError(
            f"x must have 1 to {layer.mask.shape[0]} tokens (the layer's context_length); got "
            f"{num_tokens:,}.",
            field="x",
        )
    check_attention_size(x.shape[0], layer.num_heads, num_tokens, traces=2)
    cache = LayerCache()
    chunks = (x[:, :-1], x[:, -1:]) if num_tokens > 1 else (x,)
    passes = [
        run_forward(layer, chunk, generator, cached_steps(cache, slip=slip)) for chunk in chunks
    ]
    if len(passes) == 1:
        return passes[0]
    prompt, last = passes
    made = dict(last)  # keys and values: the cache's rows, every token's; the weights
    for name, fill in _NOT_CACHED_YET.items():
        if prompt[name] is None:  # dropout_mask when dropout does not act
            continue
        rows = prompt[name]  # (…, T−1, T−1): rows are queries, columns keys
        column = torch.full((*rows.shape[:-1], 1), fill, dtype=rows.dtype)  # the last key
        widened = torch.cat([rows, column], dim=-1)  # (…, T−1, T)
        made[name] = torch.cat([widened, last[name]], dim=-2)  # (…, T, T)
    for name in ("inputs", "queries", "head_context"):
        made[name] = torch.cat([prompt[name], last[name]], dim=-2)  # a row per token
    for name in ("context", "output"):
        made[name] = torch.cat([prompt[name], last[name]], dim=1)  # (b, T, d_out)
    return made


# --- the chapter's six tokens, one at a time ------------------------------------------------


@dataclass(frozen=True)
class CacheStep:
    """Token ``position`` fed alone: the cache after it, its weights and its output row."""

    position: int
    keys: torch.Tensor  # (h, n, head_dim): n = position + 1 rows
    values: torch.Tensor  # (h, n, head_dim)
    attn_weights: torch.Tensor  # (h, 1, n): the new query over every cached key
    context_vec: torch.Tensor  # (d_out,): the output row of the new token
    full_row: torch.Tensor  # (d_out,): the same row from one forward pass over all tokens

    @property
    def difference(self) -> float:
        """Largest absolute difference between the cached row and the full forward pass's."""
        return float((self.context_vec - self.full_row).abs().max())


def _module_for(
    inputs: Any, d_out: Any, num_heads: Any, seed: Any, *, one_at_a_time: bool = False
) -> tuple[Any, torch.Tensor]:
    cfg = AttentionConfig(d_out=d_out, num_heads=num_heads, seed=seed)
    x, cfg = checked_inputs(inputs, cfg, first_sequence=True)  # (1, T, d_in)
    num_tokens, d_in = x.shape[1], x.shape[2]
    if one_at_a_time:
        _check_growth_size(num_tokens, cfg.d_out, cfg.num_heads)
    module = build_seeded(
        cfg.seed, lambda: MultiHeadAttention(d_in, cfg.d_out, num_tokens, 0.0, cfg.num_heads)
    )
    return module.eval(), x


def _check_growth_size(num_tokens: int, d_out: int, num_heads: int) -> None:
    """Refuse a growth that keeps ``T² · (2 d_out + heads) / 2`` numbers, past the limit."""
    cells = num_tokens * num_tokens * (2 * d_out + num_heads) // 2
    if cells > MAX_ATTENTION_CELLS:
        raise AttentionInputError(
            f"Feeding {num_tokens:,} tokens one at a time is too large: tokens² × (2 × d_out + "
            f"heads) / 2 = {num_tokens:,}² × (2 × {d_out} + {num_heads}) / 2 = {cells:,} numbers "
            "copied and "
            f"kept (at most {MAX_ATTENTION_CELLS:,}). Use fewer tokens, a smaller d_out or "
            "fewer heads.",
            field="inputs",
            code="cache_growth_too_large",
            params={
                "tokens": num_tokens,
                "d_out": d_out,
                "heads": num_heads,
                "cells": cells,
                "maximum": MAX_ATTENTION_CELLS,
            },
        )


def cache_growth(inputs: Any, *, d_out: int, num_heads: int, seed: int) -> list[CacheStep]:
    """Feed ``inputs`` (the first sequence) one token at a time through a cached layer.

    Each step's keys and values are views of the final cache's first rows: one cache is held.
    """
    module, x = _module_for(inputs, d_out, num_heads, seed, one_at_a_time=True)
    cache = LayerCache()
    fed: list[CachedAttention] = []
    with torch.no_grad():
        full = module(x)[0]  # (T, d_out)
        for position in range(x.shape[1]):
            fed.append(attend_with_cache(module, x[:, position : position + 1], cache))
    assert cache.keys is not None and cache.values is not None
    keys, values = cache.keys[0], cache.values[0]  # (h, T, head_dim): the final cache
    return [
        CacheStep(
            position=position,
            keys=keys[:, : position + 1],  # the cache after this token: its first rows
            values=values[:, : position + 1],
            attn_weights=step.attn_weights[0],
            context_vec=step.context_vec[0, 0],
            full_row=full[position],
        )
        for position, step in enumerate(fed)
    ]


@dataclass(frozen=True)
class SliceSlip:
    """The last token as one query over ``n`` cached keys, with the right mask row and the slip's."""

    right_mask: torch.Tensor  # (1, n): mask[n-1:n, :n], nothing hidden
    slipped_mask: torch.Tensor  # (1, n): mask[:1, :n], every key but the first hidden
    right_weights: torch.Tensor  # (h, 1, n)
    slipped_weights: torch.Tensor  # (h, 1, n)
    right_output: torch.Tensor  # (d_out,)
    slipped_output: torch.Tensor  # (d_out,)
    full_row: torch.Tensor  # (d_out,): the last row of one forward pass over all tokens

    @property
    def difference(self) -> float:
        """How far the slip's output is from the right one (largest absolute difference)."""
        return float((self.slipped_output - self.right_output).abs().max())


def mask_slice_slip(inputs: Any, *, d_out: int, num_heads: int, seed: int) -> SliceSlip:
    """The last of ``n ≥ 2`` tokens as one cached query, masked right and with the slip."""
    module, x = _module_for(inputs, d_out, num_heads, seed)
    n = x.shape[1]
    if n < 2:
        raise AttentionInputError(
            "The mask slice needs at least 2 tokens: one cached, one new.", field="inputs"
        )
    results = []
    with torch.no_grad():
        full_row = module(x)[0, -1]
        for slip in (False, True):
            cache = LayerCache()
            attend_with_cache(module, x[:, : n - 1], cache)  # the first n − 1 tokens: cached
            results.append(attend_with_cache(module, x[:, n - 1 :], cache, slip=slip))
    right, slipped = results
    return SliceSlip(
        right_mask=right.mask_bool,
        slipped_mask=slipped.mask_bool,
        right_weights=right.attn_weights[0],
        slipped_weights=slipped.attn_weights[0],
        right_output=right.context_vec[0, 0],
        slipped_output=slipped.context_vec[0, 0],
        full_row=full_row,
    )


# --- a tiny GPT generating --------------------------------------------------------------------


def _text_config(seed: int) -> TrainConfig:
    return TrainConfig(task="text", seed=seed, context_length=GENERATION_CONTEXT).resolved()


def default_prompt() -> list[int]:
    """The first :data:`PROMPT_LENGTH` characters of the built-in story, as token ids."""
    task = task_for(_text_config(0))
    return task.encode(task.text[:PROMPT_LENGTH]).tolist()


def decode(token_ids: Sequence[int]) -> str:
    """The characters of ``token_ids`` (the text task's vocabulary), as one string."""
    task = task_for(_text_config(0))
    if isinstance(token_ids, str | bytes) or not isinstance(token_ids, Sequence):
        raise AttentionInputError(
            f"token_ids must be a list of token ids; got {describe(token_ids)}.", field="token_ids"
        )
    if len(token_ids) > MAX_TOKENS:
        raise AttentionInputError(f"At most {MAX_TOKENS} token ids; got {len(token_ids):,}.")
    last = len(task.characters) - 1
    token_ids = [check_int("token_ids", i, 0, last, "a token id") for i in token_ids]
    return "".join(task.characters[int(i)] for i in token_ids)


def generation_model(seed: int) -> TinyGPT:
    """“Train it”'s text-task GPT with the weights it starts from (untrained, eval mode)."""
    cfg = _text_config(check_seed(seed))
    model = build_model(task_for(cfg), cfg, seeded_generator(cfg.seed, "init"))
    return model.eval()


def _forward_with_cache(model: TinyGPT, tokens: torch.Tensor, caches: list[LayerCache]) -> Any:
    """``TinyGPT.forward`` for the new ``tokens`` ``(1, q)``; attention reads and fills ``caches``."""
    start = caches[0].length
    positions = torch.arange(start, start + tokens.shape[1])
    x = model.tok_emb(tokens) + model.pos_emb(positions)  # (1, q, width)
    for block, cache in zip(model.trf_blocks, caches, strict=True):
        x = x + attend_with_cache(block.att, block.norm1(x), cache).context_vec
        if block.ff is not None:
            x = x + block.ff(block.norm2(x))
    return model.out_head(model.final_norm(x))  # (1, q, vocab)


def generate(model: TinyGPT, prompt: list[int], new_tokens: int, *, use_cache: bool) -> list[int]:
    """Greedy generation of ``new_tokens`` ids; with the cache each step feeds one token."""
    check_instance("model", model, TinyGPT, " (from generation_model)")
    use_cache = check_bool("use_cache", use_cache)
    prompt, new_tokens = _check_prompt(
        prompt, new_tokens, model.tok_emb.num_embeddings, model.context_length
    )
    tokens = list(prompt)
    caches = [LayerCache() for _ in model.trf_blocks]
    with torch.no_grad():
        for step in range(new_tokens):
            if use_cache:
                fed = tokens if step == 0 else tokens[-1:]  # the prompt, then one token a step
                logits = _forward_with_cache(model, torch.tensor([fed]), caches)
            else:
                logits = model(torch.tensor([tokens]))  # (1, T, vocab): everything again
            tokens.append(int(logits[0, -1].argmax()))
    return tokens[len(prompt) :]


def _check_prompt(
    prompt_tokens: Any, new_tokens: Any, vocab_size: int, context: int = GENERATION_CONTEXT
) -> tuple[list[int], int]:
    if isinstance(prompt_tokens, (str, bytes)) or not isinstance(prompt_tokens, Sequence):
        raise AttentionInputError(
            "prompt_tokens must be a list of token ids (whole numbers).", field="prompt_tokens"
        )
    if len(prompt_tokens) > context:
        raise AttentionInputError(
            f"The prompt ({len(prompt_tokens):,} tokens) does not fit in the model's context of "
            f"{context} tokens.",
            field="prompt_tokens",
        )
    prompt = [
        check_int(f"prompt_tokens[{i}]", token, 0, vocab_size - 1, "a token id of the vocabulary")
        for i, token in enumerate(prompt_tokens)
    ]
    if not prompt:
        raise AttentionInputError("The prompt needs at least one token.", field="prompt_tokens")
    room = context - len(prompt)
    new = check_int("new_tokens", new_tokens, 1, max(room, 1), "how many tokens to generate")
    if len(prompt) + new > context:
        raise AttentionInputError(
            f"The prompt ({len(prompt)} tokens) and {new} new tokens do not fit in the model's "
            f"context of {context} tokens.",
            field="new_tokens",
        )
    return prompt, new


def compare_generation(
    *, prompt_tokens: Sequence[int], new_tokens: int, seed: int
) -> tuple[list[int], list[int]]:
    """The new tokens generated greedily with a KV cache and without one: the same ids."""
    prompt, new = _check_prompt(prompt_tokens, new_tokens, task_for(_text_config(0)).vocab_size)
    model = generation_model(seed)  # its vocabulary is the text task's, whatever the seed
    return (
        generate(model, prompt, new, use_cache=True),
        generate(model, prompt, new, use_cache=False),
    )


@dataclass
class GenerationTimings:
    """Seconds per generated token with and without the cache (best of the runs measured)."""

    new_tokens: int
    prompt_length: int
    seconds_with_cache: float = 0.0
    seconds_without_cache: float = 0.0
    runs: int = 0
    stopped_by_budget: bool = False
    threads: int = field(default_factory=torch.get_num_threads)


def time_generation(
    *, prompt_tokens: Sequence[int], new_tokens: int, seed: int, budget_s: float = 10.0
) -> GenerationTimings:
    """Seconds per token with and without the cache: up to 5 runs while ``budget_s`` lasts."""
    budget_s = check_real("budget_s", budget_s, "seconds")
    if not 0 <= budget_s <= 3600:
        raise AttentionInputError(
            f"budget_s must be 0 to 3600 s; got {budget_s:g}.", field="budget_s"
        )
    prompt, new = _check_prompt(prompt_tokens, new_tokens, task_for(_text_config(0)).vocab_size)
    model = generation_model(seed)  # its vocabulary is the text task's, whatever the seed
    result = GenerationTimings(new_tokens=new, prompt_length=len(prompt))
    best = {True: float("inf"), False: float("inf")}
    started = time.perf_counter()
    while result.runs < 5:
        for use_cache in (True, False):
            start = time.perf_counter()
            generate(model, prompt, new, use_cache=use_cache)
            best[use_cache] = min(best[use_cache], (time.perf_counter() - start) / new)
        result.runs += 1
        if time.perf_counter() - started > budget_s:
            result.stopped_by_budget = result.runs < 5
            break
    result.seconds_with_cache, result.seconds_without_cache = best[True], best[False]
    return result


# --- memory -----------------------------------------------------------------------------------


def cache_bytes(
    *,
    layers: int,
    tokens: int,
    d_model: int,
    kv_heads: int | None = None,
    heads: int | None = None,
    bytes_per_value: int = 4,
    batch: int = 1,
) -> int:
    """Bytes of a KV cache: 2 (K and V) × batch × layers × tokens × K/V width × bytes per value.

    Grouped-query attention narrows the K/V width to ``d_model × kv_heads / heads``.
    """
    layers = check_int("layers", layers, 1, 10_000, "the number of layers")
    tokens = check_int("tokens", tokens, 1, 10_000_000, "the number of cached tokens")
    d_model = check_int("d_model", d_model, 1, 1_000_000, "the model width")
    bytes_per_value = check_int("bytes_per_value", bytes_per_value, 1, 16, "bytes per number")
    batch = check_int("batch", batch, 1, 100_000, "the batch size")
    width = d_model
    if kv_heads is not None or heads is not None:
        if kv_heads is None or heads is None:
            raise AttentionInputError(
                "Give both heads and kv_heads (grouped-query attention), or neither.",
                field="kv_heads",
                code="kv_heads_pair",
            )
        heads = check_int("heads", heads, 1, 1_000_000, "the number of query heads")
        kv_heads = check_int("kv_heads", kv_heads, 1, 1_000_000, "the number of K/V heads")
        if d_model % heads or heads % kv_heads:
            raise AttentionInputError(
                f"heads = {heads} must divide d_model = {d_model}, and kv_heads = {kv_heads} "
                "must divide heads: each K/V head serves heads / kv_heads query heads.",
                field="kv_heads",
                code="kv_heads_split",
                params={"heads": heads, "d_model": d_model, "kv_heads": kv_heads},
            )
        width = d_model // heads * kv_heads
    return 2 * batch * layers * tokens * width * bytes_per_value
