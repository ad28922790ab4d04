"""A crawl whose index freezes mid-crawl never waits on it: a real crawl of a loopback site
(``benchmarks/index_outage.py``, which also times it beside the inline calls) while a real
``redis-server`` (tests/redisfixture.py) is SIGSTOPped for 6 s, or while another connection
holds an SQLite file's write lock for 6 s; and a crawl whose Redis goes away for good."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from functools import partial

import pytest
from redisfixture import start_or_skip

from benchmarks.index_outage import (
    crawl_with_a_freeze,
    received_while_frozen,
    sigstopped,
    write_locked,
)

PAGES = 80  # ~20 s at 0.25 s a page: time after the freeze for the breaker to close
FREEZE_AFTER = 10  # requests served before Redis is frozen


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server of this test's own: it is frozen, which the session's must not be."""
    server = start_or_skip(tmp_path / "redis")
    yield server
    server.stop()


@pytest.mark.scrapy_version_independent  # the index's own thread, not Scrapy's
@pytest.mark.timeout(60)  # a crawl of ~20 s, plus its start-up
def test_a_frozen_redis_never_stalls_the_crawl_and_every_page_arrives(own_redis):
    result = crawl_with_a_freeze(
        f"{own_redis.url}?prefix=outage", partial(sigstopped, own_redis.process.pid),
        pages=PAGES, delay=0.25, freeze_after=FREEZE_AFTER, freeze=6.0,
    )
    assert_never_stalled(result)


@pytest.mark.scrapy_version_independent  # the index's own thread, not Scrapy's
@pytest.mark.timeout(60)  # a crawl of ~20 s, plus its start-up
def test_a_locked_sqlite_file_never_stalls_the_crawl_and_every_page_arrives(tmp_path):
    """Another process holds the file's write lock for 6 s (SQLite's own wait, 30 s, is longer
    than the deadline asked for here)."""
    db = tmp_path / "index.db"
    result = crawl_with_a_freeze(
        f"sqlite:///{db}", partial(write_locked, db), pages=PAGES, delay=0.25,
        freeze_after=FREEZE_AFTER, freeze=6.0, settings={"SIMHASH_INDEX_TIMEOUT": 1},
    )
    assert_never_stalled(result)


@pytest.mark.scrapy_version_independent  # the index's own thread, not Scrapy's
@pytest.mark.timeout(60)
def test_a_redis_gone_for_good_is_said_once_and_never_said_to_be_back(own_redis):
    @contextlib.contextmanager
    def stopped() -> Iterator[None]:
        own_redis.stop()  # and never started again
        yield

    # pages further apart than the index's flushes, so that a flush would be the first call
    # after each cool-down: the probe, were it admitted as one
    result = crawl_with_a_freeze(
        f"{own_redis.url}?prefix=gone", stopped, pages=10, delay=1.6, freeze_after=3, freeze=0.0,
    )
    assert result["returncode"] == 0, result["log"][-3000:]
    assert len(result["received"]) == 10  # SIMHASH_ON_INDEX_ERROR="keep": every page
    stats = result["stats"]
    assert stats["simhash/index/breaker/opened"] == 1
    assert "simhash/index/breaker/closed" not in stats
    # every page after the first few was kept unchecked, most without a call (the breaker open)
    assert stats["simhash/pages/kept/index_error"] >= 10 - 3 - 1
    assert stats["simhash/index/breaker/decided/pages"] >= 3
    log = result["log"]
    assert log.count("until it answers again") == 1  # one line for the outage
    assert "answers again after" not in log
    assert "Traceback" not in log
    assert " ERROR: " not in log  # SIMHASH_ON_INDEX_ERROR="keep": an outage it tolerates
    assert log.count("Connection refused") <= 1


