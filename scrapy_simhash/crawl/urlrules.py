"""URL rewrite rules learned from a crawl's own drops: don't download what you would drop.

Every drop names the page it duplicates. Most near-duplicates on the web come from a few URL
patterns per site: a tracking parameter, a session id, a print, AMP or mobile variant, a trailing
``index.html``. :class:`UrlRules` turns each drop ``(url, duplicate_of)`` into the rewrites that
explain it (*removing parameter P here never changes the content*, *the path segment "print"
here is the same page without it*) and counts, per site, how many distinct pairs confirmed each
rewrite. Learned from evidence, not from a list of names: a parameter nobody has listed is
learned too, and one that changes the content (``?page=``, ``?id=``) never is, since its pages
are kept as distinct, which contradicts the rewrite.

A rewrite is *live* once :data:`CONFIRMATIONS` pairs confirmed it and nothing contradicted it.
A request a live rewrite maps onto a URL already fetched is skipped, except for a sample
(:data:`SAMPLE_EVERY`) still fetched to check the rule; a fetched page that the rewrite says
duplicates a page kept, but that was kept as distinct, retires the rule for good.

No Scrapy, no I/O: the downloader middleware feeds it what it fetched, dropped and kept, and the
spider middleware asks it about the requests a callback yields, before they are scheduled.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

#: Distinct pairs of URLs that must confirm a rewrite before requests are skipped by it.
CONFIRMATIONS = 3
#: One in this many requests a live rewrite would skip is fetched anyway, to check it.
SAMPLE_EVERY = 10
#: Path segments that name a variant of the same page when added to its path.
_MAX_SEGMENT_CHARS = 20


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One way a URL of a site maps onto the same page's URL."""

    host: str
    kind: str  # "param" (drop a query parameter), "segment" (drop a path segment), "index"
    name: str  # the parameter, or the segment

    def apply(self, url: str) -> str | None:
        """``url`` rewritten, or None when the rewrite does not apply to it."""
        parts = urlsplit(url)
        if parts.hostname != self.host:
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


