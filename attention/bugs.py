"""A gallery of real attention bugs: the book's class with one line changed, and what that does.

Each bug is a subclass of the book's ``CausalAttention`` (or ``MultiHeadAttention``) with the
book's constructor, so it can be built, given the book's weights and run like the book's class.
:data:`BUGS` holds them by name with what a learner needs: the book's statement it changes (read
from ``attention/modules.py`` itself, see :mod:`attention.book_code`), the line written instead,
the steps it changes and a sentence on how to spot it::

    from attention.bugs import BUGS, compare_bug
    bug = BUGS["mask_inverted"]
    print(bug.diff)                     # - the book's statement / + the buggy one
    layer = bug.cls(3, 2, 6, 0.0)      # a module like CausalAttention(3, 2, 6, 0.0)
    comparison = compare_bug("no_scaling", inputs, AttentionConfig(seed=123))

These are bugs that shipped in well-known code: an SDPA boolean mask given the book's
``True = hide`` meaning (SDPA reads ``True = attend``), SDPA's ``dropout_p`` left on after
``model.eval()``, √d_model instead of √d_head, heads split with ``view`` and no ``transpose``,
the mask applied after softmax without renormalising.

The causal bugs run one forward pass, :func:`_causal_steps`: the book's forward pass written step
by step, where each bug changes the one statement it names. It keeps every step (for the Find the
bug page) and draws dropout either from torch's global generator, as ``nn.Dropout`` does (the
classes' ``forward``), or from a private generator (the page, see :mod:`attention.randomness`).
The two SDPA bugs call ``F.scaled_dot_product_attention`` in their ``forward``; their steps are
what SDPA computes inside.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import torch
import torch.nn as nn
import torch.nn.functional as F

from .book_code import book_line, find_statement
from .modules import CausalAttention, MultiHeadAttention
from .randomness import draws_from, dropout_noise, private_generator
from .trace import AttentionConfig
from .validate import check_attention_size, to_input_tensor

__all__ = [
    "BUGS",
    "Bug",
    "BugComparison",
    "compare_bug",
    "earlier_outputs_moved",
    "run_steps",
]

Steps = dict[str, torch.Tensor]


# --- dropout, from the global generator (as nn.Dropout) or a private one ----------------------


def _dropout(
    weights: torch.Tensor, p: float, active: bool, generator: torch.Generator | None
) -> torch.Tensor:
    """``F.dropout(weights, p, active)``: from the global generator, or bitwise the same draw
    from ``generator``."""
    if not active or p == 0.0:
        return weights
    if generator is None:
        return F.dropout(weights, p, True)
    return weights * dropout_noise(weights, p, generator)


def _keep_mask(like: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    """A hand-made keep mask, 1 = kept: the same draw nn.Dropout makes, without its 1/(1−p)."""
    return torch.empty_like(like).bernoulli_(1.0 - p, generator=generator)


# --- the causal bugs: the book's forward, one statement changed --------------------------------


def _causal_steps(
    module: CausalAttention, x: torch.Tensor, bug: str | None, generator: torch.Generator | None
) -> Steps:
    """Every step of ``module``'s forward pass on ``x`` ``(b, T, d_in)``, with ``bug`` in place.

    ``bug=None`` is the book's ``CausalAttention.forward``. ``hidden`` is True where a score is
    hidden; ``attn_weights`` are the weights leaving the softmax step (row sums shown by the page).
    """
    b, num_tokens, d_in = x.shape
    p, training = module.dropout.p, module.training
    keys = module.W_key(x)  # (b, T, d_out)
    queries = module.W_query(x)
    values = module.W_value(x)
    attn_scores = queries @ keys.transpose(1, 2)  # (b, T, T)
    if bug == "dropout_before_softmax":
        attn_scores = _dropout(attn_scores, p, training, generator)
    mask_bool = module.mask.bool()[:num_tokens, :num_tokens]  # (T, T), True = hide
    hidden = ~mask_bool if bug in ("mask_inverted", "sdpa_bool_mask") else mask_bool
    d_k = keys.shape[-1]
    scale = {"no_scaling": 1.0, "wrong_scaling": d_in**0.5, "scale_by_d_k": float(d_k)}.get(
        bug or "", d_k**0.5
    )
    if bug == "mask_after_softmax":
        masked_scores = attn_scores  # nothing hidden before softmax
        scaled_scores = masked_scores / scale
        attn_weights = torch.softmax(scaled_scores, dim=-1).masked_fill(hidden, 0.0)
    else:
        masked_scores = attn_scores.masked_fill(hidden, -torch.inf)
        scaled_scores = masked_scores / scale
        attn_weights = torch.softmax(scaled_scores, dim=1 if bug == "softmax_wrong_dim" else -1)
    if bug in SDPA_BUGS:  # SDPA gives a row with every key hidden the weights 0, not NaN
        attn_weights = attn_weights.masked_fill(hidden.all(dim=-1, keepdim=True), 0.0)
    if bug == "dropout_unscaled":
        keep = _keep_mask(attn_weights, p, generator) if training and p > 0 else None
        dropped_weights = attn_weights if keep is None else attn_weights * keep
    elif bug == "dropout_before_softmax":
        dropped_weights = attn_weights  # dropout already acted on the scores
    else:
        always = bug in ("dropout_in_eval", "sdpa_dropout_in_eval")
        dropped_weights = _dropout(attn_weights, p, training or always, generator)
    context_vec = dropped_weights @ (keys if bug == "values_from_keys" else values)
    return {
        "queries": queries,
        "keys": keys,
        "values": values,
        "attn_scores": attn_scores,
        "mask": hidden,
        "masked_scores": masked_scores,
        "scaled_scores": scaled_scores,
        "attn_weights": attn_weights,
        "dropped_weights": dropped_weights,
        "context": context_vec,
        "output": context_vec,
    }


class _CausalBug(CausalAttention):
    """The book's ``CausalAttention`` with the statement of ``bug`` changed (see ``BUGS``)."""

    bug: ClassVar[str]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _causal_steps(self, x, self.bug, None)["output"]


