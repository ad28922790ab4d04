"""The crawl's side of the worker processes: spawn them, hand them tasks, collect the answers.

Each worker is a child process driven by a Twisted ``ProcessProtocol`` on the crawl's reactor:
tasks are written to its stdin, answers read from its stdout as they arrive, so the reactor
thread never blocks and no helper thread competes with it for the GIL. A worker answers its tasks
in order, so each keeps a FIFO of the waiters it owes (see :func:`new_waiter`); a task goes to
the live worker with the fewest pending.

Failures never lose a page: when a worker dies or stays on one task longer than
``SIMHASH_WORKER_TIMEOUT`` (it is killed), its pending tasks fail with :class:`WorkerError`, the
components keep those pages unchecked (``skipped/worker_error``), and a new worker replaces it,
up to :data:`MAX_RESTARTS` per crawl. A worker that cannot even build its detector is not
replaced: the components fall back to computing signatures inline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import sys
import time
from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar, Union
from weakref import WeakKeyDictionary

from twisted.internet import protocol
from twisted.internet.defer import Deferred

from scrapy_simhash.crawl.signing import response_parts
from scrapy_simhash.crawl.workers.child import (
    COMMAND_CODE,
    HEADER,
    decode_frame,
    frame_parts,
    shutdown_signals_blocked,
)
from scrapy_simhash.crawl.workers.pipe import FrameWriter, open_pipe

if TYPE_CHECKING:
    from typing import TypeAlias

    from scrapy.crawler import Crawler

    from scrapy_simhash.crawl.settings import SimhashConfig

logger = logging.getLogger(__name__)

#: Replacements for crashed or killed workers in one crawl before the pool gives up.
MAX_RESTARTS = 10
#: After a worker's output closed, how often and how long to look for its exit status.
REAP_INTERVAL = 0.1
REAP_ATTEMPTS = 100
#: Seconds between checks for a worker stuck on one task.
WATCHDOG_INTERVAL = 1.0
#: Tasks a worker may have waiting before the crawl computes signatures itself (Scrapy's
#: default CONCURRENT_REQUESTS: a burst of responses waits for the worker; a backlog does not).
MAX_QUEUED = 16
#: Bytes of a page body above which the page waits for a worker (starting, or behind) rather
#: than being parsed in the crawl's own thread: there no SIMHASH_WORKER_TIMEOUT applies, and
#: libxml2 takes seconds on some large hostile pages (100,000 attributes on one element: 9 s).
INLINE_MAX_BODY = 256 * 1024
#: The most workers ``SIMHASH_WORKERS = "auto"`` starts.
AUTO_MAX_WORKERS = 2


#: What a task's caller awaits: (signature, seconds in the worker, note), or an exception.
Waiter: TypeAlias = Union["asyncio.Future[tuple[Any, float, str | None]]", Deferred]


def new_waiter() -> Waiter:
    """An asyncio Future on the running loop (Scrapy's default reactor runs on asyncio's loop:
    the coroutine awaits it with nothing in between), else a Deferred (other reactors).

    Everything a page's check allocates lives until the worker answers, long enough for the
    cyclic garbage collector to move it to its oldest generation and so bring its next full
    collection closer: a Future is one object, a Deferred with the Future made from it some
    twenty.
    """
    try:
        return asyncio.get_running_loop().create_future()
    except RuntimeError:
        return Deferred()


def settle(waiter: Waiter, result: Any = None, error: Exception | None = None) -> None:
    """Give ``waiter`` its result or error, unless it already has one (its caller gave up)."""
    if isinstance(waiter, Deferred):
        if not waiter.called:
            waiter.callback(result) if error is None else waiter.errback(error)
    elif not waiter.done():
        waiter.set_result(result) if error is None else waiter.set_exception(error)


class WorkerError(Exception):
    """A worker could not answer: it crashed, was killed after the timeout, or never started.

    ``retry_inline`` is True when the task itself is not to blame (no worker could take it, or
    the one it waited for could not start): the caller computes the signature itself.
    """

    def __init__(self, message: str, retry_inline: bool = False) -> None:
        super().__init__(message)
        self.retry_inline = retry_inline


class TaskError(Exception):
    """Computing the signature raised in the worker (the message names the original error)."""


def usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def resolve_worker_count(value: int | str) -> int:
    """``SIMHASH_WORKERS``: a count, or ``"auto"``: one CPU left to the crawl itself, at most
    :data:`AUTO_MAX_WORKERS`, none on a single CPU. None at all where pipes are not POSIX ones
    (a worker's stdin is a pipe the crawl writes itself, see :mod:`.pipe`)."""
    if os.name != "posix":
        return 0
    if value != "auto":
        return int(value)
    return max(0, min(AUTO_MAX_WORKERS, usable_cpus() - 1))


def _least_busy(workers: list[_WorkerProtocol]) -> _WorkerProtocol:
    return min(workers, key=lambda worker: len(worker.pending))


class _WorkerProtocol(protocol.ProcessProtocol):
    """One worker process: its pending waiters, in the order the answers will come. Tasks go
    to its stdin through ``writer`` (the pipe's write end, see :mod:`.pipe`)."""

    def __init__(self, pool: WorkerPool, config: SimhashConfig, writer: FrameWriter) -> None:
        self.pool = pool
        self.config = config
        self.writer = writer
        self.pending: deque[tuple[Waiter, tuple]] = deque()  # (waiter, task)
        self.buffer = bytearray()
        self.alive = True
        self.ready = False  # True once it has built its detector: it gets tasks from then on
        self.cause = "the worker process exited"
        self.busy_since: float | None = None  # when the task at the head of the queue started
        self.started = pool.now()

    def connectionMade(self) -> None:
        self.writer.write(frame_parts(("init", self.config)))

    def send(self, message: tuple, waiter: Waiter | None = None) -> Waiter:
        """Queue a task; ``waiter`` (a new one by default) gets (signature, seconds, note) or
        an error."""
        waiter = new_waiter() if waiter is None else waiter
        self.writer.write(frame_parts(message))  # the body goes from its own bytes to the pipe
        self.pending.append((waiter, message))
        if self.busy_since is None:  # it was idle (or is starting): this task is the head
            self._time_head_task()
        return waiter

    def _time_head_task(self) -> None:
        """Time the task at the head of the queue from now, once the worker can work on it (a
        worker that is starting has not begun any)."""
        self.busy_since = self.pool.now() if self.pending and self.ready else None

    def outReceived(self, data: bytes) -> None:
        if not self.alive:  # given up on (killed, say): its tasks went elsewhere already
            return
        self.buffer += data
        while len(self.buffer) >= HEADER.size:
            length, raw_length = HEADER.unpack_from(self.buffer)
            middle = HEADER.size + length
            end = middle + raw_length
            if len(self.buffer) < end:
                return
            message = decode_frame(self.buffer[HEADER.size:middle], self.buffer[middle:end])
            del self.buffer[:end]
            self._answer(message)

    def _answer(self, message: tuple) -> None:
        status, value, seconds, note = message
        if status == "ready":
            self.ready = True
            self._time_head_task()  # tasks handed to it while it started begin now
            logger.info(
                "Simhash: worker process %s is ready (%.1f s to start)",
                self.transport.pid, self.pool.now() - self.started,
                extra={"crawler": self.pool.crawler},
            )
            return
        if status == "fatal":
            self.pool.worker_unusable(self, value)
            self.kill(f"it could not start: {value}")
            return
        waiter, _ = self.pending.popleft()
        self._time_head_task()
        if status == "ok":
            settle(waiter, (value, seconds, note))
        else:
            settle(waiter, error=TaskError(value))

    def outConnectionLost(self) -> None:
        self._lost()
        self._reap(REAP_ATTEMPTS)

    def _reap(self, attempts: int) -> None:
        """Collect the exited process ourselves: Twisted only does on SIGCHLD, and a reactor run
        without its signal handlers (``CrawlerRunner`` in an application, say) never gets one,
        leaving a zombie per worker."""
        transport = self.transport
        if transport is None or getattr(transport, "pid", None) is None:
            return  # reaped already (Twisted's own handler, or this)
        transport.reapProcess()
        if transport.pid is not None and attempts > 1:
            from twisted.internet import reactor

            reactor.callLater(REAP_INTERVAL, self._reap, attempts - 1)

    def processEnded(self, reason: Any) -> None:
        self._lost()

    def _lost(self) -> None:
        """The process is gone: the task it was on fails, the ones queued behind it go on to
        another worker (they did nothing wrong)."""
        if not self.alive:
            return
        self.alive = False
        self.writer.abort()
        pending, self.pending = self.pending, deque()
        # Only a ready worker was on its first task; one still starting did none of them.
        culprit = pending.popleft() if pending and self.pool.usable and self.ready else None
        try:
            self.pool.worker_lost(self, list(pending))
        finally:
            if culprit is not None:
                settle(culprit[0], error=WorkerError(self.cause))

    def kill(self, cause: str) -> None:
        """Kill the process and give up on it at once: the task it was on fails, the ones behind
        it go on, and whatever it still writes is ignored. (Its end may come late, or never on a
        reactor without SIGCHLD handling while a process it forked holds its pipe open.)"""
        self.cause = cause
        with contextlib.suppress(Exception):  # already gone
            self.transport.signalProcess("KILL")
        self._lost()
        self._reap(REAP_ATTEMPTS)

    def close(self) -> None:
        """End of input: the worker answers what it has, then exits."""
        self.writer.close()


class WorkerPool:
    """The crawl's worker processes, shared by the middleware and the pipeline of one crawler."""

    _pools: ClassVar[WeakKeyDictionary[Any, WorkerPool | None]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler, config: SimhashConfig, size: int) -> None:
        self.crawler = crawler
        self.config = config
        self.size = size
        self.workers: list[_WorkerProtocol] = []
        self.restarts = 0
        self.usable = True  # False once a worker could not build its detector
        self._components: set[str] = set()
        self._closing = False
        self._watchdog: Any = None
        self._last_check: float | None = None  # when the watchdog last looked
        self._logged: set[str] = set()

    @classmethod
    def of(cls, crawler: Crawler, config: SimhashConfig) -> WorkerPool | None:
        """The crawler's pool (created by its first component), or None for inline work."""
        size = resolve_worker_count(config.workers)
        if size <= 0:
            return None
        if not crawler.settings.getbool("TWISTED_REACTOR_ENABLED", True):
            return None  # no Twisted reactor (TWISTED_REACTOR_ENABLED=False): workers need it
        if crawler in cls._pools:  # the crawler's other component asked first
            return cls._pools[crawler]
        try:
            pickle.dumps(config)
        except Exception as error:  # e.g. a lambda as SIMHASH_EXTRACTOR
            logger.warning(
                "Simhash: the SIMHASH_* settings cannot be sent to worker processes (%s: %s);"
                " signatures are computed in the crawl's own process (SIMHASH_WORKERS=0)",
                type(error).__name__, error, extra={"crawler": crawler},
            )
            cls._pools[crawler] = None  # said once for the crawler's components
            return None
        pool = cls._pools[crawler] = cls(crawler, config, size)
        return pool

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> WorkerPool | None:
        """The crawler's pool if its components made one (None: no workers, or not yet)."""
        return cls._pools.get(crawler)

    @property
    def ready(self) -> bool:
        """Whether a worker is ready to take tasks (until then the crawl computes signatures)."""
        return bool(self._takers(ready_only=True))

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self, component: str) -> None:
        """Start the workers when the first component opens (at spider_opened)."""
        first = not self._components
        self._components.add(component)
        if not first:
            return
        from twisted.internet import task

        self._watchdog = task.LoopingCall(self._check_timeouts)
        self._watchdog.start(WATCHDOG_INTERVAL, now=False).addErrback(self._watchdog_failed)
        started = sum(self._try_spawn() for _ in range(self.size))
        self.crawler.stats.set_value("simhash/workers/processes", started)

    def close(self, component: str) -> None:
        """Let the workers finish and exit once the last component has closed."""
        self._components.discard(component)
        if self._components or self._closing:
            return
        self._closing = True
        if self._watchdog is not None and self._watchdog.running:
            self._watchdog.stop()
        for worker in self.workers:
            worker.close()

    def _try_spawn(self) -> bool:
        """Start a worker; if the system refuses (no file descriptors or processes left, say),
        log it once and go on with the workers there are (with none, work is done inline)."""
        try:
            self._spawn()
        except Exception as error:
            self._log_once(
                "spawn",
                "Simhash: could not start a worker process (%s: %s); signatures are computed by "
                "the workers there are, or in the crawl's own process",
                type(error).__name__, error,
            )
            return False
        return True

    def _watchdog_failed(self, failure: Any) -> None:
        self._log_once(
            "watchdog",
            "Simhash: the worker watchdog stopped (%s); a worker stuck on one task is no longer "
            "killed after SIMHASH_WORKER_TIMEOUT",
            failure.getErrorMessage(),
        )

    def _spawn(self) -> None:
        from twisted.internet import reactor

        read_end, write_end = open_pipe()  # its stdin: written by us, not by the transport
        worker = _WorkerProtocol(self, self.config, FrameWriter(write_end, reactor))
        env = dict(os.environ)
        # The worker imports what the crawl imports (a custom extractor's module, say).
        env["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
        command = [sys.executable, "-c", COMMAND_CODE]
        try:
            with shutdown_signals_blocked():  # until the worker ignores them (COMMAND_CODE)
                reactor.spawnProcess(
                    worker, sys.executable, command, env=env, childFDs={0: read_end, 1: "r", 2: 2}
                )
        except BaseException:
            worker.writer.abort()
            raise
        finally:
            os.close(read_end)  # the child has its own copy
        self.workers.append(worker)

    # -- tasks -------------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Whether tasks can go to a worker (if not, compute inline)."""
        return (
            self.usable
            and not self._closing
            and bool(self._components)
            and any(worker.alive for worker in self.workers)
        )

    def has_room(self, body_size: int = 0) -> bool:
        """Whether a ready worker has fewer than :data:`MAX_QUEUED` tasks waiting, or (for a
        page whose body is over :data:`INLINE_MAX_BODY` bytes) any worker runs at all.

        While no worker is ready (they are starting: imports and jieba's dictionary take most
        of a second, at the start of the crawl or after a restart) the crawl's own thread
        computes the signatures instead of leaving its first pages to wait (counted in
        ``simhash/workers/starting``). When all are behind (more pages than they can take, or a
        CPU shared with other work) it does the same rather than let the queue grow: the crawl
        is never slower than inline work (counted in ``simhash/workers/overflow``). A large
        page waits for a worker all the same (``simhash/workers/large_waited``), where
        ``SIMHASH_WORKER_TIMEOUT`` bounds its parse."""
        ready = self._takers(ready_only=True)
        if any(len(worker.pending) < MAX_QUEUED for worker in ready):
            return True
        if body_size > INLINE_MAX_BODY and self._takers():  # it waits: bounded by the watchdog
            self.crawler.stats.inc_value("simhash/workers/large_waited")
            return True
        self.crawler.stats.inc_value("simhash/workers/overflow" if ready else
                                     "simhash/workers/starting")
        return False

    def submit_page(self, response: Any, read_canonical: bool = False) -> Waiter | None:
        """Hand a Scrapy HTML response to the least busy worker; await the result for
        (signature, seconds spent in the worker, note), see
        :func:`~scrapy_simhash.crawl.signing.page_signature`; ``read_canonical``: the note is
        (note, the URL the page declares as its own or None, see
        :func:`~scrapy_simhash.crawl.urlrules.declared_canonical`).
        None when no worker is running (compute inline)."""
        url, body, content_type, encoding = response_parts(response)
        return self._submit(
            ("page", url, pickle.PickleBuffer(body), content_type, encoding, read_canonical)
        )

    def submit_text(self, text: str) -> Waiter | None:
        """:meth:`submit_page` for an item's text (its note is always None)."""
        return self._submit(("text", text))

    def submit_item(
        self, key: str, parts: list[str], pages: list[tuple[str, str]]
    ) -> Waiter | None:
        """:meth:`submit_page` for an item: its key, its text's parts and the fields that may
        hold a page, signed by :func:`~scrapy_simhash.crawl.itempage.item_signature` (whose
        note the answer carries). (A field among ``parts`` and ``pages`` is pickled once.)"""
        return self._submit(("item", key, parts, pages))

    def _submit(self, message: tuple) -> Waiter | None:
        takers = self._takers()
        return _least_busy(takers).send(message) if takers else None

    def _takers(self, ready_only: bool = False) -> list[_WorkerProtocol]:
        """The live workers that are ready, else (unless ``ready_only``) all live ones."""
        alive = [worker for worker in self.workers if worker.alive]
        ready = [worker for worker in alive if worker.ready]
        return ready if ready or ready_only else alive

    # -- failures ----------------------------------------------------------------------------

    def now(self) -> float:
        """Seconds on a clock that no change of the system's time moves."""
        return time.monotonic()

    def _check_timeouts(self) -> None:
        timeout = self.config.worker_timeout
        now = self.now()
        late = 0.0 if self._last_check is None else now - self._last_check - WATCHDOG_INTERVAL
        self._last_check = now
        for worker in list(self.workers):  # (a worker killed here is replaced in the list)
            if not worker.alive:
                continue
            if late > WATCHDOG_INTERVAL:  # the reactor was held up (a slow callback): answers
                worker.started += late  # may be waiting unread, so that time is not counted
                if worker.busy_since is not None:  # against the worker
                    worker.busy_since += late
            if worker.busy_since is not None and now - worker.busy_since > timeout:
                worker.kill(f"one task took longer than SIMHASH_WORKER_TIMEOUT={timeout:g} s")
            elif not worker.ready and now - worker.started > timeout:
                worker.kill(f"it was not ready after SIMHASH_WORKER_TIMEOUT={timeout:g} s")

    def worker_unusable(self, worker: _WorkerProtocol, error: str) -> None:
        self.usable = False
        self._log_once(
            "unusable",
            "Simhash: a worker process could not build the detector (%s); signatures are "
            "computed in the crawl's own process instead (SIMHASH_WORKERS=%r)",
            error, self.config.workers,
        )

    def worker_lost(self, worker: _WorkerProtocol, queued: list[tuple[Waiter, tuple]]) -> None:
        """Replace a lost worker (while restarts last) and hand its queued tasks on."""
        self.workers.remove(worker)
        if not self._closing and self.usable:
            stats = self.crawler.stats
            stats.inc_value("simhash/workers/lost")
            self._log_once(
                worker.cause,
                "Simhash: a worker process was lost (%s); the page or item it was on, if any, is "
                "kept unchecked (simhash/*/skipped/worker_error) and a new worker is started "
                "(%d restarts left)",
                worker.cause, MAX_RESTARTS - self.restarts,
            )
            if self.restarts < MAX_RESTARTS:
                self.restarts += 1
                if self._try_spawn():
                    stats.inc_value("simhash/workers/restarted")
        alive = self._takers()  # ready ones first: a starting one may never get to them
        for waiter, message in queued:
            if alive and self.usable:
                _least_busy(alive).send(message, waiter)
            else:
                settle(waiter, error=WorkerError(worker.cause, retry_inline=True))

    def _log_once(self, cause: str, message: str, *args: Any) -> None:
        if cause in self._logged:
            return
        self._logged.add(cause)
        logger.error(message, *args, extra={"crawler": self.crawler})
