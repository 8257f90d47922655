"""Class mode: the students' screens follow the teacher's view, on every replica.

The room's state is the teacher's view *as a link*: the page's path and the URL query of
``ui/url.py``, minus the reader's own (:data:`PERSONAL`: language and colours). Following needs
nothing from a page's internals: a follower opens the teacher's link in place.

- The teacher starts a class (:func:`class_button`) and gets ``/?class=<id>`` and its QR code;
  only that session (it keeps the room's secret) publishes and ends the class.
- A student's :func:`class_tick`, a fragment rerunning every :data:`POLL_S` seconds, asks the
  store for the room's version and reruns the app when it changed; :func:`follow` then opens the
  room's page and query. "Explore on my own" stops following; "Back to the class" applies the
  latest.
- With the store unreachable (Redis down) every page keeps working and the badge says the class
  is paused; the next poll that reaches it resumes (the teacher re-creates a lost room).

Nothing from the room is rendered as HTML or Markdown with links: the badge names the page by
its catalogue title and the step only if it is a plain name.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping

import segno
import streamlit as st

from .class_store import (
    FULL,
    MISSING,
    NotTheTeacher,
    RoomsFull,
    StoreUnavailable,
    is_room_id,
    new_room_id,
    new_secret,
    shared_store,
)
from .i18n import t
from .limits import limit
from .run_slots import slotted
from .sessions import TOKEN_KEY
from .table import InputProblem, problem, shorten
from .url import PageParams

CLASS_PARAM = "class"
PERSONAL = ("lang", "palette")  # a reader's own: never published, never replaced
POLL_S = float(limit("ATTENTION_LAB_CLASS_POLL_S"))

TEACHER_KEY = "class_teacher"  # {"id", "secret", "version", "state"}: only the teacher's session
FOLLOW_KEY = "class_follow"  # the room id this session follows (or explores beside)
FOLLOWING_KEY = "class_following"  # True: apply the room's changes; False: exploring
SEEN_KEY = "class_seen_version"  # the room version this session last read
ROOM_VIEW_KEY = "class_room_view"  # the room's last state read: {"page", "query"}
ROOM_STATE_KEY = "class_room_state"  # the same, as the room's string
TRIES_KEY = "class_tries"  # how often this version was applied (a run can be cut short)
MAX_TRIES = 3  # then a view that cannot be the room's (should never happen) stays as it is
PENDING_KEY = "class_pending"  # a room state to apply on the next run of the frame
STATUS_KEY = "class_status"  # "ok", "paused", "missing", "full"
FOLLOWER_KEY = "class_follower"  # a random token: how the room counts this screen
PAGE_KEY = "class_page"  # the page this run shows (set by follow)
BADGE_KEY = "class_badge_says"  # what the badge drawn by the last full run says
_KEPT = (TOKEN_KEY,)  # besides the class_ keys, what a followed change keeps of a session
_PLAIN_NAME = re.compile(r"[a-z0-9_]{1,40}")


# --- the room's state: the view as a link ---------------------------------------------------------


def view_state(page: str, query: Mapping[str, str]) -> str:
    """The room's state for ``page`` and the URL ``query``: JSON, keys sorted (equal views are
    equal strings, so an unchanged view publishes no new version)."""
    shared = {k: v for k, v in query.items() if k not in PERSONAL and k != CLASS_PARAM}
    return json.dumps({"page": page, "query": shared}, sort_keys=True, ensure_ascii=False)


def parse_state(state: str) -> dict[str, object] | None:
    """A room state as ``{"page": str, "query": {str: str}}``, or None if it is not one."""
    try:
        value = json.loads(state)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("page"), str):
        return None
    query = value.get("query")
    if not isinstance(query, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in query.items()
    ):
        return None
    return {"page": value["page"], "query": query}


# --- the link's ?class= ---------------------------------------------------------------------------


def _read_url(params: dict[str, str]) -> list[InputProblem]:
    raw = params.get(CLASS_PARAM)
    if raw is None:
        return []
    if not is_room_id(raw):
        return [problem("class.bad_id", value=shorten(raw))]
    if st.session_state.get(FOLLOW_KEY) != raw:  # a new class: follow it from its current view
        st.session_state[FOLLOW_KEY] = raw
        st.session_state[FOLLOWING_KEY] = True
        st.session_state[SEEN_KEY] = None
    return []


def _write_url() -> dict[str, str]:
    room_id = st.session_state.get(FOLLOW_KEY)
    return {CLASS_PARAM: room_id} if room_id else {}


URL_PARAMS = PageParams((CLASS_PARAM,), _read_url, _write_url)


# --- following: applied early in the frame --------------------------------------------------------


def follow(page: str, pages: Mapping[str, st.Page]) -> bool:
    """Apply a room state the last poll found (a follower's session), before the sidebar draws.

    On another page, switch to it (the state is applied on that run); on the page, replace the
    session's state by the link's, keeping the reader's language and colours. Returns True when
    the frame must read the URL again (``ui.url.init_session``).
    """
    st.session_state[PAGE_KEY] = page
    pending = st.session_state.pop(PENDING_KEY, None)
    if pending is None or pending["page"] not in pages:
        return False
    personal = {k: st.query_params[k] for k in PERSONAL if k in st.query_params}
    query = {**pending["query"], **personal, CLASS_PARAM: st.session_state[FOLLOW_KEY]}
    if pending["page"] != page:  # that page's run applies it
        st.session_state[PENDING_KEY] = pending
        st.switch_page(pages[pending["page"]], query_params=query)
    for key in list(st.session_state.keys()):
        if not (str(key).startswith("class_") or key in _KEPT):
            del st.session_state[key]
    st.query_params.from_dict(query)
    return True


def _apply_latest(room_id: str) -> None:
    """Read the room and queue its state for the next run ("Back to the class", a poll)."""
    room = shared_store().read(room_id)
    view = parse_state(room.state) if room is not None else None
    if room is None or view is None:
        st.session_state[STATUS_KEY] = "missing"
        return
    st.session_state[SEEN_KEY] = room.version
    st.session_state[ROOM_VIEW_KEY] = view
    st.session_state[ROOM_STATE_KEY] = room.state
    st.session_state[TRIES_KEY] = 0
    if st.session_state.get(FOLLOWING_KEY):
        st.session_state[PENDING_KEY] = view


def _rejoin() -> None:
    st.session_state[FOLLOWING_KEY] = True
    try:
        _apply_latest(st.session_state[FOLLOW_KEY])
    except StoreUnavailable:
        st.session_state[STATUS_KEY] = "paused"
        st.session_state[SEEN_KEY] = None  # applied when the store answers again


def _break_away() -> None:
    st.session_state[FOLLOWING_KEY] = False


def _leave() -> None:
    for key in list(st.session_state.keys()):
        if str(key).startswith("class_") and key not in (TEACHER_KEY, FOLLOWER_KEY):
            del st.session_state[key]
    st.query_params.pop(CLASS_PARAM, None)


# --- the tick: a follower polls, a teacher publishes ----------------------------------------------


def class_tick() -> None:
    """On every run: the teacher's session publishes its view, a follower's polls (and moves).

    Each in a fragment that reruns by itself, a follower's every :data:`POLL_S` s, the teacher's
    twice as often (a tab switch reruns only the tabs: this tick publishes that change).
    """
    if st.session_state.get(TEACHER_KEY):
        _teacher_tick()
    elif st.session_state.get(FOLLOW_KEY):
        _badge()  # drawn by full runs: an idle tick draws nothing, and costs less
        _follower_tick()


@st.fragment(run_every=POLL_S / 2)
@slotted
def _teacher_tick() -> None:
    if not st.session_state.get(TEACHER_KEY):
        return  # the class ended in this session; the next full run stops this tick
    _publish()
    status = st.session_state.get(STATUS_KEY)
    if status in ("paused", "too_long"):
        st.warning(t(f"class.{status}_teacher"), icon=":material/cloud_off:")


@st.fragment(run_every=POLL_S)
@slotted
def _follower_tick() -> None:
    if not st.session_state.get(FOLLOW_KEY):
        return
    moved = _poll(st.session_state[FOLLOW_KEY]) or _drifted()
    if moved or _badge_says() != st.session_state.get(BADGE_KEY):
        st.rerun(scope="app")  # to the room's view, or a badge that says something new


def _drifted() -> bool:
    """A follower's view differs from the room's: queue the room's again; True to rerun.

    A run applying a change can be cut short by the browser's next request (with the old widget
    values), or the student changed a setting: the teacher's view comes back, at most
    :data:`MAX_TRIES` times per version.
    """
    state = st.session_state.get(ROOM_STATE_KEY)
    if not st.session_state.get(FOLLOWING_KEY) or st.session_state.get(STATUS_KEY) != "ok":
        return False
    if state is None or st.session_state.get(TRIES_KEY, 0) >= MAX_TRIES:
        return False
    if view_state(st.session_state.get(PAGE_KEY, ""), _query()) == state:
        return False
    st.session_state[TRIES_KEY] = st.session_state.get(TRIES_KEY, 0) + 1
    st.session_state[PENDING_KEY] = st.session_state[ROOM_VIEW_KEY]
    return True


def _query() -> dict[str, str]:
    return {key: st.query_params[key] for key in st.query_params.keys()}  # noqa: SIM118


def _publish() -> None:
    room = st.session_state[TEACHER_KEY]
    state = view_state(st.session_state.get(PAGE_KEY, ""), _query())
    try:
        room["version"] = shared_store().publish(
            room["id"], room["secret"], state, room["version"] + 1
        )
    except (StoreUnavailable, RoomsFull):  # a Redis restart lost it and the store is full now
        st.session_state[STATUS_KEY] = "paused"
        return
    except NotTheTeacher:  # only if someone else took the id after it expired
        st.session_state.pop(TEACHER_KEY, None)
        return
    except ValueError:  # a view longer than a room holds: the students keep the last one
        st.session_state[STATUS_KEY] = "too_long"
        return
    room["state"] = state
    st.session_state[STATUS_KEY] = "ok"


def _poll(room_id: str) -> bool:
    """Ask the store for the room's version; True if a new state waits to be applied."""
    token = st.session_state.setdefault(FOLLOWER_KEY, secrets.token_hex(8))
    try:
        version = shared_store().poll(room_id, token)
        status = {MISSING: "missing", FULL: "full"}.get(version, "ok")
        st.session_state[STATUS_KEY] = status
        if status != "ok" or version == st.session_state.get(SEEN_KEY):
            return False
        _apply_latest(room_id)
    except StoreUnavailable:
        st.session_state[STATUS_KEY] = "paused"
        return False
    return PENDING_KEY in st.session_state