class MaskInverted(_CausalBug):
    bug = "mask_inverted"


class MaskDiagonal(_CausalBug):
    """``torch.triu(…, diagonal=0)``: the mask hides each token from itself too."""

    bug = "mask_diagonal"

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        qkv_bias: bool = False,
    ) -> None:
        super().__init__(d_in, d_out, context_length, dropout, qkv_bias)
        self.register_buffer(
            "mask", torch.triu(torch.ones(context_length, context_length), diagonal=0)
        )


class NoScaling(_CausalBug):
    bug = "no_scaling"


class WrongScaling(_CausalBug):
    bug = "wrong_scaling"


class ScaleByDk(_CausalBug):
    bug = "scale_by_d_k"


class SoftmaxWrongDim(_CausalBug):
    bug = "softmax_wrong_dim"


class MaskAfterSoftmax(_CausalBug):
    bug = "mask_after_softmax"


class DropoutBeforeSoftmax(_CausalBug):
    bug = "dropout_before_softmax"


class DropoutInEval(_CausalBug):
    bug = "dropout_in_eval"


class DropoutUnscaled(_CausalBug):
    bug = "dropout_unscaled"


class ValuesFromKeys(_CausalBug):
    bug = "values_from_keys"


class _SdpaBug(_CausalBug):
    """``F.scaled_dot_product_attention`` in place of the book's four statements."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # True = a future token
        attend = mask_bool if self.bug == "sdpa_bool_mask" else ~mask_bool  # SDPA: True = attend
        p = self.dropout.p if (self.training or self.bug == "sdpa_dropout_in_eval") else 0.0
        return F.scaled_dot_product_attention(queries, keys, values, attn_mask=attend, dropout_p=p)


class SdpaBoolMask(_SdpaBug):
    bug = "sdpa_bool_mask"


class SdpaDropoutInEval(_SdpaBug):
    bug = "sdpa_dropout_in_eval"


SDPA_BUGS = ("sdpa_bool_mask", "sdpa_dropout_in_eval")


# --- the multi-head bugs -------------------------------------------------------------------------


def _multi_head_steps(
    module: MultiHeadAttention, x: torch.Tensor, bug: str | None, generator: torch.Generator | None
) -> Steps:
    """Every step of ``MultiHeadAttention.forward`` on ``x``, with ``bug`` in place (None: the book)."""
    b, num_tokens, d_in = x.shape
    h, head_dim = module.num_heads, module.head_dim

    def split(t: torch.Tensor) -> torch.Tensor:  # (b, T, d_out) -> (b, h, T, head_dim)
        if bug == "heads_without_transpose":
            return t.view(b, h, num_tokens, head_dim)  # the right shape, the wrong numbers
        return t.view(b, num_tokens, h, head_dim).transpose(1, 2)

    keys = split(module.W_key(x))
    queries = split(module.W_query(x))
    values = split(module.W_value(x))
    attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T, T)
    mask_bool = module.mask.bool()[:num_tokens, :num_tokens]
    masked_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
    scale = module.d_out**0.5 if bug == "scale_by_d_out" else keys.shape[-1] ** 0.5
    scaled_scores = masked_scores / scale
    attn_weights = torch.softmax(scaled_scores, dim=-1)
    dropped_weights = _dropout(attn_weights, module.dropout.p, module.training, generator)
    head_context = dropped_weights @ values  # (b, h, T, head_dim)
    context = head_context.transpose(1, 2).contiguous().view(b, num_tokens, module.d_out)
    output = context if bug == "no_out_proj" else module.out_proj(context)
    return {
        "queries": queries,
        "keys": keys,
        "values": values,
        "attn_scores": attn_scores,
        "mask": mask_bool,
        "masked_scores": masked_scores,
        "scaled_scores": scaled_scores,
        "attn_weights": attn_weights,
        "dropped_weights": dropped_weights,
        "context": context,
        "output": output,
    }


class _MultiHeadBug(MultiHeadAttention):
    """The book's ``MultiHeadAttention`` with the statement of ``bug`` changed."""

    bug: ClassVar[str]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _multi_head_steps(self, x, self.bug, None)["output"]


