"""The book's printed numbers for chapter 3, and a check that this machine still gives them.

The book prints 4 decimals: a value *agrees* when ``|actual − printed| ≤ 0.00005`` (rounding it
gives the printout). :func:`check_book_outputs` runs each example of :data:`BOOK_CHECKS` again
(the recipes: REFERENCE.md). The book's notebook warns that dropout may differ on another
operating system (PyTorch issue #121595), so whether this machine draws the book's masks is
measured, never assumed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .chapter import DropoutDemo, SimpleAttention, TrainableAttention, dropout_demo
from .examples import BOOK_EMBEDDINGS
from .modules import SelfAttention_v1, SelfAttention_v2
from .randomness import build_seeded
from .trace import AttentionConfig, AttentionTrace, trace_attention
from .validate import (
    MAX_WIDTH,
    AttentionInputError,
    check_bool,
    check_instance,
    check_int,
    check_seed,
    check_variant,
    to_input_tensor,
)

__all__ = [
    "BOOK_CHECKS",
    "DROPOUT_CHECKS",
    "PRINT_TOLERANCE",
    "BookCheck",
    "book_comparison",
    "book_run_comparison",
    "chapter_comparisons",
    "masking_comparison",
    "dropout_demo_differences",
    "check_book_outputs",
]

PRINT_TOLERANCE = 5e-5 + 1e-7  # half of the printed 4th decimal, plus float32 slack

CAUSAL_SEED_123 = (
    (-0.4519, 0.2216),
    (-0.5874, 0.0058),
    (-0.6300, -0.0632),
    (-0.5675, -0.0843),
    (-0.5526, -0.0981),
    (-0.5299, -0.1081),
)
SELF_ATTENTION_V1_SEED_123 = (
    (0.2996, 0.8053),
    (0.3061, 0.8210),
    (0.3058, 0.8203),
    (0.2948, 0.7939),
    (0.2927, 0.7891),
    (0.2990, 0.8040),
)
SELF_ATTENTION_V2_SEED_789 = (
    (-0.0739, 0.0713),
    (-0.0748, 0.0703),
    (-0.0749, 0.0702),
    (-0.0760, 0.0685),
    (-0.0763, 0.0679),
    (-0.0754, 0.0693),
)
# section 3.5.1's masked weights of SelfAttention_v2 (seed 789), by row index (0-based): the
# same rows from both of the book's masks (tril and renormalise; −∞ then softmax)
MASKED_WEIGHTS_SEED_789 = {
    1: (0.5517, 0.4483, 0.0, 0.0, 0.0, 0.0),  # journey
    2: (0.3800, 0.3097, 0.3103, 0.0, 0.0, 0.0),  # starts
    5: (0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529),  # step
}
MASKED_WEIGHTS_SEED_789_ROWS_2_AND_6 = (MASKED_WEIGHTS_SEED_789[1], MASKED_WEIGHTS_SEED_789[5])
# section 3.3.1, attention without weights, query x⁽²⁾ ("journey"): scores, the scores divided by
# their sum (the book's first try), softmax, and the context vector z⁽²⁾
SIMPLE_QUERY_2 = {
    "query_scores": (0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865),
    "query_weights_by_sum": (0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656),
    "query_weights": (0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581),
    "query_context": (0.4419, 0.6515, 0.5683),
}
WRAPPER_SEED_123_ROWS_1_AND_6 = (
    (-0.4519, 0.2216, 0.4772, 0.1063),
    (-0.5299, -0.1081, 0.5077, 0.3493),
)
MULTI_HEAD_SEED_123 = (
    (0.3190, 0.4858),
    (0.2943, 0.3897),
    (0.2856, 0.3593),
    (0.2693, 0.3873),
    (0.2639, 0.3928),
    (0.2575, 0.4028),
)
DROPOUT_ONES_SEED_123 = (
    (2.0, 2.0, 0.0, 2.0, 2.0, 0.0),
    (0.0, 0.0, 0.0, 2.0, 0.0, 2.0),
    (2.0, 2.0, 2.0, 2.0, 0.0, 2.0),
    (0.0, 2.0, 2.0, 0.0, 0.0, 2.0),
    (0.0, 2.0, 0.0, 2.0, 0.0, 2.0),
    (0.0, 2.0, 2.0, 2.0, 2.0, 0.0),
)
DROPOUT_WEIGHTS_SEED_123 = (
    (2.0000, 0.0, 0.0, 0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    (0.7599, 0.6194, 0.6206, 0.0, 0.0, 0.0),
    (0.0, 0.4921, 0.4925, 0.0, 0.0, 0.0),
    (0.0, 0.3966, 0.0, 0.3775, 0.0, 0.0),
    (0.0, 0.3327, 0.3331, 0.3084, 0.3331, 0.0),
)
DROPOUT_CHECKS = ("dropout_ones_seed_123", "dropout_weights_seed_123")


@dataclass(frozen=True)
class BookCheck:
    """One of the book's printed results, recomputed here (``name`` a stable identifier the app
    translates; ``recipe`` the code that ran).
    """

    name: str
    recipe: str
    expected: tuple[tuple[float, ...], ...]  # as printed, 4 decimals
    actual: tuple[tuple[float, ...], ...]  # what this machine computes now
    max_abs_difference: float

    @property
    def passed(self) -> bool:
        """True when every value rounds to what the book prints."""
        return self.max_abs_difference <= PRINT_TOLERANCE


def _seeded(seed: int, build: Callable[[], torch.Tensor]) -> torch.Tensor:
    """Run ``build`` as right after ``torch.manual_seed(seed)``, from a private generator."""
    with torch.no_grad():
        return build_seeded(seed, build)


def _trace_output(**settings: Any) -> torch.Tensor:
    """The trace's output, batch item 0, for the book's inputs and ``settings``."""
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.0, **settings)).output[0]


# name -> (recipe shown to the user, printed numbers, how to compute them now)
BOOK_CHECKS: dict[str, tuple[str, tuple[tuple[float, ...], ...], Callable[[], torch.Tensor]]] = {
    "causal_seed_123": (
        "torch.manual_seed(123); CausalAttention(3, 2, 6, 0.0)(inputs)",
        CAUSAL_SEED_123,
        lambda: _trace_output(d_out=2, seed=123),  # (6, 2)
    ),
    "self_attention_v1_seed_123": (
        "torch.manual_seed(123); SelfAttention_v1(3, 2)(inputs)",
        SELF_ATTENTION_V1_SEED_123,
        lambda: _seeded(123, lambda: SelfAttention_v1(3, 2)(BOOK_EMBEDDINGS)),  # (6, 2)
    ),
    "self_attention_v2_seed_789": (
        "torch.manual_seed(789); SelfAttention_v2(3, 2)(inputs)",
        SELF_ATTENTION_V2_SEED_789,
        lambda: _seeded(789, lambda: SelfAttention_v2(3, 2)(BOOK_EMBEDDINGS)),  # (6, 2)
    ),
    "masked_weights_seed_789": (
        "torch.manual_seed(789); SelfAttention_v2(3, 2); masked_fill(-inf), softmax → attn_weights[[1, 5]]",
        MASKED_WEIGHTS_SEED_789_ROWS_2_AND_6,
        # CausalAttention creates W_query, W_key, W_value in SelfAttention_v2's order: same weights
        lambda: trace_attention(
            BOOK_EMBEDDINGS, AttentionConfig(d_out=2, seed=789, dropout=0.0)
        ).attn_weights[0][[1, 5]],  # rows 2 and 6: (2, 6)
    ),
    "wrapper_seed_123": (
        "torch.manual_seed(123); MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=2)(inputs)[0, [0, 5]]",
        WRAPPER_SEED_123_ROWS_1_AND_6,
        lambda: _trace_output(d_out=2, seed=123, num_heads=2, variant="wrapper")[[0, 5]],  # (2, 4)
    ),
    "multi_head_seed_123": (
        "torch.manual_seed(123); MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)(inputs)",
        MULTI_HEAD_SEED_123,
        lambda: _trace_output(d_out=2, seed=123, num_heads=2, variant="fused"),  # (6, 2)
    ),
    "dropout_ones_seed_123": (
        "torch.manual_seed(123); torch.nn.Dropout(0.5)(torch.ones(6, 6))",
        DROPOUT_ONES_SEED_123,
        lambda: dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5).ones,  # (6, 6)
    ),
    "dropout_weights_seed_123": (
        "torch.manual_seed(123); torch.nn.Dropout(0.5)(attn_weights)  # v2's masked, seed 789",
        DROPOUT_WEIGHTS_SEED_123,
        lambda: dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5).dropped_weights,  # (6, 6)
    ),
}


def check_book_outputs() -> list[BookCheck]:
    """Recompute every example of :data:`BOOK_CHECKS` and compare, in that order (the caller's
    random state untouched).
    """
    return [
        _compared(name, compute(), printed) for name, (_, printed, compute) in BOOK_CHECKS.items()
    ]


# The printed examples a trace of the app can be: (num_heads, variant) -> (check, rows shown).
_PRINTED_TRACES: dict[tuple[int, str], tuple[str, tuple[int, ...] | None]] = {
    (1, "fused"): ("causal_seed_123", None),
    (2, "fused"): ("multi_head_seed_123", None),
    (2, "wrapper"): ("wrapper_seed_123", (0, 5)),
}
# the class each printed run is (a trace of one head is CausalAttention, not MultiHeadAttention)
_PRINTED_CLASSES = {
    "causal_seed_123": "CausalAttention",
    "multi_head_seed_123": "MultiHeadAttention",
    "wrapper_seed_123": "MultiHeadAttentionWrapper",
}


def _is_book_input(inputs: torch.Tensor) -> bool:
    """``inputs`` ``(b, T, d_in)`` or ``(T, d_in)`` is the book's six embeddings (any copies)."""
    rows = inputs.reshape(-1, *inputs.shape[-2:]) if inputs.dim() >= 2 else inputs
    return tuple(rows.shape[1:]) == tuple(BOOK_EMBEDDINGS.shape) and bool(
        (rows == BOOK_EMBEDDINGS).all()
    )


