"""Why the crawl misses "the same article in another site's template", and what it wrongly drops.

For every ``same_article_template`` pair of :func:`evaluation.build_pairs` that the crawl's
judgement (``scrapy-simhash`` in ``pairs.py``: SimHash distance within the default threshold,
then the evidence rule) misses, and every false positive of any kind, prints the sites of the
two pages, the token F1 (precision / recall) of each page's main text against page A's ground
truth (the ``prf`` of the extraction benchmarks), the Hamming distance of the two fingerprints
and whether the evidence confirms; then a table of the misses by cause:

- ``A cut short``: A's main text misses a good part of its article (recall < 0.9);
- ``A extra text``: A's main text carries text that is not the article (precision < 0.9);
- ``B wrong``: the transplanted copy's main text takes in the template's text or loses part of
  the article (B's F1 < 0.9);
- ``distance over``: both extractions are fine, the fingerprints are just too far apart;
- ``evidence refused``: within the distance, the evidence rule said no;
- ``no signature``: a page without a signature (no main text found).

    python benchmarks/template_misses.py [--langs en,zh] [--per-kind 100] [--seed 0] [--all]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass

from evaluation import build_pairs
from evaluation.pairs import _load_pages
from extraction import prf
from scrapy.http import HtmlResponse

from scrapy_simhash.crawl.signing import _crawl_signature
from scrapy_simhash.detectors import Signed, SimHashDetector, default_detector
from scrapy_simhash.extract import extraction_from_tree
from scrapy_simhash.simhash import hamming_distance

KIND = "same_article_template"
#: Below this token precision / recall / F1 an extraction is "wrong" for the classification.
FINE = 0.9
CAUSES = ("A cut short", "A extra text", "B wrong", "distance over", "evidence refused",
          "no signature")


@dataclass
class Judged:
    """One pair as the crawl judges it, with what explains the decision."""

    kind: str
    lang: str
    said: bool
    label: bool
    a_id: str
    b_id: str
    a_site: str
    b_site: str
    a_prf: tuple[float, float, float]
    b_prf: tuple[float, float, float]
    distance: int | None
    confirmed: bool | None
    within: bool  # the fingerprints within the detector's distance
    same_title: bool

    @property
    def cause(self) -> str:
        if self.distance is None:
            return "no signature"
        if self.a_prf[1] < FINE:
            return "A cut short"
        if self.a_prf[0] < FINE:
            return "A extra text"
        if self.b_prf[2] < FINE:
            return "B wrong"
        if not self.confirmed and self.within:
            return "evidence refused"
        return "distance over"


def read(html: bytes, url: str) -> tuple[str, str]:
    """(headline, body) of the crawl's extraction (the body as the benchmarks score it)."""
    root = HtmlResponse(url, body=html).selector.root
    extraction = extraction_from_tree(root)
    if extraction.article is None:
        return "", extraction.text
    return extraction.article.title, extraction.article.text(include_title=False)


def _site(url: str | None) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "?").removeprefix("www.") if url else "?"


def judge_all(langs: list[str], per_kind: int, everything: bool, seed: int = 0) -> list[Judged]:
    """The pairs the crawl gets wrong (or every template pair and false positive if
    ``everything``), judged as ``pairs.py``'s ``scrapy-simhash`` row judges them."""
    detector: SimHashDetector = default_detector()
    truth = {page.uid: "\n".join(page.paragraphs) for page in _load_pages(None)}
    judged = []
    for pair in build_pairs(langs=langs, per_kind=per_kind, seed=seed):
        a_url, b_url = pair.a_url or "http://localhost/a", pair.b_url or "http://localhost/b"
        a = _crawl_signature(detector, pair.a_html, a_url, "html")
        b = _crawl_signature(detector, pair.b_html, b_url, "html")
        said = detector.is_duplicate(a, b)
        wanted = pair.kind == KIND and (everything or not said)
        if not (wanted or (said and not pair.label)):
            continue
        reference = truth.get(pair.a_id, "")
        signed = isinstance(a, Signed) and isinstance(b, Signed)
        has_both = signed and a.signature is not None and b.signature is not None
        (a_title, a_body), (b_title, b_body) = read(pair.a_html, a_url), read(pair.b_html, b_url)
        judged.append(Judged(
            kind=pair.kind, lang=pair.lang, said=said, label=pair.label,
            a_id=pair.a_id, b_id=pair.b_id, a_site=_site(a_url), b_site=_site(b_url),
            a_prf=prf(a_body, reference), b_prf=prf(b_body, reference),
            same_title=a_title == b_title,
            distance=hamming_distance(a.signature, b.signature) if has_both else None,
            confirmed=detector.confirms(a.evidence, b.evidence) if has_both else None,
            within=has_both and detector.fingerprinter.is_near_duplicate(a.signature, b.signature),
        ))
    return judged


def _prf(values: tuple[float, float, float]) -> str:
    return f"{values[2]:.2f} ({values[0]:.2f}/{values[1]:.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--per-kind", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="another draw of the pairs")
    parser.add_argument("--all", action="store_true",
                        help="list every template pair, detected or not")
    args = parser.parse_args()
    langs = args.langs.split(",")
    judged = judge_all(langs, args.per_kind, args.all, args.seed)
    print("| lang | kind | said | A site | B site | A F1 (P/R) | B F1 (P/R) | distance "
          "| evidence | headlines | cause | A |")
    print("|---|---|---|---|---|---|---|---:|---|---|---|---|")
    for row in sorted(judged, key=lambda r: (r.lang, r.kind, r.said, r.a_id)):
        cause = row.cause if row.label and not row.said else ("false positive" if not row.label
                                                              else "detected")
        evidence = "-" if row.confirmed is None else ("yes" if row.confirmed else "no")
        distance = "-" if row.distance is None else str(row.distance)
        print(f"| {row.lang} | {row.kind} | {row.said} | {row.a_site} | {row.b_site} "
              f"| {_prf(row.a_prf)} | {_prf(row.b_prf)} | {distance} | {evidence} "
              f"| {'same' if row.same_title else 'differ'} | {cause} "
              f"| {row.a_id} |")
    misses = [r for r in judged if r.kind == KIND and not r.said]
    print(f"\nmissed {KIND} pairs by cause (max distance {default_detector().max_distance}):\n")
    print("| cause | " + " | ".join(langs) + " |")
    print("|---|" + "---:|" * len(langs))
    counts = Counter((r.lang, r.cause) for r in misses)
    for cause in CAUSES:
        print(f"| {cause} | " + " | ".join(str(counts[(lang, cause)]) for lang in langs) + " |")
    print("| total | " + " | ".join(str(sum(r.lang == lang for r in misses)) for lang in langs)
          + " |")
    false_positives = [r for r in judged if not r.label]
    print(f"\nfalse positives: {len(false_positives)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
