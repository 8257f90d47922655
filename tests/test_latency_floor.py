"""The floor page of ``benchmarks/latency.py`` (``benchmarks/floor_app.py``), run by ``AppTest``.

The benchmark finds the floor's seed input in the sidebar by ``floor_app.SEED_LABEL``, clicks its
"+" and waits for the table to show the numbers of the next seed. Here: that input is in the
sidebar under that label, starts at 123, and one "+" shows ``numbers(124)``. The
click-to-settled measurement itself, through the same selectors in a real browser, is
``tests/e2e/test_latency_benchmark.py`` on the sidebar floor (the same table under the app's
own seed input).
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from benchmarks import bare_step_app, floor_app, latency
from ui.i18n import t


def _seed_input(at: AppTest, label: str = floor_app.SEED_LABEL) -> object:
    (box,) = [box for box in at.sidebar.number_input if box.label == label]
    return box


def _shown(at: AppTest) -> list[str]:
    return at.table[0].value.to_numpy().ravel().tolist()


def _numbers(seed: int) -> list[str]:
    return floor_app.numbers(seed).to_numpy().ravel().tolist()


def test_one_seed_step_on_the_floor_shows_the_next_seeds_numbers() -> None:
    assert latency.FLOOR.seed_label == floor_app.SEED_LABEL  # what the benchmark looks for
    at = AppTest.from_file(str(latency.FLOOR_APP), default_timeout=60).run()
    assert _seed_input(at).value == 123 and _shown(at) == _numbers(123)
    _seed_input(at).increment().run()  # the "+" the benchmark clicks
    assert _seed_input(at).value == 124
    assert _shown(at) == _numbers(124) != _numbers(123)


def test_the_bare_step_page_has_the_seed_and_the_strip_the_benchmark_clicks() -> None:
    """The bare step page (``benchmarks/bare_step_app.py``): its seed changes the context table
    the benchmark watches (the main area's first table), its strip of steps is a fragment whose
    switch draws the chosen step's matrix, and it carries no app code."""
    assert bare_step_app.STRIP_LABEL == t("walk.strip_label", "en")  # latency.STEP_STRIP's label
    at = AppTest.from_file(str(latency.BARE_STEP_APP), default_timeout=60).run()
    context = at.main.table[0].value.to_numpy().ravel().tolist()
    assert context == bare_step_app.numbers(123, 6, 2, "z").to_numpy().ravel().tolist()
    _seed_input(at, bare_step_app.SEED_LABEL).increment().run()
    assert at.main.table[0].value.to_numpy().ravel().tolist() != context
    (strip,) = [group for group in at.button_group if group.label == bare_step_app.STRIP_LABEL]
    assert len(strip.options) == 10
    strip.set_value(bare_step_app.STEPS[latency.TABS[1]]).run()
    assert at.main.table[-1].value.shape == (6, latency.TABS[1] + 1)
    source = latency.BARE_STEP_APP.read_text()
    assert "import attention" not in source and "from ui" not in source
