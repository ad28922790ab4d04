"""The item pipeline, kept at this path for the dotted paths in users'
settings; the code lives in :mod:`scrapy_simhash.crawl.pipeline`."""

from scrapy_simhash.crawl.pipeline import (
    PRIORITY,
    NearDuplicateItem,
    SimhashPipeline,
    item_text,
)

__all__ = [
    "PRIORITY",
    "NearDuplicateItem",
    "SimhashPipeline",
    "item_text",
]
