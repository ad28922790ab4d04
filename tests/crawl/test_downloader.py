"""The downloader middleware, built through get_crawler and fed responses directly."""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile

import pytest
from scrapy import Spider
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.downloader import NearDuplicatePage, SimhashDownloaderMiddleware
from scrapy_simhash.crawl.pipeline import SimhashPipeline
from scrapy_simhash.fingerprint import Fingerprinter

ARTICLE = " ".join(
    f"Sentence {n} tells how the river ferry crossed the harbour with {n} passengers aboard."
    for n in range(40)
)
OTHER = " ".join(
    f"Paragraph {n} explains why orchard growers light small fires on frosty spring nights."
    for n in range(40)
)


def page(url: str, text: str, *, status: int = 200, meta: dict | None = None) -> HtmlResponse:
    body = f"<html><body><h1>Story</h1><article><p>{text}</p></article></body></html>"
    return HtmlResponse(url, status=status, body=body.encode(), encoding="utf-8",
                        request=Request(url, meta=meta or {}))


@pytest.fixture
def build(middleware_factory):
    return middleware_factory


def process(middleware, response):
    return middleware.process_response(response.request, response)


def test_disabled_raises_not_configured():
    with pytest.raises(NotConfigured):
        SimhashDownloaderMiddleware.from_crawler(get_crawler(Spider, {"SIMHASH_ENABLED": False}))


@pytest.mark.parametrize("component", [SimhashDownloaderMiddleware, SimhashPipeline])
def test_disabled_is_off_whatever_the_other_settings_say(component):
    settings = {"SIMHASH_ENABLED": "false", "SIMHASH_INDEX_URI": "no_such_package.Index"}
    with pytest.raises(NotConfigured):
        component.from_crawler(get_crawler(Spider, settings))


def test_keeps_first_drops_near_duplicate_and_names_it(build):
    middleware, stats = build()
    first = page("http://a.test/1", ARTICLE)
    assert process(middleware, first) is first
    assert first.request.meta["simhash"] == Fingerprinter().fingerprint_html(first.body)
    with pytest.raises(NearDuplicatePage) as dropped:
        process(middleware, page("http://a.test/1?utm_source=x", ARTICLE))
    assert isinstance(dropped.value, IgnoreRequest)
    assert dropped.value.duplicate_of == "http://a.test/1"
    assert dropped.value.distance == 0
    assert "near-duplicate of http://a.test/1 (distance 0)" in str(dropped.value)
    kept = page("http://a.test/2", OTHER)
    assert process(middleware, kept) is kept
    assert stats.get_value("simhash/pages/checked") == 3
    assert stats.get_value("simhash/pages/kept") == 2
    assert stats.get_value("simhash/pages/dropped") == 1


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (Response("http://a.test/f.pdf", body=b"%PDF-1.4", request=Request("http://a.test/f.pdf")),
         "not_html"),
        (TextResponse("http://a.test/t.txt", body=ARTICLE.encode(), encoding="utf-8",
                      request=Request("http://a.test/t.txt")), "not_html"),
        (page("http://a.test/404", ARTICLE, status=404), "status"),
        (page("http://a.test/short", "Too short."), "too_short"),
        (page("http://a.test/opt-out", ARTICLE, meta={"dont_simhash": True}), "dont_simhash"),
    ],
)
def test_skipped_responses_pass_untouched_and_are_counted(build, response, reason):
    middleware, stats = build()
    assert process(middleware, response) is response
    assert stats.get_value(f"simhash/pages/skipped/{reason}") == 1
    assert not stats.get_value("simhash/pages/dropped")


def test_a_start_request_is_never_dropped(build):
    middleware, stats = build()
    process(middleware, page("http://a.test/story", ARTICLE))
    start = page("http://a.test/", ARTICLE, meta={"is_start_request": True})
    assert process(middleware, start) is start  # within the threshold, yet the crawl's root
    assert stats.get_value("simhash/pages/kept/start") == 1
    assert not stats.get_value("simhash/pages/dropped")
    with pytest.raises(IgnoreRequest):  # any other request is dropped as before
        process(middleware, page("http://a.test/copy", ARTICLE))


def test_a_page_too_short_to_check_is_named_at_debug(build, caplog):
    middleware, _ = build()
    caplog.set_level("DEBUG", logger="scrapy_simhash")
    process(middleware, page("http://a.test/short", "Too short."))
    assert [r.getMessage() for r in caplog.records if "unchecked" in r.getMessage()] == [
        "Simhash: kept page http://a.test/short unchecked (too_short)"
    ]


