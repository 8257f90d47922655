"""Fixtures for real-browser tests: a ``streamlit run`` server and Debian Chromium."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.e2e.server import (
    DEFAULT_APP,
    StreamlitServer,
    StreamlitStartError,
    start_streamlit,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

E2E_DIR = Path(__file__).resolve().parent
CHROMIUM_ENV = "ATTENTION_LAB_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1366, "height": 768}
DEFAULT_TIMEOUT_MS = 30_000

StreamlitFactory = Callable[..., StreamlitServer]


def in_ci() -> bool:
    """True when running under CI (``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() == "true"


def browser_unavailable(reason: str) -> None:
    """Skip locally, but fail loudly in CI: browser tests must never be skipped there."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests must not be skipped)", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str:
    """Chromium executable: ``$ATTENTION_LAB_CHROMIUM`` or /usr/bin/chromium."""
    return os.environ.get(CHROMIUM_ENV) or DEFAULT_CHROMIUM


def safe_name(name: str) -> str:
    """A test name usable as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]


def _playwright_import_error() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"playwright is not installed ({exc}); pip install -r requirements-dev.txt"
    return None


class _BrowserlessModule(pytest.Module):
    """Stands in for a test module that cannot even import without Playwright."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        browser_unavailable(_playwright_import_error() or "playwright is not importable")
        return []


def pytest_pycollect_makemodule(
    module_path: Path, parent: pytest.Collector
) -> pytest.Module | None:
    """Skip (fail in CI) e2e modules instead of erroring at import if Playwright is missing."""
    if module_path.name == "__init__.py" or _playwright_import_error() is None:
        return None
    return _BrowserlessModule.from_parent(parent, path=module_path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test collected under tests/e2e with ``e2e``."""
    for item in items:
        if item.path.resolve().is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Remember each phase's report on the item (used for failure screenshots)."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def artifacts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory for server logs and failure screenshots (kept by pytest's tmp retention)."""
    return tmp_path_factory.mktemp("e2e-artifacts", numbered=False)


@dataclass(frozen=True)
class SharedApp:
    """The session's ``streamlit run app.py`` and its log as it stood when health first said ok."""

    server: StreamlitServer
    log_when_healthy: str


@pytest.fixture(scope="session")
def streamlit_app(artifacts_dir: Path) -> Iterator[SharedApp]:
    """Serve the real ``app.py`` once for the whole session (every browser test shares it)."""
    if not DEFAULT_APP.exists():
        pytest.fail(f"{DEFAULT_APP} does not exist", pytrace=False)
    log_path = artifacts_dir / "streamlit-app.log"
    try:
        with start_streamlit(DEFAULT_APP, log_path=log_path) as server:
            yield SharedApp(server, server.read_log())
    except StreamlitStartError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def streamlit_server(streamlit_app: SharedApp) -> str:
    """The base URL of the session's shared ``app.py`` server."""
    return streamlit_app.server.url


@pytest.fixture
def streamlit_factory(
    artifacts_dir: Path, request: pytest.FixtureRequest
) -> Iterator[StreamlitFactory]:
    """Start extra servers: ``factory(app_path, extra_args=(), **kw) -> StreamlitServer``.

    Each one is stopped when the test ends.
    """
    with contextlib.ExitStack() as stack:
        count = 0

        def factory(
            app_path: str | Path, extra_args: Sequence[str] = (), **kwargs: Any
        ) -> StreamlitServer:
            nonlocal count
            count += 1
            kwargs.setdefault(
                "log_path", artifacts_dir / f"{safe_name(request.node.name)}-{count}.log"
            )
            try:
                return stack.enter_context(start_streamlit(app_path, extra_args, **kwargs))
            except StreamlitStartError as exc:
                pytest.fail(str(exc), pytrace=False)

        yield factory


@pytest.fixture(scope="session")
def _playwright() -> Iterator[Playwright]:
    error = _playwright_import_error()
    if error is not None:
        browser_unavailable(error)
    from playwright.sync_api import expect, sync_playwright

    # expect(...) waits 5 s by default: on 2 busy cores a rerun can take longer. It is an upper
    # bound on waiting for the page's own state, never a timed assertion.
    expect.set_options(timeout=DEFAULT_TIMEOUT_MS)
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(_playwright: Playwright) -> Iterator[Browser]:
    """Headless Debian Chromium, shared by the session."""
    exe = chromium_path()
    if not (Path(exe).is_file() and os.access(exe, os.X_OK)):
        browser_unavailable(
            f"Chromium not found at {exe} (apt-get install chromium; or set {CHROMIUM_ENV})"
        )
    browser = _playwright.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@dataclass
class _Tab:
    """The worker's one browser tab; replaced after a test that failed with it."""

    page: Page | None = None


def _fresh_tab(browser: Browser) -> Page:
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    return context.new_page()


@pytest.fixture(scope="session")
def _tab(browser: Browser) -> Iterator[_Tab]:
    tab = _Tab()
    yield tab
    if tab.page is not None:
        with contextlib.suppress(Exception):
            tab.page.context.close()


@pytest.fixture
def page(
    _tab: _Tab, browser: Browser, request: pytest.FixtureRequest, artifacts_dir: Path
) -> Iterator[Page]:
    """The worker's browser tab (1366x768, 30 s default timeout); screenshot on failure.

    Every test gets the same tab back, reset: the window at its default size, no cookies, no
    routes, no other tab of its context open. A new context and tab cost the browser a new
    renderer and a cold start of Streamlit's bundle, about as much CPU as three page loads
    (benchmarks/README.md, "The test suite"); each test still starts its own Streamlit session,
    because its first navigation opens a new websocket. A tab a test failed with is replaced.
    """
    if tab_gone := _tab.page is None or _tab.page.is_closed():
        _tab.page = _fresh_tab(browser)
    page = _tab.page
    if not tab_gone:
        context = page.context
        for other in context.pages:
            if other is not page:
                other.close()
        context.clear_cookies()
        page.unroute_all(behavior="ignoreErrors")
        page.set_viewport_size(VIEWPORT)
    yield page
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        shot = artifacts_dir / f"{safe_name(request.node.name)}.png"
        with contextlib.suppress(Exception):
            page.screenshot(path=str(shot), full_page=True)
            print(f"\nscreenshot of failed test: {shot}")
        with contextlib.suppress(Exception):
            page.context.close()
        _tab.page = None


@pytest.fixture(scope="session")
def frame_loaded(streamlit_server: str) -> str:
    """The shared server, for tests that open ``/<page>`` first.

    ``ui.frame.page`` makes any first visit run the frame; test_masking_and_multi_head.py checks
    that on fresh servers.
    """
    return streamlit_server
