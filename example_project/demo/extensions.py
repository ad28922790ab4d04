"""A small extension that writes the final crawl stats to ``STATS_DUMP_FILE`` as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from scrapy import signals
from scrapy.exceptions import NotConfigured


class StatsDump:
    def __init__(self, crawler, path: str) -> None:
        self.crawler = crawler
        self.path = Path(path)
        # engine_stopped comes after spider_closed, when every component has written its stats.
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler):
        path = crawler.settings.get("STATS_DUMP_FILE")
        if not path:
            raise NotConfigured
        return cls(crawler, path)

    def engine_stopped(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stats = self.crawler.stats.get_stats()
        self.path.write_text(json.dumps(stats, default=str, indent=1, sort_keys=True))
