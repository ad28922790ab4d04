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


def _marking_middleware() -> tuple[SimhashSpiderMiddleware, object]:
    from scrapy_simhash.crawl.pageitems import page_items_of

    crawler = get_crawler(Spider, {"SIMHASH_URL_RULES": False})
    page_items_of(crawler).pipeline_on = True  # (as the item pipeline says when it is built)
    return SimhashSpiderMiddleware(crawler), page_items_of(crawler)


def kept(page: HtmlResponse) -> HtmlResponse:
    from scrapy_simhash.crawl.downloader import META_KEY

    page.meta[META_KEY] = page.url  # the downloader middleware kept and stored it
    return page


def test_the_only_item_of_a_kept_page_is_marked_once_the_callback_is_done():
    middleware, marks = _marking_middleware()
    page = kept(response(checked=True))
    output = list(middleware.process_spider_output(page, callback(page)))
    # the item comes after the request: held until the callback ended with no other item
    assert [type(o).__name__ for o in output] == ["Request", "dict"]
    assert marks.take(output[1])


def test_the_items_of_a_page_that_yields_several_are_not_marked_and_keep_their_order():
    middleware, marks = _marking_middleware()
    page = kept(response(checked=True))
    listing = [{"sku": n} for n in range(3)]
    output = list(middleware.process_spider_output(page, iter(listing)))
    assert output == listing
    assert not any(marks.take(item) for item in listing)


def test_no_mark_for_a_page_not_kept_or_without_the_pipeline_nor_when_the_callback_fails():
    middleware, marks = _marking_middleware()
    page = response(checked=True)  # checked, not stored: a retry, the dry run, no index
    (item, _) = list(middleware.process_spider_output(page, callback(page)))
    assert not marks.take(item)
    alone = SimhashSpiderMiddleware(get_crawler(Spider, {"SIMHASH_URL_RULES": False}))
    page = kept(response(checked=True))
    (item, _) = list(alone.process_spider_output(page, callback(page)))
    assert not page_items_of_crawler(alone).take(item)  # no pipeline: nothing held or marked
    page = kept(response(checked=True))

    def failing(page):
        yield {"title": "Ferry"}
        raise ValueError("the callback failed")

    got = []
    with pytest.raises(ValueError):
        for output in middleware.process_spider_output(page, failing(page)):
            got.append(output)
    assert got == [{"title": "Ferry"}]  # the item given before the failure still goes on
    assert not marks.take(got[0])


def test_the_only_item_of_an_asynchronous_callback_is_marked_too():
    middleware, marks = _marking_middleware()
    page = kept(response(checked=True))

    async def async_callback(page):
        for output in callback(page):
            yield output

    async def drain():
        return [o async for o in middleware.process_spider_output_async(page, async_callback(page))]

    output = asyncio.run(drain())
    assert marks.take(next(o for o in output if isinstance(o, dict)))


def page_items_of_crawler(middleware: SimhashSpiderMiddleware):
    from scrapy_simhash.crawl.pageitems import page_items_of

    return page_items_of(middleware.crawler)
