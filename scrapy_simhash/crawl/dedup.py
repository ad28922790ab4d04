"""The keep/drop decision shared by the downloader middleware and the item pipeline.

:class:`Deduplicator` turns "signature + index + stats + report" into one :class:`Outcome` for a
page or an item, in one namespace (``pages`` or ``items``). It is the only place that calls the
signature and the index, so swapping the algorithm (SimHash today; MinHash, KSentence or exact
later via one setting) only touches
:func:`~scrapy_simhash.crawl.settings.build_detector` and the index it opens.

Stats written (``<ns>`` is ``pages`` or ``items``): ``simhash/<ns>/checked`` (signature computed
and looked up: kept + dropped), ``simhash/<ns>/kept``, ``simhash/<ns>/dropped`` (of which
``.../kept/index_error`` and ``.../dropped/index_error`` were not looked up: the index failed),
``simhash/<ns>/skipped/<reason>``, ``simhash/index/<ns>/size``, ``simhash/index/errors``,
``simhash/time/<ns>/fingerprint`` and ``simhash/time/<ns>/index`` (seconds).

While the crawl runs, the index is flushed every :data:`FLUSH_INTERVAL` seconds (or its own
``commit_interval``), so an idle crawl neither keeps SQLite's write lock (other processes would
wait, then fail with "database is locked") nor leaves old fingerprints uncommitted (lost if the
process is killed).

An SQLite or Redis index is opened, called, flushed and closed in a thread of its own, each call
awaited for at most ``SIMHASH_INDEX_TIMEOUT``, behind a circuit breaker
(:mod:`scrapy_simhash.crawl.indexcalls`): a slow or absent index never stops the reactor. The
decision logic is written once, as *steps*: generators that yield each index call as
``(operation, function, args)`` and receive its answer; :meth:`Deduplicator.decide` runs them
as they come, :meth:`Deduplicator.decide_off_reactor` awaits each one from the index's thread.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import logging
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import scrapy
from scrapy import signals
from scrapy.exceptions import CloseSpider
from twisted.internet.defer import CancelledError as DeferredCancelled

from scrapy_simhash import evidence as ev
from scrapy_simhash.crawl.indexcalls import (
    CLOSE_TIMEOUT,
    CircuitBreaker,
    IndexBreakerOpen,
    IndexCalls,
    IndexTimeout,
    opens_breaker,
)
from scrapy_simhash.crawl.report import CrawlSession
from scrapy_simhash.crawl.settings import (
    SimhashConfig,
)
from scrapy_simhash.crawl.signing import READ_AS_UTF8
from scrapy_simhash.crawl.workers import WorkerError
from scrapy_simhash.index.base import (
    IndexAuthenticationError,
    IndexUnavailable,
    Match,
    NearDuplicateIndexError,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_simhash.detectors import Detector
    from scrapy_simhash.index import NearDuplicateIndex

logger = logging.getLogger(__name__)

KEPT = "kept"
DROPPED = "dropped"
SKIPPED = "skipped"
STOP_REASON = "simhash_index_error"
REPORT_STOP_REASON = "simhash_report_error"
#: Seconds between flushes of the index while the crawl runs (unless it has a commit_interval).
FLUSH_INTERVAL = 1.0
#: Decisions whose calls run in the index's thread, by index URI (the pages' and the items'
#: of one index): the timer's flush waits for a moment without any (see _flush_off_reactor).
_IN_FLIGHT: Counter[str] = Counter()
#: Scrapy 2.18 honours CloseSpider raised from a spider_opened handler.
_CLOSES_FROM_SPIDER_OPENED = tuple(int(part) for part in scrapy.__version__.split(".")[:2]) >= (
    2, 18)
#: Candidates within the threshold whose evidence is read, nearest first.
MAX_CONFIRMED_CANDIDATES = 8
#: A stored page matched by this many other pages, whose text is short or does not stand for
#: its page, is a template or an interstitial (a ban page, a login form, a listing's intro), not
#: content: nothing is dropped against it any more. A page has a handful of variants (print,
#: AMP, tracking parameters); a template has many.
TEMPLATE_MATCHES = 8
#: ... "short": fewer words than this in its main text.
TEMPLATE_MAX_WORDS = 300
#: Distinct pages withdrawn as no content (a ban page, an interstitial) a crawl remembers: a page
#: like one of them is no content either (see :meth:`Deduplicator.like_not_content`).
MAX_NOT_CONTENT_SHAPES = 64
#: Weak pages (a few words of their own: a ban page, an interstitial, a form) this crawl stored,
#: whose keys it remembers: a weak page is dropped only against one of them, never against an
#: earlier crawl's (see :meth:`Deduplicator._weak_of_earlier_crawl`). Past this many, later ones
#: are not remembered: their look-alikes are kept, the safer error.
MAX_WEAK_KEYS = 200_000
#: A candidate another process has just stored may not have its evidence yet (stored by that
#: process's next call): read it again this many times, this long apart, on an index other
#: processes share, before the page is kept unconfirmed. After this many candidates stay
#: without evidence (an index filled without it), the crawl stops waiting.
EVIDENCE_REREADS = 5
EVIDENCE_REREAD_SECONDS = 0.02
EVIDENCE_WAITS_IN_VAIN = 20
#: Scrapy 2.13, a crawl stopped at start-up: how often and how long to wait for its engine to run.
STOP_RETRY_SECONDS = 0.05
STOP_ATTEMPTS = 200

#: Index work written once for both ways of running it: a generator that yields each index call
#: as ``(operation, function, args)`` and is sent the call's answer (see the module docstring).
Steps = Generator[tuple[str, Callable[..., Any], tuple], Any, Any]


def error_kind(error: BaseException) -> str:
    """What tells one cause of failure from another, for logging each once: the exception's
    type, with SQLite's error name (a locked database, a full disk and an I/O error are all
    ``OperationalError``) or the code of a Redis error reply (``OOM``, ``READONLY`` ...)."""
    name = type(error).__name__
    origin = error.__cause__ or error
    code = getattr(origin, "sqlite_errorname", None)  # Python >= 3.11
    if code is None and not isinstance(origin, OSError):
        first = str(origin).split(" ", 1)[0]
        code = first if len(first) > 1 and first.isalpha() and first.isupper() else None
    return f"{name} {code}" if code else name


class DecisionOrder:
    """Decisions in the order the checks began, whatever order their signatures come back in.

    With worker processes a signature can come back before an earlier one (another worker, or
    one computed inline while the worker is busy); "keep the first of each cluster" means the
    earlier page or item must still be decided first. Each check takes a ticket, waits for its
    turn before touching the index, and releases it when done (also when it fails or is
    cancelled, so one lost check never holds up the others).
    """

    def __init__(self) -> None:
        self._next_ticket = 0
        self._turn = 0
        self._waiting: dict[int, Any] = {}
        self._abandoned: set[int] = set()

    def ticket(self) -> int:
        ticket = self._next_ticket
        self._next_ticket += 1
        return ticket

    async def wait(self, ticket: int) -> None:
        """Return when every earlier ticket has been released."""
        if ticket == self._turn:
            return
        from scrapy.utils.defer import maybe_deferred_to_future
        from twisted.internet.defer import Deferred

        turn: Deferred = Deferred()
        self._waiting[ticket] = turn
        await maybe_deferred_to_future(turn)

    def release(self, ticket: int) -> None:
        if ticket != self._turn:  # given up before its turn (cancelled): skipped when it comes
            self._waiting.pop(ticket, None)
            self._abandoned.add(ticket)
            return
        self._turn += 1
        while self._turn in self._abandoned:
            self._abandoned.discard(self._turn)
            self._turn += 1
        turn = self._waiting.pop(self._turn, None)
        if turn is not None:
            from twisted.internet import reactor

            reactor.callLater(0, turn.callback, None)  # not from inside this decision's frame


@dataclass(frozen=True, slots=True)
class Outcome:
    """The decision for one page or item."""

    action: str  # KEPT, DROPPED or SKIPPED
    fingerprint: Any = None  # the signature: an int for simhash, exact and ksentence
    match: Match | None = None
    reason: str | None = None  # why skipped, or "index_error" for a drop by policy

    @property
    def dropped(self) -> bool:
        return self.action == DROPPED


class Deduplicator:
    """Signature + index + stats + report for one namespace of one crawl."""

    def __init__(
        self, crawler: Crawler, config: SimhashConfig, detector: Detector, namespace: str
    ) -> None:
        self.crawler = crawler
        self.config = config
        self.detector = detector
        self.namespace = namespace
        self.kind = namespace.rstrip("s")  # "page" / "item", as written in the report
        self.stats = crawler.stats
        self.session = CrawlSession.of(crawler, config.report_file, config.jobdir)
        self.index: NearDuplicateIndex | None = None
        self._prefix = f"simhash/{namespace}/"
        self._stopping = False
        #: The crawl is stopping because this component could not start (its index, its report
        #: file): see :meth:`drop_while_stopping`.
        self.start_up_failed = False
        self._closed = False
        self._flusher: Any = None
        self.order = DecisionOrder()
        self.evidence = EvidenceStore(self)
        self.templates = Templates(self)
        self._not_content: list[Any] = []  # signatures of pages withdrawn as no content
        self._weak_keys: set[int] = set()  # hashes of the weak pages' keys this crawl stored
        self._waits_in_vain = 0  # candidates whose evidence never came (see EVIDENCE_REREADS)
        self._warned_withdraw = False
        #: The index's thread, deadline and breaker; None: the index is called inline.
        self.calls = IndexCalls.of(crawler, config)
        #: The index could not be reached at start-up: it is opened by the first call the
        #: breaker lets through (see :meth:`_opens_later`); meanwhile, the opening in flight.
        self._late_open = False
        self._opening: concurrent.futures.Future | None = None

    @property
    def offloaded(self) -> bool:
        """Whether decisions await the index's thread (:meth:`check_in_order`, not
        :meth:`check`, keeps the reactor free)."""
        return self.calls is not None

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self) -> None:
        """Open the index (at spider_opened); if it cannot be opened the crawl stops, unless
        it cannot be reached and the policy rides that out (:meth:`_opens_later`)."""
        report_usable = self.session.component_opened(self.namespace)
        self.start_up_failed = True  # until the index is open and the report usable
        if self.session.index_unusable:  # the other component just failed on the same URI
            self._stopping = True  # and is stopping the crawl: no second try, no second wait
            return
        if self.session.index_unreachable:  # the other component could not reach it just now:
            self._late_open = True  # no second wait at start-up (the breaker said it once)
        else:
            try:
                if self.calls is None:
                    self.index = self._open_index()
                else:  # in the thread that will call it (SQLite ties a connection to its thread)
                    self.index = self.calls.open(self.namespace, self._open_index)
            except Exception as error:
                if not self._opens_later(error):
                    self._refuse_index(error)
                    return
        if self.index is not None:
            self.stats.set_value(f"simhash/index/{self.namespace}/size",
                                 self._call(len, self.index))
            self._start_flusher()
        if not report_usable:  # a bad SIMHASH_REPORT_FILE: stop, as for any bad setting
            self._stop(REPORT_STOP_REASON)
            return
        self.start_up_failed = False

    def _open_index(self) -> NearDuplicateIndex:
        return self.detector.open_index(
            self.config.index_uri, namespace=self.namespace, **self.config.index_options
        )

    def _refuse_index(self, error: Exception) -> None:
        """The index cannot be used (another index's settings, a bad option, a file that cannot
        be created): say why and stop the crawl, whatever the policy; without its index the
        crawl cannot deduplicate at all."""
        from scrapy_simhash.index import IndexParameterMismatch
        from scrapy_simhash.index.base import mask_password

        self.session.index_unusable = True
        if isinstance(error, IndexParameterMismatch):
            logger.error(
                "Simhash: the index at SIMHASH_INDEX_URI=%r was built with other settings (%s); "
                "use the same settings, or another index. Stopping the crawl.",
                mask_password(self.config.index_uri), _settings_that_differ(error),
                extra={"crawler": self.crawler},
            )
        else:
            self.stats.inc_value("simhash/index/errors")
            # (an unknown option's error names no setting; values may hold a password)
            options = ", ".join(sorted(map(str, self.config.index_options)))
            with_options = f" with SIMHASH_INDEX_OPTIONS {options}" if options else ""
            logger.error(
                "Simhash: cannot open the index at SIMHASH_INDEX_URI=%r%s (%s: %s). "
                "Stopping the crawl.",
                mask_password(self.config.index_uri), with_options, type(error).__name__, error,
                extra={"crawler": self.crawler},
            )
        self._stop()

    def _opens_later(self, error: Exception) -> bool:
        """Whether the crawl goes on without an index it could not reach at start-up (an
        outage, as mid-crawl): with an index in a thread of its own and the policy "keep", pages
        and items are kept unchecked until the first call the breaker lets through opens it.
        A refused password is a setting, not an outage; "drop" would drop every page of a crawl
        whose index never comes, and "stop" stops."""
        if self.calls is None or not _unreachable(error) or self.config.on_index_error != "keep":
            return False
        self.session.index_unreachable = True
        self._late_open = True
        self.stats.inc_value("simhash/index/errors")
        self.calls.unreachable_at_start(error)
        return True

    def _open_index_sized(self) -> tuple[NearDuplicateIndex, int]:
        index = self._open_index()
        return index, len(index)

    def _open_when_admitted(self) -> None:
        """Try once more to open an index unreachable at start-up, in its thread, if the
        breaker lets a call through and no try is under way."""
        if self._opening is not None or self._closed:
            return
        admitted, probe = self.calls.admit()
        if admitted:
            self._opening = self.calls.open_later(
                self.namespace, self._open_index_sized, functools.partial(self._opened_late, probe)
            )

    def _opened_late(self, probe: bool, done: concurrent.futures.Future) -> None:
        """On the reactor thread: the try of :meth:`_open_when_admitted` ended."""
        if self._opening is not done:  # close() waited for it and took the index
            return
        self._opening = None
        error = done.exception()
        if self._closed:  # the crawl ended first: close what opened
            if error is None:
                with contextlib.suppress(Exception):
                    self.calls.close(self.namespace, done.result()[0].close)
            return
        if error is None:
            self.index, size = done.result()
            self._late_open = False
            self.stats.set_value(f"simhash/index/{self.namespace}/size", size)
            self._start_flusher()
            self.calls.succeeded(probe)
        elif _unreachable(error):
            self.stats.inc_value("simhash/index/errors")
            self.calls.failed(probe, error)
        else:  # it answers, and cannot be used
            self._late_open = False
            self.calls.succeeded(probe)
            self._refuse_index(error if isinstance(error, Exception) else RuntimeError(error))

    def _call(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` now: inline, or in the index's thread (waited for)."""
        if self.calls is None:
            return function(*args)
        return self.calls.run_blocking(function, *args)

    def drop_while_stopping(self) -> str:
        """Count a page or item that reached a component that could not start while the crawl
        stops (Scrapy 2.13 fetches its first pages before a stop at start-up takes effect): it
        is dropped unchecked, never passed on as if checked. The reason, for its exception."""
        self.stats.inc_value(f"{self._prefix}dropped/stopping")
        return "dropped unchecked: the crawl is stopping (scrapy-simhash could not start)"

    def _start_flusher(self) -> None:
        """Flush the index periodically on the crawl's reactor (none installed: no timer)."""
        if "twisted.internet.reactor" not in sys.modules:
            return
        from twisted.internet import task

        interval = getattr(self.index, "commit_interval", None)
        if not isinstance(interval, (int, float)) or interval <= 0:
            interval = FLUSH_INTERVAL
        flush = self.flush if self.calls is None else self._flush_off_reactor
        self._flusher = task.LoopingCall(flush)
        self._flusher.start(float(interval), now=False).addErrback(lambda failure: None)

    def flush(self) -> None:
        """Make the fingerprints stored so far durable; an error is counted, never raised."""
        if self.index is None:
            return
        try:
            self._call(self.index.flush)
        except Exception as error:
            self._index_error("flush", error)

    def _flush_off_reactor(self) -> Any:
        """The timer's flush in the index's thread: a Deferred (the timer waits for it), or
        nothing while the breaker keeps the index uncalled."""
        calls = self.calls
        if self.index is None or calls.breaker.state != CircuitBreaker.CLOSED:
            # a flush proves nothing (Redis and memory indexes have nothing to flush): a page's
            # or an item's call is the probe that tells whether the index answers again
            return None
        if _IN_FLIGHT.get(self.config.index_uri):
            # a decision's calls are under way, maybe between a page's fingerprint and its
            # evidence: committed there, a crawl killed before the evidence would leave a
            # fingerprint that no copy can be confirmed against (stored twice on the rerun).
            # The index commits at its next call's start (SQLite's commit_interval) instead.
            return None
        admitted, probe = calls.admit()
        if not admitted:
            return None
        flushed = calls.call("flush", self.index.flush)
        flushed.addCallbacks(lambda _: calls.succeeded(probe),
                             lambda failure: self._call_failed("flush", probe, failure.value))
        return flushed

    def _call_failed(self, operation: str, probe: bool, error: BaseException) -> None:
        """An index call off the reactor failed: tell the breaker; count and log it as an index
        error of ``operation`` (``""``: the caller does)."""
        if opens_breaker(error):
            self.calls.failed(probe, error)
        else:  # the index answered: about this call's arguments
            self.calls.succeeded(probe)
        if operation and isinstance(error, Exception):
            self._index_error(operation, error)

    def close(self) -> None:
        """Flush and close the index (at spider_closed), record its size, end the session."""
        from scrapy_simhash.index.base import mask_password

        if self._closed:
            return
        self._closed = True
        if self._flusher is not None and self._flusher.running:
            self._flusher.stop()
        self._flusher = None
        opening = self._opening
        if opening is not None:  # an index unreachable at start-up is being opened: wait for it
            try:
                self.index = opening.result(timeout=CLOSE_TIMEOUT)[0]
            except concurrent.futures.TimeoutError:
                pass  # closed when it opens, if ever (:meth:`_opened_late`)
            except Exception:
                self._opening = None
            else:
                self._opening = None
        index = self.index
        try:
            if index is not None and self.calls is not None:
                try:
                    self._close_off_reactor(index)
                except IndexTimeout as error:  # (no breaker line says this one)
                    self.stats.inc_value("simhash/index/errors")
                    # (an index the breaker has said is away: expected, not a new failure)
                    away = self.calls.breaker.state != CircuitBreaker.CLOSED
                    logger.log(
                        logging.WARNING if away else logging.ERROR,
                        "Simhash: the index at SIMHASH_INDEX_URI=%r (its %s) was not closed: "
                        "%s; its writes since the last flush may be lost", mask_password(
                            self.config.index_uri), self.namespace, error,
                        extra={"crawler": self.crawler},
                    )
            elif index is not None:
                self.flush()  # first, so the size is what the index keeps
                try:
                    self.stats.set_value(f"simhash/index/{self.namespace}/size", len(index))
                except Exception as error:
                    self._index_error("size", error)
                index.close()
        except Exception as error:
            self._index_error("close", error)
        finally:
            self.index = None
            self.session.component_closed(self.namespace)

    def _close_off_reactor(self, index: NearDuplicateIndex) -> None:
        """Flush, size and close in the index's thread; its errors are counted here."""
        size, errors = self.calls.close(self.namespace, lambda: _finish(index),
                                        self.calls.close_timeout())
        if size is not None:
            self.stats.set_value(f"simhash/index/{self.namespace}/size", size)
        for operation, error in errors:
            self._index_error(operation, error)

    # -- decisions ---------------------------------------------------------------------------

    def count_note(self, note: str | None, url: str | None = None) -> None:
        """Count what a signature's note says (``simhash/<ns>/<note>``), if it has one; say once
        a crawl that a page was read in another charset than Scrapy's (``url``: the page)."""
        if note is None:
            return
        self.stats.inc_value(self._prefix + note)
        if note == READ_AS_UTF8 and self.session.first("body", note):
            logger.info(
                "Simhash: %s is labelled with a legacy charset (its Content-Type header or "
                "<meta>), but its body is UTF-8: fingerprinted as UTF-8, while the spider's "
                "response.text follows the label. Further such pages are counted in "
                "simhash/pages/%s", url, note, extra={"crawler": self.crawler})

    def skip(self, reason: str, key: str | None = None) -> Outcome:
        """Count a page/item that is passed through unchecked, with the reason; with ``key``
        (the page or item kept), also say so at DEBUG."""
        self.stats.inc_value(f"{self._prefix}skipped/{reason}")
        if key is not None:
            logger.debug("Simhash: kept %s %s unchecked (%s)", self.kind, key, reason,
                         extra={"crawler": self.crawler})
        return Outcome(SKIPPED, reason=reason)

    def check(self, key: str, compute: Callable[[], Any], *, retry: bool = False,
              start: bool = False) -> Outcome:
        """Compute the signature with ``compute`` and check-and-add it under ``key`` (``retry``:
        see :meth:`decide`). With an index in a thread of its own (:attr:`offloaded`) this
        waits for it, without a deadline: the crawl's components use :meth:`check_in_order`."""
        started = time.perf_counter()
        try:
            fingerprint = compute()
        except Exception as error:
            return self.signature_failed(key, error, time.perf_counter() - started)
        return self.decide(key, fingerprint, time.perf_counter() - started, retry=retry,
                           start=start)

    async def check_in_order(
        self,
        key: str,
        compute: Callable[[Any], Any],
        subject: Any,
        offloaded: Awaitable[tuple[Any, float, str | None]] | None = None,
        retry: bool = False,
        start: bool = False,
    ) -> Outcome:
        """:meth:`check` for crawls with worker processes: the signature of ``subject`` (a
        response, an item's text) comes from ``offloaded``, what a worker was handed (it gives
        ``(signature, seconds, note)``; a note is counted in ``simhash/<ns>/<note>``), or,
        without it, from ``compute(subject)`` inline; the decision waits for every check that
        began earlier (:class:`DecisionOrder`). A worker that died on this very task keeps it
        unchecked (``skipped/worker_error``); one that never got to it leaves the work to
        ``compute``. (No closures: whatever a check allocates lives until its worker answers.)
        """
        ticket = self.order.ticket()
        try:
            started = time.perf_counter()
            failure: tuple[Exception, str] | None = None
            signature, seconds = None, 0.0
            try:
                if offloaded is not None:
                    try:
                        signature, seconds, note = await offloaded
                    except WorkerError as error:
                        if not error.retry_inline:
                            raise
                        offloaded = None
                    else:
                        self.count_note(note, getattr(subject, "url", None))
                if offloaded is None:
                    started = time.perf_counter()
                    signature = compute(subject)
                    seconds = time.perf_counter() - started
            except WorkerError as error:
                failure = (error, "worker_error")
            except DeferredCancelled:  # a Deferred waiter (reactors without asyncio) cancelled:
                raise  # the check is, too (asyncio's CancelledError is no Exception anyway)
            except Exception as error:  # the extractor raised, inline or in a worker
                failure = (error, "error")
                seconds = time.perf_counter() - started if offloaded is None else 0.0
            await self.order.wait(ticket)
            if failure is not None:
                return self.signature_failed(key, failure[0], seconds, reason=failure[1])
            if self.calls is not None:
                return await self.decide_off_reactor(key, signature, seconds, retry=retry,
                                                     start=start)
            return self.decide(key, signature, seconds, retry=retry, start=start)
        finally:
            self.order.release(ticket)

    def signature_failed(
        self, key: str, error: Exception, seconds: float = 0.0, reason: str = "error"
    ) -> Outcome:
        """Count and log (once per cause) a signature that could not be computed; keep it."""
        self.stats.inc_value(f"simhash/time/{self.namespace}/fingerprint", seconds)
        self._log_once("signature", error, key)
        return self.skip(reason)

    def decide(
        self, key: str, fingerprint: Any, seconds: float = 0.0, *, retry: bool = False,
        start: bool = False,
    ) -> Outcome:
        """Check a signature computed in ``seconds`` (inline or in a worker process) against
        the index and store it unless it duplicates a stored one; ``fingerprint`` is a
        :class:`~scrapy_simhash.detectors.Signed` (a bare signature has no evidence).

        A stored candidate is a question, not an answer: it is a duplicate only when the
        evidence confirms it (:meth:`Detector.confirms`) and it is not a template (a stored
        page matched by many others while its text is short or weak, see
        :data:`TEMPLATE_MATCHES`). ``retry``: ``key`` is fetched again after an earlier attempt
        (Scrapy's ``retry_times``), so a match stored under ``key`` itself is that attempt:
        kept (``kept/retry``), not added.
        """
        signed = self._signed(fingerprint, seconds)
        if signed.signature is None:
            return self.skip("too_short", key)
        self.stats.inc_value(f"{self._prefix}checked")
        if self.like_not_content(signed.signature):
            return self._kept_not_content(signed.signature)
        started = time.perf_counter()
        try:
            match = self._run(self._check_and_add(key, signed))
        except Exception as error:
            return self._decide_on_index_error(key, signed.signature, error)
        finally:
            elapsed = time.perf_counter() - started
            self.stats.inc_value(f"simhash/time/{self.namespace}/index", elapsed)
        return self._outcome(key, signed.signature, match, retry,
                             start=start, listing=_is_listing(signed))

    async def decide_off_reactor(
        self, key: str, fingerprint: Any, seconds: float = 0.0, *, retry: bool = False,
        start: bool = False,
    ) -> Outcome:
        """:meth:`decide` awaiting each index call from the index's thread, for at most
        ``SIMHASH_INDEX_TIMEOUT``; while the breaker is open, decided by
        ``SIMHASH_ON_INDEX_ERROR`` at once. A call given up is never sent again (it may have
        been applied), and its page is decided once, by the policy."""
        signed = self._signed(fingerprint, seconds)
        if signed.signature is None:
            return self.skip("too_short", key)
        self.stats.inc_value(f"{self._prefix}checked")
        if self.like_not_content(signed.signature):
            return self._kept_not_content(signed.signature)
        if self.index is None and self._late_open:
            self._open_when_admitted()
            self.calls.decided_while_open(self.namespace)
            return self._decide_by_policy(key, signed.signature)
        if self.index is None:
            error = RuntimeError("the index is not open (see the first simhash error)")
            return self._decide_on_index_error(key, signed.signature, error)
        calls = self.calls
        admitted, probe = calls.admit()
        if not admitted:
            calls.decided_while_open(self.namespace)
            return self._decide_by_policy(key, signed.signature)
        started = time.perf_counter()
        try:
            match = await self._run_off_reactor(self._check_and_add(key, signed))
        except DeferredCancelled:
            calls.abandoned(probe)
            raise
        except Exception as error:
            self._call_failed("", probe, error)
            return self._decide_on_index_error(key, signed.signature, error)
        except BaseException:  # asyncio's CancelledError: the check was given up
            calls.abandoned(probe)
            raise
        finally:
            elapsed = time.perf_counter() - started
            self.stats.inc_value(f"simhash/time/{self.namespace}/index", elapsed)
        calls.succeeded(probe)
        return self._outcome(key, signed.signature, match, retry,
                             start=start, listing=_is_listing(signed))

    def like_not_content(self, signature: Any) -> bool:
        """Whether ``signature`` is within the threshold of a page this crawl withdrew as no
        content. Such a page (the same ban page at another URL, or at the retry of the same
        one) goes to its callback, which retries it or gives it up knowingly: dropped, its
        spider would never hear of it. (A match by distance alone: the worst a false one does
        is keep a page unchecked.)"""
        return any(self.detector.is_duplicate(signature, shape) for shape in self._not_content)

    def _kept_not_content(self, signature: Any) -> Outcome:
        self.stats.inc_value(f"{self._prefix}kept")
        self.stats.inc_value(f"{self._prefix}kept/not_content")
        return Outcome(KEPT, fingerprint=signature, reason="not_content")

    def _remember_not_content(self, signature: Any) -> None:
        if (
            signature is not None
            and len(self._not_content) < MAX_NOT_CONTENT_SHAPES
            and not self.like_not_content(signature)
        ):
            self._not_content.append(signature)

    def _signed(self, fingerprint: Any, seconds: float) -> Any:
        from scrapy_simhash.detectors import Signed

        self.stats.inc_value(f"simhash/time/{self.namespace}/fingerprint", seconds)
        return fingerprint if isinstance(fingerprint, Signed) else Signed(fingerprint)

    def _run(self, steps: Steps) -> Any:
        """Run ``steps`` calling the index as they come (in its thread, waited for, when it
        has one); their result."""
        if self.index is None:
            steps.close()
            raise RuntimeError("the index is not open (see the first simhash error)")
        try:
            call = next(steps)
            while True:
                _, function, args = call
                call = steps.send(self._call(function, *args))
        except StopIteration as done:
            return done.value
        finally:
            steps.close()

    async def _run_off_reactor(self, steps: Steps) -> Any:
        """Run ``steps`` awaiting each index call from the index's thread; their result."""
        from scrapy.utils.defer import maybe_deferred_to_future

        uri = self.config.index_uri
        _IN_FLIGHT[uri] += 1
        try:
            call = next(steps)
            while True:
                operation, function, args = call
                answer = await maybe_deferred_to_future(
                    self.calls.call(operation, function, *args))
                call = steps.send(answer)
        except StopIteration as done:
            return done.value
        finally:
            steps.close()
            _IN_FLIGHT[uri] -= 1
            if not _IN_FLIGHT[uri]:
                del _IN_FLIGHT[uri]

    def _outcome(self, key: str, signature: Any, match: Match | None, retry: bool, *,
                 start: bool = False, listing: bool = False) -> Outcome:
        """Count and report the decision the index's answer ``match`` makes. A page is kept,
        not stored again, when it is the request's own earlier attempt (``retry``), a start
        request (``start``: the crawl's roots; dropped, they would take the whole site with
        them), or a listing met again under its own URL (``listing``: its entries unchanged,
        an earlier crawl's; the pages added since are behind it)."""
        if match is None:
            self.stats.inc_value(f"{self._prefix}kept")
            self.stats.inc_value(f"simhash/index/{self.namespace}/size")
            return Outcome(KEPT, fingerprint=signature)
        own = match.key == key
        reason = ("retry" if retry and own else "start" if start and self.kind == "page"
                  else "revisit" if listing and own and self.kind == "page"
                  else "earlier_weak" if isinstance(match, _EarlierWeakMatch) else None)
        if reason is not None:
            self.stats.inc_value(f"{self._prefix}kept")
            self.stats.inc_value(f"{self._prefix}kept/{reason}")
            if reason != "retry":
                logger.debug("Simhash: kept page %s: %s, though within the threshold of %s "
                             "(distance %d)", key, _KEPT_WHY[reason], match.key, match.distance,
                             extra={"crawler": self.crawler})
            if reason == "earlier_weak":
                # the earlier crawl's page stands for this crawl's from now on: its copies
                # (tracking URLs) are dropped against it, and a retry of this one (a ban page)
                # takes it out and brings them back (the match says which)
                self._remember_weak(match.key)
                return Outcome(KEPT, fingerprint=signature, match=match, reason=reason)
            return Outcome(KEPT, fingerprint=signature, reason=reason)
        self.stats.inc_value(f"{self._prefix}dropped")
        dry_run = {"dry_run": True} if self.config.dry_run else {}
        self.session.record_duplicate(self.kind, key, match.key, match.distance, **dry_run)
        if self.config.dry_run:
            self.stats.inc_value(f"{self._prefix}dropped/dry_run")
            logger.debug(
                "Simhash: would drop %s %s: near-duplicate of %s (distance %d; SIMHASH_DRY_RUN)",
                self.kind, key, match.key, match.distance, extra={"crawler": self.crawler},
            )
            return Outcome(KEPT, fingerprint=signature, match=match, reason="dry_run")
        if self.kind == "page" and match.key == key:
            # (Scrapy's start requests, and any with dont_filter, skip its duplicate filter)
            when = ("fetched earlier in this crawl: a start URL or a request with dont_filter"
                    if self.config.index_uri.startswith("memory:") else
                    "stored by an earlier crawl, or fetched earlier in this one")
            logger.debug(
                "Simhash: dropped page %s: the index already holds it (distance %d; %s)",
                key, match.distance, when, extra={"crawler": self.crawler},
            )
        elif self.kind == "page":  # (Scrapy logs a dropped item itself, with the same words)
            logger.debug(
                "Simhash: dropped %s %s: near-duplicate of %s (distance %d)",
                self.kind, key, match.key, match.distance, extra={"crawler": self.crawler},
            )
        return Outcome(DROPPED, fingerprint=signature, match=match)

    def _check_and_add(self, key: str, signed: Any) -> Steps:
        """Steps: the stored page that ``signed`` duplicates, or None after storing it.

        The index's own check-and-add comes first: it stores a page that has no candidate at
        all in one step (under SQLite's write lock, in one Redis script), so two processes never
        both store one page. A candidate it returns is then weighed; when neither it nor any
        other candidate is confirmed, the page is stored beside them."""
        index = self.index
        signature, evidence = signed.signature, signed.evidence
        nearest = yield "check_and_add", index.check_and_add, (key, signature)
        if nearest is not None:
            duplicate = yield from self._confirmed(key, nearest, signature, evidence)
            if duplicate is not None:
                return duplicate
            yield "add", index.add, (key, signature)
        if evidence is not None:
            yield from self.evidence.put(key, evidence)
            if evidence.weak:
                self._remember_weak(key)
        return None

    def _confirmed(self, key: str, nearest: Match, signature: Any, evidence: Any) -> Steps:
        """Steps: the candidate the evidence confirms (the nearest first, then the others within
        the threshold), or None; counts why none was."""
        templates = self.templates
        if templates.is_template(nearest.key):
            self.stats.inc_value(f"{self._prefix}kept/template")
            return None
        if evidence is None:  # a bare signature (a detector of the user's own, say)
            if ev.other_versions(key, nearest.key):
                self.stats.inc_value(f"{self._prefix}kept/unconfirmed")
                return None
            return templates.matched(nearest, None)
        candidates = [nearest]
        if hasattr(self.index, "query"):  # (an index class of the user's own may only check)
            found = yield "query", self.index.query, (signature,)
            candidates += [
                m for m in found[:MAX_CONFIRMED_CANDIDATES]
                if (m.key, m.fingerprint) != (nearest.key, nearest.fingerprint)
            ]
        if any(templates.is_template(m.key) for m in candidates):
            self.stats.inc_value(f"{self._prefix}kept/template")
            return None
        stored = yield from self.evidence.get([m.key for m in candidates])
        stored = yield from self._evidence_of_the_latest(key, candidates, stored)
        for candidate, found in zip(candidates, stored, strict=True):
            if found is None and candidate.key == key and candidate.distance == 0:
                # this very page, stored by a crawl killed before its evidence was committed:
                # stored again, it would be in the index twice
                return templates.matched(candidate, None)
            if ev.urls_part(key, candidate.key, evidence, found, pages=self.kind == "page"):
                continue
            same_site = ev.same_site(key, candidate.key)
            if found is not None and self.detector.confirms(evidence, found, same_site):
                if self._weak_of_earlier_crawl(evidence, candidate):
                    return _EarlierWeakMatch(candidate.key, candidate.fingerprint,
                                             candidate.distance)
                return templates.matched(candidate, found)
        self.stats.inc_value(f"{self._prefix}kept/unconfirmed")
        return None

    def _remember_weak(self, key: str) -> None:
        """Count ``key``'s weak page as this crawl's (up to :data:`MAX_WEAK_KEYS`)."""
        if len(self._weak_keys) < MAX_WEAK_KEYS:
            self._weak_keys.add(hash(key))

    def _weak_of_earlier_crawl(self, evidence: Any, candidate: Match) -> bool:
        """Whether a weak page matches a page this crawl did not store: an earlier crawl's, on a
        persistent index (or another process's of this crawl, when several share it). A ban
        page or an interstitial an earlier crawl stored (its spider took it for content) would
        be dropped before the callback that now retries it, and the page behind it lost on every
        crawl: this crawl's safety nets (templates, withdrawal on a retry) weigh its own pages
        only. Such a page goes to its callback, not stored again: a few words at worst."""
        return (self.kind == "page" and evidence.weak
                and not self.config.index_uri.startswith("memory:")
                and hash(candidate.key) not in self._weak_keys)

    def _evidence_of_the_latest(self, key: str, candidates: list[Match],
                                stored: list[Any]) -> Steps:
        """Steps: ``stored`` with the evidence of candidates that had none read again, a few
        times, when other processes share the index: one may have stored the fingerprint and
        not yet its evidence (two crawlers on one queue meeting one cluster at once would each
        keep a page of it)."""
        missing = [n for n, (candidate, found) in enumerate(zip(candidates, stored,
                                                                  strict=True))
                   if found is None and candidate.key != key]
        if (not missing or self.calls is None or self._waits_in_vain >= EVIDENCE_WAITS_IN_VAIN
                or self.config.index_uri.startswith("memory:")):
            return stored
        stored = list(stored)
        for _ in range(EVIDENCE_REREADS):
            yield "wait", time.sleep, (EVIDENCE_REREAD_SECONDS,)
            again = yield from self.evidence.get([candidates[n].key for n in missing])
            for n, found in zip(missing, again, strict=True):
                stored[n] = found
            missing = [n for n in missing if stored[n] is None]
            if not missing:
                return stored
        self._waits_in_vain += 1
        return stored

    def withdraw(self, key: str, fingerprint: Any) -> bool:
        """Take a kept page back out of the index (its response was not content: a ban page,
        an interstitial); True when it was there. Pages dropped against it are the caller's to
        fetch again."""
        self._remember_not_content(fingerprint)
        if self.index is None:
            return False
        remove = getattr(self.index, "remove", None)
        try:
            removed = bool(self._call(remove, key, fingerprint)) if remove is not None else None
        except NotImplementedError:  # an index class of the user's own
            removed = None
        except Exception as error:
            self._index_error("remove", error)
            return False
        return self._withdrawn(key, removed)

    async def withdraw_in_order(self, key: str, fingerprint: Any) -> bool:
        """:meth:`withdraw` from the index's thread, between two decisions: after every check
        that began before it (they may still drop pages against ``key``), before the later
        ones. While the breaker is open the page stays in the index (counted as an error)."""
        from scrapy.utils.defer import maybe_deferred_to_future

        self._remember_not_content(fingerprint)
        ticket = self.order.ticket()
        try:
            await self.order.wait(ticket)
            if self.index is None:
                return False
            admitted, probe = self.calls.admit()
            if not admitted:
                self._index_error("remove", IndexBreakerOpen(
                    "not called: the index failed or did not answer lately"))
                return False
            remove = getattr(self.index, "remove", None)
            try:
                removed = None if remove is None else bool(await maybe_deferred_to_future(
                    self.calls.call("remove", remove, key, fingerprint)))
            except NotImplementedError:
                removed = None
            except DeferredCancelled:
                self.calls.abandoned(probe)
                raise
            except Exception as error:
                self._call_failed("remove", probe, error)
                return False
            except BaseException:  # asyncio's CancelledError
                self.calls.abandoned(probe)
                raise
            self.calls.succeeded(probe)
            return self._withdrawn(key, removed)
        finally:
            self.order.release(ticket)

    def _withdrawn(self, key: str, removed: bool | None) -> bool:
        if removed is None:
            self._warn_once_cannot_withdraw()
        self.evidence.forget(key)
        self.templates.forget(key)
        if removed:
            self.stats.inc_value(f"{self._prefix}withdrawn")
            self.stats.inc_value(f"simhash/index/{self.namespace}/size", -1)
        return bool(removed)

    def _warn_once_cannot_withdraw(self) -> None:
        if self._warned_withdraw:
            return
        self._warned_withdraw = True
        logger.warning(
            "Simhash: the index at SIMHASH_INDEX_URI=%r cannot remove a page (no remove()); a "
            "page withdrawn as not content stays in it",
            self.config.index_uri, extra={"crawler": self.crawler},
        )

    # -- failures ----------------------------------------------------------------------------

    def _decide_on_index_error(self, key: str, fingerprint: Any, error: Exception) -> Outcome:
        self._index_error("check_and_add", error)
        return self._decide_by_policy(key, fingerprint)

    def _decide_by_policy(self, key: str, fingerprint: Any) -> Outcome:
        """Keep or drop, unchecked, by ``SIMHASH_ON_INDEX_ERROR``."""
        policy = self.config.on_index_error
        if policy != "drop":  # "keep", or "stop" (the crawl stops; what was checked is kept)
            self.stats.inc_value(f"{self._prefix}kept")
            self.stats.inc_value(f"{self._prefix}kept/index_error")
            return Outcome(KEPT, fingerprint=fingerprint, reason="index_error")
        self.stats.inc_value(f"{self._prefix}dropped")
        self.stats.inc_value(f"{self._prefix}dropped/index_error")
        self.session.record_duplicate(self.kind, key, None, None)
        return Outcome(DROPPED, fingerprint=fingerprint, reason="index_error")

    def _index_error(self, operation: str, error: Exception) -> None:
        self.stats.inc_value("simhash/index/errors")
        from scrapy_simhash.index.base import mask_password

        # an outage the policy rides out is the breaker's one line; one that stops the crawl
        # is an error of its own
        if self.config.on_index_error == "stop" or not self.breaker_said(error):
            self._log_once(f"index {operation}", error, mask_password(self.config.index_uri))
        if self.config.on_index_error == "stop":
            self._stop()

    def breaker_said(self, error: BaseException) -> bool:
        """Whether the breaker has told of ``error``'s outage (it logs once when it opens, with
        the cause, and once when the index answers again): one outage, one line."""
        if isinstance(error, IndexTimeout):
            return True
        calls = self.calls
        return (
            calls is not None and opens_breaker(error)
            and calls.breaker.state != CircuitBreaker.CLOSED
        )

    def _log_once(self, where: str, error: Exception, subject: str) -> None:
        """Log the first error of each kind at each place; the index is the crawl's pages' and
        items' alike (one outage, one line), a signature this component's own."""
        kind = error_kind(error)
        # one line for an index's failure, whichever call met it first (an outage fails the
        # checks, then the flush, the size and the close at the end)
        place = "index" if where.startswith("index") else f"{self.namespace} {where}"
        if not self.session.first(place, kind):
            return
        logger.error(
            "Simhash: %s failed for %s (%s: %s); further %s errors are only counted in the stats "
            "(SIMHASH_ON_INDEX_ERROR=%r)",
            where, subject, type(error).__name__, error, kind,
            self.config.on_index_error,
            # the index's own errors (away, refused, full) say it all; anything else is a bug
            exc_info=None if isinstance(error, NearDuplicateIndexError) else error,
            extra={"crawler": self.crawler},
        )

    def _stop(self, reason: str = STOP_REASON) -> None:
        if self._stopping:
            return
        self._stopping = True
        FailedCrawl.mark(self.crawler)
        try:
            engine = self.crawler.engine
        except RuntimeError:  # Scrapy >= 2.14 before the crawl starts (no engine to stop)
            engine = None
        if engine is None:
            return
        if self.start_up_failed and not engine.running and _CLOSES_FROM_SPIDER_OPENED:
            # Scrapy >= 2.18 closes the spider before its engine starts: no start-up of the
            # engine's extensions for a crawl that will not run
            raise CloseSpider(reason)
        if hasattr(engine, "close_spider_async"):  # Scrapy >= 2.14
            from scrapy.utils.defer import deferred_from_coro

            deferred_from_coro(engine.close_spider_async(reason=reason))
        else:  # pragma: no cover - Scrapy 2.13 (its tests run on 2.13 in CI)
            self._close_once_running(engine, reason, attempts=STOP_ATTEMPTS)

    def _close_once_running(self, engine: Any, reason: str, attempts: int) -> None:
        """Scrapy 2.13: close the spider once the engine runs. Closed from ``spider_opened``,
        before ``engine.start()``, 2.13 never finishes the crawl (``start`` waits forever)."""
        if not engine.running and attempts > 0:
            from twisted.internet import reactor

            reactor.callLater(
                STOP_RETRY_SECONDS, self._close_once_running, engine, reason, attempts - 1
            )
            return
        engine.close_spider(self.crawler.spider, reason)


