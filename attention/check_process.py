"""Run the checker's harness (:mod:`attention.check_harness`) in a process of its own, and end it.

The process leads its own session, so every process the class starts is in it; when the check
returns, times out or is stopped, the whole session is killed before the harness's exit is
collected (so its number cannot be reused first). Its output is read through a pipe, bounded
(:data:`PRINT_LIMIT`, control characters as escapes); results come on a second pipe
(:data:`RESULT_LIMIT`). A file runs in ``python -I``, a class object in a forked copy (POSIX).
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from . import check_harness

PRINT_LIMIT = 20_000  # bytes of the class's printing kept for the report
RESULT_LIMIT = 8 * 2**20  # bytes of results; the checker's are a few dozen kilobytes
DRAIN_S = 1.0  # after the kill, how long to read what is left in the pipes
STARTUP_S = 120.0  # a fresh interpreter's start and torch's import, before the time limit runs
HARNESS = Path(check_harness.__file__).resolve()
ROOT = str(HARNESS.parent.parent)  # the folder holding the attention package
CAN_FORK = hasattr(os, "fork") and hasattr(os, "setsid")


@dataclass(frozen=True)
class Finished:
    """How the harness's process ended and what came out of it."""

    lines: list[bytes]  # the result pipe, one JSON record a line (a last cut line dropped)
    printed: bytes  # its first PRINT_LIMIT bytes of printing
    printed_total: int  # every byte it printed
    timed_out: bool
    overflow: bool  # more than RESULT_LIMIT bytes of results: stopped
    exitcode: int | None  # negative: killed by that signal
    timeout: float  # the time it was given, in seconds


def printable(data: bytes) -> str:
    """Printing made harmless for a terminal: control and format characters (escape codes,
    carriage returns, bidirectional overrides) shown as ``\\x1b``-style escapes; tabs and newlines
    kept."""
    text = data.decode("utf-8", errors="backslashreplace")
    return "".join(
        char
        if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp", "Cs")
        else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def run_file(target: str, request: dict[str, Any], timeout: float, noted: list[bool]) -> Finished:
    """``python -I check_harness.py`` on ``target`` (``FILE.py:ClassName``)."""
    handle, request_path = tempfile.mkstemp(prefix="attention-check-", suffix=".pt")
    result_r, result_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        with os.fdopen(handle, "wb") as file:
            torch.save(request, file)
        process = subprocess.Popen(  # noqa: S603 (this interpreter, our own script)
            [sys.executable, "-I", str(HARNESS), str(result_w), request_path, target, ROOT],
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=(result_w,),
            start_new_session=True,
        )
    except BaseException:
        for fd in (result_r, result_w, out_r, out_w):
            os.close(fd)
        os.unlink(request_path)
        raise
    os.close(result_w)
    os.close(out_w)
    if hasattr(os, "waitid"):
        ended = functools.partial(_exited, process.pid)
    else:  # macOS: Popen collects it
        ended = lambda: process.poll() is not None  # noqa: E731
    try:
        return _watch(process.pid, ended, process.wait, result_r, out_r, timeout, noted)
    finally:
        os.unlink(request_path)


def run_forked(cls: type, request: dict[str, Any], timeout: float, noted: list[bool]) -> Finished:
    """The harness on a class object, in a forked copy of this process."""
    result_r, result_w = os.pipe()
    out_r, out_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is printed twice
        with contextlib.suppress(Exception):
            stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.setsid()
            os.close(result_r)
            os.close(out_r)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            with check_harness.printing_to(out_w):
                os.close(out_w)
                torch.set_num_threads(1)
                check_harness.run(cls, request, check_harness.line_writer(result_w))
        finally:
            os._exit(0)
    os.close(result_w)
    os.close(out_w)

    ended, reap = _collecting(pid)
    return _watch(pid, ended, reap, result_r, out_r, timeout, noted)


def _exited(pid: int) -> bool:
    """Whether ``pid`` has ended, without collecting it (its number stays taken meanwhile)."""
    flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
    return os.waitid(os.P_PID, pid, flags) is not None


def _collecting(pid: int) -> tuple[Callable[[], bool], Callable[[], int]]:
    """``(ended, reap)`` for a forked child: without ``os.waitid`` (macOS) ``ended`` collects it
    at once and ``reap`` returns what it collected."""
    if hasattr(os, "waitid"):
        return (lambda: _exited(pid)), (lambda: os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    status: list[int] = []

    def ended() -> bool:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status.append(code)
        return bool(done)

    def reap() -> int:
        return os.waitstatus_to_exitcode(status[0] if status else os.waitpid(pid, 0)[1])

    return ended, reap


def _watch(
    pid: int,
    ended: Callable[[], bool],
    reap: Callable[[], int],
    result_r: int,
    out_r: int,
    timeout: float,
    noted: list[bool],
) -> Finished:
    """Read both pipes until the process ends, ``timeout`` passes or Ctrl-C; then kill its
    session, read what is left for at most :data:`DRAIN_S`, and collect its exit."""
    results, printed = bytearray(), bytearray()
    total = [0]
    selector = selectors.DefaultSelector()
    for fd in (result_r, out_r):
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)

    def read_ready(wait: float) -> None:
        for key, _ in selector.select(wait):
            with contextlib.suppress(BlockingIOError):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == result_r:
                    results.extend(chunk)
                else:
                    total[0] += len(chunk)
                    printed.extend(chunk[: max(0, PRINT_LIMIT - len(printed))])

    # the time limit is the class's: it starts once the harness is ready (its first record),
    # and the interpreter's start and torch's import get STARTUP_S of their own
    deadline = time.monotonic() + STARTUP_S + timeout
    ready = False
    timed_out = overflow = False
    exitcode = None
    try:
        while not ended():
            if noted[0]:  # Ctrl-C, whose KeyboardInterrupt a finalizer may have swallowed
                raise KeyboardInterrupt
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if selector.get_map():
                read_ready(min(left, 0.1))
            else:
                time.sleep(min(left, 0.05))
            if results and not ready:
                ready, deadline = True, time.monotonic() + timeout
            if len(results) > RESULT_LIMIT:
                overflow = True
                break
    finally:
        kill_session(pid)
        with contextlib.suppress(Exception):
            stop = time.monotonic() + DRAIN_S
            while selector.get_map() and time.monotonic() < stop and len(results) <= RESULT_LIMIT:
                read_ready(0.05)
        exitcode = reap()
        selector.close()
        os.close(result_r)
        os.close(out_r)
    lines = bytes(results[:RESULT_LIMIT]).split(b"\n")[:-1]  # a cut last line is dropped
    return Finished(lines, bytes(printed), total[0], timed_out, overflow, exitcode, timeout)


def kill_session(pid: int, wait_s: float = 2.0) -> None:
    """Kill the session ``pid`` leads (its group, then members that moved group, from ``/proc``) and
    wait up to ``wait_s`` until none runs (a SIGKILL lands when the process is next scheduled).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    stop = time.monotonic() + wait_s
    while members := _session_members(pid):
        for other in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(other, signal.SIGKILL)
        if time.monotonic() > stop:
            return
        time.sleep(0.01)


def _session_members(session: int) -> list[int]:
    members = []
    proc = Path("/proc")
    if not proc.is_dir():
        return members
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # state ppid pgrp session ...
        if len(fields) < 4 or fields[0] in "ZX":  # a zombie has ended: init collects it
            continue
        if fields[3] == str(session) and int(entry.name) != session:
            members.append(int(entry.name))
    return members
