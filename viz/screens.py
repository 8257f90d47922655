"""How each step of the forward pass is shown: the presentation registry, one entry per step.

:data:`attention.steps.STEPS` says what each step *computes*; :data:`SCREENS`, in the same order,
how it is *shown* (matrices, formulas, sentences from its numbers, presenter screens, gradient),
for every page, presenter mode and the notebook. Rows are queries, columns keys; a cell the
causal mask hides is **grey**, a weight dropout drops **pink** and written 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

import numpy as np

from attention import AttentionTrace
from attention.chapter import BOOK_DROPOUT, BOOK_SEED_V1
from attention.dropout import (
    bare_draw_differences,
    batch_mask_differences,
    dropout_counts,
    dropped_rows,
)
from attention.steps import STEPS

from .colors import DROPPED_COLOR, HIDDEN_COLOR
from .markdown_text import escape_markdown
from .matrix import BinaryLook, Kind, MatrixView
from .steps import KEPT_COLOR, VISIBLE_COLOR, as_array, batch_row
from .vocabulary import (
    CONTEXT_PREFIX,
    INPUT_PREFIX,
    exact_number,
    feature_labels,
    format_number,
    format_short,
    gradient_number,
)
from .window import window_mask_view
from .words import FigureWords

MAX_LISTED_SUMS = 12  # row sums listed one by one up to this many rows, as a range beyond
MAX_NAMED_DROPPED_ROWS = 3  # rows dropped whole named one by one; beyond, only their count
LISTED_COUNTS = 12  # up to this many queries every "keys seen" count is written out


# --- what a screen is made of ----------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """A sentence computed from the numbers: a message key, its values, how it is set.

    ``screens``: the deck screens that show it. A tuple of sentences as a value is joined by "; ".
    """

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)
    style: Literal["text", "caption", "info", "code", "latex"] = "text"
    screens: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Shown:
    """What a step is drawn from: the trace, its token labels, and how it is drawn.

    ``seeded_weights``: the weights were drawn from the seed (the Train page's trained weights
    were not). ``present``: presenter mode, whose sentences point only at what its screen shows.
    """

    trace: AttentionTrace
    tokens: Sequence[str]
    seeded_weights: bool = True
    present: bool = False

    @property
    def d_out(self) -> int:
        return int(self.trace.queries.shape[-1])

    @property
    def dropout_active(self) -> bool:
        return self.trace.dropout_mask is not None and dropout_counts(self.trace) is not None


Binary = Literal["mask", "keep"]


@dataclass(frozen=True)
class Figure:
    """One matrix of a step: a tensor of the trace (row 0 of the batch), coloured and labelled.

    ``name``: its name in the book's code. ``rows``/``cols``: "tokens" or a feature-label prefix.
    ``value``: the :class:`FigureWords` word for a cell. ``when``: whether the trace has it.
    """

    field: str
    name: str
    value: str
    look: Kind | Binary = "diverging"
    rows: str = "tokens"
    cols: str = "tokens"
    hidden: bool = False
    when: Callable[[Shown], bool] = lambda shown: True
    title: str | None = None
    titled: bool = False  # the figure carries its name as a title (W_query, Q …)


class GradientRun(Protocol):
    """What a gradient's formula and sentence read: ``attention.gradients``' pass and its facts."""

    grads: Any  # attention.gradients.GradientTrace
    facts: Any  # attention.gradients.GradientFacts
    loss_name: str

    @property
    def trace(self) -> AttentionTrace: ...


@dataclass(frozen=True)
class Gradient:
    """The gradient of a step's output, as the backward page shows it (the steps in reverse).

    ``tensors``: fields of the gradient trace, drawn on ``axes``; ``section``: its backward tab.
    """

    name: str
    section: str
    tensors: tuple[str, ...]
    axes: Literal["token", "query", "weight"]
    formula: Callable[[GradientRun], str]
    sentence: Callable[[GradientRun], tuple[Sentence, ...]]
    split: bool = False  # presenter mode: one screen per tensor (three tables do not fit one)
    each: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # own LaTeX and message key


@dataclass(frozen=True)
class StepScreen:
    """How one step of :data:`attention.steps.STEPS` is shown (its words: ``step.<name>.*``).

    ``deck``: presenter screens, each the fields of its figures. ``aside``: a message key and a
    piece of the book's code, a screen of its own. ``shape``: a field and the book's expression.
    """

    name: str
    figures: tuple[Figure, ...]
    formulas: Callable[[Shown], tuple[str, ...]] = lambda shown: ()
    sentences: Callable[[Shown], tuple[Sentence, ...]] = lambda shown: ()
    deck: tuple[tuple[str, ...], ...] = ()
    aside: tuple[str, str] | None = None
    shape: tuple[str, str] | None = None
    gradients: tuple[Gradient, ...] = ()

    def said(self, shown: Shown) -> tuple[Sentence, ...]:
        """Its sentences: the shape it makes (with the batch axis), then its own."""
        if self.shape is None:
            return self.sentences(shown)
        field_name, code = self.shape
        values = {"name": code, "shape": shape_text(getattr(shown.trace, field_name))}
        return (Sentence("batchwin.shape", values, "caption"), *self.sentences(shown))

    def shown_figures(self, shown: Shown) -> tuple[Figure, ...]:
        return tuple(figure for figure in self.figures if figure.when(shown))

    def screens(self, shown: Shown) -> tuple[tuple[Figure, ...], ...]:
        """The deck's screens: the figures of each (an aside adds a screen with none)."""
        figures = self.shown_figures(shown)
        if not self.deck or not figures:
            groups = [figures]
        else:
            groups = [tuple(f for f in figures if f.field in fields) for fields in self.deck]
            groups = [group for group in groups if group]
        return (*groups, *(((),) if self.aside else ()))


