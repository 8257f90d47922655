"""One browser tab without a browser: Streamlit's own websocket protocol, spoken from Python.

A Streamlit page is a websocket (``/_stcore/stream``) carrying protobuf messages of the
``streamlit.proto`` package, the same ones the browser's JavaScript sends and receives:

- the browser sends a ``BackMsg`` whose ``rerun_script`` (a ``ClientState``) holds the URL's query
  string, the page (``page_script_hash``, or ``page_name`` on the first visit) and the state of
  every widget on the page (``WidgetStates``: a slider's value is a ``double_array_value``, a
  number input's an ``int_value``, a data editor's edits a JSON ``string_value``);
- the server answers with ``ForwardMsg``s: ``new_session`` when the run starts, one ``delta`` per
  element drawn (each widget carries its id, ``$$ID-<hash>-<key>`` for a widget with a key),
  ``page_info_changed`` when the script rewrites the URL, ``navigation`` (the pages and their
  script hashes) and, when the run is over, ``script_finished``.

:class:`StudentTab` does what the browser does, in the same order: ``GET /_stcore/health`` (which
sets the ``_streamlit_xsrf`` cookie), ``GET /_stcore/host-config``, then the websocket with the
subprotocols ``["streamlit", <xsrf token>]``, the cookie and an ``Origin`` header, and a first
``rerun_script``. Large messages the server marks *cacheable* are kept and their hashes sent back
(``cached_message_hashes``), so the server may send a short ``ref_hash`` instead, as it does for
a browser.

Widget states follow the browser's rule: a widget keeps the value it has in the tab while it
stays on screen; the server overrides it when the element says so (``set_value``, e.g. after
the script wrote ``st.session_state[key]``); a widget that appears takes the element's
``default``. That matters: a widget left out of the message takes its *element's* default on
the server (the slider's minimum, not the app's setting), so a client that sent only what it
changed would lose ``train`` and ``d_out`` on a page switch where a browser does not. Values are
read for the kinds of widget the app's pages use (number input, slider, select slider,
checkbox/toggle, select box, radio, text input); the data editor's state is the edits made in this tab.

Every run is checked, not just timed: a run must end with ``FINISHED_SUCCESSFULLY``, draw no
exception and no error box, and the URL the app writes from its state (``ui.url.sync_url``)
must show exactly the seed, dropout and table cells this tab set (and Compare's ``b_seed`` and
``b_dropout`` where the B this tab got on its first visit of Compare differs from A), so a session that showed
another session's numbers, or lost its own, counts as an error.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState

STREAM_PATH = "/_stcore/stream"
HEALTH_PATH = "/_stcore/health"
HOST_CONFIG_PATH = "/_stcore/host-config"
XSRF_COOKIE = "_streamlit_xsrf"
WIDGET_ID_PREFIX = "$$ID-"
EDITOR_KEY_PREFIX = "table_editor_"  # ui/table_state.py: table_editor_{page}_{serial}
DEFAULT_SEED = 123  # ui.settings.SETTINGS: a value equal to its default is left out of the URL
DEFAULT_DROPOUT = 0.0
COMPARE_PAGE = "compare"  # url path of Compare A/B (ui.frame.PAGE_SPECS)
FINISHED = ForwardMsg.ScriptFinishedStatus
ALERT_ERROR = 1  # streamlit.proto.Alert.Format.ERROR
CACHE_RUNS = 2  # a cached message not used in this many runs is forgotten (like the browser)


class RunFailed(Exception):
    """A run that did not end well: ``kind`` names what went wrong, the message says more."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass
class RunResult:
    """One script run as this tab saw it: wall time from sending to ``script_finished``."""

    seconds: float
    messages: int  # ForwardMsgs received during the run
    bytes: int  # their payload bytes


@dataclass
class _RunView:
    """What one run drew: widget ids by key, their values as the elements give them, problems."""

    widget_ids: dict[str, str] = field(default_factory=dict)  # user key -> widget id
    main_script_widget_ids: set[str] = field(default_factory=set)
    set_values: dict[str, WidgetState] = field(default_factory=dict)  # the server's overrides
    defaults: dict[str, WidgetState] = field(default_factory=dict)  # for a widget that appears
    problems: list[RunFailed] = field(default_factory=list)


