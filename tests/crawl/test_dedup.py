"""DecisionOrder: with worker processes, decisions follow the order the checks began."""

from __future__ import annotations

import asyncio
import sqlite3
import sys

import pytest

from scrapy_simhash.crawl.dedup import DecisionOrder, error_kind
from scrapy_simhash.index.base import NearDuplicateIndexError


def _run(coroutine):
    """Run on the loop of the installed asyncio reactor (tests/crawl/conftest.py)."""
    from twisted.internet import reactor

    return reactor._asyncioEventloop.run_until_complete(coroutine)


def _checker(order: DecisionOrder, log: list[str]):
    async def check(name: str, signature_seconds: float) -> None:
        ticket = order.ticket()
        try:
            await asyncio.sleep(signature_seconds)  # the worker's answer arrives
            await order.wait(ticket)
            log.append(name)  # the decision
        finally:
            order.release(ticket)

    return check


def test_decisions_follow_the_order_checks_began_not_the_order_answers_came():
    order, log = DecisionOrder(), []
    check = _checker(order, log)

    async def crawl():
        await asyncio.gather(check("first", 0.05), check("second", 0.0), check("third", 0.02))

    _run(crawl())
    assert log == ["first", "second", "third"]


def test_a_check_given_up_does_not_hold_up_the_later_ones():
    order, log = DecisionOrder(), []
    check = _checker(order, log)

    async def crawl():
        stuck = asyncio.ensure_future(check("stuck", 60))
        waiting = asyncio.ensure_future(check("waiting", 0.0))
        later = asyncio.ensure_future(check("later", 0.01))
        await asyncio.sleep(0.03)
        assert log == []  # both wait for the stuck one
        stuck.cancel()
        await asyncio.gather(waiting, later)

    _run(crawl())
    assert log == ["waiting", "later"]


def test_a_check_given_up_while_waiting_for_its_turn_is_skipped():
    order, log = DecisionOrder(), []
    check = _checker(order, log)

    async def crawl():
        first = asyncio.ensure_future(check("first", 0.05))
        second = asyncio.ensure_future(check("second", 0.0))
        third = asyncio.ensure_future(check("third", 0.0))
        await asyncio.sleep(0.01)
        second.cancel()  # while it waits for "first"
        await asyncio.gather(first, third)

    _run(crawl())
    assert log == ["first", "third"]


def _raised(function, *args):
    try:
        function(*args)
    except Exception as error:
        return error
    raise AssertionError("nothing raised")


def test_error_kinds_tell_sqlite_failures_of_one_class_apart(tmp_path):
    db = sqlite3.connect(tmp_path / "a.db")
    db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    db.execute("CREATE TRIGGER full BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'full'); END")
    constraint = _raised(db.execute, "INSERT INTO t VALUES (1)")
    missing = _raised(db.execute, "SELECT * FROM nowhere")
    db.close()
    assert type(constraint).__name__ == "IntegrityError"
    assert type(missing).__name__ == "OperationalError"
    if sys.version_info >= (3, 11):  # sqlite_errorname
        assert error_kind(constraint) == "IntegrityError SQLITE_CONSTRAINT_TRIGGER"
        assert error_kind(missing) == "OperationalError SQLITE_ERROR"


def test_error_kinds_take_a_redis_reply_code_from_the_wrapped_error():
    redis = pytest.importorskip("redis")
    kinds = []
    for reply in ("OOM command not allowed when used memory > 'maxmemory'.",
                  "NOREPLICAS Not enough good replicas to write.", "bad input given"):
        wrapped = NearDuplicateIndexError(f"check_and_add redis://h/0: {reply}")
        wrapped.__cause__ = redis.ResponseError(reply)
        kinds.append(error_kind(wrapped))
    assert kinds == ["NearDuplicateIndexError OOM", "NearDuplicateIndexError NOREPLICAS",
                     "NearDuplicateIndexError"]
    assert error_kind(OSError("NO SPACE")) == "OSError"  # an OS error's text is no code


def test_a_check_cancelled_on_a_twisted_reactor_is_cancelled_not_a_signature_error(caplog):
    """Without asyncio the worker's answer is a Deferred, and Twisted's CancelledError is an
    Exception: it must end the check, not be counted as an extractor failure."""
    from scrapy import Spider
    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import CancelledError, Deferred

    from scrapy_simhash.crawl.dedup import Deduplicator
    from scrapy_simhash.crawl.settings import build_detector, load_config

    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0})
    config = load_config(crawler.settings)
    dedup = Deduplicator(crawler, config, build_detector(config), "pages")
    dedup.open()
    answer: Deferred = Deferred()  # what a worker was handed
    check = Deferred.fromCoroutine(
        dedup.check_in_order("http://a.test/1", lambda subject: 1 << 70, "page", answer)
    )
    check.cancel()  # an extension cancelling the download, say
    failures = []
    check.addErrback(failures.append)
    assert [type(failure.value) for failure in failures] == [CancelledError]
    assert crawler.stats.get_value("simhash/pages/skipped/error") is None
    assert "signature" not in caplog.text
    later = Deferred.fromCoroutine(  # its ticket was released: the next check is decided
        dedup.check_in_order("http://a.test/2", lambda subject: 1 << 70, "page"))
    assert later.result.action == "kept"
    dedup.close()