def test_dont_simhash_does_not_store_the_page(build):
    middleware, _ = build()
    process(middleware, page("http://a.test/1", ARTICLE, meta={"dont_simhash": True}))
    response = page("http://a.test/2", ARTICLE)
    assert process(middleware, response) is response


def test_huge_and_binary_bodies_never_raise(build):
    middleware, stats = build(SIMHASH_MAX_BODY_SIZE=1000)
    huge = page("http://a.test/huge", ARTICLE * 10)
    assert process(middleware, huge) is huge
    binary = HtmlResponse("http://a.test/bin", body=bytes(range(256)) * 3,
                          request=Request("http://a.test/bin"))
    assert process(middleware, binary) is binary
    assert stats.get_value("simhash/pages/skipped/too_large") == 1


def test_the_first_page_passed_unchecked_for_its_body_is_named_once(build, caplog):
    middleware, _ = build(SIMHASH_MAX_BODY_SIZE=1000)
    caplog.set_level("INFO", logger="scrapy_simhash")
    for number in range(2):
        process(middleware, page(f"http://a.test/huge{number}", ARTICLE * 10))
    notes = [r.getMessage() for r in caplog.records if "passed unchecked" in r.getMessage()]
    assert len(notes) == 1 and notes[0].startswith("Simhash: http://a.test/huge0 passed")
    assert "over SIMHASH_MAX_BODY_SIZE (1,000)" in notes[0]


def test_a_page_whose_charset_is_wrong_is_counted_and_named_once(build, caplog):
    """Russian in windows-1251 under a header that says UTF-8: every letter is U+FFFD, to
    the spider as to the check, so the page is too short; the cause is named, once."""
    middleware, stats = build()
    caplog.set_level("WARNING", logger="scrapy_simhash")
    body = ("<html><body><p>" + "Городской совет проголосовал за ремонт. " * 8
            + "</p></body></html>").encode("cp1251")
    for number in range(2):
        url = f"http://a.test/ru{number}"
        response = HtmlResponse(url, body=body, request=Request(url),
                                headers={"Content-Type": "text/html; charset=utf-8"})
        assert process(middleware, response) is response
    assert stats.get_value("simhash/pages/skipped/too_short") == 2
    assert stats.get_value("simhash/pages/undecoded") == 2
    notes = [r.getMessage() for r in caplog.records if "did not decode" in r.getMessage()]
    assert len(notes) == 1 and "http://a.test/ru0" in notes[0] and "utf-8" in notes[0]
    # a page too short to check because it is short is no such page
    process(middleware, page("http://a.test/short", "Слишком коротко."))
    assert stats.get_value("simhash/pages/undecoded") == 2


def test_a_utf8_page_under_a_legacy_label_matches_its_true_copy_and_is_named_once(build, caplog):
    """A site moved to UTF-8 whose template kept <meta charset="gb2312">: Scrapy's text is
    mojibake, the check reads UTF-8, so the page's copy under a true label is its duplicate."""
    middleware, stats = build()
    caplog.set_level("INFO", logger="scrapy_simhash")
    text = "<p>" + "市议会投票通过了修缮老桥的计划，工程将在明年春天开始。" * 8 + "</p>"
    true = f"<html><head><meta charset='utf-8'></head><body>{text}</body></html>"
    lying = true.replace("utf-8", "gb2312")
    def served(url: str, html: str) -> HtmlResponse:
        return HtmlResponse(url, body=html.encode(), request=Request(url),
                            headers={"Content-Type": "text/html"})

    assert process(middleware, served("http://a.test/zh", true)) is not None
    for number in range(2):
        with pytest.raises(NearDuplicatePage):
            process(middleware, served(f"http://b.test/zh{number}", lying))
    assert stats.get_value("simhash/pages/read_as_utf8") == 2
    notes = [r.getMessage() for r in caplog.records if "its body is UTF-8" in r.getMessage()]
    assert len(notes) == 1 and "http://b.test/zh0" in notes[0]


def test_utf16_pages_without_a_byte_order_mark_are_checked_not_binary(build):
    """Half NUL bytes, but the server's charset says UTF-16: text, fingerprinted as such."""
    middleware, stats = build()
    html = f"<html><body><h1>Story</h1><article><p>{ARTICLE}</p></article></body></html>"
    for number, codec in enumerate(("utf-16-le", "utf-16-be")):
        url = f"http://a.test/{number}"
        response = HtmlResponse(url, body=html.encode(codec), request=Request(url),
                                headers={"Content-Type": f"text/html; charset={codec}"})
        if number:
            with pytest.raises(NearDuplicatePage):
                process(middleware, response)
        else:
            assert process(middleware, response) is response
    assert stats.get_value("simhash/pages/skipped/binary") is None
    assert stats.get_value("simhash/pages/checked") == 2


