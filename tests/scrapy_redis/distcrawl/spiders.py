"""The spider every process runs: URLs come from the shared Redis list, one item per kept page."""

from __future__ import annotations

from scrapy_redis.spiders import RedisSpider


class PagesSpider(RedisSpider):
    """Reads start URLs from ``REDIS_START_URLS_KEY``; near-duplicates never reach ``parse``."""

    name = "pages"

    def parse(self, response):
        yield {
            "url": response.url,
            "title": response.css("h1::text").get(),
            "simhash": response.meta.get("simhash"),
        }
