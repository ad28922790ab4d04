"""The evidence of many texts at once: :func:`scrapy_simhash.evidence.of_text` (as
:meth:`Detector.sign_text` weighs it) for a batch, with the same bytes.

One text at a time, the evidence of a short record costs more than its fingerprint (a dozen
numpy calls on small arrays); ``dedup`` signs thousands of records a second, so the texts of a
batch are hashed in one buffer: words, 3-grams and their distinct values found together, then
split (about half the time, measured on the offline benchmark's records).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from scrapy_simhash import evidence as ev

_U64 = np.uint64
_U32 = np.uint32
#: Characters hashed in one buffer: larger buffers leave the CPU caches (measured: 32K
#: characters as fast as 16K, 1M characters slower than one text at a time).
_BATCH_CHARS = 1 << 15


def text_evidence_many(texts: Sequence[str]) -> list[ev.Evidence]:
    """The evidence :meth:`Detector.sign_text` gives each text with a signature (weak under
    SHORT_WORDS words; its first line's title, which a long text's other lines may name), byte
    for byte."""
    out: list[ev.Evidence] = []
    for batch in _batches(texts):
        out += _evidence_of_batch(batch)
    return out


def _batches(texts: Sequence[str]) -> Iterator[Sequence[str]]:
    start, size = 0, 0
    for end, text in enumerate(texts):
        if size and size + len(text) > _BATCH_CHARS:
            yield texts[start:end]
            start, size = end, 0
        size += len(text) + 1
    if start < len(texts):
        yield texts[start:]


def _evidence_of_batch(texts: Sequence[str]) -> list[ev.Evidence]:
    folded = [text.casefold() for text in texts]
    # one buffer, the texts apart by a space (no word character: no word spans two texts)
    codes = np.frombuffer(" ".join(folded).encode("utf-32-le", "surrogatepass"), dtype=_U32)
    lengths = np.fromiter((len(text) for text in folded), dtype=np.int64, count=len(folded))
    text_starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    words, starts = ev.word_hashes(codes)
    owner = np.searchsorted(text_starts, starts, side="right") - 1  # each word's text
    counts = np.bincount(owner, minlength=len(texts))
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))  # each text's first word
    # 3-grams of three words of one text; a text of one or two words: their sum
    if len(words) >= ev.SHINGLE_WORDS:
        grams = ev.gram_hashes(words[:-2], words[1:-1], words[2:])
        gram_owner = owner[:-2]
        inside = gram_owner == owner[2:]
        grams, gram_owner = grams[inside], gram_owner[inside]
    else:
        grams, gram_owner = np.empty(0, dtype=_U64), np.empty(0, dtype=np.int64)
    few = np.flatnonzero((counts > 0) & (counts < ev.SHINGLE_WORDS))
    if len(few):
        at = first[few]
        second = words[np.minimum(at + 1, len(words) - 1)]
        with np.errstate(over="ignore"):
            sums = words[at] + np.where(counts[few] == 2, second, _U64(0))
        grams = np.concatenate((grams, ev.scramble(sums)))
        gram_owner = np.concatenate((gram_owner, few))
    # the distinct 3-grams of each text, sorted
    order = np.lexsort((grams, gram_owner))
    grams, gram_owner = grams[order], gram_owner[order]
    fresh = np.ones(len(grams), dtype=bool)
    fresh[1:] = (grams[1:] != grams[:-1]) | (gram_owner[1:] != gram_owner[:-1])
    grams, gram_owner = grams[fresh], gram_owner[fresh]
    sizes = np.bincount(gram_owner, minlength=len(texts))
    # bottom-k sketches: each text's smallest distinct top-32-bit values
    rank = np.arange(len(grams)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    low = rank < ev.SKETCH_SIZE * 2
    values, value_owner = (grams[low] >> _U64(32)).astype(_U32), gram_owner[low]
    fresh = np.ones(len(values), dtype=bool)
    fresh[1:] = (values[1:] != values[:-1]) | (value_owner[1:] != value_owner[:-1])
    values, value_owner = values[fresh], value_owner[fresh]
    kept = np.bincount(value_owner, minlength=len(texts))
    rank = np.arange(len(values)) - np.repeat(np.cumsum(kept) - kept, kept)
    values = values[rank < ev.SKETCH_SIZE]
    sketches = np.split(values, np.cumsum(np.minimum(kept, ev.SKETCH_SIZE))[:-1])
    out = []
    for i, (sketch, size, count, text) in enumerate(
            zip(sketches, sizes.tolist(), counts.tolist(), texts, strict=True)):
        if count < ev.SHORT_WORDS:
            out.append(ev.Evidence(sketch.copy(), size, count, True, title=ev.text_title(text),
                                   figures=ev.item_figures(text)))
            continue
        title = named = None
        end = text.find("\n", 0, ev.TITLE_MAX_CHARS + 1)
        if end >= 0:  # the words of the lines after the title (casefold keeps the newline)
            line = int(text_starts[i]) + folded[i].find("\n")
            own = slice(first[i], first[i] + count)
            title, named = ev.named_title(text[:end], words[own][starts[own] > line])
        out.append(ev.Evidence(sketch.copy(), size, count, title=title, named=named))
    return out
