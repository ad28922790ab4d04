"""URL rewrite rules learned from a crawl's own drops: don't download what you would drop.

Every drop names the page it duplicates. Most near-duplicates on the web come from a few URL
patterns per site: a tracking parameter, a session id, a print, AMP or mobile variant, a trailing
``index.html``. :class:`UrlRules` turns each drop ``(url, duplicate_of)`` into the rewrites that
explain it (*removing parameter P here never changes the content*, *the path segment "print"
here is the same page without it*) and counts, per site, how many distinct pairs confirmed each
rewrite. Learned from evidence, not from a list of names: a parameter nobody has listed is
learned too, and one that changes the content (``?page=``, ``?id=``) never is, since its pages
are kept as distinct, which contradicts the rewrite; and parameters that select content by
common convention (:data:`CONTENT_PARAMETERS`: a language, a page of results) never are, even
where their value leaves a page as it is.

A page that declares another URL of its site as its own (``<link rel="canonical">``,
``<meta property="og:url">``, read by :func:`declared_canonical`) confirms the rewrites between
the two URLs once both pages were fetched and decided to hold the same content (one dropped as
the other's duplicate, or both as duplicates of one page); a declaration the plugin's own
decisions do not back (page 2 of a listing pointing at page 1, every product at its category)
teaches nothing. The tag alone never does.

A rewrite is *live* once :data:`CONFIRMATIONS` pairs confirmed it and nothing contradicted it.
A request a live rewrite maps onto a URL already fetched is skipped, except for a sample
(:data:`SAMPLE_EVERY`) still fetched to check the rule; a fetched page that the rewrite says
duplicates a page kept, but that was kept as distinct, retires the rule for good.

A skip is provisional, as a drop is: a parameter can change the content of some of a site's
pages and not of others (``?edition=intl`` on pages that have no such edition yet; the names
that select content by convention, as ``?lang=fr`` on pages not translated yet, are never
learned at all). The requests a rule skipped are held (:meth:`UrlRules.hold`), and
come back (:meth:`UrlRules.take_released`) when it is retired; a rule whose samples have not
yet confirmed it :data:`MIN_CHECKS` times when the crawl runs out of requests gets held ones
fetched as checks (:meth:`UrlRules.checks_due`) until they have, or until one contradicts it.

A site is a host and, when not the scheme's default, its port.

No Scrapy, no I/O: the downloader middleware feeds it what it fetched, dropped and kept, and the
spider middleware asks it about the requests a callback yields, before they are scheduled. The
confirmations of earlier crawls and of other processes come in, and this crawl's go out, through
:meth:`UrlRules.shared` and :meth:`UrlRules.absorb` (see :mod:`scrapy_simhash.crawl.rulestore`).
"""

from __future__ import annotations

import functools
import html
import re
import weakref
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

