"""Index calls off the reactor thread, each with a deadline, behind a circuit breaker.

An SQLite or Redis index can be slow or away (a locked database file, a frozen or unreachable
server): called on the reactor, it stops the whole crawl, downloads and callbacks alike, for as
long as the call lasts (Redis's socket timeout, SQLite's lock timeout). So a crawl with such an
index runs its calls in one thread of its own (an :class:`IndexLane`), one at a time and in the
order given: the order decisions rely on, and the thread SQLite's connection belongs to (the
index is opened, flushed and closed there too). The reactor awaits each call for at most
``SIMHASH_INDEX_TIMEOUT`` seconds (:class:`IndexCalls`; by default 1 s for Redis, 35 s for SQLite:
see :data:`DEFAULT_TIMEOUTS`).

A call that does not answer in time is given up (:class:`IndexTimeout`), never sent again: if it
had started, it keeps running in the thread and may still be applied (a Redis script that ran
but whose reply is late), so sending it again could store a page twice; if it had not started,
it never will. Its page is decided by ``SIMHASH_ON_INDEX_ERROR``, once. A timeout or an index
error opens the :class:`CircuitBreaker`: while it is open, pages are decided by that policy at
once, without touching the index (and without queueing behind the call that hangs); after a
cool-down, and once no call given up still runs in the thread, one call is let through as a
probe, whose success closes it.

In-process indexes (``memory://``) and index classes of the user's own are called inline, as
before: the first cannot block, and the second may not be safe to call from another thread.

Stats: ``simhash/index/timeouts``, ``simhash/index/breaker/opened``,
``simhash/index/breaker/closed`` and ``simhash/index/breaker/decided/<ns>`` (pages or items decided
by the policy while the breaker was open).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakKeyDictionary

from scrapy_simhash.index.base import NearDuplicateIndexError, mask_password

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred

    from scrapy_simhash.crawl.settings import SimhashConfig

logger = logging.getLogger(__name__)

#: Index URI schemes whose calls go to a lane (the backends that wait on a file or a socket),
#: each with its default ``SIMHASH_INDEX_TIMEOUT``. Redis answers in a millisecond or is in
#: trouble; SQLite's calls wait for another process's write lock as part of their normal work
#: (two crawls on one file take turns), up to SQLite's own ``timeout`` (30 s, then "database
#: is locked", an index error): waiting for it must not decide pages unchecked.
DEFAULT_TIMEOUTS = {"sqlite": 35.0, "redis": 1.0, "rediss": 1.0, "unix": 1.0}
#: Seconds before the first probe after the breaker opened; doubled after each failed probe, up
#: to :data:`MAX_COOLDOWN`.
COOLDOWN = 1.0
MAX_COOLDOWN = 5.0
#: Calls waiting in a lane beyond which a new one is refused at once (a frozen index with the
#: breaker closed cannot gather an unbounded queue).
MAX_BACKLOG = 64
#: Seconds the crawl's end waits for the index's last flush and close (its thread may hang on a
#: frozen server: the crawl then ends without them).
CLOSE_TIMEOUT = 30.0


class IndexTimeout(NearDuplicateIndexError):
    """An index call did not answer within ``SIMHASH_INDEX_TIMEOUT``. ``started``: it was
    running (it may still be applied, and is never sent again); else it never will run."""

    def __init__(self, operation: str, seconds: float, started: bool) -> None:
        state = ("still running, not sent again" if started
                 else "not started: the index thread is busy with an earlier call")
        super().__init__(f"{operation} did not answer within {seconds:g}s ({state})")
        self.operation = operation
        self.started = started


class IndexBreakerOpen(NearDuplicateIndexError):
    """The index is not called: it failed or did not answer lately (the breaker is open)."""


class CircuitBreaker:
    """Closed, open or half-open, on a clock; the caller reports each admitted call's end.

    :meth:`admit` answers whether a call may go to the index, and whether it is the probe: the
    one call let through, once the cool-down has passed, while the breaker is open. A failure
    while closed opens it; the probe's failure keeps it open for a cool-down twice as long (up
    to ``max_cooldown``), its success closes it. Calls admitted before the breaker opened that
    end later change nothing.
    """

    CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"

    def __init__(
        self, cooldown: float = COOLDOWN, max_cooldown: float = MAX_COOLDOWN,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = self.CLOSED
        self.first_cooldown = cooldown
        self.cooldown = cooldown
        self.max_cooldown = max_cooldown
        self.clock = clock
        self.retry_at = 0.0
        self.opened_at = 0.0

    def admit(self) -> tuple[bool, bool]:
        """(may call the index, this call is the probe)."""
        if self.state == self.CLOSED:
            return True, False
        if self.state == self.OPEN and self.clock() >= self.retry_at:
            self.state = self.HALF_OPEN
            return True, True
        return False, False

    def succeeded(self, probe: bool) -> bool:
        """Report an admitted call that answered; True when this closed the breaker."""
        if not probe or self.state != self.HALF_OPEN:
            return False
        self.state = self.CLOSED
        self.cooldown = self.first_cooldown
        return True

    def abandoned(self, probe: bool) -> None:
        """Report an admitted call given up by its caller (cancelled): no news of the index, but
        a probe's place is free again."""
        if probe and self.state == self.HALF_OPEN:
            self.state, self.retry_at = self.OPEN, self.clock()

    def failed(self, probe: bool) -> bool:
        """Report an admitted call that failed or timed out; True when this opened the breaker
        (it was closed)."""
        now = self.clock()
        if probe and self.state == self.HALF_OPEN:
            self.cooldown = min(self.cooldown * 2, self.max_cooldown)
            self.state, self.retry_at = self.OPEN, now + self.cooldown
            return False
        if self.state != self.CLOSED:
            return False
        self.state, self.opened_at, self.retry_at = self.OPEN, now, now + self.cooldown
        return True


