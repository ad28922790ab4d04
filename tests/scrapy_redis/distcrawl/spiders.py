"""The spider every process runs: URLs come from the shared Redis list, one item per kept page."""

from __future__ import annotations

import time

from scrapy import signals
from scrapy_redis.spiders import RedisSpider


class PagesSpider(RedisSpider):
    """Reads start URLs from ``REDIS_START_URLS_KEY``; near-duplicates never reach ``parse``."""

    name = "pages"

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.start_idle_clock, signal=signals.spider_opened)
        return spider

    def start_idle_clock(self) -> None:
        """scrapy-redis starts its MAX_IDLE_TIME_BEFORE_CLOSE clock when its module is imported
        (a class attribute), so a start-up slower than that limit, on a busy machine, closed
        the spider at its first idle moment, before any URL arrived: start it at open."""
        self.spider_idle_start_time = int(time.time())

    def parse(self, response):
        yield {
            "url": response.url,
            "title": response.css("h1::text").get(),
            "simhash": response.meta.get("simhash"),
        }
