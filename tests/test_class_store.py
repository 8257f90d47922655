"""The class rooms' store, both backends: in-process and a real ``redis-server``."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.redis_server import RedisServer, start_redis
from ui.class_store import (
    FULL,
    MISSING,
    ClassStore,
    MemoryStore,
    NotTheTeacher,
    RedisStore,
    RoomsFull,
    StoreUnavailable,
    is_room_id,
    new_room_id,
)

BOUNDS = {"ttl_s": 60.0, "max_rooms": 2, "max_followers": 2}


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with start_redis() as server:
        yield server


@pytest.fixture(params=["memory", "redis"])
def make_store(request: pytest.FixtureRequest, redis_server: RedisServer):  # noqa: ANN201
    """A factory of empty stores of one backend (``make_store(ttl_s=...)`` to change a bound)."""

    def make(**bounds: float) -> ClassStore:
        if request.param == "memory":
            return MemoryStore(**{**BOUNDS, **bounds})
        store = RedisStore(redis_server.url, **{**BOUNDS, **bounds})
        store._redis.flushdb()
        return store

    return make


def test_a_room_changes_version_only_when_its_state_does(make_store) -> None:  # noqa: ANN001
    store = make_store()
    room_id = new_room_id()
    assert is_room_id(room_id) and not is_room_id(room_id.upper() + "!")
    assert store.poll(room_id, "student") == MISSING
    assert store.publish(room_id, "secret", '{"page": "step"}') == 1
    assert store.publish(room_id, "secret", '{"page": "step"}') == 1  # unchanged: no new version
    assert store.poll(room_id, "student") == 1
    assert store.publish(room_id, "secret", '{"page": "masking"}') == 2
    room = store.read(room_id)
    assert (room.state, room.version) == ('{"page": "masking"}', 2)
    assert store.publish(room_id, "secret", '{"page": "x"}', min_version=7) == 7
    assert store.read("zzzzzz") is None


def test_only_the_secret_drives_or_ends_a_room(make_store) -> None:  # noqa: ANN001
    store = make_store()
    store.publish("abcdef", "teacher's", "view 1")
    with pytest.raises(NotTheTeacher):
        store.publish("abcdef", "a guess", "view 2")
    assert store.end("abcdef", "a guess") is False
    assert store.read("abcdef").state == "view 1"
    assert store.end("abcdef", "teacher's") is True
    assert store.read("abcdef") is None and store.poll("abcdef", "student") == MISSING


def test_rooms_and_followers_are_capped(make_store) -> None:  # noqa: ANN001
    store = make_store()
    store.publish("aaaaaa", "s", "v")
    store.publish("bbbbbb", "s", "v")
    with pytest.raises(RoomsFull):
        store.publish("cccccc", "s", "v")
    assert store.poll("aaaaaa", "first") == 1 and store.poll("aaaaaa", "second") == 1
    assert store.poll("aaaaaa", "third") == FULL
    assert store.poll("aaaaaa", "first") == 1  # a follower already in stays in
    assert store.followers("aaaaaa") == 2 and store.followers("bbbbbb") == 0
    assert store.end("aaaaaa", "s")
    store.publish("cccccc", "s", "v")  # an ended room frees its place


def test_a_room_expires_after_its_ttl_unless_renewed(make_store) -> None:  # noqa: ANN001
    store = make_store(ttl_s=0.6)
    store.publish("aaaaaa", "s", "kept")
    store.publish("bbbbbb", "s", "left")
    for _ in range(3):  # the teacher's publishes renew it
        time.sleep(0.3)
        store.publish("aaaaaa", "s", "kept")
    assert store.read("aaaaaa").state == "kept"
    assert store.read("bbbbbb") is None
    store.publish("cccccc", "s", "v")  # the expired room no longer counts towards the cap


def test_redis_gone_is_unavailable_and_comes_back_by_itself() -> None:
    with start_redis() as server:
        store = RedisStore(server.url, **BOUNDS)
        store.publish("abcdef", "s", "view", min_version=1)
        server.stop()
        for call in (
            lambda: store.poll("abcdef", "f"),
            lambda: store.publish("abcdef", "s", "view 2"),
            lambda: store.read("abcdef"),
        ):
            with pytest.raises(StoreUnavailable):
                call()
        server.start()  # empty: the room was lost, and the teacher's next publish makes it again
        assert store.poll("abcdef", "f") == MISSING
        assert store.publish("abcdef", "s", "view 2", min_version=2) == 2
        assert store.poll("abcdef", "f") == 2
