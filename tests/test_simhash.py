"""SimHash: the vectorised code matches the written definition; bits never depend on the process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash.simhash import (
    POLY_BASE,
    WEIGHT_SCALE,
    feature_hash,
    hamming_distance,
    simhash,
    simhash_of_groups,
    simhash_of_hashes,
    string_hashes,
    words_to_ints,
)

MASK64 = (1 << 64) - 1


def reference_poly_hash(feature: str) -> int:
    """Step 1 of the definition: Horner over the UTF-8 bytes, each plus one, base P."""
    h = 0
    for byte in feature.encode("utf-8", "surrogatepass"):
        h = (h * POLY_BASE + byte + 1) & MASK64
    return h


def reference_fmix64(x: int) -> int:
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK64
    return x ^ (x >> 33)


def reference_splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def reference_feature_hash(feature: str, bits: int) -> int:
    """Step 2: fmix64 of H in the low 64 bits, SplitMix64's mix of H in the high 64."""
    h = reference_poly_hash(feature)
    low = reference_fmix64(h)
    return low if bits == 64 else low | reference_splitmix64(h) << 64


def reference_simhash(weighted: dict[str, float], bits: int) -> int:
    """The definition in scrapy_simhash.simhash's docstring, bit by bit, in plain Python."""
    sums = [0] * bits
    for feature, weight in weighted.items():
        h = reference_feature_hash(feature, bits)
        w = round(weight * WEIGHT_SCALE)
        for j in range(bits):
            sums[j] += w if (h >> j) & 1 else -w
    return sum(1 << j for j in range(bits) if sums[j] > 0)


features_strategy = st.dictionaries(
    st.text(min_size=1, max_size=12),
    st.floats(min_value=0.01, max_value=50, allow_nan=False),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(features_strategy, st.sampled_from([64, 128]))
def test_vectorised_simhash_matches_definition(weighted, bits):
    assert simhash(weighted, bits) == reference_simhash(weighted, bits)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(exclude_categories=()), max_size=30), max_size=20))
def test_vectorised_string_hashes_match_horner_on_any_unicode(strings):
    """Any code point, lone surrogates, NUL (the join separator) and empty strings included."""
    assert string_hashes(strings).tolist() == [reference_poly_hash(s) for s in strings]


def test_string_hashes_on_corpus_words(corpora_root):
    words = set()
    for page in iter_pages(with_truth_text=True, root=corpora_root):
        words.update(page.truth_text[:3000].split())
    words = sorted(words)
    assert len(words) > 1000
    assert string_hashes(words).tolist() == [reference_poly_hash(w) for w in words]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=20), st.sampled_from([64, 128]))
def test_feature_hash_matches_definition(feature, bits):
    assert feature_hash(feature, bits) == reference_feature_hash(feature, bits)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=30, unique=True),
       st.sampled_from([64, 128]))
def test_simhash_of_hashes_equals_simhash_of_counts(features, bits):
    counts = [1 + i % 4 for i in range(len(features))]
    expected = simhash(dict(zip(features, counts, strict=True)), bits)
    assert simhash_of_hashes(string_hashes(features), counts, bits) == expected


def test_golden_fingerprints_are_pinned():
    """These bits are part of the on-disk format: a change here breaks every stored index."""
    weighted = {"near": 2.0, "duplicate": 1.0, "重复": 3.0, "网页": 1.5}
    assert f"{simhash(weighted, 64):016x}" == "3d1056bd3d01438b"
    assert f"{simhash(weighted, 128):032x}" == "036862c1c6f870493d1056bd3d01438b"
    assert f"{feature_hash('near', 128):032x}" == "08b8ae41c86beefd79d05cf3dfd17e8f"
    assert string_hashes(["", "a", "\ud800"]).tolist() == [
        0, ord("a") + 1, reference_poly_hash("\ud800")
    ]


