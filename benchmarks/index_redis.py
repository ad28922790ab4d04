"""Redis index benchmark: check-and-add/s from one and several clients, bytes per fingerprint.

Starts its own ``redis-server`` on a free loopback port (or uses ``--url``), loads ``--size``
random fingerprints at the library's defaults (128 bits, k = 16; keys are ~26-byte URLs) with
batched ``add_many``, then times ``check_and_add`` from one client (half the calls
near-duplicates of stored pages with 1-16 bits flipped, half new pages, which are stored) and
from ``--clients`` processes at once (aggregate rate: all calls / wall time from the common
start; each process opens the index, and so loads its mirror, before the start). Rates are
medians over ``--repeats`` runs.

The client's CPU (``time.process_time``) and the server's (``INFO cpu``) per single-client call
are printed too: unlike the rates, they hardly depend on what else the machine runs.

Bytes per fingerprint: ``INFO memory`` used_memory growth over the load divided by the count,
``MEMORY USAGE`` of the index's keys with the keys hash (the URLs) left out, and the client's
in-memory mirror (``FingerprintTables.nbytes``, where the code under test has one).

``--source DIR`` imports ``scrapy_simhash`` from another checkout (e.g. the main branch's, for
the before row); ``--bits 64 --k 3`` measures the narrow fingerprints instead.

The peer, on the same server in the same run: datasketch's ``MinHashLSH`` with its Redis storage
(the only Python near-duplicate library with a shared Redis index), used the way a crawler must
use it: ``query`` then ``insert`` (two calls, not atomic), 64 permutations, threshold 0.8, at
``--peer-size`` entries (its bulk load is slow; its bytes/entry are measured the same way).

    python benchmarks/index_redis.py --size 1000000 --clients 4 --repeats 3

``run(size=..., clients=..., ...)`` returns the rows and prints the table, so
``benchmarks/index.py`` can call it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

PREFIX = "bench"
SCHEME = "affine32"  # datasketch 2.x: the scheme of 32-bit hash values
ROOT = Path(__file__).resolve().parents[1]


def _use_source(source: Path) -> None:
    """Import ``scrapy_simhash`` from ``source`` (the clients it spawns inherit ``sys.path``)."""
    sys.path.insert(0, str(source))


def key_of(i: int) -> str:
    return f"https://site.example/p/{i}"


def random_fingerprints(rng: np.random.Generator, count: int, bits: int) -> list[int]:
    words = rng.integers(0, 2**64, (count, bits // 64), dtype=np.uint64).tolist()
    return [sum(word << (64 * w) for w, word in enumerate(row)) for row in words]


def check_workload(rng: np.random.Generator, stored: list[int], count: int, bits: int,
                   k: int) -> list[int]:
    """Half near-duplicates of stored fingerprints (1..k bits flipped), half new random ones."""
    planted = []
    for i in rng.integers(0, len(stored), count // 2).tolist():
        fp = stored[i]
        for position in rng.choice(bits, int(rng.integers(1, k + 1)), replace=False).tolist():
            fp ^= 1 << position
        planted.append(fp)
    mixed = planted + random_fingerprints(rng, count - len(planted), bits)
    rng.shuffle(mixed)
    return mixed


# -- a private redis-server ---------------------------------------------------------------------


def start_server(folder: str) -> tuple[subprocess.Popen, str]:
    executable = shutil.which("redis-server") or "/usr/bin/redis-server"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", folder, "--loglevel", "warning"],
        stdout=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    for _ in range(500):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.02)
    client.close()
    return process, f"redis://127.0.0.1:{port}/0"


def redis_cpu(client) -> float:
    """Seconds of CPU the server has used (user + system)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def used_memory(client) -> int:
    return int(client.info("memory")["used_memory"])


def mirror_bytes(index) -> int | None:
    """Bytes of the index's in-process mirror, where the code under test keeps one."""
    mirror = getattr(index, "_mirror", None)
    return None if mirror is None else int(mirror.engine.nbytes())


# -- our index ----------------------------------------------------------------------------------


def _open(url: str, bits: int, k: int):
    from scrapy_simhash.index import open_index

    return open_index(url, bits=bits, max_distance=k, batch_size=1000)


def _client_worker(url: str, bits: int, k: int, fps: list[int], offset: int, barrier,
                   results) -> None:
    index = _open(url, bits, k)
    barrier.wait()
    start = time.perf_counter()
    for i, fp in enumerate(fps):
        index.check_and_add(key_of(offset + i), fp)
    results.put((start, time.perf_counter()))
    index.close()


