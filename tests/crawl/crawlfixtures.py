"""The fixtures every Scrapy-facing test folder shares: the reactor, the demo site, and a
downloader middleware built as a crawl builds it. Conftests import them from here."""

from __future__ import annotations

import sys

import pytest
from crawling import DemoServer


def install_default_reactor() -> None:
    """Install Scrapy's default asyncio reactor (``get_crawler()`` on Scrapy 2.13 needs it
    installed before it is called)."""
    if "twisted.internet.reactor" not in sys.modules:
        from scrapy.utils.reactor import install_reactor

        install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")


@pytest.fixture(scope="module")
def demo_site():
    """The example project's demo site on a free loopback port, for the tests of one module."""
    server = DemoServer().start()
    yield server
    server.stop()


@pytest.fixture
def middleware_factory():
    """``build(**settings) -> (middleware, stats)``: a downloader middleware made through
    ``get_crawler`` and opened, its decisions computed inline (worker processes:
    tests/crawl/workers); each is closed after the test."""
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from scrapy_simhash.crawl.downloader import SimhashDownloaderMiddleware

    made = []

    def build(**settings):
        crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0, **settings})
        crawler.spider = crawler._create_spider("test")
        middleware = SimhashDownloaderMiddleware.from_crawler(crawler)
        middleware.spider_opened()
        made.append(middleware)
        return middleware, crawler.stats

    yield build
    for middleware in made:
        middleware.spider_closed()
