"""Adversarial fingerprints: distinct pages whose fingerprints share block values (hot buckets).

Used by test_hot_bucket.py and benchmarks/fuzz.py. Seeded: the same inputs on every run.
"""

from __future__ import annotations

import random

from scrapy_simhash.index.layout import Layout


def table_mask(layout: Layout, tables: range | list[int]) -> int:
    """The fingerprint bits that make up the keys of ``tables``."""
    mask = 0
    for table in tables:
        for segment in layout.tables[table]:
            mask |= ((1 << segment.width) - 1) << segment.start
    return mask


def hot_fingerprints(layout: Layout, count: int, hot_tables: int = 1, seed: int = 0) -> list[int]:
    """``count`` random fingerprints equal on the bits of the first ``hot_tables`` tables' keys:
    every one lands in the same bucket of those tables, so every query meets all of them."""
    rng = random.Random(seed)
    fixed_mask = table_mask(layout, range(hot_tables))
    fixed = rng.getrandbits(layout.bits) & fixed_mask
    free = ((1 << layout.bits) - 1) & ~fixed_mask
    return [fixed | (rng.getrandbits(layout.bits) & free) for _ in range(count)]


def flip_bits(fingerprint: int, bits: int, count: int, rng: random.Random) -> int:
    """``fingerprint`` with ``count`` distinct random bits flipped (exactly that distance)."""
    for position in rng.sample(range(bits), count):
        fingerprint ^= 1 << position
    return fingerprint


def nearest(stored: list[int], fingerprint: int) -> tuple[int, int] | None:
    """(distance, position) of the nearest stored fingerprint, earliest on ties (brute force)."""
    best = None
    for position, other in enumerate(stored):
        distance = (other ^ fingerprint).bit_count()
        if best is None or distance < best[0]:
            best = (distance, position)
    return best
