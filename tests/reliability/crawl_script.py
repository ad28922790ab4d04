"""A crawl of tests/reliability/site.py in its own process: ``python crawl_script.py URL OUT
SETTINGS_JSON``. Items go to OUT/items-<pid>.jsonl, stats to OUT/stats-<pid>.json."""

from __future__ import annotations

import json
import os
import sys

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start_url: str = "", **kwargs):
        super().__init__(**kwargs)
        self.start_url = start_url + "/"

    async def start(self):
        yield scrapy.Request(self.start_url, meta={"dont_simhash": True})

    def parse(self, response):
        yield {"url": response.url, "simhash": response.meta.get("simhash")}
        yield from response.follow_all(css="a")


def main() -> None:
    url, out, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    pid = os.getpid()
    settings = {
        "ADDONS": {"scrapy_simhash.Addon": 0},
        # these crawls check what is kept, dropped and stored of every page: none skipped
        "SIMHASH_URL_RULES": False,
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "CONCURRENT_REQUESTS": 4,
        "LOG_LEVEL": "INFO",
        "FEEDS": {f"{out}/items-{pid}.jsonl": {"format": "jsonlines"}},
        **extra,
    }
    if settings.get("TWISTED_REACTOR_ENABLED", True):
        process = CrawlerProcess(settings)
    else:  # newer Scrapy, asyncio without Twisted's reactor
        from scrapy.crawler import AsyncCrawlerProcess

        process = AsyncCrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)

    def dump_stats() -> None:
        with open(f"{out}/stats-{pid}.json", "w", encoding="utf-8") as stream:
            json.dump(crawler.stats.get_stats(), stream, default=str)

    crawler.signals.connect(dump_stats, signal=signals.engine_stopped)
    process.crawl(crawler, start_url=url)
    process.start()


if __name__ == "__main__":
    main()
