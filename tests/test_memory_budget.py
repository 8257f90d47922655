"""The server's memory budget: large views admitted, waiting, refused; one per session; messages.

The budget (``ui/budget.py``) is plain threads and bytes, so its rules are tested directly with
real threads; the pages' side (the refusal in both languages, the allocation failure in words, the
fast path that never reaches the budget) through ``AppTest`` of the real frame. The real server
with four tabs of 4,096 words is ``tests/e2e/test_memory_release.py``.
"""

from __future__ import annotations

import threading
import time

import pytest
import torch

from attention import AttentionConfig, trace_attention
from tests.apptest_support import page_text, run_page
from tests.cases import subcases
from ui import budget, computation
from ui.budget import MB, Budget, OverBudget
from ui.table_state import random_words


def held_by(shared: Budget, session: str) -> int:
    """Bytes ``session`` holds in ``shared`` now."""
    hold = shared._holds.get(session)
    return 0 if hold is None else hold.reserved


LARGE = {"text": " ".join(random_words(1024)), "batch": "2", "dropout": "0.5"}  # ≈ 63 MB


def test_a_view_waits_for_room_then_runs() -> None:
    shared = Budget(100 * MB)
    shared.compute("a", "view a", 70 * MB, lambda: "a's trace")
    waits: list[float] = []
    done: list[str] = []

    def second() -> None:
        done.append(shared.compute("b", "view b", 50 * MB, lambda: "b's", waiting=waits.append))

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(1.5)
    assert not done and waits  # b waits, and is told so, while a holds 70 of 100 MB
    shared.release("a")  # a's tab closed
    thread.join(30)
    assert done == ["b's"] and shared.in_use() == 50 * MB


def test_a_view_is_refused_when_it_cannot_fit_or_no_room_comes() -> None:
    shared = Budget(100 * MB)
    with pytest.raises(OverBudget) as too_large:
        shared.compute("a", "huge", 101 * MB, lambda: pytest.fail("computed"), wait_s=60)
    assert not too_large.value.busy and too_large.value.waited_s == 0  # at once
    shared.compute("a", "view", 80 * MB, lambda: 1)
    started = time.monotonic()
    with pytest.raises(OverBudget) as busy:
        shared.compute("b", "view", 30 * MB, lambda: pytest.fail("computed"), wait_s=1.0)
    assert busy.value.busy and time.monotonic() - started >= 1.0
    assert shared.in_use() == 80 * MB  # the refused view reserved nothing


def test_a_session_holds_one_view_and_gives_it_back() -> None:
    shared = Budget(100 * MB)
    shared.begin_run("a")
    first = shared.compute("a", "6 heads", 60 * MB, lambda: object())
    shared.end_run("a")
    shared.begin_run("a")  # a rerun showing the same view: kept, not computed again
    assert shared.compute("a", "6 heads", 60 * MB, lambda: object()) is first
    shared.end_run("a")
    shared.begin_run("a")  # another view: the first one goes before the second is reserved
    shared.compute("a", "8 heads", 90 * MB, lambda: object(), wait_s=0.5)
    assert held_by(shared, "a") == 90 * MB
    shared.end_run("a")
    shared.begin_run("a")  # a run stopped by a click before it reached its view keeps it
    shared.end_run("a", completed=False)
    assert held_by(shared, "a") == 90 * MB
    shared.begin_run("a")  # a whole run that shows no large view gives it back at its end
    shared.end_run("a")
    assert held_by(shared, "a") == 0 and shared.in_use() == 0


def test_a_session_that_ends_while_its_run_draws_gives_back_at_the_runs_end() -> None:
    """Its results are freed only once nothing draws them (``ui.heavy.free_storage`` empties
    them): while the run is under way the end only marks it."""
    shared = Budget(100 * MB)
    shared.begin_run("a")
    trace = shared.compute("a", "view", 60 * MB, lambda: object())
    assert shared.session_ended("a") == []  # the tab closed while the run drew: not yet
    assert held_by(shared, "a") == 60 * MB
    assert shared.end_run("a") == [trace] and shared.in_use() == 0
    shared.begin_run("b")
    shared.end_run("b")
    shared.compute("b", "view", 60 * MB, lambda: object())
    assert len(shared.session_ended("b")) == 1 and shared.in_use() == 0  # no run: at once


