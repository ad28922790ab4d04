"""Learned URL rules kept beside a persistent index, so the next crawl starts with them.

With an SQLite or Redis ``SIMHASH_INDEX_URI`` the rules of :class:`~.urlrules.UrlRules` live in
a companion namespace of the same index (``pages_urlrules``), through the key/value side every
built-in backend has (``put_evidence`` / ``get_evidence``): one value per site, named after its
host, holding :data:`FORMAT` and each rewrite's confirmations and retired flag as compact JSON
(at most the index's 1 KiB a value: the retired rewrites first, then the most confirmed).

A site's value is read the first time the crawl fetches a page of it; the sites whose counts
changed are written back at most every :data:`WRITE_INTERVAL` seconds (a retirement at once)
and when the crawl closes. A write merges: it reads the value again and adds this process's new
confirmations to the stored count, so several processes crawling with one index add up their
evidence; the sites the crawl fetched from meanwhile are read again then too, so what another
process learned or retired reaches this one within the interval. A retirement is also written
as its own key (``<host> retired <kind> <name>``), which nobody ever writes back as "live": a
merge that raced with another process's retirement cannot resurrect the rule, and the next write
of every process retires it there too.

The in-memory index keeps no rules (each crawl learns its own, as it keeps its own pages). If
the companion namespace cannot be opened, read or written, the crawl goes on with the rules in
its own memory (logged once).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from scrapy_simhash.crawl.urlrules import Rewrite, UrlRules

#: The version of a site's value; a value of another version is left alone.
FORMAT = 1
#: Seconds between write-backs of the sites whose rules changed.
WRITE_INTERVAL = 5.0
#: Index URI schemes whose index outlives the crawl.
PERSISTENT_SCHEMES = frozenset({"sqlite", "redis", "rediss", "unix"})
#: Bytes a site's value may take (the index's limit for one value).
MAX_VALUE_BYTES = 1024
_KINDS = frozenset({"param", "segment", "index"})

#: A site's stored rules: rewrite -> (confirmations, retired).
Stored = dict[Rewrite, tuple[int, bool]]


def companion_namespace(namespace: str) -> str:
    """The namespace of the rules learned from ``namespace``'s drops."""
    return f"{namespace}_urlrules"


def is_persistent(uri: str) -> bool:
    """Whether an index at ``uri`` outlives the crawl (``sqlite://`` alone, or with
    ``:memory:``, is in memory)."""
    location = uri.partition("?")[0]
    scheme, separator, rest = location.partition("://")
    if not separator or scheme.lower() not in PERSISTENT_SCHEMES:
        return False
    return scheme.lower() != "sqlite" or rest not in ("", "/", "/:memory:")


def encode(rules: Stored) -> bytes:
    """A site's value: as many rewrites as fit, retired ones first, then the most confirmed."""
    ordered = sorted(rules.items(), key=lambda item: (not item[1][1], -item[1][0],
                                                      item[0].kind, item[0].name))
    entries: list[list[Any]] = []
    size = len(json.dumps({"v": FORMAT, "rules": []}, separators=(",", ":")).encode())
    for rewrite, (count, retired) in ordered:
        entry = [rewrite.kind, rewrite.name, count, retired]
        length = len(json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode()) + 1
        if size + length > MAX_VALUE_BYTES:
            continue
        size += length
        entries.append(entry)
    value = json.dumps({"v": FORMAT, "rules": entries}, separators=(",", ":"),
                       ensure_ascii=False)
    return value.encode()


def decode(host: str, data: bytes | None) -> Stored | None:
    """A site's rules from its value ({} for none); None for a value this version cannot read
    (a newer format: left alone)."""
    if data is None:
        return {}
    try:
        value = json.loads(bytes(data).decode("utf-8"))
        if not isinstance(value, dict) or value.get("v") != FORMAT:
            return None
        stored: Stored = {}
        for kind, name, count, retired in value["rules"]:
            if kind in _KINDS and isinstance(name, str) and isinstance(count, int):
                stored[Rewrite(host, kind, name)] = (max(0, count), bool(retired))
        return stored
    except (ValueError, TypeError, KeyError):
        return None


def tombstone(rewrite: Rewrite) -> str:
    """The key that says ``rewrite`` was retired (written once, never taken back)."""
    return f"{rewrite.host} retired {rewrite.kind} {rewrite.name}"


