"""DecisionOrder: with worker processes, decisions follow the order the checks began; the
index's calls off the reactor: its thread, deadline and circuit breaker; what an earlier
crawl stored on a persistent index."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading

import pytest
from scrapy import Spider

from scrapy_simhash.crawl.dedup import DecisionOrder, error_kind
from scrapy_simhash.crawl.indexcalls import (
    CircuitBreaker,
    IndexLane,
    IndexTimeout,
    opens_breaker,
)
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


# -- index calls off the reactor (scrapy_simhash.crawl.indexcalls) -------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_on_a_failure_and_lets_one_probe_through_after_the_cool_down():
    clock = _Clock()
    breaker = CircuitBreaker(cooldown=1.0, max_cooldown=4.0, clock=clock)
    assert breaker.admit() == (True, False)
    assert breaker.failed(probe=False) is True  # opened
    assert breaker.failed(probe=False) is False  # a call admitted before it opened: no news
    assert breaker.admit() == (False, False)
    clock.now += 1.0
    assert breaker.admit() == (True, True)  # the probe
    assert breaker.admit() == (False, False)  # one at a time
    assert breaker.failed(probe=True) is False  # still open, for twice as long
    clock.now += 1.5
    assert breaker.admit() == (False, False)
    clock.now += 0.5
    assert breaker.admit() == (True, True)
    breaker.failed(probe=True)
    clock.now += 4.0  # capped at max_cooldown
    assert breaker.admit() == (True, True)
    assert breaker.succeeded(probe=True) is True  # closed
    assert breaker.admit() == (True, False)
    breaker.failed(probe=False)
    assert breaker.retry_at == clock.now + 1.0  # the cool-down starts over


def test_only_the_probe_closes_the_breaker():
    clock = _Clock()
    breaker = CircuitBreaker(clock=clock)
    breaker.failed(probe=False)
    assert breaker.succeeded(probe=False) is False  # admitted before it opened
    assert breaker.state == CircuitBreaker.OPEN
    assert breaker.succeeded(probe=True) is False  # not half-open: no probe was let through
    assert breaker.state == CircuitBreaker.OPEN


def test_errors_about_one_call_do_not_open_the_breaker():
    assert opens_breaker(NearDuplicateIndexError("Redis unreachable"))
    assert opens_breaker(sqlite3.OperationalError("database is locked"))
    assert opens_breaker(IndexTimeout("check_and_add", 1.0, started=True))
    assert not opens_breaker(ValueError("key must be at most 65535 bytes"))


def test_a_lane_runs_calls_in_order_and_never_runs_one_cancelled_before_it_started():
    lane = IndexLane()
    release, ran = threading.Event(), []
    try:
        blocker = lane.submit(release.wait)
        first = lane.submit(ran.append, "first")
        cancelled = lane.submit(ran.append, "cancelled")
        last = lane.submit(ran.append, "last")
        assert cancelled.cancel()
        release.set()
        assert blocker.result(timeout=10) is True
        last.result(timeout=10)
        assert first.done() and ran == ["first", "last"]
    finally:
        release.set()
        lane.stop()


def _offloaded(db, timeout: float = 0.2, **settings):
    from scrapy.utils.test import get_crawler

    from scrapy_simhash.crawl.dedup import Deduplicator
    from scrapy_simhash.crawl.settings import build_detector, load_config

    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0, "SIMHASH_INDEX_URI": f"sqlite:///{db}",
                                   "SIMHASH_INDEX_TIMEOUT": timeout, **settings})
    config = load_config(crawler.settings)
    dedup = Deduplicator(crawler, config, build_detector(config), "pages")
    dedup.open()
    return dedup


#: Three 128-bit signatures far apart (the default k is 16 of 128 bits).
FAR = [int("0123456789abcdef" * 2, 16), int("fedcba9876543210" * 2, 16), (1 << 128) - 1]


def _decide(dedup, key: str, signature: int):
    return _run(dedup.check_in_order(key, lambda subject: signature, None))


def test_a_call_that_timed_out_is_never_sent_again_and_its_page_is_decided_once(tmp_path):
    """Another connection holds the SQLite file's write lock: check_and_add waits in the index's
    thread; the page is decided by the policy at the deadline, the breaker opens, the next page
    is decided without a call; once the lock is gone the waiting call stores its page (once),
    and the probe after the cool-down closes the breaker."""
    db = tmp_path / "index.db"
    dedup = _offloaded(db)
    dedup._flusher.stop()  # (no flush queued behind the waiting call)
    stats = dedup.crawler.stats
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        assert dedup.offloaded
        holder.execute("BEGIN IMMEDIATE")
        first = _decide(dedup, "http://a.test/1", FAR[0])
        assert (first.action, first.reason) == ("kept", "index_error")
        assert stats.get_value("simhash/index/timeouts") == 1
        assert stats.get_value("simhash/index/breaker/opened") == 1
        second = _decide(dedup, "http://a.test/2", FAR[1])
        assert (second.action, second.reason) == ("kept", "index_error")
        assert stats.get_value("simhash/index/breaker/decided/pages") == 1
        assert dedup.calls.lane.backlog() == 0  # no call queued behind the waiting one
        dedup.calls.breaker.retry_at = 0.0  # the cool-down is over, but the call still hangs:
        assert _decide(dedup, "http://a.test/4", FAR[1]).reason == "index_error"  # no probe
        holder.execute("ROLLBACK")
        assert dedup._call(len, dedup.index) == 1  # the first page, stored by its late call
        _run(asyncio.sleep(0.01))  # the reactor hears of the late answer
        assert dedup.calls.hanging == 0
        probe = _decide(dedup, "http://a.test/3", FAR[2])
        assert (probe.action, probe.reason) == ("kept", None)
        assert stats.get_value("simhash/index/breaker/closed") == 1
        again = _decide(dedup, "http://a.test/1/print", FAR[0])  # the late call's page is there
        assert again.dropped and again.match.key == "http://a.test/1"
        assert stats.get_value("simhash/pages/kept/index_error") == 3
        assert stats.get_value("simhash/index/breaker/decided/pages") == 2
        assert stats.get_value("simhash/pages/checked") == 5
    finally:
        holder.close()
        dedup.close()
    with sqlite3.connect(db) as conn:
        keys = sorted(key for (key,) in conn.execute("SELECT key FROM simhash_pages"))
    assert keys == ["http://a.test/1", "http://a.test/3"]


def test_a_call_that_cannot_start_before_its_deadline_never_runs(tmp_path):
    dedup = _offloaded(tmp_path / "index.db")
    release = threading.Event()
    calls, ran = dedup.calls, []
    try:
        calls.lane.submit(release.wait)  # the index's thread is busy (a call hanging)

        async def both():
            from scrapy.utils.defer import maybe_deferred_to_future

            try:
                await maybe_deferred_to_future(calls.call("add", ran.append, "late"))
            except IndexTimeout as error:
                return error

        error = _run(both())
        assert isinstance(error, IndexTimeout) and not error.started
        release.set()
        calls.run_blocking(lambda: None)  # every call submitted before has been taken
        assert ran == []
    finally:
        release.set()
        dedup.close()


def test_the_timer_flushes_in_the_index_thread_and_the_index_is_closed_there(tmp_path):
    db = tmp_path / "index.db"
    dedup = _offloaded(db, timeout=5)
    try:
        assert _decide(dedup, "http://a.test/1", FAR[0]).action == "kept"
        flushed = dedup._flusher.f()
        assert flushed is not None
        _run(_wait(flushed))
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM simhash_pages").fetchone() == (1,)
    finally:
        dedup.close()
    assert dedup.calls.lane is None  # its thread is told to end
    assert dedup.crawler.stats.get_value("simhash/index/pages/size") == 1


def test_the_timer_never_flushes_between_a_pages_fingerprint_and_its_evidence(tmp_path):
    """A flush while a decision's calls are under way would commit the page's fingerprint
    without its evidence: a crawl killed then leaves a page that no copy can be confirmed
    against. The timer leaves it to the index's next call."""
    db = tmp_path / "index.db"
    dedup = _offloaded(db, timeout=5)
    dedup._flusher.stop()  # (flushed by hand below)
    flushes = []
    put = dedup.index.put_evidence

    def put_evidence(key, evidence):  # the timer fires between the fingerprint and this call
        flushes.append(dedup._flusher.f())
        return put(key, evidence)

    from scrapy_simhash.detectors import Signed
    from scrapy_simhash.evidence import of_text

    try:
        dedup.index.put_evidence = put_evidence
        signed = Signed(FAR[0], of_text("A page of its own, with some words to sketch."))
        assert _decide(dedup, "http://a.test/1", signed).action == "kept"
        assert flushes == [None]  # asked for in the middle of the decision: none
        flushed = dedup._flusher.f()  # after it: flushed
        assert flushed is not None
        _run(_wait(flushed))
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM simhash_pages").fetchone() == (1,)
            assert conn.execute('SELECT COUNT(*) FROM "simhash_pages:evidence"').fetchone() == (1,)
    finally:
        dedup.close()


