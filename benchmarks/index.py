"""Pigeonhole index benchmark: build time, single and batched queries/s, bytes per fingerprint.

Rows: our memory and SQLite backends, the PyPI ``simhash`` package's SimhashIndex (the widely used
Python peer) and a numpy brute-force popcount scan, all measured in this run on the same random
64-bit fingerprints and queries (k = 3; half the queries are stored fingerprints with 1-3 bits
flipped, half random). Query rates are medians over ``--repeats`` runs. Bytes per fingerprint:
numpy ``nbytes`` for the memory backend (keys aside, then with ~28-byte URL keys), the file size
for SQLite (keys aside = minus the keys' text), tracemalloc for the peer (its entries embed the
keys)
(up to ``--trace-max``; above it a getsizeof walk of its dict of sets, as tracemalloc slows
its pure-Python build about fourfold).

Then the crawl's default, 128 bits within distance 16 (``--default-sizes``): the auto layout
(multi-index hashing, 6 tables probed at radius 1-2) on memory and SQLite beside the 17-table
exact-match layout and a numpy brute-force scan, all on the same fingerprints and queries; a
layout table (tables vs candidates per query vs memory, k = 3 and larger k, with the MIH rows)
and a hot bucket figure (a query whose block value is shared by ``--hot`` stored fingerprints).
The (128, 16) table also gives the memory backend's process memory per stored page, keys
included (``--keys short``: ~28-character URLs; ``--keys urls``: ~85, as a crawl's): the growth
of the resident set over its build, divided by the size.

    python benchmarks/index.py --sizes 100000,1000000,10000000 --repeats 3
    python benchmarks/index.py --sizes 0 --layout-size 0 --hot 0 \
        --default-sizes 1000000,10000000 --default-sqlite-max 10000000  # only (128, 16)
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_simhash.index import MemoryIndex, SqliteIndex
from scrapy_simhash.index.memory import popcount

K = 3


def key_of(i: int) -> str:
    return f"https://site.example/p/{i}"


_SLUG_WORDS = ("news", "world", "politics", "election", "market", "report", "city", "council",
               "storm", "sport", "final", "team", "season", "health", "study", "school")


def url_key_of(i: int) -> str:
    """A crawled article's URL (~85 characters): one of 50 hosts, a date, a slug of 3-8 words."""
    h = (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    slug = "-".join(_SLUG_WORDS[(h >> (4 * n)) & 15] for n in range(3 + (h >> 58) % 6))
    return (f"https://www.site{h % 50}.example/{2015 + (h >> 24) % 11}/{(h >> 32) % 12 + 1:02d}/"
            f"{(h >> 40) % 28 + 1:02d}/{slug}-{i}.html")


KEY_SHAPES = {"short": key_of, "urls": url_key_of}


def make_queries(rng: np.random.Generator, stored: np.ndarray, count: int, bits: int = 64):
    planted = stored[rng.integers(0, stored.size, count // 2)].copy()
    for row in range(planted.size):
        for position in rng.choice(bits, int(rng.integers(1, K + 1)), replace=False):
            planted[row] ^= np.uint64(1) << np.uint64(position)
    randoms = rng.integers(0, 2**64, count - planted.size, dtype=np.uint64)
    return np.concatenate([planted, randoms]).tolist()


def rss_bytes() -> int:
    """This process's resident set size (Linux; elsewhere 0, and the RSS column reads 0)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def rate(fn: Callable[[], object], count: int, repeats: int) -> float:
    """Median items per second over ``repeats`` timed runs of ``fn``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return count / statistics.median(times)


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def bench_memory(fps: list[int], queries: list[int], repeats: int) -> dict:
    index = MemoryIndex(max_distance=K)
    build, _ = timed(lambda: index.add_many((key_of(i), fp) for i, fp in enumerate(fps)))
    single = rate(lambda: [index.query(q) for q in queries], len(queries), repeats)
    batched = rate(lambda: index.query_many(queries), len(queries), repeats)
    row = dict(build=build, single=single, batched=batched, bytes=index.nbytes() / len(fps),
               bytes_keys=index.nbytes(include_keys=True) / len(fps), index=index)
    return row


def bench_sqlite(fps: list[int], queries: list[int], repeats: int, folder: str) -> list[dict]:
    path = os.path.join(folder, f"bench-{len(fps)}.db")
    index = SqliteIndex(path, max_distance=K, commit_every=10_000)

    def build() -> None:
        index.add_many((key_of(i), fp) for i, fp in enumerate(fps))
        index.flush()

    seconds, _ = timed(build)
    index._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    disk = index.file_bytes() / len(fps)
    key_text = sum(len(key_of(i)) for i in range(len(fps))) / len(fps)
    single = rate(lambda: [index.query(q) for q in queries], len(queries), repeats)
    batched = rate(lambda: index.query_many(queries), len(queries), repeats)
    index.close()
    reopen, index = timed(lambda: SqliteIndex(path, max_distance=K))
    index.close()
    sql = SqliteIndex(path, max_distance=K, cache=False)
    few = queries[: max(200, len(queries) // 4)]
    sql_single = rate(lambda: [sql.query(q) for q in few], len(few), repeats)
    sql.close()
    return [
        dict(name="sqlite (cache)", build=seconds, single=single, batched=batched,
             bytes=disk - key_text, bytes_keys=disk,
             note=f"on disk; keys aside = minus the key text; reopen {reopen:.1f}s"),
        dict(name="sqlite (cache=False)", build=None, single=sql_single, batched=None,
             bytes=disk - key_text, bytes_keys=disk, note="SQL over the expression indexes"),
    ]


def bench_peer(fps: list[int], queries: list[int], repeats: int, trace_max: int) -> dict:
    from simhash import Simhash, SimhashIndex

    def build() -> SimhashIndex:
        peer = SimhashIndex([], f=64, k=K)
        for i, fp in enumerate(fps):
            peer.add(key_of(i), Simhash(fp))
        return peer

    gc.collect()
    traced = len(fps) <= trace_max
    if traced:  # tracemalloc slows this pure-Python build ~4x: only at small sizes
        tracemalloc.start()
    seconds, peer = timed(build)
    if traced:
        used = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    else:
        used = _deep_size(peer.bucket)
    wrapped = [Simhash(q) for q in queries]
    single = rate(lambda: [peer.get_near_dups(q) for q in wrapped], len(queries), repeats)
    note = "tracemalloc (build traced)" if traced else "bytes by getsizeof walk, build untraced"
    return dict(build=seconds, single=single, batched=None, bytes=None,
                bytes_keys=used / len(fps), note=note)


def _deep_size(buckets: dict) -> int:
    """getsizeof of the peer's dict, its keys, sets and (shared) entry strings."""
    seen: set[int] = set()
    total = sys.getsizeof(buckets)
    for key, entries in buckets.items():
        total += sys.getsizeof(key) + sys.getsizeof(entries)
        for entry in entries:
            if id(entry) not in seen:
                seen.add(id(entry))
                total += sys.getsizeof(entry)
    return total


def bench_brute(fps: list[int], queries: list[int], repeats: int) -> dict:
    stored = np.array(fps, dtype=np.uint64)
    few = queries[: max(20, min(len(queries), 2 * 10**8 // max(1, len(fps))))]

    def scan() -> None:
        for q in few:
            np.flatnonzero(popcount(stored ^ np.uint64(q)) <= K)

    single = rate(scan, len(few), repeats)
    return dict(build=0.0, single=single, batched=None, bytes=stored.nbytes / len(fps))


def fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def print_main_table(rows: list[dict]) -> None:
    print("\n## Index backends (64-bit, k = 3)\n")
    print("| backend | size | build s | single q/s | batched q/s | bytes/fp | "
          "bytes/fp with keys | single vs SimhashIndex | note |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    peers = {r["size"]: r["single"] for r in rows if r["name"] == "simhash.SimhashIndex"}
    for r in rows:
        ratio = f"{r['single'] / peers[r['size']]:.1f}x" if r["size"] in peers else "-"
        print(f"| {r['name']} | {r['size']:,} | {fmt(r['build'], 1)} | {fmt(r['single'])} | "
              f"{fmt(r['batched'])} | {fmt(r['bytes'], 1)} | {fmt(r.get('bytes_keys'), 1)} | "
              f"{ratio} | {r.get('note', '')} |")


DEFAULT_BITS, DEFAULT_K = 128, 16


def default_queries(rng: np.random.Generator, words: np.ndarray, count: int) -> list[int]:
    """Half stored fingerprints with 1..16 bits flipped, half random (128-bit ints)."""
    picked = words[rng.integers(0, words.shape[0], count // 2)].copy()
    for row in range(picked.shape[0]):
        for position in rng.choice(DEFAULT_BITS, int(rng.integers(1, DEFAULT_K + 1)), False):
            picked[row, position // 64] ^= np.uint64(1) << np.uint64(position % 64)
    randoms = rng.integers(0, 2**64, (count - picked.shape[0], 2), dtype=np.uint64)
    return _ints(np.concatenate([picked, randoms]))


def default_table(sizes: list[int], repeats: int, count: int, sqlite_max: int,
                  folder: str, key_fn: Callable[[int], str] = key_of) -> None:
    """The crawl's default (128, 16): auto (MIH) vs the 17-table layout vs brute force."""
    length = statistics.mean(len(key_fn(n)) for n in range(1000))
    print(f"\n## The default: {DEFAULT_BITS} bits, k = {DEFAULT_K} (memory unless named; keys "
          f"like {key_fn(7)!r}, {length:.0f} characters on average)\n")
    print("| backend | layout | size | build s | single q/s | batched q/s | candidates/query | "
          "bytes/fp (keys aside) | RSS B/page (keys in) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(16)
    for size in sizes:
        words = rng.integers(0, 2**64, (size, 2), dtype=np.uint64)
        fps = _ints(words)
        queries = default_queries(rng, words, count)
        few = queries[: max(50, count // 10)]
        expected = None
        for name, tables in (("memory", None), ("memory", DEFAULT_K + 1)):
            gc.collect()
            before = rss_bytes()
            index = MemoryIndex(bits=DEFAULT_BITS, max_distance=DEFAULT_K, tables=tables)
            build, _ = timed(lambda i=index, f=fps: i.add_many((key_fn(n), fp) for n, fp in
                                                                 enumerate(f)))
            gc.collect()
            grown = rss_bytes() - before
            asked = queries if tables is None else few  # the 17 tables are ~100x slower
            single = rate(lambda i=index, qs=asked: [i.query(q) for q in qs], len(asked), repeats)
            batched = rate(lambda i=index, qs=asked: i.query_many(qs), len(asked), repeats)
            found = [len(m) for m in index.query_many(few)]
            if expected is None:
                expected = found
            elif found != expected:
                raise SystemExit(f"the layouts disagree at {size:,}")
            candidates = statistics.mean(index.engine.candidate_count(q) for q in few)
            print(f"| {name} | {index.layout.describe()} | {size:,} | {build:.1f} | "
                  f"{single:,.0f} | {batched:,.0f} | {candidates:,.0f} | "
                  f"{index.nbytes() / size:.0f} | {grown / size:.0f} |", flush=True)
            index.close()
            del index
            gc.collect()
        if size <= sqlite_max:
            _default_sqlite(size, fps, queries, few, repeats, folder)
        _default_brute(words, few, expected, repeats, size)
        del fps, words
        gc.collect()


def _default_sqlite(size: int, fps: list[int], queries: list[int], few: list[int],
                    repeats: int, folder: str) -> None:
    path = os.path.join(folder, f"default-{size}.db")
    options = dict(bits=DEFAULT_BITS, max_distance=DEFAULT_K)
    index = SqliteIndex(path, commit_every=10_000, **options)
    build, _ = timed(lambda: (index.add_many((key_of(n), fp) for n, fp in enumerate(fps)),
                              index.flush()))
    index._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    disk = index.file_bytes() - sum(len(key_of(n)) for n in range(size))
    single = rate(lambda: [index.query(q) for q in queries], len(queries), repeats)
    batched = rate(lambda: index.query_many(queries), len(queries), repeats)
    index.close()
    print(f"| sqlite (cache) | {index.layout.describe()} | {size:,} | {build:.1f} | "
          f"{single:,.0f} | {batched:,.0f} | - | {disk / size:.0f} on disk | - |", flush=True)
    sql = SqliteIndex(path, cache=False, **options)
    some = few[:50]
    sql_single = rate(lambda: [sql.query(q) for q in some], len(some), repeats)
    sql.close()
    print(f"| sqlite (cache=False) | IN lists over the expression indexes | {size:,} | - | "
          f"{sql_single:,.0f} | - | - | {disk / size:.0f} on disk | - |", flush=True)


def _default_brute(words: np.ndarray, few: list[int], expected: list[int] | None,
                   repeats: int, size: int) -> None:
    low, high = np.ascontiguousarray(words[:, 0]), np.ascontiguousarray(words[:, 1])
    some = few[: max(10, min(len(few), 10**8 // size))]

    def scan() -> list[int]:
        return [
            int(np.count_nonzero(
                popcount(low ^ np.uint64(q & (2**64 - 1))) + popcount(high ^ np.uint64(q >> 64))
                <= DEFAULT_K))
            for q in some
        ]

    if expected is not None and scan() != expected[: len(some)]:
        raise SystemExit(f"brute force disagrees with the index at {size:,}")
    single = rate(scan, len(some), repeats)
    print(f"| numpy brute force | popcount scan | {size:,} | 0.0 | {single:,.0f} | - | "
          f"{size:,} | 16 | - |", flush=True)


def layout_table(size: int, repeats: int, count: int) -> None:
    print(f"\n## Layouts (memory backend, {size:,} random fingerprints)\n")
    print("| bits | k | tables option | layout | candidates/query (expected) | measured | "
          "bytes/fp | single q/s | batched q/s |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(7)
    for bits, k, tables in [(64, 3, None), (64, 3, "manku"), (64, 6, None), (64, 6, 7),
                            (64, 6, "manku"), (64, 8, None), (128, 3, None), (128, 10, None),
                            (128, 10, 11), (128, 10, "manku"), (128, 16, None),
                            (128, 16, 17)]:
        words = rng.integers(0, 2**64, (size, bits // 64), dtype=np.uint64)
        index = MemoryIndex(bits=bits, max_distance=k, tables=tables)
        index.add_many((key_of(i), fp) for i, fp in enumerate(_ints(words)))
        index.compact()
        queries = _ints(rng.integers(0, 2**64, (count, bits // 64), dtype=np.uint64))
        if index.layout.expected_candidates(size) > 20_000:
            queries = queries[:100]  # the slow exact layouts at large k
        measured = statistics.mean(index.engine.candidate_count(q) for q in queries[:500])
        single = rate(lambda i=index, qs=queries: [i.query(q) for q in qs], len(queries), repeats)
        batched = rate(lambda i=index, qs=queries: i.query_many(qs), len(queries), repeats)
        print(f"| {bits} | {k} | {tables or 'auto'} | {index.layout.describe()} | "
              f"{index.layout.expected_candidates(size):,.1f} | {measured:,.1f} | "
              f"{index.nbytes() / size:.0f} | {single:,.0f} | {batched:,.0f} |")
        index.close()
        gc.collect()


def _ints(words: np.ndarray) -> list[int]:
    out = [int(v) for v in words[:, 0].tolist()]
    for w in range(1, words.shape[1]):
        out = [v | (int(h) << (64 * w)) for v, h in zip(out, words[:, w].tolist(), strict=True)]
    return out


def hot_bucket(background: int, hot: int, repeats: int, folder: str) -> None:
    print(f"\n## Hot bucket: {hot:,} fingerprints share one 16-bit block, "
          f"plus {background:,} random ones (k = 3)\n")
    rng = np.random.default_rng(11)
    normal = rng.integers(0, 2**64, background, dtype=np.uint64)
    hot_fps = rng.integers(0, 2**48, hot, dtype=np.uint64) << np.uint64(16)  # low block = 0
    fps = np.concatenate([normal, hot_fps]).tolist()
    into_hot = (rng.integers(0, 2**48, 200, dtype=np.uint64) << np.uint64(16)).tolist()
    elsewhere = rng.integers(0, 2**64, 200, dtype=np.uint64).tolist()
    print("| backend | query hitting the hot bucket (us) | ordinary query (us) | "
          "check_and_add of 1,000 more hot pages (us each) |")
    print("|---|---:|---:|---:|")
    memory = MemoryIndex(max_distance=K)
    memory.add_many((key_of(i), fp) for i, fp in enumerate(fps))
    sqlite_path = os.path.join(folder, "hot.db")
    disk = SqliteIndex(sqlite_path, max_distance=K, commit_every=10_000)
    disk.add_many((key_of(i), fp) for i, fp in enumerate(fps))
    disk.flush()
    for name, index in (("memory", memory), ("sqlite (cache)", disk)):
        hot_us = 1e6 / rate(lambda i=index: [i.query(q) for q in into_hot], 200, repeats)
        cold_us = 1e6 / rate(lambda i=index: [i.query(q) for q in elsewhere], 200, repeats)
        extra = (rng.integers(0, 2**48, 1000, dtype=np.uint64) << np.uint64(16)).tolist()
        seconds, _ = timed(
            lambda i=index, e=extra: [i.check_and_add(f"x{n}", fp) for n, fp in enumerate(e)]
        )
        print(f"| {name} | {hot_us:,.0f} | {cold_us:,.1f} | {seconds * 1e3:,.0f} |")
    memory.close()
    disk.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--peer-max", type=int, default=1_000_000,
                        help="largest size for SimhashIndex and SQLite")
    parser.add_argument("--trace-max", type=int, default=100_000,
                        help="largest size whose peer build runs under tracemalloc")
    parser.add_argument("--layout-size", type=int, default=1_000_000, help="0 skips the table")
    parser.add_argument("--hot", type=int, default=100_000, help="0 skips the hot bucket")
    parser.add_argument("--default-sizes", default="100000,1000000,10000000",
                        help="sizes of the (128, 16) table; empty skips it")
    parser.add_argument("--default-sqlite-max", type=int, default=1_000_000)
    parser.add_argument("--keys", choices=sorted(KEY_SHAPES), default="short",
                        help="the (128, 16) table's keys: short (~28 characters) or urls "
                        "(~85: 50 hosts, dated slugs)")
    parser.add_argument("--redis", type=int, default=0, metavar="SIZE",
                        help="also measure the Redis backend at SIZE stored fingerprints "
                        "(starts its own redis-server; see benchmarks/index_redis.py)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s and int(s)]
    rng = np.random.default_rng(2024)
    rows: list[dict] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="index-bench-") as folder:
        for size in sizes:
            stored = rng.integers(0, 2**64, size, dtype=np.uint64)
            fps = stored.tolist()
            queries = make_queries(rng, stored, args.queries)
            memory = bench_memory(fps, queries, args.repeats)
            reference = memory.pop("index")
            rows.append(dict(name="memory", size=size, **memory))
            check = reference.query_many(queries[:200])
            del reference
            gc.collect()
            if size <= args.peer_max:
                for row in bench_sqlite(fps, queries, args.repeats, folder):
                    rows.append(dict(size=size, **row))
                rows.append(dict(name="simhash.SimhashIndex", size=size,
                                 **bench_peer(fps, queries, args.repeats, args.trace_max)))
                gc.collect()
            rows.append(dict(name="numpy brute force", size=size,
                             **bench_brute(fps, queries, args.repeats)))
            _verify(stored, queries[:200], check)
            print(f"[{time.perf_counter() - started:,.0f}s] size {size:,} done", file=sys.stderr)
        if rows:
            print_main_table(rows)
        default_sizes = [int(s) for s in args.default_sizes.split(",") if s]
        if default_sizes:
            default_table(default_sizes, args.repeats, args.queries, args.default_sqlite_max,
                          folder, KEY_SHAPES[args.keys])
        if args.layout_size:
            layout_table(args.layout_size, args.repeats, min(args.queries, 1000))
        if args.hot:
            hot_bucket(min(max(sizes, default=10**6), 1_000_000), args.hot, args.repeats, folder)
    print(f"\n(total {time.perf_counter() - started:,.0f}s; goals at 1M, k = 3: memory >= 10x "
          "SimhashIndex single, >= 100,000 batched q/s, <= 48 B/fp keys aside; SQLite >= 10,000 "
          "q/s, <= 80 B/fp on disk; at 1M, (128, 16): memory >= 5,000 single and >= 20,000 "
          "batched q/s, <= 100 B/fp; at 10M, (128, 16): memory >= 10,000 single q/s at <= 150 "
          "B/page RSS keys included, SQLite (cache) >= 5,000 q/s)")
    if args.redis:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from index_redis import run as run_redis

        print()
        run_redis(size=args.redis, clients=4, repeats=args.repeats)


def _verify(stored: np.ndarray, queries: list[int], found: list) -> None:
    """The memory backend's answers equal the brute-force scan's (exactness, not speed)."""
    for q, matches in zip(queries, found, strict=True):
        expected = int((popcount(stored ^ np.uint64(q)) <= K).sum())
        if expected != len(matches):
            raise SystemExit(f"memory backend disagrees with brute force for query {q}")


if __name__ == "__main__":
    main()
