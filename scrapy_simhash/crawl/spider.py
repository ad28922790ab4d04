"""Spider middleware: free the parsed page of a checked response once its callback is done.

The :class:`~scrapy_simhash.Addon` enables it; by hand::

    SPIDER_MIDDLEWARES = {"scrapy_simhash.SimhashSpiderMiddleware": PRIORITY}

Why: a response the downloader middleware checked has waited for its worker's answer (~10-20 ms),
long enough for Python's garbage collector to count it as old. The spider's callback then ties
it into a cycle (the response caches its selector, and the selector refers back to the
response), and a cycle of old objects, with the page's lxml tree that hangs on it, is freed only
by the next full collection. On CPython 3.11 that kept about twice as many objects for the
crawl's full collections and cost the crawl's thread 1-1.5 ms a page (full collections, and the
memory the trees hold meanwhile). Once the callback's output is exhausted, this middleware drops
the response's cached selector, so the tree is freed at once, as it is, a little later, without
the plugin. Nothing else changes: ``response.selector`` (``css()``, ``xpath()``) parses the page
again if anything reads it afterwards, and selectors taken from it keep working.

Only responses the downloader middleware checked and kept are touched (those with
``meta["simhash"]``). When the callback marked its response as not content
(:func:`~scrapy_simhash.crawl.downloader.mark_not_content`), the middleware sends
:data:`page_not_content`, on which the downloader middleware takes the page back out of the
index. A crawl without the plugin gains nothing measurable from the same release (see
BENCHMARKS.md).

It also marks the only item a page kept as distinct yields (held back until the callback is
done, to know it is the only one), for the item pipeline (:mod:`~scrapy_simhash.crawl.pageitems`),
and leaves out the requests the learned URL rules skip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.http import Request

from scrapy_simhash.crawl.component import page_not_content, require_enabled, settings_checked
from scrapy_simhash.crawl.downloader import (
    META_FINGERPRINT,
    META_KEY,
    META_NOT_CONTENT,
    skip_by_rules,
)
from scrapy_simhash.crawl.pageitems import PageItems, page_items_of
from scrapy_simhash.crawl.settings import read_bool
from scrapy_simhash.crawl.urlrules import UrlRules, rules_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable, Iterator

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

#: Scrapy's own spider middlewares run at 50-900; the order makes no difference here.
PRIORITY = 950


class SimhashSpiderMiddleware:
    """Frees the parsed tree of a checked response when its callback's output is exhausted, and
    leaves out the requests the learned URL rules say duplicate a page already fetched."""

    def __init__(self, crawler: Crawler | None = None) -> None:
        self.crawler = crawler
        self.url_rules: UrlRules | None = None
        self.page_items: PageItems | None = None
        if crawler is not None:
            self.page_items = page_items_of(crawler)
            settings = crawler.settings
            if read_bool(settings, "SIMHASH_URL_RULES") and not read_bool(
                settings, "SIMHASH_DRY_RUN"
            ):
                self.url_rules = rules_of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        with settings_checked(crawler):
            require_enabled(crawler)
            return cls(crawler)

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Any = None
    ) -> Iterator[Any]:
        only = _OnlyItem(self.page_items if self._stands_for_page(response) else None)
        try:
            try:
                for output in result:
                    yield from only.passed(output, self._skipped)
            except GeneratorExit:
                raise
            except Exception:
                yield from only.held()  # (the item the callback gave before it failed)
                raise
            yield from only.ended()
        finally:
            self._done(response)

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        only = _OnlyItem(self.page_items if self._stands_for_page(response) else None)
        try:
            try:
                async for output in result:
                    for passed in only.passed(output, self._skipped):
                        yield passed
            except GeneratorExit:
                raise
            except Exception:
                for item in only.held():
                    yield item
                raise
            for item in only.ended():
                yield item
        finally:
            self._done(response)

    def _stands_for_page(self, response: Response) -> bool:
        """Whether the only item of ``response``'s callback would stand for its page: the
        downloader middleware kept and stored the page, and the item pipeline is on to read the
        mark."""
        items = self.page_items
        return items is not None and items.pipeline_on and META_KEY in _meta(response)

    def _skipped(self, output: Any) -> bool:
        """Whether ``output`` is a request a live URL rule maps onto a page already fetched: it
        is left out as quietly as Scrapy's dupefilter leaves out a request seen before (see
        :func:`~scrapy_simhash.crawl.downloader.skip_by_rules`)."""
        if self.url_rules is None or not isinstance(output, Request):
            return False
        return skip_by_rules(self.url_rules, output, self.crawler.stats) is not None

    def _done(self, response: Response) -> None:
        release_tree(response)
        if self.crawler is not None and _meta(response).get(META_NOT_CONTENT):
            self.crawler.signals.send_catch_log(page_not_content, response=response)


class _OnlyItem:
    """Passes a callback's output on, holding back its first item until it is known to be the
    page's only one (another item comes: both go on unmarked; the output ends: it goes on
    marked, standing for its page). Requests go on at once. ``marks`` None: nothing held."""

    def __init__(self, marks: PageItems | None) -> None:
        self.marks = marks
        self.first: Any = None
        self.items = 0

    def passed(self, output: Any, skipped: Any) -> Iterator[Any]:
        if self.marks is not None and _is_item(output):
            self.items += 1
            if self.items == 1:
                self.first = output
                return
            if self.items == 2:
                yield from self.held()
        if not skipped(output):
            yield output

    def held(self) -> Iterator[Any]:
        if self.first is not None:
            first, self.first = self.first, None
            yield first

    def ended(self) -> Iterator[Any]:
        if self.first is not None and self.items == 1:
            self.marks.mark(self.first)
        yield from self.held()


def _is_item(output: Any) -> bool:
    return output is not None and not isinstance(output, Request) and ItemAdapter.is_item(output)


def _meta(response: Response) -> dict:
    try:
        return response.meta
    except AttributeError:  # a response not tied to a request
        return {}


def release_tree(response: Response) -> None:
    """Drop the selector (and so the parsed tree) ``response`` caches, if the downloader
    middleware checked it; ``response.selector`` builds a new one if it is read again."""
    request = getattr(response, "request", None)
    if request is None or META_FINGERPRINT not in request.meta:
        return
    if getattr(response, "_cached_selector", None) is not None:  # Scrapy's cache, see TextResponse
        response._cached_selector = None
