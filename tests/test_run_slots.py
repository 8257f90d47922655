"""A few page runs at a time (``ui/run_slots.py``): real threads on a real semaphore.

The waits below are upper bounds for something that must happen (a thread entering) or short
windows in which something must not (a third run entering two slots); none times the code.
"""

from __future__ import annotations

import threading
import time

from tests.apptest_support import run_page
from ui.run_slots import RUN_SLOTS, RunSlots
from ui.train_jobs import QUEUE


def _until(condition, seconds: float = 10.0) -> bool:  # noqa: ANN001 - a predicate
    stop = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > stop:
            return False
        time.sleep(0.005)
    return True


class _Runs:
    """Threads that each run inside ``slots`` until told to step aside or to end."""

    def __init__(self, slots: RunSlots, count: int) -> None:
        self.inside: set[int] = set()
        self.step = [threading.Event() for _ in range(count)]
        self.end = [threading.Event() for _ in range(count)]
        self.threads = [threading.Thread(target=self._run, args=(slots, i)) for i in range(count)]
        for thread in self.threads:
            thread.start()

    def _run(self, slots: RunSlots, i: int) -> None:
        with slots.run():
            self.inside.add(i)
            self.step[i].wait(30)
            slots.step_aside()
            self.end[i].wait(30)

    def finish(self) -> None:
        for i in range(len(self.threads)):
            self.step[i].set()
            self.end[i].set()
        for thread in self.threads:
            thread.join(30)


def test_two_slots_let_two_runs_work_and_a_step_aside_lets_the_third_in() -> None:
    slots = RunSlots(2, wait_s=30)
    runs = _Runs(slots, 3)
    try:
        assert _until(lambda: len(runs.inside) == 2)
        time.sleep(0.3)
        assert len(runs.inside) == 2  # the third waits for a slot
        first = next(iter(runs.inside))
        runs.step[first].set()  # it waits for something else now: its slot goes on
        assert _until(lambda: len(runs.inside) == 3)
    finally:
        runs.finish()
    assert slots.held() == 0  # every slot came back, none twice


def test_a_run_waits_for_a_stuck_slot_only_its_wait_then_goes_on() -> None:
    slots = RunSlots(1, wait_s=0.2)
    runs = _Runs(slots, 2)
    try:
        assert _until(lambda: len(runs.inside) == 2)  # the second went on past its wait
    finally:
        runs.finish()
    assert slots.held() == 0  # the one slot is back


def test_stepping_aside_outside_a_run_or_twice_gives_nothing_back() -> None:
    slots = RunSlots(1, wait_s=1)
    slots.step_aside()  # no run: nothing to give
    with slots.run():
        slots.step_aside()
        slots.step_aside()
    assert slots.held() == 0


def test_every_run_of_the_app_gives_its_slot_back() -> None:
    at = run_page("step")
    at.sidebar.number_input(key="seed").set_value(7).run()  # a rerun stops nothing it holds
    assert not at.exception
    assert RUN_SLOTS.held() == 0


def test_a_page_watching_a_training_holds_no_slot() -> None:
    """The Train page waits for its worker's progress: other sessions' runs must not wait too."""
    at = run_page("train", {"train_task": "copy", "train_steps": "400", "train_seed": "5"})
    watching = threading.Thread(target=lambda: at.button(key="train_run").click().run(timeout=300))
    watching.start()
    try:
        free_while_training = _until(lambda: QUEUE.running() == 1 and RUN_SLOTS.held() == 0, 60)
    finally:
        watching.join(300)
    assert free_while_training
    assert not at.exception


def test_the_run_waiting_longest_gets_the_next_slot() -> None:
    slots = RunSlots(1, wait_s=30)
    first = _Runs(slots, 1)
    assert _until(lambda: first.inside == {0})
    second = _Runs(slots, 1)
    assert _until(lambda: slots.waiting() == 1)
    third = _Runs(slots, 1)
    assert _until(lambda: slots.waiting() == 2)
    try:
        first.step[0].set()  # the slot goes to the second run, not to the third
        assert _until(lambda: second.inside == {0})
        time.sleep(0.2)
        assert third.inside == set() and slots.waiting() == 1
    finally:
        for runs in (first, second, third):
            runs.finish()
    assert slots.held() == 0 and slots.waiting() == 0


def test_a_fragment_rerun_waits_for_a_slot_and_one_drawn_by_its_page_run_takes_none() -> None:
    """A step switch reruns only its fragment: a run of its own, in line with the pages' runs;
    drawn inside its page's run, it must not wait for a second slot (one slot: for itself)."""
    slots = RunSlots(1, wait_s=30)
    entered = threading.Event()
    fragment = slots.slotted(entered.set)
    page = _Runs(slots, 1)
    assert _until(lambda: page.inside == {0})
    rerun = threading.Thread(target=fragment)
    rerun.start()
    try:
        assert _until(lambda: slots.waiting() == 1)
        assert not entered.is_set()  # the page's run holds the one slot
    finally:
        page.finish()
        rerun.join(30)
    assert entered.is_set() and slots.held() == 0
    drawn = threading.Thread(target=lambda: _page_drawing(slots, fragment))
    drawn.start()
    drawn.join(10)
    assert not drawn.is_alive() and slots.held() == 0 and slots.waiting() == 0


def _page_drawing(slots: RunSlots, fragment) -> None:  # noqa: ANN001 - a slotted callable
    with slots.run():
        fragment()
