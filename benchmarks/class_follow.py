"""A class that follows its teacher: how long from the teacher's change to every student's screen.

Usage (from the repository root)::

    python benchmarks/class_follow.py --followers 300 --changes 6 --json /tmp/follow.json
    python benchmarks/class_follow.py --followers 20 --changes 3 --every 5 --join-s 10

It starts what a lecture hall runs on one machine: a ``redis-server`` (``tests/redis_server.py``,
no persistence) and ``--replicas`` app servers (``tests/e2e/server.py``) with ``REDIS_URL``; the
teacher's tab on the first replica, the followers spread over all of them in turn (as nginx's
sticky cookie would). Every tab speaks Streamlit's own websocket protocol
(:class:`benchmarks.streamlit_protocol.StudentTab`), no browser. A follower does what the browser
does with ``st.fragment(run_every=...)``: it asks the server to rerun the class fragment every time
the server's ``auto_rerun`` message says (``ATTENTION_LAB_CLASS_POLL_S``), keeping its other
widgets' states as a browser does.

The teacher starts a class ("Start a class": the button's trigger), every follower opens
``/?class=<id>``, then the teacher makes ``--changes`` changes ``--every`` seconds apart, in turn:
a new seed, a new dropout rate p, the other page (step page ↔ Masking). For each change and each
follower, the *latency* is the time from the teacher's sending the change to the end of the
follower's run that shows the teacher's view (page and query, its language aside): the follower's
settled screen on the server's side (the browser adds its drawing). An *error* is a follower run
that fails (timeout, exception, error box, lost connection) or a change a follower never showed
before the next one came.

The JSON (``--json``) holds the settings, ``errors``, ``missed``, the latency's ``p50_s``,
``p95_s`` and ``max_s`` over every (change, follower), per change, the server processes' CPU
seconds and cores used, and the load average before and after (the machine may be shared).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import sys
import time
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.class_load import percentile  # noqa: E402
from benchmarks.streamlit_protocol import RunFailed, StudentTab, warm_up_all  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from tests.redis_server import start_redis  # noqa: E402

PERSONAL = {"lang", "class"}
START_KEY = "class_start_sidebar"  # ui.class_mode.class_button("sidebar")
ROOMS_KEY = "attention_lab:class:rooms"  # ui.class_store: the rooms' index in Redis
OTHER_PAGE = "masking"


class FollowerTab(StudentTab):
    """A student's tab in a class: it reruns the class fragment when the server asks it to."""

    def __init__(self, base_url: str, query: str, *, timeout_s: float) -> None:
        super().__init__(base_url, query, timeout_s=timeout_s)
        self.fragment_id = ""
        self.poll_s = 1.0
        self._fragment_run = False
        self._fragment_only = False

    def view(self) -> tuple[str, dict[str, str]]:
        """The page on screen (its URL path) and the query, without the reader's own."""
        pages = {page_hash: path for path, page_hash in self.pages.items()}
        query = dict(urllib.parse.parse_qsl(self.query_string))
        return pages.get(self._page_hash, self.page), {
            k: v for k, v in query.items() if k not in PERSONAL
        }

    async def poll(self) -> None:
        """One tick of the class fragment, as the browser's timer sends it."""
        kept_view, kept_states = self._view, dict(self._widget_states)
        self._fragment_run = True
        try:
            await self._rerun()
        finally:
            self._fragment_run = False
        if self._fragment_only:  # the browser keeps every widget the fragment did not redraw
            kept_view.widget_ids.update(self._view.widget_ids)
            self._view = kept_view
            self._widget_states = {**kept_states, **self._widget_states}

    def _back_message(self, page_hash: str, page_name: str) -> bytes:
        payload = super()._back_message(page_hash, page_name)
        if not self._fragment_run:
            return payload
        message = BackMsg()
        message.ParseFromString(payload)
        message.rerun_script.fragment_id = self.fragment_id
        message.rerun_script.is_auto_rerun = True
        return message.SerializeToString()

    def _handle(self, message: ForwardMsg, view: Any) -> bool:
        kind = message.WhichOneof("type")
        if kind == "auto_rerun":
            self.fragment_id = message.auto_rerun.fragment_id
            self.poll_s = message.auto_rerun.interval
            return False
        if kind == "script_finished":
            status = message.script_finished
            self._fragment_only = status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
            if self._fragment_only:
                return True
        return super()._handle(message, view)

    def _check_url(self) -> None:
        """A follower's URL is the teacher's, checked against the teacher's changes instead."""


View = tuple[str, dict[str, str]]


def follower_process(urls: list[str], room_id: str, indices: list[int], stop_at: float) -> dict:
    """Followers ``indices`` in this process (one asyncio loop) until ``stop_at`` (wall clock).

    Returns each follower's *history*: (wall time, view) whenever its view changed, its errors,
    its runs and this process's CPU seconds (the client's own cost, on the same cores).
    """
    return asyncio.run(_followers(urls, room_id, indices, stop_at))


async def _followers(urls: list[str], room_id: str, indices: list[int], stop_at: float) -> dict:
    histories: dict[int, list[tuple[float, View]]] = {}
    errors: list[str] = []
    runs = 0

    async def one(index: int) -> None:
        nonlocal runs
        tab = FollowerTab(urls[index % len(urls)], f"class={room_id}", timeout_s=60.0)
        history = histories[index] = []
        try:
            await tab.open()
            while time.time() < stop_at:
                view = tab.view()
                if not history or history[-1][1] != view:
                    history.append((time.time(), view))
                await asyncio.sleep(tab.poll_s)
                await tab.poll()
                runs += 1
        except RunFailed as error:
            errors.append(f"follower {index}: {error}")
        finally:
            await tab.close()

    await asyncio.gather(*(one(index) for index in indices))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "histories": histories,
        "errors": errors,
        "runs": runs,
        "cpu_s": usage.ru_utime + usage.ru_stime,
    }