def _http_get(url: str, cookie: str, timeout_s: float) -> tuple[int, str | None]:
    """GET ``url``; returns the status and the ``_streamlit_xsrf`` cookie it sets, if any."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        response.read()
        xsrf = None
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() == XSRF_COOKIE:
                xsrf = rest.split(";", 1)[0]
        return response.status, xsrf


def _element_id(element: object) -> str:
    """The ``id`` field of an element's proto (widgets have one; text and charts may not)."""
    descriptor = getattr(element, "DESCRIPTOR", None)
    if descriptor is None or "id" not in descriptor.fields_by_name:
        return ""
    return str(element.id)


def _element_values(element_type: str, proto: Any) -> tuple[WidgetState | None, WidgetState | None]:
    """(value set by the server or None, default value or None) of a widget element."""
    set_value, default = WidgetState(id=proto.id), WidgetState(id=proto.id)
    if element_type == "number_input":
        if proto.data_type == NumberInput.DataType.INT:  # the enum, not a copied number
            set_value.int_value, default.int_value = int(proto.value), int(proto.default)
        else:
            set_value.double_value, default.double_value = proto.value, proto.default
        has_default = proto.HasField("default")
    elif element_type == "slider" and proto.options:  # st.select_slider: option labels
        set_value.string_array_value.data[:] = list(proto.raw_value)
        default.string_array_value.data[:] = [proto.options[int(i)] for i in proto.default]
        has_default = True
    elif element_type == "slider":
        set_value.double_array_value.data[:] = list(proto.value)
        default.double_array_value.data[:] = list(proto.default)
        has_default = True
    elif element_type == "checkbox":
        set_value.bool_value, default.bool_value = proto.value, proto.default
        has_default = True
    elif element_type in ("selectbox", "radio"):  # the label of the option
        set_value.string_value = proto.raw_value
        has_default = proto.HasField("default") and proto.default < len(proto.options)
        if has_default:
            default.string_value = proto.options[proto.default]
    elif element_type == "text_input":
        set_value.string_value = proto.value
        has_default = proto.HasField("default")
        default.string_value = proto.default
    else:
        return None, None
    return (set_value if proto.set_value else None), (default if has_default else None)


def _user_key(widget_id: str) -> str:
    """``$$ID-<hash>-<key>`` -> ``<key>`` (empty for a widget without a key)."""
    if not widget_id.startswith(WIDGET_ID_PREFIX):
        return ""
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 else ""


