"""_probe: the compiled single-query steps find what the numpy versions find.

Each test runs both on the same sealed runs: the default 128-bit layout and a 64-bit probing
one, random fingerprints with near-duplicates planted, a hot bucket, and the wider offset type
the kernel also accepts.
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
from scrapy_simhash.index.memory import FingerprintTables, split_words

_probe = compiled_module("scrapy_simhash.index._probe")
needs_module = needs(_probe)
_COMPILED = ("_compiled_probe_run", "_compiled_near_rows", "_compiled_bucket_rows")


def test_compiled_module_is_built():
    require_built(_probe, "scrapy_simhash.index._probe", "the numpy probe")
    assert memory_module._compiled_probe_run is _probe.probe_run
    assert memory_module._compiled_near_rows is _probe.near_rows
    assert memory_module._compiled_bucket_rows is _probe.bucket_rows


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


def _probe_run(engine: FingerprintTables, run, query: int, k: int) -> tuple[dict, int]:
    found: list[dict[int, int]] = [{}]
    words = split_words([query], engine.layout.words)
    scanned = _probe.probe_run(
        run.rows, run.fragments, run.directory, run.table_base, run.table_shift,
        engine._fragment_word, engine.layout.keys_array(words), engine._probe_tables,
        engine._probe_masks, engine._fps.data, words, k, found,
    )
    return found[0], scanned


def _brute(engine: FingerprintTables, run, query: int, k: int) -> dict[int, int]:
    """The rows of ``run`` within ``k`` of ``query``, by a scan of the rows it covers."""
    rows = range(run.start, run.start + run.size)
    distances = {row: (engine.fingerprint(row) ^ query).bit_count() for row in rows}
    return {row: distance for row, distance in distances.items() if distance <= k}


@needs_module
@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 6)])
def test_probe_run_finds_every_row_within_the_radius_on_every_run(bits, k):
    rng = random.Random(bits + k)
    stored = [rng.getrandbits(bits) for _ in range(2800)]
    engine = _engine(bits, k, stored)
    runs = [run for run in engine._levels if run is not None]
    assert len(runs) == 2  # 2,048 rows, then 752
    queries = [_near(rng, rng.choice(stored), bits, rng.randint(0, k + 2)) for _ in range(150)]
    queries += [rng.getrandbits(bits) for _ in range(50)]
    found_total = 0
    words = split_words(queries, engine.layout.words)
    for run in runs:
        scanned_each = 0
        for query in queries:
            found, scanned = _probe_run(engine, run, query, k)
            assert found == _brute(engine, run, query, k)
            probes = engine._query_probes(query)
            assert scanned == engine._run_candidates(run, probes)[0].size  # the same slots
            found_total += len(found)
            scanned_each += scanned
        # all the queries at once, one stream of probes: the same answers, query by query
        batch: list[dict[int, int]] = [{} for _ in queries]
        scanned_all = _probe.probe_run(
            run.rows, run.fragments, run.directory, run.table_base, run.table_shift,
            engine._fragment_word, engine.layout.keys_array(words), engine._probe_tables,
            engine._probe_masks, engine._fps.data, words, k, batch,
        )
        assert batch == [_brute(engine, run, query, k) for query in queries]
        assert scanned_all == scanned_each
    assert found_total > len(queries) // 2  # near-duplicates were found, not only misses


@needs_module
def test_probe_run_with_wide_offsets_and_a_hot_bucket():
    hot = [(row << 100) for row in range(600)]  # the low tables' keys are all zero
    rng = random.Random(7)
    engine = _engine(128, 16, hot + [rng.getrandbits(128) for _ in range(600)])
    for run in (run for run in engine._levels if run is not None):
        wide = dataclasses.replace(run, directory=run.directory.astype(np.int64))
        for query in (0, hot[5], rng.getrandbits(128)):
            expected = _brute(engine, run, query, 16)
            assert _probe_run(engine, run, query, 16) == _probe_run(engine, wide, query, 16)
            assert _probe_run(engine, run, query, 16)[0] == expected
    assert engine.search(0, 16)[:1] == [(0, 0)]
    assert len(engine.search(0, 16)) == sum(fp.bit_count() <= 16 for fp in hot)


@needs_module
@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 6), (128, 10)])
def test_runs_are_bucketed_alike_with_and_without_the_module(bits, k):
    rng = random.Random(3 * bits + k)
    stored = [rng.getrandbits(bits) for _ in range(2500)] + [1 << (bits - 1)] * 300
    compiled = _engine(bits, k, stored)
    with _without_the_module():
        plain = _engine(bits, k, stored)
    assert compiled.run_count == plain.run_count >= 2
    for ours, theirs in zip(compiled._levels, plain._levels, strict=True):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            assert (ours.start, ours.size) == (theirs.start, theirs.size)
            for field in ("rows", "fragments", "directory", "table_base", "table_shift"):
                assert getattr(ours, field).tolist() == getattr(theirs, field).tolist(), field


def _without_the_module():
    """The numpy versions of every compiled step, as in a build without a C compiler."""
    stack = contextlib.ExitStack()
    for name in _COMPILED:
        stack.enter_context(mock.patch.object(memory_module, name, None))
    return stack


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
def test_probe_run_and_bucket_rows_refuse_bad_input():
    rng = random.Random(9)
    engine = _engine(128, 16, [rng.getrandbits(128) for _ in range(600)])
    run = next(run for run in engine._levels if run is not None)
    words = split_words([5, 7], 2)
    keys = engine.layout.keys_array(words)
    data = engine._fps.data[: len(engine)]  # the rows stored, not the spare capacity

    def probe(**changed):
        args = dict(
            rows=run.rows, fragments=run.fragments, directory=run.directory,
            table_base=run.table_base, table_shift=run.table_shift,
            fragment_word=engine._fragment_word, table_keys=keys,
            probe_tables=engine._probe_tables, probe_masks=engine._probe_masks, data=data,
            queries=words, max_distance=16, found=[{}, {}],
        ) | changed
        return _probe.probe_run(*args.values())

    assert probe() > 0
    with pytest.raises(ValueError, match="fragments for"):
        probe(fragments=run.fragments[:-1])
    with pytest.raises(ValueError, match=r"table keys of shape \(2, 5\) for 2 queries and 6"):
        probe(table_keys=np.ascontiguousarray(keys[:, :5]))
    with pytest.raises(ValueError, match="one dict per query"):
        probe(found=[{}])
    with pytest.raises(ValueError, match="one dict per query"):
        probe(found=[{}, []])
    with pytest.raises(ValueError, match="fragment word is not a word"):
        probe(fragment_word=engine._fragment_word + 2)
    with pytest.raises(ValueError, match="probe masks for"):
        probe(probe_masks=engine._probe_masks[:-1])
    with pytest.raises(IndexError, match="names table 6 of 6"):
        probe(probe_tables=np.full_like(engine._probe_tables, 6))
    with pytest.raises(IndexError, match="is outside the directory"):
        probe(table_keys=np.full_like(keys, 1 << 40))
    with pytest.raises(ValueError, match="the queries have 1 words, the rows 2"):
        probe(queries=np.ascontiguousarray(words[:, :1]))
    rows = np.empty(4, dtype=np.uint32)
    fragments = np.empty(4, dtype=np.uint64)
    slots = np.array([0, 1, 1, 0], dtype=np.int64)
    _probe.bucket_rows(data, 10, slots, np.array([0, 2], dtype=np.int64), 1, rows, fragments)
    assert rows.tolist() == [10, 13, 11, 12]
    assert fragments.tolist() == data[[10, 13, 11, 12], 1].tolist()
    with pytest.raises(IndexError, match="slot 1 is full"):
        _probe.bucket_rows(data, 10, slots, np.array([0, 3], dtype=np.int64), 1, rows, fragments)
    with pytest.raises(IndexError, match="slot 1 is outside 0 to 1"):
        _probe.bucket_rows(data, 10, slots, np.array([0], dtype=np.int64), 1, rows, fragments)
    with pytest.raises(IndexError, match="rows 598 to 602"):
        _probe.bucket_rows(data, 598, slots, np.array([0, 2], dtype=np.int64), 1, rows, fragments)
    with pytest.raises(IndexError, match="word 2 of rows of 2"):
        _probe.bucket_rows(data, 10, slots, np.array([0, 2], dtype=np.int64), 2, rows, fragments)


@needs_module
def test_near_rows_matches_numpy_and_refuses_bad_input():
    rng = random.Random(5)
    data = np.array([[rng.getrandbits(64), rng.getrandbits(64)] for _ in range(50)],
                    dtype=np.uint64)
    query = [int(data[7, 0]) ^ 0b1011, int(data[7, 1]) ^ (1 << 63)]
    distances = (np.bitwise_count(data[:, 0] ^ np.uint64(query[0]))
                 + np.bitwise_count(data[:, 1] ^ np.uint64(query[1]))).tolist()
    assert _probe.near_rows(data, 0, 50, query, 128) == [(d, r) for r, d in enumerate(distances)]
    assert _probe.near_rows(data, 5, 10, query, 4) == [(4, 7)]
    assert _probe.near_rows(data, 10, 10, query, 128) == []
    with pytest.raises(ValueError, match="the query has 1 words, the rows 2"):
        _probe.near_rows(data, 0, 50, query[:1], 3)
    with pytest.raises(ValueError, match="1 to 2 words, got 3"):
        _probe.near_rows(data, 0, 50, [*query, 0], 3)
    with pytest.raises(IndexError, match="rows 0 to 51"):
        _probe.near_rows(data, 0, 51, query, 3)