# --- one builder for every step's matrix -----------------------------------------------------


def _labels(kind: str, count: int, tokens: Sequence[str], name: str) -> tuple[str, ...]:
    if kind == "tokens":
        return tuple(tokens)
    if kind == "bias":
        return (name,)
    return tuple(feature_labels(kind, count))


def _binary(figure: Figure, words: FigureWords) -> BinaryLook:
    if figure.look == "mask":  # the buffer's 1 and 0, as torch.triu writes them
        return BinaryLook("1", "0", words.future_hidden, words.visible, HIDDEN_COLOR, VISIBLE_COLOR)
    return BinaryLook("✓", "✗", words.kept, words.dropped, KEPT_COLOR, DROPPED_COLOR)


def figure_values(figure: Figure, trace: AttentionTrace) -> np.ndarray:
    """The matrix ``figure`` draws: row 0 of a batched tensor, a weight, a bias as one row."""
    tensor = getattr(trace, figure.field)
    if tensor.dim() >= 3:
        return batch_row(tensor)  # (T, ·)
    values = as_array(tensor)
    values = values.astype(np.float64) if values.dtype == bool else values
    return values[None, :] if values.ndim == 1 else values  # a bias: (1, d_out)


def figure_view(
    figure: Figure,
    trace: AttentionTrace,
    tokens: Sequence[str],
    words: FigureWords,
    *,
    palette: str,
) -> MatrixView:
    """``figure`` of ``trace`` as a :class:`MatrixView` (one head, row 0 of the batch).

    A dropped weight's hover gives the weight before dropout and the factor.
    """
    if trace.queries.dim() != 3:
        raise ValueError("the step figures draw one head (a trace with num_heads = 1)")
    if len(tokens) != trace.num_tokens:
        raise ValueError(f"{len(tokens)} token labels for {trace.num_tokens} tokens")
    if getattr(trace, figure.field) is None:
        raise ValueError(f"{figure.field} is None in this trace (see the figure's `when`)")
    if figure.look == "mask" and trace.config.window is not None:
        return window_mask_view(trace, tokens, words, palette=palette)  # a band, two greys
    values = figure_values(figure, trace)  # (rows, cols)
    rows, cols = values.shape
    weights = figure.look == "sequential"
    binary = figure.look in ("mask", "keep")
    on_tokens = figure.rows == "tokens" and figure.cols == "tokens"
    dropped = None
    if figure.field == "dropped_weights" and trace.dropout_mask is not None:
        dropped = ~batch_row(trace.dropout_mask).astype(bool)
    return MatrixView(
        values=values,
        row_labels=_labels(figure.rows, rows, tokens, figure.name),
        col_labels=_labels(figure.cols, cols, tokens, figure.name),
        palette=palette,
        kind="binary" if binary else figure.look,  # type: ignore[arg-type]
        binary=_binary(figure, words) if binary else None,
        decimals=0 if binary else MatrixView.decimals,
        zrange=(0.0, max(1.0, float(np.nanmax(values)))) if weights and values.size else None,
        title=figure.name if figure.titled else "",
        row_title=""
        if figure.rows == "bias"
        else (
            words.query
            if on_tokens
            else words.token
            if figure.rows == "tokens"
            else words.input_feature
        ),
        col_title=""
        if figure.rows == "bias"
        else (
            words.key
            if on_tokens
            else words.output_feature
            if figure.rows == INPUT_PREFIX
            else words.feature
        ),
        value_name=getattr(words, figure.value) if hasattr(words, figure.value) else figure.value,
        hidden=as_array(trace.mask) if figure.hidden else None,
        hidden_value=0.0 if weights else None,
        hidden_name=words.future_masked if weights or binary else MatrixView.hidden_name,
        dropped=dropped,
        dropped_name=words.dropped if dropped is not None else MatrixView.dropped_name,
        undropped=batch_row(trace.attn_weights) if dropped is not None else None,
        dropout_scale=trace.dropout_scale if dropped is not None else MatrixView.dropout_scale,
    )


