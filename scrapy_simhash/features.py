"""Text -> weighted features: normalisation, tokenisation (Chinese and Latin), stop words, weights.

Chinese runs are segmented with jieba's dictionary and HMM through ``rjieba`` (jieba-rs), which
gives the same tokens as ``jieba.lcut`` on the text we hand it (``tests/test_features.py`` checks
it) at about five times the speed. Only characters of jieba's own Han range (U+4E00..U+9FD5) reach
the segmenter; rarer ideographs (extension A, supplementary planes) become one token each, exactly
as jieba treats them, so the two segmenters cannot disagree on what they are given.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from scrapy_simhash.simhash import segment_hashes, string_hashes
from scrapy_simhash.stopwords import STOP_WORDS

FEATURE_KINDS = ("words", "shingles", "chars")
WEIGHTINGS = ("tf", "logtf", "tfidf")

# Any CJK ideograph; the segmenter only sees runs of jieba's range, the rest are single tokens.
_CJK_RUN = re.compile(
    "([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff\U00030000-\U0003134f]+)"
)
_JIEBA_RUN = re.compile("([\u4e00-\u9fd5]+)")
_ANY_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_ANY_CJK_RUN = re.compile(f"{_ANY_CJK.pattern}+")
# Letters and digits of any script (underscore excluded): Latin, Cyrillic, Greek, Hangul, kana ...
_WORD = re.compile(r"[^\W_]+")
# Outside jieba runs: one token per remaining ideograph, letter/digit runs otherwise.
_RARE_CJK = "\u3400-\u4dbf\u9fd6-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_NON_JIEBA_TOKEN = re.compile(f"[{_RARE_CJK}]|[^\\W_{_RARE_CJK}]+")
# Raw tokens are letter/digit runs or jieba output of Han runs; these never carry content.
_DROPPED = STOP_WORDS | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_SPACE = re.compile(r"\s+")
MAX_TOKEN_CHARS = 40
# Non-ASCII characters that cannot be part of a word; what is left of non-ASCII is word bytes.
_NON_ASCII_NON_WORD = re.compile(r"[^\x00-\x7f\w]+")
_WORD_BYTE = np.zeros(256, dtype=bool)
_WORD_BYTE[[*b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]] = True
_WORD_BYTE[0x80:] = True
_TOKEN_SEPARATOR = "\n"  # joins tokens that come as strs; never part of a token


def normalize(text: str, *, fold_traditional: bool = False) -> str:
    """NFKC, case folding and collapsed whitespace; optionally Traditional -> Simplified Chinese."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if fold_traditional:
        text = traditional_to_simplified(text)
    return _SPACE.sub(" ", text).strip()


def traditional_to_simplified(text: str) -> str:
    """Fold Traditional Chinese to Simplified with OpenCC's phrase-aware ``t2s`` tables."""
    return _opencc_t2s()(text)


@lru_cache(maxsize=1)
def _opencc_t2s() -> Callable[[str], str]:
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "fold_traditional=True needs OpenCC: pip install 'scrapy-simhash[chinese]'"
        ) from exc
    return opencc.OpenCC("t2s").convert


@lru_cache(maxsize=1)
def _segmenter() -> Callable[[str], list[str]]:
    import rjieba

    return lambda text: rjieba.cut(text, True)


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


def has_cjk(text: str) -> bool:
    """True when ``text`` may hold a CJK ideograph (cheap: no regex scan of Latin text)."""
    return not text.isascii() and _ANY_CJK.search(text) is not None


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
    segmented = iter(_segmenter()("\n".join(runs)))
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
    if first.isspace() or not (first.isalnum()):
        return False
    return not (len(token) == 1 and first.isascii())


def _fold(text: str, fold_traditional: bool) -> str:
    if not unicodedata.is_normalized("NFKC", text):  # a cheap check; most Latin text passes
        text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    return traditional_to_simplified(folded) if fold_traditional else folded


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
        counts = Counter(_segmenter()("\n".join(runs)))
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


