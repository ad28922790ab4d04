"""The downloader middleware, kept at this path for the dotted paths in users'
settings; the code lives in :mod:`scrapy_simhash.crawl.downloader`."""

from scrapy_simhash.crawl.downloader import (
    HELD_PER_PAGE,
    HELD_TOTAL,
    MAX_REFETCHES,
    META_FINGERPRINT,
    META_KEY,
    META_NOT_CONTENT,
    META_REFETCHES,
    META_SKIP,
    PRIORITY,
    NearDuplicatePage,
    SimhashDownloaderMiddleware,
    body_skip_reason,
    mark_not_content,
)

__all__ = [
    "HELD_PER_PAGE",
    "HELD_TOTAL",
    "MAX_REFETCHES",
    "META_FINGERPRINT",
    "META_KEY",
    "META_NOT_CONTENT",
    "META_REFETCHES",
    "META_SKIP",
    "PRIORITY",
    "NearDuplicatePage",
    "SimhashDownloaderMiddleware",
    "body_skip_reason",
    "mark_not_content",
]
