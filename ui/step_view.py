"""The ten steps of one attention forward pass, drawn from a one-head trace (shared by pages).

:class:`StepDrawing` draws each step of :mod:`viz.steps` with its explanation, formula and numbers;
:data:`STEP_DRAWINGS` binds each step of the registry :data:`attention.steps.STEPS` to its
drawing by name, and :func:`show_steps` shows them, one lazy tab per step.
The step page ("Attention, step by step") draws it for the sidebar's settings and embeddings; the
Train page draws it for one head of a *trained* model, traced by ``attention.trace_module``
through the same step code (``notes`` then replaces the sentences that speak of the sidebar and
of seeded initial weights).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from attention import AttentionTrace
from attention.chapter import BOOK_DROPOUT, BOOK_SEED_V1
from attention.dropout import bare_draw_differences, dropout_counts, dropped_rows
from attention.steps import STEPS, step_number
from viz import steps
from viz.markdown_text import escape_markdown
from viz.vocabulary import DECIMALS, context_labels, format_number, format_short, input_labels

from .batch_window import mask_legend, mask_view, step_note
from .book_code import show_book_code
from .i18n import t
from .show import figure_words, marking_changes, show_matrix, show_numbers
from .walk import Entry, Walk, show_walk

MAX_LISTED_SUMS = 12  # row sums listed one by one up to this many rows, as a range beyond
MAX_NAMED_DROPPED_ROWS = 3  # rows dropped whole named one by one; beyond, only their count


def _sums_text(sums: np.ndarray) -> str:
    return ", ".join(format_number(float(s)) for s in sums)


class StepDrawing:
    """The ten steps drawn from one trace (step page, Train page). Each ``step_*`` method draws one."""

    def __init__(
        self,
        trace: AttentionTrace,
        tokens: list[str],
        palette: str,
        *,
        key_prefix: str = "step",
        notes: Mapping[str, str] | None = None,
        seeded_weights: bool = True,
        present: bool = False,
    ) -> None:
        """``key_prefix`` starts every figure's key; ``notes`` maps a step's name to the message
        key that replaces its body text (``step.<name>.body``); ``seeded_weights=False`` leaves
        out the ``torch.manual_seed`` line of the weights step (trained weights, not drawn);
        ``present``: presenter mode, whose sentences point only at what its screen shows (the
        control strip, not the sidebar or the page's input table)."""
        self.trace = trace
        self.tokens = tokens
        self.palette = palette
        self.key_prefix = key_prefix
        self.notes = dict(notes or {})
        self.seeded_weights = seeded_weights
        self.present = present
        if present:
            self.notes = {
                name: f"present.step.{name}.body" for name in PRESENTER_NOTES
            } | self.notes
        self.num_tokens = trace.num_tokens
        self.d_out = int(trace.queries.shape[-1])
        self.hidden = steps.as_array(trace.mask)  # (T, T) bool, True = a future token
        self.words = figure_words()  # the figures' words in the page's language

    # --- layout helpers ----------------------------------------------------------------------

    def heading(self, name: str, **values: object) -> None:
        """The step's heading, numbered by its place in the registry, and its body text."""
        title = t("step.heading", number=step_number(name), title=t(f"step.{name}.title"))
        st.subheader(title, anchor=f"step-{name}")
        st.markdown(t(self.notes.get(name, f"step.{name}.body"), **values))
        step_note(self.trace, name)  # shapes with the batch axis; the sliding window

    def numbers(
        self,
        values: np.ndarray,
        rows: list[str],
        cols: list[str],
        *,
        hidden: np.ndarray | None = None,
        name: str,
        decimals: int = DECIMALS,
    ) -> None:
        """The heatmap's numbers as a table (``show_numbers`` windows a large matrix itself)."""
        label = t("step.numbers_of", name=name) if name else None
        show_numbers(
            values,
            rows,
            cols,
            key=f"{self.key_prefix}_numbers_{name}",
            hidden=hidden,
            label=label,
            decimals=decimals,
            beside_matrix=True,
        )

    def three_places(self) -> list[DeltaGenerator]:
        """Three figures side by side while they are narrow (d_out ≤ 3), else one below another."""
        if self.d_out <= 3:
            return list(st.columns(3, gap="medium"))
        return [st.container() for _ in range(3)]

    def text_and_figure(
        self, draw_text: Callable[[], None], draw_figure: Callable[[], None]
    ) -> None:
        """Explanation and formula on the left, the heatmap on the right."""
        left, right = st.columns([2, 3], gap="medium")
        with left:
            draw_text()
        with right:
            draw_figure()

    # --- the ten steps -----------------------------------------------------------------------

    def step_embeddings(self) -> None:
        trace = self.trace
        inputs = steps.batch_row(trace.inputs)  # (T, d_in)

        def text() -> None:
            self.heading("embeddings", tokens=self.num_tokens, d_in=trace.d_in)
            st.latex(
                rf"X \in \mathbb{{R}}^{{T \times d_{{in}}}} = \mathbb{{R}}^{{{self.num_tokens}"
                rf" \times {trace.d_in}}}"
            )
            st.latex(r"x^{(i)} = X_{i,:} \in \mathbb{R}^{d_{in}}")

        def figure() -> None:
            show_matrix(
                steps.embeddings_view(trace, self.tokens, self.words, palette=self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_inputs",
            )
            self.numbers(inputs, self.tokens, input_labels(trace.d_in), name="X")

        self.text_and_figure(text, figure)

    def step_weights(self) -> None:
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading("weights", seed=self.trace.config.seed, d_out=self.d_out)
            st.caption(t("step.weights.linear"))
        with formula_col:
            self.weights_formula()
        for column, name in zip(self.three_places(), steps.WEIGHTS, strict=True):
            with column:
                self.weight_block(name)

    def weights_formula(self) -> None:
        """W's shape, the seed that draws it, and whether there is a bias."""
        trace = self.trace
        st.latex(
            rf"W_q, W_k, W_v \in \mathbb{{R}}^{{d_{{in}} \times d_{{out}}}} = "
            rf"\mathbb{{R}}^{{{trace.d_in} \times {self.d_out}}}"
        )
        if self.seeded_weights:
            st.code(f"torch.manual_seed({trace.config.seed})", language="python")
        st.markdown(t("step.weights.bias_on" if trace.config.qkv_bias else "step.weights.bias_off"))

    def weight_block(self, name: str) -> None:
        """One weight matrix (and its bias vector when ``qkv_bias`` is on)."""
        trace = self.trace
        bias_name, prefix = steps.WEIGHTS[name]
        show_matrix(
            steps.weight_view(trace, name, self.words, palette=self.palette),
            self.words,
            key=f"{self.key_prefix}_fig_{name}",
        )
        if getattr(trace, bias_name) is not None:
            show_matrix(
                steps.bias_view(trace, bias_name, self.words, palette=self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_{bias_name}",
            )
        weight = steps.as_array(getattr(trace, name))  # (d_in, d_out)
        self.numbers(
            weight,
            input_labels(trace.d_in),
            steps.feature_labels(prefix, self.d_out),
            name=name,
        )

    def step_qkv(self) -> None:
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading("qkv", d_out=self.d_out)
        with formula_col:
            self.qkv_formula()
        for column, name in zip(self.three_places(), steps.PROJECTIONS, strict=True):
            with column:
                self.projection_block(name)

    def qkv_formula(self) -> None:
        trace = self.trace
        if trace.config.qkv_bias:
            st.latex(
                r"\begin{aligned} Q &= X W_q + b_q \\ K &= X W_k + b_k \\"
                r" V &= X W_v + b_v \end{aligned}"
            )
        else:
            st.latex(r"Q = X W_q,\quad K = X W_k,\quad V = X W_v")
        b = trace.inputs.shape[0]  # the batch: each copy times the same weights
        st.latex(
            rf"({b} \times {self.num_tokens} \times {trace.d_in})\,({trace.d_in} \times "
            rf"{self.d_out}) = ({b} \times {self.num_tokens} \times {self.d_out})"
        )

    def projection_block(self, name: str) -> None:
        """One of Q, K, V (``queries``, ``keys``, ``values``) as a matrix table."""
        trace = self.trace
        show_matrix(
            steps.projection_view(trace, name, self.tokens, self.words, palette=self.palette),
            self.words,
            key=f"{self.key_prefix}_fig_{name}",
        )
        self.numbers(
            steps.batch_row(getattr(trace, name)),
            self.tokens,
            steps.feature_labels(steps.PROJECTIONS[name], self.d_out),
            name={"queries": "Q", "keys": "K", "values": "V"}[name],
        )

    def _scores_step(
        self, name: str, stage: str, formulas: tuple[str, ...], **values: object
    ) -> None:
        trace = self.trace
        hidden = None if stage == "attn_scores" else self.hidden

        def text() -> None:
            self.heading(name, **values)
            for formula in formulas:
                st.latex(formula)

        def figure() -> None:
            show_matrix(
                steps.scores_view(trace, stage, self.tokens, self.words, palette=self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_{stage}",
            )
            self.numbers(
                steps.batch_row(getattr(trace, stage)),
                self.tokens,
                self.tokens,
                hidden=hidden,
                name=stage,
            )

        self.text_and_figure(text, figure)

    def step_scores(self) -> None:
        self._scores_step(
            "scores",
            "attn_scores",
            (r"\text{attn\_scores} = Q K^{\top}", r"\omega_{ij} = q^{(i)} \cdot k^{(j)}"),
        )

    def step_mask(self) -> None:
        self.mask_matrix()
        self.mask_buffer()

    def mask_matrix(self) -> None:
        trace = self.trace

        def text() -> None:
            self.heading("mask")
            if trace.config.window is None:  # a window's band is written by its own note
                st.latex(r"M = \operatorname{triu}\left(\mathbf{1}_{T \times T},\ 1\right)")
                st.latex(r"M_{ij} = 1 \iff j > i")

        def figure() -> None:
            show_matrix(
                mask_view(trace, self.tokens, self.words, self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_mask",
            )
            st.caption(mask_legend(trace))
            self.numbers(
                self.hidden.astype(np.float64), self.tokens, self.tokens, name="mask", decimals=0
            )

        self.text_and_figure(text, figure)

    def mask_buffer(self) -> None:
        """Why the mask is a buffer, beside the book's ``register_buffer`` line."""
        buffer_text, buffer_code = st.columns([3, 2], gap="medium")
        with buffer_text:
            st.markdown(t("step.mask.buffer"))
        with buffer_code:
            st.code(
                "# CausalAttention.__init__\n"
                "self.register_buffer(\n"
                "    'mask',\n"
                "    torch.triu(\n"
                "        torch.ones(context_length,\n"
                "                   context_length),\n"
                "        diagonal=1,\n"
                "    ),\n"
                ")",
                language="python",
            )

    def step_masked(self) -> None:
        self._scores_step(
            "masked",
            "masked_scores",
            (
                r"\text{masked}_{ij} = \begin{cases} \omega_{ij} & j \le i \\ -\infty & j > i"
                r"\end{cases}",
            ),
        )

    def step_scaled(self) -> None:
        trace = self.trace
        sqrt_dk = format_number(trace.scale)
        self._scores_step(
            "scaled",
            "scaled_scores",
            (
                r"\text{scaled\_scores} = \frac{\text{masked\_scores}}{\sqrt{d_k}}",
                rf"d_k = {trace.d_k},\qquad \sqrt{{d_k}} = {sqrt_dk}",
            ),
            d_k=trace.d_k,
            sqrt_dk=sqrt_dk,
        )

    def _with_row_sums(self, values: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """The matrix with one more column, its row sums (read from the trace's own sum)."""
        return np.hstack([values, sums[:, None]]), [*self.tokens, t("step.row_sum")]

    def _sums_caption(self, key: str, sums: np.ndarray) -> None:
        if len(sums) <= MAX_LISTED_SUMS:
            st.caption(t(key, sums=_sums_text(sums)))
        else:
            st.caption(
                t(
                    f"{key}_range",
                    low=format_number(float(sums.min())),
                    high=format_number(float(sums.max())),
                )
            )

    def step_softmax(self) -> None:
        trace = self.trace
        weights = steps.batch_row(trace.attn_weights)  # (T, T)
        sums = steps.batch_row(trace.attn_weights.sum(-1, keepdim=True))[:, 0]  # (T,)

        def text() -> None:
            self.heading("softmax")
            st.latex(r"a_{ij} = \frac{e^{s_{ij}}}{\sum_{j' \le i} e^{s_{ij'}}}")
            st.latex(r"\textstyle\sum_j a_{ij} = 1,\qquad a = \text{attn\_weights}")
            self._sums_caption("step.softmax.sums", sums)

        def figure() -> None:
            show_matrix(
                steps.weights_view(trace, self.tokens, self.words, palette=self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_attn_weights",
            )
            values, cols = self._with_row_sums(weights, sums)
            self.numbers(values, self.tokens, cols, name="attn_weights")

        self.text_and_figure(text, figure)

    def dropout_formula(self) -> None:
        st.latex(r"\text{dropped}_{ij} = \frac{m_{ij}}{1 - p}\;\text{attn\_weights}_{ij}")
        st.latex(r"m_{ij} \sim \operatorname{Bernoulli}(1 - p)")

    def dropout_active(self) -> bool:
        """Whether dropout acts (training and p > 0); else its step says why not."""
        return self.trace.dropout_mask is not None and dropout_counts(self.trace) is not None

    def dropout_inactive(self) -> None:
        key = (
            "step.dropout.inactive_p0"
            if self.trace.config.training
            else "step.dropout.inactive_eval"
        )
        st.info(t(f"{key}_present" if self.present else key), icon="ℹ️")

    def dropout_counts_text(self) -> None:
        """How many weights dropout kept and dropped, and the row sums after it."""
        trace, cfg = self.trace, self.trace.config
        counts = dropout_counts(trace)  # visible, kept and dropped weights
        assert counts is not None
        st.markdown(
            t(
                "step.dropout.active",
                p=format_short(cfg.dropout),
                scale=format_short(trace.dropout_scale),
                visible=counts.visible,
                kept=counts.kept,
                dropped=counts.dropped,
            )
        )
        self.before_and_after()
        sums = steps.batch_row(trace.dropped_weights.sum(-1, keepdim=True))[:, 0]  # (T,)
        self._sums_caption("step.dropout.sums", sums)
        self.dropped_rows_text()

    def before_and_after(self) -> None:
        """One kept and one dropped weight, before dropout and after it (read from the trace)."""
        before = steps.batch_row(self.trace.attn_weights)  # (T, T)
        after = steps.batch_row(self.trace.dropped_weights)  # (T, T)
        keep = steps.batch_row(self.trace.dropout_mask).astype(bool)  # (T, T)
        visible = ~self.hidden
        sentences = []
        for kept, key in (
            (True, "step.dropout.before_after_kept"),
            (False, "step.dropout.before_after_dropped"),
        ):
            cells = np.argwhere(visible & (keep == kept))  # (n, 2): query, key
            cells = cells[cells[:, 0] > 0] if (cells[:, 0] > 0).any() else cells
            if len(cells):
                row, column = (int(i) for i in cells[0])
                sentences.append(
                    t(
                        key,
                        query=escape_markdown(self.tokens[row]),
                        column=escape_markdown(self.tokens[column]),
                        before=format_number(float(before[row, column])),
                        after=format_number(float(after[row, column])),
                    )
                )
        if sentences:
            st.markdown(" ".join(sentences))

    def dropped_rows_text(self) -> None:
        """Queries that lost every weight they see: a zero context vector, and how likely."""
        rows = [row for row in dropped_rows(self.trace) if row.head == 0]
        for row in rows[:MAX_NAMED_DROPPED_ROWS]:
            st.markdown(
                t(
                    "step.dropout.row_dropped",
                    token=escape_markdown(self.tokens[row.query]),
                    number=row.query + 1,
                    visible=row.visible,
                    p=format_short(self.trace.config.dropout),
                    chance=f"{row.chance:.3g}",
                )
            )
        if len(rows) > MAX_NAMED_DROPPED_ROWS:
            st.caption(t("step.dropout.rows_dropped_more", count=len(rows)))

    def book_demo_note(self) -> None:
        """At the seed and p of the book's 3.5.2 demo, why this mask is not its printout: the
        difference from the bare draw, computed."""
        cfg = self.trace.config
        if cfg.seed != BOOK_SEED_V1 or cfg.dropout != BOOK_DROPOUT:
            return
        count, counts = bare_draw_differences(self.trace), dropout_counts(self.trace)
        if not count or counts is None:
            return
        st.caption(
            t(
                "step.dropout.not_demo",
                p=format_short(cfg.dropout),
                seed=cfg.seed,
                count=count,
                visible=counts.visible,
            )
        )

    def keep_mask_block(self) -> None:
        keep = steps.batch_row(self.trace.dropout_mask).astype(bool)  # (T, T)
        st.markdown(f"**{t('step.dropout.keep_title')}**")
        show_matrix(
            steps.keep_mask_view(self.trace, self.tokens, self.words, palette=self.palette),
            self.words,
            key=f"{self.key_prefix}_fig_dropout_mask",
        )
        self.numbers(
            keep.astype(np.float64), self.tokens, self.tokens, name="dropout_mask", decimals=0
        )

    def dropped_weights_block(self) -> None:
        trace = self.trace
        dropped_weights = steps.batch_row(trace.dropped_weights)  # (T, T)
        sums = steps.batch_row(trace.dropped_weights.sum(-1, keepdim=True))[:, 0]  # (T,)
        st.markdown(f"**{t('step.dropout.dropped_title')}**")
        show_matrix(
            steps.dropped_weights_view(trace, self.tokens, self.words, palette=self.palette),
            self.words,
            key=f"{self.key_prefix}_fig_dropped_weights",
        )
        values, cols = self._with_row_sums(dropped_weights, sums)
        self.numbers(values, self.tokens, cols, name="dropped_weights")

    def step_dropout(self) -> None:
        text_col, formula_col = st.columns([3, 2], gap="medium")
        with text_col:
            self.heading("dropout")
        with formula_col:
            self.dropout_formula()
        if not self.dropout_active():
            self.dropout_inactive()
            return
        self.dropout_counts_text()
        self.book_demo_note()  # not in presenter mode: its screen has no room
        keep_col, weights_col = st.columns(2, gap="medium")
        with keep_col:
            self.keep_mask_block()
        with weights_col:
            self.dropped_weights_block()

    def step_context(self) -> None:
        trace = self.trace

        def text() -> None:
            self.heading("context", d_out=self.d_out)
            st.latex(r"\text{context\_vec} = \text{dropped\_weights}\; V")
            st.latex(r"z^{(i)} = \textstyle\sum_{j \le i} a_{ij}\, v^{(j)}")

        def figure() -> None:
            show_matrix(
                steps.context_view(trace, self.tokens, self.words, palette=self.palette),
                self.words,
                key=f"{self.key_prefix}_fig_context",
            )
            self.numbers(
                steps.batch_row(trace.context),
                self.tokens,
                context_labels(self.d_out),
                name="context_vec",
            )

        self.text_and_figure(text, figure)


# The steps whose sentences point at the sidebar or the page's input table: presenter mode says
# the same with what its screen shows (``present.step.<name>.body``).
PRESENTER_NOTES = ("embeddings", "weights")


def _weight_part(name: str, index: int) -> Callable[[StepDrawing], None]:
    def draw(drawing: StepDrawing) -> None:
        def text() -> None:
            drawing.heading("weights", seed=drawing.trace.config.seed, d_out=drawing.d_out)
            if index == 0:
                drawing.weights_formula()
            else:
                st.caption(t("step.weights.linear"))

        drawing.text_and_figure(text, lambda: drawing.weight_block(name))

    return draw


def _projection_part(name: str, index: int) -> Callable[[StepDrawing], None]:
    def draw(drawing: StepDrawing) -> None:
        def text() -> None:
            drawing.heading("qkv", d_out=drawing.d_out)
            if index == 0:
                drawing.qkv_formula()

        drawing.text_and_figure(text, lambda: drawing.projection_block(name))

    return draw


def _mask_parts(drawing: StepDrawing) -> tuple[Callable[[StepDrawing], None], ...]:
    def buffer(drawing: StepDrawing) -> None:
        title = t("step.heading", number=step_number("mask"), title=t("step.mask.title"))
        st.subheader(title, anchor=False)
        drawing.mask_buffer()

    return (StepDrawing.mask_matrix, buffer)


def _dropout_parts(drawing: StepDrawing) -> tuple[Callable[[StepDrawing], None], ...]:
    if not drawing.dropout_active():
        return (StepDrawing.step_dropout,)

    def keep(drawing: StepDrawing) -> None:
        def text() -> None:
            drawing.heading("dropout")
            drawing.dropout_formula()

        drawing.text_and_figure(text, drawing.keep_mask_block)

    def dropped(drawing: StepDrawing) -> None:
        def text() -> None:
            title = t("step.heading", number=step_number("dropout"), title=t("step.dropout.title"))
            st.subheader(title, anchor=False)
            drawing.dropout_counts_text()

        drawing.text_and_figure(text, drawing.dropped_weights_block)

    return (keep, dropped)


# Presenter mode's screens of the dense steps (each one a Next press); the others are one screen.
PRESENTER_PARTS: dict[str, Callable[[StepDrawing], tuple[Callable[[StepDrawing], None], ...]]] = {
    "weights": lambda drawing: tuple(
        _weight_part(name, index) for index, name in enumerate(steps.WEIGHTS)
    ),
    "qkv": lambda drawing: tuple(
        _projection_part(name, index) for index, name in enumerate(steps.PROJECTIONS)
    ),
    "mask": _mask_parts,
    "dropout": _dropout_parts,
}


# Which method draws which step of ``attention.steps.STEPS``, by the step's name (a test checks
# that every step has one drawing and no drawing is left over).
STEP_DRAWINGS: dict[str, Callable[[StepDrawing], None]] = {
    "embeddings": StepDrawing.step_embeddings,
    "weights": StepDrawing.step_weights,
    "qkv": StepDrawing.step_qkv,
    "scores": StepDrawing.step_scores,
    "mask": StepDrawing.step_mask,
    "masked": StepDrawing.step_masked,
    "scaled": StepDrawing.step_scaled,
    "softmax": StepDrawing.step_softmax,
    "dropout": StepDrawing.step_dropout,
    "context": StepDrawing.step_context,
}


def draw_step(drawing: StepDrawing, name: str) -> None:
    """Step ``name`` of ``drawing``, then (full width, collapsed) the book's lines that compute it."""
    STEP_DRAWINGS[name](drawing)
    show_book_code(name)


def tab_label(name: str) -> str:
    """The short label of a step's tab, numbered by its place in the registry: "8 · Softmax"."""
    return t("step.tab_label", number=step_number(name), tab=t(f"step.{name}.tab"))


def step_walk(
    page: str, tabs_key: str, *, all_key: str | None = None, linked: bool = True
) -> Walk[StepDrawing]:
    """The ten steps as a walk: one entry per step of ``attention.steps.STEPS``, by its name.

    The whole tab strip is a fragment, so a tab switch reruns only the tabs, not the page above
    them, and costs what drawing one step costs.
    """
    return Walk(
        page=page,
        entries=tuple(
            Entry(
                step.name,
                partial(tab_label, step.name),
                partial(_draw_named, name=step.name),
                parts=PRESENTER_PARTS.get(step.name, partial(_one_screen, name=step.name)),
            )
            for step in STEPS
        ),
        tabs_key=tabs_key,
        all_key=all_key,
        all_label="step.all_toggle",
        fragment=True,
        wrap=marking_changes,
        linked=linked,
    )


def _one_screen(drawing: StepDrawing, name: str) -> tuple[Callable[[StepDrawing], None], ...]:
    """Presenter mode's one screen of a step: the step without the book's code below it."""
    del drawing
    return (STEP_DRAWINGS[name],)


def _draw_named(drawing: StepDrawing, name: str) -> None:
    draw_step(drawing, name)


def show_steps(drawing: StepDrawing, *, key: str, all_toggle: str | None = None) -> None:
    """The steps of ``drawing`` as tabs that are not in the link (the Train page's trained head)."""
    show_walk(step_walk(key, key, all_key=all_toggle, linked=False), drawing)
