"""The server gives memory back: bounded trace caches, and a release when sessions end.

Why (measured in benchmarks/README.md, "Server memory after sessions end"): after 8 sessions of
2048 tokens closed, the server stayed at 1.2 GB instead of ~0.4 GB: large cached traces, garbage
waiting for a collection (Streamlit's per-run collection is off) and allocator arenas that keep
freed memory. ``ui.sessions`` drops the first and collects the second when a session ends; the
deployed allocator settings (``MALLOC_MMAP_THRESHOLD_``) return large blocks as they are freed.

These tests pin the mechanism (no timing): the large-trace cache keeps at most its bound, a
session's end runs its hooks, collects and drops it, and the hooks are registered (the real
browser test is tests/e2e/test_memory_release.py).
"""

from __future__ import annotations

from attention import AttentionConfig
from tests.apptest_support import run_page
from ui import computation, ops_log, sessions, table_state
from ui.table import Table

LARGE = 257  # tokens: 257² attention cells > computation.LARGE_TRACE_CELLS, a 1.5 MB trace


def _large_table(seed: int) -> Table:
    return table_state.table_for_words(table_state.random_words(LARGE, seed=seed))


def test_large_traces_go_to_a_cache_of_two_entries() -> None:
    assert computation.trace_cells(LARGE, 1) > computation.LARGE_TRACE_CELLS
    assert computation.TRACE_CACHE_LARGE["max_entries"] == 2
    assert computation.TRACE_CACHE_SMALL["max_entries"] == 64
    computation.drop_large_traces()
    cfg = AttentionConfig()
    first, second, third = (
        computation.compute_trace(_large_table(seed), cfg) for seed in (1, 2, 3)
    )
    assert computation.compute_trace(_large_table(3), cfg) is third  # cached
    assert computation.compute_trace(_large_table(2), cfg) is second
    assert computation.compute_trace(_large_table(1), cfg) is not first  # the oldest was evicted


def test_a_sessions_end_runs_its_hooks_collects_and_drops_the_large_traces(monkeypatch) -> None:  # noqa: ANN001
    """The end of the last session: its hooks, a collection, and the large traces dropped (their
    ttl acts only when the cache is next called); one ``memory_released`` line says what it did."""
    cfg = AttentionConfig()
    kept = computation.compute_trace(_large_table(4), cfg)
    ended: list[str] = []
    sessions.when_session_ends(ended.append)
    monkeypatch.setattr(sessions, "_open_sessions", 2)  # a tab still open elsewhere: trace kept
    sessions._session_disconnected("end-test")  # Streamlit's on_release (its TTL timer starts)
    released = ops_log.counts().get("memory_released", 0)
    sessions._session_ended("end-test")  # the TTL has passed
    assert ended == ["end-test"] and ops_log.counts()["memory_released"] == released + 1
    assert computation.compute_trace(_large_table(4), cfg) is kept
    monkeypatch.setattr(sessions, "_open_sessions", 1)  # the last one: the large traces go
    sessions._session_disconnected("end-test-2")
    sessions._session_ended("end-test-2")
    assert ended == ["end-test", "end-test-2"]
    assert computation.compute_trace(_large_table(4), cfg) is not kept  # recomputed
    sessions.when_session_ends(ended.append)  # (a hook registered again is still one hook)
    sessions._end_hooks.remove(ended.append)


def test_the_frame_registers_every_session_for_the_release() -> None:
    # AppTest may reuse a session id across tests (a session-scoped resource then already exists),
    # and earlier sessions may end meanwhile: so pin "registered at least once, not per rerun"
    app = run_page("quiz")
    assert not app.exception
    after_first_run = sessions._registered_total
    assert after_first_run >= 1  # the frame registered this session (or its id's earlier run)
    app.run()
    assert sessions._registered_total == after_first_run  # reruns do not register again


def test_a_tab_gone_for_a_while_calls_the_away_hooks_then_ends(monkeypatch) -> None:  # noqa: ANN001
    import threading

    away: dict[str, threading.Event] = {"away-test": threading.Event()}
    monkeypatch.setattr(sessions, "AWAY_S", 0.0)
    sessions.when_session_away(lambda token: away.get(token, threading.Event()).set())
    sessions._session_disconnected("away-test")  # Streamlit's on_release
    assert away["away-test"].wait(30), "the away hook ran for the gone tab"
    ending = sessions._ending.pop("away-test")  # (the session's end is the TTL's business)
    ending.cancel()


def test_the_train_page_ends_a_tabs_jobs_when_it_is_gone_or_its_session_ends() -> None:
    """Tabs that press Train and close must not hold the workers or the line until the
    disconnect timeout: pages/train.py gives the pool's leave_all to both session hooks (the
    pool's kill is pinned in tests/test_jobs.py, the hooks above)."""
    from pages import train

    assert train.QUEUE.leave_all in sessions._away_hooks
    assert train.QUEUE.leave_all in sessions._end_hooks
    assert sessions.AWAY_S < 10, "a closed tab's running training ends within 10 s"
