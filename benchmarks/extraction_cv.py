"""Main-text extraction cross-validated by site: held-out F1 of ours beside the peers.

A rule tuned on the pages it was written for can score well there and worse on unseen pages. So
the ground-truth pages of ../shared/corpora (those benchmarks/extraction.py scores) are split
into K folds BY SITE: every page of one site (the manifest URL's registered domain; for pages
without a URL, the id's site prefix or the domain most linked from the page) falls in one fold,
so a held-out fold holds only sites that no other fold has.

Without ``--tune`` the extractor is fixed and every page is scored once, as part of its fold.
With ``--tune builtin.NAME=a,b,...`` (repeatable: the grid is the product) each fold is scored
with the setting that does best on the OTHER folds, so its figure is a held-out one; the table
also shows every candidate on every fold and how many sites each one moves up or down, the
check that a rule helps in most folds and many sites rather than a few pages of one site.

Scores: per-page token F1 for full-text pages (as benchmarks/extraction.py), per-page snippet F1
for trafilatura-eval (must / must-not snippets); a fold's and a source's figures are means over
their pages. The peers' outputs are cached in benchmarks/out/ (they do not change between runs).

    .venv/bin/python benchmarks/extraction_cv.py [--folds 5] [--tune builtin.NAME=1,0] [--sites]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import itertools
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from corpora import CHINESE, corpora_dir
from extraction import (  # the sibling benchmark (this folder is on sys.path)
    FULL_TEXT_SOURCES,
    SHORT_SOURCE,
    SNIPPET_SOURCE,
    Page,
    _squash,
    load_pages,
    prf,
)

from scrapy_simhash.extract import extract_main_text, get_extractor

PEERS = ("trafilatura", "readability")
CACHE = Path(__file__).resolve().parent / "out" / "extraction_cv_peers.json"
SHORT = {**SHORT_SOURCE, SNIPPET_SOURCE: "traf-ev"}
# Second-level labels under a country code: "bbc.co.uk" is one site, "co.uk" is not.
_SECOND_LEVEL = {"co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go"}
_TOP_LEVEL = {"com", "org", "net", "gov", "edu", "uk", "de", "fi", "io", "me", "vc", "jm"}
_HOST_RE = re.compile(r"""(?:href|src)\s*=\s*["']?https?://([^/"'\s>:?#]+)""", re.IGNORECASE)
_CANONICAL_RE = re.compile(
    r"""<link[^>]+rel=["']?canonical[^>]+href=["']?https?://([^/"'\s>:]+)""", re.IGNORECASE
)
# Hosts of shared services that say nothing about whose page it is.
_SERVICE_HOSTS = ("w3.org", "google", "baidu.com", "facebook", "twitter", "cnzz", "bootcss")


def registered_domain(host: str) -> str:
    """ "news.bbc.co.uk" -> "bbc.co.uk", "blog.wenxuecity.com" -> "wenxuecity.com"."""
    labels = host.lower().strip(".").removeprefix("www.").split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _linked_site(html: bytes) -> str | None:
    """The page's own site when it names no URL: its canonical link, else its most linked
    registered domain (a page links its own site most)."""
    text = html[:400_000].decode("utf-8", "replace")
    canonical = _CANONICAL_RE.search(text)
    if canonical:
        return registered_domain(canonical.group(1))
    counts = Counter(
        registered_domain(host)
        for host in _HOST_RE.findall(text)
        if not any(service in host for service in _SERVICE_HOSTS)
    )
    return counts.most_common(1)[0][0] if counts else None


def site_of(page: Page) -> str:
    """The site a page belongs to, for folds that share no site."""
    if page.url and page.url.startswith(("http://", "https://")):
        return registered_domain(urlsplit(page.url).hostname or page.url)
    if page.url:  # trafilatura-eval's "hard::jamaica.gleaner.com-victims.html"
        host = page.url.rpartition(":")[2].split("-")[0]
        labels = host.split(".")
        for index, label in enumerate(labels):
            if label in _TOP_LEVEL:
                return registered_domain(".".join(labels[: index + 1]))
        return registered_domain(host)
    if page.source == "readability-test-pages":
        # "nytimes-2", "wapo-1": the site's pages share the prefix; synthetic fixtures stand alone
        return "readability:" + re.sub(r"-\d+$", "", page.id)
    return _linked_site(page.html) or f"{page.source}:{page.id}"


def assign_folds(pages: list[Page], folds: int) -> dict[str, int]:
    """Site -> fold: biggest sites first, each into the fold with fewest pages so far (ties by
    a hash of the site's name), so that folds hold about as many pages and the split is stable."""
    sizes = Counter(site_of(page) for page in pages)

    def order(site: str) -> tuple[int, str]:
        return -sizes[site], hashlib.sha1(site.encode()).hexdigest()

    load = [0] * folds
    fold_of: dict[str, int] = {}
    for site in sorted(sizes, key=order):
        fold = min(range(folds), key=lambda index: (load[index], index))
        fold_of[site] = fold
        load[fold] += sizes[site]
    return fold_of


def page_score(page: Page, output: str) -> float:
    """Token F1 against the full text, or F1 of the page's must / must-not snippets."""
    if page.truth is not None:
        return prf(output, page.truth)[2]
    squashed = _squash(output)
    found_with = [_squash(s) in squashed for s in page.snippets.get("with", [])]
    found_without = [_squash(s) in squashed for s in page.snippets.get("without", [])]
    tp, fn = sum(found_with), len(found_with) - sum(found_with)
    fp = sum(found_without)
    if not tp:
        return 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return 2 * precision * recall / (precision + recall)


def _key(page: Page) -> str:
    return page.source + "/" + page.id


def peer_outputs(pages: list[Page], refresh: bool = False) -> dict[str, dict[str, str]]:
    """Each peer's output for every page, from the cache when it has them."""
    cache: dict[str, dict[str, str]] = {}
    if CACHE.is_file() and not refresh:
        cache = json.loads(CACHE.read_text(encoding="utf-8"))
    changed = False
    for name in PEERS:
        outputs = cache.setdefault(name, {})
        missing = [page for page in pages if _key(page) not in outputs]
        if missing:
            extract = get_extractor(name)
            print(f"  running {name} on {len(missing)} pages", file=sys.stderr)
            for page in missing:
                try:
                    outputs[_key(page)] = extract(page.html, page.encoding, page.url)
                except Exception:  # a peer that fails on a page scores 0 there
                    outputs[_key(page)] = ""
            changed = True
    if changed:
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(cache, ensure_ascii=False), encoding="utf-8")
    return cache


