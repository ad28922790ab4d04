"""A custom extractor (``SIMHASH_EXTRACTOR``) that kills or hangs the worker process on marked
pages of tests/reliability/site.py, and otherwise is the built-in extractor."""

from __future__ import annotations

import os
import sys
import time

from scrapy_simhash.extract import extract_main_text

CRASH_MARKER = "<title>Story 9</title>"
HANG_MARKER = "<title>Story 13</title>"


def _in_worker() -> bool:
    """Only worker processes misbehave: the crawl's own process must never run this."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return spec is not None and spec.name == "scrapy_simhash.crawl.workers.__main__"


def crash_or_hang(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
    text = html if isinstance(html, str) else html.decode("utf-8", "replace")
    if CRASH_MARKER in text and _in_worker():
        os._exit(3)  # as a segfault in a C extension would: no exception, no answer
    if HANG_MARKER in text and _in_worker():
        time.sleep(60)
    return extract_main_text(html, encoding, url)


def fail_on_tides(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
    """Raises (an ordinary extractor bug) on pages about tides."""
    text = html if isinstance(html, str) else html.decode("utf-8", "replace")
    if "tides" in text:
        raise ValueError("this extractor cannot read tides")
    return extract_main_text(html, encoding, url)


def slow_in_worker(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
    """The built-in extractor, 50 ms slower in a worker (a worker on a busy CPU)."""
    if _in_worker():
        time.sleep(0.05)
    return extract_main_text(html, encoding, url)
