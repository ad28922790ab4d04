"""Worker processes in real crawls of tests/reliability/site.py over HTTP on 127.0.0.1: the
same fingerprints as inline, and what happens when a worker crashes, hangs or cannot start."""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import scrapy.crawler
from reliability import site
from reliability.crawls import items, logs, start_crawl, stats, wait_for_requests
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred

from scrapy_simhash.crawl.settings import SimhashConfig
from scrapy_simhash.crawl.workers import WorkerError, WorkerPool, resolve_worker_count
from scrapy_simhash.crawl.workers.child import encode_frame
from scrapy_simhash.crawl.workers.pipe import FrameWriter, open_pipe
from scrapy_simhash.crawl.workers.pool import MAX_QUEUED, _WorkerProtocol

HOSTILE = "tests.crawl.workers.hostile_extractor.crash_or_hang"
GATED = "tests.crawl.workers.gated_extractor.extract"
SLOW = "tests.crawl.workers.hostile_extractor.slow_in_worker"
CRAWL_ONLY = "tests.crawl.workers.crawl_only_extractor.extract"
READY = "[scrapy_simhash.crawl.workers.pool] INFO: Simhash: worker process"


def _crawl(
    out: Path, settings: dict, delay: float = 0.0, before_page: Callable[[str], None] | None = None
) -> tuple[dict[str, object], dict, str]:
    """{path: fingerprint} of the kept pages, the stats, the log (``delay``, ``before_page``: the
    site's, see :class:`site.SiteServer`)."""
    server = site.SiteServer(delay=delay, before_page=before_page).start()
    try:
        process = start_crawl(server.url, out, {"CONCURRENT_REQUESTS": 8, **settings})
        assert process.wait(timeout=120) == 0, logs(out)
    finally:
        server.stop()
    return _kept(out, process.pid), stats(out, process.pid), logs(out)


def _kept(out: Path, pid: int) -> dict[str, object]:
    """{path: fingerprint} of the pages a crawl kept."""
    return {site.site_path(row["url"]): row["simhash"] for row in items(out, pid)}


def _survivors_per_cluster(kept: dict[str, object]) -> Counter:
    clusters = site.paths()
    return Counter(clusters[path] for path in kept if path in clusters)


def _assert_one_survivor_per_cluster(kept: dict[str, object]) -> None:
    survivors = _survivors_per_cluster(kept)
    assert set(survivors) == set(range(site.PAGE_COUNT))
    assert set(survivors.values()) == {1}


@pytest.mark.scrapy_version_independent
def test_workers_give_the_fingerprints_of_the_inline_path(tmp_path):
    inline, inline_stats, _ = _crawl(tmp_path / "inline", {"SIMHASH_WORKERS": 0})
    pooled, pooled_stats, _ = _crawl(tmp_path / "pooled", {"SIMHASH_WORKERS": 2})
    assert "simhash/workers/processes" not in inline_stats
    assert pooled_stats["simhash/workers/processes"] == 2
    for kept in (inline, pooled):
        _assert_one_survivor_per_cluster(kept)
    shared = set(inline) & set(pooled)
    assert len(shared) > site.PAGE_COUNT * 0.5  # which copy survives may differ, not the bits
    assert {path: inline[path] for path in shared} == {path: pooled[path] for path in shared}
    for name in ("checked", "kept", "dropped"):
        assert inline_stats[f"simhash/pages/{name}"] == pooled_stats[f"simhash/pages/{name}"]
    assert "simhash/workers/lost" not in pooled_stats


def _wait_for_ready_workers(out: Path, count: int) -> None:
    """Until the crawl's log in ``out`` says ``count`` workers have been ready (60 s at most)."""
    deadline = time.monotonic() + 60
    while logs(out).count(READY) < count and time.monotonic() < deadline:
        time.sleep(0.01)


def _each_hostile_page_for_a_ready_worker(out: Path) -> Callable[[str], None]:
    """Holds back the page that crashes a worker and the one that hangs it until a worker that
    met neither is ready (the first, then its replacement), as the crawl's log in ``out`` says:
    pages that come while no worker is ready are checked by the crawl itself."""
    lock = threading.Lock()
    hostile: list[str] = []

    def before_page(path: str) -> None:
        if path not in ("/a/9", "/a/13"):
            return
        with lock:
            hostile.append(path)
            workers_needed = len(hostile)
        _wait_for_ready_workers(out, workers_needed)

    return before_page


