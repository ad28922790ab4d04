# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twin of :meth:`FingerprintTables._run_candidates` for one query's probes.

A single query of a probing layout looks up about 1,200 table keys in each run. In numpy that is
some twenty array operations of that size, ~80 us a query whatever the index size, paid on the
crawl's thread for every page and item once the first run is sealed (2,048 fingerprints). Here it
is one loop: per probe two directory reads and a scan of its slot, keeping the entries whose key
equals the probe. The positions come out in the same order as the numpy version's.
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
