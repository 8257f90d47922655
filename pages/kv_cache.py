"""The KV cache in five entries of one walk (:mod:`ui.walk`): the book's layer fed one token at a
time, one query's mask row, a tiny GPT generating with and without a cache, the time per token
and the cache's memory. Every number comes from :mod:`attention.kv_cache`; the timing runs on
demand, bounded and cached.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from string import ascii_lowercase

import numpy as np
import streamlit as st

from attention import AttentionInputError
from attention.kv_cache import (
    GENERATION_CONTEXT,
    CacheStep,
    GenerationTimings,
    SliceSlip,
    cache_bytes,
    cache_growth,
    compare_generation,
    decode,
    default_prompt,
    mask_slice_slip,
    time_generation,
)
from attention.training import TrainConfig
from ui.choices import write_back
from ui.frame import page
from ui.i18n import t
from ui.input_errors import show_input_error
from ui.matrix_table import draw_table
from ui.run_slots import step_aside
from ui.show import figure_words, show_matrix
from ui.step_link import presenting
from ui.view import View
from ui.walk import Entry, Parts, Walk, begin, part, present, show_walk
from viz.fast_path import cache_rows_view, convention_view
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView
from viz.table_heatmap import text_table
from viz.vocabulary import format_difference, format_short

GROWTH_TOKENS = 32  # the cache is shown on the first tokens of a longer table
PRESENT_ROWS = 3  # presenter mode shows a cache's last rows: the table fits a projector's height
TIMED_TOKENS = 100  # new characters of the timing run
TIME_BUDGET_S = 10.0
NEW_TOKENS, NEW_TOKENS_KEY = 24, "kv_cache_new_tokens"  # the generation's new characters
TIMED_KEY = "kv_cache_timed"  # session: this visitor asked for the measurement


@st.cache_data(max_entries=16, ttl=1800, show_spinner=False)
def _growth(
    values: bytes, shape: tuple[int, int], d_out: int, heads: int, seed: int
) -> tuple[list[CacheStep], SliceSlip | None]:
    array = np.frombuffer(values, dtype=np.float64).reshape(shape)  # (T, d_in)
    steps = cache_growth(array, d_out=d_out, num_heads=heads, seed=seed)
    slip = mask_slice_slip(array, d_out=d_out, num_heads=heads, seed=seed) if shape[0] > 1 else None
    return steps, slip


@st.cache_data(max_entries=32, ttl=1800, show_spinner=False)
def _generation(new_tokens: int, seed: int) -> tuple[list[int], list[int]]:
    return compare_generation(prompt_tokens=default_prompt(), new_tokens=new_tokens, seed=seed)


@st.cache_data(max_entries=4, ttl=1800, show_spinner=False)
def _timing(seed: int) -> GenerationTimings:
    return time_generation(
        prompt_tokens=default_prompt(), new_tokens=TIMED_TOKENS, seed=seed, budget_s=TIME_BUDGET_S
    )


def _weights_view(weights: np.ndarray, tokens: list[str], view: View, title: str) -> MatrixView:
    """A new query's weights, ``(h, n)``: a row per head, a column per cached key."""
    return MatrixView(
        values=weights,
        row_labels=tuple(t("kv_cache.head", h=h + 1) for h in range(weights.shape[0])),
        col_labels=tuple(tokens),
        palette=view.palette,
        kind="sequential",
        zrange=(0.0, 1.0),
        title=title,
        row_title=t("kv_cache.axis.head"),
        col_title=t("kv_cache.axis.key"),
        value_name=t("kv_cache.value.weight"),
    )


def show_growth(steps: list[CacheStep], view: View) -> None:
    """The cache after ``n`` tokens (a slider): keys, values, the new query's weights."""
    st.subheader(t("kv_cache.growth.header"))
    n = (
        len(steps)
        if len(steps) == 1
        else st.slider(
            t("kv_cache.growth.slider"), 1, len(steps), len(steps), key="kv_cache_tokens"
        )
    )
    show_cache_after(steps[n - 1], view)


def _counted(key: str, n: int) -> str:
    """``key``, or its ``_one`` wording when ``n`` is 1 (“1 row”, “that one key”)."""
    return f"{key}_one" if n == 1 else key