def test_a_crashed_or_stuck_worker_costs_only_the_page_it_was_on(tmp_path):
    kept, crawl_stats, log = _crawl(tmp_path, {
        "SIMHASH_WORKERS": 1, "SIMHASH_EXTRACTOR": HOSTILE,
        "SIMHASH_WORKER_TIMEOUT": 6,  # a hang (60 s) is found soon; a busy CPU is not one
        "CONCURRENT_REQUESTS": 2,  # every page goes to the worker (no overflow to the crawl)
    }, before_page=_each_hostile_page_for_a_ready_worker(tmp_path))
    assert "simhash/workers/overflow" not in crawl_stats
    _assert_one_survivor_per_cluster(kept)
    assert kept["/a/9"] is None and kept["/a/13"] is None  # kept unchecked
    assert crawl_stats["simhash/pages/skipped/worker_error"] == 2
    assert crawl_stats["simhash/workers/lost"] == 2
    assert crawl_stats["simhash/workers/restarted"] == 2
    assert log.count("a worker process was lost (the worker process exited)") == 1
    assert log.count("a worker process was lost (one task took longer than "
                     "SIMHASH_WORKER_TIMEOUT=6 s)") == 1
    # every other page was checked: the tasks queued behind the lost ones went to the new worker
    paths = site.paths()
    assert crawl_stats["simhash/pages/checked"] == len(paths) - 2


def test_when_the_workers_fall_behind_the_crawl_computes_signatures_itself(tmp_path):
    kept, crawl_stats, _ = _crawl(tmp_path, {
        "SIMHASH_WORKERS": 1, "SIMHASH_EXTRACTOR": SLOW,
        "CONCURRENT_REQUESTS": 32, "CONCURRENT_REQUESTS_PER_DOMAIN": 32,  # > MAX_QUEUED
    }, delay=0.5)  # responses come in bursts of 32, most of them once the worker is ready
    assert MAX_QUEUED < 32
    _assert_one_survivor_per_cluster(kept)
    assert crawl_stats["simhash/workers/overflow"] > 0
    assert crawl_stats["simhash/pages/checked"] == len(site.paths())
    assert "simhash/pages/skipped/worker_error" not in crawl_stats


def test_workers_that_cannot_start_leave_the_work_to_the_crawl(tmp_path):
    settings = {"SIMHASH_WORKERS": 1, "SIMHASH_EXTRACTOR": CRAWL_ONLY}
    kept, crawl_stats, log = _crawl(tmp_path, settings)
    _assert_one_survivor_per_cluster(kept)
    assert ("a worker process could not build the detector "
            "(SimhashSettingError: SIMHASH_EXTRACTOR=") in log
    assert crawl_stats["simhash/pages/checked"] == len(site.paths())
    assert "simhash/pages/skipped/worker_error" not in crawl_stats
    assert "simhash/workers/lost" not in crawl_stats


def test_the_crawl_checks_its_pages_itself_while_its_worker_starts(tmp_path, monkeypatch):
    gate = tmp_path / "gate"  # the worker cannot finish starting until the test opens it
    monkeypatch.setenv("SIMHASH_TEST_GATE", str(gate))
    server = site.SiteServer(delay=0.05).start()
    try:
        process = start_crawl(server.url, tmp_path / "out", {
            "SIMHASH_WORKERS": 1, "SIMHASH_EXTRACTOR": GATED, "CONCURRENT_REQUESTS": 2,
        })
        wait_for_requests(server, 40, process, limit=30)
        assert server.requests >= 40, logs(tmp_path / "out")  # no page waits for the worker
        assert process.poll() is None
        gate.touch()
        assert process.wait(timeout=120) == 0, logs(tmp_path / "out")
    finally:
        server.stop()
    crawl_stats = stats(tmp_path / "out", process.pid)
    checked = crawl_stats["simhash/pages/checked"]
    assert checked == len(site.paths())
    assert 30 <= crawl_stats["simhash/workers/starting"] < checked  # then the worker took over
    assert "simhash/pages/skipped/worker_error" not in crawl_stats
    _assert_one_survivor_per_cluster(_kept(tmp_path / "out", process.pid))


