"""The chapter's path to ``CausalAttention``: sections 3.3 to 3.5, in the book's order.

1. 3.3, no trainable weights: scores are dot products of the embeddings (:func:`simple_attention`).
2. 3.4.1, ``SelfAttention_v1``: ``torch.rand`` weights after ``torch.manual_seed(123)``, scores
   scaled by ``1/√d_k`` (:func:`self_attention_v1`).
3. 3.4.2, ``SelfAttention_v2``: the same with ``nn.Linear`` layers, seed 789
   (:func:`self_attention_v2`).
4. 3.5, a causal mask buffer and dropout give ``CausalAttention`` (:func:`causal_diff`).

Each function builds the book's class with a private generator and writes the forward pass out
step by step; the module's own forward gives the same context vectors bitwise (a test checks).
"""

from __future__ import annotations

import ast
import difflib
import inspect
import math
from dataclasses import dataclass
from functools import lru_cache

import torch

from .dropout import DroppedRow
from .environment import dropout_on_ones
from .modules import CausalAttention, SelfAttention_v1, SelfAttention_v2
from .randomness import build_seeded, dropout_noise, private_generator
from .validate import (
    MAX_TOKENS,
    MAX_WIDTH,
    AttentionInputError,
    check_dropout,
    check_int,
    check_real,
    check_seed,
    describe,
    to_input_tensor,
)

__all__ = [
    "BOOK_DROPOUT",
    "BOOK_QUERY_INDEX",
    "BOOK_SEED_V1",
    "BOOK_SEED_V2",
    "SimpleAttention",
    "TrainableAttention",
    "DropoutDemo",
    "Normalisations",
    "WHY_SOFTMAX_FACTOR",
    "causal_diff",
    "normalisations",
    "dropout_demo",
    "self_attention_v1",
    "self_attention_v2",
    "simple_attention",
]

BOOK_QUERY_INDEX = 1  # the book's query is the second token, x⁽²⁾ ("journey")
BOOK_SEED_V1 = 123  # torch.manual_seed(123) before SelfAttention_v1 (and the book's W matrices)
BOOK_SEED_V2 = 789  # torch.manual_seed(789) before SelfAttention_v2
BOOK_DROPOUT = 0.5  # nn.Dropout(0.5) in section 3.5.2's demo
WHY_SOFTMAX_FACTOR = 10.0  # "extreme scores": the same scores this many times larger
MAX_SCORES = 64  # the scores of one editable case
MAX_SCORE = 1e6  # |score| at most this: float32 holds it, and times the factor


@dataclass(frozen=True)
class SimpleAttention:
    """Section 3.3: scores are dot products of the embeddings; no weights, scaling or mask.
    ``query_*`` fields: the one query ``x⁽ⁱ⁾`` (3.3.1); the matrices: every token (3.3.2).
    """

    inputs: torch.Tensor  # (T, d_in)
    query_index: int
    query_scores: torch.Tensor  # (T,) x⁽ⁱ⁾ · x⁽ʲ⁾
    query_weights_by_sum: torch.Tensor  # (T,) scores / their sum: the book's first try
    query_weights: torch.Tensor  # (T,) softmax of the scores
    query_context: torch.Tensor  # (d_in,) z⁽ⁱ⁾ = Σ_j a_ij x⁽ʲ⁾
    attn_scores: torch.Tensor  # (T, T) inputs @ inputs.T
    attn_weights: torch.Tensor  # (T, T) softmax of each row
    context: torch.Tensor  # (T, d_in) attn_weights @ inputs


@dataclass(frozen=True)
class TrainableAttention:
    """Section 3.4: ``SelfAttention_v1`` or ``_v2``; ``W_*`` are ``(d_in, d_out)``, the book's
    ``x @ W``; ``masked_weights`` is 3.5.1's first causal mask on these scores.
    """

    class_name: str
    seed: int
    inputs: torch.Tensor  # (T, d_in)
    W_query: torch.Tensor  # (d_in, d_out)
    W_key: torch.Tensor  # (d_in, d_out)
    W_value: torch.Tensor  # (d_in, d_out)
    queries: torch.Tensor  # (T, d_out)
    keys: torch.Tensor  # (T, d_out)
    values: torch.Tensor  # (T, d_out)
    attn_scores: torch.Tensor  # (T, T) queries @ keys.T
    attn_weights: torch.Tensor  # (T, T) softmax(attn_scores / √d_k)
    context: torch.Tensor  # (T, d_out) attn_weights @ values
    module_output: torch.Tensor  # (T, d_out) the module's own forward pass
    masked_weights: torch.Tensor  # (T, T) softmax of the scores with the future at -inf
    query_index: int

    @property
    def d_k(self) -> int:
        return int(self.keys.shape[-1])

    @property
    def query(self) -> torch.Tensor:  # (d_out,)
        return self.queries[self.query_index]

    @property
    def query_self_score(self) -> float:
        """The book's ``attn_score_22``: the query's score with its own key."""
        return float(self.attn_scores[self.query_index, self.query_index])

    @property
    def query_scores(self) -> torch.Tensor:  # (T,)
        return self.attn_scores[self.query_index]

    @property
    def query_weights(self) -> torch.Tensor:  # (T,)
        return self.attn_weights[self.query_index]

    @property
    def query_context(self) -> torch.Tensor:  # (d_out,)
        return self.context[self.query_index]


