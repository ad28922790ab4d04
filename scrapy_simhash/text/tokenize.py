"""Folded text -> tokens: letter/digit runs of spaced scripts, jieba's cut of Chinese runs,
stop words and over-long runs left out; word shingles and character n-grams over them."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from scrapy_simhash.text.chinese import (
    _ANY_CJK,
    _CJK_RUN,
    _JIEBA_RUN,
    _segment,
    has_cjk,
)
from scrapy_simhash.text.normalize import _fold
from scrapy_simhash.text.stopwords import STOP_WORDS

FEATURE_KINDS = ("words", "shingles", "chars")


def _mark_ranges() -> list[tuple[int, int]]:
    """The combining marks (categories Mn, Mc, Me) as inclusive ranges of code points:
    Devanagari, Tamil and Thai vowel signs and viramas, Arabic and Hebrew points. ``\\w``
    leaves them out, and words of those scripts must not break at every one. (All marks lie in
    planes 0, 1 and 14.)"""
    category = unicodedata.category
    marks = [
        code for block in (range(0x20000), range(0xE0000, 0xE1000)) for code in block
        if category(chr(code))[0] == "M"
    ]
    ranges, start = [], marks[0]
    for previous, code in zip(marks, [*marks[1:], -1], strict=True):
        if code != previous + 1:
            ranges.append((start, previous))
            start = code
    return ranges


MARK_RANGES = _mark_ranges()
#: A regex class body of the combining marks.
MARK_CLASS = "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in MARK_RANGES)
_MARK = re.compile(f"[{MARK_CLASS}]")
# Letters, digits and combining marks of any script (underscore excluded): Latin, Cyrillic,
# Greek, Hangul, kana, Devanagari ...
_WORD = re.compile(f"(?:[^\\W_]|[{MARK_CLASS}])+")
# Outside jieba runs: one token per remaining ideograph, letter/digit runs otherwise.
_RARE_CJK = "\u3400-\u4dbf\u9fd6-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_NON_JIEBA_TOKEN = re.compile(f"[{_RARE_CJK}]|(?:[^\\W_{_RARE_CJK}]|[{MARK_CLASS}])+")
# Raw tokens are letter/digit runs or jieba output of Han runs; these never carry content.
_DROPPED = STOP_WORDS | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
MAX_TOKEN_CHARS = 40


_RUN_MARK = "\x00"  # stands for one segmented Chinese run until its tokens are known


def _spaced_words(text: str, out: list[str]) -> None:
    """Append the letter/digit runs of non-CJK text to ``out``."""
    out.extend(_WORD.findall(text))


def _chinese_runs(text: str, out: list[str], runs: list[str], segment: bool) -> None:
    """Ideographs outside jieba's range become tokens; jieba-range runs are marked to segment."""
    for i, part in enumerate(_JIEBA_RUN.split(text)):
        if i % 2 and segment:
            runs.append(part)
            out.append(_RUN_MARK)
        else:
            out.extend(part)


def raw_tokens(normalized: str, *, segment_chinese: bool = True) -> list[str]:
    """All tokens of already-normalised text, in order: words for spaced scripts, jieba for Chinese.

    All Chinese runs of a text go to the segmenter in one call, joined by newlines: jieba cuts
    each newline-separated block on its own, so this equals one call per run, in a fraction of
    the time. With ``segment_chinese=False`` every CJK ideograph is a token of its own.
    """
    out: list[str] = []
    if not has_cjk(normalized):
        _spaced_words(normalized, out)
        return out
    parts = _CJK_RUN.split(normalized)
    runs: list[str] = []
    for i, part in enumerate(parts):
        if i % 2:
            _chinese_runs(part, out, runs, segment_chinese)
        elif part:
            _spaced_words(part, out)
    if not runs:
        return out
    segmented = iter(_segment(runs))
    tokens: list[str] = []
    for token in out:
        if token != _RUN_MARK:
            tokens.append(token)
            continue
        for piece in segmented:
            if piece == "\n":
                break
            tokens.append(piece)
    return tokens


def is_content_token(token: str) -> bool:
    """False for stop words, punctuation/space, single Latin letters and over-long runs."""
    if token in STOP_WORDS or len(token) > MAX_TOKEN_CHARS:
        return False
    first = token[0]
    # A combining mark (a token of text that starts with one), or an ideograph newer than this
    # Python's Unicode tables (CJK Extension I on 3.11), is not ``isalnum()``, but the counting
    # paths keep it: so must the token list.
    if first.isspace() or not (first.isalnum() or _MARK.match(first) or _ANY_CJK.match(first)):
        return False
    return not (len(token) == 1 and first.isascii())


def tokenize(text: str, *, fold_traditional: bool = False, segment_chinese: bool = True
             ) -> list[str]:
    """Normalised content tokens of ``text`` (stop words and punctuation left out), in order."""
    tokens = raw_tokens(_fold(text, fold_traditional), segment_chinese=segment_chinese)
    return [t for t in tokens if is_content_token(t)]


def count_tokens(text: str, *, fold_traditional: bool = False, segment_chinese: bool = True
                 ) -> Counter[str]:
    """``Counter`` of the content tokens of ``text``: ``Counter(tokenize(text))``, faster.

    Counting happens in C over all tokens; the stop-word filter then runs once per distinct token.
    """
    folded = _fold(text, fold_traditional)
    if not has_cjk(folded):
        counts = Counter(_WORD.findall(folded))
    elif segment_chinese and _JIEBA_RUN.search(folded):
        runs = _JIEBA_RUN.findall(folded)
        counts = Counter(_segment(runs))
        counts.update(_NON_JIEBA_TOKEN.findall(_JIEBA_RUN.sub(" ", folded)))
        counts.pop("\n", None)
    else:
        counts = Counter(raw_tokens(folded, segment_chinese=segment_chinese))
    for token in counts.keys() & _DROPPED:
        del counts[token]
    if counts and max(map(len, counts)) > MAX_TOKEN_CHARS:  # rare: checked in C first
        for token in [t for t in counts if len(t) > MAX_TOKEN_CHARS]:
            del counts[token]
    return counts


def _cjk_tokens(folded: str, segment_chinese: bool) -> list[str]:
    """All tokens (content or not, any order) of normalised text that holds CJK ideographs."""
    if segment_chinese and _JIEBA_RUN.search(folded):
        tokens = _segment(_JIEBA_RUN.findall(folded))
        tokens.extend(_NON_JIEBA_TOKEN.findall(_JIEBA_RUN.sub(" ", folded)))
        return tokens
    return raw_tokens(folded, segment_chinese=segment_chinese)


def word_shingles(tokens: list[str], size: int) -> list[str]:
    """Consecutive ``size``-token shingles (word order matters); fewer tokens -> one shingle."""
    if len(tokens) <= size:
        return [" ".join(tokens)] if tokens else []
    return [" ".join(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]


def char_ngrams(tokens: Iterable[str], size: int) -> list[str]:
    """Character ``size``-grams over the content tokens written without separators."""
    compact = "".join(tokens)
    if len(compact) <= size:
        return [compact] if compact else []
    return [compact[i : i + size] for i in range(len(compact) - size + 1)]
