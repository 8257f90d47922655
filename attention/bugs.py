"""A gallery of real attention bugs: the book's forward pass with one or two steps changed.

Each bug is :func:`attention.forward.run_forward` with some steps replaced by name. :data:`BUGS`
holds the book's statement it changes (read from ``attention/modules.py``), the line written
instead and how to spot it; ``bug.cls`` is a class on the book's ``CausalAttention`` (or
``MultiHeadAttention``) that runs those steps::

    bug = BUGS["mask_inverted"]
    print(bug.diff)                     # - the book's statement / + the buggy one
    layer = bug.cls(3, 2, 6, 0.0)      # a module like CausalAttention(3, 2, 6, 0.0)
    comparison = compare_bug("no_scaling", inputs, AttentionConfig(seed=123))

These bugs shipped in well-known code (SDPA's ``True = attend`` mask, ``dropout_p`` left on in
eval, √d_model for √d_head, heads split without ``transpose``, ...). The KV-cache bug
(``bug.cached``, the book's PR #697: ``mask[:q, :n]``) hides nothing wrong on a full pass, so it
runs through a cache (:func:`attention.kv_cache.through_cache`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from .book_code import book_line, find_statement
from .forward import ForwardState, run_forward
from .kv_cache import cached_steps, slipped_mask_rows, through_cache
from .modules import CausalAttention, MultiHeadAttention
from .randomness import draws_from, private_generator
from .steps import STEP_FIELDS, STEPS, Made, StepFunction, context_of, step_named
from .trace import AttentionConfig
from .validate import (
    MAX_ATTENTION_CELLS,
    AttentionInputError,
    check_attention_size,
    check_instance,
    check_int,
    check_tensor,
    describe,
    to_input_tensor,
)

__all__ = [
    "BUGS",
    "Bug",
    "BugComparison",
    "compare_bug",
    "earlier_outputs_moved",
]

Steps = dict[str, torch.Tensor]


# --- the steps the bugs write instead of the book's ---------------------------------------------


def _book(step: str, state: ForwardState) -> Made:
    """What the book's step ``step`` makes (a bug that changes only part of a step starts here)."""
    return step_named(step).run(state)


def _mask_inverted(state: ForwardState) -> Made:
    return {"mask": ~_book("mask", state)["mask"]}  # hides the past and the token, not the future


def _mask_with_diagonal(state: ForwardState) -> Made:
    ones = torch.ones(state.num_tokens, state.num_tokens)
    return {"mask": torch.triu(ones, diagonal=0).bool()}  # the diagonal is hidden too


def _nothing_masked(state: ForwardState) -> Made:
    return {"masked_scores": state["attn_scores"]}  # no −∞ anywhere: the future stays visible


def _scaled_by(divisor: Callable[[ForwardState], float]) -> StepFunction:
    def scaled(state: ForwardState) -> Made:
        return {"scaled_scores": state["masked_scores"] / divisor(state)}

    return scaled


def _softmax_over_queries(state: ForwardState) -> Made:
    return {"attn_weights": torch.softmax(state["scaled_scores"], dim=-2)}  # columns sum to 1


def _softmax_then_zero_hidden(state: ForwardState) -> Made:
    weights = torch.softmax(state["scaled_scores"], dim=-1)  # the future is in every denominator
    return {"attn_weights": weights.masked_fill(state["mask"], 0.0)}  # not renormalised


def _sdpa_softmax(state: ForwardState) -> Made:
    """SDPA's softmax: a row with every key hidden gets the weights 0 instead of NaN."""
    return {"attn_weights": torch.softmax(state["scaled_scores"], dim=-1).nan_to_num(nan=0.0)}


def _dropout_on_scores(state: ForwardState) -> Made:
    scores = _book("scores", state)["attn_scores"]
    return {"attn_scores": state.drop(scores, state.dropping)[1]}


def _no_dropout_on_weights(state: ForwardState) -> Made:
    return {"dropout_mask": None, "dropped_weights": state["attn_weights"]}


def _dropout_always(state: ForwardState) -> Made:
    keep, dropped = state.drop(state["attn_weights"], True)  # training=True, whatever the mode
    return {"dropout_mask": keep, "dropped_weights": dropped}


def _dropout_unscaled(state: ForwardState) -> Made:
    keep, dropped = state.drop(state["attn_weights"], state.dropping, scaled=False)
    return {"dropout_mask": keep, "dropped_weights": dropped}


