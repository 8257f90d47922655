"""What each field of an ``AttentionTrace`` means, checked against its definition.

Shapes follow the table in the ``AttentionTrace`` docstring; every step is recomputed from the
previous one with the book's formula, so a field that drifted from its meaning fails here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable

import pytest
import torch

from attention import (
    STEP_FIELDS,
    AttentionConfig,
    AttentionInputError,
    AttentionTrace,
    trace_attention,
)
from attention.examples import BOOK_EMBEDDINGS
from tests.book_recipe import BOOK_BATCH, random_inputs

B, T, D_IN = 2, 6, 3  # the book batch

CONFIGS = {
    "one_head_dropout": AttentionConfig(d_out=2, seed=123, dropout=0.5),
    "one_head_no_dropout": AttentionConfig(d_out=2, seed=123, dropout=0.0),
    "one_head_eval": AttentionConfig(d_out=2, seed=123, dropout=0.5, training=False),
    "one_head_bias": AttentionConfig(d_out=4, seed=7, dropout=0.2, qkv_bias=True),
    "fused_two_heads": AttentionConfig(d_out=4, seed=3, dropout=0.3, num_heads=2),
    "fused_bias_eval": AttentionConfig(
        d_out=6, seed=3, dropout=0.3, num_heads=3, qkv_bias=True, training=False
    ),
    "wrapper_two_heads": AttentionConfig(
        d_out=3, seed=11, dropout=0.4, num_heads=2, variant="wrapper"
    ),
    "wrapper_bias": AttentionConfig(
        d_out=2, seed=11, dropout=0.0, num_heads=3, variant="wrapper", qkv_bias=True
    ),
}


@functools.cache
def _trace(name: str) -> AttentionTrace:
    return trace_attention(BOOK_BATCH, CONFIGS[name])


def for_each_config(check: Callable[[AttentionTrace], None]) -> Callable[..., None]:
    """Make ``check(trace)`` one test that runs it on the trace of every config in ``CONFIGS``.

    Each config is a subtest: a failure names the config, and the eight configs count as one case.
    """

    def test(subtests: pytest.Subtests) -> None:
        for name in CONFIGS:
            with subtests.test(config=name):
                check(_trace(name))

    test.__name__, test.__doc__ = check.__name__, check.__doc__
    return test


def _head_axis(trace: AttentionTrace) -> tuple[int, ...]:
    """``()`` for one head, ``(h,)`` for several: the extra axis of per-head tensors."""
    return () if trace.config.num_heads == 1 else (trace.config.num_heads,)


def _per_head_width(trace: AttentionTrace) -> int:
    cfg = trace.config
    return cfg.d_out // cfg.num_heads if cfg.variant == "fused" else cfg.d_out


@for_each_config
def test_shapes_follow_the_docstring_table(trace: AttentionTrace) -> None:
    cfg = trace.config
    heads = _head_axis(trace)
    width = _per_head_width(trace)
    wrapper = cfg.num_heads > 1 and cfg.variant == "wrapper"
    fused = cfg.num_heads > 1 and cfg.variant == "fused"

    assert trace.inputs.shape == (B, T, D_IN)
    weight_shape = (cfg.num_heads, D_IN, cfg.d_out) if wrapper else (D_IN, cfg.d_out)
    for name in ("W_query", "W_key", "W_value"):
        assert getattr(trace, name).shape == weight_shape, name
    for name in ("b_query", "b_key", "b_value"):
        bias = getattr(trace, name)
        if cfg.qkv_bias:
            assert bias.shape == weight_shape[:-2] + weight_shape[-1:], name
        else:
            assert bias is None, name
    if fused:
        assert trace.W_out.shape == (cfg.d_out, cfg.d_out)
        assert trace.b_out.shape == (cfg.d_out,)
    else:
        assert trace.W_out is None and trace.b_out is None
    for name in ("queries", "keys", "values"):
        assert getattr(trace, name).shape == (B, *heads, T, width), name
    for name in (
        "attn_scores",
        "masked_scores",
        "scaled_scores",
        "attn_weights",
        "dropped_weights",
    ):
        assert getattr(trace, name).shape == (B, *heads, T, T), name
    assert trace.mask.shape == (T, T)
    if trace.dropout_mask is not None:
        assert trace.dropout_mask.shape == (B, *heads, T, T)
    if cfg.num_heads == 1:
        assert trace.head_context is None
    else:
        assert trace.head_context.shape == (B, cfg.num_heads, T, width)
    context_width = cfg.num_heads * cfg.d_out if wrapper else cfg.d_out
    assert trace.context.shape == (B, T, context_width)
    assert trace.output.shape == (B, T, context_width)
    assert trace.d_k == width
    assert trace.num_tokens == T and trace.d_in == D_IN


@for_each_config
def test_mask_is_true_strictly_above_the_diagonal(trace: AttentionTrace) -> None:
    assert trace.mask.dtype == torch.bool
    assert torch.equal(trace.mask, torch.triu(torch.ones(T, T), diagonal=1).bool())


@for_each_config
def test_masked_scores_are_minus_infinity_exactly_where_masked(trace: AttentionTrace) -> None:
    mask = trace.mask.expand_as(trace.masked_scores)
    assert bool((trace.masked_scores[mask] == -math.inf).all())
    assert torch.equal(trace.masked_scores[~mask], trace.attn_scores[~mask])
    assert bool(torch.isfinite(trace.attn_scores).all())  # raw scores are never hidden


@for_each_config
def test_attn_scores_are_queries_times_keys_transposed(trace: AttentionTrace) -> None:
    expected = trace.queries @ trace.keys.transpose(-2, -1)
    assert torch.allclose(trace.attn_scores, expected, atol=1e-6)


@for_each_config
def test_scaled_scores_are_masked_scores_over_sqrt_d_k(trace: AttentionTrace) -> None:
    assert trace.scale == pytest.approx(math.sqrt(trace.d_k))
    assert torch.equal(trace.scaled_scores, trace.masked_scores / trace.d_k**0.5)


@for_each_config
def test_attn_weights_are_softmax_rows_summing_to_one_and_zero_where_masked(
    trace: AttentionTrace,
) -> None:
    assert torch.equal(trace.attn_weights, torch.softmax(trace.scaled_scores, dim=-1))
    row_sums = trace.attn_weights.sum(dim=-1)
    assert torch.allclose(row_sums, torch.ones_like(row_sums), atol=1e-6)
    mask = trace.mask.expand_as(trace.attn_weights)
    assert bool((trace.attn_weights[mask] == 0).all())
    assert bool((trace.attn_weights[~mask] > 0).all())


@for_each_config
def test_dropout_mask_is_none_exactly_when_dropout_is_inactive(trace: AttentionTrace) -> None:
    cfg = trace.config
    inactive = cfg.dropout == 0.0 or not cfg.training
    assert trace.dropout_active is (not inactive)
    if inactive:
        assert trace.dropout_mask is None
        assert trace.dropout_scale == 1.0
        assert torch.equal(trace.dropped_weights, trace.attn_weights)
    else:
        assert trace.dropout_mask is not None
        assert trace.dropout_mask.dtype == torch.bool
        assert trace.dropout_scale == pytest.approx(1.0 / (1.0 - cfg.dropout))


@for_each_config
def test_dropped_weights_are_kept_weights_scaled_and_zero_elsewhere(trace: AttentionTrace) -> None:
    if not trace.config.dropout_active:
        return  # nothing dropped: the test above checks dropped_weights == attn_weights
    keep = trace.dropout_mask
    assert keep is not None
    p = trace.config.dropout
    expected = trace.attn_weights * keep / (1.0 - p)
    assert torch.allclose(trace.dropped_weights, expected, atol=1e-6)
    assert bool((trace.dropped_weights[~keep] == 0).all())
    assert bool(keep.any()) and bool((~keep).any())  # a real mask, not all-or-nothing


@for_each_config
def test_context_is_dropped_weights_times_values(trace: AttentionTrace) -> None:
    per_head = trace.dropped_weights @ trace.values  # (b, [h,] T, width)
    cfg = trace.config
    if cfg.num_heads == 1:
        assert torch.allclose(trace.context, per_head, atol=1e-6)
        assert torch.equal(trace.output, trace.context)
        return
    assert torch.allclose(trace.head_context, per_head, atol=1e-6)
    joined = torch.cat(list(trace.head_context.unbind(dim=1)), dim=-1)  # heads side by side
    assert torch.equal(trace.context, joined)
    if cfg.variant == "wrapper":
        assert torch.equal(trace.output, trace.context)
    else:
        assert torch.allclose(trace.output, trace.context @ trace.W_out + trace.b_out, atol=1e-6)


@for_each_config
def test_queries_keys_values_are_inputs_times_weights_plus_bias(trace: AttentionTrace) -> None:
    cfg = trace.config
    for projected, weight, bias in (
        (trace.queries, trace.W_query, trace.b_query),
        (trace.keys, trace.W_key, trace.b_key),
        (trace.values, trace.W_value, trace.b_value),
    ):
        if cfg.num_heads > 1 and cfg.variant == "wrapper":
            for head in range(cfg.num_heads):
                expected = trace.inputs @ weight[head]
                if bias is not None:
                    expected = expected + bias[head]
                assert torch.allclose(projected[:, head], expected, atol=1e-6)
            continue
        expected = trace.inputs @ weight
        if bias is not None:
            expected = expected + bias
        if cfg.num_heads > 1:  # fused: split (b, T, d_out) into (b, h, T, head_dim)
            expected = expected.view(B, T, cfg.num_heads, -1).transpose(1, 2)
        assert torch.allclose(projected, expected, atol=1e-6)


def test_weights_are_stored_as_d_in_by_d_out_like_self_attention_v1() -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(d_out=5, seed=1))
    assert trace.W_query.shape == (3, 5)
    torch.manual_seed(1)
    linear = torch.nn.Linear(3, 5, bias=False)
    assert torch.equal(trace.W_query, linear.weight.detach().T)


def test_two_dimensional_input_becomes_a_batch_of_one() -> None:
    trace = trace_attention(BOOK_BATCH[0], AttentionConfig())
    assert trace.inputs.shape == (1, 6, 3)
    assert trace.output.shape == (1, 6, 2)
    batched = trace_attention(BOOK_BATCH, AttentionConfig())
    assert torch.equal(trace.output[0], batched.output[0])


def test_trace_tensors_do_not_require_grad_and_are_float32() -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(dropout=0.5, qkv_bias=True))
    for name, tensor in trace.tensors().items():
        assert not tensor.requires_grad, name
        if tensor.dtype != torch.bool:
            assert tensor.dtype == torch.float32, name


def test_dropout_of_one_drops_every_weight() -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(dropout=1.0))
    assert trace.dropout_mask is not None
    assert not bool(trace.dropout_mask.any())
    assert trace.dropout_scale == 0.0
    assert bool((trace.dropped_weights == 0).all())
    assert bool((trace.output == 0).all())


def test_step_names_are_trace_fields_in_order() -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(dropout=0.5))
    tensors = trace.tensors()
    assert all(name in tensors for name in STEP_FIELDS)
    positions = [list(tensors).index(name) for name in STEP_FIELDS]
    assert positions == sorted(positions)


@for_each_config
def test_to_dict_is_strict_json_with_none_for_hidden_scores(trace: AttentionTrace) -> None:
    as_dict = trace.to_dict()
    text = json.dumps(as_dict, allow_nan=False)  # raises on NaN or ±inf
    loaded = json.loads(text)
    assert loaded["config"] == json.loads(json.dumps(trace.config.to_dict()))
    masked = loaded["masked_scores"]
    first_batch = masked[0] if trace.config.num_heads == 1 else masked[0][0]
    assert first_batch[0][1] is None  # token 1 cannot see token 2: −∞ became None
    assert first_batch[1][0] is not None
    assert loaded["mask_shape"] == [T, T]
    assert loaded["output_shape"] == list(trace.output.shape)
    assert torch.allclose(torch.tensor(loaded["output"]), trace.output, atol=1e-6)
    if trace.dropout_mask is None:
        assert "dropout_mask" not in loaded
    else:
        assert torch.equal(torch.tensor(loaded["dropout_mask"]), trace.dropout_mask)


def test_to_dict_of_a_large_random_trace_is_strict_json() -> None:
    inputs = random_inputs((50, 8), seed=4) * 100
    trace = trace_attention(inputs, AttentionConfig(d_out=4, seed=4, dropout=0.5, num_heads=2))
    loaded = json.loads(json.dumps(trace.to_dict(), allow_nan=False))
    hidden = torch.tensor(
        [
            [[[cell is None for cell in row] for row in head] for head in item]
            for item in loaded["masked_scores"]
        ]
    )
    assert torch.equal(hidden, trace.mask.expand(1, 2, 50, 50))


def test_trace_module_of_a_built_module_equals_trace_attention(subtests: pytest.Subtests) -> None:
    """A module's own weights, traced by the same code path, give trace_attention's numbers."""
    from attention import build_module, trace_module
    from attention.trace import config_of

    for cfg in (
        AttentionConfig(),
        AttentionConfig(d_out=4, num_heads=2, qkv_bias=True, training=False, dropout=0.4),
        AttentionConfig(d_out=2, num_heads=3, variant="wrapper", dropout=0.0),
    ):
        with subtests.test(config=cfg):
            cfg = cfg.validated(6)
            module = build_module(3, cfg)
            traced = trace_module(module, BOOK_EMBEDDINGS, seed=cfg.seed)
            assert config_of(module, cfg.seed) == cfg
            assert torch.equal(traced.output, trace_attention(BOOK_EMBEDDINGS, cfg).output)
            assert torch.equal(traced.output, module(BOOK_EMBEDDINGS.unsqueeze(0)).detach())


def test_trace_module_refuses_what_is_not_a_book_module_and_a_wrong_width() -> None:
    from attention import build_module, trace_module

    with pytest.raises(AttentionInputError, match="Cannot trace a Linear"):
        trace_module(torch.nn.Linear(3, 2), BOOK_EMBEDDINGS)
    module = build_module(4, AttentionConfig().validated(6))
    with pytest.raises(AttentionInputError, match="expects 4"):
        trace_module(module, BOOK_EMBEDDINGS)
