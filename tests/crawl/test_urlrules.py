"""URL rewrite rules learned from drops: what is learned, when it goes live, what retires it."""

from __future__ import annotations

from scrapy_simhash.crawl.urlrules import Rewrite, UrlRules, explanations, normalized

SITE = "https://news.example"


def test_a_drop_is_explained_by_the_parameters_or_the_segment_it_adds():
    assert explanations(f"{SITE}/a?utm_source=x&id=3", f"{SITE}/a?id=3") == [
        Rewrite("news.example", "param", "utm_source")
    ]
    assert explanations(f"{SITE}/print/a", f"{SITE}/a") == [
        Rewrite("news.example", "segment", "print")
    ]
    assert explanations(f"{SITE}/a/amp", f"{SITE}/a") == [Rewrite("news.example", "segment", "amp")]
    assert explanations(f"{SITE}/a/index.html", f"{SITE}/a/") == [
        Rewrite("news.example", "index", "index.html")
    ]
    # a parameter whose value differs explains nothing; nor does another host
    assert explanations(f"{SITE}/list?page=2", f"{SITE}/list?page=1") == []
    assert explanations("https://other.example/a?x=1", f"{SITE}/a") == []


def test_a_rule_goes_live_after_three_confirming_pairs_and_skips_only_fetched_targets():
    rules = UrlRules()
    for name in ("a", "b"):
        rules.fetched(f"{SITE}/{name}")
        rules.fetched(f"{SITE}/{name}?ref=home")
        assert rules.dropped(f"{SITE}/{name}?ref=home", f"{SITE}/{name}") == []
    rules.fetched(f"{SITE}/c")
    assert rules.dropped(f"{SITE}/c?ref=home", f"{SITE}/c") == [
        Rewrite("news.example", "param", "ref")
    ]
    rules.fetched(f"{SITE}/d")
    rule, target = rules.skip(f"{SITE}/d?ref=side")
    assert rule.name == "ref" and target == normalized(f"{SITE}/d")
    assert rules.skip(f"{SITE}/e?ref=side") is None  # /e was never fetched: fetch it


def test_one_in_ten_is_fetched_anyway_and_a_contradiction_retires_the_rule():
    rules = UrlRules()
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?sid=1", f"{SITE}/{name}")
    decisions = [rules.skip(f"{SITE}/a?sid={n}") for n in range(2, 22)]
    assert sum(d is None for d in decisions) == 2
    # a sampled request came back distinct from /a: the rule is wrong here
    rules.fetched(f"{SITE}/a?sid=99")
    assert rules.kept(f"{SITE}/a?sid=99") == [Rewrite("news.example", "param", "sid")]
    assert rules.skip(f"{SITE}/a?sid=100") is None


def test_a_parameter_that_changes_the_content_never_goes_live():
    rules = UrlRules()
    rules.fetched(f"{SITE}/shop")
    rules.kept(f"{SITE}/shop")
    for page in range(2, 9):  # every page of the listing is kept as distinct
        rules.fetched(f"{SITE}/shop?page={page}")
        assert rules.kept(f"{SITE}/shop?page={page}") == []
    assert rules.live() == []
    assert all(rules.skip(f"{SITE}/shop?page={page}") is None for page in range(9, 12))


def test_a_withdrawn_drop_confirms_nothing():
    rules = UrlRules()
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?x=1", f"{SITE}/{name}")
    assert rules.live()
    rules.withdrawn(f"{SITE}/c?x=1", f"{SITE}/c")
    assert rules.live() == []


def test_a_rewrite_first_seen_after_a_page_that_contradicts_it_never_goes_live():
    rules = UrlRules()
    rules.fetched(f"{SITE}/shop")
    rules.kept(f"{SITE}/shop")
    rules.fetched(f"{SITE}/shop?sort=price")
    rules.kept(f"{SITE}/shop?sort=price")  # another order of the products: distinct
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?sort=price", f"{SITE}/{name}")
    assert rules.live() == []


def test_a_variant_fetched_before_its_page_teaches_the_rule_and_skips_the_page():
    rules = UrlRules()
    for name in ("a", "b", "c"):  # the tracked link came first: the page is its duplicate
        rules.fetched(f"{SITE}/{name}?ref=home")
        rules.kept(f"{SITE}/{name}?ref=home")
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}", f"{SITE}/{name}?ref=home")
    assert rules.live() == [Rewrite("news.example", "param", "ref")]
    rules.fetched(f"{SITE}/d?ref=home")
    rules.kept(f"{SITE}/d?ref=home")
    assert rules.skip(f"{SITE}/d") is not None
    assert rules.skip(f"{SITE}/e") is None


def test_requests_with_dont_filter_or_dont_simhash_are_never_skipped():
    from scrapy import Request
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from scrapy_simhash.crawl.downloader import skip_by_rules

    rules = UrlRules(sample_every=1000)
    for name in ("a", "b", "c", "d"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?fbclid=1", f"{SITE}/{name}")
    stats = MemoryStatsCollector(get_crawler())
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2", dont_filter=True), stats) is None
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2", meta={"dont_simhash": True}),
                         stats) is None
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2"), stats) is not None
    assert stats.get_value("simhash/urls/skipped") == 1
    assert stats.get_value("simhash/urls/skipped/news.example/param/fbclid") == 1
