"""The second signal that confirms a SimHash candidate: shared word 3-grams.

Two texts on one topic, or in one language, share much of their vocabulary, so their SimHash
fingerprints can fall within the threshold; they share few *word 3-grams*. A page's evidence is
a bottom-k sketch of the hashes of its main text's word 3-grams (words of spaced scripts, single
CJK characters, numbers included); two pages are the same content when most of the smaller
text's 3-grams are in the larger one: a print version, a tracking-parameter URL, the article in
another site's template or lightly edited are.

A short main text can be the same on many distinct pages of one template: a listing's intro
above other products, a stock page's disclaimer under another day's table, an entity page's
boilerplate beside other fields, a product shell whose data sits in ``__NEXT_DATA__``. Such a
page also sketches the *rest* of its own part of the page: its non-chrome text (tables, lists,
fields; data scripts when there is little text) without the main text, and its *chrome* (menus,
header, footer: the site's template). Two short pages are the same when their rests are too, or
when they are the same text in two templates: rests that share nothing, on two hosts or with
chromes that differ too. Rests that differ beside one template are that template with other
data. A short main text and a long one are the same only when they are nearly one text (an
article just over the short length, and its copy a few lines shorter). Two short pages of one
template are two when each has a *figure* the other lacks in its own text (main text and rest: a
word with a digit in it, a price, a SKU, a date, a score): a product's variants, or a notice of
another day, share every other word, and their extraction may put the line that differs in the
main text of one and in the rest of the other. Two short pages of one template on one site are
two as well when each one's *title* (the words of its ``<title>`` and ``og:title``) has a word
the other's lacks: an API reference's ``str.lstrip`` and ``str.rstrip``, a job ad in Berlin and
in Lisbon, a mug in white and in red. The copies a crawl meets in one template (tracking
parameters, an extra block of links, a counter or a date in the chrome) keep their title; in
another template, or on another site, the title names that site, so it tells nothing there.
Two long main texts of one site laid out alike (the elements of the top of their bodies: not a
print version, not a partner's copy) are two when each one's title has a word the other's lacks
that its own text names too (a long job ad in Berlin and in Lisbon, a sofa in walnut and in oak;
a title's decorations, the site's name, "Print", "AMP", a counter, are named by no text), or when
the content beside them differs (a vacancy's fields, a category page's products, a day's rates
beside one long shared text). Under titles that differ, a line of its own in each text (kept
whole, beside the 3-grams' sample: one bit of :data:`LINE_BITS` a line) is another variant's.

Two pages of one site are two as well when a field both have gives each another value: a
"Label: value" line of their own text, or a label-value pair of their markup ("Region: Seoul"
and "Region: Incheon" beside one advisory, ``<dd>White</dd>`` and ``<dd>Black</dd>`` under
one product's title); a copy keeps its fields, or lacks them.

A *weak* page (a few words of main text, or no run of prose: an interstitial, a form) confirms
a candidate only when the two whole pages are nearly the same, and, on one site, their titles
are not two.

The evidence travels as bytes (:meth:`Evidence.to_bytes`) and is stored beside the fingerprint
by the index. Hashes are fixed arithmetic on code points: the same text gives the same bytes on
every machine and run.
"""

from __future__ import annotations

import contextlib
import re
import struct
import unicodedata
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import SplitResult, unquote

import numpy as np

from scrapy_simhash.simhash import POLY_BASE, segment_hashes
from scrapy_simhash.text.tokenize import MARK_CLASS, MARK_RANGES

#: Changes whenever the bytes of a sketch change (stored with a crawl's index).
EVIDENCE_VERSION = 1
#: The version nibble of evidence that ends with its page's canonical URL (4 bytes; the
#: flags were all taken): a reader that does not know it refuses it as another version.
_CANONICAL_VERSION = 2
#: ... and of evidence that ends with its main text's lines (:data:`LINE_BITS`), then its
#: canonical URL or not.
_LINES_VERSION = 3
_LINES_CANONICAL_VERSION = 4
SKETCH_SIZE = 64  # the k of the bottom-k sketches (4 bytes each)
SHINGLE_WORDS = 3
#: Two texts are the same content when this share of the smaller one's 3-grams is shared ...
MIN_CONTAINMENT = 0.8
#: ... and this share of both together (a small text inside a large one is not the same).
MIN_JACCARD = 0.2
#: Two pages of which one is weak are the same only when their whole pages nearly are.
MIN_WEAK_JACCARD = 0.9
#: A page whose main text has fewer words, or that has no run of prose, is weak.
WEAK_MAX_WORDS = 50
#: A main text with fewer words than this is short: its page's rest must agree too.
SHORT_WORDS = 300
#: A short main text and a long one are the same content when they share this much (Jaccard).
MIN_SHORT_LONG_JACCARD = 0.8
#: A rest of fewer 3-grams (a byline, a date) is nothing beside the main text.
MIN_REST = 8
#: Two rests are the same when nearly all of the smaller one's 3-grams are in the other.
MIN_REST_CONTAINMENT = 0.9
#: Two pages whose chromes share less than this (Jaccard), and whose rests less than the next,
#: are in two sites' templates.
MAX_FOREIGN_CHROME_JACCARD = 0.3
MAX_FOREIGN_REST_JACCARD = 0.05
#: ... when each has at least this many 3-grams of chrome (a page without menus, header or
#: footer tells nothing of its template).
MIN_FOREIGN_CHROME = 20
#: ... or when one has that many and the other at most this share of it (pages of one template
#: carry the same menus and footer: one with a footer and one with next to none are two).
MAX_FOREIGN_CHROME_RATIO = 0.5
#: ... and not a part of it: less than this share of the smaller chrome inside the larger.
MAX_FOREIGN_CHROME_CONTAINMENT = 0.5
CHROME_SKETCH_SIZE = 32
#: The figures of a short main text kept (the smallest hashes of its words with a digit).
FIGURES_SKETCH_SIZE = 16
#: The bits of each of the two sets a short main text's marks hold (:func:`mark_bits`): its
#: figures and its heading's words, one bit each (every figure counts, where a sketch keeps a
#: few, and a page's shipping terms would crowd out its capacity).
MARK_BITS = 256
#: Two short main texts of one template are two when each has this many figures the other lacks
#: (one is a counter's: "17 people are looking at this"); see :func:`_marks_part`.
MIN_OWN_FIGURES = 2
#: The bits a page's entry links are kept in (:func:`link_bits`), two a link: a listing's
#: entries, so that one entry more shows among a page's worth (a link whose two bits other
#: links hold too goes unseen: about 1 in 100 among 25 links).
LINK_BITS = 512
#: The bits a main text's lines are kept in (:func:`line_bits`), one a line: every line counts,
#: where the 3-grams' sample misses one line swapped for another more often than not (another
#: line hides one about once in 20 among 25 lines).
LINE_BITS = 512
#: A line shorter than this (spaced by one) is no line of :func:`line_bits`: a label, a
#: number.
LINE_MIN_CHARS = 4
#: A line is known by its first characters (spaced by one): a line that only grows or is cut
#: at its end (a paragraph's "Read more", a caption's credit) is the same line.
LINE_PREFIX_CHARS = 40
#: Two pages are a listing's states only when one links this many entries and the other one
#: entry or more (a listing's last page may hold one or two; a print version, a quick view,
#: two pages of prose with a link or two are no listing).
MIN_ENTRY_LINKS = 3
#: Two pages of one site under other values of one query parameter are two when each main text
#: has 3-grams the other lacks: at least this many, as their sketches estimate them (a weak
#: page's sketch samples its whole page; see :func:`other_choices`).
MIN_CHOICE_GRAMS = 0.5
#: The words of a page's title kept (the smallest hashes of its distinct words):
#: enough for a title of 32 words, so that one word apart in a long title still shows.
TITLE_SKETCH_SIZE = 32
#: The 3-grams of a long page's rest kept (its content beside the main text).
LONG_REST_SKETCH_SIZE = 32
#: The elements of a long page's layout kept (:mod:`scrapy_simhash.extract.page_layout`).
LAYOUT_SKETCH_SIZE = 16
#: The most documents a short or weak page embeds that its evidence keeps (frames, players).
EMBEDS_SKETCH_SIZE = 8
#: The most words of a page's URL named by its own text that its evidence keeps.
SELECTIONS_SKETCH_SIZE = 8
#: The most words of field lines ("Region: Seoul") a page's evidence keeps (:func:`field_codes`).
FIELDS_SKETCH_SIZE = 32
#: The k of a page's own comments' sketch (32 estimated two pages of comments sharing half
#: their 3-grams at 81%).
COMMENTS_SKETCH_SIZE = 64
#: Two pages of one template whose comments share less than this share of the smaller set's
#: 3-grams are two pages of comments (an article's ``?cpage=2`` and ``?cpage=3``, which still
#: share a line or two: "Reply", the count); a page fetched again after new comments holds the
#: old ones.
MAX_COMMENTS_CONTAINMENT = 0.8
#: Two long pages of one site in one template (this share of their layouts' elements in common,
#: or more) ...
MIN_ONE_LAYOUT = 0.5
#: ... are two when their rests (their content beside the main text, of MIN_REST 3-grams or more)
#: differ: less than MIN_REST_CONTAINMENT of the smaller one's 3-grams in the other, and each
#: page has a figure the other lacks (a price, a date, a reference) or they share less than
#: this (another grid of products, other fields: more than an edited copy's edits change).
MAX_LONG_REST_CONTAINMENT = 0.5
#: A title with a word more than another's is another page's when its text has this share of
#: 3-grams the other's lacks, and at least MIN_GROWTH_GRAMS (a decoration comes with the same text).
MIN_GROWTH = 0.04
MIN_GROWTH_GRAMS = 4
#: A text's first line is its title when it is at most this long (else it is a paragraph).
TITLE_MAX_CHARS = 200
#: A page with fewer words of text than this adds its data scripts to its evidence.
THIN_WORDS = 300

_U64 = np.uint64
_U32 = np.uint32
_HEADER = struct.Struct("<BBHIII")  # version, flags, words (capped), 3-grams: main, rest, chrome
_WEAK = 1
_SHORT = 2
_FIGURES = 4
_TITLE = 8
_NAMED = 16
_LONG_REST = 32
_MARKS = 64
_LINKS = 128
# The version byte's high bits: parts added once the flags were all taken (evidence without
# them reads as before; a reader that knows none of them refuses it as another version).
_COMMENTS = 16
_EMBEDS = 32
_SELECTIONS = 64
_FIELDS = 128
_EXTENSIONS = _COMMENTS | _EMBEDS | _SELECTIONS | _FIELDS
_COUNT = struct.Struct("<I")
_MIX_1 = _U64(0x9E3779B97F4A7C15)
_MIX_2 = _U64(0xC2B2AE3D27D4EB4F)


#: Scripts written without spaces, where each character is a word: kana, CJK ideographs.
_SPACELESS = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
#: Scripts written without spaces whose letters carry combining vowel signs: Thai, Lao,
#: Myanmar, Khmer. Each letter with its marks is a word (หมี and หมู: two letters each, the
#: second one differing), as each ideograph is; a run up to the next space would make a whole
#: phrase one word, which a copy's edit of one letter changes.
_CLUSTERED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF))