def test_a_failed_computation_gives_its_bytes_back() -> None:
    shared = Budget(100 * MB)
    with pytest.raises(ValueError):
        shared.compute("a", "view", 60 * MB, lambda: (_ for _ in ()).throw(ValueError("bad")))
    assert shared.in_use() == 0


def test_a_page_says_the_view_is_too_large_for_the_budget_in_both_languages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(budget.BUDGET, "total", 40 * MB)
    for lang, words in (("en", "ATTENTION_LAB_MEMORY_BUDGET_MB"), ("zh", "由管理员")):
        app = run_page("step", {**LARGE, "lang": lang})
        assert not app.exception
        text = page_text(app)
        assert words in text and "40 MB" in text and "Traceback" not in text, text[-800:]
    assert budget.BUDGET.in_use() == 0


def test_a_page_waits_then_says_the_budget_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "WAIT_S", 2.0)
    budget.BUDGET.compute("another student", "their view", budget.BUDGET.total - 10 * MB, object)
    try:
        app = run_page("step", LARGE)
    finally:
        budget.BUDGET.release("another student")
    assert not app.exception
    assert "Try again in a minute" in page_text(app)
    app = run_page("step", LARGE)  # room now: the same link draws its steps
    assert "not computed" not in page_text(app) and budget.BUDGET.in_use() > 0


def test_the_books_example_never_reaches_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the six tokens went through the budget")

    monkeypatch.setattr(budget.BUDGET, "compute", refuse)
    app = run_page("step")
    assert not app.exception and budget.BUDGET.in_use() == 0


def test_an_allocation_failure_is_a_message_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def allocate_too_much(*args: object) -> object:
        return torch.empty(2**60, dtype=torch.uint8)  # torch's real "can't allocate memory"

    monkeypatch.setattr(computation, "_trace_from_bytes", allocate_too_much)
    app = run_page("step", LARGE)
    assert not app.exception  # Streamlit would show a traceback with the server's paths
    text = page_text(app)
    assert "ran out of memory" in text and "alloc" not in text and ".py" not in text
    assert budget.BUDGET.in_use() == 0


@subcases("tokens, seed", [(6, 123), (1500, 7)])
def test_batch_item_zero_does_not_depend_on_the_items_after_it(tokens: int, seed: int) -> None:
    """What lets One query compute only the batch item it shows (``View.trace(batch=1)``)."""
    x = torch.randn(1, tokens, 3, generator=torch.Generator().manual_seed(seed))
    cfg = AttentionConfig(dropout=0.5, training=True, seed=seed)
    alone, in_a_batch = trace_attention(x, cfg), trace_attention(x.repeat(4, 1, 1), cfg)
    assert torch.equal(alone.dropout_mask[0], in_a_batch.dropout_mask[0])
    assert torch.equal(alone.context[0], in_a_batch.context[0])


def test_one_query_computes_only_the_batch_item_it_shows() -> None:
    app = run_page("one_query", {**LARGE, "batch": "4"})  # batch 4: about 125 MB; item 0: 34 MB
    assert not app.exception
    assert 32 * MB <= budget.BUDGET.in_use() < 40 * MB


@subcases("name", ["multi_head", "compare", "find_the_bug", "one_query"])
def test_every_large_computation_is_admitted_against_the_budget(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Multi-head's heads, Compare's pair, Find the bug's comparison, One query's trace: each is
    refused by a budget smaller than its estimate (here 30 MB; each needs 34 MB or more)."""
    monkeypatch.setattr(budget.BUDGET, "total", 30 * MB)
    app = run_page(name, {**LARGE, "batch": "1", "heads": "4"})
    assert not app.exception
    assert "This view is not computed" in page_text(app) and budget.BUDGET.in_use() == 0
