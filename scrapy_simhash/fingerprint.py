"""The Fingerprinter: HTML or text in, SimHash fingerprint out, every stage set in one place."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from scrapy_simhash.simhash import (
    DEFAULT_BITS,
    DEFAULT_MAX_DISTANCE,
    ParameterError,
    check_bits,
    checked_fingerprint,
    hamming_distance,
    simhash,
    simhash_of_groups,
    simhash_of_hashes,
    words_to_ints,
)
from scrapy_simhash.text.hashing import token_hash_batch, token_hash_counts
from scrapy_simhash.text.normalize import traditional_to_simplified
from scrapy_simhash.text.tokenize import (
    FEATURE_KINDS,
    char_ngrams,
    count_tokens,
    tokenize,
    word_shingles,
)
from scrapy_simhash.text.weights import WEIGHTINGS, weigh

# Bumped whenever tokenisation or hashing changes the bits, so stored indexes refuse mixing.
FINGERPRINT_VERSION = 3  # 3: combining marks are part of words; 2: polynomial + fmix64 hash

# DEFAULT_BITS and DEFAULT_MAX_DISTANCE (imported above) live in scrapy_simhash.simhash, which
# the indexes share: an index opened without them matches a default Fingerprinter.
DEFAULT_MIN_TOKENS = 16
TOKENIZERS = ("auto", "words")
_BATCH_TEXTS = 1024  # fingerprint_many hashes at most this many texts per numpy pass
# ... and at most this many characters: a batch holds every word *occurrence* (~250 bytes each
# in flight), where fingerprint_text counts each distinct word once; a longer text goes alone.
_BATCH_CHARS = 2_000_000


class Fingerprinter:
    """Configured text -> fingerprint pipeline.

    ``features``: ``"words"`` (unigrams), ``"shingles"`` (``shingle_size`` consecutive words, word
    order matters) or ``"chars"`` (character ``ngram_size``-grams). ``weighting``: ``"tf"``,
    ``"logtf"`` or ``"tfidf"``. ``tokenizer``: ``"auto"`` segments Chinese with jieba's dictionary
    and splits other scripts into words; ``"words"`` skips the dictionary (each Chinese character
    is a token). Text with fewer than ``min_tokens`` content tokens gets no fingerprint (None).
    ``max_distance`` is the Hamming distance at or below which two pages count as near-duplicates.
    """

    def __init__(
        self,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        *,
        features: str = "words",
        shingle_size: int = 3,
        ngram_size: int = 4,
        weighting: str = "tf",
        tokenizer: str = "auto",
        min_tokens: int = DEFAULT_MIN_TOKENS,
        fold_traditional: bool = False,
        extractor: str | Callable[..., str] | None = "builtin",
    ) -> None:
        self.bits = check_bits(bits)
        # (the index splits the bits into max_distance + 1 parts of at least 2 bits each)
        self.max_distance = _int_in("max_distance", max_distance, 0, bits // 2 - 1)
        self.features = _choice("features", features, FEATURE_KINDS)
        self.shingle_size = _int_in("shingle_size", shingle_size, 1, 16)
        self.ngram_size = _int_in("ngram_size", ngram_size, 1, 16)
        self.weighting = _choice("weighting", weighting, WEIGHTINGS)
        self.tokenizer = _choice("tokenizer", tokenizer, TOKENIZERS)
        self.min_tokens = _int_in("min_tokens", min_tokens, 1, 1_000_000)
        if not isinstance(fold_traditional, bool):
            raise ParameterError(
                "fold_traditional",
                f"fold_traditional must be True or False, not {fold_traditional!r}",
            )
        self.fold_traditional = fold_traditional
        if fold_traditional:
            traditional_to_simplified("")  # fail now, not on the first page, without OpenCC
        self.extractor_name = extractor if isinstance(extractor, str) else _qualname(extractor)
        self._extractor_spec = extractor

    @property
    def params(self) -> dict[str, Any]:
        """Every setting that changes the bits: stored with an index and checked when reopened."""
        return {
            "fingerprint_version": FINGERPRINT_VERSION,
            "bits": self.bits,
            "features": self.features,
            "shingle_size": self.shingle_size if self.features == "shingles" else None,
            "ngram_size": self.ngram_size if self.features == "chars" else None,
            "weighting": self.weighting,
            "tokenizer": self.tokenizer,
            "fold_traditional": self.fold_traditional,
            "extractor": self.extractor_name,
        }

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None)
        head = f"max_distance={self.max_distance}, min_tokens={self.min_tokens}"
        return f"Fingerprinter({head}, {shown})"

    # -- text ---------------------------------------------------------------------------------

    def tokens(self, text: str) -> list[str]:
        """Normalised content tokens (stop words and punctuation left out), in order."""
        return tokenize(
            text, fold_traditional=self.fold_traditional, segment_chinese=self.tokenizer == "auto"
        )

    def weighted_features(self, text: str) -> dict[str, float] | None:
        """``{feature: weight}`` of ``text``; None when it has fewer than ``min_tokens`` tokens."""
        if self.features == "words" and self.weighting == "tf":  # the default, on the fast path
            counts = count_tokens(
                text,
                fold_traditional=self.fold_traditional,
                segment_chinese=self.tokenizer == "auto",
            )
            return dict(counts) if counts.total() >= self.min_tokens else None
        tokens = self.tokens(text)
        if len(tokens) < self.min_tokens:
            return None
        if self.features == "words":
            items = tokens
        elif self.features == "shingles":
            items = word_shingles(tokens, self.shingle_size)
        else:
            items = char_ngrams(tokens, self.ngram_size)
        return weigh(items, self.weighting)

    def fingerprint_text(self, text: str) -> int | None:
        """The fingerprint of plain text, or None when it is too short to fingerprint."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if self.features == "words" and self.weighting == "tf":  # the default, on the fast path
            hashes, counts = token_hash_counts(
                text,
                fold_traditional=self.fold_traditional,
                segment_chinese=self.tokenizer == "auto",
            )
            if counts.sum() < self.min_tokens:
                return None
            return simhash_of_hashes(hashes, counts, self.bits)
        weighted = self.weighted_features(text)
        return None if weighted is None else simhash(weighted, self.bits)

    def fingerprint_many(self, texts: Iterable[str]) -> list[int | None]:
        """``[fingerprint_text(t) for t in texts]``, bit for bit, several times faster.

        With the default features (words, tf) the texts are tokenised one by one but hashed,
        filtered and summed together, ``_BATCH_TEXTS`` at a time; other settings loop.
        """
        texts = list(texts)
        if not (self.features == "words" and self.weighting == "tf"):
            return [self.fingerprint_text(text) for text in texts]
        out: list[int | None] = []
        for batch in _batches(texts):
            if len(batch) == 1 and len(batch[0]) > _BATCH_CHARS:
                out.append(self.fingerprint_text(batch[0]))
                continue
            hashes, numbers = token_hash_batch(
                batch,
                fold_traditional=self.fold_traditional,
                segment_chinese=self.tokenizer == "auto",
            )
            words = simhash_of_groups(hashes, numbers, len(batch), self.bits)
            sizes = np.bincount(numbers, minlength=len(batch)).tolist()
            out.extend(
                fingerprint if size >= self.min_tokens else None
                for fingerprint, size in zip(words_to_ints(words), sizes, strict=True)
            )
        return out

    # -- HTML ---------------------------------------------------------------------------------

    @property
    def extractor(self) -> Callable[..., str]:
        """The main-text extractor: ``(html, encoding, url) -> str``."""
        extractor = self.__dict__.get("_extractor")
        if extractor is None:
            from scrapy_simhash.extract import get_extractor

            extractor = self.__dict__["_extractor"] = get_extractor(self._extractor_spec)
        return extractor

    def extract(self, html: str | bytes, encoding: str | None = None, url: str | None = None
                ) -> str:
        """The main text that gets fingerprinted (headline and article body)."""
        return self.extractor(html, encoding, url)

    def fingerprint_html(
        self, html: str | bytes, encoding: str | None = None, url: str | None = None
    ) -> int | None:
        """The fingerprint of a page's main text, or None when it has too little text."""
        if not isinstance(html, str | bytes | bytearray | memoryview):
            raise TypeError(f"html must be str or bytes, got {type(html).__name__}")
        return self.fingerprint_text(self.extract(html, encoding, url))

    @property
    def reads_trees(self) -> bool:
        """Whether the extractor reads an already-parsed tree (the builtin ones); others are
        given the page's HTML (a crawl gives them its bytes, see
        :func:`~scrapy_simhash.crawl.signing.page_signature`)."""
        return self.extractor_name in ("builtin", "wholepage")

    def extract_tree(self, root: Any, url: str | None = None) -> str:
        """Main text of an already-parsed lxml root (``response.selector.root``); not modified.
        ``url``: the page's, for an extractor that reads it."""
        from scrapy_simhash import extract

        if self.extractor_name == "builtin":  # as the builtin extractor: all posts of a list
            return extract.extract_main_text_from_tree(root, first_entry_only=False)
        if self.extractor_name == "wholepage":
            return extract.visible_text_from_tree(root)
        import lxml.html

        return self.extract(lxml.html.tostring(root, encoding="unicode"), None, url)

    def fingerprint_tree(self, root: Any, url: str | None = None) -> int | None:
        """The fingerprint of a parsed page; the tree is only read, never changed."""
        return self.fingerprint_text(self.extract_tree(root, url))

    def warm_up(self) -> None:
        """Load the segmenter's dictionary, the tokenizer's tables and the extractor now (~0.4 s)
        instead of on the first page; a crawl calls it at start-up."""
        self.fingerprint_html(
            "<html><body><article><h1>Warm up</h1><p>Café société, 北京预热分词。</p></article>"
            "</body></html>"
        )

    def is_near_duplicate(self, a: int | None, b: int | None) -> bool:
        """True when both fingerprints exist and lie within ``max_distance`` of each other; a
        fingerprint wider than ``bits`` (or negative) raises ValueError."""
        if a is None or b is None:
            return False
        a, b = checked_fingerprint(a, self.bits), checked_fingerprint(b, self.bits)
        return hamming_distance(a, b) <= self.max_distance


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ParameterError(name, f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _int_in(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParameterError(name, f"{name} must be an integer from {low} to {high}; got {value!r}")
    return value


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _batches(texts: list[str]) -> Iterator[list[str]]:
    """Consecutive runs of ``texts`` of at most ``_BATCH_TEXTS`` texts and ``_BATCH_CHARS``
    characters; a text longer than that is a batch of its own."""
    batch: list[str] = []
    chars = 0
    for text in texts:
        if batch and (len(batch) >= _BATCH_TEXTS or chars + len(text) > _BATCH_CHARS):
            yield batch
            batch, chars = [], 0
        batch.append(text)
        chars += len(text)
    if batch:
        yield batch
