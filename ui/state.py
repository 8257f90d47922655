"""Shared state of the app: sidebar controls, the embedding table, the URL, and the cached trace.

One place owns everything several pages share. ``app.py`` calls :func:`init_session` and
:func:`render_sidebar` on every run, then :func:`sync_url`; pages call :func:`current_table`,
:func:`current_config` and :func:`current_trace`.

The URL describes the view, both ways: on a session's first run every query parameter is read and
checked (a bad value is replaced by its default and *reported*, never silently dropped); after that
the URL is rewritten on every run from the state, keeping only values that differ from the defaults.

Session-state keys equal the URL parameter names (``seed``, ``dropout``, ``train``, ``d_out``,
``qkv_bias``, ``heads``, ``text``, ``lang``, ``palette``); the embedding table lives under ``table``
(the committed :class:`~ui.table.Table`) and ``table_draft`` (rows of strings as typed).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st
import torch

from attention import AttentionConfig, AttentionInputError, AttentionTrace, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS, embed_words, split_words
from attention.validate import MAX_TOKENS
from viz.vocabulary import DECIMALS, HOVER_DECIMALS

from . import gradient_state as backward
from .i18n import LANGUAGES, current_language, t
from .markdown_text import escape_markdown
from .table import (
    MAX_D_IN,
    TOKEN_COLUMN,
    Table,
    TableProblem,
    emb_to_text,
    problem,
    table_from_rows,
    table_from_text_and_emb,
)

MAX_APP_SEED = 2**53 - 1  # the largest integer a browser's number field holds exactly
MAX_TEXT_CHARS = 100_000
PALETTES = ("default", "colorblind")


# --- settings: parse a URL value or raise TableProblem(message key) -------------------------
#
# A parser gets the raw URL text and the URL name it came from (``dropout`` or Compare's
# ``b_dropout``), so that a message names the parameter the user wrote.

DROPOUT_MAX = 0.95
DROPOUT_STEP = 0.01  # the dropout sliders' step: a URL value between steps is rounded to one
D_OUT_MAX = 8


def _parse_int(low: int, high: int) -> Callable[[str, str], int]:
    def parse(raw: str, name: str) -> int:
        text = raw.strip()
        if not re.fullmatch(r"[+-]?\d{1,40}", text):
            raise problem("url.not_integer", name=name, value=_shorten(raw))
        value = int(text)
        if not low <= value <= high:
            raise problem("url.out_of_range", name=name, value=_shorten(raw), low=low, high=high)
        return value

    return parse


def _parse_dropout(raw: str, name: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise problem("url.not_number", name=name, value=_shorten(raw)) from None
    if not math.isfinite(value) or not 0.0 <= value <= DROPOUT_MAX:
        raise problem("url.out_of_range", name=name, value=_shorten(raw), low=0, high=DROPOUT_MAX)
    return value


def _parse_bool(raw: str, name: str) -> bool:
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise problem("url.not_bool", name=name, value=_shorten(raw))


def _parse_choice(choices: tuple[str, ...]) -> Callable[[str, str], str]:
    def parse(raw: str, name: str) -> str:
        if raw.strip() not in choices:
            raise problem(
                "url.not_choice", name=name, value=_shorten(raw), choices=", ".join(choices)
            )
        return raw.strip()

    return parse


@dataclass(frozen=True)
class Setting:
    """One URL-bound setting: its default, its parser and, for a slider, its step.

    ``step``: the control only takes multiples of it, so a URL value between two steps is
    rounded to the nearest one, and :meth:`read` says so (a link never changes silently).
    """

    default: Any
    parse: Callable[[str, str], Any]
    step: float | None = None

    def to_url(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def read(self, raw: str, name: str) -> tuple[Any, TableProblem | None]:
        """The value of URL text ``raw`` and, if it had to be rounded, a note saying so.

        Raises:
            TableProblem: the text is not a valid value (the caller keeps the default).
        """
        value = self.parse(raw, name)
        if self.step is None:
            return value, None
        decimals = max(0, -math.floor(math.log10(self.step)))
        used = round(round(value / self.step) * self.step, decimals)
        if used == value:
            return used, None
        note = problem(
            "url.rounded",
            name=name,
            value=_shorten(raw),
            used=self.to_url(used),
            step=self.to_url(self.step),
        )
        return used, note


SETTINGS: dict[str, Setting] = {
    "seed": Setting(123, _parse_int(0, MAX_APP_SEED)),
    "dropout": Setting(0.0, _parse_dropout, step=DROPOUT_STEP),
    "train": Setting(True, _parse_bool),
    "d_out": Setting(2, _parse_int(1, D_OUT_MAX)),
    "qkv_bias": Setting(False, _parse_bool),
    "heads": Setting(1, _parse_int(1, 8)),
    "lang": Setting("en", _parse_choice(tuple(LANGUAGES))),
    "palette": Setting("default", _parse_choice(PALETTES)),
    # the backward page's own settings (ui/gradient_state.py)
    "loss": Setting("sum", _parse_choice(backward.LOSS_NAMES)),
    "target": Setting("", backward.parse_target),
    "lr": Setting(
        backward.LEARNING_RATE_DEFAULT,
        backward.parse_learning_rate,
        step=10**-backward.LEARNING_RATE_DECIMALS,
    ),
    "grad_steps": Setting(1, _parse_int(1, backward.MAX_DESCENT_STEPS)),
}

# Compare A/B: B's settings are a copy of A's (the sidebar's) with some changed. They live in
# ``st.session_state[COMPARE_B_STORE]`` (a dict by field name) and in the URL as ``b_<field>``,
# written only where B differs from A: a link with ``seed=7&b_seed=8`` means "B = A, but seed 8".
COMPARE_B_FIELDS = ("seed", "dropout", "train", "qkv_bias", "d_out")  # names of SETTINGS
COMPARE_B_STORE = "compare_b_store"
COMPARE_B_PREFIX = "b_"


@dataclass(frozen=True)
class PageParams:
    """URL parameters that one page owns (e.g. the Train page's, ``ui/train_settings.py``).

    ``read(params)`` runs on a session's first run with every query parameter and returns the
    problems it found (reported like the shared settings'); ``write()`` runs on every run and
    returns the page's parameters that differ from their defaults.
    """

    names: tuple[str, ...]
    read: Callable[[dict[str, str]], list[TableProblem]]
    write: Callable[[], dict[str, str]]


PAGE_PARAMS: list[PageParams] = []


def register_page_params(params: PageParams) -> None:
    """Let the URL carry a page's own parameters (idempotent: a re-import registers once)."""
    PAGE_PARAMS[:] = [p for p in PAGE_PARAMS if p.names != params.names] + [params]


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the embedding table ----------------------------------------------------------------------


def _rows_of(embeddings: torch.Tensor) -> tuple[tuple[float, ...], ...]:
    """float32 values as the shortest decimals that read back as the same float32 (0.43)."""
    return tuple(
        tuple(float(str(np.float32(v))) for v in row) for row in embeddings.numpy().tolist()
    )


def book_table() -> Table:
    """The book's six tokens and 3-dimensional embeddings."""
    return Table(BOOK_TOKENS, _rows_of(BOOK_EMBEDDINGS))


def table_for_words(words: list[str], d_in: int = 3) -> Table:
    """Labels ``words`` with reproducible embeddings (the book's for the book's words at d_in 3)."""
    embeddings = embed_words(words, d_in=d_in)  # (T, d_in)
    return Table(tuple(words), _rows_of(embeddings))


def parse_sentence(text: str) -> list[str]:
    """The sentence's words, or a TableProblem if it is empty or too long."""
    if len(text) > MAX_TEXT_CHARS:
        raise problem("text.too_long_chars", chars=len(text), limit=MAX_TEXT_CHARS)
    words = split_words(text)
    if not words:
        raise problem("text.empty")
    if len(words) > MAX_TOKENS:
        raise problem("text.too_many_words", words=len(words), limit=MAX_TOKENS)
    for index, word in enumerate(words):
        if len(word) > 100:
            raise problem("table.long_token", row=index + 1)
    return words


def commit_table(table: Table, *, reset_draft: bool = True) -> None:
    """Make ``table`` the valid table every page shows; refresh the editors' drafts."""
    st.session_state["table"] = table
    st.session_state["text"] = " ".join(table.tokens)
    st.session_state.pop("text_problem", None)
    st.session_state.pop("table_problem", None)
    if reset_draft:
        _set_draft(table.to_draft(), [TOKEN_COLUMN, *table.column_names()])


def _set_draft(rows: list[dict[str, str]], columns: list[str]) -> None:
    st.session_state["table_draft"] = rows
    st.session_state["table_columns"] = columns
    st.session_state["table_version"] = st.session_state.get("table_version", 0) + 1


def current_table() -> Table:
    """The last valid embedding table (what every number on screen is computed from)."""
    return st.session_state["table"]


def message(item: TableProblem) -> str:
    """A TableProblem in the current language (nested problems are rendered too).

    Values may come from the user (a token, a cell, a URL value): they are escaped so that the
    Markdown of ``st.error``/``st.warning`` shows them literally.
    """
    values = {
        name: message(value)
        if isinstance(value, TableProblem)
        else escape_markdown(value)
        if isinstance(value, str)
        else value
        for name, value in item.kwargs.items()
    }
    return t(item.key, **values)


def _on_text_change() -> None:
    text = st.session_state.get("text", "")
    try:
        words = parse_sentence(text)
    except TableProblem as error:
        st.session_state["text_problem"] = error
        return
    table = table_for_words(words, d_in=current_table().d_in)
    commit_table(table)


def _start_values(word: str, columns: list[str]) -> dict[str, str]:
    """The value cells a row of ``word`` starts with: the word's own embedding, as text.

    The same numbers the sentence box gives the word (:func:`table_for_words`), so a token
    added in the table and the same token typed in the sentence get the same embedding.
    """
    value_columns = [c for c in columns if c != TOKEN_COLUMN]
    start = table_for_words([word], d_in=len(value_columns)).to_draft()[0]
    return {c: start[c] for c in value_columns}


def _placeholder_word(rows: list[dict[str, object]]) -> str:
    """A word for a new row whose token is not typed yet: ``token7`` (unused in the table)."""
    used = {str(row.get(TOKEN_COLUMN, "")).strip() for row in rows}
    number = len(rows) + 1
    while t("table.new_token", n=number) in used:
        number += 1
    return t("table.new_token", n=number)


def _has_start_values(row: dict[str, object], columns: list[str]) -> bool:
    """True while a row's numbers are still its token's own embedding (none typed by hand)."""
    token = str(row.get(TOKEN_COLUMN, "")).strip()
    if not token:
        return False
    start = _start_values(token, columns)
    return all(str(row.get(c, "")).strip() == text for c, text in start.items())


def _draft_from_editor(editor_key: str) -> list[dict[str, object]]:
    """Apply a data editor's edits (edited, added, deleted rows) to the current draft.

    A new row starts as a word and its embedding, never as empty cells: the token typed in it,
    or a placeholder word (``token7``) when none is typed yet; value cells left empty get the
    word's embedding. A row whose numbers are still its token's embedding follows its token: type
    another word and the row gets that word's embedding, as the sentence box would give it. Once
    a number is typed by hand, the row keeps its numbers.
    """
    delta = st.session_state.get(editor_key) or {}
    columns = st.session_state["table_columns"]
    rows = [dict(row) for row in st.session_state["table_draft"]]
    for position, changes in (delta.get("edited_rows") or {}).items():
        index = int(position)
        if not 0 <= index < len(rows):
            continue
        typed = {k: _cell_text(v) for k, v in changes.items() if k in columns}
        renamed_only = set(typed) == {TOKEN_COLUMN} and typed[TOKEN_COLUMN].strip() != ""
        follows_token = renamed_only and _has_start_values(rows[index], columns)
        rows[index].update(typed)
        if follows_token:
            rows[index].update(_start_values(typed[TOKEN_COLUMN].strip(), columns))
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    rows = [row for i, row in enumerate(rows) if i not in deleted]
    for added in delta.get("added_rows") or []:
        row = {c: _cell_text(added.get(c)) for c in columns}
        word = row[TOKEN_COLUMN].strip() or _placeholder_word(rows)
        row[TOKEN_COLUMN] = row[TOKEN_COLUMN] or word
        for column, text in _start_values(word, columns).items():
            if row[column].strip() == "":
                row[column] = text
        rows.append(row)
    return rows


def _cell_text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def on_table_edit(editor_key: str) -> None:
    """Callback of every embedding editor: keep the typed draft, commit it if it is valid."""
    rows = _draft_from_editor(editor_key)
    columns = st.session_state["table_columns"]
    _set_draft([{c: _cell_text(row.get(c)) for c in columns} for row in rows], columns)
    try:
        table = table_from_rows(rows, columns)
    except TableProblem as error:
        st.session_state["table_problem"] = error
        return
    commit_table(table, reset_draft=False)


def table_problem() -> TableProblem | None:
    """The problem of the current draft (None when what is shown is what was typed)."""
    return st.session_state.get("table_problem")


# --- session start: defaults, then the URL ---------------------------------------------------


def init_session() -> None:
    """On a session's first run: defaults, then every query parameter, checked one by one."""
    if st.session_state.get("initialized"):
        return
    warnings: list[TableProblem] = []
    notes: list[TableProblem] = []  # values the app changed (rounded): said, never silent
    params = {key: st.query_params.get(key) for key in st.query_params.keys()}  # noqa: SIM118

    def read(setting: Setting, name: str, fallback: Any) -> Any:
        raw = params.get(name)
        if raw is None:
            return fallback
        try:
            value, note = setting.read(raw, name)
        except TableProblem as error:
            warnings.append(error)
            return fallback
        if note is not None:
            notes.append(note)
        return value

    for name, setting in SETTINGS.items():
        st.session_state[name] = read(setting, name, setting.default)
    b_names = [COMPARE_B_PREFIX + field for field in COMPARE_B_FIELDS]
    if any(name in params for name in b_names):  # B = A, changed by the b_ parameters
        st.session_state[COMPARE_B_STORE] = {
            field: read(SETTINGS[field], COMPARE_B_PREFIX + field, st.session_state[field])
            for field in COMPARE_B_FIELDS
        }

    table = book_table()
    text, emb = params.get("text"), params.get("emb")
    words = list(BOOK_TOKENS)
    if text is not None:
        try:
            words = parse_sentence(text)
            table = table_for_words(words)
        except TableProblem as error:
            warnings.append(problem("url.bad_param", name="text", detail=error))
    if emb is not None:
        try:
            table = table_from_text_and_emb(words, emb)
        except TableProblem as error:
            warnings.append(problem("url.bad_param", name="emb", detail=error))
    known = set(SETTINGS) | set(b_names) | {"text", "emb"}
    for page_params in PAGE_PARAMS:
        warnings.extend(page_params.read(params))
        known.update(page_params.names)
    for name in params:
        if name not in known:
            warnings.append(problem("url.unknown", name=_shorten(name)))
    commit_table(table)
    st.session_state["url_warnings"] = warnings
    st.session_state["url_notes"] = notes
    st.session_state["initialized"] = True


def url_state() -> dict[str, str]:
    """The query parameters that describe the current view (defaults left out)."""
    params: dict[str, str] = {}
    for name, setting in SETTINGS.items():
        value = st.session_state.get(name, setting.default)
        if value != setting.default:
            params[name] = setting.to_url(value)
    b_settings = st.session_state.get(COMPARE_B_STORE) or {}
    for field, value in b_settings.items():  # only where B differs from A
        if value != st.session_state.get(field, SETTINGS[field].default):
            params[COMPARE_B_PREFIX + field] = SETTINGS[field].to_url(value)
    table = current_table()
    if list(table.tokens) != list(BOOK_TOKENS):
        params["text"] = " ".join(table.tokens)
    if not _is_own_embedding(table):
        params["emb"] = emb_to_text(table)
    for page_params in PAGE_PARAMS:
        params.update(page_params.write())
    return params


@functools.lru_cache(maxsize=8)
def _is_own_embedding(table: Table) -> bool:
    """True if the table holds its words' own embeddings (then the URL needs no ``emb``).

    Cached by table (frozen, hashable): :func:`url_state` asks on every run, and recomputing the
    words' embeddings cost 18 ms per run at 1024 tokens and 0.29 s at 4096.
    """
    return table == table_for_words(list(table.tokens), d_in=3)


def sync_url() -> None:
    """Rewrite the URL from the state (only when it changed, to keep history quiet)."""
    wanted = url_state()
    current = {key: st.query_params.get(key) for key in st.query_params.keys()}  # noqa: SIM118
    if current != wanted:
        st.query_params.from_dict(wanted)


def show_url_warnings() -> None:
    """Tell the user which URL values were not usable or were rounded, and what was used."""
    for warning in st.session_state.get("url_warnings", []):
        st.warning(message(warning), icon="⚠️")
    for note in st.session_state.get("url_notes", []):
        st.info(message(note), icon="ℹ️")


def show_stale_table_notice() -> bool:
    """While the edited table has an error, say that the numbers shown are the last valid table's.

    Called by the frame on every page (one notice for all of them). Returns True if shown.
    """
    if table_problem() is None:
        return False
    table = current_table()
    st.warning(
        t(
            "table.stale_notice",
            tokens=table.num_tokens,
            sentence=escape_markdown(_shorten(" ".join(table.tokens), 60)),
        ),
        icon="⚠️",
    )
    return True


# --- sidebar ---------------------------------------------------------------------------------


SIDEBAR_KEYS = (*SETTINGS, "text")


def _resend_sidebar_values() -> None:
    """Write each sidebar value back to its own key, so this run sends it to the browser again.

    The widgets take their values from session state (``key=``), so their element carries a
    value only in a run where the key was *written*; otherwise the browser keeps its own copy.
    On a page switch the browser can lose that copy and fall back to the element's default, the
    widget's minimum (seed 0, d_out 1, training off): it shows it and sends it back with the
    next click, silently replacing the user's settings (seen in CI). Writing the key back
    (Streamlit's documented way to keep widget values across pages) makes the run carry the
    value. Only on a page switch: in every run it would also send back the value of a run that
    quick key presses have already overtaken, and the slider would jump back under the finger.
    """
    for key in SIDEBAR_KEYS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def render_sidebar(page: str = "") -> None:
    """The shared controls. Their values live in session state under the URL parameter names.

    ``page`` names the page this run shows; on a switch to another page the values are sent to
    the browser again (see :func:`_resend_sidebar_values`).
    """
    if st.session_state.get("sidebar_page") != page:
        _resend_sidebar_values()
        st.session_state["sidebar_page"] = page
    lang = current_language()  # bound now: AppTest calls format_func later, outside the session
    with st.sidebar:
        st.selectbox(
            t("sidebar.lang"),
            options=list(LANGUAGES),
            format_func=LANGUAGES.__getitem__,
            key="lang",
        )
        st.text_input(
            t("sidebar.text"),
            key="text",
            on_change=_on_text_change,
            help=t("sidebar.text_help"),
            max_chars=MAX_TEXT_CHARS,
        )
        text_problem = st.session_state.get("text_problem")
        if text_problem is not None:
            st.error(message(text_problem))
        random_tokens_control()
        st.number_input(
            t("sidebar.seed"),
            min_value=0,
            max_value=MAX_APP_SEED,
            step=1,
            key="seed",
            help=t("sidebar.seed_help"),
        )
        st.slider(
            t("sidebar.dropout"),
            min_value=0.0,
            max_value=DROPOUT_MAX,
            step=DROPOUT_STEP,
            key="dropout",
            help=t("sidebar.dropout_help"),
        )
        st.toggle(t("sidebar.train"), key="train", help=t("sidebar.train_help"))
        st.slider(
            t("sidebar.d_out"),
            min_value=1,
            max_value=D_OUT_MAX,
            key="d_out",
            help=t("sidebar.d_out_help"),
        )
        st.checkbox(t("sidebar.qkv_bias"), key="qkv_bias", help=t("sidebar.qkv_bias_help"))
        st.slider(
            t("sidebar.heads"), min_value=1, max_value=8, key="heads", help=t("sidebar.heads_help")
        )
        st.selectbox(
            t("sidebar.palette"),
            options=list(PALETTES),
            format_func=lambda name: t(f"sidebar.palette.{name}", lang),
            key="palette",
        )
        st.caption(t("glossary.line", decimals=DECIMALS, hover=HOVER_DECIMALS))


# --- random tokens: long sequences in one click ------------------------------------------------

_SYLLABLE_STARTS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "")
_SYLLABLE_VOWELS = ("a", "e", "i", "o", "u")
RANDOM_TOKENS_DEFAULT = 1024


def random_words(count: int, seed: int = 0) -> list[str]:
    """``count`` made-up words (``"tavo"``, ``"mi"``…), the same for the same count and seed.

    A private NumPy generator draws 1 to 3 syllables per word, so the global RNGs are untouched
    and 4096 words stay short (about 25 KB of text, so the ``text`` URL value still works).
    """
    count = max(0, min(int(count), MAX_TOKENS))
    generator = np.random.default_rng([seed, count])
    lengths = generator.integers(1, 4, size=count)  # syllables per word
    starts = generator.integers(0, len(_SYLLABLE_STARTS), size=(count, 3))
    vowels = generator.integers(0, len(_SYLLABLE_VOWELS), size=(count, 3))
    return [
        "".join(
            _SYLLABLE_STARTS[starts[i, k]] + _SYLLABLE_VOWELS[vowels[i, k]]
            for k in range(lengths[i])
        )
        for i in range(count)
    ]


def _on_generate_random() -> None:
    count = int(st.session_state.get("random_tokens_count", RANDOM_TOKENS_DEFAULT))
    commit_table(table_for_words(random_words(count), d_in=current_table().d_in))
    st.session_state["random_tokens_done"] = count


def random_tokens_control() -> None:
    """A sidebar expander: "Random tokens: N [Generate]" replaces the sentence by N made-up words."""
    with st.expander(t("scale.random.title"), icon=":material/casino:"):
        st.number_input(
            t("scale.random.count"),
            min_value=1,
            max_value=MAX_TOKENS,
            value=RANDOM_TOKENS_DEFAULT,
            step=1,
            key="random_tokens_count",
            help=t("scale.random.count_help", limit=MAX_TOKENS),
        )
        st.button(t("scale.random.generate"), on_click=_on_generate_random, key="random_generate")
        done = st.session_state.pop("random_tokens_done", None)
        if done is not None:
            st.caption(t("scale.random.done", count=done))


# --- the computation ---------------------------------------------------------------------------


def current_config(*, num_heads: int = 1, variant: str = "fused") -> AttentionConfig:
    """The sidebar's settings as an :class:`AttentionConfig` (one head unless asked)."""
    state = st.session_state
    return AttentionConfig(
        d_out=int(state["d_out"]),
        dropout=float(state["dropout"]),
        seed=int(state["seed"]),
        qkv_bias=bool(state["qkv_bias"]),
        training=bool(state["train"]),
        context_length=None,
        num_heads=num_heads,
        variant=variant,
    )


# Cache sizing (measured, see benchmarks/README.md): a trace keeps five float32 (heads × T × T)
# matrices and two bool masks, about 22 bytes per attention cell: 1 KB at 6 tokens, 23 MB at 1024,
# 370 MB at 4096 (1.5 GB with 4 heads, the most validate.MAX_ATTENTION_CELLS allows there). One
# cache of 12 entries could reach 4–18 GB, so traces go to one of two caches by their size:
#   - small (up to LARGE_TRACE_CELLS cells, ≤ 1.5 MB each): 64 entries, 30 min, ≤ 95 MB in all;
#   - large: 2 entries, 10 min, ≤ 0.75 GB at 4096 tokens and one head (≤ 3 GB with 4 heads).
# Two entries is enough for what caching buys at that size (a rerun of the same view after a widget
# changes: a zoom window, a page switch); sessions with different large views recompute (about
# 1 s at 4096 tokens) instead of holding gigabytes.
LARGE_TRACE_CELLS = 256 * 256
TRACE_CACHE_SMALL = {"max_entries": 64, "ttl": 1800}
TRACE_CACHE_LARGE = {"max_entries": 2, "ttl": 600}


def _trace_from_bytes(
    values: bytes, shape: tuple[int, int], config_fields: tuple[Any, ...]
) -> AttentionTrace:
    inputs = torch.from_numpy(np.frombuffer(values, dtype=np.float64).reshape(shape).copy())
    return trace_attention(inputs.to(torch.float32), AttentionConfig(*config_fields))


@st.cache_resource(**TRACE_CACHE_SMALL, show_spinner=False)
def _cached_trace(
    values: bytes, shape: tuple[int, int], config_fields: tuple[Any, ...]
) -> AttentionTrace:
    return _trace_from_bytes(values, shape, config_fields)


@st.cache_resource(**TRACE_CACHE_LARGE, show_spinner=False)
def _cached_large_trace(
    values: bytes, shape: tuple[int, int], config_fields: tuple[Any, ...]
) -> AttentionTrace:
    return _trace_from_bytes(values, shape, config_fields)


def drop_large_traces() -> None:
    """Empty the large-trace cache (``ui.memory`` calls it when the last session has ended).

    Its ``ttl`` only acts when the cache is next called, so on an idle server the traces (up to
    370 MB each) would stay; the next visitor recomputes a large trace in about a second.
    """
    _cached_large_trace.clear()


def trace_cells(num_tokens: int, num_heads: int) -> int:
    """Cells of one attention matrix of a trace (heads × T × T): what its memory grows with."""
    return num_heads * num_tokens * num_tokens


def compute_trace(table: Table, cfg: AttentionConfig) -> AttentionTrace:
    """``trace_attention(embeddings, cfg)`` for the table (a batch of one), cached across runs.

    The cache is shared by all sessions (read-only results), bounded in entries and time, and
    sized by the trace's memory: large traces (more than 256 × 256 attention cells) go to a cache
    of two entries (see ``TRACE_CACHE_LARGE``).
    """
    array = np.asarray(table.values, dtype=np.float64)  # (T, d_in)
    fields = (
        cfg.d_out,
        cfg.dropout,
        cfg.seed,
        cfg.qkv_bias,
        cfg.training,
        cfg.context_length,
        cfg.num_heads,
        cfg.variant,
    )
    if trace_cells(array.shape[0], cfg.num_heads) > LARGE_TRACE_CELLS:
        return _cached_large_trace(array.tobytes(), tuple(array.shape), fields)
    return _cached_trace(array.tobytes(), tuple(array.shape), fields)


def current_trace(*, num_heads: int = 1, variant: str = "fused") -> AttentionTrace | None:
    """The trace of the current table and settings, or None after showing why it failed."""
    try:
        return compute_trace(current_table(), current_config(num_heads=num_heads, variant=variant))
    except AttentionInputError as error:
        st.error(t("error.attention", detail=str(error)))
        return None


__all__ = [
    "MAX_D_IN",
    "book_table",
    "commit_table",
    "compute_trace",
    "current_config",
    "current_table",
    "current_trace",
    "init_session",
    "message",
    "on_table_edit",
    "parse_sentence",
    "random_words",
    "render_sidebar",
    "show_url_warnings",
    "sync_url",
    "table_for_words",
    "table_problem",
    "url_state",
]
