"""Near-duplicate pairs judged as a crawl judges them: ``is_near_duplicate`` on whole pages.

Labelled pairs of full HTML documents from :func:`evaluation.build_pairs` (the same
article in another site's template, edited, with an added block of links, behind a tracking URL,
with a changing template; negatives from one template, one site, or unrelated), judged by:

- scrapy-simhash: the crawl's signature of each page (``_crawl_signature``, what
  ``is_near_duplicate`` compares) and ``is_duplicate``: the SimHash distance within the default
  threshold and the evidence confirming it, as ``is_near_duplicate(html_a, html_b)`` judges
  pages of unknown URLs; "URLs given" as a crawl judges them, knowing whether the two pages are
  on one site;
- fingerprint only: the same fingerprints by distance alone, as before the evidence rule;
- whole page and trafilatura: the PyPI ``simhash`` package (64 bits, k <= 3) over the page's
  visible text, or trafilatura's main text (the peers of ``hard_negatives.py``).

Prints precision, recall and F1 per language and method, the positives missed per kind and the
false positives (pages a crawl would lose) per kind.

    python benchmarks/pairs.py [--langs en,zh] [--per-kind 100]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from evaluation import build_pairs
from hard_negatives import PEER_K, peer_simhash
from hardneg.simulate import visible_text

from scrapy_simhash.crawl.signing import _crawl_signature
from scrapy_simhash.detectors import default_detector
from scrapy_simhash.evidence import same_site
from scrapy_simhash.extract import get_extractor

METHODS = ("scrapy-simhash", "scrapy-simhash, URLs given", "fingerprint only", "whole page",
           "trafilatura")


def judges() -> dict[str, tuple[Callable[[bytes, str], Any], Callable[..., bool]]]:
    """Each method: (sign a page, judge two signatures; ``same_site`` is given to those that
    take it)."""
    detector = default_detector()
    peer = peer_simhash()
    trafilatura = get_extractor("trafilatura")

    def crawl(html: bytes, url: str) -> Any:
        return _crawl_signature(detector, html, url, "html")

    def peer_within(a: int | None, b: int | None) -> bool:
        return a is not None and b is not None and (a ^ b).bit_count() <= PEER_K

    return {
        "scrapy-simhash": (crawl, detector.is_duplicate),
        "scrapy-simhash, URLs given": (crawl, detector.is_duplicate),
        "fingerprint only": (
            crawl,
            lambda a, b: detector.is_duplicate(
                a and a.signature, b and b.signature  # (None: a page the crawl never reads)
            ),
        ),
        "whole page": (lambda html, url: peer(visible_text(html)), peer_within),
        "trafilatura": (lambda html, url: peer(trafilatura(html, None, url)), peer_within),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--per-kind", type=int, default=100)
    args = parser.parse_args()
    started = time.perf_counter()
    pairs = build_pairs(langs=args.langs.split(","), per_kind=args.per_kind)
    methods = judges()
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    missed: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for pair in pairs:
        for name, (sign, judge) in methods.items():
            a = sign(pair.a_html, pair.a_url or "http://localhost/a")
            b = sign(pair.b_html, pair.b_url or "http://localhost/b")
            if name == "scrapy-simhash, URLs given":
                said = judge(a, b, same_site(pair.a_url, pair.b_url))
            else:
                said = judge(a, b)
            counts[(pair.lang, name)][("tp" if said else "fn") if pair.label
                                      else ("fp" if said else "tn")] += 1
            if said != pair.label:
                missed[(pair.lang, name)][pair.kind] += 1
    print(f"{len(pairs)} pairs ({args.langs}), {time.perf_counter() - started:.0f} s\n")
    print("| lang | method | P | R | F1 | FP | missed positives / false positives by kind |")
    print("|---|---|---:|---:|---:|---:|---|")
    for lang in args.langs.split(","):
        for name in METHODS:
            c = counts[(lang, name)]
            precision = c["tp"] / max(1, c["tp"] + c["fp"])
            recall = c["tp"] / max(1, c["tp"] + c["fn"])
            f1 = 2 * c["tp"] / max(1, 2 * c["tp"] + c["fp"] + c["fn"])
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(missed[(lang, name)].items()))
            print(f"| {lang} | {name} | {precision:.3f} | {recall:.3f} | {f1:.3f} | {c['fp']} "
                  f"| {kinds or '-'} |")


if __name__ == "__main__":
    sys.exit(main())