class StudentTab:
    """One student's tab: a websocket session on ``base_url`` and the settings it has made.

    ``query`` is the link the student opened (e.g. ``text=...`` for a long sentence). Methods
    that change a setting send one rerun and return when the server has finished it, raising
    :class:`RunFailed` if the run failed or shows the wrong numbers.
    """

    def __init__(self, base_url: str, query: str = "", *, timeout_s: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.query_string = query  # what the browser's address bar would hold
        self.text = urllib.parse.parse_qs(query).get("text", [None])[0]  # the link's sentence
        self.seed = DEFAULT_SEED
        self.dropout = DEFAULT_DROPOUT
        self.cells: dict[tuple[int, int], str] = {}  # (row, column) -> text typed
        self.pages: dict[str, str] = {}  # url path ("" = the default page) -> page script hash
        self.page = ""  # url path of the page on screen
        # Compare's B: a copy of A (seed, dropout) made on the first visit of that page; later it
        # stays as it was while A changes, and the URL holds b_seed/b_dropout where they differ.
        self.compare_b: tuple[int, float] | None = None
        self._page_hash = ""
        self._main_script_hash = ""
        self._websocket: websockets.ClientConnection | None = None
        self._cookie = ""
        self._widget_states: dict[str, WidgetState] = {}
        self._editor_edits: dict[str, dict[str, str]] = {}  # row -> {column: text}
        self._edited_editor: str | None = None  # the editor widget those edits were made in
        self._view = _RunView()
        self._cache: dict[str, tuple[ForwardMsg, int]] = {}  # hash -> (message, last run used)
        self._runs = 0

    # --- the session -----------------------------------------------------------------------

    async def open(self, path: str = "") -> RunResult:
        """Do what a browser does on opening ``/path?query``; returns the first run."""
        loop = asyncio.get_running_loop()
        status, xsrf = await loop.run_in_executor(
            None, _http_get, self.base_url + HEALTH_PATH, "", self.timeout_s
        )
        if status != 200:
            raise RunFailed("connection", f"{HEALTH_PATH} answered {status}")
        self._cookie = f"{XSRF_COOKIE}={xsrf}" if xsrf else ""
        await loop.run_in_executor(
            None, _http_get, self.base_url + HOST_CONFIG_PATH, self._cookie, self.timeout_s
        )
        ws_url = "ws" + self.base_url.removeprefix("http") + STREAM_PATH
        headers = {"Cookie": self._cookie} if self._cookie else {}
        try:
            self._websocket = await websockets.connect(
                ws_url,
                subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
                origin=self.base_url,
                additional_headers=headers,
                max_size=None,
                open_timeout=self.timeout_s,
            )
        except (OSError, websockets.WebSocketException) as error:
            raise RunFailed("connection", f"websocket: {error}") from error
        self.page = path
        return await self._rerun(page_name=path)

    async def close(self) -> None:
        """Close the websocket (the server drops the session after its TTL)."""
        if self._websocket is not None:
            await self._websocket.close()
            self._websocket = None

    # --- what a student does -----------------------------------------------------------------

    def has_editor(self) -> bool:
        """True when the page on screen shows the embedding table editor."""
        return self._editor_id() is not None

    async def set_seed(self, seed: int) -> RunResult:
        """Type a new seed into the sidebar's number input."""
        state = self._state_for("seed")
        state.int_value = seed
        self.seed = seed
        return await self._rerun()

    async def set_dropout(self, dropout: float) -> RunResult:
        """Move the sidebar's dropout slider to ``dropout`` (two decimals, as the slider steps)."""
        state = self._state_for("dropout")
        state.double_array_value.data[:] = [dropout]
        self.dropout = round(dropout, 2)
        return await self._rerun()

    async def edit_cell(self, row: int, column: int, text: str) -> RunResult:
        """Type ``text`` into cell (row, x{column+1}) of the embedding editor on this page.

        Like the browser's data editor, the widget's state is every edit made in it so far
        (``{"edited_rows": {...}, "added_rows": [], "deleted_rows": []}``); a new editor widget
        (the app gave it a new key) starts with none.
        """
        editor_id = self._editor_id()
        if editor_id is None:
            raise RunFailed("client", f"no embedding editor on page {self.page!r}")
        if editor_id != self._edited_editor:
            self._editor_edits, self._edited_editor = {}, editor_id
        self._editor_edits.setdefault(str(row), {})[f"x{column + 1}"] = text
        state = self._widget_states.setdefault(editor_id, WidgetState(id=editor_id))
        state.string_value = json.dumps(
            {"edited_rows": self._editor_edits, "added_rows": [], "deleted_rows": []}
        )
        self.cells[(row, column)] = text
        return await self._rerun()

    async def switch_page(self, path: str) -> RunResult:
        """Click a page in the navigation (``path`` as in the URL: "" for the default page).

        The browser keeps only the frame's widgets (the sidebar) and clears the query string,
        which the app then writes again from its state.
        """
        if path not in self.pages:
            raise RunFailed("client", f"no page {path!r} in the navigation")
        keep = self._view.main_script_widget_ids
        self._widget_states = {k: v for k, v in self._widget_states.items() if k in keep}
        self._editor_edits = {}
        self.page = path
        self.query_string = ""
        if path == COMPARE_PAGE and self.compare_b is None:
            self.compare_b = (self.seed, self.dropout)
        return await self._rerun(page_hash=self.pages[path])

    # --- one run -------------------------------------------------------------------------------

    def _state_for(self, key: str) -> WidgetState:
        widget_id = self._view.widget_ids.get(key)
        if widget_id is None:
            raise RunFailed("client", f"no widget with key {key!r} on page {self.page!r}")
        state = WidgetState(id=widget_id)
        self._widget_states[widget_id] = state
        return state

    def _editor_id(self) -> str | None:
        for key, widget_id in self._view.widget_ids.items():
            if key.startswith(EDITOR_KEY_PREFIX):
                return widget_id
        return None

    def _back_message(self, page_hash: str, page_name: str) -> bytes:
        message = BackMsg()
        client_state = message.rerun_script
        client_state.query_string = self.query_string
        client_state.page_script_hash = page_hash
        client_state.page_name = page_name
        client_state.widget_states.widgets.extend(self._widget_states.values())
        client_state.cached_message_hashes.extend(self._cache)
        context = client_state.context_info
        context.timezone = "UTC"
        context.timezone_offset = 0
        context.locale = "en-US"
        context.url = f"{self.base_url}/{self.page}" + (
            f"?{self.query_string}" if self.query_string else ""
        )
        return message.SerializeToString()

    async def _rerun(self, *, page_hash: str | None = None, page_name: str = "") -> RunResult:
        """Send one ``rerun_script`` and read until its ``script_finished``; check what it drew."""
        if self._websocket is None:
            raise RunFailed("connection", "the tab is not open")
        self._runs += 1
        payload = self._back_message(self._page_hash if page_hash is None else page_hash, page_name)
        view = _RunView()
        received = messages = 0
        start = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout_s):
                await self._websocket.send(payload)
                while True:
                    data = await self._websocket.recv()
                    received += len(data)
                    messages += 1
                    message = ForwardMsg()
                    message.ParseFromString(data)
                    if self._handle(message, view):
                        break
        except TimeoutError as error:
            raise RunFailed("timeout", f"no script_finished within {self.timeout_s:g} s") from error
        except websockets.ConnectionClosed as error:
            raise RunFailed("connection", f"websocket closed: {error}") from error
        seconds = time.perf_counter() - start
        self._view = view
        self._widget_states = self._states_after(view)
        self._forget_old_cache_entries()
        if view.problems:
            raise view.problems[0]
        self._check_url()
        return RunResult(seconds=seconds, messages=messages, bytes=received)

    def _handle(self, message: ForwardMsg, view: _RunView) -> bool:
        """Take in one ForwardMsg; True when it ends the run."""
        kind = message.WhichOneof("type")
        if kind == "ref_hash":
            cached = self._cache.get(message.ref_hash)
            if cached is None:
                view.problems.append(RunFailed("protocol", "ref_hash of an unknown message"))
                return False
            active_hash = message.metadata.active_script_hash
            message = cached[0]
            message.metadata.active_script_hash = active_hash
            kind = message.WhichOneof("type")
        if message.metadata.cacheable and message.hash:
            self._cache[message.hash] = (message, self._runs)
        if kind == "new_session":
            self._main_script_hash = message.new_session.main_script_hash
            self._page_hash = message.new_session.page_script_hash
        elif kind == "navigation":
            self._page_hash = message.navigation.page_script_hash
            self.pages = {
                page.url_pathname: page.page_script_hash for page in message.navigation.app_pages
            }
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self._take_element(message, view)
        elif kind == "script_finished":
            status = message.script_finished
            if status == FINISHED.FINISHED_EARLY_FOR_RERUN:
                return False  # the script called st.rerun(): the next run follows
            if status != FINISHED.FINISHED_SUCCESSFULLY:
                name = FINISHED.Name(status)
                view.problems.append(RunFailed("script", f"the run ended with {name}"))
            return True
        return False

    def _take_element(self, message: ForwardMsg, view: _RunView) -> None:
        element = message.delta.new_element
        element_type = element.WhichOneof("type")
        if element_type is None:
            return
        proto = getattr(element, element_type)
        if element_type == "exception":
            view.problems.append(RunFailed("exception", f"{proto.type}: {proto.message}"))
        elif element_type == "alert" and proto.format == ALERT_ERROR:
            view.problems.append(RunFailed("app_error", proto.body))
        widget_id = _element_id(proto)
        if widget_id:
            view.widget_ids[_user_key(widget_id) or widget_id] = widget_id
            set_value, default = _element_values(element_type, proto)
            if set_value is not None:
                view.set_values[widget_id] = set_value
            if default is not None:
                view.defaults[widget_id] = default
            if message.metadata.active_script_hash == self._main_script_hash:
                view.main_script_widget_ids.add(widget_id)

    def _states_after(self, view: _RunView) -> dict[str, WidgetState]:
        """The tab's widget states once the run is drawn: the browser's rule (module docstring)."""
        states: dict[str, WidgetState] = {}
        for widget_id in view.widget_ids.values():
            state = (
                view.set_values.get(widget_id)
                or self._widget_states.get(widget_id)
                or view.defaults.get(widget_id)
            )
            if state is not None:
                states[widget_id] = state
        return states

    def _forget_old_cache_entries(self) -> None:
        oldest = self._runs - CACHE_RUNS
        self._cache = {h: entry for h, entry in self._cache.items() if entry[1] > oldest}

    def _check_url(self) -> None:
        """The URL the app wrote must hold exactly this tab's settings."""
        params = urllib.parse.parse_qs(self.query_string)
        others = sorted(set(params) - {"seed", "dropout", "emb", "text", "b_seed", "b_dropout"})
        if others:  # settings this tab never touched must keep their defaults
            raise RunFailed("wrong_state", f"the app changed {', '.join(others)} by itself")
        b_seed, b_dropout = self.compare_b or (self.seed, self.dropout)
        shown_b_seed = int(params.get("b_seed", [self.seed])[0])
        shown_b_dropout = float(params.get("b_dropout", [self.dropout])[0])
        if shown_b_seed != b_seed or abs(shown_b_dropout - b_dropout) > 1e-9:
            raise RunFailed(
                "wrong_state",
                f"Compare's B shows seed {shown_b_seed}, dropout {shown_b_dropout:g}; "
                f"this tab's B is seed {b_seed}, dropout {b_dropout:g}",
            )
        if params.get("text", [None])[0] != self.text:
            raise RunFailed("wrong_state", "the app shows another sentence than the link's")
        seed = int(params.get("seed", [DEFAULT_SEED])[0])
        dropout = float(params.get("dropout", [DEFAULT_DROPOUT])[0])
        if seed != self.seed or abs(dropout - self.dropout) > 1e-9:
            raise RunFailed(
                "wrong_state",
                f"the app shows seed {seed}, dropout {dropout}; this tab set "
                f"seed {self.seed}, dropout {self.dropout}",
            )
        if self.cells:
            rows = params.get("emb", [""])[0].split(";")
            for (row, column), text in self.cells.items():
                try:
                    shown = float(rows[row].split(",")[column])
                except (IndexError, ValueError):
                    shown = float("nan")
                if not abs(shown - float(text)) <= 1e-6:
                    raise RunFailed(
                        "wrong_state",
                        f"cell ({row}, x{column + 1}) shows {shown}, this tab typed {text}",
                    )