def test_a_worker_that_never_gets_ready_is_replaced_and_the_crawl_goes_on(tmp_path, monkeypatch):
    gate = tmp_path / "gate"  # never opened while the crawl runs
    monkeypatch.setenv("SIMHASH_TEST_GATE", str(gate))
    server = site.SiteServer(delay=0.05).start()
    try:
        process = start_crawl(server.url, tmp_path / "out", {
            "SIMHASH_WORKERS": 1, "SIMHASH_EXTRACTOR": GATED, "CONCURRENT_REQUESTS": 2,
            "SIMHASH_WORKER_TIMEOUT": 1,
        })
        assert process.wait(timeout=120) == 0, logs(tmp_path / "out")
    finally:
        gate.touch()  # lets the last worker go
        server.stop()
    crawl_stats = stats(tmp_path / "out", process.pid)
    assert crawl_stats["simhash/pages/checked"] == len(site.paths())  # all in the crawl itself
    assert crawl_stats["simhash/workers/lost"] >= 2
    assert crawl_stats["simhash/workers/restarted"] >= 2
    assert "it was not ready after SIMHASH_WORKER_TIMEOUT=1 s" in logs(tmp_path / "out")


def _worker_pids(parent: int | None = None) -> set[int]:
    """Worker processes running now; only ``parent``'s children when given (other tests'
    crawls start theirs at the same time)."""
    found = set()
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if b"scrapy_simhash.crawl.workers" in Path(cmdline).read_bytes():
                pid = int(cmdline.split("/")[2])
                # (/proc/PID/stat: "pid (name) state ppid ...", the name may hold spaces)
                stat = Path(f"/proc/{pid}/stat").read_text()
                if parent is None or int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                    found.add(pid)
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_workers_exit_when_the_crawl_is_killed(tmp_path):
    server = site.SiteServer(delay=0.05).start()  # slow enough to be killed mid-crawl
    try:
        process = start_crawl(server.url, tmp_path, {"SIMHASH_WORKERS": 1})
        wait_for_requests(server, 20, process)
        started = _worker_pids(parent=process.pid)
        assert started, logs(tmp_path)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while started & _worker_pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not started & _worker_pids()  # their pipe closed: they exited
    finally:
        server.stop()


def test_a_crawlers_pool_is_found_and_not_ready_before_its_workers_start():
    crawler = get_crawler(settings_dict={})
    assert WorkerPool.for_crawler(crawler) is None
    pool = WorkerPool.of(crawler, SimhashConfig(workers=1))
    assert WorkerPool.for_crawler(crawler) is pool
    assert WorkerPool.of(crawler, SimhashConfig(workers=1)) is pool  # one per crawler
    assert not pool.ready and not pool.has_room()  # none started: the crawl computes itself
    assert crawler.stats.get_value("simhash/workers/starting") == 1


class _FakeTransport:
    """A worker process's transport that remembers the signals sent to it."""

    pid = 4242

    def __init__(self) -> None:
        self.signals: list[str] = []
        self.reaped = False

    def signalProcess(self, name: str) -> None:
        self.signals.append(name)

    def reapProcess(self) -> None:
        self.reaped = True
        self.pid = None


def _timed_pool(monkeypatch, workers: int = 1, timeout: float = 1) -> tuple[WorkerPool, list]:
    """A pool on a clock the test moves (``clock[0]``), whose lost workers are not replaced."""
    pool = WorkerPool(get_crawler(settings_dict={}),
                      SimhashConfig(workers=workers, worker_timeout=timeout), workers)
    clock = [100.0]
    pool.now = lambda: clock[0]
    monkeypatch.setattr(pool, "_spawn", lambda: None)
    return pool, clock


