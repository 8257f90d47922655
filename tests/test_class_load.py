"""The class-load benchmark's protocol client against a real ``streamlit run app.py``.

``benchmarks/streamlit_protocol.py`` speaks Streamlit's websocket protocol the way the browser
does; these tests check that it really drives the app (every kind of change reruns the script and
the app's URL follows the tab's settings), that its check catches a session showing other
numbers, that a short class of two students runs without errors beside a real training
(`--trainings`), and that `--replicas 2` measures both servers.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.class_load import ClassPlan, measure, run_class
from benchmarks.streamlit_protocol import RunFailed, StudentTab
from tests.e2e.server import start_streamlit


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with start_streamlit() as server:
        yield server.url


def _run(coroutine: object) -> object:
    """``asyncio.run`` in a fresh thread: browser tests earlier in the run leave a loop running here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=600)


def _query(tab: StudentTab) -> dict[str, str]:
    return {key: values[0] for key, values in urllib.parse.parse_qs(tab.query_string).items()}


def test_each_kind_of_change_reruns_and_the_app_follows_the_tab(server_url: str) -> None:
    async def scenario() -> None:
        first, second = StudentTab(server_url), StudentTab(server_url)
        try:
            await first.open()
            await second.open()
            assert first.has_editor() and "export" in first.pages
            await first.set_seed(7)
            await second.set_seed(8)
            await first.set_dropout(0.5)
            await first.edit_cell(1, 2, "0.125")
            assert _query(first)["seed"] == "7" and _query(first)["dropout"] == "0.5"
            assert _query(first)["emb"].split(";")[1].split(",")[2] == "0.125"
            assert _query(second) == {"seed": "8"}  # the other session is not touched
            # A page switch keeps every sidebar setting, the untouched ones (train, d_out) too.
            await first.switch_page("multi_head")
            assert first.page == "multi_head" and not first.has_editor()
            assert set(_query(first)) == {"seed", "dropout", "emb"}
            await first.switch_page("")
            result = await first.set_seed(9)
            assert result.messages > 10 and result.bytes > 10_000  # a whole page was drawn
            assert _query(first)["seed"] == "9"
        finally:
            await first.close()
            await second.close()

    _run(scenario())


def test_a_session_that_shows_other_numbers_is_an_error(server_url: str) -> None:
    async def scenario() -> None:
        tab = StudentTab(server_url)
        try:
            await tab.open()
            tab.seed = 99  # the tab believes in a seed the app was never given
            with pytest.raises(RunFailed) as failure:
                await tab.set_dropout(0.25)
            assert failure.value.kind == "wrong_state"
        finally:
            await tab.close()

    _run(scenario())


def test_a_class_beside_a_running_training_sees_it_make_progress(server_url: str) -> None:
    """``--trainings``: a real "Train it" run trains while the students work, then is stopped.

    The class is short (the training burns a core all along it): every student who opened the
    app makes at least one change however long the class, so each of the two reran.
    """
    plan = ClassPlan(
        students=2, seconds=1, interval=0.5, ramp=0.5, timeout=120, trainings=1, seed=5
    )
    result = _run(run_class(server_url, plan))
    assert result["errors"] == 0, result["error_samples"]
    assert result["trainings"] == 1 and result["reruns"] >= 2
    assert result["opens"] == 2
    assert result["p50_s"] <= result["p95_s"] <= result["max_s"]
    # It had trained when the class began (the benchmark waits for a first step) and was still
    # training at the end; how many steps it made meanwhile depends on the machine's load.
    (steps,) = result["training_steps_during_class"]
    assert steps is not None and steps >= 0, result["training_steps_during_class"]
    (started,) = result["training_steps_at_start"]
    assert started is not None and started > 0


def test_a_class_on_two_replicas_behind_nginx_is_measured_on_both() -> None:
    """``--replicas 2`` starts ``deploy/serve.sh`` and sums the two servers' CPU and memory."""
    plan = ClassPlan(students=4, seconds=2, interval=0.5, ramp=0.5, timeout=60)
    with ThreadPoolExecutor(max_workers=1) as pool:  # asyncio.run inside: a thread of its own
        result = pool.submit(measure, plan, None, 2).result(timeout=600)
    assert result["servers"] == 2
    assert result["errors"] == 0, result["error_samples"]
    assert result["reruns"] >= 4 and result["server_cpu_s"] > 0  # each student's first change
    assert result["server_rss_mb"]["end"] > 0
