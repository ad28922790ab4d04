"""End-to-end: real crawls of the example project over HTTP on 127.0.0.1, checked page by page."""

from __future__ import annotations

import json
import sqlite3

import pytest
from crawling import run_crawl
from demosite.site import EXPECTED, PAGES, clusters
from parsel import Selector

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.simhash import hamming_distance

ORIGINALS = {path for path, outcome in EXPECTED.items() if outcome == "kept"}
DROPPED = {path for path, outcome in EXPECTED.items() if outcome == "dropped"}
UNREACHED = {path for path, outcome in EXPECTED.items() if outcome == "unreached"}
HTML_SKIPPED = {path for path, outcome in EXPECTED.items() if outcome == "skipped/too_short"}



def _distance_to_original(path: str) -> int:
    """What the library says, with default settings, about one cluster member."""
    fingerprinter = Fingerprinter()
    original = next(o for o, members in clusters().items() if path in members)
    a, b = (fingerprinter.fingerprint_tree(Selector(text=PAGES[p].body.decode()).root)
            for p in (original, path))
    return hamming_distance(a, b)


# Cluster members the library's *default* settings do not detect (see test_defaults_...).
MISSED = {path for path in DROPPED if _distance_to_original(path) > Fingerprinter().max_distance}
DETECTED = DROPPED - MISSED
# Pages linked only from cluster members: reached when the defaults miss one of those.
REACHED = {path for path in UNREACHED
           if any(f'href="{path}"'.encode() in PAGES[p].body for p in ORIGINALS | MISSED)}
KEPT = ORIGINALS | MISSED | REACHED


def _item_fingerprint(path: str) -> int | None:
    """The fingerprint of the item the demo spider yields for a page (title + paragraphs)."""
    selector = Selector(text=PAGES[path].body.decode())
    title = (selector.css("h1::text, h2::text").get() or "").strip()
    body = [text.strip() for text in selector.xpath("//p//text()").getall() if text.strip()]
    return Fingerprinter().fingerprint_text("\n".join([title, *body]))


def _item_distance_to_original(path: str) -> int:
    original = next(o for o, members in clusters().items() if path in members)
    return hamming_distance(_item_fingerprint(original), _item_fingerprint(path))


# The spider's items include template text (a footer paragraph), so fewer items match.
ITEM_MISSED = {path for path in DROPPED
               if _item_distance_to_original(path) > Fingerprinter().max_distance}

PIPELINE = "scrapy_simhash.pipeline.SimhashPipeline"
MIDDLEWARE = "scrapy_simhash.middleware.SimhashDownloaderMiddleware"

# A crawl run as a plain CrawlerProcess script (argv: site URL, output folder, settings JSON).
CRAWLER_PROCESS_SCRIPT = """
import json, sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
from demo.spiders.news import NewsSpider
url, out, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
settings = get_project_settings()
settings.setdict({"SIMHASH_REPORT_FILE": out + "/duplicates.jsonl",
                  "STATS_DUMP_FILE": out + "/stats.json",
                  "FEEDS": {out + "/items.jsonl": {"format": "jsonlines"}}, **extra}, "cmdline")
process = CrawlerProcess(settings)
process.crawl(NewsSpider, start_url=url + "/")
process.start()
"""

# The demo spider, keeping every response it parsed; at the end it writes which of them still
# hold their parsed tree (argv: site URL, output folder; /print/ pages are not checked).
TREES_SCRIPT = """
import json, sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
from demo.spiders.news import NewsSpider
url, out = sys.argv[1], sys.argv[2]

class KeepingSpider(NewsSpider):
    parsed = []

    def parse(self, response):
        self.parsed.append(response)
        yield from super().parse(response)

    def closed(self, reason):
        rows = [{"url": r.url, "checked": "simhash" in r.meta,
                 "holds_tree": r._cached_selector is not None,
                 "paragraphs_read_again": len(r.css("p"))} for r in self.parsed]
        with open(out + "/trees.json", "w") as file:
            json.dump(rows, file)

settings = get_project_settings()
settings.setdict({"STATS_DUMP_FILE": out + "/stats.json"}, "cmdline")
process = CrawlerProcess(settings)
process.crawl(KeepingSpider, start_url=url + "/", dont_simhash="/print/")
process.start()
"""


