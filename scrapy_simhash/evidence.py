"""The second signal that confirms a SimHash candidate: shared word 3-grams.

Two texts on one topic, or in one language, share much of their vocabulary, so their SimHash
fingerprints can fall within the threshold; they share few *word 3-grams*. A page's evidence is
a bottom-k sketch of the hashes of the word 3-grams (words of spaced scripts, single CJK
characters, numbers included) of the *region* its main text was chosen from, with what the main
text leaves out there: a listing's product grid beside its intro, a stock page's table beside
its disclaimer (:meth:`~scrapy_simhash.extract.Extraction.region_text`). Pages with little text
in that region add their data scripts and meta description (a product shell whose data sits in
``__NEXT_DATA__``). Two pages are the same content when most of the smaller region's 3-grams are
in the larger one: a print version, a tracking-parameter URL, the article in another site's
template or lightly edited are; two pages of one template with other data are not. A *weak*
page (little main text, or no run of prose: an interstitial, a form) confirms a candidate only
when the two regions are nearly the same.

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
SKETCH_SIZE = 64  # the k of the bottom-k sketches (4 bytes each)
SHINGLE_WORDS = 3
#: Two regions are the same content when this share of the smaller one's 3-grams is shared ...
MIN_CONTAINMENT = 0.8
#: ... and this share of both together (a small text inside a large one is not the same).
MIN_JACCARD = 0.2
#: Two pages of which one is weak are the same only when their regions nearly are.
MIN_WEAK_JACCARD = 0.9
#: A page whose main text has fewer words, or that has no run of prose, is weak.
WEAK_MAX_WORDS = 50
#: A region with fewer words than this adds the page's data scripts to its evidence.
THIN_REGION_WORDS = 300
#: A main text with fewer words than this is short: its page's whole non-chrome text (an entity
#: page's fields, a stock page's table) must agree as well as its region.
SHORT_WORDS = 300
#: ... and nearly all of the smaller one's 3-grams must be in the other: a shop's shell or a
#: site's boilerplate is most of a short page.
MIN_CONTENT_CONTAINMENT = 0.9

_U64 = np.uint64
_U32 = np.uint32
_HEADER = struct.Struct("<BBHII")  # version, flags, words (capped), 3-grams, content's
_WEAK = 1
_CONTENT = 2
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

    sketch: np.ndarray  # bottom-k sketch (uint32) of the region's 3-grams (a weak page's: all)
    size: int  # distinct 3-grams of the region
    words: int  # words of the main text
    weak: bool = False
    content: np.ndarray | None = None  # short main texts: sketch of the page's non-chrome text
    content_size: int = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evidence) and self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __reduce__(self) -> tuple:
        # as its bytes: compact, and a worker's answer carries no numpy buffer
        return (_from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        weak = ", weak" if self.weak else ""
        content = f", content of {self.content_size} 3-grams" if self.content is not None else ""
        return f"<Evidence {self.words} words, {self.size} 3-grams{weak}{content}>"

    def to_bytes(self) -> bytes:
        flags = (_WEAK if self.weak else 0) | (_CONTENT if self.content is not None else 0)
        header = _HEADER.pack(
            EVIDENCE_VERSION, flags, min(self.words, 0xFFFF), self.size, self.content_size
        )
        content = b"" if self.content is None else self.content.astype("<u4").tobytes()
        return header + self.sketch.astype("<u4").tobytes() + content

    @classmethod
    def from_bytes(cls, data: bytes) -> Evidence | None:
        """The evidence ``data`` holds, or None when it is of another version or malformed."""
        if len(data) < _HEADER.size:
            return None
        version, flags, words, size, content_size = _HEADER.unpack_from(data)
        count = min(size, SKETCH_SIZE)
        content_count = min(content_size, SKETCH_SIZE) if flags & _CONTENT else 0
        if version != EVIDENCE_VERSION or len(data) != _HEADER.size + 4 * (count + content_count):
            return None
        values = np.frombuffer(data, dtype="<u4", offset=_HEADER.size).astype(_U32)
        content = values[count:] if flags & _CONTENT else None
        return cls(values[:count], size, words, bool(flags & _WEAK), content, content_size)


def _from_bytes(data: bytes) -> Evidence | None:
    return Evidence.from_bytes(data)


def of_text(text: str, *, words: int | None = None, weak: bool = False) -> Evidence:
    """The evidence of a region's text; ``words``: of the main text (by default, of ``text``)."""
    hashes, counted = shingle_hashes(text)
    return Evidence(sketch(hashes), len(hashes), counted if words is None else words, weak)


def of_hashes(
    hashes: np.ndarray, words: int, weak: bool = False, content: np.ndarray | None = None
) -> Evidence:
    """:func:`of_text` of a text already hashed by :func:`shingle_hashes`; ``content``: the
    hashes of the page's non-chrome text, for a short main text."""
    if content is None:
        return Evidence(sketch(hashes), len(hashes), words, weak)
    return Evidence(sketch(hashes), len(hashes), words, weak, sketch(content), len(content))


def word_count(text: str) -> int:
    """The words of ``text`` as the evidence counts them (a CJK character is one)."""
    return shingle_hashes(text)[1]


def is_weak(words: int, is_article: bool) -> bool:
    """Whether a page's main text is too little to stand for it (see :data:`WEAK_MAX_WORDS`)."""
    return not is_article or words < WEAK_MAX_WORDS


def jaccard(a: np.ndarray, size_a: int, b: np.ndarray, size_b: int) -> float:
    """Estimated Jaccard similarity of two sets from their bottom-k sketches (exact when both
    sketches hold their whole sets)."""
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


def _same(
    a: np.ndarray, size_a: int, b: np.ndarray, size_b: int, least: float = MIN_CONTAINMENT
) -> bool:
    j = jaccard(a, size_a, b, size_b)
    return j >= MIN_JACCARD and containment(j, size_a, size_b) >= least


def confirms(a: Evidence, b: Evidence) -> bool:
    """Whether the evidence says ``a`` and ``b`` hold the same content."""
    if a.weak or b.weak:
        return jaccard(a.sketch, a.size, b.sketch, b.size) >= MIN_WEAK_JACCARD
    if not _same(a.sketch, a.size, b.sketch, b.size):
        return False
    if a.content is None and b.content is None:
        return True  # two long main texts: the region tells
    if a.content is None or b.content is None:
        return False  # a short text and a long one: nothing tells they are the same
    return _same(a.content, a.content_size, b.content, b.content_size, MIN_CONTENT_CONTAINMENT)
