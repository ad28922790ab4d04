"""The Scrapy add-on, kept at this path for the dotted paths in users'
settings; the code lives in :mod:`scrapy_simhash.crawl.addon`."""

from scrapy_simhash.crawl.addon import (
    Addon,
)

__all__ = [
    "Addon",
]