def _one_sequence(inputs: object) -> torch.Tensor:
    """The embeddings as a checked float32 ``(T, d_in)`` tensor (the first of a batch)."""
    return to_input_tensor(inputs)[0]


def _check_query_index(query_index: object) -> int:
    """A whole number the query index can be clamped from (to the last token, for short inputs)."""
    return check_int("query_index", query_index, 0, MAX_TOKENS - 1, "the query's token index")


def simple_attention(inputs: object, query_index: int = BOOK_QUERY_INDEX) -> SimpleAttention:
    """Section 3.3 on ``inputs`` ``(T, d_in)`` (``query_index`` clamped to the last token)."""
    x = _one_sequence(inputs)  # (T, d_in)
    index = min(_check_query_index(query_index), x.shape[0] - 1)
    query = x[index]  # (d_in,)
    query_scores = x @ query  # (T,) the book's loop of torch.dot(x_i, query)
    attn_scores = x @ x.T  # (T, T)
    attn_weights = torch.softmax(attn_scores, dim=-1)  # (T, T)
    query_weights = torch.softmax(query_scores, dim=0)  # (T,)
    return SimpleAttention(
        inputs=x,
        query_index=index,
        query_scores=query_scores,
        query_weights_by_sum=query_scores / query_scores.sum(),
        query_weights=query_weights,
        query_context=query_weights @ x,  # (d_in,)
        attn_scores=attn_scores,
        attn_weights=attn_weights,
        context=attn_weights @ x,  # (T, d_in)
    )


@dataclass(frozen=True)
class Normalisations:
    """Section 3.3.1's question: scores → weights by their sum, or by softmax.

    Dividing by the sum gives negative weights for negative scores and blows up near a sum of 0;
    softmax's ``exp`` is positive everywhere. Scores ``factor`` times larger leave the division
    unchanged but sharpen softmax; a naive ``exp(s) / Σ exp(s)`` overflows float32 past e^88.7,
    ``torch.softmax`` subtracts the largest score first.
    """

    scores: torch.Tensor  # (n,) float32
    by_sum: torch.Tensor  # (n,) scores / scores.sum()
    softmax: torch.Tensor  # (n,) torch.softmax(scores, dim=0)
    factor: float
    by_sum_extreme: torch.Tensor  # (n,) (factor · scores) / their sum
    softmax_extreme: torch.Tensor  # (n,) torch.softmax(factor · scores)
    naive_softmax_extreme: torch.Tensor  # (n,) exp(factor · s) / Σ exp(factor · s), as written

    @property
    def score_sum(self) -> float:
        return float(self.scores.sum())

    @property
    def negative(self) -> tuple[int, ...]:
        """Where dividing by the sum gives a weight below 0 (0-based)."""
        return tuple(int(i) for i in (self.by_sum < 0).nonzero().flatten())

    @property
    def by_sum_finite(self) -> bool:
        """False when the sum is 0: the division gives ±inf or NaN."""
        return bool(torch.isfinite(self.by_sum).all())

    @property
    def by_sum_largest(self) -> float:
        """The largest |weight| of the division (above 1: no weighted average does that)."""
        return float(self.by_sum.abs().max())

    @property
    def by_sum_in_range(self) -> bool:
        """Every weight of the division is in [0, 1], as a weighted average needs."""
        return self.by_sum_finite and bool(((self.by_sum >= 0) & (self.by_sum <= 1)).all())

    @property
    def top(self) -> int:
        """The largest score's index (softmax gives it the most weight)."""
        return int(self.scores.argmax())

    @property
    def extreme_by_sum_change(self) -> float:
        """How much the division's weights move when every score is ``factor`` times larger."""
        if not self.by_sum_finite:
            return float("nan")
        return float((self.by_sum_extreme - self.by_sum).abs().max())

    @property
    def naive_overflows(self) -> bool:
        """True when the naive softmax of the extreme scores is not a number everywhere."""
        return not bool(torch.isfinite(self.naive_softmax_extreme).all())