def _away_until(up: threading.Event, monkeypatch, error=None, slow=None) -> None:
    """Deduplicators open their index only once ``up`` is set; before, opening raises
    ``error`` (a server that cannot be reached). ``slow``: an event the opening then waits for
    (a large index loading)."""
    from scrapy_simhash.crawl.dedup import Deduplicator
    from scrapy_simhash.index.base import IndexUnavailable

    real = Deduplicator._open_index

    def opener(self):
        if not up.is_set():
            raise error or IndexUnavailable("cannot open: Redis unreachable (refused)")
        if slow is not None:
            slow.wait(10)
        return real(self)

    monkeypatch.setattr(Deduplicator, "_open_index", opener)


def test_an_index_away_at_start_up_is_opened_by_the_first_call_after_it_answers(
    tmp_path, monkeypatch, caplog
):
    up = threading.Event()
    _away_until(up, monkeypatch)
    dedup = _offloaded(tmp_path / "index.db")
    stats = dedup.crawler.stats
    try:
        assert dedup.index is None and not dedup.start_up_failed  # the crawl goes on
        assert stats.get_value("simhash/index/breaker/opened") == 1
        assert _decide(dedup, "http://a.test/1", FAR[0]).reason == "index_error"
        dedup.calls.breaker.retry_at = 0.0  # the cool-down is over; the server still away
        assert _decide(dedup, "http://a.test/2", FAR[1]).reason == "index_error"
        for _ in range(100):  # the reactor hears that the try failed
            if dedup._opening is None:
                break
            _run(asyncio.sleep(0.01))
        assert dedup.index is None and dedup.calls.breaker.state == CircuitBreaker.OPEN
        up.set()
        dedup.calls.breaker.retry_at = 0.0
        assert _decide(dedup, "http://a.test/3", FAR[2]).reason == "index_error"  # it opens
        for _ in range(100):
            if dedup.index is not None:
                break
            _run(asyncio.sleep(0.01))
        assert stats.get_value("simhash/index/breaker/closed") == 1
        kept = _decide(dedup, "http://a.test/1/print", FAR[0])
        assert (kept.action, kept.reason) == ("kept", None)  # looked up and stored
        again = _decide(dedup, "http://a.test/1/amp", FAR[0])
        assert again.dropped and again.match.key == "http://a.test/1/print"
        assert stats.get_value("simhash/pages/kept/index_error") == 3
        assert stats.get_value("simhash/index/errors") == 2  # at start-up, and the failed try
    finally:
        dedup.close()
    said = [r.getMessage() for r in caplog.records if "cannot reach the index" in r.getMessage()]
    assert len(said) == 1 and "Redis unreachable" in said[0]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_an_index_still_opening_when_the_crawl_ends_is_closed(tmp_path, monkeypatch):
    up, loaded = threading.Event(), threading.Event()
    _away_until(up, monkeypatch, slow=loaded)
    dedup = _offloaded(tmp_path / "index.db")
    up.set()
    dedup.calls.breaker.retry_at = 0.0
    _decide(dedup, "http://a.test/1", FAR[0])  # its probe starts opening the index
    assert dedup._opening is not None and not dedup._opening.done()
    threading.Timer(0.2, loaded.set).start()
    dedup.close()  # waits for the try, then closes what it opened
    assert dedup.calls.lane is None and dedup.index is None
    assert dedup.crawler.stats.get_value("simhash/index/pages/size") == 0


