"""Batched probing in the memory backend: the occupancy bitmap filters probes, never answers."""

from __future__ import annotations

import random

import numpy as np

from scrapy_simhash.index import MemoryIndex, make_layout, memory
from scrapy_simhash.index.memory import FingerprintTables, split_words


def brute_force(stored: list[int], query: int, k: int) -> list[tuple[int, int]]:
    return sorted(((fp ^ query).bit_count(), row) for row, fp in enumerate(stored)
                  if (fp ^ query).bit_count() <= k)


def near(rng: random.Random, fp: int, flips: int, bits: int = 128) -> int:
    for position in rng.sample(range(bits), flips):
        fp ^= 1 << position
    return fp


def interleaved_answers(engine: FingerprintTables, rng: random.Random, k: int = 16):
    """Query a batch, store it, repeat: the CLI's pattern. Returns answers and brute force."""
    stored: list[int] = []
    got, expected = [], []
    for _ in range(12):
        batch = [near(rng, rng.choice(stored), rng.randrange(0, 24)) if stored and rng.random()
                 < 0.5 else rng.getrandbits(128) for _ in range(90)]
        got += engine.search_many(split_words(batch, 2), k)
        expected += [brute_force(stored, q, k) for q in batch]
        engine.extend(split_words(batch, 2))
        stored += batch
    return got, expected


def test_batched_queries_between_inserts_match_brute_force():
    engine = FingerprintTables(make_layout(128, 16), buffer_size=64, fanout=3)
    got, expected = interleaved_answers(engine, random.Random(21))
    assert got == expected
    assert sum(map(len, expected)) > 200  # the planted neighbours were found, not just misses
    assert engine.run_count >= 2


def test_the_bitmap_changes_no_answer(monkeypatch):
    with_bitmap = FingerprintTables(make_layout(128, 16), buffer_size=64, fanout=3)
    got, expected = interleaved_answers(with_bitmap, random.Random(22))
    assert with_bitmap._occupied is not None
    monkeypatch.setattr(memory, "_MAX_OCCUPANCY_BITS", 0)
    without = FingerprintTables(make_layout(128, 16), buffer_size=64, fanout=3)
    assert interleaved_answers(without, random.Random(22)) == (got, expected)
    assert without._occupied is None


def test_the_bitmap_is_built_on_the_first_batch_and_counted():
    index = MemoryIndex(bits=128, max_distance=16)
    rng = random.Random(23)
    fingerprints = [rng.getrandbits(128) for _ in range(3000)]
    index.add_many((str(i), fp) for i, fp in enumerate(fingerprints))
    index.query(fingerprints[0])
    before = index.nbytes()
    assert index.engine._occupied is None  # single queries never build it
    found = index.query_many([near(rng, fp, 9) for fp in fingerprints[:50]])
    assert [matches[0].key for matches in found] == [str(i) for i in range(50)]
    layout = index.layout
    assert index.nbytes() - before == (layout.table_count << layout.key_bits) // 8
    assert index.engine._occupied.nbytes <= 4 << 20  # 6 tables of 22-bit keys: 3 MB


def test_set_bits_marks_exactly_the_keys():
    keys = np.array(sorted({0, 1, 63, 64, 65, 127, 1000, 4095, 70, 71}), dtype=np.uint32)
    bitmap = np.zeros(64, dtype=np.uint64)
    memory._set_bits(bitmap, keys)
    memory._set_bits(bitmap, np.empty(0, dtype=np.uint32))
    bits = np.unpackbits(bitmap.view(np.uint8), bitorder="little")
    assert np.flatnonzero(bits).tolist() == keys.tolist()


def test_a_hot_bucket_stays_exact_in_a_batch():
    engine = FingerprintTables(make_layout(128, 16), buffer_size=64)
    hot = np.zeros((3000, 2), dtype=np.uint64)
    hot[:, 1] = np.arange(3000, dtype=np.uint64) << np.uint64(40)
    engine.extend(hot)
    queries = np.array([[0, 0], [0, 5 << 40], [1 << 63, 7 << 40]], dtype=np.uint64)
    stored = [int(v) << 64 for v in hot[:, 1]]
    expected = [brute_force(stored, int(q[0]) | int(q[1]) << 64, 16) for q in queries]
    assert engine.search_many(queries, 16) == expected
    assert len(expected[0]) > 100


def test_word_probes_are_exactly_the_occupied_probe_keys():
    """Grouping probes by bitmap word finds the same (query, probe) pairs as testing every
    probe's bit, on layouts with radii 0-2 and a bitmap dense enough for several hits a word."""
    rng = np.random.default_rng(24)
    for bits, k in ((128, 16), (64, 6), (128, 10), (64, 8)):
        layout = make_layout(bits, k)
        assert not layout.exact
        words = rng.integers(0, 2**64, (40, bits // 64), dtype=np.uint64)
        keys = layout.keys_array(words)
        bitmap = rng.integers(0, 2**64, -(-(layout.table_count << layout.key_bits) // 64),
                              dtype=np.uint64)
        bitmap &= rng.integers(0, 2**64, bitmap.size, dtype=np.uint64)  # about 1 bit in 4
        probes = layout.probe_keys(words)  # table-prefixed, (queries, probe_count)
        is_set = (bitmap[(probes >> np.uint64(6)).astype(np.intp)] >> (probes & np.uint64(63))
                  ) & np.uint64(1)
        query, column = np.nonzero(is_set)
        expected = sorted(zip(query.tolist(), probes[query, column].tolist(), strict=True))
        found, owner = memory._WordProbes(layout).occupied(keys, bitmap)
        assert sorted(zip(owner.tolist(), found.tolist(), strict=True)) == expected
        assert len(expected) > 40


def test_batches_past_the_bitmap_size_go_through_the_compiled_loop_alike(monkeypatch):
    """With the share at 0 every batch takes the compiled path (numpy without the module)."""
    monkeypatch.setattr(memory, "_NUMPY_BATCH_MAX_SHARE", 0.0)
    engine = FingerprintTables(make_layout(128, 16), buffer_size=64, fanout=3)
    got, expected = interleaved_answers(engine, random.Random(25))
    assert got == expected and sum(map(len, expected)) > 200
    assert engine._occupied is None  # the bitmap was never needed