# --- sentences computed from the numbers ----------------------------------------------------


def _sums(key: str, sums: np.ndarray, screen: int = 0) -> Sentence:
    """Row sums listed one by one, or as their range for a long sentence."""
    if len(sums) <= MAX_LISTED_SUMS:
        listed = ", ".join(format_number(float(s)) for s in sums)
        return Sentence(key, {"sums": listed}, "caption", (screen,))
    low, high = format_number(float(sums.min())), format_number(float(sums.max()))
    return Sentence(f"{key}_range", {"low": low, "high": high}, "caption", (screen,))


def row_sums(trace: AttentionTrace, field_name: str) -> np.ndarray:
    """Each row's sum, read from the trace's own sum (the weights' rows sum to 1)."""
    return batch_row(getattr(trace, field_name).sum(-1, keepdim=True))[:, 0]  # (T,)


def counts_in_runs(counts: list[int]) -> str:
    """``counts`` written out, or past :data:`LISTED_COUNTS` as runs: ``4 (×9)``, ``1, 2, …, 4``."""
    if len(counts) <= LISTED_COUNTS:
        return ", ".join(str(n) for n in counts)
    parts, i = [], 0
    while i < len(counts):
        same = i
        while same + 1 < len(counts) and counts[same + 1] == counts[i]:
            same += 1
        rising = i
        while rising + 1 < len(counts) and counts[rising + 1] == counts[rising] + 1:
            rising += 1
        if same > i:
            parts.append(f"{counts[i]} (×{same - i + 1:,})")
            i = same + 1
        elif rising >= i + 3:
            parts.append(f"{counts[i]}, {counts[i + 1]}, …, {counts[rising]}")
            i = rising + 1
        else:
            parts.append(str(counts[i]))
            i += 1
    return ", ".join(parts[:LISTED_COUNTS]) + (", …" if len(parts) > LISTED_COUNTS else "")


