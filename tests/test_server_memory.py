"""The server gives memory back: bounded trace caches, and a release when sessions end.

Why (measured in benchmarks/README.md, "Server memory after sessions end"): after 8 sessions of
2048 tokens closed, the server stayed at 1.2 GB instead of ~0.4 GB: large cached traces, garbage
waiting for a collection (Streamlit's per-run collection is off) and glibc arenas that keep
freed memory. ``ui.memory`` drops the first, collects the second and trims the third.

These tests pin the mechanism (no timing): the large-trace cache keeps at most its bound, the
release drops it, collects and trims, and Streamlit calls the release when a session ends
(the real browser test is tests/e2e/test_memory_release.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

from attention import AttentionConfig
from tests.apptest_support import run_page
from ui import computation, memory, table_state
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


def test_release_drops_the_large_traces_collects_and_trims() -> None:
    cfg = AttentionConfig()
    kept = computation.compute_trace(_large_table(4), cfg)
    release = memory.release_memory(drop_large_traces=False)
    assert computation.compute_trace(_large_table(4), cfg) is kept  # without drop: still cached
    assert not release.large_traces_dropped

    release = memory.release_memory(drop_large_traces=True)
    assert computation.compute_trace(_large_table(4), cfg) is not kept  # recomputed
    assert release.large_traces_dropped and release.collected >= 0
    assert release.rss_before_mb > 0 and release.rss_after_mb > 0
    on_glibc = sys.platform == "linux" and ctypes.util.find_library("c") is not None
    assert release.trimmed is on_glibc


def test_the_frame_registers_every_session_for_the_release() -> None:
    # AppTest may reuse a session id across tests (a session-scoped resource then already exists),
    # and earlier sessions may end meanwhile: so pin "registered at least once, not per rerun"
    app = run_page("quiz")
    assert not app.exception
    after_first_run = memory._registered_total
    assert after_first_run >= 1  # the frame registered this session (or its id's earlier run)
    app.run()
    assert memory._registered_total == after_first_run  # reruns do not register again


def test_a_tab_gone_for_a_while_calls_the_away_hooks_then_ends(monkeypatch) -> None:  # noqa: ANN001
    import threading

    away: dict[str, threading.Event] = {"away-test": threading.Event()}
    monkeypatch.setattr(memory, "AWAY_S", 0.0)
    memory.when_session_away(lambda token: away.get(token, threading.Event()).set())
    memory._session_disconnected(memory._SessionMarker("away-test"))  # Streamlit's on_release
    assert away["away-test"].wait(30), "the away hook ran for the gone tab"
    ending = memory._ending.pop("away-test")  # (the session's end is the TTL's business)
    ending.cancel()


def test_the_train_page_ends_a_tabs_jobs_when_it_is_gone_or_its_session_ends() -> None:
    """Tabs that press Train and close must not hold the workers or the line until the
    disconnect timeout: pages/train.py gives the queue's leave_all to both session hooks (the
    queue's kill is pinned in tests/test_train_queue.py, the hooks above)."""
    from pages import train

    assert train.QUEUE.leave_all in memory._away_hooks
    assert train.QUEUE.leave_all in memory._end_hooks
    assert memory.AWAY_S < 10, "a closed tab's running training ends within 10 s"


def test_a_release_asked_during_the_long_wait_starts_a_new_series_at_once(monkeypatch) -> None:  # noqa: ANN001
    """A training that ends with nobody watching while a series waits its long delay is released
    after the short delay, for its own reason, not behind the long one: the releases come in the
    order first, job (before, the long wait ended first with a second "first" release)."""
    import threading

    reasons: list[str] = []
    released = threading.Condition()
    real_release = memory.release_memory

    def recording_release(*, drop_large_traces: bool, reason: str) -> memory.Release:
        result = real_release(drop_large_traces=drop_large_traces, reason=reason)
        with released:
            reasons.append(reason)
            released.notify_all()
        return result

    monkeypatch.setattr(memory, "release_memory", recording_release)
    monkeypatch.setattr(memory, "RELEASE_DELAYS_S", (0.05, 1.0))
    # (A series an earlier test started may still run: its releases come first, and this
    # request joins it or, in its long wait, starts a new series.)
    memory.release_soon("first")
    with released:  # the bounds are hang guards: the series waits 0.05 s, then 1 s
        assert released.wait_for(lambda: "first" in reasons, timeout=60)
    memory.release_soon("job")  # during the series' long wait
    with released:
        assert released.wait_for(lambda: "job" in reasons, timeout=60)
    after_first = reasons[reasons.index("first") + 1 :]
    assert after_first[:1] == ["job"], reasons
    for _ in range(600):  # the series ends (the worker thread gone) before the next test
        if memory._worker is None:
            break
        threading.Event().wait(0.1)
    assert memory._worker is None
