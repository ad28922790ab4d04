"""The spider middleware that frees a checked page's tree once its callback is done."""

from __future__ import annotations

import asyncio

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.downloader import META_FINGERPRINT
from scrapy_simhash.crawl.spider import SimhashSpiderMiddleware

BODY = b"<html><head><title>Ferry</title></head><body><p>The ferry crossed.</p></body></html>"


def response(*, checked: bool) -> HtmlResponse:
    meta = {META_FINGERPRINT: 123} if checked else {}
    request = Request("http://127.0.0.1/a", meta=meta)
    return HtmlResponse(request.url, body=BODY, encoding="utf-8", request=request)


def callback(page: HtmlResponse):
    yield {"title": page.css("title::text").get()}
    yield Request(page.urljoin("/b"))


def holds_a_tree(page: HtmlResponse) -> bool:
    return page._cached_selector is not None


def test_a_checked_response_lets_go_of_its_tree_when_its_output_is_exhausted():
    page = response(checked=True)
    output = SimhashSpiderMiddleware().process_spider_output(page, callback(page))
    assert next(output) == {"title": "Ferry"}
    assert holds_a_tree(page)  # the callback is not done yet
    assert [r.url for r in output] == ["http://127.0.0.1/b"]
    assert not holds_a_tree(page)
    assert page.css("title::text").get() == "Ferry"  # read again: parsed again


def test_an_unchecked_response_keeps_its_tree():
    page = response(checked=False)
    list(SimhashSpiderMiddleware().process_spider_output(page, callback(page)))
    assert holds_a_tree(page)


def test_a_callback_that_raises_still_lets_go_of_the_tree():
    page = response(checked=True)

    def failing(page):
        yield {"title": page.css("title::text").get()}
        raise ValueError("the callback failed")

    with pytest.raises(ValueError, match="the callback failed"):
        list(SimhashSpiderMiddleware().process_spider_output(page, failing(page)))
    assert not holds_a_tree(page)


def test_asynchronous_output_lets_go_of_the_tree_too():
    page = response(checked=True)

    async def async_callback(page):
        for output in callback(page):
            yield output

    async def drain():
        middleware = SimhashSpiderMiddleware()
        return [o async for o in middleware.process_spider_output_async(page, async_callback(page))]

    assert len(asyncio.run(drain())) == 2
    assert not holds_a_tree(page)


def test_disabled_raises_not_configured():
    with pytest.raises(NotConfigured):
        SimhashSpiderMiddleware.from_crawler(get_crawler(Spider, {"SIMHASH_ENABLED": False}))