class HeadsWithoutTranspose(_MultiHeadBug):
    bug = "heads_without_transpose"


class NoOutProj(_MultiHeadBug):
    bug = "no_out_proj"


class ScaleByDOut(_MultiHeadBug):
    bug = "scale_by_d_out"


# --- the gallery -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bug:
    """One bug of the gallery.

    ``book_anchors`` find the book's statements it changes (in ``attention/modules.py``);
    ``code`` is what it writes instead; ``steps`` are the names of ``attention.steps.STEPS``
    whose code changes; ``spot`` says how to spot it from the numbers (English; the app shows
    the message ``find_the_bug.spot.<name>`` in the reader's language).
    """

    name: str
    title: str
    cls: type[nn.Module]
    book_anchors: tuple[str, ...]
    code: str
    steps: tuple[str, ...]
    spot: str
    future_leak: bool = False  # a later token changes earlier outputs
    multi_head: bool = False

    @property
    def book_class(self) -> type[nn.Module]:
        return MultiHeadAttention if self.multi_head else CausalAttention

    @property
    def book_code(self) -> str:
        """The book's statements that this bug changes, read from ``attention/modules.py``."""
        return "\n".join(book_line(anchor, self.book_class) for anchor in self.book_anchors)

    @property
    def book_line_numbers(self) -> tuple[int, int]:
        """The first and last line, in ``attention/modules.py``, of the statements it changes."""
        found = [find_statement(self.book_class, anchor) for anchor in self.book_anchors]
        return min(s.first_line for s in found), max(s.last_line for s in found)

    @property
    def diff(self) -> str:
        """The change as a diff: ``-`` before the book's lines, ``+`` before the bug's."""
        removed = [f"- {line}" for line in self.book_code.splitlines()]
        added = [f"+ {line}" for line in self.code.splitlines()]
        return "\n".join(removed + added)


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
        MaskInverted,
        ("attn_scores.masked_fill_(",),
        "attn_scores.masked_fill_(~self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)",
        ("masked",),
        "Each token sees only the tokens after it: the weights sit above the diagonal, a later "
        "token changes earlier outputs, and the last row is NaN (every key hidden).",
        future_leak=True,
    ),
    Bug(
        "mask_diagonal",
        "Mask hides the token itself",
        MaskDiagonal,
        ('"mask", torch.triu(',),
        'self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), '
        "diagonal=0))",
        ("mask",),
        "The diagonal is hidden too: a token never attends to itself, and the first token, "
        "which has nothing before it, gets NaN.",
    ),
    Bug(
        "no_scaling",
        "No scaling",
        NoScaling,
        ("torch.softmax(",),
        "attn_weights = torch.softmax(attn_scores, dim=-1)",
        ("scaled",),
        "The weights are sharper than the book's (closer to 0 and 1) but rows still sum to 1 "
        "and nothing leaks; the gap grows with d_out.",
    ),
    Bug(
        "wrong_scaling",
        "Scaled by √d_in",
        WrongScaling,
        ("torch.softmax(",),
        "attn_weights = torch.softmax(attn_scores / d_in**0.5, dim=-1)",
        ("scaled",),
        "Scaled by the input width √d_in instead of the key width √d_k: the weights are a little "
        "sharper or flatter than the book's, rows still sum to 1; the same when d_in = d_out.",
    ),
    Bug(
        "scale_by_d_k",
        "Scaled by d_k (no square root)",
        ScaleByDk,
        ("torch.softmax(",),
        "attn_weights = torch.softmax(attn_scores / keys.shape[-1], dim=-1)",
        ("scaled",),
        "Divided by d_k instead of √d_k: the weights are flatter than the book's; rows sum to 1; "
        "the same only when d_k = 1.",
    ),
    Bug(
        "softmax_wrong_dim",
        "Softmax over the wrong axis",
        SoftmaxWrongDim,
        ("torch.softmax(",),
        "attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=1)",
        ("softmax",),
        "Columns sum to 1 instead of rows (the first row is all 1s where visible), and a later "
        "token changes earlier outputs through the column sums.",
        future_leak=True,
    ),
    Bug(
        "mask_after_softmax",
        "Mask after softmax, not renormalised",
        MaskAfterSoftmax,
        ("attn_scores.masked_fill_(", "torch.softmax("),
        "attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)\n"
        "attn_weights = attn_weights.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], 0.0)",
        ("masked", "softmax"),
        "Rows sum to less than 1 (only the last row sums to 1), and a later token changes "
        "earlier outputs: its score was in every row's softmax denominator.",
        future_leak=True,
    ),
    Bug(
        "dropout_before_softmax",
        "Dropout on the scores",
        DropoutBeforeSoftmax,
        ("attn_scores = queries @ keys.transpose(1, 2)", "attn_weights = self.dropout("),
        "attn_scores = self.dropout(queries @ keys.transpose(1, 2))",
        ("scores", "dropout"),
        "In training mode rows still sum to 1 and no weight is exactly 0 (a dropped score becomes "
        "0, not −∞); in eval mode it is the book's class.",
    ),
    Bug(
        "dropout_in_eval",
        "Dropout also in eval mode",
        DropoutInEval,
        ("attn_weights = self.dropout(",),
        "attn_weights = F.dropout(attn_weights, self.dropout.p)  # training=True by default",
        ("dropout",),
        "In training mode it is the book's class; after model.eval() weights are still dropped, "
        "so two runs on the same input give different outputs.",
    ),
    Bug(
        "dropout_unscaled",
        "Hand-made dropout without 1/(1−p)",
        DropoutUnscaled,
        ("attn_weights = self.dropout(",),
        "attn_weights = attn_weights * torch.empty_like(attn_weights).bernoulli_(1 - p)  "
        "# if training",
        ("dropout",),
        "Kept weights keep their value instead of growing by 1/(1−p), so in training mode the "
        "outputs are (1−p) times too small on average; in eval mode it is the book's class.",
    ),
    Bug(
        "values_from_keys",
        "Weights applied to the keys",
        ValuesFromKeys,
        ("context_vec = attn_weights @ values",),
        "context_vec = attn_weights @ keys",
        ("context",),
        "Every weight is right, only the context vectors differ: they mix key vectors, and "
        "W_value has no effect at all.",
    ),
    Bug(
        "sdpa_bool_mask",
        "The book's mask given to SDPA",
        SdpaBoolMask,
        _SDPA_REPLACED,
        "context_vec = F.scaled_dot_product_attention(\n"
        "    queries, keys, values, attn_mask=self.mask.bool()[:num_tokens, :num_tokens],\n"
        "    dropout_p=self.dropout.p if self.training else 0.0)",
        ("masked", "scaled", "softmax", "dropout", "context"),
        "SDPA reads a boolean mask as True = attend, the book's mask as True = hide: each token "
        "sees only later tokens, and the last token's output is all zeros.",
        future_leak=True,
    ),
    Bug(
        "sdpa_dropout_in_eval",
        "SDPA's dropout_p left on in eval mode",
        SdpaDropoutInEval,
        _SDPA_REPLACED,
        "context_vec = F.scaled_dot_product_attention(\n"
        "    queries, keys, values, attn_mask=~self.mask.bool()[:num_tokens, :num_tokens],\n"
        "    dropout_p=self.dropout.p)",
        ("masked", "scaled", "softmax", "dropout", "context"),
        "SDPA has no training flag: dropout_p keeps dropping after model.eval(), so eval outputs "
        "change from run to run; in training mode it is the book's class.",
    ),
    Bug(
        "heads_without_transpose",
        "Heads split by view alone",
        HeadsWithoutTranspose,
        ("keys = keys.view(", "keys = keys.transpose(1, 2)"),
        "keys = keys.view(b, self.num_heads, num_tokens, self.head_dim)  # no transpose",
        ("qkv",),
        "The shapes are right, so nothing fails; but a head's rows are no longer tokens (each "
        "holds pieces of neighbouring tokens), so the causal mask hides the wrong things and a "
        "later token changes earlier outputs.",
        future_leak=True,
        multi_head=True,
    ),
    Bug(
        "no_out_proj",
        "out_proj left out",
        NoOutProj,
        ("context_vec = self.out_proj(context_vec)",),
        "# context_vec = self.out_proj(context_vec)",
        ("context",),
        "Every head's weights are right and nothing leaks; only the last step differs: the heads' "
        "outputs are concatenated but never mixed, and out_proj gets no gradient.",
        multi_head=True,
    ),
    Bug(
        "scale_by_d_out",
        "Scaled by √d_out, not √head_dim",
        ScaleByDOut,
        ("torch.softmax(",),
        "attn_weights = torch.softmax(attn_scores / self.d_out**0.5, dim=-1)",
        ("scaled",),
        "Every head is scaled by the whole width instead of its own head_dim: weights flatter "
        "than the book's, rows still sum to 1; the same with one head.",
        multi_head=True,
    ),
)

