"""Weighted SimHash (Charikar): features -> f-bit fingerprint, and the Hamming distance.

The fingerprint is defined independently of this code, so another implementation can reproduce
it bit for bit: for every feature ``s`` with weight ``w``, let ``h(s)`` be
``int.from_bytes(blake2b(s.encode("utf-8"), digest_size=f // 8).digest(), "little")``;
bit ``j`` of the fingerprint is 1 exactly when the sum over features of ``w`` if bit ``j`` of
``h(s)`` is set, ``-w`` otherwise, is strictly positive (weights rounded to thousandths and summed
as exact integers). BLAKE2b is in the standard library, so the bits never depend on an optional
package, the process or the machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from hashlib import blake2b

import numpy as np

SUPPORTED_BITS = (64, 128)
WEIGHT_SCALE = 1000  # weights are summed as exact integers in thousandths
_CACHE_LIMIT = 500_000  # feature digests kept per width (about 100 bytes each)
_digest_cache: dict[int, dict[str, bytes]] = {bits: {} for bits in SUPPORTED_BITS}


def check_bits(bits: int) -> int:
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, not {bits!r}")
    return bits


def feature_digest(feature: str, bits: int = 64) -> bytes:
    """The stable ``bits``-wide hash of one feature, as little-endian bytes."""
    cache = _digest_cache[bits]
    digest = cache.get(feature)
    if digest is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        digest = blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=bits // 8).digest()
        cache[feature] = digest
    return digest


def simhash(weighted_features: Mapping[str, float], bits: int = 64) -> int:
    """The ``bits``-bit weighted SimHash of ``{feature: weight}`` (0 for no features)."""
    check_bits(bits)
    if not weighted_features:
        return 0
    cache = _digest_cache[bits]
    digests = [cache.get(f) or feature_digest(f, bits) for f in weighted_features]
    rows = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), bits // 8)
    bit_matrix = np.unpackbits(rows, axis=1, bitorder="little")  # (n, bits) of 0/1
    # Integer-valued weights: every partial sum is an integer below 2**53, so float64 adds them
    # exactly in any order; no BLAS kernel or machine can flip a bit.
    weights = np.rint(
        np.fromiter(weighted_features.values(), dtype=np.float64, count=len(digests)) * WEIGHT_SCALE
    )
    # sum(w * (2b - 1)) > 0  <=>  2 * (w @ b) > sum(w)
    positive = 2.0 * (weights @ bit_matrix) > weights.sum()
    return int.from_bytes(np.packbits(positive, bitorder="little").tobytes(), "little")


def hamming_distance(a: int, b: int) -> int:
    """Number of differing bits between two fingerprints."""
    return (a ^ b).bit_count()