def show_cache_after(step: CacheStep, view: View, *, compact: bool = False) -> None:
    """Token ``step.position`` fed alone: the cache's K and V rows, its weights, its output row.

    ``compact`` (presenter mode): shorter words, and only a long cache's last ``PRESENT_ROWS`` rows.
    """
    n = step.position + 1
    tokens = view.tokens[:n]
    cfg = view.config
    token = escape_markdown(tokens[n - 1])
    if compact:  # the header leads the sentence: the screen keeps its height for the tables
        sentence = t(_counted("kv_cache.growth.short", n), n=n, token=token)
        st.markdown(t("kv_cache.growth.lead", header=t("kv_cache.growth.header"), text=sentence))
    else:
        text = t(
            _counted("kv_cache.growth.text", n),
            seed=cfg.seed,
            d_out=cfg.d_out,
            heads=view.heads,
            n=n,
            token=token,
        )
        st.markdown(text)
    words = figure_words()
    common = {
        "row_title": t("kv_cache.axis.token"),
        "col_title": t("kv_cache.axis.feature"),
        "palette": view.palette,
    }
    legend = not compact
    shown = min(n, PRESENT_ROWS) if compact else n  # the last rows: the newest is the growth
    keys_column, values_column = st.columns(2, gap="large")
    for column, rows, name, kind in (
        (keys_column, step.keys, "k", "keys"),
        (values_column, step.values, "v", "values"),
    ):
        title = t(f"kv_cache.growth.{kind}")
        if shown < n:
            title = t(f"kv_cache.growth.{kind}_last", shown=shown, n=n)
        with column:
            last = rows[:, n - shown :].numpy()  # (h, shown, head_dim)
            matrix = cache_rows_view(last, tokens[n - shown :], name=name, **common)
            matrix = replace(matrix, title=title, colour_bar=legend)
            show_matrix(matrix, words, key=f"kv_cache_{kind}")
    # The weights row grows a column per token and the output stays two numbers wide: the
    # weights get the wider share, so both stay side by side on a projector's narrow window.
    weights_column, output_column = st.columns([3, 2], gap="medium")
    with weights_column:
        weights = step.attn_weights[:, 0].numpy()  # (h, n)
        weights_view = _weights_view(weights, tokens, view, t("kv_cache.growth.weights"))
        show_matrix(replace(weights_view, colour_bar=legend), words, key="kv_cache_weights")
    with output_column:
        _show_output_rows(step, view, compact=compact)


def _show_output_rows(step: CacheStep, view: View, *, compact: bool) -> None:
    """The cached output row beside the full forward pass's, and their largest difference."""
    n = step.position + 1
    rows = np.stack([step.context_vec.numpy(), step.full_row.numpy()])  # (2, d_out)
    label, value = t("kv_cache.growth.metric", n=n), format_difference(step.difference)
    title = t("kv_cache.growth.output", n=n)
    if compact:
        title = t("kv_cache.growth.output_compact", n=n, difference=value)
    output = MatrixView(
        values=rows,
        row_labels=(t("kv_cache.growth.cached_row"), t("kv_cache.growth.full_row")),
        col_labels=tuple(f"z{j + 1}" for j in range(rows.shape[1])),
        palette=view.palette,
        title=title,
        col_title=t("kv_cache.axis.output"),
        value_name=t("kv_cache.value.output"),
        colour_bar=False,  # two rows to compare, not a scale to read
    )
    show_matrix(output, figure_words(), key="kv_cache_output_rows")
    if not compact:
        st.metric(label, value, help=t("kv_cache.growth.metric_help"))


def _slice_text(cache: KvCache) -> None:
    """Why one query's mask is row n−1, and what slicing from row 0 gives it."""
    st.subheader(t("kv_cache.slice.header"))
    if cache.slip is None:
        st.info(t("kv_cache.slice.one_token"))
        return
    n = cache.slip.right_mask.shape[1]
    st.markdown(t("kv_cache.slice.text", n=n, first=escape_markdown(cache.view.tokens[0])))


def _slice_masks(cache: KvCache) -> None:
    """The right mask row and the slip's, one table of two rows."""
    slip, view = cache.slip, cache.view
    assert slip is not None  # a part only when there is a slip
    n = slip.right_mask.shape[1]
    tokens = view.tokens[:n]
    masks = np.concatenate([slip.right_mask.numpy(), slip.slipped_mask.numpy()])  # (2, n)
    matrix = convention_view(
        masks,
        tokens,
        true_hides=True,  # True hides
        hidden_name=t("kv_cache.slice.hidden"),
        attended_name=t("kv_cache.slice.visible"),
        row_title=t("kv_cache.slice.query_of", token=tokens[-1]),
        col_title=t("kv_cache.axis.key"),
        palette=view.palette,
        row_labels=(t("kv_cache.slice.right_row"), t("kv_cache.slice.slip_row")),
    )
    show_matrix(matrix, figure_words(), key="kv_cache_slice_masks")


def _slice_outputs(cache: KvCache) -> None:
    """What each mask row outputs, the difference, and where the slip is in the gallery."""
    slip = cache.slip
    assert slip is not None  # a part only when there is a slip
    for name, output in (("right", slip.right_output), ("slip", slip.slipped_output)):
        numbers = ", ".join(f"{value:.4f}" for value in output.tolist())
        st.markdown(f"{t(f'kv_cache.slice.{name}_output')}: `[{numbers}]`")
    st.metric(t("kv_cache.slice.metric"), f"{slip.difference:.4f}")
    st.caption(t("kv_cache.slice.gallery"))


