"""Class mode across two replicas sharing a real ``redis-server``: students follow the teacher.

A teacher on replica A starts a class; students on replica B open its link. Each change the
teacher makes (seed, p, page, the open step) reaches them; a student can explore and rejoin; a
student's own changes never reach the room; Redis stopped mid-lecture pauses the class link
without an exception, and following resumes by itself once Redis is back (empty: the teacher's
session makes the room again). Latencies are printed (benchmarks/class_follow.py measures them).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import VIEWPORT
from tests.e2e.helpers import assert_no_exception, open_app, step_strip, wait_settled
from tests.e2e.server import start_streamlit
from tests.redis_server import RedisServer, start_redis
from ui.class_store import RedisStore
from ui.i18n import t

PERSONAL = {"lang", "class"}
FOLLOW_WAIT_S = 30.0  # an upper bound on a busy machine, not the measured latency


@dataclass(frozen=True)
class Replicas:
    redis: RedisServer
    teacher_url: str  # replica A
    student_url: str  # replica B


@pytest.fixture(scope="module")
def replicas(artifacts_dir) -> Iterator[Replicas]:  # noqa: ANN001
    with ExitStack() as stack:
        redis = stack.enter_context(start_redis())
        env = {"REDIS_URL": redis.url}
        servers = [
            stack.enter_context(
                start_streamlit(env=env, log_path=artifacts_dir / f"class-replica-{name}.log")
            )
            for name in "ab"
        ]
        yield Replicas(redis, servers[0].url, servers[1].url)


def _tab(browser: Browser, viewport: dict[str, int] = VIEWPORT) -> Page:
    context = browser.new_context(viewport=viewport, has_touch=viewport["width"] < 500)
    context.set_default_timeout(60_000)
    return context.new_page()


def _view(page: Page) -> tuple[str, dict[str, str]]:
    """The page's path and its query without what is the reader's own.

    Read from the page (Playwright's ``page.url`` can lag behind ``history.replaceState``).
    """
    parts = urlsplit(page.evaluate("location.href"))
    query = {k: v for k, v in parse_qsl(parts.query) if k not in PERSONAL}
    return parts.path, query


def _follows(teacher: Page, *followers: Page) -> float:
    """Wait until every follower shows the teacher's view; return the seconds it took."""
    wait_settled(teacher)
    started = time.monotonic()
    wanted = _view(teacher)
    for follower in followers:
        while _view(follower) != wanted:
            assert time.monotonic() - started < FOLLOW_WAIT_S, (_view(follower), wanted)
            time.sleep(0.05)
    took = time.monotonic() - started
    for follower in followers:
        wait_settled(follower)
        assert_no_exception(follower)
    return took


def _seed_input(page: Page, lang: str = "en"):  # noqa: ANN202
    sidebar = page.locator("[data-testid='stSidebar']")
    return (
        sidebar.locator("[data-testid='stNumberInput']")
        .filter(has_text=t("sidebar.seed", lang=lang))
        .locator("input")
        .first
    )


def _set_seed(page: Page, seed: int, lang: str = "en") -> None:
    field = _seed_input(page, lang)
    field.fill(str(seed))
    field.press("Enter")
    wait_settled(page)


def _start_class(teacher: Page) -> str:
    """Start a class from the sidebar; return the students' link shown with its QR code."""
    sidebar = teacher.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("button", name=t("class.start", lang="en")).click()
    wait_settled(teacher)
    sidebar.locator("[data-testid='stPopover'] button").click()
    body = teacher.locator("[data-testid='stPopoverBody']")
    expect(body.locator("[data-testid='stImage'] img")).to_be_visible()  # the QR code
    link = body.locator("code").first.inner_text().strip()
    teacher.keyboard.press("Escape")
    return link


def test_students_on_another_replica_follow_explore_and_rejoin(
    replicas: Replicas, browser: Browser
) -> None:
    teacher = _tab(browser)
    open_app(teacher, replicas.teacher_url, "/?seed=5")
    wait_settled(teacher)
    link = _start_class(teacher)
    assert re.fullmatch(re.escape(replicas.teacher_url) + r"/\?class=[a-z0-9]{6}", link), link
    room_id = link.rsplit("=", 1)[1]

    laptop, phone = _tab(browser), _tab(browser, {"width": 360, "height": 640})
    open_app(laptop, replicas.student_url, f"/?class={room_id}")
    open_app(phone, replicas.student_url, f"/?class={room_id}&lang=zh")  # language stays theirs
    took = {"join": _follows(teacher, laptop, phone)}
    assert _view(laptop)[1]["seed"] == "5"

    _set_seed(teacher, 8)
    took["seed"] = _follows(teacher, laptop, phone)
    sidebar = teacher.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("radio", name="p = 0.5", exact=True).click()
    took["p"] = _follows(teacher, laptop, phone)
    teacher.locator("[data-testid='stSidebarNav'] a[href$='/masking']").click()
    took["page"] = _follows(teacher, laptop, phone)
    step_strip(teacher).get_by_role("radio").nth(2).click()  # another screen: a step of the page
    took["screen"] = _follows(teacher, laptop, phone)
    assert _view(laptop)[1]["step"] and _view(laptop)[0].endswith("/masking")
    expect(phone.locator("[data-testid='stSidebar']")).to_contain_text(t("sidebar.seed", lang="zh"))
    print("seconds from the teacher's settled change to every student's view:", took)

    laptop.get_by_role("button", name=t("class.explore", lang="en")).click()
    wait_settled(laptop)
    _set_seed(teacher, 9)
    _follows(teacher, phone)
    time.sleep(2)  # a poll or two: the explorer stays where it is
    assert _view(laptop)[1]["seed"] == "8"
    masking = t("page.masking.title", lang="en")
    expect(laptop.locator(".st-key-class_badge")).to_contain_text(masking)
    laptop.get_by_role("button", name=t("class.back", lang="en")).click()
    _follows(teacher, laptop)

    # A student's own change stays on the student's screen: it never reaches the room.
    _set_seed(phone, 42, "zh")
    time.sleep(2)
    room = RedisStore(replicas.redis.url, ttl_s=60, max_rooms=9, max_followers=9).read(room_id)
    assert json.loads(room.state)["query"]["seed"] == "9"
    assert _view(teacher)[1]["seed"] == "9" and _view(laptop)[1]["seed"] == "9"
    assert_no_exception(teacher)


def test_redis_stopped_mid_lecture_pauses_and_following_resumes(
    replicas: Replicas, browser: Browser
) -> None:
    teacher, student = _tab(browser), _tab(browser)
    open_app(teacher, replicas.teacher_url, "/")
    wait_settled(teacher)
    room_id = _start_class(teacher).rsplit("=", 1)[1]
    open_app(student, replicas.student_url, f"/?class={room_id}")
    _follows(teacher, student)

    replicas.redis.stop()
    _set_seed(teacher, 31)
    expect(teacher.get_by_text(t("class.paused_teacher", lang="en"))).to_be_visible()
    expect(student.get_by_text(t("class.paused", lang="en"))).to_be_visible()
    assert _view(student)[1].get("seed") != "31"
    for page in (teacher, student):
        assert_no_exception(page)
        expect(page.locator("h1").first).to_be_visible()  # the page still works on its settings

    replicas.redis.start()  # empty: the teacher's session makes the room again
    _follows(teacher, student)
    assert _view(student)[1]["seed"] == "31"
    expect(student.get_by_text(t("class.paused", lang="en"))).to_have_count(0)
