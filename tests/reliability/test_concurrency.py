"""Two processes on one SQLite index file, and the lock an idle crawl must not keep.

What is guaranteed when two crawls share ``sqlite:///file.db``: both complete, with no
"database is locked" error and no index error; the file passes ``PRAGMA integrity_check``;
each crawl is deduplicated within itself and against the other: check-and-add searches under
SQLite's write lock, after loading what the other committed, so every cluster is stored once.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.dedup import Deduplicator
from scrapy_simhash.crawl.settings import build_detector, load_config

from . import site
from .crawls import items, logs, start_crawl, stats


@pytest.fixture(scope="module")
def site_server():
    server = site.SiteServer(delay=0.02).start()
    yield server
    server.stop()


def test_two_crawls_share_one_sqlite_index(site_server, tmp_path):
    db = tmp_path / "shared.db"
    settings = {"SIMHASH_INDEX_URI": f"sqlite:///{db}"}
    crawls = [start_crawl(site_server.url, tmp_path / "out", settings) for _ in range(2)]
    assert [crawl.wait(timeout=120) for crawl in crawls] == [0, 0]
    text = logs(tmp_path / "out")
    assert "database is locked" not in text and "Traceback" not in text
    clusters = site.paths()
    for crawl in crawls:
        crawl_stats = stats(tmp_path / "out", crawl.pid)
        assert crawl_stats["finish_reason"] == "finished"
        assert "simhash/index/errors" not in crawl_stats
        kept = [clusters[i["url"][len(site_server.url):]]
                for i in items(tmp_path / "out", crawl.pid) if i["simhash"] is not None]
        assert len(kept) == len(set(kept)), "a crawl kept two pages of one cluster"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = [key for (key,) in conn.execute("SELECT key FROM simhash_pages")]
    per_cluster = Counter(clusters[key[len(site_server.url):]] for key in keys)
    assert set(per_cluster) == set(range(site.PAGE_COUNT))
    assert max(per_cluster.values()) == 1  # check-and-add runs under the write lock


def _deduplicator(uri: str) -> Deduplicator:
    crawler = get_crawler(Spider, {"SIMHASH_INDEX_URI": uri})
    config = load_config(crawler.settings)
    dedup = Deduplicator(crawler, config, build_detector(config), "pages")
    dedup.open()
    return dedup


def _can_write_now(db) -> bool:
    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError as error:
        assert "locked" in str(error)
        return False
    finally:
        conn.close()


def test_an_idle_crawl_releases_the_write_lock_at_each_periodic_flush(tmp_path):
    """A crawl that stored a page and then waits (slow site, throttling) would keep SQLite's
    write lock until its next page: the other process waits, then fails "database is locked".
    The Deduplicator flushes on a timer (every commit_interval) to release it."""
    db = tmp_path / "idle.db"
    dedup = _deduplicator(f"sqlite:///{db}")
    try:
        assert dedup._flusher is not None and dedup._flusher.running
        assert dedup._flusher.interval == dedup.index.commit_interval
        outcome = dedup.check("http://x/1", lambda: 12345 << 64 | 678)
        assert outcome.action == "kept"
        assert not _can_write_now(db)  # the transaction holding the new row is open
        dedup._flusher.f()  # what the timer calls (in the index's thread)
        dedup._call(lambda: None)  # that thread is done with it
        assert _can_write_now(db)
    finally:
        dedup.close()
    assert dedup._flusher is None