def _compared(name: str, actual: torch.Tensor, expected: tuple) -> BookCheck:
    """``actual`` (rows of floats) against ``expected`` as printed: the largest difference."""
    recipe = BOOK_CHECKS[name][0]
    actual, printed = actual.detach().to(torch.float64), torch.tensor(expected, dtype=torch.float64)
    if actual.shape != printed.shape:
        raise AssertionError(f"{name}: shape {tuple(actual.shape)}, book {tuple(printed.shape)}")
    difference = float((actual - printed).abs().max())
    values = tuple(tuple(float(v) for v in row) for row in actual.tolist())
    return BookCheck(name, recipe, tuple(expected), values, difference)


def book_run_comparison(
    inputs: torch.Tensor,
    output: torch.Tensor,
    *,
    seed: int,
    d_out: int,
    num_heads: int,
    variant: str = "fused",
    qkv_bias: bool = False,
    dropout_active: bool = False,
    window: int | None = None,
    class_name: str | None = None,
) -> BookCheck | None:
    """A layer's ``output`` ``(b, T, width)`` against the book's printout, or None when the run is
    not one of the book's (:func:`book_comparison`), for a class run outside a trace.
    """
    inputs = to_input_tensor(inputs)  # (b, T, d_in), checked
    check_instance("output", output, torch.Tensor, " (a tensor)")
    variant = check_variant(variant)
    if class_name is not None:
        check_instance("class_name", class_name, str, " (a class name or None)")
    seed = check_seed(seed)
    d_out = check_int("d_out", d_out, 1, MAX_WIDTH, "the output width d_out")
    num_heads = check_int("num_heads", num_heads, 1, MAX_WIDTH, "the number of heads")
    qkv_bias = check_bool("qkv_bias", qkv_bias)
    dropout_active = check_bool("dropout_active", dropout_active)
    if window is not None:
        window = check_int("window", window, 0, 2**31, "a window size or None")
    key = (num_heads, variant if num_heads > 1 else "fused")
    book_run = (
        seed == 123
        and d_out == 2
        and not qkv_bias
        and not dropout_active
        and window is None
        and key in _PRINTED_TRACES
        and _is_book_input(inputs)
    )
    if not book_run:
        return None
    name, rows = _PRINTED_TRACES[key]
    if class_name is not None and _PRINTED_CLASSES[name] != class_name:
        return None
    if output.dim() not in (2, 3) or output.shape[-2:] != (
        BOOK_EMBEDDINGS.shape[0],
        d_out * (num_heads if variant == "wrapper" else 1),
    ):
        raise AttentionInputError(
            f"output must be the layer's (b, T, width) output; got shape {tuple(output.shape)}.",
            field="output",
        )
    first = output[0] if output.dim() == 3 else output  # (T, width)
    return _compared(name, first if rows is None else first[list(rows)], BOOK_CHECKS[name][1])