def normalisations(scores: object, factor: float = WHY_SOFTMAX_FACTOR) -> Normalisations:
    """Both of 3.3.1's normalisations of ``scores`` (1 to 64 finite numbers), and of the same
    scores ``factor`` times larger (:class:`Normalisations`)."""
    values = torch.tensor(_score_list(scores), dtype=torch.float32)  # (n,)
    factor = check_real("factor", factor, "a finite number")
    if not math.isfinite(factor) or not 0 < abs(factor) <= MAX_SCORE:
        raise AttentionInputError(
            f"factor must be a number up to {MAX_SCORE:g}, not 0; got {factor}."
        )
    extreme = values * factor  # (n,)
    with torch.no_grad():
        naive = torch.exp(extreme) / torch.exp(extreme).sum()  # (n,) overflows past e^88.7
        return Normalisations(
            scores=values,
            by_sum=values / values.sum(),
            softmax=torch.softmax(values, dim=0),
            factor=factor,
            by_sum_extreme=extreme / extreme.sum(),
            softmax_extreme=torch.softmax(extreme, dim=0),
            naive_softmax_extreme=naive,
        )


def _score_list(scores: object) -> list[float]:
    """``scores`` as 1 to :data:`MAX_SCORES` finite numbers, or an error naming the first bad one."""
    if isinstance(scores, torch.Tensor):
        if scores.layout != torch.strided or scores.device.type == "meta":
            raise AttentionInputError(f"scores must be numbers; got {describe(scores)}.")
        if scores.numel() > MAX_SCORES:
            raise AttentionInputError(f"scores: 1 to {MAX_SCORES} numbers; got {scores.numel()}.")
        scores = scores.flatten().tolist()
    if isinstance(scores, str | bytes) or not hasattr(scores, "__len__"):
        raise AttentionInputError(f"scores must be a list of numbers; got {describe(scores)}.")
    items = list(scores)  # type: ignore[call-overload]
    if not 1 <= len(items) <= MAX_SCORES:
        raise AttentionInputError(f"scores: 1 to {MAX_SCORES} numbers; got {len(items)}.")
    values = [check_real(f"scores[{i}]", value, "a finite number") for i, value in enumerate(items)]
    for i, value in enumerate(values):
        if not math.isfinite(value) or abs(value) > MAX_SCORE:
            raise AttentionInputError(
                f"scores[{i}] must be a number between -{MAX_SCORE:g} and {MAX_SCORE:g}; got {value}.",
                field=f"scores[{i}]",
            )
    return values


