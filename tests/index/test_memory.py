"""The in-memory backend: leveled runs, compaction, key storage, removals, evidence and memory
accounting."""

from __future__ import annotations

import contextlib
import random
from unittest import mock

import numpy as np
import pytest

from scrapy_simhash.index import MemoryIndex, make_layout
from scrapy_simhash.index import memory as memory_module
from scrapy_simhash.index.layout import Layout, Segment
from scrapy_simhash.index.memory import EvidenceStore, FingerprintTables, popcount, split_words


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


def test_keys_added_one_by_one_and_in_bulk_read_back_across_blocks():
    index = MemoryIndex()
    index.add_many((f"https://example.com/a/{i}", i << 20) for i in range(300))
    index.add("single", 7 << 40)
    index.add_many((f"b-{i}", (i + 1) << 50) for i in range(200))
    keys = [f"https://example.com/a/{i}" for i in range(300)] + ["single"]
    keys += [f"b-{i}" for i in range(200)]
    assert [index.key(row) for row in range(len(keys))] == keys
    assert index.query(7 << 40)[0].key == "single"


def test_128_bit_fingerprints_are_two_words():
    index = MemoryIndex(bits=128)
    big = (1 << 127) | (1 << 64) | 5
    index.add("big", big)
    assert index.engine.fingerprint(0) == big
    assert index.query(big ^ (1 << 100))[0].distance == 1


def test_nbytes_counts_numpy_storage_and_optionally_keys():
    index = MemoryIndex(bits=64, max_distance=3)
    index.add_many((f"key-{i}", i * 7919) for i in range(10_000))
    index.compact()
    # 8 B fingerprint + 4 tables x (4 B key + 4 B row) = 40 B per fingerprint once compacted
    assert index.nbytes() == 40 * 10_000
    keys = index.nbytes(include_keys=True) - index.nbytes()
    assert keys == index._keys.nbytes() > 0  # deflated: fewer than the keys' 78,890 bytes
    assert keys < sum(len(f"key-{i}") for i in range(10_000))


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


def test_the_default_128_bit_layout_stays_under_112_bytes_per_fingerprint():
    index = MemoryIndex(bits=128, max_distance=16)
    words = np.random.default_rng(5).integers(0, 2**64, (200_000, 2), dtype=np.uint64)
    index.engine.extend(words)
    index.compact()
    assert index.layout.table_count == 6
    # 16 B fingerprint + 6 tables x (4 B row + 8 B fragment + at most 4 B of directory)
    assert index.nbytes() / 200_000 < 112
    (run,) = [run for run in index.engine._levels if run is not None]
    assert run.keys is None and run.fragments.nbytes == 6 * 8 * 200_000
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


@pytest.mark.parametrize("probing", [False, True])
def test_removed_rows_are_left_out_of_single_and_batched_searches(probing):
    layout = make_layout(128, 16) if probing else make_layout(64, 3)
    engine = FingerprintTables(layout, buffer_size=16)
    words = np.zeros((40, layout.words), dtype=np.uint64)
    words[:, 0] = np.arange(40, dtype=np.uint64)  # row i holds fingerprint i
    engine.extend(words[:32])  # sealed into runs
    for row in range(32, 40):
        engine.append(row)  # in the insert buffer
    assert engine.buffered == 8
    removed = {0, 3, 35}
    for row in removed:
        assert engine.remove(row)
    assert not engine.remove(3) and not engine.remove(40)  # removed already; no such row
    assert (len(engine), engine.live) == (40, 37)
    expected = sorted((row.bit_count(), row) for row in range(40)
                      if row.bit_count() <= 3 and row not in removed)
    assert engine.search(0, 3) == expected
    assert engine.search_many(words[:1], 3) == [expected]


def test_evidence_store_agrees_with_a_dict_through_resizes_and_compactions(monkeypatch):
    monkeypatch.setattr(memory_module, "_MIN_GARBAGE", 256)  # compact often
    compactions = []
    compact = EvidenceStore._compact

    def counted(store: EvidenceStore) -> None:
        compactions.append(len(store))
        compact(store)

    monkeypatch.setattr(EvidenceStore, "_compact", counted)
    rng = random.Random(21)
    store, expected = EvidenceStore(), {}
    keys = [f"k{i}" for i in range(400)] + ["", "\u00e9", "\u4e2d\u6587"]
    for _ in range(12_000):
        key, action = rng.choice(keys), rng.random()
        if action < 0.55:
            value = rng.randbytes(rng.randint(0, 90))
            store.put(key, value)
            expected[key] = value
        elif action < 0.75:
            assert store.remove(key) is (key in expected)
            expected.pop(key, None)
        else:
            assert store.get(key) == expected.get(key)
        assert len(store) == len(expected)
    assert len(compactions) > 10
    assert all(store.get(key) == expected.get(key) for key in keys)
    assert store._slots.size >= 2 * store._used  # never more than half full


