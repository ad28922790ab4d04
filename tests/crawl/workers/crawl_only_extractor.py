"""A custom extractor whose module cannot be imported in a worker process (as when a worker
runs in an environment without the crawl's project): the workers cannot start."""

from __future__ import annotations

from tests.crawl.workers.hostile_extractor import _in_worker

if _in_worker():
    raise ImportError("this module is only importable in the crawl's own process")

from scrapy_simhash.extract import extract_main_text as extract  # noqa: F401
