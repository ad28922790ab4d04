"""What the evidence rule costs a page: time and bytes of the confirming 3-gram sketch.

For every page of the corpora, parsed beforehand (the crawl's workers get a parsed tree too):
the signature alone (extraction + SimHash, as before the evidence rule), the signature with its
evidence (``SimHashDetector.sign_tree``: one extraction, the 3-gram sketch of the main text, and
for weak pages the whole page's), and, as the peer, datasketch's MinHash (128 permutations) of
the same main text's word 3-grams, the usual way to confirm a candidate. Medians of
``--repeats`` passes, the three taking turns. Bytes are what the index stores per page.

    .venv/bin/python benchmarks/evidence.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from corpora import iter_pages
from datasketch import MinHash

from scrapy_simhash.detectors import SimHashDetector
from scrapy_simhash.extract import extract_main_text_from_tree, parse_html

SOURCES = [
    "article-extraction-benchmark",
    "readability-test-pages",
    "chinese-web-content-extraction",
    "multilang-pages",
]


def _peer(text: str) -> MinHash:
    words = text.lower().split()
    sketch = MinHash(num_perm=128)
    for i in range(max(1, len(words) - 2)):
        sketch.update(" ".join(words[i : i + 3]).encode())
    return sketch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    roots = [root for page in iter_pages(SOURCES)
             if (root := parse_html(page.html, page.encoding)) is not None]
    texts = [extract_main_text_from_tree(root, first_entry_only=False) for root in roots]
    detector = SimHashDetector()
    signed = [detector.sign_tree(root) for root in roots]
    runs: dict[str, list[float]] = {"signature": [], "signature + evidence": [],
                                    "peer: MinHash-128 of the 3-grams": []}
    for _ in range(args.repeats):
        started = time.perf_counter()
        for root in roots:
            detector.signature_tree(root)
        runs["signature"].append(time.perf_counter() - started)
        started = time.perf_counter()
        for root in roots:
            detector.sign_tree(root)
        runs["signature + evidence"].append(time.perf_counter() - started)
        started = time.perf_counter()
        for text in texts:
            _peer(text)
        runs["peer: MinHash-128 of the 3-grams"].append(time.perf_counter() - started)
    sizes = [len(s.evidence.to_bytes()) for s in signed if s.evidence is not None]
    weak = sum(1 for s in signed if s.evidence is not None and s.evidence.weak)
    print(f"{len(roots)} pages ({', '.join(SOURCES)}), median of {args.repeats} passes\n")
    print("| what | ms per page |\n|---|---:|")
    for name, seconds in runs.items():
        print(f"| {name} | {statistics.median(seconds) / len(roots) * 1000:.3f} |")
    extra = statistics.median(runs["signature + evidence"]) - statistics.median(runs["signature"])
    print(f"\nevidence: +{extra / len(roots) * 1000:.3f} ms a page; "
          f"{statistics.mean(sizes):.0f} bytes a page on average (max {max(sizes)}; "
          f"peer: 128 x 4 = 512 bytes); {weak} of {len(sizes)} pages weak")


if __name__ == "__main__":
    main()