class RuleStore:
    """The rules of one crawl, read from and written back to a companion index namespace.

    ``index``: an open index with evidence (``put_evidence``/``get_evidence``); ``on_error``
    hears of the first failure, after which the store does nothing (the rules stay in memory);
    ``on_loaded`` of each rewrite that an earlier crawl's evidence made live.
    """

    def __init__(
        self,
        index: Any,
        rules: UrlRules,
        *,
        on_error: Callable[[Exception], None],
        on_loaded: Callable[[Rewrite], None] | None = None,
        interval: float = WRITE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.index = index
        self.rules = rules
        self.on_error = on_error
        self.on_loaded = on_loaded
        self.interval = interval
        self.clock = clock
        self.failed = False
        #: this process's confirmations already added to the stored count, per rewrite
        self._written: dict[Rewrite, int] = {}
        self._tombstoned: set[Rewrite] = set()
        self._unreadable: set[str] = set()  # sites whose value has another format
        self._pending: set[str] = set()  # sites changed here since the last write
        self._active: set[str] = set()  # sites fetched from since the last write
        self._last_write = clock()
        self._retirements_written = rules.retirements
        rules.on_new_site = self.load

    # -- reading -------------------------------------------------------------------------------

    def load(self, host: str) -> None:
        """Give the rules what the store knows of ``host`` (the first page of it was fetched)."""
        if self.failed:
            return
        try:
            stored = decode(host, self.index.get_evidence([host])[0])
            if stored is None:
                self._unreadable.add(host)
                return
            retired = self._tombstones(stored)
        except Exception as error:
            self._fail(error)
            return
        for rewrite, (count, was_retired) in stored.items():
            self._written.setdefault(rewrite, 0)
            went_live = self.rules.absorb(rewrite, count, was_retired or rewrite in retired)
            if went_live and self.on_loaded is not None:
                self.on_loaded(rewrite)

    def _tombstones(self, rewrites: Iterable[Rewrite]) -> set[Rewrite]:
        """The rewrites among ``rewrites`` that some process retired."""
        wanted = [rewrite for rewrite in rewrites if rewrite not in self._tombstoned]
        if not wanted:
            return set(self._tombstoned)
        found = self.index.get_evidence([tombstone(rewrite) for rewrite in wanted])
        self._tombstoned.update(r for r, value in zip(wanted, found, strict=True)
                                if value is not None)
        return set(self._tombstoned)

    # -- writing -------------------------------------------------------------------------------

    def changed(self) -> None:
        """Called after each decision: writes back the changed sites when a retirement waits or
        :attr:`interval` seconds passed since the last write."""
        if self.failed:
            return
        self._take_changed()
        if not self._pending and not self._active:
            return
        retiring = self.rules.retirements != self._retirements_written
        if retiring or self.clock() - self._last_write >= self.interval:
            self.write()

    def _take_changed(self) -> None:
        changed, active = self.rules.take_changed()
        self._pending |= changed
        self._active |= active

    def write(self) -> None:
        """Merge the changed sites into the store and make it durable; read again the sites
        fetched from since the last write."""
        self._take_changed()
        changed = self._pending - self._unreadable
        hosts = sorted((changed | self._active) - self._unreadable)
        self._pending, self._active = set(), set()
        self._last_write = self.clock()
        self._retirements_written = self.rules.retirements
        if self.failed or not hosts:
            return
        try:
            values = self.index.get_evidence(hosts)
            for host, data in zip(hosts, values, strict=True):
                stored = decode(host, data)
                if stored is None:
                    self._unreadable.add(host)
                    continue
                self._merge(host, stored, write=host in changed)
            if changed:
                self.index.flush()
        except Exception as error:
            self._fail(error)

    def _merge(self, host: str, stored: Stored, *, write: bool) -> None:
        local = {rewrite: (count, retired) for rewrite, count, retired in self.rules.shared(host)}
        retired_anywhere = self._tombstones(set(stored) | set(local))
        merged: Stored = {}
        for rewrite in set(stored) | set(local):
            stored_count, stored_retired = stored.get(rewrite, (0, False))
            mine, retired_here = local.get(rewrite, (0, False))
            total = max(0, stored_count + mine - self._written.get(rewrite, 0))
            retired = stored_retired or retired_here or rewrite in retired_anywhere
            merged[rewrite] = (total, retired)
            if write:
                self._written[rewrite] = mine
            if retired_here and rewrite not in self._tombstoned:
                self.index.put_evidence(tombstone(rewrite), b"1")
                self._tombstoned.add(rewrite)
            self.rules.absorb(rewrite, total - mine, retired)
        if write:
            self.index.put_evidence(host, encode(merged))

    def close(self) -> None:
        """Write back what changed and close the companion index."""
        try:
            self.write()
        finally:
            try:
                self.index.close()
            except Exception as error:
                self._fail(error)

    def _fail(self, error: Exception) -> None:
        if not self.failed:
            self.failed = True
            self.on_error(error)


#: Runs ``function(*args)`` where the index lives and returns its result (or raises).
Runner = Callable[..., Any]


def _call_here(function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


class _RunThrough:
    """The companion index's calls made through ``run``: in the thread the crawl's index lives
    in (SQLite ties a connection to its thread, and indexes on one file share it), each with a
    deadline, so a frozen index holds the reactor for one deadline, after which the store fails
    and the rules stay in memory."""

    def __init__(self, index: Any, run: Runner) -> None:
        self._index, self._run = index, run

    def get_evidence(self, keys: list[str]) -> list[bytes | None]:
        return self._run(self._index.get_evidence, keys)

    def put_evidence(self, key: str, value: bytes) -> None:
        self._run(self._index.put_evidence, key, value)

    def flush(self) -> None:
        self._run(self._index.flush)

    def close(self) -> None:
        self._run(self._index.close)


def open_store(
    uri: str, namespace: str, options: Mapping[str, Any], rules: UrlRules, *,
    run: Runner = _call_here, **kwargs: Any
) -> RuleStore | None:
    """The store of ``rules`` beside the index at ``uri`` (None for an index that does not
    outlive the crawl); raises what opening the companion namespace raises. ``run`` makes each
    index call (by default here and now)."""
    if not is_persistent(uri):
        return None
    from scrapy_simhash.index import open_index

    index = run(lambda: open_index(uri, namespace=companion_namespace(namespace),
                                   params={"url_rules_format": FORMAT}, **dict(options)))
    if not getattr(index, "supports_evidence", False):
        run(index.close)
        raise TypeError(f"{type(index).__name__} keeps no values beside its fingerprints")
    return RuleStore(index if run is _call_here else _RunThrough(index, run), rules, **kwargs)
