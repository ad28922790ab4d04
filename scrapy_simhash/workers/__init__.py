"""Signatures computed in worker processes, off the crawl's reactor thread.

Extraction and fingerprinting are CPU work (a few milliseconds a page). Done inline they run on
the reactor thread, between the downloads and callbacks of the whole crawl; with
``SIMHASH_WORKERS`` > 0 they run in that many child processes instead, and the crawl's own
thread only pays for handing over the page's text and for the index lookup.

- :mod:`.tasks`: what is computed, the same code inline and in a worker, so the fingerprints do
  not depend on where they were computed;
- :mod:`.child`: the worker process (``python -m scrapy_simhash.workers``), a loop over
  length-prefixed pickles on its stdin and stdout;
- :mod:`.pipe`: the write end of a worker's stdin, where each task goes out in one ``writev``
  from the page's own bytes;
- :mod:`.pool`: the crawl's side, a Twisted ``ProcessProtocol`` per worker and the pool that
  hands tasks to the least busy one, restarts crashed workers and kills stuck ones.
"""

from scrapy_simhash.workers.pool import WorkerError, WorkerPool, resolve_worker_count

__all__ = ["WorkerError", "WorkerPool", "resolve_worker_count"]
