"""The keep/drop decision shared by the downloader middleware and the item pipeline.

:class:`Deduplicator` turns "signature + index + stats + report" into one :class:`Outcome` for a
page or an item, in one namespace (``pages`` or ``items``). It is the only place that calls the
signature and the index, so swapping the algorithm (SimHash today; MinHash, KSentence or exact
later via one setting) only touches :func:`build_detector` and the index it opens.

Stats written (``<ns>`` is ``pages`` or ``items``): ``simhash/<ns>/checked`` (signature computed
and looked up: kept + dropped), ``simhash/<ns>/kept``, ``simhash/<ns>/dropped`` (of which
``.../kept/index_error`` and ``.../dropped/index_error`` were not looked up: the index failed),
``simhash/<ns>/skipped/<reason>``, ``simhash/index/<ns>/size``, ``simhash/index/errors``,
``simhash/time/<ns>/fingerprint`` and ``simhash/time/<ns>/index`` (seconds).

While the crawl runs, the index is flushed every :data:`FLUSH_INTERVAL` seconds (or its own
``commit_interval``) on the reactor, so an idle crawl neither keeps SQLite's write lock (other
processes would wait, then fail with "database is locked") nor leaves old fingerprints
uncommitted (lost if the process is killed).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from twisted.internet.defer import CancelledError as DeferredCancelled

from scrapy_simhash.report import CrawlSession
from scrapy_simhash.settings import (
    SimhashConfig,
    SimhashSettingError,
    mentioned,
    setting_for_error,
)
from scrapy_simhash.workers import WorkerError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_simhash.detectors import Detector
    from scrapy_simhash.index import Match, NearDuplicateIndex

logger = logging.getLogger(__name__)

KEPT = "kept"
DROPPED = "dropped"
SKIPPED = "skipped"
STOP_REASON = "simhash_index_error"
REPORT_STOP_REASON = "simhash_report_error"
#: Seconds between flushes of the index while the crawl runs (unless it has a commit_interval).
FLUSH_INTERVAL = 1.0
#: Scrapy 2.13, a crawl stopped at start-up: how often and how long to wait for its engine to run.
STOP_RETRY_SECONDS = 0.05
STOP_ATTEMPTS = 200


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


def build_detector(config: SimhashConfig, *, warm_up: bool = True) -> Detector:
    """The detector the settings describe; a bad value raises SimhashSettingError.

    ``warm_up``: make the one-time loads (jieba's dictionary, the tokenizer's tables, ~0.2 s)
    now rather than on the first page; a crawl's components make them when the spider opens,
    once their worker processes have been started (they load theirs meanwhile)."""
    from scrapy_simhash.detectors import get_detector

    kwargs = config.fingerprint_kwargs
    options = {**config.algorithm_options, **kwargs}
    try:
        detector = get_detector(config.algorithm, **options)
    except (ValueError, TypeError, ImportError) as error:
        message = str(error)
        names_an_option = any(mentioned(option, message) for option in config.algorithm_options)
        names_a_setting = any(mentioned(arg, message) for arg in kwargs)
        if names_an_option or (config.algorithm_options and not names_a_setting):
            raise SimhashSettingError(
                "SIMHASH_ALGORITHM_OPTIONS", config.algorithm_options, str(error)
            ) from error
        name, value = setting_for_error(error, kwargs, config.fingerprint_settings)
        raise SimhashSettingError(name, value, str(error)) from error
    try:  # resolve the extractor now: an unknown or missing one fails at start-up
        _ = detector.fingerprinter.extractor
    except (ValueError, TypeError, ImportError) as error:
        if "extractor" not in kwargs:
            raise  # the library's own default failed: not a settings problem
        raise SimhashSettingError("SIMHASH_EXTRACTOR", kwargs["extractor"], str(error)) from error
    if warm_up:
        detector.fingerprinter.warm_up()
    return detector


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

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self) -> None:
        """Open the index (at spider_opened); if it cannot be opened the crawl stops."""
        from scrapy_simhash.index import IndexParameterMismatch
        from scrapy_simhash.index.base import mask_password

        report_usable = self.session.component_opened(self.namespace)
        self.start_up_failed = True  # until the index is open and the report usable
        if self.session.index_unusable:  # the other component just failed on the same URI
            self._stopping = True  # and is stopping the crawl: no second try, no second wait
            return
        try:
            self.index = self.detector.open_index(
                self.config.index_uri, namespace=self.namespace, **self.config.index_options
            )
        except IndexParameterMismatch as error:
            self.session.index_unusable = True
            logger.error(
                "Simhash: the index at SIMHASH_INDEX_URI=%r was built with other settings: %s; "
                "use another index or the same settings. Stopping the crawl.",
                mask_password(self.config.index_uri), error, extra={"crawler": self.crawler},
            )
            self._stop()
            return
        except Exception as error:
            # Without its index the crawl cannot deduplicate at all: stop whatever the policy.
            self.session.index_unusable = True
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
            return
        self.stats.set_value(f"simhash/index/{self.namespace}/size", len(self.index))
        self._start_flusher()
        if not report_usable:  # a bad SIMHASH_REPORT_FILE: stop, as for any bad setting
            self._stop(REPORT_STOP_REASON)
            return
        self.start_up_failed = False

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
        self._flusher = task.LoopingCall(self.flush)
        self._flusher.start(float(interval), now=False).addErrback(lambda failure: None)

    def flush(self) -> None:
        """Make the fingerprints stored so far durable; an error is counted, never raised."""
        if self.index is None:
            return
        try:
            self.index.flush()
        except Exception as error:
            self._index_error("flush", error)

    def close(self) -> None:
        """Flush and close the index (at spider_closed), record its size, end the session."""
        if self._closed:
            return
        self._closed = True
        if self._flusher is not None and self._flusher.running:
            self._flusher.stop()
        self._flusher = None
        index = self.index
        try:
            if index is not None:
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

    # -- decisions ---------------------------------------------------------------------------

    def count_note(self, note: str | None) -> None:
        """Count what a signature's note says (``simhash/<ns>/<note>``), if it has one."""
        if note is not None:
            self.stats.inc_value(self._prefix + note)

    def skip(self, reason: str) -> Outcome:
        """Count a page/item that is passed through unchecked, with the reason."""
        self.stats.inc_value(f"{self._prefix}skipped/{reason}")
        return Outcome(SKIPPED, reason=reason)

    def check(self, key: str, compute: Callable[[], Any], *, retry: bool = False) -> Outcome:
        """Compute the signature with ``compute`` and check-and-add it under ``key`` (``retry``:
        see :meth:`decide`)."""
        started = time.perf_counter()
        try:
            fingerprint = compute()
        except Exception as error:
            return self.signature_failed(key, error, time.perf_counter() - started)
        return self.decide(key, fingerprint, time.perf_counter() - started, retry=retry)

    async def check_in_order(
        self,
        key: str,
        compute: Callable[[Any], Any],
        subject: Any,
        offloaded: Awaitable[tuple[Any, float, str | None]] | None = None,
        retry: bool = False,
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
                        self.count_note(note)
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
            return self.decide(key, signature, seconds, retry=retry)
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
        self, key: str, fingerprint: Any, seconds: float = 0.0, *, retry: bool = False
    ) -> Outcome:
        """Check-and-add a signature computed in ``seconds`` (inline or in a worker process).

        ``retry``: ``key`` is fetched again after an earlier attempt (Scrapy's ``retry_times``),
        so a match stored under ``key`` itself is that attempt: kept (``kept/retry``), not added.
        """
        self.stats.inc_value(f"simhash/time/{self.namespace}/fingerprint", seconds)
        if fingerprint is None:
            return self.skip("too_short")
        self.stats.inc_value(f"{self._prefix}checked")
        started = time.perf_counter()
        try:
            if self.index is None:
                raise RuntimeError("the index is not open (see the first simhash error)")
            match = self.index.check_and_add(key, fingerprint)
        except Exception as error:
            return self._decide_on_index_error(key, fingerprint, error)
        finally:
            elapsed = time.perf_counter() - started
            self.stats.inc_value(f"simhash/time/{self.namespace}/index", elapsed)
        if match is None:
            self.stats.inc_value(f"{self._prefix}kept")
            self.stats.inc_value(f"simhash/index/{self.namespace}/size")
            return Outcome(KEPT, fingerprint=fingerprint)
        if retry and match.key == key:
            self.stats.inc_value(f"{self._prefix}kept")
            self.stats.inc_value(f"{self._prefix}kept/retry")
            return Outcome(KEPT, fingerprint=fingerprint, reason="retry")
        self.stats.inc_value(f"{self._prefix}dropped")
        self.session.record_duplicate(self.kind, key, match.key, match.distance)
        logger.debug(
            "Simhash: dropped %s %s: near-duplicate of %s (distance %d)",
            self.kind, key, match.key, match.distance, extra={"crawler": self.crawler},
        )
        return Outcome(DROPPED, fingerprint=fingerprint, match=match)

    # -- failures ----------------------------------------------------------------------------

    def _decide_on_index_error(self, key: str, fingerprint: Any, error: Exception) -> Outcome:
        self._index_error("check_and_add", error)
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

        self._log_once(f"index {operation}", error, mask_password(self.config.index_uri))
        if self.config.on_index_error == "stop":
            self._stop()

    def _log_once(self, where: str, error: Exception, subject: str) -> None:
        """Log the first error of each kind at each place; the index is the crawl's pages' and
        items' alike (one outage, one line), a signature this component's own."""
        kind = error_kind(error)
        place = where if where.startswith("index") else f"{self.namespace} {where}"
        logged = self.session.logged_causes
        if (place, kind) in logged:
            return
        logged.add((place, kind))
        logger.error(
            "Simhash: %s failed for %s (%s: %s); further %s errors are only counted in the stats "
            "(SIMHASH_ON_INDEX_ERROR=%r)",
            where, subject, type(error).__name__, error, kind,
            self.config.on_index_error, exc_info=error, extra={"crawler": self.crawler},
        )

    def _stop(self, reason: str = STOP_REASON) -> None:
        if self._stopping:
            return
        self._stopping = True
        try:
            engine = self.crawler.engine
        except RuntimeError:  # Scrapy >= 2.14 before the crawl starts (no engine to stop)
            engine = None
        if engine is None:
            return
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