async def teacher_starts_class(url: str, redis_url: str) -> tuple[StudentTab, str]:
    """The teacher's tab presses "Start a class"; the class's id is read from Redis."""
    import redis.asyncio as redis

    teacher = StudentTab(url, timeout_s=60.0)
    await teacher.open()
    button = teacher._state_for(START_KEY)  # the browser sends a button's trigger once
    button.trigger_value = True
    await teacher._rerun()
    teacher._widget_states.pop(button.id, None)
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    rooms = await client.zrange(ROOMS_KEY, 0, -1)
    await client.aclose()
    if len(rooms) != 1:
        raise RuntimeError(f"expected one class, found {rooms}")
    return teacher, rooms[0]


def _teacher_view(teacher: StudentTab) -> View:
    query = dict(urllib.parse.parse_qsl(teacher.query_string))
    return teacher.page, {k: v for k, v in query.items() if k not in PERSONAL}


def _reached(history: list[tuple[float, View]], sent: float, view: View) -> float | None:
    """Seconds from ``sent`` to the first time this follower showed ``view`` (None: never)."""
    for when, shown in history:
        if shown == view and when >= sent:
            return when - sent
    return None


async def run_class(urls: list[str], redis_url: str, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    teacher, room_id = await teacher_starts_class(urls[0], redis_url)
    stop_at = time.time() + args.join_s + args.changes * args.every + args.grace_s
    loop = asyncio.get_running_loop()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.clients, mp_context=context) as pool:
        shares = [list(range(k, args.followers, args.clients)) for k in range(args.clients)]
        running = [
            loop.run_in_executor(pool, follower_process, urls, room_id, share, stop_at)
            for share in shares
        ]
        await asyncio.sleep(args.join_s)  # everyone has joined (their first page is heavy)
        changes: list[tuple[str, float, View]] = []
        for number in range(args.changes):
            what = ("seed", "dropout", "page")[number % 3]
            sent = time.time()
            if what == "seed":
                await teacher.set_seed(rng.randrange(1000, 9999))
            elif what == "dropout":
                await teacher.set_dropout(rng.choice([0.1, 0.2, 0.3, 0.5, 0.7]))
            else:
                await teacher.switch_page(OTHER_PAGE if teacher.page != OTHER_PAGE else "")
            changes.append((what, sent, _teacher_view(teacher)))
            await asyncio.sleep(args.every)
        results = await asyncio.gather(*running)
    await teacher.close()
    histories = {i: h for result in results for i, h in result["histories"].items()}
    per_change, latencies, missed = [], [], 0
    for what, sent, view in changes:
        reached = [_reached(history, sent, view) for history in histories.values()]
        seconds = [value for value in reached if value is not None]
        missed += args.followers - len(seconds)
        latencies += seconds
        per_change.append(
            {
                "what": what,
                "reached": len(seconds),
                "p50_s": percentile(seconds, 0.5),
                "p95_s": percentile(seconds, 0.95),
            }
        )
    errors = [error for result in results for error in result["errors"]]
    return {
        "followers": args.followers,
        "changes": len(changes),
        "follower_runs": sum(result["runs"] for result in results),
        "errors": len(errors),
        "error_examples": errors[:5],
        "missed": missed,
        "p50_s": percentile(latencies, 0.5),
        "p95_s": percentile(latencies, 0.95),
        "max_s": max(latencies, default=float("nan")),
        "per_change": per_change,
        "client_processes": args.clients,
        "client_cpu_s": round(sum(result["cpu_s"] for result in results), 1),
    }


def _cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


@contextlib.contextmanager
def lecture_hall(replicas: int) -> Iterator[tuple[list[str], str, list[int]]]:
    """A redis-server and ``replicas`` app servers with ``REDIS_URL`` (the URLs, Redis, PIDs)."""
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(start_redis())
        redis_url, pids = redis.url, [redis.process.pid]
        env = {"REDIS_URL": redis_url}
        servers = [stack.enter_context(start_streamlit(env=env)) for _ in range(replicas)]
        urls = [server.url for server in servers]
        failures = warm_up_all(urls)
        if failures:
            raise RuntimeError("\n".join(failures))
        yield urls, redis_url, pids + [server.process.pid for server in servers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, default=300)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--changes", type=int, default=6)
    parser.add_argument("--every", type=float, default=10.0, help="seconds between changes")
    parser.add_argument("--join-s", type=float, default=60.0, help="seconds to let all join")
    parser.add_argument("--grace-s", type=float, default=30.0, help="after the last change")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with lecture_hall(args.replicas) as (urls, redis_url, pids):
        load_before = os.getloadavg()
        cpu_before, wall_before = _cpu_seconds(pids), time.perf_counter()
        result = asyncio.run(run_class(urls, redis_url, args))
        cpu = _cpu_seconds(pids) - cpu_before
        wall = time.perf_counter() - wall_before
    result.update(
        replicas=args.replicas,
        every_s=args.every,
        server_cpu_s=round(cpu, 1),
        server_cores=round(cpu / wall, 2),
        load_before=load_before,
        load_after=os.getloadavg(),
        cpu_count=os.cpu_count(),
    )
    text = json.dumps(result, indent=2, default=float)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if result["errors"] == 0 and result["missed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
