"""Learned URL rules kept beside a persistent index: real SQLite files and a real redis-server."""

from __future__ import annotations

import json

import pytest
from redisfixture import redis_prefix, redis_server, redis_url  # noqa: F401

from scrapy_simhash.crawl.rulestore import (
    MAX_VALUE_BYTES,
    RuleStore,
    companion_namespace,
    decode,
    encode,
    is_persistent,
    open_store,
)
from scrapy_simhash.crawl.urlrules import Rewrite, UrlRules
from scrapy_simhash.index import open_index

SITE = "https://news.example"
HOST = "news.example"
REF = Rewrite(HOST, "param", "ref")


def open_rules(uri: str, errors: list | None = None) -> tuple[UrlRules, RuleStore]:
    rules = UrlRules(sample_every=1000)
    store = open_store(uri, "pages", {}, rules,
                       on_error=(errors if errors is not None else []).append)
    assert store is not None
    return rules, store


def learn_ref(rules: UrlRules, names: str) -> None:
    """Pages kept, and their ``?ref=home`` links dropped as their duplicates."""
    for name in names:
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.fetched(f"{SITE}/{name}?ref=home")
        rules.dropped(f"{SITE}/{name}?ref=home", f"{SITE}/{name}")


@pytest.fixture(params=["sqlite", "redis"])
def uri(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'crawl.db'}"
    return request.getfixturevalue("redis_url")


def test_only_an_index_that_outlives_the_crawl_keeps_rules(tmp_path):
    assert is_persistent(f"sqlite:///{tmp_path / 'a.db'}") and is_persistent("redis://h:6379/0")
    assert not is_persistent("memory://") and not is_persistent("sqlite://")
    assert not is_persistent("sqlite:///:memory:")
    assert not is_persistent("mypackage.MyIndex")
    assert open_store("memory://", "pages", {}, UrlRules(), on_error=print) is None
    assert companion_namespace("pages") == "pages_urlrules"


def test_a_second_crawl_starts_with_the_rules_of_the_first(uri):
    first, store = open_rules(uri)
    learn_ref(first, "abc")
    assert first.live() == [REF]
    store.close()

    second, store = open_rules(uri)
    assert second.live() == []  # read when the site is first seen
    second.fetched(f"{SITE}/d")
    second.kept(f"{SITE}/d")
    assert second.live() == [REF]
    assert second.skip(f"{SITE}/d?ref=side") is not None
    store.close()


def test_counts_of_two_processes_add_up_and_a_retired_rule_is_never_resurrected(uri):
    one, store_one = open_rules(uri)
    two, store_two = open_rules(uri)
    learn_ref(one, "ab")
    learn_ref(two, "cd")  # two confirmations each: neither went live alone
    assert one.live() == two.live() == []
    store_one.write()
    store_two.write()
    assert two.live() == [REF]  # 2 of its own and 2 of the other's
    one.fetched(f"{SITE}/x")  # the site is read again at the next write
    store_one.write()
    assert one.live() == [REF]
    assert decode(HOST, _value(uri, HOST)) == {REF: (4, False)}

    # one process retires the rule; the other, which has not read it since, writes its counts
    one.fetched(f"{SITE}/e")
    one.kept(f"{SITE}/e")
    one.fetched(f"{SITE}/e?ref=home")
    assert one.kept(f"{SITE}/e?ref=home") == [REF]  # another page: the rule is wrong here
    store_one.changed()  # a retirement is written at once
    learn_ref(two, "fg")
    store_two.write()
    assert two.live() == []
    assert decode(HOST, _value(uri, HOST))[REF][1] is True
    store_one.close()
    store_two.close()

    third, store = open_rules(uri)
    learn_ref(third, "hijk")
    assert third.live() == []
    store.close()


def _value(uri: str, key: str) -> bytes | None:
    index = open_index(uri, namespace="pages_urlrules", params={"url_rules_format": 1})
    try:
        return index.get_evidence([key])[0]
    finally:
        index.close()