def seen_counts(trace: AttentionTrace) -> str:
    """How many keys each query sees, ``(~mask).sum(-1)``."""
    return counts_in_runs([int(n) for n in (~trace.mask.bool()).sum(-1)])


def _window(key: str, window: int) -> str:
    """``key``, or its ``_one`` wording for a window of 1 token (the token itself)."""
    return f"{key}_one" if window == 1 else key


def _window_mixes(shown: Shown) -> tuple[Sentence, ...]:
    window = shown.trace.config.window
    if window is None:
        return ()
    values = {"window": window, "before": window - 1, "counts": seen_counts(shown.trace)}
    return (Sentence(_window("batchwin.mixes", window), values, "caption"),)


def _embeddings_sentences(shown: Shown) -> tuple[Sentence, ...]:
    shape = shape_text(shown.trace.inputs)
    batch = int(shown.trace.inputs.shape[0])
    if batch == 1:
        return (Sentence("batchwin.embeddings_one", {"shape": shape}, "caption"),)
    return (Sentence("batchwin.embeddings", {"shape": shape, "batch": batch}, "caption"),)


def _weights_sentences(shown: Shown) -> tuple[Sentence, ...]:
    seed = shown.trace.config.seed
    bias = "step.weights.bias_on" if shown.trace.config.qkv_bias else "step.weights.bias_off"
    code = (Sentence("", {"code": f"torch.manual_seed({seed})"}, "code"),)
    return (
        *(code if shown.seeded_weights else ()),
        Sentence(bias),
        Sentence("step.weights.linear", style="caption", screens=(1, 2)),
    )


def _mask_sentences(shown: Shown) -> tuple[Sentence, ...]:
    window = shown.trace.config.window
    if window is None:
        return (Sentence("step.mask.legend", style="caption"),)
    values = {"window": window, "before": window - 1, "counts": seen_counts(shown.trace)}
    latex = r"M_{ij} = 1 \iff j > i \;\lor\; j \le i - " + str(window)
    return (
        Sentence("", {"latex": latex}, "latex"),
        Sentence(_window("batchwin.mask_window", window), values),
        Sentence("batchwin.mask_legend", style="caption"),
    )


def _masked_sentences(shown: Shown) -> tuple[Sentence, ...]:
    window = shown.trace.config.window
    return () if window is None else (Sentence("batchwin.masked", {"window": window}, "caption"),)


def _softmax_sentences(shown: Shown) -> tuple[Sentence, ...]:
    return (
        *_window_mixes(shown),
        _sums("step.softmax.sums", row_sums(shown.trace, "attn_weights")),
    )


def _before_and_after(shown: Shown) -> tuple[Sentence, ...]:
    """One kept and one dropped weight, before dropout and after it (read from the trace)."""
    trace, tokens = shown.trace, shown.tokens
    before, after = batch_row(trace.attn_weights), batch_row(trace.dropped_weights)  # (T, T)
    keep = batch_row(trace.dropout_mask).astype(bool)  # (T, T)
    visible = ~as_array(trace.mask)
    found = []
    for kept, key in (
        (True, "step.dropout.before_after_kept"),
        (False, "step.dropout.before_after_dropped"),
    ):
        cells = np.argwhere(visible & (keep == kept))  # (n, 2): query, key
        cells = cells[cells[:, 0] > 0] if (cells[:, 0] > 0).any() else cells
        if len(cells):
            row, column = (int(i) for i in cells[0])
            values = {
                "query": escape_markdown(tokens[row]),
                "column": escape_markdown(tokens[column]),
                "before": format_number(float(before[row, column])),
                "after": format_number(float(after[row, column])),
            }
            found.append(Sentence(key, values, screens=(2,)))
    return tuple(found)