#: Distinct pairs of URLs that must confirm a rewrite before requests are skipped by it.
CONFIRMATIONS = 3
#: One in this many requests a live rewrite would skip is fetched anyway, to check it.
SAMPLE_EVERY = 10
#: Checks (sampled requests found to duplicate their page) a rule must pass before the requests
#: it skipped are given up for good at the crawl's end.
MIN_CHECKS = 2
#: Skipped requests held in all, to fetch again if their rule is retired (beyond: not held).
MAX_HELD_SKIPS = 100_000
#: Path segments that name a variant of the same page when added to its path.
_MAX_SEGMENT_CHARS = 20
#: Query parameters that select content by common convention (a language, a page of results,
#: a sort order, a variant, a search): never learned, though their value leaves some pages as
#: they are (``?lang=fr`` on a page not translated yet, ``?start=20`` past a short list's end):
#: a rule learned from those would skip the pages where it does change the content.
CONTENT_PARAMETERS = frozenset({
    "lang", "language", "locale", "hl", "page", "p", "pg", "start", "offset", "sort", "order",
    "orderby", "colour", "color", "size", "variant", "sku", "id", "pid", "q", "query", "search",
    "s", "filter", "category", "cat", "tag", "year", "month", "day", "date", "region",
    "country", "currency",
})
#: Declared canonical URLs kept until their page is fetched (beyond: not waited for).
MAX_PENDING_CANONICALS = 100_000
#: Bytes of a page searched for its canonical declarations, when no ``</head>`` comes first.
HEAD_BYTES = 32_768


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One way a URL of a site maps onto the same page's URL."""

    host: str
    kind: str  # "param" (drop a query parameter), "segment" (drop a path segment), "index"
    name: str  # the parameter, or the segment

    def apply(self, url: str) -> str | None:
        """``url`` rewritten, or None when the rewrite does not apply to it."""
        parts = urlsplit(url)
        if site_of(parts) != self.host:
            return None
        if self.kind == "param":
            pairs = parse_qsl(parts.query, keep_blank_values=True)
            kept = [(k, v) for k, v in pairs if k != self.name]
            if len(kept) == len(pairs):
                return None
            return urlunsplit(parts._replace(query=urlencode(kept)))
        if self.kind == "segment":
            segments = parts.path.split("/")
            if self.name not in segments[1:]:
                return None
            kept_segments = [s for i, s in enumerate(segments) if i == 0 or s != self.name]
            path = "/".join(kept_segments) or "/"
            return urlunsplit(parts._replace(path=path))
        if self.kind == "index" and parts.path.endswith("/" + self.name):
            return urlunsplit(parts._replace(path=parts.path[: -len(self.name)]))
        return None

    def describe(self) -> str:
        if self.kind == "param":
            return f"{self.host}: parameter {self.name!r} does not change the page"
        if self.kind == "segment":
            return f"{self.host}: path segment {self.name!r} is the same page without it"
        return f"{self.host}: a trailing {self.name!r} is the folder's page"


def site_of(parts: SplitResult) -> str | None:
    """The site of a URL's parts: its host, and its port unless the scheme's default (two
    servers on one host are two sites)."""
    host = parts.hostname
    if host is None:
        return None
    try:
        port = parts.port
    except ValueError:  # a port out of range
        return host
    if port is None or _DEFAULT_PORTS.get(parts.scheme) == port:
        return host
    return f"{host}:{port}"


