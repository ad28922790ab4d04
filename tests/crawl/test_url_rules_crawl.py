"""Real crawls of a site with the common duplicate URL families (tracking parameters, print and
AMP variants, ``index.html``, ``?ref=``) beside pages whose parameters change the content
(``?page=``, ``?id=``): with the add-on alone, rules learned from the drops skip most duplicate
downloads, and every distinct page still reaches the callback; canonical declarations that the
content does not back teach nothing; with a persistent index the next crawl starts with the
rules; the report lists them."""

from __future__ import annotations

from pathlib import Path

import pytest
from crawling import CrawlResult, run_crawl
from redisfixture import redis_prefix, redis_server, redis_url  # noqa: F401
from test_hard_negatives_crawl import PagesSite

from benchmarks.hardneg.listing_states import board_entry
from benchmarks.hardneg.news import articles
from benchmarks.hardneg.urlsite import facet_site, mixed_parameter_site
from benchmarks.hardneg.urlsite import site as url_site
from scrapy_simhash.crawl.urlrules import MIN_CHECKS, SAMPLE_EVERY

# The spider (argv: site URL, output folder, "rules" or "norules", and an index URI or nothing):
# follows every link of the site, one item per page that reaches the callback.
SPIDER_SCRIPT = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
url, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
index = sys.argv[4] if len(sys.argv) > 4 else None

class Site(Spider):
    name = "url_rules"
    start_urls = [url + "/"]
    custom_settings = {"ADDONS": {"scrapy_simhash.Addon": 0}}
    if mode == "norules":
        custom_settings["SIMHASH_URL_RULES"] = False
    if index:
        custom_settings["SIMHASH_INDEX_URI"] = index

    def parse(self, response):
        yield {"url": response.url}
        yield from response.follow_all(css="a")

