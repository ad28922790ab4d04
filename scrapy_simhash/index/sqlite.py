"""SQLite backend: a persistent index, so a second crawl knows the first crawl's pages.

One table per namespace (``simhash_<namespace>``) with one row per fingerprint: ``id`` (the
insertion rank), ``key``, ``fp`` (and ``fp_hi`` for 128 bits; SQLite integers are signed 64-bit,
so each unsigned 64-bit word is stored as its two's-complement signed value): about 15 bytes
plus the key per fingerprint on disk. For reads through SQL (``cache=False``) each layout table
gets an *expression index* on its key, e.g. ``((fp >> 16) & 65535)``, built by the first such
opener (~45 more bytes per fingerprint, and index inserts at random pages).
``simhash_meta`` keeps each namespace's parameters (bits, k, layout, fingerprint settings),
checked on open: a difference raises :class:`IndexParameterMismatch` naming every differing
value. Beside each namespace's table, ``"simhash_<namespace>:evidence"`` holds the evidence per
key and ``"simhash_<namespace>:removed"`` logs the ids of removed rows (``seq``, ``id``); the
``:`` keeps their names apart from every namespace's table. An older file gets both on open.

Writes: WAL journal, ``synchronous=NORMAL``; writes (adds, removals, evidence) are grouped in one
transaction committed every ``commit_every`` writes or ``commit_interval`` seconds (checked on
each call), and by ``flush()``/``close()``. A crash loses only the uncommitted tail, never a
committed row. While a transaction is open this connection holds SQLite's write lock: other
writers wait (``timeout``). The file and its directory must be writable: a read-only one is
refused on open, naming it.

Reads: by default (``cache=True``) the fingerprints are mirrored in an in-process
:class:`~scrapy_simhash.index.memory.FingerprintTables`, so queries run at in-memory speed and
only matches touch the database (for their keys). Before each read the mirror asks SQLite's
``PRAGMA data_version`` whether another connection committed and, if so, loads the rows with
larger ids, then the removals logged since its last look; ids are never reused (a new one is
above every stored or logged id), so the mirror never goes stale (deleting rows other than
through :meth:`SqliteIndex.remove` is not supported). The mirror costs ~48 B (k = 3) to ~85 B
(f = 128, k = 16) per fingerprint of RAM and is loaded on open (~2.5 s per million rows) by one
scan of the rows in id order, which is all the default mode needs from the file. With
``cache=False`` each query is one SQL statement over the expression indexes and nothing is held
in memory: fine for small files, slow at millions of rows (random B-tree reads per candidate).
For layouts with a probe radius (multi-index hashing, the default for k >= 6) that statement has
one ``key IN (...)`` list per table holding every probed key (1,226 for f = 128, k = 16), each
served by the table's expression index: ~400 q/s at 1M, so keep ``cache=True`` for large k.

Within one process, every index on the same file (e.g. the ``pages`` and ``items`` namespaces)
shares one connection and its transaction, so they never wait for each other's write lock. Keep
an index on the thread that opened it. A writer holds the lock until its transaction commits
(on the next call after ``commit_interval``), so several processes writing one file should use a
small ``commit_interval``; Redis suits many concurrent writers better.

Looking into a stored file (:meth:`SqliteIndex.open_stored`, :meth:`SqliteIndex.stored_namespaces`)
opens it read-only with the parameters it was built with and never creates a file or a table:
the file may be on a read-only filesystem. Errors name the file and tell apart what SQLite
says: not a database, a damaged file, read-only or no permission, locked by another process.

Options: ``commit_every`` (1000), ``commit_interval`` seconds (1.0), ``cache`` (True),
``timeout`` seconds to wait for another process's write lock (30), ``cache_size_mb`` of SQLite's
page cache (64: index inserts touch random pages), ``buffer_size`` of the mirror (2048).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from .base import (
    IndexNotFound,
    IndexParameterMismatch,
    Match,
    NamespaceNotFound,
    NearDuplicateIndex,
    NearDuplicateIndexError,
)
from .layout import Layout, TablesOption
from .memory import MASK64, FingerprintTables, _Growable, split_words
from .uri import LAYOUT_OPTIONS, IndexUri, parse_index_uri

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
META_TABLE = "simhash_meta"
_SIGN_BIT = 1 << 63
_LOAD_CHUNK = 1 << 16
_IN_CHUNK = 500
_MAX_SQL_PROBES = 30_000  # host parameters per statement (SQLite >= 3.32 allows 32,766)


def to_signed(word: int) -> int:
    """Unsigned 64-bit -> SQLite's signed INTEGER."""
    return word - (1 << 64) if word & _SIGN_BIT else word


def to_unsigned(value: int) -> int:
    """SQLite's signed INTEGER -> unsigned 64-bit."""
    return value & MASK64


def key_expression(layout: Layout, table: int) -> str:
    """The SQL expression of one table's key over the ``fp``/``fp_hi`` columns."""
    terms, offset = [], 0
    for seg in layout.tables[table]:
        column = "fp" if seg.word == 0 else "fp_hi"
        mask = to_signed((1 << seg.width) - 1)
        part = f"({column} >> {seg.shift})" if seg.shift else column
        part = f"({part} & {mask})"
        if offset:
            part = f"({part} << {offset})"
        terms.append(part)
        offset += seg.width
    return " | ".join(terms) if len(terms) > 1 else terms[0]