class IndexLane:
    """One daemon thread that runs calls one at a time, in the order they were submitted.

    A daemon, so that a call hanging on a frozen server never holds up the end of the process
    (the index is flushed and closed in the lane before that, see :data:`CLOSE_TIMEOUT`)."""

    _count = 0

    def __init__(self) -> None:
        IndexLane._count += 1
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._serve, name=f"simhash-index-{IndexLane._count}", daemon=True
        )
        self._thread.start()

    def submit(self, function: Callable[..., Any], *args: Any) -> Future:
        """The future of ``function(*args)``; cancelling it before it starts means it never
        runs (:meth:`Future.cancel` is atomic with the thread taking it)."""
        future: Future = Future()
        self._jobs.put((future, function, args))
        return future

    def backlog(self) -> int:
        """Calls submitted and not yet taken by the thread (cancelled ones included)."""
        return self._jobs.qsize()

    def stop(self) -> None:
        """End the thread once the calls submitted so far are done."""
        self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, function, args = job
            del job
            if future.set_running_or_notify_cancel():
                try:
                    result = function(*args)
                except BaseException as error:  # never leave a waiter without an answer
                    future.set_exception(error)
                else:
                    future.set_result(result)
                    del result
            del future, function, args


class _Lanes:
    """The process's lanes, one per index (shared by its users: a crawl's pages and items, and
    every SQLite index, whose connections SQLite ties to their thread and this package shares
    between the indexes of one file)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lanes: dict[str, tuple[IndexLane, int]] = {}

    @staticmethod
    def key(uri: str) -> str:
        scheme = uri.split("://", 1)[0].lower()
        return "sqlite" if scheme == "sqlite" else uri

    def acquire(self, uri: str) -> IndexLane:
        key = self.key(uri)
        with self._lock:
            lane, users = self._lanes.get(key) or (IndexLane(), 0)
            self._lanes[key] = (lane, users + 1)
            return lane

    def release(self, uri: str) -> None:
        key = self.key(uri)
        with self._lock:
            lane, users = self._lanes[key]
            if users > 1:
                self._lanes[key] = (lane, users - 1)
                return
            del self._lanes[key]
        lane.stop()


LANES = _Lanes()


def call_timeout(config: SimhashConfig) -> float:
    """Seconds each index call is awaited; 0: the index is called inline (see the module
    docstring)."""
    uri = config.index_uri
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    default = DEFAULT_TIMEOUTS.get(scheme)
    if default is None:  # memory://, an index class of the user's own
        return 0.0
    return default if config.index_timeout is None else config.index_timeout


class IndexCalls:
    """A crawl's calls to its index: in a lane, each awaited for at most the timeout, behind one
    breaker for the crawl's pages and items (one outage, one line in the log)."""

    _of: ClassVar[WeakKeyDictionary[Crawler, IndexCalls]] = WeakKeyDictionary()

    def __init__(self, crawler: Crawler, config: SimhashConfig) -> None:
        self.crawler = crawler
        self.stats = crawler.stats
        self.uri = config.index_uri
        self.timeout = call_timeout(config)
        self.policy = config.on_index_error
        self.breaker = CircuitBreaker()
        self.lane: IndexLane | None = None
        self._users: set[str] = set()
        self._decided_while_open = 0
        #: Calls given up while running that have not ended yet: the lane is stuck behind them
        self.hanging = 0

    @classmethod
    def of(cls, crawler: Crawler, config: SimhashConfig) -> IndexCalls | None:
        """The crawler's index calls (shared by its components), or None to call inline."""
        if not call_timeout(config) or not crawler.settings.getbool("TWISTED_REACTOR_ENABLED",
                                                                    True):
            return None
        calls = cls._of.get(crawler)
        if calls is None:
            calls = cls._of[crawler] = cls(crawler, config)
        return calls

    # -- lifecycle: blocking, at the spider's opening and closing ------------------------------

    def open(self, namespace: str, opener: Callable[[], Any]) -> Any:
        """``opener()`` run in the lane (the index lives there); waits for it, without a
        deadline: opening has its own timeouts, and the crawl cannot start before it."""
        if self.lane is None:
            self.lane = LANES.acquire(self.uri)
        self._users.add(namespace)
        try:
            return self.lane.submit(opener).result()
        except BaseException:
            self._leave(namespace)
            raise

    def close_timeout(self) -> float:
        """Seconds the crawl's end waits for the index's last flush and close: up to
        :data:`CLOSE_TIMEOUT`, but no longer than one call's timeout while the index is known to
        be away (the breaker is open, or a call given up still runs): a frozen Redis would
        otherwise hold the crawl's end for as long as the calls queued before the close hang."""
        if self.breaker.state == CircuitBreaker.CLOSED and not self.hanging:
            return CLOSE_TIMEOUT
        return min(CLOSE_TIMEOUT, max(self.timeout, 1.0))

    def close(self, namespace: str, closer: Callable[[], Any], timeout: float = CLOSE_TIMEOUT
              ) -> Any:
        """``closer()`` run in the lane; waits up to ``timeout`` seconds for it (raises
        :class:`IndexTimeout` after that)."""
        if self.lane is None:
            raise RuntimeError("the index is not open (see the first simhash error)")
        try:
            return self.lane.submit(closer).result(timeout=timeout)
        except concurrent.futures.TimeoutError:  # (the builtin one from Python 3.11)
            raise IndexTimeout("close", timeout, started=True) from None
        finally:
            self._leave(namespace)

    def open_later(
        self, namespace: str, opener: Callable[[], Any], on_done: Callable[[Future], None]
    ) -> Future:
        """``opener()`` run in the lane without a deadline (an index that could not be reached
        at start-up, tried again: loading a large Redis index takes seconds);
        ``on_done(future)`` is called on the reactor thread once it ends. A failure leaves the
        namespace, as :meth:`open` does."""
        from twisted.internet import reactor

        if self.lane is None:
            self.lane = LANES.acquire(self.uri)
        self._users.add(namespace)
        future = self.lane.submit(opener)

        def on_answer(done: Future) -> None:  # on the reactor thread
            if done.exception() is not None:
                self._leave(namespace)
            on_done(done)

        def tell_reactor(done: Future) -> None:  # in the lane's thread
            with contextlib.suppress(RuntimeError):  # the reactor's loop closed: the crawl ended
                reactor.callFromThread(on_answer, done)

        future.add_done_callback(tell_reactor)
        return future

    def unreachable_at_start(self, error: BaseException) -> None:
        """The index could not be reached when the crawl opened it: open the breaker (said
        once, as an outage: the crawl goes on, pages and items decided by the policy, and the
        index opened by the first call the breaker lets through)."""
        if self.breaker.failed(False):
            self._say_open(
                "Simhash: cannot reach the index at SIMHASH_INDEX_URI=%r (%s: %s); the crawl "
                "goes on, pages and items decided by SIMHASH_ON_INDEX_ERROR=%r without it "
                "until it answers (tried again after %gs, then after up to %gs)", error,
            )

    def _leave(self, namespace: str) -> None:
        self._users.discard(namespace)
        if not self._users and self.lane is not None:
            LANES.release(self.uri)
            self.lane = None

    def run_blocking(
        self, function: Callable[..., Any], *args: Any, timeout: float | None = None
    ) -> Any:
        """``function(*args)`` in the lane, waited for (for callers that cannot await); at most
        ``timeout`` seconds when given (then :class:`IndexTimeout`, the call left running)."""
        if self.lane is None:
            raise RuntimeError("the index is not open (see the first simhash error)")
        future = self.lane.submit(function, *args)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            name = getattr(function, "__name__", "call")
            raise IndexTimeout(name, timeout or 0.0, started=not future.cancel()) from None

    # -- calls from the reactor ----------------------------------------------------------------

    def admit(self) -> tuple[bool, bool]:
        """:meth:`CircuitBreaker.admit`; no probe while a call given up still runs in the lane
        (a probe could only wait behind it, and time out in turn)."""
        if self.hanging and self.breaker.state != CircuitBreaker.CLOSED:
            return False, False
        return self.breaker.admit()

    def call(self, operation: str, function: Callable[..., Any], *args: Any) -> Deferred:
        """A Deferred of ``function(*args)`` run in the lane; it fails with
        :class:`IndexTimeout` when no answer came within the timeout (a late answer is
        dropped: its page was decided without it)."""
        from twisted.internet import reactor
        from twisted.internet.defer import Deferred, fail

        lane = self.lane
        if lane is None:
            return fail(RuntimeError("the index is not open (see the first simhash error)"))
        if lane.backlog() >= MAX_BACKLOG:
            return fail(IndexTimeout(operation, self.timeout, started=False))
        future = lane.submit(function, *args)
        timer: Any = None

        def give_up(_: Deferred) -> None:  # the waiter was cancelled
            future.cancel()
            if timer is not None and timer.active():
                timer.cancel()

        answer: Deferred = Deferred(canceller=give_up)
        hanging = False

        def on_deadline() -> None:
            nonlocal hanging
            if answer.called:
                return
            hanging = not future.cancel()
            self.hanging += hanging
            answer.errback(IndexTimeout(operation, self.timeout, started=hanging))

        def on_answer(done: Future) -> None:  # on the reactor thread
            if hanging:  # a late answer: its page was decided without it
                self.hanging -= 1
            if answer.called or done.cancelled():
                return
            if timer.active():
                timer.cancel()
            error = done.exception()
            if error is None:
                answer.callback(done.result())
            else:
                answer.errback(error)

        def tell_reactor(done: Future) -> None:  # in the lane's thread
            with contextlib.suppress(RuntimeError):  # the reactor's loop closed: the crawl ended
                reactor.callFromThread(on_answer, done)

        timer = reactor.callLater(self.timeout, on_deadline)
        future.add_done_callback(tell_reactor)
        return answer

    def abandoned(self, probe: bool) -> None:
        self.breaker.abandoned(probe)

    def succeeded(self, probe: bool) -> None:
        if self.breaker.succeeded(probe):
            self.stats.inc_value("simhash/index/breaker/closed")
            logger.warning(
                "Simhash: the index at SIMHASH_INDEX_URI=%r answers again after %.1fs; %d pages "
                "and items were decided meanwhile by SIMHASH_ON_INDEX_ERROR=%r without it",
                mask_password(self.uri), self.breaker.clock() - self.breaker.opened_at,
                self._decided_while_open, self.policy, extra={"crawler": self.crawler},
            )

    def failed(self, probe: bool, error: BaseException) -> None:
        if isinstance(error, IndexTimeout):
            self.stats.inc_value("simhash/index/timeouts")
        if self.breaker.failed(probe):
            self._say_open(
                "Simhash: the index at SIMHASH_INDEX_URI=%r failed (%s: %s); until it answers "
                "again, pages and items are decided by SIMHASH_ON_INDEX_ERROR=%r without it (a "
                "call is tried after %gs, then after up to %gs)", error,
            )

    def _say_open(self, message: str, error: BaseException) -> None:
        """The breaker just opened because of ``error``: count it and say so, once (``message``
        takes the URI, the error's type and text, the policy and the two cool-downs)."""
        self._decided_while_open = 0
        self.stats.inc_value("simhash/index/breaker/opened")
        logger.warning(
            message, mask_password(self.uri), type(error).__name__, error, self.policy,
            self.breaker.cooldown, self.breaker.max_cooldown, extra={"crawler": self.crawler},
        )

    def decided_while_open(self, namespace: str) -> None:
        """Count a page or item decided by the policy because the breaker is open."""
        self._decided_while_open += 1
        self.stats.inc_value(f"simhash/index/breaker/decided/{namespace}")


def opens_breaker(error: BaseException) -> bool:
    """Whether ``error`` says the index is slow or away, rather than that one call's arguments
    were wrong (a key too long for the index: that page alone is decided by the policy)."""
    return isinstance(error, NearDuplicateIndexError) or not isinstance(
        error, (ValueError, TypeError)
    )