def book_comparison(trace: AttentionTrace) -> BookCheck | None:
    """``trace``'s output against the book's printout, or None when the trace is not one of its
    runs.

    The book's runs: its six embeddings (any batch of copies), seed 123, ``d_out = 2``, no bias,
    the full mask, no dropout acting; one head, or two heads of either multi-head class.
    """
    check_instance("trace", trace, AttentionTrace, " (from trace_attention)")
    cfg = trace.config
    return book_run_comparison(
        trace.inputs,
        trace.output,
        seed=cfg.seed,
        d_out=cfg.d_out,
        num_heads=cfg.num_heads,
        variant=cfg.variant,
        qkv_bias=cfg.qkv_bias,
        dropout_active=cfg.dropout_active,
        window=getattr(cfg, "window", None),
    )


def masking_comparison(trace: AttentionTrace, weights: torch.Tensor) -> BookCheck | None:
    """Masked ``weights`` ``(T, T)`` against section 3.5.1's printout (rows 2, 3 and 6), or None:
    the book masks ``SelfAttention_v2(3, 2)``'s scores at seed 789, and a one-head
    ``CausalAttention`` at seed 789 draws the same weights in the same order.
    """
    check_instance("trace", trace, AttentionTrace, " (from trace_attention)")
    check_instance("weights", weights, torch.Tensor, " (a tensor)")
    num_tokens = trace.num_tokens
    if tuple(weights.shape) != (num_tokens, num_tokens):
        raise AttentionInputError(
            f"weights must be (T, T) = ({num_tokens}, {num_tokens}); got {tuple(weights.shape)}.",
            field="weights",
        )
    cfg = trace.config
    book_run = (
        cfg.seed == 789
        and cfg.d_out == 2
        and cfg.num_heads == 1
        and not cfg.qkv_bias
        and getattr(cfg, "window", None) is None
        and _is_book_input(trace.inputs)
    )
    if not book_run:
        return None
    rows, expected = list(MASKED_WEIGHTS_SEED_789), tuple(MASKED_WEIGHTS_SEED_789.values())
    return _compared("masked_weights_seed_789", weights[rows], expected)


