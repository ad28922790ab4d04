"""The pigeonhole layouts: shapes, key extraction and the no-missed-neighbour guarantee."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from scrapy_simhash.index.layout import make_layout, query_cost
from scrapy_simhash.index.memory import split_words


def table_masks(layout) -> list[int]:
    masks = []
    for table in layout.tables:
        mask = 0
        for seg in table:
            mask |= ((1 << seg.width) - 1) << seg.start
        masks.append(mask)
    return masks


def caught(masks: list[int], difference: int, radii: tuple[int, ...] | None = None) -> bool:
    """Some table's key differs in at most its probe radius, so a probe finds the pair."""
    radii = radii or (0,) * len(masks)
    return any((mask & difference).bit_count() <= r for mask, r in zip(masks, radii, strict=True))


@pytest.mark.parametrize(
    ("bits", "k", "tables", "count", "key_bits"),
    [
        (64, 3, None, 4, 16),
        (64, 3, "auto", 4, 16),
        (64, 3, "manku", 16, 28),
        (128, 3, None, 4, 32),
        (128, 3, "manku", 16, 56),
        (64, 6, None, 3, 22),
        (128, 16, None, 6, 22),
        (128, 10, None, 6, 22),
    ],
)
def test_known_shapes(bits, k, tables, count, key_bits):
    layout = make_layout(bits, k, tables)
    assert layout.table_count == count
    assert layout.key_bits == key_bits


def test_the_crawl_default_is_six_tables_probed_at_radius_one_or_two():
    layout = make_layout(128, 16)
    assert layout.design == "mih(6)" and layout.radii == (2, 2, 2, 2, 2, 1)
    assert layout.table_key_bits == (22, 22, 21, 21, 21, 21)
    assert sum(r + 1 for r in layout.radii) == 17  # the generalised pigeonhole: > k
    assert layout.probe_count == 2 * 254 + 3 * 232 + 22
    assert "probe radius 1-2" in layout.describe()
    assert 400 < layout.expected_candidates(10**6) < 600


@pytest.mark.parametrize(("bits", "k", "count"), [(64, 6, 7), (128, 16, 17), (128, 10, 11)])
def test_exact_only_backends_keep_the_k_plus_one_blocks(bits, k, count):
    layout = make_layout(bits, k, max_radius=0)
    assert layout.exact and layout.table_count == count and layout.design == "blocks"
    assert '"radii"' not in layout.signature()  # unchanged signature for stored indexes


@pytest.mark.parametrize(("bits", "k"), [(64, 3), (128, 3), (64, 1), (64, 0), (64, 2)])
def test_small_k_keeps_the_exact_blocks(bits, k):
    assert make_layout(bits, k) == make_layout(bits, k, max_radius=0)


@pytest.mark.parametrize(("bits", "k"), [(64, 6), (64, 8), (128, 10), (128, 16), (128, 20)])
def test_auto_is_the_cheapest_modelled_design_within_k_plus_one_tables(bits, k):
    auto = make_layout(bits, k)
    assert not auto.exact and auto.table_count <= k + 1
    assert query_cost(auto) < query_cost(make_layout(bits, k, max_radius=0))
    for tables in range(auto.table_count, k + 1):
        assert query_cost(make_layout(bits, k, tables)) >= query_cost(auto)


@pytest.mark.parametrize("tables", [None, "manku", 10, 2])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_difference_of_up_to_k_bits_is_caught_exhaustively(k, tables):
    layout = make_layout(64, k, tables)  # tables=2 < k + 1: a multi-index hashing design
    masks = table_masks(layout)
    for size in range(k + 1):
        for positions in combinations(range(64), size):
            difference = sum(1 << p for p in positions)
            assert caught(masks, difference, layout.radii), positions


@pytest.mark.parametrize(
    ("bits", "k", "tables"),
    [(64, 4, None), (64, 6, None), (64, 6, "manku"), (128, 3, "manku"), (128, 10, None),
     (128, 10, "manku"), (128, 0, None), (64, 0, None), (128, 16, None), (64, 8, None),
     (128, 16, 5), (128, 20, None), (64, 6, 2)],
)
def test_random_and_adversarial_differences_are_caught(bits, k, tables):
    layout = make_layout(bits, k, tables)
    masks, radii = table_masks(layout), layout.radii
    rng = random.Random(bits * 1000 + k)
    for _ in range(2000):
        difference = sum(1 << p for p in rng.sample(range(bits), k))
        assert caught(masks, difference, radii)
    # adversarial: greedily flip the bit that spoils the most still-clean tables, k times
    clean = list(zip(masks, radii, strict=True))
    difference = 0
    for _ in range(k):
        best = max(range(bits), key=lambda p: sum(1 for m, _ in clean if m >> p & 1))
        difference |= 1 << best
        clean = [(m, r) for m, r in clean if (m & difference).bit_count() <= r]
    assert caught(masks, difference, radii)
    # adversarial: one differing bit per block, spread over the first-level blocks
    block = bits // (k + 1)
    for shift in range(block):
        spread = sum(1 << (i * block + (shift + i) % block) for i in range(k))
        assert caught(masks, spread, radii)


@pytest.mark.parametrize(("bits", "k", "tables"), [(128, 16, None), (64, 8, None),
                                                   (128, 10, None), (64, 6, None), (64, 6, 2)])
