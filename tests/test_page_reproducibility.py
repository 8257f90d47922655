"""The Reproducibility page in the app frame (AppTest): environment, book checks, current view, link."""

from __future__ import annotations

import inspect
from urllib.parse import parse_qs, urlsplit

import torch
from streamlit.testing.v1 import AppTest

from attention.book_outputs import check_book_outputs
from attention.environment import dropout_on_ones
from tests.apptest_support import REPO_ROOT, page_text, run_page
from ui.frame import run_app


def link(at: AppTest) -> str:
    return at.code[-1].value.strip()


def test_page_shows_machine_facts_and_every_book_check_passing() -> None:
    at = run_page("reproducibility")
    assert not at.exception
    text = page_text(at)
    assert torch.__version__ in text
    checks = check_book_outputs()
    book_table = next(table for table in at.table if "agrees" in table.value.columns)
    assert list(book_table.value["agrees"]) == ["✓" if c.passed else "✗" for c in checks]
    assert len(book_table.value) == 8
    assert "Bitwise equal" in at.success[1].value
    assert not at.error


def test_the_dropout_sentence_is_what_this_machine_drew() -> None:
    """The sentence on dropout masks follows the comparison with the book's 3.5.2 printouts:
    on a machine that draws them it says so, elsewhere it counts the differing cells."""
    at = run_page("reproducibility")
    checks = {c.name: c for c in check_book_outputs()}
    dropout = [checks["dropout_ones_seed_123"], checks["dropout_weights_seed_123"]]
    note = at.info[0].value
    if all(check.passed for check in dropout):
        assert note.startswith("This machine draws the book's dropout masks")
        assert at.success[0].value == "All 8 examples give the book's numbers on this machine."
    else:
        assert note.startswith("This machine draws different dropout masks")
    ones = torch.tensor(dropout[0].actual)
    assert torch.equal(ones, dropout_on_ones(seed=123, p=0.5, size=6))
    assert "macOS" not in page_text(at)
    mask = dropout_on_ones(seed=123, p=0.5, size=6)
    shown = next(t.value for t in at.table if list(t.value.columns) == list("123456"))
    assert shown.to_numpy().tolist() == [[str(int(v)) for v in row] for row in mask.tolist()]


def test_seed_from_the_sidebar_is_listed_and_the_current_view_is_checked() -> None:
    at = run_page("reproducibility", {"seed": "77", "dropout": "0.4"})
    assert not at.exception
    first = at.table[0].value
    assert first.iloc[0, 0] == "77"
    assert "Bitwise equal" in at.success[-1].value


def test_link_holds_the_view_and_opens_the_chosen_page() -> None:
    at = run_page("reproducibility", {"seed": "7", "dropout": "0.25", "text": "the cat sat"})
    assert not at.exception
    url = link(at)
    parts = urlsplit(url)
    assert parts.path == "/"
    assert parse_qs(parts.query) == {"seed": ["7"], "dropout": ["0.25"], "text": ["the cat sat"]}
    at.selectbox(key="repro_link_page").set_value("masking").run()
    assert urlsplit(link(at)).path == "/masking"
    at.number_input(key="seed").set_value(8).run()
    assert parse_qs(urlsplit(link(at)).query)["seed"] == ["8"]


def test_default_view_links_to_the_bare_app() -> None:
    at = run_page("reproducibility")
    assert link(at) == "/"


def test_default_page_constant_matches_the_frame() -> None:
    page_source = (REPO_ROOT / "pages" / "reproducibility.py").read_text(encoding="utf-8")
    assert 'DEFAULT_PAGE = "step"' in page_source
    assert inspect.signature(run_app).parameters["default_page"].default == "step"


def test_page_in_chinese() -> None:
    at = run_page("reproducibility", {"lang": "zh"})
    assert not at.exception
    assert at.title[0].value == "可复现性"
    assert "全部 8 个示例" in at.success[0].value


def test_very_long_views_are_not_recomputed_on_every_run() -> None:
    words = " ".join(f"w{i}" for i in range(1100))  # 1100² > 2**20 cells
    at = run_page("reproducibility", {"text": words})
    assert not at.exception
    assert any("recomputed for this check only up to" in info.value for info in at.info)


def test_a_machine_with_other_dropout_draws_is_told_how_many_cells_differ() -> None:
    """The other branch of the dropout sentence, on a check whose numbers differ in 3 cells."""
    from attention.book_outputs import BookCheck
    from pages.reproducibility import dropout_verdict

    printed = ((2.0, 0.0, 2.0), (0.0, 2.0, 2.0))
    drawn = ((0.0, 2.0, 2.0), (0.0, 2.0, 0.0))
    checks = [
        BookCheck("dropout_ones_seed_123", "recipe", printed, drawn, 2.0),
        BookCheck("dropout_weights_seed_123", "recipe", printed, printed, 0.0),
        BookCheck("causal_seed_123", "recipe", printed, drawn, 2.0),  # not a dropout check
    ]
    verdict = dropout_verdict(checks)
    assert verdict.startswith("This machine draws different dropout masks")
    assert "cells that differ: 3, in 1 of" in verdict
