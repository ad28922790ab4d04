"""Band index for the non-SimHash detectors (MinHash-LSH, KSentence, exact).

A *scheme* (a detector of :mod:`scrapy_simhash.detectors`) turns a signature into band hashes,
bytes and back, and decides whether a candidate is a duplicate. Two signatures become candidates
when they share a band hash (for exact and KSentence there is a single band: the hash itself);
the scheme then verifies each candidate. The storage is separate from the algorithm, as in
datasketch: :class:`MemoryBandStorage` (dicts) and :class:`SqliteBandStorage` (persistent, WAL,
writes batched in transactions, parameters stored per namespace and checked on open).

URIs: ``memory://`` and ``sqlite:///relative.db`` / ``sqlite:////absolute.db``, with options
in the query string (``?commit_every=1000&timeout=30``: ``timeout`` is how many seconds to wait
for another process's write lock).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from scrapy_simhash.index.base import (
    IndexParameterMismatch,
    Match,
    NearDuplicateIndex,
    NearDuplicateIndexError,
)
from scrapy_simhash.index.sqlite import (
    _acquire,
    _release,
    access_errors,
    savepoint,
    stored_band_params,
    stored_simhash_namespace,
)
from scrapy_simhash.index.uri import IndexOptionError, parse_index_uri

DEFAULT_COMMIT_EVERY = 1000
DEFAULT_TIMEOUT = 30.0
DEFAULT_CACHE_SIZE_MB = 64.0  # SQLite's page cache, as the SimHash index's default
_SIGN = 1 << 63


class BandScheme(Protocol):
    """What the band index needs from a detector."""

    name: str

    @property
    def params(self) -> dict[str, Any]: ...

    def bands(self, signature: Any) -> list[int]: ...

    def to_bytes(self, signature: Any) -> bytes: ...

    def from_bytes(self, data: bytes) -> Any: ...

    def match_distance(self, a: Any, b: Any) -> int | None: ...

    def fingerprint_of(self, signature: Any) -> int: ...


class BandStorage(Protocol):
    """Rows (key, signature bytes) reachable through (band number, band hash)."""

    location: str

    def insert(self, key: str, bands: Sequence[int], payload: bytes) -> None: ...

    def candidates(self, bands: Sequence[int]) -> list[tuple[int, str, bytes]]: ...

    def remove(self, key: str, bands: Sequence[int], payload: bytes) -> bool:
        """Remove the rows holding (``key``, ``payload``) found through ``bands``; True if any.
        Optional: :meth:`BandIndex.remove` says so when a storage lacks it."""
        ...

    def stored_params(self) -> dict[str, Any] | None: ...

    def store_params(self, params: Mapping[str, Any]) -> None:
        """Store ``params`` unless some parameters are stored already (another opener's)."""
        ...

    def put_evidence(self, key: str, evidence: bytes) -> None: ...

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]: ...

    def __len__(self) -> int: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class BandIndex:
    """``check_and_add(key, signature) -> Match | None`` over band hashes plus verification."""

    def __init__(self, scheme: BandScheme, storage: BandStorage) -> None:
        self.scheme = scheme
        self.storage = storage
        self.params = dict(scheme.params)
        stored = storage.stored_params()
        wanted = json.loads(json.dumps(self.params))  # as it reads back from the file
        if stored is None:
            storage.store_params(wanted)  # keeps what a concurrent opener stored first
            stored = storage.stored_params()
        if stored != wanted:
            names = set(stored) | set(wanted)
            differences = {n: (stored.get(n), wanted.get(n)) for n in names
                           if stored.get(n) != wanted.get(n)}
            storage.close()
            raise IndexParameterMismatch(storage.location, differences)
        self._closed = False

    def add(self, key: str, signature: Any) -> None:
        """Store ``signature`` under ``key``."""
        self._check_open()
        self.storage.insert(key, self.scheme.bands(signature), self.scheme.to_bytes(signature))

    def add_many(self, items: Iterable[tuple[str, Any]]) -> None:
        for key, signature in items:
            self.add(key, signature)

    def query(self, signature: Any) -> list[Match]:
        """Every stored duplicate of ``signature``, nearest first, then oldest first."""
        self._check_open()
        found = []
        for row, key, payload in self.storage.candidates(self.scheme.bands(signature)):
            stored = self.scheme.from_bytes(payload)
            distance = self.scheme.match_distance(signature, stored)
            if distance is not None:
                found.append((distance, row, Match(key, self.scheme.fingerprint_of(stored),
                                                   distance)))
        found.sort(key=lambda item: item[:2])
        return [match for _, _, match in found]

    def check_and_add(self, key: str, signature: Any) -> Match | None:
        """The nearest stored duplicate (ties: the earliest stored); if none, store it."""
        matches = self.query(signature)
        if matches:
            return matches[0]
        self.add(key, signature)
        return None

    #: Evidence that confirms a match (see :mod:`scrapy_simhash.evidence`) is kept beside the
    #: signatures, so a crawl on a persistent index confirms against earlier crawls' pages too.
    supports_evidence = True

    def put_evidence(self, key: str, evidence: bytes) -> None:
        """Store ``evidence`` (at most :data:`MAX_EVIDENCE_BYTES`) under ``key``."""
        self._check_open()
        self.storage.put_evidence(key, NearDuplicateIndex._evidence(evidence))

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        """The evidence stored under each of ``keys`` (None for a key without any)."""
        self._check_open()
        return self.storage.get_evidence(NearDuplicateIndex._evidence_keys(keys))

    def remove(self, key: str, signature: Any) -> bool:
        """Remove every stored copy of (``key``, ``signature``); True if there was one."""
        self._check_open()
        remove = getattr(self.storage, "remove", None)
        if remove is None:
            raise NearDuplicateIndexError(f"{self.storage.location} cannot remove signatures")
        return remove(key, self.scheme.bands(signature), self.scheme.to_bytes(signature))

    def __len__(self) -> int:
        return len(self.storage)

    def flush(self) -> None:
        self.storage.flush()

    def rollback(self) -> None:
        """Discard the inserts not yet committed (SQLite storage; memory keeps everything)."""
        self._check_open()
        rollback = getattr(self.storage, "rollback", None)
        if rollback is None:
            raise NearDuplicateIndexError(f"{self.storage.location} cannot roll back")
        rollback()

    def close(self) -> None:
        """Flush and release the storage; calling it again does nothing."""
        if not self._closed:
            self._closed = True
            self.storage.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise NearDuplicateIndexError("BandIndex is closed")

    def __enter__(self) -> BandIndex:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BandIndex {self.scheme.name} at {self.storage.location} size={len(self)}>"