def normalized(url: str) -> str:
    """The URL with its query parameters in order and no fragment (what a rewrite compares)."""
    parts = urlsplit(url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return urlunsplit(parts._replace(query=query, fragment=""))


def explanations(url: str, duplicate_of: str) -> list[Rewrite]:
    """The rewrites that map ``url`` exactly onto ``duplicate_of`` (same host)."""
    a, b = urlsplit(url), urlsplit(duplicate_of)
    if a.hostname is None or a.hostname != b.hostname or a.scheme != b.scheme:
        return []
    host = a.hostname
    found: list[Rewrite] = []
    if a.path == b.path:
        extra = _extra_params(a.query, b.query)
        if extra:  # every extra parameter is needed together; each is learned on its own
            found.extend(Rewrite(host, "param", name) for name in extra)
        return found
    if a.query == b.query:
        segment = _extra_segment(a.path, b.path)
        if segment is not None:
            found.append(Rewrite(host, "segment", segment))
        elif a.path.startswith(b.path) and a.path[len(b.path):] in ("index.html", "index.htm",
                                                                     "index.php"):
            found.append(Rewrite(host, "index", a.path[len(b.path):]))
    return found


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


@dataclass
class _Evidence:
    pairs: set[tuple[str, str]] = field(default_factory=set)
    retired: bool = False
    skipped: int = 0
    seen_matching: int = 0


class UrlRules:
    """Rewrites learned from one crawl's drops, and the decision to skip a request."""

    def __init__(self, confirmations: int = CONFIRMATIONS, sample_every: int = SAMPLE_EVERY
                 ) -> None:
        self.confirmations = confirmations
        self.sample_every = sample_every
        self._evidence: dict[Rewrite, _Evidence] = defaultdict(_Evidence)
        self._fetched: set[str] = set()
        self._kept: dict[str, list[str]] = defaultdict(list)  # host -> URLs kept as distinct
        #: the rewrite each learned-from drop supports, to withdraw it with the drop
        self._from_drop: dict[tuple[str, str], list[Rewrite]] = {}

    # -- what the crawl tells ------------------------------------------------------------------

    def fetched(self, url: str) -> None:
        """``url`` was downloaded (kept or dropped: its content is known)."""
        self._fetched.add(normalized(url))

    def dropped(self, url: str, duplicate_of: str) -> list[Rewrite]:
        """``url`` was dropped as a duplicate of ``duplicate_of``: the rewrites that newly went
        live because of it."""
        pair = (normalized(url), normalized(duplicate_of))
        went_live = []
        rewrites = explanations(*pair)
        self._from_drop[pair] = rewrites
        for rewrite in rewrites:
            if rewrite not in self._evidence:
                self._evidence[rewrite].retired = self._contradicted(rewrite)
            evidence = self._evidence[rewrite]
            before = self.is_live(rewrite)
            evidence.pairs.add(pair)
            if not before and self.is_live(rewrite):
                went_live.append(rewrite)
        return went_live

    def kept(self, url: str) -> list[Rewrite]:
        """``url`` was kept as distinct: the rewrites it contradicts (they map it onto a page
        fetched before, which it does not duplicate) are retired; returns them."""
        retired = []
        normal = normalized(url)
        host = urlsplit(normal).hostname
        if host is not None:
            self._kept[host].append(normal)
        for rewrite, evidence in list(self._evidence.items()):
            if evidence.retired:
                continue
            target = rewrite.apply(normal)
            if target is not None and normalized(target) in self._fetched:
                evidence.retired = True
                retired.append(rewrite)
        return retired

    def _contradicted(self, rewrite: Rewrite) -> bool:
        """Whether a page kept before maps, by ``rewrite``, onto a page fetched before it."""
        for url in self._kept.get(rewrite.host, ()):
            target = rewrite.apply(url)
            if target is not None and normalized(target) in self._fetched:
                return True
        return False

    def withdrawn(self, url: str, duplicate_of: str) -> None:
        """A drop was taken back (its page was no content): it confirms nothing any more."""
        pair = (normalized(url), normalized(duplicate_of))
        for rewrite in self._from_drop.pop(pair, []):
            self._evidence[rewrite].pairs.discard(pair)

    # -- what the crawl asks -------------------------------------------------------------------

    def is_live(self, rewrite: Rewrite) -> bool:
        evidence = self._evidence.get(rewrite)
        return (evidence is not None and not evidence.retired
                and len(evidence.pairs) >= self.confirmations)

    def skip(self, url: str) -> tuple[Rewrite, str] | None:
        """The live rewrite that maps ``url`` onto a URL already fetched, with that URL; None
        when the request should be fetched (no rule, nothing fetched there, or a sample)."""
        normal = normalized(url)
        if normal in self._fetched:
            return None  # Scrapy's own dupefilter's business
        for rewrite in self.live():
            target = rewrite.apply(normal)
            if target is None:
                continue
            target = normalized(target)
            if target not in self._fetched:
                continue
            evidence = self._evidence[rewrite]
            evidence.seen_matching += 1
            if evidence.seen_matching % self.sample_every == 0:
                return None  # fetched anyway: a check of the rule
            evidence.skipped += 1
            return rewrite, target
        return None

    def live(self) -> list[Rewrite]:
        return [rewrite for rewrite in self._evidence if self.is_live(rewrite)]

    def summary(self) -> list[tuple[Rewrite, int, int, bool]]:
        """Every rewrite seen: (rewrite, confirmations, requests skipped, retired)."""
        return [(rewrite, len(e.pairs), e.skipped, e.retired)
                for rewrite, e in self._evidence.items()]


_RULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def rules_of(crawler: object) -> UrlRules:
    """The one set of rules of a crawl, shared by its downloader and spider middlewares."""
    rules = _RULES.get(crawler)
    if rules is None:
        rules = _RULES[crawler] = UrlRules()
    return rules
