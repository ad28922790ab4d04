"""Downloads a crawl avoids with learned URL rules, and the distinct pages it still receives.

The site of :mod:`hardneg.urlsite` (30 articles each linked under five duplicate URL families
and a ``?ref=`` link, a category in six ``?page=`` pages, thirty ``?id=`` products) is served on
loopback and crawled with the add-on alone, following every link, with ``SIMHASH_URL_RULES``
off (the plugin drops duplicates after downloading them) and on (the add-on's default); then
the same site with canonical tags (``site(canonical=True)``: every article and variant declares
the article's URL, every ``?page=`` page and product the category's first page); then 30 other
articles of the same site, crawled fresh and after a first crawl of the first 30 into the same
SQLite index (whose rules that second crawl reads from its first page on); then a parameter that
changes some pages only (``mixed_parameter_site``: ``?edition=intl`` is the same page on four
articles, another story on eight), and a shop's brand filter (``facet_site``: the same page on
four categories of one brand, three brands' products on two others). Each crawl runs in a
fresh process; the table gives the medians of ``--runs`` crawls.

``--tags`` measures instead what reading the canonical declarations costs the crawl's thread a
page checked, over the pages of the corpora (``SIMHASH_CORPORA``): the plugin's search of the
head beside parsing the page with lxml to read them (medians of ``--runs`` passes).

    python benchmarks/url_rules.py [--runs 3] [--tags]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hardneg.urlsite import facet_site, mixed_parameter_site, site
from loopback import LoopbackSite

SPIDER = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
url, out, rules, index = sys.argv[1], sys.argv[2], sys.argv[3] == "on", sys.argv[4]

class Site(Spider):
    name = "url_rules"
    start_urls = [url + "/"]
    custom_settings = {"ADDONS": {"scrapy_simhash.Addon": 0}, "SIMHASH_URL_RULES": rules,
                       "SIMHASH_INDEX_URI": index}

    def parse(self, response):
        yield {"url": response.url}
        yield from response.follow_all(css="a")

process = CrawlerProcess({"FEEDS": {out: {"format": "jsonlines"}}, "ROBOTSTXT_OBEY": False,
                          "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "ERROR"})
process.crawl(Site)
process.start()
"""

Pages = dict[str, tuple[str, str]]


def crawl(pages: Pages, rules: str, index: str = "memory://", port: int = 0) -> dict[str, int]:
    """One crawl of ``pages`` (served on ``port``, 0: a free one): duplicate downloads, and
    distinct pages whose content reached no callback (under any of its URLs)."""
    same = {path: target for path, (_, target) in pages.items()}
    site = LoopbackSite({path: html.encode() for path, (html, _) in pages.items()}, port)
    base = site.url
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "items.jsonl"
        subprocess.run([sys.executable, "-c", SPIDER, base, str(out), rules, index], check=True)
        received = {json.loads(line)["url"][len(base):] for line in out.read_text().splitlines()}
    site.stop()
    contents = {same.get(path, path) for path in received}
    return {
        "duplicate downloads": sum(1 for path in site.requested if same.get(path, path) != path),
        "distinct pages lost": len(set(same.values()) - contents),
        "port": site.server_address[1],
    }


def second_crawl(rules: str) -> dict[str, int]:
    """The other 30 articles, after a crawl of the first 30 into the same SQLite index; the
    category and products, crawled the first time, are not counted as lost."""
    with tempfile.TemporaryDirectory() as folder:
        index = f"sqlite:///{Path(folder) / 'crawl.db'}"
        port = crawl(site(30), rules, index)["port"]  # the same site: its host and port
        return crawl(_articles_only(site(30, first=30)), rules, index, port)


def _articles_only(pages: Pages) -> Pages:
    """``pages`` with the shop left out of the home page (its pages are the first crawl's)."""
    home, target = pages["/"]
    kept = {path: page for path, page in pages.items() if not path.startswith(("/shop", "/prod"))}
    for path in pages:
        if path.startswith("/shop"):
            home = home.replace(f'<li><a href="{path}">{path}</a></li>', "")
    kept["/"] = (home, target)
    return kept


ROWS: list[tuple[str, str, Callable[[], dict[str, int]]]] = [
    ("247 URLs", "off (the plugin drops duplicates after downloading them)",
     lambda: crawl(site(), "off")),
    ("247 URLs", "on (the add-on's default)", lambda: crawl(site(), "on")),
    ("247 URLs, canonical tags", "off", lambda: crawl(site(canonical=True), "off")),
    ("247 URLs, canonical tags", "on", lambda: crawl(site(canonical=True), "on")),
    ("30 other articles, fresh", "on", lambda: crawl(_articles_only(site(30, first=30)), "on")),
    ("30 other articles, second crawl of one SQLite index", "on", lambda: second_crawl("on")),
    ("12 articles under ?edition=intl: 4 the same page, 8 other stories", "off",
     lambda: crawl(mixed_parameter_site(), "off")),
    ("12 articles under ?edition=intl: 4 the same page, 8 other stories", "on",
     lambda: crawl(mixed_parameter_site(), "on")),
    ("26 categories under ?brand=: 24 of one brand (the same page), 2 of three", "off",
     lambda: crawl(facet_site(), "off")),
    ("26 categories under ?brand=: 24 of one brand (the same page), 2 of three", "on",
     lambda: crawl(facet_site(), "on")),
]


def tag_cost(runs: int) -> None:
    """Microseconds a page to read its canonical declaration: ours, and through a parse."""
    import lxml.html
    from corpora import iter_pages

    from scrapy_simhash.crawl.urlrules import declared_canonical

    pages = [(page.html, page.url or "https://example.com/") for page in iter_pages()]

    def parsed(body: bytes, url: str) -> str | None:
        tree = lxml.html.document_fromstring(body)
        found = tree.xpath('//head/link[@rel="canonical"]/@href | '
                           '//head/meta[@property="og:url"]/@content')
        return found[0] if found else None

    print(f"{len(pages)} pages of the corpora, "
          f"{sum(declared_canonical(b, u) is not None for b, u in pages)} declaring one; "
          f"medians of {runs} passes\n")
    print("| reading the canonical declaration | µs a page |\n|---|---:|")
    for name, read in (("scrapy-simhash: search of the head (declared_canonical)",
                        declared_canonical), ("lxml: parse the page, XPath", parsed)):
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            for body, url in pages:
                read(body, url)
            times.append((time.perf_counter() - started) / len(pages))
        print(f"| {name} | {statistics.median(times) * 1e6:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tags", action="store_true", help="the cost of reading the tags")
    args = parser.parse_args()
    if args.tags:
        tag_cost(args.runs)
        return
    print(f"medians of {args.runs} crawls\n")
    print("| site | SIMHASH_URL_RULES | duplicate downloads (range) | distinct pages lost |\n"
          "|---|---|---:|---:|")
    medians = []
    for name, mode, run in ROWS:
        runs = [run() for _ in range(args.runs)]
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        medians.append(median)
        downloads = sorted(r["duplicate downloads"] for r in runs)
        print(f"| {name} | {mode} | {median['duplicate downloads']:.0f} "
              f"({downloads[0]}-{downloads[-1]}) | {median['distinct pages lost']:.0f} |",
              flush=True)
    for label, off, on in (("plain site", 0, 1), ("canonical tags", 2, 3)):
        avoided = 1 - medians[on]["duplicate downloads"] / medians[off]["duplicate downloads"]
        print(f"\nduplicate downloads avoided, {label}: {avoided:.0%}")


if __name__ == "__main__":
    main()