def test_a_withdrawn_drop_is_taken_off_the_stored_count(tmp_path):
    uri = f"sqlite:///{tmp_path / 'crawl.db'}"
    rules, store = open_rules(uri)
    learn_ref(rules, "abc")
    store.write()
    rules.withdrawn(f"{SITE}/c?ref=home", f"{SITE}/c")
    store.close()
    assert decode(HOST, _value(uri, HOST)) == {REF: (2, False)}


def test_counts_are_written_back_in_batches_not_per_decision(tmp_path):
    uri = f"sqlite:///{tmp_path / 'crawl.db'}"
    now = [0.0]
    rules = UrlRules()
    index = open_index(uri, namespace="pages_urlrules", params={"url_rules_format": 1})
    writes = []
    put = index.put_evidence
    index.put_evidence = lambda key, value: (writes.append(key), put(key, value))[1]
    store = RuleStore(index, rules, on_error=print, interval=5.0, clock=lambda: now[0])
    for name in "abcdef":
        learn_ref(rules, name)
        store.changed()
    assert writes == []
    now[0] = 6.0
    store.changed()
    assert writes == [HOST]
    store.close()


def test_a_site_value_stays_within_the_index_limit_retired_rules_first():
    rules = {Rewrite(HOST, "param", f"parameter_number_{n}"): (n, False) for n in range(200)}
    rules[Rewrite(HOST, "segment", "print")] = (1, True)
    data = encode(rules)
    assert len(data) <= MAX_VALUE_BYTES
    kept = decode(HOST, data)
    assert kept[Rewrite(HOST, "segment", "print")] == (1, True)
    assert kept[Rewrite(HOST, "param", "parameter_number_199")] == (199, False)
    assert Rewrite(HOST, "param", "parameter_number_0") not in kept
    assert json.loads(data)["v"] == 1


def test_a_value_of_another_format_is_left_alone(tmp_path):
    uri = f"sqlite:///{tmp_path / 'crawl.db'}"
    index = open_index(uri, namespace="pages_urlrules", params={"url_rules_format": 1})
    index.put_evidence(HOST, b'{"v": 2, "something": "newer"}')
    index.close()
    rules, store = open_rules(uri)
    learn_ref(rules, "abc")
    store.close()
    assert _value(uri, HOST) == b'{"v": 2, "something": "newer"}'
    assert rules.live() == [REF]  # learned in memory all the same


def test_a_store_that_fails_leaves_the_rules_in_memory(tmp_path):
    errors: list = []
    rules, store = open_rules(f"sqlite:///{tmp_path / 'crawl.db'}", errors)
    store.index.close()  # as a store whose connection is gone
    learn_ref(rules, "abc")
    store.write()
    store.write()
    assert len(errors) == 1 and store.failed
    assert rules.live() == [REF]


def test_a_crawl_whose_rules_cannot_be_kept_goes_on_with_them_in_memory(tmp_path, caplog):
    import logging

    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from scrapy_simhash.crawl.downloader import SimhashDownloaderMiddleware

    uri = f"sqlite:///{tmp_path / 'crawl.db'}"
    # the companion namespace holds something else: opening it fails
    open_index(uri, namespace="pages_urlrules", params={"something": "else"}).close()
    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0, "SIMHASH_URL_RULES": True,
                                   "SIMHASH_INDEX_URI": uri})
    crawler.spider = crawler._create_spider("test")
    middleware = SimhashDownloaderMiddleware.from_crawler(crawler)
    with caplog.at_level(logging.WARNING, logger="scrapy_simhash.crawl.downloader"):
        middleware.spider_opened()
    assert middleware.rule_store is None and not middleware.dedup.start_up_failed
    assert caplog.text.count("URL rules cannot be kept beside the index") == 1
    assert crawler.stats.get_value("simhash/urls/store_errors") == 1
    middleware.spider_closed()