class _SharedConnection:
    """One SQLite connection per database file and process, shared by its namespaces.

    Two namespaces of one file (pages and items) in one crawl must not wait for each other's
    write lock, so they share the connection and its open transaction.
    """

    def __init__(
        self, path: str, timeout: float, cache_size_mb: float, *, readonly: bool = False
    ) -> None:
        self.path = path
        self.readonly = readonly
        with access_errors(path):
            if readonly:
                self.side_files = _side_files(path)
                self.conn = connect_readonly(path, timeout)
            else:
                self.conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
            try:
                if not readonly:
                    _switch_to_wal(self.conn, timeout)
                    self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute(f"PRAGMA cache_size={-int(cache_size_mb * 1024)}")
            except BaseException:
                self.conn.close()
                raise
        self.users: list[Any] = []  # SqliteIndex and lsh.SqliteBandStorage: ``_reload()``
        self.in_transaction = False
        self.started = 0.0
        self.pending = 0
        self.cache_touched = False  # a user's cache may hold rows of the open transaction
        self.local_writes: dict[str, int] = {}  # per table: writes through this connection

    def begin(self) -> None:
        if self.readonly:
            raise NearDuplicateIndexError(f"SQLite index {self.path!r} is open read-only")
        if not self.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
            self.in_transaction = True
            self.started = time.monotonic()
            self.pending = 0
            self.cache_touched = False

    def commit(self) -> None:
        if self.in_transaction:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as error:
                self.statement_failed(error)  # still open (retried at the next commit), or gone
                raise
            self.in_transaction = False
            self.pending = 0
            self.cache_touched = False

    def statement_failed(self, error: sqlite3.Error) -> None:
        """After a statement of the open transaction failed. Mostly SQLite undid that statement
        alone and the transaction goes on: the rows written before it still commit, nothing is
        forgotten. After some errors (a full disk, an I/O error) SQLite rolls the whole
        transaction back itself: then every namespace forgets its rows, as after :meth:`rollback`.
        """
        if self.in_transaction and not self.conn.in_transaction:
            if self.pending:
                logger.warning(
                    "SQLite index %r: SQLite rolled back the open transaction itself (%s); the "
                    "%d writes since the last commit (fingerprints stored or removed, evidence) "
                    "are forgotten",
                    self.path, error, self.pending,
                )
            self.rollback()

    def rollback(self) -> None:
        """Roll back, then let every namespace forget the rows it wrote in the transaction.

        The caches are rebuilt (a scan of every row) only if the transaction wrote something:
        a failed first insert leaves nothing to forget.
        """
        wrote = self.pending > 0 or self.cache_touched
        if self.in_transaction:
            if self.conn.in_transaction:  # SQLite may have rolled back already (e.g. readonly)
                self.conn.execute("ROLLBACK")
            self.in_transaction = False
        self.pending = 0
        self.cache_touched = False
        if wrote:
            for user in self.users:
                user._reload()


_CONNECTIONS: dict[str, _SharedConnection] = {}


def connect_readonly(path: str, timeout: float = 5.0) -> sqlite3.Connection:
    """A read-only connection to an existing file, creating nothing (no file, no -wal).

    The path goes into a ``file:`` URI through :meth:`~pathlib.Path.as_uri`, which escapes every
    character a file name may hold (``#``, ``?``, ``%``, spaces). A file in WAL mode whose
    directory cannot be written (SQLite cannot make its ``-shm`` file there) is read as
    immutable: nothing can be writing it through that directory.
    """
    uri = Path(path).resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as error:
        conn.close()
        if _error_kind(error) not in ("cantopen", "readonly"):
            raise
    conn = sqlite3.connect(
        f"{uri}?mode=ro&immutable=1", uri=True, timeout=timeout, isolation_level=None
    )
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def _side_files(path: str) -> set[str]:
    """Which of the file's WAL companions exist now."""
    return {suffix for suffix in ("-wal", "-shm") if os.path.exists(path + suffix)}


def close_readonly(conn: sqlite3.Connection, path: str, side_files: set[str]) -> None:
    """Close a :func:`connect_readonly` connection, leaving the folder as it was found.

    A read-only connection to a WAL file makes its ``-wal`` and ``-shm`` files but cannot remove
    them; when this look made them, a writable connection opened and closed at once lets SQLite
    remove them as it does when the last connection closes (never while another one is open).
    """
    conn.close()
    if not _side_files(path) - side_files:
        return
    try:
        tidy = sqlite3.connect(
            f"{Path(path).resolve().as_uri()}?mode=rw", uri=True, timeout=0.1,
            isolation_level=None,
        )
        try:
            tidy.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            tidy.close()
    except sqlite3.Error:  # a read-only folder or file, or a writer busy: they stay
        pass


def _error_kind(error: sqlite3.Error) -> str:
    """What went wrong, from SQLite's error code (Python >= 3.11) or else its message."""
    code = getattr(error, "sqlite_errorname", "") or ""
    text = str(error).lower()
    if code == "SQLITE_NOTADB" or "not a database" in text:
        return "notadb"
    if code.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return "corrupt"
    if code.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "readonly"
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "locked"
    if code.startswith(("SQLITE_PERM", "SQLITE_AUTH")) or "permission" in text:
        return "permission"
    if code.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return "cantopen"
    if code.startswith("SQLITE_FULL") or "disk is full" in text:
        return "full"
    return "other"


