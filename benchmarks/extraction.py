"""Main-text extraction: token P/R/F1 against ground truth, and pages/s, ours beside the peers.

Every page of ../shared/corpora with ground truth is extracted by each extractor in the same run:
full-text sources are scored with bag-of-tokens precision/recall/F1 (Latin-script words, single
CJK characters; per page, then macro-averaged per source, over all pages and over the Chinese
pages), trafilatura-eval with its must / must-not snippets (micro-averaged, as upstream).

The ground truths hold the article body without the headline (article-extraction-benchmark and
the Chinese set say so; Readability drops a headline that repeats the title), so every extractor
is scored on its body text: ours with ``include_title=False``. The row "builtin +headline" shows
what the headline costs in precision.

Speed: each extractor runs over all the pages from bytes (decoding included) ``--repeats`` times,
the passes of all extractors interleaved; pages/s is the median. "builtin from tree" times
``extract_main_text_from_tree`` on the trees parsel builds for Scrapy's ``response.selector``
beforehand (the crawl path: the response is already parsed, and the spider's callback reuses
the same tree). "builtin, Python only" is ours where the compiled module was not built.

    .venv/bin/python benchmarks/extraction.py [--repeats 5] [--only builtin,trafilatura]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from corpora import CHINESE, iter_pages
from parsel import Selector

from scrapy_simhash.extract import (
    builtin,
    extract_main_text,
    extract_main_text_from_tree,
    get_extractor,
    segment,
)
from scrapy_simhash.extract.parsing import to_text

FULL_TEXT_SOURCES = (
    "article-extraction-benchmark",
    "readability-test-pages",
    "chinese-web-content-extraction",
    "webmainbench-samples",
)
SNIPPET_SOURCE = "trafilatura-eval"
SHORT_SOURCE = {
    "article-extraction-benchmark": "aeb",
    "readability-test-pages": "readab",
    "chinese-web-content-extraction": "cwce",
    "webmainbench-samples": "wmb",
}

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_MD_LINK_RE = re.compile(r"\]\([^)]*\)")


def tokens(text: str) -> Counter:
    """Bag of tokens: lower-cased Latin-script words and single CJK characters."""
    return Counter(_TOKEN_RE.findall(text.lower()))


def prf(predicted: str, truth: str) -> tuple[float, float, float]:
    """Token-level precision, recall and F1 of one page."""
    pred, true = tokens(predicted), tokens(truth)
    overlap = sum((pred & true).values())
    n_pred, n_true = sum(pred.values()), sum(true.values())
    precision = overlap / n_pred if n_pred else 0.0
    recall = overlap / n_true if n_true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


@dataclass
class Page:
    source: str
    id: str
    lang: str
    html: bytes
    encoding: str | None
    url: str | None
    truth: str | None = None
    snippets: dict | None = None


@dataclass
class Result:
    name: str
    per_page: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    snippet_counts: Counter = field(default_factory=Counter)
    pages_per_s: float = 0.0


def load_pages() -> list[Page]:
    pages = []
    for page in iter_pages(FULL_TEXT_SOURCES, with_truth_text=True):
        truth = page.truth_text or ""
        if page.source == "webmainbench-samples":
            truth = _MD_LINK_RE.sub("]", truth)
        if tokens(truth):
            pages.append(
                Page(page.source, page.id, page.lang, page.html, page.encoding, page.url, truth)
            )
    for page in iter_pages([SNIPPET_SOURCE]):
        snippets = page.truth_snippets
        if snippets:
            pages.append(
                Page(page.source, page.id, page.lang, page.html, page.encoding, page.url,
                     snippets=snippets)
            )  # fmt: skip
    return pages


def score(name: str, outputs: dict[str, str], pages: list[Page]) -> Result:
    result = Result(name)
    for page in pages:
        output = outputs[page.id + page.source]
        if page.truth is not None:
            result.per_page[page.source + "/" + page.id] = prf(output, page.truth)
        else:
            squashed = _squash(output)
            for snippet in page.snippets.get("with", []):
                found = _squash(snippet) in squashed
                result.snippet_counts["tp" if found else "fn"] += 1
            for snippet in page.snippets.get("without", []):
                found = _squash(snippet) in squashed
                result.snippet_counts["fp" if found else "tn"] += 1
    return result


def run_all(
    extractors: dict[str, Callable[[Page], str]], pages: list[Page], repeats: int
) -> dict[str, tuple[dict[str, str], float]]:
    """Outputs and median pages/s of every extractor over ``repeats`` timed passes.

    The passes are interleaved (pass 1 of every extractor, then pass 2 ...) so that load from
    other processes on the machine falls on all extractors alike.
    """
    rates: dict[str, list[float]] = {name: [] for name in extractors}
    outputs: dict[str, dict[str, str]] = {name: {} for name in extractors}
    for repeat in range(repeats):
        for name, extract in extractors.items():
            started = time.perf_counter()
            for page in pages:
                outputs[name][page.id + page.source] = extract(page)
            rates[name].append(len(pages) / (time.perf_counter() - started))
            print(f"  pass {repeat + 1}: {name} {rates[name][-1]:.1f} pages/s", file=sys.stderr)
    return {name: (outputs[name], statistics.median(rates[name])) for name in extractors}


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def print_table(results: list[Result], pages: list[Page]) -> None:
    lang = {page.source + "/" + page.id: page.lang for page in pages}
    reference = next((r.pages_per_s for r in results if r.name == "trafilatura"), None)
    header = (
        f"{'extractor':<22} {'F1':>5} {'P':>5} {'R':>5} {'F1 zh':>6} {'F1 !zh':>6} "
        + " ".join(f"{SHORT_SOURCE[s]:>6}" for s in FULL_TEXT_SOURCES)
        + f" {'snipP':>5} {'snipR':>5} {'snipF':>5} {'pages/s':>8} {'x traf':>6}"
    )
    print(header)
    print("-" * len(header))
    for result in results:
        rows = result.per_page
        zh = [f for key, (_, _, f) in rows.items() if lang[key] == CHINESE]
        other = [f for key, (_, _, f) in rows.items() if lang[key] != CHINESE]
        by_source = [
            _mean([f for key, (_, _, f) in rows.items() if key.startswith(source + "/")])
            for source in FULL_TEXT_SOURCES
        ]
        counts = result.snippet_counts
        snip_p = counts["tp"] / (counts["tp"] + counts["fp"]) if counts["tp"] + counts["fp"] else 0
        snip_r = counts["tp"] / (counts["tp"] + counts["fn"]) if counts["tp"] + counts["fn"] else 0
        speedup = f"{result.pages_per_s / reference:6.1f}" if reference else f"{'':>6}"
        precision = _mean([r[0] for r in rows.values()])
        recall = _mean([r[1] for r in rows.values()])
        print(
            f"{result.name:<22} {_mean([r[2] for r in rows.values()]):5.3f} "
            f"{precision:5.3f} {recall:5.3f} "
            f"{_mean(zh):6.3f} {_mean(other):6.3f} "
            + " ".join(f"{value:6.3f}" for value in by_source)
            + f" {snip_p:5.3f} {snip_r:5.3f} {_f1(snip_p, snip_r):5.3f}"
            f" {result.pages_per_s:8.1f} {speedup}"
        )
    n_full = sum(1 for p in pages if p.truth is not None)
    n_zh = sum(1 for p in pages if p.truth is not None and p.lang == CHINESE)
    print(
        f"\n{n_full} full-text pages ({n_zh} zh), {len(pages) - n_full} snippet pages; "
        "F1/P/R: per-page token scores, macro mean; snippets: micro; pages/s over all pages."
    )


def python_only(extract: Callable[[Page], str]) -> Callable[[Page], str]:
    """``extract`` as it runs where the compiled module (``extract._speedups``) was not built."""

    def run(page: Page) -> str:
        saved = segment._compiled_walk, builtin._compiled_block_stats
        segment._compiled_walk = builtin._compiled_block_stats = None
        try:
            return extract(page)
        finally:
            segment._compiled_walk, builtin._compiled_block_stats = saved

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per extractor")
    parser.add_argument("--only", default="", help="comma-separated rows to run")
    parser.add_argument("--worst", type=int, default=0, help="list the N worst pages for ours")
    args = parser.parse_args(argv)

    pages = load_pages()
    peers = {name: get_extractor(name) for name in ("trafilatura", "readability", "resiliparse")}
    extractors: dict[str, Callable[[Page], str]] = {
        "builtin": lambda p: extract_main_text(p.html, p.encoding, p.url, include_title=False),
        "builtin +headline": lambda p: extract_main_text(p.html, p.encoding, p.url),
        "wholepage": lambda p: get_extractor("wholepage")(p.html, p.encoding, p.url),
    }
    extractors["builtin, Python only"] = python_only(extractors["builtin"])
    for name, peer in peers.items():
        extractors[name] = lambda p, peer=peer: peer(p.html, p.encoding, p.url)
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}

    if not wanted or "builtin from tree" in wanted:
        # The crawl path: the tree Scrapy's response.selector (parsel) has already built.
        trees = {
            page.id + page.source: Selector(text=to_text(page.html, page.encoding)).root
            for page in pages
        }
        extractors["builtin from tree"] = lambda p: extract_main_text_from_tree(
            trees[p.id + p.source], include_title=False
        )
    chosen = {name: fn for name, fn in extractors.items() if not wanted or name in wanted}

    results = []
    for name, (outputs, rate) in run_all(chosen, pages, args.repeats).items():
        result = score(name, outputs, pages)
        result.pages_per_s = rate
        results.append(result)

    print_table(results, pages)
    if args.worst:
        ours = next(r for r in results if r.name == "builtin")
        ranked = sorted(ours.per_page.items(), key=lambda item: item[1][2])[: args.worst]
        print(f"\nworst {args.worst} pages for builtin (P, R, F1):")
        for key, (p, r, f) in ranked:
            print(f"  {p:5.3f} {r:5.3f} {f:5.3f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