def _causal_weights(attn_scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Section 3.5.1: the future's scores set to -inf, then the scaled softmax. ``(T, T)``."""
    num_tokens = attn_scores.shape[0]
    future = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()  # (T, T)
    masked = attn_scores.masked_fill(future, -torch.inf)
    return torch.softmax(masked / d_k**0.5, dim=-1)


def _trainable(
    cls: type[SelfAttention_v1] | type[SelfAttention_v2],
    inputs: object,
    d_out: int,
    seed: int,
    query_index: int,
) -> TrainableAttention:
    """``torch.manual_seed(seed); cls(d_in, d_out)`` on ``inputs``, and the forward pass of 3.4
    one named step at a time, as the book's classes compute it."""
    x = _one_sequence(inputs)
    seed = check_seed(seed)
    d_out = check_int("d_out", d_out, 1, MAX_WIDTH, "the output width d_out")
    index = min(_check_query_index(query_index), x.shape[0] - 1)
    module = build_seeded(seed, lambda: cls(x.shape[1], d_out))
    with torch.no_grad():
        module_output = module(x)  # (T, d_out)
        # v1 keeps x @ W as nn.Parameter matrices; v2's nn.Linear keeps the transpose
        W_query, W_key, W_value = (  # noqa: N806 (the book's names)
            (layer if cls is SelfAttention_v1 else layer.weight.T).detach()
            for layer in (module.W_query, module.W_key, module.W_value)
        )
        keys = x @ W_key  # (T, d_out)
        queries = x @ W_query  # (T, d_out)
        values = x @ W_value  # (T, d_out)
        attn_scores = queries @ keys.T  # (T, T)
        d_k = keys.shape[-1]
        attn_weights = torch.softmax(attn_scores / d_k**0.5, dim=-1)  # (T, T)
        return TrainableAttention(
            class_name=cls.__name__,
            seed=seed,
            inputs=x,
            W_query=W_query,
            W_key=W_key,
            W_value=W_value,
            queries=queries,
            keys=keys,
            values=values,
            attn_scores=attn_scores,
            attn_weights=attn_weights,
            context=attn_weights @ values,  # (T, d_out)
            module_output=module_output,
            masked_weights=_causal_weights(attn_scores, d_k),
            query_index=index,
        )


def self_attention_v1(
    inputs: object,
    d_out: int = 2,
    seed: int = BOOK_SEED_V1,
    query_index: int = BOOK_QUERY_INDEX,
) -> TrainableAttention:
    """Section 3.4.1: ``torch.manual_seed(seed); SelfAttention_v1(d_in, d_out)`` on ``inputs``
    (weights ``torch.rand`` drawn in the order W_query, W_key, W_value).
    """
    return _trainable(SelfAttention_v1, inputs, d_out, seed, query_index)


def self_attention_v2(
    inputs: object,
    d_out: int = 2,
    seed: int = BOOK_SEED_V2,
    query_index: int = BOOK_QUERY_INDEX,
) -> TrainableAttention:
    """Section 3.4.2: ``torch.manual_seed(seed); SelfAttention_v2(d_in, d_out)`` on ``inputs``
    (the ``W_*`` fields are the layers' ``weight.T``).
    """
    return _trainable(SelfAttention_v2, inputs, d_out, seed, query_index)


@dataclass(frozen=True)
class DropoutDemo:
    """Section 3.5.2's demo: ``nn.Dropout(p)`` on ``torch.ones(6, 6)``, then on 3.5.1's masked
    weights, each after ``torch.manual_seed(seed)``. Kept entries grow by ``1/(1 − p)``.
    """

    seed: int
    p: float
    ones: torch.Tensor  # (T, T) dropout(torch.ones(T, T)): 0 or 1/(1 − p)
    attn_weights: torch.Tensor  # (T, T) v2's masked weights, before dropout
    dropped_weights: torch.Tensor  # (T, T) dropout(attn_weights)

    @property
    def vanished_rows(self) -> tuple[int, ...]:
        """Rows whose every weight was dropped (0-based): those queries get a zero context."""
        empty = (self.dropped_weights == 0).all(dim=-1)  # (T,)
        return tuple(int(i) for i in empty.nonzero().flatten())

    @property
    def vanished(self) -> tuple[DroppedRow, ...]:
        """:attr:`vanished_rows` with their chance: under the causal mask row ``i`` sees
        ``i + 1`` keys, each dropped with probability ``p``, so it vanishes with ``p ** (i + 1)``."""
        return tuple(
            DroppedRow(query=row, head=0, visible=row + 1, chance=self.p ** (row + 1))
            for row in self.vanished_rows
        )


def dropout_demo(inputs: object, seed: int = BOOK_SEED_V1, p: float = BOOK_DROPOUT) -> DropoutDemo:
    """The book's 3.5.2 demo on ``inputs``; each draw from a fresh generator seeded by ``seed``."""
    x = _one_sequence(inputs)
    seed, p = check_seed(seed), check_dropout(p)
    attn_weights = self_attention_v2(x).masked_weights  # (T, T)
    return DropoutDemo(
        seed=seed,
        p=p,
        ones=dropout_on_ones(seed, p, size=x.shape[0]),  # (T, T)
        attn_weights=attn_weights,
        dropped_weights=attn_weights * dropout_noise(attn_weights, p, private_generator(seed)),
    )


def _strip_annotations(tree: ast.AST) -> None:
    """Remove the type hints of every function in ``tree``: the book's code has none."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
            arguments = node.args
            for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
                argument.annotation = None


def _code_lines(cls: type) -> list[str]:
    """A class's statements as the book writes them (``ast.unparse``: no docstring, comments or
    type hints), so the diff shows only what the book changes.
    """
    tree = ast.parse(inspect.getsource(cls)).body[0]
    assert isinstance(tree, ast.ClassDef)
    first = tree.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        tree.body = tree.body[1:]  # the docstring
    _strip_annotations(tree)
    kept: list[str] = []
    for line in ast.unparse(tree).splitlines():
        if line.strip() or (kept and kept[-1].strip() and not kept[-1].startswith("class ")):
            kept.append(line)  # one blank line between methods, none after the class line
    return kept


def causal_diff(context: int = 2) -> str:
    """``SelfAttention_v2`` → ``CausalAttention`` as a unified diff of their source code (``+`` what
    section 3.5 adds, ``-`` what it replaces, ``context`` unchanged lines around each change).
    """
    return _causal_diff(check_int("context", context, 0, 1000, "unchanged lines around a change"))


@lru_cache(maxsize=8)
def _causal_diff(context: int) -> str:
    """:func:`causal_diff` of a checked ``context``, cached (an argument must be hashable)."""
    return "\n".join(
        difflib.unified_diff(
            _code_lines(SelfAttention_v2),
            _code_lines(CausalAttention),
            fromfile="SelfAttention_v2",
            tofile="CausalAttention",
            n=context,
            lineterm="",
        )
    )
