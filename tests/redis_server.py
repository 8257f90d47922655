"""A real ``redis-server`` on a free loopback port, without persistence, for tests and benchmarks.

Plain module (no pytest), like ``tests/e2e/server.py``::

    with start_redis() as redis_server:
        print(redis_server.url)        # redis://127.0.0.1:<port>/0
        redis_server.stop()            # Redis goes away mid-lecture ...
        redis_server.start()           # ... and comes back, empty, on the same port
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.e2e.server import free_port, stop_process

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    """One ``redis-server`` process on ``port`` (no snapshots, no append-only file)."""

    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 30.0) -> None:
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout_s
        while not _answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not answer on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None


@contextlib.contextmanager
def start_redis() -> Iterator[RedisServer]:
    """A fresh ``redis-server`` until the block ends (stopped by its own PID)."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
