"""Near-duplicate clusters crawled for real: one page kept per cluster, every distinct article kept.

Each cluster of :mod:`evaluation.clusters` is a corpus article served five ways (the page, its
print version, a tracking-parameter URL, the page with an extra block of links, a lightly edited
copy) and a different article in the same template. The site's home page links every page,
cluster by cluster in that order; ``scrapy crawl`` with the add-on alone (``ADDONS``, nothing
else set) follows those links on loopback, and a page is kept when it reached the spider's
callback. A cluster is right when exactly one of its five pages and its distinct article were
kept; "lost" counts distinct articles (or whole clusters) the crawl did not keep.

The peers judge the same pages offline in the same order: the PyPI ``simhash`` package (64 bits,
k <= 3) over each page's whole visible text, and over trafilatura's main text.

    python benchmarks/clusters.py [--seeds 0,1,2] [--per-lang 40] [--langs en,zh] [--misses]
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any

from evaluation.clusters import DISTINCT_KIND, DUPLICATE_KINDS, KINDS, Cluster, build_clusters
from hard_negatives import PEER_K, peer_simhash
from hardneg.simulate import lost_in_order, visible_text
from loopback import LoopbackSite

from scrapy_simhash.extract import get_extractor

SPIDER = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
url, out = sys.argv[1], sys.argv[2]

class Clusters(Spider):
    name = "clusters"
    start_urls = [url + "/"]
    custom_settings = {"ADDONS": {"scrapy_simhash.Addon": 0}}

    def parse(self, response):
        if response.url == url + "/":
            yield from response.follow_all(css="a")
        else:
            yield {"url": response.url}

process = CrawlerProcess({"FEEDS": {out: {"format": "jsonlines"}}, "ROBOTSTXT_OBEY": False,
                          "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "ERROR"})
process.crawl(Clusters)
process.start()
"""

METHODS = ("scrapy-simhash (crawl)", "whole page", "trafilatura")


def home_page(clusters: Sequence[Cluster]) -> bytes:
    links = "\n".join(f'<li><a href="{escape(c.paths[kind])}">{kind} {c.article}</a></li>'
                      for c in clusters for kind in KINDS)
    page = f"<html><head><title>Clusters</title></head><body><ul>{links}</ul></body></html>"
    return page.encode()


def crawl(clusters: Sequence[Cluster]) -> set[str]:
    """The paths whose responses reached the spider, in a real crawl with the add-on."""
    pages = {c.paths[kind]: c.pages[kind] for c in clusters for kind in KINDS}
    pages["/"] = home_page(clusters)
    site = LoopbackSite(pages)
    base = site.url
    try:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "items.jsonl"
            subprocess.run([sys.executable, "-c", SPIDER, base, str(out)], check=True)
            lines = out.read_text().splitlines() if out.exists() else []
    finally:
        site.stop()
    return {json.loads(line)["url"][len(base):] for line in lines}


def offline_kept(clusters: Sequence[Cluster], sign: Callable[[bytes], Any],
                 duplicate: Callable[[Any, Any], bool]) -> set[str]:
    """The paths a crawl in link order keeps when it judges pages by ``sign`` and ``duplicate``."""
    order = [(c.paths[kind], c.pages[kind]) for c in clusters for kind in KINDS]
    lost = set(lost_in_order([sign(html) for _, html in order], duplicate))
    return {path for index, (path, _) in enumerate(order) if index not in lost}


def score(clusters: Sequence[Cluster], kept: set[str]) -> dict[str, Any]:
    right = others_lost = clusters_lost = 0
    extra: Counter[str] = Counter()  # duplicates kept beside the first one, by kind
    for cluster in clusters:
        duplicates = [kind for kind in DUPLICATE_KINDS if cluster.paths[kind] in kept]
        other = cluster.paths[DISTINCT_KIND] in kept
        right += len(duplicates) == 1 and other
        others_lost += not other
        clusters_lost += not duplicates
        extra.update(duplicates[1:])
    return {"clusters": len(clusters), "right": right, "others lost": others_lost,
            "clusters lost": clusters_lost, "duplicates kept": dict(extra)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--per-lang", type=int, default=40)
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--misses", action="store_true", help="list what each crawl got wrong")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    started = time.perf_counter()
    peer = peer_simhash()
    trafilatura = get_extractor("trafilatura")

    def within(a: int, b: int) -> bool:
        return (a ^ b).bit_count() <= PEER_K

    print(f"{'seed':>4} {'lang':>4} {'clusters':>8}  " + "  ".join(f"{m:>30}" for m in METHODS))
    totals: dict[tuple[str, str], Counter] = {}
    for seed in [int(s) for s in args.seeds.split(",")]:
        clusters = build_clusters(langs=tuple(args.langs.split(",")), seed=seed,
                                  per_lang=args.per_lang)
        kept = {
            METHODS[0]: crawl(clusters),
            METHODS[1]: offline_kept(clusters, lambda html: peer(visible_text(html)), within),
            METHODS[2]: offline_kept(clusters, lambda html: peer(trafilatura(html, "utf-8", None)),
                                     within),
        }
        for lang in args.langs.split(","):
            mine = [c for c in clusters if c.lang == lang]
            cells = []
            for method in METHODS:
                result = score(mine, kept[method])
                totals.setdefault((lang, method), Counter()).update(
                    {k: v for k, v in result.items() if isinstance(v, int)})
                cells.append(f"{result['right']:>3} right, {result['others lost']} other lost, "
                             f"{sum(result['duplicates kept'].values())} dup kept")
                if args.misses and method == METHODS[0]:
                    for cluster in mine:
                        got = [k for k in KINDS if cluster.paths[k] in kept[method]]
                        if got.count(DISTINCT_KIND) != 1 or len(got) != 2:
                            print(f"    seed {seed} {cluster.article}: kept {got}")
            print(f"{seed:>4} {lang:>4} {len(mine):>8}  " + "  ".join(f"{c:>30}" for c in cells))
    print()
    for (lang, method), total in totals.items():
        print(f"  {lang} {method:<24} {total['right']} of {total['clusters']} clusters right, "
              f"{total['others lost']} distinct articles lost, {total['clusters lost']} clusters "
              "lost whole")
    print(f"\nright: exactly one of a cluster's five pages kept and its distinct article kept; "
          f"peers: PyPI simhash 64 bits, k={PEER_K}, in the crawl's link order "
          f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
