"""Weighted SimHash (Charikar): features -> f-bit fingerprint, and the Hamming distance.

The fingerprint is defined independently of this code, so another implementation can reproduce
it bit for bit. All arithmetic is modulo 2**64 on unsigned integers.

1. A feature ``s`` (a token, shingle or n-gram) is the byte string
   ``s.encode("utf-8", "surrogatepass")`` = ``b_0 .. b_{n-1}``. Its polynomial hash is
   ``H = sum((b_i + 1) * P**(n - 1 - i))`` (Horner: ``H = H * P + b_i + 1`` from ``H = 0``)
   with ``P = 0xC2B2AE3D27D4EB4F``.
2. Its 128-bit feature hash is ``lo | hi << 64`` where ``lo = fmix64(H)`` is MurmurHash3's
   finaliser (``x ^= x >> 33; x *= 0xFF51AFD7ED558CCD; x ^= x >> 33; x *= 0xC4CEB9FE1A85EC53;
   x ^= x >> 33``) and ``hi = mix64(H + 0x9E3779B97F4A7C15)`` is SplitMix64's output function
   (``z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9; z = (z ^ z >> 27) * 0x94D049BB133111EB;
   z ^= z >> 31``). A 64-bit fingerprint uses ``lo`` alone.
3. For features with weights ``w``, bit ``j`` of the fingerprint is 1 exactly when the sum over
   features of ``w`` if bit ``j`` of the feature hash is set, ``-w`` otherwise, is strictly
   positive (weights rounded to thousandths and summed as exact integers; see :func:`simhash`
   for weights too small or too large for thousandths).

The polynomial form lets :func:`segment_hashes` hash every word of a document at once from
prefix sums over its UTF-8 bytes, without a Python object per word; the bits never depend on an
optional package, the process or the machine.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping

import numpy as np

SUPPORTED_BITS = (64, 128)
# The library's defaults, shared by the fingerprinter and the indexes (this is the layer both
# stand on). Chosen by benchmarks/quality.py (BENCHMARKS.md): 128 bits within distance 16 found
# the most near-duplicates with zero false positives in English and Chinese (the first false
# positive appeared at 18; with version 2's hash, --quick: at 28 in English, 38 in Chinese), and
# chance collisions stay negligible: sum C(128, <=16) / 2**128 = 3e-19 per pair, about 2e-7
# expected at a million pages (64 bits at k = 8 would expect ~140).
DEFAULT_BITS = 128
DEFAULT_MAX_DISTANCE = 16
WEIGHT_SCALE = 1000  # weights are summed as exact integers in thousandths
POLY_BASE = 0xC2B2AE3D27D4EB4F
_POLY_INVERSE = pow(POLY_BASE, -1, 1 << 64)
_U64 = np.dtype("<u8")
_KEPT_POWERS = 1 << 21  # texts up to 2 MB reuse the cached powers


class ParameterError(ValueError):
    """A bad parameter value. ``name``: the parameter, as its keyword argument is named, so a
    caller can name the setting or option the value came from without reading the message."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def check_bits(bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or bits not in SUPPORTED_BITS:
        raise ParameterError("bits", f"bits must be one of {SUPPORTED_BITS}, not {bits!r}")
    return bits