class EvidenceStore:
    """The evidence of stored pages: in the index when it keeps evidence (every built-in one),
    else in this process (an index class of the user's own: this crawl's pages only)."""

    def __init__(self, dedup: Deduplicator) -> None:
        self._dedup = dedup
        self._local: dict[str, Any] = {}

    def _in_index(self) -> bool:
        return bool(getattr(self._dedup.index, "supports_evidence", False))

    def put(self, key: str, evidence: Any) -> Steps:
        """Steps: store ``key``'s evidence."""
        if self._in_index():
            yield "put_evidence", self._dedup.index.put_evidence, (key, evidence.to_bytes())
        else:
            self._local[key] = evidence

    def get(self, keys: list[str]) -> Steps:
        """Steps: the evidence stored for each of ``keys`` (None where there is none)."""
        if not self._in_index():
            return [self._local.get(key) for key in keys]
        from scrapy_simhash.evidence import Evidence

        found = yield "get_evidence", self._dedup.index.get_evidence, (keys,)
        return [None if data is None else Evidence.from_bytes(data) for data in found]

    def forget(self, key: str) -> bool:
        return self._local.pop(key, None) is not None


class Templates:
    """Stored pages that behave like templates (see :data:`TEMPLATE_MATCHES`), and who is told
    when one is found (the downloader middleware fetches the pages dropped against it again)."""

    def __init__(self, dedup: Deduplicator) -> None:
        self._dedup = dedup
        self._matches: dict[str, int] = {}
        self._keys: set[str] = set()
        self._logged = False
        self.listeners: list[Callable[[str], None]] = []

    def is_template(self, key: str) -> bool:
        return key in self._keys

    def forget(self, key: str) -> None:
        self._matches.pop(key, None)
        self._keys.discard(key)

    def matched(self, match: Match | None, evidence: Any) -> Match | None:
        """Count a confirmed match; the match, or None when its page turned out a template."""
        if match is None:
            return None
        count = self._matches.get(match.key, 0) + 1
        self._matches[match.key] = count
        if count < TEMPLATE_MATCHES or not _template_like(evidence):
            return match
        self._keys.add(match.key)
        self._matches.pop(match.key, None)
        dedup = self._dedup
        dedup.stats.inc_value(f"simhash/{dedup.namespace}/templates")
        if not self._logged:
            self._logged = True
            logger.info(
                "Simhash: %s %s is matched by %d other %ss with little text of their own: taken "
                "for a template or an interstitial, nothing is dropped against it (further ones "
                "are counted in simhash/%s/templates)",
                dedup.kind, match.key, count, dedup.kind, dedup.namespace,
                extra={"crawler": dedup.crawler},
            )
        for listener in self.listeners:
            listener(match.key)
        return None


