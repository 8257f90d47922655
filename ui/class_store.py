"""Where a class's room lives: one small interface, two backends (no Streamlit here).

A *room* is the teacher's view as a link (:mod:`ui.class_mode`), a version that grows with each
change, and when it last changed. The store keeps only the SHA-256 of the room's *secret*, so a
follower, who knows only the room's id, cannot publish to it or end it.

- :class:`MemoryStore`, the default: rooms in this process.
- :class:`RedisStore` when ``REDIS_URL`` is set: rooms shared by every replica, each operation
  one round trip (a Lua script). If Redis cannot be reached it raises :class:`StoreUnavailable`
  at once (no retries, short timeouts) and the next call reconnects.

Bounded: a room expires ``ttl_s`` after its last publish, a store holds at most ``max_rooms``
rooms of at most ``max_followers`` followers (a random token, nothing personal, active in the
last :data:`FOLLOWER_STALE_S`) and :data:`MAX_STATE_CHARS` characters of state.
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from .limits import limit

ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0/o, 1/l/i: read aloud, typed from a screen
ID_LENGTH = 6  # 31**6 ≈ 8.9e8 ids: a guess hits one of a few dozen live rooms about once in 10^7
MAX_STATE_CHARS = 16_000  # a link's query is at most 8,000 characters (ui.url.MAX_LINK_CHARS)
FOLLOWER_STALE_S = 30.0  # a follower that has not polled for this long no longer counts
KEY_PREFIX = "attention_lab:class:"


class StoreUnavailable(RuntimeError):
    """The store cannot be reached right now (Redis down): the class link is paused."""


class RoomsFull(RuntimeError):
    """The store already holds its maximum number of rooms."""


class NotTheTeacher(PermissionError):
    """The secret does not match the room's: only the session that started it may drive it."""


@dataclass(frozen=True)
class Room:
    """What a follower reads: the state (the teacher's view), its version, when it changed."""

    id: str
    state: str
    version: int
    updated_at: float


# What :meth:`ClassStore.poll` returns besides a version.
MISSING = -1  # no such room (never started, ended, expired, or lost with a Redis restart)
FULL = -3  # the room already has its maximum number of followers


def new_room_id() -> str:
    """A short random id, easy to type from a projector (``ID_ALPHABET``, ``ID_LENGTH``)."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def is_room_id(text: str) -> bool:
    return len(text) == ID_LENGTH and all(char in ID_ALPHABET for char in text)


def new_secret() -> str:
    return secrets.token_urlsafe(24)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class ClassStore(Protocol):
    """The rooms, wherever they live. Every method may raise :class:`StoreUnavailable`."""

    def publish(self, room_id: str, secret: str, state: str, min_version: int = 1) -> int:
        """Set the room's state (creating the room if it does not exist) and renew its TTL.

        Returns the room's version: unchanged if ``state`` is, else one more (at least
        ``min_version``, so a room re-created after a Redis restart never goes back to a version
        its followers have seen). Raises :class:`NotTheTeacher` if the room exists with another
        secret, :class:`RoomsFull` if creating it would exceed the cap.
        """
        ...

    def poll(self, room_id: str, follower: str) -> int:
        """The room's version (cheap), counting ``follower`` in; :data:`MISSING` or :data:`FULL`."""
        ...

    def read(self, room_id: str) -> Room | None:
        """The room's state, or None if there is no such room."""
        ...

    def followers(self, room_id: str) -> int:
        """How many followers polled the room recently."""
        ...

    def end(self, room_id: str, secret: str) -> bool:
        """Delete the room if ``secret`` is its own; False otherwise (a follower cannot end it)."""
        ...


@dataclass
class _MemoryRoom:
    secret_digest: str
    state: str
    version: int
    updated_at: float
    expires_at: float
    followers: dict[str, float]


class MemoryStore:
    """The rooms in this process's memory, behind one lock (the default: one server)."""

    def __init__(self, *, ttl_s: float, max_rooms: int, max_followers: int) -> None:
        self.ttl_s, self.max_rooms, self.max_followers = ttl_s, max_rooms, max_followers
        self._rooms: dict[str, _MemoryRoom] = {}
        self._lock = threading.Lock()

    def _live(self, room_id: str, now: float) -> _MemoryRoom | None:
        for expired in [key for key, room in self._rooms.items() if room.expires_at <= now]:
            del self._rooms[expired]
        return self._rooms.get(room_id)

    def publish(self, room_id: str, secret: str, state: str, min_version: int = 1) -> int:
        _check_state(state)
        now = time.time()
        with self._lock:
            room = self._live(room_id, now)
            if room is None:
                if len(self._rooms) >= self.max_rooms:
                    raise RoomsFull(room_id)
                room = _MemoryRoom(_digest(secret), state, max(min_version, 1), now, 0.0, {})
                self._rooms[room_id] = room
            elif room.secret_digest != _digest(secret):
                raise NotTheTeacher(room_id)
            elif room.state != state:
                room.state, room.updated_at = state, now
                room.version = max(room.version + 1, min_version)
            room.expires_at = now + self.ttl_s
            return room.version

    def poll(self, room_id: str, follower: str) -> int:
        now = time.time()
        with self._lock:
            room = self._live(room_id, now)
            if room is None:
                return MISSING
            stale = [key for key, seen in room.followers.items() if seen < now - FOLLOWER_STALE_S]
            for key in stale:
                del room.followers[key]
            if follower not in room.followers and len(room.followers) >= self.max_followers:
                return FULL
            room.followers[follower] = now
            return room.version

    def read(self, room_id: str) -> Room | None:
        with self._lock:
            room = self._live(room_id, time.time())
            if room is None:
                return None
            return Room(room_id, room.state, room.version, room.updated_at)

    def followers(self, room_id: str) -> int:
        now = time.time()
        with self._lock:
            room = self._live(room_id, now)
            if room is None:
                return 0
            return sum(seen >= now - FOLLOWER_STALE_S for seen in room.followers.values())

    def end(self, room_id: str, secret: str) -> bool:
        with self._lock:
            room = self._live(room_id, time.time())
            if room is None or room.secret_digest != _digest(secret):
                return False
            del self._rooms[room_id]
            return True


