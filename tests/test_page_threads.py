"""The pages' computations run on ``ui.computation.PAGE_THREADS`` intra-op threads.

Streamlit runs every script run in a thread of its own, so what matters is the count a *new*
thread starts with once the frame is imported (``ui/frame.py`` sets it at import, before any run).
The forward pass must not depend on it: the same seed gives the same numbers bitwise.
"""

from __future__ import annotations

import threading

import torch

import ui.frame  # noqa: F401 - importing the frame sets the count
from attention import AttentionConfig, trace_attention
from attention.environment import differing_fields
from ui.computation import PAGE_THREADS


def _in_a_new_thread(work):  # noqa: ANN001, ANN202 - a tiny helper
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    thread.start()
    thread.join()
    return result[0]


def test_a_new_thread_after_the_frame_import_uses_the_page_threads() -> None:
    assert _in_a_new_thread(torch.get_num_threads) == PAGE_THREADS


def test_the_trace_is_bitwise_the_same_on_one_and_on_two_threads() -> None:
    x = torch.randn(300, 3, generator=torch.Generator().manual_seed(3)) * 2  # (tokens, d_in)
    cfg = AttentionConfig(seed=11, dropout=0.4, d_out=4, num_heads=2)

    def traced_with(threads: int):  # noqa: ANN202
        def work():  # noqa: ANN202
            torch.set_num_threads(threads)
            try:
                return trace_attention(x, cfg)
            finally:
                torch.set_num_threads(PAGE_THREADS)  # later threads keep the page count

        return _in_a_new_thread(work)

    assert differing_fields(traced_with(1), traced_with(2)) == []