def test_tasks_handed_to_a_starting_worker_are_timed_from_when_it_is_ready(monkeypatch):
    pool, clock = _timed_pool(monkeypatch)
    worker, read_end = _fake_worker(pool, ready=False)
    task = worker.send(("text", "queued behind a lost worker"))
    clock[0] += 0.9  # its start-up: 0.9 s, within SIMHASH_WORKER_TIMEOUT
    worker.outReceived(encode_frame(("ready", None, 0.0, None)))
    clock[0] += 0.9  # 1.8 s after the task was queued, 0.9 s after the worker could begin it
    pool._check_timeouts()
    assert worker.transport.signals == []
    clock[0] += 0.2
    pool._check_timeouts()
    assert worker.transport.signals == ["KILL"]
    assert worker.cause == "one task took longer than SIMHASH_WORKER_TIMEOUT=1 s"
    # given up on at once, not when (or if) the process's end is heard of
    assert not worker.alive and worker not in pool.workers and worker.transport.reaped
    assert str(_failure_of(task)) == worker.cause
    os.close(read_end)


def test_time_the_reactor_was_held_up_is_not_counted_against_a_worker(monkeypatch):
    """A slow callback blocks the reactor: answers wait unread, and the watchdog's next round
    comes late. That time is not the worker's; a worker really stuck is still killed."""
    pool, clock = _timed_pool(monkeypatch, timeout=2)
    worker, read_end = _fake_worker(pool, ready=True)
    worker.send(("text", "answered, but not read yet"))
    clock[0] += 1.0
    pool._check_timeouts()
    clock[0] += 2.5  # the next round, 1.5 s late: 3.5 s since the task began
    pool._check_timeouts()
    assert worker.transport.signals == []
    clock[0] += 1.05  # a round on time: 2.05 s of the task counted
    pool._check_timeouts()
    assert worker.transport.signals == ["KILL"]
    os.close(read_end)


def test_the_watchdog_looks_at_every_worker_when_it_kills_one(monkeypatch):
    pool, clock = _timed_pool(monkeypatch, workers=2)
    (first, first_read), (second, second_read) = (_fake_worker(pool, ready=True) for _ in "ab")
    tasks = [first.send(("text", "stuck")), second.send(("text", "stuck too"))]
    clock[0] += 1.5
    pool._check_timeouts()  # the first is killed and leaves the list
    assert first.transport.signals == second.transport.signals == ["KILL"]
    assert all(isinstance(_failure_of(task), WorkerError) for task in tasks)
    os.close(first_read)
    os.close(second_read)


def test_settings_that_cannot_be_sent_to_a_worker_mean_inline_work(caplog):
    crawler = get_crawler(settings_dict={})
    config = SimhashConfig(workers=1, fingerprint_kwargs={"extractor": lambda html, *_: ""})
    with caplog.at_level(logging.WARNING):
        assert WorkerPool.of(crawler, config) is None
        assert WorkerPool.of(crawler, config) is None  # the crawler's other component
    assert caplog.text.count("cannot be sent to worker processes") == 1


@pytest.mark.parametrize(("value", "cpus", "expected"), [
    ("auto", 1, 0), ("auto", 2, 1), ("auto", 3, 2), ("auto", 64, 2), (0, 8, 0), (3, 1, 3),
])
def test_worker_count(monkeypatch, value, cpus, expected):
    monkeypatch.setattr("scrapy_simhash.crawl.workers.pool.usable_cpus", lambda: cpus)
    assert resolve_worker_count(value) == expected


@pytest.mark.parametrize("value", ["auto", 2])
def test_no_workers_where_pipes_are_not_posix(monkeypatch, value):
    monkeypatch.setattr("scrapy_simhash.crawl.workers.pool.usable_cpus", lambda: 8)
    monkeypatch.setattr("scrapy_simhash.crawl.workers.pool.os.name", "nt")
    assert resolve_worker_count(value) == 0


def _every_page_for_a_ready_worker(out: Path) -> Callable[[str], None]:
    """Holds back every page until the crawl's log in ``out`` says a worker is ready."""

    def before_page(path: str) -> None:
        _wait_for_ready_workers(out, 1)

    return before_page


