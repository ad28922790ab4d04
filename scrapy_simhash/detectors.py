"""Near-duplicate detectors behind one small interface, selected by name (``SIMHASH_ALGORITHM``).

Every detector turns a page's main text into a *signature*, says whether two signatures are near
duplicates (with a distance: 0 is identical), and opens an index with the crawl's one call,
``check_and_add(key, signature) -> Match | None``.

- ``simhash`` (default): weighted SimHash of the words (:class:`~scrapy_simhash.Fingerprinter`),
  pigeonhole index within Hamming distance ``max_distance``.
- ``minhash``: MinHash over word shingles; LSH banding (``bands`` x ``rows`` chosen from the
  Jaccard ``threshold``) finds candidates, the estimated Jaccard confirms them.
- ``ksentence``: hash of the K longest sentences; equal hashes are duplicates (fast, precise,
  low recall: any edit inside those sentences breaks it).
- ``exact``: hash of the normalised main text; matches only the same main text up to case,
  Unicode normalisation (NFKC) and whitespace.

MinHash, KSentence and exact signatures are stored by :mod:`scrapy_simhash.index.lsh`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from hashlib import blake2b
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from scrapy_simhash import evidence as ev
from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.simhash import hamming_distance
from scrapy_simhash.text.normalize import normalize

ALGORITHMS = ("simhash", "minhash", "ksentence", "exact")
DEFAULT_ALGORITHM = "simhash"

# MinHash permutations are derived from this fixed seed (see MinHashDetector): changing it changes
# every stored signature, so it is part of the detector's parameters.
MINHASH_SEED = 1
# What ExactDetector hashes; stored with its index, so an index of another version is refused.
# 2: the normalised main text; 1 (stored as no version): its content tokens only.
EXACT_VERSION = 2
# Where KSentenceDetector splits sentences; stored with its index like EXACT_VERSION.
# 2: Latin full stops only before a space and no lowercase letter ("3.14", "e.g. this" stay
# whole), and the CJK ones also at ．｡…; 1 (stored as no version): after every . ! ? ; 。！？；
KSENTENCE_VERSION = 2
_MERSENNE_61 = (1 << 61) - 1
_CLOSERS = "\"'\u2019\u201d\u00bb)\\]\u300d\u300f\uff09"  # quotes and brackets after a full stop
_SENTENCE_END = re.compile(
    rf"[.!?;]+[{_CLOSERS}]*\s+(?![\sa-z])"  # Latin: a full stop, a space, no lowercase letter next
    rf"|[\u3002\uff01\uff1f\uff1b\uff0e\uff61\u2026]+[{_CLOSERS}]*\s*"  # 。！？；．｡… need no space
    r"|\n+"
)


@dataclass(frozen=True, slots=True)
class Signed:
    """A page's or an item's signature with the evidence that confirms a match (None when
    there is no signature, or for a bare signature made by hand)."""

    signature: Any
    evidence: ev.Evidence | None = None


def _digest64(data: bytes) -> int:
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little")


def _own_fields(lines: Iterable[str], comments: str, markup: list[str]) -> np.ndarray | None:
    """The fields of a page (:func:`scrapy_simhash.evidence.field_codes`): the "Label: value"
    lines of its own text (not its links', which name other pages, nor its comments': a
    reader's "Name: Ann" is no field of the page) and the pairs its markup writes
    (:func:`scrapy_simhash.extract.structured.field_lines`)."""
    if comments:
        skipped = set(comments.split("\n"))
        lines = (line for line in lines if line not in skipped)
    return ev.field_codes(chain(lines, markup))


def content_extraction(root: Any) -> Any | None:
    """The built-in extractor's reading of a parsed page, or None when it found no main text
    and the page's links and furniture stand in (a hub, a front page): not content to compare.
    Dropping such a page would lose the links behind it, and a hub whose headlines changed a
    little would hide the new pages it leads to."""
    from scrapy_simhash.extract import extraction_from_tree

    extraction = extraction_from_tree(root)
    return None if extraction.fallback else extraction


class Detector(ABC):
    """Text -> signature, signature comparison, and the index that stores signatures.

    ``extractor`` and ``tokenizer``-related options are those of :class:`Fingerprinter`, which
    every detector uses for main-text extraction and tokenisation.
    """

    name: ClassVar[str]

    def __init__(self, fingerprinter: Fingerprinter | None = None, **fingerprint_options: Any):
        self.fingerprinter = fingerprinter or Fingerprinter(**fingerprint_options)

    # -- signatures ---------------------------------------------------------------------------

    @abstractmethod
    def signature(self, text: str) -> Any | None:
        """The signature of a page's main text, or None when the text is too short."""

    def signature_html(self, html: str | bytes, encoding: str | None = None,
                       url: str | None = None) -> Any | None:
        """The signature of an HTML page (main text extracted first)."""
        return self.signature(self.fingerprinter.extract(html, encoding, url))

    def signature_tree(self, root: Any, url: str | None = None) -> Any | None:
        """The signature of an already-parsed lxml page; the tree is only read."""
        return self.signature(self.fingerprinter.extract_tree(root, url))

    # What a crawl computes: the signature with its evidence, from one extraction. Every
    # algorithm's candidates are confirmed by the same evidence: a signature alone takes two
    # pages of one template (a listing's intro, a table's caption) for one.

    def sign_text(self, text: str) -> Signed:
        """An item's text: weak (confirmed only by a nearly identical text, with no figure that
        each lacks: a price, a SKU, a date) when it is short, since no page beside it tells a
        template's text from its own; its first line, when it has more than one, is its title
        (an item's first field: ``title`` by default), which the lines after it may name
        (:func:`scrapy_simhash.evidence.text_named_title`)."""
        signature = self.signature(text)
        if signature is None:
            return Signed(None)
        hashes, words = ev.shingle_hashes(text)
        if words < ev.SHORT_WORDS:
            return Signed(signature, ev.of_hashes(hashes, words, True, ev.text_title(text),
                                                  figures=ev.item_figures(text)))
        title, named = ev.text_named_title(text)
        return Signed(signature, ev.of_hashes(hashes, words, title=title, named=named))

    def sign_html(self, html: str | bytes, encoding: str | None = None,
                  url: str | None = None) -> Signed:
        if not self.fingerprinter.reads_trees:
            return self.sign_text(self.fingerprinter.extract(html, encoding, url))
        from scrapy_simhash.extract import parse_html

        try:
            root = parse_html(html, encoding)
        except Exception:
            root = None
        return self.sign_tree(root, url)

    def sign_tree(self, root: Any, url: str | None = None) -> Signed:
        """The signature of a parsed page with its evidence: its main text's 3-grams and, when
        the main text is short or weak, the rest of the page's (see
        :mod:`scrapy_simhash.evidence`)."""
        if self.fingerprinter.extractor_name != "builtin":
            return self.sign_text(self.fingerprinter.extract_tree(root, url))
        from scrapy_simhash.extract import structured_text
        from scrapy_simhash.extract.page_layout import layout_marks
        from scrapy_simhash.extract.structured import (
            aside_text,
            canonical_href,
            markup_parts,
            side_boxes,
        )

        extraction = content_extraction(root)
        if extraction is None:
            return Signed(None)
        signature = self.signature(extraction.text)
        if signature is None:
            return Signed(None)
        # (the URL the page declares its own: two of one site's are two pages)
        canonical = ev.canonical_code(canonical_href(root), url)

        def signed(evidence: ev.Evidence) -> Signed:
            if canonical is not None:
                evidence = dataclasses.replace(evidence, canonical=canonical)
            return Signed(signature, evidence)

        main, words, text_words, main_figures = ev.text_hashes(extraction.text)
        weak = ev.is_weak(words, extraction.is_article)
        links = ev.listing_links(extraction.entry_links())  # (a listing's entries, else None)
        # its own comments: not its text, but what tells one page of them from the next
        comment_text = "" if weak else extraction.comment_text()
        comments = ev.shingle_hashes(comment_text)[0] if comment_text else None
        # (one walk of the tree: the documents it embeds, the fields its markup writes)
        embedded, markup_fields, asides = markup_parts(root)
        fields = _own_fields(extraction.colon_lines(), comment_text, markup_fields)
        if not weak and words >= ev.SHORT_WORDS:
            # the lines of its content beside the main text (a job's fields, a listing's grid),
            # whose words may name its title's too, and its layout (its template's elements)
            rest_text = "\n".join(extraction.rest_lines())
            rest, _, rest_words, rest_figures = ev.text_hashes(rest_text)
            named_by = np.concatenate((text_words, rest_words))
            title, named = ev.named_title(extraction.declared_title, named_by)
            # what its URL selects that its text names ("?strength=100mg" over "100 mg")
            selections = ev.named_selections(url, extraction.text, rest_text)
            return signed(ev.of_long(main, words, title, named, rest,
                                     ev.line_hashes(layout_marks(root)),
                                     ev.union(main_figures, rest_figures),
                                     links, comments, selections, fields,
                                     ev.line_bits(extraction.text)))
        # a weak page's main text does not stand for it, and a short one may be the same on
        # many pages of a template: its page (weak) or the rest of it (short) tells them apart
        # (the title is a weak page's own; beside a short text it often names the site)
        page, page_words = ev.shingle_hashes(extraction.page_text(titled=weak))
        data = structured_text(root) if page_words < ev.THIN_WORDS else ""
        data_hashes = ev.shingle_hashes(data)[0]
        # (a shell's data: its product's id and price beside the same notice on every page)
        data_figures = ev.figure_words(data) if data else None
        title = ev.title_hashes(extraction.headed_title)
        embeds = ev.embed_codes(embedded, url)  # (frames, players, viewers)
        # its own text: a link's is another page's (a list of the development's other homes and
        # their prices, which every page of the development shows but for its own)
        own_text = extraction.content_text(unlinked=True)
        # what its URL selects that this text names ("?ort=uppsala" over "Pollen in Uppsala")
        selections = ev.named_selections(url, own_text)
        # its dates, whole: those of its datelines too, which its text and content leave out
        # as furniture (an event's day)
        dates = ev.date_figures("\n".join([own_text, *extraction.dated_furniture()]))
        hidden_figures = dates if data_figures is None else ev.union(data_figures, dates)
        # (a listing's price and facts in a summary box beside its description, in an
        # ``<aside>`` or a box named as one: looked for only where the walk met such a name)
        if extraction.page is not None and "sidebar" in " ".join(
                extraction.page.node_class).lower():
            asides = asides + side_boxes(root, asides)
        if asides:
            hidden_figures = ev.union(hidden_figures, ev.figure_words(aside_text(asides)))
        if weak:
            # (its figures: a class's number, a day's temperatures beside one shared notice)
            own_figures = ev.figure_words(own_text)
            own_figures = ev.union(own_figures, hidden_figures)
            figures = ev.sketch(own_figures, ev.FIGURES_SKETCH_SIZE)
            return signed(ev.of_hashes(ev.union(page, data_hashes), words, True,
                                       title, links=links, figures=figures,
                                       embeds=embeds, selections=selections, fields=fields))
        content_text = extraction.content_text()
        content, _, _, content_figures = ev.text_hashes(content_text, numerals=True)
        if len(own_text) < len(content_text):
            content_figures = ev.figure_words(own_text)
        content_figures = ev.union(content_figures, hidden_figures)
        figures = ev.sketch(content_figures, ev.FIGURES_SKETCH_SIZE)
        rest = np.setdiff1d(ev.union(content, data_hashes), main, assume_unique=True)
        chrome = np.setdiff1d(page, content, assume_unique=True)
        if comments is not None:  # (the page's comments are not its template's)
            chrome = np.setdiff1d(chrome, comments, assume_unique=True)
        marks = ev.mark_bits(ev.union(main_figures, ev.numeral_hashes(extraction.text)),
                             ev.heading_hashes(extraction.heading))
        return signed(ev.of_short(main, words, rest, chrome, figures, title, marks,
                                  links, comments, embeds, selections, fields,
                                  ev.line_bits(extraction.text)))

    def confirms(self, a: ev.Evidence | None, b: ev.Evidence | None,
                 same_site: bool | None = None) -> bool:
        """Whether the evidence of two matching signatures says they are the same content
        (``same_site``: whether the pages are on one site; None: not known)."""
        return a is not None and b is not None and ev.confirms(a, b, same_site)

    @abstractmethod
    def distance(self, a: Any, b: Any) -> float:
        """How far apart two signatures are: 0 for identical content."""

    @abstractmethod
    def within_threshold(self, a: Any, b: Any) -> bool:
        """Whether two (existing) signatures are near enough to be the same content."""

    def is_duplicate(self, a: Any | Signed | None, b: Any | Signed | None,
                     same_site: bool | None = None) -> bool:
        """Both signatures exist and are within the threshold; for two :class:`Signed` ones,
        also confirmed by their evidence (``same_site``: whether the pages are on one site;
        None: not known)."""
        if isinstance(a, Signed) and isinstance(b, Signed):
            return (
                a.signature is not None and b.signature is not None
                and self.within_threshold(a.signature, b.signature)
                and self.confirms(a.evidence, b.evidence, same_site)
            )
        a = a.signature if isinstance(a, Signed) else a
        b = b.signature if isinstance(b, Signed) else b
        return a is not None and b is not None and self.within_threshold(a, b)

    def fingerprint_of(self, signature: Any) -> int:
        """An integer naming the signature (a Match's ``fingerprint``; ``response.meta``)."""
        return int(signature)

    # -- storage ------------------------------------------------------------------------------

    @property
    def params(self) -> dict[str, Any]:
        """Everything that changes the signatures (stored with a persistent index)."""
        return {"algorithm": self.name, **self.fingerprinter.params}

    @abstractmethod
    def open_index(self, uri: str = "memory://", *, namespace: str = "pages", **options: Any):
        """An index of this detector's signatures with ``check_and_add(key, signature)``."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None)
        return f"{type(self).__name__}({shown})"


class SimHashDetector(Detector):
    """Weighted SimHash; near duplicates lie within Hamming distance ``max_distance``."""

    name = "simhash"

    @property
    def bits(self) -> int:
        return self.fingerprinter.bits

    @property
    def max_distance(self) -> int:
        return self.fingerprinter.max_distance

    def signature(self, text: str) -> int | None:
        return self.fingerprinter.fingerprint_text(text)

    def signature_tree(self, root: Any, url: str | None = None) -> int | None:
        return self.fingerprinter.fingerprint_tree(root, url)

    def distance(self, a: int, b: int) -> int:
        return hamming_distance(a, b)

    def within_threshold(self, a: int, b: int) -> bool:
        return self.fingerprinter.is_near_duplicate(a, b)

    @property
    def params(self) -> dict[str, Any]:
        # the fingerprint's own, so an index opened with Fingerprinter().params serves a crawl
        return self.fingerprinter.params

    def open_index(self, uri: str = "memory://", *, namespace: str = "pages", **options: Any):
        from scrapy_simhash.index import open_index

        return open_index(uri, bits=self.bits, max_distance=self.max_distance,
                          namespace=namespace, params=self.params, **options)


class _HashedDetector(Detector):
    """Detectors whose signatures are stored by LSH bands (:mod:`scrapy_simhash.index.lsh`)."""

    def bands(self, signature: Any) -> list[int]:
        """Exact-match keys: two duplicates share at least one (with the stated probability)."""
        return [int(signature)]

    def to_bytes(self, signature: Any) -> bytes:
        return int(signature).to_bytes(8, "little")

    def from_bytes(self, data: bytes) -> Any:
        return int.from_bytes(data, "little")

    def match_distance(self, a: Any, b: Any) -> int | None:
        """The distance stored in a Match, or None when ``b`` does not duplicate ``a``."""
        return 0 if a == b else None

    def distance(self, a: Any, b: Any) -> float:
        return 0.0 if a == b else 1.0

    def within_threshold(self, a: Any, b: Any) -> bool:
        return self.match_distance(a, b) is not None

    def open_index(self, uri: str = "memory://", *, namespace: str = "pages", **options: Any):
        from scrapy_simhash.index.lsh import open_band_index

        return open_band_index(uri, self, namespace=namespace, **options)


class ExactDetector(_HashedDetector):
    """64-bit BLAKE2b of the normalised main text.

    Two pages match only when their main text is the same up to case, Unicode normalisation
    (NFKC; Traditional -> Simplified Chinese too with ``fold_traditional``) and whitespace (runs
    collapsed to one space, ends stripped): stop words, digits and punctuation all count. Text
    with fewer than ``min_tokens`` content tokens has no signature.
    """

    name = "exact"

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "exact_version": EXACT_VERSION}

    def normalized(self, text: str) -> str:
        """The text that is hashed: NFKC, case folded, whitespace runs as one space, stripped."""
        return normalize(text, fold_traditional=self.fingerprinter.fold_traditional)

    def signature(self, text: str) -> int | None:
        if len(self.fingerprinter.tokens(text)) < self.fingerprinter.min_tokens:
            return None
        return _digest64(self.normalized(text).encode("utf-8", "surrogatepass"))


class KSentenceDetector(_HashedDetector):
    """Hash of the ``k`` longest sentences (normalised tokens, in length order, ties by text)."""

    name = "ksentence"

    def __init__(self, k: int = 3, fingerprinter: Fingerprinter | None = None,
                 **fingerprint_options: Any) -> None:
        super().__init__(fingerprinter, **fingerprint_options)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer; got {k!r}")
        self.k = k

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "k": self.k, "ksentence_version": KSENTENCE_VERSION}

    def sentences(self, text: str) -> list[str]:
        """Normalised sentences (content tokens joined by spaces), empty ones left out."""
        tokenize = self.fingerprinter.tokens
        found = (" ".join(tokenize(part)) for part in _SENTENCE_END.split(text) if part)
        return [s for s in found if s]

    def signature(self, text: str) -> int | None:
        if len(self.fingerprinter.tokens(text)) < self.fingerprinter.min_tokens:
            return None
        longest = sorted(self.sentences(text), key=lambda s: (-len(s), s))[: self.k]
        return _digest64("\n".join(longest).encode("utf-8", "surrogatepass")) if longest else None


class MinHashDetector(_HashedDetector):
    """MinHash of word ``shingle_size``-shingles with LSH banding.

    Each shingle is hashed to 32 bits (BLAKE2b); permutation ``i`` is the universal hash
    ``(a_i * x + b_i) mod (2^61 - 1)`` with ``a_i, b_i`` drawn from BLAKE2b of
    ``"scrapy-simhash minhash <MINHASH_SEED> <i>"``, so signatures never depend on the process.
    The estimated Jaccard similarity (share of equal slots) has standard error
    ``sqrt(J (1 - J) / num_perm) <= 0.5 / sqrt(num_perm)``. Banding: ``bands`` x ``rows`` <=
    ``num_perm`` chosen to minimise the false positive + false negative probability mass around
    ``threshold`` (P(candidate) = 1 - (1 - s^rows)^bands); candidates are kept when their estimated
    Jaccard is at least ``threshold``.
    """

    name = "minhash"

    def __init__(self, threshold: float = 0.5, num_perm: int = 128, shingle_size: int = 3,
                 fingerprinter: Fingerprinter | None = None, **fingerprint_options: Any) -> None:
        super().__init__(fingerprinter, **fingerprint_options)
        if (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
                or not 0.0 < threshold < 1.0):
            raise ValueError(
                f"threshold must be a number strictly between 0 and 1; got {threshold!r}"
            )
        if isinstance(num_perm, bool) or not isinstance(num_perm, int) or not 2 <= num_perm <= 1024:
            raise ValueError(f"num_perm must be an integer from 2 to 1024; got {num_perm!r}")
        if isinstance(shingle_size, bool) or not isinstance(shingle_size, int) or shingle_size < 1:
            raise ValueError(f"shingle_size must be a positive integer; got {shingle_size!r}")
        self.threshold = float(threshold)
        self.num_perm = num_perm
        self.shingle_size = shingle_size
        self.band_count, self.rows = optimal_bands(self.threshold, num_perm)

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "threshold": self.threshold, "num_perm": self.num_perm,
                "shingle_size": self.shingle_size, "bands": self.band_count, "rows": self.rows,
                "minhash_seed": MINHASH_SEED}

    @cached_property
    def _permutations(self) -> tuple[np.ndarray, np.ndarray]:
        a = np.empty(self.num_perm, dtype=np.uint64)
        b = np.empty(self.num_perm, dtype=np.uint64)
        for i in range(self.num_perm):
            seed = blake2b(f"scrapy-simhash minhash {MINHASH_SEED} {i}".encode(), digest_size=16)
            digest = seed.digest()
            a[i] = int.from_bytes(digest[:8], "little") % (_MERSENNE_61 - 1) + 1
            b[i] = int.from_bytes(digest[8:], "little") % _MERSENNE_61
        return a, b

    def shingles(self, text: str) -> set[str]:
        """The distinct word shingles of ``text`` (normalised content tokens)."""
        tokens = self.fingerprinter.tokens(text)
        if len(tokens) < self.fingerprinter.min_tokens:
            return set()
        size = self.shingle_size
        if len(tokens) <= size:
            return {" ".join(tokens)}
        return {" ".join(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}

    def signature(self, text: str) -> np.ndarray | None:
        shingles = self.shingles(text)
        return self.signature_of_set(shingles) if shingles else None

    def signature_of_set(self, items: set[str]) -> np.ndarray:
        """The MinHash signature (``num_perm`` uint32) of a non-empty set of strings."""
        hashed = np.fromiter(
            (int.from_bytes(blake2b(s.encode("utf-8", "surrogatepass"), digest_size=4).digest(),
                            "little") for s in sorted(items)),
            dtype=np.uint64, count=len(items),
        )
        a, b = self._permutations
        return _min_hashes(hashed, a, b)

    def estimate(self, a: np.ndarray, b: np.ndarray) -> float:
        """Estimated Jaccard similarity of the two shingle sets."""
        return float(np.count_nonzero(a == b)) / self.num_perm

    def distance(self, a: np.ndarray, b: np.ndarray) -> float:
        return 1.0 - self.estimate(a, b)

    def match_distance(self, a: np.ndarray, b: np.ndarray) -> int | None:
        differing = self.num_perm - int(np.count_nonzero(a == b))
        return differing if self.estimate(a, b) >= self.threshold else None

    def bands(self, signature: np.ndarray) -> list[int]:
        rows = self.rows
        raw = signature.astype("<u4").tobytes()
        width = rows * 4
        return [_digest64(bytes([band & 0xFF]) + raw[band * width : (band + 1) * width])
                for band in range(self.band_count)]

    def to_bytes(self, signature: np.ndarray) -> bytes:
        return signature.astype("<u4").tobytes()

    def from_bytes(self, data: bytes) -> np.ndarray:
        return np.frombuffer(data, dtype="<u4").astype(np.uint32)

    def fingerprint_of(self, signature: np.ndarray) -> int:
        return _digest64(self.to_bytes(signature))


def _min_hashes(hashed: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min over x of ((a * x + b) mod (2^61 - 1)) for each permutation, truncated to 32 bits."""
    out = np.full(a.shape[0], np.iinfo(np.uint64).max, dtype=np.uint64)
    x = hashed[:, None]  # (n, 1), x < 2^32
    # a * x (a < 2^61, x < 2^32) would overflow 64 bits: a = a_high * 2^29 + a_low, each part
    # multiplied separately and reduced modulo the Mersenne prime (exact in uint64).
    a_high, a_low = a >> np.uint64(29), a & np.uint64((1 << 29) - 1)
    for start in range(0, hashed.shape[0], 4096):
        chunk = x[start : start + 4096]
        high = _mulmod_pow2((chunk * a_high) % np.uint64(_MERSENNE_61), 29)
        values = (high + chunk * a_low + b) % np.uint64(_MERSENNE_61)
        np.minimum(out, values.min(axis=0), out=out)
    return (out & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _mulmod_pow2(value: np.ndarray, shift: int) -> np.ndarray:
    """(value * 2^shift) mod (2^61 - 1) for value < 2^61, without leaving 64 bits."""
    p = np.uint64(_MERSENNE_61)
    # 2^61 = 1 (mod p): rotate the 61-bit value left by ``shift`` within 61 bits.
    s = np.uint64(shift)
    low_mask = np.uint64((1 << (61 - shift)) - 1)
    return (((value & low_mask) << s) | (value >> np.uint64(61 - shift))) % p


@lru_cache(maxsize=64)
def optimal_bands(threshold: float, num_perm: int,
                  weights: tuple[float, float] = (0.5, 0.5)) -> tuple[int, int]:
    """``(bands, rows)`` with ``bands * rows <= num_perm`` minimising the weighted error.

    The false-positive mass is the integral of P(candidate | s) for s below the threshold, the
    false-negative mass the integral of 1 - P(candidate | s) above it, with
    P(candidate | s) = 1 - (1 - s^rows)^bands; ``weights`` weigh the two.
    """
    below = np.linspace(0.0, threshold, 201)
    above = np.linspace(threshold, 1.0, 201)
    best, best_error = (1, num_perm), math.inf
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            fp = _integrate(1 - (1 - below**rows) ** bands, below)
            fn = _integrate((1 - above**rows) ** bands, above)
            error = weights[0] * fp + weights[1] * fn
            if error < best_error - 1e-12:
                best, best_error = (bands, rows), error
    return best


def _integrate(values: np.ndarray, grid: np.ndarray) -> float:
    return float(np.sum((values[1:] + values[:-1]) * np.diff(grid)) / 2)


# --------------------------------------------------------------------------- selection

_DETECTORS: dict[str, type[Detector]] = {
    "simhash": SimHashDetector,
    "minhash": MinHashDetector,
    "ksentence": KSentenceDetector,
    "exact": ExactDetector,
}


def get_detector(algorithm: str = DEFAULT_ALGORITHM, **options: Any) -> Detector:
    """The detector named ``algorithm`` (one of :data:`ALGORITHMS`), built with ``options``.

    Options are the detector's own (``threshold``, ``num_perm``, ``k`` ...) and the
    :class:`Fingerprinter` ones (``bits``, ``max_distance``, ``extractor``, ``min_tokens`` ...).
    """
    try:
        cls = _DETECTORS[algorithm]
    except (KeyError, TypeError):
        raise ValueError(
            f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}"
        ) from None
    return cls(**options)


def default_detector() -> Detector:
    """The detector a crawl with default settings uses."""
    return SimHashDetector()
