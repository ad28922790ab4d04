"""DedupComponent: the start-up and shutdown the middleware and the pipeline share."""

from __future__ import annotations

import logging

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.component import DedupComponent
from scrapy_simhash.crawl.downloader import SimhashDownloaderMiddleware
from scrapy_simhash.crawl.pipeline import SimhashPipeline
from scrapy_simhash.crawl.settings import SimhashSettingError


class Notes(DedupComponent):
    namespace = "notes"


def test_a_component_has_its_own_namespace_opened_and_closed_with_the_spider(tmp_path):
    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0,
                                   "SIMHASH_INDEX_URI": f"sqlite:///{tmp_path / 'seen.db'}"})
    component = Notes.from_crawler(crawler)
    assert isinstance(component, Notes) and component.crawler is crawler
    assert component.dedup.index is None  # opened with the spider, not before
    component.spider_opened()
    assert component.dedup.index.namespace == "notes"
    assert component.dedup.check("n1", lambda: 1 << 70).dropped is False
    component.spider_closed()
    assert crawler.stats.get_value("simhash/index/notes/size") == 1


@pytest.mark.parametrize("component", [SimhashDownloaderMiddleware, SimhashPipeline, Notes])
def test_disabled_or_misconfigured_components_fail_at_start_up(component, caplog):
    crawler = get_crawler(Spider, {"SIMHASH_ENABLED": False, "SIMHASH_BITS": "many"})
    with caplog.at_level(logging.INFO), pytest.raises(NotConfigured) as raised:
        component.from_crawler(crawler)
    assert not raised.value.args  # Scrapy logs a WARNING for a reason given
    with pytest.raises(NotConfigured):
        component.from_crawler(crawler)
    said = [r for r in caplog.records if "SIMHASH_ENABLED=False" in r.getMessage()]
    assert [r.levelno for r in said] == [logging.INFO]  # once for the crawl
    with pytest.raises(SimhashSettingError, match="SIMHASH_BITS"):
        component.from_crawler(get_crawler(Spider, {"SIMHASH_BITS": "many"}))


def test_the_workers_start_before_the_crawls_own_one_time_loads(monkeypatch):
    """A worker takes ~0.5 s to be ready, and the crawl checks pages itself until then: it is
    started first, so it loads its dictionary while the crawl loads its own."""
    from scrapy_simhash.crawl.workers import WorkerPool
    from scrapy_simhash.fingerprint import Fingerprinter

    calls = []
    monkeypatch.setattr(WorkerPool, "open", lambda pool, namespace: calls.append("workers"))
    monkeypatch.setattr(Fingerprinter, "warm_up", lambda fingerprinter: calls.append("warm up"))
    component = Notes.from_crawler(get_crawler(Spider, {"SIMHASH_WORKERS": 1}))
    assert component.workers is not None
    assert calls == []  # nothing loaded before the spider opens
    component.spider_opened()
    assert calls == ["workers", "warm up"]
    component.spider_closed()


def test_an_index_option_the_backend_refuses_is_named_without_its_value(caplog):
    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0,
                                   "SIMHASH_INDEX_OPTIONS": {"bogus": "s3cret"}})
    component = Notes.from_crawler(crawler)
    component.spider_opened()  # the crawl is stopped: it has no engine here to stop
    assert component.dedup.start_up_failed
    message = next(r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    assert message.startswith("Simhash: cannot open the index at SIMHASH_INDEX_URI='memory://' "
                              "with SIMHASH_INDEX_OPTIONS bogus (TypeError: ")
    assert "s3cret" not in message


def test_an_unknown_setting_is_warned_of_once_with_the_closest_name(caplog):
    crawler = get_crawler(Spider, {"SIMHASH_MAX_DISTANSE": 8, "SIMHASH_WORKERS": 0,
                                   "SIMHASH_COLOUR": "red", "SIMHASH_INDEX": "sqlite:///x.db"})
    SimhashDownloaderMiddleware.from_crawler(crawler)
    SimhashPipeline.from_crawler(crawler)  # a second component of the same crawl: no repeat
    warnings = [r.getMessage() for r in caplog.records if "unknown setting" in r.getMessage()]
    assert warnings == [
        "Simhash: unknown setting SIMHASH_COLOUR is ignored",
        # a name cut short: the shortest setting it opens
        "Simhash: unknown setting SIMHASH_INDEX is ignored; did you mean SIMHASH_INDEX_URI?",
        "Simhash: unknown setting SIMHASH_MAX_DISTANSE is ignored; did you mean "
        "SIMHASH_MAX_DISTANCE?",
    ]


def test_known_settings_give_no_warning(caplog):
    crawler = get_crawler(Spider, {"SIMHASH_MAX_DISTANCE": 8, "SIMHASH_DRY_RUN": True,
                                   "SIMHASH_WORKERS": 0})
    SimhashDownloaderMiddleware.from_crawler(crawler)
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