def parallel_rate(url: str, bits: int, k: int, workloads: list[list[int]], offset: int) -> float:
    """Aggregate check_and_add/s of one process per workload, started together."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(workloads))
    results = context.Queue()
    processes = [
        context.Process(target=_client_worker,
                        args=(url, bits, k, work, offset + n * len(work), barrier, results))
        for n, work in enumerate(workloads)
    ]
    for process in processes:
        process.start()
    spans = [results.get(timeout=1800) for _ in processes]
    for process in processes:
        process.join()
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    return sum(len(w) for w in workloads) / wall


def bench_ours(url: str, size: int, calls: int, clients: int, repeats: int, bits: int, k: int,
               rng: np.random.Generator) -> dict:
    import redis

    uri = f"{url}?prefix={PREFIX}"
    admin = redis.Redis.from_url(url)
    index = _open(uri, bits, k)
    index.drop()
    index.close()
    before = used_memory(admin)
    index = _open(uri, bits, k)
    stored = random_fingerprints(rng, size, bits)
    start = time.perf_counter()
    index.add_many((key_of(i), fp) for i, fp in enumerate(stored))
    load = time.perf_counter() - start
    grown = used_memory(admin) - before
    usage = index.memory_usage()
    keys_hash = int(admin.memory_usage(f"{{{PREFIX}:pages}}:keys", samples=0) or 0)
    start = time.perf_counter()
    reopened = _open(uri, bits, k)  # a second client opening the loaded index
    opened = time.perf_counter() - start
    mirror = mirror_bytes(reopened)
    reopened.close()
    next_key = size
    single, multi, queries, client_cpu, server_cpu = [], [], [], [], []
    for repeat in range(repeats):
        work = check_workload(rng, stored, calls, bits, k)
        server_before = redis_cpu(admin)
        cpu_before = time.process_time()
        start = time.perf_counter()
        for i, fp in enumerate(work):
            index.check_and_add(key_of(next_key + i), fp)
        single.append(calls / (time.perf_counter() - start))
        client_cpu.append((time.process_time() - cpu_before) / calls * 1e6)
        server_cpu.append((redis_cpu(admin) - server_before) / calls * 1e6)
        next_key += calls
        start = time.perf_counter()
        for fp in work[: calls // 4]:
            index.query(fp)
        queries.append(calls // 4 / (time.perf_counter() - start))
        if clients:
            workloads = [check_workload(rng, stored, calls, bits, k) for _ in range(clients)]
            multi.append(parallel_rate(uri, bits, k, workloads, next_key))
            next_key += calls * clients
        print(f"  run {repeat + 1}: 1 client {single[-1]:,.0f}/s"
              + (f", {clients} clients {multi[-1]:,.0f}/s" if clients else ""), file=sys.stderr)
    row = dict(
        name=f"scrapy_simhash RedisIndex ({bits}-bit, k = {k})", size=size, load=size / load,
        single=statistics.median(single), multi=statistics.median(multi) if multi else None,
        query=statistics.median(queries), opened=opened,
        client_us=statistics.median(client_cpu), server_us=statistics.median(server_cpu),
        bytes_info=grown / size, bytes_keys_aside=(usage - keys_hash) / size,
        bytes_mirror=None if mirror is None else mirror / size,
    )
    index.drop()
    index.close()
    admin.close()
    return row


# -- the peer: datasketch MinHashLSH on Redis ---------------------------------------------------


def _peer_lsh(port: int, num_perm: int):
    from datasketch import MinHashLSH

    return MinHashLSH(
        threshold=0.8, num_perm=num_perm,
        storage_config={"type": "redis", "basename": b"peer",
                        "redis": {"host": "127.0.0.1", "port": port}},
    )


def _peer_signatures(rng: np.random.Generator, count: int, num_perm: int):
    from datasketch import LeanMinHash

    values = rng.integers(0, 2**32 - 1, (count, num_perm), dtype=np.uint64)
    return [LeanMinHash(seed=1, hashvalues=row, scheme=SCHEME) for row in values]


def bench_peer(url: str, size: int, calls: int, repeats: int, rng: np.random.Generator,
               num_perm: int = 64) -> dict:
    import redis

    port = int(url.rsplit(":", 1)[1].split("/")[0])
    admin = redis.Redis.from_url(url)
    before = used_memory(admin)
    lsh = _peer_lsh(port, num_perm)
    signatures = _peer_signatures(rng, size, num_perm)
    start = time.perf_counter()
    with lsh.insertion_session(buffer_size=5000) as session:
        for i, sig in enumerate(signatures):
            session.insert(key_of(i), sig, check_duplication=False)
    load = time.perf_counter() - start
    grown = used_memory(admin) - before
    single, next_key = [], size
    for _ in range(repeats):
        fresh = _peer_signatures(rng, calls // 2, num_perm)
        near = []
        for sig in (signatures[int(i)] for i in rng.integers(0, size, calls - len(fresh))):
            values = sig.hashvalues.copy()
            values[: num_perm // 20] = rng.integers(0, 2**32 - 1, num_perm // 20)
            near.append(type(sig)(seed=1, hashvalues=values, scheme=SCHEME))
        work = fresh + near
        start = time.perf_counter()
        for i, sig in enumerate(work):
            if not lsh.query(sig):  # two round trips, and a race between them
                lsh.insert(key_of(next_key + i), sig, check_duplication=False)
        single.append(len(work) / (time.perf_counter() - start))
        next_key += len(work)
    admin.flushdb()  # the benchmark's own private server
    admin.close()
    return dict(name=f"datasketch MinHashLSH redis ({num_perm} perm)", size=size,
                load=size / load, single=statistics.median(single), multi=None, query=None,
                opened=None, bytes_info=grown / size, bytes_keys_aside=None, bytes_mirror=None,
                client_us=None, server_us=None)


# -- output -------------------------------------------------------------------------------------


def fmt(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def print_table(rows: list[dict], clients: int) -> None:
    print("\n## Redis backend (redis-server on loopback, same run)\n")
    print(f"| backend | stored | load fp/s | check_and_add/s 1 client | "
          f"check_and_add/s {clients} clients | query/s | open s | bytes/fp in Redis (INFO) | "
          "bytes/fp in Redis, keys aside | bytes/fp mirror per client |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['name']} | {r['size']:,} | {fmt(r['load'])} | {fmt(r['single'])} | "
              f"{fmt(r['multi'])} | {fmt(r['query'])} | {fmt(r['opened'], 1)} | "
              f"{fmt(r['bytes_info'], 1)} | {fmt(r['bytes_keys_aside'], 1)} | "
              f"{fmt(r['bytes_mirror'], 1)} |")
    ours = rows[0]
    bound = 1e6 / (ours["client_us"] + ours["server_us"])
    print(f"\nOne client's check_and_add costs {ours['client_us']:.0f} us of client CPU and "
          f"{ours['server_us']:.0f} us of Redis CPU (medians; Redis CPU includes its network "
          f"work): without waiting for a CPU, one client runs at most ~{bound:,.0f} calls/s, and "
          f"one Redis node serves at most ~{1e6 / ours['server_us']:,.0f} calls/s for all "
          "clients of one index together.")
    print(f"\nPages per GB of Redis memory (INFO): {2**30 / ours['bytes_info']:,.0f}. "
          "Goal: >= 5,000 check_and_add/s from one client.")


def run(size: int = 1_000_000, clients: int = 4, calls: int = 3000, repeats: int = 3,
        peer_size: int = 100_000, url: str | None = None, bits: int = 128,
        k: int = 16) -> list[dict]:
    """Measure, print the table, return the rows (``url=None`` starts a private redis-server)."""
    rng = np.random.default_rng(2024)
    with tempfile.TemporaryDirectory(prefix="redis-bench-") as folder:
        process = None
        if url is None:
            process, url = start_server(folder)
        try:
            started = time.perf_counter()
            rows = [bench_ours(url, size, calls, clients, repeats, bits, k, rng)]
            print(f"[{time.perf_counter() - started:,.0f}s] RedisIndex done", file=sys.stderr)
            if peer_size:
                if process is None:
                    print("(peer skipped: it needs a private server, run without --url)",
                          file=sys.stderr)
                else:
                    rows.append(bench_peer(url, peer_size, min(calls, 2000), repeats, rng))
            print_table(rows, clients)
            print(f"\n(total {time.perf_counter() - started:,.0f}s)")
            return rows
        finally:
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=4, help="0 to skip the parallel runs")
    parser.add_argument("--calls", type=int, default=3000, help="check_and_add calls per client")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bits", type=int, default=128)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--peer-size", type=int, default=100_000, help="0 to skip the peer")
    parser.add_argument("--url", default=None, help="an existing server (its db is not flushed)")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the checkout to import scrapy_simhash from (default: this one)")
    args = parser.parse_args(argv)
    _use_source(args.source.resolve())
    run(args.size, args.clients, args.calls, args.repeats, args.peer_size, args.url,
        args.bits, args.k)


if __name__ == "__main__":
    main()
