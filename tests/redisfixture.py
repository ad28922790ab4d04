"""A real ``redis-server`` on a free loopback port, for the Redis backend and scrapy-redis tests.

Import the fixtures from a conftest (``from redisfixture import redis_server, redis_url``). They
skip with a reason when ``redis-server`` is not installed, and fail instead when
``SIMHASH_REQUIRE_REDIS=1`` (CI installs the Debian package).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

REDIS_SERVER = "redis-server"
_counter = itertools.count(1)


def free_port() -> int:
    """A TCP port nobody listens on right now on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """One ``redis-server`` process on 127.0.0.1; ``restart()`` keeps the port (and the data when
    asked), as an operator restarting Redis mid-crawl would."""

    def __init__(self, executable: str, directory: Path, password: str | None = None) -> None:
        self.executable = executable
        self.directory = directory
        self.password = password  # started with --requirepass when set
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        command = [
            self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", str(self.directory),
            "--dbfilename", "dump.rdb", "--protected-mode", "yes", "--loglevel", "warning",
            *(["--requirepass", self.password] if self.password else []),
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.process.stderr.read()}")
            if self.ping():
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer PING on port {self.port}")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                if self.password:
                    sock.sendall(f"AUTH {self.password}\r\n".encode())
                    sock.recv(16)
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password)

    def stop(self, *, save: bool = False) -> None:
        """Shut the server down (``SHUTDOWN SAVE`` keeps the data for the next start)."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
                if self.password:
                    sock.sendall(f"AUTH {self.password}\r\n".encode())
                    sock.recv(16)
                sock.sendall(b"SHUTDOWN SAVE\r\n" if save else b"SHUTDOWN NOSAVE\r\n")
                sock.recv(64)
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        if self.process.stderr:
            self.process.stderr.close()

    def restart(self, *, down_for: float = 0.0, save: bool = True) -> None:
        """Stop, stay down ``down_for`` seconds, start again on the same port."""
        self.stop(save=save)
        if not save:  # come back empty, as a server without persistence does
            (self.directory / "dump.rdb").unlink(missing_ok=True)
        time.sleep(down_for)
        self.start()


def find_redis_server() -> str | None:
    return shutil.which(REDIS_SERVER) or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").is_file() else None
    )


def start_or_skip(directory: Path, password: str | None = None) -> RedisServer:
    """A started server, or a skip (a failure under SIMHASH_REQUIRE_REDIS=1) with the reason."""
    required = os.environ.get("SIMHASH_REQUIRE_REDIS") == "1"
    executable = find_redis_server()
    reason = None
    if executable is None:
        reason = "redis-server is not installed (apt-get install redis-server)"
    else:
        try:
            import redis  # noqa: F401
        except ImportError:
            reason = "the redis client is not installed (pip install redis)"
    if reason is not None:
        if required:
            pytest.fail(f"SIMHASH_REQUIRE_REDIS=1 but {reason}")
        pytest.skip(reason)
    return RedisServer(executable, directory, password).start()


@pytest.fixture(scope="session")
def redis_server():
    """A redis-server for the whole session (shared: tests use their own key prefixes)."""
    directory = Path(tempfile.mkdtemp(prefix="simhash-redis-"))
    server = start_or_skip(directory)
    yield server
    server.stop()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def redis_prefix(request) -> str:
    """A key prefix of this test's own (the test's name and a counter)."""
    name = re.sub(r"[^A-Za-z0-9_]+", "_", request.node.name)[:60]
    return f"t{next(_counter)}_{name}"


@pytest.fixture
def redis_url(redis_server, redis_prefix) -> str:
    """An index URI on the session's server, with this test's own prefix."""
    return f"{redis_server.url}?prefix={redis_prefix}"