def describe_error(path: str | Path, error: sqlite3.Error) -> str:
    """One line naming the file and what SQLite's ``error`` means for it."""
    path = str(path)
    kind = _error_kind(error)
    if kind == "notadb":
        return f"{path}: not an SQLite database ({error})"
    if kind == "corrupt":
        return f"{path}: the SQLite file is damaged ({error}); restore it or start a new one"
    if kind == "readonly":
        return (
            f"SQLite index {path!r} needs write access to the file and to its directory "
            f"(SQLite keeps {os.path.basename(path)}-wal and -shm beside it), but it is "
            f"read-only here ({error})"
        )
    if kind == "locked":
        return (
            f"{path}: locked by another process ({error}); try again once it has finished, or "
            "give a longer timeout"
        )
    if kind == "permission":
        return f"{path}: permission denied ({error})"
    if kind == "cantopen":
        return (
            f"cannot open SQLite index {path!r}: its directory must exist and be writable, and "
            f"the file, if it exists, readable and writable ({error})"
        )
    if kind == "full":
        return f"{path}: the disk is full ({error})"
    return f"{path}: SQLite error ({error})"


class SqliteAccessError(NearDuplicateIndexError):
    """SQLite could not open, read or write the file (:func:`describe_error` says why)."""


@contextmanager
def access_errors(path: str) -> Iterator[None]:
    """Turn SQLite's errors about a file it cannot open, read or write into ones naming
    ``path`` and telling the causes apart."""
    try:
        yield
    except sqlite3.Error as error:
        if _error_kind(error) == "other":
            raise
        raise SqliteAccessError(describe_error(path, error)) from error


@contextmanager
def savepoint(conn: sqlite3.Connection, name: str) -> Iterator[None]:
    """The block's writes all or none, inside the open transaction: rows written before it
    stay, whatever the block raises (unless SQLite rolled the whole transaction back itself)."""
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
        raise
    conn.execute(f"RELEASE {name}")


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone() is not None


def stored_simhash_namespace(conn: sqlite3.Connection, namespace: str) -> bool:
    """Whether the file holds a SimHash index (:class:`SqliteIndex`) of ``namespace``."""
    return _has_table(conn, META_TABLE) and conn.execute(
        f"SELECT 1 FROM {META_TABLE} WHERE namespace = ? LIMIT 1", (namespace,)
    ).fetchone() is not None


def stored_band_params(conn: sqlite3.Connection, namespace: str) -> dict | None:
    """The parameters of the band index (:mod:`~scrapy_simhash.index.lsh`: MinHash, KSentence,
    exact) the file holds under ``namespace``, or None when it holds none."""
    if not _has_table(conn, "lsh_params"):
        return None
    found = conn.execute(
        "SELECT params FROM lsh_params WHERE namespace = ?", (namespace,)
    ).fetchone()
    return json.loads(found[0]) if found else None


def _stored_file(uri: IndexUri) -> str:
    """The file of a stored index's URI; IndexNotFound if there is none to look into."""
    path = uri.sqlite_path
    if path is None:
        raise IndexNotFound("sqlite:// is an empty in-memory database; name a file")
    if not path.is_file():
        raise IndexNotFound(f"{path}: no such index file")
    return str(path)


def read_parameters(path: str, namespace: str, timeout: float = 5.0) -> dict[str, str]:
    """The parameters the file stores for ``namespace`` (as :meth:`SqliteIndex._parameter_record`
    wrote them), read-only; NamespaceNotFound naming the namespaces there are."""
    found = _read_meta(path, namespace, timeout=timeout)
    if namespace not in found:
        raise NamespaceNotFound(path, namespace, _read_meta(path, None, timeout=timeout))
    return found[namespace]


def _read_meta(
    path: str, namespace: str | None, conn: sqlite3.Connection | None = None, *,
    timeout: float = 5.0,
) -> dict[str, Any]:
    """``{namespace: {name: value}}`` for ``namespace`` (or ``{namespace: None}`` for every
    one, when None), through ``conn`` or a read-only connection of its own. IndexNotFound for
    a database that holds no SimHash index, a SqliteAccessError naming the file for the rest."""
    own = conn is None
    side_files = _side_files(path)
    with access_errors(path):
        conn = conn or connect_readonly(path, timeout)
        try:
            if not _has_table(conn, META_TABLE):
                band = _has_table(conn, "lsh_params")
                raise IndexNotFound(
                    f"{path}: not a scrapy-simhash SimHash index ("
                    + ("it holds a band index: MinHash, KSentence or exact)" if band
                       else f"no {META_TABLE} table)")
                )
            if namespace is None:
                rows = conn.execute(f"SELECT DISTINCT namespace FROM {META_TABLE}").fetchall()
                return {row[0]: None for row in rows}
            rows = conn.execute(
                f"SELECT name, value FROM {META_TABLE} WHERE namespace = ?", (namespace,)
            ).fetchall()
            return {namespace: dict(rows)} if rows else {}
        finally:
            if own:
                close_readonly(conn, path, side_files)


