"""Detection quality: precision, recall and F1 of every detector on labelled pairs of real pages.

Pairs come from :func:`evaluation.build_pairs` (English and Chinese, positives and
negatives of several kinds, built from ../shared/corpora). For every method and setting the script
prints, per language: precision, recall, F1 and the false positives counted explicitly (a false
positive is a page the crawl would lose), recall per positive kind and false positives per negative
kind, and the speed (signatures per second over the extracted texts, median of ``--repeats``;
extraction speed is printed separately). It draws the distance distributions of positives vs
negatives per method to ``benchmarks/out/quality-<lang>.png`` and writes every figure to
``benchmarks/out/quality.json``.

    python benchmarks/quality.py [--langs en,zh] [--repeats 3] [--extractors builtin,...]

The peer is the PyPI ``simhash`` package (its default features, Hamming distance 3) on the same
texts, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import Any

from evaluation import (
    NEGATIVE_KINDS,
    POSITIVE_KINDS,
    LabelledPair,
    build_pairs,
    count_kinds,
    score_decisions,
)

from scrapy_simhash.detectors import (
    Detector,
    ExactDetector,
    KSentenceDetector,
    MinHashDetector,
)
from scrapy_simhash.extract import get_extractor
from scrapy_simhash.fingerprint import Fingerprinter

OUT = Path(__file__).resolve().parent / "out"
SPEED_SAMPLE = 300  # texts per language timed for signatures/s


@dataclass
class Method:
    """One detector setting: how to sign a text and how to decide on a pair of signatures."""

    name: str
    extractor: str
    sign: Callable[[str], Any]
    distance: Callable[[Any, Any], float]
    # (setting label, decide(sig_a, sig_b) -> bool); several settings share one signature run
    settings: list[tuple[str, Callable[[Any, Any], bool]]]
    family: str = ""
    plot: bool = False
    distance_label: str = "distance"


@dataclass
class Row:
    lang: str
    method: str
    setting: str
    extractor: str
    tp: int
    fp: int
    tn: int
    fn: int
    precision: float
    recall: float
    f1: float
    per_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    signatures_per_s: float = 0.0


# --------------------------------------------------------------------------- methods


def _hamming_settings(bits: int, detector_k: Sequence[int]) -> list[tuple[str, Callable]]:
    def within(k: int) -> Callable[[Any, Any], bool]:
        return lambda a, b: a is not None and b is not None and (a ^ b).bit_count() <= k

    return [(f"k={k}", within(k)) for k in detector_k]


def simhash_method(extractor: str, bits: int, features: str, weighting: str,
                   ks: Sequence[int], plot: bool = False, **options: Any) -> Method:
    fp = Fingerprinter(bits, 0, features=features, weighting=weighting, **options)
    extra = "".join(f" {k}={v}" for k, v in options.items())
    return Method(
        name=f"simhash {bits} {features} {weighting}{extra}",
        extractor=extractor,
        sign=fp.fingerprint_text,
        distance=lambda a, b: (a ^ b).bit_count(),
        settings=_hamming_settings(bits, ks),
        family="simhash",
        plot=plot,
        distance_label="Hamming distance",
    )


def hashed_method(detector: Detector, label: str, extractor: str) -> Method:
    return Method(
        name=label,
        extractor=extractor,
        sign=detector.signature,
        distance=lambda a, b: detector.distance(a, b),
        settings=[("equal", detector.is_duplicate)],
        family=detector.name,
    )


def minhash_method(extractor: str, thresholds: Sequence[float], shingle_size: int = 3,
                   plot: bool = False) -> Method:
    detectors = [MinHashDetector(t, shingle_size=shingle_size) for t in thresholds]
    base = detectors[0]

    def decide_with(det: MinHashDetector) -> Callable[[Any, Any], bool]:
        def decide(a: Any, b: Any) -> bool:
            if a is None or b is None:
                return False
            shares_band = bool(set(enumerate(det.bands(a))) & set(enumerate(det.bands(b))))
            return shares_band and det.estimate(a, b) >= det.threshold

        return decide

    return Method(
        name=f"minhash {base.num_perm} perm, {shingle_size}-word shingles",
        extractor=extractor,
        sign=base.signature,  # the signature does not depend on the threshold
        distance=lambda a, b: 1 - base.estimate(a, b),
        settings=[(f"J>={d.threshold:g} (b={d.band_count},r={d.rows})", decide_with(d))
                  for d in detectors],
        family="minhash",
        plot=plot,
        distance_label="1 - estimated Jaccard",
    )


def two_stage_method(extractor: str, first_k: Sequence[int], confirm: float) -> Method:
    """SimHash 64-bit words within k, confirmed by MinHash estimated Jaccard >= ``confirm``."""
    fp = Fingerprinter(64, 0)
    minhash = MinHashDetector(confirm)

    def sign(text: str) -> Any:
        first = fp.fingerprint_text(text)
        return None if first is None else (first, minhash.signature(text))

    def decide_with(k: int) -> Callable[[Any, Any], bool]:
        def decide(a: Any, b: Any) -> bool:
            if a is None or b is None or (a[0] ^ b[0]).bit_count() > k:
                return False
            return a[1] is not None and b[1] is not None and minhash.estimate(a[1], b[1]) >= confirm

        return decide

    return Method(
        name=f"two-stage simhash 64 words + minhash J>={confirm:g}",
        extractor=extractor,
        sign=sign,
        distance=lambda a, b: (a[0] ^ b[0]).bit_count(),
        settings=[(f"k={k}", decide_with(k)) for k in first_k],
        family="two-stage",
    )


def peer_method(extractor: str) -> Method:
    import numpy as np
    from simhash import Simhash

    class Peer(Simhash):
        # simhash 2.1.2 overflows its uint8 bit array under numpy 2 when a weight exceeds 255
        def _bitarray_from_bytes(self, b: bytes) -> np.ndarray:
            return super()._bitarray_from_bytes(b).astype(np.int64)

    def sign(text: str) -> int | None:
        return Peer(text).value if text.strip() else None

    return Method(
        name="peer: PyPI simhash (char 4-grams)",
        extractor=extractor,
        sign=sign,
        distance=lambda a, b: (a ^ b).bit_count(),
        settings=_hamming_settings(64, range(0, 13)),
        family="peer",
        distance_label="Hamming distance",
    )


def all_methods(extractors: Sequence[str], quick: bool) -> list[Method]:
    k64, k128 = list(range(0, 17)), list(range(0, 41, 2))
    methods: list[Method] = []
    main = extractors[0]
    grid = [("words", "tf"), ("words", "tfidf"), ("words", "logtf"), ("shingles", "tf"),
            ("chars", "tf")]
    if quick:
        grid = grid[:1]
    for features, weighting in grid:
        for bits, ks in ((64, k64), (128, k128)):
            plot = features == "words" and weighting == "tf"
            methods.append(simhash_method(main, bits, features, weighting, ks, plot=plot))
    for other in extractors[1:]:
        methods.append(simhash_method(other, 64, "words", "tf", k64, plot=True))
        methods.append(simhash_method(other, 128, "words", "tf", k128))
    methods.append(minhash_method(main, (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9), plot=True))
    if not quick:
        methods.append(minhash_method(main, (0.3, 0.5, 0.7), shingle_size=1))
    for k in (1, 3, 5):
        methods.append(hashed_method(KSentenceDetector(k), f"ksentence K={k}", main))
    methods.append(hashed_method(ExactDetector(), "exact (normalised main text)", main))
    methods.append(two_stage_method(main, range(3, 17), 0.5))
    methods.append(two_stage_method(main, range(3, 17), 0.3))
    for ex in extractors:
        methods.append(peer_method(ex))
    return methods


# --------------------------------------------------------------------------- running


def _doc_key(html: bytes, encoding: str | None) -> str:
    return blake2b(html + (encoding or "").encode(), digest_size=12).hexdigest()


def collect_documents(pairs: Sequence[LabelledPair]) -> dict[str, tuple[bytes, str | None, str]]:
    docs: dict[str, tuple[bytes, str | None, str]] = {}
    for pair in pairs:
        for html, enc, url in ((pair.a_html, pair.encodings[0], pair.a_url),
                               (pair.b_html, pair.encodings[1], pair.b_url)):
            docs.setdefault(_doc_key(html, enc), (html, enc, url or ""))
    return docs


def extract_all(docs: dict[str, tuple[bytes, str | None, str]], extractor: str
                ) -> tuple[dict[str, str], float]:
    extract = get_extractor(extractor)
    texts = {}
    start = time.perf_counter()
    for key, (html, enc, url) in docs.items():
        try:
            texts[key] = extract(html, enc, url) or ""
        except Exception as error:  # a failing peer extractor counts as no text
            logging.warning("%s failed on a page: %s", extractor, error)
            texts[key] = ""
    elapsed = time.perf_counter() - start
    return texts, len(docs) / elapsed if elapsed else math.inf


def signatures_per_second(method: Method, texts: Sequence[str], repeats: int) -> float:
    sample = list(texts)[:SPEED_SAMPLE]
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        for text in sample:
            method.sign(text)
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings)
    return len(sample) / median if median else math.inf


def evaluate(method: Method, pairs: Sequence[LabelledPair], texts: dict[str, str],
             repeats: int, lang: str) -> tuple[list[Row], dict[str, list[float]]]:
    signatures = {key: method.sign(text) for key, text in texts.items()}
    keyed = [(p, signatures[_doc_key(p.a_html, p.encodings[0])],
              signatures[_doc_key(p.b_html, p.encodings[1])]) for p in pairs]
    distances: dict[str, list[float]] = {"positive": [], "negative": [], "missing": []}
    for pair, a, b in keyed:
        if a is None or b is None:
            distances["missing"].append(1.0 if pair.label else 0.0)
            continue
        distances["positive" if pair.label else "negative"].append(method.distance(a, b))
    speed = signatures_per_second(method, list(texts.values()), repeats)
    rows = []
    for setting, decide in method.settings:
        overall, per_kind = score_decisions((p.kind, p.label, decide(a, b)) for p, a, b in keyed)
        rows.append(Row(
            lang=lang, method=method.name, setting=setting, extractor=method.extractor,
            tp=overall.tp, fp=overall.fp, tn=overall.tn, fn=overall.fn,
            precision=overall.precision, recall=overall.recall, f1=overall.f1,
            per_kind={k: {"tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn}
                      for k, c in per_kind.items()},
            signatures_per_s=speed,
        ))
    return rows, distances


def best_safe(rows: Sequence[Row]) -> Row:
    """The setting with the best F1 among those with zero false positives (else the best F1)."""
    safe = [r for r in rows if r.fp == 0]
    return max(safe or rows, key=lambda r: (r.f1, -rows.index(r)))


# --------------------------------------------------------------------------- output


def print_summary(rows: list[Row], langs: Sequence[str], extract_speed: dict) -> None:
    print("\n## Best zero-false-positive setting of each method (per language)\n")
    header = "| method | extractor | lang | setting | P | R | F1 | FP | FN | sig/s |"
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.method, row.extractor, row.lang), []).append(row)
    for (method, extractor, lang), group in groups.items():
        r = best_safe(group)
        print(f"| {method} | {extractor} | {lang} | {r.setting} | {r.precision:.3f} | "
              f"{r.recall:.3f} | {r.f1:.3f} | {r.fp} | {r.fn} | {r.signatures_per_s:,.0f} |")
    print("\nExtraction speed (pages/s, one pass over the pair documents):")
    for (lang, extractor), speed in sorted(extract_speed.items()):
        print(f"  {lang} {extractor}: {speed:,.0f}")


def print_detail(rows: list[Row], method: str, extractor: str, lang: str) -> None:
    chosen = [r for r in rows if r.method == method and r.extractor == extractor and r.lang == lang]
    if not chosen:
        return
    kinds = [k for k in (*POSITIVE_KINDS, *NEGATIVE_KINDS) if k in chosen[0].per_kind]
    print(f"\n### {method} [{extractor}] {lang}: every setting (recall per positive kind, "
          "false positives per negative kind)\n")
    short = [k.replace("same_article_template", "template").replace("_", " ") for k in kinds]
    print("| setting | P | R | F1 | FP | " + " | ".join(short) + " |")
    print("|---" * (5 + len(kinds)) + "|")
    for r in chosen:
        cells = []
        for kind in kinds:
            c = r.per_kind[kind]
            if kind in POSITIVE_KINDS:
                cells.append(f"{c['tp'] / max(1, c['tp'] + c['fn']):.2f}")
            else:
                cells.append(f"{c['fp']}/{c['fp'] + c['tn']}")
        print(f"| {r.setting} | {r.precision:.3f} | {r.recall:.3f} | {r.f1:.3f} | {r.fp} | "
              + " | ".join(cells) + " |")


def plot_distributions(distributions: dict[str, dict[str, list[float]]], lang: str,
                       labels: dict[str, str]) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = list(distributions)
    cols = 2
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(12, 3.2 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        data = distributions[name]
        values = data["positive"] + data["negative"]
        if not values:
            continue
        top = max(values)
        bins = 40 if top <= 1.0 else range(0, int(top) + 2)
        for side, color in (("negative", "tab:red"), ("positive", "tab:blue")):
            ax.hist(data[side], bins=bins, alpha=0.6, color=color,
                    label=f"{side}s ({len(data[side])})")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(labels.get(name, "distance"), fontsize=8)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle(f"Distance of positive vs negative pairs ({lang})")
    fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"quality-{lang}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--extractors", default="builtin,trafilatura,wholepage",
                        help="the first one is used for every method; the others for SimHash")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="fewer SimHash feature settings")
    parser.add_argument("--detail", default="simhash 128 words tf,simhash 64 words tf",
                        help="methods (of the first extractor) whose every setting is printed")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    langs = args.langs.split(",")
    extractors = args.extractors.split(",")

    started = time.perf_counter()
    pairs = build_pairs(langs=langs, seed=args.seed)
    print(f"{len(pairs)} pairs built in {time.perf_counter() - started:.1f} s")
    for (lang, kind), n in count_kinds(pairs).items():
        print(f"  {lang} {kind:<22} {'+' if kind in POSITIVE_KINDS else '-'} {n}")

    methods = all_methods(extractors, args.quick)
    rows: list[Row] = []
    extract_speed: dict[tuple[str, str], float] = {}
    for lang in langs:
        lang_pairs = [p for p in pairs if p.lang == lang]
        docs = collect_documents(lang_pairs)
        texts_by_extractor = {}
        for extractor in extractors:
            texts_by_extractor[extractor], extract_speed[lang, extractor] = extract_all(
                docs, extractor)
        distributions: dict[str, dict[str, list[float]]] = {}
        labels: dict[str, str] = {}
        for method in methods:
            t0 = time.perf_counter()
            method_rows, distances = evaluate(method, lang_pairs,
                                              texts_by_extractor[method.extractor],
                                              args.repeats, lang)
            rows.extend(method_rows)
            if method.plot:
                title = f"{method.name} [{method.extractor}]"
                distributions[title] = distances
                labels[title] = method.distance_label
            print(f"  {lang} {method.name} [{method.extractor}] "
                  f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
        path = plot_distributions(distributions, lang, labels)
        if path:
            print(f"distance distributions ({lang}): {path}")

    print_summary(rows, langs, extract_speed)
    for name in args.detail.split(","):
        for lang in langs:
            print_detail(rows, name, extractors[0], lang)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "quality.json").write_text(json.dumps([r.__dict__ for r in rows], indent=1))
    print(f"\nall rows: {OUT / 'quality.json'}  ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