class BrokenIndex:
    """An index whose every call fails (dotted-path backend)."""

    def __init__(self, **kwargs):
        pass

    def check_and_add(self, key, fingerprint):
        raise OSError("disk on fire")

    def __len__(self):
        return 0

    def close(self):
        pass


@pytest.mark.parametrize(("policy", "dropped"), [("keep", False), ("drop", True), ("stop", False)])
def test_index_errors_follow_the_policy_and_are_logged_once(build, caplog, policy, dropped):
    middleware, stats = build(SIMHASH_INDEX_URI=f"{__name__}.BrokenIndex",
                              SIMHASH_ON_INDEX_ERROR=policy)
    for n in range(3):
        response = page(f"http://a.test/{n}", ARTICLE)
        if dropped:
            with pytest.raises(NearDuplicatePage, match="index error"):
                process(middleware, response)
        else:
            assert process(middleware, response) is response
    assert stats.get_value("simhash/index/errors") == 3
    assert len([r for r in caplog.records if "disk on fire" in r.getMessage()]) == 1
    decision = "dropped" if dropped else "kept"
    assert stats.get_value(f"simhash/pages/{decision}") == 3
    assert stats.get_value(f"simhash/pages/{decision}/index_error") == 3
    caplog.set_level("INFO")
    middleware.spider_closed()
    messages = [record.getMessage() for record in caplog.records]
    summary = next(message for message in messages if message.startswith("Simhash: pages"))
    assert summary.startswith(
        "Simhash: pages 3 checked, 0 dropped as near-duplicates, 3 dropped unchecked (index "
        "errors), 0 kept," if dropped else
        "Simhash: pages 3 checked, 0 dropped as near-duplicates, 3 kept (3 unchecked: index "
        "errors),"
    ), summary


def test_one_index_outage_is_logged_once_for_pages_and_items(build, caplog):
    middleware, stats = build(SIMHASH_INDEX_URI=f"{__name__}.BrokenIndex")
    pipeline = SimhashPipeline.from_crawler(middleware.crawler)
    pipeline.spider_opened()
    process(middleware, page("http://a.test/1", ARTICLE))
    pipeline.process_item({"url": "http://a.test/1", "title": "Story", "body": ARTICLE})
    assert stats.get_value("simhash/pages/kept/index_error") == 1
    assert stats.get_value("simhash/items/kept/index_error") == 1
    assert len([r for r in caplog.records if "disk on fire" in r.getMessage()]) == 1
    pipeline.spider_closed()


def _sqlite_errors() -> list[sqlite3.OperationalError]:
    """Two real OperationalErrors of different causes: a locked database, a read-only one."""
    errors = []
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/a.db"
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("CREATE TABLE t (x)")
        holder.execute("BEGIN IMMEDIATE")
        waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
        reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        for connection, statement in ((waiter, "BEGIN IMMEDIATE"),
                                      (reader, "INSERT INTO t VALUES (1)")):
            try:
                connection.execute(statement)
            except sqlite3.OperationalError as error:
                errors.append(error)
            connection.close()
        holder.close()
    assert len(errors) == 2, errors
    return errors


class FailingSqliteIndex(BrokenIndex):
    """Fails like an SQLite file another process locks, then like a read-only one: two causes
    of one class (OperationalError), each to be logged once."""

    errors = _sqlite_errors()
    calls = 0

    def check_and_add(self, key, fingerprint):
        FailingSqliteIndex.calls += 1
        raise self.errors[self.calls % 2]


def test_two_causes_of_one_error_class_are_each_logged_once(build, caplog):
    middleware, stats = build(SIMHASH_INDEX_URI=f"{__name__}.FailingSqliteIndex")
    for n in range(4):
        process(middleware, page(f"http://a.test/{n}", ARTICLE))
    assert stats.get_value("simhash/index/errors") == 4
    logged = [r.getMessage() for r in caplog.records if "check_and_add failed" in r.getMessage()]
    assert len(logged) == (2 if sys.version_info >= (3, 11) else 1), logged


def test_report_file_lists_dropped_pages(build, tmp_path):
    report = tmp_path / "out" / "dups.jsonl"
    middleware, _ = build(SIMHASH_REPORT_FILE=str(report))
    process(middleware, page("http://a.test/1", ARTICLE))
    with pytest.raises(NearDuplicatePage):
        process(middleware, page("http://a.test/1/print", ARTICLE))
    middleware.spider_closed()
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert rows == [{"kind": "page", "url": "http://a.test/1/print",
                     "duplicate_of": "http://a.test/1", "distance": 0}]


