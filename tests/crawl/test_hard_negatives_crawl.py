"""Real crawls with the add-on alone (``ADDONS``, no other plugin setting) over loopback sites of
DISTINCT pages that look alike: every page must reach the spider's callback.

- The hard-negative families of ``benchmarks/hardneg`` (and the multilang corpus pages when the
  corpora are present), each page linked from one index page.
- A "ban page" site: the first request of each of 30 articles is answered (status 200) with the
  same bot-check interstitial, the second with the article; the spider retries interstitials from
  its callback with Scrapy's ``get_retry_request``.

Pages the rules still take for one (``STILL_ALIKE``, listed in BENCHMARKS.md) are allowed, one
of each pair; any other loss fails, and the assertion message lists what was lost.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import pytest
from corpora import CorporaMissing, corpora_required
from crawling import CrawlResult, DemoServer, run_crawl

from benchmarks.hardneg.corpus import multilang_families
from benchmarks.hardneg.families import STILL_ALIKE, Family, generated_families
from benchmarks.hardneg.news import articles, interstitial

BAN_MARK = b"verify you are human"
CRAWL_TIMEOUT = 60  # seconds; each crawl takes well under 20 here

# The spider (argv: site URL, output folder): the index page's links, one item per page that
# reaches the callback; an interstitial is retried from the callback, as spiders do.
SPIDER_SCRIPT = f"""
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
from scrapy.downloadermiddlewares.retry import get_retry_request
url, out = sys.argv[1], sys.argv[2]

class HardNegatives(Spider):
    name = "hard_negatives"
    start_urls = [url + "/"]
    custom_settings = {{"ADDONS": {{"scrapy_simhash.Addon": 0}}}}

    def parse(self, response):  # one callback: Scrapy cannot read the source of a -c script
        if response.url == url + "/":
            yield from response.follow_all(css="ul.pages a")
            return
        if {BAN_MARK!r} in response.body:
            retry = get_retry_request(response.request, spider=self, reason="ban")
            if retry is not None:
                yield retry
            else:  # retries spent: the spider gives the page up, knowingly
                yield {{"url": response.url, "banned": True}}
            return
        yield {{"url": response.url, "retries": response.meta.get("retry_times", 0)}}