def test_evidence_costs_its_bytes_plus_under_60_bytes_a_key():
    index = MemoryIndex()
    pages = 20_000
    for i in range(pages):
        index.put_evidence(f"https://www.example.com/section/page-{i:06d}", bytes(72))
    raw = pages * (len("https://www.example.com/section/page-000000") + 72)
    extra = index.nbytes(include_evidence=True) - index.nbytes()
    assert raw < extra < raw + 60 * pages
    assert index.get_evidence(["https://www.example.com/section/page-000123"]) == [bytes(72)]


def _short_keys_layout() -> Layout:
    """The default (128, 16) layout with every key cut to its block's first 10 bits: still
    exact (a neighbour within r bits on a block is within r on part of it), and a few thousand
    rows give the directory one slot per key, as 10M rows do for the 21-22-bit keys."""
    layout = make_layout(128, 16)
    tables = tuple((Segment(table[0].start, 10),) for table in layout.tables)
    return Layout(bits=128, max_distance=16, tables=tables, design="mih(6)", radii=layout.radii)


@pytest.mark.parametrize("compiled", [True, False])
def test_full_resolution_directories_and_crowded_slots_answer_like_brute_force(compiled):
    rng = random.Random(31)
    engine = FingerprintTables(_short_keys_layout(), buffer_size=200, fanout=4)
    stored = [rng.getrandbits(128) for _ in range(9000)]
    stored += [stored[n] ^ (1 << rng.randrange(128)) for n in range(0, 9000, 30)]
    for fingerprint in stored:
        engine.append(fingerprint)
    widths = np.array(engine.layout.table_key_bits, dtype=np.uint64)
    runs = [run for run in engine._levels if run is not None]
    assert any((run.table_shift == 0).all() for run in runs)  # one slot per key
    assert any((run.table_shift > 0).any() for run in runs)  # and coarser ones
    assert all(run.directory.size - 1 <= (np.uint64(1) << widths).sum() for run in runs)
    queries = [stored[rng.randrange(len(stored))] ^ (rng.getrandbits(128) & rng.getrandbits(128)
               & rng.getrandbits(128)) for _ in range(60)]  # ~16 bits flipped: both sides
    queries += [fp ^ 0b1011 for fp in stored[-40:]] + [rng.getrandbits(128) for _ in range(10)]
    names = ("_compiled_probe_run", "_compiled_near_rows", "_compiled_bucket_rows")
    with contextlib.ExitStack() as stack:
        if not compiled:
            for name in names:
                stack.enter_context(mock.patch.object(memory_module, name, None))
        single = [engine.search(query, 16) for query in queries]
        batched = engine.search_many(split_words(queries, 2), 16)
    brute = [sorted(((query ^ fp).bit_count(), row) for row, fp in enumerate(stored)
                    if (query ^ fp).bit_count() <= 16) for query in queries]
    assert single == brute and batched == brute
    assert 40 < sum(map(bool, brute)) < len(queries)


def test_a_bulk_load_leaves_one_run_and_later_inserts_level_as_before():
    index = MemoryIndex(bits=128, max_distance=16, buffer_size=64, fanout=4)
    rng = random.Random(32)
    first = [rng.getrandbits(128) for _ in range(5000)]
    index.add_many((str(n), fp) for n, fp in enumerate(first))
    assert index.engine.run_count == 1 and index.engine.buffered == 0
    for n in range(5000, 5300):
        index.add(str(n), rng.getrandbits(128))
    assert index.engine.run_count >= 2  # small inserts go through the levels
    starts = sorted((run.start, run.size) for run in index.engine._levels if run is not None)
    assert [start for start, _ in starts] == [0, *np.cumsum([size for _, size in starts[:-1]])]
    assert [m.key for m in index.query(first[77] ^ 0b111)] == ["77"]


def test_a_bulk_load_cut_short_by_a_bad_item_seals_the_rows_before_it(monkeypatch):
    monkeypatch.setattr(memory_module, "_BATCH_CHUNK", 1000)  # the bad item's chunk is lost
    index = MemoryIndex(bits=128, max_distance=16, buffer_size=64)
    rng = random.Random(33)
    good = [rng.getrandbits(128) for _ in range(3000)]

    def items():
        yield from ((str(n), fp) for n, fp in enumerate(good))
        yield "bad", 1 << 200  # wider than 128 bits

    with pytest.raises(ValueError):
        index.add_many(items())
    assert len(index) == 3000 and index.engine.buffered == 0 and index.engine.run_count == 1
    assert [m.key for m in index.query(good[1234] ^ 0b101)] == ["1234"]