def test_summary_line_is_logged_at_close(build, caplog):
    middleware, _ = build()
    process(middleware, page("http://a.test/1", ARTICLE))
    caplog.set_level("INFO")
    middleware.spider_closed()
    summary = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Simhash:")]
    assert len(summary) == 1
    assert "pages 1 checked, 0 dropped" in summary[0]


def test_a_retried_page_is_kept_when_it_matches_only_its_earlier_attempt(build):
    middleware, stats = build()
    first = page("http://a.test/1", ARTICLE)
    assert process(middleware, first) is first
    again = page("http://a.test/1", ARTICLE, meta={"retry_times": 1})
    assert process(middleware, again) is again
    assert stats.get_value("simhash/pages/kept/retry") == 1
    with pytest.raises(NearDuplicatePage):  # a retried mirror is still a mirror
        process(middleware, page("http://a.test/1?print=1", ARTICLE, meta={"retry_times": 1}))
    with pytest.raises(NearDuplicatePage):  # and a page fetched again on purpose, a duplicate
        process(middleware, page("http://a.test/1", ARTICLE))
    assert stats.get_value("simhash/index/pages/size") == 1


# -- the evidence rule: a drop needs evidence that the content is the same --------------------


class _Engine:
    """Collects what the middleware schedules again (a crawl's engine in the e2e tests)."""

    def __init__(self):
        self.crawled = []

    def crawl(self, request):
        self.crawled.append(request)


def _listing(n: int) -> str:
    intro = (
        "Running shoes for road and trail, chosen by our buyers for comfort and grip. Free "
        "delivery over fifty euros and free returns within thirty days on every pair we sell. "
        "Compare cushioning, drop and weight below, then filter by size and colour to find yours."
    )
    grid = "".join(
        f'<li><a href="/p/{n}-{i}">Trail runner {n * 20 + i}</a><span>{79 + n + i}.99 EUR'
        "</span><span>In stock</span></li>"
        for i in range(20)
    )
    return (f"<html><head><title>Running shoes - page {n}</title></head><body>"
            f"<nav><a href='/'>Home</a><a href='/shoes'>Shoes</a></nav><h1>Running shoes</h1>"
            f"<p>{intro}</p><ul class='products'>{grid}</ul></body></html>")


def listing_page(url: str, n: int) -> HtmlResponse:
    return HtmlResponse(url, body=_listing(n).encode(), encoding="utf-8", request=Request(url))


def test_listing_pages_with_one_intro_and_other_products_are_all_kept(build):
    middleware, stats = build()
    for n in range(1, 9):
        process(middleware, listing_page(f"http://shop.test/shoes?page={n}", n))
    assert stats.get_value("simhash/pages/dropped") is None
    assert stats.get_value("simhash/pages/kept") == 8
    # the same listing again behind a tracking parameter is still a duplicate
    with pytest.raises(NearDuplicatePage):
        process(middleware, listing_page("http://shop.test/shoes?page=3&utm_source=x", 3))


def test_a_candidate_the_evidence_does_not_confirm_is_kept(build):
    import random

    middleware, stats = build()
    words = ARTICLE.split()
    random.Random(1).shuffle(words)  # the same words, so the same SimHash; other 3-grams
    process(middleware, page("http://a.test/1", ARTICLE))
    process(middleware, page("http://a.test/2", " ".join(words)))
    assert stats.get_value("simhash/pages/dropped") is None
    assert stats.get_value("simhash/pages/kept/unconfirmed") == 1


def test_dry_run_counts_and_reports_the_drop_but_drops_nothing(build):
    middleware, stats = build(SIMHASH_DRY_RUN=True)
    process(middleware, page("http://a.test/1", ARTICLE))
    second = page("http://a.test/1?print=1", ARTICLE)
    assert process(middleware, second) is second
    assert stats.get_value("simhash/pages/dropped") == 1
    assert stats.get_value("simhash/pages/dropped/dry_run") == 1
    assert stats.get_value("simhash/index/pages/size") == 1  # as the real drop would leave it


BAN = ("<html><head><title>Access denied</title></head><body><h1>Access denied</h1><p>Please "
       "verify you are a human. Your request looked automated. If you believe this is an error "
       "contact the site owner with the reference below and try again later.</p></body></html>")


def ban_page(url: str) -> HtmlResponse:
    return HtmlResponse(url, body=BAN.encode(), encoding="utf-8", request=Request(url))


