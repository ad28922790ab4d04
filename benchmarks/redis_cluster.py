"""Redis Cluster benchmark: check-and-adds/s of one index spread over 1, 2 and 3 nodes.

For each cluster size it starts its own cluster on loopback (``redis-server --cluster-enabled
yes``, the 16,384 slots split evenly with ``CLUSTER ADDSLOTSRANGE``, joined with ``CLUSTER
MEET``), loads ``--size`` random fingerprints (the library's defaults: 128 bits, k = 16), then
times ``check_and_add`` from 1, 2 and 4 client processes started together (aggregate rate: all
calls / wall time from the common start; medians over ``--repeats`` runs). Each client's calls
are half near-duplicates of loaded pages (1-16 bits flipped), half new pages, plus
``--clusters`` tight clusters whose members every client checks at the same moment.

Two backends on the same cluster: ``RedisClusterIndex`` (``redis+cluster://``, one table per
hash tag, spread over the nodes) and the single-slot ``RedisIndex`` (all keys under one hash
tag, so on one node; it is given a plain client of that node, its fastest path).

CPU: the clients' (``time.process_time``, summed) and the servers' (``INFO cpu``, summed over
the nodes) per call, and the busiest node's per call: Redis runs scripts on one thread, so
1 / (busiest node's CPU per call) is the rate no number of clients can pass (the "ceiling").
On a machine with few cores the client processes and the servers compete for them, so rates
there say less than the CPU columns.

Exactness, checked in every run: exactly one member of each tight cluster kept over all the
clients, and ``--verify`` queries against brute force over every stored page afterwards.

    python benchmarks/redis_cluster.py --size 20000 --calls 500 --repeats 3 --clusters 40
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis

from scrapy_simhash.index import open_index

BITS, K = 128, 16
NAMESPACE = "pages"
SLOTS = 16384


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """``size`` cluster-enabled redis-servers owning even slot ranges."""

    def __init__(self, size: int, folder: Path) -> None:
        self.size = size
        self.folder = folder
        self.ports = [free_port() for _ in range(size)]
        self.bus_ports = [free_port() for _ in range(size)]  # not port + 10000: may be taken
        self.processes: list[subprocess.Popen] = []

    def start(self) -> Cluster:
        executable = shutil.which("redis-server") or "/usr/bin/redis-server"
        for i, port in enumerate(self.ports):
            directory = self.folder / f"node{i}"
            directory.mkdir(parents=True)
            self.processes.append(subprocess.Popen(
                [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(directory), "--cluster-enabled", "yes",
                 "--cluster-port", str(self.bus_ports[i]), "--cluster-config-file", "nodes.conf",
                 "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
        clients = [self._wait(port) for port in self.ports]
        for i, client in enumerate(clients):
            low, high = i * SLOTS // self.size, (i + 1) * SLOTS // self.size - 1
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", low, high)
        for port, bus_port in zip(self.ports[1:], self.bus_ports[1:], strict=True):
            clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port, bus_port)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            infos = [c.execute_command("CLUSTER", "INFO").decode() for c in clients]
            if all("cluster_state:ok" in info and f"cluster_known_nodes:{self.size}" in info
                   for info in infos):
                return self
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    @staticmethod
    def _wait(port: int) -> redis.Redis:
        client = redis.Redis(port=port)
        for _ in range(200):
            try:
                client.ping()
                return client
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on {port} did not start")

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def node_of(self, key: str) -> int:
        """The port of the node owning ``key``'s slot."""
        slot = redis.Redis(port=self.ports[0]).execute_command("CLUSTER", "KEYSLOT", key)
        return self.ports[int(slot) * self.size // SLOTS]

    def server_cpu(self) -> list[float]:
        """Each node's CPU seconds so far."""
        infos = [redis.Redis(port=port).info("cpu") for port in self.ports]
        return [info["used_cpu_sys"] + info["used_cpu_user"] for info in infos]

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(timeout=10)


def flip(rng: random.Random, fp: int, count: int) -> int:
    for position in rng.sample(range(BITS), count):
        fp ^= 1 << position
    return fp


def tight_clusters(seed: int, count: int, members: int = 3) -> list[list[int]]:
    """Clusters of fingerprints pairwise within K (each at most K/2 from its centre)."""
    rng = random.Random(f"clusters-{seed}")  # not the clients' streams: no page twice
    out = []
    for _ in range(count):
        center = rng.getrandbits(BITS)
        others = [flip(rng, center, rng.randint(1, K // 2)) for _ in range(members - 1)]
        out.append([center, *others])
    return out


def _client(uri: str, worker: int, seed: int, loaded: Sequence[int], calls: int,
            clusters: list[list[int]], barrier, results) -> None:
    rng = random.Random(seed * 1000 + worker)
    work: list[tuple[str, int]] = []
    for i in range(calls):
        if i % 2:
            work.append((f"w{worker}/{i}", flip(rng, rng.choice(loaded), rng.randint(1, K))))
        else:
            work.append((f"w{worker}/{i}", rng.getrandbits(BITS)))
    # the tight clusters are interleaved at the same positions in every client: races
    step = max(1, len(work) // max(1, len(clusters)))
    for c, members in enumerate(clusters):
        member = members[(c + worker) % len(members)]
        work.insert(min(len(work), c * step), (f"c{c}/w{worker}", member))
    index = open_index(uri, namespace=NAMESPACE)
    barrier.wait()
    start_cpu, start = time.process_time(), time.perf_counter()
    kept = [(key, fp) for key, fp in work if index.check_and_add(key, fp) is None]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    index.close()
    results.put((len(work), elapsed, cpu, kept))


def measure(cluster: Cluster, uri: str, clients: int, seed: int, loaded: list[tuple[str, int]],
            calls: int, cluster_count: int, verify: int) -> dict:
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(clients + 1), context.Queue()
    clusters = tight_clusters(seed, cluster_count)
    fps = [fp for _, fp in loaded]
    workers = [context.Process(target=_client, args=(
        uri, w, seed, fps, calls, clusters, barrier, results)) for w in range(clients)]
    for worker in workers:
        worker.start()
    server_cpu = cluster.server_cpu()
    start = time.perf_counter()
    barrier.wait()
    outcomes = [results.get(timeout=900) for _ in workers]
    wall = time.perf_counter() - start
    for worker in workers:
        worker.join(timeout=30)
    per_node = [after - before for after, before in zip(cluster.server_cpu(), server_cpu,
                                                          strict=True)]
    total = sum(o[0] for o in outcomes)
    kept = [pair for o in outcomes for pair in o[3]]
    kept_clusters = sorted(int(key[1:].split("/")[0]) for key, _ in kept if key.startswith("c"))
    one_per_cluster = kept_clusters == list(range(cluster_count))
    exact = _brute_force_agrees(uri, [*loaded, *kept], verify, seed)
    return {
        "rate": total / wall,
        "client_us": 1e6 * sum(o[2] for o in outcomes) / total,
        "server_us": 1e6 * sum(per_node) / total,
        "busiest_us": 1e6 * max(per_node) / total,
        "one_per_cluster": one_per_cluster,
        "exact": exact,
    }


def _brute_force_agrees(uri: str, stored: list[tuple[str, int]], queries: int, seed: int) -> bool:
    rng = random.Random(f"verify-{seed}")
    with open_index(uri, namespace=NAMESPACE) as index:
        if len(index) != len(stored):
            return False
        for _ in range(queries):
            query = flip(rng, rng.choice(stored)[1], rng.randint(0, K + 2))
            expected = sorted(((query ^ fp).bit_count(), key) for key, fp in stored
                              if (query ^ fp).bit_count() <= K)
            found = [(m.distance, m.key) for m in index.query(query)]
            if sorted(found) != expected:
                return False
    return True


def run(sizes: Sequence[int], clients: Sequence[int], size: int, calls: int, repeats: int,
        cluster_count: int, verify: int) -> list[dict]:
    rows = []
    rng = random.Random(7)
    loaded = [(f"https://site.example/p/{i}", rng.getrandbits(BITS)) for i in range(size)]
    for nodes in sizes:
        with tempfile.TemporaryDirectory(prefix="simhash-bench-cluster-") as folder:
            cluster = Cluster(nodes, Path(folder))
            try:
                cluster.start()
                for backend in ("cluster", "single-slot"):
                    for count in clients:
                        runs = []
                        for repeat in range(repeats):
                            prefix = f"b{backend[0]}{count}r{repeat}"
                            uri = _uri(cluster, backend, prefix)
                            with open_index(uri, namespace=NAMESPACE) as index:
                                index.add_many(loaded)
                            runs.append(measure(cluster, uri, count, repeat, loaded, calls,
                                                cluster_count, verify))
                            with open_index(uri, namespace=NAMESPACE) as index:
                                index.drop()
                        row = {
                            "nodes": nodes, "backend": backend, "clients": count,
                            "rate": statistics.median(r["rate"] for r in runs),
                            "client_us": statistics.median(r["client_us"] for r in runs),
                            "server_us": statistics.median(r["server_us"] for r in runs),
                            "busiest_us": statistics.median(r["busiest_us"] for r in runs),
                            "exact": all(r["one_per_cluster"] and r["exact"] for r in runs),
                        }
                        rows.append(row)
                        _print_row(row)
            finally:
                cluster.stop()
    return rows


def _uri(cluster: Cluster, backend: str, prefix: str) -> str:
    if backend == "cluster":
        return f"{cluster.url}?prefix={prefix}"
    port = cluster.node_of(f"{{{prefix}:{NAMESPACE}}}")
    return f"redis://127.0.0.1:{port}/0?prefix={prefix}"


def _print_row(row: dict) -> None:
    print(f"| {row['nodes']} | {row['backend']} | {row['clients']} | {row['rate']:,.0f} | "
          f"{row['client_us']:,.0f} | {row['server_us']:,.0f} | {row['busiest_us']:,.0f} | "
          f"{1e6 / row['busiest_us']:,.0f} | "
          f"{'yes' if row['exact'] else 'NO'} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--calls", type=int, default=600, help="check_and_adds per client")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clusters", type=int, default=40, help="tight clusters per run")
    parser.add_argument("--verify", type=int, default=50, help="brute-force queries per run")
    args = parser.parse_args()
    print(f"{args.size:,} loaded fingerprints, {BITS} bits, k = {K}; {args.calls} calls per "
          f"client (+{args.clusters} racing cluster members); medians of {args.repeats}")
    print("| nodes | backend | clients | check_and_add/s | client CPU us/call | "
          "server CPU us/call (all nodes) | busiest node us/call | its ceiling/s | exact |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|", flush=True)
    run(args.nodes, args.clients, args.size, args.calls, args.repeats, args.clusters, args.verify)


if __name__ == "__main__":
    main()
