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

from benchmarks import floor_app, latency


def _seed_input(at: AppTest) -> object:
    (box,) = [box for box in at.sidebar.number_input if box.label == floor_app.SEED_LABEL]
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