_WORD_CHAR, _SINGLE, _MARK = 1, 2, 4  # the bits of a code point's class (:func:`_char_classes`)


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` (sorted distinct values) of a 1-D array of integers, by a sort:
    numpy 2's hash-based unique takes 4x as long on a page's few thousand hashes."""
    ordered = np.sort(values, axis=None)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.union1d(a, b)``, by :func:`distinct`."""
    return distinct(np.concatenate((a, b), axis=None))


@lru_cache(maxsize=1)
def _char_classes() -> np.ndarray:
    """For every BMP code point, the bits of its class: part of a word (``_WORD_CHAR``), a word
    on its own with the combining marks after it (``_SINGLE``: CJK ideographs, kana, the
    letters of :data:`_CLUSTERED`), a combining mark (``_MARK``)."""
    chars = "".join(map(chr, range(0x10000)))
    word = np.fromiter((c.isalnum() for c in chars), dtype=bool, count=0x10000)
    digit = np.fromiter((c.isdecimal() for c in chars), dtype=bool, count=0x10000)
    mark = np.zeros(0x10000, dtype=bool)
    for low, high in MARK_RANGES:
        mark[low : min(high, 0xFFFF) + 1] = True
    single = np.zeros(0x10000, dtype=bool)
    for low, high in _SPACELESS:
        single[low : high + 1] = True
    mark[single] = False  # (kana's voicing marks are kana)
    for low, high in _CLUSTERED:
        single[low : high + 1] = word[low : high + 1] & ~digit[low : high + 1]
    word |= single
    word[0xD800:0xE000] = False  # lone surrogates
    return (word * _WORD_CHAR + single * _SINGLE + mark * _MARK).astype(np.uint8)


def word_hashes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 64-bit hashes of the words in ``codes`` (the UTF-32 code points of a case-folded
    text: runs of word characters, each CJK ideograph or kana a word of its own), and the
    position where each word starts."""
    starts, _, hashes = _word_spans(codes)
    return hashes, starts


def _word_spans(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each word of ``codes`` starts and ends, and its hash (see :func:`word_hashes`):
    in one compiled pass, or by numpy for a text with combining marks or without the build."""
    spans = _compiled_word_spans()
    if spans is not None:
        starts, ends = np.empty(len(codes), dtype=np.int64), np.empty(len(codes), dtype=np.int64)
        hashes = np.empty(len(codes), dtype=_U64)
        count = spans(codes, _char_classes(), POLY_BASE, starts, ends, hashes)
        if count >= 0:  # (-1: a combining mark)
            return starts[:count], ends[:count], hashes[:count]
    starts, ends = _word_bounds(codes)
    if not len(starts):
        return starts, ends, np.empty(0, dtype=_U64)
    return starts, ends, segment_hashes(codes.view(np.uint8), starts * 4, ends * 4)


def _word_bounds(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each word of ``codes`` starts and ends (see :func:`word_hashes`)."""
    astral = codes > 0xFFFF
    classes = _char_classes()[np.where(astral, 0, codes)]
    word = (classes & _WORD_CHAR).astype(bool) | astral  # astral: mostly letters, ideographs
    single = (classes & _SINGLE).astype(bool) | (codes >= 0x20000)
    # a word starts at a word character after a non-word one or a word of one character, or
    # at a character that is a word on its own; it ends before the next start or non-word one
    ended = np.ones(len(codes) + 1, dtype=bool)  # [i]: what comes before code point i ends
    following = np.ones(len(codes) + 1, dtype=bool)  # [i]: code point i is no word's middle
    following[:-1] = ~word | single
    if not len(codes) or classes.max() < _MARK:
        ended[1:] = following[:-1]
        return (np.flatnonzero(word & (ended[:-1] | single)),
                np.flatnonzero(word & (following[1:] | single)) + 1)
    # a combining mark is part of the word it follows: Devanagari's and Bengali's vowel signs
    # are inside words (कुर्ता and कुर्ती are two words, not the same pieces); one after no letter
    # (an emoji's variation selector) is no word; one after a word of one character is in it
    mark = (classes & _MARK).astype(bool)
    base = np.maximum(np.maximum.accumulate(np.where(mark, -1, np.arange(len(codes)))), 0)
    attached = np.zeros(len(codes) + 1, dtype=bool)  # (one more: "the next" of the last)
    attached[:-1] = mark & word[base] & ~mark[base]
    word |= attached[:-1]
    alone = single | (attached[:-1] & single[base])  # in a word of one character
    ended[1:] = ~word | alone
    following[:-1] = ~word | single
    starts = np.flatnonzero(word & ~attached[:-1] & (ended[:-1] | single))
    ends = np.flatnonzero(word & (following[1:] | (alone & ~attached[1:]))) + 1
    return starts, ends


#: What joins the parts of a version, a date, a time, a large number or a score ("2–1": an
#: en dash, a figure dash or a minus sign, as typeset text writes them).
_JOINERS = np.array([ord(c) for c in ".,:/-_\u2013\u2012\u2212"], dtype=_U32)
#: What joins two figures between spaces: a score or a range written "2 - 1", "2 – 1", "2 : 1".
_SPACED_JOINERS = np.array([ord(c) for c in "-:\u2013\u2012\u2212"], dtype=_U32)
_SPACE = ord(" ")
_PAIR = _U64(0x2F)  # the third "word" of a joined pair's hash (a constant)


#: Numerals of scripts written without spaces ("二十三度", "三月十一日"): a run of two or more is
#: a figure, as a run of digits is; one alone only before a unit of _CJK_UNITS ("五度", "六级"),
#: and never 一, which is too often a word of its own (一个, 统一, 一天).
_CJK_NUMERALS = np.array([ord(c) for c in "〇零一二三四五六七八九十百千万萬亿億两兩"], dtype=_U32)
_CJK_UNITS = np.array(
    [ord(c) for c in "度月日号號时時点點秒年岁歳歲元円级級天周週届屆期名层層楼樓倍"], dtype=_U32)
_ONE = ord("一")
_EMPTY = np.empty(0, dtype=_U64)
_EMPTY.setflags(write=False)


def _among_chars(codes: np.ndarray, chars: np.ndarray) -> np.ndarray:
    """``np.isin(codes, chars)`` for a few BMP ``chars``, by a table (``np.isin`` sorts)."""
    return _char_table(chars.tobytes())[np.minimum(codes, 0xFFFF)]


@lru_cache(maxsize=8)
def _char_table(chars: bytes) -> np.ndarray:
    table = np.zeros(0x10000, dtype=bool)  # (U+FFFF, a noncharacter, stands for the astral)
    table[np.frombuffer(chars, dtype=_U32)] = True
    table[0xFFFF] = False
    return table


@lru_cache(maxsize=1)
def _digits() -> np.ndarray:
    chars = "".join(map(chr, range(0x10000)))
    return np.fromiter((c.isdecimal() for c in chars), dtype=bool, count=0x10000)


def _folded_words(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The UTF-32 code points of ``text`` case folded, where its words start and end, and the
    words' 64-bit hashes (see :func:`word_hashes`)."""
    codes = np.frombuffer(text.casefold().encode("utf-32-le", "surrogatepass"), dtype=_U32)
    return (codes, *_word_spans(codes))


@lru_cache(maxsize=1)
def _compiled_word_spans():
    try:
        from scrapy_simhash._tokens import word_spans
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return word_spans


def _figures(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray,
             words: np.ndarray) -> np.ndarray:
    """The figure sketch of a text's words (see :func:`figure_hashes`)."""
    return sketch(_figure_words(codes, starts, ends, words), FIGURES_SKETCH_SIZE)


def _figure_words(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                  words: np.ndarray) -> np.ndarray:
    """The distinct hashes of a text's words that hold a digit, sorted."""
    if not len(words):
        return np.empty(0, dtype=_U64)
    digit = _digits()[np.where(codes > 0xFFFF, 0, codes)]
    seen = np.concatenate(([0], np.cumsum(digit, dtype=np.int64)))
    figure = seen[ends] > seen[starts]
    # two words joined by one of _JOINERS, a figure among them ("3.2.0", "2025-03-12", "10:30",
    # "325,000"): the pair is a figure too, so that "3.2.0" and "4.0.2" differ although each
    # one's digits are the other's (a version beside "--workers 4")
    gaps = starts[1:] - ends[:-1]
    joined = (gaps == 1) & (figure[:-1] | figure[1:])
    joined[joined] = _among_chars(codes[ends[:-1][joined]], _JOINERS)
    # two figures with a dash or a colon between spaces ("2 - 1", "2 – 1"): a score's order
    # tells 2-1 from 1-2, which the figures alone do not
    spaced = (gaps == 3) & figure[:-1] & figure[1:]
    if spaced.any():
        at = ends[:-1][spaced]
        spaced[spaced] = ((codes[at] == _SPACE) & (codes[at + 2] == _SPACE)
                          & _among_chars(codes[at + 1], _SPACED_JOINERS))
        joined |= spaced
    if not joined.any():
        return distinct(words[figure])
    pairs = gram_hashes(words[:-1][joined], words[1:][joined], _PAIR)
    return distinct(np.concatenate((words[figure], pairs)))


def numeral_hashes(text: str) -> np.ndarray:
    """The distinct hashes of the numbers ``text`` writes in CJK numerals (see
    :data:`_CJK_NUMERALS`), figures of a short text beside those :func:`text_hashes` finds. (A
    long text's are left out: its prose has them in words, 一两年, which an edit changes.)"""
    codes, starts, ends, _ = _folded_words(text)
    return distinct(_numeral_runs(codes, starts, ends)) if len(starts) else _EMPTY


def _numeral_runs(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The hashes of a text's CJK numbers (see :data:`_CJK_NUMERALS`), each hashed as one word:
    a run of two numerals or more, or one numeral and the unit after it."""
    numeral = (ends - starts == 1) & _among_chars(codes[starts], _CJK_NUMERALS)
    if not numeral.any():
        return _EMPTY
    # a numeral that follows another one directly continues its run
    follows = np.zeros(len(starts), dtype=bool)
    follows[1:] = numeral[1:] & numeral[:-1] & (starts[1:] == ends[:-1])
    first = numeral & ~follows
    last = numeral & ~np.append(follows[1:], False)
    run_starts, run_ends = starts[first], ends[last]
    single = run_ends - run_starts == 1
    unit = np.zeros(len(run_starts), dtype=bool)
    has_next = single & (run_ends < len(codes))
    unit[has_next] = _among_chars(codes[run_ends[has_next]], _CJK_UNITS)
    unit &= codes[run_starts] != _ONE
    run_ends = run_ends + unit  # the unit goes with its numeral
    keep = ~single | unit
    if not keep.any():
        return _EMPTY
    return segment_hashes(codes.view(np.uint8), run_starts[keep] * 4, run_ends[keep] * 4)


#: A title's words, as :func:`_word_bounds` reads a text: each CJK ideograph or kana alone,
#: each letter of :data:`_CLUSTERED` with its marks, else runs of word characters with the
#: combining marks after them, and a "+", "++" or "#" that ends one: "S24" and "S24+", "C",
#: "C++" and "C#" are other products and languages.
_SPACELESS_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _SPACELESS)
_CLUSTERED_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _CLUSTERED)
_TITLE_CHAR = f"(?:[^\\W{_SPACELESS_CLASS}{_CLUSTERED_CLASS}]|\\d)"
_TITLE_RUN = f"{_TITLE_CHAR}(?:{_TITLE_CHAR}|[{MARK_CLASS}])*"
_TITLE_WORD = re.compile(f"[{_SPACELESS_CLASS}]|(?![\\d{MARK_CLASS}])(?=\\w)[{_CLUSTERED_CLASS}]"
                         f"[{MARK_CLASS}]*|{_TITLE_RUN}(?:\\+\\+?|#)?")
#: Words that code, versions and dates join without a space ("client.get_object", "2.3.10",
#: "2025-03-12", "mg-10-red"), one title word beside their parts: "2.3.1" is not "2.3.11"
#: although each one's parts are the other's.
_TITLE_COMPOUND = re.compile(f"{_TITLE_RUN}(?:[./_-]{_TITLE_RUN})+")
#: The two on a title without ideographs, kana, letters of :data:`_CLUSTERED` and combining
#: marks (most titles), where a title character is ``\w``: the same words, found 8x faster (the
#: classes' many ranges are tried at every character).
_PLAIN_TITLE_WORD = re.compile(r"\w+(?:\+\+?|#)?")
_PLAIN_TITLE_COMPOUND = re.compile(r"\w+(?:[./_-]\w+)+")
_NOT_PLAIN = re.compile(f"[{_SPACELESS_CLASS}{_CLUSTERED_CLASS}{MARK_CLASS}]")


_APOSTROPHES = str.maketrans("", "", "'\u2019")
_ACCENT = re.compile("[\u0300-\u036f]")


def _unaccented(text: str) -> str:
    """``text`` in compatibility forms (full-width letters folded) without the accents of
    Latin, Greek and Cyrillic letters (not kana's voicing marks); unchanged when it is ASCII."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _ACCENT.sub("", unicodedata.normalize("NFKD", text)))


#: Letters that only Vietnamese writes (its tones on vowels, "ơ", "ư", "đ"): in its titles the
#: marks make the word ("Phú Mỹ" and "Phù Mỹ" are two districts), so they are kept.
_VIETNAMESE = re.compile("[\u1ea0-\u1ef9\u01a0\u01a1\u01af\u01b0\u0110\u0111]")


def _plain_title(title: str) -> str:
    """``title`` as its words compare: compatibility forms folded (full-width letters), case
    folded, accents and apostrophes left out ("Café" and "Cafe", "Grandma's" and "Grandmas");
    a Vietnamese title keeps its marks (:data:`_VIETNAMESE`)."""
    folded = title.casefold()
    if not folded.isascii() and _VIETNAMESE.search(folded):
        return unicodedata.normalize("NFKC", folded).translate(_APOSTROPHES)
    return _unaccented(folded).translate(_APOSTROPHES)


def title_hashes(title: str) -> np.ndarray:
    """The sketch (:data:`TITLE_SKETCH_SIZE`) of the distinct words of a page's title (see
    :func:`_plain_title`; each CJK ideograph or kana a word): their CRC-32s, the smallest first.
    (A few words: hashed one by one in Python, cheaper than the text's numpy hashing.)"""
    return np.array([crc for crc, _ in _title_words(title)], dtype=_U32)


#: A route or a conversion as a title writes it, one way: "Leeds to York", "USD → EUR",
#: "東京から大阪", "北京至天津", "दिल्ली से आगरा". The words around the connector, in their order,
#: are one title word more ("leeds>york"): the way back has the same words, not that one.
_NAME = f"((?:\\w|[{MARK_CLASS}])+)"  # (a word with its vowel signs: "दिल्ली")
_DIRECTED = re.compile(f"{_NAME}\\s+(?:to|से)\\s+{_NAME}|{_NAME}\\s*(?:→|->|⇒|⟶)\\s*{_NAME}"
                       "|(\\w)(?:から|至|到)(\\w)")
_CONNECTORS = ("to", "से", "→", "->", "⇒", "⟶", "から", "至", "到")
_ASCII_DIRECTED = re.compile(r"(\w+)\s+to\s+(\w+)|(\w+)\s*->\s*(\w+)")  # (the same on ASCII)


def _directed(plain: str) -> list[str]:
    """The routes of a (folded) title (:data:`_DIRECTED`), as title words. (Most titles have
    no connector: the expression, slow at every character, is left alone.)"""
    if not any(connector in plain for connector in _CONNECTORS):
        return []
    found = (_ASCII_DIRECTED if plain.isascii() else _DIRECTED).finditer(plain)
    return [">".join(filter(None, each.groups())) for each in found]


#: A score or a result as a title writes it: "2–1", "2 - 1", "3:0". The two figures in their
#: order are one title word more ("2-1"): the same teams' other result has the same words.
#: (Figures joined on to others, "2025-03-12" or "1.2-3", are compounds already.)
_SCORE = re.compile(r"(?<![\w.,/:\u2012\u2013\u2212-])(\d+) ?[-:\u2012\u2013\u2212] ?(\d+)"
                    r"(?![\w.,/:\u2012\u2013\u2212-])")
_HAS_DIGIT = re.compile(r"\d")


def _scores(plain: str) -> list[str]:
    """The scores of a (folded) title (:data:`_SCORE`), as title words."""
    if not _HAS_DIGIT.search(plain):
        return []
    return [f"{first}-{second}" for first, second in _SCORE.findall(plain)]


def _title_words(title: str) -> list[tuple[int, str]]:
    """The words of :func:`title_hashes` with their CRC-32s, in the sketch's order."""
    plain = _plain_title(title[:TITLE_MAX_CHARS * 4])
    words = set(_title_spellings(plain))
    words.update(_directed(plain))
    words.update(_scores(plain))
    return sorted((zlib.crc32(word.encode("utf-8", "surrogatepass")), word)
                  for word in words)[:TITLE_SKETCH_SIZE]


def _title_spellings(title: str) -> list[str]:
    """A (folded) title's words and its compounds (see :data:`_TITLE_COMPOUND`)."""
    if title.isascii() or not _NOT_PLAIN.search(title):
        return _PLAIN_TITLE_WORD.findall(title) + _PLAIN_TITLE_COMPOUND.findall(title)
    return _TITLE_WORD.findall(title) + _TITLE_COMPOUND.findall(title)


def named_title(title: str, text_words: np.ndarray) -> tuple[np.ndarray, int]:
    """A long page's title sketch (:func:`title_hashes`) and which of its words its text names:
    bit ``i`` of the mask is set when the sketch's ``i``-th word is one of ``text_words`` (the
    hashes of the words of its main text and the rest of its content, :func:`word_hashes`)."""
    words = _title_words(title)
    hashes = np.array([crc for crc, _ in words], dtype=_U32)
    if not words or not len(text_words):
        return hashes, 0
    spellings = [(i, word) for i, (_, word) in enumerate(words)]
    if not title.isascii():
        # the text keeps its accents ("Zürich"): a word is named as the title spells it too
        at = {word: i for i, (_, word) in enumerate(words)}
        for raw in sorted(set(_title_spellings(
                unicodedata.normalize("NFC", title.casefold())))):
            i = at.get(_plain_title(raw))
            if i is not None and raw != words[i][1]:
                spellings.append((i, raw))
    # hashed as the text's words are, in one pass; a spelling the text's hashing splits (a
    # compound, "snake_case") is named when the text names every part, and one it drops
    # whole (as "_") by none
    joined = " ".join(word for _, word in spellings)  # (case folded already: lengths kept)
    _, starts, _, values = _folded_words(joined)
    offsets = np.cumsum([0] + [len(word) + 1 for _, word in spellings[:-1]])
    at = np.searchsorted(offsets, starts, side="right") - 1  # each word's spelling
    spelled, each = np.unique(values, return_inverse=True)  # (a compound repeats its parts)
    unnamed = set(at[~_among(spelled, text_words)[each]].tolist())
    named = {spellings[i][0] for i in set(at.tolist()) - unnamed}
    return hashes, sum(1 << i for i in named)


def line_hashes(lines: list[str]) -> np.ndarray:
    """The distinct CRC-32s of ``lines`` (case folded), sorted: a long page's layout marks."""
    return distinct(np.fromiter(
        (zlib.crc32(line.casefold().encode("utf-8", "surrogatepass")) for line in lines),
        dtype=_U32, count=len(lines)))


def _among(values: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Which of a few ``values`` are among many ``words`` (``np.isin`` sorts both: the text's
    thousands of words are looked up in the few values instead)."""
    if not len(values) or not len(words):
        return np.zeros(len(values), dtype=bool)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    at = np.minimum(np.searchsorted(ordered, words), len(ordered) - 1)
    found = np.zeros(len(values), dtype=bool)
    found[order[at[ordered[at] == words]]] = True
    return found


def text_named_title(text: str) -> tuple[np.ndarray | None, int | None]:
    """A long text's title (:func:`text_title`) and which of its words the lines after it name
    (:func:`named_title`); (None, None) when it opens with no title."""
    end = text.find("\n", 0, TITLE_MAX_CHARS + 1)
    if end < 0:
        return None, None
    return named_title(text[:end], _folded_words(text[end + 1:])[3])


#: A short item's lines of at most this many characters (after its first) are fields that
#: name it beside its title (a city, a size, a colour), among the first FIELD_LINES lines.
FIELD_MAX_CHARS = 40
FIELD_LINES = 16


def text_title(text: str) -> np.ndarray | None:
    """The title sketch of a text of several lines whose first line is short enough to be a
    title (an item's first field, a record's): that line's words, and those of the short lines
    after it (an item's fields: "Leeds" beside "Manchester" under one job title)
    (:func:`title_hashes`); None for a text of one line, or one that opens with a paragraph."""
    end = text.find("\n", 0, TITLE_MAX_CHARS + 1)
    if end < 0:
        return None
    fields = [line for line in text[end + 1:].split("\n", FIELD_LINES)[:FIELD_LINES]
              if len(line.strip()) <= FIELD_MAX_CHARS]
    return title_hashes("\n".join([text[:end], *fields]))


#: A field line: a label of one to four words, a colon, a value; neither with a digit (a
#: date, a price or a count is a figure, read as one) nor a sentence's punctuation. "Region:
#: Seoul", "Modelo: Onix", "地域：東京". (Lines one by one: no backtracking over paragraphs.)
_FIELD = re.compile(r"[^\S\n]*(?:[-*\u2022\u00b7][^\S\n]*)?"
                    r"([^\W\d_]+(?:[ '\u2019./-][^\W\d_]+){0,3})[^\S\n]*[:\uff1a][^\S\n]*"
                    r"([^\d:\uff1a\n.!?;\"\u201c\u201d\u3001\u3002\u3008-\u3011\uff01\uff0c\uff1b\uff1f\u2026]+)")
FIELD_LABEL_MAX_CHARS = 30
#: A field's value is a name, of at most this many words (each CJK character one): "Leeds City
#: Centre", "경기 북부", "黑龙江省"; longer, it is a line of prose or a headline.
FIELD_MAX_WORDS = 6


def field_pair(line: str) -> tuple[str, str] | None:
    """A field line's label (case folded) and value, their spaces collapsed (see
    :data:`_FIELD`); None when the line is none, or its label or value is too long."""
    if len(line) > FIELD_LABEL_MAX_CHARS + FIELD_MAX_CHARS + 8:
        return None  # (a paragraph)
    found = _FIELD.fullmatch(line.rstrip())
    if found is None:
        return None
    label, value = found.groups()
    if len(label) > FIELD_LABEL_MAX_CHARS or len(value.strip()) > FIELD_MAX_CHARS:
        return None
    return " ".join(label.casefold().split()), " ".join(value.split())


def field_codes(lines: Iterable[str]) -> np.ndarray | None:
    """The field lines among ``lines`` (:func:`field_pair`; a value of at most
    :data:`FIELD_MAX_WORDS` words, as a title's, with a letter in it), each word of a value a
    code: the top half of its label's CRC-32 over the bottom half of the word's; the smallest
    :data:`FIELDS_SKETCH_SIZE`, so by label. None when there are none."""
    codes = set()
    for line in lines:
        pair = field_pair(line)
        if pair is None:
            continue
        words = set(_title_spellings(_plain_title(pair[1])))
        if not words or len(words) > FIELD_MAX_WORDS:
            continue
        label_code = zlib.crc32(pair[0].encode("utf-8", "surrogatepass")) >> 16 << 16
        codes.update(label_code | zlib.crc32(word.encode("utf-8", "surrogatepass")) & 0xFFFF
                     for word in words)
    if not codes:
        return None
    return np.array(sorted(codes)[:FIELDS_SKETCH_SIZE], dtype=_U32)


def heading_hashes(heading: str) -> np.ndarray:
    """The distinct hashes of the words of a main text's heading: "Grade 9" and "Grade 12" head
    two pages although the 12 is in the other's dates too, "Trail Runner 3 - Red" and "- Forest
    Green" two variants beside one description."""
    return distinct(_folded_words(heading)[3]) if heading else _EMPTY


def figure_hashes(text: str) -> np.ndarray:
    """The sketch (:data:`FIGURES_SKETCH_SIZE`) of the distinct words of ``text`` (case folded)
    that hold a digit: prices, SKUs, dates, scores."""
    return _figures(*_folded_words(text))


#: A date with its year, in the forms pages write: "2025-03-14", "2025/3/14", "2025年3月14日",
#: "March 14, 2025", "Sat 15th March 2025".
_DATE = re.compile(
    r"(?<!\d)((?:19|20)\d\d)[-/.年](\d{1,2})[-/.月](\d{1,2})(?!\d)|"
    r"\b(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2})|"
    r"(\d{1,2})(?:st|nd|rd|th)? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?)"
    r",? ((?:19|20)\d\d)\b",
    re.IGNORECASE,
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def date_figures(text: str) -> np.ndarray:
    """The figure hashes (:func:`figure_words`) of the dates in ``text``, each written as
    YYYY-MM-DD: the same date however a page writes it, and another date a figure of its own
    even where its day is another figure's part ("August 30" beside "7:30 PM")."""
    if "19" not in text and "20" not in text:
        return _EMPTY
    dates = []
    for year, month, day, name, name_day, day_name, name_after, name_year in _DATE.findall(text):
        if not year:
            year, day = name_year, name_day or day_name
            month = str(_MONTHS.index((name or name_after).lower()) + 1)
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            dates.append(f"{year}-{int(month):02d}-{int(day):02d}")
    return figure_words(" ".join(dates))


# An item's words, with what dots, commas, colons, slashes and dashes join ("12.10",
# "2025-02-16", "cf-265"; one pass, no backtracking); its figures are those with a digit.
_ITEM_WORD = re.compile(r"[^\W_]+(?:[.,:/-][^\W_]+)*")
_DIGIT = re.compile(r"\d")


def item_figures(text: str) -> np.ndarray:
    """The figure sketch of an item's text: the CRC-32s of its distinct figures (case folded),
    the smallest :data:`FIGURES_SKETCH_SIZE`. (A regular expression: the items of a large file
    are many short texts, where the word hashing's numpy passes cost more than the text.)"""
    has_digit = _DIGIT.search
    found = {zlib.crc32(word.encode("utf-8", "surrogatepass"))
             for word in _ITEM_WORD.findall(text.casefold()) if has_digit(word)}
    return np.array(sorted(found)[:FIGURES_SKETCH_SIZE], dtype=_U32)


def figure_words(text: str) -> np.ndarray:
    """The distinct hashes of ``text``'s figures, as :func:`text_hashes` finds them with
    ``numerals``."""
    if not text:
        return _EMPTY
    folded = _folded_words(text)
    return union(_figure_words(*folded), _numeral_runs(*folded[:3]))


def gram_hashes(first: np.ndarray, second: np.ndarray, third: np.ndarray) -> np.ndarray:
    """The hashes of word 3-grams from the hashes of their three words."""
    with np.errstate(over="ignore"):
        return scramble(first * _MIX_1 + second * _MIX_2 + third)


def scramble(grams: np.ndarray) -> np.ndarray:
    """``grams`` mixed in place (so that their top bits, which the sketches keep, are even)."""
    with np.errstate(over="ignore"):
        grams ^= grams >> _U64(31)
        grams *= _U64(0xBF58476D1CE4E5B9)
        grams ^= grams >> _U64(29)
    return grams


def shingle_hashes(text: str) -> tuple[np.ndarray, int]:
    """The distinct 64-bit hashes of the word 3-grams of ``text`` (case folded), sorted, and its
    number of words; a text of one or two words gives the hash of that one n-gram."""
    if not text:
        return np.empty(0, dtype=_U64), 0
    return _shingles(_folded_words(text)[3])


def text_hashes(text: str, numerals: bool = False
                ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """:func:`shingle_hashes` of ``text``, the hashes of its words (:func:`word_hashes`) and the
    distinct hashes of its figures (its words with a digit, and with ``numerals`` its numbers in
    CJK numerals: :func:`numeral_hashes`), from one pass over its words."""
    if not text:
        empty = np.empty(0, dtype=_U64)
        return empty, 0, empty, empty
    folded = _folded_words(text)
    figures = _figure_words(*folded)
    if numerals:
        figures = union(figures, _numeral_runs(*folded[:3]))
    return (*_shingles(folded[3]), folded[3], figures)


def _shingles(words: np.ndarray) -> tuple[np.ndarray, int]:
    if not len(words):
        return np.empty(0, dtype=_U64), 0
    if len(words) >= SHINGLE_WORDS:
        grams = gram_hashes(words[:-2], words[1:-1], words[2:])
    else:
        grams = scramble(np.array([int(words.sum(dtype=_U64))], dtype=_U64))
    return distinct(grams), len(words)


def mark_bits(figures: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """A short main text's marks: the sets of its figures' and its heading's word hashes, each as
    :data:`MARK_BITS` bits (the top bits of a hash pick its bit), in uint32 words."""
    bits = np.zeros((2, MARK_BITS), dtype=bool)
    shift = _U64(64 - MARK_BITS.bit_length() + 1)
    for row, hashes in enumerate((figures, heading)):
        bits[row, (hashes >> shift).astype(np.intp)] = True
    return np.packbits(bits, bitorder="little").view("<u4").astype(_U32)


#: Query parameters of a link that name a visit, not a page: a session, a campaign.
_VISIT_PARAMETER = re.compile(r"(?:utm_\w*|sid|sessionid|phpsessid|jsessionid)=", re.IGNORECASE)
_VISIT_PATH_PARAMETER = re.compile(r";(?:jsessionid|sessionid|sid)=[^/?]*", re.IGNORECASE)


def link_bits(hrefs: list[str]) -> np.ndarray:
    """A page's entry links (:meth:`Extraction.entry_links`: a listing's entries, the links in
    an article's paragraphs) as a set of :data:`LINK_BITS` bits, in uint32 words: each target
    without its fragment and the parameters that name a visit (a session id, ``utm_*``)."""
    return _bits_of_codes(map(_link_code, hrefs))


def _bits_of_codes(codes: Iterable[int | None]) -> np.ndarray:
    bits = np.zeros(LINK_BITS, dtype=bool)
    for code in codes:
        if code is not None:
            bits[code % LINK_BITS] = bits[(code // LINK_BITS) % LINK_BITS] = True
    return np.packbits(bits, bitorder="little").view("<u4").astype(_U32)


#: Digits as lines compare them: a line that differs by its figures alone (a counter's, "17
#: people are looking at this") is the same line; figures have rules of their own.
_DIGITS_MASKED = bytes.maketrans(b"123456789", b"000000000")  # (ASCII digits, in UTF-8 bytes)
_GOLDEN = 0x9E3779B1  # (2**32 divided by the golden ratio, odd)
_LINE_SHIFT = 32 - (LINE_BITS.bit_length() - 1)  # (the top log2(LINE_BITS) bits of 32)


def line_bits(text: str) -> np.ndarray | None:
    """A main text's lines as a set of :data:`LINE_BITS` bits, in uint32 words (None: no line):
    each line by its first :data:`LINE_PREFIX_CHARS` characters, case folded, spaced by one and
    its digits masked, if it has :data:`LINE_MIN_CHARS` or more. (Punctuation counts: one
    template writes it alike.)"""
    starts = (" ".join(line[:2 * LINE_PREFIX_CHARS].split())[:LINE_PREFIX_CHARS].casefold()
              for line in text.split("\n"))
    # (a CRC's low bits alone collide on lines of one length that share their end: "Patricia
    # Miller of ..." and "William Thomas of ..."; its product with an odd constant's top bits
    # draw on every bit)
    crcs = (zlib.crc32(start.encode("utf-8", "surrogatepass").translate(_DIGITS_MASKED))
            for start in starts if len(start) >= LINE_MIN_CHARS)
    codes = {(crc * _GOLDEN & 0xFFFFFFFF) >> _LINE_SHIFT for crc in crcs}
    if not codes:
        return None
    value = sum(1 << code for code in codes)
    return np.frombuffer(value.to_bytes(LINE_BITS // 8, "little"), dtype="<u4").astype(_U32)


def _link_code(href: str) -> int | None:
    """The CRC-32 of a link's target as :func:`link_bits` compares them (None: no target, a
    fragment of the page itself)."""
    # (percent-escapes read and spaces dropped: "a b", "a%20b" and "a\nb" are one link, as a
    # browser or a page's serialiser may write it)
    if "%" in href or " " in href or not href.isprintable():
        href = "".join(unquote(href).split())
    target = href.split("#", 1)[0]
    if ";" in target:
        target = _VISIT_PATH_PARAMETER.sub("", target)
    if "?" in target:
        path, query = target.split("?", 1)
        kept = [p for p in query.split("&") if p and not _VISIT_PARAMETER.match(p)]
        target = f"{path}?{'&'.join(kept)}" if kept else path
    return zlib.crc32(target.encode("utf-8", "surrogatepass")) if target else None


#: Query parameters that name a campaign, a click, an analytics link or a visit (beyond
#: ``utm_*``, ``ref*`` and the sessions of :data:`_VISIT_PARAMETER`): a copy's URL, or a
#: canonical URL that echoes it, differs by them (Mailchimp's ``mc_cid``, Google's ``_ga`` and
#: ``srsltid``, HubSpot's ``_hsenc``, Instagram's ``igshid`` ...).
_TRACKING_KEY = re.compile(
    r"(?:mc_|_hs|hsa_|pk_|mtm_|wt_|at_|ns_|trk|session|sess|affiliate|aff_)\w*|_ga|_gl|gclid"
    r"|gclsrc|dclid|fbclid|msclkid|yclid|twclid|ttclid|igshid|igsh|srsltid|spm|share_id|si"
    r"|mkt_tok|s_cid|cmpid|icid|ito|ncid|ocid|cmp|cid|sid|ssid|token|cb|cachebuster|epik"
    r"|irclickid|rb_clickid|smid|smtyp|xtor|guccounter|guce_\w*|wprss|fb_\w*|oly_\w*"
)
#: A query value naming the channel a reader came through (``?smid=tw-share``,
#: ``?mod=rss_Top_Stories``, ``?xtor=RSS-3208``): a campaign's under a key of a site's own.
_CHANNEL_VALUE = re.compile(
    r"(?<![a-z])(?:rss|atom|feed|share|e-?mail|newsletter|social|twitter|facebook|whatsapp"
    r"|linkedin|telegram|push)(?![a-z])", re.IGNORECASE)
#: A path's last segment that names the folder's own page: ``/news/index.html`` is ``/news``.
_INDEX_PAGE = re.compile(r"/(?:index|default)\.(?:html?|php|aspx?|jsp)$")


def _shows_or_visits(key: str) -> bool:
    """Whether a query key (case folded) names how a page is shown or a visit
    (:data:`_PRESENTATION_KEYS`, :data:`_VISIT_PARAMETER`), not what the page is."""
    return key in _PRESENTATION_KEYS or _VISIT_PARAMETER.match(f"{key}=") is not None


def _chosen_pairs(query: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A query's (key, value) pairs but those of campaigns, clicks, visits and presentations,
    and those whose value names a reader's channel (:data:`_CHANNEL_VALUE`): what it chooses."""
    return [(key, value) for key, value in query
            if not _shows_or_visits(key) and not _TRACKING_KEY.fullmatch(key)
            and not _CHANNEL_VALUE.search(value)]


def canonical_code(href: str | None, url: str | None) -> int | None:
    """The CRC-32 of the URL a page declares its own (``<link rel="canonical">``'s ``href``),
    resolved against the page's ``url``, as a copy's echo of its own URL may write it too: its
    scheme, ``www.``, a default port, case, escapes, a session's path parameter, a folder's
    index page, a last slash and the query's campaign, visit and presentation parameters
    aside (:func:`_chosen_pairs`); None when there is none or it is no web URL."""
    from urllib.parse import urljoin

    if not href or not href.strip():
        return None
    split = _url_parts(urljoin(url or "", "".join(href.split())))
    if split is None:
        return None
    parts, query = split
    try:
        host = (parts.hostname or "").removeprefix("www.")
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if port is not None and port not in (80, 443):
        host = f"{host}:{port}"
    path = _folder_path(parts.path)
    kept = "&".join(f"{key}={value}" for key, value in sorted(_chosen_pairs(query)))
    return zlib.crc32(f"{host}{path}?{kept}".encode("utf-8", "surrogatepass"))


def other_canonicals(a: Evidence, b: Evidence) -> bool:
    """Whether two pages declare two canonical URLs (each its own, as a site's distinct pages
    do: its terms per country, its products): a page's copies declare the one they copy, or
    none (a print version)."""
    return a.canonical is not None and b.canonical is not None and a.canonical != b.canonical


#: Query parameters of an embedded document that change at each request (an ad server's
#: frame asks for another ad): not what the page embeds.
_CACHE_BUSTER = re.compile(r"(?:correlator|ord|cb|cachebuster|rand|random|ts|timestamp|_|t)=",
                           re.IGNORECASE)


def embed_codes(urls: list[str], base: str | None = None) -> np.ndarray | None:
    """The sketch (:data:`EMBEDS_SKETCH_SIZE`) of the documents a page at ``base`` embeds (see
    :func:`~scrapy_simhash.extract.structured.embedded_urls`): their CRC-32s as
    :func:`link_bits` compares links, resolved against ``base``, without the parameters that
    change at each request (:data:`_CACHE_BUSTER`); None when it embeds none."""
    from urllib.parse import urljoin

    codes = set()
    for url in urls:
        if base:
            with contextlib.suppress(ValueError):  # (an odd URL is read as written)
                url = urljoin(base, url)
        if "?" in url:
            path, query = url.split("?", 1)
            kept = [p for p in query.split("&") if p and not _CACHE_BUSTER.match(p)]
            url = f"{path}?{'&'.join(kept)}" if kept else path
        codes.add(_link_code(url))
    codes.discard(None)
    if not codes:
        return None
    return np.array(sorted(codes)[:EMBEDS_SKETCH_SIZE], dtype=_U32)


def sketch(hashes: np.ndarray, k: int = SKETCH_SIZE) -> np.ndarray:
    """The bottom-k sketch of sorted distinct hashes: the ``k`` smallest distinct top-32-bit
    values, sorted."""
    values = (hashes[: k * 2] >> _U64(32)).astype(_U32)  # sorted: the smallest come first
    if len(values) > 1:
        values = values[np.concatenate(([True], values[1:] != values[:-1]))]
    return values[:k]


@dataclass(frozen=True, slots=True, eq=False)
class Evidence:
    """What confirms that a candidate holds the same content (see the module's docstring)."""

    sketch: np.ndarray  # bottom-k sketch (uint32) of the main text's 3-grams (weak: the page's)
    size: int  # distinct 3-grams it was taken from
    words: int  # words of the main text
    weak: bool = False
    # a short main text: sketches of the rest of its page and of its chrome
    rest: np.ndarray | None = None
    rest_size: int = 0
    chrome: np.ndarray | None = None
    chrome_size: int = 0
    # a short main text: the sketch of the figures of its own text, main text and rest (None:
    # not known, evidence stored before)
    figures: np.ndarray | None = None
    # the sketch of its title's words (None: not known, evidence stored before, or no title)
    title: np.ndarray | None = None
    # a long page: which words of its title its text names, bit i for title[i] (None: not
    # known, evidence stored before)
    named: int | None = None
    # a long page: the sketches of its rest's 3-grams (its content beside the main text: a job's
    # fields, a listing's grid, a table) and of its layout's elements, and the sizes of their
    # sets (None: not known)
    long_rest: np.ndarray | None = None
    long_rest_size: int = 0
    layout: np.ndarray | None = None
    layout_size: int = 0
    # a short main text: its figures and its heading's words (:func:`mark_bits`; None: not
    # known)
    marks: np.ndarray | None = None
    # its entries' links and its near entries' (:func:`listing_links`; None: not known, or
    # too few)
    links: np.ndarray | None = None
    # the sketch of its own comments' 3-grams and the size of their set (None: none, or not
    # known)
    comments: np.ndarray | None = None
    comments_size: int = 0
    # a short or weak page's embedded documents (:func:`embed_codes`; None: none, or not known)
    embeds: np.ndarray | None = None
    # the words of its URL that its own text names (:func:`named_selections`; None: none, or not
    # known)
    selections: np.ndarray | None = None
    # its own field lines, label and value (:func:`field_codes`; None: none, or not known)
    fields: np.ndarray | None = None
    # the URL its page declares its own (:func:`canonical_code`; None: none, or not known)
    canonical: int | None = None
    # a short or long page: its main text's lines (:func:`line_bits`; None: none, or not known)
    lines: np.ndarray | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Evidence) and self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __reduce__(self) -> tuple:
        # as its bytes: compact, and a worker's answer carries no numpy buffer
        return (_from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        weak = ", weak" if self.weak else ""
        rest = (f", rest of {self.rest_size} and chrome of {self.chrome_size} 3-grams"
                if self.short else "")
        return f"<Evidence {self.words} words, {self.size} 3-grams{weak}{rest}>"

    @property
    def short(self) -> bool:
        return self.rest is not None

    def to_bytes(self) -> bytes:
        long = not (self.short or self.weak)
        figures = self.figures is not None and (
            self.short or self.weak
            or (long and self.long_rest is not None and self.layout is not None))
        title = self.title is not None
        named = title and self.named is not None and long
        long_rest = self.long_rest is not None and self.layout is not None and long
        marks = self.marks is not None and self.short
        links = self.links is not None and (long_rest or self.short or self.weak)
        flags = ((_WEAK if self.weak else 0) | (_SHORT if self.short else 0)
                 | (_FIGURES if figures else 0) | (_TITLE if title else 0)
                 | (_NAMED if named else 0) | (_LONG_REST if long_rest else 0)
                 | (_MARKS if marks else 0) | (_LINKS if links else 0))
        comments = self.comments is not None and not self.weak
        embeds = self.embeds is not None and (self.short or self.weak)
        selections = self.selections is not None
        fields = self.fields is not None
        extended = ((_COMMENTS if comments else 0) | (_EMBEDS if embeds else 0)
                    | (_SELECTIONS if selections else 0) | (_FIELDS if fields else 0))
        lines = self.lines is not None and not self.weak
        if lines:
            version = _LINES_VERSION if self.canonical is None else _LINES_CANONICAL_VERSION
        else:
            version = EVIDENCE_VERSION if self.canonical is None else _CANONICAL_VERSION
        header = _HEADER.pack(version | extended, flags,
                              min(self.words, 0xFFFF), self.size, self.rest_size,
                              self.chrome_size)
        parts = [header, self.sketch.astype("<u4").tobytes()]
        if self.short:
            parts += [self.rest.astype("<u4").tobytes(), self.chrome.astype("<u4").tobytes()]
        if figures:  # (after the rest: evidence stored without figures reads as before)
            parts += _counted(self.figures)
        if title:  # (last: evidence stored without a title reads as before)
            parts += _counted(self.title)
        if named:
            parts.append(_COUNT.pack(self.named))
        if long_rest:  # each: the size of its set, then its sketch
            parts += [_COUNT.pack(self.long_rest_size), self.long_rest.astype("<u4").tobytes(),
                      _COUNT.pack(self.layout_size),
                      self.layout.astype("<u4").tobytes()]
        if marks:  # (last: evidence stored without them reads as before)
            parts.append(self.marks.astype("<u4").tobytes())
        if links:  # (last: evidence stored without them reads as before)
            parts.append(self.links.astype("<u4").tobytes())
        if comments:  # (last: evidence stored without them reads as before)
            parts += [_COUNT.pack(self.comments_size), self.comments.astype("<u4").tobytes()]
        if embeds:  # (last: evidence stored without them reads as before)
            parts += _counted(self.embeds)
        if selections:  # (last: evidence stored without them reads as before)
            parts += _counted(self.selections)
        if fields:  # (last: evidence stored without them reads as before)
            parts += _counted(self.fields)
        if lines:  # (after the rest, before the canonical URL: a version of their own)
            parts.append(self.lines.astype("<u4").tobytes())
        if self.canonical is not None:
            parts.append(_COUNT.pack(self.canonical))
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> Evidence | None:
        """The evidence ``data`` holds, or None when it is of another version or malformed."""
        if len(data) < _HEADER.size:
            return None
        version, flags, words, size, rest_size, chrome_size = _HEADER.unpack_from(data)
        extended, version = version & ~0x0F, version & 0x0F
        canonical = lines = None
        if version in (_CANONICAL_VERSION, _LINES_CANONICAL_VERSION) \
                and len(data) >= _HEADER.size + _COUNT.size:
            (canonical,) = _COUNT.unpack_from(data, len(data) - _COUNT.size)
            data = data[:-_COUNT.size]
            version = EVIDENCE_VERSION if version == _CANONICAL_VERSION else _LINES_VERSION
        if version == _LINES_VERSION and len(data) >= _HEADER.size + LINE_BITS // 8 \
                and not flags & _WEAK:
            at = len(data) - LINE_BITS // 8
            lines = np.frombuffer(data, dtype="<u4", count=LINE_BITS // 32, offset=at).astype(_U32)
            data, version = data[:at], EVIDENCE_VERSION
        counts = [min(size, SKETCH_SIZE)]
        if flags & _SHORT:
            counts += [min(rest_size, SKETCH_SIZE), min(chrome_size, CHROME_SKETCH_SIZE)]
        end = _HEADER.size + 4 * sum(counts)
        figures = title = named = None
        if flags & _FIGURES and flags & (_SHORT | _LONG_REST | _WEAK):
            figures, end = _counted_sketch(data, end, FIGURES_SKETCH_SIZE)
            if figures is None:
                return None
        if flags & _TITLE:
            title, end = _counted_sketch(data, end, TITLE_SKETCH_SIZE)
            if title is None:
                return None
        if flags & _NAMED:
            if not flags & _TITLE or flags & (_SHORT | _WEAK) or len(data) < end + _COUNT.size:
                return None
            (named,) = _COUNT.unpack_from(data, end)
            end += _COUNT.size
        long_rest = layout = None
        long_rest_size = layout_size = 0
        if flags & _LONG_REST:
            if flags & (_SHORT | _WEAK):
                return None
            long_rest, long_rest_size, end = _sized_sketch(data, end, LONG_REST_SKETCH_SIZE)
            layout, layout_size, end = _sized_sketch(data, end, LAYOUT_SKETCH_SIZE)
            if long_rest is None or layout is None:
                return None
        marks = None
        if flags & _MARKS:
            if not flags & _SHORT:
                return None
            length = 2 * MARK_BITS // 8
            if len(data) < end + length:
                return None
            marks = np.frombuffer(data, dtype="<u4", count=length // 4, offset=end).astype(_U32)
            end += length
        links = None
        if flags & _LINKS:
            length = 2 * LINK_BITS // 8
            if not flags & (_LONG_REST | _SHORT | _WEAK) or len(data) < end + length:
                return None
            links = np.frombuffer(data, dtype="<u4", count=length // 4, offset=end).astype(_U32)
            end += length
        comments, comments_size = None, 0
        if extended & _COMMENTS:
            if flags & _WEAK:
                return None
            comments, comments_size, end = _sized_sketch(data, end, COMMENTS_SKETCH_SIZE)
            if comments is None:
                return None
        embeds = None
        if extended & _EMBEDS:
            if not flags & (_SHORT | _WEAK):
                return None
            embeds, end = _counted_sketch(data, end, EMBEDS_SKETCH_SIZE)
            if embeds is None:
                return None
        selections = None
        if extended & _SELECTIONS:
            selections, end = _counted_sketch(data, end, SELECTIONS_SKETCH_SIZE)
            if selections is None:
                return None
        fields = None
        if extended & _FIELDS:
            fields, end = _counted_sketch(data, end, FIELDS_SKETCH_SIZE)
            if fields is None:
                return None
        if version != EVIDENCE_VERSION or extended & ~_EXTENSIONS or len(data) != end:
            return None
        values = np.frombuffer(data, dtype="<u4", count=sum(counts),
                               offset=_HEADER.size).astype(_U32)
        ends = np.cumsum(counts)
        sketch = values[: ends[0]]
        if not flags & _SHORT:
            return cls(sketch, size, words, bool(flags & _WEAK), figures=figures, title=title,
                       named=named,
                       long_rest=long_rest, long_rest_size=long_rest_size, layout=layout,
                       layout_size=layout_size, links=links, comments=comments,
                       comments_size=comments_size, embeds=embeds, selections=selections,
                       fields=fields, canonical=canonical, lines=lines)
        return cls(sketch, size, words, bool(flags & _WEAK), values[ends[0] : ends[1]],
                   rest_size, values[ends[1] : ends[2]], chrome_size, figures, title,
                   marks=marks, links=links, comments=comments, comments_size=comments_size,
                   embeds=embeds, selections=selections, fields=fields, canonical=canonical,
                   lines=lines)


def _counted(values: np.ndarray) -> list[bytes]:
    """A sketch as :func:`_counted_sketch` reads it: its length, then its values."""
    return [_COUNT.pack(len(values)), values.astype("<u4").tobytes()]


def _counted_sketch(data: bytes, at: int, most: int) -> tuple[np.ndarray | None, int]:
    """The sketch stored at ``at`` (its length, at most ``most``, then its values) and where it
    ends; None when it is malformed."""
    values, count, end = _sized_sketch(data, at, most)
    if values is None or count > most:
        return None, at
    return values, end


def _sized_sketch(data: bytes, at: int, most: int) -> tuple[np.ndarray | None, int, int]:
    """The sketch stored at ``at`` (the size of its set, then its smallest ``most`` values), the
    size and where it ends; None when it is malformed."""
    if len(data) < at + _COUNT.size:
        return None, 0, at
    (size,) = _COUNT.unpack_from(data, at)
    count = min(size, most)
    end = at + _COUNT.size + 4 * count
    if len(data) < end:
        return None, 0, at
    return np.frombuffer(data, dtype="<u4", count=count, offset=at + _COUNT.size).astype(_U32), \
        size, end


def _from_bytes(data: bytes) -> Evidence | None:
    return Evidence.from_bytes(data)


def of_text(text: str, *, words: int | None = None, weak: bool = False) -> Evidence:
    """The evidence of a text; ``words``: of the main text (by default, of ``text``)."""
    hashes, counted = shingle_hashes(text)
    return Evidence(sketch(hashes), len(hashes), counted if words is None else words, weak)


def of_hashes(hashes: np.ndarray, words: int, weak: bool = False,
              title: np.ndarray | None = None, named: int | None = None,
              links: np.ndarray | None = None, figures: np.ndarray | None = None,
              embeds: np.ndarray | None = None,
              selections: np.ndarray | None = None,
              fields: np.ndarray | None = None) -> Evidence:
    """:func:`of_text` of a text already hashed by :func:`shingle_hashes`; ``title``: a weak
    page's (:func:`title_hashes`) or, with ``named``, a long page's (:func:`named_title`);
    ``links``: a weak page's entries (:func:`listing_links`); ``figures``: a weak page's or
    a short item's figure sketch (:func:`figure_words`, :func:`item_figures`); ``embeds``,
    ``selections`` and ``fields``: a weak page's (:func:`embed_codes`,
    :func:`named_selections`, :func:`field_codes`)."""
    return Evidence(sketch(hashes), len(hashes), words, weak, title=title,
                    named=None if weak else named, links=links if weak else None,
                    figures=figures if weak else None, embeds=embeds if weak else None,
                    selections=selections if weak else None, fields=fields if weak else None)


def of_long(main: np.ndarray, words: int, title: np.ndarray | None = None,
            named: int | None = None, rest: np.ndarray | None = None,
            layout: np.ndarray | None = None, figures: np.ndarray | None = None,
            links: np.ndarray | None = None, comments: np.ndarray | None = None,
            selections: np.ndarray | None = None,
            fields: np.ndarray | None = None, lines: np.ndarray | None = None) -> Evidence:
    """The evidence of a long main text (hashed), its page's title and the words of it that the
    page's text names (:func:`named_title`), its rest (hashed), the marks of its layout
    (:func:`line_hashes`), the figures of its main text and rest (:func:`text_hashes`), its
    entries' links (:func:`link_bits`), its own comments (hashed), the words of its URL its
    text names (:func:`named_selections`), its field lines (:func:`field_codes`) and its main
    text's lines (:func:`line_bits`)."""
    if rest is None or layout is None:
        return Evidence(sketch(main), len(main), words, title=title, named=named,
                        selections=selections, fields=fields, lines=lines)
    return Evidence(sketch(main), len(main), words, title=title, named=named,
                    figures=None if figures is None else sketch(figures, FIGURES_SKETCH_SIZE),
                    long_rest=sketch(rest, LONG_REST_SKETCH_SIZE), long_rest_size=len(rest),
                    layout=layout[:LAYOUT_SKETCH_SIZE], layout_size=len(layout), links=links,
                    selections=selections, fields=fields, lines=lines, **_comments_of(comments))


def of_short(main: np.ndarray, words: int, rest: np.ndarray, chrome: np.ndarray,
             figures: np.ndarray | None = None, title: np.ndarray | None = None,
             marks: np.ndarray | None = None, links: np.ndarray | None = None,
             comments: np.ndarray | None = None, embeds: np.ndarray | None = None,
             selections: np.ndarray | None = None,
             fields: np.ndarray | None = None, lines: np.ndarray | None = None) -> Evidence:
    """The evidence of a short main text (hashed), the rest of its page and its chrome, the
    figures of the two (:func:`figure_hashes`), the page's title (:func:`title_hashes`), the
    main text's marks (:func:`mark_bits`), its entries' links (:func:`link_bits`), its own
    comments (hashed), the documents it embeds (:func:`embed_codes`), the words of its URL
    its text names (:func:`named_selections`), its field lines (:func:`field_codes`) and its
    lines (:func:`line_bits`)."""
    return Evidence(sketch(main), len(main), words, False, sketch(rest), len(rest),
                    sketch(chrome, CHROME_SKETCH_SIZE), len(chrome), figures, title,
                    marks=marks, links=links, embeds=embeds, selections=selections,
                    fields=fields, lines=lines, **_comments_of(comments))


def _comments_of(comments: np.ndarray | None) -> dict:
    """The evidence's comments fields for a page's comments' 3-grams (none: nothing stored)."""
    if comments is None or len(comments) < MIN_REST:
        return {}
    return {"comments": sketch(comments, COMMENTS_SKETCH_SIZE), "comments_size": len(comments)}


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
    smallest = union(a, b)[:k]
    return np.intersect1d(smallest, both, assume_unique=True).size / k


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


def confirms(a: Evidence, b: Evidence, same_site: bool | None = None) -> bool:
    """Whether the evidence says ``a`` and ``b`` hold the same content; ``same_site``: whether
    the two pages are on one site (None: not known)."""
    if same_site is True and other_canonicals(a, b):
        return False  # the site declares them two pages
    if a.weak or b.weak:
        if (titles_part(a, b, same_site) or entries_part(a, b, same_site)
                or embeds_part(a, b, same_site) or fields_part(a, b, same_site)):
            return False  # another name, entry, document or field value on one site
        if a.figures is not None and b.figures is not None and other_figures(a, b):
            return False  # two short items, or pages, with another price, SKU or date each
        return jaccard(a.sketch, a.size, b.sketch, b.size) >= MIN_WEAK_JACCARD
    if not _same(a.sketch, a.size, b.sketch, b.size):
        return False
    if not a.short and not b.short:
        # two long main texts, unless another title or other lines beside them on one site
        # make another page
        return not (titles_part(a, b, same_site) or figures_part(a, b, same_site)
                    or rests_part(a, b, same_site) or entries_part(a, b, same_site)
                    or fields_part(a, b, same_site)
                    or (same_site is True and _one_template(a, b) and comments_part(a, b)))
    if not a.short or not b.short:
        # a short text and a long one: the same only when they are nearly one text (the long
        # one's article, a few lines fewer: "Source:", "More:"), so that the short one is no
        # template's snippet that a long page happens to hold; and not under another title
        # that the long one's text names (one episode of a series beside another, one with a
        # sentence of its own: 296 and 306 words)
        return (
            max(a.words, b.words) >= SHORT_WORDS
            and jaccard(a.sketch, a.size, b.sketch, b.size) >= MIN_SHORT_LONG_JACCARD
            and not _mixed_titles_part(a, b, same_site)
            and not fields_part(a, b, same_site)
        )
    if _marks_part(a, b, same_site):
        return False  # another heading, or other figures in one template, in the text itself
    if entries_part(a, b, same_site):
        return False  # a listing with another entry: it links where the other does not
    if embeds_part(a, b, same_site):
        return False  # one shell around other frames, players or viewers
    if (same_site is True and comments_part(a, b) and not _two_chromes(a, b)
            and not _foreign(a, b, same_site)):
        return False  # another page of an article's comments
    if other_figures(a, b) and not _foreign(a, b, same_site):
        return False  # another price, SKU, date or score in one template: a variant
    if titles_part(a, b, same_site):
        return False  # another title in one template: another page
    if fields_part(a, b, same_site):
        return False  # another value of one field ("Region: Seoul", "Region: Incheon")
    if (same_site is True and _each_lacks(a.title, b.title, TITLE_SKETCH_SIZE)
            and not _nearly_within(a, b)):
        # another title in another template of the site (a product page, another one's quick
        # view): the same only as a copy is, nearly all of one text in the other, not two
        # products' short texts beside one long shared story
        return False
    if min(a.rest_size, b.rest_size) < MIN_REST:
        return True  # next to nothing beside the main text on one of them (a print version)
    if _same(a.rest, a.rest_size, b.rest, b.rest_size, MIN_REST_CONTAINMENT):
        return True
    return _foreign(a, b, same_site)


def _nearly_within(a: Evidence, b: Evidence) -> bool:
    """Whether nearly all of the smaller main text's 3-grams are in the other's (at least
    :data:`MIN_REST_CONTAINMENT`), as a copy's are."""
    j = jaccard(a.sketch, a.size, b.sketch, b.size)
    return containment(j, a.size, b.size) >= MIN_REST_CONTAINMENT


def other_figures(a: Evidence, b: Evidence) -> bool:
    """Whether each of two short (or long) pages has a figure the other lacks in its own text
    (main text and rest)."""
    return _each_lacks(a.figures, b.figures, FIGURES_SKETCH_SIZE)


def titles_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether the titles of two pages make them two: each title has a word the other's lacks,
    on one site (on two sites, or sites not known, each title names its site); for two short
    pages, in one template (not two chromes with nothing in common); for two long ones, laid out
    alike, each a word that its own text names (not the site's name, "Print" or a counter), or,
    in one layout, any word when each text has 3-grams the other's lacks (:func:`_swapped`). Or
    one title holds the other's and a word more, its text growing with it (:func:`_title_grows`).
    """
    if same_site is not True:
        return False
    a_more, b_more = _lacks(a.title, b.title, TITLE_SKETCH_SIZE)
    if a_more != b_more:  # one title holds the other's and a word more
        more, less = (a, b) if a_more else (b, a)
        return _title_grows(more, less, same_site)
    if not a_more:  # the same words
        return False
    if a.weak or b.weak:
        return True
    if not a.short and not b.short:
        return (_one_template(a, b) and _swapped(a, b)) or (
            laid_out_alike(a, b) and _names_another(a, b) and _names_another(b, a))
    return a.short and b.short and not _two_chromes(a, b) and not _foreign(a, b, same_site)


def _swapped(a: Evidence, b: Evidence) -> bool:
    """Whether each main text has 3-grams the other's lacks in their samples, however few, or a
    line the other's lacks (:func:`_lines_swapped`): a line swapped for another ("2 large eggs"
    for "6 tbsp aquafaba"), as a variant's is. A title's
    decoration comes with the same text, or one that only grows (a print version's source
    line); an edit on both sides under another title (a typo fixed, an A/B test) is two pages,
    the safer error. Asked of pages in one template or layout only: an item's text opens with
    its title, where a decoration swaps the first line too."""
    return _each_lacks(a.sketch, b.sketch, SKETCH_SIZE) or _lines_swapped(a, b)


def _lines_swapped(a: Evidence, b: Evidence) -> bool:
    """Whether each main text has a line the other's lacks, by its start (:func:`line_bits`;
    False when either is not known): a swap the 3-grams' samples missed."""
    if a.lines is None or b.lines is None:
        return False
    return bool((a.lines & ~b.lines).any() and (b.lines & ~a.lines).any())


def _title_grows(more: Evidence, less: Evidence, same_site: bool | None) -> bool:
    """Whether ``more``'s title, which holds ``less``'s and a word more, is another page's: its
    text grows with it, as a variant's does ("Banana Walnut Bread" beside "Banana Bread",
    "Terms (Northern Ireland)" beside "Terms (Ireland)"), where a decoration ("Print", a
    counter, the site's name) comes with the same text. For two long pages, laid out alike,
    the word is one its text names. Or (long pages in one layout) each text has 3-grams of its
    own (:func:`_swapped`): one line swapped for another under "Egg-free chocolate cake", which a
    decoration's copy does not do to the text it decorates."""
    if more.weak or less.weak:
        return False
    swapped = _swapped(more, less)
    if not more.short and not less.short:
        return (_one_template(more, less) and swapped) or (
            laid_out_alike(more, less) and _grows(more, less) and _names_another(more, less))
    return (more.short and less.short and (swapped or _grows(more, less))
            and not _two_chromes(more, less) and not _foreign(more, less, same_site))


def _grows(more: Evidence, less: Evidence) -> bool:
    """Whether ``more``'s main text holds 3-grams that ``less``'s lacks: at least
    :data:`MIN_GROWTH` of its own."""
    return _own_grams(more, less)[0] >= max(MIN_GROWTH_GRAMS, MIN_GROWTH * more.size)


def _own_grams(a: Evidence, b: Evidence) -> tuple[float, float]:
    """How many 3-grams of ``a``'s main text ``b``'s lacks, and of ``b``'s ``a``'s lacks
    (estimated from their sketches)."""
    j = jaccard(a.sketch, a.size, b.sketch, b.size)
    shared = j * (a.size + b.size) / (1 + j)
    return a.size - shared, b.size - shared


def figures_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether two long pages of one site, laid out alike, each have a figure the other lacks in
    their text (main text and rest), and main texts that differ with them (each at least
    :data:`MIN_GROWTH_GRAMS` 3-grams of its own): a listing's address and price, a version's
    commands. A copy keeps its text: figures that change beside it are the page's counters
    (views, comments, the time it was served), which :func:`rests_part` weighs."""
    return (same_site is True and laid_out_alike(a, b) and other_figures(a, b)
            and min(_own_grams(a, b)) >= MIN_GROWTH_GRAMS)


def laid_out_alike(a: Evidence, b: Evidence) -> bool:
    """Whether two long pages share a layout (:func:`_one_template`), or are two items' texts,
    which have no layout (nor a site's chrome beside them to name)."""
    return _one_template(a, b) or (a.layout is None and b.layout is None)


def rests_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether the rests of two long pages of one site make them two: in one template (not a
    print version, not a partner's copy under its own menus), a long shared text (a
    description, terms or SEO text) beside rests that differ (a job's fields, a listing's
    products, a table of other figures). A rest that gains a block (links, a reply) is the same."""
    if same_site is not True or a.long_rest is None or b.long_rest is None:
        return False
    if min(a.long_rest_size, b.long_rest_size) < MIN_REST or not _one_template(a, b):
        return False
    j = jaccard(a.long_rest, a.long_rest_size, b.long_rest, b.long_rest_size)
    shared = containment(j, a.long_rest_size, b.long_rest_size)
    return shared < MAX_LONG_REST_CONTAINMENT or (
        shared < MIN_REST_CONTAINMENT and other_figures(a, b))


def comments_part(a: Evidence, b: Evidence) -> bool:
    """Whether two pages' own comments make them two: each has some, and the smaller set shares
    less than :data:`MAX_COMMENTS_CONTAINMENT` of its 3-grams with the other (an article's
    second and third pages of comments). The caller says the pages are of one template."""
    if a.comments is None or b.comments is None:
        return False
    j = jaccard(a.comments, a.comments_size, b.comments, b.comments_size)
    return containment(j, a.comments_size, b.comments_size) < MAX_COMMENTS_CONTAINMENT


def embeds_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether two short or weak pages of one site each embed a document the other does not:
    one shell around two articles in frames, two reports' PDFs, two videos. A copy embeds
    the same, or nothing (a print version)."""
    return same_site is True and _each_lacks(a.embeds, b.embeds, EMBEDS_SKETCH_SIZE)


def fields_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether two pages of one site give a field they both have other values: words of their
    own, at least half of the words of each value that has any ("Region: Seoul" and "Region:
    Incheon" beside one advisory; "Modelo: Onix" and "Modelo: Onix Plus" above one manual).
    A copy keeps its fields, or lacks them (a print version), and an edit that touches one
    changes a word of a name ("Leeds City Centre", "Leeds Town Centre"), not the name."""
    if same_site is not True or a.fields is None or b.fields is None:
        return False
    labels_a, labels_b = a.fields >> 16, b.fields >> 16
    # a full sketch holds every word of the labels before its last one only
    last = min(_last_label(a.fields), _last_label(b.fields))
    for label in np.intersect1d(labels_a, labels_b):
        if label >= last:
            break
        words_a, words_b = a.fields[labels_a == label], b.fields[labels_b == label]
        own_a = np.setdiff1d(words_a, words_b).size
        own_b = np.setdiff1d(words_b, words_a).size
        if (own_a or own_b) and all(not own or 2 * own >= len(words)
                                    for own, words in ((own_a, words_a), (own_b, words_b))):
            return True
    return False


def _last_label(fields: np.ndarray) -> int:
    """The label past which a field sketch may lack values: its last one's when it is full."""
    return int(fields[-1] >> 16) if len(fields) >= FIELDS_SKETCH_SIZE else 1 << 16


def entries_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether two pages of one site in one template (long ones laid out alike, short ones
    not the same text in two templates), one with :data:`MIN_ENTRY_LINKS`
    entries or more and the other with one or more, are a listing's two states or pages: one
    of them links an entry the other does not (:meth:`Extraction.entry_links`: a thread's title over
    its teaser). Dropped, it would take that entry's page with it: a forum's first page after
    a new thread, a tag page after a new article. An edited copy keeps its links, and a block
    of bare links (an extra "related" list) holds no entry."""
    if (same_site is not True or a.links is None or b.links is None or a.short != b.short
            or a.weak != b.weak):
        return False
    # (weak pages are one only when their whole pages are nearly the same: one template; a
    # short listing's chrome may hold its entries where its next page's text holds them, so
    # chromes that differ tell no template apart)
    if a.short and _foreign(a, b, same_site):
        return False
    if not (a.short or a.weak or laid_out_alike(a, b)):
        return False
    half = LINK_BITS // 32
    entries_a, near_a, entries_b, near_b = (a.links[:half], a.links[half:], b.links[:half],
                                            b.links[half:])
    if not (_listing_links(entries_a) or _listing_links(entries_b)):
        return False
    # an entry of one that is not even nearly one on the other: a link an edit cannot make
    return bool((entries_a & ~near_b).any() or (entries_b & ~near_a).any())


def is_listing(evidence: Evidence) -> bool:
    """Whether a page's evidence is a listing's: :data:`MIN_ENTRY_LINKS` entries or more."""
    return evidence.links is not None and _listing_links(evidence.links[:LINK_BITS // 32])


def _listing_links(bits: np.ndarray) -> bool:
    """Whether :func:`link_bits` hold :data:`MIN_ENTRY_LINKS` links or more (two bits a link,
    a few of them shared)."""
    return int(np.unpackbits(bits.view(np.uint8)).sum()) >= 2 * MIN_ENTRY_LINKS - 1


def listing_links(entries: tuple[list[str], list[str]]) -> np.ndarray | None:
    """The :func:`link_bits` of a page's entry links and of its links that are nearly entries
    (:meth:`Extraction.entry_links`), one after the other, or None when it links no entry (not
    stored: most pages are no listing)."""
    strict, loose = entries
    if not strict:
        return None
    codes = {href: _link_code(href) for href in loose}  # (every entry is a near entry)
    bits = _bits_of_codes(codes[href] for href in strict)
    return np.concatenate((bits, _bits_of_codes(codes.values()))) if bits.any() else None


def _one_template(a: Evidence, b: Evidence) -> bool:
    """Whether two long pages are laid out alike: most of their layouts' elements in common."""
    if not a.layout_size or not b.layout_size:
        return False
    j = jaccard(a.layout, a.layout_size, b.layout, b.layout_size)
    return j >= MIN_ONE_LAYOUT


def _names_another(a: Evidence, b: Evidence) -> bool:
    """Whether ``a``'s title has a word that ``b``'s lacks and ``a``'s main text names (within
    the smallest :data:`TITLE_SKETCH_SIZE` words of both, as :func:`_each_lacks`)."""
    if not a.named or b.named is None:
        return False
    return _names_own(a, b)


def _names_own(a: Evidence, b: Evidence) -> bool:
    """Whether ``a``'s text names a word of its title that ``b``'s title lacks (``a.named``
    known)."""
    smallest = union(a.title, b.title)[:TITLE_SKETCH_SIZE]
    own = np.isin(a.title, smallest) & ~np.isin(a.title, b.title)
    named = (a.named >> np.arange(len(a.title))) & 1 == 1
    return bool((own & named).any())


def _mixed_titles_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """For a long page and a short one on one site: whether each title has a word the other's
    lacks and the long one's text names one of its own (not a "Print" or the site's name, which
    the text does not name)."""
    if same_site is not True or a.weak or b.weak:
        return False
    long, short = (a, b) if not a.short else (b, a)
    if long.named is None or short.title is None:
        return False
    return _each_lacks(long.title, short.title, TITLE_SKETCH_SIZE) and _names_own(long, short)


def _two_chromes(a: Evidence, b: Evidence) -> bool:
    """Whether two short pages both have chrome and their chromes have next to nothing in
    common: two templates, however little chrome each has (a partner's copy under its own
    menus on one host)."""
    if not a.chrome_size or not b.chrome_size:
        return False
    return jaccard(a.chrome, a.chrome_size, b.chrome, b.chrome_size) < MAX_FOREIGN_CHROME_JACCARD


def _lacks(a: np.ndarray | None, b: np.ndarray | None, k: int) -> tuple[bool, bool]:
    """Whether bottom-``k`` sketch ``a`` has a value ``b`` lacks, and ``b`` one ``a`` lacks
    (within the smallest ``k`` of both, where a sketch holds every value of its set); (False,
    False) when either is not known."""
    if a is None or b is None:
        return False, False
    smallest = union(a, b)[:k]
    in_a, in_b = np.isin(smallest, a), np.isin(smallest, b)
    return bool((in_a & ~in_b).any()), bool((in_b & ~in_a).any())


def _each_lacks(a: np.ndarray | None, b: np.ndarray | None, k: int) -> bool:
    """Whether each of two bottom-``k`` sketches (figures, title words) has a value the other
    lacks (see :func:`_lacks`). A value on one side only (a date the template adds, "Print"
    before a title) is no such difference."""
    return all(_lacks(a, b, k))


def _marks_part(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether the marks (:func:`mark_bits`) of two short main texts make them two: each one's
    heading has a word the other's lacks, or, in one template, each has
    :data:`MIN_OWN_FIGURES` figures the other lacks (in two, the texts' ends differ: a print
    version's has the price, its page's the shipping terms); False when either is not known."""
    if a.marks is None or b.marks is None:
        return False
    half = MARK_BITS // 32

    def own(part: slice) -> int:
        one = np.unpackbits((a.marks[part] & ~b.marks[part]).view(np.uint8)).sum()
        other = np.unpackbits((b.marks[part] & ~a.marks[part]).view(np.uint8)).sum()
        return int(min(one, other))

    headings = slice(half, None)
    if own(headings) and (same_site is True or (a.marks[headings] & b.marks[headings]).any()):
        # (on two sites, headings of one kind, "Tokyo weather" and "Sapporo weather", not two
        # sites' names, which a page without a heading of its own may open with)
        return True
    return (own(slice(0, half)) >= MIN_OWN_FIGURES and not _two_chromes(a, b)
            and not _foreign(a, b, same_site))


def _foreign(a: Evidence, b: Evidence, same_site: bool | None) -> bool:
    """Whether two short pages whose rests differ are the same text in two templates: their
    rests have nothing in common, and they are on two hosts, or their chromes differ too: both
    of some size, or one of some size and the other of at most half of it and not a part of it
    (a page of the template without its footer); two pages without menus or footer tell
    nothing of their templates."""
    if jaccard(a.rest, a.rest_size, b.rest, b.rest_size) >= MAX_FOREIGN_REST_JACCARD:
        return False
    if same_site is False:
        return True
    small, large = sorted((a.chrome_size, b.chrome_size))
    if large < MIN_FOREIGN_CHROME:
        return False
    chrome = jaccard(a.chrome, a.chrome_size, b.chrome, b.chrome_size)
    if small >= MIN_FOREIGN_CHROME:
        return chrome < MAX_FOREIGN_CHROME_JACCARD
    if small > large * MAX_FOREIGN_CHROME_RATIO:
        return False  # too little chrome on both to tell the templates apart
    return containment(chrome, a.chrome_size, b.chrome_size) < MAX_FOREIGN_CHROME_CONTAINMENT


def same_site(url_a: str | None, url_b: str | None) -> bool | None:
    """Whether two URLs are on one site: one host (``www.`` aside) and one port (a scheme's
    default port as none); None when either is no URL."""
    from urllib.parse import urlsplit

    sites = []
    for url in (url_a, url_b):
        try:
            parts = urlsplit(url) if url else None
            host = parts.hostname if parts else None
            port = parts.port if parts else None
        except ValueError:
            host = port = None
        if not host:
            return None
        if port == _DEFAULT_PORTS.get(parts.scheme):
            port = None
        sites.append((host.removeprefix("www."), port))
    return sites[0] == sites[1]


#: Second-level labels under a country's domain that sites register beneath (``co.uk``).
_SECOND_LEVELS = frozenset({"co", "com", "org", "net", "ac", "gov", "edu", "ne", "or", "gob"})


def sibling_sites(url_a: str | None, url_b: str | None) -> bool:
    """Whether two URLs are on one name's sites under two top-level domains (``www.`` aside),
    or under two locales' subdomains of it: a shop's ``lumenhome.co.uk`` and
    ``lumenhome.com.au``, or ``uk.lumenhome.com`` and ``ie.lumenhome.com``."""
    from urllib.parse import urlsplit

    names = []
    for url in (url_a, url_b):
        try:
            host = urlsplit(url).hostname if url else None
        except ValueError:
            host = None
        labels = (host or "").removeprefix("www.").split(".")
        if len(labels) < 2 or labels[-1].isdigit():
            return False
        cut = 2 if len(labels) > 2 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVELS else 1
        names.append((labels[:-cut], labels[-cut:]))
    (name_a, suffix_a), (name_b, suffix_b) = names
    if suffix_a != suffix_b:
        return name_a == name_b
    # (or a locale's subdomain of one name: uk.lumenhome.com and ie.lumenhome.com)
    return (len(name_a) > 1 and name_a[1:] == name_b[1:] and name_a[0] != name_b[0]
            and _LOCALE.fullmatch(name_a[0]) is not None and len(name_b) > 1
            and _LOCALE.fullmatch(name_b[0]) is not None)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def urls_part(url_a: str | None, url_b: str | None, a: Evidence | None = None,
              b: Evidence | None = None, *, pages: bool = True) -> str | None:
    """Why the URLs of two pages make them two whatever their texts, or None: each names a
    version the other lacks (``"versions"``, :func:`other_versions`), or a day the other lacks
    (``"dates"``, :func:`other_dates`), or a word the other lacks that its own page's text
    names (``"selections"``, :func:`other_selections`), or gives one query parameter
    another value with another text (``"choices"``, :func:`other_choices`), or are one page's
    editions for two locales or releases with two texts (``"editions"``,
    :func:`other_editions`), or (``pages``: not two items, whose spider has read their pages)
    one of them is a weak page (an interstitial, an error page, a form) and they lie in
    unrelated parts of one site (``"unrelated"``, :func:`unrelated_paths`): a maintenance
    notice served once in place of a day's events is not the site's status page, and dropped
    before its callback it would take the day's page with it; or both are pages of little
    text (weak or short) that lead to two pages (``"destinations"``,
    :func:`other_destinations`: a gate in front of each)."""
    if other_versions(url_a, url_b):
        return "versions"
    if other_dates(url_a, url_b):
        return "dates"
    if other_selections(url_a, url_b, a, b):
        return "selections"
    if other_choices(url_a, url_b, a, b):
        return "choices"
    if other_editions(url_a, url_b, a, b):
        return "editions"
    weak = (a is not None and a.weak) or (b is not None and b.weak)
    if pages and weak and unrelated_paths(url_a, url_b):
        return "unrelated"
    little = all(e is not None and (e.weak or e.short) for e in (a, b))
    if pages and little and other_destinations(url_a, url_b):
        return "destinations"
    return None


def other_destinations(url_a: str | None, url_b: str | None) -> bool:
    """Whether two URLs of one site give one query parameter two values that are paths or
    URLs (``?next=/wine/101/``, ``?continue=https://d.example/news/7``): a consent wall or an
    age check in front of each of two pages. Asked of pages of little text only
    (:func:`urls_part`): dropped, such a gate would take the page behind it with it. A login
    form's copies under two ``?next=`` values are kept too, the safer error."""
    if same_site(url_a, url_b) is not True:
        return False
    split_a, split_b = _url_parts(url_a), _url_parts(url_b)
    if split_a is None or split_b is None:
        return False
    ends_a, ends_b = _destinations(split_a[1]), _destinations(split_b[1])
    return any(key in ends_b and ends_b[key] != end for key, end in ends_a.items())


def _destinations(query: list[tuple[str, str]]) -> dict[str, str]:
    """The query's values that are paths or URLs (a gate's "continue" target), by key, each
    without its last slash."""
    return {key: value.rstrip("/") for key, value in query
            if value.startswith(("/", "http://", "https://")) and len(value) > 1}


def unrelated_paths(url_a: str | None, url_b: str | None) -> bool:
    """Whether two URLs of one site lie in unrelated parts of it: their paths' first folders
    differ (``/status``, in none, and ``/events/2026/06/11``; not ``/events/1`` and
    ``/events/2``, nor ``/`` and ``/index.html``)."""
    from urllib.parse import urlsplit

    if not same_site(url_a, url_b):
        return False
    folders = set()
    for url in (url_a, url_b):
        try:
            parts = urlsplit(url).path.lstrip("/").split("/")
        except ValueError:
            return False
        folders.add(parts[0].lower() if len(parts) > 1 else "")
    return len(folders) == 2

#: A version as a URL names it: a whole path segment such as "2.0", "1.10.3" or "v3"; in a query,
#: a value such as "v3", or any of those under a key that names a version.
_PREFIXED_VERSION = re.compile(r"v\d{1,4}(?:\.\d{1,4}){0,3}", re.IGNORECASE)
_VERSION = re.compile(rf"\d{{1,4}}(?:\.\d{{1,4}}){{1,3}}|{_PREFIXED_VERSION.pattern}",
                      re.IGNORECASE)
_VERSION_KEYS = frozenset(("v", "ver", "version", "release", "view"))


def url_versions(url: str) -> frozenset[str]:
    """The versions ``url``'s path segments and query values name (see :data:`_VERSION`)."""
    split = _url_parts(url)  # (a campaign's values name its variants: utm_content=v2)
    if split is None:
        return frozenset()
    parts, query = split
    found = [v for v in parts.path.split("/") if _VERSION.fullmatch(v)]
    for key, value in query:
        # other values are often numbers with dots (_ga=2.1234.5678.9, t=1700000000.123)
        pattern = _VERSION if key in _VERSION_KEYS else _PREFIXED_VERSION
        if pattern.fullmatch(value):
            found.append(value)
    return frozenset(v.lower() for v in found)


# A day as a URL names it: 20250216, 2025-02-16, 2025_2_16 or 2025.02.16 inside a path segment
# or a query value (digits on neither side), or three segments /2025/02/16/.
_DAY = re.compile(r"(?<!\d)((?:19|20)\d\d)([-_.]?)(0[1-9]|1[0-2]|(?<=[-_.])[1-9])\2"
                  r"(0[1-9]|[12]\d|3[01]|(?<=[-_.])[1-9])(?!\d)")
_PATH_DAY = re.compile(r"/((?:19|20)\d\d)/(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])(?=/|$)")


def url_dates(url: str) -> frozenset[str]:
    """The days ``url``'s path and query values name, as ``YYYYMMDD`` (campaign parameters,
    ``utm_*`` and ``ref*``, aside)."""
    split = _url_parts(url)
    if split is None:
        return frozenset()
    parts, query = split
    texts = [parts.path, *(value for _, value in query)]
    found = {f"{y}{int(m):02d}{int(d):02d}" for text in texts
             for y, _, m, d in _DAY.findall(text)}
    found.update(f"{y}{int(m):02d}{int(d):02d}" for y, m, d in _PATH_DAY.findall(parts.path))
    return frozenset(found)


def other_dates(url_a: str | None, url_b: str | None) -> bool:
    """Whether two URLs of one site each name a day the other's lacks: a recurring event's
    dates, a day's forecast, rates or fixtures, an archive's days. Two pages however alike
    their texts (each lists the others' days: every figure is on both)."""
    return _each_names_own(url_a, url_b, url_dates)


def other_versions(url_a: str | None, url_b: str | None) -> bool:
    """Whether two URLs of one site each name a version the other's lacks (a page of the docs
    of two releases, an API reference's ``?view=v3``): two pages however alike their texts,
    and the links of each lead to its own release's pages."""
    return _each_names_own(url_a, url_b, url_versions)


def _each_names_own(url_a: str | None, url_b: str | None,
                    read: Callable[[str], frozenset[str]]) -> bool:
    """Whether two URLs of one site each name something (what ``read`` finds) the other's
    lacks."""
    if not url_a or not url_b or not same_site(url_a, url_b):
        return False
    a, b = read(url_a), read(url_b)
    return bool(a - b) and bool(b - a)


def _url_parts(url: str) -> tuple[SplitResult, list[tuple[str, str]]] | None:
    """``url`` split, and its query's (key case folded, value) pairs but a campaign's
    (``utm_*``, ``ref*``); None when it cannot be split."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    query = [(key.lower(), value) for key, value in parse_qsl(parts.query)]
    return parts, [(key, value) for key, value in query
                   if not key.startswith(("utm_", "ref"))]


#: A word of a URL: a run of letters, or of digits ("10mg": "10" and "mg", as a text writes
#: "10 mg").
_URL_WORD = re.compile(r"\d+|[^\W\d_]+")


#: Query parameters whose values choose how a page is shown, or where its reader came from,
#: not what it shows (a page's copies differ by them: ``?view=full``, ``?format=print``).
_PRESENTATION_KEYS = frozenset({
    "view", "print", "format", "output", "mode", "layout", "display", "theme", "style", "amp",
    "sort", "order", "orderby", "dir", "lang", "locale", "hl", "source", "src", "from", "via",
    "share", "fbclid", "gclid", "msclkid", "cmp", "cid", "campaign", "tracking", "_", "t", "ts",
    "v", "ver", "version", "cache", "nocache", "rand", "random",
    # where in a listing, or where to go next: not what the page is
    "page", "p", "offset", "start", "next", "redirect", "return", "return_to", "returnurl",
    # a comment to reply to (WordPress), a draft's preview, a revision (its edits: one page)
    "replytocom", "preview", "rev", "revision", "oldid",
})


def url_words(url: str | None) -> frozenset[str]:
    """The words of ``url``'s query values (not a campaign's, a visit's nor a presentation's:
    :data:`_PRESENTATION_KEYS`), case folded, accents aside: what the URL selects
    ("?ort=uppsala", "?strength=100mg", "?city=北京"); words of three letters or more, or of two
    digits or two letters of a script beyond Latin (a single digit is named by most texts)."""
    split = _url_parts(url) if url else None
    if split is None:
        return frozenset()
    values = [value for key, value in split[1] if not _shows_or_visits(key)]
    words = _URL_WORD.findall(_unaccented(" ".join(values).casefold()))
    return frozenset(word for word in words if len(word) >= 3
                     or (len(word) == 2 and (word.isdigit() or not word.isascii())))


def named_selections(url: str | None, *texts: str) -> np.ndarray | None:
    """The CRC-32s of the words of ``url`` (:func:`url_words`) that a page's own ``texts``
    name, accents aside (a slug writes "Göteborg" as "goteborg"), the smallest
    :data:`SELECTIONS_SKETCH_SIZE`; None when they name none."""
    words = sorted(url_words(url))
    if not words or not any(texts):  # (most URLs select nothing: the texts are not read again)
        return None
    text_words = _folded_words(_unaccented("\n".join(texts)))[3]
    named = []
    for word in words:  # (a word the text's hashing splits is named when every part is)
        parts = _folded_words(word)[3]
        if len(parts) and _among(parts, text_words).all():
            named.append(zlib.crc32(word.encode("utf-8", "surrogatepass")))
    if not named:
        return None
    return np.array(sorted(named)[:SELECTIONS_SKETCH_SIZE], dtype=_U32)


def other_selections(url_a: str | None, url_b: str | None, a: Evidence | None,
                     b: Evidence | None) -> bool:
    """Whether two pages of one site each have a URL word the other's URL lacks that their own
    text names (:func:`named_selections`): a city's pollen levels beside another's
    (``?ort=uppsala``, ``?ort=stockholm``), a tablet's strength beside another's. A copy's URL
    differs by its path (``/print``), a campaign, a session or a presentation
    (``?view=full``), which are not read."""
    if (a is None or b is None or a.selections is None or b.selections is None
            or same_site(url_a, url_b) is not True):
        return False
    words_a, words_b = url_words(url_a), url_words(url_b)
    return _names_one_of(a, words_a - words_b) and _names_one_of(b, words_b - words_a)


def other_choices(url_a: str | None, url_b: str | None, a: Evidence | None,
                  b: Evidence | None) -> bool:
    """Whether two URLs of one site give one query parameter other values (not a campaign's, a
    visit's nor a presentation's: :data:`_PRESENTATION_KEYS`), or one chooses nothing on the
    other's path (the default's page), and their pages' texts differ with it, each with 3-grams
    the other lacks: a status page per region (``?region=fra1``, ``?region=syd1``, ``/status``)
    or a room per ``?room_id=``, whose text names the choice only in words of its own
    ("Frankfurt", "Sydney"), or not at all. A copy under another value of such a parameter (a
    session of a name of its own) keeps its text."""
    if a is None or b is None or same_site(url_a, url_b) is not True:
        return False
    split_a, split_b = _url_parts(url_a), _url_parts(url_b)
    if split_a is None or split_b is None:
        return False
    chosen_a, chosen_b = _choices(split_a[1]), _choices(split_b[1])
    other_value = any(chosen_b.get(key, values) != values for key, values in chosen_a.items())
    # (or one URL chooses nothing on the other's path: a default's page, ``/status`` beside
    # ``/status?region=syd1``)
    default = bool(chosen_a) != bool(chosen_b) and _folder_path(
        split_a[0].path) == _folder_path(split_b[0].path)
    return (other_value or default) and min(_own_grams(a, b)) >= MIN_CHOICE_GRAMS


def _folder_path(path: str) -> str:
    """A URL's path as its copies write it: escapes, case, a session's path parameter
    (``;jsessionid=``), a folder's index page and a last slash aside."""
    path = _VISIT_PATH_PARAMETER.sub("", unquote(path)).casefold()
    return _INDEX_PAGE.sub("", path).rstrip("/") or "/"


#: A path segment or query value naming a locale: a language with its region ("en-gb",
#: "pt_BR", "es-419", "fil-ph") or a language or country alone ("en", "uk").
_LOCALE = re.compile(r"[a-z]{2}(?:[-_](?:[a-z]{2}|\d{3}))?|[a-z]{3}[-_][a-z]{2}", re.IGNORECASE)
#: Presentation parameters whose values name a locale (see :func:`other_editions`; another
#: key's two values are two choices already: :func:`other_choices`).
_LOCALE_KEYS = frozenset({"lang", "locale", "hl"})
#: What docs write in a release's place: its newest, or one yet to come.
_RELEASE_ALIASES = frozenset({"latest", "stable", "current", "dev", "devel", "development",
                              "main", "master", "next", "nightly", "unstable", "lts"})
#: A release series as docs name it: ``7.x``, ``v2.1.x``.
_SERIES = re.compile(r"v?\d{1,4}(?:\.\d{1,4}){0,2}\.x", re.IGNORECASE)
#: Path segments of a page's other presentations (``/article/print``, ``/amp/article``).
_PRESENTATION_SEGMENTS = frozenset({"print", "printable", "amp"})


def other_editions(url_a: str | None, url_b: str | None, a: Evidence | None,
                   b: Evidence | None) -> bool:
    """Whether two URLs of one site are one page's editions, the same path and query but for
    one locale (``/en-gb/terms`` and ``/en-au/terms``, ``?lang=en-gb`` and ``?lang=en-au``) or
    one release (``/docs/5.0/workers`` and ``/docs/latest/workers``), a print or AMP
    presentation aside, and their texts differ with it, each with 3-grams the other lacks (at
    least :data:`MIN_CHOICE_GRAMS`): terms of sale per country, another seller and law in a few
    sentences; a release's paragraph of its own. One name's sites under two top-level domains
    (:func:`sibling_sites`) are two locales in themselves. One article in two regions'
    sections, or a release's page under its alias, keeps its text."""
    site = same_site(url_a, url_b)
    if a is None or b is None or site is None:
        return False
    sibling = site is False and sibling_sites(url_a, url_b)
    if not (site or sibling):
        return False
    split_a, split_b = _url_parts(url_a), _url_parts(url_b)
    if split_a is None or split_b is None:
        return False
    (parts_a, query_a), (parts_b, query_b) = split_a, split_b
    if _choices(query_a) != _choices(query_b):
        return False
    apart = _editions_apart(_edition_path(parts_a.path), _edition_path(parts_b.path))
    if apart is None:
        return False
    locales_a = {key: value for key, value in query_a if key in _LOCALE_KEYS}
    locales_b = {key: value for key, value in query_b if key in _LOCALE_KEYS}
    if locales_a.keys() != locales_b.keys():
        return False
    keys_apart = _editions_apart(list(locales_a.values()), list(locales_b.values()))
    if keys_apart is None:
        return False
    apart += keys_apart
    # (a sibling site is an edition apart already: its path may name its locale as well)
    if apart > 1 or (apart == 0 and not sibling):
        return False
    return min(_own_grams(a, b)) >= MIN_CHOICE_GRAMS


def _edition_path(path: str) -> list[str]:
    """A path's segments, but empty ones and those of a print or AMP presentation."""
    return [part for part in path.split("/")
            if part and part.lower() not in _PRESENTATION_SEGMENTS]


def _editions_apart(parts_a: list[str], parts_b: list[str]) -> int | None:
    """How many of two lists' places hold two editions, case aside (:func:`_two_editions`);
    None when another place differs."""
    if len(parts_a) != len(parts_b):
        return None
    apart = 0
    for part_a, part_b in zip(parts_a, parts_b, strict=True):
        if part_a == part_b:
            continue
        if part_a.lower() == part_b.lower() or not _two_editions(part_a, part_b):
            return None
        apart += 1
    return apart


def _two_editions(part_a: str, part_b: str) -> bool:
    """Whether two path segments name two locales, or two releases (a version, a series such
    as ``7.x``, or an alias: ``stable`` beside ``latest`` too)."""
    if _LOCALE.fullmatch(part_a) and _LOCALE.fullmatch(part_b):
        return True
    return _names_release(part_a) and _names_release(part_b)


def _names_release(part: str) -> bool:
    return (_VERSION.fullmatch(part) is not None or _SERIES.fullmatch(part) is not None
            or part.lower() in _RELEASE_ALIASES)


def _choices(query: list[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """A query's values by key, but those of campaigns, clicks, visits and presentations
    (:func:`_chosen_pairs`)."""
    chosen: dict[str, set[str]] = {}
    for key, value in _chosen_pairs(query):
        chosen.setdefault(key, set()).add(value)
    return {key: frozenset(values) for key, values in chosen.items()}


def _names_one_of(evidence: Evidence, words: frozenset[str]) -> bool:
    """Whether a page's text names one of ``words`` of its URL (``evidence.selections`` known)."""
    codes = {zlib.crc32(word.encode("utf-8", "surrogatepass")) for word in words}
    return not codes.isdisjoint(evidence.selections.tolist())
