"""The duplicate report and the summary line shared by the components of one crawl."""

from __future__ import annotations

import logging

import pytest
from scrapy.utils.test import get_crawler

from scrapy_simhash.report import CrawlSession, DuplicateReport


def test_a_report_path_that_is_a_folder_fails_when_the_report_opens(tmp_path):
    with pytest.raises(IsADirectoryError):
        DuplicateReport(tmp_path).open()
    assert list(tmp_path.iterdir()) == []


def test_a_crawl_whose_index_was_unusable_leaves_the_previous_report(tmp_path, caplog):
    path = tmp_path / "dups.jsonl"
    path.write_text("previous crawl\n")
    session = CrawlSession(get_crawler(), str(path))
    assert session.component_opened("pages")
    session.index_unusable = True
    with caplog.at_level(logging.INFO, logger="scrapy_simhash.report"):
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
    with caplog.at_level(logging.INFO, logger="scrapy_simhash.report"):
        session.component_closed("pages")
    assert caplog.text.count("cannot write the duplicate report") == 1
    assert "Simhash: nothing checked" in caplog.text
    assert [p.name for p in tmp_path.iterdir()] == ["dups.jsonl"]