Setting = tuple[tuple[str, object], ...]


def parse_tune(specs: list[str]) -> list[Setting]:
    """``["builtin.A=1,0", "hints.B=x,y"]`` -> every combination, the first values first."""
    axes = []
    for spec in specs:
        name, _, values = spec.partition("=")
        axes.append([(name.strip(), json.loads(value)) for value in values.split(",")])
    return [tuple(combo) for combo in itertools.product(*axes)] if axes else [()]


def _apply(setting: Setting) -> dict[str, object]:
    saved = {}
    for name, value in setting:
        module_name, _, attribute = name.rpartition(".")
        module = importlib.import_module("scrapy_simhash.extract." + module_name)
        saved[name] = getattr(module, attribute)
        setattr(module, attribute, value)
    return saved


def ours(pages: list[Page], setting: Setting) -> dict[str, str]:
    """The built-in extractor's body text (as benchmarks/extraction.py scores it) under a
    setting of module constants, restored afterwards."""
    saved = _apply(setting)
    try:
        return {
            _key(p): extract_main_text(p.html, p.encoding, p.url, include_title=False)
            for p in pages
        }
    finally:
        _apply(tuple(saved.items()))


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _label(setting: Setting) -> str:
    return ", ".join(f"{name.rpartition('.')[2]}={value}" for name, value in setting) or "as is"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--tune", action="append", default=[], help="builtin.NAME=v1,v2 (JSON values)"
    )
    parser.add_argument("--sites", action="store_true", help="list the sites moved by a setting")
    parser.add_argument("--refresh", action="store_true", help="rerun the peers")
    parser.add_argument("--worst", type=int, default=0, help="list the N worst pages for ours")
    args = parser.parse_args(argv)

    if corpora_dir() is None:
        print("corpora not found (set SIMHASH_CORPORA)", file=sys.stderr)
        return 1
    pages = load_pages()
    fold_of_site = assign_folds(pages, args.folds)
    site = {_key(p): site_of(p) for p in pages}
    fold = {key: fold_of_site[name] for key, name in site.items()}

    scores: dict[str, dict[str, float]] = {}  # extractor or setting label -> page -> score
    for name, outputs in peer_outputs(pages, args.refresh).items():
        scores[name] = {_key(p): page_score(p, outputs[_key(p)]) for p in pages}
    settings = parse_tune(args.tune)
    for setting in settings:
        outputs = ours(pages, setting)
        scores[_label(setting)] = {_key(p): page_score(p, outputs[_key(p)]) for p in pages}

    # Each fold's pick: the setting with the best mean over the other folds' pages.
    held_out: dict[str, float] = {}
    picks = []
    for index in range(args.folds):
        train = [_key(p) for p in pages if fold[_key(p)] != index]
        best = max(settings, key=lambda s: _mean([scores[_label(s)][k] for k in train]))
        picks.append(_label(best))
        held_out.update(
            {_key(p): scores[_label(best)][_key(p)] for p in pages if fold[_key(p)] == index}
        )
    scores["ours (held-out)"] = held_out

    rows = ["ours (held-out)", *PEERS]
    if len(settings) > 1:  # one column per setting, named #0, #1 ... (the legend follows)
        for number, setting in enumerate(settings):
            scores[f"#{number}"] = scores[_label(setting)]
            rows.append(f"#{number}")
    groups: list[tuple[str, Callable[[Page], bool]]] = [
        (f"fold {i}", lambda p, i=i: fold[_key(p)] == i) for i in range(args.folds)
    ]
    groups += [
        (SHORT[source], lambda p, source=source: p.source == source)
        for source in (*FULL_TEXT_SOURCES, SNIPPET_SOURCE)
    ]
    groups += [
        ("full text", lambda p: p.truth is not None),
        ("zh", lambda p: p.truth is not None and p.lang == CHINESE),
        ("all", lambda p: True),
    ]
    width = max(len(row) for row in rows) + 2
    print(f"{'':<10} {'pages':>5} {'sites':>5}  " + "".join(f"{row:>{width}}" for row in rows))
    for name, member in groups:
        keys = [_key(p) for p in pages if member(p)]
        n_sites = len({site[key] for key in keys})
        cells = "".join(f"{_mean([scores[row][k] for k in keys]):>{width}.3f}" for row in rows)
        print(f"{name:<10} {len(keys):>5} {n_sites:>5}  {cells}")
    print(
        f"\n{len(pages)} pages, {len(set(site.values()))} sites in {args.folds} folds by site; "
        "full text: token F1, traf-ev: snippet F1; per-page scores, mean."
    )
    if len(settings) > 1:
        for number, setting in enumerate(settings):
            print(f"#{number}: {_label(setting)}")
        picked = "; ".join(f"fold {i}: {p}" for i, p in enumerate(picks))
        print(f"picked on the other folds: {picked}")
        base = _label(settings[0])
        for setting in settings[1:]:
            label = _label(setting)
            by_site: dict[str, list[float]] = defaultdict(list)
            for key in scores[label]:
                by_site[site[key]].append(scores[label][key] - scores[base][key])
            moved = {name: sum(deltas) / len(deltas) for name, deltas in by_site.items()}
            up = sorted((d, n) for n, d in moved.items() if d > 0.005)
            down = sorted((d, n) for n, d in moved.items() if d < -0.005)
            folds_up = sum(
                _mean([scores[label][k] for k in fold if fold[k] == i])
                > _mean([scores[base][k] for k in fold if fold[k] == i]) + 1e-9
                for i in range(args.folds)
            )
            print(
                f"{label} vs {base}: {len(up)} sites up, {len(down)} down; "
                f"better in {folds_up}/{args.folds} folds"
            )
            if args.sites:
                for delta, name in [*reversed(up), *down]:
                    print(f"    {delta:+.3f} {name}")
    if args.worst:
        ranked = sorted(held_out.items(), key=lambda item: item[1])[: args.worst]
        print(f"\nworst {args.worst} held-out pages for ours (ours, trafilatura, readability):")
        for key, value in ranked:
            peers = " ".join(f"{scores[name][key]:.3f}" for name in PEERS)
            print(f"  {value:.3f} {peers}  fold {fold[key]}  {site[key]:<24} {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