class MemoryBandStorage:
    """Band tables as dicts of row lists; nothing persists."""

    def __init__(self, namespace: str = "pages") -> None:
        self.location = f"memory://{namespace}"
        self._rows: list[tuple[str, bytes] | None] = []  # None: removed
        self._removed = 0
        self._tables: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
        self._params: dict[str, Any] | None = None
        self._evidence: dict[str, bytes] = {}

    def insert(self, key: str, bands: Sequence[int], payload: bytes) -> None:
        row = len(self._rows)
        self._rows.append((key, payload))
        for band, value in enumerate(bands):
            self._tables[band, value].append(row)

    def candidates(self, bands: Sequence[int]) -> list[tuple[int, str, bytes]]:
        rows: set[int] = set()
        for band, value in enumerate(bands):
            rows.update(self._tables.get((band, value), ()))
        return [(row, *self._rows[row]) for row in sorted(rows)]  # tables hold live rows only

    def remove(self, key: str, bands: Sequence[int], payload: bytes) -> bool:
        doomed = {row for row, stored, data in self.candidates(bands)
                  if stored == key and data == payload}
        if not doomed:
            return False
        for band, value in enumerate(bands):
            rows = self._tables[band, value]
            rows[:] = [row for row in rows if row not in doomed]
            if not rows:
                del self._tables[band, value]
        for row in doomed:
            self._rows[row] = None
        self._removed += len(doomed)
        return True

    def stored_params(self) -> dict[str, Any] | None:
        return self._params

    def store_params(self, params: Mapping[str, Any]) -> None:
        self._params = dict(params)

    def put_evidence(self, key: str, evidence: bytes) -> None:
        self._evidence[key] = evidence

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        return [self._evidence.get(key) for key in keys]

    def __len__(self) -> int:
        return len(self._rows) - self._removed

    def flush(self) -> None:
        """Nothing to make durable."""

    def close(self) -> None:
        """Nothing to release."""