def _switch_to_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """``PRAGMA journal_mode=WAL``, retried while another process holds the lock.

    Two crawls opening a new database at the same moment both switch it to WAL; the switch needs
    an exclusive lock and SQLite may answer "database is locked" at once instead of waiting
    (its busy handler is skipped where waiting could deadlock), so wait here, up to ``timeout``.
    """
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def _acquire(
    path: str, timeout: float, cache_size_mb: float, readonly: bool = False
) -> _SharedConnection:
    if readonly:  # a look into the file: never shares a writer's transaction
        return _SharedConnection(path, timeout, cache_size_mb, readonly=True)
    if path == ":memory:" or path.startswith("file:"):
        return _SharedConnection(path, timeout, cache_size_mb)  # never shared
    resolved = os.path.realpath(path)
    shared = _CONNECTIONS.get(resolved)
    if shared is None:
        shared = _CONNECTIONS[resolved] = _SharedConnection(path, timeout, cache_size_mb)
    return shared


def _release(shared: _SharedConnection, user: SqliteIndex) -> None:
    if user in shared.users:
        shared.users.remove(user)
    if not shared.users:
        shared.commit()
        if shared.readonly:
            close_readonly(shared.conn, shared.path, shared.side_files)
        else:
            shared.conn.close()
        resolved = os.path.realpath(shared.path)
        if _CONNECTIONS.get(resolved) is shared:
            del _CONNECTIONS[resolved]