def _where(view: Mapping[str, object] | None) -> str:
    """Where the class is, in words of the catalogue (nothing from the room as Markdown)."""
    if not view:
        return "…"
    page = str(view["page"]) or "step"
    key = f"page.{page}.title"
    title = t(key) if _PLAIN_NAME.fullmatch(page) else "…"
    step = view["query"].get("step") if isinstance(view["query"], dict) else None
    if isinstance(step, str) and _PLAIN_NAME.fullmatch(step):
        return t("class.where_step", page=title, step=step)
    return title


def _badge_says() -> tuple[str, bool, str]:
    """What the badge shows: the status, following or not, and where the class is."""
    status = st.session_state.get(STATUS_KEY, "ok")
    following = bool(st.session_state.get(FOLLOWING_KEY))
    where = "" if following else _where(st.session_state.get(ROOM_VIEW_KEY))
    return status, following, where


def _badge() -> None:
    """A follower's line: following or exploring (and where the class is), or paused."""
    st.session_state[BADGE_KEY] = _badge_says()
    status = st.session_state.get(STATUS_KEY, "ok")
    room_id = st.session_state[FOLLOW_KEY]
    with st.container(horizontal=True, vertical_alignment="center", key="class_badge"):
        if status == "paused":
            st.warning(t("class.paused"), icon=":material/cloud_off:")
        elif status == "missing":
            st.info(t("class.missing", room=room_id), icon=":material/school:")
            st.button(t("class.leave"), key="class_leave", on_click=_leave)
        elif status == "full":
            st.warning(t("class.full", room=room_id), icon=":material/group_off:")
        elif st.session_state.get(FOLLOWING_KEY):
            st.caption(t("class.following", room=room_id))
            st.button(
                t("class.explore"),
                key="class_explore",
                on_click=_break_away,
                icon=":material/explore:",
            )
        else:
            where = _where(st.session_state.get(ROOM_VIEW_KEY))
            st.caption(t("class.exploring", room=room_id, where=where))
            st.button(
                t("class.back"),
                key="class_back",
                on_click=_rejoin,
                icon=":material/group:",
                type="primary",
            )