async def _open_and_leave(base_url: str, timeout_s: float) -> RunResult:
    tab = StudentTab(base_url, timeout_s=timeout_s)
    try:
        return await tab.open()
    finally:
        await tab.close()


def warm_up(base_url: str, timeout_s: float = 120.0) -> RunResult:
    """Open the app once on ``base_url`` (what ``deploy/serve.sh`` does for each new replica).

    A fresh server imports the pages on its first run (several seconds) and, until that run,
    treats a first visit of ``/<page>`` as an old ``pages/``-folder app (``ui.frame``): one tab
    that opens ``/`` and leaves spares the first student both.
    """
    return asyncio.run(_open_and_leave(base_url, timeout_s))


def warm_up_all(base_urls: list[str], timeout_s: float = 120.0) -> list[str]:
    """``warm_up`` on every URL at once (one process for all replicas); the failures, as text."""

    async def open_all() -> list[RunResult | BaseException]:
        opens = (_open_and_leave(url, timeout_s) for url in base_urls)
        return await asyncio.gather(*opens, return_exceptions=True)

    outcomes = asyncio.run(open_all())
    return [
        f"{url}: {outcome}"
        for url, outcome in zip(base_urls, outcomes, strict=True)
        if isinstance(outcome, BaseException)
    ]


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 2:
        sys.exit(
            "usage: python benchmarks/streamlit_protocol.py URL [URL ...]"
            "   (opens the app once on each, all at once)"
        )
    failures = warm_up_all(sys.argv[1:])
    if failures:
        sys.exit("\n".join(failures))
