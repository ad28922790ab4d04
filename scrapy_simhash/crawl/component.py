"""What the downloader middleware and the item pipeline share: start-up and shutdown.

Each is a :class:`DedupComponent` with its own index namespace (``pages``, ``items``): it reads
the settings (a bad value fails here, naming the setting), builds its
:class:`~scrapy_simhash.crawl.dedup.Deduplicator` and takes the crawl's worker pool, and opens and
closes both with the spider. When the spider opens, the worker processes are started before the
crawl makes its own one-time loads, so both happen at once.
"""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy import signals
from scrapy.exceptions import NotConfigured

from scrapy_simhash.crawl.dedup import Deduplicator
from scrapy_simhash.crawl.settings import (
    SimhashConfig,
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


def require_enabled(crawler: Crawler) -> None:
    """Raise :class:`~scrapy.exceptions.NotConfigured` when ``SIMHASH_ENABLED`` is False."""
    if read_bool(crawler.settings, "SIMHASH_ENABLED") is False:
        raise NotConfigured("SIMHASH_ENABLED is False")


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
