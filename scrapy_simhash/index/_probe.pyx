# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of a single query's numpy steps in :class:`FingerprintTables`.

``run_candidates``: :meth:`FingerprintTables._run_candidates` for one query's probes.

A single query of a probing layout looks up about 1,200 table keys in each run. In numpy that is
some twenty array operations of that size, ~80 us a query whatever the index size, paid on the
crawl's thread for every page and item once the first run is sealed (2,048 fingerprints). Here it
is one loop: per probe two directory reads and a scan of its slot, keeping the entries whose key
equals the probe. The positions come out in the same order as the numpy version's.

``near_rows`` and ``near_listed``: the Hamming distances of the insert buffer's rows and of a run's
candidates to the query, keeping those within the radius (see below).
"""

import numpy as np

ctypedef fused key_t:
    unsigned int
    unsigned long long

ctypedef fused offset_t:
    unsigned int
    long long


def run_candidates(
    const key_t[::1] keys,
    const offset_t[::1] directory,
    const Py_ssize_t[::1] table_base,
    const unsigned long long[::1] table_shift,
    const unsigned long long[::1] probes,
    unsigned long long key_mask,
    unsigned long long key_shift,
):
    """Positions (int64) in ``keys`` of the entries equal to a probe, probe by probe."""
    cdef Py_ssize_t count = probes.shape[0], i, slot, table, low, high, position, found = 0
    cdef Py_ssize_t upper = 0
    cdef unsigned long long probe
    for i in range(count):  # an upper bound of the output: the slots' sizes
        probe = probes[i]
        table = <Py_ssize_t>(probe >> key_shift)
        slot = table_base[table] + <Py_ssize_t>((probe & key_mask) >> table_shift[table])
        upper += <Py_ssize_t>(directory[slot + 1] - directory[slot])
    out = np.empty(upper, dtype=np.int64)
    cdef long long[::1] positions = out
    for i in range(count):
        probe = probes[i]
        table = <Py_ssize_t>(probe >> key_shift)
        slot = table_base[table] + <Py_ssize_t>((probe & key_mask) >> table_shift[table])
        low = <Py_ssize_t>directory[slot]
        high = <Py_ssize_t>directory[slot + 1]
        for position in range(low, high):
            if keys[position] == probe:
                positions[found] = position
                found += 1
    return out[:found]


# -- distances for one query ----------------------------------------------------------------
# A single query's candidates (a sealed run's, or the insert buffer's rows) are measured with
# popcount(row ^ query) per word. In numpy that is half a dozen calls (and arrays) per query,
# ~45 us on the crawl's thread in a crawl (~11 us in a warm loop); here, one loop.

cdef enum:
    MAX_WORDS = 2  # SUPPORTED_BITS: 64 and 128


cdef inline int _popcount64(unsigned long long x) noexcept nogil:
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int>((x * 0x0101010101010101ULL) >> 56)


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


def near_listed(
    const unsigned long long[:, ::1] data,
    const unsigned int[::1] rows,
    const long long[::1] positions,
    object query,
    int max_distance,
):
    """(distance, row) of the rows ``rows[p]`` for ``p`` in ``positions`` (a run's candidates)
    within ``max_distance`` of ``query``, in the order of ``positions`` (repeats included)."""
    cdef unsigned long long words_of_query[MAX_WORDS]
    cdef Py_ssize_t words = _query_words(query, words_of_query), i, row
    cdef Py_ssize_t limit = data.shape[0], count = rows.shape[0]
    cdef long long position
    cdef int distance
    if words != data.shape[1]:
        raise ValueError(f"the query has {words} words, the rows {data.shape[1]}")
    found = []
    for i in range(positions.shape[0]):
        position = positions[i]
        if position < 0 or position >= count:
            raise IndexError(f"position {position} is outside the run's {count} entries")
        row = rows[position]
        if row >= limit:
            raise IndexError(f"row {row} is outside 0 to {limit}")
        distance = _distance(data, row, words_of_query, words)
        if distance <= max_distance:
            found.append((distance, row))
    return found
