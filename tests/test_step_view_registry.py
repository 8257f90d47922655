"""One presentation registry: every step is shown from its entry in ``viz.screens.SCREENS``.

The page, presenter mode, the notebook and the backward page all read the same entry, so a new
screen is one entry in ``viz/screens.py`` and its words in ``ui/messages/`` (a new step adds its
code in ``attention/steps.py``): at most three files. The last test adds a figure to a step in
the registry alone and finds it on the page, in the deck and in the notebook.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.steps import FIELDS, STEPS
from tests.apptest_support import REPO_ROOT, matrix_tables, page_text, run_page
from ui.i18n import CATALOGUE, LANGUAGES, t
from ui.step_view import tab_label
from viz import screens
from viz.notebook import show_trace
from viz.screens import GRADIENTS, SCREENS, Figure, Shown

NAMES = [step.name for step in STEPS]
PRODUCT = ("attention", "ui", "viz", "pages")
# The hand-kept tables the registry replaced: none may come back.
OLD_TABLES = ("STEP_DRAWINGS", "PRESENTER_PARTS", "STEP_TABLES", "SHAPE_FIELDS", "GRADIENT_STEPS")


def _product_sources() -> dict[str, str]:
    return {
        str(path.relative_to(REPO_ROOT)): path.read_text(encoding="utf-8")
        for folder in PRODUCT
        for path in (REPO_ROOT / folder).rglob("*.py")
    }


def test_one_registry_a_screen_per_step_and_no_other_step_table() -> None:
    assert [screen.name for screen in SCREENS] == NAMES
    fields = {field.name for field in FIELDS}
    for screen in SCREENS:
        assert all(figure.field in fields for figure in screen.figures), screen.name
        for group in screen.deck:
            assert set(group) <= {figure.field for figure in screen.figures}, screen.name
    assert [gradient.name for gradient in GRADIENTS] == [
        "context",
        "dropped_weights",
        "attn_weights",
        "scaled_scores",
        "masked_scores",
        "attn_scores",
        "projections",
        "weights",
    ]
    found = {
        name: path
        for path, text in _product_sources().items()
        for name in OLD_TABLES
        if re.search(rf"\b{name}\b", text)
    }
    assert not found, f"a step table outside the registry: {found}"


def test_every_step_has_its_words_in_both_languages() -> None:
    for name in NAMES:
        for part in ("tab", "title", "body"):
            assert set(CATALOGUE[f"step.{name}.{part}"]) == set(LANGUAGES), (name, part)
    titles = {figure.title for screen in SCREENS for figure in screen.figures if figure.title}
    for key in titles | {screen.aside[0] for screen in SCREENS if screen.aside}:
        assert set(CATALOGUE[key]) == set(LANGUAGES), key
    assert [tab_label(name) for name in NAMES][7:] == ["8 · Softmax", "9 · Dropout", "10 · Context"]
    heading = t("step.heading", lang="zh", number=5, title=t("step.mask.title", lang="zh"))
    assert heading == "第 5 步 · 因果掩码"


def test_every_sentence_of_every_step_fills_its_message() -> None:
    """Every sentence the registry computes names a message and fills its placeholders, for the
    book's settings, dropout with a batch of two, a window and qkv_bias, in both languages."""
    configs = (
        AttentionConfig(),
        AttentionConfig(dropout=0.5, qkv_bias=True),
        AttentionConfig(dropout=0.5, window=2, seed=7),
    )
    for config in configs:
        inputs = BOOK_EMBEDDINGS.expand(2, -1, -1) if config.dropout else BOOK_EMBEDDINGS
        shown = Shown(trace_attention(inputs, config), BOOK_TOKENS)
        for screen in SCREENS:
            for sentence in screen.said(shown):
                if sentence.style in ("code", "latex"):
                    continue
                for lang in LANGUAGES:
                    values = {
                        name: "; ".join(t(part.key, lang, **part.values) for part in value)
                        if isinstance(value, tuple)
                        else value
                        for name, value in sentence.values.items()
                    }
                    assert "{" not in t(sentence.key, lang, **values), sentence.key


@pytest.fixture
def keys_in_the_scores_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new figure in the scores step (the keys beside the scores), declared in the registry
    and nowhere else: the words it uses are the catalogue's own."""
    old = screens.SCREEN_OF["scores"]
    new = dataclasses.replace(
        old,
        figures=(*old.figures, Figure("keys", "K", "keys", cols="k", titled=True)),
        deck=(("attn_scores",), ("keys",)),
    )
    registry = tuple(new if screen.name == "scores" else screen for screen in SCREENS)
    monkeypatch.setitem(screens.SCREEN_OF, "scores", new)
    monkeypatch.setattr(screens, "SCREENS", registry)
    monkeypatch.setattr("viz.notebook.SCREENS", registry)


@pytest.mark.usefixtures("keys_in_the_scores_step")
def test_a_screen_declared_in_the_registry_alone_is_on_the_page_in_the_deck_and_notebook() -> None:
    at = run_page("step", {"step": "scores"})
    assert not at.exception
    assert {"step_fig_attn_scores", "step_fig_scores_keys"} <= set(matrix_tables(at))
    deck = run_page("step", {"step": "scores", "present": "1"})
    assert "step_fig_keys" not in matrix_tables(deck) and "of 16" in page_text(deck)
    deck.button(key="present_next").click().run()
    assert not deck.exception and "step_fig_scores_keys" in matrix_tables(deck)
    view = show_trace(trace_attention(BOOK_EMBEDDINGS, AttentionConfig()), BOOK_TOKENS)
    assert [block.caption for block in view.step("scores").blocks] == ["attn_scores", "K"]


def test_the_registry_module_is_pure() -> None:
    source = Path(screens.__file__).read_text(encoding="utf-8")
    assert "streamlit" not in source and "import ui" not in source and "from ui" not in source