BUGS: dict[str, Bug] = {bug.name: bug for bug in _GALLERY}


def run_steps(module: nn.Module, x: torch.Tensor, generator: torch.Generator | None) -> Steps:
    """Every step of a forward pass of the book's class or a gallery bug (its own ``bug``)."""
    bug = getattr(module, "bug", None)
    if isinstance(module, MultiHeadAttention):
        return _multi_head_steps(module, x, bug, generator)
    if isinstance(module, CausalAttention):
        return _causal_steps(module, x, bug, generator)
    raise TypeError(f"run_steps needs the book's class or a gallery bug, not {type(module)}")


# --- what a bug does to a learner's numbers ---------------------------------------------------


def earlier_outputs_moved(
    forward: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, position: int
) -> torch.Tensor:
    """Change token ``position`` of ``x`` ``(b, T, d_in)``; which earlier outputs moved?

    Returns ``(position,)`` booleans, True where token ``i < position``'s output changed (in any
    batch item): a causal layer keeps them all False. ``forward`` must be deterministic (no
    fresh dropout draw between the two calls).
    """
    changed = x.clone()
    changed[:, position] = 1.0 - 2.0 * x[:, position]  # another token at this place
    before = forward(x)[:, :position]  # (b, position, d_out)
    after = forward(changed)[:, :position]
    same = torch.isclose(before, after, rtol=1e-4, atol=1e-6, equal_nan=True)
    return ~same.all(dim=-1).all(dim=0)


