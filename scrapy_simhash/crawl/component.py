"""What the downloader middleware and the item pipeline share: start-up and shutdown.

Each is a :class:`DedupComponent` with its own index namespace (``pages``, ``items``): it reads
the settings (a bad value fails here, naming the setting: see :func:`settings_checked`), builds its
:class:`~scrapy_simhash.crawl.dedup.Deduplicator` and takes the crawl's worker pool, and opens and
closes both with the spider. When the spider opens, the worker processes are started before the
crawl makes its own one-time loads, so both happen at once.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider, IgnoreRequest, NotConfigured

from scrapy_simhash.crawl.dedup import Deduplicator, FailedCrawl
from scrapy_simhash.crawl.settings import (
    SimhashConfig,
    SimhashSettingError,
    build_detector,
    load_config,
    read_bool,
    unknown_settings,
)
from scrapy_simhash.crawl.workers import WorkerPool

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: Sent with ``response=`` for a page its callback marked as not content (by the spider
#: middleware, to the downloader middleware).
page_not_content = object()


_disabled_crawlers: weakref.WeakSet = weakref.WeakSet()


def require_enabled(crawler: Crawler) -> None:
    """Raise :class:`~scrapy.exceptions.NotConfigured` when ``SIMHASH_ENABLED`` is False; one
    INFO line says so for the crawl (Scrapy would log a WARNING for each component told why)."""
    if read_bool(crawler.settings, "SIMHASH_ENABLED") is False:
        if crawler not in _disabled_crawlers:
            _disabled_crawlers.add(crawler)
            logger.info("Simhash: off (SIMHASH_ENABLED=False)", extra={"crawler": crawler})
        raise NotConfigured


_warned_crawlers: weakref.WeakSet = weakref.WeakSet()


def warn_unknown_settings(crawler: Crawler) -> None:
    """Warn, once a crawl, of each ``SIMHASH_*`` setting the plugin does not know."""
    if crawler in _warned_crawlers:
        return
    _warned_crawlers.add(crawler)
    for name, close in unknown_settings(crawler.settings):
        hint = f"; did you mean {close}?" if close else ""
        logger.warning("Simhash: unknown setting %s is ignored%s", name, hint,
                       extra={"crawler": crawler})


#: The finish reason of a crawl a bad ``SIMHASH_*`` value kept from starting.
SETTING_STOP_REASON = "simhash_setting_error"
#: Scrapy 2.18 honours CloseSpider raised from a spider_opened handler.
_CLOSES_FROM_SPIDER_OPENED = tuple(int(part) for part in scrapy.__version__.split(".")[:2]) >= (
    2, 18)
#: Scrapy 2.13: how often and how long to wait for the engine to run before closing the spider.
_STOP_RETRY_SECONDS = 0.05
_STOP_ATTEMPTS = 200


@contextmanager
def settings_checked(crawler: Crawler) -> Iterator[None]:
    """Where a component is built from the crawler's settings.

    A bad ``SIMHASH_*`` value raises :class:`SimhashSettingError` out of ``from_crawler`` when
    the crawler is not crawling (a component built by hand, as in tests). In a crawl, whose
    runner would print the exception under a long traceback, the value is logged once, as one
    error line naming the setting, the value and what is allowed; the crawl stops before it
    fetches anything and ends as failed (``scrapy crawl`` exits 1); the component is left out.
    """
    try:
        yield
    except SimhashSettingError as error:
        if not getattr(crawler, "crawling", False):
            raise
        RefusedStart.of(crawler, error)
        raise NotConfigured from None  # (no message: Scrapy then logs nothing more)


class RefusedStart:
    """A crawl that a bad setting keeps from starting: logged once, no request scheduled, the
    spider closed as soon as it opens (``simhash_setting_error``), the crawl marked failed."""

    def __init__(self, crawler: Crawler, error: SimhashSettingError) -> None:
        self.crawler = crawler
        logger.error("Simhash: %s. The crawl does not start.", error,
                     extra={"crawler": crawler})
        FailedCrawl.mark(crawler)
        crawler.signals.connect(self._request_scheduled, signal=signals.request_scheduled,
                                weak=False)
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened, weak=False)
        # (Scrapy 2.13 may find the spider idle first: closed with this reason, not "finished")
        crawler.signals.connect(self._spider_idle, signal=signals.spider_idle, weak=False)

    @classmethod
    def of(cls, crawler: Crawler, error: SimhashSettingError) -> RefusedStart:
        """The crawler's one instance: the first component to find a bad value logs it, the
        others (which read the same settings) add nothing."""
        refused = getattr(crawler, "_simhash_refused", None)
        if not isinstance(refused, cls):
            refused = crawler._simhash_refused = cls(crawler, error)
        return refused

    def _request_scheduled(self, request: Any = None, spider: Any = None) -> None:
        raise IgnoreRequest  # the engine drops it quietly: nothing is fetched

    def _spider_idle(self, spider: Any = None) -> None:
        raise CloseSpider(SETTING_STOP_REASON)

    def _spider_opened(self, spider: Any = None) -> None:
        try:
            engine = self.crawler.engine
        except RuntimeError:  # pragma: no cover - Scrapy >= 2.14 without an engine
            return
        if _CLOSES_FROM_SPIDER_OPENED:
            raise CloseSpider(SETTING_STOP_REASON)
        if hasattr(engine, "close_spider_async"):  # Scrapy 2.14 to 2.17
            from scrapy.utils.defer import deferred_from_coro

            deferred_from_coro(engine.close_spider_async(reason=SETTING_STOP_REASON))
        else:  # Scrapy 2.13: closed before engine.start(), the crawl would never finish
            self._close_once_running(engine, _STOP_ATTEMPTS)

    def _close_once_running(self, engine: Any, attempts: int) -> None:
        if not engine.running and attempts > 0:
            from twisted.internet import reactor

            reactor.callLater(_STOP_RETRY_SECONDS, self._close_once_running, engine, attempts - 1)
            return
        engine.close_spider(self.crawler.spider, SETTING_STOP_REASON)


class DedupComponent:
    """A Scrapy component that checks one kind of thing against its own index namespace."""

    #: The index namespace, also the worker pool's name for this component.
    namespace: ClassVar[str]

    def __init__(self, crawler: Crawler) -> None:
        require_enabled(crawler)  # before the other settings
        self.crawler = crawler
        self.config: SimhashConfig = load_config(crawler.settings)
        warn_unknown_settings(crawler)
        self.dedup = Deduplicator(crawler, self.config,
                                  build_detector(self.config, warm_up=False), self.namespace)
        self.workers = WorkerPool.of(crawler, self.config)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        with settings_checked(crawler):
            return cls(crawler)

    def spider_opened(self, spider: Any = None) -> None:
        self.dedup.open()
        if self.workers is not None:
            self.workers.open(self.namespace)
        # The crawl's own one-time loads, for the pages it checks itself (while its workers
        # start, say), come after the workers were started: they make theirs meanwhile.
        self.dedup.detector.fingerprinter.warm_up()

    def spider_closed(self, spider: Any = None, reason: str | None = None) -> None:
        if self.workers is not None:
            self.workers.close(self.namespace)
        self.dedup.close()
