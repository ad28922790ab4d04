"""Signatures computed in worker processes, off the crawl's reactor thread.

Extraction and fingerprinting are CPU work (a few milliseconds a page). Done inline they run on
the reactor thread, between the downloads and callbacks of the whole crawl; with
``SIMHASH_WORKERS`` > 0 they run in that many child processes instead, and the crawl's own
thread only pays for handing over the page's text and for the index lookup.

- :mod:`scrapy_simhash.crawl.signing`: what is computed, the same code inline and in a worker,
  so the fingerprints do not depend on where they were computed;
- :mod:`.child`: the worker process (``python -m scrapy_simhash.crawl.workers``), a loop over
  length-prefixed pickles on its stdin and stdout;
- :mod:`.pipe`: the write end of a worker's stdin, where each task goes out in one ``writev``
  from the page's own bytes;
- :mod:`.pool`: the crawl's side, a Twisted ``ProcessProtocol`` per worker and the pool that
  hands tasks to the least busy one, restarts crashed workers and kills stuck ones.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WorkerError", "WorkerPool", "resolve_worker_count"]


def __getattr__(name: str) -> Any:
    """The pool's names, imported on first use: the worker process itself (``child``) never
    loads the pool, nor Twisted with it."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from scrapy_simhash.crawl.workers import pool

    return getattr(pool, name)
