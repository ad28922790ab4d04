"""Pigeonhole table layouts: which fingerprint bits form each table's exact-match key.

Split an f-bit fingerprint into b blocks. Two fingerprints within Hamming distance k differ in at
most k blocks, so at least b - k blocks agree exactly: one table per choice of b - k blocks
(``C(b, k)`` tables) finds every neighbour with exact-key lookups. With b = k + 1 that is the
classic k + 1 tables (4 tables of 16 bits for f = 64, k = 3).

Manku, Jain and Das Sarma (WWW 2007) go one level further: after fixing the clean first-level
blocks, split the remaining bits into b2 sub-blocks, of which b2 - k are clean too. That gives
``C(b1, k) * C(b2, k)`` tables with longer keys (16 tables of 28 bits for f = 64, k = 3): more
memory, far fewer candidates per lookup.

The trade-off, measured by ``benchmarks/index.py`` (memory backend, 1M random fingerprints,
2-core machine under load, so read the ratios rather than the absolute rates)::

    bits k  tables   layout                  candidates/query  bytes/fp  single q/s  batched q/s
    64   3  auto     4 tables, 16-bit keys          61             40       ~80k       ~320k
    64   3  manku   16 tables, 28-bit keys           0.06         136       ~26k        ~21k
    64   6  auto     7 tables, 9-10-bit keys     12,695            64       ~12k         ~8k
    64   6  manku   49 tables, 16-18-bit keys       400           400        ~3k         ~4k
    128  3  auto     4 tables, 32-bit keys            0            64      ~145k       ~380k
    128 10  auto    11 tables, 11-12-bit keys     3,662           104        ~7k         ~6k
    128 10  manku   66 tables, 20-22-bit keys        28           544        ~3k         ~3k

Candidates per query grow as n / 2**key_bits per table, memory as the table count. In Python
the per-table overhead dominates until the candidates run into the hundreds, so ``auto`` is the
right default up to ~10M fingerprints at k = 3; more tables pay off when n >> 2**key_bits
(at 10M, k = 3, ``auto`` checks ~610 candidates per query, ``manku`` ~1).

Keys are capped so that ``key_bits + table_bits <= 64`` (a backend may prefix a key with its
table number and keep it in one uint64). Dropping key bits only adds candidates, it never loses
a neighbour. Bit 0 is the least significant bit of the fingerprint integer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

SUPPORTED_BITS = (64, 128)
WORD_BITS = 64
MAX_COMBINED_KEY_BITS = 64

TablesOption = int | str | None


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of ``width`` fingerprint bits starting at bit ``start``, inside one 64-bit word."""

    start: int
    width: int

    @property
    def word(self) -> int:
        return self.start // WORD_BITS

    @property
    def shift(self) -> int:
        return self.start % WORD_BITS


@dataclass(frozen=True)
class Layout:
    """The tables of a pigeonhole index: each table's key is its segments' bits concatenated."""

    bits: int
    max_distance: int
    tables: tuple[tuple[Segment, ...], ...]
    design: str

    @property
    def table_count(self) -> int:
        return len(self.tables)

    @cached_property
    def table_bits(self) -> int:
        """Bits needed to number the tables (0 for a single table)."""
        return max(0, math.ceil(math.log2(len(self.tables))))

    @cached_property
    def key_bits(self) -> int:
        """The widest table key, in bits."""
        return max(sum(seg.width for seg in table) for table in self.tables)

    @cached_property
    def min_key_bits(self) -> int:
        """The narrowest table key, in bits (it bounds the candidates per lookup)."""
        return min(sum(seg.width for seg in table) for table in self.tables)

    @property
    def words(self) -> int:
        return self.bits // WORD_BITS

    def expected_candidates(self, size: int) -> float:
        """Candidates per query against ``size`` uniformly random fingerprints."""
        return sum(size / 2.0 ** sum(s.width for s in t) for t in self.tables)

    def keys(self, fingerprint: int) -> list[int]:
        """Each table's key for one fingerprint (pure Python, for single lookups)."""
        out = []
        for table in self.tables:
            key = 0
            offset = 0
            for seg in table:
                key |= ((fingerprint >> seg.start) & ((1 << seg.width) - 1)) << offset
                offset += seg.width
            out.append(key)
        return out

    def keys_array(self, words: np.ndarray) -> np.ndarray:
        """Table keys for many fingerprints: ``words`` (n, words) uint64 -> (n, tables) uint64."""
        n = words.shape[0]
        out = np.zeros((n, len(self.tables)), dtype=np.uint64)
        for index, table in enumerate(self.tables):
            key = out[:, index]
            offset = 0
            for seg in table:
                part = words[:, seg.word] >> np.uint64(seg.shift)
                if seg.width < WORD_BITS:
                    part = part & np.uint64((1 << seg.width) - 1)
                if offset:
                    part = part << np.uint64(offset)
                key |= part
                offset += seg.width
        return out

    def signature(self) -> str:
        """A canonical text of the layout, stored by persistent backends and compared on open."""
        tables = [[[seg.start, seg.width] for seg in table] for table in self.tables]
        return json.dumps(
            {"bits": self.bits, "k": self.max_distance, "design": self.design, "tables": tables},
            separators=(",", ":"),
        )

    def describe(self) -> str:
        """One line for humans: design, table count and key width."""
        width = (
            f"{self.min_key_bits}"
            if self.min_key_bits == self.key_bits
            else f"{self.min_key_bits}-{self.key_bits}"
        )
        return f"{self.design}: {self.table_count} tables, {width}-bit keys"


