"""The second signal that confirms a SimHash candidate: shared word 3-grams.

Two texts on one topic, or in one language, share much of their vocabulary, so their SimHash
fingerprints can fall within the threshold; they share few *word 3-grams*. A page's evidence is
a bottom-k sketch of the hashes of its word 3-grams (words of spaced scripts, single CJK
characters, numbers included), from which the Jaccard similarity and the containment of two
texts are estimated. A page whose main text does not stand for it (low extraction confidence,
no run of prose, little text: a listing, a table page, a product shell) is *weak*: its evidence
also sketches the whole page's visible text with its structured data, and it confirms a
candidate only when the whole pages are nearly the same.

The evidence travels as bytes (:meth:`Evidence.to_bytes`) and is stored beside the fingerprint
by the index. Hashes are fixed arithmetic on code points: the same text gives the same bytes on
every machine and run.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scrapy_simhash.simhash import segment_hashes

#: Changes whenever the bytes of a sketch change (stored with a crawl's index).
EVIDENCE_VERSION = 1
SKETCH_SIZE = 32  # the k of the bottom-k sketches (4 bytes each)
SHINGLE_WORDS = 3
#: A main text confirms a candidate when this share of the smaller text's 3-grams is shared ...
MIN_CONTAINMENT = 0.5
#: ... and this share of both texts' 3-grams together (a small text inside a large one is not
#: the same content).
MIN_JACCARD = 0.25
#: Two weak pages are the same content only when their whole pages nearly are.
MIN_PAGE_JACCARD = 0.9
#: A page whose main text has fewer words, or holds less of the page's visible text, or that has
#: no run of prose, is weak.
WEAK_MAX_WORDS = 50
WEAK_MAX_CONFIDENCE = 0.2

_U64 = np.uint64
_U32 = np.uint32
_HEADER = struct.Struct("<BBHII")  # version, flags, words (capped), main size, page size
_WEAK = 1
_MIX_1 = _U64(0x9E3779B97F4A7C15)
_MIX_2 = _U64(0xC2B2AE3D27D4EB4F)


@lru_cache(maxsize=1)
def _char_classes() -> tuple[np.ndarray, np.ndarray]:
    """For every BMP code point: is it part of a word, and is it a word on its own (CJK
    ideographs, kana: scripts written without spaces)."""
    chars = "".join(map(chr, range(0x10000)))
    word = np.fromiter((c.isalnum() for c in chars), dtype=bool, count=0x10000)
    single = np.zeros(0x10000, dtype=bool)
    for low, high in ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)):
        single[low : high + 1] = True
    word |= single
    word[0xD800:0xE000] = False  # lone surrogates
    return word, single


def shingle_hashes(text: str) -> tuple[np.ndarray, int]:
    """The distinct 64-bit hashes of the word 3-grams of ``text`` (case folded), sorted, and its
    number of words; a text of one or two words gives the hash of that one n-gram."""
    empty = np.empty(0, dtype=_U64), 0
    if not text:
        return empty
    codes = np.frombuffer(
        text.casefold().encode("utf-32-le", "surrogatepass"), dtype=_U32
    )
    word_table, single_table = _char_classes()
    astral = codes > 0xFFFF
    bmp = np.where(astral, 0, codes)
    word = word_table[bmp] | astral  # astral planes: mostly letters and ideographs
    single = single_table[bmp] | (codes >= 0x20000)
    previous_word = np.concatenate(([False], word[:-1]))
    previous_single = np.concatenate(([False], single[:-1]))
    starts = np.flatnonzero(word & (~previous_word | single | previous_single))
    if not len(starts):
        return empty
    next_word = np.concatenate((word[1:], [False]))
    next_single = np.concatenate((single[1:], [False]))
    ends = np.flatnonzero(word & (~next_word | single | next_single)) + 1
    data = codes.view(np.uint8)
    words = segment_hashes(data, starts * 4, ends * 4)
    with np.errstate(over="ignore"):
        if len(words) >= SHINGLE_WORDS:
            grams = words[:-2] * _MIX_1 + words[1:-1] * _MIX_2 + words[2:]
        else:
            grams = np.array([int(words.sum(dtype=_U64))], dtype=_U64)
        grams ^= grams >> _U64(31)
        grams *= _U64(0xBF58476D1CE4E5B9)
        grams ^= grams >> _U64(29)
    return np.unique(grams), len(words)


def sketch(hashes: np.ndarray) -> np.ndarray:
    """The bottom-k sketch: the :data:`SKETCH_SIZE` smallest top-32-bit hash values, sorted."""
    values = np.unique((hashes >> _U64(32)).astype(_U32))
    return values[:SKETCH_SIZE]


@dataclass(frozen=True, slots=True, eq=False)
class Evidence:
    """What confirms that a candidate holds the same content (see the module's docstring)."""

    main: np.ndarray  # sketch of the main text's 3-grams
    main_size: int  # distinct 3-grams of the main text
    words: int  # words of the main text
    weak: bool = False
    page: np.ndarray | None = None  # weak pages: sketch of the whole page's 3-grams
    page_size: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evidence) and self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __repr__(self) -> str:
        view = f", page of {self.page_size} 3-grams" if self.weak else ""
        return f"<Evidence {self.words} words, {self.main_size} 3-grams{view}>"

    def to_bytes(self) -> bytes:
        page = self.page if self.page is not None else np.empty(0, dtype=_U32)
        header = _HEADER.pack(
            EVIDENCE_VERSION, _WEAK if self.weak else 0, min(self.words, 0xFFFF),
            self.main_size, self.page_size,
        )
        return header + self.main.astype("<u4").tobytes() + page.astype("<u4").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Evidence | None:
        """The evidence ``data`` holds, or None when it is of another version or malformed."""
        if len(data) < _HEADER.size:
            return None
        version, flags, words, main_size, page_size = _HEADER.unpack_from(data)
        main_count = min(main_size, SKETCH_SIZE)
        page_count = min(page_size, SKETCH_SIZE)
        if version != EVIDENCE_VERSION or len(data) != _HEADER.size + 4 * (
            main_count + page_count
        ):
            return None
        values = np.frombuffer(data, dtype="<u4", offset=_HEADER.size).astype(_U32)
        weak = bool(flags & _WEAK)
        return cls(values[:main_count], main_size, words, weak,
                   values[main_count:] if weak else None, page_size)


