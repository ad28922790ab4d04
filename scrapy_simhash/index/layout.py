"""Pigeonhole table layouts: which fingerprint bits form each table's exact-match key.

Split an f-bit fingerprint into b blocks. Two fingerprints within Hamming distance k differ in at
most k blocks, so at least b - k blocks agree exactly: one table per choice of b - k blocks
(``C(b, k)`` tables) finds every neighbour with exact-key lookups. With b = k + 1 that is the
classic k + 1 tables (4 tables of 16 bits for f = 64, k = 3).

Manku, Jain and Das Sarma (WWW 2007) go one level further: after fixing the clean first-level
blocks, split the remaining bits into b2 sub-blocks, of which b2 - k are clean too. That gives
``C(b1, k) * C(b2, k)`` tables with longer keys (16 tables of 28 bits for f = 64, k = 3): more
memory, far fewer candidates per lookup.

The trade-off between these layouts, measured, is in docs/design.md ("Index layouts").

Candidates per query grow as n / 2**key_bits per table, memory as the table count. In Python
the per-table overhead dominates until the candidates run into the hundreds, so ``auto`` is the
right default up to ~10M fingerprints at k = 3; more tables pay off when n >> 2**key_bits
(at 10M, k = 3, ``auto`` checks ~610 candidates per query, ``manku`` ~1).

Multi-index hashing (Norouzi, Punjani & Fleet, CVPR 2012) generalises the pigeonhole further:
split the bits into m disjoint blocks, one table each, and give table i a probe radius r_i. If
``sum(r_i + 1) >= k + 1`` then any fingerprint within k differs in at most r_i bits in some block
i, so probing each table with every key within Hamming radius r_i of the query's block value
finds every neighbour. For f = 128, k = 16 that is 6 tables of 21-22-bit keys probed at radius
1-2 (1,226 probes, ~470 random candidates at 1M) instead of 17 tables of 7-8-bit keys (~94,000
candidates). ``"auto"`` picks between the exact-match blocks and the MIH designs by
:func:`query_cost`, an explicit model of probes plus expected candidates at a nominal size, never
using more tables than the k + 1 blocks do. A backend that can only do exact-key lookups asks
for ``max_radius=0`` and gets the exact-match layouts unchanged.

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

from scrapy_simhash.simhash import (
    DEFAULT_BITS,
    DEFAULT_MAX_DISTANCE,
    SUPPORTED_BITS,
    ParameterError,
)

WORD_BITS = 64
MAX_COMBINED_KEY_BITS = 64


# The cost model that picks "auto", in units of ~33 ns (single queries, memory backend, 1M
# fingerprints, this 2-core machine under load). Probing one key (directory read + short scan)
# and checking one candidate (gathers + popcount) cost about the same; the exact-match path pays
# ~2 us of Python per table, the probing path ~35 us of numpy calls per query whatever its size.
# Fitted on (64, 3), (64, 6), (128, 10), (128, 16) with benchmarks/index.py's layout table.
NOMINAL_SIZE = 1 << 20
PROBE_COST = 1.0
CANDIDATE_COST = 1.0
EXACT_TABLE_COST = 60.0
PROBING_OVERHEAD = 1000.0
MAX_PROBES = 1 << 14  # designs that probe more keys per query are never considered


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
    """The tables of a pigeonhole index: each table's key is its segments' bits concatenated.

    ``radii[t]`` is table t's probe radius: a query looks up every key within that Hamming
    distance of its own key (0 = exact-match lookups, the classic pigeonhole).
    """

    bits: int
    max_distance: int
    tables: tuple[tuple[Segment, ...], ...]
    design: str
    radii: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.radii:
            object.__setattr__(self, "radii", (0,) * len(self.tables))
        if len(self.radii) != len(self.tables) or min(self.radii) < 0:
            raise ValueError("radii must hold one non-negative radius per table")

    @property
    def table_count(self) -> int:
        return len(self.tables)

    @property
    def exact(self) -> bool:
        """True when every table is probed with its exact key only (all radii 0)."""
        return self.max_radius == 0

    @property
    def max_radius(self) -> int:
        return max(self.radii)

    @cached_property
    def table_key_bits(self) -> tuple[int, ...]:
        """Each table's key width, in bits."""
        return tuple(sum(seg.width for seg in table) for table in self.tables)

    @cached_property
    def probe_counts(self) -> tuple[int, ...]:
        """Keys probed per query in each table: the Hamming ball volume V(key bits, radius)."""
        return tuple(
            _ball_volume(width, radius)
            for width, radius in zip(self.table_key_bits, self.radii, strict=True)
        )

    @property
    def probe_count(self) -> int:
        """Keys probed per query over all tables."""
        return sum(self.probe_counts)

    @cached_property
    def probe_tables(self) -> np.ndarray:
        """The table of each probe column of :meth:`probe_keys` (int64, length probe_count)."""
        return np.repeat(np.arange(self.table_count, dtype=np.int64), self.probe_counts)

    @cached_property
    def probe_masks(self) -> np.ndarray:
        """The XOR mask of each probe column (uint64): per table, all masks of weight <= r."""
        return np.concatenate(
            [
                _masks(width, radius)
                for width, radius in zip(self.table_key_bits, self.radii, strict=True)
            ]
        )

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
        return sum(
            size * probes / 2.0**width
            for width, probes in zip(self.table_key_bits, self.probe_counts, strict=True)
        )

    def probes(self, fingerprint: int) -> list[list[int]]:
        """Per table, every key a query for ``fingerprint`` looks up (its own key first)."""
        out = []
        start = 0
        masks = self.probe_masks.tolist()
        for key, count in zip(self.keys(fingerprint), self.probe_counts, strict=True):
            out.append([key ^ mask for mask in masks[start : start + count]])
            start += count
        return out

    def probe_keys(self, words: np.ndarray, *, prefixed: bool = True) -> np.ndarray:
        """Probe keys for many fingerprints: (n, words) uint64 -> (n, probe_count) uint64.

        Column j belongs to table ``probe_tables[j]``. ``prefixed`` puts the table number above
        the key, ``(table << key_bits) | key``, as the memory backend stores its tables.
        """
        keys = self.keys_array(words)[:, self.probe_tables]
        keys ^= self.probe_masks
        if prefixed:
            keys |= self.probe_tables.astype(np.uint64) << np.uint64(self.key_bits)
        return keys

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
        fields: dict[str, object] = {
            "bits": self.bits, "k": self.max_distance, "design": self.design, "tables": tables
        }
        if not self.exact:  # exact layouts keep the signature they always had
            fields["radii"] = list(self.radii)
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def from_signature(cls, signature: str) -> Layout:
        """The layout whose :meth:`signature` is ``signature`` (a stored index's own)."""
        try:
            fields = json.loads(signature)
            tables = tuple(
                tuple(Segment(int(start), int(width)) for start, width in table)
                for table in fields["tables"]
            )
            return cls(
                bits=int(fields["bits"]),
                max_distance=int(fields["k"]),
                tables=tables,
                design=str(fields["design"]),
                radii=tuple(int(r) for r in fields.get("radii", ())),
            )
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"not a layout signature: {signature!r} ({error})") from None

    def describe(self) -> str:
        """One line for humans: design, table count and key width."""
        width = (
            f"{self.min_key_bits}"
            if self.min_key_bits == self.key_bits
            else f"{self.min_key_bits}-{self.key_bits}"
        )
        text = f"{self.design}: {self.table_count} tables, {width}-bit keys"
        if not self.exact:
            low, high = min(self.radii), self.max_radius
            text += f", probe radius {low}" if low == high else f", probe radius {low}-{high}"
        return text


