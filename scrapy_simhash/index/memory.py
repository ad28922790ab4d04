"""In-memory backend: compact numpy tables, an unsorted insert buffer and leveled sorted runs.

Storage (no Python object per fingerprint):

- fingerprints: one (n, words) uint64 array in insertion order, so a row id is an insertion rank;
- each sorted *run* covers some rows and holds, for every table, the table key prefixed with the
  table number (one flat sorted array, uint32 when it fits) and the row ids (uint32);
- the newest rows (at most ``buffer_size``) sit in an unsorted buffer that queries scan directly.

When the buffer fills it becomes a run, merged into level 0; a level that outgrows its capacity
(``buffer_size * fanout ** (level + 1)``) is merged into the next one, as in a leveled LSM tree.
An insert therefore costs amortised O(fanout * log n) element moves, and a query one
``searchsorted`` per level (at most a handful) plus a vectorised Hamming check of the candidates.

A hot bucket (many fingerprints sharing one table key, e.g. templated near-empty pages) is never
truncated, which would break exactness: its rows are one contiguous slice of a run, checked with
vectorised popcounts, so a query costs O(bucket size) numpy work, never Python work per
candidate. Measured: with 100,000 fingerprints in one bucket beside 1M random ones, a query
that hits the bucket takes ~0.2 ms (an ordinary one ~12 us), i.e. about 2 ns per candidate.

Memory at k = 3, f = 64: 8 B per fingerprint + 4 tables x (4 B key + 4 B row id) = 40 B per
fingerprint (up to 1.5x slack on the fingerprint array while it grows), plus the keys.

Layouts with a probe radius (multi-index hashing, see :mod:`.layout`) look up hundreds of keys
per query, too many for binary searches (~0.2 us each at 1M), and their runs are built another
way. Per table, a run's rows are bucketed (a counting sort, one pass over the rows, no key
comparisons) by the top bits of their key: a *directory* holds each bucket's start (about one
slot per 1-2 rows; one per key once the run outgrows the key space, e.g. 21-22-bit keys at 10M
rows). The keys themselves are not kept: a probe scans its whole slot. Each entry holds its row
id and a *fragment*: the word of its row that holds the fewest of its table's key bits. A
random row beyond the radius almost never has that word alone within the radius (at 128 bits,
k = 16: P(d <= 16 of 64 bits) ~ 4e-5), so a query reads the whole fingerprint of hardly any row
but its true neighbours: the ~4,650 candidates a query meets at 10M rows cost a sequential
compare each, not a random read. For f = 128, k = 16 (6 tables) that is 16 B fingerprint + 6 x
(4 B row + 8 B fragment + 0.7-4 B directory) ~ 95-112 B per fingerprint (95 at 10M).

A single query goes through each run in one compiled loop (``_probe.probe_run``) that pipelines
its ~1,200 probes with prefetches, so the two cache misses of a probe (directory slot, then
fragments) overlap those of the probes around it; a batch runs its queries' probes as one such
stream. Runs are rebuilt from their rows (adjacent in row order) when levels merge, in one pass
each, and a bulk load (``extend(..., bulk=True)`` then :meth:`FingerprintTables.after_bulk_load`)
seals its rows once into a single run.

Small batches (``search_many`` while the sealed rows are few, see ``_NUMPY_BATCH_MAX_SHARE``)
take numpy instead, first dropping the probes no stored fingerprint can answer: an occupancy
bitmap holds one bit per possible table key (3 MB for the default layout, built on the first
batch), tested a 64-bit word at a time (:class:`_WordProbes`). At 100,000 fingerprints ~95% of
the probes go no further, so a batched query costs a few microseconds.

A removed row stays in the fingerprint array and the runs, a tombstone every search leaves out
(removals are rare: a set of row ids costs less than rebuilding runs). Evidence, a few dozen
bytes per key, lives in an :class:`EvidenceStore`: about its bytes plus the key's plus ~55 B.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from .base import Match, NearDuplicateIndex
from .keystore import KeyStore
from .layout import Layout, TablesOption

try:  # compiled twins of one query's numpy steps (see _probe.pyx): the same rows
    from ._probe import bucket_rows as _compiled_bucket_rows
    from ._probe import near_rows as _compiled_near_rows
    from ._probe import probe_run as _compiled_probe_run
except ImportError:  # built without a C compiler: the numpy versions
    _compiled_probe_run = _compiled_near_rows = _compiled_bucket_rows = None

MASK64 = (1 << 64) - 1
_ROW_DTYPE = np.uint32
_MAX_ROWS = int(np.iinfo(_ROW_DTYPE).max)
_BATCH_CHUNK = 1 << 20
_TRIM_AFTER_ROWS = 1 << 18  # a load or a run this large gives its freed heap back (~ms)
_QUERY_CHUNK = 4096
_PROBE_CHUNK = 1 << 17  # probes per vectorised step of a batched probing query
_MAX_OCCUPANCY_BITS = 1 << 28  # occupancy bitmaps up to 32 MB (the default layout: 3 MB)
_SLOT_EXTRA = 0
# Batched probing queries go through numpy (all probes at once, filtered by the occupancy
# bitmap) while the sealed rows are at most this share of one table's key space; beyond it the
# bitmap is mostly ones and the compiled single-query loop, query by query, is faster
# (measured at (128, 16): numpy ahead at 300,000 rows, behind at 1M).
_NUMPY_BATCH_MAX_SHARE = 0.25

if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def popcount(values: np.ndarray) -> np.ndarray:
        """Set bits per uint64 element."""
        return np.bitwise_count(values)

else:  # pragma: no cover - exercised only on numpy < 2
    _BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def popcount(values: np.ndarray) -> np.ndarray:
        """Set bits per uint64 element (byte lookup table)."""
        as_bytes = np.ascontiguousarray(values, dtype=np.uint64).view(np.uint8)
        return _BYTE_COUNTS[as_bytes].reshape(*values.shape, 8).sum(axis=-1, dtype=np.uint8)


def split_words(fingerprints: Sequence[int], words: int) -> np.ndarray:
    """Python ints -> (n, words) uint64, least significant word first."""
    if words == 1:
        return np.array(fingerprints, dtype=np.uint64).reshape(-1, 1)
    out = np.empty((len(fingerprints), words), dtype=np.uint64)
    for w in range(words):
        out[:, w] = [(fp >> (64 * w)) & MASK64 for fp in fingerprints]
    return out


class _Growable:
    """A 2-D numpy array that appends rows with geometric (x1.5) capacity growth."""

    def __init__(self, width: int, dtype: type, capacity: int = 1024) -> None:
        self.data = np.zeros((capacity, width), dtype=dtype)
        self.size = 0

    def reserve(self, extra: int) -> None:
        need = self.size + extra
        if need > self.data.shape[0]:
            capacity = max(need, int(self.data.shape[0] * 1.5) + 1)
            grown = np.zeros((capacity, self.data.shape[1]), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown

    def extend(self, block: np.ndarray) -> None:
        self.reserve(block.shape[0])
        self.data[self.size : self.size + block.shape[0]] = block
        self.size += block.shape[0]


@dataclass
class _Run:
    """Sorted (table-prefixed key, row) pairs for a set of rows, all tables in one array.

    A probing layout's run keeps no keys once its directory is built (the directory says where
    each key's entries are); each entry carries a *fragment* instead: the fingerprint word that
    holds the fewest of its table's key bits, which a query compares before reading the row.
    """

    keys: np.ndarray | None
    rows: np.ndarray
    size: int  # fingerprints covered (rows has size * tables entries)
    start: int  # the first row covered: a run covers rows [start, start + size)
    directory: np.ndarray | None = None  # probing layouts: bucket start offsets per table
    table_base: np.ndarray | None = None  # per table: its first directory slot (intp)
    table_shift: np.ndarray | None = None  # per table: key bits below the directory's (uint64)
    fragments: np.ndarray | None = None  # probing layouts: per entry, one word of its row


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc's
    except Exception:  # another C library (musl, macOS) or no dlopen of the process
        return None


def release_freed_heap() -> None:
    """Hand the C heap's free pages back to the system, where the C library can (glibc).

    Loads and merges free their temporaries (a chunk's keys and fingerprints, the runs merged
    away) into the heap, where a large array allocated after them pins them: at 10M rows,
    15 B a row after a bulk load and 60 B after as many single adds, memory nothing uses."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _spread(starts: np.ndarray, values: np.ndarray, total: int) -> np.ndarray:
    """``values[j]`` repeated from ``starts[j]`` up to the next start (the end: ``total``).

    ``starts`` must be strictly increasing with ``starts[0] == 0``. Built as the cumulative sum
    of the values' differences (wrapping for uint64, which cancels out).
    """
    steps = np.zeros(total, dtype=values.dtype)
    steps[starts] = np.diff(values, prepend=values.dtype.type(0))
    return np.cumsum(steps, dtype=values.dtype)