@dataclass(frozen=True)
class BugComparison:
    """The book's class and a bug on the same weights, inputs and dropout draws (batch item 0).

    ``book`` and ``buggy`` hold every step (``attn_weights`` leave the softmax step; ``output``
    is the layer's output). ``changed_steps`` are the entries whose numbers differ.
    ``leak_position`` is the token changed by the future-leak test and ``moved`` says which
    earlier outputs moved. ``train_eval`` is the largest output difference to the book's in each
    mode (``"train"``, ``"eval"``): a dropout bug shows in one mode only.
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


STEP_ENTRIES = (
    "queries",
    "keys",
    "values",
    "attn_scores",
    "mask",
    "masked_scores",
    "scaled_scores",
    "attn_weights",
    "dropped_weights",
    "context",
    "output",
)


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


def compare_bug(name: str, inputs: Any, cfg: AttentionConfig | None = None) -> BugComparison:
    """Run the book's class and bug ``name`` on ``inputs`` ``(T, d_in)`` with ``cfg``'s seed,
    ``d_out``, dropout, mode and ``qkv_bias``; return what differs (see :class:`BugComparison`).

    Both modules are built from the same private generator (so their weights are the book's
    for ``cfg.seed``) and draw their dropout masks from it afterwards, as the book's recipe
    would after ``torch.manual_seed``. A multi-head bug runs ``MultiHeadAttention`` with
    ``cfg.num_heads`` heads (two when ``cfg`` has one), ``d_out`` a multiple of the heads.
    """
    bug = BUGS[name]
    cfg = cfg or AttentionConfig()
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

    def run(cls: type[nn.Module], training: bool, data: torch.Tensor) -> Steps:
        module, generator = _build(cls, args, replace(cfg, training=training))
        with torch.no_grad():
            return run_steps(module, data, generator)

    book_class = bug.book_class
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
    return BugComparison(
        bug=bug,
        book={key: value[0] for key, value in book.items() if key != "mask"}
        | {"mask": book["mask"]},
        buggy={key: value[0] for key, value in buggy.items() if key != "mask"}
        | {"mask": buggy["mask"]},
        changed_steps=changed,
        max_difference=_max_difference(book["output"], buggy["output"]),
        leak_position=position,
        moved=moved,
        train_eval=train_eval,
        num_heads=num_heads,
    )
