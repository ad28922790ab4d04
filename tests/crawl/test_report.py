"""The duplicate report and the summary line shared by the components of one crawl."""

from __future__ import annotations

import errno
import logging
from unittest import mock

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.report import CrawlSession, DuplicateReport
from scrapy_simhash.crawl.settings import SimhashSettingError


def test_a_report_path_that_is_a_folder_fails_when_the_report_opens(tmp_path):
    with pytest.raises(IsADirectoryError):
        DuplicateReport(tmp_path).open()
    assert list(tmp_path.iterdir()) == []



def test_a_resumed_report_is_continued_byte_for_byte(tmp_path):
    previous = tmp_path / "dups.jsonl"
    earlier = b'{"kind": "page", "url": "http://a/\xff"}\n'  # not UTF-8: kept as it is
    previous.write_bytes(earlier)
    report = DuplicateReport(previous, resume=True)
    report.write("page", "http://b/", "http://c/", 2)
    report.close()
    assert previous.read_bytes() == earlier + (
        b'{"kind": "page", "url": "http://b/", "duplicate_of": "http://c/", "distance": 2}\n')


def test_a_resumed_report_that_cannot_be_copied_leaves_no_temporary_file(tmp_path):
    previous = tmp_path / "dups.jsonl"
    previous.write_text('{"kind": "page", "url": "http://a/"}\n', encoding="utf-8")
    report = DuplicateReport(previous, resume=True)
    full = OSError(errno.ENOSPC, "No space left on device")
    with mock.patch("shutil.copyfileobj", side_effect=full), pytest.raises(OSError, match="space"):
        report.open()
    assert list(tmp_path.iterdir()) == [previous]
    report.close()  # nothing to move into place: the previous report stays
    assert previous.read_text(encoding="utf-8") == '{"kind": "page", "url": "http://a/"}\n'


def test_a_crawl_whose_index_was_unusable_leaves_the_previous_report(tmp_path, caplog):
    path = tmp_path / "dups.jsonl"
    path.write_text("previous crawl\n")
    session = CrawlSession(get_crawler(), str(path))
    assert session.component_opened("pages")
    session.index_unusable = True
    with caplog.at_level(logging.INFO, logger="scrapy_simhash.crawl.report"):
        session.component_closed("pages")
    assert path.read_text() == "previous crawl\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dups.jsonl"]  # the temporary file is gone
    assert "Simhash: nothing checked" in caplog.text


def test_a_report_that_cannot_be_moved_into_place_still_gives_the_summary(tmp_path, caplog):
    path = tmp_path / "dups.jsonl"
    session = CrawlSession(get_crawler(), str(path))
    assert session.component_opened("pages")
    session.record_duplicate("page", "http://a/2", "http://a/1", 3)
    path.mkdir()  # taken by a folder while the crawl ran: os.replace fails at close
    with caplog.at_level(logging.INFO, logger="scrapy_simhash.crawl.report"):
        session.component_closed("pages")
    assert caplog.text.count("cannot write the duplicate report") == 1
    assert "Simhash: nothing checked" in caplog.text
    assert [p.name for p in tmp_path.iterdir()] == ["dups.jsonl"]


def _crawler_of(name: str, crawling: bool = True):
    crawler = get_crawler(Spider)
    crawler.spider = crawler._create_spider(name)
    crawler.crawling = crawling  # as Crawler.crawl() sets it before building the components
    return crawler


def test_the_report_path_may_name_the_spider_and_the_time(tmp_path):
    session = CrawlSession(_crawler_of("news"), str(tmp_path / "%(name)s-%(time)s.jsonl"))
    name = session.report.path.name
    assert name.startswith("news-") and name.endswith(".jsonl") and ":" not in name
    with pytest.raises(SimhashSettingError, match=r"SIMHASH_REPORT_FILE.*no attribute 'nope'"):
        CrawlSession(_crawler_of("news"), str(tmp_path / "%(nope)s.jsonl"))
    plain = CrawlSession(_crawler_of("news"), str(tmp_path / "100%.jsonl"))
    assert plain.report.path.name == "100%.jsonl"


