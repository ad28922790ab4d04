"""Real crawls of a site with the common duplicate URL families (tracking parameters, print and
AMP variants, ``index.html``, ``?ref=``) beside pages whose parameters change the content
(``?page=``, ``?id=``): with the add-on alone, rules learned from the drops skip most duplicate
downloads, and every distinct page still reaches the callback."""

from __future__ import annotations

from pathlib import Path

from crawling import CrawlResult, run_crawl
from test_hard_negatives_crawl import PagesSite

from benchmarks.hardneg.urlsite import site as url_site

# The spider (argv: site URL, output folder, "rules" or "norules"): follows every link of the
# site, one item per page that reaches the callback.
SPIDER_SCRIPT = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
url, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]

class Site(Spider):
    name = "url_rules"
    start_urls = [url + "/"]
    custom_settings = {"ADDONS": {"scrapy_simhash.Addon": 0}}
    if mode == "norules":
        custom_settings["SIMHASH_URL_RULES"] = False

    def parse(self, response):
        yield {"url": response.url}
        yield from response.follow_all(css="a")

process = CrawlerProcess({
    "FEEDS": {out + "/items.jsonl": {"format": "jsonlines"}},
    "EXTENSIONS": {"demo.extensions.StatsDump": 500},
    "STATS_DUMP_FILE": out + "/stats.json",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "CONCURRENT_REQUESTS": 4,
})
process.crawl(Site)
process.start()
"""


def _crawl(tmp_path: Path, mode: str) -> tuple[CrawlResult, PagesSite, dict[str, str]]:
    pages = url_site()
    served = {path: (html.encode(), "text/html; charset=utf-8") for path, (html, _) in
              pages.items()}
    site = PagesSite(served)
    site.start()
    try:
        result = run_crawl(site, tmp_path / mode, mode, script=SPIDER_SCRIPT, timeout=90)
    finally:
        site.stop()
    assert result.returncode == 0, result.log[-3000:]
    return result, site, {path: target for path, (_, target) in pages.items()}


def test_learned_rules_skip_most_duplicate_downloads_and_no_distinct_page(tmp_path):
    without, site_without, same = _crawl(tmp_path, "norules")
    with_rules, site_with, _ = _crawl(tmp_path, "rules")
    distinct = set(same.values())

    def duplicate_downloads(site: PagesSite) -> int:
        return sum(1 for path in site.requested if same.get(path, path) != path)

    for result, site in ((without, site_without), (with_rules, site_with)):
        received = {item["url"][len(site.url):] for item in result.items}
        assert distinct <= {same.get(path, path) for path in received}, (
            f"distinct pages lost: {sorted(distinct - received)}")
        # pages whose parameter changes the content, each under its own URL
        assert {path for path in distinct if "?" in path} <= received
    before, after = duplicate_downloads(site_without), duplicate_downloads(site_with)
    assert before >= 150
    assert after <= 0.3 * before, (before, after, with_rules.stats)
    assert with_rules.stats.get("simhash/urls/skipped", 0) >= before - after
    assert "Simhash: URL rules" in with_rules.log
