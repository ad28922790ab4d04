"""Crash safety of the SQLite index: SIGKILL at random moments, then reopen and check.

Guarantee (SqliteIndex defaults, scrapy_simhash.crawl.dedup): a fingerprint is durable once its
transaction commits, which happens after ``commit_every`` (1000) adds, ``commit_interval``
(1 s) after the transaction began (checked on each call), on ``flush()``/``close()``, and in a
crawl at least every second through the Deduplicator's periodic flush. A kill loses at most the
uncommitted tail; committed rows are a prefix of the insertion order and the file always reopens.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scrapy_simhash.index import open_index

from . import site
from .conftest import long_run
from .crash_writer import BITS, K, fingerprint_of
from .crawls import items, start_crawl, wait_for_requests

WRITER = Path(__file__).with_name("crash_writer.py")
REPO = Path(__file__).resolve().parents[2]
INDEX_KILLS = 300 if long_run() else 15
CRAWL_KILLS = 30 if long_run() else 3


def _integrity(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def _run_writer_and_kill(path: Path, rng: random.Random) -> int:
    """Start a writer, SIGKILL it after a random number of flushes plus a random delay; return
    the largest N it reported as flushed (durable)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    writer = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), str(rng.randrange(1 << 30))],
        stdout=subprocess.PIPE, text=True, env=env,
    )
    flushes = rng.randint(1, 40)
    durable = 0
    try:
        for line in writer.stdout:
            word, number = line.split()
            if word == "flushed":
                durable = int(number)
                flushes -= 1
                if flushes == 0:
                    break
        time.sleep(rng.random() * 0.02)
    finally:
        writer.send_signal(signal.SIGKILL)
        rest, _ = writer.communicate(timeout=30)
    # lines printed before the kill landed; the first may be the end of a line the loop above
    # had buffered ("\n", "3\n"): only whole reports count
    for line in rest.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "flushed" and parts[1].isdigit():
            durable = int(parts[1])
    assert writer.returncode == -signal.SIGKILL, "the writer died before it was killed"
    return durable


def test_sigkill_loop_keeps_every_committed_fingerprint(tmp_path):
    rng = random.Random(20240611)
    path = tmp_path / "crash.db"
    previous = 0
    for kill in range(INDEX_KILLS):
        durable = _run_writer_and_kill(path, rng)
        assert _integrity(path) == "ok"
        with sqlite3.connect(path) as conn:
            keys = [key for (key,) in conn.execute("SELECT key FROM simhash_pages ORDER BY id")]
        # committed rows form a prefix of the insertion order: no holes, nothing twice
        assert keys == [f"k{n}" for n in range(len(keys))], f"kill {kill}: rows out of order"
        assert len(keys) >= max(durable, previous), f"kill {kill}: lost committed rows"
        previous = len(keys)
        with open_index(f"sqlite:///{path}", bits=BITS, max_distance=K) as index:
            assert len(index) == len(keys)
            probe = len(keys) - 1
            assert [m.key for m in index.query(fingerprint_of(probe))] == [f"k{probe}"]
    assert previous > INDEX_KILLS  # the writers made progress between kills


@pytest.fixture(scope="module")
def site_server():
    server = site.SiteServer(delay=0.1).start()  # ~40 pages/s at 4 concurrent requests
    yield server
    server.stop()


def test_sigkilled_crawls_resume_and_store_each_page_once(site_server, tmp_path):
    """Crawls on one SQLite index killed at random moments, then one run to the end: the file
    always reopens, and in the end each cluster of near-duplicates is stored exactly once."""
    rng = random.Random(7)
    db = tmp_path / "crawl.db"
    settings = {"SIMHASH_INDEX_URI": f"sqlite:///{db}"}
    clusters = {path: cluster for path, cluster in site.paths().items()}
    for kill in range(CRAWL_KILLS):
        before = site_server.requests
        started = time.monotonic()
        crawl = start_crawl(site_server.url, tmp_path / f"run{kill}", settings)
        # after 0.5 to 3 s of crawling: before, between and after the periodic commits
        wait_for_requests(site_server, before + rng.randint(20, site.PAGE_COUNT), crawl)
        if kill == 0:  # the first run outlives one periodic commit, whatever the machine's load
            time.sleep(max(0.0, started + 2.5 - time.monotonic()))
        crawl.send_signal(signal.SIGKILL)
        crawl.wait(timeout=30)
        if db.exists():
            assert _integrity(db) == "ok"
    final = start_crawl(site_server.url, tmp_path / "final", settings)
    assert final.wait(timeout=120) == 0
    assert _integrity(db) == "ok"
    with sqlite3.connect(db) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM simhash_pages")]
    stored = [clusters[key[len(site_server.url):]] for key in keys]
    assert sorted(stored) == list(range(site.PAGE_COUNT)), "a cluster stored twice or never"
    # the killed runs committed pages (each run commits at least every second), which the
    # final run then dropped instead of storing them again (all of them, if a killed run had
    # committed the whole site)
    final_pages = [item for item in items(tmp_path / "final") if item["simhash"] is not None]
    assert len(final_pages) < site.PAGE_COUNT