def test_two_crawls_of_one_process_cannot_share_a_report(tmp_path):
    path = str(tmp_path / "dups.jsonl")
    first = CrawlSession.of(_crawler_of("one"), path)
    with pytest.raises(SimhashSettingError, match=r"spider 'one'\) writes"):
        CrawlSession.of(_crawler_of("two"), path)
    first.component_opened("pages")
    first.component_closed("pages")  # once the first has closed, its file is free
    assert first.crawler not in CrawlSession._sessions  # and its crawler is not kept alive
    CrawlSession.of(_crawler_of("three"), path)
    failed = _crawler_of("six")
    CrawlSession.of(failed, str(tmp_path / "other.jsonl"))
    failed.crawling = False  # a crawl that failed at start-up (its session never closes)
    CrawlSession.of(_crawler_of("seven"), str(tmp_path / "other.jsonl"))
    named = str(tmp_path / "%(name)s.jsonl")  # the way to give each crawl its own file
    assert CrawlSession.of(_crawler_of("four"), named).report.path.name == "four.jsonl"
    assert CrawlSession.of(_crawler_of("five"), named).report.path.name == "five.jsonl"


def test_a_report_that_cannot_be_written_mid_crawl_is_given_up_once(tmp_path, caplog):
    """A full disk (``/dev/full``): logged once, counted, the previous report left, no half
    report published, and no error reaches the component that dropped the page."""
    path = tmp_path / "dups.jsonl"
    path.write_text("previous crawl\n")
    crawler = get_crawler(Spider)
    session = CrawlSession(crawler, str(path))
    assert session.component_opened("pages")
    session.record_duplicate("page", "http://a/2", "http://a/1", 3)
    report = session.report
    report._file.close()
    report._file = open("/dev/full", "w", buffering=1, encoding="utf-8")  # noqa: SIM115
    with caplog.at_level(logging.INFO, logger="scrapy_simhash.crawl.report"):
        for n in range(3, 6):
            session.record_duplicate("page", f"http://a/{n}", "http://a/1", 3)
        session.component_closed("pages")
    assert caplog.text.count("cannot write the duplicate report") == 1
    assert "its 2 rows so far and the later ones are lost" in caplog.text
    assert crawler.stats.get_value("simhash/report/errors") == 1
    assert path.read_text() == "previous crawl\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dups.jsonl"]  # the temporary file is gone


def test_the_summary_says_what_a_dry_run_would_drop_and_what_was_fetched_again():
    from scrapy_simhash.crawl.report import summary_line

    stats = {"simhash/pages/checked": 10, "simhash/pages/dropped": 4, "simhash/pages/kept": 6,
             "simhash/pages/dropped/dry_run": 4, "simhash/index/pages/size": 6}
    assert "4 would be dropped as near-duplicates (SIMHASH_DRY_RUN: none was)" in summary_line(
        stats)
    stats = {"simhash/pages/checked": 10, "simhash/pages/dropped": 4, "simhash/pages/kept": 6,
             "simhash/pages/refetched": 3, "simhash/pages/withdrawn": 1,
             "simhash/index/pages/size": 5}
    line = summary_line(stats)
    assert ("1 dropped as near-duplicates (3 more dropped, then fetched again: the page they "
            "matched turned out to be no content or a template)") in line
    assert "index holds 5 pages (1 withdrawn as no content)" in line
    stats.update({"simhash/urls/skipped": 7, "simhash/urls/refetched": 3})
    assert summary_line(stats).endswith(
        "; 7 requests not downloaded by learned URL rules (3 fetched after all: their rule was "
        "retired)")


def test_learned_url_rules_are_rows_of_the_report_beside_the_drops(tmp_path):
    import json

    path = tmp_path / "dups.jsonl"
    session = CrawlSession(get_crawler(), str(path))
    assert session.component_opened("pages")
    session.record_duplicate("page", "http://a/x?ref=1", "http://a/x", 0)
    session.record_url_rule("a: parameter 'ref' does not change the page", host="a",
                            rewrite="param", name="ref", confirmations=4, skipped=12,
                            retired=False)
    session.component_closed("pages")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows[1] == {"kind": "url_rule", "id": "a: parameter 'ref' does not change the page",
                       "host": "a", "rewrite": "param", "name": "ref", "confirmations": 4,
                       "skipped": 12, "retired": False}
    from scrapy_simhash.cli.htmlreport import read_duplicates

    assert [row.id for row in read_duplicates(path)] == ["http://a/x?ref=1"]  # the CLI's view