# --- the teacher's button: start, the link and its QR code, end -----------------------------------


def _start() -> None:
    """Start a class from this session's view (a button's callback)."""
    st.session_state[STATUS_KEY] = "ok"
    for _ in range(5):  # an id taken by another live room: draw another
        room = {"id": new_room_id(), "secret": new_secret(), "version": 0, "state": ""}
        state = view_state(st.session_state.get(PAGE_KEY, ""), _query())
        try:
            room["version"] = shared_store().publish(room["id"], room["secret"], state)
        except NotTheTeacher:
            continue
        except StoreUnavailable:
            st.session_state[STATUS_KEY] = "start_paused"
            return
        except RoomsFull:
            st.session_state[STATUS_KEY] = "rooms_full"
            return
        except ValueError:
            st.session_state[STATUS_KEY] = "too_long"
            return
        room["state"] = state
        _leave()  # a teacher follows no other class
        st.session_state[TEACHER_KEY] = room
        return


def _end() -> None:
    room = st.session_state.pop(TEACHER_KEY, None)
    st.session_state.pop(STATUS_KEY, None)
    if room is not None:
        try:
            shared_store().end(room["id"], room["secret"])
        except StoreUnavailable:
            pass  # the room then expires with its TTL


def class_link(room_id: str) -> str:
    """The link students open: this app's address with ``?class=<id>`` (never the secret)."""
    base = (st.context.url or "").split("?")[0].rstrip("/")
    return f"{base}/?{CLASS_PARAM}={room_id}"


