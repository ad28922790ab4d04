"""The in-memory backend: leveled runs, compaction, key storage and memory accounting."""

from __future__ import annotations

import random

import numpy as np

from scrapy_simhash.index import MemoryIndex, make_layout
from scrapy_simhash.index.memory import FingerprintTables, popcount, split_words


def test_incremental_inserts_keep_few_runs_and_find_everything():
    rng = random.Random(11)
    index = MemoryIndex(buffer_size=16, fanout=4)
    fingerprints = [rng.getrandbits(64) for _ in range(5000)]
    for i, fp in enumerate(fingerprints):
        index.add(str(i), fp)
    # levels hold at most 16 * 4**(l+1) rows each: 5000 rows fit in 4 levels plus the buffer
    assert index.engine.run_count <= 4
    assert index.engine.buffered < 16
    for i in range(0, 5000, 97):
        assert index.query(fingerprints[i])[0].key == str(i)


def test_compact_merges_into_one_run_without_changing_answers():
    rng = random.Random(12)
    index = MemoryIndex(buffer_size=8)
    fingerprints = [rng.getrandbits(64) for _ in range(700)]
    for i, fp in enumerate(fingerprints):
        index.add(str(i), fp)
    queries = [fp ^ 0b11 for fp in fingerprints[::13]]
    before = index.query_many(queries)
    index.compact()
    assert index.engine.run_count == 1 and index.engine.buffered == 0
    assert index.query_many(queries) == before


def test_keys_round_trip_including_unicode_and_empty():
    index = MemoryIndex()
    keys = ["https://例子.测试/页面?q=1", "", "plain", "emoji-🙂"]
    index.add_many((key, i << 20) for i, key in enumerate(keys))
    assert [index.key(row) for row in range(len(keys))] == keys
    assert index.query(2 << 20)[0].key == "plain"


def test_128_bit_fingerprints_are_two_words():
    index = MemoryIndex(bits=128)
    big = (1 << 127) | (1 << 64) | 5
    index.add("big", big)
    assert index.engine.fingerprint(0) == big
    assert index.query(big ^ (1 << 100))[0].distance == 1


def test_nbytes_counts_numpy_storage_and_optionally_keys():
    index = MemoryIndex()
    index.add_many((f"key-{i}", i * 7919) for i in range(10_000))
    index.compact()
    # 8 B fingerprint + 4 tables x (4 B key + 4 B row) = 40 B per fingerprint once compacted
    assert index.nbytes() == 40 * 10_000
    key_bytes = sum(len(f"key-{i}") for i in range(10_000))
    assert index.nbytes(include_keys=True) >= index.nbytes() + key_bytes


def test_probing_runs_carry_a_directory_and_answer_like_a_scan():
    rng = random.Random(13)
    index = MemoryIndex(bits=128, max_distance=16, buffer_size=64, fanout=3)
    base = [rng.getrandbits(128) for _ in range(1500)]
    for i, fp in enumerate(base):
        index.add(str(i), fp)
    runs = [run for run in index.engine._levels if run is not None]
    assert len(runs) >= 2 and all(run.directory is not None for run in runs)
    assert index.engine.buffered > 0
    queries = [fp ^ (0xFFFF << 40) for fp in base[::50]] + [rng.getrandbits(128)]
    single = [index.query(q) for q in queries]
    assert [m[0].key for m in single[:-1]] == [str(i) for i in range(0, 1500, 50)]
    assert index.query_many(queries) == single
    index.compact()
    assert index.engine.run_count == 1 and index.query_many(queries) == single


def test_the_default_128_bit_layout_stays_under_100_bytes_per_fingerprint():
    index = MemoryIndex(bits=128, max_distance=16)
    words = np.random.default_rng(5).integers(0, 2**64, (200_000, 2), dtype=np.uint64)
    index.engine.extend(words)
    index.compact()
    assert index.layout.table_count == 6
    assert index.nbytes() / 200_000 < 100
    fp = int(words[7, 0]) | int(words[7, 1]) << 64
    assert index.engine.candidate_count(fp) >= 6  # itself, once per table
    assert index.engine.search(fp ^ 0b111, 16)[0] == (3, 7)


def test_a_hot_bucket_stays_exact_when_probing():
    engine = FingerprintTables(make_layout(128, 16), buffer_size=64)
    hot = np.zeros((3000, 2), dtype=np.uint64)
    hot[:, 1] = np.arange(3000, dtype=np.uint64) << np.uint64(40)  # blocks 0-3 all zero
    engine.extend(hot)
    engine.seal()
    assert engine.candidate_count(1 << 30) >= 4 * 3000
    assert [row for _, row in engine.search(int(hot[5, 1]) << 64, 16)][:1] == [5]
    assert len(engine.search(0, 16)) == sum(int(v).bit_count() <= 16 for v in hot[:, 1])


def test_candidate_count_sees_a_hot_bucket_whole():
    engine = FingerprintTables(make_layout(64, 3), buffer_size=64)
    hot = np.arange(1, 1001, dtype=np.uint64).reshape(-1, 1) << np.uint64(16)  # low block 0
    engine.extend(hot)
    engine.seal()
    assert engine.candidate_count(1 << 40) >= 1000
    assert [row for _, row in engine.search(int(hot[5, 0]), 3)][:1] == [5]


def test_popcount_and_split_words():
    words = split_words([0, (1 << 64) - 1, (1 << 70) | 3], 2)
    assert words.tolist() == [[0, 0], [(1 << 64) - 1, 0], [3, 64]]
    assert popcount(words).sum(axis=1).tolist() == [0, 64, 3]
