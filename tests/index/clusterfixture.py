"""A real 3-node Redis Cluster on loopback: three ``redis-server --cluster-enabled yes`` on free
ports, joined by ``redis-cli --cluster create``. Skips with a reason without redis-server or
redis-cli, fails instead under ``SIMHASH_REQUIRE_REDIS=1`` (see tests/redisfixture.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from redisfixture import RedisServer, free_port, start_or_skip

NODES = 3


class ClusterNode(RedisServer):
    """One cluster-enabled node: its own directory and cluster config file."""

    def start(self, timeout: float = 10.0) -> ClusterNode:
        command = [
            self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", str(self.directory),
            # the bus port is the client port + 10000 unless given: it may be taken, or > 65535
            "--cluster-enabled", "yes", "--cluster-port", str(free_port()),
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000", "--protected-mode", "yes", "--loglevel", "warning",
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


class RedisClusterServers:
    """``NODES`` started and joined nodes; ``url`` names the first (any node will do)."""

    def __init__(self, directory: Path, executable: str) -> None:
        self.nodes = [
            ClusterNode(executable, directory / f"node{i}") for i in range(NODES)
        ]

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def start(self) -> RedisClusterServers:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli") or "/usr/bin/redis-cli"
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(self._state_ok(node) for node in self.nodes):
                return self
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    @staticmethod
    def _state_ok(node: ClusterNode) -> bool:
        info = node.client().execute_command("CLUSTER", "INFO")
        text = info.decode() if isinstance(info, bytes) else str(info)
        return "cluster_state:ok" in text

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def start_cluster_or_skip(directory: Path) -> RedisClusterServers:
    """A started cluster, or a skip (a failure under SIMHASH_REQUIRE_REDIS=1) with the reason."""
    probe = start_or_skip(directory / "probe")  # the skip / failure when redis is missing
    probe.stop()
    if shutil.which("redis-cli") is None and not Path("/usr/bin/redis-cli").is_file():
        if os.environ.get("SIMHASH_REQUIRE_REDIS") == "1":
            pytest.fail("SIMHASH_REQUIRE_REDIS=1 but redis-cli is not installed")
        pytest.skip("redis-cli is not installed (apt-get install redis-tools)")
    cluster = RedisClusterServers(directory, probe.executable)
    try:
        return cluster.start()
    except BaseException:
        cluster.stop()
        raise


@pytest.fixture(scope="session")
def redis_cluster():
    """A 3-node cluster for the session (tests use their own key prefixes)."""
    directory = Path(tempfile.mkdtemp(prefix="simhash-cluster-"))
    cluster = start_cluster_or_skip(directory)
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)


__all__ = ["NODES", "RedisClusterServers", "free_port", "redis_cluster", "start_cluster_or_skip"]