def of_text(text: str, *, weak: bool = False, page_text: str | None = None) -> Evidence:
    """The evidence of a main text (and, for a weak page, of its whole page's text)."""
    hashes, words = shingle_hashes(text)
    return of_hashes(hashes, words, weak=weak, page_text=page_text)


def of_hashes(
    hashes: np.ndarray, words: int, *, weak: bool = False, page_text: str | None = None
) -> Evidence:
    """:func:`of_text` of a main text already hashed by :func:`shingle_hashes`."""
    if not weak:
        return Evidence(sketch(hashes), len(hashes), words)
    page_hashes, _ = shingle_hashes(page_text or "")
    return Evidence(
        sketch(hashes), len(hashes), words, True, sketch(page_hashes), len(page_hashes)
    )


def is_weak(words: int, confidence: float, is_article: bool) -> bool:
    """Whether a page's main text fails to stand for the page (see :data:`WEAK_MAX_WORDS`)."""
    return not is_article or words < WEAK_MAX_WORDS or confidence < WEAK_MAX_CONFIDENCE


def jaccard(a: np.ndarray, size_a: int, b: np.ndarray, size_b: int) -> float:
    """Estimated Jaccard similarity of two sets from their bottom-k sketches (exact for sets of
    at most k elements)."""
    if not size_a or not size_b:
        return 0.0
    both = np.intersect1d(a, b, assume_unique=True)
    if size_a <= len(a) and size_b <= len(b):  # the sketches are the whole sets
        return both.size / (len(a) + len(b) - both.size)
    k = min(len(a), len(b))
    union = np.union1d(a, b)[:k]
    return np.intersect1d(union, both, assume_unique=True).size / k


def containment(j: float, size_a: int, size_b: int) -> float:
    """The share of the smaller set inside the larger, from their Jaccard similarity."""
    smaller = min(size_a, size_b)
    if not smaller:
        return 0.0
    return min(1.0, j * (size_a + size_b) / (1 + j) / smaller)


def confirms(a: Evidence, b: Evidence) -> bool:
    """Whether the evidence says ``a`` and ``b`` hold the same content."""
    if a.weak or b.weak:
        if not (a.weak and b.weak) or a.page is None or b.page is None:
            return False  # one page stands for its text, the other does not: no evidence
        return jaccard(a.page, a.page_size, b.page, b.page_size) >= MIN_PAGE_JACCARD
    j = jaccard(a.main, a.main_size, b.main, b.main_size)
    return j >= MIN_JACCARD and containment(j, a.main_size, b.main_size) >= MIN_CONTAINMENT