class SqliteIndex(NearDuplicateIndex):
    """A near-duplicate index in an SQLite file (``sqlite:///path.db``)."""

    max_probe_radius = None  # the cache probes at any radius; the SQL path uses IN lists
    supports_evidence = True

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        namespace: str = "pages",
        tables: TablesOption = None,
        params: Mapping[str, object] | None = None,
        commit_every: int = 1000,
        commit_interval: float = 1.0,
        cache: bool = True,
        timeout: float = 30.0,
        cache_size_mb: float = 64.0,
        buffer_size: int = 2048,
        readonly: bool = False,
    ) -> None:
        super().__init__(
            bits=bits, max_distance=max_distance, namespace=namespace, tables=tables, params=params
        )
        if namespace.lower() == META_TABLE.removeprefix("simhash_"):  # SQLite ignores case
            raise ValueError(
                f"namespace {namespace!r} is reserved by the SQLite index: its table would be "
                f"{META_TABLE}, which holds every namespace's parameters; use another name"
            )
        if int(commit_every) < 1:
            raise ValueError(f"commit_every must be >= 1, got {commit_every}")
        self.path = str(path)
        self.commit_every = int(commit_every)
        self.commit_interval = float(commit_interval)
        self.table = f"simhash_{namespace}"
        # quoted: a ":" no namespace has keeps them apart from every namespace's table
        self.evidence_table = f'"simhash_{namespace}:evidence"'
        self.removed_table = f'"simhash_{namespace}:removed"'
        self._columns = ("fp",) if self.layout.words == 1 else ("fp", "fp_hi")
        self.readonly = bool(readonly)
        self._shared = _acquire(self.path, float(timeout), float(cache_size_mb), self.readonly)
        self._conn = self._shared.conn
        try:
            self._open_schema(params)
        except BaseException:
            _release(self._shared, self)
            raise
        self._shared.users.append(self)
        self._prepare_statements()
        self.engine: FingerprintTables | None = None
        try:
            with access_errors(self.path):
                if cache:
                    self.engine = FingerprintTables(self.layout, buffer_size=int(buffer_size))
                elif not self.readonly:  # read-only: SQL reads go without the key indexes
                    self._create_key_indexes()
                self._seen_version = self._data_version()
                self._reload()
        except BaseException:
            _release(self._shared, self)
            raise

    @classmethod
    def from_uri(cls, uri: str, **kwargs: object) -> SqliteIndex:
        """``sqlite:///relative.db``, ``sqlite:////absolute.db`` or ``sqlite://`` (in memory);
        the path is percent-decoded (see :mod:`scrapy_simhash.index.uri`)."""
        path = parse_index_uri(uri).sqlite_path
        return cls(path or ":memory:", **kwargs)  # type: ignore[arg-type]

    @classmethod
    def open_stored(cls, uri: IndexUri, *, namespace: str = "pages", **options: Any) -> SqliteIndex:
        """The namespace stored in the file, opened read-only (unless ``readonly=False``) with
        the parameters it was built with; creates nothing."""
        path = _stored_file(uri)
        stored = read_parameters(path, namespace, float(options.get("timeout", 5.0)))
        layout = Layout.from_signature(json.loads(stored["layout_signature"]))
        for name in LAYOUT_OPTIONS:  # the stored ones hold
            options.pop(name, None)
        options.setdefault("readonly", True)
        return cls(
            path, bits=layout.bits, max_distance=layout.max_distance, tables=layout,
            namespace=namespace, params=None, **options,
        )

    @classmethod
    def stored_namespaces(cls, uri: IndexUri, **options: Any) -> list[str]:
        """The SimHash namespaces the file holds; creates nothing."""
        path = _stored_file(uri)
        return sorted(_read_meta(path, None, timeout=float(options.get("timeout", 5.0))))

    # -- schema and parameters -------------------------------------------------------------------

    def _open_schema(self, params: Mapping[str, object] | None) -> None:
        wanted = self._parameter_record(params, FORMAT_VERSION)
        conn = self._conn
        # Not inside another namespace's open transaction: a rollback there must not take this
        # namespace's new tables with it.
        self._shared.commit()
        with access_errors(self.path):
            if self.readonly:
                self._check_stored(conn, params, wanted)
            else:
                self._check_or_create(conn, params, wanted)

    def _check_stored(
        self, conn: sqlite3.Connection, params: Mapping[str, object] | None, wanted: dict[str, str]
    ) -> None:
        """Read-only: the namespace must be stored with the parameters asked for."""
        stored = _read_meta(self.path, self.namespace, conn).get(self.namespace)
        if not stored:
            raise NamespaceNotFound(self.path, self.namespace, _read_meta(self.path, None, conn))
        self._check_parameters(stored, wanted, check_user_params=params is not None)
        self.params = {
            name[len("param.") :]: json.loads(value)
            for name, value in stored.items()
            if name.startswith("param.")
        }

    def _check_or_create(
        self, conn: sqlite3.Connection, params: Mapping[str, object] | None, wanted: dict[str, str]
    ) -> None:
        """In one write transaction: check the stored parameters, or create the tables."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {META_TABLE} (namespace TEXT NOT NULL, "
                "name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, name)) "
                "WITHOUT ROWID"
            )
            # A write that changes nothing: SQLite opens a file it may not write read-only and
            # would otherwise fail only at the first insert, page after page.
            conn.execute(f"DELETE FROM {META_TABLE} WHERE 0")
            band_params = stored_band_params(conn, self.namespace)
            if band_params is not None:  # never mixed with another algorithm's rows
                raise IndexParameterMismatch(
                    f"SQLite index {self.path!r} (namespace {self.namespace!r})",
                    {"algorithm": (band_params.get("algorithm", "a band index"), "simhash")},
                )
            stored = dict(
                conn.execute(
                    f"SELECT name, value FROM {META_TABLE} WHERE namespace = ?", (self.namespace,)
                ).fetchall()
            )
            if not stored:
                self._refuse_other_case(conn)
            if stored:
                self._check_parameters(stored, wanted, check_user_params=params is not None)
                self.params = {
                    name[len("param.") :]: json.loads(value)
                    for name, value in stored.items()
                    if name.startswith("param.")
                }
            else:
                self._create_tables(wanted)
            self._create_side_tables()
        except BaseException:
            if conn.in_transaction:  # SQLite rolls back by itself after some errors
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _refuse_other_case(self, conn: sqlite3.Connection) -> None:
        """ValueError for a new namespace whose name differs from a stored one's only in case:
        SQLite's table names ignore case, so the two would share one table."""
        clash = conn.execute(
            f"SELECT namespace FROM {META_TABLE} WHERE lower(namespace) = lower(?) "
            "AND namespace != ? LIMIT 1",
            (self.namespace, self.namespace),
        ).fetchone()
        if clash is not None:
            raise ValueError(
                f"namespace {self.namespace!r} differs from the namespace {clash[0]!r} stored in "
                f"{self.path!r} only in case, and SQLite's table names ignore case; use "
                f"{clash[0]!r} or another name"
            )

    def _check_parameters(
        self, stored: dict[str, str], wanted: dict[str, str], *, check_user_params: bool
    ) -> None:
        self._check_parameter_record(
            f"SQLite index {self.path!r} (namespace {self.namespace!r})",
            stored,
            wanted,
            check_user_params=check_user_params,
        )

    def _create_tables(self, wanted: dict[str, str]) -> None:
        conn = self._conn
        columns = ", ".join(f"{column} INTEGER NOT NULL" for column in self._columns)
        conn.execute(
            f"CREATE TABLE {self.table} (id INTEGER PRIMARY KEY, key TEXT NOT NULL, {columns})"
        )
        conn.executemany(
            f"INSERT INTO {META_TABLE} (namespace, name, value) VALUES (?, ?, ?)",
            [(self.namespace, name, value) for name, value in wanted.items()],
        )

    def _create_side_tables(self) -> None:
        """The evidence and removal log tables (created here for files older than them)."""
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.evidence_table} "
            "(key TEXT PRIMARY KEY, evidence BLOB NOT NULL) WITHOUT ROWID"
        )
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.removed_table} "
            "(seq INTEGER PRIMARY KEY, id INTEGER NOT NULL)"
        )

    def _create_key_indexes(self) -> None:
        """One expression index per table key, for reads through SQL (``cache=False``).

        The default in-process cache reads only the rows, so a file that nobody reads through
        SQL carries no index: about 45 fewer bytes per fingerprint and append-only inserts.
        The first ``cache=False`` opener builds them (from the rows already stored).
        """
        conn = self._conn
        own_transaction = not self._shared.in_transaction
        if own_transaction:
            self._shared.begin()
        try:
            for table in range(self.layout.table_count):
                conn.execute(
                    f"CREATE INDEX IF NOT EXISTS {self.table}_t{table} ON {self.table} "
                    f"({key_expression(self.layout, table)})"
                )
        except BaseException:
            if own_transaction:
                self._shared.rollback()
            raise
        if own_transaction:
            self._shared.commit()

    def _prepare_statements(self) -> None:
        columns = ", ".join(self._columns)
        marks = ", ".join("?" for _ in self._columns)
        self._insert_sql = f"INSERT INTO {self.table} (id, key, {columns}) VALUES (?, ?, {marks})"
        self._candidates_sql = []
        if self.layout.exact:
            where = " OR ".join(
                f"{key_expression(self.layout, t)} = ?" for t in range(self.layout.table_count)
            )
            self._candidates_sql.append(
                (f"SELECT id, {columns} FROM {self.table} WHERE {where}", None)
            )
            return
        # one statement over every table's IN list when the parameters fit, else one per table
        groups: list[list[int]] = [[]]
        used = 0
        for table, count in enumerate(self.layout.probe_counts):
            if groups[-1] and used + count > _MAX_SQL_PROBES:
                groups.append([])
                used = 0
            groups[-1].append(table)
            used += count
        for group in groups:
            where = " OR ".join(
                f"{key_expression(self.layout, t)} IN "
                f"({', '.join('?' for _ in range(self.layout.probe_counts[t]))})"
                for t in group
            )
            self._candidates_sql.append(
                (f"SELECT id, {columns} FROM {self.table} WHERE {where}", group)
            )

    # -- transactions ----------------------------------------------------------------------------

    def _begin(self) -> None:
        self._shared.begin()
        self._sync()  # we hold the write lock: load what others committed before our rows

    def _maybe_commit(self) -> None:
        shared = self._shared
        if shared.in_transaction and (
            shared.pending >= self.commit_every
            or time.monotonic() - shared.started >= self.commit_interval
        ):
            shared.commit()

    def flush(self) -> None:
        """Commit pending writes (durable once this returns)."""
        self._shared.commit()

    def rollback(self) -> None:
        """Discard the writes not yet committed, of every namespace this process has open in
        the file (they share one transaction); what was committed stays."""
        self._check_open()
        self._shared.rollback()

    def _close(self) -> None:
        _release(self._shared, self)

    # -- the cache ------------------------------------------------------------------------------

    def _data_version(self) -> tuple[int, int]:
        """Changes by other connections (SQLite's counter) and by this process's other users."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        return version, self._shared.local_writes.get(self.table, 0)

    def _sync(self) -> None:
        """Bring the count (and the cache) up to date with other connections' commits."""
        version = self._data_version()
        if version == self._seen_version:
            return
        self._seen_version = version
        self._load_new_rows()

    def _load_new_rows(self) -> None:
        """Rows with ids above ours, into the cache or just counted, then the removals logged
        since our last look (O(new rows + new removals)).

        Both are read in one snapshot: a logged id up to our previous ``_max_id`` is a row we
        hold, a larger one a row added and removed since, which the rows read never had.
        """
        own_snapshot = not self._conn.in_transaction  # else our write lock holds others off
        if own_snapshot:
            self._conn.execute("BEGIN")
        try:
            held = self._max_id
            self._load_rows()
            self._load_removals(held)
        finally:
            if own_snapshot and self._conn.in_transaction:
                self._conn.execute("COMMIT")  # a read transaction: nothing to write

    def _load_rows(self) -> None:
        if self.engine is None:
            count, top = self._conn.execute(
                f"SELECT count(*), max(id) FROM {self.table} WHERE id > ?", (self._max_id,)
            ).fetchone()
            if count:
                self._count += count
                self._max_id = top
            return
        columns = ", ".join(self._columns)
        cursor = self._conn.execute(
            f"SELECT id, {columns} FROM {self.table} WHERE id > ? ORDER BY id", (self._max_id,)
        )
        loaded = 0
        while rows := cursor.fetchmany(_LOAD_CHUNK):
            block = np.array(rows, dtype=np.int64)
            self._ids.extend(block[:, :1])
            self.engine.extend(block[:, 1:].view(np.uint64), bulk=True)
            self._max_id = int(block[-1, 0])
            loaded += block.shape[0]
        self.engine.after_bulk_load(loaded)
        self._count = self.engine.live

    def _load_removals(self, held: int) -> None:
        """Apply the removals logged after ``_removed_seq`` to the rows with ids <= ``held``."""
        logged = self._conn.execute(
            f"SELECT seq, id FROM {self.removed_table} WHERE seq > ? ORDER BY seq",
            (self._removed_seq,),
        ).fetchall()
        if not logged:
            return
        self._removed_seq = logged[-1][0]
        ids = [row_id for _, row_id in logged]
        self._max_id = max(self._max_id, *ids)  # never hand out a removed row's id again
        self._forget([row_id for row_id in ids if row_id <= held])

    def _forget(self, ids: list[int]) -> None:
        """Leave the rows ``ids`` (all loaded, none forgotten yet) out of the cache and count."""
        if self.engine is not None:
            loaded = self._ids.data[: self._ids.size, 0]
            rows = loaded.searchsorted(ids)
            for row, row_id in zip(rows.tolist(), ids, strict=True):
                if row < loaded.size and loaded[row] == row_id:
                    self.engine.remove(row)
            self._count = self.engine.live
        else:
            self._count -= len(ids)

    # -- the protocol ---------------------------------------------------------------------------

    def __len__(self) -> int:
        if not self._closed:
            self._sync()
        return self._count

    def _row_values(self, row_id: int, key: str, fingerprint: int) -> tuple:
        words = [to_signed((fingerprint >> (64 * w)) & MASK64) for w in range(self.layout.words)]
        return (row_id, key, *words)

    def _storable_key(self, key: str) -> str:
        """The key, checked before any write: SQLite encodes it only when the row goes in,
        and a failure then would roll back every uncommitted row of this connection."""
        key = self._key(key)
        key.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a lone surrogate
        return key

    def add(self, key: str, fingerprint: int) -> None:
        self._check_open()
        key, value = self._storable_key(key), self._fingerprint(fingerprint)
        self._begin()
        self._insert(key, value)

    def _insert(self, key: str, value: int) -> None:
        """Store a checked key and fingerprint, in a transaction :meth:`_begin` opened."""
        row_id = self._max_id + 1  # _begin synced us under the write lock: the next free id
        try:
            self._conn.execute(self._insert_sql, self._row_values(row_id, key, value))
        except sqlite3.Error as error:
            self._shared.statement_failed(error)  # this row is not in; the others stay
            raise
        except BaseException:  # (interrupted) the row may be in but not in the cache
            self._shared.rollback()
            raise
        try:
            if self.engine is not None:
                self._shared.cache_touched = True
                self.engine.append(value)
                self._ids.extend(np.array([[row_id]], dtype=np.int64))
        except BaseException:
            self._shared.rollback()
            raise
        self._max_id = row_id
        self._count += 1
        self._shared.pending += 1
        self._after_write()

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        self._check_open()
        added = [0]
        try:
            self._add_chunks(iter(items), added)
        finally:  # the cache's rows, stored in bulk, are sealed even if a chunk failed
            if self.engine is not None:
                self.engine.after_bulk_load(added[0])

    def _add_chunks(self, iterator: Iterator[tuple[str, int]], added: list[int]) -> None:
        while True:
            room = max(1, self.commit_every - self._shared.pending)
            chunk = [
                (self._storable_key(k), self._fingerprint(fp)) for k, fp in islice(iterator, room)
            ]
            if not chunk:
                return
            self._begin()
            first = self._max_id + 1
            rows = [self._row_values(first + i, k, fp) for i, (k, fp) in enumerate(chunk)]
            self._insert_all_or_none(rows)
            try:
                if self.engine is not None:
                    self._shared.cache_touched = True
                    words = split_words([fp for _, fp in chunk], self.layout.words)
                    self.engine.extend(words, bulk=True)
                    added[0] += len(chunk)
                    ids = np.arange(first, first + len(chunk), dtype=np.int64).reshape(-1, 1)
                    self._ids.extend(ids)
            except BaseException:
                self._shared.rollback()
                raise
            self._max_id = first + len(chunk) - 1
            self._count += len(chunk)
            self._shared.pending += len(chunk)
            self._after_write()

    def _insert_all_or_none(self, rows: list[tuple]) -> None:
        """Insert ``rows`` in the open transaction; if one fails, none of them stays (a
        savepoint), and the rows written before them still commit."""
        try:
            with savepoint(self._conn, "add_many"):
                self._conn.executemany(self._insert_sql, rows)
        except sqlite3.Error as error:
            self._shared.statement_failed(error)
            raise

    def _after_write(self) -> None:
        """Tell the connection's other users, but not ourselves, that the tables changed."""
        writes = self._shared.local_writes
        writes[self.table] = writes.get(self.table, 0) + 1
        # _begin synced us and we hold the write lock, so nothing else changed meanwhile
        self._seen_version = (self._seen_version[0], writes[self.table])
        self._maybe_commit()

    def _reload(self) -> None:
        """Rebuild the cache and count from what is committed (after a rollback)."""
        if self.engine is not None:
            self.engine = FingerprintTables(self.layout, buffer_size=self.engine.buffer_size)
            self._ids = _Growable(1, np.int64)
        self._max_id = 0
        self._removed_seq = 0
        self._count = 0
        self._load_new_rows()

    def _before_read(self) -> None:
        self._check_open()
        self._maybe_commit()
        self._sync()

    def check_and_add(self, key: str, fingerprint: int) -> Match | None:
        """Atomic across processes sharing the file: the search runs under the write lock, so
        no other process stores a near-duplicate between this search and this insert."""
        self._check_open()
        key = self._storable_key(key)
        value = self._fingerprint(fingerprint)
        self._maybe_commit()
        self._begin()  # the write lock, and what others committed before it
        matches = self._search(value, self._radius(None))
        if not matches:
            self._insert(key, value)
            return None
        if self._shared.pending == 0:  # nothing of ours to commit: free the lock at once
            self._shared.commit()
        return matches[0]

    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        value = self._fingerprint(fingerprint)
        radius = self._radius(max_distance)
        self._before_read()
        return self._search(value, radius)

    def _search(self, value: int, radius: int) -> list[Match]:
        if self.engine is None:
            return self._query_sql(value, radius)
        ids = self._ids.data
        hits = [
            (int(ids[row, 0]), self.engine.fingerprint(row), dist)
            for dist, row in self.engine.search(value, radius)
        ]
        return self._matches(hits)

    def query_many(
        self, fingerprints: Sequence[int], max_distance: int | None = None
    ) -> list[list[Match]]:
        values = [self._fingerprint(fp) for fp in fingerprints]
        radius = self._radius(max_distance)
        self._before_read()
        if self.engine is None:
            return [self._query_sql(value, radius) for value in values]
        found = self.engine.search_many(split_words(values, self.layout.words), radius)
        ids = self._ids.data
        wanted = {int(ids[row, 0]) for hits in found for _, row in hits}
        keys = self._keys(wanted)
        return [
            [
                Match(keys[int(ids[row, 0])], self.engine.fingerprint(row), dist)
                for dist, row in hits
            ]
            for hits in found
        ]

    def _query_sql(self, value: int, radius: int) -> list[Match]:
        return self._matches(self._sql_hits(value, radius))

    def _sql_hits(self, value: int, radius: int) -> list[tuple[int, int, int]]:
        """(id, fingerprint, distance) of the rows within ``radius``, through SQL."""
        if self.layout.exact:
            probes = [[to_signed(key) for key in self.layout.keys(value)]]
        else:
            per_table = self.layout.probes(value)
            probes = [
                [to_signed(key) for t in group for key in per_table[t]]
                for _, group in self._candidates_sql
            ]
        hits: dict[int, tuple[int, int, int]] = {}
        for (sql, _), parameters in zip(self._candidates_sql, probes, strict=True):
            for row_id, *words in self._conn.execute(sql, parameters):
                stored = sum(to_unsigned(word) << (64 * w) for w, word in enumerate(words))
                distance = (stored ^ value).bit_count()
                if distance <= radius:
                    hits[row_id] = (row_id, stored, distance)
        return list(hits.values())

    def remove(self, key: str, fingerprint: int) -> bool:
        """Remove the pair and the key's evidence in the open transaction (committed as adds
        are), logging the removed ids for the caches of other connections."""
        self._check_open()
        key, value = self._storable_key(key), self._fingerprint(fingerprint)
        self._begin()  # the write lock: nobody adds or removes between the search and the delete
        ids = self._ids_of(key, value)
        conn = self._conn
        try:
            with savepoint(conn, "remove"):
                conn.execute(f"DELETE FROM {self.evidence_table} WHERE key = ?", (key,))
                if ids:  # a few: the copies of one pair
                    marks = ", ".join("?" for _ in ids)
                    conn.execute(f"DELETE FROM {self.table} WHERE id IN ({marks})", ids)
                    conn.executemany(
                        f"INSERT INTO {self.removed_table} (id) VALUES (?)", [(i,) for i in ids]
                    )
                    last = conn.execute(f"SELECT max(seq) FROM {self.removed_table}").fetchone()
        except sqlite3.Error as error:
            self._shared.statement_failed(error)
            raise
        try:
            if ids:
                self._shared.cache_touched = True
                self._removed_seq = last[0]  # _begin applied every entry logged before ours
                self._max_id = max(self._max_id, *ids)
                self._forget(ids)
        except BaseException:
            self._shared.rollback()
            raise
        self._shared.pending += 1
        self._after_write()
        return bool(ids)

    def _ids_of(self, key: str, value: int) -> list[int]:
        """The ids of the rows that hold exactly (``key``, ``value``), ascending."""
        if self.engine is None:
            candidates = {row_id for row_id, _, _ in self._sql_hits(value, 0)}
        else:
            ids = self._ids.data
            candidates = {int(ids[row, 0]) for _, row in self.engine.search(value, 0)}
        keys = self._keys(candidates)
        return sorted(row_id for row_id in candidates if keys.get(row_id) == key)

    def put_evidence(self, key: str, evidence: bytes) -> None:
        """Store the key's evidence in the open transaction (committed as adds are)."""
        self._check_open()
        key, data = self._storable_key(key), self._evidence(evidence)
        self._shared.begin()
        try:
            self._conn.execute(
                f"INSERT OR REPLACE INTO {self.evidence_table} (key, evidence) VALUES (?, ?)",
                (key, data),
            )
        except sqlite3.Error as error:
            self._shared.statement_failed(error)
            raise
        self._shared.pending += 1
        self._maybe_commit()

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        """One ``SELECT ... IN`` per 500 distinct keys; this process's uncommitted evidence
        included."""
        self._check_open()
        wanted = [self._storable_key(key) for key in self._evidence_keys(keys)]
        self._maybe_commit()
        distinct = list(dict.fromkeys(wanted))
        found: dict[str, bytes] = {}
        for start in range(0, len(distinct), _IN_CHUNK):
            chunk = distinct[start : start + _IN_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            found.update(
                self._conn.execute(
                    f"SELECT key, evidence FROM {self.evidence_table} WHERE key IN ({marks})",
                    chunk,
                ).fetchall()
            )
        return [found.get(key) for key in wanted]

    def _matches(self, hits: list[tuple[int, int, int]]) -> list[Match]:
        """(id, fingerprint, distance) -> Match list, nearest first then oldest first."""
        if not hits:
            return []
        keys = self._keys({row_id for row_id, _, _ in hits})
        hits.sort(key=lambda hit: (hit[2], hit[0]))
        return [Match(keys[row_id], stored, distance) for row_id, stored, distance in hits]

    def _keys(self, ids: set[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        ordered = sorted(ids)
        for start in range(0, len(ordered), _IN_CHUNK):
            chunk = ordered[start : start + _IN_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            out.update(
                self._conn.execute(
                    f"SELECT id, key FROM {self.table} WHERE id IN ({marks})", chunk
                ).fetchall()
            )
        return out

    def stored_words(self) -> np.ndarray | None:
        """The stored fingerprints (the cache's; None with ``cache=False``)."""
        if self.engine is None:
            return None
        self._before_read()
        return self.engine.stored_words()

    def file_bytes(self) -> int:
        """Bytes on disk: the database file plus its WAL (0 for an in-memory database)."""
        if self.path == ":memory:" or self.path.startswith("file:"):
            return 0
        return sum(
            Path(self.path + suffix).stat().st_size
            for suffix in ("", "-wal")
            if Path(self.path + suffix).exists()
        )
