"""Two replicas behind nginx (``deploy/serve.sh``), driven by real Chromium sessions.

A Streamlit session lives in one server process: its websocket, its download files
(``/media/...``) and its uploads (``/_stcore/upload_file``) must all reach the replica that holds
it. ``deploy/serve.sh`` puts nginx in front of the replicas with a sticky cookie. This test opens
a session on each replica (nginx names the replica that answered in a response header), each
with its own seed and dropout, and checks that every one shows exactly its own numbers, downloads
its own trace and loads its own upload through the balancer. Then it stops one replica: the
session on the other keeps its numbers and still reruns, and new visitors, even one whose cookie
points at the stopped replica, still get the app. Last, SIGTERM to ``serve.sh`` stops everything.
On the way, what an operator reads: each replica's ``/metrics`` (printed by ``serve.sh``; not
served on the class's address), and the logs ``serve.sh`` keeps: a session's lines, and a settings
error's line carrying the reference the student was shown.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.e2e.conftest import VIEWPORT, browser_unavailable
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from tests.e2e.server import REPO_ROOT, free_port, stop_process
from ui.i18n import t

SERVE_SCRIPT = REPO_ROOT / "deploy" / "serve.sh"
NGINX_PATHS = ("/usr/sbin/nginx", "/usr/bin/nginx")
REPLICA_HEADER = "x-attention-lab-replica"
START_TIMEOUT_S = 180
APPEAR_MS = 60_000
SESSIONS_PER_REPLICA = 1  # many sessions on one server: test_many_sessions.py
MAX_CONTEXTS = 40  # new cookies until both replicas have their sessions (2**-38 to miss one)


@dataclass
class Deployment:
    """A running ``serve.sh``: nginx's URL, and each replica's ``host:port`` -> pid."""

    url: str
    process: subprocess.Popen[bytes]
    replicas: dict[str, int]
    nginx_pid: int
    log_path: Path
    replica_logs: dict[str, Path]  # host:port -> the replica's log, in serve.sh's log folder
    metrics: dict[str, str]  # host:port -> its /metrics URL, as serve.sh printed it


def _nginx_available() -> bool:
    return any(os.access(path, os.X_OK) for path in NGINX_PATHS) or bool(
        subprocess.run(["sh", "-c", "command -v nginx"], capture_output=True).stdout
    )


def _wait_for_health(url: str, deadline: float, log_path: Path) -> None:
    """Until nginx answers ``/_stcore/health`` (it may still be opening its port on a busy machine)."""
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"nginx did not answer at {url}:\n{log_path.read_text()}", pytrace=False)
        time.sleep(0.3)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def deployment(artifacts_dir: Path) -> Iterator[Deployment]:
    """``bash deploy/serve.sh --replicas 2`` on a free port; stopped (group and all) afterwards."""
    if not _nginx_available():
        browser_unavailable("nginx is not installed (apt-get install -y nginx)")
    log_path = artifacts_dir / "serve.log"
    port = free_port()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            ["bash", str(SERVE_SCRIPT), "--replicas", "2", "--port", str(port)]
            + ["--host", "127.0.0.1", "--log-dir", str(artifacts_dir / "serve-logs")],
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so teardown can end all of it
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        text = ""
        while "Attention Lab: http://" not in text:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"serve.sh did not start:\n{log_path.read_text()}", pytrace=False)
            time.sleep(0.3)
            text = log_path.read_text()
        started = re.findall(
            r"replica \d+: http://127\.0\.0\.1:(\d+) \(pid (\d+), log (\S+)\)", text
        )
        replicas = {f"127.0.0.1:{port_}": int(pid) for port_, pid, _ in started}
        replica_logs = {f"127.0.0.1:{port_}": Path(log) for port_, _, log in started}
        metrics = {
            f"127.0.0.1:{port_}": url
            for url, port_ in re.findall(
                r"metrics of replica \d+: (http://127\.0\.0\.1:(\d+)/metrics)", text
            )
        }
        nginx_pid = int(re.search(r"nginx: pid (\d+)", text).group(1))
        assert len(replicas) == 2, text
        _wait_for_health(f"http://127.0.0.1:{port}", deadline, log_path)
        yield Deployment(
            f"http://127.0.0.1:{port}",
            process,
            replicas,
            nginx_pid,
            log_path,
            replica_logs,
            metrics,
        )
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            stop_process(process, grace_s=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


# --- what one session should show ----------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    seed: int
    dropout: float

    def path(self, page: str = "/") -> str:
        return page + "?" + urlencode({"seed": str(self.seed), "dropout": str(self.dropout)})

    def context_rows(self) -> list[list[str]]:
        trace = trace_attention(
            BOOK_EMBEDDINGS, AttentionConfig(seed=self.seed, dropout=self.dropout)
        )
        return [[f"{v:.4f}" for v in row] for row in trace.context[0].tolist()]

    def context_values(self) -> list[list[float]]:
        trace = trace_attention(
            BOOK_EMBEDDINGS, AttentionConfig(seed=self.seed, dropout=self.dropout)
        )
        return trace.context[0].tolist()


def _shown_context(page: Page) -> list[list[str]]:
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr").first).to_be_visible(timeout=APPEAR_MS)
    return [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]


def _replica_of(context: BrowserContext, url: str) -> str:
    """Ask nginx once with this context's cookies; its header names the replica that answered.

    The header lists every replica nginx tried for the request (a stopped one first, then the
    one it fell back to); the last one answered.
    """
    response = context.request.get(url + "/_stcore/health")
    assert response.ok, response.status
    return response.headers[REPLICA_HEADER].split(",")[-1].strip()


def _contexts_on_both_replicas(
    browser: Browser, deployment: Deployment, shared: BrowserContext
) -> dict[str, list[BrowserContext]]:
    """Browser contexts (each its own sticky cookie) until each replica has its sessions.

    The worker's shared context (no cookie yet) is asked first; new contexts follow as needed.
    """
    by_replica: dict[str, list[BrowserContext]] = {name: [] for name in deployment.replicas}
    for attempt in range(MAX_CONTEXTS):
        context = shared if attempt == 0 else browser.new_context(viewport=VIEWPORT)
        replica = _replica_of(context, deployment.url)
        assert replica in by_replica, (replica, deployment.replicas)
        if len(by_replica[replica]) < SESSIONS_PER_REPLICA:
            by_replica[replica].append(context)
        elif context is not shared:
            context.close()
        if all(len(c) == SESSIONS_PER_REPLICA for c in by_replica.values()):
            return by_replica
    raise AssertionError(f"nginx sent {MAX_CONTEXTS} new cookies to one replica: {by_replica}")


def _download_trace(page: Page, tmp_path: Path, name: str) -> dict:
    page.locator("[data-testid='stSidebarNavLink']").filter(
        has_text=t("page.export.title", "en")
    ).first.click()
    wait_settled(page)
    with page.expect_download() as download_info:
        page.get_by_role("button", name=t("export.json.label", "en")).click()
    download = download_info.value
    saved = tmp_path / f"{name}.json"
    download.save_as(saved)
    return json.loads(saved.read_text(encoding="utf-8"))


def _upload_table(page: Page, tmp_path: Path, name: str) -> None:
    page.locator("[data-testid='stSidebarNavLink']").filter(
        has_text=t("page.embeddings.title", "en")
    ).first.click()
    wait_settled(page)
    csv_file = tmp_path / f"{name}.csv"
    csv_file.write_text(f"token,x1,x2\n{name},0.1,0.2\nb,0.3,-0.4\n", encoding="utf-8")
    page.locator(
        "[data-testid='stMainBlockContainer'] [data-testid='stFileUploader'] input[type='file']"
    ).set_input_files(str(csv_file))
    wait_settled(page)
    expect(page.get_by_text(t("embeddings.upload_loaded", "en", rows=2, d_in=2))).to_be_visible(
        timeout=APPEAR_MS
    )


def _metrics(url: str) -> dict[str, float]:
    """A replica's ``/metrics``: each sample line's name (with labels) -> value."""
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    assert "# TYPE attention_lab_sessions gauge" in text, text
    samples = [line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#")]
    return {name: float(value) for name, value in samples}


def _not_served(url: str) -> int:
    try:
        urllib.request.urlopen(url, timeout=10)
    except urllib.error.HTTPError as error:
        return error.code
    return 200


def _sessions_on(
    sessions: list[tuple[str, Page, Settings]], replica: str
) -> list[tuple[Page, Settings]]:
    return [(tab, settings) for name, tab, settings in sessions if name == replica]


def test_two_replicas_behind_nginx_keep_sessions_and_survive_one_stopping(
    browser: Browser, page: Page, deployment: Deployment, tmp_path: Path
) -> None:
    by_replica = _contexts_on_both_replicas(browser, deployment, page.context)
    (doomed, doomed_contexts), (survivor, survivor_contexts) = by_replica.items()
    sessions: list[tuple[str, Page, Settings]] = []
    try:
        for index, (replica, context) in enumerate(
            (replica, context) for replica, contexts in by_replica.items() for context in contexts
        ):
            settings = Settings(seed=10 + index, dropout=round(0.1 * (index + 1), 2))
            tab = page if context is page.context else context.new_page()
            response = tab.goto(deployment.url + settings.path(), wait_until="commit")
            assert response is not None and response.headers[REPLICA_HEADER] == replica
            sessions.append((replica, tab, settings))
        for _, tab, _ in sessions:  # all load at the same time
            tab.wait_for_selector("[data-testid='stApp']", state="attached", timeout=APPEAR_MS)
            wait_settled(tab, timeout=APPEAR_MS)
        assert len({str(s.context_rows()) for _, _, s in sessions}) == len(sessions)
        for replica, tab, settings in sessions:
            assert_no_exception(tab)
            assert _shown_context(tab) == settings.context_rows(), (replica, settings)

        # Each replica's /metrics (the addresses serve.sh printed) counts its session and runs;
        # the class's address does not serve them.
        assert set(deployment.metrics) == set(deployment.replicas)
        for replica, url in deployment.metrics.items():
            figures = _metrics(url)
            assert figures["attention_lab_sessions"] >= SESSIONS_PER_REPLICA, (replica, figures)
            assert figures["attention_lab_reruns_total"] >= 1, (replica, figures)
            assert figures["attention_lab_resident_memory_bytes"] > 100 * 2**20, figures
            # a few sessions: a run may be working, none waits for a slot
            assert figures['attention_lab_page_runs{state="working"}'] <= 2, figures
            assert figures['attention_lab_page_runs{state="waiting"}'] == 0, figures
            assert figures['attention_lab_page_runs{state="slots"}'] == 2, figures
        assert _not_served(deployment.url + "/metrics") == 404

        # Downloads (/media/...) and uploads (/_stcore/upload_file) go to the session's replica.
        for index, (replica, tab, settings) in enumerate(sessions):
            data = _download_trace(tab, tmp_path, f"trace{index}")
            assert data["settings"]["seed"] == settings.seed, replica
            assert data["settings"]["dropout"] == settings.dropout, replica
            assert data["context"][0] == settings.context_values(), replica
        for index, (_, tab, _) in enumerate(sessions):
            _upload_table(tab, tmp_path, f"upload{index}")
            assert_no_exception(tab)

        # The survivor's sessions back on the step page with the book's table, then stop the
        # other replica (its tabs are only reopened below, as new visitors: they stay put).
        survivors = _sessions_on(sessions, survivor)
        for tab, settings in survivors:
            tab.goto(deployment.url + settings.path(), wait_until="commit")
        for tab, _ in survivors:
            wait_settled(tab, timeout=APPEAR_MS)
        os.kill(deployment.replicas[doomed], signal.SIGTERM)
        deadline = time.monotonic() + 60
        while _alive(deployment.replicas[doomed]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(deployment.replicas[doomed]), "the replica did not stop"
        assert deployment.process.poll() is None, "serve.sh stopped with one replica"

        # The other replica's sessions are untouched: same numbers, and a rerun still works.
        for tab, settings in survivors:
            assert _shown_context(tab) == settings.context_rows()
        tab, settings = survivors[0]
        tab.get_by_test_id("stSidebar").get_by_role(
            "slider", name=t("sidebar.dropout", "en")
        ).focus()
        tab.keyboard.press("ArrowRight")
        wait_settled(tab, timeout=APPEAR_MS)
        moved = Settings(settings.seed, round(settings.dropout + 0.01, 2))
        assert _shown_context(tab) == moved.context_rows()
        assert_no_exception(tab)

        # New visitors get the app: a fresh one (the survivor's tab, its cookie dropped), and one
        # whose cookie names the stopped replica (the stopped replica's own tab, reloaded).
        # The second one's link also holds a bad d_out: the app says so, with a reference, and
        # keeps the default (the same numbers).
        (survivor_tab, _), (doomed_tab, _) = survivors[0], _sessions_on(sessions, doomed)[0]
        survivor_tab.context.clear_cookies()
        for visitor, extra in ((survivor_tab, ""), (doomed_tab, "&d_out=two")):
            open_app(visitor, deployment.url, Settings(5, 0.2).path() + extra)
            assert _replica_of(visitor.context, deployment.url) == survivor
            assert _shown_context(visitor) == Settings(5, 0.2).context_rows()
            assert_no_exception(visitor)
        warning = doomed_tab.get_by_test_id("stAlert").filter(has_text="Reference").first
        shown_ref = re.search(r"Reference ([0-9a-f]{6})", warning.inner_text()).group(1)
    finally:
        for contexts in (doomed_contexts, survivor_contexts):
            for context in contexts:
                if context is not page.context:  # the worker's tab: the page fixture resets it
                    context.close()

    # SIGTERM to serve.sh stops nginx and every replica.
    deployment.process.send_signal(signal.SIGTERM)
    assert deployment.process.wait(timeout=60) == 0, deployment.log_path.read_text()
    running = [pid for pid in [*deployment.replicas.values(), deployment.nginx_pid] if _alive(pid)]
    assert running == [], f"still running after SIGTERM: {running}"

    # The logs stay where serve.sh said: every replica's session lines, the settings error with
    # the reference the student saw (in the survivor's log), nginx's access log.
    for replica, log in deployment.replica_logs.items():
        text = log.read_text()
        assert re.search(r"event=session_opened session=[0-9a-f]{8}\b", text), (replica, text)
    survivor_log = deployment.replica_logs[survivor].read_text()
    assert re.search(
        rf"event=settings_error session=[0-9a-f]{{8}} ref={shown_ref} problem=url\.\w+",
        survivor_log,
    ), survivor_log[-3000:]
    assert (deployment.replica_logs[survivor].parent / "access.log").stat().st_size > 0
    assert f"logs kept in {deployment.replica_logs[survivor].parent}" in (
        deployment.log_path.read_text()
    )