process = CrawlerProcess({
    "FEEDS": {out + "/items.jsonl": {"format": "jsonlines"}},
    "EXTENSIONS": {"demo.extensions.StatsDump": 500},
    "STATS_DUMP_FILE": out + "/stats.json",
    "SIMHASH_REPORT_FILE": out + "/duplicates.jsonl",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "CONCURRENT_REQUESTS": 4,
})
process.crawl(Site)
process.start()
"""


def _crawl(tmp_path: Path, mode: str, *index: str, pages: dict | None = None, port: int = 0
           ) -> tuple[CrawlResult, PagesSite, dict[str, str]]:
    """A crawl of ``pages`` served on ``port`` (0: a free one; a site is its host and port)."""
    pages = url_site() if pages is None else pages
    served = {path: (html.encode(), "text/html; charset=utf-8") for path, (html, _) in
              pages.items()}
    site = PagesSite(served, port=port)
    site.start()
    try:
        result = run_crawl(site, tmp_path / mode, mode, *index, script=SPIDER_SCRIPT, timeout=90)
    finally:
        site.stop()
    assert result.returncode == 0, result.log[-3000:]
    return result, site, {path: target for path, (_, target) in pages.items()}


def _received(result: CrawlResult, site: PagesSite) -> set[str]:
    return {item["url"][len(site.url):] for item in result.items}


def _duplicate_downloads(site: PagesSite, same: dict[str, str]) -> int:
    return sum(1 for path in site.requested if same.get(path, path) != path)


def _rule_rows(result: CrawlResult) -> dict[tuple[str, str], dict]:
    return {(row["rewrite"], row["name"]): row for row in result.report
            if row["kind"] == "url_rule"}


def test_learned_rules_skip_most_duplicate_downloads_and_no_distinct_page(tmp_path):
    without, site_without, same = _crawl(tmp_path, "norules")
    with_rules, site_with, _ = _crawl(tmp_path, "rules")
    distinct = set(same.values())

    for result, site in ((without, site_without), (with_rules, site_with)):
        received = {item["url"][len(site.url):] for item in result.items}
        assert distinct <= {same.get(path, path) for path in received}, (
            f"distinct pages lost: {sorted(distinct - received)}")
        # pages whose parameter changes the content, each under its own URL
        assert {path for path in distinct if "?" in path} <= received
    before = _duplicate_downloads(site_without, same)
    after = _duplicate_downloads(site_with, same)
    assert before >= 150
    # (one in ten requests a rule would skip is downloaded anyway, to check the rule)
    checks = with_rules.stats["simhash/urls/checked"]
    assert after <= 0.35 * before and after - checks <= 0.25 * before, (before, after, checks)
    assert with_rules.stats.get("simhash/urls/skipped", 0) >= before - after
    assert "Simhash: URL rules" in with_rules.log
    # the report names each rule learned and the requests it saved
    rules = _rule_rows(with_rules)
    assert {("param", "utm_source"), ("segment", "print"), ("segment", "amp")} <= set(rules)
    assert sum(row["skipped"] for row in rules.values()) == with_rules.stats["simhash/urls/skipped"]
    assert all(row["confirmations"] >= 3 and not row["retired"] for row in rules.values())
    assert rules[("segment", "print")]["id"].endswith("is the same page without it")
    assert not _rule_rows(without)


def test_canonical_declarations_the_content_does_not_back_teach_nothing(tmp_path):
    result, site, same = _crawl(tmp_path, "rules", pages=url_site(canonical=True))
    received = _received(result, site)
    assert set(same.values()) <= {same.get(path, path) for path in received}
    listing = {path for path in same if path.startswith(("/shop/", "/product"))}
    assert listing <= received  # every page 2-6 and product declares the category page 1
    assert result.stats["simhash/urls/canonical/ignored"] >= len(listing) - 1
    assert result.stats["simhash/urls/canonical/confirmed"] > 0  # the variants of articles
    assert not {name for _, name in _rule_rows(result)} & {"page", "id"}
    assert _duplicate_downloads(site, same) <= 0.35 * sum(1 for p in same if same[p] != p)


@pytest.fixture(params=["sqlite", "redis"])
def persistent_index(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'crawl.db'}"
    return request.getfixturevalue("redis_url")


def test_a_second_crawl_with_the_same_index_skips_from_its_first_requests(
        tmp_path, persistent_index):
    first, first_site, _ = _crawl(tmp_path / "first", "rules", persistent_index,
                                  pages=url_site(20))
    assert first.stats["simhash/urls/rules"] >= 5
    # other articles of the same site (its host and port): nothing of them is in the index yet
    second, site, same = _crawl(tmp_path / "second", "rules", persistent_index,
                                pages=url_site(10, first=20), port=first_site.server_address[1])
    assert second.stats["simhash/urls/loaded"] >= 5
    assert "simhash/urls/rules" not in second.stats  # nothing left to learn
    articles = {path for path, target in same.items() if path == target
                and path.startswith("/news/")}
    assert articles <= {same.get(path, path) for path in _received(second, site)}
    variants = sum(1 for path, target in same.items() if path != target)
    # from its first requests on, a variant of a page already requested is downloaded only to
    # check a rule (one request in ten a rule would skip), or when both URLs were in flight at
    # once (4 concurrent requests); a variant requested before its page cannot be skipped (a
    # rule only skips onto a URL already fetched)
    seen: set[str] = set()
    again = 0
    for path in site.requested:
        again += path != same.get(path, path) and same.get(path, path) in seen
        seen.add(path)
    # the checks: one in SAMPLE_EVERY of the requests a rule would skip, and when the crawl
    # runs out of requests, up to MIN_CHECKS for each rule whose samples passed fewer (how
    # many samples each rule got before the end depends on the order pages arrive in)
    checks = second.stats["simhash/urls/checked"]
    rules = second.stats["simhash/urls/loaded"]
    assert again <= checks + 2, (again, checks)
    assert checks <= variants / SAMPLE_EVERY + MIN_CHECKS * rules, (checks, variants, rules)
    assert second.stats["simhash/urls/skipped"] >= 0.8 * variants


def test_a_parameter_that_changes_some_pages_only_loses_none_of_them(tmp_path):
    """Three pages without an international edition make "edition does not change the page"
    live; the pages it then skips come back once a check finds another story (held, as a drop
    is), so every distinct page reaches the callback."""
    pages = mixed_parameter_site()
    result, site, same = _crawl(tmp_path, "rules", pages=pages)
    distinct = {path for path, target in same.items() if path == target}
    assert distinct <= _received(result, site), sorted(distinct - _received(result, site))
    stats = result.stats
    assert stats["simhash/urls/rules"] >= 1 and stats["simhash/urls/skipped"] >= 1
    assert stats["simhash/urls/retired"] >= 1
    assert stats["simhash/urls/refetched"] >= 1
    assert "fetched after all" in result.log
    # fetched after all once: a link to it met later is Scrapy's duplicate filter's, as usual
    # (the start URL, "/", is not filtered: Scrapy's own start requests skip the filter)
    fetched = [path for path in site.requested if path != "/"]
    assert len(fetched) == len(set(fetched)), sorted(fetched)


def _hub_site(count: int) -> dict[str, tuple[str, str]]:
    """A home page of links only, beside a cookie notice and a footer of prose (the page's only
    sentences), and the ``count`` articles it links."""
    news = articles(count)
    paths = [url.split(".example", 1)[1] for url, _ in news]
    items = "".join(f"<li><a href='{path}'>Story {n}</a></li>" for n, path in enumerate(paths))
    home = (
        "<html><head><title>The Paper</title></head><body><div class='cookie-banner'><p>We use "
        "cookies and similar technologies to remember your preferences, measure how our site is "
        "used and show you relevant offers. Accept all, reject the optional ones or choose.</p>"
        "</div><nav><a href='/'>Home</a> <a href='/'>News</a> <a href='/'>Sport</a></nav>"
        f"<main><h1>Latest</h1><ul>{items}</ul></main><footer><p>Copyright 2025 The Paper Ltd. "
        "All rights reserved. The Paper Ltd, 14 Harbour Street, Bristol, United Kingdom. "
        "Registered in England and Wales, company number 08812345.</p></footer></body></html>"
    )
    return {"/": (home, "/"), **{path: (html, path) for path, (_, html) in zip(paths, news,
                                                                             strict=True)}}


def _two_crawls(tmp_path: Path, index: str, before: dict, after: dict,
                kept_again: set[str]) -> CrawlResult:
    """Crawl ``before``, then ``after`` on the same site and index: the first crawl reaches every
    page, the second only ``kept_again`` and the pages added since (the others are held by the
    index). The second crawl's result."""
    first, first_site, _ = _crawl(tmp_path / "first", "rules", index, pages=before)
    assert _received(first, first_site) == set(before)
    second, site, _ = _crawl(tmp_path / "second", "rules", index, pages=after,
                             port=first_site.server_address[1])
    assert _received(second, site) == kept_again | (set(after) - set(before)), \
        second.log[-3000:]
    return second