def test_workers_on_a_reactor_without_asyncio(tmp_path):
    """Scrapy also runs on Twisted's own reactors, where a task's waiter is a Deferred."""
    kept, crawl_stats, log = _crawl(tmp_path, {
        "SIMHASH_WORKERS": 1, "TWISTED_REACTOR": "twisted.internet.epollreactor.EPollReactor",
        "CONCURRENT_REQUESTS": 2,  # every page goes to the worker (no overflow to the crawl)
    }, before_page=_every_page_for_a_ready_worker(tmp_path))
    assert "EPollReactor" in log and "AsyncioSelectorReactor" not in log
    assert "simhash/workers/starting" not in crawl_stats
    assert "simhash/workers/overflow" not in crawl_stats
    _assert_one_survivor_per_cluster(kept)
    unchecked = [path for path, fingerprint in kept.items() if fingerprint is None]
    assert unchecked == ["/"]  # the site's index page says dont_simhash


def test_an_answer_for_a_caller_that_gave_up_is_dropped_and_the_next_one_served():
    """A request cancelled while its page waits (the crawl closing, say) cancels its waiter;
    the worker's answer for it comes all the same and must not break the ones after it."""
    pool = WorkerPool(get_crawler(settings_dict={}), SimhashConfig(workers=1), 1)
    read_end, write_end = open_pipe()
    worker = _WorkerProtocol(pool, pool.config, FrameWriter(write_end))
    worker.transport = _FakeTransport()
    worker.outReceived(encode_frame(("ready", None, 0.0, None)))
    loop = asyncio.new_event_loop()
    try:
        given_up, served = loop.create_future(), loop.create_future()
        worker.send(("text", "cancelled"), given_up)
        worker.send(("text", "kept"), served)
        deferred = worker.send(("text", "a Deferred, cancelled"), Deferred())
        given_up.cancel()
        deferred.addErrback(lambda failure: None)
        deferred.cancel()
        worker.outReceived(encode_frame(("ok", 1, 0.1, None)) * 2)
        worker.outReceived(encode_frame(("error", "ValueError: late", 0.1, None)))
        assert given_up.cancelled()
        assert served.result() == (1, 0.1, None)
        assert not worker.pending
    finally:
        loop.close()
        worker.writer.abort()
        os.close(read_end)


def _fake_worker(pool: WorkerPool, ready: bool) -> tuple[_WorkerProtocol, int]:
    """A worker of ``pool`` with a real stdin pipe and a fake process (and that pipe's read end)."""
    read_end, write_end = open_pipe()
    worker = _WorkerProtocol(pool, pool.config, FrameWriter(write_end))
    worker.transport = _FakeTransport()
    if ready:
        worker.outReceived(encode_frame(("ready", None, 0.0, None)))
    pool.workers.append(worker)
    return worker, read_end


def _failure_of(deferred: Deferred) -> BaseException | None:
    caught: list[BaseException] = []
    deferred.addErrback(lambda failure: caught.append(failure.value))
    return caught[0] if caught else None


def test_a_replacement_that_cannot_start_leaves_no_task_unanswered(monkeypatch, caplog):
    pool = WorkerPool(get_crawler(settings_dict={}), SimhashConfig(workers=1), 1)
    pool._components.add("pages")
    worker, read_end = _fake_worker(pool, ready=True)
    on_it, queued = worker.send(("text", "its task"), Deferred()), worker.send(("text", "next"))

    def no_more_processes() -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(pool, "_spawn", no_more_processes)
    worker.processEnded(None)
    failed_on_it, failed_queued = _failure_of(on_it), _failure_of(queued)
    assert failed_on_it is not None and not failed_on_it.retry_inline  # the one it was on
    assert failed_queued is not None and failed_queued.retry_inline  # computed inline instead
    assert "could not start a worker process (OSError" in caplog.text
    assert not pool.available
    os.close(read_end)


def test_tasks_of_a_worker_lost_while_starting_go_to_a_ready_one(monkeypatch):
    pool = WorkerPool(get_crawler(settings_dict={}), SimhashConfig(workers=2), 2)
    pool._components.add("pages")
    ready, ready_read = _fake_worker(pool, ready=True)
    starting, starting_read = _fake_worker(pool, ready=False)
    first, second = starting.send(("text", "one")), starting.send(("text", "two"))
    monkeypatch.setattr(pool, "_spawn", lambda: None)  # its replacement, starting
    starting.processEnded(None)
    assert not first.called and not second.called  # neither blamed: a starting worker did none
    assert [waiter for waiter, _ in ready.pending] == [first, second]
    ready.writer.abort()
    os.close(ready_read)
    os.close(starting_read)