class FingerprintTables:
    """The pigeonhole engine: fingerprints by row id, found by Hamming radius. No keys.

    Backends wrap it: :class:`MemoryIndex` adds page keys, the SQLite backend uses it as a read
    cache that maps rows to database ids.
    """

    def __init__(self, layout: Layout, *, buffer_size: int = 2048, fanout: int = 8) -> None:
        if buffer_size < 1 or fanout < 2:
            raise ValueError("buffer_size must be >= 1 and fanout >= 2")
        self.layout = layout
        self.buffer_size = buffer_size
        self.fanout = fanout
        self._words = layout.words
        self._fps = _Growable(self._words, np.uint64)
        self._levels: list[_Run | None] = []
        self._sealed = 0  # rows [0, _sealed) are in runs, [_sealed, size) in the buffer
        self._removed: set[int] = set()  # rows searches leave out (see remove)
        combined = layout.key_bits + layout.table_bits
        self._key_dtype = np.uint32 if combined <= 32 else np.uint64
        key_type_bits = 32 if self._key_dtype is np.uint32 else 64
        self._probe_once = combined < key_type_bits  # key + 1 fits: one searchsorted per run
        self._prefixes = [t << layout.key_bits for t in range(layout.table_count)]
        self._prefix_array = np.array(self._prefixes, dtype=np.uint64)
        self._key_specs = [
            [(seg.start, (1 << seg.width) - 1, offset) for seg, offset in _offsets(table)]
            for table in layout.tables
        ]
        self._probing = not layout.exact
        if self._probing:
            self._probe_tables = layout.probe_tables.astype(np.intp)
            self._probe_masks = layout.probe_masks
            self._key_mask = np.uint64((1 << layout.key_bits) - 1)
            self._key_shift = np.uint64(layout.key_bits)
            self._fragment_word = _fragment_words(layout)
        # Probing layouts: one bit per possible table-prefixed key, set when a sealed row has
        # that key. Built on the first batched query (single queries never pay for it), it
        # lets a batch drop the probes that cannot match before touching any run.
        self._occupied: np.ndarray | None = None
        self._occupancy_bits = layout.table_count << layout.key_bits
        if self._probing and layout.key_bits >= 6:
            self._word_probes = _WordProbes(layout)

    def __len__(self) -> int:
        """Rows stored, removed ones included (a row id is an insertion rank)."""
        return self._fps.size

    @property
    def live(self) -> int:
        """Rows stored and not removed."""
        return self._fps.size - len(self._removed)

    def stored_words(self) -> np.ndarray:
        """The rows not removed, as an (n, words) uint64 array (a copy), in row order."""
        rows = self._fps.data[: self._fps.size]
        if not self._removed:
            return rows.copy()
        keep = np.ones(self._fps.size, dtype=bool)
        keep[list(self._removed)] = False
        return rows[keep]

    def remove(self, row: int) -> bool:
        """Leave ``row`` out of every later search; False if it is no row or already removed.

        Its table entries stay (searches filter it out): removals are rare, and a tombstone
        keeps the runs and the row ids as they are.
        """
        if not 0 <= row < self._fps.size or row in self._removed:
            return False
        self._removed.add(row)
        return True

    # -- inserts ---------------------------------------------------------------------------------

    def append(self, fingerprint: int) -> int:
        """Store one fingerprint; returns its row id."""
        row = self._fps.size
        if row >= _MAX_ROWS:
            raise OverflowError("the in-memory index holds at most 2**32 - 1 fingerprints")
        self._fps.reserve(1)
        data = self._fps.data
        for w in range(self._words):
            data[row, w] = (fingerprint >> (64 * w)) & MASK64
        self._fps.size = row + 1
        if self._fps.size - self._sealed >= self.buffer_size:
            self.seal()
        return row

    def extend(self, words: np.ndarray, *, bulk: bool = False) -> int:
        """Store many fingerprints given as (n, words) uint64; returns the first row id.

        ``bulk``: part of a load that ends with :meth:`after_bulk_load`. A probing layout then
        seals the rows once (one run bucketed in one pass, not the levels' cascade); until then
        they sit in the insert buffer, which a query scans whole. Exact layouts seal as usual
        (one sort of a whole load would cost more than their merges)."""
        first = self._fps.size
        if first + words.shape[0] > _MAX_ROWS:
            raise OverflowError("the in-memory index holds at most 2**32 - 1 fingerprints")
        self._fps.extend(words)
        deferred = bulk and self._probing
        if not deferred and self._fps.size - self._sealed >= self.buffer_size:
            self.seal()
        return first

    def seal(self) -> None:
        """Turn the insert buffer into a sorted run (queries need not scan it any more)."""
        start, end = self._sealed, self._fps.size
        if end == start:
            return
        if self._occupied is not None:
            _set_bits(self._occupied, self._row_keys(start, end))
        if self._probing:
            self._place_rows(start, end)
        else:
            self._insert_run(self._build_run(start, end))
        self._sealed = end

    def compact(self) -> None:
        """Merge everything into a single run: the fastest layout for queries after a bulk load."""
        self.seal()
        runs = [run for run in self._levels if run is not None]
        if len(runs) <= 1:
            return
        if self._probing:
            merged = self._build_probing_run(0, self._sealed)
        else:
            merged = runs[0]
            for run in runs[1:]:
                merged = _merge(merged, run)
        self._levels = [None] * len(self._levels)
        self._levels.append(merged)
        release_freed_heap()

    def _capacity(self, level: int) -> int:
        return self.buffer_size * self.fanout ** (level + 1)

    def _insert_run(self, run: _Run) -> None:
        """Merge ``run`` down the levels until one can hold it (a level past the last one
        too: a large run never sits where the next small one would merge with it)."""
        level = 0
        levels = self._levels
        while True:
            if level == len(levels):
                levels.append(None)
            if levels[level] is not None:
                run = _merge(levels[level], run)
                levels[level] = None
            if run.size <= self._capacity(level):
                levels[level] = run
                if run.size >= _TRIM_AFTER_ROWS:  # the runs merged into it are freed
                    release_freed_heap()
                return
            level += 1

    def _place_rows(self, start: int, end: int) -> None:
        """:meth:`_insert_run` for a probing layout: the same levels, but the merged rows are
        bucketed afresh in one pass instead of merging sorted runs. Every run covers adjacent
        rows (deeper levels older), so a merge is the run of one row range."""
        levels = self._levels
        level, merged = 0, []
        while True:
            if level < len(levels) and levels[level] is not None:
                start = levels[level].start
                merged.append(level)
            if end - start <= self._capacity(level):
                break
            level += 1
        run = self._build_probing_run(start, end)
        for emptied in merged:
            levels[emptied] = None
        levels.extend([None] * (level + 1 - len(levels)))
        levels[level] = run
        if run.size >= _TRIM_AFTER_ROWS:  # the runs it replaced are freed
            release_freed_heap()

    def after_bulk_load(self, added: int) -> None:
        """End a load of ``added`` rows stored with ``extend(..., bulk=True)``: seal them as
        ``extend`` would have, and merge every run into one if the load brought at least
        1/fanout of the rows (it may have left a few large runs, each walked by every query: a
        probing layout's ~1,200 probes once per run; one merge costs about what the load did).
        """
        if self.buffered >= self.buffer_size:
            self.seal()
        if added * self.fanout >= len(self) and self.run_count > 1:
            self.compact()
        if added >= _TRIM_AFTER_ROWS:  # its chunks' keys and fingerprints are freed
            release_freed_heap()

    def _build_probing_run(self, start: int, end: int) -> _Run:
        """A probing layout's run of rows [start, end): per table, the rows bucketed by their
        key's top bits (the directory's slots; in row order within a slot) and each entry's
        fragment: the word of its row that its key says least about. Random rows beyond the
        radius almost never pass a check of that word alone (P(d <= 16 of 64 bits) ~ 4e-5),
        so a query reads few rows. Keys are not kept: a probe scans its whole slot.

        The directory has about one slot per 1-2 rows in each table (at most one per key)."""
        size = end - start
        tables = self.layout.table_count
        widths = np.array(self.layout.table_key_bits, dtype=np.int64)
        slot_bits = np.minimum(widths, max(0, (size - 1).bit_length() - 1 + _SLOT_EXTRA))
        shift = widths - slot_bits
        base = np.concatenate([[0], np.cumsum(np.int64(1) << slot_bits)])
        offsets = np.uint32 if size * tables < _MAX_ROWS else np.int64
        directory = np.zeros(int(base[-1]) + 1, dtype=offsets)
        rows = np.empty(size * tables, dtype=_ROW_DTYPE)
        fragments = np.empty(size * tables, dtype=np.uint64)
        block = self._fps.data[start:end]
        for table, spec in enumerate(self._key_specs):
            key = np.zeros(size, dtype=np.uint64)
            for bit, mask, offset in spec:
                part = block[:, bit // 64] >> np.uint64(bit % 64)
                key |= (part & np.uint64(mask)) << np.uint64(offset)
            slots = (key >> np.uint64(shift[table])).astype(np.int64)
            counts = np.bincount(slots, minlength=1 << int(slot_bits[table]))
            first, last = int(base[table]), int(base[table + 1])
            section = slice(size * table, size * (table + 1))
            cursor = np.cumsum(counts) - counts  # each slot's first entry in the section
            directory[first:last] = cursor + size * table
            word = int(self._fragment_word[table])
            if _compiled_bucket_rows is not None:
                _compiled_bucket_rows(
                    self._fps.data, start, slots, cursor, word, rows[section], fragments[section]
                )
            else:
                order = np.argsort(slots, kind="stable")
                rows[section] = order + start
                fragments[section] = block[order, word]
        directory[-1] = size * tables
        return _Run(
            keys=None, rows=rows, size=size, start=start, directory=directory,
            table_base=base[:-1].astype(np.intp), table_shift=shift.astype(np.uint64),
            fragments=fragments,
        )

    def _row_keys(self, start: int, end: int) -> np.ndarray:
        """The table-prefixed keys of rows [start, end), sorted (as :func:`_set_bits` needs)."""
        keys = self.layout.keys_array(self._fps.data[start:end]) | self._prefix_array
        return np.sort(keys, axis=None)

    def _build_run(self, start: int, end: int) -> _Run:
        tables = self.layout.table_count
        keys = self.layout.keys_array(self._fps.data[start:end])  # (m, tables)
        combined = (keys.T | self._prefix_array[:, None]).ravel().astype(self._key_dtype)
        rows = np.tile(np.arange(start, end, dtype=_ROW_DTYPE), tables)
        order = np.argsort(combined, kind="stable")
        return _Run(keys=combined[order], rows=rows[order], size=end - start, start=start)

    # -- lookups ---------------------------------------------------------------------------------

    def fingerprint(self, row: int) -> int:
        """The fingerprint stored at ``row``."""
        data = self._fps.data
        if self._words == 1:
            return int(data[row, 0])
        return int(data[row, 0]) | (int(data[row, 1]) << 64)

    def _probe_keys(self, fingerprint: int) -> list[int]:
        out = []
        for prefix, spec in zip(self._prefixes, self._key_specs, strict=True):
            key = prefix
            for start, mask, offset in spec:
                key |= ((fingerprint >> start) & mask) << offset
            out.append(key)
        return out

    def candidate_count(self, fingerprint: int) -> int:
        """Table entries a query for ``fingerprint`` checks (before de-duplication, no buffer).

        Probing layouts: the entries of the directory slots probed, which a query compares by
        their fragment (a slot of a small run may hold a few neighbouring keys)."""
        if self._probing:
            probes = self._probe_values(split_words([fingerprint], self._words))
            return sum(
                self._run_candidates(run, probes)[0].size
                for run in self._levels
                if run is not None
            )
        probes = np.array(self._probe_keys(fingerprint), dtype=self._key_dtype)
        total = 0
        for run in self._levels:
            if run is not None:
                lows = run.keys.searchsorted(probes, side="left")
                total += int((run.keys.searchsorted(probes, side="right") - lows).sum())
        return total

    def _distances(
        self, rows: np.ndarray | slice, query_words: Sequence[np.uint64] | np.ndarray
    ) -> np.ndarray:
        data = self._fps.data
        distance = popcount(data[rows, 0] ^ query_words[0])
        for w in range(1, self._words):
            distance = distance + popcount(data[rows, w] ^ query_words[w])
        return distance

    def _probe_values(self, words: np.ndarray) -> np.ndarray:
        """Table-prefixed probe keys of (n, words) queries, query-major, flat uint64."""
        return self._probes_of_keys(self.layout.keys_array(words)).ravel()

    def _probes_of_keys(self, keys: np.ndarray) -> np.ndarray:
        """The probes of table keys (one query's, or one row per query), in place of ``keys``'
        last axis: each key prefixed with its table, then flipped by each probe mask."""
        keys |= self._prefix_array  # the masks below only touch key bits, never the prefix
        probes = keys[..., self._probe_tables]
        probes ^= self._probe_masks
        return probes

    def _occupancy(self) -> np.ndarray | None:
        """The occupancy bitmap of the sealed rows' keys (built now if needed), or None when
        the key space is too large for one."""
        if self._occupied is None and self._occupancy_bits <= _MAX_OCCUPANCY_BITS:
            occupied = np.zeros(-(-self._occupancy_bits // 64), dtype=np.uint64)
            for run in self._levels:
                if run is not None:
                    _set_bits(occupied, self._row_keys(run.start, run.start + run.size))
            self._occupied = occupied
        return self._occupied

    def _run_candidates(
        self, run: _Run, probes: np.ndarray, *, owners: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Positions in ``run`` of the entries in the directory slots of ``probes`` (and, if
        ``owners``, the index of that probe for each). ``probes`` are table-prefixed keys, in
        any order; a slot of a small run may hold neighbouring keys too, which the fragment
        and distance checks then drop.

        Each probe reads its directory slot's [start, end) range; the ranges are concatenated
        with cumulative sums (cheaper than ``np.repeat`` for ranges of 1-2 entries).
        """
        table = (probes >> self._key_shift).astype(np.intp)
        slots = ((probes & self._key_mask) >> run.table_shift[table]).astype(np.intp)
        slots += run.table_base[table]
        lows = run.directory[slots].astype(np.int64)
        counts = run.directory[slots + 1] - lows
        ends = np.cumsum(counts)
        total = int(ends[-1]) if ends.size else 0
        if total == 0:
            empty = np.empty(0, dtype=np.int64)
            return empty, (empty if owners else None)
        used = np.flatnonzero(counts != 0)  # a bool mask: nonzero() is much faster on it
        starts = ends[used] - counts[used]
        positions = _spread(starts, lows[used] - starts, total)
        positions += np.arange(total, dtype=np.int64)
        if not owners:
            return positions, None
        return positions, _spread(starts, used, total)

    def _query_probes(self, fingerprint: int) -> np.ndarray:
        """:meth:`_probe_values` of one fingerprint, its table keys computed in Python (numpy
        costs a microsecond per call even on one row)."""
        return self._probes_of_keys(np.array(self.layout.keys(fingerprint), dtype=np.uint64))

    def _probing_search(self, fingerprint: int, max_distance: int) -> list[tuple[int, int]]:
        """:meth:`search` for layouts with a probe radius: every probe of every run at once."""
        if _compiled_probe_run is not None:
            return self._compiled_search(fingerprint, max_distance)
        query = split_words([fingerprint], self._words)[0]
        rows_found, distances_found = [], []
        runs = [run for run in self._levels if run is not None]
        probes = self._query_probes(fingerprint) if runs else None
        for run in runs:
            positions = self._run_candidates(run, probes)[0]
            wanted = query[self._fragment_word[self._entry_tables(run, positions)]]
            passed = popcount(run.fragments[positions] ^ wanted) <= max_distance
            rows = run.rows[positions[passed]]
            distance = self._distances(rows, query)
            near = distance <= max_distance
            rows_found.append(rows[near])
            distances_found.append(distance[near])
        end = self._fps.size
        if end > self._sealed:
            distance = self._distances(slice(self._sealed, end), query)
            near = np.flatnonzero(distance <= max_distance)
            rows_found.append(near + self._sealed)
            distances_found.append(distance[near])
        found = {
            row: dist
            for rows, distance in zip(rows_found, distances_found, strict=True)
            for row, dist in zip(rows.tolist(), distance.tolist(), strict=True)
        }
        return sorted((dist, row) for row, dist in found.items())

    def _entry_tables(self, run: _Run, positions: np.ndarray) -> np.ndarray:
        """The table of each entry at ``positions`` in ``run`` (tables are contiguous)."""
        starts = run.directory[run.table_base].astype(np.int64)
        return np.searchsorted(starts, positions, side="right") - 1

    def _compiled_search(self, fingerprint: int, max_distance: int) -> list[tuple[int, int]]:
        """:meth:`_probing_search` in the compiled loops: per run, all probes pipelined with
        prefetches (see ``_probe.probe_run``), then the insert buffer's rows."""
        found: dict[int, int] = {}
        query = [(fingerprint >> (64 * w)) & MASK64 for w in range(self._words)]
        if self._sealed:
            keys = np.array([self.layout.keys(fingerprint)], dtype=np.uint64)
            self._compiled_probe(keys, np.array([query], dtype=np.uint64), max_distance, [found])
        for dist, row in _compiled_near_rows(
            self._fps.data, self._sealed, self._fps.size, query, max_distance
        ):
            found[row] = dist
        return sorted((dist, row) for row, dist in found.items())

    def _compiled_search_many(
        self, words: np.ndarray, max_distance: int
    ) -> list[list[tuple[int, int]]]:
        """:meth:`search_many` of sealed rows in the compiled loop: the probes of a chunk of
        queries form one pipelined stream per run."""
        results: list[list[tuple[int, int]]] = []
        for start in range(0, words.shape[0], _QUERY_CHUNK):
            chunk = np.ascontiguousarray(words[start : start + _QUERY_CHUNK], dtype=np.uint64)
            found: list[dict[int, int]] = [{} for _ in range(chunk.shape[0])]
            self._compiled_probe(self.layout.keys_array(chunk), chunk, max_distance, found)
            results.extend(sorted((dist, row) for row, dist in hits.items()) for hits in found)
        return results

    def _compiled_probe(
        self, keys: np.ndarray, words: np.ndarray, max_distance: int, found: list[dict[int, int]]
    ) -> None:
        for run in self._levels:
            if run is not None:
                _compiled_probe_run(
                    run.rows, run.fragments, run.directory, run.table_base, run.table_shift,
                    self._fragment_word, keys, self._probe_tables, self._probe_masks,
                    self._fps.data, words, max_distance, found,
                )

    def search(self, fingerprint: int, max_distance: int) -> list[tuple[int, int]]:
        """(distance, row) of every fingerprint within ``max_distance``, sorted (removed rows
        left out)."""
        found = self._search_rows(fingerprint, max_distance)
        if self._removed:
            return [hit for hit in found if hit[1] not in self._removed]
        return found

    def _search_rows(self, fingerprint: int, max_distance: int) -> list[tuple[int, int]]:
        """:meth:`search`, removed rows included."""
        if self._probing:
            return self._probing_search(fingerprint, max_distance)
        query_words = [np.uint64((fingerprint >> (64 * w)) & MASK64) for w in range(self._words)]
        found: dict[int, int] = {}
        runs = [run for run in self._levels if run is not None]
        if runs:
            probes = self._probe_keys(fingerprint)
            tables = len(probes)
            if self._probe_once:
                both = np.array(probes + [p + 1 for p in probes], dtype=self._key_dtype)
            else:
                left = np.array(probes, dtype=self._key_dtype)
            parts = []
            for run in runs:
                if self._probe_once:
                    bounds = run.keys.searchsorted(both).tolist()
                    lows, highs = bounds[:tables], bounds[tables:]
                else:
                    lows = run.keys.searchsorted(left, side="left").tolist()
                    highs = run.keys.searchsorted(left, side="right").tolist()
                parts.extend(
                    run.rows[lo:hi] for lo, hi in zip(lows, highs, strict=True) if hi > lo
                )
            if parts:
                candidates = parts[0] if len(parts) == 1 else np.concatenate(parts)
                distance = self._distances(candidates, query_words)
                hits = np.flatnonzero(distance <= max_distance)
                if hits.size:
                    for row, dist in zip(
                        candidates[hits].tolist(), distance[hits].tolist(), strict=True
                    ):
                        found[row] = dist
        end = self._fps.size
        # The buffer's rows in the compiled loop; the runs' candidates above stay with numpy,
        # which is faster for the thousands that narrow exact tables (17 for 128 bits) give.
        if end > self._sealed and _compiled_near_rows is not None:
            for dist, row in _compiled_near_rows(
                self._fps.data, self._sealed, end, query_words, max_distance
            ):
                found[row] = dist
        elif end > self._sealed:
            buffered = np.arange(self._sealed, end)
            distance = self._distances(buffered, query_words)
            hits = np.flatnonzero(distance <= max_distance)
            for offset, dist in zip(hits.tolist(), distance[hits].tolist(), strict=True):
                found[self._sealed + offset] = dist
        return sorted((dist, row) for row, dist in found.items())

    def search_many(
        self, words: np.ndarray, max_distance: int
    ) -> list[list[tuple[int, int]]]:
        """:meth:`search` for (n, words) uint64 fingerprints, vectorised over queries."""
        results = self._search_many_rows(words, max_distance)
        if self._removed:
            removed = self._removed
            return [[hit for hit in hits if hit[1] not in removed] for hits in results]
        return results

    def _search_many_rows(
        self, words: np.ndarray, max_distance: int
    ) -> list[list[tuple[int, int]]]:
        """:meth:`search_many`, removed rows included."""
        self.seal()
        results: list[list[tuple[int, int]]] = []
        if self._probing and not self._batches_in_numpy():
            return self._compiled_search_many(words, max_distance)
        if self._probing:
            step = max(1, _PROBE_CHUNK // self.layout.probe_count)
            for start in range(0, words.shape[0], step):
                chunk = words[start : start + step]
                results.extend(self._probing_chunk(chunk, max_distance))
            return results
        for start in range(0, words.shape[0], _QUERY_CHUNK):
            results.extend(self._search_chunk(words[start : start + _QUERY_CHUNK], max_distance))
        return results

    def _batches_in_numpy(self) -> bool:
        """True when a batch of probing queries is faster in numpy (see _NUMPY_BATCH_MAX_SHARE)."""
        if _compiled_probe_run is None:
            return True
        return self._sealed <= _NUMPY_BATCH_MAX_SHARE * (1 << self.layout.min_key_bits)

    def _probing_chunk(self, words: np.ndarray, max_distance: int) -> list[list[tuple[int, int]]]:
        """A batch of queries through the directories: all their probes in one numpy pass.

        Probes whose key no sealed row has (the occupancy bitmap says so in one gather) are
        dropped first: at 100,000 fingerprints that is ~97% of them, at 1M still ~70%.
        """
        found_query: list[np.ndarray] = []
        found_row: list[np.ndarray] = []
        found_distance: list[np.ndarray] = []
        runs = [run for run in self._levels if run is not None]
        if not runs:
            return _group_hits(words.shape[0], found_query, found_row, found_distance)
        occupied = self._occupancy() if self.layout.key_bits >= 6 else None
        if occupied is not None:
            probes, probe_query = self._word_probes.occupied(
                self.layout.keys_array(words), occupied
            )
        else:
            probes = self._probe_values(words)
            probe_query = np.arange(probes.size, dtype=np.int64) // self.layout.probe_count
        for run in runs:
            positions, owner = self._run_candidates(run, probes, owners=True)
            if not positions.size:
                continue
            query = probe_query[owner]
            table = (probes[owner] >> self._key_shift).astype(np.intp)
            wanted = words[query, self._fragment_word[table]]
            passed = np.flatnonzero(popcount(run.fragments[positions] ^ wanted) <= max_distance)
            rows, query = run.rows[positions[passed]], query[passed]
            data = self._fps.data
            distance = popcount(data[rows, 0] ^ words[query, 0])
            for w in range(1, self._words):
                distance += popcount(data[rows, w] ^ words[query, w])
            near = distance <= max_distance
            found_query.append(query[near])
            found_row.append(rows[near])
            found_distance.append(distance[near])
        return _group_hits(words.shape[0], found_query, found_row, found_distance)

    def _search_chunk(self, words: np.ndarray, max_distance: int) -> list[list[tuple[int, int]]]:
        count = words.shape[0]
        tables = self.layout.table_count
        keys = self.layout.keys_array(words) | self._prefix_array[None, :]
        probes = keys.ravel().astype(self._key_dtype)  # query-major: probe i -> query i // tables
        found_query, found_row, found_distance = [], [], []
        order = np.argsort(probes, kind="stable")
        sorted_probes = probes[order]  # sorted needles make searchsorted cache-friendly
        for run in self._levels:
            if run is None:
                continue
            lows = np.empty(probes.size, dtype=np.intp)
            highs = np.empty(probes.size, dtype=np.intp)
            lows[order] = run.keys.searchsorted(sorted_probes, side="left")
            highs[order] = run.keys.searchsorted(sorted_probes, side="right")
            counts = highs - lows
            total = int(counts.sum())
            if total == 0:
                continue
            starts = np.cumsum(counts) - counts
            positions = np.repeat(lows - starts, counts) + np.arange(total)
            rows = run.rows[positions]
            query = np.repeat(np.arange(probes.size) // tables, counts)
            distance = popcount(self._fps.data[rows, 0] ^ words[query, 0])
            for w in range(1, self._words):
                distance = distance + popcount(self._fps.data[rows, w] ^ words[query, w])
            hits = distance <= max_distance
            found_query.append(query[hits])
            found_row.append(rows[hits])
            found_distance.append(distance[hits])
        return _group_hits(count, found_query, found_row, found_distance)

    # -- accounting ------------------------------------------------------------------------------

    def nbytes(self) -> int:
        """Bytes held by the fingerprint array (allocated capacity), all runs and, once a
        batched query has built it, the occupancy bitmap."""
        runs = sum(
            sum(part.nbytes for part in (r.keys, r.rows, r.directory, r.fragments)
                if part is not None)
            for r in self._levels
            if r is not None
        )
        occupied = 0 if self._occupied is None else self._occupied.nbytes
        return self._fps.data.nbytes + runs + occupied

    @property
    def run_count(self) -> int:
        return sum(run is not None for run in self._levels)

    @property
    def buffered(self) -> int:
        return self._fps.size - self._sealed


def _group_hits(
    count: int, found_query: list, found_row: list, found_distance: list
) -> list[list[tuple[int, int]]]:
    """(query, row, distance) hits -> per query, (distance, row) sorted, each row once."""
    results: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    if not found_query:
        return results
    query = np.concatenate(found_query).astype(np.int64)
    rows = np.concatenate(found_row).astype(np.int64)
    distance = np.concatenate(found_distance).astype(np.int64)
    pair = (query << 32) | rows
    _, first = np.unique(pair, return_index=True)  # a row found by several tables once
    query, rows, distance = query[first], rows[first], distance[first]
    order = np.lexsort((rows, distance, query))
    for q, dist, row in zip(
        query[order].tolist(), distance[order].tolist(), rows[order].tolist(), strict=True
    ):
        results[q].append((dist, row))
    return results


class _WordProbes:
    """The probes of a batch of queries, tested against the occupancy bitmap a word at a time.

    A probe's bit is ``(table << key_bits) | (key ^ mask)``: its word (bit >> 6) depends on the
    mask's high bits only, its place in the word on the low six. Grouping a table's masks by
    their high bits, one gather reads the word of a whole group and one AND with the group's
    *wanted* bits (looked up from the key's low six bits) tests all its probes: for the default
    layout about 650 groups instead of 1,226 probes per query. Only the bits that are both
    wanted and set become probes, so what is returned is exactly the occupied probe keys.
    """

    def __init__(self, layout: Layout) -> None:
        masks, tables = layout.probe_masks, layout.probe_tables
        pairs = np.stack([tables.astype(np.uint64), masks >> np.uint64(6)], axis=1)
        groups, group_of = np.unique(pairs, axis=0, return_inverse=True)
        group_of = group_of.ravel()
        low_sets: dict[frozenset[int], int] = {}
        set_of_group = np.empty(len(groups), dtype=np.intp)
        for group in range(len(groups)):
            lows = frozenset((masks[group_of == group] & np.uint64(63)).tolist())
            set_of_group[group] = low_sets.setdefault(lows, len(low_sets))
        wanted = np.zeros((len(low_sets), 64), dtype=np.uint64)
        for lows, number in low_sets.items():
            for value in range(64):
                wanted[number, value] = sum(1 << (value ^ low) for low in lows)
        self.tables = groups[:, 0].astype(np.intp)
        self.high = groups[:, 1]
        self.wanted = wanted.ravel()
        self.wanted_row = set_of_group * 64
        self.prefix_words = np.arange(layout.table_count, dtype=np.uint64) << np.uint64(
            layout.key_bits - 6
        )

    def occupied(self, keys: np.ndarray, bitmap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(table-prefixed probe keys whose bit is set, query number of each) for the (n,
        tables) keys of n queries."""
        high = (keys >> np.uint64(6)) | self.prefix_words
        low = (keys & np.uint64(63)).astype(np.intp)
        words = high[:, self.tables]
        words ^= self.high  # (n, groups): the bitmap word of each group
        wanted_at = low[:, self.tables]
        wanted_at += self.wanted_row
        words = words.ravel()
        hit = bitmap[words.view(np.int64)]  # words < 2**63: the view is exact
        hit &= self.wanted[wanted_at.ravel()]
        found = np.flatnonzero(hit != 0)
        hit = hit[found]
        probes, owners = [], []
        while found.size:  # peel the lowest set bit off each word (most have just one)
            lowest = hit & (~hit + np.uint64(1))
            probes.append((words[found] << np.uint64(6)) | popcount(lowest - np.uint64(1)))
            owners.append(found)
            hit &= hit - np.uint64(1)
            more = np.flatnonzero(hit != 0)
            found, hit = found[more], hit[more]
        if not probes:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
        return np.concatenate(probes), np.concatenate(owners) // len(self.tables)


def _set_bits(bitmap: np.ndarray, keys: np.ndarray) -> None:
    """Set bit ``key`` of a uint64 bitmap for every key of a sorted run."""
    keys = keys.astype(np.uint64)
    word = keys >> np.uint64(6)
    bits = np.uint64(1) << (keys & np.uint64(63))
    firsts = np.flatnonzero(np.diff(word, prepend=~word[:1]) != 0) if keys.size else word
    if keys.size:
        bitmap[word[firsts].astype(np.intp)] |= np.bitwise_or.reduceat(bits, firsts)


def _fragment_words(layout: Layout) -> np.ndarray:
    """Per table, the fingerprint word holding the fewest of its key bits (intp)."""
    out = []
    for table in layout.tables:
        in_word = [0] * layout.words
        for seg in table:
            in_word[seg.word] += seg.width
        out.append(in_word.index(min(in_word)))
    return np.array(out, dtype=np.intp)


def _offsets(table: Iterable) -> list:
    out, offset = [], 0
    for seg in table:
        out.append((seg, offset))
        offset += seg.width
    return out


def _merge(older: _Run, newer: _Run) -> _Run:
    """Merge two sorted runs in O(n): the newer one's entries go after equal older keys."""
    total = older.keys.size + newer.keys.size
    positions = older.keys.searchsorted(newer.keys, side="right") + np.arange(newer.keys.size)
    keys = np.empty(total, dtype=older.keys.dtype)
    rows = np.empty(total, dtype=older.rows.dtype)
    keys[positions] = newer.keys
    rows[positions] = newer.rows
    rest = np.ones(total, dtype=bool)
    rest[positions] = False
    keys[rest] = older.keys
    rows[rest] = older.rows
    start = min(older.start, newer.start)
    return _Run(keys=keys, rows=rows, size=older.size + newer.size, start=start)


_EMPTY = -1  # an evidence slot never used: a lookup stops there
_GONE = -2  # a slot whose entry was removed: a lookup goes on past it
_MIN_SLOTS = 8
_MIN_GARBAGE = 1 << 16  # bytes of replaced values tolerated before a compaction
_COMPACT_CHUNK = 4096  # entries copied per step of a compaction


class EvidenceStore:
    """Bytes per str key with no Python object per entry: measured at 100,000 keys of 50
    characters and 72-byte values, ~175 B per entry against ~240 B for a dict of bytes.

    An open-addressing table (linear probing, at most half full) of int32 entry numbers; each
    entry is (hash, start, key length, value length) in one int64 array, and its key (UTF-8)
    then value sit in one byte buffer. The slot comes from Python's ``hash`` of the key (never
    persisted) and keys are compared in full, so colliding hashes stay exact. A value replaced
    by a longer one or removed leaves its bytes behind until they outweigh the live ones; one
    compaction then copies the live entries (amortised O(1) per write).
    """

    def __init__(self) -> None:
        self._slots = np.full(_MIN_SLOTS, _EMPTY, dtype=np.int32)
        self._entries = _Growable(4, np.int64)  # hash, start, key length, value length
        self._blob = bytearray()
        self._live = 0
        self._used = 0  # slots not _EMPTY: what the load factor counts
        self._garbage = 0  # bytes of _blob no live entry uses

    def __len__(self) -> int:
        return self._live

    def _find(self, key: str, encoded: bytes) -> tuple[int, int]:
        """(the slot holding ``key`` or -1, the slot an insert of it would take)."""
        slots, entries, blob = self._slots, self._entries.data, self._blob
        mask = slots.size - 1
        wanted = hash(key)
        slot, free = wanted & mask, -1
        while True:
            entry = int(slots[slot])
            if entry == _EMPTY:
                return -1, (slot if free < 0 else free)
            if entry == _GONE:
                if free < 0:
                    free = slot
            else:
                stored, start, length, _ = entries[entry].tolist()
                if stored == wanted and blob[start : start + length] == encoded:
                    return slot, slot
            slot = (slot + 1) & mask

    def get(self, key: str) -> bytes | None:
        """The value stored under ``key``, or None."""
        encoded = key.encode("utf-8")
        slot, _ = self._find(key, encoded)
        if slot < 0:
            return None
        _, start, length, size = self._entries.data[self._slots[slot]].tolist()
        return bytes(self._blob[start + length : start + length + size])

    def put(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key``, replacing what it had."""
        encoded = key.encode("utf-8")
        slot, free = self._find(key, encoded)
        if slot >= 0:
            row = self._entries.data[self._slots[slot]]
            start, length, size = (int(v) for v in row[1:])
            if len(value) <= size:  # fits where the old value was
                at = start + length
                self._blob[at : at + len(value)] = value
                self._garbage += size - len(value)
                row[3] = len(value)
                return
            self._garbage += length + size
            row[1], row[3] = len(self._blob), len(value)
            self._blob += encoded
            self._blob += value
        else:
            entry = self._entries.size
            if entry > np.iinfo(np.int32).max:
                raise OverflowError("the evidence store holds at most 2**31 - 1 entries")
            entries = self._entries
            entries.reserve(1)
            entries.data[entry] = (hash(key), len(self._blob), len(encoded), len(value))
            entries.size += 1
            self._blob += encoded
            self._blob += value
            if self._slots[free] == _EMPTY:
                self._used += 1
            self._slots[free] = entry
            self._live += 1
        self._maybe_rebuild()

    def remove(self, key: str) -> bool:
        """Forget ``key``'s value; False if it had none."""
        slot, _ = self._find(key, key.encode("utf-8"))
        if slot < 0:
            return False
        _, _, length, size = self._entries.data[self._slots[slot]].tolist()
        self._slots[slot] = _GONE
        self._garbage += length + size
        self._live -= 1
        self._maybe_rebuild()
        return True

    def _maybe_rebuild(self) -> None:
        if self._garbage > _MIN_GARBAGE and 2 * self._garbage > len(self._blob):
            self._compact()
        elif 2 * self._used > self._slots.size:
            self._place_all(self._slots[self._slots >= 0])

    def _place_all(self, entries: np.ndarray) -> None:
        """A new table about a quarter full holding ``entries`` (their numbers)."""
        capacity = max(_MIN_SLOTS, 1 << (2 * entries.size + 1).bit_length())
        slots = np.full(capacity, _EMPTY, dtype=np.int32)
        _place(slots, self._entries.data[entries, 0], entries.astype(np.int32))
        self._slots, self._used = slots, entries.size

    def _compact(self) -> None:
        """Copy the live entries, in buffer order, into a fresh buffer and entry array."""
        live = self._slots[self._slots >= 0]
        rows = self._entries.data[live]
        rows = rows[np.argsort(rows[:, 1], kind="stable")]
        sizes = rows[:, 2] + rows[:, 3]
        new_starts = np.cumsum(sizes) - sizes
        old = np.frombuffer(self._blob, dtype=np.uint8)
        blob = bytearray()
        for first in range(0, rows.shape[0], _COMPACT_CHUNK):  # bounded temporaries
            part = slice(first, first + _COMPACT_CHUNK)
            total = int(sizes[part].sum())
            gaps = np.repeat(rows[part, 1] - new_starts[part], sizes[part])
            blob += old[gaps + np.arange(new_starts[first], new_starts[first] + total)].tobytes()
        del old  # the view pins the old buffer
        rows[:, 1] = new_starts
        self._entries = _Growable(4, np.int64, capacity=max(1024, rows.shape[0]))
        self._entries.extend(rows)
        self._blob, self._garbage = blob, 0
        self._place_all(np.arange(rows.shape[0]))

    def nbytes(self) -> int:
        """Bytes held: the table, the entries (allocated capacity) and the buffer."""
        return self._slots.nbytes + self._entries.data.nbytes + len(self._blob)


def _place(slots: np.ndarray, hashes: np.ndarray, entries: np.ndarray) -> None:
    """Insert ``entries`` into an empty linear-probing table, all at once: each round the
    first claimant of every free slot takes it and the others move one slot on, so every
    entry ends at the first slot that was free on its way, as single inserts would leave it."""
    mask = slots.size - 1
    target = hashes & mask
    while entries.size:
        free = np.flatnonzero(slots[target] == _EMPTY)
        _, first = np.unique(target[free], return_index=True)
        won = free[first]
        slots[target[won]] = entries[won]
        rest = np.ones(entries.size, dtype=bool)
        rest[won] = False
        entries, target = entries[rest], (target[rest] + 1) & mask


class MemoryIndex(NearDuplicateIndex):
    """A near-duplicate index held in this process (``memory://``); gone when it closes.

    Keys are kept deflated in blocks (:class:`~.keystore.KeyStore`: a URL about half its length).
    ``buffer_size`` (default 2048) and ``fanout`` (default 8) tune the insert buffer and levels.
    A removed fingerprint stays in the tables, left out of every search; evidence is kept in an
    :class:`EvidenceStore`.
    """

    max_probe_radius = None  # probes tables at any radius (multi-index hashing layouts)
    supports_evidence = True

    def __init__(
        self,
        *,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        namespace: str = "pages",
        tables: TablesOption = None,
        params: Mapping[str, object] | None = None,
        buffer_size: int = 2048,
        fanout: int = 8,
    ) -> None:
        super().__init__(
            bits=bits, max_distance=max_distance, namespace=namespace, tables=tables, params=params
        )
        self.engine = FingerprintTables(
            self.layout, buffer_size=int(buffer_size), fanout=int(fanout)
        )
        self._keys = KeyStore()
        self._evidence_store = EvidenceStore()

    @classmethod
    def from_uri(cls, uri: str, **kwargs: object) -> MemoryIndex:
        """Build from ``memory://`` (options are keyword arguments or query-string values)."""
        return cls(**kwargs)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self.engine.live

    def add(self, key: str, fingerprint: int) -> None:
        self._check_open()
        encoded = self._key(key).encode("utf-8")
        value = self._fingerprint(fingerprint)
        self._keys.append(encoded)
        self.engine.append(value)

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        self._check_open()
        iterator = iter(items)
        added = 0
        try:
            while chunk := list(islice(iterator, _BATCH_CHUNK)):
                keys = [self._key(key).encode("utf-8") for key, _ in chunk]
                values = [self._fingerprint(fp) for _, fp in chunk]
                self._keys.extend(keys)
                self.engine.extend(split_words(values, self.layout.words), bulk=True)
                added += len(chunk)
        finally:  # rows stored before a bad item are sealed all the same
            self.engine.after_bulk_load(added)

    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        self._check_open()
        value = self._fingerprint(fingerprint)
        radius = self._radius(max_distance)
        return [self._match(row, dist) for dist, row in self.engine.search(value, radius)]

    def query_many(
        self, fingerprints: Sequence[int], max_distance: int | None = None
    ) -> list[list[Match]]:
        self._check_open()
        radius = self._radius(max_distance)
        values = [self._fingerprint(fp) for fp in fingerprints]
        found = self.engine.search_many(split_words(values, self.layout.words), radius)
        return [[self._match(row, dist) for dist, row in hits] for hits in found]

    def remove(self, key: str, fingerprint: int) -> bool:
        self._check_open()
        key, value = self._key(key), self._fingerprint(fingerprint)
        rows = [row for _, row in self.engine.search(value, 0) if self.key(row) == key]
        for row in rows:
            self.engine.remove(row)
        self._evidence_store.remove(key)
        return bool(rows)

    def put_evidence(self, key: str, evidence: bytes) -> None:
        self._check_open()
        self._evidence_store.put(self._key(key), self._evidence(evidence))

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        self._check_open()
        store = self._evidence_store
        return [store.get(key) for key in self._evidence_keys(keys)]

    def stored_words(self) -> np.ndarray:
        """The stored fingerprints (removed ones left out), as an (n, words) uint64 array."""
        self._check_open()
        return self.engine.stored_words()

    def compact(self) -> None:
        """Merge all sorted runs into one (call after a bulk load, before many queries)."""
        self.engine.compact()

    def key(self, row: int) -> str:
        """The key stored at insertion rank ``row``."""
        return self._keys.get(row)

    def _match(self, row: int, distance: int) -> Match:
        return Match(key=self.key(row), fingerprint=self.engine.fingerprint(row), distance=distance)

    def nbytes(self, *, include_keys: bool = False, include_evidence: bool = False) -> int:
        """Bytes of the numpy storage (fingerprints and tables), optionally plus the keys and
        the evidence."""
        total = self.engine.nbytes()
        if include_keys:
            total += self._keys.nbytes()
        if include_evidence:
            total += self._evidence_store.nbytes()
        return total

    def _close(self) -> None:
        self._keys = KeyStore()
        self._evidence_store = EvidenceStore()