def qr_svg(link: str) -> str:
    """The link's QR code as an SVG document (segno; dark modules on white)."""
    return segno.make(link, error="m").svg_inline(scale=8, border=2, dark="#000", light="#fff")


def class_button(place: str) -> None:
    """The teacher's class control: "Start a class", or the running class's link, QR and end.

    ``place`` keeps the widget keys apart ("bar": presenter mode's bar, "sidebar").
    """
    room = st.session_state.get(TEACHER_KEY)
    if room is None and st.session_state.get(FOLLOW_KEY):
        return  # a student in a class starts none
    short = "_short" if place == "bar" else ""  # the bar shares its row with the navigation
    if room is None:
        st.button(
            t(f"class.start{short}"),
            key=f"class_start_{place}",
            on_click=_start,
            icon=":material/school:",
            help=t("class.start_help"),
            width="stretch",
        )
        status = st.session_state.get(STATUS_KEY)
        refused = {"start_paused": "start_paused", "rooms_full": "rooms_full"}
        refused["too_long"] = "too_long_teacher"
        if status in refused:
            st.warning(t(f"class.{refused[status]}"), icon=":material/cloud_off:")
        return
    try:
        count = shared_store().followers(room["id"])
    except StoreUnavailable:
        count = None
    label = t(f"class.running{short}", room=room["id"], count="?" if count is None else count)
    with st.popover(label, icon=":material/school:", width="stretch"):
        link = class_link(room["id"])
        st.caption(t("class.link_intro"))
        st.code(link, language=None, wrap_lines=True)
        st.image(qr_svg(link), width=260)
        st.button(
            t("class.end"), key=f"class_end_{place}", on_click=_end, icon=":material/stop_circle:"
        )
