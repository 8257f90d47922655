"""Large computations of a page, admitted against the server's memory budget (``ui/budget.py``).

:func:`admitted` runs a computation whose estimate reaches :data:`~ui.budget.HEAVY_BYTES` inside
the budget, for the running session, with a message while it waits; smaller ones run as before.
The frame calls :func:`begin_run` and :func:`end_run` around every page and turns what a page
could not get into words (:func:`show_refusal`, :func:`show_out_of_memory`): never a traceback.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

import streamlit as st
import torch

from . import budget
from .budget import BUDGET, HEAVY_BYTES, MB, OverBudget
from .i18n import t
from .run_slots import step_aside

T = TypeVar("T")

# What torch (and NumPy) say when an allocation fails: torch's CPU allocator raises a
# RuntimeError ("DefaultCPUAllocator: can't allocate memory: you tried to allocate …").
ALLOCATION_FAILURES = ("can't allocate memory", "DefaultCPUAllocator", "out of memory")


def _session() -> str:
    """The running session's token (registered by the frame's ``sessions.session_token`` first)."""
    from . import sessions  # (ui.sessions imports ui.computation, which imports this module)

    token = st.session_state.get(sessions.TOKEN_KEY)
    return token if isinstance(token, str) else sessions.session_token()


def admitted(key: Hashable, needed: int, compute: Callable[[], T]) -> T:
    """``compute()`` for this session, its ``needed`` bytes admitted against the budget first.

    Kept for the session under ``key`` while its runs keep showing it (see ``ui/budget.py``).
    Raises :class:`~ui.budget.OverBudget` when it cannot be admitted.
    """
    session = _session()
    found = BUDGET.kept(session, key)
    if found is not None:
        return found
    step_aside()  # a wait for room, then a long computation: other sessions' runs go first
    note = st.empty()

    def waiting(seconds: float) -> None:
        note.info(
            t(
                "budget.waiting",
                needed=round(needed / MB),
                in_use=round(BUDGET.in_use() / MB),
                total=round(BUDGET.total / MB),
                waited=round(seconds),
                wait=round(budget.WAIT_S),
            ),
            icon=":material/hourglass_top:",
        )

    try:
        with st.spinner(t("budget.computing", needed=round(needed / MB))):
            return BUDGET.compute(session, key, needed, compute, waiting=waiting)
    finally:
        note.empty()  # the wait is over, admitted or refused


def is_heavy(needed: int) -> bool:
    """Whether a computation of ``needed`` bytes goes through the budget."""
    return needed >= HEAVY_BYTES


def begin_run() -> None:
    BUDGET.begin_run(_session())


def end_run(*, completed: bool) -> None:
    for result in BUDGET.end_run(_session(), completed=completed):  # ended while this run drew
        free_storage(result)


def show_refusal(refused: OverBudget) -> None:
    """Why the view is not computed, with the numbers, in the user's language; the session's
    large results are given back (it shows none of them now)."""
    BUDGET.release(_session())
    key = "budget.busy" if refused.busy else "budget.too_large"
    st.warning(
        t(
            key,
            needed=round(refused.needed / MB),
            total=round(refused.total / MB),
            waited=round(refused.waited_s),
        ),
        icon=":material/memory:",
    )


def is_allocation_failure(error: BaseException) -> bool:
    """Whether ``error`` says that memory could not be allocated."""
    if isinstance(error, MemoryError):
        return True
    return isinstance(error, RuntimeError) and any(
        words in str(error) for words in ALLOCATION_FAILURES
    )


def show_out_of_memory() -> None:
    """The server could not allocate what the page needed: said in words, without a path."""
    BUDGET.release(_session())
    st.error(t("budget.out_of_memory"), icon=":material/memory:")


def free_storage(result: object, depth: int = 3) -> int:
    """Give the memory of every tensor in ``result`` back now, even while something still refers
    to it; returns the bytes freed.

    For an ended session only: Streamlit keeps its objects (the fragments that drew its view hold
    its trace) until its session store is next written, which on an idle server is never. Nothing
    runs that session again, so its tensors can be emptied in place.
    """
    if isinstance(result, torch.Tensor):
        storage = result.untyped_storage()
        size = storage.nbytes()
        try:
            storage.resize_(0)
        except RuntimeError:  # a storage torch does not own (from NumPy): left to refcounts
            return 0
        return size
    if depth == 0:
        return 0
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        children: Iterable[object] = (getattr(result, f.name) for f in dataclasses.fields(result))
    elif isinstance(result, dict):
        children = result.values()
    elif isinstance(result, (list, tuple)):
        children = result
    else:
        return 0
    return sum(free_storage(child, depth - 1) for child in children)


def _give_back(session: str) -> None:
    """A session ended: its large view goes back to the budget, its memory to the system."""
    for result in BUDGET.session_ended(session):
        free_storage(result)


def register_session_hooks() -> None:
    """Give a session's large view back when its session ends."""
    from . import sessions

    sessions.when_session_ends(_give_back)