class SqliteBandStorage:
    """Rows and band hashes in SQLite tables named after the namespace (WAL, batched commits).

    Uncommitted rows are visible to this process's lookups; other processes see them once
    committed (every ``commit_every`` inserts, and on :meth:`flush` / :meth:`close`). Within one
    process every index on the file (the crawl's ``pages`` and ``items`` namespaces, say) shares
    one connection and its transaction, as :mod:`~scrapy_simhash.index.sqlite`'s indexes do, so
    they never wait for each other's write lock. A namespace holds one kind of index: one that
    holds SimHash fingerprints is refused (:class:`IndexParameterMismatch`).
    """

    def __init__(self, path: str | Path, namespace: str = "pages", *,
                 commit_every: int = DEFAULT_COMMIT_EVERY,
                 timeout: float = DEFAULT_TIMEOUT, algorithm: str = "a band index") -> None:
        if not namespace.replace("_", "").isalnum() or namespace[0].isdigit():
            raise ValueError(
                f"namespace must be letters, digits and underscores; got {namespace!r}"
            )
        self.location = f"sqlite:///{path} (namespace {namespace!r})"
        self._algorithm = algorithm  # (named when the file holds a SimHash index there)
        self.commit_every = max(1, int(commit_every))
        self._rows_table = f"lsh_{namespace}_rows"
        self._bands_table = f"lsh_{namespace}_bands"
        self._evidence_table = f"lsh_{namespace}_evidence"
        self._namespace = namespace
        self._path = str(path)
        # ``timeout``: how long to wait for another process's write lock (SQLite's busy timeout),
        # also while two crawls switch a new file to WAL at the same moment.
        self._shared = _acquire(self._path, float(timeout), DEFAULT_CACHE_SIZE_MB)
        self._db = self._shared.conn
        try:
            self._open_schema()
        except BaseException:
            _release(self._shared, self)
            raise
        self._shared.users.append(self)

    def _open_schema(self) -> None:
        """Create the tables, in a write transaction of their own (not inside another
        namespace's open one, whose rollback must not take these tables with it)."""
        self._shared.commit()
        db = self._db
        with access_errors(self._path):
            db.execute("BEGIN IMMEDIATE")
            try:
                self._refuse_simhash_namespace()
                db.execute(
                    "CREATE TABLE IF NOT EXISTS lsh_params "
                    "(namespace TEXT PRIMARY KEY, params TEXT)"
                )
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {self._rows_table} "
                    "(id INTEGER PRIMARY KEY, key TEXT NOT NULL, payload BLOB NOT NULL)"
                )
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {self._bands_table} "
                    "(band INTEGER NOT NULL, hash INTEGER NOT NULL, row INTEGER NOT NULL)"
                )
                db.execute(
                    f"CREATE INDEX IF NOT EXISTS {self._bands_table}_lookup "
                    f"ON {self._bands_table} (band, hash)"
                )
                db.execute(  # (a file from before evidence gets the table on its next open)
                    f"CREATE TABLE IF NOT EXISTS {self._evidence_table} "
                    "(key TEXT PRIMARY KEY, evidence BLOB NOT NULL)"
                )
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _refuse_simhash_namespace(self) -> None:
        """A SimHash index of the same namespace in the file: refused, never mixed with."""
        if stored_simhash_namespace(self._db, self._namespace):
            raise IndexParameterMismatch(self.location, {"algorithm": ("simhash", self._algorithm)})

    def insert(self, key: str, bands: Sequence[int], payload: bytes) -> None:
        """The row and its band hashes, all or nothing (a savepoint in the open transaction:
        a failure leaves no half-stored row, and the rows inserted before it still commit)."""
        shared = self._shared
        shared.begin()
        db = self._db
        with savepoint(db, "band_insert"):
            cursor = db.execute(
                f"INSERT INTO {self._rows_table} (key, payload) VALUES (?, ?)", (key, payload)
            )
            row = cursor.lastrowid
            db.executemany(
                f"INSERT INTO {self._bands_table} (band, hash, row) VALUES (?, ?, ?)",
                [(band, _signed(value), row) for band, value in enumerate(bands)],
            )
        shared.pending += 1
        if shared.pending >= self.commit_every:
            self.flush()

    def put_evidence(self, key: str, evidence: bytes) -> None:
        """In the open transaction, committed as the rows are."""
        self._shared.begin()
        self._db.execute(
            f"INSERT OR REPLACE INTO {self._evidence_table} (key, evidence) VALUES (?, ?)",
            (key, evidence),
        )

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        found: dict[str, bytes] = {}
        distinct = list(dict.fromkeys(keys))
        for start in range(0, len(distinct), 500):
            chunk = distinct[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            found.update(self._db.execute(
                f"SELECT key, evidence FROM {self._evidence_table} WHERE key IN ({marks})", chunk,
            ).fetchall())
        return [None if key not in found else bytes(found[key]) for key in keys]

    def candidates(self, bands: Sequence[int]) -> list[tuple[int, str, bytes]]:
        if not bands:
            return []
        clauses = " OR ".join("(b.band = ? AND b.hash = ?)" for _ in bands)
        values = [v for band, value in enumerate(bands) for v in (band, _signed(value))]
        rows = self._db.execute(
            f"SELECT DISTINCT r.id, r.key, r.payload FROM {self._bands_table} b "
            f"JOIN {self._rows_table} r ON r.id = b.row WHERE {clauses} ORDER BY r.id",
            values,
        ).fetchall()
        return [(row, key, bytes(payload)) for row, key, payload in rows]

    def remove(self, key: str, bands: Sequence[int], payload: bytes) -> bool:
        """Delete the rows and their band hashes in the open transaction (all or nothing)."""
        shared = self._shared
        shared.begin()  # the write lock first: the rows found are the rows deleted
        ids = [row for row, stored, data in self.candidates(bands)
               if stored == key and data == payload]
        if not ids:
            return False
        marks = ", ".join("?" for _ in ids)  # a handful: copies of one signature under one key
        with savepoint(self._db, "band_remove"):
            self._db.execute(f"DELETE FROM {self._bands_table} WHERE row IN ({marks})", ids)
            self._db.execute(f"DELETE FROM {self._rows_table} WHERE id IN ({marks})", ids)
        shared.pending += 1
        if shared.pending >= self.commit_every:
            self.flush()
        return True

    def stored_params(self) -> dict[str, Any] | None:
        return stored_band_params(self._db, self._namespace)

    def store_params(self, params: Mapping[str, Any]) -> None:
        """Store ``params`` unless a concurrent opener stored the namespace's first."""
        self._shared.begin()
        self._db.execute("INSERT OR IGNORE INTO lsh_params (namespace, params) VALUES (?, ?)",
                         (self._namespace, json.dumps(dict(params), sort_keys=True)))
        self._shared.commit()

    def __len__(self) -> int:
        return self._db.execute(f"SELECT COUNT(*) FROM {self._rows_table}").fetchone()[0]

    def flush(self) -> None:
        """Commit what this process inserted (every namespace of the file: one transaction)."""
        self._shared.commit()

    def rollback(self) -> None:
        """Discard the inserts not yet committed, of every namespace this process has open in
        the file (they share one transaction); what was committed stays."""
        self._shared.rollback()

    def _reload(self) -> None:
        """After a rollback of the shared transaction: nothing is cached here."""

    def close(self) -> None:
        try:
            self.flush()
        finally:
            _release(self._shared, self)


def _signed(value: int) -> int:
    """An unsigned 64-bit hash as SQLite's signed INTEGER."""
    return value - (1 << 64) if value >= _SIGN else value


def open_band_index(uri: str, scheme: BandScheme, *, namespace: str = "pages",
                    **options: Any) -> BandIndex:
    """A :class:`BandIndex` for ``scheme`` on ``memory://`` or ``sqlite:///path.db``."""
    try:
        parsed = parse_index_uri(uri)
    except IndexOptionError as error:
        if error.name != "uri":  # a caller's option in the query string
            raise
        parsed = None
    options = {**parsed.options, **options} if parsed else options
    if parsed and parsed.scheme == "memory":
        _refuse_unknown(options, (), uri)
        return BandIndex(scheme, MemoryBandStorage(namespace))
    if parsed and parsed.scheme == "sqlite":
        path = parsed.sqlite_path
        if not path:
            raise ValueError(f"sqlite URI needs a file path, e.g. sqlite:///dedup.db; got {uri!r}")
        _refuse_unknown(options, ("commit_every", "timeout"), uri)
        commit_every = int(options.pop("commit_every", DEFAULT_COMMIT_EVERY))
        timeout = float(options.pop("timeout", DEFAULT_TIMEOUT))
        storage = SqliteBandStorage(str(path), namespace, commit_every=commit_every,
                                    timeout=timeout, algorithm=scheme.name)
        return BandIndex(scheme, storage)
    raise ValueError(
        f"index URI {uri!r} is not supported for the {scheme.name} detector; "
        "use memory:// or sqlite:///path.db"
    )


def _refuse_unknown(options: dict[str, Any], known: tuple[str, ...], uri: str) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for the band index at {uri!r} "
            f"(MinHash, KSentence, exact); allowed: {allowed}"
        )
