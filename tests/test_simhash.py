"""SimHash: the vectorised code matches the written definition; bits never depend on the process."""

from __future__ import annotations

import os
import subprocess
import sys
from hashlib import blake2b

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash.simhash import WEIGHT_SCALE, hamming_distance, simhash


def reference_simhash(weighted: dict[str, float], bits: int) -> int:
    """The definition in scrapy_simhash.simhash's docstring, bit by bit, in plain Python."""
    sums = [0] * bits
    for feature, weight in weighted.items():
        digest = blake2b(feature.encode("utf-8"), digest_size=bits // 8).digest()
        h = int.from_bytes(digest, "little")
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


def test_golden_fingerprints_are_pinned():
    """These bits are part of the on-disk format: a change here breaks every stored index."""
    weighted = {"near": 2.0, "duplicate": 1.0, "重复": 3.0, "网页": 1.5}
    assert f"{simhash(weighted, 64):016x}" == "d9feb437c1e5a0ea"
    assert f"{simhash(weighted, 128):032x}" == "0635cbdab04617ff47d27b83b0e88b4d"


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