def token_hash_counts(text: str, *, fold_traditional: bool = False, segment_chinese: bool = True
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``count_tokens(text)`` keyed by each token's polynomial hash (``simhash.string_hashes``).

    Returns the distinct hashes (sorted, uint64) and their counts. Words are hashed straight
    from the UTF-8 bytes of the text, with no Python object per word; tokens that come as strs
    (segmented Chinese) are joined by a newline and hashed the same way.
    """
    if text.isascii():  # NFKC leaves ASCII alone and casefold is lower()
        data = np.frombuffer(text.encode("ascii").lower(), dtype=np.uint8)
        return _counted([(data, _WORD_BYTE[data])])
    if segment_chinese and not fold_traditional and _JIEBA_RUN.search(text, 0, 256):
        parts = _chinese_parts(text)
        if parts is not None:
            return _counted(parts)
    folded = _fold(text, fold_traditional)
    data = np.frombuffer(folded.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    in_token = _non_cjk_token_bytes(data)
    if in_token is not None:
        return _counted([(data, in_token)])
    return _counted([_joined(_cjk_tokens(folded, segment_chinese))])


def _chinese_parts(text: str) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Tokens of text with Chinese, folding only what lies between the Han runs; None: unsure.

    Characters of jieba's Han range are left as they are by NFKC and case folding, so folding
    the text between the runs and segmenting the runs gives the tokens of the folded text,
    unless that folding itself produced ideographs (NFKC maps e.g. Kangxi radicals to Han
    characters, which could join runs): then None, and the caller folds the whole text.
    """
    parts = _JIEBA_RUN.split(text)  # odd items are the Han runs
    rest = _fold(" ".join(parts[::2]), False)
    data = np.frombuffer(rest.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    in_token = _non_cjk_token_bytes(data)
    if in_token is None:
        return None
    segmented = _segmenter()("\n".join(parts[1::2]))
    return [(data, in_token), _joined(segmented)]


def _joined(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    data = np.frombuffer(
        _TOKEN_SEPARATOR.join(tokens).encode("utf-8", "surrogatepass"), dtype=np.uint8
    )
    return data, data != ord(_TOKEN_SEPARATOR)


def _counted(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct content-token hashes and counts over ``(utf8_bytes, byte_is_in_a_token)`` parts."""
    hashes = []
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


def _token_bounds(in_token: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) offsets of the runs of True in ``in_token``."""
    padded = np.zeros(len(in_token) + 2, dtype=bool)
    padded[1:-1] = in_token
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return edges[::2], edges[1::2]


def _non_cjk_token_bytes(data: np.ndarray) -> np.ndarray | None:
    """Which UTF-8 bytes belong to letter/digit runs (``_WORD``); None when CJK is present.

    Non-ASCII characters are decoded from their lead bytes and classified with a table of all
    code points built once from the same regular expressions, so no regex scans the text.
    """
    in_token = _WORD_BYTE[data]
    leads = np.flatnonzero(data >= 0xC0)
    if not len(leads):
        return in_token
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
    kind = _code_point_kinds()[code]
    if (kind == _CJK).any():
        return None
    other = kind == _OTHER
    for k in range(4):
        hit = other & (width > k)
        in_token[leads[hit] + k] = False
    return in_token


_OTHER, _LETTER_OR_DIGIT, _CJK = 0, 1, 2


@lru_cache(maxsize=1)
def _code_point_kinds() -> np.ndarray:
    """uint8 per code point: ``_CJK`` (``_ANY_CJK``), ``_LETTER_OR_DIGIT`` (``_WORD``), else 0."""
    everything = np.arange(0x110000, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    kinds = np.zeros(0x110000, dtype=np.uint8)
    for pattern, kind in ((_WORD, _LETTER_OR_DIGIT), (_ANY_CJK_RUN, _CJK)):
        for match in pattern.finditer(everything):  # runs: a few thousand
            kinds[match.start() : match.end()] = kind
    return kinds


def _cjk_tokens(folded: str, segment_chinese: bool) -> list[str]:
    """All tokens (content or not, any order) of normalised text that holds CJK ideographs."""
    if segment_chinese and _JIEBA_RUN.search(folded):
        tokens = _segmenter()("\n".join(_JIEBA_RUN.findall(folded)))
        tokens.extend(_NON_JIEBA_TOKEN.findall(_JIEBA_RUN.sub(" ", folded)))
        return tokens
    return raw_tokens(folded, segment_chinese=segment_chinese)


@lru_cache(maxsize=1)
def _stop_word_hashes() -> np.ndarray:
    return np.sort(string_hashes(sorted(STOP_WORDS)))


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


def weigh(features: list[str], weighting: str, idf: Callable[[str], float] | None = None
          ) -> dict[str, float]:
    """Feature -> weight: raw term frequency, 1 + ln(tf), or tf x idf."""
    counts = Counter(features)
    if weighting == "tf":
        return dict(counts)
    if weighting == "logtf":
        return {f: 1.0 + math.log(c) for f, c in counts.items()}
    if weighting == "tfidf":
        lookup = idf or idf_weight
        return {f: c * lookup(f) for f, c in counts.items()}
    raise ValueError(f"weighting must be one of {WEIGHTINGS}, not {weighting!r}")


@lru_cache(maxsize=1)
def _idf_table() -> tuple[dict[str, float], float]:
    """jieba's IDF table (Chinese words) and its median, used for words it does not list."""
    import jieba.analyse

    path = Path(jieba.analyse.__file__).with_name("idf.txt")
    table: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, _, value = line.rpartition(" ")
        if word:
            table[word] = float(value)
    values = sorted(table.values())
    return table, values[len(values) // 2]


def idf_weight(feature: str) -> float:
    """IDF of a word (or mean over a shingle's words) from jieba's table; unlisted -> median IDF.

    jieba ships IDF for Chinese only, so Latin-script words all get the median: for English text
    TF-IDF weighting is TF weighting with stop words already removed.
    """
    table, median = _idf_table()
    if " " not in feature:
        return table.get(feature, median)
    words = feature.split(" ")
    return sum(table.get(w, median) for w in words) / len(words)