def make_layout(bits: int = 64, max_distance: int = 3, tables: TablesOption = None) -> Layout:
    """Derive the table layout for ``bits``-bit fingerprints and Hamming radius ``max_distance``.

    ``tables``: ``None`` or ``"auto"`` -> k + 1 blocks (k + 1 tables); ``"manku"`` -> the design
    with the fewest expected candidates using at most (k + 1)**2 tables; an int t -> the design
    with the fewest expected candidates using at most t tables (t >= k + 1).
    """
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    if not isinstance(max_distance, int) or isinstance(max_distance, bool):
        raise TypeError(f"max_distance must be an int, got {max_distance!r}")
    if not 0 <= max_distance < bits // 2:
        raise ValueError(f"max_distance must be in [0, {bits // 2}), got {max_distance}")
    k = max_distance
    if tables is None or tables == "auto":
        return _single_level(bits, k, k + 1)
    if tables == "manku":
        return _best_design(bits, k, (k + 1) ** 2)
    if isinstance(tables, int) and not isinstance(tables, bool):
        if tables < k + 1:
            raise ValueError(f"tables must be at least k + 1 = {k + 1} for k = {k}, got {tables}")
        return _best_design(bits, k, tables)
    raise ValueError(f"tables must be None, 'auto', 'manku' or an int, got {tables!r}")


def _single_level(bits: int, k: int, blocks: int) -> Layout:
    """b blocks, one table per choice of b - k clean blocks."""
    block_bits = _split(list(range(bits)), blocks)
    tables = []
    for clean in combinations(range(blocks), blocks - k):
        positions = sorted(p for b in clean for p in block_bits[b])
        tables.append(positions)
    design = "blocks" if blocks == k + 1 else f"blocks({blocks})"
    return _finish(bits, k, tables, design)


def _two_level(bits: int, k: int, blocks: int, sub_blocks: int) -> Layout:
    """Manku's two levels: b1 - k clean blocks, then b2 - k clean sub-blocks of the rest."""
    block_bits = _split(list(range(bits)), blocks)
    tables = []
    for clean in combinations(range(blocks), blocks - k):
        first = sorted(p for b in clean for p in block_bits[b])
        rest = sorted(p for b in range(blocks) if b not in clean for p in block_bits[b])
        subs = _split(rest, sub_blocks)
        for sub_clean in combinations(range(sub_blocks), sub_blocks - k):
            second = sorted(p for s in sub_clean for p in subs[s])
            tables.append(first + second)
    return _finish(bits, k, tables, f"manku({blocks}x{sub_blocks})")


def _best_design(bits: int, k: int, max_tables: int) -> Layout:
    """The design with the fewest expected candidates per query using at most max_tables."""
    options: list[Layout] = []
    blocks = k + 1
    while blocks <= bits and math.comb(blocks, k) <= max_tables:
        options.append(_single_level(bits, k, blocks))
        blocks += 1
    if k > 0:
        b1 = k + 1
        while math.comb(b1, k) * math.comb(k + 1, k) <= max_tables and b1 <= bits:
            b2 = k + 1
            rest = bits - bits * (b1 - k) // b1
            while math.comb(b1, k) * math.comb(b2, k) <= max_tables and b2 <= rest:
                options.append(_two_level(bits, k, b1, b2))
                b2 += 1
            b1 += 1
    # fewest candidates: maximise sum over tables of 2**-key_bits, i.e. minimise it; then fewer
    # tables (less memory); the order of `options` breaks remaining ties deterministically.
    return min(options, key=lambda lay: (lay.expected_candidates(1 << 20), lay.table_count))


def _split(positions: Sequence[int], parts: int) -> list[list[int]]:
    """Cut a list of bit positions into ``parts`` contiguous chunks of near-equal size."""
    size, extra = divmod(len(positions), parts)
    chunks, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        chunks.append(list(positions[start:end]))
        start = end
    return chunks


def _finish(bits: int, k: int, tables: list[list[int]], design: str) -> Layout:
    table_bits = max(0, math.ceil(math.log2(len(tables))))
    cap = MAX_COMBINED_KEY_BITS - table_bits
    return Layout(
        bits=bits,
        max_distance=k,
        tables=tuple(_segments(positions[:cap]) for positions in tables),
        design=design,
    )


def _segments(positions: Sequence[int]) -> tuple[Segment, ...]:
    """Runs of consecutive bit positions, split at 64-bit word boundaries."""
    segments: list[Segment] = []
    for p in positions:
        last = segments[-1] if segments else None
        if (
            last is not None
            and last.start + last.width == p
            and p % WORD_BITS != 0
        ):
            segments[-1] = Segment(last.start, last.width + 1)
        else:
            segments.append(Segment(p, 1))
    return tuple(segments)