def _unreachable(error: BaseException) -> bool:
    """Whether opening the index failed because its server cannot be reached (an outage), not
    because of what was asked of it (a refused password, other settings)."""
    return isinstance(error, IndexUnavailable) and not isinstance(error, IndexAuthenticationError)


def _settings_that_differ(error: Any) -> str:
    """An :class:`IndexParameterMismatch`'s differences by the settings that make them
    (``SIMHASH_MAX_DISTANCE: stored 16, this crawl 10``); the table layout, which follows from
    the others, only when nothing else differs."""
    from scrapy_simhash.crawl.settings import FINGERPRINT_SETTINGS

    differences = dict(error.differences)
    if len(differences) > 1:
        for derived in ("layout", "layout_signature"):
            differences.pop(derived, None)
    names = {**FINGERPRINT_SETTINGS, "algorithm": "SIMHASH_ALGORITHM"}
    shown = []
    for name, (stored, requested) in sorted(differences.items()):
        if stored is None and name.startswith("param."):
            continue  # (an index built without the fingerprint's settings: nothing to compare)
        setting = names.get(name.removeprefix("param."), name)
        shown.append(f"{setting}: stored {stored!r}, this crawl {requested!r}")
    return "; ".join(shown) or str(error)


def _finish(index: NearDuplicateIndex) -> tuple[int | None, list[tuple[str, Exception]]]:
    """In the index's thread, at the crawl's end: flush, size and close the index; the size,
    and the errors (operation, error) to count on the reactor."""
    errors: list[tuple[str, Exception]] = []
    size = None
    for operation in ("flush", "size", "close"):
        try:
            if operation == "size":
                size = len(index)
            else:
                getattr(index, operation)()
        except Exception as error:
            errors.append((operation, error))
    return size, errors


