"""Start and stop a real ``streamlit run`` server on a free loopback port.

Plain module with no pytest dependency, so benchmarks can reuse it::

    import sys; sys.path.insert(0, str(REPO_ROOT))
    from tests.e2e.server import start_streamlit

    with start_streamlit() as server:      # runs REPO_ROOT/app.py
        print(server.url)
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_APP = REPO_ROOT / "app.py"
HEALTH_PATH = "/_stcore/health"
START_TIMEOUT_S = 120.0  # an upper bound: the startup hook imports every page (slow on busy cores)
PORT_TAKEN_MARKERS = ("is not available", "already in use")


class StreamlitStartError(RuntimeError):
    """The server did not become healthy; the message carries its log."""


@dataclass(frozen=True)
class StreamlitServer:
    """A running server: its base URL, process and log file."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def read_log(self) -> str:
        """Return everything the server has written so far."""
        return _read_text(self.log_path)


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def streamlit_command(app_path: Path, port: int, extra_args: Sequence[str] = ()) -> list[str]:
    """Build the headless ``streamlit run`` command line."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_path),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        *extra_args,
    ]


def _read_text(path: Path, offset: int = 0) -> str:
    try:
        with path.open("rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", errors="replace")
    except OSError as exc:
        return f"<could not read {path}: {exc}>"


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + HEALTH_PATH, timeout=2) as resp:
            return resp.status == 200 and resp.read().decode().strip() == "ok"
    except (urllib.error.URLError, OSError, ValueError):
        return False


def stop_process(process: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """Terminate ``process``, killing it if it does not exit within ``grace_s``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            # A killed process is gone once the kernel has freed it; on a machine busy with other
            # workers that can take longer than the grace, and a test's teardown must not fail
            # for it (the process is reaped when it exits: Popen's own bookkeeping).
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(grace_s, 60.0))


@contextlib.contextmanager
def start_streamlit(
    app_path: str | Path = DEFAULT_APP,
    extra_args: Sequence[str] = (),
    *,
    cwd: str | Path = REPO_ROOT,
    env: dict[str, str] | None = None,
    log_path: str | Path | None = None,
    timeout_s: float = START_TIMEOUT_S,
    attempts: int = 3,
) -> Iterator[StreamlitServer]:
    """Run ``streamlit run app_path`` headless on a free port until the block exits.

    Output goes to ``log_path`` (a temp file, removed afterwards, if not given).
    Waits for ``/_stcore/health`` to answer "ok"; raises StreamlitStartError with
    the server log on timeout or early exit. Retries on a lost port race.
    """
    app = Path(app_path).resolve()
    own_log = log_path is None
    if log_path is None:
        fd, tmp = tempfile.mkstemp(prefix="streamlit-", suffix=".log")
        os.close(fd)
        log = Path(tmp)
    else:
        log = Path(log_path)
        log.parent.mkdir(parents=True, exist_ok=True)
    run_env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}

    process: subprocess.Popen[bytes] | None = None
    try:
        for attempt in range(1, attempts + 1):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            with log.open("ab") as log_file:
                start_offset = log_file.tell()
                log_file.write(f"--- attempt {attempt}: port {port} ---\n".encode())
                log_file.flush()
                process = subprocess.Popen(
                    streamlit_command(app, port, extra_args),
                    cwd=str(cwd),
                    env=run_env,
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                )
            deadline = time.monotonic() + timeout_s
            ready = False
            while not ready and process.poll() is None and time.monotonic() < deadline:
                # Healthy *and* our own process says it bound the port: a foreign
                # server that grabbed the port first must not pass for ours.
                ready = healthy(url) and f"127.0.0.1:{port}" in _read_text(log, start_offset)
                if not ready:
                    time.sleep(0.2)
            if ready and process.poll() is None:
                yield StreamlitServer(url=url, port=port, process=process, log_path=log)
                return
            exited = process.poll() is not None
            stop_process(process)
            text = _read_text(log)
            lost_port = any(m in _read_text(log, start_offset) for m in PORT_TAKEN_MARKERS)
            if exited and lost_port and attempt < attempts:
                continue  # someone took the port between free_port() and bind
            reason = (
                f"exited with code {process.returncode}"
                if exited
                else f"not healthy after {timeout_s:g} s"
            )
            raise StreamlitStartError(
                f"streamlit run {app} on {url} {reason}.\n--- server log ({log}) ---\n{text}"
            )
    finally:
        if process is not None:
            stop_process(process)
        if own_log:
            log.unlink(missing_ok=True)
