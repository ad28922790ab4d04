"""Pausing and resuming a crawl with Scrapy's JOBDIR on a persistent SQLite index.

The request queue and the seen-request filter live in JOBDIR, the fingerprints in the index:
a resumed crawl fetches no page twice and keeps exactly one page per near-duplicate cluster
over both runs (pages of run 1 are dropped as duplicates in run 2). A crawl killed with SIGKILL
is a different matter: Scrapy does not promise a consistent JOBDIR then (see test_crash.py for
the index itself).
"""

from __future__ import annotations

import signal
from collections import Counter

import pytest

from . import site
from .crawls import items, start_crawl, stats, wait_for_requests


@pytest.fixture(scope="module")
def site_server():
    server = site.SiteServer(delay=0.05).start()
    yield server
    server.stop()


def _kept_clusters(url: str, rows: list[dict]) -> list[int]:
    clusters = site.paths()
    return [clusters[row["url"][len(url):]] for row in rows if row["simhash"] is not None]


@pytest.mark.parametrize("stop", ["pagecount", "sigint"])
def test_resumed_crawl_continues_deduplication(site_server, tmp_path, stop):
    settings = {"SIMHASH_INDEX_URI": f"sqlite:///{tmp_path / 'index.db'}",
                "JOBDIR": str(tmp_path / "job")}
    first_settings = dict(settings, CLOSESPIDER_PAGECOUNT=30) if stop == "pagecount" else settings
    first = start_crawl(site_server.url, tmp_path / "run1", first_settings)
    if stop == "sigint":
        wait_for_requests(site_server, site_server.requests + 40, first)
        first.send_signal(signal.SIGINT)  # one Ctrl-C: Scrapy shuts down cleanly
    assert first.wait(timeout=120) == 0
    reason = stats(tmp_path / "run1", first.pid)["finish_reason"]
    assert reason == ("closespider_pagecount" if stop == "pagecount" else "shutdown")

    second = start_crawl(site_server.url, tmp_path / "run2", settings)
    assert second.wait(timeout=120) == 0
    assert stats(tmp_path / "run2", second.pid)["finish_reason"] == "finished"

    run1, run2 = items(tmp_path / "run1"), items(tmp_path / "run2")
    assert not {r["url"] for r in run1} & {r["url"] for r in run2}, "a page was fetched twice"
    kept = Counter(_kept_clusters(site_server.url, run1 + run2))
    assert set(kept) == set(range(site.PAGE_COUNT)) and max(kept.values()) == 1
    run2_stats = stats(tmp_path / "run2", second.pid)
    assert run2_stats["simhash/index/pages/size"] == site.PAGE_COUNT