def _dropout_sentences(shown: Shown) -> tuple[Sentence, ...]:
    trace, cfg = shown.trace, shown.trace.config
    if not shown.dropout_active:
        key = "step.dropout.inactive_p0" if cfg.training else "step.dropout.inactive_eval"
        return (Sentence(f"{key}_present" if shown.present else key, style="info"),)
    counts = dropout_counts(trace)
    assert counts is not None
    active = {
        "p": format_short(cfg.dropout),
        "scale": format_short(trace.dropout_scale),
        "visible": counts.visible,
        "kept": counts.kept,
        "dropped": counts.dropped,
    }
    found = [Sentence("step.dropout.active", active, screens=(1,)), *_before_and_after(shown)]
    found.append(_sums("step.dropout.sums", row_sums(trace, "dropped_weights"), screen=2))
    rows = [row for row in dropped_rows(trace) if row.head == 0]
    for row in rows[:MAX_NAMED_DROPPED_ROWS]:
        values = {
            "token": escape_markdown(shown.tokens[row.query]),
            "number": row.query + 1,
            "visible": row.visible,
            "p": format_short(cfg.dropout),
            "chance": f"{row.chance:.3g}",
        }
        found.append(Sentence("step.dropout.row_dropped", values, screens=(2,)))
    if len(rows) > MAX_NAMED_DROPPED_ROWS:
        more = {"count": len(rows)}
        found.append(Sentence("step.dropout.rows_dropped_more", more, "caption", (2,)))
    differences = batch_mask_differences(trace)
    if differences:  # a batch: each item draws its own keep-mask
        items = tuple(
            Sentence(
                "batchwin.dropout_item", {"item": item, "count": count, "visible": counts.visible}
            )
            for item, count in enumerate(differences, start=1)
        )
        found.append(Sentence("batchwin.dropout_items", {"differences": items}))
    bare = bare_draw_differences(trace)
    if cfg.seed == BOOK_SEED_V1 and cfg.dropout == BOOK_DROPOUT and bare and not shown.present:
        values = {
            "p": format_short(cfg.dropout),
            "seed": cfg.seed,
            "count": bare,
            "visible": counts.visible,
        }
        found.append(Sentence("step.dropout.not_demo", values, "caption"))
    return tuple(found)


def shape_text(tensor: Any) -> str:
    """A shape as PyTorch prints its numbers: ``(2, 6, 2)``."""
    return "(" + ", ".join(str(size) for size in tensor.shape) + ")"


# --- the backward pass's sentences -----------------------------------------------------------


def _dropout_gradient(run: GradientRun) -> str:
    if run.trace.dropout_active:
        return (
            r"\tilde A = A \odot \frac{M}{1-p} \;\Rightarrow\; \frac{\partial L}{\partial A}"
            r" = \frac{\partial L}{\partial \tilde A} \odot \frac{M}{1-p}"
        )
    return r"\tilde A = A \;\Rightarrow\; \frac{\partial L}{\partial A} = \frac{\partial L}{\partial \tilde A}"


def _dropout_gradient_sentence(run: GradientRun) -> Sentence:
    if not run.trace.dropout_active:
        return (Sentence("backward.attn_weights.text_no_dropout"),)
    facts = run.facts
    values = {
        "dropped": facts.dropped_cells,
        "largest": exact_number(facts.dropped_max_abs),
        "kept": facts.kept_cells,
        "scale": gradient_number(facts.dropout_scale),
        "p": f"{run.trace.config.dropout:g}",
        "error": exact_number(facts.kept_ratio_max_error),
    }
    return (Sentence("backward.attn_weights.text_dropout", values),)


def _hidden_sentence(key: str) -> Callable[[GradientRun], tuple[Sentence, ...]]:
    def sentence(run: GradientRun) -> tuple[Sentence, ...]:
        facts = run.facts
        return (
            Sentence(
                key, {"hidden": facts.hidden_cells, "largest": exact_number(facts.hidden_max_abs)}
            ),
        )

    return sentence


def _constant(*keys: str) -> Callable[[GradientRun], tuple[Sentence, ...]]:
    return lambda run: tuple(Sentence(key) for key in keys)