#: ``tables`` of :func:`make_layout`: None, "auto", "manku", a table count, or a Layout itself
#: (e.g. one rebuilt by :meth:`Layout.from_signature` to reopen a stored index).
TablesOption = int | str | Layout | None


def query_cost(layout: Layout, size: int = NOMINAL_SIZE) -> float:
    """The modelled cost of one query against ``size`` random fingerprints (see the constants)."""
    work = PROBE_COST * layout.probe_count + CANDIDATE_COST * layout.expected_candidates(size)
    if layout.exact:
        return work + EXACT_TABLE_COST * layout.table_count
    return work + PROBING_OVERHEAD


def make_layout(
    bits: int = DEFAULT_BITS,
    max_distance: int = DEFAULT_MAX_DISTANCE,
    tables: TablesOption = None,
    *,
    max_radius: int | None = None,
) -> Layout:
    """Derive the table layout for ``bits``-bit fingerprints and Hamming radius ``max_distance``.

    ``tables``: ``None`` or ``"auto"`` -> the cheapest by :func:`query_cost` of the k + 1 blocks
    and the multi-index hashing designs (at most k + 1 tables); ``"manku"`` -> the exact-match
    design with the fewest expected candidates using at most (k + 1)**2 tables; an int
    t >= k + 1 -> the exact-match design with the fewest expected candidates using at most t
    tables; an int t < k + 1 -> the cheapest multi-index hashing design with at most t tables.
    ``max_radius``: the largest probe radius the backend supports (0 = exact-match lookups only,
    which gives the k + 1 blocks for ``"auto"``); ``None`` = no limit.
    """
    if bits not in SUPPORTED_BITS:
        raise ParameterError("bits", f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    if not isinstance(max_distance, int) or isinstance(max_distance, bool):
        raise TypeError(f"max_distance must be an int, got {max_distance!r}")
    if not 0 <= max_distance < bits // 2:
        raise ParameterError(
            "max_distance", f"max_distance must be in [0, {bits // 2}), got {max_distance}"
        )
    k = max_distance
    if isinstance(tables, Layout):
        return _given_layout(tables, bits, k, max_radius)
    if tables is None or tables == "auto":
        return _cheapest(bits, k, k + 1, max_radius)
    if tables == "manku":
        return _best_design(bits, k, (k + 1) ** 2)
    if isinstance(tables, int) and not isinstance(tables, bool):
        if tables >= k + 1:
            return _best_design(bits, k, tables)
        fewest = _fewest_tables(bits, k, max_radius)
        if tables < fewest:
            detail = "" if fewest == k + 1 else f" (multi-index hashing), else at least {k + 1}"
            raise ParameterError(
                "tables", f"tables must be at least {fewest}{detail} for k = {k}, got {tables}"
            )
        return _cheapest(bits, k, tables, max_radius)
    raise ParameterError(
        "tables", f"tables must be None, 'auto', 'manku' or an int, got {tables!r}"
    )


def _given_layout(layout: Layout, bits: int, k: int, max_radius: int | None) -> Layout:
    """A layout given whole: it must be for these bits and k, within the backend's radius."""
    if (layout.bits, layout.max_distance) != (bits, k):
        raise ValueError(
            f"tables: the layout is for {layout.bits} bits at k = {layout.max_distance}, not "
            f"{bits} bits at k = {k}"
        )
    if max_radius is not None and layout.max_radius > max_radius:
        raise ValueError(
            f"tables: the layout probes at radius {layout.max_radius}, this backend at most "
            f"{max_radius}"
        )
    return layout


def bucket_balance(layout: Layout, words: np.ndarray) -> list[dict[str, float]]:
    """Per table of ``layout`` over the fingerprints ``words`` ((n, words) uint64): key bits,
    buckets used, the largest and mean bucket, the fingerprints sharing a stored one's key on
    average ("candidates") and that figure if keys were uniform."""
    keys = layout.keys_array(words)
    size = words.shape[0]
    out: list[dict[str, float]] = []
    for table, key_bits in enumerate(layout.table_key_bits):
        if size:
            _, counts = np.unique(keys[:, table], return_counts=True)
            counts = counts.astype(np.float64)
            largest, buckets = int(counts.max()), int(counts.size)
            seen = float((counts * counts).sum() / size)
        else:
            largest = buckets = 0
            seen = 0.0
        out.append({
            "table": table, "key_bits": key_bits, "buckets": buckets, "largest": largest,
            "mean": size / buckets if buckets else 0.0, "candidates": seen,
            "uniform": 1.0 + (size - 1) / 2.0**key_bits if size else 0.0,
        })
    return out


def _single_level(bits: int, k: int, blocks: int) -> Layout:
    """b blocks, one table per choice of b - k clean blocks."""
    block_bits = _split(list(range(bits)), blocks)
    tables = []
    for clean in combinations(range(blocks), blocks - k):
        positions = sorted(p for b in clean for p in block_bits[b])
        tables.append(positions)
    design = "blocks" if blocks == k + 1 else f"blocks({blocks})"
    return _finish(bits, k, tables, design)


def _multi_index(bits: int, k: int, blocks: int) -> Layout:
    """Norouzi et al.'s MIH: ``blocks`` disjoint tables whose radii r_i sum (+1 each) to k + 1.

    Wider blocks (the first ones) get the larger radii: they have more keys to spread over.
    """
    block_bits = _split(list(range(bits)), blocks)
    base, extra = divmod(k + 1, blocks)
    radii = tuple(base - 1 + (1 if i < extra else 0) for i in range(blocks))
    return _finish(bits, k, block_bits, f"mih({blocks})", radii)


def _mih_designs(bits: int, k: int, max_tables: int, max_radius: int | None) -> list[Layout]:
    """The MIH designs with probe radius > 0 using 2 to max_tables tables.

    Never a single table: its key would be a whole 64-bit word, leaving no bit for the table
    number that backends put above the key (a shift by 64, see :meth:`Layout.probe_keys`).
    """
    options = []
    for blocks in range(2, min(k, max_tables) + 1):
        base, extra = divmod(k + 1, blocks)
        top = base if extra else base - 1
        if max_radius is not None and top > max_radius:
            continue
        if _ball_volume(math.ceil(bits / blocks), top) * blocks > MAX_PROBES * 4:
            continue  # hopeless: skip before building the masks
        layout = _multi_index(bits, k, blocks)
        if layout.probe_count <= MAX_PROBES:
            options.append(layout)
    return options


def _cheapest(bits: int, k: int, max_tables: int, max_radius: int | None) -> Layout:
    """The design with the lowest :func:`query_cost` using at most max_tables tables."""
    options = _mih_designs(bits, k, max_tables, max_radius)
    if max_tables >= k + 1:
        options.append(_single_level(bits, k, k + 1))
    # cheapest, then fewer tables (less memory); list order breaks remaining ties
    return min(options, key=lambda lay: (query_cost(lay), lay.table_count))


def _fewest_tables(bits: int, k: int, max_radius: int | None) -> int:
    """The smallest table budget that some design (MIH or blocks) satisfies."""
    counts = [lay.table_count for lay in _mih_designs(bits, k, k, max_radius)]
    return min(counts, default=k + 1)


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


def _finish(
    bits: int, k: int, tables: list[list[int]], design: str, radii: tuple[int, ...] = ()
) -> Layout:
    table_bits = max(0, math.ceil(math.log2(len(tables))))
    cap = MAX_COMBINED_KEY_BITS - table_bits
    return Layout(
        bits=bits,
        max_distance=k,
        tables=tuple(_segments(positions[:cap]) for positions in tables),
        design=design,
        radii=radii,
    )


def _ball_volume(width: int, radius: int) -> int:
    """Keys within Hamming distance ``radius`` of one ``width``-bit key."""
    return sum(math.comb(width, i) for i in range(min(radius, width) + 1))


def _masks(width: int, radius: int) -> np.ndarray:
    """Every ``width``-bit XOR mask of weight <= radius, lighter first (uint64)."""
    out = [
        sum(1 << p for p in positions)
        for weight in range(min(radius, width) + 1)
        for positions in combinations(range(width), weight)
    ]
    return np.array(out, dtype=np.uint64)


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