def test_a_facets_choices_reach_their_products_where_the_rule_was_learned_on_one_brand(
        tmp_path):
    """Categories of one brand teach "brand does not change the page" (and pass its sampled
    checks); a category of three offers three values on one page: the second is fetched as a
    check, finds other products, and retires the rule, so the filters' pages and the products
    behind them all reach the callback (25 of them were lost before)."""
    result, site, same = _crawl(tmp_path, "rules", pages=facet_site())
    distinct = {path for path, target in same.items() if path == target}
    assert distinct <= _received(result, site), sorted(distinct - _received(result, site))
    stats = result.stats
    assert stats["simhash/urls/skipped"] >= 1 and stats["simhash/urls/retired"] >= 1


def test_a_second_crawl_follows_its_hubs_to_the_pages_added_since(tmp_path, persistent_index):
    """A page of links (its only sentences a cookie notice and a footer) is a hub, never dropped:
    a second crawl on the same index reaches the articles added since the first, and drops the
    others as already held."""
    _two_crawls(tmp_path, persistent_index, _hub_site(6), _hub_site(8), {"/"})


def _forum_site(count: int) -> dict[str, tuple[str, str]]:
    """A home page linking a forum board whose first page lists its newest threads (at most
    20), each a linked title over a teaser: a listing with prose of its own, and the threads."""
    news = articles(count)
    paths = [url.split(".example", 1)[1] for url, _ in news]
    entries = "".join(board_entry(n, path) for n, path in list(enumerate(paths))[::-1][:20])
    board = (f"<html><head><title>Forum</title></head><body><nav><a href='/'>Home</a></nav>"
             f"<main><h1>Local news and chat</h1>{entries}</main></body></html>")
    home = ("<html><head><title>The Paper</title></head><body><nav><a href='/'>Home</a> "
            "<a href='/forum/'>Forum</a></nav></body></html>")
    return {"/": (home, "/"), "/forum/": (board, "/forum/"),
            **{path: (html, path) for path, (_, html) in zip(paths, news, strict=True)}}


def test_a_second_crawl_follows_a_listing_to_the_entries_added_since(tmp_path,
                                                                   persistent_index):
    """A forum's first page lists its threads, each a title over a teaser: prose of its own, so
    no hub. After two new threads it links two threads its stored state does not: a second
    crawl on the same index keeps it and reaches them."""
    _two_crawls(tmp_path, persistent_index, _forum_site(14), _forum_site(16), {"/", "/forum/"})


def _blog_site(count: int) -> dict[str, tuple[str, str]]:
    """A home page of prose (an about text: no hub, no listing) linking an archive listing of
    the first five stories (unchanged between crawls) that links a category listing of the
    ``count`` newest stories, each a title over a teaser; and the stories."""
    news = articles(count)
    paths = [url.split(".example", 1)[1] for url, _ in news]
    about = " ".join(f"Sentence {n} of the about text says who writes the Harbour Blog and why "
                     f"the harbour matters to the town." for n in range(12))
    home = (f"<html><head><title>Harbour Blog</title></head><body><main><h1>About</h1>"
            f"<p>{about}</p><p><a href='/archive/'>The archive</a></p></main></body></html>")
    archive_entries = "".join(board_entry(100 + n, path) for n, path in enumerate(paths[:5]))
    archive = (f"<html><head><title>Archive</title></head><body><main><h1>Archive</h1>"
               f"{archive_entries}<p><a href='/category/'>All the news</a></p></main>"
               "</body></html>")
    entries = "".join(board_entry(n, path) for n, path in list(enumerate(paths))[::-1])
    category = (f"<html><head><title>News</title></head><body><main><h1>News</h1>{entries}"
                "</main></body></html>")
    return {"/": (home, "/"), "/archive/": (archive, "/archive/"),
            "/category/": (category, "/category/"),
            **{path: (html, path) for path, (_, html) in zip(paths, news, strict=True)}}


def test_a_second_crawl_keeps_its_roots_and_unchanged_listings(tmp_path):
    """The start page (prose: no hub) and an archive listing are unchanged in a second crawl on
    the same index: kept all the same (a start request, a listing met again under its own URL),
    they lead to the category that gained a story, and to the story."""
    second = _two_crawls(tmp_path, f"sqlite:///{tmp_path / 'crawl.db'}", _blog_site(5),
                         _blog_site(6), {"/", "/archive/", "/category/"})
    assert second.stats["simhash/pages/kept/start"] >= 1
    assert second.stats["simhash/pages/kept/revisit"] == 1
