"""Several ``scrapy crawl`` processes, one scrapy-redis queue, one Redis index, over loopback."""

from __future__ import annotations

import itertools
import random
import time

import pytest
from crawlrunner import redis_settings, start_crawl
from distcrawl.site import SiteServer, build_site
from parsel import Selector

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.simhash import hamming_distance

pytest.importorskip("scrapy_redis")

PAGES, GROUPS = build_site()
GROUP_OF = {path: n for n, group in enumerate(GROUPS) for path in group}


@pytest.fixture(scope="module")
def site():
    server = SiteServer(PAGES).start()
    yield server
    server.stop()


def test_the_site_has_clusters_the_default_settings_detect():
    """Within a cluster every pair is within k; across clusters every pair is farther."""
    fingerprinter = Fingerprinter()
    fp = {path: fingerprinter.fingerprint_tree(Selector(text=body.decode()).root)
          for path, body in PAGES.items()}
    k = fingerprinter.max_distance
    for a, b in itertools.combinations(PAGES, 2):
        near = hamming_distance(fp[a], fp[b]) <= k
        assert near == (GROUP_OF[a] == GROUP_OF[b]), (a, b)


def push_start_urls(redis_server, key: str, urls: list[str]) -> None:
    client = redis_server.client()
    client.rpush(key, *urls)
    client.close()


def test_two_crawlers_on_one_queue_keep_one_page_per_cluster(site, redis_server, redis_prefix,
                                                             tmp_path):
    urls = [site.url + path for path in PAGES]
    random.Random(11).shuffle(urls)  # members of one cluster reach both processes at once
    settings = redis_settings(redis_server.url, redis_prefix)
    # Both take a share: an idle crawl polls the list every 5 s, so the first to poll takes two
    # URLs at a time (scrapy-redis takes CONCURRENT_REQUESTS), each answered in 0.5 s (alone
    # it would need 9 s); and the first to open, waiting for the other before the URLs are
    # pushed, idles 6 s before it stops (with the project's 2 s a slow start of the other
    # could end it first).
    settings["CONCURRENT_REQUESTS"] = 2
    settings["MAX_IDLE_TIME_BEFORE_CLOSE"] = 6
    crawls = [start_crawl(tmp_path / f"worker{n}", settings) for n in range(2)]
    for crawl in crawls:
        crawl.wait_ready()  # both idle on the empty list: the URLs are shared from the start
    site.delay = 0.5
    try:
        push_start_urls(redis_server, settings["REDIS_START_URLS_KEY"], urls)
        outputs = [crawl.wait() for crawl in crawls]
    finally:
        site.delay = 0.0
    for output in outputs:
        assert output.returncode == 0, output.log[-3000:]
        assert output.stats.get("finish_reason") == "finished", output.log[-3000:]
        assert output.stats.get("downloader/response_count", 0) > 0  # both took a share
        assert "simhash/index/errors" not in output.stats
    kept = [item["url"][len(site.url):] for output in outputs for item in output.items]
    assert len(kept) == len(set(kept)), "a page was kept twice"
    assert sorted(GROUP_OF[path] for path in kept) == list(range(len(GROUPS)))
    assert sum(o.stats.get("simhash/pages/kept", 0) for o in outputs) == len(GROUPS)
    assert sum(o.stats.get("simhash/pages/dropped", 0) for o in outputs) == (
        len(PAGES) - len(GROUPS)
    )
    assert sorted(site.served) == sorted(PAGES)  # each URL fetched once (shared dupefilter)


def test_redis_restarted_mid_crawl_the_crawl_finishes_and_counts_the_errors(
    site, redis_server, redis_prefix, tmp_path
):
    """The index's Redis (its own server here; the queue stays up) restarts mid-crawl."""
    from redisfixture import start_or_skip

    index_server = start_or_skip(tmp_path / "index-redis")
    # slow enough that pages are left once the index is back (its restart, then the breaker's
    # cool-down): on a loaded machine the rest of a faster crawl all fell in the outage
    site.delay = 0.5
    try:
        originals = [site.url + group[0] for group in GROUPS]
        variants = [site.url + path for group in GROUPS for path in group[1:]]
        settings = redis_settings(redis_server.url, redis_prefix, index_url=index_server.url,
                                  index_options="&retry_interval=0.2")
        settings["CONCURRENT_REQUESTS"] = "4"
        push_start_urls(redis_server, settings["REDIS_START_URLS_KEY"], originals + variants)
        before = len(site.served)
        crawl = start_crawl(tmp_path / "crawl", settings)
        deadline = time.monotonic() + 60
        while len(site.served) - before < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        index_server.restart(down_for=1.0, save=True)
        output = crawl.wait()
    finally:
        site.delay = 0.0
        index_server.stop()
    stats = output.stats
    assert output.returncode == 0, output.log[-3000:]
    assert stats["finish_reason"] == "finished"
    errors = stats.get("simhash/index/errors", 0)
    assert errors >= 1, output.log[-3000:]
    assert stats["simhash/pages/checked"] == len(PAGES)
    assert stats["simhash/pages/kept"] + stats["simhash/pages/dropped"] == len(PAGES)
    assert stats["simhash/pages/dropped"] >= 1  # after the restart the index works again
    # the outage is said once (the breaker's line, naming the index), then only counted
    logged = [line for line in output.log.splitlines() if "until it answers again" in line]
    assert len(logged) == 1, logged
    assert index_server.url.split("/0")[0] in logged[0]
    assert "Simhash: index check_and_add failed" not in output.log


def test_redis_unreachable_at_start_stops_a_crawl_whose_policy_is_stop_naming_the_url(
    site, redis_server, redis_prefix, tmp_path
):
    from redisfixture import free_port

    dead = f"redis://127.0.0.1:{free_port()}/0"
    settings = redis_settings(redis_server.url, redis_prefix, index_url=dead)
    settings["SIMHASH_ON_INDEX_ERROR"] = "stop"  # ("keep" rides it out: test_index_outage.py)
    push_start_urls(redis_server, settings["REDIS_START_URLS_KEY"], [site.url + "/single/0"])
    output = start_crawl(tmp_path / "crawl", settings).wait()
    assert dead in output.log
    # Closed while opening: Scrapy's own closing line is the record of the finish reason.
    assert "Spider closed (simhash_index_error)" in output.log, output.log[-3000:]
    assert not output.items
