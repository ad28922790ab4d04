"""scrapy-simhash: drop near-duplicate pages during a Scrapy crawl.

The text engine (``Fingerprinter``, ``hamming_distance``) imports without Scrapy's machinery;
the Scrapy components and the index are loaded on first use.
"""

from __future__ import annotations

from typing import Any

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.simhash import hamming_distance, simhash

_LAZY = {
    # Scrapy components
    "Addon": "scrapy_simhash.crawl.addon",
    "SimhashDownloaderMiddleware": "scrapy_simhash.crawl.downloader",
    "NearDuplicatePage": "scrapy_simhash.crawl.downloader",
    "mark_not_content": "scrapy_simhash.crawl.downloader",
    "SimhashSpiderMiddleware": "scrapy_simhash.crawl.spider",
    "SimhashPipeline": "scrapy_simhash.crawl.pipeline",
    "NearDuplicateItem": "scrapy_simhash.crawl.pipeline",
    # index
    "open_index": "scrapy_simhash.index",
    "Match": "scrapy_simhash.index",
    "NearDuplicateIndex": "scrapy_simhash.index",
    "NearDuplicateIndexError": "scrapy_simhash.index",
    "IndexParameterMismatch": "scrapy_simhash.index",
    # extraction and detectors
    "extract_main_text": "scrapy_simhash.extract",
    "get_extractor": "scrapy_simhash.extract",
    "is_near_duplicate": "scrapy_simhash.crawl.signing",
    "get_detector": "scrapy_simhash.detectors",
    "ALGORITHMS": "scrapy_simhash.detectors",
}

__all__ = ["Fingerprinter", "hamming_distance", "simhash", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_simhash' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
