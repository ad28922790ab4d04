"""Folding text before it is cut into words: NFKC, case folding, collapsed whitespace, and
optionally Traditional -> Simplified Chinese (OpenCC).

Runs of more than 30 combining marks are cut first (UAX #15's Stream-Safe Text Format), since
CPython's NFKC is quadratic in such a run's length. ``_fold_quick`` gives ``_fold``'s result,
mostly without calling ``unicodedata.normalize``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import numpy as np

_SPACE = re.compile(r"\s+")


def normalize(text: str, *, fold_traditional: bool = False) -> str:
    """NFKC, case folding and collapsed whitespace; optionally Traditional -> Simplified Chinese.

    Runs of more than 30 combining marks are broken up first (:func:`_stream_safe`)."""
    text = unicodedata.normalize("NFKC", _stream_safe(text)).casefold()
    if fold_traditional:
        text = traditional_to_simplified(text)
    return _SPACE.sub(" ", text).strip()


# U+034F COMBINING GRAPHEME JOINER: a mark (so inside a word, like the marks around it) of
# combining class 0, which NFKC keeps and canonical reordering and composition do not cross.
_GRAPHEME_JOINER = "\u034f"
_MAX_NON_STARTERS = 30  # UAX #15's Stream-Safe Text Format


@lru_cache(maxsize=1)
def _non_starters() -> tuple[re.Pattern[str], np.ndarray]:
    """A quick regex for one non-starter, which takes any character beyond the BMP for one (a
    class with ranges there tests them one by one, ten times slower), and a bool per code point:
    is it a non-starter.

    A non-starter: a character whose NFKD form is made of characters of non-zero combining
    class only, which NFKC must sort (canonical ordering) with its neighbours: every character
    of non-zero combining class (all are marks, in planes 0 and 1) and five of class 0 that
    decompose into such (U+0F73, U+0F75, U+0F81, U+FF9E, U+FF9F).
    """
    combining, decompose = unicodedata.combining, unicodedata.normalize
    codes = [
        code for code in range(0x20000)
        if combining(char := chr(code)) or (
            unicodedata.decomposition(char)
            and all(combining(part) for part in decompose("NFKD", char))
        )
    ]
    table = np.zeros(0x110000, dtype=bool)
    table[codes] = True
    bmp = [code for code in codes if code < 0x10000]
    ranges, start = [], bmp[0]
    for previous, code in zip(bmp, [*bmp[1:], -1], strict=True):
        if code != previous + 1:
            ranges.append(f"\\u{start:04x}-\\u{previous:04x}")
            start = code
    return re.compile(f"[{''.join(ranges)}\\U00010000-\\U0010ffff]"), table


def _stream_safe(text: str) -> str:
    """``text`` with U+034F COMBINING GRAPHEME JOINER before the 31st, 61st ... non-starter of
    every run (UAX #15's Stream-Safe Text Format); any other text as it is (the same object).

    CPython's NFKC sorts a run of combining marks by insertion, in time quadratic in the run's
    length: one word of Zalgo text with 100,000 marks out of canonical order takes seconds.
    Folding normalises only stream-safe text, in linear time. A run of more than 30 marks is
    no word of any script; the joiner (a mark too) keeps it one token, so a Zalgo word stays
    over-long and dropped, as before.
    """
    if text.isascii():
        return text
    one, non_starter = _non_starters()
    # Every run of 31 characters holds one whose position is 30 modulo 31: without a
    # non-starter there, there is none (most texts have no marks: a 31st of the text read).
    if one.search(text[_MAX_NON_STARTERS :: _MAX_NON_STARTERS + 1]) is None:
        return text
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    starts, ends = _token_bounds(non_starter[codes])
    lengths = ends - starts
    long = lengths > _MAX_NON_STARTERS
    if not long.any():
        return text
    joiners = (lengths[long] - 1) // _MAX_NON_STARTERS  # per run: before its 31st, 61st ...
    first = np.cumsum(joiners) - joiners
    nth = np.arange(joiners.sum()) - np.repeat(first, joiners) + 1
    at = np.repeat(starts[long], joiners) + _MAX_NON_STARTERS * nth
    joined = np.insert(codes, at, np.uint32(ord(_GRAPHEME_JOINER)))
    return joined.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def traditional_to_simplified(text: str) -> str:
    """Fold Traditional Chinese to Simplified with OpenCC's phrase-aware ``t2s`` tables.

    Lone surrogates (which ``json.loads`` gives for a broken escape) stay as they are: OpenCC
    takes UTF-8, so the text between them is converted piece by piece."""
    convert = _opencc_t2s()
    try:
        return convert(text)
    except UnicodeEncodeError:
        pieces = _SURROGATES.split(text)
        return "".join(p if odd % 2 else convert(p) for odd, p in enumerate(pieces))


_SURROGATES = re.compile("([\ud800-\udfff]+)")


@lru_cache(maxsize=1)
def _opencc_t2s() -> Callable[[str], str]:
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "fold_traditional=True needs OpenCC: pip install 'opencc>=1.1.9' (the package's "
            "'chinese' extra)"
        ) from exc
    return opencc.OpenCC("t2s").convert


def _fold(text: str, fold_traditional: bool) -> str:
    text = _stream_safe(text)  # NFKC is quadratic in the length of a run of marks
    if not unicodedata.is_normalized("NFKC", text):  # a cheap check; most Latin text passes
        text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    return traditional_to_simplified(folded) if fold_traditional else folded


def _token_bounds(in_token: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) offsets of the runs of True in ``in_token``."""
    padded = np.zeros(len(in_token) + 2, dtype=bool)
    padded[1:-1] = in_token
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return edges[::2], edges[1::2]


# Compatibility characters common in web text (Chinese full-width punctuation, the ellipsis,
# no-break and ideographic spaces) and their NFKC forms, replaced by str.replace before NFKC.
_QUICK_NFKC = tuple(
    (char, unicodedata.normalize("NFKC", char)) for char in "，（）：；？！％…\u00a0\u3000"
)


def _fold_quick(text: str, fold_traditional: bool) -> str:
    """``_fold(text, fold_traditional)``, exactly, mostly without ``unicodedata.normalize``.

    Replacing characters by their own NFKC forms keeps the NFKD form of the text, hence its
    NFKC form; so when the text with the common compatibility characters replaced is already
    NFKC-normalised, it *is* the NFKC form of the text. Otherwise: the full normalisation.
    Runs of marks are cut first, as ``_fold`` does (the replaced characters are no marks).
    """
    text = _stream_safe(text)
    if not unicodedata.is_normalized("NFKC", text):
        replaced = text
        for char, folded in _QUICK_NFKC:
            if char in replaced:
                replaced = replaced.replace(char, folded)
        if replaced is not text and unicodedata.is_normalized("NFKC", replaced):
            text = replaced
        else:
            text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    return traditional_to_simplified(folded) if fold_traditional else folded