_DEFAULT_PORTS = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=1024)
def normalized(url: str) -> str:
    """The URL with its query parameters in order and no fragment (what a rewrite compares).

    (Cached: a page's URL is normalised once when it is fetched, again when it is decided and
    when it declares a canonical URL; a cache of recent URLs saves ~30 us a page.)"""
    parts = urlsplit(url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return urlunsplit(parts._replace(query=query, fragment=""))


def explanations(url: str, duplicate_of: str) -> list[Rewrite]:
    """The rewrites that, applied to ``url`` or to ``duplicate_of``, make them one URL (same
    host): the query parameters one has beyond the other, the path segment one has beyond the
    other, or a trailing ``index.html``; [] when something else differs."""
    a, b = urlsplit(url), urlsplit(duplicate_of)
    host = site_of(a)
    if host is None or host != site_of(b) or a.scheme != b.scheme:
        return []
    found: list[Rewrite] = []
    if a.query != b.query:
        extra = _extra_params(a.query, b.query) or _extra_params(b.query, a.query)
        if not extra:
            return []  # a value differs: that parameter may be the content's
        found.extend(Rewrite(host, "param", name) for name in extra
                      if name.lower() not in CONTENT_PARAMETERS)
        if not found:
            return []  # only parameters that select content
    if a.path != b.path:
        path_rewrite = _path_rewrite(host, a.path, b.path) or _path_rewrite(host, b.path, a.path)
        if path_rewrite is None:
            return []
        found.append(path_rewrite)
    return found


def _path_rewrite(host: str, path: str, base: str) -> Rewrite | None:
    """The rewrite that makes ``path`` into ``base``, if one segment or a trailing index page
    is all ``path`` has beyond it."""
    segment = _extra_segment(path, base)
    if segment is not None:
        return Rewrite(host, "segment", segment)
    rest = path[len(base):] if path.startswith(base) else ""
    if rest in ("index.html", "index.htm", "index.php"):
        return Rewrite(host, "index", rest)
    return None


def _extra_params(query: str, base: str) -> list[str]:
    """The parameters ``query`` has beyond ``base``, when it has every parameter of ``base``
    with the same value; else []."""
    mine = parse_qsl(query, keep_blank_values=True)
    theirs = parse_qsl(base, keep_blank_values=True)
    remaining = list(mine)
    for pair in theirs:
        if pair not in remaining:
            return []
        remaining.remove(pair)
    names = sorted({name for name, _ in remaining})
    return names


def _extra_segment(path: str, base: str) -> str | None:
    """The one path segment ``path`` has beyond ``base`` (``/print/a`` beyond ``/a``)."""
    mine, theirs = path.split("/"), base.split("/")
    if len(mine) != len(theirs) + 1:
        return None
    for i, segment in enumerate(mine):
        if mine[:i] + mine[i + 1 :] == theirs:
            if 0 < len(segment) <= _MAX_SEGMENT_CHARS and not segment.isdigit():
                return segment
            return None
    return None


_ATTRIBUTE = re.compile(rb"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
#: How far back from a declaring word its tag may start.
_MAX_TAG_BYTES = 2048


def declared_canonical(body: bytes, url: str) -> str | None:
    """The absolute URL ``body``'s head declares as the page's own (``<link rel="canonical">``,
    else ``<meta property="og:url">``), or None. Reads the head only (at most
    :data:`HEAD_BYTES`), finding the two words first (as written: in lower case): no parse of
    the page, microseconds a page."""
    limit = body.find(b"</head", 0, HEAD_BYTES)  # (most pages: no case-blind search needed)
    if limit < 0:  # (lowered and found: a case-blind expression takes 10x as long)
        lowered = body[:HEAD_BYTES].lower()
        ends = [at for at in (lowered.find(b"</head"), lowered.find(b"<body")) if at >= 0]
        limit = min(ends) if ends else min(len(body), HEAD_BYTES)
    og_url = None
    for word in (b"canonical", b"og:url"):
        position = body.find(word, 0, limit)
        while position >= 0:
            tag = _enclosing_tag(body, position, limit)
            if tag is not None:
                attributes = {
                    match.group(1).lower(): next(g for g in match.groups()[1:] if g is not None)
                    for match in _ATTRIBUTE.finditer(tag)
                }
                name = tag[1:5].lower()
                if name == b"link" and b"canonical" in attributes.get(b"rel", b"").lower().split():
                    return _absolute(attributes.get(b"href"), url)
                if (name == b"meta" and og_url is None
                        and attributes.get(b"property", b"").lower() == b"og:url"):
                    og_url = _absolute(attributes.get(b"content"), url)
            position = body.find(word, position + len(word), limit)
    return og_url


def _enclosing_tag(body: bytes, position: int, limit: int) -> bytes | None:
    """The ``<link ...>`` or ``<meta ...>`` tag around ``position``, or None."""
    start = body.rfind(b"<", max(0, position - _MAX_TAG_BYTES), position)
    if start < 0 or body[start + 1:start + 5].lower() not in (b"link", b"meta"):
        return None
    if b">" in body[start:position]:
        return None  # the word is outside the tag
    end = body.find(b">", position, limit)
    return None if end < 0 else body[start:end + 1]


def _absolute(value: bytes | None, base: str) -> str | None:
    if not value:
        return None
    text = value.decode("utf-8", "replace").strip()
    if "&" in text:
        text = html.unescape(text)
    if not text.startswith(("http://", "https://")):  # (most are absolute: no join needed)
        text = urljoin(base, text)
    return text if text.startswith(("http://", "https://")) else None


def _pair(a: str, b: str) -> tuple[str, str]:
    """Two URLs of one page, in one order whichever came first (a drop and a canonical
    declaration may name the same pair both ways)."""
    return (a, b) if a <= b else (b, a)


@dataclass
class _Evidence:
    #: this crawl's distinct confirming pairs (see :func:`_pair`)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    #: confirmations of earlier crawls and other processes (from the rule store)
    others: int = 0
    retired: bool = False
    skipped: int = 0
    seen_matching: int = 0
    #: pairs that confirmed the rule once it was live: sampled requests, and requests in
    #: flight it would have skipped (see :data:`MIN_CHECKS`)
    checks: int = 0
    #: held requests fetched as checks when the crawl ran out of requests
    late_checks: int = 0
    #: the requests skipped, to fetch again if the rule is retired
    held: list[Any] = field(default_factory=list)
    #: the fetched URLs of the rule's site by the URL the rewrite makes of them
    reduced: dict[str, set[str]] = field(default_factory=dict)
    #: a parameter's rule: the first value asked for on each page without it, and the pages
    #: that offered another value, fetched as a check (see :meth:`UrlRules.check`)
    values: dict[str, str] = field(default_factory=dict)
    choices_checked: set[str] = field(default_factory=set)

    @property
    def confirmations(self) -> int:
        return len(self.pairs) + self.others


class UrlRules:
    """Rewrites learned from one crawl's drops, and the decision to skip a request.

    Two URLs are one page by the live rewrites when applying every live rewrite of their site,
    over and over, makes them one URL (their *canonical* form). A rewrite is contradicted when
    a page kept as distinct shares what the rewrite makes of it with another URL fetched.

    ``on_new_site(host)`` is called when a URL of a site is fetched for the first time, before
    it is counted: the rule store reads what earlier crawls learned about that site there.
    """

    def __init__(self, confirmations: int = CONFIRMATIONS, sample_every: int = SAMPLE_EVERY
                 ) -> None:
        self.confirmations = confirmations
        self.sample_every = sample_every
        self.on_new_site: Callable[[str], None] | None = None
        self._evidence: dict[Rewrite, _Evidence] = {}
        self._fetched: set[str] = set()
        self._by_host: dict[str, list[str]] = defaultdict(list)  # fetched URLs per host
        #: each page decided: the URL of the distinct page whose content it has
        self._content: dict[str, str] = {}
        #: the rewrites each learned-from drop supports, to withdraw them with the drop
        self._from_drop: dict[tuple[str, str], list[Rewrite]] = {}
        #: the pairs a canonical declaration confirmed, by each page whose decision they rest on
        self._from_canonical: dict[str, list[tuple[tuple[str, str], list[Rewrite]]]] = {}
        #: pages declaring a canonical URL not decided yet, by that URL
        self._pending: dict[str, list[str]] = {}
        self._pending_count = 0
        self._canonical_fetched: set[str] = set()
        self._live: tuple[Rewrite, ...] = ()
        #: sites whose counts or retirements changed since :meth:`take_changed`, and sites
        #: fetched from since then
        self._changed: set[str] = set()
        self._active: set[str] = set()
        #: rewrites that went live in this crawl (loaded live ones aside), and that it retired
        self.went_live = 0
        self.retirements = 0
        #: canonical declarations that confirmed a pair, and those the decisions did not back
        self.canonical_outcomes = {"confirmed": 0, "ignored": 0}
        #: requests skipped by rules retired since :meth:`take_released`
        self._released: list[Any] = []
        self._held_count = 0

    # -- what the crawl tells ------------------------------------------------------------------

    def fetched(self, url: str) -> None:
        """``url`` was downloaded (kept or dropped: its content is known)."""
        normal = normalized(url)
        if normal in self._fetched:
            return
        host = site_of(urlsplit(normal)) or ""
        if host not in self._by_host and self.on_new_site is not None:
            self.on_new_site(host)
        self._fetched.add(normal)
        self._by_host[host].append(normal)
        self._active.add(host)
        for rewrite, evidence in self._evidence.items():
            if rewrite.host == host:
                evidence.reduced.setdefault(_reduced(rewrite, normal), set()).add(normal)
        self._canonical_fetched.add(self._canonical(normal))

    def dropped(self, url: str, duplicate_of: str) -> list[Rewrite]:
        """``url`` was dropped as a duplicate of ``duplicate_of``: the rewrites that newly went
        live because of it."""
        pair = (normalized(url), normalized(duplicate_of))
        self._content[pair[0]] = self._content.get(pair[1], pair[1])
        self._retire_conflicts(pair[0])
        went_live = self._confirm(pair, self._from_drop.setdefault(pair, []))
        return went_live + self._declarations_decided(pair[0])

    def kept(self, url: str) -> list[Rewrite]:
        """``url`` was kept as distinct: the rewrites it contradicts (they make it one URL with
        another page fetched, which it does not duplicate) are retired; returns them."""
        normal = normalized(url)
        self._content[normal] = normal
        retired = self._retire_conflicts(normal)
        self._declarations_decided(normal)  # (what goes live here is counted in went_live)
        return retired

    def declared(self, url: str, canonical: str) -> list[Rewrite]:
        """The decided page ``url`` declares ``canonical`` as its URL: the rewrites that went
        live because of it. It confirms the rewrites between the two once the page at
        ``canonical`` was decided too, and only if the decisions put both in one cluster;
        otherwise it is ignored (:attr:`canonical_outcomes` counts both)."""
        page, target = normalized(url), normalized(canonical)
        if page == target or site_of(urlsplit(page)) != site_of(urlsplit(target)):
            return []
        if target in self._content:
            return self._confirm_declaration(page, target)
        if self._pending_count < MAX_PENDING_CANONICALS:
            self._pending.setdefault(target, []).append(page)
            self._pending_count += 1
        return []

    def _declarations_decided(self, normal: str) -> list[Rewrite]:
        """The declarations that waited for ``normal``'s decision, weighed now."""
        waiting = self._pending.pop(normal, None)
        if not waiting:
            return []
        self._pending_count -= len(waiting)
        return [rewrite for page in waiting for rewrite in self._confirm_declaration(page, normal)]

    def _confirm_declaration(self, page: str, target: str) -> list[Rewrite]:
        mine, theirs = self._content.get(page), self._content.get(target)
        if mine is None or mine != theirs:
            self.canonical_outcomes["ignored"] += 1
            return []
        self.canonical_outcomes["confirmed"] += 1
        pair = (page, target)
        rewrites: list[Rewrite] = []
        for url in {page, target, mine}:  # whichever of their decisions is withdrawn
            self._from_canonical.setdefault(url, []).append((pair, rewrites))
        return self._confirm(pair, rewrites)

    def _confirm(self, pair: tuple[str, str], recorded: list[Rewrite]) -> list[Rewrite]:
        """Count ``pair`` (two URLs of one content) for every rewrite that explains it; the
        rewrites are added to ``recorded`` (to withdraw them); returns those that went live."""
        # (read through the rewrites live already too: a print version dropped against a
        # tracked URL of its page teaches "print" once "the tracking parameter" is known)
        forms = [pair, (self._canonical(pair[0]), self._canonical(pair[1]))]
        rewrites = list(dict.fromkeys(
            rewrite for a, b in forms for rewrite in explanations(a, b)
        ))
        key = _pair(*pair)
        went_live = []
        for rewrite in rewrites:
            evidence = self._evidence.get(rewrite)
            if evidence is None:
                evidence = self._evidence[rewrite] = self._new_evidence(rewrite)
            if rewrite not in recorded:
                recorded.append(rewrite)
            if key in evidence.pairs:
                continue
            before = self.is_live(rewrite)
            evidence.pairs.add(key)
            if before:  # a page the rule would have skipped, fetched (in flight), agrees
                evidence.checks += 1
            self._changed.add(rewrite.host)
            if not before and self.is_live(rewrite):
                went_live.append(rewrite)
        if went_live:
            self.went_live += len(went_live)
            self._refresh_live()
        return went_live

    def _retire_conflicts(self, normal: str) -> list[Rewrite]:
        retired = [rewrite for rewrite, evidence in self._evidence.items()
                   if not evidence.retired and self._contradicts(rewrite, evidence, normal)]
        for rewrite in retired:
            self._retire(self._evidence[rewrite])
            self._changed.add(rewrite.host)
            self.retirements += 1
        if retired:
            self._refresh_live()
        return retired

    def _contradicts(self, rewrite: Rewrite, evidence: _Evidence, normal: str) -> bool:
        """Whether ``rewrite`` makes the decided page ``normal`` one URL with a page of other
        content."""
        if site_of(urlsplit(normal)) != rewrite.host:
            return False
        mine = self._content.get(normal)
        return any(
            (theirs := self._content.get(other)) is not None and theirs != mine
            for other in evidence.reduced.get(_reduced(rewrite, normal), ())
            if other != normal
        )

    def withdrawn(self, url: str, duplicate_of: str) -> None:
        """A drop was taken back (its page was no content): it confirms nothing any more, nor
        does a canonical declaration weighed on its decision."""
        pair = (normalized(url), normalized(duplicate_of))
        self._content.pop(pair[0], None)  # undecided until it is fetched again
        withdrawn = [(pair, self._from_drop.pop(pair, []))]
        for decided in pair:  # (the page dropped, or the page it duplicated: no content)
            withdrawn += self._from_canonical.pop(decided, [])
        for confirmed, rewrites in withdrawn:
            key = _pair(*confirmed)
            for rewrite in rewrites:
                evidence = self._evidence[rewrite]
                if key in evidence.pairs and not self._still_confirms(key, rewrite):
                    evidence.pairs.discard(key)
                    self._changed.add(rewrite.host)
        self._refresh_live()

    def _still_confirms(self, key: tuple[str, str], rewrite: Rewrite) -> bool:
        """Whether another drop, not withdrawn, still counts ``key`` for ``rewrite``."""
        return any(rewrite in self._from_drop.get(pair, ()) for pair in (key, key[::-1]))

    def _new_evidence(self, rewrite: Rewrite) -> _Evidence:
        """A rewrite seen for the first time, checked against every page kept before."""
        evidence = _Evidence()
        for fetched in self._by_host.get(rewrite.host, ()):
            evidence.reduced.setdefault(_reduced(rewrite, fetched), set()).add(fetched)
        if any(self._contradicts(rewrite, evidence, decided) for decided in self._content):
            self._retire(evidence)
            self._changed.add(rewrite.host)
            self.retirements += 1
        return evidence

    def _refresh_live(self) -> None:
        live = tuple(rewrite for rewrite in self._evidence if self.is_live(rewrite))
        if live != self._live:
            self._live = live
            self._canonical_fetched = {self._canonical(url) for url in self._fetched}

    def _canonical(self, normal: str) -> str:
        """``normal`` with every live rewrite of its site applied until none applies."""
        current = normal
        for _ in range(len(self._live) + 1):
            changed = False
            for rewrite in self._live:
                target = rewrite.apply(current)
                if target is not None:
                    current, changed = normalized(target), True
            if not changed:
                break
        return current

    # -- what other crawls learned -------------------------------------------------------------

    def take_changed(self) -> tuple[set[str], set[str]]:
        """The sites whose confirmations or retirements changed since the last call, and the
        sites fetched from since then."""
        changed, self._changed = self._changed, set()
        active, self._active = self._active, set()
        return changed, active

    def shared(self, host: str) -> list[tuple[Rewrite, int, bool]]:
        """Every rewrite of ``host``: (rewrite, this crawl's confirmations, retired)."""
        return [(rewrite, len(evidence.pairs), evidence.retired)
                for rewrite, evidence in self._evidence.items() if rewrite.host == host]

    def absorb(self, rewrite: Rewrite, others: int, retired: bool) -> bool:
        """What earlier crawls and other processes know of ``rewrite``: ``others``
        confirmations beside this crawl's, and whether it was retired (a retired rule stays
        retired, whatever anyone says later). True when it went live because of it."""
        evidence = self._evidence.get(rewrite)
        if evidence is None:
            evidence = self._evidence[rewrite] = self._new_evidence(rewrite)
        before = self.is_live(rewrite)
        evidence.others = max(0, others)
        if retired and not evidence.retired:
            self._retire(evidence)
        self._refresh_live()
        return not before and self.is_live(rewrite)

    def _retire(self, evidence: _Evidence) -> None:
        """Retire a rule for good; the requests it skipped come back (:meth:`take_released`)."""
        evidence.retired = True
        self._held_count -= len(evidence.held)
        self._released += evidence.held
        evidence.held = []

    # -- the requests skipped ------------------------------------------------------------------

    def hold(self, rewrite: Rewrite, request: Any) -> bool:
        """Keep ``request``, which ``rewrite`` skipped, to fetch it if the rule is retired;
        False when too many are held already (the skip is then final)."""
        evidence = self._evidence.get(rewrite)
        if evidence is None or evidence.retired or self._held_count >= MAX_HELD_SKIPS:
            return False
        evidence.held.append(request)
        self._held_count += 1
        return True

    @property
    def has_released(self) -> bool:
        return bool(self._released)

    def take_released(self) -> list[Any]:
        """The requests skipped by rules retired since the last call: to fetch after all."""
        released, self._released = self._released, []
        return released

    def checks_due(self) -> list[tuple[Rewrite, Any]]:
        """When the crawl has nothing left to fetch: for each rule that skipped requests and has
        passed fewer than :data:`MIN_CHECKS` checks, one of them to fetch as its check (the
        latest skipped), up to that many in all: a check that does not contradict the rule
        counts, whatever its answer."""
        due = []
        for rewrite, evidence in self._evidence.items():
            if (evidence.retired or not evidence.held
                    or max(evidence.checks, evidence.late_checks) >= MIN_CHECKS):
                continue
            evidence.late_checks += 1
            self._held_count -= 1
            due.append((rewrite, evidence.held.pop()))
        return due

    # -- what the crawl asks -------------------------------------------------------------------

    def is_live(self, rewrite: Rewrite) -> bool:
        evidence = self._evidence.get(rewrite)
        return (evidence is not None and not evidence.retired
                and evidence.confirmations >= self.confirmations)

    def skip(self, url: str) -> tuple[Rewrite, str] | None:
        """(the first live rewrite that applies, the canonical form) when the live rewrites make
        ``url`` one URL with a page already fetched; None when the request should be fetched
        (no rule applies, no such page, or one sampled request in :data:`SAMPLE_EVERY`)."""
        found = self.check(url)
        return None if found is None or found[2] else found[:2]

    def check(self, url: str) -> tuple[Rewrite, str, bool] | None:
        """:meth:`skip`'s answer before sampling: (rewrite, canonical form, whether this is the
        request in :data:`SAMPLE_EVERY` fetched anyway to check the rule), or None."""
        if not self._live:  # (most requests of most crawls: not even a parse of the URL)
            return None
        normal = normalized(url)
        if normal in self._fetched:
            return None  # Scrapy's own dupefilter's business
        canonical = self._canonical(normal)
        if canonical == normal and normal not in self._canonical_fetched:
            return None
        if canonical not in self._canonical_fetched:
            return None
        used = next((r for r in self._live if r.apply(normal) is not None), None)
        if used is None:  # the canonical form itself, once fetched under a variant's URL
            site = site_of(urlsplit(normal))
            used = next((r for r in self._live if r.host == site), None)
            if used is None:
                return None
        evidence = self._evidence[used]
        evidence.seen_matching += 1
        if evidence.seen_matching % self.sample_every == 0:
            return used, canonical, True  # fetched anyway: a check of the rule
        if used.kind == "param" and self._offers_choices(used, evidence, normal):
            return used, canonical, True
        evidence.skipped += 1
        return used, canonical, False

    def _offers_choices(self, rewrite: Rewrite, evidence: _Evidence, normal: str) -> bool:
        """Whether ``normal`` asks for another value of ``rewrite``'s parameter than a request
        before it on the same page (the URL without the parameter), the first time on that page:
        a facet's choices (``?brand=acme``, ``?brand=peakline`` on one category) select content
        where the rule was learned on pages they left alone (a category of one brand). The
        request is fetched as a check: a facet's page, distinct, retires the rule and brings
        back what it skipped; a tracking parameter's other value is its page again."""
        page = _reduced(rewrite, normal)
        value = "&".join(v for k, v in parse_qsl(urlsplit(normal).query, keep_blank_values=True)
                         if k == rewrite.name)
        first = evidence.values.get(page)
        if first is None:
            if len(evidence.values) < MAX_HELD_SKIPS:  # (bounded: a value a page)
                evidence.values[page] = value
            return False
        if first == value or page in evidence.choices_checked:
            return False
        evidence.choices_checked.add(page)
        return True

    def live(self) -> list[Rewrite]:
        return list(self._live)

    def summary(self) -> list[tuple[Rewrite, int, int, bool]]:
        """Every rewrite seen: (rewrite, confirmations, requests skipped, retired)."""
        return [(rewrite, e.confirmations, e.skipped, e.retired)
                for rewrite, e in self._evidence.items()]


def _reduced(rewrite: Rewrite, normal: str) -> str:
    target = rewrite.apply(normal)
    return normal if target is None else normalized(target)


_RULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def rules_of(crawler: object) -> UrlRules:
    """The one set of rules of a crawl, shared by its downloader and spider middlewares."""
    rules = _RULES.get(crawler)
    if rules is None:
        rules = _RULES[crawler] = UrlRules()
    return rules
