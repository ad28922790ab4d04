"""Downloader middleware: drop near-duplicate HTML responses before the spider callback runs.

Enable it with one line (or through :class:`scrapy_simhash.Addon`)::

    DOWNLOADER_MIDDLEWARES = {"scrapy_simhash.SimhashDownloaderMiddleware": PRIORITY}

``process_response`` runs in *decreasing* priority order, so a priority below 550 sees the
response after RetryMiddleware (550), HttpCompressionMiddleware (590) and RedirectMiddleware (600)
have handled it: the final, decompressed, post-redirect response (MetaRefreshMiddleware, 580, too).
:data:`PRIORITY` is 540, just below them, so the middlewares under it (e.g. user agent or proxy
ones around 400-500) never see a dropped response. A dropped response raises ``IgnoreRequest``;
a kept one carries its fingerprint in ``response.meta["simhash"]``: an int (the SimHash
fingerprint; for the other algorithms, a 64-bit digest of their signature).

Responses are passed through unchecked (and counted in ``simhash/pages/skipped/<reason>``) when
they are not 2xx, not HTML, larger than ``SIMHASH_MAX_BODY_SIZE`` (never parsed), binary
bodies labelled as HTML, or marked ``meta["dont_simhash"]`` or as not content
(:func:`mark_not_content`).

A drop is provisional until the page it duplicates is accepted: the requests dropped against a
kept page are held (at most :data:`HELD_PER_PAGE` each), and fetched again when that page turns
out not to be content: its request is retried (``get_retry_request`` from the callback, say, on
a ban page served with status 200), it is marked with :func:`mark_not_content`, or it turns out
a template (:class:`~scrapy_simhash.crawl.dedup.Templates`). The page is then taken back out of the
index (``simhash/pages/withdrawn``) and the requests come back (``simhash/pages/refetched``).
A page whose tree cannot be built or read (e.g. nesting deeper than libxml2's limit) is kept and
counted (``skipped/error`` or ``skipped/too_short``), never raised.

With worker processes (``SIMHASH_WORKERS``, see :mod:`scrapy_simhash.crawl.workers`)
``process_response`` returns a coroutine: the url, body, Content-Type and encoding go to a
worker, which rebuilds the same ``HtmlResponse`` (so Scrapy decodes and parses it as here) and
fingerprints ``response.selector``'s tree (or the same document parsed straight from a UTF-8 body:
:func:`~scrapy_simhash.crawl.signing.tree_from_body`), while the reactor serves other
downloads; the index lookup and the decision stay here, in the order the responses arrived.
Without workers the page is fingerprinted inline from ``response.selector``, the tree the
spider's callback then reuses.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import HtmlResponse

from scrapy_simhash.crawl.component import DedupComponent, page_not_content
from scrapy_simhash.crawl.rulestore import RuleStore, open_store
from scrapy_simhash.crawl.signing import body_skip_reason, page_signature
from scrapy_simhash.crawl.urlrules import UrlRules, declared_canonical, rules_of

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from scrapy_simhash.crawl.dedup import Outcome

logger = logging.getLogger(__name__)

#: A page too short to check did not decode when its first UNDECODED_SAMPLE characters hold
#: UNDECODED_MIN or more U+FFFD, at least UNDECODED_SHARE of their non-ASCII characters.
UNDECODED_MIN = 20
UNDECODED_SHARE = 0.3
UNDECODED_SAMPLE = 200_000

#: Below RetryMiddleware (550): see the final, decompressed, post-redirect response.
PRIORITY = 540
META_SKIP = "dont_simhash"
META_FINGERPRINT = "simhash"
#: The index key of a kept page (its URL when checked), for taking it back out.
META_KEY = "simhash_key"
#: Set by :func:`mark_not_content`: the response is no content (a ban page, an interstitial).
META_NOT_CONTENT = "simhash_not_content"
#: How many times one request dropped as a duplicate is fetched again at most.
META_REFETCHES = "simhash_refetches"
MAX_REFETCHES = 3
#: Set on a request a URL rule would skip but lets through to check the rule.
META_RULE_CHECK = "simhash_url_rule_check"
#: Set on a request a URL rule skipped after Scrapy's duplicate filter had let it through (in
#: the downloader middleware): fetched after all, it must pass that filter again.
META_SKIPPED_SCHEDULED = "simhash_skipped_scheduled"
#: Requests held per kept page, and in all, to fetch again if that page is withdrawn.
HELD_PER_PAGE = 32
HELD_TOTAL = 100_000
#: Seconds the reactor waits at most for one call of the URL rules' store (a site's first page, a
#: write-back every few seconds); past it the store fails and the rules stay in memory.
RULE_STORE_TIMEOUT = 1.0


def mark_not_content(response: Response) -> None:
    """Say that ``response`` is not content (a ban page, a login form, an interstitial).

    Call it from a callback: once the callback is done the page is taken back out of the index
    and the pages dropped as its duplicates are fetched again; request the page again yourself
    if you want its content (``get_retry_request`` alone does both: a retried page is taken back
    out the same way). From a downloader middleware that runs before this one (priority above
    540) it keeps the page from being fingerprinted at all.
    """
    response.meta[META_NOT_CONTENT] = True


class NearDuplicatePage(IgnoreRequest):
    """The response is a near-duplicate of a page already crawled (the callback never runs)."""

    def __init__(self, url: str, duplicate_of: str | None, distance: int | None) -> None:
        if duplicate_of is None:
            message = f"{url} dropped: simhash index error (SIMHASH_ON_INDEX_ERROR='drop')"
        else:
            message = f"{url} is a near-duplicate of {duplicate_of} (distance {distance})"
        super().__init__(message)
        self.url = url
        self.duplicate_of = duplicate_of
        self.distance = distance


class SkippedByUrlRule(IgnoreRequest):
    """A learned URL rule maps the request onto a page already fetched: it is not downloaded
    (as Scrapy's own filters do, a request with an errback hears of it)."""

    def __init__(self, url: str, rewrite: Any, target: str) -> None:
        super().__init__(f"{url} not downloaded: {rewrite.describe()}, and "
                         f"{_fetched_already(url, target)}")
        self.url = url
        self.rewrite = rewrite
        self.target = target


def _fetched_already(url: str, target: str) -> str:
    """How a skip's page was met before: the page ``target`` names, under another of its URLs
    (``url`` itself when the rule leaves it as it is: a plain URL met first with ``utm_*``)."""
    if url == target:
        return "this page was fetched already under another URL of it"
    return f"its page, {target}, was fetched already under one of its URLs"


def skip_by_rules(rules: UrlRules, request: Request, stats: Any) -> tuple[Any, str] | None:
    """(rule, target) when a live rule says ``request`` duplicates a page fetched already,
    counted in ``simhash/urls/skipped``; None for a request to fetch (always one with
    ``dont_filter`` or ``dont_simhash``, and one sampled to check a rule: marked, so that the
    downloader middleware does not skip what the spider middleware let through to check)."""
    if request.dont_filter or request.meta.get(META_SKIP) or request.meta.get(META_RULE_CHECK):
        return None
    found = rules.check(request.url)
    if found is None:
        return None
    rewrite, target, sampled = found
    if sampled:
        request.meta[META_RULE_CHECK] = True
        stats.inc_value("simhash/urls/checked")
        return None
    rules.hold(rewrite, request)  # fetched after all if the rule is retired
    logger.debug("Simhash: not downloaded: %s (%s, and %s)", request.url, rewrite.describe(),
                 _fetched_already(request.url, target))
    stats.inc_value("simhash/urls/skipped")
    stats.inc_value(f"simhash/urls/skipped/{rewrite.host}/{rewrite.kind}/{rewrite.name}")
    return rewrite, target


class SimhashDownloaderMiddleware(DedupComponent):
    """Fingerprints HTML responses and drops near-duplicates with :class:`NearDuplicatePage`."""

    namespace = "pages"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.max_body_size = self.config.max_body_size
        #: kept page's key -> requests dropped as its duplicates (see the module docstring)
        self._held: dict[str, list[Request]] = {}
        self._held_count = 0
        self.dedup.templates.listeners.append(self._fetch_again)
        crawler.signals.connect(self._not_content, signal=page_not_content)
        # (learned under a dry run too, so its log shows them; the spider middleware skips
        # nothing then)
        self.url_rules: UrlRules | None = rules_of(crawler) if self.config.url_rules else None
        #: the rules kept beside a persistent index (see :mod:`~.rulestore`)
        self.rule_store: RuleStore | None = None
        if self.url_rules is not None and not self.config.dry_run:
            crawler.signals.connect(self._spider_idle, signal=signals.spider_idle)

    def spider_opened(self, spider: Any = None) -> None:
        super().spider_opened(spider)
        # (an index unreachable at start-up and opened later keeps this crawl's rules in memory)
        if self.url_rules is not None and not self.dedup.start_up_failed and (
                self.dedup.index is not None):
            self._open_rule_store(self.url_rules)

    def _open_rule_store(self, rules: UrlRules) -> None:
        """Read and write the rules beside a persistent index; without it, in memory only."""
        calls = self.dedup.calls
        try:
            self.rule_store = open_store(
                self.config.index_uri, self.namespace, self.config.index_options, rules,
                on_error=self._rule_store_failed, on_loaded=self._rule_loaded,
                **({} if calls is None else {"run": functools.partial(
                    calls.run_blocking, timeout=min(calls.timeout, RULE_STORE_TIMEOUT))}),
            )
        except Exception as error:
            self._rule_store_failed(error)

    def _rule_store_failed(self, error: Exception) -> None:
        from scrapy_simhash.index.base import mask_password

        self.crawler.stats.inc_value("simhash/urls/store_errors")
        if self.dedup.breaker_said(error):  # the index is away: said once already
            return
        logger.warning(
            "Simhash: the URL rules cannot be kept beside the index at SIMHASH_INDEX_URI=%r "
            "(%s: %s); this crawl's rules stay in its memory",
            mask_password(self.config.index_uri), type(error).__name__, error,
            extra={"crawler": self.crawler},
        )

    def _rule_loaded(self, rewrite: Any) -> None:
        self.crawler.stats.inc_value("simhash/urls/loaded")

    def _fetch_released(self) -> bool:
        """Schedule the requests skipped by rules retired since the last call; whether any."""
        released = self.url_rules.take_released()
        if not released:
            return False
        engine = self.crawler.engine
        stats = self.crawler.stats
        seen: set[str] = set()
        for request in released:
            if request.url in seen:  # (two callbacks yielded it: one fetch)
                continue
            seen.add(request.url)
            stats.inc_value("simhash/urls/refetched")
            engine.crawl(_again(request))
        logger.info("Simhash: a URL rule was retired; %d requests it skipped are fetched after "
                    "all", len(seen), extra={"crawler": self.crawler})
        return True

    def _spider_idle(self, spider: Any = None) -> None:
        """Before the crawl ends: the requests of retired rules, and checks of the rules that
        skipped requests without enough checks (see :mod:`~.urlrules`)."""
        scheduled = self._fetch_released()
        engine = self.crawler.engine
        for _rewrite, request in self.url_rules.checks_due():
            check = _again(request)
            check.meta[META_RULE_CHECK] = True
            self.crawler.stats.inc_value("simhash/urls/checked")
            engine.crawl(check)
            scheduled = True
        if scheduled:
            raise DontCloseSpider

    def spider_closed(self, spider: Any = None, reason: str | None = None) -> None:
        if self.url_rules is not None:
            if self.rule_store is not None:
                self.rule_store.close()
            self._report_url_rules(self.url_rules)
        super().spider_closed(spider, reason)

    def _report_url_rules(self, rules: UrlRules) -> None:
        """The rules that went live, with the downloads each one saved: one INFO line, and one
        row each in the duplicate report."""
        learned = [entry for entry in rules.summary() if entry[1] >= rules.confirmations]
        for rewrite, confirmations, skipped, retired in learned:
            self.dedup.session.record_url_rule(
                rewrite.describe(), host=rewrite.host, rewrite=rewrite.kind, name=rewrite.name,
                confirmations=confirmations, skipped=skipped, retired=retired,
            )
        if learned:
            logger.info("Simhash: URL rules learned: %s", "; ".join(
                f"{rewrite.describe()} ({skipped} requests skipped"
                f"{', retired' if retired else ''})"
                for rewrite, _, skipped, retired in learned
            ), extra={"crawler": self.crawler})

    def process_request(self, request: Request, spider: Any = None) -> None:
        """A request that retries a kept page says that page was no content: withdraw it. A
        request a live URL rule maps onto a page already fetched is not downloaded
        (:class:`SkippedByUrlRule`)."""
        # a retry copies the meta of the response it retries: its answer is new, unmarked
        request.meta.pop(META_NOT_CONTENT, None)
        if request.meta.get("retry_times") and META_KEY in request.meta:
            key = request.meta.pop(META_KEY)  # this copy's: the retry is checked afresh
            self._withdraw(key, request.meta.pop(META_FINGERPRINT, None))
        if self.url_rules is not None and not self.config.dry_run:
            found = skip_by_rules(self.url_rules, request, self.crawler.stats)
            # (not left for a callback that copies the meta into its own requests)
            request.meta.pop(META_RULE_CHECK, None)
            if found is not None:
                request.meta[META_SKIPPED_SCHEDULED] = True
                raise SkippedByUrlRule(request.url, *found)

    def _not_content(self, response: Response) -> None:
        request = getattr(response, "request", None)
        if request is not None and META_KEY in request.meta:
            self._withdraw(request.meta.pop(META_KEY), request.meta.get(META_FINGERPRINT))

    def _withdraw(self, key: str, fingerprint: Any) -> None:
        if isinstance(fingerprint, int) and self.dedup.detector.name == "simhash":
            if self.dedup.offloaded:  # fetched again once out of the index
                from scrapy.utils.defer import deferred_from_coro

                withdrawn = deferred_from_coro(self.dedup.withdraw_in_order(key, fingerprint))
                withdrawn.addBoth(lambda _: self._fetch_again(key))
                return
            self.dedup.withdraw(key, fingerprint)
        self._fetch_again(key)

    def _fetch_again(self, key: str) -> None:
        """Schedule again the requests dropped as duplicates of ``key``."""
        held = self._held.pop(key, None)
        if not held:
            return
        self._held_count -= len(held)
        engine = self.crawler.engine
        for request in held:
            if self.url_rules is not None:
                self.url_rules.withdrawn(request.url, key)
            again = request.replace(dont_filter=True)
            again.meta[META_REFETCHES] = again.meta.get(META_REFETCHES, 0) + 1
            self.crawler.stats.inc_value("simhash/pages/refetched")
            self.dedup.session.record_duplicate("page", request.url, key, None, refetched=True)
            engine.crawl(again)

    def _hold(self, request: Request, key: str) -> None:
        if request.meta.get(META_REFETCHES, 0) >= MAX_REFETCHES:
            return
        held = self._held.setdefault(key, [])
        if len(held) >= HELD_PER_PAGE or self._held_count >= HELD_TOTAL:
            return
        held.append(request)
        self._held_count += 1

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response | Coroutine[Any, Any, Response]:
        """The response, or (with worker processes) a coroutine that returns it; raises
        :class:`NearDuplicatePage` for a near-duplicate."""
        if self.dedup.start_up_failed:
            raise IgnoreRequest(f"{response.url} {self.dedup.drop_while_stopping()}")
        outcome_reason = self._skip_reason(request, response)
        if outcome_reason is not None:
            self.dedup.skip(outcome_reason)
            if outcome_reason in ("too_large", "binary"):
                self._name_first_unchecked(outcome_reason, response)
            return response
        if self.workers is not None or self.dedup.offloaded:
            return self._check_with_workers(request, response)
        outcome = self.dedup.check(
            response.url, lambda: self._signature(response), retry=_is_retry(request),
            start=_is_start(request),
        )
        return self._apply(request, response, outcome)

    async def _check_with_workers(self, request: Request, response: HtmlResponse) -> Response:
        """In a worker when one has room, else inline; decided in the order checks began. With
        URL rules the worker also reads the URL the page declares as its own (``declared``):
        one scan of the body fewer on the crawl's thread."""
        workers = self.workers
        offloaded = None
        declared: list[str | None] = []
        if workers is not None and workers.available and workers.has_room(len(response.body)):
            read_canonical = self.url_rules is not None
            waiter = workers.submit_page(response, read_canonical=read_canonical)
            if waiter is not None and read_canonical:
                offloaded = self._worker_answer(waiter, declared)
            else:
                offloaded = waiter
        outcome = await self.dedup.check_in_order(
            response.url, self._signature, response, offloaded, retry=_is_retry(request),
            start=_is_start(request),
        )
        return self._apply(request, response, outcome, declared)

    @staticmethod
    async def _worker_answer(waiter: Any, declared: list[str | None]) -> tuple[Any, float, Any]:
        """A worker's answer for a page whose canonical URL it read: that URL goes to
        ``declared``, the answer on as without it."""
        signature, seconds, (note, canonical) = await waiter
        declared.append(canonical)
        return signature, seconds, note

    def _apply(
        self, request: Request, response: Response, outcome: Outcome,
        declared: list[str | None] | None = None,
    ) -> Response:
        if outcome.dropped:
            duplicate_of = outcome.match.key if outcome.match else None
            distance = outcome.match.distance if outcome.match else None
            if duplicate_of is not None:
                self._hold(request, duplicate_of)
                self._learn(response, duplicate_of, declared)
            raise NearDuplicatePage(response.url, duplicate_of, distance)
        if outcome.reason == "too_short":
            self._note_undecoded(response)
        if outcome.fingerprint is not None:
            # request.meta becomes response.meta once the response is tied to its request
            request.meta[META_FINGERPRINT] = self.dedup.detector.fingerprint_of(outcome.fingerprint)
            if outcome.match is None and outcome.reason in (None, "revisit"):  # under its URL
                request.meta[META_KEY] = response.url
                self._learn(response, None, declared)
            elif outcome.reason == "dry_run" and outcome.match is not None:
                self._learn(response, outcome.match.key, declared)
            elif outcome.reason == "earlier_weak" and outcome.match is not None:
                # (like a page an earlier crawl stored, which now stands for it: a retry takes
                # that one out, and the pages dropped against it come back)
                request.meta[META_KEY] = outcome.match.key
                request.meta[META_FINGERPRINT] = outcome.match.fingerprint
        return response

    def _learn(
        self, response: Response, duplicate_of: str | None,
        declared: list[str | None] | None = None,
    ) -> None:
        """Tell the URL rules a page was fetched, and dropped as a duplicate of
        ``duplicate_of`` or (None) kept as distinct, and the URL it declares as its own
        (canonical link, ``og:url``: read here unless ``declared`` holds a worker's reading);
        count what went live or was retired."""
        rules = self.url_rules
        if rules is None:
            return
        url = response.url
        before = (rules.went_live, rules.retirements, dict(rules.canonical_outcomes))
        rules.fetched(url)
        if duplicate_of is not None:
            rules.dropped(url, duplicate_of)
        else:
            rules.kept(url)
        canonical = declared[0] if declared else declared_canonical(response.body, url)
        if canonical is not None:
            rules.declared(url, canonical)
        stats = self.crawler.stats
        if rules.went_live != before[0]:
            stats.inc_value("simhash/urls/rules", rules.went_live - before[0])
        if rules.retirements != before[1]:
            stats.inc_value("simhash/urls/retired", rules.retirements - before[1])
        for outcome, count in rules.canonical_outcomes.items():
            if count != before[2][outcome]:
                stats.inc_value(f"simhash/urls/canonical/{outcome}", count - before[2][outcome])
        if self.rule_store is not None:
            self.rule_store.changed()
        if rules.has_released:
            self._fetch_released()

    def _signature(self, response: HtmlResponse) -> Any:
        """The page's signature from the tree the spider will reuse (see
        :func:`~scrapy_simhash.crawl.signing.page_signature`)."""
        signature, note = page_signature(self.dedup.detector, response)
        self.dedup.count_note(note, response.url)
        return signature

    def _name_first_unchecked(self, reason: str, response: Response) -> None:
        """Say once a crawl (at INFO) which page first passed unchecked for its body, and why:
        a page the user may want checked (``SIMHASH_MAX_BODY_SIZE``), or not HTML at all."""
        if not self.dedup.session.first("body", reason):
            return
        cause = (f"its body of {len(response.body):,} bytes is over SIMHASH_MAX_BODY_SIZE "
                 f"({self.max_body_size:,})" if reason == "too_large"
                 else "its body looks binary (an image or archive served as HTML)")
        logger.info("Simhash: %s passed unchecked: %s; further such pages are counted in "
                    "simhash/pages/skipped/%s", response.url, cause, reason,
                    extra={"crawler": self.crawler})

    def _note_undecoded(self, response: Response) -> None:
        """Count a page too short to check because its text did not decode (a legacy charset
        under a header that says UTF-8: its letters are U+FFFD, as the spider sees them too),
        and say so once a crawl: its site's charset, not its text, is the cause."""
        try:
            text = response.text[:UNDECODED_SAMPLE]
        except Exception:  # (a body Scrapy cannot decode at all: counted by the check)
            return
        unreadable = text.count("\ufffd")
        if unreadable < UNDECODED_MIN or unreadable < UNDECODED_SHARE * (
                len(text) - len(text.encode("ascii", "ignore"))):  # (its non-ASCII characters)
            return
        self.crawler.stats.inc_value("simhash/pages/undecoded")
        if not self.dedup.session.first("body", "undecoded"):
            return
        logger.warning(
            "Simhash: %s passed unchecked as too short: its text did not decode as %s (%d "
            "characters unreadable, U+FFFD); the site's Content-Type header or <meta> names the "
            "wrong charset. Further such pages are counted in simhash/pages/undecoded",
            response.url, getattr(response, "encoding", None), unreadable,
            extra={"crawler": self.crawler})

    def _skip_reason(self, request: Request, response: Response) -> str | None:
        if request.meta.get(META_SKIP):
            return "dont_simhash"
        if request.meta.get(META_NOT_CONTENT):
            return "not_content"
        if not 200 <= response.status < 300:
            return "status"
        if not isinstance(response, HtmlResponse):
            return "not_html"
        return body_skip_reason(response, self.max_body_size)


def _again(request: Request) -> Request:
    """A request a URL rule skipped, to fetch after all. One the spider middleware left out
    never reached Scrapy's duplicate filter: it goes through it now, so that a later link to the
    same URL (a page's link to itself) is not fetched twice; one skipped here had passed it."""
    if request.meta.pop(META_SKIPPED_SCHEDULED, False):
        return request.replace(dont_filter=True)
    return request


def _is_retry(request: Request) -> bool:
    """Whether Scrapy retries this request (``RetryMiddleware``, ``get_retry_request``)."""
    return bool(request.meta.get("retry_times"))


def _is_start(request: Request) -> bool:
    """Whether the request is one of the spider's start requests (Scrapy's
    ``is_start_request``): a root of the crawl, never dropped."""
    return bool(request.meta.get("is_start_request"))