@pytest.mark.scrapy_version_independent  # the index's own thread, not Scrapy's
@pytest.mark.timeout(90)
def test_a_redis_frozen_when_the_crawl_ends_holds_up_its_end_a_second_and_says_so(own_redis):
    """SIGSTOPped until well after the last page: the close does not wait for the calls queued
    behind the ones that hang (each a socket timeout, then a lost reply's resolution)."""
    result = crawl_with_a_freeze(
        f"{own_redis.url}?prefix=end", partial(sigstopped, own_redis.process.pid), pages=20,
        delay=0.1, freeze_after=12, freeze=20.0,
    )
    assert result["returncode"] == 0, result["log"][-3000:]
    assert len(result["received"]) == 20
    log = result["log"]

    def when(words: str) -> datetime:
        line = next(line for line in log.splitlines() if words in line)
        return datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S")

    assert (when("Spider closed (finished)") - when("Closing spider (finished)")).seconds <= 4
    assert log.count("was not closed") == 1, log[-3000:]
    assert " ERROR: " not in log  # the breaker said the index was away: expected, a WARNING


@pytest.mark.scrapy_version_independent  # the index's own thread, not Scrapy's
@pytest.mark.timeout(60)
def test_a_redis_down_at_start_up_the_crawl_goes_on_and_checks_once_it_answers(own_redis):
    """An outage at start-up is an outage: SIMHASH_ON_INDEX_ERROR="keep" rides it out (pages
    kept unchecked, said once), and the index is opened by the first call after it is back."""
    own_redis.stop()

    @contextlib.contextmanager
    def started() -> Iterator[None]:
        yield
        own_redis.start()

    pages = 30
    result = crawl_with_a_freeze(
        f"{own_redis.url}?prefix=late", started, pages=pages, delay=0.25, freeze_after=5,
        freeze=0.0,
    )
    assert result["returncode"] == 0, result["log"][-3000:]
    assert len(result["received"]) == pages  # every page reached its callback
    stats = result["stats"]
    assert stats["finish_reason"] == "finished"
    assert stats["simhash/index/breaker/opened"] == 1
    assert stats["simhash/index/breaker/closed"] == 1
    unchecked = stats["simhash/pages/kept/index_error"]
    assert unchecked >= 5  # the pages before Redis started
    checked = stats["simhash/pages/kept"] - unchecked
    assert checked >= 10  # and most after it: looked up and stored
    assert stats["simhash/index/pages/size"] == checked
    log = result["log"]
    assert log.count("cannot reach the index") == 1, log[-3000:]
    assert log.count("answers again after") == 1
    assert "Traceback" not in log
    assert " ERROR: " not in log


@pytest.mark.scrapy_version_independent
@pytest.mark.timeout(60)
def test_a_redis_down_at_start_up_stops_a_crawl_whose_policy_is_stop(own_redis):
    own_redis.stop()
    result = crawl_with_a_freeze(
        f"{own_redis.url}?prefix=late", contextlib.nullcontext, pages=5, delay=0.0,
        freeze_after=100, freeze=0.0, settings={"SIMHASH_ON_INDEX_ERROR": "stop"},
    )
    log = result["log"]
    assert "cannot open the index" in log and own_redis.url in log, log[-3000:]
    assert "Stopping the crawl" in log
    assert len(result["received"]) == 0


def assert_never_stalled(result: dict) -> None:
    assert result["returncode"] == 0, result["log"][-3000:]
    stats = result["stats"]
    # the reactor kept serving: no beat of the 0.1 s heartbeat came a second late
    assert result["largest_gap"] < 1.0
    assert received_while_frozen(result) >= 10  # downloads and callbacks went on meanwhile
    assert len(result["received"]) == PAGES  # SIMHASH_ON_INDEX_ERROR="keep": every page
    assert stats["finish_reason"] == "finished"
    assert stats["simhash/pages/checked"] == PAGES
    assert stats["simhash/index/timeouts"] >= 1
    assert stats["simhash/index/breaker/opened"] == 1
    assert stats["simhash/index/breaker/closed"] == 1  # it answered again before the end
    decided = stats["simhash/index/breaker/decided/pages"]
    assert decided >= 5
    assert stats["simhash/pages/kept/index_error"] >= decided
    # at most FREEZE_AFTER pages were decided before the freeze: others were after it
    assert stats["simhash/pages/kept"] - stats["simhash/pages/kept/index_error"] > FREEZE_AFTER
    log = result["log"]
    assert log.count("answers again after") == 1  # one line when it closed
    assert log.count("until it answers again") == 1  # one line when it opened
    assert "Traceback" not in log