def test_radius_plus_one_bits_in_every_table_but_one_is_still_caught(bits, k, tables):
    """The worst k-bit difference for MIH: r_i + 1 bits in each table but one, r_j in that one."""
    layout = make_layout(bits, k, tables)
    masks, radii = table_masks(layout), layout.radii
    rng = random.Random(k)
    for spared in range(layout.table_count):
        difference = 0
        for table, (mask, radius) in enumerate(zip(masks, radii, strict=True)):
            positions = [p for p in range(bits) if mask >> p & 1]
            count = radius if table == spared else radius + 1
            difference |= sum(1 << p for p in rng.sample(positions, count))
        assert difference.bit_count() <= k
        assert caught(masks, difference, radii)
        # one more bit in the spared table: k + 1 bits may escape (the bound is tight)
        spare = [p for p in range(bits) if masks[spared] >> p & 1 and not difference >> p & 1]
        assert not caught(masks, difference | 1 << spare[0], radii)


def test_one_bit_more_than_k_can_escape_the_auto_layout():
    layout = make_layout(64, 3)
    masks = table_masks(layout)
    assert not caught(masks, sum(1 << (16 * i) for i in range(4)))


@pytest.mark.parametrize(("bits", "k", "tables"), [(64, 3, None), (128, 16, None), (64, 6, None),
                                                   (128, 10, None)])
def test_probe_keys_are_every_key_within_each_tables_radius(bits, k, tables):
    layout = make_layout(bits, k, tables)
    rng = random.Random(3)
    fingerprints = [rng.getrandbits(bits) for _ in range(5)] + [0, (1 << bits) - 1]
    words = split_words(fingerprints, layout.words)
    plain = layout.probe_keys(words, prefixed=False)
    prefixed = layout.probe_keys(words)
    assert plain.shape == (len(fingerprints), layout.probe_count)
    shift = np.uint64(layout.key_bits)
    assert (prefixed >> shift).tolist() == [layout.probe_tables.tolist()] * len(fingerprints)
    for fp, row in zip(fingerprints, plain.tolist(), strict=True):
        per_table = layout.probes(fp)
        assert [key for keys in per_table for key in keys] == row
        for key, keys, width, radius in zip(layout.keys(fp), per_table, layout.table_key_bits,
                                             layout.radii, strict=True):
            assert keys[0] == key and len(set(keys)) == len(keys)
            assert all((key ^ probe).bit_count() <= radius for probe in keys)
            assert all(probe < 1 << width for probe in keys)
            assert len(keys) == sum(len(list(combinations(range(width), i)))
                                    for i in range(radius + 1))


@pytest.mark.parametrize(("bits", "k", "tables"), [(64, 3, None), (64, 3, "manku"),
                                                   (128, 3, "manku"), (128, 10, None),
                                                   (128, 16, None)])
def test_vectorised_keys_equal_scalar_keys(bits, k, tables):
    layout = make_layout(bits, k, tables)
    rng = random.Random(7)
    fingerprints = [rng.getrandbits(bits) for _ in range(200)] + [0, (1 << bits) - 1]
    vectorised = layout.keys_array(split_words(fingerprints, layout.words))
    for fp, row in zip(fingerprints, vectorised.tolist(), strict=True):
        assert layout.keys(fp) == row


@pytest.mark.parametrize(("bits", "k", "tables"), [(64, 0, None), (128, 0, None),
                                                   (128, 1, "manku"), (64, 3, 64)])
def test_keys_plus_table_number_fit_one_uint64(bits, k, tables):
    layout = make_layout(bits, k, tables)
    assert layout.key_bits + layout.table_bits <= 64


def test_layout_is_deterministic_and_respects_the_table_budget():
    assert make_layout(64, 3, "manku").signature() == make_layout(64, 3, "manku").signature()
    assert make_layout(64, 3, 12).table_count <= 12
    more_tables = make_layout(64, 3, 12).expected_candidates(10**6)
    assert more_tables < make_layout(64, 3).expected_candidates(10**6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"bits": 32}, "bits must be"), ({"max_distance": 40}, "max_distance"),
     ({"tables": 1}, "at least 2"), ({"tables": 2, "max_radius": 0}, "at least 4"),
     ({"tables": "many"}, "tables must be")],
)
def test_bad_parameters_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_layout(**{"bits": 64, "max_distance": 3, **kwargs})


def test_keys_array_is_uint64():
    layout = make_layout(128, 3)
    assert layout.keys_array(np.zeros((3, 2), dtype=np.uint64)).dtype == np.uint64


@pytest.mark.parametrize(("bits", "k"), [(64, 1), (64, 2), (128, 1), (128, 2)])
def test_one_table_is_never_a_multi_index_design(bits, k):
    """A single probed table would key on a whole 64-bit word: no bit left for the table number
    backends put above the key (the memory index failed at its 2,048th add)."""
    with pytest.raises(ValueError, match=f"tables must be at least 2 .*for k = {k}, got 1"):
        make_layout(bits, k, 1)
    assert make_layout(bits, k, 2).table_count == 2


def test_probed_keys_leave_room_for_the_table_number():
    for bits in (64, 128):
        for k in range(1, 12):
            for tables in [None, *range(1, k + 1)]:
                try:
                    layout = make_layout(bits, k, tables)
                except ValueError:  # fewer tables than any design needs at this k
                    if tables is None:  # the default design always exists
                        raise
                    continue
                if not layout.exact:
                    assert layout.table_count >= 2 and layout.key_bits <= 63, layout.describe()
