"""Writes the final crawl stats to ``STATS_DUMP_FILE`` as JSON, and ``<that file>.ready`` when
the spider is open (the tests push start URLs once every process is ready)."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import signals
from scrapy.exceptions import NotConfigured


class StatsDump:
    """At ``engine_stopped`` (after every component wrote its stats), dump them as JSON."""

    def __init__(self, crawler, path: str) -> None:
        self.crawler = crawler
        self.path = Path(path)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler):
        path = crawler.settings.get("STATS_DUMP_FILE")
        if not path:
            raise NotConfigured
        return cls(crawler, path)

    def spider_opened(self, spider) -> None:
        self.path.with_suffix(".ready").write_text("ready\n")

    def engine_stopped(self) -> None:
        stats = self.crawler.stats.get_stats()
        self.path.write_text(json.dumps(stats, default=str, indent=1, sort_keys=True))