# --- Redis ---------------------------------------------------------------------------------------
# KEYS[1] the rooms' index (a sorted set: id -> expiry), KEYS[2] the room (a hash), KEYS[3] its
# followers (a sorted set: token -> last poll). Scripts run atomically inside Redis.

_PUBLISH = """
local now, ttl = tonumber(ARGV[5]), tonumber(ARGV[6])
local digest = redis.call('HGET', KEYS[2], 'secret')
local version
if not digest then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[7]) then return -1 end
  version = math.max(tonumber(ARGV[4]), 1)
  redis.call('HSET', KEYS[2], 'secret', ARGV[2], 'state', ARGV[3], 'version', version,
             'updated_at', ARGV[5])
elseif digest ~= ARGV[2] then
  return -2
else
  version = tonumber(redis.call('HGET', KEYS[2], 'version'))
  if redis.call('HGET', KEYS[2], 'state') ~= ARGV[3] then
    version = math.max(version + 1, tonumber(ARGV[4]))
    redis.call('HSET', KEYS[2], 'state', ARGV[3], 'version', version, 'updated_at', ARGV[5])
  end
end
redis.call('PEXPIRE', KEYS[2], math.ceil(ttl * 1000))
redis.call('PEXPIRE', KEYS[3], math.ceil(ttl * 1000))
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
return version
"""

_POLL = """
local version = redis.call('HGET', KEYS[2], 'version')
if not version then return -1 end
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))
if not redis.call('ZSCORE', KEYS[3], ARGV[2])
   and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return -3 end
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('PEXPIRE', KEYS[3], redis.call('PTTL', KEYS[2]))
return tonumber(version)
"""

_END = """
if redis.call('HGET', KEYS[2], 'secret') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""


class RedisStore:
    """The rooms in Redis (``REDIS_URL``): shared by every replica."""

    def __init__(
        self, url: str, *, ttl_s: float, max_rooms: int, max_followers: int, timeout_s: float = 0.5
    ) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.ttl_s, self.max_rooms, self.max_followers = ttl_s, max_rooms, max_followers
        # Unreachable, not wrong: a script's own error (redis.ResponseError) is a bug, and raised.
        self._errors: tuple[type[BaseException], ...] = (
            redis.ConnectionError,
            redis.TimeoutError,
            OSError,
        )
        self._redis = redis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),  # down is down: say "paused" now, try again next poll
            decode_responses=True,
        )
        self._publish = self._redis.register_script(_PUBLISH)
        self._poll = self._redis.register_script(_POLL)
        self._end = self._redis.register_script(_END)

    def _keys(self, room_id: str) -> list[str]:
        room = f"{KEY_PREFIX}room:{room_id}"
        return [f"{KEY_PREFIX}rooms", room, room + ":followers"]

    def _call(self, script, room_id: str, *args: object) -> int:  # noqa: ANN001
        try:
            return int(script(keys=self._keys(room_id), args=[room_id, *args]))
        except self._errors as error:
            raise StoreUnavailable(str(error)) from None

    def publish(self, room_id: str, secret: str, state: str, min_version: int = 1) -> int:
        _check_state(state)
        args = (_digest(secret), state, min_version, time.time(), self.ttl_s, self.max_rooms)
        version = self._call(self._publish, room_id, *args)
        if version == -1:
            raise RoomsFull(room_id)
        if version == -2:
            raise NotTheTeacher(room_id)
        return version

    def poll(self, room_id: str, follower: str) -> int:
        args = (time.time(), self.max_followers, FOLLOWER_STALE_S)
        return self._call(self._poll, room_id, follower, *args)

    def read(self, room_id: str) -> Room | None:
        try:
            state, version, updated_at = self._redis.hmget(
                self._keys(room_id)[1], ["state", "version", "updated_at"]
            )
        except self._errors as error:
            raise StoreUnavailable(str(error)) from None
        if state is None or version is None:
            return None
        return Room(room_id, state, int(version), float(updated_at or 0.0))

    def followers(self, room_id: str) -> int:
        try:
            key = self._keys(room_id)[2]
            return int(self._redis.zcount(key, time.time() - FOLLOWER_STALE_S, "+inf"))
        except self._errors as error:
            raise StoreUnavailable(str(error)) from None

    def end(self, room_id: str, secret: str) -> bool:
        return self._call(self._end, room_id, _digest(secret)) == 1


def _check_state(state: str) -> None:
    if len(state) > MAX_STATE_CHARS:
        raise ValueError(f"a room's state is at most {MAX_STATE_CHARS} characters")


@functools.cache
def shared_store() -> ClassStore:
    """This server's store: Redis if ``REDIS_URL`` is set, else this process's memory.

    Its bounds are limits (ui/limits.py): ``ATTENTION_LAB_CLASS_HOURS``, ``_ROOMS``, ``_FOLLOWERS``.
    """
    bounds = {
        "ttl_s": float(limit("ATTENTION_LAB_CLASS_HOURS")) * 3600,
        "max_rooms": int(limit("ATTENTION_LAB_CLASS_ROOMS")),
        "max_followers": int(limit("ATTENTION_LAB_CLASS_FOLLOWERS")),
    }
    url = os.environ.get("REDIS_URL", "").strip()
    return RedisStore(url, **bounds) if url else MemoryStore(**bounds)