FROM_SCORES = r"\omega = Q K^{\top} \;\Rightarrow\; "
Q_LATEX = r"\frac{\partial L}{\partial Q} = \frac{\partial L}{\partial \omega} K"
K_LATEX = r"\frac{\partial L}{\partial K} = \Big(\frac{\partial L}{\partial \omega}\Big)^{\!\top} Q"
V_LATEX = (
    r"Z = \tilde A V \;\Rightarrow\; \frac{\partial L}{\partial V} = \tilde A^{\top}"
    r"\frac{\partial L}{\partial Z}"
)


# --- the registry ---------------------------------------------------------------------------

_WEIGHTS = (("query", "q", "W_q"), ("key", "k", "W_k"), ("value", "v", "W_v"))
_PROJECTIONS = (("queries", "q", "Q"), ("keys", "k", "K"), ("values", "v", "V"))


def _has(field_name: str) -> Callable[[Shown], bool]:
    return lambda shown: getattr(shown.trace, field_name) is not None


def _dropping(shown: Shown) -> bool:
    return shown.dropout_active


_SOFTMAX_FIGURE = Figure(  # the softmax's figure, shown again as dropout's "before"
    "attn_weights", "attn_weights", "attention_weight", "sequential", hidden=True
)

SCREENS: tuple[StepScreen, ...] = (
    StepScreen(
        "embeddings",
        (Figure("inputs", "X", "embedding", cols=INPUT_PREFIX),),
        formulas=lambda shown: (
            rf"X \in \mathbb{{R}}^{{T \times d_{{in}}}} = \mathbb{{R}}^{{{shown.trace.num_tokens}"
            rf" \times {shown.trace.d_in}}}",
            r"x^{(i)} = X_{i,:} \in \mathbb{R}^{d_{in}}",
        ),
        sentences=_embeddings_sentences,
    ),
    StepScreen(
        "weights",
        tuple(
            figure
            for name, prefix, _ in _WEIGHTS
            for figure in (
                Figure(
                    f"W_{name}", f"W_{name}", "weight", rows=INPUT_PREFIX, cols=prefix, titled=True
                ),
                Figure(
                    f"b_{name}",
                    f"b_{name}",
                    "bias",
                    rows="bias",
                    cols=prefix,
                    when=_has(f"b_{name}"),
                ),
            )
        ),
        formulas=lambda shown: (
            rf"W_q, W_k, W_v \in \mathbb{{R}}^{{d_{{in}} \times d_{{out}}}} = "
            rf"\mathbb{{R}}^{{{shown.trace.d_in} \times {shown.d_out}}}",
        ),
        sentences=_weights_sentences,
        deck=tuple((f"W_{name}", f"b_{name}") for name, _, _ in _WEIGHTS),
        gradients=(
            Gradient(
                "weights",
                "projections",
                ("W_query", "W_key", "W_value"),
                "weight",
                lambda run: (
                    r"Q = X W_q \;\Rightarrow\; \frac{\partial L}{\partial W_q} = X^{\top}"
                    r"\frac{\partial L}{\partial Q}\quad(\text{and } W_k, W_v \text{ alike})"
                ),
                _constant("backward.weights.text"),
                split=True,
            ),
        ),
    ),
    StepScreen(
        "qkv",
        tuple(
            Figure(name, letter, name, cols=prefix, titled=True)
            for name, prefix, letter in _PROJECTIONS
        ),
        formulas=lambda shown: (
            r"\begin{aligned} Q &= X W_q + b_q \\ K &= X W_k + b_k \\ V &= X W_v + b_v \end{aligned}"
            if shown.trace.config.qkv_bias
            else r"Q = X W_q,\quad K = X W_k,\quad V = X W_v",
            rf"({shown.trace.inputs.shape[0]} \times {shown.trace.num_tokens} \times "
            rf"{shown.trace.d_in})\,({shown.trace.d_in} \times {shown.d_out}) = "
            rf"({shown.trace.inputs.shape[0]} \times {shown.trace.num_tokens} \times {shown.d_out})",
        ),
        deck=tuple((name,) for name, _, _ in _PROJECTIONS),
        shape=("queries", "queries"),
        gradients=(
            Gradient(
                "projections",
                "projections",
                ("queries", "keys", "values"),
                "token",
                lambda run: FROM_SCORES + Q_LATEX + r",\quad " + K_LATEX + r",\qquad " + V_LATEX,
                _constant("backward.projections.text_qk", "backward.projections.text_v"),
                split=True,
                each={
                    "queries": (FROM_SCORES + Q_LATEX, "backward.projections.text_qk"),
                    "keys": (FROM_SCORES + K_LATEX, "backward.projections.text_qk"),
                    "values": (V_LATEX, "backward.projections.text_v"),
                },
            ),
        ),
    ),
    StepScreen(
        "scores",
        (Figure("attn_scores", "attn_scores", "score"),),
        formulas=lambda shown: (
            r"\text{attn\_scores} = Q K^{\top}",
            r"\omega_{ij} = q^{(i)} \cdot k^{(j)}",
        ),
        shape=("attn_scores", "attn_scores"),
        gradients=(
            Gradient(
                "attn_scores",
                "scores",
                ("attn_scores",),
                "query",
                lambda run: (
                    r"\frac{\partial L}{\partial \omega_{ij}} = \begin{cases}"
                    r"\dfrac{\partial L}{\partial \omega^{\text{masked}}_{ij}} & j \le i \\[4pt]"
                    r"0 & j > i\ (\text{masked})\end{cases}"
                ),
                _hidden_sentence("backward.attn_scores.text"),
            ),
        ),
    ),
    StepScreen(
        "mask",
        (Figure("mask", "mask", "M", look="mask"),),
        formulas=lambda shown: (
            ()
            if shown.trace.config.window is not None  # a band: its sentences write it
            else (
                r"M = \operatorname{triu}\left(\mathbf{1}_{T \times T},\ 1\right)",
                r"M_{ij} = 1 \iff j > i",
            )
        ),
        sentences=_mask_sentences,
        aside=(
            "step.mask.buffer",
            "# CausalAttention.__init__\n"
            "self.register_buffer(\n"
            "    'mask',\n"
            "    torch.triu(\n"
            "        torch.ones(context_length,\n"
            "                   context_length),\n"
            "        diagonal=1,\n"
            "    ),\n"
            ")",
        ),
    ),
    StepScreen(
        "masked",
        (Figure("masked_scores", "masked_scores", "score", hidden=True),),
        formulas=lambda shown: (
            r"\text{masked}_{ij} = \begin{cases} \omega_{ij} & j \le i \\ -\infty & j > i"
            r"\end{cases}",
        ),
        sentences=_masked_sentences,
        shape=("masked_scores", "attn_scores"),
        gradients=(
            Gradient(
                "masked_scores",
                "scores",
                ("masked_scores",),
                "query",
                lambda run: (
                    r"s = \frac{\omega^{\text{masked}}}{\sqrt{d_k}} \;\Rightarrow\;"
                    r"\frac{\partial L}{\partial \omega^{\text{masked}}} = \frac{1}{\sqrt{d_k}}"
                    r"\frac{\partial L}{\partial s}"
                ),
                lambda run: (
                    Sentence(
                        "backward.masked_scores.text",
                        {"d_k": run.trace.d_k, "scale": gradient_number(run.trace.scale)},
                    ),
                ),
            ),
        ),
    ),
    StepScreen(
        "scaled",
        (Figure("scaled_scores", "scaled_scores", "scaled_score", hidden=True),),
        formulas=lambda shown: (
            r"\text{scaled\_scores} = \frac{\text{masked\_scores}}{\sqrt{d_k}}",
            rf"d_k = {shown.trace.d_k},\qquad \sqrt{{d_k}} = {format_number(shown.trace.scale)}",
        ),
        shape=("scaled_scores", "attn_scores / keys.shape[-1]**0.5"),
        gradients=(
            Gradient(
                "scaled_scores",
                "scores",
                ("scaled_scores",),
                "query",
                lambda run: (
                    r"\frac{\partial L}{\partial s_{ij}} = A_{ij}\Big(\frac{\partial L}"
                    r"{\partial A_{ij}} - \sum_k A_{ik}\frac{\partial L}{\partial A_{ik}}\Big)"
                ),
                _hidden_sentence("backward.scaled_scores.text"),
            ),
        ),
    ),
    StepScreen(
        "softmax",
        (_SOFTMAX_FIGURE,),
        formulas=lambda shown: (
            r"a_{ij} = \frac{e^{s_{ij}}}{\sum_{j' \le i} e^{s_{ij'}}}",
            r"\textstyle\sum_j a_{ij} = 1,\qquad a = \text{attn\_weights}",
        ),
        sentences=_softmax_sentences,
        shape=("attn_weights", "attn_weights"),
        gradients=(
            Gradient(
                "attn_weights",
                "scores",
                ("attn_weights",),
                "query",
                _dropout_gradient,
                _dropout_gradient_sentence,
            ),
        ),
    ),
    StepScreen(
        "dropout",
        (
            replace(_SOFTMAX_FIGURE, when=_dropping, title="step.dropout.before_title"),
            Figure(
                "dropout_mask",
                "dropout_mask",
                "m",
                look="keep",
                hidden=True,
                when=_dropping,
                title="step.dropout.keep_title",
            ),
            Figure(
                "dropped_weights",
                "dropped_weights",
                "dropped_weight",
                "sequential",
                hidden=True,
                when=_dropping,
                title="step.dropout.dropped_title",
            ),
        ),
        formulas=lambda shown: (
            r"\text{dropped}_{ij} = \frac{m_{ij}}{1 - p}\;\text{attn\_weights}_{ij}",
            r"m_{ij} \sim \operatorname{Bernoulli}(1 - p)",
        ),
        sentences=_dropout_sentences,
        # the weights, the coin flips that drop them, the result: a slide each (two 6 × 6
        # tables side by side do not fit the deck's canvas at its type size)
        deck=(("attn_weights",), ("dropout_mask",), ("dropped_weights",)),
        gradients=(
            Gradient(
                "dropped_weights",
                "scores",
                ("dropped_weights",),
                "query",
                lambda run: (
                    r"Z = \tilde A V \;\Rightarrow\; \frac{\partial L}{\partial \tilde A}"
                    r" = \frac{\partial L}{\partial Z}\, V^{\top}"
                ),
                _constant("backward.dropped_weights.text"),
            ),
        ),
    ),
    StepScreen(
        "context",
        (Figure("context", "context_vec", "context", cols=CONTEXT_PREFIX),),
        formulas=lambda shown: (
            r"\text{context\_vec} = \text{dropped\_weights}\; V",
            r"z^{(i)} = \textstyle\sum_{j \le i} a_{ij}\, v^{(j)}",
        ),
        sentences=_window_mixes,
        shape=("context", "context_vec"),
        gradients=(
            Gradient(
                "context",
                "scores",
                ("context",),
                "token",
                lambda run: (
                    r"\frac{\partial L}{\partial z_{t,m}} = 1"
                    if run.loss_name == "sum"
                    else r"\frac{\partial L}{\partial z_t} = \frac{2}{T}\,(z_t - y)"
                ),
                lambda run: (Sentence(f"backward.context.text_{run.loss_name}"),),
            ),
        ),
    ),
)

assert [screen.name for screen in SCREENS] == [step.name for step in STEPS], "one screen a step"

SCREEN_OF = {screen.name: screen for screen in SCREENS}

# The backward pass shows the steps in reverse: the gradient of each step's output.
GRADIENTS: tuple[Gradient, ...] = tuple(
    gradient for screen in reversed(SCREENS) for gradient in screen.gradients
)