def test_a_page_matched_by_many_with_little_text_is_a_template(build, caplog):
    from scrapy_simhash.crawl.dedup import TEMPLATE_MATCHES

    caplog.set_level("INFO", logger="scrapy_simhash")
    middleware, stats = build()
    middleware.crawler.engine = engine = _Engine()
    process(middleware, ban_page("http://a.test/0"))
    for n in range(1, TEMPLATE_MATCHES):
        with pytest.raises(NearDuplicatePage):
            process(middleware, ban_page(f"http://a.test/{n}"))
    # the next match makes it a template: kept, and the ones dropped so far come back
    for n in range(TEMPLATE_MATCHES, TEMPLATE_MATCHES + 3):
        process(middleware, ban_page(f"http://a.test/{n}"))
    assert stats.get_value("simhash/pages/templates") == 1
    assert [r.url for r in engine.crawled] == [f"http://a.test/{n}"
                                              for n in range(1, TEMPLATE_MATCHES)]
    assert all(r.dont_filter for r in engine.crawled)
    assert sum("taken for a template" in r.getMessage() for r in caplog.records) == 1


def test_a_retried_page_is_withdrawn_and_its_duplicates_fetched_again(build):
    from scrapy.downloadermiddlewares.retry import get_retry_request

    middleware, stats = build()
    middleware.crawler.engine = engine = _Engine()
    first = ban_page("http://a.test/1")
    process(middleware, first)
    with pytest.raises(NearDuplicatePage):
        process(middleware, ban_page("http://a.test/2"))
    retry = get_retry_request(first.request, spider=middleware.crawler.spider, reason="ban")
    middleware.process_request(retry)
    assert [r.url for r in engine.crawled] == ["http://a.test/2"]
    assert stats.get_value("simhash/pages/refetched") == 1
    # the retried page is checked afresh: no longer in the index, it is kept
    answer = ban_page("http://a.test/1")
    answer.request.meta.update(retry.meta)
    assert process(middleware, answer) is answer


def test_a_page_marked_not_content_is_not_fingerprinted(build):
    from scrapy_simhash.crawl.downloader import mark_not_content

    middleware, stats = build()
    response = page("http://a.test/1", ARTICLE)
    mark_not_content(response)
    process(middleware, response)
    assert stats.get_value("simhash/pages/skipped/not_content") == 1
    assert stats.get_value("simhash/index/pages/size") == 0


def test_a_page_its_callback_marks_not_content_is_withdrawn_after_the_callback(build):
    from scrapy_simhash.crawl.downloader import mark_not_content
    from scrapy_simhash.spidermiddleware import SimhashSpiderMiddleware

    middleware, stats = build()
    middleware.crawler.engine = engine = _Engine()
    spider_middleware = SimhashSpiderMiddleware.from_crawler(middleware.crawler)
    first = ban_page("http://a.test/1")
    process(middleware, first)
    with pytest.raises(NearDuplicatePage):
        process(middleware, ban_page("http://a.test/2"))

    def callback(response):
        mark_not_content(response)
        yield from ()

    list(spider_middleware.process_spider_output(first, callback(first)))
    assert stats.get_value("simhash/pages/withdrawn") == 1
    assert [r.url for r in engine.crawled] == ["http://a.test/2"]


def test_the_retry_of_a_page_marked_not_content_is_checked_again(build):
    from scrapy.downloadermiddlewares.retry import get_retry_request

    from scrapy_simhash.crawl.downloader import mark_not_content

    middleware, stats = build()
    middleware.crawler.engine = _Engine()
    first = ban_page("http://a.test/1")
    process(middleware, first)
    mark_not_content(first)  # the callback's verdict, then its retry: a copy of the meta
    retry = get_retry_request(first.request, spider=middleware.crawler.spider, reason="ban")
    middleware.process_request(retry)
    answer = page("http://a.test/1", ARTICLE)
    answer.request.meta.update(retry.meta)
    assert process(middleware, answer) is answer
    assert stats.get_value("simhash/pages/skipped/not_content") is None
    assert stats.get_value("simhash/pages/kept") == 2


def test_a_page_stored_without_its_evidence_is_not_stored_twice(build):
    middleware, stats = build()
    first = page("http://a.test/1", ARTICLE)
    # a crawl killed between committing a fingerprint and its evidence (an index on disk)
    middleware.dedup.index.add(first.url, Fingerprinter().fingerprint_html(first.body))
    with pytest.raises(NearDuplicatePage):  # the index already holds it
        process(middleware, page("http://a.test/1", ARTICLE))
    # another page like it is not confirmed by the missing evidence: kept
    other = page("http://a.test/2", ARTICLE)
    assert process(middleware, other) is other
    assert stats.get_value("simhash/pages/kept/unconfirmed") == 1
    assert stats.get_value("simhash/index/pages/size") == 1
