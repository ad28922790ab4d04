"""_probe: the compiled single-query steps find what the numpy versions find.

Each test runs both on the same sealed runs: the default 128-bit layout and a 64-bit probing
one, random fingerprints with near-duplicates planted, a hot bucket, and the wider key and
offset types the kernel also accepts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from unittest import mock

import numpy as np
import pytest
from speedups import compiled_module, needs, require_built

from scrapy_simhash.index import MemoryIndex, make_layout
from scrapy_simhash.index import memory as memory_module
from scrapy_simhash.index.memory import FingerprintTables

_probe = compiled_module("scrapy_simhash.index._probe")
needs_module = needs(_probe)


def test_compiled_module_is_built():
    require_built(_probe, "scrapy_simhash.index._probe", "the numpy probe")
    assert memory_module._compiled_run_candidates is _probe.run_candidates
    assert memory_module._compiled_near_rows is _probe.near_rows
    assert memory_module._compiled_near_listed is _probe.near_listed


def _engine(bits: int, k: int, fingerprints: list[int]) -> FingerprintTables:
    engine = FingerprintTables(make_layout(bits, k), buffer_size=256, fanout=3)
    for fingerprint in fingerprints:
        engine.append(fingerprint)
    engine.seal()
    return engine


def _near(rng: random.Random, fingerprint: int, bits: int, flips: int) -> int:
    for bit in rng.sample(range(bits), flips):
        fingerprint ^= 1 << bit
    return fingerprint


def _compiled(engine: FingerprintTables, run, probes: np.ndarray) -> np.ndarray:
    return _probe.run_candidates(
        run.keys, run.directory, run.table_base, run.table_shift, probes,
        int(engine._key_mask), int(engine._key_shift),
    )


@needs_module
@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 6)])
def test_same_positions_as_numpy_on_every_run(bits, k):
    rng = random.Random(bits + k)
    stored = [rng.getrandbits(bits) for _ in range(3000)]
    engine = _engine(bits, k, stored)
    runs = [run for run in engine._levels if run is not None]
    assert runs
    queries = [_near(rng, rng.choice(stored), bits, rng.randint(0, k + 2)) for _ in range(150)]
    queries += [rng.getrandbits(bits) for _ in range(50)]
    found = 0
    for query in queries:
        probes = engine._query_probes(query)
        for run in runs:
            compiled = _compiled(engine, run, probes)
            assert compiled.dtype == np.int64
            assert compiled.tolist() == engine._run_candidates(run, probes)[0].tolist()
            found += compiled.size
    assert found > len(queries)  # near-duplicates were found, not only empty answers


@needs_module
def test_same_positions_with_wide_keys_and_offsets_and_a_hot_bucket():
    hot = [(row << 100) for row in range(600)]  # the low tables' keys are all zero
    rng = random.Random(7)
    engine = _engine(128, 16, hot + [rng.getrandbits(128) for _ in range(600)])
    for run in (run for run in engine._levels if run is not None):
        wide = dataclasses.replace(
            run, keys=run.keys.astype(np.uint64), directory=run.directory.astype(np.int64)
        )
        for query in (0, hot[5], rng.getrandbits(128)):
            probes = engine._query_probes(query)
            expected = engine._run_candidates(run, probes)[0].tolist()
            assert _compiled(engine, run, probes).tolist() == expected
            assert _compiled(engine, wide, probes).tolist() == expected
    assert engine.search(0, 16)[:1] == [(0, 0)]


def test_single_queries_answer_alike_with_and_without_the_module():
    rng = random.Random(11)
    index = MemoryIndex(bits=128, max_distance=16, buffer_size=128)
    stored = [rng.getrandbits(128) for _ in range(2000)]
    for n, fingerprint in enumerate(stored):
        index.add(str(n), fingerprint)
    queries = [_near(rng, rng.choice(stored), 128, rng.randint(0, 20)) for _ in range(100)]
    answers = [index.query(query) for query in queries]
    with _without_the_module():
        assert [index.query(query) for query in queries] == answers
    assert index.query_many(queries) == answers
    assert sum(bool(answer) for answer in answers) > 50


def _without_the_module():
    """The numpy versions of every compiled step, as in a build without a C compiler."""
    patches = [mock.patch.object(memory_module, name, None) for name in
               ("_compiled_run_candidates", "_compiled_near_rows", "_compiled_near_listed")]
    stack = contextlib.ExitStack()
    for patch in patches:
        stack.enter_context(patch)
    return stack


@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 6), (64, 3), (128, 3)])
def test_searches_find_the_same_rows_with_and_without_the_module(bits, k):
    """Probing (mih) and exact (blocks) layouts; rows in sealed runs and in the insert buffer;
    near-duplicates at every distance up to beyond the radius."""
    rng = random.Random(bits * 100 + k)
    engine = FingerprintTables(make_layout(bits, k), buffer_size=200, fanout=3)
    stored = [rng.getrandbits(bits) for _ in range(1100)]  # 5 runs sealed, 100 rows in the buffer
    for fingerprint in stored:
        engine.append(fingerprint)
    assert engine._sealed == 1000 and len(engine) == 1100
    queries = [_near(rng, rng.choice(stored), bits, rng.randint(0, k + 3)) for _ in range(120)]
    queries += [_near(rng, stored[-1 - n], bits, n % (k + 1)) for n in range(60)]  # the buffer
    queries += [rng.getrandbits(bits) for _ in range(20)]
    answers = [engine.search(query, k) for query in queries]
    with _without_the_module():
        assert [engine.search(query, k) for query in queries] == answers
    brute = [sorted(((query ^ fp).bit_count(), row) for row, fp in enumerate(stored)
                    if (query ^ fp).bit_count() <= k) for query in queries]
    assert answers == brute
    assert 100 <= sum(bool(answer) for answer in answers) < len(queries)  # hits and misses
    assert any(row >= 1000 for answer in answers for _, row in answer)  # buffer rows found


@needs_module
def test_distance_loops_match_numpy_and_refuse_bad_input():
    rng = random.Random(5)
    data = np.array([[rng.getrandbits(64), rng.getrandbits(64)] for _ in range(50)],
                    dtype=np.uint64)
    query = [int(data[7, 0]) ^ 0b1011, int(data[7, 1]) ^ (1 << 63)]
    distances = (np.bitwise_count(data[:, 0] ^ np.uint64(query[0]))
                 + np.bitwise_count(data[:, 1] ^ np.uint64(query[1]))).tolist()
    assert _probe.near_rows(data, 0, 50, query, 128) == [(d, r) for r, d in enumerate(distances)]
    assert _probe.near_rows(data, 5, 10, query, 4) == [(4, 7)]
    assert _probe.near_rows(data, 10, 10, query, 128) == []
    rows = np.array([7, 3, 7, 49], dtype=np.uint32)
    positions = np.array([3, 0, 2], dtype=np.int64)
    assert _probe.near_listed(data, rows, positions, query, 200) == [
        (distances[49], 49), (distances[7], 7), (distances[7], 7)]
    assert _probe.near_listed(data, rows, positions, query, 4) == [(4, 7), (4, 7)]
    with pytest.raises(ValueError, match="the query has 1 words, the rows 2"):
        _probe.near_rows(data, 0, 50, query[:1], 3)
    with pytest.raises(ValueError, match="1 to 2 words, got 3"):
        _probe.near_rows(data, 0, 50, [*query, 0], 3)
    with pytest.raises(IndexError, match="rows 0 to 51"):
        _probe.near_rows(data, 0, 51, query, 3)
    with pytest.raises(IndexError, match="position 4 is outside"):
        _probe.near_listed(data, rows, np.array([4], dtype=np.int64), query, 3)
    with pytest.raises(IndexError, match="row 50 is outside"):
        _probe.near_listed(data, np.array([50], dtype=np.uint32), positions[:1] * 0, query, 3)
