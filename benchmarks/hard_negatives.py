"""Hard negatives: how many DISTINCT pages of one site template a crawl loses as near duplicates.

Each family of :mod:`hardneg.families` (generated listings, market tables, forecasts, job ads,
client-rendered products, match results, Japanese and Korean notices, entity pages; and, when the
corpora are present, real articles in languages without a stop-word list and an "unknown
language") is crawled in page order: the first page is kept, and a page is LOST when it is judged
a near duplicate of any page kept before it. Every page of a family is distinct, so every loss is
a false positive. Three methods are compared:

- scrapy-simhash: the crawl's own judgement with default settings
  (``_crawl_signature`` of ``default_detector()``, then ``is_duplicate`` told whether the two
  URLs are on one site), so the figure follows the code as it changes;
- whole page: the PyPI ``simhash`` package (64 bits, its default features) over the page's whole
  visible text (navigation, sidebars and footer included; scripts left out), Hamming distance
  <= 3, the common peer;
- trafilatura + SimHash: the same peer over trafilatura's main text, k <= 3.

A page without text (or too little for the detector) has no signature and is never lost.

    python benchmarks/hard_negatives.py [--families listing,weather] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corpora import CorporaMissing, corpora_required
from hardneg.families import Family, corpus_families, generated_families, open_families
from hardneg.simulate import lost_in_order, visible_text

from scrapy_simhash.crawl.signing import _crawl_signature
from scrapy_simhash.detectors import default_detector
from scrapy_simhash.evidence import same_site, urls_part
from scrapy_simhash.extract import get_extractor

PEER_BITS = 64
PEER_K = 3
METHODS = ("scrapy-simhash", "whole page", "trafilatura")


@dataclass
class Result:
    family: str
    pages: int
    lost: dict[str, int] = field(default_factory=dict)
    lost_urls: dict[str, list[str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def peer_simhash() -> Callable[[str], int | None]:
    """The PyPI simhash package's 64-bit fingerprint of a text (None for a text without words)."""
    import numpy as np
    from simhash import Simhash

    class Peer(Simhash):
        # simhash 2.1.2 overflows its uint8 bit array under numpy 2 when a weight exceeds 255
        def _bitarray_from_bytes(self, b: bytes) -> np.ndarray:
            return super()._bitarray_from_bytes(b).astype(np.int64)

    def sign(text: str) -> int | None:
        return Peer(text, f=PEER_BITS).value if text.strip() else None

    return sign


def measure(name: str, family: Family) -> Result:
    result = Result(name, len(family))
    detector = default_detector()
    peer = peer_simhash()
    trafilatura = get_extractor("trafilatura")

    def within(a: int, b: int) -> bool:
        return (a ^ b).bit_count() <= PEER_K

    def crawl_signature(url: str, html: str | bytes) -> tuple[str, Any] | None:
        signed = _crawl_signature(detector, html, url, "html")
        return None if signed is None else (url, signed)

    def crawl_duplicate(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
        # as the crawl judges a candidate: with whether the two pages are on one site
        return not urls_part(a[0], b[0], getattr(a[1], "evidence", None),
                             getattr(b[1], "evidence", None)) and detector.is_duplicate(
            a[1], b[1], same_site(a[0], b[0]))

    runs: dict[str, tuple[Callable[[str, str | bytes], Any], Callable[[Any, Any], bool]]] = {
        "scrapy-simhash": (crawl_signature, crawl_duplicate),
        "whole page": (lambda url, html: peer(visible_text(html)), within),
        "trafilatura": (lambda url, html: peer(trafilatura(html, None, url)), within),
    }
    for method, (sign, duplicate) in runs.items():
        started = time.perf_counter()
        signatures = [sign(url, html) for url, html in family]
        lost = lost_in_order(signatures, duplicate)
        result.seconds[method] = round(time.perf_counter() - started, 2)
        result.lost[method] = len(lost)
        result.lost_urls[method] = [family[i][0] for i in lost]
    return result


def print_table(results: Sequence[Result], note: str = "") -> None:
    header = f"{'family':<22} {'pages':>5}  " + "  ".join(f"{m:>14}" for m in METHODS)
    print(header)
    print("-" * len(header))
    for r in results:
        cells = "  ".join(f"{r.lost[m]:>14}" for m in METHODS)
        print(f"{r.family:<22} {r.pages:>5}  {cells}")
    print("-" * len(header))
    pages = sum(r.pages for r in results)
    totals = "  ".join(f"{sum(r.lost[m] for r in results):>14}" for m in METHODS)
    print(f"{'total':<22} {pages:>5}  {totals}")
    print(f"\npages LOST (a distinct page judged a near duplicate of one kept before it); "
          f"whole page and trafilatura: PyPI simhash {PEER_BITS} bits, k={PEER_K}")
    if note:
        print(note)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", default="", help="comma-separated names (default: all)")
    parser.add_argument("--json", type=Path, help="write every figure and lost URL here")
    parser.add_argument("--lost", action="store_true", help="list the URLs each method lost")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    started = time.perf_counter()

    families = generated_families()
    note = ""
    try:
        families.update(corpus_families())
    except CorporaMissing as missing:
        if corpora_required():
            raise
        note = f"corpus families left out: {missing}"
    opened = open_families()
    wanted = [n for n in args.families.split(",") if n]
    if wanted:
        unknown = sorted(set(wanted) - set(families) - set(opened))
        if unknown:
            parser.error(f"unknown families: {', '.join(unknown)}")
        families = {n: families[n] for n in wanted if n in families}

    results = [measure(name, family) for name, family in families.items()]
    print_table(results, note)
    opened = {name: family for name, family in opened.items() if not wanted or name in wanted}
    if opened:
        print("\nopen shapes (distinct pages the rules still lose, docs/thresholds.md):")
        open_results = [measure(name, family) for name, family in opened.items()]
        print_table(open_results)
        results += open_results
    if args.lost:
        for r in results:
            for method in METHODS:
                for url in r.lost_urls[method]:
                    print(f"  {r.family:<22} {method:<14} {url}")
    elapsed = time.perf_counter() - started
    print(f"({elapsed:.0f} s)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(
            {"results": [asdict(r) for r in results], "note": note,
             "peer": {"bits": PEER_BITS, "k": PEER_K}, "seconds": round(elapsed, 1)},
            indent=1, ensure_ascii=False))
        print(f"results: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
