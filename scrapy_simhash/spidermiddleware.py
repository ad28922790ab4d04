"""The spider middleware, kept at this path for the dotted paths in users'
settings; the code lives in :mod:`scrapy_simhash.crawl.spider`."""

from scrapy_simhash.crawl.spider import (
    PRIORITY,
    SimhashSpiderMiddleware,
    page_not_content,
    release_tree,
)

__all__ = [
    "PRIORITY",
    "SimhashSpiderMiddleware",
    "page_not_content",
    "release_tree",
]