process = CrawlerProcess({{
    "FEEDS": {{out + "/items.jsonl": {{"format": "jsonlines"}}}},
    "EXTENSIONS": {{"demo.extensions.StatsDump": 500}},
    "STATS_DUMP_FILE": out + "/stats.json",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
}})
process.crawl(HardNegatives)
process.start()
"""


class _PagesHandler(BaseHTTPRequestHandler):
    server: PagesSite

    def do_GET(self) -> None:
        self.server.record(self.path)
        found = self.server.answer(self.path)
        if found is None:
            self.send_error(404)
            return
        body, content_type = found
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


class PagesSite(DemoServer):
    """The demo site's server (free loopback port, requests recorded) serving ``pages`` (path ->
    (body, Content-Type)) instead; with ``first_answer``, the first ``banned`` requests of each
    page but the index get that body instead, as from a bot-protection service."""

    def __init__(self, pages: dict[str, tuple[bytes, str]], first_answer: bytes | None = None,
                 banned: int = 1, port: int = 0):
        super().__init__(port=port)
        self.RequestHandlerClass = _PagesHandler
        self.pages = pages
        self.first_answer = first_answer
        self.banned = banned
        self.served: Counter[str] = Counter()
        self._served_lock = threading.Lock()

    def answer(self, path: str) -> tuple[bytes, str] | None:
        if path not in self.pages:
            return None
        with self._served_lock:
            self.served[path] += 1
            first = self.served[path] <= self.banned
        if first and self.first_answer is not None and path != "/":
            return self.first_answer, "text/html; charset=utf-8"
        return self.pages[path]


def site_pages(families: dict[str, Family]) -> tuple[dict[str, tuple[bytes, str]], dict[str, str]]:
    """(pages, family of each path, in each family's order): ``/<family>`` and the page's own
    path and query string (a release's ``/docs/2.0/``, a listing's ``?page=3``, a locale's
    ``/en-gb/terms``), and the index ``/`` linking them all. A str page is served as UTF-8; a
    corpus page's bytes without a charset, so Scrapy decodes them as it would from their
    site."""
    pages: dict[str, tuple[bytes, str]] = {}
    family_of: dict[str, str] = {}
    for name, family in families.items():
        for url, html in family:
            parts = urlsplit(url)
            own = quote(unquote(parts.path.strip()), safe="/")  # (as Scrapy requests it)
            path = f"/{name}{own}" + (f"?{parts.query}" if parts.query else "")
            assert path not in family_of, f"{name}: two pages at {path}"
            if isinstance(html, str):
                pages[path] = html.encode("utf-8"), "text/html; charset=utf-8"
            else:
                pages[path] = html, "text/html"
            family_of[path] = name
    anchors = "".join(f'<li><a href="{path}">{path}</a></li>' for path in family_of)
    index = f"<!DOCTYPE html><html><body><ul class='pages'>{anchors}</ul></body></html>"
    pages["/"] = index.encode(), "text/html; charset=utf-8"
    return pages, family_of


def crawl(site: PagesSite, out: Path, script: str = SPIDER_SCRIPT) -> CrawlResult:
    site.start()
    try:
        result = run_crawl(site, out, script=script, timeout=CRAWL_TIMEOUT)
    finally:
        site.stop()
    if result.returncode != 0 or "Spider closed (finished)" not in result.log:
        pytest.fail(f"the crawl did not finish:\n{result.log[-3000:]}")  # not the xfail's kind
    return result


def lost_pages(result: CrawlResult, base: str, family_of: dict[str, str]) -> dict[str, list[str]]:
    """family -> paths of its pages that never reached the callback."""
    reached = result.item_paths(base)
    lost: dict[str, list[str]] = defaultdict(list)
    for path, family in family_of.items():
        if path not in reached:
            lost[family].append(path)
    return dict(lost)


def still_alike_losses(lost: dict[str, list[str]], family_of: dict[str, str]) -> bool:
    """Whether every page lost is one of a pair the rules still take for one
    (:data:`~benchmarks.hardneg.families.STILL_ALIKE`), one page of each at most."""
    for family, paths in lost.items():
        pairs = [{i, j} for i, j in STILL_ALIKE.get(family, [])]
        order = [path for path, name in family_of.items() if name == family]
        for path in paths:
            number = order.index(path)  # (its place in its family)
            pair = next((pair for pair in pairs if number in pair), None)
            if pair is None:
                return False
            pairs.remove(pair)  # (the other page of the pair must have reached the callback)
    return True


def describe(lost: dict[str, list[str]], family_of: dict[str, str], stats: dict) -> str:
    sizes = Counter(family_of.values())
    total = sum(len(paths) for paths in lost.values())
    lines = [f"{total} of {len(family_of)} distinct pages never reached the callback "
             f"(simhash/pages/dropped: {stats.get('simhash/pages/dropped', 0)}):"]
    for family in sizes:
        if family in lost:
            lines.append(f"  {family}: {len(lost[family])}/{sizes[family]} lost: "
                         + " ".join(lost[family]))
    return "\n".join(lines)


def crawled_families() -> dict[str, Family]:
    # (the test site is one host: a family of pages on several sites is not served as such)
    families = {name: family for name, family in generated_families().items()
                if len({urlsplit(url).hostname for url, _ in family}) == 1}
    try:
        families.update(multilang_families())
    except CorporaMissing as missing:
        if corpora_required():
            pytest.fail(f"SIMHASH_REQUIRE_CORPORA=1 but {missing}")
    return families


def test_every_distinct_page_of_the_hard_negative_families_reaches_the_callback(tmp_path):
    pages, family_of = site_pages(crawled_families())
    site = PagesSite(pages)
    result = crawl(site, tmp_path)
    lost = lost_pages(result, site.url, family_of)
    allowed = still_alike_losses(lost, family_of)
    assert not lost or allowed, describe(lost, family_of, result.stats)


def test_articles_behind_a_ban_page_reach_the_callback_once_retried(tmp_path):
    pages, family_of = site_pages({"article": articles(30)})
    site = PagesSite(pages, first_answer=interstitial().encode())
    result = crawl(site, tmp_path)
    lost = lost_pages(result, site.url, family_of)
    assert not lost, describe(lost, family_of, result.stats)
    # each article once: through the spider's retry, or fetched again by the plugin after the
    # interstitial it was dropped against was retried or taken for a template
    assert all(item["retries"] <= 1 for item in result.items)
    urls = [item["url"] for item in result.items]
    assert len(urls) == len(set(urls))
    assert result.stats.get("simhash/pages/refetched", 0) + result.stats.get(
        "simhash/pages/withdrawn", 0) > 0


def test_every_url_a_ban_page_answers_reaches_the_callback_until_its_retries_are_spent(tmp_path):
    """Too few ban pages for a template, one ban page for every request: the spider retries
    each (Scrapy's RETRY_TIMES, 2) and then gives it up. A page like one the spider retried is
    no content either: neither dropped (its spider would never hear of it) nor stored."""
    pages, family_of = site_pages({"article": articles(6)})
    site = PagesSite(pages, first_answer=interstitial().encode(), banned=10**6)
    result = crawl(site, tmp_path)
    given_up = sorted(item["url"] for item in result.items if item.get("banned"))
    assert given_up == sorted(site.url + path for path in family_of), result.stats
    assert result.stats["simhash/pages/kept/not_content"] >= 6


# The same spider on a persistent index (argv: site URL, output folder, index URI, "naive" or
# "retry"): a naive spider does not yet know the site's ban page and yields it as an item.
PERSISTENT_SPIDER_SCRIPT = SPIDER_SCRIPT.replace(
    "url, out = sys.argv[1], sys.argv[2]",
    "url, out, index_uri, mode = sys.argv[1:5]",
).replace(
    '{"ADDONS": {"scrapy_simhash.Addon": 0}}',
    '{"ADDONS": {"scrapy_simhash.Addon": 0}, "SIMHASH_INDEX_URI": index_uri}',
).replace(
    f"if {BAN_MARK!r} in response.body:",
    f"if mode == 'retry' and {BAN_MARK!r} in response.body:",
)


#: A CDN's ban page: a few words, the same for every URL (status 200).
SHORT_BAN_PAGE = (b"<!DOCTYPE html><html><head><title>Access Denied</title></head><body>"
                  b"<h1>Access Denied</h1><p>You don't have permission to access this page on "
                  b"this server. Our security service has blocked your request because it "
                  b"looks automated. Please verify you are human and try again later, or "
                  b"contact the site owner.</p><p>Reference number 18.2f4c1002</p></body></html>")


def test_ban_pages_an_earlier_crawl_stored_do_not_hide_the_pages_behind_them(tmp_path):
    """A first crawl whose spider took the site's ban page for content stored it in a SQLite
    index; the next crawl, whose spider retries ban pages, must still reach every article: a
    weak page (a few words of its own) is not dropped against an earlier crawl's."""
    assert "index_uri" in PERSISTENT_SPIDER_SCRIPT and "mode == 'retry'" in PERSISTENT_SPIDER_SCRIPT
    pages, family_of = site_pages({"article": articles(5)})  # (too few for a template)
    index_uri = f"sqlite:///{tmp_path / 'seen.db'}"
    for mode in ("naive", "retry"):
        site = PagesSite(pages, first_answer=SHORT_BAN_PAGE)  # (banned once a URL)
        site.start()
        try:
            result = run_crawl(site, tmp_path / mode, index_uri, mode,
                               script=PERSISTENT_SPIDER_SCRIPT, timeout=CRAWL_TIMEOUT)
        finally:
            site.stop()
        assert result.returncode == 0 and "Spider closed (finished)" in result.log, \
            result.log[-3000:]
    lost = lost_pages(result, site.url, family_of)
    assert not lost, describe(lost, family_of, result.stats)
    # the first ban page like the stored one goes to its callback; its retry takes the stored
    # one out, and what was dropped against it comes back
    assert result.stats.get("simhash/pages/kept/earlier_weak", 0) >= 1, result.stats
    assert result.stats.get("simhash/pages/withdrawn", 0) >= 1, result.stats


# Follows every link; one item per product page.
FOLLOW_SCRIPT = SPIDER_SCRIPT.replace(
    """        if response.url == url + "/":
            yield from response.follow_all(css="ul.pages a")
            return
""",
    """        if not response.url.startswith(url + "/wine/"):
            yield from response.follow_all(css="a")
            return
""",
)

GRAPES = ("Tempranillo", "Nebbiolo", "Grenache", "Riesling")


def _gated_shop() -> dict[str, tuple[bytes, str]]:
    """A wine shop whose products sit behind an age check each (``?next=`` the product): the
    checks are one short page but for where they lead."""
    pages: dict[str, tuple[bytes, str]] = {}
    gates = []
    for number, grape in enumerate(GRAPES, start=101):
        gate = f"/age-check/?next=/wine/{number}/"
        gates.append(gate)
        pages[gate] = (
            (f"<!DOCTYPE html><html><head><title>Age check | Cellar Door</title></head><body>"
             f"<h1>Are you over 18?</h1><p>You must be of legal drinking age in your country "
             f"to enter this part of the shop. By continuing you confirm that you are, and "
             f"that you accept our terms of sale and our responsible drinking policy. We "
             f"never sell alcohol to anyone under 18 and may ask for proof of age.</p>"
             f'<a href="/wine/{number}/">Yes, I am over 18</a> <a href="/">No</a>'
             f"</body></html>").encode(), "text/html; charset=utf-8")
        text = (f"Our {grape} comes from a single vineyard and spends {number - 90} months in "
                f"oak. {grape} grapes give this wine its character: ") * 3
        pages[f"/wine/{number}/"] = (
            (f"<!DOCTYPE html><html><head><title>{grape} {number} | Cellar Door</title></head>"
             f"<body><main><h1>{grape} reserve</h1><p>{text}</p><p>Bottle {number}, "
             f"{number % 7 + 12} euros.</p></main></body></html>").encode(),
            "text/html; charset=utf-8")
    anchors = "".join(f'<li><a href="{gate}">wine</a></li>' for gate in gates)
    pages["/"] = (f"<!DOCTYPE html><html><body><ul class='pages'>{anchors}</ul></body></html>"
                  .encode(), "text/html; charset=utf-8")
    return pages


def test_the_pages_behind_age_checks_are_all_reached(tmp_path):
    """Four age checks, one text, each in front of its product (``?next=``): too few for the
    template rule to bring back what was dropped, so no check may be dropped."""
    site = PagesSite(_gated_shop())
    result = crawl(site, tmp_path, script=FOLLOW_SCRIPT)
    reached = result.item_paths(site.url)
    assert reached == {f"/wine/{number}/" for number in range(101, 105)}, result.log[-3000:]
    assert not result.stats.get("simhash/pages/dropped"), result.stats