@pytest.mark.parametrize(("error", "policy"), [
    ("password", "keep"), ("unreachable", "drop"), ("unreachable", "stop"),
])
def test_an_index_away_at_start_up_stops_the_crawl_unless_the_policy_keeps(
    tmp_path, monkeypatch, error, policy
):
    from scrapy_simhash.index.base import IndexAuthenticationError

    _away_until(threading.Event(), monkeypatch, error=IndexAuthenticationError(
        "cannot open: Redis refused the password") if error == "password" else None)
    dedup = _offloaded(tmp_path / "index.db", SIMHASH_ON_INDEX_ERROR=policy)
    try:
        assert dedup.start_up_failed and dedup.session.index_unusable
        assert dedup.crawler.stats.get_value("simhash/index/breaker/opened") is None
    finally:
        dedup.close()


async def _wait(deferred):
    from scrapy.utils.defer import maybe_deferred_to_future

    return await maybe_deferred_to_future(deferred)


@pytest.mark.parametrize("value", [-1, "soon", float("inf"), True])
def test_a_bad_index_timeout_names_the_setting(value):
    from scrapy.settings import Settings

    from scrapy_simhash.crawl.settings import SimhashSettingError, load_config

    with pytest.raises(SimhashSettingError, match="SIMHASH_INDEX_TIMEOUT"):
        load_config(Settings({"SIMHASH_INDEX_TIMEOUT": value}))