def chapter_comparisons(
    simple: SimpleAttention, v1: TrainableAttention, v2: TrainableAttention | None
) -> dict[str, float | None]:
    """The chapter's path against the book's printouts, per section (``"3.3.1"``, ``"3.4.1"``,
    ``"3.4.2"``, ``"3.5.1"``): the largest difference, or None where the book printed nothing.
    """
    check_instance("simple", simple, SimpleAttention, " (from attention.chapter.simple_attention)")
    check_instance("v1", v1, TrainableAttention, " (from attention.chapter.self_attention_v1)")
    if v2 is not None:
        check_instance("v2", v2, TrainableAttention, " (from self_attention_v2, or None)")
    book_inputs = _is_book_input(simple.inputs)

    def largest(pairs: list[tuple[torch.Tensor, tuple]]) -> float:
        return max(
            float((a.detach().double() - torch.tensor(b, dtype=torch.float64)).abs().max())
            for a, b in pairs
        )

    result: dict[str, float | None] = dict.fromkeys(("3.3.1", "3.4.1", "3.4.2", "3.5.1"))
    if not book_inputs:
        return result
    if simple.query_index == 1:
        result["3.3.1"] = largest(
            [(getattr(simple, field), values) for field, values in SIMPLE_QUERY_2.items()]
        )
    if v1.seed == 123 and v1.d_k == 2:
        result["3.4.1"] = largest([(v1.module_output, SELF_ATTENTION_V1_SEED_123)])
    if v2 is not None and v2.seed == 789 and v2.d_k == 2:
        result["3.4.2"] = largest([(v2.module_output, SELF_ATTENTION_V2_SEED_789)])
        rows, printed = list(MASKED_WEIGHTS_SEED_789), tuple(MASKED_WEIGHTS_SEED_789.values())
        result["3.5.1"] = largest([(v2.masked_weights[rows], printed)])
    return result


def dropout_demo_differences(demo: DropoutDemo) -> tuple[float, float] | None:
    """The largest differences of the 3.5.2 demo from its two printouts (``(ones, weights)``), or
    None unless ``demo`` is the book's run (six tokens, seed 123, p = 0.5).
    """
    check_instance("demo", demo, DropoutDemo, " (from attention.chapter.dropout_demo)")
    if demo.ones.shape != (6, 6) or demo.seed != 123 or demo.p != 0.5:
        return None
    printed = [torch.tensor(table) for table in (DROPOUT_ONES_SEED_123, DROPOUT_WEIGHTS_SEED_123)]
    drawn = [demo.ones, demo.dropped_weights]
    ones, weights = (float((a - b).abs().max()) for a, b in zip(drawn, printed, strict=True))
    return ones, weights