def test_same_bits_in_fresh_processes_with_other_hash_seeds():
    code = (
        "from scrapy_simhash import Fingerprinter;"
        "f = Fingerprinter(min_tokens=1);"
        "print(f.fingerprint_text('近似重复网页检测 near duplicate detection for crawlers'),"
        " Fingerprinter(128, min_tokens=1).fingerprint_text('same text, wider fingerprint here'))"
    )
    outputs = set()
    for seed in ("0", "1", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(result.stdout.strip())
    assert len(outputs) == 1
    assert "None" not in outputs.pop()


def test_hamming_distance():
    assert hamming_distance(0, 0) == 0
    assert hamming_distance(0b1011, 0b0001) == 2
    assert hamming_distance(2**64 - 1, 0) == 64
    assert hamming_distance(2**128 - 1, 2**127) == 127


def test_empty_features_and_bad_width():
    assert simhash({}, 64) == 0
    with pytest.raises(ValueError, match="bits must be one of"):
        simhash({"a": 1.0}, 32)


def grouped_reference(poly: np.ndarray, groups: np.ndarray, count: int, bits: int) -> list[int]:
    """simhash_of_hashes of each group's distinct hashes, weighted by their counts."""
    out = []
    for group in range(count):
        distinct, counts = np.unique(poly[groups == group], return_counts=True)
        out.append(simhash_of_hashes(distinct, counts, bits))
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 7, 2**63]),
                      max_size=30), max_size=12),
    st.sampled_from([64, 128]),
)
def test_grouped_simhash_equals_simhash_of_each_group(documents, bits):
    """Repeated hashes, empty documents, ties (an even split of a bit) included."""
    poly = np.array([h for doc in documents for h in doc], dtype=np.uint64)
    groups = np.repeat(np.arange(len(documents)), [len(doc) for doc in documents])
    words = simhash_of_groups(poly, groups, len(documents), bits)
    assert words.shape == (len(documents), bits // 64)
    assert words_to_ints(words) == grouped_reference(poly, groups, len(documents), bits)


def test_grouped_simhash_counts_past_the_16_bit_counters():
    """A document with more than 65,535 features is counted exactly (no counter overflow)."""
    rng = np.random.default_rng(3)
    common = rng.integers(0, 2**64, 40, dtype=np.uint64)
    big = np.concatenate([np.repeat(common, 2000), rng.integers(0, 2**64, 500, dtype=np.uint64)])
    small = rng.integers(0, 2**64, 30, dtype=np.uint64)
    poly = np.concatenate([small, big, small])
    groups = np.repeat([0, 1, 2], [len(small), len(big), len(small)])
    for bits in (64, 128):
        expected = grouped_reference(poly, groups, 3, bits)
        assert words_to_ints(simhash_of_groups(poly, groups, 3, bits)) == expected
        assert expected[0] == expected[2]


def test_words_to_ints_puts_the_first_word_lowest():
    words = np.array([[1, 2], [2**64 - 1, 0]], dtype=np.uint64)
    assert words_to_ints(words) == [1 | 2 << 64, 2**64 - 1]
    assert words_to_ints(words[:, :1]) == [1, 2**64 - 1]


@pytest.mark.parametrize(("bad", "error"), [
    (-1, ValueError), (-(2**63), ValueError), (True, TypeError), (1.5, TypeError), ("3", TypeError),
])
def test_hamming_distance_refuses_what_is_not_a_fingerprint(bad, error):
    with pytest.raises(error, match="fingerprint must be"):
        hamming_distance(bad, 0)


def _l1_normalised(counts: Counter) -> dict[str, float]:
    total = sum(counts.values())
    return {feature: count / total for feature, count in counts.items()}


def test_weights_below_a_thousandth_still_count():
    doc_a = Counter(f"alpha{i}" for i in range(3000)) + Counter({"shared": 3})
    doc_b = Counter(f"beta{i}" for i in range(3000)) + Counter({"shared": 3})
    # normalised, every weight is ~0.0003: rounded to thousandths they were all 0 but "shared"
    a, b = simhash(_l1_normalised(doc_a)), simhash(_l1_normalised(doc_b))
    assert hamming_distance(a, b) > 16
    assert hamming_distance(a, simhash(doc_a)) <= 3  # a common scale barely moves a bit
    assert simhash({f"w{i}": 1e-4 for i in range(100)}) == simhash({f"w{i}": 1 for i in range(100)})


def test_weights_too_large_for_exact_thousandths_keep_their_signs():
    assert simhash({"x": 1e300}) == simhash({"x": 1})
    assert simhash({"x": 3e15, "y": 1e15}) == simhash({"x": 3, "y": 1})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_weight_that_is_not_a_finite_number_raises(bad):
    with pytest.raises(ValueError, match="finite"):
        simhash({"x": bad, "y": 1.0})


def test_hamming_distance_refuses_fingerprints_wider_than_128_bits():
    from scrapy_simhash import hamming_distance

    assert hamming_distance((1 << 127) | 5, 4) == 2
    with pytest.raises(ValueError, match=r"in \[0, 2\*\*128\)"):
        hamming_distance(1 << 200, 0)