@pytest.mark.skipif(not hasattr(scrapy.crawler, "AsyncCrawlerProcess"),
                    reason="this Scrapy always runs Twisted's reactor")
def test_without_twisteds_reactor_the_crawl_works_inline(tmp_path):
    kept, crawl_stats, log = _crawl(tmp_path / "out",
                                    {"SIMHASH_WORKERS": 1, "TWISTED_REACTOR_ENABLED": False})
    assert " ERROR: " not in log
    assert "simhash/workers/processes" not in crawl_stats
    _assert_one_survivor_per_cluster(kept)


RUNNER_SCRIPT = """
import asyncio, os, sys
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from twisted.internet import defer, reactor
from scrapy.crawler import CrawlerRunner
from reliability.crawl_script import SiteSpider

def zombies():
    found = 0
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        found += fields[0] == "Z" and fields[1] == str(os.getpid())
    return found

runner = CrawlerRunner({"ADDONS": {"scrapy_simhash.Addon": 0}, "SIMHASH_URL_RULES": False,
                        "ROBOTSTXT_OBEY": False,
                        "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "WARNING",
                        "SIMHASH_WORKERS": 1})

@defer.inlineCallbacks
def crawls():
    for _ in range(2):
        yield runner.crawl(SiteSpider, start_url=sys.argv[1])
    yield defer.Deferred.fromFuture(asyncio.ensure_future(asyncio.sleep(1.5)))
    print("zombies", zombies(), flush=True)
    reactor.stop()

crawls()
reactor.run(installSignalHandlers=False)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_workers_are_reaped_on_a_reactor_without_signal_handlers(tmp_path):
    """An application running crawls with CrawlerRunner on a reactor without Twisted's signal
    handlers gets no SIGCHLD: the pool collects its exited workers itself, leaving no zombies."""
    server = site.SiteServer().start()
    try:
        tests = Path(__file__).resolve().parents[2]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tests), str(tests.parent)]))
        done = subprocess.run([sys.executable, "-c", RUNNER_SCRIPT, server.url], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "zombies 0" in done.stdout, done.stdout + done.stderr[-3000:]


def test_answers_from_a_worker_given_up_on_are_ignored(monkeypatch):
    """A worker killed by the watchdog may still have answers in its pipe: its tasks were
    already failed or handed on, so those answers must not be matched to anything."""
    pool = WorkerPool(get_crawler(settings_dict={}), SimhashConfig(workers=1), 1)
    pool._components.add("pages")
    worker, read_end = _fake_worker(pool, ready=True)
    on_it, queued = worker.send(("text", "stuck")), worker.send(("text", "behind it"))
    monkeypatch.setattr(pool, "_spawn", lambda: None)
    worker._lost()
    worker.outReceived(encode_frame(("ok", 1, 0.1, None)) * 2)  # late: no IndexError, no mix-up
    assert isinstance(_failure_of(on_it), WorkerError)
    assert isinstance(_failure_of(queued), WorkerError)
    os.close(read_end)


def test_a_large_page_waits_for_a_starting_or_busy_worker(monkeypatch):
    from scrapy_simhash.crawl.workers.pool import INLINE_MAX_BODY

    pool, _ = _timed_pool(monkeypatch)
    pool._components.add("pages")
    stats = pool.crawler.stats
    assert not pool.has_room(INLINE_MAX_BODY + 1)  # no worker at all: the crawl computes it
    worker, read_end = _fake_worker(pool, ready=False)
    assert not pool.has_room(INLINE_MAX_BODY)  # a page of ordinary size: the crawl computes it
    assert pool.has_room(INLINE_MAX_BODY + 1)  # a large one waits: the watchdog bounds it
    worker.outReceived(encode_frame(("ready", None, 0.0, None)))
    for _ in range(MAX_QUEUED):
        worker.send(("text", "a backlog"))
    assert not pool.has_room(1000)
    assert pool.has_room(INLINE_MAX_BODY + 1)
    assert stats.get_value("simhash/workers/starting") == 2
    assert stats.get_value("simhash/workers/overflow") == 1
    assert stats.get_value("simhash/workers/large_waited") == 2
    os.close(read_end)