class _Powers:
    """``P**i`` and ``P**-i`` for ``i < len``, grown on demand (doubling) and shared.

    Kept up to ``_KEPT_POWERS`` entries (16 bytes each); a longer text gets its own, dropped after.
    """

    def __init__(self) -> None:
        self.forward = np.ones(1, dtype=_U64)
        self.inverse = np.ones(1, dtype=_U64)

    def upto(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if n <= len(self.forward):
            return self.forward, self.inverse
        size = max(n, 2 * len(self.forward), 4096)
        with np.errstate(over="ignore"):
            forward = np.cumprod(_filled(POLY_BASE, size), dtype=_U64)
            inverse = np.cumprod(_filled(_POLY_INVERSE, size), dtype=_U64)
        if size <= _KEPT_POWERS:
            self.forward, self.inverse = forward, inverse
        return forward, inverse


def _filled(value: int, size: int) -> np.ndarray:
    out = np.full(size, value, dtype=_U64)
    out[0] = 1
    return out


_powers = _Powers()


def segment_hashes(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Polynomial hashes ``H`` (step 1 of the definition) of the byte ranges ``data[s:e]``.

    With ``G[j] = sum_{i<j} (b_i + 1) * P**-i``, ``H(s, e) = (G[e] - G[s]) * P**(e - 1)``: one
    cumulative sum over the whole buffer serves every range. Empty ranges hash to 0.
    """
    forward, inverse = _powers.upto(len(data) + 1)
    prefix = np.zeros(len(data) + 1, dtype=_U64)
    with np.errstate(over="ignore"):
        np.cumsum((data + np.uint64(1)) * inverse[: len(data)], out=prefix[1:])
        hashes = (prefix[ends] - prefix[starts]) * forward[np.maximum(ends, 1) - 1]
    hashes[ends == starts] = 0
    return hashes


def string_hashes(strings: Iterable[str]) -> np.ndarray:
    """Polynomial hashes ``H`` of many strings, encoded together in one buffer."""
    strings = list(strings)
    joined = "\x00".join(strings)
    data = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    if joined.count("\x00") == len(strings) - 1:  # no string holds the separator itself
        cuts = np.flatnonzero(data == 0)
        starts = np.concatenate(([0], cuts + 1))
        ends = np.concatenate((cuts, [len(data)]))
    else:
        lengths = np.fromiter((len(s.encode("utf-8", "surrogatepass")) for s in strings),
                              dtype=np.int64, count=len(strings))
        ends = np.cumsum(lengths + 1) - 1
        starts = ends - lengths
    return segment_hashes(data, starts, ends)


def _fmix64(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> np.uint64(33))
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    return x


def _splitmix64(x: np.ndarray) -> np.ndarray:
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def feature_hash_words(poly: np.ndarray, bits: int) -> np.ndarray:
    """``(n, bits // 64)`` little-endian words of the feature hashes (step 2) of ``H`` values."""
    poly = np.asarray(poly, dtype=_U64)
    with np.errstate(over="ignore"):
        if bits == 64:
            return _fmix64(poly)[:, None]
        return np.stack((_fmix64(poly), _splitmix64(poly)), axis=1)


def feature_hash(feature: str, bits: int = 64) -> int:
    """The stable ``bits``-wide hash of one feature, as an int (step 2 of the definition)."""
    words = feature_hash_words(string_hashes([feature]), check_bits(bits))[0]
    return int.from_bytes(words.astype(_U64).tobytes(), "little")


def simhash_of_hashes(poly: np.ndarray, weights: np.ndarray, bits: int = 64) -> int:
    """The SimHash of features given by their polynomial hashes ``H`` and weights.

    ``weights`` must be integer-valued (or are rounded): every partial sum is then an integer
    below 2**53, so float64 adds them exactly in any order and no BLAS kernel can flip a bit.
    """
    check_bits(bits)
    if len(poly) == 0:
        return 0
    words = np.ascontiguousarray(feature_hash_words(poly, bits), dtype=_U64)
    bit_matrix = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")  # (n, bits)
    weights = np.asarray(weights, dtype=np.float64)
    # sum(w * (2b - 1)) > 0  <=>  2 * (w @ b) > sum(w). einsum, not matmul: BLAS would start
    # threads for this small product, which costs far more than it saves on a busy machine.
    positive = 2.0 * np.einsum("i,ij->j", weights, bit_matrix) > weights.sum()
    return int.from_bytes(np.packbits(positive, bitorder="little").tobytes(), "little")


def simhash(weighted_features: Mapping[str, float], bits: int = 64) -> int:
    """The ``bits``-bit weighted SimHash of ``{feature: weight}`` (0 for no features).

    Weights are rounded to thousandths (step 3); weights so small that one would round to 0, or
    so large that their sum would not add exactly, are first scaled by a power of two (which
    does not change a sign). A weight that is not a finite number raises ValueError.
    """
    check_bits(bits)
    if not weighted_features:
        return 0
    weights = np.fromiter(weighted_features.values(), dtype=np.float64,
                          count=len(weighted_features))
    return simhash_of_hashes(string_hashes(weighted_features), _integer_weights(weights), bits)


_EXACT_SUM = 2.0**52  # integer partial sums below this add exactly in float64


def _integer_weights(weights: np.ndarray) -> np.ndarray:
    """``weights`` in thousandths, rounded; rescaled by a power of two where that would lose a
    non-zero weight or the exactness of the sums (never for tf, logtf or tfidf weights)."""
    if not np.isfinite(weights).all():
        raise ValueError("simhash weights must be finite numbers (got NaN or infinity)")
    magnitudes = np.abs(weights)
    total = float(magnitudes.sum())
    if total == 0.0:
        return weights
    scaled = np.rint(weights * WEIGHT_SCALE)
    lost = bool(((scaled == 0) & (weights != 0)).any())
    if not lost and total * WEIGHT_SCALE < _EXACT_SUM:
        return scaled
    scale = 2.0 ** (np.floor(np.log2(_EXACT_SUM / total)) - 1)  # sum(|w|) * scale < 2**52
    return np.rint(weights * scale)


def hamming_distance(a: int, b: int) -> int:
    """Number of differing bits between two fingerprints of at most 128 bits (see
    :func:`checked_fingerprint`: a negative one, a 64-bit value read back as a signed int64
    say, or a wider one raises ValueError)."""
    widest = SUPPORTED_BITS[-1]
    return (checked_fingerprint(a, widest) ^ checked_fingerprint(b, widest)).bit_count()


def checked_fingerprint(value: object, bits: int | None = None) -> int:
    """``value`` as a fingerprint: an int (not a bool; else TypeError) in [0, 2**bits), or at
    least 0 when ``bits`` is None (else ValueError)."""
    if isinstance(value, bool):
        raise TypeError("fingerprint must be an int, got bool")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"fingerprint must be an int, got {type(value).__name__}") from None
    if number < 0 or (bits is not None and number >> bits):
        allowed = "a non-negative int" if bits is None else f"in [0, 2**{bits})"
        raise ValueError(f"fingerprint must be {allowed}, got {number}")
    return number


# 16-bit counters packed four to a uint64: shifting a hash word right by k and masking leaves
# bit 16 * lane + k of the word in counter ``lane``, so one uint64 add counts four bits at once.
_LANE_SHIFTS = np.arange(16, dtype=_U64)
_LANE_ONES = np.uint64(0x0001_0001_0001_0001)
_LANE_LIMIT = 0xFFFF  # a group with more features than this is counted bit by bit instead
_LANE_BLOCK = 2048  # features per block of simhash_of_groups


def simhash_of_groups(poly: np.ndarray, groups: np.ndarray, count: int, bits: int = 64
                      ) -> np.ndarray:
    """SimHashes of ``count`` documents at once, as ``(count, bits // 64)`` uint64 words.

    Feature ``i`` (polynomial hash ``poly[i]``, weight 1) belongs to document ``groups[i]``;
    ``groups`` must be non-decreasing. A feature that occurs c times is given c times, so the
    row of document ``g`` equals ``simhash_of_hashes`` of its distinct hashes with their counts
    (bit for bit: both compare exact integer sums). Documents without features get 0.
    """
    check_bits(bits)
    words = bits // 64
    groups = np.asarray(groups, dtype=np.int64)
    sizes = np.bincount(groups, minlength=count)[:count]
    out = np.zeros((count, words), dtype=_U64)
    present = np.flatnonzero(sizes)
    if not len(present):
        return out
    starts = (np.cumsum(sizes) - sizes)[present]
    hashed = feature_hash_words(poly, bits)  # (n, words)
    sums = np.empty((len(present), words, 16), dtype=_U64)  # 4 counters in each
    # Documents a block at a time, about _LANE_BLOCK features each, so the (features, words,
    # 16) lane array stays in cache.
    cuts = np.unique(np.append(np.searchsorted(starts, np.arange(0, len(poly), _LANE_BLOCK)),
                               len(present)))
    for first, last in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        low = int(starts[first])
        high = int(starts[last]) if last < len(present) else len(poly)
        lanes = (hashed[low:high, :, None] >> _LANE_SHIFTS) & _LANE_ONES  # (m, words, 16)
        sums[first:last] = np.add.reduceat(lanes, starts[first:last] - low, axis=0)
    counters = np.stack([(sums >> np.uint64(16 * lane)) & np.uint64(0xFFFF) for lane in range(4)],
                        axis=2)
    set_bits = counters.reshape(len(present), bits).astype(np.int64)  # bit 64w + 16 lane + k
    for row in np.flatnonzero(sizes[present] > _LANE_LIMIT).tolist():  # counters would overflow
        start = starts[row]
        block = np.ascontiguousarray(hashed[start : start + sizes[present[row]]])
        unpacked = np.unpackbits(block.view(np.uint8), axis=1, bitorder="little")
        set_bits[row] = unpacked.sum(axis=0, dtype=np.int64)
    positive = 2 * set_bits > sizes[present, None]
    packed = np.packbits(positive, axis=1, bitorder="little")  # (documents, bits // 8)
    out[present] = packed.view(_U64)
    return out


def words_to_ints(words: np.ndarray) -> list[int]:
    """``(n, 1 or 2)`` uint64 words (least significant first) -> fingerprints as Python ints."""
    low = words[:, 0].tolist()
    if words.shape[1] == 1:
        return low
    return [lo | hi << 64 for lo, hi in zip(low, words[:, 1].tolist(), strict=True)]
