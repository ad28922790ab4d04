"""scrapy-simhash: drop near-duplicate pages during a Scrapy crawl.

The text engine (``Fingerprinter``, ``hamming_distance``) imports without Scrapy's machinery;
the Scrapy components and the index are loaded on first use.
"""

from __future__ import annotations

from typing import Any

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.simhash import hamming_distance, simhash

__all__ = [
    "Addon",
    "Fingerprinter",
    "Match",
    "extract_main_text",
    "hamming_distance",
    "is_near_duplicate",
    "open_index",
    "simhash",
]

_LAZY = {
    "Addon": "scrapy_simhash.addon",
    "open_index": "scrapy_simhash.index",
    "Match": "scrapy_simhash.index",
    "extract_main_text": "scrapy_simhash.extract",
    "is_near_duplicate": "scrapy_simhash.detectors",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_simhash' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