# A spider that retries each page once from its callback (Scrapy's get_retry_request), as spiders
# do on a page that looks like a ban or a half-rendered page (argv: site URL, output folder, path).
RETRY_FROM_CALLBACK_SCRIPT = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
from scrapy.downloadermiddlewares.retry import get_retry_request
from scrapy.utils.project import get_project_settings
url, out, path = sys.argv[1], sys.argv[2], sys.argv[3]

class RetryOnce(Spider):
    name = "retry_once"
    start_urls = [url + path]

    def parse(self, response):
        if not response.meta.get("retry_times"):
            yield get_retry_request(response.request, spider=self, reason="looked banned")
            return
        yield {"url": response.url, "attempt": response.meta["retry_times"]}

settings = get_project_settings()
settings.setdict({"SIMHASH_REPORT_FILE": out + "/duplicates.jsonl",
                  "STATS_DUMP_FILE": out + "/stats.json",
                  "FEEDS": {out + "/items.jsonl": {"format": "jsonlines"}}}, "cmdline")
process = CrawlerProcess(settings)
process.crawl(RetryOnce)
process.start()
"""


@pytest.fixture(scope="module")
def default_crawl(demo_site, tmp_path_factory):
    return run_crawl(demo_site, tmp_path_factory.mktemp("default"))


def paths(result, base):
    return result.item_paths(base)


def test_crawl_finishes_and_logs_the_summary(default_crawl):
    assert default_crawl.returncode == 0, default_crawl.log[-3000:]
    assert default_crawl.stats["finish_reason"] == "finished"
    summary = [line for line in default_crawl.log.splitlines() if "Simhash: pages" in line]
    assert len(summary) == 1
    pages_checked = len(DROPPED) + len(ORIGINALS) + len(REACHED)
    assert (f"Simhash: pages {pages_checked} checked, {len(DETECTED)} dropped as near-duplicates, "
            f"{len(KEPT)} kept, ") in summary[0]
    # each kept page's item stands for its page: not checked again
    assert f"; index holds {len(KEPT)} pages; items 0 checked, " in summary[0]
    assert (f"0 kept, {len(KEPT)} not checked (each the only item of a page kept), 3 skipped"
            in summary[0])


def test_every_distinct_article_is_kept(default_crawl, demo_site):
    assert paths(default_crawl, demo_site.url) >= ORIGINALS


def page_drops(result, base):
    return {row["url"][len(base):] for row in result.report if row["kind"] == "page"}


@pytest.mark.parametrize("original", sorted(clusters()))
def test_each_cluster_keeps_its_original_and_drops_what_the_library_detects(
    default_crawl, demo_site, original
):
    members = set(clusters()[original])
    survivors = members - page_drops(default_crawl, demo_site.url)
    assert survivors == {original} | (members & MISSED), f"kept {sorted(survivors)}"


def test_defaults_detect_every_near_duplicate_of_the_demo_site():
    assert not MISSED, {path: _distance_to_original(path) for path in MISSED}


def test_dropped_pages_are_reported_with_what_they_duplicate(default_crawl, demo_site):
    base = demo_site.url
    page_rows = [row for row in default_crawl.report if row["kind"] == "page"]
    assert {row["url"][len(base):] for row in page_rows} == DETECTED
    for row in page_rows:
        path = row["url"][len(base):]
        assert row["duplicate_of"] == base + next(o for o, m in clusters().items() if path in m)
        assert row["distance"] == _distance_to_original(path)
    assert not paths(default_crawl, base) & DETECTED


def test_links_of_dropped_pages_are_not_followed(default_crawl):
    linked_only_from_drops = UNREACHED - REACHED
    assert linked_only_from_drops, "the library's defaults miss every page linking them"
    assert not linked_only_from_drops & set(default_crawl.requested)


def test_stats(default_crawl):
    stats = default_crawl.stats
    assert stats["simhash/pages/dropped"] == len(DETECTED)
    assert stats["simhash/pages/kept"] == len(KEPT)
    assert stats["simhash/pages/checked"] == len(DROPPED) + len(ORIGINALS) + len(REACHED)
    assert stats["simhash/pages/skipped/not_html"] == 1
    assert stats["simhash/pages/skipped/status"] == 2  # the 404 and the 503 after its retry
    assert stats["simhash/pages/skipped/too_short"] == len(HTML_SKIPPED) + 1  # + the hub page
    assert stats["simhash/index/pages/size"] == len(KEPT)
    # the item of each page kept stands for it (pages/kept), the others are checked
    assert stats["simhash/items/skipped/page_kept"] == len(KEPT)
    assert stats.get("simhash/items/checked", 0) == 0
    assert stats["simhash/time/pages/fingerprint"] > 0
    assert stats["simhash/time/pages/index"] > 0
    assert "simhash/index/errors" not in stats


def stats_kept(result):
    return result.stats["simhash/pages/kept"] - result.stats.get("simhash/items/dropped", 0)


def test_fingerprint_is_in_response_meta(default_crawl, demo_site):
    article_items = [item for item in default_crawl.items if item["simhash"] is not None]
    assert len(article_items) == stats_kept(default_crawl)
    fingerprinter = Fingerprinter()
    for item in article_items:
        page = PAGES[item["url"][len(demo_site.url):]]
        tree = Selector(text=page.body.decode()).root
        assert item["simhash"] == fingerprinter.fingerprint_tree(tree), item["url"]


def test_dont_simhash_keeps_the_marked_pages(demo_site, tmp_path):
    result = run_crawl(demo_site, tmp_path, "-a", "dont_simhash=/print/")
    prints = {path for path in DROPPED if "/print/" in path}
    assert prints and prints <= set(result.requested)
    assert not prints & page_drops(result, demo_site.url)  # (the item pipeline still sees them)
    assert result.stats["simhash/pages/skipped/dont_simhash"] == len(prints)
    assert result.stats["simhash/pages/dropped"] == len(DETECTED - prints)


def test_checked_pages_let_go_of_their_tree_after_the_callback(demo_site, tmp_path):
    result = run_crawl(demo_site, tmp_path, script=TREES_SCRIPT)
    assert result.returncode == 0, result.log[-3000:]
    rows = json.loads((tmp_path / "trees.json").read_text())
    checked = [row for row in rows if row["checked"]]
    unchecked = [row for row in rows if "/print/" in row["url"]]
    assert len(checked) == result.stats["simhash/pages/kept"] > 0
    assert unchecked and all(not row["checked"] for row in unchecked)
    assert not any(row["holds_tree"] for row in checked)  # the add-on's spider middleware
    assert all(row["holds_tree"] for row in unchecked)  # not the plugin's to free
    for row in checked:  # a released page is parsed again when read
        page = PAGES[row["url"][len(demo_site.url):]]
        assert row["paragraphs_read_again"] == len(Selector(text=page.body.decode()).css("p"))


def test_sqlite_index_persists_between_crawls(demo_site, tmp_path):
    uri = f"sqlite:///{tmp_path / 'seen.db'}"  # pages and items: two namespaces in one file
    first = run_crawl(demo_site, tmp_path / "first", "-s", f"SIMHASH_INDEX_URI={uri}",
                      "-a", "dont_simhash=/print/")  # (items of unchecked pages are checked)
    assert first.item_paths(demo_site.url) >= ORIGINALS
    assert first.stats["simhash/index/items/size"] >= 1
    second = run_crawl(demo_site, tmp_path / "second", "-s", f"SIMHASH_INDEX_URI={uri}")
    assert second.returncode == 0, second.log[-3000:]
    # Every article is now a duplicate of itself from the first crawl: none reaches the spider.
    assert not second.item_paths(demo_site.url) & (ORIGINALS | DROPPED)
    assert second.stats["simhash/pages/dropped"] == len(ORIGINALS)  # their links never followed
    assert second.stats.get("simhash/pages/kept", 0) == 0
    assert {row["distance"] for row in second.report} == {0}
    assert all(row["url"] == row["duplicate_of"] for row in second.report)
    assert second.stats["simhash/index/pages/size"] == len(KEPT)
    # another threshold: the crawl stops at once, naming the setting and both values
    other = run_crawl(demo_site, tmp_path / "other", "-s", f"SIMHASH_INDEX_URI={uri}",
                      "-s", "SIMHASH_MAX_DISTANCE=10")
    assert other.returncode == 1
    assert ("was built with other settings (SIMHASH_MAX_DISTANCE: stored 16, this crawl 10); "
            "use the same settings, or another index. Stopping the crawl.") in other.log


def test_an_sqlite_index_file_may_hold_any_character_in_its_name(demo_site, tmp_path):
    from scrapy_simhash.index.uri import sqlite_uri

    path = tmp_path / "seen #1 %20 what?.db"
    crawl = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_INDEX_URI={sqlite_uri(path)}")
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.stats["simhash/index/pages/size"] == len(KEPT)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", path.name]


def test_band_index_in_sqlite_serves_pages_and_items_without_lock_waits(demo_site, tmp_path):
    # MinHash's pages and items: two namespaces of one file, written by one process. Each used
    # to hold its own connection: one waited out SQLite's busy timeout for the other's lock.
    uri = f"sqlite:///{tmp_path / 'minhash.db'}?timeout=2"
    settings = ["-s", "SIMHASH_ALGORITHM=minhash", "-s", f"SIMHASH_INDEX_URI={uri}",
                "-a", "dont_simhash=/print/"]  # (items of unchecked pages are checked)
    first = run_crawl(demo_site, tmp_path / "first", *settings)
    assert first.returncode == 0, first.log[-3000:]
    assert "simhash/index/errors" not in first.stats, first.log[-3000:]
    assert first.item_paths(demo_site.url) >= ORIGINALS
    assert first.stats["simhash/index/items/size"] >= 1
    second = run_crawl(demo_site, tmp_path / "second", *settings)
    assert "simhash/index/errors" not in second.stats, second.log[-3000:]
    # nothing new: every page it reaches was seen by the first crawl
    assert second.stats["simhash/pages/dropped"] >= len(ORIGINALS), second.stats
    assert second.stats.get("simhash/pages/kept", 0) == 0, second.stats
    simhash = run_crawl(demo_site, tmp_path / "simhash", "-s", f"SIMHASH_INDEX_URI={uri}")
    assert "Spider closed (simhash_index_error)" in simhash.log  # never mixed with MinHash
    assert "SIMHASH_ALGORITHM: stored 'minhash', this crawl 'simhash'" in simhash.log


def test_a_page_retried_from_its_callback_is_not_a_duplicate_of_itself(demo_site, tmp_path):
    path = sorted(ORIGINALS - {"/"})[0]
    result = run_crawl(demo_site, tmp_path, path, script=RETRY_FROM_CALLBACK_SCRIPT)
    assert result.returncode == 0, result.log[-3000:]
    assert result.items == [{"url": demo_site.url + path, "attempt": 1}]
    # the retry says the first answer was no content: it is taken back out of the index
    assert result.stats["simhash/pages/withdrawn"] == 1
    assert "simhash/pages/dropped" not in result.stats
    assert result.report == []


def _paused_and_resumed(demo_site, tmp_path, pause_after, *first_settings):
    """One JOBDIR job with the default index, run until ``pause_after`` responses
    (CLOSESPIDER_PAGECOUNT stands in for Ctrl-C; None: to the end), then run again."""
    job = ["-s", f"JOBDIR={tmp_path / 'job'}", "-s", f"SIMHASH_REPORT_FILE={tmp_path / 'd.jsonl'}"]
    pause = ["-s", f"CLOSESPIDER_PAGECOUNT={pause_after}"] if pause_after else []
    first = run_crawl(demo_site, tmp_path / "first", *job, *first_settings, *pause)
    expected_reason = "closespider_pagecount" if pause_after else "finished"
    assert first.stats["finish_reason"] == expected_reason, first.log[-3000:]
    paused_report = (tmp_path / "d.jsonl").read_text()
    second = run_crawl(demo_site, tmp_path / "second", *job, *first_settings)
    assert second.stats["finish_reason"] == "finished", second.log[-3000:]
    return first, second, paused_report, (tmp_path / "d.jsonl").read_text()


def test_a_resumed_job_drops_duplicates_of_pages_kept_before_the_pause(demo_site, tmp_path):
    # breadth first: the articles (before the pause), then the variants linked from them
    first, second, paused_report, final_report = _paused_and_resumed(
        demo_site, tmp_path, 16, "-s", "DEPTH_PRIORITY=1", "-s", "CONCURRENT_REQUESTS=1",
        "-s", "SCHEDULER_DISK_QUEUE=scrapy.squeues.PickleFifoDiskQueue",
        "-s", "SCHEDULER_MEMORY_QUEUE=scrapy.squeues.FifoMemoryQueue",
    )
    base = demo_site.url
    kept = first.item_paths(base) | second.item_paths(base)
    assert kept & (ORIGINALS | DROPPED | UNREACHED) == KEPT  # as if the job had never paused
    kept_before_the_pause = {base + path for path in first.item_paths(base)}
    resumed_rows = [json.loads(line) for line in final_report[len(paused_report):].splitlines()]
    assert any(row["duplicate_of"] in kept_before_the_pause and row["url"] != row["duplicate_of"]
               for row in resumed_rows)
    assert (tmp_path / "job" / "simhash.sqlite").is_file()


def test_a_job_run_again_adds_to_the_report_of_its_earlier_run(demo_site, tmp_path):
    # The earlier run goes to the end here, so that it has every drop whatever the order the
    # Scrapy version fetches pages in; the second run fetches only the start page again.
    _, _, earlier_report, final_report = _paused_and_resumed(demo_site, tmp_path, None)
    assert earlier_report and final_report.startswith(earlier_report)
    base = demo_site.url
    rows = [json.loads(line) for line in final_report.splitlines()]
    assert {row["url"][len(base):] for row in rows
            if row["kind"] == "page" and row["url"] != row["duplicate_of"]} == DETECTED


def test_an_index_that_cannot_be_opened_stops_the_crawl_at_once(demo_site, tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    uri = f"sqlite:///{not_a_folder / 'seen.db'}"
    previous = tmp_path / "reports" / "duplicates.jsonl"  # the report of an earlier crawl
    previous.parent.mkdir()
    previous.write_text('{"kind": "page", "url": "u", "duplicate_of": "v", "distance": 1}\n')
    result = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_INDEX_URI={uri}",
                       "-s", f"SIMHASH_REPORT_FILE={previous}", timeout=60)
    assert result.log.count("cannot open the index at SIMHASH_INDEX_URI") == 1  # pages, items
    assert "Spider closed (simhash_index_error)" in result.log
    assert result.returncode == 1  # `scrapy crawl && publish` publishes nothing
    assert "Traceback" not in result.log
    assert len(result.requested) <= 1  # at most the start page, already on its way
    # (Scrapy 2.13 fetches it before the stop takes effect: dropped, not passed on unchecked)
    assert result.items == [] and "the index is not open" not in result.log
    assert result.stats.get("simhash/pages/dropped/stopping", 0) == len(result.requested)
    assert previous.read_text().count("\n") == 1  # a crawl that never ran replaces nothing
    assert [p.name for p in previous.parent.iterdir()] == ["duplicates.jsonl"]


def _sqlite_index_that_fills_up(demo_site, tmp_path, stored: int) -> str:
    """A real SQLite index whose pages table refuses inserts once it holds ``stored`` pages, as a
    disk that fills up mid-crawl (made by a short crawl, emptied, then given a trigger)."""
    path = tmp_path / "seen.db"
    uri = f"sqlite:///{path}"
    made = run_crawl(demo_site, tmp_path / "made", "-s", f"SIMHASH_INDEX_URI={uri}",
                     "-s", "CLOSESPIDER_PAGECOUNT=2")
    assert made.returncode == 0, made.log[-3000:]
    db = sqlite3.connect(path)
    db.execute("DELETE FROM simhash_pages")
    db.execute("DELETE FROM simhash_items")
    db.execute(f"CREATE TRIGGER disk_full BEFORE INSERT ON simhash_pages "
               f"WHEN (SELECT count(*) FROM simhash_pages) >= {stored} "
               "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    db.commit()
    db.close()
    return uri


def test_an_index_failing_mid_crawl_with_stop_closes_the_crawl(demo_site, tmp_path):
    uri = _sqlite_index_that_fills_up(demo_site, tmp_path, stored=3)
    result = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_INDEX_URI={uri}",
                       "-s", "SIMHASH_ON_INDEX_ERROR=stop", "-s", "CONCURRENT_REQUESTS=1")
    stats = result.stats
    assert stats["finish_reason"] == "simhash_index_error", result.log[-3000:]
    assert result.returncode == 1  # a crawl the plugin stopped did not do its job
    logged = [line for line in result.log.splitlines() if "check_and_add failed" in line]
    assert len(logged) == 1 and "database or disk is full" in logged[0]  # once, with its cause
    errors = stats["simhash/index/errors"]
    assert errors >= 1
    assert stats["simhash/pages/kept/index_error"] == errors
    assert stats["simhash/index/pages/size"] == 3  # the pages stored before it are not forgotten
    checked = stats["simhash/pages/checked"]
    assert checked == 3 + errors + stats.get("simhash/pages/dropped", 0)
    assert len(result.requested) < len(PAGES) - 10  # stopped: a whole crawl requests ~all


def test_an_index_failing_mid_crawl_with_drop_drops_and_reports_the_unchecked(demo_site, tmp_path):
    uri = _sqlite_index_that_fills_up(demo_site, tmp_path, stored=3)
    result = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_INDEX_URI={uri}",
                       "-s", "SIMHASH_ON_INDEX_ERROR=drop")
    stats = result.stats
    assert result.returncode == 0, result.log[-3000:]
    assert stats["finish_reason"] == "finished"
    logged = [line for line in result.log.splitlines() if "database or disk is full" in line]
    assert len(logged) == 1 and "until it answers again" in logged[0], result.log[-3000:]
    unchecked = stats["simhash/pages/dropped/index_error"]
    # each failed once, or was not tried while the failures kept the breaker open
    decided_while_open = stats.get("simhash/index/breaker/decided/pages", 0)
    assert unchecked == stats["simhash/index/errors"] + decided_while_open
    assert stats["simhash/index/errors"] >= 1
    assert stats["simhash/index/pages/size"] == stats["simhash/pages/kept"] == 3
    unchecked_rows = [row for row in result.report
                      if row["kind"] == "page" and row["duplicate_of"] is None]
    assert len(unchecked_rows) == unchecked
    assert all(row["distance"] is None for row in unchecked_rows)
    assert not {row["url"] for row in unchecked_rows} & {item["url"] for item in result.items}
    assert f", {unchecked} dropped unchecked (index errors), 3 kept, " in result.log


def test_item_pipeline_alone_drops_duplicate_items(demo_site, tmp_path):
    result = run_crawl(demo_site, tmp_path, "-s", "ADDONS={}",
                       "-s", f'ITEM_PIPELINES={{"{PIPELINE}": 300}}')
    assert result.returncode == 0, result.log[-3000:]
    assert "simhash/pages/checked" not in result.stats
    kept = result.item_paths(demo_site.url)
    assert kept >= ORIGINALS
    # At least the items close to their original's; variants may also match one another.
    assert result.stats["simhash/items/dropped"] >= len(DROPPED - ITEM_MISSED)
    cluster_of = {member: o for o, members in clusters().items() for member in members}
    base = demo_site.url
    cluster_of["/partner/zh/exclusive"] = "/partner/en/exclusive"  # one page behind two URLs
    for row in result.report:
        url, duplicate_of = row["url"][len(base):], row["duplicate_of"][len(base):]
        assert cluster_of.get(url, url) == cluster_of.get(duplicate_of, duplicate_of)
    assert result.stats["item_dropped_reasons_count/NearDuplicateItem"] == (
        result.stats["simhash/items/dropped"]
    )
    assert all(row["kind"] == "item" and row["duplicate_of"] for row in result.report)


def test_downloader_middleware_alone_with_crawler_process(demo_site, tmp_path):
    extra = {"ADDONS": {}, "DOWNLOADER_MIDDLEWARES": {MIDDLEWARE: 540}}
    result = run_crawl(demo_site, tmp_path, json.dumps(extra), script=CRAWLER_PROCESS_SCRIPT)
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats["simhash/pages/dropped"] == len(DETECTED)
    assert "simhash/items/checked" not in result.stats
    assert result.item_paths(demo_site.url) & (ORIGINALS | DROPPED | UNREACHED) == KEPT


def test_settings_py_can_switch_the_addon_components_off(demo_site, tmp_path):
    switched_off = f'DOWNLOADER_MIDDLEWARES={{"{MIDDLEWARE}": null}}'
    result = run_crawl(demo_site, tmp_path, "-s", switched_off)
    assert result.returncode == 0, result.log[-3000:]
    assert "simhash/pages/checked" not in result.stats
    assert result.stats["simhash/items/dropped"] >= 1


@pytest.mark.parametrize("algorithm", ["minhash", "exact"])
def test_other_algorithms_drop_only_cluster_members(demo_site, tmp_path, algorithm):
    result = run_crawl(demo_site, tmp_path, "-s", f"SIMHASH_ALGORITHM={algorithm}")
    assert result.returncode == 0, result.log[-3000:]
    base = demo_site.url
    assert paths(result, base) >= ORIGINALS
    for row in (row for row in result.report if row["kind"] == "page"):
        path = row["url"][len(base):]
        original = next(o for o, members in clusters().items() if path in members)
        assert path != original and row["duplicate_of"] == base + original
    # Tracking parameters change nothing in the page: every algorithm catches them.
    tracked = {path for path in DROPPED if "utm_source" in path}
    assert tracked <= page_drops(result, base)
    assert result.stats["simhash/pages/dropped"] == len(page_drops(result, base))


def test_a_report_file_that_cannot_be_written_stops_the_crawl_at_once(demo_site, tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    report = not_a_folder / "duplicates.jsonl"
    result = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_REPORT_FILE={report}",
                       timeout=60)
    assert result.log.count("cannot write the duplicate report SIMHASH_REPORT_FILE") == 1
    assert "Spider closed (simhash_report_error)" in result.log
    assert result.returncode == 1 and "Traceback" not in result.log
    assert len(result.requested) <= 1  # at most the start page, already on its way
    assert result.log.count("Simhash: pages") <= 1  # one summary line


def test_a_report_file_that_is_a_folder_stops_the_crawl_at_once(demo_site, tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    result = run_crawl(demo_site, tmp_path / "out", "-s", f"SIMHASH_REPORT_FILE={folder}",
                       timeout=60)
    assert result.log.count("cannot write the duplicate report SIMHASH_REPORT_FILE") == 1
    assert "is a directory" in result.log
    assert "Spider closed (simhash_report_error)" in result.log
    assert len(result.requested) <= 1
    assert result.items == []  # the start page, if fetched, is dropped: the crawl is stopping
    assert list(folder.iterdir()) == []
