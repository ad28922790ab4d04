"""The pigeonhole layouts: shapes, key extraction and the no-missed-neighbour guarantee."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from scrapy_simhash.index.layout import make_layout
from scrapy_simhash.index.memory import split_words


def table_masks(layout) -> list[int]:
    masks = []
    for table in layout.tables:
        mask = 0
        for seg in table:
            mask |= ((1 << seg.width) - 1) << seg.start
        masks.append(mask)
    return masks


def caught(masks: list[int], difference: int) -> bool:
    """Some table's key avoids every differing bit, so the pair shares that table's key."""
    return any(mask & difference == 0 for mask in masks)


@pytest.mark.parametrize(
    ("bits", "k", "tables", "count", "key_bits"),
    [
        (64, 3, None, 4, 16),
        (64, 3, "auto", 4, 16),
        (64, 3, "manku", 16, 28),
        (128, 3, None, 4, 32),
        (128, 3, "manku", 16, 56),
        (64, 6, None, 7, 10),
    ],
)
def test_known_shapes(bits, k, tables, count, key_bits):
    layout = make_layout(bits, k, tables)
    assert layout.table_count == count
    assert layout.key_bits == key_bits


@pytest.mark.parametrize("tables", [None, "manku", 10])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_difference_of_up_to_k_bits_is_caught_exhaustively(k, tables):
    layout = make_layout(64, k, tables)
    masks = table_masks(layout)
    for size in range(k + 1):
        for positions in combinations(range(64), size):
            difference = sum(1 << p for p in positions)
            assert caught(masks, difference), positions


@pytest.mark.parametrize(
    ("bits", "k", "tables"),
    [(64, 4, None), (64, 6, None), (64, 6, "manku"), (128, 3, "manku"), (128, 10, None),
     (128, 10, "manku"), (128, 0, None), (64, 0, None)],
)
def test_random_and_adversarial_differences_are_caught(bits, k, tables):
    layout = make_layout(bits, k, tables)
    masks = table_masks(layout)
    rng = random.Random(bits * 1000 + k)
    for _ in range(2000):
        difference = sum(1 << p for p in rng.sample(range(bits), k))
        assert caught(masks, difference)
    # adversarial: greedily flip the bit that spoils the most still-clean tables, k times
    clean = list(masks)
    difference = 0
    for _ in range(k):
        best = max(range(bits), key=lambda p: sum(1 for m in clean if m >> p & 1))
        difference |= 1 << best
        clean = [m for m in clean if not m >> best & 1]
    assert caught(masks, difference)
    # adversarial: one differing bit per block, spread over the first-level blocks
    block = bits // (k + 1)
    for shift in range(block):
        spread = sum(1 << (i * block + (shift + i) % block) for i in range(k))
        assert caught(masks, spread)


def test_one_bit_more_than_k_can_escape_the_auto_layout():
    layout = make_layout(64, 3)
    masks = table_masks(layout)
    assert not caught(masks, sum(1 << (16 * i) for i in range(4)))


@pytest.mark.parametrize(("bits", "k", "tables"), [(64, 3, None), (64, 3, "manku"),
                                                   (128, 3, "manku"), (128, 10, None)])
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
     ({"tables": 2}, "at least k"), ({"tables": "many"}, "tables must be")],
)
def test_bad_parameters_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_layout(**kwargs)


def test_keys_array_is_uint64():
    layout = make_layout(128, 3)
    assert layout.keys_array(np.zeros((3, 2), dtype=np.uint64)).dtype == np.uint64
