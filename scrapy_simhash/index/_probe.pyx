# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of numpy steps in :class:`FingerprintTables`.

``probe_run``: the probes of one query (or of a batch, as one stream) against one sealed run of
a probing layout. A query looks up about 1,200 table keys per run; each is a directory read and
then a read of the slot's entries, two cache misses in a run of millions that no loop of
dependent reads can hide. The loop is pipelined instead: a probe's directory slot is prefetched
``SCAN_LAG`` probes before its entries are scanned and its entries' fragments ``SCAN_LAG -
READ_LAG`` probes before, so a few dozen misses are in flight at once. An entry whose fragment
(one word of its row) is within the radius of the query's same word then has its row's whole
fingerprint checked: ~4e-5 of random entries at 128 bits, k = 16.

``bucket_rows``: the counting sort that builds one table of such a run.

``near_rows``: the Hamming distances of the insert buffer's rows to the query, keeping those
within the radius.
"""

import numpy as np

cdef extern from *:
    """
    static inline void simhash_prefetch(const void *address) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(address);
    #else
        (void)address;
    #endif
    }
    """
    void prefetch "simhash_prefetch"(const void *address) noexcept nogil

ctypedef fused offset_t:
    unsigned int
    long long

cdef enum:
    READ_LAG = 24  # probes between a slot's prefetch and the read of its bounds
    SCAN_LAG = 48  # probes between a slot's prefetch and the scan of its entries
    RING = 64  # a power of two above SCAN_LAG: the in-flight probes' slots and bounds


def probe_run(
    const unsigned int[::1] rows,
    const unsigned long long[::1] fragments,
    const offset_t[::1] directory,
    const Py_ssize_t[::1] table_base,
    const unsigned long long[::1] table_shift,
    const Py_ssize_t[::1] fragment_word,
    const unsigned long long[:, ::1] table_keys,
    const Py_ssize_t[::1] probe_tables,
    const unsigned long long[::1] probe_masks,
    const unsigned long long[:, ::1] data,
    const unsigned long long[:, ::1] queries,
    int max_distance,
    list found,
):
    """For each query q (a row of ``queries``: its words), put ``found[q][row] = distance`` for
    the rows of the run's entries its probes reach that lie within ``max_distance`` of it;
    returns the entries scanned.

    Probe i of query q is ``table_keys[q, probe_tables[i]] ^ probe_masks[i]`` in table
    ``probe_tables[i]`` (``table_keys``: each query's key in each table, unprefixed). The probes
    of all the queries form one pipelined stream."""
    cdef Py_ssize_t words = queries.shape[1], count = probe_tables.shape[0]
    cdef Py_ssize_t tables = table_base.shape[0], asked = queries.shape[0]
    cdef Py_ssize_t slots = directory.shape[0] - 1, entries = rows.shape[0]
    cdef Py_ssize_t limit = data.shape[0], scanned = 0, total = asked * count
    cdef Py_ssize_t i, j, at, slot, table, low, high, position, row, query = 0, probe = 0
    cdef Py_ssize_t ring_slot[RING]
    cdef Py_ssize_t ring_table[RING]
    cdef Py_ssize_t ring_query[RING]
    cdef Py_ssize_t ring_low[RING]
    cdef Py_ssize_t ring_high[RING]
    cdef unsigned long long wanted
    cdef int distance
    if not 1 <= words <= MAX_WORDS or words != data.shape[1]:
        raise ValueError(f"the queries have {words} words, the rows {data.shape[1]}")
    if fragments.shape[0] != entries:
        raise ValueError(f"{fragments.shape[0]} fragments for {entries} entries")
    if table_shift.shape[0] != tables or fragment_word.shape[0] != tables:
        raise ValueError("table_base, table_shift and fragment_word differ in length")
    if table_keys.shape[1] != tables or table_keys.shape[0] != asked:
        raise ValueError(f"table keys of shape {tuple(table_keys.shape)[:2]} for {asked} "
                         f"queries and {tables} tables")
    if len(found) != asked or not all(type(answer) is dict for answer in found):
        raise ValueError(f"found must hold one dict per query ({asked})")
    if probe_masks.shape[0] != count:
        raise ValueError(f"{probe_masks.shape[0]} probe masks for {count} probes")
    for table in range(tables):
        if not 0 <= fragment_word[table] < words:
            raise ValueError(f"table {table}'s fragment word is not a word of the query")
    for i in range(count):
        if not 0 <= probe_tables[i] < tables:
            raise IndexError(f"probe {i} names table {probe_tables[i]} of {tables}")
    for i in range(total + SCAN_LAG):
        if i < total:  # slot of probe i (query, probe): prefetch its bounds
            table = probe_tables[probe]
            slot = table_base[table] + <Py_ssize_t>(
                (table_keys[query, table] ^ probe_masks[probe]) >> table_shift[table])
            if not 0 <= slot < slots:
                raise IndexError(f"probe {probe} of query {query} is outside the directory")
            at = i & (RING - 1)
            ring_slot[at] = slot
            ring_table[at] = table
            ring_query[at] = query
            prefetch(&directory[slot])
            probe += 1
            if probe == count:
                probe = 0
                query += 1
        j = i - READ_LAG
        if 0 <= j < total:  # bounds of probe j: prefetch its entries' fragments
            at = j & (RING - 1)
            low = <Py_ssize_t>directory[ring_slot[at]]
            high = <Py_ssize_t>directory[ring_slot[at] + 1]
            if not 0 <= low <= high <= entries:
                raise IndexError(f"slot {ring_slot[at]} is outside the run's {entries} entries")
            ring_low[at] = low
            ring_high[at] = high
            if high > low:
                prefetch(&fragments[low])
        j = i - SCAN_LAG
        if j >= 0:  # entries of probe j: fragment first, the row only if it passes
            at = j & (RING - 1)
            low = ring_low[at]
            high = ring_high[at]
            scanned += high - low
            wanted = queries[ring_query[at], fragment_word[ring_table[at]]]
            for position in range(low, high):
                if _popcount64(fragments[position] ^ wanted) > max_distance:
                    continue
                row = rows[position]
                if row >= limit:
                    raise IndexError(f"row {row} is outside 0 to {limit}")
                distance = _distance(data, row, &queries[ring_query[at], 0], words)
                if distance <= max_distance:
                    (<dict>found[ring_query[at]])[row] = distance
    return scanned


def bucket_rows(
    const unsigned long long[:, ::1] data,
    Py_ssize_t start,
    const long long[::1] slots,
    long long[::1] cursor,
    Py_ssize_t word,
    unsigned int[::1] rows,
    unsigned long long[::1] fragments,
):
    """A counting sort of one table of a run: row ``start + i`` goes to ``rows[cursor[s]]``
    (``s = slots[i]``, then ``cursor[s]`` moves on) with its word ``word`` beside it in
    ``fragments``. ``cursor`` starts as each slot's first position."""
    cdef Py_ssize_t count = slots.shape[0], places = rows.shape[0], i, position
    cdef long long slot
    if start < 0 or start + count > data.shape[0]:
        raise IndexError(f"rows {start} to {start + count} are outside 0 to {data.shape[0]}")
    if not 0 <= word < data.shape[1]:
        raise IndexError(f"word {word} of rows of {data.shape[1]}")
    if fragments.shape[0] != places:
        raise ValueError(f"{fragments.shape[0]} fragments for {places} rows")
    for i in range(count):
        slot = slots[i]
        if not 0 <= slot < cursor.shape[0]:
            raise IndexError(f"slot {slot} is outside 0 to {cursor.shape[0]}")
        position = <Py_ssize_t>cursor[slot]
        if not 0 <= position < places:
            raise IndexError(f"slot {slot} is full")
        cursor[slot] = position + 1
        rows[position] = <unsigned int>(start + i)
        fragments[position] = data[start + i, word]


# -- distances for one query ----------------------------------------------------------------
# A single query's candidates (a sealed run's, or the insert buffer's rows) are measured with
# popcount(row ^ query) per word. In numpy that is half a dozen calls (and arrays) per query,
# ~45 us on the crawl's thread in a crawl (~11 us in a warm loop); here, one loop.

cdef enum:
    MAX_WORDS = 2  # SUPPORTED_BITS: 64 and 128


cdef extern from *:
    """
    #if defined(__POPCNT__) || defined(__aarch64__)
    #define simhash_popcount64(x) __builtin_popcountll(x)
    #else
    static inline int simhash_popcount64(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    static int simhash_cpu_runs_this_build(void) {
    #if defined(__POPCNT__) && (defined(__x86_64__) || defined(__i386__)) \\
        && (defined(__GNUC__) || defined(__clang__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt");
    #else
        return 1;
    #endif
    }
    """
    int _popcount64 "simhash_popcount64"(unsigned long long x) noexcept nogil
    int _cpu_runs_this_build "simhash_cpu_runs_this_build"() noexcept nogil


# An x86-64 build uses the popcnt instruction (one per candidate: a few thousand a query at 10M
# rows, ~10% of its time against the bit-twiddling count); on a CPU without it (none made since
# 2011) the import fails and the numpy versions take over.
if not _cpu_runs_this_build():
    raise ImportError("this build of _probe needs the popcnt instruction, which this CPU lacks")


cdef inline int _distance(
    const unsigned long long[:, ::1] data, Py_ssize_t row, const unsigned long long* query,
    Py_ssize_t words,
) noexcept nogil:
    cdef int total = 0
    cdef Py_ssize_t w
    for w in range(words):
        total += _popcount64(data[row, w] ^ query[w])
    return total


cdef Py_ssize_t _query_words(object query, unsigned long long* out) except -1:
    cdef Py_ssize_t words = len(query), w
    if not 1 <= words <= MAX_WORDS:
        raise ValueError(f"a query has 1 to {MAX_WORDS} words, got {words}")
    for w in range(words):
        out[w] = query[w]
    return words


def near_rows(
    const unsigned long long[:, ::1] data,
    Py_ssize_t start,
    Py_ssize_t end,
    object query,
    int max_distance,
):
    """(distance, row) of the rows ``start`` to ``end - 1`` of ``data`` ((rows, words) uint64)
    within ``max_distance`` of ``query`` (its words, least significant first), in row order."""
    cdef unsigned long long words_of_query[MAX_WORDS]
    cdef Py_ssize_t words = _query_words(query, words_of_query), row
    cdef int distance
    if words != data.shape[1]:
        raise ValueError(f"the query has {words} words, the rows {data.shape[1]}")
    if start < 0 or end > data.shape[0]:
        raise IndexError(f"rows {start} to {end} are outside 0 to {data.shape[0]}")
    found = []
    for row in range(start, end):
        distance = _distance(data, row, words_of_query, words)
        if distance <= max_distance:
            found.append((distance, row))
    return found