def _context_of_keys(state: ForwardState) -> Made:
    return context_of(state, state["keys"])


def _heads_by_view_alone(state: ForwardState) -> Made:
    layer, x = state.layer, state.inputs
    b, num_tokens, _ = x.shape

    def split(projected: torch.Tensor) -> torch.Tensor:  # the right shape, the wrong numbers
        return projected.view(b, layer.num_heads, num_tokens, layer.head_dim)

    return {
        "keys": split(layer.W_key(x)),
        "queries": split(layer.W_query(x)),
        "values": split(layer.W_value(x)),
    }


def _no_out_proj(state: ForwardState) -> Made:
    made = _book("context", state)
    return {**made, "output": made["context"]}  # the heads joined but never mixed


# --- the gallery -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bug:
    """One bug: the book's forward pass with ``overrides`` (step name → code) in place of its steps.

    ``book_anchors`` find the book's statements it changes (in ``source``, the book's class by
    default); ``code`` is what it writes instead; ``spot`` says how to spot it (the app shows
    ``find_the_bug.spot.<name>`` in the reader's language). ``forward_class``: a class written by
    hand (the SDPA bugs). ``cached``: the overrides act on the passes of a KV cache.
    """

    name: str
    title: str
    overrides: Mapping[str, StepFunction] = field(repr=False)
    book_anchors: tuple[str, ...]
    code: str
    spot: str
    future_leak: bool = False  # a later token changes earlier outputs
    multi_head: bool = False
    forward_class: type[nn.Module] | None = None
    cached: bool = False  # a KV-cache slip: it runs on tokens fed through a cache
    source: Callable[..., Any] | None = field(default=None, repr=False)  # where anchors are

    @property
    def steps(self) -> tuple[str, ...]:
        """The names of the steps of ``attention.steps.STEPS`` it changes, in order."""
        return tuple(step.name for step in STEPS if step.name in self.overrides)

    @property
    def book_class(self) -> type[nn.Module]:
        return MultiHeadAttention if self.multi_head else CausalAttention

    @cached_property
    def cls(self) -> type[nn.Module]:
        """A class with the book's constructor whose ``forward`` is the book's with this bug."""
        if self.forward_class is not None:
            return self.forward_class
        overrides, base, cached = self.overrides, self.book_class, self.cached

        def forward(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
            if cached:  # the first T − 1 tokens, then the last, through a cache with the slip
                return through_cache(module, x, None, slip=True)["output"]
            return run_forward(module, x, None, overrides)["output"]  # global generator

        name = "".join(part.title() for part in self.name.split("_"))
        namespace = {"forward": forward, "bug": self.name, "__module__": __name__}
        namespace["__doc__"] = f"The book's {base.__name__} with one bug: {self.title}."
        return type(name, (base,), namespace)

    @property
    def anchored_in(self) -> Any:
        """The code the book's statements are read from: the book's class, or ``source``."""
        return self.book_class if self.source is None else self.source

    @property
    def book_file(self) -> str:
        """The file of those statements: ``attention/modules.py`` (the KV cache's: its own)."""
        return self.anchored_in.__module__.replace(".", "/") + ".py"

    @property
    def book_code(self) -> str:
        """The right statements that this bug changes, read from :attr:`book_file`."""
        return "\n".join(book_line(anchor, self.anchored_in) for anchor in self.book_anchors)

    @property
    def book_line_numbers(self) -> tuple[int, int]:
        """The first and last line, in :attr:`book_file`, of the statements it changes."""
        found = [find_statement(self.anchored_in, anchor) for anchor in self.book_anchors]
        return min(s.first_line for s in found), max(s.last_line for s in found)

    @property
    def diff(self) -> str:
        """The change as a diff: ``-`` before the book's lines, ``+`` before the bug's."""
        removed = [f"- {line}" for line in self.book_code.splitlines()]
        added = [f"+ {line}" for line in self.code.splitlines()]
        return "\n".join(removed + added)


class _SdpaBug(CausalAttention):
    """``F.scaled_dot_product_attention`` in place of the book's four statements."""

    bug = ""
    inverted_mask = False  # the book's mask given as it is: SDPA reads True = attend
    dropout_in_eval = False  # dropout_p given whatever the mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # True = a future token
        attend = mask_bool if self.inverted_mask else ~mask_bool  # SDPA: True = attend
        p = self.dropout.p if (self.training or self.dropout_in_eval) else 0.0
        return F.scaled_dot_product_attention(queries, keys, values, attn_mask=attend, dropout_p=p)


class SdpaBoolMask(_SdpaBug):
    bug = "sdpa_bool_mask"
    inverted_mask = True


class SdpaDropoutInEval(_SdpaBug):
    bug = "sdpa_dropout_in_eval"
    dropout_in_eval = True


_SDPA_REPLACED = (
    "attn_scores = queries @ keys.transpose(1, 2)",
    "attn_scores.masked_fill_(",
    "torch.softmax(",
    "attn_weights = self.dropout(attn_weights)",
    "context_vec = attn_weights @ values",
)

_GALLERY = (
    Bug(
        "mask_inverted",
        "Inverted mask",
        overrides={"mask": _mask_inverted},
        book_anchors=("attn_scores.masked_fill_(",),
        code="attn_scores.masked_fill_(~self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)",
        spot="Each token sees only the tokens after it: the weights sit above the diagonal, a later "
        "token changes earlier outputs, and the last row is NaN (every key hidden).",
        future_leak=True,
    ),
    Bug(
        "mask_diagonal",
        "Mask hides the token itself",
        overrides={"mask": _mask_with_diagonal},
        book_anchors=('"mask", torch.triu(',),
        code='self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), '
        "diagonal=0))",
        spot="The diagonal is hidden too: a token never attends to itself, and the first token, "
        "which has nothing before it, gets NaN.",
    ),
    Bug(
        "mask_not_applied",
        "Mask registered but never applied",
        overrides={"masked": _nothing_masked},
        book_anchors=("attn_scores.masked_fill_(",),
        code="# attn_scores.masked_fill_(…) left out: self.mask is registered but never used",
        spot="Nothing fails and every row sums to 1, but the weights above the diagonal are not 0: "
        "each token attends to the tokens after it, so a later token changes every earlier output.",
        future_leak=True,
    ),
    Bug(
        "no_scaling",
        "No scaling",
        overrides={"scaled": _scaled_by(lambda state: 1.0)},
        book_anchors=("torch.softmax(",),
        code="attn_weights = torch.softmax(attn_scores, dim=-1)",
        spot="The weights are sharper than the book's (closer to 0 and 1) but rows still sum to 1 "
        "and nothing leaks; the gap grows with d_out.",
    ),
    Bug(
        "wrong_scaling",
        "Scaled by √d_in",
        overrides={"scaled": _scaled_by(lambda state: state.inputs.shape[-1] ** 0.5)},
        book_anchors=("torch.softmax(",),
        code="attn_weights = torch.softmax(attn_scores / d_in**0.5, dim=-1)",
        spot="Scaled by the input width √d_in instead of the key width √d_k: the weights are a little "
        "sharper or flatter than the book's, rows still sum to 1; the same when d_in = d_out.",
    ),
    Bug(
        "scale_by_d_k",
        "Scaled by d_k (no square root)",
        overrides={"scaled": _scaled_by(lambda state: float(state["keys"].shape[-1]))},
        book_anchors=("torch.softmax(",),
        code="attn_weights = torch.softmax(attn_scores / keys.shape[-1], dim=-1)",
        spot="Divided by d_k instead of √d_k: the weights are flatter than the book's; rows sum to 1; "
        "the same only when d_k = 1.",
    ),
    Bug(
        "softmax_wrong_dim",
        "Softmax over the wrong axis",
        overrides={"softmax": _softmax_over_queries},
        book_anchors=("torch.softmax(",),
        code="attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=1)",
        spot="Columns sum to 1 instead of rows (the last key, seen by the last query alone, gets "
        "weight 1 there), and a later token changes earlier outputs through the column sums.",
        future_leak=True,
    ),
    Bug(
        "mask_after_softmax",
        "Mask after softmax, not renormalised",
        overrides={"masked": _nothing_masked, "softmax": _softmax_then_zero_hidden},
        book_anchors=("attn_scores.masked_fill_(", "torch.softmax("),
        code="attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)\n"
        "attn_weights = attn_weights.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], 0.0)",
        spot="Rows sum to less than 1 (only the last row sums to 1), and a later token changes "
        "earlier outputs: its score was in every row's softmax denominator.",
        future_leak=True,
    ),
    Bug(
        "dropout_before_softmax",
        "Dropout on the scores",
        overrides={"scores": _dropout_on_scores, "dropout": _no_dropout_on_weights},
        book_anchors=(
            "attn_scores = queries @ keys.transpose(1, 2)",
            "attn_weights = self.dropout(",
        ),
        code="attn_scores = self.dropout(queries @ keys.transpose(1, 2))",
        spot="In training mode rows still sum to 1 and no weight is exactly 0 (a dropped score becomes "
        "0, not −∞); in eval mode it is the book's class.",
    ),
    Bug(
        "dropout_in_eval",
        "Dropout also in eval mode",
        overrides={"dropout": _dropout_always},
        book_anchors=("attn_weights = self.dropout(",),
        code="attn_weights = F.dropout(attn_weights, self.dropout.p)  # training=True by default",
        spot="In training mode it is the book's class; after model.eval() weights are still dropped, "
        "so two runs on the same input give different outputs.",
    ),
    Bug(
        "dropout_unscaled",
        "Hand-made dropout without 1/(1−p)",
        overrides={"dropout": _dropout_unscaled},
        book_anchors=("attn_weights = self.dropout(",),
        code="attn_weights = attn_weights * torch.empty_like(attn_weights).bernoulli_(1 - p)  "
        "# if training",
        spot="Kept weights keep their value instead of growing by 1/(1−p), so in training mode the "
        "outputs are (1−p) times too small on average; in eval mode it is the book's class.",
    ),
    Bug(
        "values_from_keys",
        "Weights applied to the keys",
        overrides={"context": _context_of_keys},
        book_anchors=("context_vec = attn_weights @ values",),
        code="context_vec = attn_weights @ keys",
        spot="Every weight is right, only the context vectors differ: they mix key vectors, and "
        "W_value has no effect at all.",
    ),
    Bug(
        "sdpa_bool_mask",
        "The book's mask given to SDPA",
        overrides={"mask": _mask_inverted, "softmax": _sdpa_softmax},
        book_anchors=_SDPA_REPLACED,
        code="context_vec = F.scaled_dot_product_attention(\n"
        "    queries, keys, values, attn_mask=self.mask.bool()[:num_tokens, :num_tokens],\n"
        "    dropout_p=self.dropout.p if self.training else 0.0)",
        spot="SDPA reads a boolean mask as True = attend, the book's mask as True = hide: each token "
        "sees only later tokens, and the last token's output is all zeros.",
        future_leak=True,
        forward_class=SdpaBoolMask,
    ),
    Bug(
        "sdpa_dropout_in_eval",
        "SDPA's dropout_p left on in eval mode",
        overrides={"softmax": _sdpa_softmax, "dropout": _dropout_always},
        book_anchors=_SDPA_REPLACED,
        code="context_vec = F.scaled_dot_product_attention(\n"
        "    queries, keys, values, attn_mask=~self.mask.bool()[:num_tokens, :num_tokens],\n"
        "    dropout_p=self.dropout.p)",
        spot="SDPA has no training flag: dropout_p keeps dropping after model.eval(), so eval outputs "
        "change from run to run; in training mode it is the book's class.",
        forward_class=SdpaDropoutInEval,
    ),
    Bug(
        "heads_without_transpose",
        "Heads split by view alone",
        overrides={"qkv": _heads_by_view_alone},
        book_anchors=("keys = keys.view(", "keys = keys.transpose(1, 2)"),
        code="keys = keys.view(b, self.num_heads, num_tokens, self.head_dim)  # no transpose",
        spot="The shapes are right, so nothing fails; but a head's rows are no longer tokens (each "
        "holds pieces of neighbouring tokens), so the causal mask hides the wrong things and a "
        "later token changes earlier outputs.",
        future_leak=True,
        multi_head=True,
    ),
    Bug(
        "no_out_proj",
        "out_proj left out",
        overrides={"context": _no_out_proj},
        book_anchors=("context_vec = self.out_proj(context_vec)",),
        code="# context_vec = self.out_proj(context_vec)",
        spot="Every head's weights are right and nothing leaks; only the last step differs: the heads' "
        "outputs are concatenated but never mixed, and out_proj gets no gradient.",
        multi_head=True,
    ),
    Bug(
        "scale_by_d_out",
        "Scaled by √d_out, not √head_dim",
        overrides={"scaled": _scaled_by(lambda state: state.layer.d_out**0.5)},
        book_anchors=("torch.softmax(",),
        code="attn_weights = torch.softmax(attn_scores / self.d_out**0.5, dim=-1)",
        spot="Every head is scaled by the whole width instead of its own head_dim: weights flatter "
        "than the book's, rows still sum to 1; the same with one head.",
        multi_head=True,
    ),
    Bug(
        "kv_cache_mask_slice",
        "KV cache: the mask sliced from row 0",
        overrides={"mask": slipped_mask_rows},
        book_anchors=("[start : start + q, :n]",),
        code=book_line("[:q, :n].bool()", slipped_mask_rows),
        spot="A full pass is the book's (q = n): the slip shows only through a cache. Fed the "
        "first tokens, then the last alone, the first rows agree and the last differs: its one "
        "query gets the mask row of position 0, so it sees only the first key (weight 1).",
        multi_head=True,
        cached=True,
        source=cached_steps,
    ),
)

BUGS: dict[str, Bug] = {bug.name: bug for bug in _GALLERY}

# The tensors compared and shown, queries to output: every step's but dropout's keep-mask (a bug
# that moves the dropout draws shows in dropped_weights).
STEP_ENTRIES = tuple(name for name in STEP_FIELDS if name != "dropout_mask")


def run_steps(module: nn.Module, x: torch.Tensor, generator: torch.Generator | None) -> Steps:
    """Every step of a forward pass of the book's class or a gallery bug (its ``bug`` attribute);
    dropout from ``generator``, or torch's global generator when None.
    """
    bug = BUGS.get(getattr(module, "bug", ""))
    if bug is not None and bug.cached:  # a KV-cache bug runs where it bites: through a cache
        made = through_cache(module, x, generator, slip=True)
    else:
        made = run_forward(module, x, generator, None if bug is None else bug.overrides)
    return {name: made[name] for name in STEP_ENTRIES}


# --- what a bug does to a learner's numbers ---------------------------------------------------


def earlier_outputs_moved(
    forward: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, position: int
) -> torch.Tensor:
    """Change token ``position`` of ``x`` ``(b, T, d_in)``: ``(position,)`` booleans, True where an
    earlier output moved (a causal layer keeps them all False). ``forward`` must be deterministic.
    """
    if not callable(forward):
        raise AttentionInputError(f"forward must be a function; got {describe(forward)}.")
    if check_tensor("x", x).dim() != 3 or x.numel() > MAX_ATTENTION_CELLS:
        raise AttentionInputError(f"x must be (b, T, d_in); got {describe(x)}.", field="x")
    position = check_int("position", position, 0, x.shape[1] - 1, "the token to change")
    changed = x.clone()
    changed[:, position] = 1.0 - 2.0 * x[:, position]  # another token at this place
    before = forward(x)[:, :position]  # (b, position, d_out)
    after = forward(changed)[:, :position]
    same = torch.isclose(before, after, rtol=1e-4, atol=1e-6, equal_nan=True)
    return ~same.all(dim=-1).all(dim=0)


@dataclass(frozen=True)
class BugComparison:
    """The book's class and a bug on the same weights, inputs and dropout draws (batch item 0).

    ``moved``: which outputs before ``leak_position`` moved when it changed; ``train_eval``: the
    largest output difference per mode; ``full_pass_difference`` (a KV-cache bug, run through a
    cache): the book's side's distance from its full pass.
    """

    bug: Bug
    book: dict[str, torch.Tensor]
    buggy: dict[str, torch.Tensor]
    changed_steps: tuple[str, ...]
    max_difference: float  # NaN when an output is NaN
    leak_position: int
    moved: torch.Tensor  # (leak_position,) bool
    train_eval: dict[str, float]
    num_heads: int
    full_pass_difference: float | None = None  # a cached bug: the book's side vs a full pass

    @property
    def output_difference(self) -> torch.Tensor:
        """The bug's output minus the book's, ``(T, d_out)``."""
        return self.buggy["output"] - self.book["output"]

    @property
    def row_sums(self) -> torch.Tensor:
        """The bug's attention weights' row sums, ``(T,)`` (head 0): 1 for the book's."""
        weights = self.buggy["attn_weights"]
        return (weights[0] if weights.dim() == 3 else weights).sum(dim=-1)

    @property
    def future_leak(self) -> bool:
        return bool(self.moved.any())


def _build(cls: type[nn.Module], args: tuple[Any, ...], cfg: AttentionConfig) -> tuple:
    generator = private_generator(cfg.seed)  # the weights, then the dropout draws
    with draws_from(generator):
        module = cls(*args, qkv_bias=cfg.qkv_bias)
    module.train(cfg.training)
    return module, generator


def _max_difference(a: torch.Tensor, b: torch.Tensor) -> float:
    if bool(torch.isnan(a).any() | torch.isnan(b).any()):
        return float("nan")
    return float((a - b).abs().max())


def _check_name(name: Any) -> str:
    """A name of :data:`BUGS`; else an error naming the closest names and where all are listed."""
    if isinstance(name, str) and name in BUGS:
        return name
    close = difflib.get_close_matches(name, BUGS, n=3) if isinstance(name, str) else []
    shown = close or list(BUGS)[:4]
    raise AttentionInputError(
        f"No bug named {describe(name, 40)}; {'did you mean' if close else 'there is'} "
        f"{', '.join(map(repr, shown))}{'?' if close else ', …'} (all {len(BUGS)} names: the "
        "keys of attention.bugs.BUGS).",
        field="name",
        params={"choices": tuple(BUGS)},
    )


def _check_cfg(cfg: Any) -> AttentionConfig:
    """``cfg`` checked as a trace checks it (its sizes, seed and dropout), before any module."""
    check_instance("cfg", cfg, AttentionConfig, " (e.g. AttentionConfig(seed=123))")
    replace(cfg, variant="wrapper").validated()  # a multi-head bug widens d_out to fit the heads
    return cfg


def compare_bug(name: str, inputs: Any, cfg: AttentionConfig | None = None) -> BugComparison:
    """Run the book's class and bug ``name`` on ``inputs`` ``(T, d_in)`` with ``cfg``; what differs.
    Both draw weights, then dropout masks, from one private generator; a multi-head bug uses
    ``cfg.num_heads`` heads (two when it is one).
    """
    bug = BUGS[_check_name(name)]
    cfg = AttentionConfig() if cfg is None else _check_cfg(cfg)
    x = to_input_tensor(inputs)[:1]  # (1, T, d_in)
    num_tokens, d_in = x.shape[1], x.shape[2]
    num_heads = 1
    args: tuple[Any, ...] = (d_in, cfg.d_out, num_tokens, cfg.dropout)
    if bug.multi_head:
        num_heads = cfg.num_heads if cfg.num_heads > 1 else 2
        d_out = cfg.d_out if cfg.d_out % num_heads == 0 else cfg.d_out * num_heads
        args = (d_in, d_out, num_tokens, cfg.dropout, num_heads)
    # the book's and the bug's steps are kept while the checks run more passes: four traces' worth
    check_attention_size(1, num_heads, num_tokens, traces=4)

    book_class = bug.book_class

    def run(cls: type[nn.Module], training: bool, data: torch.Tensor) -> Steps:
        module, generator = _build(cls, args, replace(cfg, training=training))
        with torch.no_grad():
            if bug.cached and cls is book_class:  # the book's layer through a cache, right rows
                made = through_cache(module, data, generator)
                return {name: made[name] for name in STEP_ENTRIES}
            return run_steps(module, data, generator)

    book = run(book_class, cfg.training, x)
    buggy = run(bug.cls, cfg.training, x)
    changed = tuple(
        step
        for step in STEP_ENTRIES
        if book[step].shape != buggy[step].shape
        or not torch.allclose(book[step], buggy[step], rtol=1e-5, atol=1e-6, equal_nan=True)
    )
    position = num_tokens - 1
    moved = (
        earlier_outputs_moved(lambda data: run(bug.cls, cfg.training, data)["output"], x, position)
        if position > 0
        else torch.zeros(0, dtype=torch.bool)
    )
    train_eval = {
        mode: _max_difference(
            run(book_class, mode == "train", x)["output"],
            run(bug.cls, mode == "train", x)["output"],
        )
        for mode in ("train", "eval")
    }
    full_pass_difference = None
    if bug.cached:  # in eval mode: the cache changes the shapes, so dropout draws other masks
        module, generator = _build(book_class, args, replace(cfg, training=False))
        with torch.no_grad():
            full = run_steps(module, x, generator)["output"]
        full_pass_difference = _max_difference(full, run(book_class, False, x)["output"])

    def item_0(steps: Steps) -> Steps:  # batch item 0 of every step; the mask has no batch axis
        return {key: value if key == "mask" else value[0] for key, value in steps.items()}

    return BugComparison(
        bug=bug,
        book=item_0(book),
        buggy=item_0(buggy),
        changed_steps=changed,
        max_difference=_max_difference(book["output"], buggy["output"]),
        leak_position=position,
        moved=moved,
        train_eval=train_eval,
        num_heads=num_heads,
        full_pass_difference=full_pass_difference,
    )
