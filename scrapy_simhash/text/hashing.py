"""Text -> the hashes of its content tokens, without a Python object per token.

``token_hash_counts`` (one text) and ``token_hash_batch`` (many) give the polynomial hashes
(``simhash.string_hashes``) of exactly the tokens ``tokenize.count_tokens`` counts: the compiled
modules (``_tokens``, ``_jieba``) read texts that folding leaves alone; otherwise folded text is
classified byte by byte with per-code-point tables built once, and hashed in numpy.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from scrapy_simhash.simhash import POLY_BASE, segment_hashes, string_hashes
from scrapy_simhash.text import chinese as _han  # tests swap out its compiled cut
from scrapy_simhash.text.chinese import (
    _ANY_CJK_RUN,
    _JIEBA_RUN,
    _TOKEN_SEPARATOR,
    _cut_joined,
    _encoded_tokens,
)
from scrapy_simhash.text.normalize import _fold, _fold_quick, _token_bounds
from scrapy_simhash.text.stopwords import STOP_WORDS
from scrapy_simhash.text.tokenize import (
    MARK_RANGES,
    MAX_TOKEN_CHARS,
    _cjk_tokens,
)

_WORD_BYTE = np.zeros(256, dtype=bool)
_WORD_BYTE[[*b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]] = True
_WORD_BYTE[0x80:] = True


def token_hash_counts(text: str, *, fold_traditional: bool = False, segment_chinese: bool = True
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``count_tokens(text)`` keyed by each token's polynomial hash (``simhash.string_hashes``).

    Returns the distinct hashes (sorted, uint64) and their counts. No Python object is made per
    word: the compiled modules hash the words of text that folding leaves alone and the tokens
    of jieba's cut as they find them; otherwise words are hashed from the UTF-8 bytes of the
    folded text, and tokens that come as strs (rjieba) are joined by a newline and hashed so.
    """
    if segment_chinese and not fold_traditional and not text.isascii() and _JIEBA_RUN.search(
        text, 0, 256
    ):
        chinese = _chinese_parts(text)
        if chinese is not None:
            return _counted(*chinese)
    if not fold_traditional:
        hashed = _stable_word_hashes(text)
        if hashed is not None:
            return _counted([], hashed)
    if text.isascii():  # NFKC leaves ASCII alone and casefold is lower()
        data = np.frombuffer(text.encode("ascii").lower(), dtype=np.uint8)
        return _counted([(data, _WORD_BYTE[data])])
    folded = _fold_quick(text, fold_traditional)  # exactly _fold, mostly without NFKC
    data = np.frombuffer(folded.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    in_token = _non_cjk_token_bytes(data)
    if in_token is not None:
        return _counted([(data, in_token)])
    return _counted([_joined(_cjk_tokens(folded, segment_chinese))])


def _stable_word_hashes(text: str) -> np.ndarray | None:
    """Hashes of the tokens of a text that folding leaves alone but for ASCII capitals, from
    the compiled module (``_tokens``); None without it, or when the text has a character that
    folding may change or a CJK ideograph."""
    word_hashes = _compiled_word_hashes()
    if word_hashes is None:
        return None
    hashed = word_hashes(text, _fold_traits(), _code_point_kinds(), POLY_BASE, MAX_TOKEN_CHARS)
    return None if hashed is None else np.frombuffer(hashed, dtype=np.uint64)


@lru_cache(maxsize=1)
def _compiled_word_hashes():
    try:
        from scrapy_simhash._tokens import word_hashes
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return word_hashes


def _compiled_chinese(text: str) -> tuple[str, np.ndarray, np.ndarray | None] | None:
    """From the compiled cut (None without it): the text with each Han run replaced by a space,
    the hashes of the runs' tokens, and those of the words between them when nothing there
    needs folding (else None)."""
    cut = _han._compiled_cut()
    if cut is None:
        return None
    rest, hashed = cut.split_hashes(text, POLY_BASE, MAX_TOKEN_CHARS)
    return rest, np.frombuffer(hashed, dtype=np.uint64), _stable_word_hashes(rest)


def _chinese_parts(
    text: str,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray | None] | None:
    """Tokens of text with Chinese, folding only what lies between the Han runs; None: unsure.

    Characters of jieba's Han range are left as they are by NFKC and case folding, so folding
    the text between the runs and segmenting the runs gives the tokens of the folded text,
    unless that folding itself produced ideographs (NFKC maps e.g. Kangxi radicals to Han
    characters, which could join runs): then None, and the caller folds the whole text.
    Returns ``_counted``'s arguments: the compiled cut hashes the Han tokens itself.
    """
    han_parts: list[tuple[np.ndarray, np.ndarray]] = []
    han_hashes = None
    compiled = _compiled_chinese(text)
    if compiled is not None:
        rest, han_hashes, rest_hashes = compiled
        if rest_hashes is not None:  # nothing to fold between the runs
            return [], np.concatenate((han_hashes, rest_hashes))
    else:
        parts = _JIEBA_RUN.split(text)  # odd items are the Han runs
        rest = " ".join(parts[::2])
        joined = np.frombuffer(_cut_joined("\n".join(parts[1::2])), dtype=np.uint8)
        han_parts.append((joined, joined != ord(_TOKEN_SEPARATOR)))
    data = np.frombuffer(_fold_quick(rest, False).encode("utf-8", "surrogatepass"), np.uint8)
    in_token = _non_cjk_token_bytes(data)
    if in_token is None:
        return None
    return [(data, in_token), *han_parts], han_hashes


def _joined(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    data = np.frombuffer(
        _TOKEN_SEPARATOR.join(tokens).encode("utf-8", "surrogatepass"), dtype=np.uint8
    )
    return data, data != ord(_TOKEN_SEPARATOR)


def _counted(
    parts: list[tuple[np.ndarray, np.ndarray]], hashed: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct content-token hashes and counts over ``(utf8_bytes, byte_is_in_a_token)`` parts
    and the hashes of tokens already hashed (``hashed``)."""
    if len(parts) > 1:  # one buffer: numpy's per-call costs once (a non-token byte between)
        parts = [(np.concatenate([np.append(data, np.uint8(0)) for data, _ in parts]),
                  np.concatenate([np.append(in_token, False) for _, in_token in parts]))]
    hashes = [] if hashed is None else [hashed]
    for data, in_token in parts:
        starts, ends = _token_bounds(in_token)
        lengths = ends - starts
        keep = lengths > 1  # one byte = one ASCII letter or digit
        if len(lengths) and lengths.max() > MAX_TOKEN_CHARS:  # chars <= bytes: count the chars
            for i in np.flatnonzero(lengths > MAX_TOKEN_CHARS):
                chars = np.count_nonzero((data[starts[i] : ends[i]] & 0xC0) != 0x80)
                keep[i] = chars <= MAX_TOKEN_CHARS
        hashes.append(segment_hashes(data, starts[keep], ends[keep]))
    distinct, counts = np.unique(np.concatenate(hashes), return_counts=True)
    stop = _stop_word_hashes()
    at = np.minimum(np.searchsorted(stop, distinct), len(stop) - 1)
    content = stop[at] != distinct
    return distinct[content], counts[content]


def _non_cjk_token_bytes(data: np.ndarray) -> np.ndarray | None:
    """Which UTF-8 bytes belong to letter/digit runs (``_WORD``); None when CJK is present.

    Non-ASCII characters are decoded from their lead bytes and classified with a table of all
    code points built once from the same regular expressions, so no regex scans the text.
    """
    in_token = _WORD_BYTE[data]
    if not (data >= 0xC0).any():
        return in_token
    leads, width, code = _decoded_leads(data)
    kind = _code_point_kinds()[code]
    if (kind == _CJK).any():
        return None
    other = kind == _OTHER
    for k in range(4):
        hit = other & (width > k)
        in_token[leads[hit] + k] = False
    return in_token


_OTHER, _LETTER_OR_DIGIT, _CJK = 0, 1, 2


def _every_code_point() -> str:
    """Every code point once, in order (lone surrogates included)."""
    return np.arange(0x110000, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")


@lru_cache(maxsize=1)
def _code_point_kinds() -> np.ndarray:
    """uint8 per code point: ``_CJK`` (``_ANY_CJK``), ``_LETTER_OR_DIGIT`` (``_WORD``), else 0.

    ``_WORD``'s characters are those of ``[^\\W_]`` and the marks, found apart: one regex with
    the marks' long class in it takes ten times as long over every code point (a start-up cost
    of every process that fingerprints)."""
    everything = _every_code_point()
    kinds = np.zeros(0x110000, dtype=np.uint8)
    for match in _LETTER_OR_DIGIT_RUN.finditer(everything):  # runs: a few thousand
        kinds[match.start() : match.end()] = _LETTER_OR_DIGIT
    for start, end in MARK_RANGES:
        kinds[start : end + 1] = _LETTER_OR_DIGIT
    for match in _ANY_CJK_RUN.finditer(everything):
        kinds[match.start() : match.end()] = _CJK
    return kinds


_LETTER_OR_DIGIT_RUN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def _stop_word_hashes() -> np.ndarray:
    return np.sort(string_hashes(sorted(STOP_WORDS)))


# -- batches --------------------------------------------------------------------------------------


def token_hash_batch(
    texts: Sequence[str], *, fold_traditional: bool = False, segment_chinese: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Every content-token occurrence of many texts: ``(hashes, text_numbers)``, text by text.

    Counting the hashes of text ``i`` gives exactly ``token_hash_counts(texts[i])``: the same
    tokens, but found for the whole batch at once. Most non-ASCII texts are read straight from
    their UTF-8 bytes (:func:`_direct_tokens`); the others are folded as strings as
    ``token_hash_counts`` does, and all byte classification, token bounds, hashing and the
    stop-word filter run once over the batch. Unlike ``token_hash_counts``, a text whose first
    Han run lies past its first 256 characters also takes the Han-run path rather than the
    slower fallback: both give the tokens of the folded text (``tests/text/test_features.py`` checks
    them against ``count_tokens``). Both arrays have one entry per occurrence, grouped by text
    in order (``text_numbers`` non-decreasing, int64). Texts the compiled modules can read
    (:func:`_compiled_occurrences`) skip all of that.
    """
    if not (segment_chinese and not fold_traditional and _compiled_word_hashes() is not None):
        return _token_hash_batch(texts, fold_traditional, segment_chinese)
    found: list[np.ndarray] = []
    found_numbers: list[np.ndarray] = []
    others: list[int] = []
    for number, text in enumerate(texts):
        hashed = _compiled_occurrences(text)
        if hashed is None:
            others.append(number)
        else:
            found.append(hashed)
            found_numbers.append(np.full(len(hashed), number, dtype=np.int64))
    if not found:
        return _token_hash_batch(texts, fold_traditional, segment_chinese)
    hashes = np.concatenate(found)
    numbers = np.concatenate(found_numbers)
    content = ~_stop_word_table().holds(hashes)
    hashes, numbers = hashes[content], numbers[content]
    if others:
        other_hashes, other_numbers = _token_hash_batch(
            [texts[number] for number in others], fold_traditional, segment_chinese
        )
        hashes = np.concatenate((hashes, other_hashes))
        numbers = np.concatenate((numbers, np.asarray(others, dtype=np.int64)[other_numbers]))
        order = np.argsort(numbers, kind="stable")
        hashes, numbers = hashes[order], numbers[order]
    return hashes, numbers


def _compiled_occurrences(text: str) -> np.ndarray | None:
    """Every token hash of one text (stop words included) from the compiled modules, or None
    when a character needs folding as a string (or a module was not built)."""
    hashed = _stable_word_hashes(text)  # None at the first CJK character, Han included
    if hashed is not None:
        return hashed
    compiled = _compiled_chinese(text)  # as in the batch: Han anywhere takes the Han-run path
    if compiled is None or compiled[2] is None:
        return None
    return np.concatenate(compiled[1:])


def _token_hash_batch(
    texts: Sequence[str], fold_traditional: bool, segment_chinese: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`token_hash_batch` without the compiled modules: folding, classifying, hashing."""
    spaced = _SpacedParts()
    listed: list[tuple[int, bytes]] = []  # (text number, tokens joined by _TOKEN_SEPARATOR)
    han_runs: dict[int, list[str]] = {}
    direct = _SpacedParts()
    if segment_chinese and not fold_traditional:
        for number, text in enumerate(texts):
            if text.isascii():
                spaced.add(number, text.encode("ascii").lower())
            else:
                direct.add(number, text.encode("utf-8", "surrogatepass"))
        direct_hashes, direct_numbers, joined_runs, others = _direct_tokens(direct)
        for number, runs in joined_runs:
            listed.append((number, _cut_joined(runs)))
    else:
        direct_hashes, direct_numbers = np.empty(0, dtype=np.uint64), np.empty(0, np.int64)
        others = range(len(texts))
    for number in others:
        text = texts[number]
        if text.isascii():
            spaced.add(number, text.encode("ascii").lower())
        elif segment_chinese and not fold_traditional and _JIEBA_RUN.search(text):
            parts = _JIEBA_RUN.split(text)  # as _chinese_parts: fold between the Han runs only
            rest = _fold_quick(" ".join(parts[::2]), False)
            spaced.add(number, rest.encode("utf-8", "surrogatepass"))
            han_runs[number] = parts[1::2]
        else:
            folded = _fold_quick(text, fold_traditional)
            spaced.add(number, folded.encode("utf-8", "surrogatepass"))
    spaced_hashes, spaced_numbers, with_cjk = spaced.tokens()
    for number in with_cjk:  # CJK where the byte classifier cannot tell tokens: as one by one
        han_runs.pop(number, None)
        tokens = _cjk_tokens(_fold(texts[number], fold_traditional), segment_chinese)
        listed.append((number, _encoded_tokens(tokens)))
    for number, runs in han_runs.items():
        listed.append((number, _cut_joined("\n".join(runs))))
    listed.sort(key=lambda item: item[0])
    listed_hashes, listed_numbers = _listed_tokens(listed)
    hashes = np.concatenate((direct_hashes, spaced_hashes, listed_hashes))
    numbers = np.concatenate((direct_numbers, spaced_numbers, listed_numbers))
    content = ~_stop_word_table().holds(hashes)
    hashes, numbers = hashes[content], numbers[content]
    order = np.argsort(numbers, kind="stable")  # three sorted parts: merges
    return hashes[order], numbers[order]


_STABLE, _HAN = 1, 2  # bits of _fold_traits()


@lru_cache(maxsize=1)
def _fold_traits() -> np.ndarray:
    """uint8 per code point: ``_STABLE`` where a text's tokens never depend on folding it,
    ``_HAN`` in jieba's Han range (U+4E00..U+9FD5, all stable).

    A character is stable when NFKC and case folding leave it alone, its combining class is 0
    and it never ends a canonical composition (so no neighbour can make the text change under
    NFKC; this is NFKC's quick check), and it is not a CJK ideograph outside jieba's range.
    Also stable: non-word characters whose NFKC form is made of stable non-word characters
    (full-width punctuation, no-break space, ellipsis): replacing them by that form leaves the
    text's NFKC form, and its tokens, as they are. Nothing outside the Basic Multilingual Plane
    counts as stable: texts with such characters are folded as strings.

    Every process that fingerprints builds this at start-up, so the per-character tests run
    as one pass of C calls per property over the plane, and only the few characters NFKC
    changes are looked at one by one.
    """
    kinds = _code_point_kinds()
    everything = _every_code_point()
    seconds = _composition_seconds(everything)
    normalize, combining = unicodedata.normalize, unicodedata.combining

    def unchanged(code: int) -> bool:  # the rule, for one character
        char = chr(code)
        return (normalize("NFKC", char) == char and char.casefold() == char
                and combining(char) == 0 and code not in seconds
                and (kinds[code] != _CJK or 0x4E00 <= code <= 0x9FD5))

    plane = everything[:0x10000]
    codes = np.arange(0x10000)
    same_nfkc = np.fromiter((normalize("NFKC", c) == c for c in plane), bool, 0x10000)
    plane_unchanged = (
        same_nfkc
        & np.fromiter((c.casefold() == c for c in plane), bool, 0x10000)
        & np.fromiter((combining(c) == 0 for c in plane), bool, 0x10000)
        & ((kinds[:0x10000] != _CJK) | ((codes >= 0x4E00) & (codes <= 0x9FD5)))
    )
    plane_unchanged[[code for code in seconds if code < 0x10000]] = False
    stable = plane_unchanged | (codes < 0x80)
    for code in np.flatnonzero(~stable & ~same_nfkc & (kinds[:0x10000] == _OTHER)):
        image = normalize("NFKC", plane[code])
        if all(kinds[ord(c)] == _OTHER
               and (plane_unchanged[ord(c)] if ord(c) < 0x10000 else unchanged(ord(c)))
               for c in image):
            stable[code] = True
    stable[0xD800:0xE000] = False  # lone surrogates: never in text
    traits = np.zeros(0x110000, dtype=np.uint8)
    traits[:0x10000][stable] = _STABLE
    traits[0x4E00:0x9FD6] |= _HAN
    return traits


def _composition_seconds(everything: str) -> set[int]:
    """Code points that can end a canonical composition: the second of every two-part
    canonical decomposition, and the Hangul V and T jamo (syllables compose by rule).
    ``everything``: :func:`_every_code_point`'s string, which the caller has made already.

    Only characters that NFD changes have a canonical decomposition: halves of the code space
    that NFD leaves alone (one C call each) are passed over, the rest split in two until single
    characters remain (about 20,000 calls instead of a million)."""
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    pending = [(0, 0xAC00), (0xD7A4, 0x110000)]  # Hangul syllables: no decomposition field
    while pending:
        start, stop = pending.pop()
        if unicodedata.is_normalized("NFD", everything[start:stop]):
            continue
        if stop - start > 1:
            middle = (start + stop) // 2
            pending += [(start, middle), (middle, stop)]
            continue
        decomposition = unicodedata.decomposition(everything[start])
        if decomposition and not decomposition.startswith("<"):
            parts = decomposition.split()
            if len(parts) == 2:
                seconds.add(int(parts[1], 16))
    return seconds


def _decoded_leads(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions, byte widths and code points of the non-ASCII characters of UTF-8 ``data``."""
    leads = np.flatnonzero(data >= 0xC0)
    padded = np.concatenate((data, np.zeros(3, dtype=np.uint8))).astype(np.uint32)
    first = padded[leads]
    b1, b2, b3 = (padded[leads + k] & 0x3F for k in (1, 2, 3))
    width = 2 + (first >= 0xE0) + (first >= 0xF0)
    code = np.where(
        width == 2,
        (first & 0x1F) << 6 | b1,
        np.where(width == 3, (first & 0x0F) << 12 | b1 << 6 | b2,
                 (first & 0x07) << 18 | b1 << 12 | b2 << 6 | b3),
    )
    return leads, width, code


def _direct_tokens(
    parts: _SpacedParts,
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, str]], list[int]]:
    """Tokens of raw (unfolded) UTF-8 texts made only of ``_fold_traits`` stable characters.

    For such a text folding only lowers ASCII letters (and swaps full-width punctuation for
    other punctuation), so its words are the letter/digit runs of its bytes, ASCII lowered,
    and its Han runs are jieba's input, unchanged. Returns the hashes and text numbers of
    those words (stop words included), each text's Han runs joined by newlines, and the
    numbers of the texts with an unstable character, left for the string path.
    """
    data, starts = _concatenated(parts.buffers, b" ")
    numbers = np.asarray(parts.numbers, dtype=np.int64)
    ends = np.append(starts[1:] - 1, len(data))
    leads, width, code = _decoded_leads(data)
    traits = _fold_traits()[code]
    unstable = np.unique(np.searchsorted(starts, leads[(traits & _STABLE) == 0], "right") - 1)
    lowered = data + ((data >= 0x41) & (data <= 0x5A)).astype(np.uint8) * np.uint8(0x20)
    in_token = _WORD_BYTE[lowered]
    not_word = _code_point_kinds()[code] != _LETTER_OR_DIGIT  # Han included: jieba's part
    for k in range(4):
        in_token[leads[not_word & (width > k)] + k] = False
    for part in unstable.tolist():
        in_token[starts[part] : ends[part]] = False
    hashes, token_numbers = _hashed_tokens(lowered, in_token, starts, parts.numbers)
    joined = _joined_han_runs(data, starts, leads[(traits & _HAN) != 0], unstable)
    runs = [(int(numbers[part]), text) for part, text in joined]
    return hashes, token_numbers, runs, numbers[unstable].tolist()


def _joined_han_runs(
    data: np.ndarray, starts: np.ndarray, han: np.ndarray, unstable: np.ndarray
) -> list[tuple[int, str]]:
    """(part, its Han runs joined by newlines) for every stable part with Han characters;
    ``han`` holds the positions of the Han characters (3 UTF-8 bytes each), ascending."""
    part = np.searchsorted(starts, han, "right") - 1
    keep = ~np.isin(part, unstable)
    han, part = han[keep], part[keep]
    if not han.size:
        return []
    first_of_part = np.ones(han.size, dtype=bool)
    first_of_part[1:] = part[1:] != part[:-1]
    new_run = np.ones(han.size, dtype=bool)
    new_run[1:] = han[1:] != han[:-1] + 3
    chars = np.empty((han.size, 4), dtype=np.uint8)  # a newline before each later run's first
    chars[:, 0] = np.where(new_run & ~first_of_part, ord("\n"), 0xFF)  # 0xFF: no byte
    chars[:, 1:] = data[han[:, None] + np.arange(3)]
    sizes = 3 + (chars[:, 0] != 0xFF)
    flat = chars.ravel()
    flat = flat[flat != 0xFF]
    bounds = np.append(np.cumsum(sizes) - sizes, flat.size)
    firsts = np.flatnonzero(first_of_part)
    blob = flat.tobytes()
    return [
        (p, blob[lo:hi].decode("utf-8"))
        for p, lo, hi in zip(part[firsts].tolist(), bounds[firsts].tolist(),
                             bounds[np.append(firsts[1:], han.size)].tolist(), strict=True)
    ]


class _SpacedParts:
    """A batch's texts as UTF-8 bytes with their numbers; :meth:`tokens` reads folded ones."""

    def __init__(self) -> None:
        self.numbers: list[int] = []
        self.buffers: list[bytes] = []

    def add(self, number: int, data: bytes) -> None:
        self.numbers.append(number)
        self.buffers.append(data)

    def tokens(self) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """(hashes, text numbers) of all token occurrences, stop words included, and the texts
        that hold CJK ideographs (their tokens are left out: they need the CJK path)."""
        data, starts = _concatenated(self.buffers, b" ")
        in_token, cjk_parts = _classified(data, starts)
        with_cjk = [self.numbers[part] for part in cjk_parts.tolist()]
        ends = np.append(starts[1:] - 1, len(data)) if len(starts) else starts
        for part in cjk_parts.tolist():
            in_token[starts[part] : ends[part]] = False
        return (*_hashed_tokens(data, in_token, starts, self.numbers), with_cjk)


def _listed_tokens(listed: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, text numbers) of tokens that come as ``_TOKEN_SEPARATOR``-joined bytes."""
    data, starts = _concatenated([encoded for _, encoded in listed], b"\n")
    numbers = [number for number, _ in listed]
    return _hashed_tokens(data, data != ord(_TOKEN_SEPARATOR), starts, numbers)


def _concatenated(buffers: list[bytes], separator: bytes) -> tuple[np.ndarray, np.ndarray]:
    """All buffers in one uint8 array (a separator between them) and where each starts."""
    lengths = np.fromiter(map(len, buffers), dtype=np.int64, count=len(buffers)) + 1
    starts = np.cumsum(lengths) - lengths
    return np.frombuffer(separator.join(buffers), dtype=np.uint8), starts


def _classified(data: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_non_cjk_token_bytes`` over many parts at once: the token-byte mask, and the (sorted,
    distinct) parts that hold a CJK ideograph, whose mask is then meaningless."""
    in_token = _WORD_BYTE[data]
    leads, width, code = _decoded_leads(data)
    kind = _code_point_kinds()[code]
    cjk_parts = np.unique(np.searchsorted(starts, leads[kind == _CJK], side="right") - 1)
    other = kind == _OTHER
    for k in range(4):
        hit = other & (width > k)
        in_token[leads[hit] + k] = False
    return in_token, cjk_parts


def _hashed_tokens(
    data: np.ndarray, in_token: np.ndarray, starts: np.ndarray, numbers: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of the tokens of ``data`` (as ``_counted`` keeps them) and their text numbers."""
    token_starts, token_ends = _token_bounds(in_token)
    lengths = token_ends - token_starts
    keep = lengths > 1  # one byte = one ASCII letter or digit
    if len(lengths) and lengths.max() > MAX_TOKEN_CHARS:  # chars <= bytes: count the chars
        long = np.flatnonzero(lengths > MAX_TOKEN_CHARS)
        chars = np.cumsum(np.append(0, (data & 0xC0) != 0x80))
        keep[long] = chars[token_ends[long]] - chars[token_starts[long]] <= MAX_TOKEN_CHARS
    token_starts, token_ends = token_starts[keep], token_ends[keep]
    hashes = segment_hashes(data, token_starts, token_ends)
    parts = np.searchsorted(starts, token_starts, side="right") - 1
    return hashes, np.asarray(numbers, dtype=np.int64)[parts]


class _HashSet:
    """Membership of uint64 hashes in a small fixed set: a collision-free direct-mapped table.

    One multiply, one gather and one compare per hash instead of a binary search: ``h`` is a
    member exactly when ``table[(h * multiplier) >> (64 - slot_bits)] == h``. Empty slots hold
    the first member, which maps to its own (occupied) slot, so they never match.
    """

    def __init__(self, members: np.ndarray, slot_bits: int = 12) -> None:
        members = np.unique(np.asarray(members, dtype=np.uint64))
        if not len(members):
            members = np.zeros(1, dtype=np.uint64)
            self._empty = True
        else:
            self._empty = False
        slot_bits = max(slot_bits, len(members).bit_length() + 1)
        multiplier = 0x9E3779B97F4A7C15
        for attempt in itertools.count():  # fixed, odd multipliers: the same table every time
            self._multiplier = np.uint64(multiplier)
            self._shift = np.uint64(64 - slot_bits)
            slots = self._slots(members)
            if len(np.unique(slots)) == len(members):
                break
            multiplier = (multiplier + 0xD1B54A32D192ED02) % (1 << 64)
            if attempt % 16 == 15:
                slot_bits += 1
        self._table = np.full(1 << slot_bits, members[0], dtype=np.uint64)
        self._table[slots] = members

    def _slots(self, hashes: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return ((hashes * self._multiplier) >> self._shift).astype(np.intp)

    def holds(self, hashes: np.ndarray) -> np.ndarray:
        """Boolean mask: which ``hashes`` are members."""
        if self._empty:
            return np.zeros(len(hashes), dtype=bool)
        return self._table[self._slots(hashes)] == hashes


@lru_cache(maxsize=1)
def _stop_word_table() -> _HashSet:
    return _HashSet(_stop_word_hashes(), slot_bits=14)