def _template_like(evidence: Any) -> bool:
    """Short or weak text (None: nothing tells, e.g. an exact detector's signature)."""
    if evidence is None:
        return True
    return evidence.weak or evidence.words < TEMPLATE_MAX_WORDS


class FailedCrawl:
    """Makes a crawl the plugin stopped end as one that failed: ``scrapy crawl`` exits 1.

    Scrapy gives components no way to set the exit status. Every runner of Scrapy 2.13 to 2.19
    (``CrawlerProcess``, ``CrawlerRunner`` and their asyncio twins) marks a crawl whose crawler
    has no spider once it ends as one that failed to start (``bootstrap_failed``), and
    ``scrapy crawl`` then exits 1. So, once the crawl's last signal has been sent
    (``engine_stopped``; ``spider_closed`` when the engine never ran), the crawler's spider is
    cleared. ``finish_reason`` and the stats keep the reason the plugin gave.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        # (strong references: nothing else holds this object)
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed, weak=False)
        crawler.signals.connect(self._clear, signal=signals.engine_stopped, weak=False)

    @classmethod
    def mark(cls, crawler: Crawler) -> None:
        if not isinstance(getattr(crawler, "_simhash_failed", None), cls):
            crawler._simhash_failed = cls(crawler)

    def _spider_closed(self, spider: Any = None, reason: str | None = None) -> None:
        try:
            engine = self.crawler.engine
        except RuntimeError:  # Scrapy >= 2.14: no engine (yet)
            engine = None
        if engine is None or not engine.running:  # no engine_stopped will follow
            self._clear()

    def _clear(self) -> None:
        self.crawler.spider = None


_KEPT_WHY = {
    "start": "a start request (the crawl's roots are never dropped)",
    "earlier_weak": "a page with little text of its own, like one an earlier crawl stored (a "
                    "ban page or an interstitial, maybe: its callback decides)",
    "revisit": "a listing met again under its own URL (its entries lead to the pages added "
               "since)",
}


class _EarlierWeakMatch(Match):
    """A weak page's confirmed match that an earlier crawl stored (see
    :meth:`Deduplicator._weak_of_earlier_crawl`): kept, not stored again."""


def _is_listing(signed: Any) -> bool:
    """Whether a signed page is a listing: its evidence holds 3 entries or more (see
    :func:`scrapy_simhash.evidence.is_listing`; a page of one or two holds them for
    :func:`~scrapy_simhash.evidence.entries_part` alone)."""
    return signed.evidence is not None and ev.is_listing(signed.evidence)