def test_in_process_indexes_and_a_zero_timeout_are_called_inline():
    from scrapy.settings import Settings

    from scrapy_simhash.crawl.indexcalls import call_timeout
    from scrapy_simhash.crawl.settings import load_config

    def timeout(**settings):
        return call_timeout(load_config(Settings(settings)))

    assert timeout() == 0.0  # memory://
    assert timeout(SIMHASH_INDEX_URI="redis://127.0.0.1:1/0") == 1.0
    assert timeout(SIMHASH_INDEX_URI="sqlite:///seen.db") == 35.0
    assert timeout(SIMHASH_INDEX_URI="sqlite:///seen.db", SIMHASH_INDEX_TIMEOUT="2.5") == 2.5
    assert timeout(SIMHASH_INDEX_URI="redis://127.0.0.1:1/0", SIMHASH_INDEX_TIMEOUT=0) == 0.0


def test_a_probe_given_up_by_its_caller_frees_the_probe_s_place():
    clock = _Clock()
    breaker = CircuitBreaker(clock=clock)
    breaker.failed(probe=False)
    clock.now += 1.0
    assert breaker.admit() == (True, True)
    breaker.abandoned(probe=True)  # e.g. the download was cancelled meanwhile
    assert breaker.admit() == (True, True)  # the next call probes at once


def _articles() -> list[str]:
    """Clusters of near-duplicate texts (a story, its copy with a changed sentence, its copy
    with a line added) and texts of their own."""
    import random

    draw = random.Random(3)
    words = [a + b + c for a in "bcdfg" for b in "aeiou" for c in "klmnp"]
    texts = []
    for _ in range(12):
        story = [" ".join(draw.choice(words) for _ in range(12)) + "." for _ in range(25)]
        texts.append(" ".join(story))
        texts.append(" ".join([*story[:-1], "A different last sentence altogether here."]))
        texts.append(" ".join(["Shared by a reader.", *story]))
    draw.shuffle(texts)
    return texts


def test_the_index_s_thread_makes_the_decisions_the_inline_calls_make(tmp_path):
    """The same checks, begun in one order, decided inline and from the index's thread."""
    from scrapy_simhash.crawl.signing import text_signature

    texts = _articles()
    decisions = []
    for mode, timeout in (("inline", 0), ("thread", 5)):
        dedup = _offloaded(tmp_path / f"{mode}.db", timeout=timeout)
        assert dedup.offloaded is (timeout > 0)

        async def crawl(dedup=dedup):
            return await asyncio.gather(*(
                dedup.check_in_order(f"http://a.test/{n}",
                                     lambda text: text_signature(dedup.detector, text), text)
                for n, text in enumerate(texts)))

        try:
            outcomes = _run(crawl())
        finally:
            dedup.close()
        decisions.append([(o.action, o.reason, o.match and o.match.key) for o in outcomes])
    assert decisions[0] == decisions[1]
    assert sum(action == "dropped" for action, _, _ in decisions[0]) >= 12


_BAN = ("<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>You "
        "don't have permission to access this page on this server. Our security service has "
        "blocked your request because it looks automated. Please verify you are human and try "
        "again later, or contact the site owner.</p></body></html>")


def test_a_weak_page_is_dropped_against_this_crawls_pages_only(tmp_path):
    """A ban page an earlier crawl stored would hide the page behind it from every later
    crawl's callback: the first weak page like an earlier crawl's is kept (not stored again),
    and that page stands for this crawl's from then on; a long page is dropped as before."""
    from benchmarks.hardneg.news import articles

    story = articles(1)[0][1]
    db = tmp_path / "seen.db"
    first = _offloaded(db, timeout=0)
    try:
        signed = [first.detector.sign_html(html, None, url) for url, html in (
            ("http://a.test/p/0", _BAN), ("http://a.test/story", story))]
        assert signed[0].evidence.weak and not signed[1].evidence.weak
        assert first.decide("http://a.test/p/0", signed[0]).action == "kept"
        assert first.decide("http://a.test/story", signed[1]).action == "kept"
        dropped = first.decide("http://a.test/p/1", signed[0])  # (this crawl's ban page)
        assert dropped.dropped and dropped.match.key == "http://a.test/p/0"
    finally:
        first.close()
    second = _offloaded(db, timeout=0)
    try:
        size = len(second.index)
        outcome = second.decide("http://a.test/p/2", signed[0])
        assert (outcome.action, outcome.reason) == ("kept", "earlier_weak")
        assert outcome.match.key == "http://a.test/p/0"  # (what a retry of it takes out)
        assert len(second.index) == size  # (not stored again)
        # the earlier crawl's page stands for this crawl's now: its look-alikes are dropped
        again = second.decide("http://a.test/p/3?utm_source=feed", signed[0])
        assert again.dropped and again.match.key == "http://a.test/p/0"
        assert second.stats.get_value("simhash/pages/kept/earlier_weak") == 1
        assert second.decide("http://a.test/story", signed[1]).dropped
    finally:
        second.close()
