"""The demo spider: follows every link of the demo site and yields one item per page."""

from __future__ import annotations

from urllib.parse import urlsplit

import scrapy


class NewsSpider(scrapy.Spider):
    """Crawl the demo site from ``-a start_url=...`` (default: ``DEMO_SITE_URL``).

    ``-a dont_simhash=/print/`` marks requests whose URL contains that text with
    ``meta["dont_simhash"]``, so they are never checked (and never dropped).
    """

    name = "news"

    def __init__(self, start_url: str | None = None, dont_simhash: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.start_url = start_url
        self.dont_simhash = dont_simhash

    async def start(self):
        url = self.start_url or self.settings.get("DEMO_SITE_URL", "http://127.0.0.1:8000/")
        self.host = urlsplit(url).netloc
        yield scrapy.Request(url)

    def parse(self, response):
        paragraphs = response.xpath("//p//text()").getall()
        yield {
            "url": response.url,
            "title": (response.css("h1::text, h2::text").get() or "").strip(),
            "body": "\n".join(text.strip() for text in paragraphs if text.strip()),
            "simhash": response.meta.get("simhash"),
        }
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if urlsplit(url).netloc != self.host:
                continue
            meta = {"dont_simhash": True} if self.dont_simhash and self.dont_simhash in url else {}
            yield scrapy.Request(url, meta=meta)