def _slice_parts(cache: KvCache) -> Parts[KvCache]:
    """Why row n−1 and the two rows, then what each outputs (one part without a slip)."""
    if cache.slip is None:
        return (_slice_text,)
    return (part(None, _slice_text, _slice_masks), part("kv_cache.slice.header", _slice_outputs))


def show_generation(view: View) -> None:
    """The tiny GPT's greedy continuation, with and without the cache (presenter mode keeps the
    count chosen on the page)."""
    st.subheader(t("kv_cache.generate.header"))
    cfg = TrainConfig(
        task="text", seed=view.config.seed, context_length=GENERATION_CONTEXT
    ).resolved()
    st.markdown(
        t(
            "kv_cache.generate.text",
            layers=cfg.layers,
            heads=cfg.heads,
            width=cfg.width,
            context=GENERATION_CONTEXT,
            seed=view.config.seed,
        )
    )
    if not presenting():
        count = st.slider(t("kv_cache.generate.count"), 1, 64, NEW_TOKENS, key=NEW_TOKENS_KEY)
    else:
        count = st.session_state.get(NEW_TOKENS_KEY, NEW_TOKENS)
        write_back([NEW_TOKENS_KEY])  # the page's slider finds its value again
    with_cache, without_cache = _generation(int(count), view.config.seed)
    texts = (
        ("prompt", default_prompt()),
        ("with", with_cache),
        ("without", without_cache),
    )
    for column, (name, tokens) in zip(st.columns(3, gap="medium"), texts, strict=True):
        with column:
            st.markdown(f"**{t(f'kv_cache.generate.{name}')}**")
            st.code(decode(tokens), language=None, wrap_lines=True)
    if with_cache == without_cache:
        st.success(t("kv_cache.generate.same", count=len(with_cache)))
    else:
        st.error(t("kv_cache.generate.differ"))


def show_timing(view: View) -> None:
    """Time per token both ways: on demand, bounded, cached per seed for the server."""
    st.subheader(t("kv_cache.time.header"))
    st.markdown(t("kv_cache.time.text", count=TIMED_TOKENS, budget=f"{TIME_BUDGET_S:g}"))
    if st.button(t("kv_cache.time.button"), key="kv_cache_measure"):
        st.session_state[TIMED_KEY] = True
    if not st.session_state.get(TIMED_KEY):
        return
    step_aside()  # seconds of timing (or waiting for another visitor's): others go first
    with st.spinner(t("kv_cache.time.running", budget=f"{TIME_BUDGET_S:g}")):
        timings = _timing(view.config.seed)
    with_ms, without_ms = timings.seconds_with_cache * 1000, timings.seconds_without_cache * 1000
    columns = st.columns(3)
    columns[0].metric(t("kv_cache.time.with"), f"{with_ms:.2f}")
    columns[1].metric(t("kv_cache.time.without"), f"{without_ms:.2f}")
    columns[2].metric(t("kv_cache.time.ratio"), f"{without_ms / with_ms:.1f}×")
    stopped = t("kv_cache.time.stopped") if timings.stopped_by_budget else ""
    st.caption(
        t("kv_cache.time.caption", runs=timings.runs, threads=timings.threads, stopped=stopped)
    )


def _size(count: int) -> str:
    return f"{count / 2**20:,.1f} MiB" if count >= 2**20 else f"{count:,} B"


MEMORY_FORMULA = (
    r"2 \cdot b \cdot L \cdot T \cdot d_\text{model} \cdot h_\text{kv} / h \cdot \text{bytes}"
)


def _memory_formula(_: KvCache) -> None:
    st.subheader(t("kv_cache.memory.header"))
    st.markdown(t("kv_cache.memory.text"))
    st.latex(MEMORY_FORMULA)


def _memory_calculator(_: KvCache) -> None:
    """The cache's bytes for settings the reader types (on its own screen, under the formula)."""
    if presenting():
        st.latex(MEMORY_FORMULA)
    fields = (
        ("layers", 12, 1, 200),
        ("tokens", 1024, 1, 1_000_000),
        ("d_model", 768, 1, 65_536),
        ("heads", 12, 1, 256),
        ("kv_heads", 12, 1, 256),
        ("batch", 1, 1, 4096),
    )
    values = {}
    for column, (name, default, low, high) in zip(st.columns(len(fields)), fields, strict=True):
        values[name] = int(
            column.number_input(
                t(f"kv_cache.memory.{name}"),
                low,
                high,
                default,
                step=1,
                key=f"kv_cache_memory_{name}",
            )
        )
    bytes_per_value = st.radio(
        t("kv_cache.memory.bytes"), (4, 2, 1), horizontal=True, key="kv_cache_memory_bytes"
    )
    try:
        total = cache_bytes(**values, bytes_per_value=int(bytes_per_value))
        st.metric(t("kv_cache.memory.result"), f"{total:,} B")
        st.caption(t("kv_cache.memory.in_mib", size=_size(total)))
    except AttentionInputError as error:
        show_input_error(error)


