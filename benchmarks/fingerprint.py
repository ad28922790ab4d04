"""Fingerprint throughput: our Fingerprinter beside the PyPI ``simhash`` package on the same texts.

Texts are the ground-truth main texts of the corpora (what a crawl fingerprints after extraction),
English and Chinese separately. Every figure is the median of ``--repeats`` passes, the
implementations taking turns within each repeat. We keep no per-word cache: every pass hashes
every word, as a crawl does on first-seen text. Ours runs at its defaults (128 bits).

The peer (simhash 2.1.2) overflows under numpy 2 when one feature weighs more than 255 (its
uint8 bit array times the weight); ``PeerSimhash`` widens that array, on that rare path only.

    python benchmarks/fingerprint.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable

from corpora import iter_pages

from scrapy_simhash import Fingerprinter
from scrapy_simhash.simhash import simhash_of_hashes
from scrapy_simhash.text.hashing import token_hash_counts

SOURCES = {
    "en": ["article-extraction-benchmark", "readability-test-pages", "webmainbench-samples"],
    "zh": ["chinese-web-content-extraction", "readability-test-pages", "webmainbench-samples"],
}


def load_texts(lang: str) -> list[str]:
    return [
        page.truth_text
        for page in iter_pages(SOURCES[lang], with_truth_text=True)
        if page.lang == lang and len(page.truth_text) > 200
    ]


def peer_class() -> type:
    import numpy as np
    from simhash import Simhash

    class PeerSimhash(Simhash):
        def _bitarray_from_bytes(self, b: bytes) -> np.ndarray:
            return super()._bitarray_from_bytes(b).astype(np.int64)

    return PeerSimhash


def interleaved_medians(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds per implementation; each repeat runs every one in turn, so load hits all."""
    timings: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            timings[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import jieba

    peer = peer_class()

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    ours = Fingerprinter()
    ours.fingerprint_text("warm up the segmenter 预热分词器")

    print(f"{'lang':4} {'implementation':52} {'docs/s':>9} {'MB/s':>7} {'x peer':>7}")
    for lang in ("en", "zh"):
        texts = load_texts(lang)
        megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        counts = [token_hash_counts(t) for t in texts]
        jieba_tokens = [jieba.lcut(t) for t in texts]
        rows = measure(texts, counts, jieba_tokens, ours, peer, jieba, args.repeats)
        peer_seconds = next(iter(rows.values()))
        for name, seconds in rows.items():
            print(
                f"{lang:4} {name:52} {len(texts) / seconds:9.0f} {megabytes / seconds:7.2f} "
                f"{peer_seconds / seconds:7.1f}"
            )
        print(f"{lang:4} ({len(texts)} texts, {megabytes:.2f} MB, median of {args.repeats})")


def measure(texts, counts, jieba_tokens, ours, peer, jieba, repeats) -> dict[str, float]:
    """Median seconds per implementation; the first entry is the peer."""
    return interleaved_medians(
        {
            "simhash pkg: Simhash(text) (peer)": lambda: [peer(t) for t in texts],
            "simhash pkg: Simhash(jieba.lcut(text))": lambda: [peer(jieba.lcut(t)) for t in texts],
            "  of which jieba.lcut tokenisation": lambda: [jieba.lcut(t) for t in texts],
            "  of which Simhash(tokens) hashing": lambda: [peer(t) for t in jieba_tokens],
            "ours: Fingerprinter().fingerprint_text": lambda: [
                ours.fingerprint_text(t) for t in texts
            ],
            "  of which tokens -> hashes + counts": lambda: [
                token_hash_counts(t) for t in texts
            ],
            "  of which SimHash of the hashed counts": lambda: [
                simhash_of_hashes(h, c, ours.bits) for h, c in counts
            ],
        },
        repeats,
    )


if __name__ == "__main__":
    main()