def _memory_examples(_: KvCache) -> None:
    """Four examples: the chapter's layer, GPT-2 124M, with 4 K/V heads and with 1."""
    if presenting():  # the calculator is on the next screen: it keeps what was typed
        write_back(MEMORY_KEYS)
    gpt2 = {"layers": 12, "tokens": 1024, "d_model": 768}
    examples = (
        ("chapter", cache_bytes(layers=1, tokens=6, d_model=2)),
        ("gpt2", cache_bytes(**gpt2)),
        ("gqa4", cache_bytes(**gpt2, heads=12, kv_heads=4)),
        ("mqa", cache_bytes(**gpt2, heads=12, kv_heads=1)),
    )
    st.markdown(t("kv_cache.memory.examples"))
    rows = [[f"{count:,}", _size(count)] for _, count in examples]
    labels = [t(f"kv_cache.memory.{name}") for name, _ in examples]
    columns = [t("kv_cache.memory.col_bytes"), t("kv_cache.memory.col_size")]
    draw_table(
        text_table(rows, labels, columns, corner=t("kv_cache.memory.corner")),
        key="kv_cache_examples",
    )


@dataclass(frozen=True)
class KvCache:
    """What every entry reads: the cache after each token, the slice slip, the view."""

    steps: list[CacheStep]
    slip: SliceSlip | None
    view: View


def _token_screen(position: int, cache: KvCache) -> None:
    """Presenter mode: one screen per token fed, the cache after it."""
    show_cache_after(cache.steps[position], cache.view, compact=True)


def _token_screens(cache: KvCache) -> Parts[KvCache]:
    count = min(len(cache.steps), len(ascii_lowercase))  # screens 1a … 1z
    return tuple(partial(_token_screen, position) for position in range(count))


MEMORY_KEYS = tuple(
    f"kv_cache_memory_{name}"
    for name in ("layers", "tokens", "d_model", "heads", "kv_heads", "batch", "bytes")
)
WALK: Walk[KvCache] = Walk(
    page="kv_cache",
    entries=(
        Entry(
            "growth",
            lambda: t("kv_cache.tab.growth"),
            lambda c: show_growth(c.steps, c.view),
            parts=_token_screens,
            keeps=("kv_cache_tokens",),
        ),
        Entry("slice", lambda: t("kv_cache.tab.slice"), parts=_slice_parts),
        Entry(
            "generate",
            lambda: t("kv_cache.tab.generate"),
            lambda c: show_generation(c.view),
            keeps=(NEW_TOKENS_KEY,),
        ),
        Entry("time", lambda: t("kv_cache.tab.time"), lambda c: show_timing(c.view)),
        Entry(
            "memory",
            lambda: t("kv_cache.tab.memory"),
            parts=(
                part(None, _memory_formula, _memory_examples),
                part("kv_cache.memory.header", _memory_calculator),
            ),
            keeps=MEMORY_KEYS,
        ),
    ),
    tabs_key="kv_cache_tabs",
    ignores=("dropout", "train"),  # the cache is computed without dropout
    all_key="kv_cache_all",
    all_default=True,  # the page reads top to bottom; a link to a part opens its tab
)


@page
def render(view: View) -> None:
    presenting = begin(WALK)
    if not presenting:
        st.title(t("page.kv_cache.title"))
        st.markdown(t("kv_cache.intro"))
    array = np.asarray(view.table.values, dtype=np.float64)[:GROWTH_TOKENS]  # (T, d_in)
    cfg = view.config
    try:
        steps, slip = _growth(array.tobytes(), array.shape, cfg.d_out, view.heads, cfg.seed)
    except AttentionInputError as error:
        show_input_error(error)
        return
    cache = KvCache(steps, slip, view)
    if cfg.dropout > 0 and cfg.training:  # the strip and sidebar say p > 0, train: say why not here
        st.caption(t("kv_cache.no_dropout", p=format_short(cfg.dropout)))
    if presenting:
        present(WALK, cache)
        return
    if len(view.tokens) > GROWTH_TOKENS:
        st.caption(t("kv_cache.growth.cut", shown=GROWTH_TOKENS, tokens=len(view.tokens)))
    show_walk(WALK, cache)
