"""Redis backend: one index shared by many crawl processes, with an atomic ``check_and_add``.

URIs follow redis-py: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` for TLS
(``?ssl_cert_reqs=none`` etc.), ``unix:///path/redis.sock?db=0``. The query string also carries
this backend's options: ``prefix`` (default ``simhash``; letters, digits and ``_.:-``),
``batch_size`` and redis-py connection options (``socket_timeout``, ``socket_connect_timeout``...).

Redis keeps a *log*: every stored fingerprint under its id (ids count from 1 and are never
reused), the page keys, and the ids removed. Each client mirrors the log in memory (the
fingerprints in :class:`~scrapy_simhash.index.memory.FingerprintTables`, ~85 B per fingerprint
at 128 bits, k = 16, loaded when the index opens) and searches its mirror: Redis only moves
bytes and decides, it measures no Hamming distance but the few of pages logged since the
caller's last call. Keys, all under one hash tag ``{<prefix>:<namespace>}`` so that every key of
an index lives in one Redis Cluster slot and one Lua script may touch them all:

- ``{p:ns}:meta``  hash: the index parameters (bits, k, layout, fingerprint settings, format),
  checked on open like the SQLite backend (:class:`IndexParameterMismatch`), and ``instance``, a
  token drawn when the parameters were written (a mirror of an earlier life of the index, before
  Redis came back empty, is told by it);
- ``{p:ns}:seq``   counter: the id of the last stored fingerprint (ties between equally near
  matches go to the smallest id, the oldest);
- ``{p:ns}:log:<c>`` strings: the fingerprints (``bits / 8`` bytes each, little-endian) of ids
  ``c * 2**20 + 1`` onwards, at fixed offsets;
- ``{p:ns}:keys``  hash: chunk number ((id - 1) // 128) -> the keys of those 128 ids, each as a
  2-byte length then its UTF-8 bytes (about 2 bytes of overhead per key, not ~45 per field);
- ``{p:ns}:removed`` counter and ``{p:ns}:gone`` string: how many ids were removed, and which
  (4 bytes each, in removal order) for the mirrors to apply (the size is ``seq`` minus
  ``removed``);
- ``{p:ns}:evidence`` hash: page key -> its evidence bytes (absent until some is stored).

Every operation is one run of one Lua script (:mod:`scrapy_simhash.index.redislog`, EVALSHA,
reloaded after NOSCRIPT) whose reply also carries what was logged since the caller's mirror last
read. ``check_and_add`` sends the nearest match its mirror found; the script returns it (unless
it was removed meanwhile), or a nearer or equally near older one among the pages logged since,
or logs the page when there is none: Redis runs a script alone, so two workers that see two
copies of a page at the same moment cannot both keep it. One round trip per page, and ~20 us of
Lua (~40 us of Redis CPU with its network work), whatever the index's size. ``query`` reads the
log's news, searches the mirror and fetches the keys of the matches (a second round trip, only
when there are matches).
``remove`` is one script too: it checks each id stored with the pair (the mirror's, and the ones
logged since) against the key, empties their key records (a record per id stays, so the chunk's
positions hold), logs them as removed and deletes the key's evidence.

The index written by scrapy-simhash before this log (``format`` 1 in ``meta``: buckets per
layout table) does not open: :class:`IndexFormatError` says what to do, e.g. upgrade it in place
(:mod:`scrapy_simhash.index.redisupgrade`).

Failures: an unreachable server at open raises :class:`IndexUnavailable` naming the URL (password
masked); a server that wants a password the URL lacks (or refuses the one it has) raises
:class:`IndexAuthenticationError`, which says where the password goes; a connection lost later
raises :class:`IndexUnavailable` from the call that hit it (the Scrapy layer applies
``SIMHASH_ON_INDEX_ERROR``). Writes are never retried blindly (a script that
ran but whose reply was lost would otherwise store a page twice); the next call reconnects by
itself. One exception, resolved rather than retried: when ``check_and_add``'s command was sent but
its reply was lost, the script may or may not have run, so the call at once (on a new connection,
ignoring ``retry_interval``) queries the fingerprint at distance 0: if this very key is stored
with it, the script stored it (``None``); otherwise the check runs once more (if the script ran
and found a match, it stored nothing and finds the same match again). If that fails too, the
error says the outcome is unknown. The one case this reads wrongly: the key was already stored
with that very fingerprint before the call (an earlier crawl of the same URL); the page is then
kept once more, and nothing is stored twice. ``add_many`` resolves a batch whose reply was lost
the same way: each pair is looked up at distance 0 and only the pairs not stored under their
key are added again (a script runs whole or not at all), so no pair is stored more often than
the call asked; a pair stored before the call, though, is not added again when the script never
ran. ``remove`` whose reply was lost simply runs once more: removing is idempotent (its answer
is then the second run's). If the server came back empty
(restarted without persistence), the parameters are written again under a new ``instance``,
every mirror starts over, and the call proceeds on the now empty index.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from . import redislog
from .base import (
    IndexAuthenticationError,
    IndexUnavailable,
    Match,
    NamespaceNotFound,
    NearDuplicateIndex,
    NearDuplicateIndexError,
    mask_password,
)
from .layout import Layout, TablesOption
from .memory import split_words
from .redislog import (
    ADDED,
    KEYS,
    MATCH,
    OPEN_SCRIPT,
    REMOVED,
    RESET,
    SCRIPT,
    STORED,
    Mirror,
    Reply,
)
from .uri import LAYOUT_OPTIONS, IndexUri, parse_index_uri

try:
    import redis
    from redis.backoff import NoBackoff
    from redis.exceptions import NoScriptError
    from redis.retry import Retry
except ModuleNotFoundError as error:  # pragma: no cover - depends on the installation
    raise ModuleNotFoundError(
        "the Redis index needs the 'redis' package: pip install 'redis>=5.3' (the package's "
        "'redis' extra)",
        name="redis",
    ) from error

logger = logging.getLogger(__name__)

FORMAT_VERSION = 2
DEFAULT_PREFIX = "simhash"
MAX_KEY_BYTES = 65535
_PREFIX_RE = re.compile(r"[A-Za-z0-9_.:\-]{1,100}")
_NOMETA = "SIMHASH_NOMETA"
_META_SUFFIX = "}:meta"
_INSTANCE = "instance"
#: Script runs per call at most: a call runs again only when the mirror fell behind meanwhile
#: (other writers logged more than the script measures, or removed the match it found).
_MAX_ROUNDS = 1000
_KEYS_PER_CALL = 10_000
_COMPACT_AFTER = 1 << 16


def meta_key(prefix: str, namespace: str) -> str:
    """The hash that holds a namespace's parameters; it exists once the namespace was opened."""
    return f"{{{prefix}:{namespace}{_META_SUFFIX}"


def connect(url: str, **options: Any) -> redis.Redis:
    """A redis-py client for ``url`` with this backend's connection defaults (5 s to connect,
    10 s per reply, no blind re-sends: see the module docstring); ``options`` win."""
    settings: dict[str, Any] = {
        "socket_connect_timeout": 5.0,
        "socket_timeout": 10.0,
        "retry": Retry(NoBackoff(), 0),
        **options,
    }
    try:
        return redis.Redis.from_url(url, **settings)
    except ValueError as error:
        raise ValueError(f"invalid Redis URL {mask_password(url)}: {error}") from None


def redis_error(location: str, url: str, error: Exception, doing: str) -> NearDuplicateIndexError:
    """The index error for redis-py's ``error`` while ``doing`` something to ``location``: a
    password wanted or refused, an unreachable server, or what the server answered."""
    if isinstance(error, redis.AuthenticationError) or "NOAUTH" in str(error):
        if _has_password(url):
            return IndexAuthenticationError(
                f"{doing} {location}: Redis refused the password or user name of the URL ({error})"
            )
        return IndexAuthenticationError(
            f"{doing} {location}: Redis needs a password: {_with_password(url)}"
        )
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError)):
        return IndexUnavailable(f"{doing} {location}: Redis unreachable ({error})")
    return NearDuplicateIndexError(f"{doing} {location}: {error}")


def _has_password(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.password) or "password=" in parts.query


def _with_password(url: str) -> str:
    """How ``url`` (which has none) is written with a password, for the message that asks."""
    parts = urlsplit(mask_password(url))
    if parts.scheme == "unix":
        query = f"{parts.query}&password=PASSWORD" if parts.query else "password=PASSWORD"
        return parts._replace(query=query).geturl()
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:PASSWORD@{host}").geturl()

class _ScriptCall:
    """A script and its keys, packed once: EVALSHA's leading arguments (see ``_evalsha``)."""

    def __init__(self, source: str, sha: str, keys: Sequence[str]) -> None:
        self.source = source
        self.sha = sha
        encoded = [key.encode() for key in keys]
        self.numkeys_and_keys = [len(encoded), *encoded]
        head = [b"EVALSHA", sha.encode(), str(len(encoded)).encode(), *encoded]
        self.head = b"".join(b"$%d\r\n%s\r\n" % (len(part), part) for part in head)
        self.head_count = len(head)


class _ReplyLost(redis.ConnectionError):
    """The command was sent but its reply was lost: it may or may not have run."""


def validate_prefix(prefix: object) -> str:
    """A key prefix: 1-100 of letters, digits and ``_.:-`` (no wildcards, braces or spaces)."""
    if not isinstance(prefix, str) or not _PREFIX_RE.fullmatch(prefix):
        raise ValueError(
            "the Redis key prefix must be 1-100 letters, digits or '_.:-' (no wildcards, braces "
            f"or whitespace), got {prefix!r}"
        )
    return prefix




class IndexFormatError(NearDuplicateIndexError):
    """The index was stored in a form this version does not read (see the message)."""


class RedisIndex(NearDuplicateIndex):
    """A near-duplicate index in Redis, shared by every process that opens the same URL + prefix.

    Each instance mirrors the stored fingerprints in memory (loaded when it opens, kept up to
    date by every call's reply) and searches them there; see the module docstring.

    ``url``: a redis-py URL without this backend's options; ``prefix``: the per-crawl key prefix;
    ``batch_size``: fingerprints per script call in :meth:`add_many`; ``retry_interval``: after a
    lost connection, calls fail at once (without touching the network, so a crawl is not held up
    by a timeout per page) for this many seconds, then the next call tries to reconnect;
    ``client``: an existing ``redis.Redis`` (its URL is then only for messages); ``mirror_buffer``:
    the insert buffer of the in-memory mirror (see
    :class:`~scrapy_simhash.index.memory.FingerprintTables`); other keyword arguments go to
    ``redis.Redis.from_url`` (e.g. ``socket_timeout``).
    """

    max_probe_radius = None  # the mirror probes tables at any radius (multi-index hashing)
    supports_evidence = True

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        namespace: str = "pages",
        tables: TablesOption = None,
        params: Mapping[str, object] | None = None,
        prefix: str = DEFAULT_PREFIX,
        batch_size: int = 500,
        retry_interval: float = 1.0,
        client: redis.Redis | None = None,
        create: bool = True,
        mirror_buffer: int = 2048,
        **connection_options: Any,
    ) -> None:
        super().__init__(
            bits=bits, max_distance=max_distance, namespace=namespace, tables=tables, params=params
        )
        self.prefix = validate_prefix(prefix)
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = int(batch_size)
        self.retry_interval = float(retry_interval)
        self._down_until = 0.0  # after a connection failure, fail fast until then
        self._create = create
        self._given_url = url  # for messages that need to know whether it holds a password
        self.url = mask_password(url)
        self.location = f"Redis index {self.url} (prefix {self.prefix!r}, namespace {namespace!r})"
        self.tag = f"{{{self.prefix}:{namespace}}}"
        self.meta_key = meta_key(self.prefix, namespace)
        self.seq_key = f"{self.tag}:seq"
        self.keys_key = f"{self.tag}:keys"
        self.log_key = f"{self.tag}:log"  # the log strings are log_key + ":<chunk>"
        self.removed_key = f"{self.tag}:removed"
        self.gone_key = f"{self.tag}:gone"
        self.evidence_key = f"{self.tag}:evidence"
        self.script_keys = [
            self.meta_key, self.seq_key, self.keys_key, self.log_key, self.removed_key,
            self.gone_key, self.evidence_key,
        ]
        self._fp_bytes = self.bits // 8
        self._mirror = Mirror(self.layout, int(mirror_buffer))
        self._lock = threading.RLock()  # the mirror and its reads of the log go together
        self._bulk = 0  # rows bulk-loaded into the mirror since its runs were last merged
        self._owns_client = client is None
        self._held: Any = None  # the connection scripts run on (see _evalsha)
        self._held_pid = 0
        if client is None:
            client = connect(url, **connection_options)
        self._client = client
        self._main = _ScriptCall(SCRIPT, client.register_script(SCRIPT).sha, self.script_keys)
        self._direct = type(client) is redis.Redis and client.get_connection_kwargs().get(
            "protocol") not in (3, "3")
        self._open_script = client.register_script(OPEN_SCRIPT)
        try:
            client.ping()
            self._open_parameters(params)
            with self._lock:
                self._catch_up("open")
                self._compact(self._mirror.synced)
        except redis.RedisError as error:
            self._release()
            raise self._unavailable(error, "cannot open") from error
        except BaseException:
            self._release()
            raise

    @classmethod
    def from_uri(cls, uri: str, **kwargs: Any) -> RedisIndex:
        """Build from ``redis://``, ``rediss://`` or ``unix://`` URIs (see the module docstring).

        ``open_index`` passes this backend's options from the query string (``prefix``,
        ``batch_size``, ``retry_interval``) as keyword arguments; the URL given to redis-py keeps
        the rest, which redis-py parses itself (``password``, ``socket_timeout`` ...).
        """
        return cls(str(parse_index_uri(uri).target), **kwargs)

    @classmethod
    def open_stored(cls, uri: IndexUri, *, namespace: str = "pages", **options: Any) -> RedisIndex:
        """The namespace stored under the URI's prefix, opened with the parameters it was built
        with; creates no key (:class:`NamespaceNotFound` naming the namespaces there are)."""
        prefix = validate_prefix(options.get("prefix", DEFAULT_PREFIX))
        for name in LAYOUT_OPTIONS:  # the stored ones hold
            options.pop(name, None)
        url = str(uri.target)
        stored = _look(uri, lambda client: client.hgetall(meta_key(prefix, namespace)))
        if not stored:
            raise NamespaceNotFound(
                uri.masked, namespace, cls.stored_namespaces(uri, **options),
                f" under prefix {prefix!r}",
            )
        signature = json.loads(stored[b"layout_signature"].decode())
        layout = Layout.from_signature(signature)
        return cls(
            url, bits=layout.bits, max_distance=layout.max_distance, tables=layout,
            namespace=namespace, params=None, create=False, **options,
        )

    @classmethod
    def stored_namespaces(cls, uri: IndexUri, **options: Any) -> list[str]:
        """The namespaces stored under the URI's prefix (one ``SCAN`` over their parameter
        hashes); creates nothing."""
        prefix = validate_prefix(options.get("prefix", DEFAULT_PREFIX))
        head = len(prefix) + 2  # "{" + prefix + ":"

        def scan(client: redis.Redis) -> list[str]:
            found = client.scan_iter(match=meta_key(prefix, "*"), count=1000)
            return sorted({key.decode("utf-8", "replace")[head : -len(_META_SUFFIX)]
                           for key in found})

        return _look(uri, scan)

    # -- parameters --------------------------------------------------------------------------

    def _open_parameters(self, params: Mapping[str, object] | None) -> None:
        wanted = self._parameter_record(params, FORMAT_VERSION)
        self._wanted = wanted
        if self._create:
            flat = [part for pair in self._with_instance(wanted).items() for part in pair]
            reply = self._open_script(keys=[self.meta_key], args=flat)
        else:  # a stored namespace only: never write its parameters
            reply = [part for pair in self._client.hgetall(self.meta_key).items() for part in pair]
            if not reply:
                raise NamespaceNotFound(self.location, self.namespace, [])
        stored = {
            reply[i].decode(): reply[i + 1].decode() for i in range(0, len(reply), 2)
        }
        if not stored:
            return
        stored.pop(_INSTANCE, None)
        self._check_format(stored.get("format"))
        self._check_parameter_record(
            self.location, stored, wanted, check_user_params=params is not None
        )
        self.params = {
            name[len("param."):]: json.loads(value)
            for name, value in stored.items()
            if name.startswith("param.")
        }
        self._wanted = stored

    def _check_format(self, stored: str | None) -> None:
        """An index in another stored form is refused, saying what to do instead."""
        if stored == json.dumps(FORMAT_VERSION):
            return
        raise IndexFormatError(
            f"{self.location} is stored in Redis format {stored} (written by an earlier "
            f"scrapy-simhash, which kept buckets per layout table); this version reads format "
            f"{FORMAT_VERSION}, a log of fingerprints. While no crawl writes to it, upgrade it "
            f"in place: python -m scrapy_simhash.index.redisupgrade URI {self.namespace}; or "
            f"start a new index under another prefix, or delete its keys (all named "
            f"{self.tag}:*) to start this one again, empty"
        )

    @staticmethod
    def _with_instance(record: Mapping[str, str]) -> dict[str, str]:
        """``record`` with a new ``instance`` token (see the module docstring)."""
        return {**record, _INSTANCE: secrets.token_hex(redislog.INSTANCE_BYTES // 2)}

    # -- calls -------------------------------------------------------------------------------

    def _unavailable(self, error: Exception, doing: str) -> NearDuplicateIndexError:
        found = redis_error(self.location, self._given_url, error, doing)
        if isinstance(found, IndexUnavailable):
            self._down_until = time.monotonic() + self.retry_interval
            self._last_error = str(found)
        return found

    def _check_reachable(self) -> None:
        """Fail fast while a recent connection failure is fresh (see ``retry_interval``)."""
        self._check_open()
        if self._down_until and time.monotonic() < self._down_until:
            raise IndexUnavailable(f"{self._last_error}; next try in at most "
                                   f"{self.retry_interval:g}s")

    def _run(
        self, args: list, doing: str, *, raise_lost_reply: bool = False,
        call: _ScriptCall | None = None,
    ) -> Any:
        """Run the script (``call``, by default the main one) once; re-create lost parameters (a
        server restarted empty) once.

        ``raise_lost_reply``: raise :class:`_ReplyLost` as it is (the caller resolves the unknown
        outcome) instead of an index error."""
        self._check_reachable()
        call = call or self._main
        for attempt in (1, 2):
            try:
                try:
                    return self._evalsha(args, call)
                except NoScriptError:  # a restarted server forgot it: load, then run it
                    self._client.script_load(call.source)
                    return self._evalsha(args, call)
            except _ReplyLost as error:
                if raise_lost_reply:
                    raise
                raise self._unavailable(error, doing) from error
            except redis.ResponseError as error:
                if attempt == 1 and str(error).startswith(_NOMETA):
                    self._restore_parameters(doing)
                    continue
                raise self._unavailable(error, doing) from error
            except redis.RedisError as error:
                raise self._unavailable(error, doing) from error
        raise AssertionError("unreachable")  # pragma: no cover

    def _evalsha(self, args: list, call: _ScriptCall) -> Any:
        """EVALSHA of the script. With a plain ``redis.Redis`` client the command is packed here
        and sent on a connection this index holds (the calls are serialised by its lock):
        redis-py's generic path and its pool cost more client CPU than the script costs Redis,
        and a crawler calls this once per page.

        A connection failure after the command was sent raises :class:`_ReplyLost` (the script
        may have run); one before (connecting, sending) raises redis-py's error (it did not)."""
        if not self._direct:
            # redis-py's generic path does not say whether a failure came before or after the
            # command was sent: its connection errors stay plain ones (an index error, no
            # resolution in check_and_add).
            return self._client.evalsha(call.sha, *call.numkeys_and_keys, *args)
        packed = [b"*%d\r\n" % (len(args) + call.head_count), call.head]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            packed.append(b"$%d\r\n%s\r\n" % (len(data), data))
        if self._held is None or self._held_pid != os.getpid():
            # (a forked child never writes on its parent's socket: the pool gives it its own)
            self._held = self._client.connection_pool.get_connection()
            self._held_pid = os.getpid()
        connection = self._held
        sent = False
        try:
            connection.send_packed_command([b"".join(packed)], check_health=False)
            sent = True
            sock = getattr(connection, "_sock", None)
            return connection.read_response() if sock is None else _read_reply(sock)
        except redis.ResponseError:  # a whole reply, read: the connection is fine
            raise
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            connection.disconnect()  # never reuse a connection that may hold a late reply
            if sent:
                raise _ReplyLost(str(error)) from error
            raise
        except BaseException:  # interrupted half-way: a late reply must not answer the next call
            connection.disconnect()
            raise

    def _restore_parameters(self, doing: str) -> None:
        """Write the parameters again (the server lost them) under a new instance token; an
        index error if it cannot."""
        if not self._create:  # opened to look into a stored index: never write one
            raise NearDuplicateIndexError(
                f"{doing} {self.location}: its parameters are gone (Redis restarted without "
                "persistence, or the keys were deleted)"
            )
        logger.warning(
            "%s lost its data (Redis restarted without persistence, or the keys were deleted): "
            "the index starts over empty", self.location,
        )
        flat = [part for pair in self._with_instance(self._wanted).items() for part in pair]
        try:
            self._open_script(keys=[self.meta_key], args=flat)
        except redis.RedisError as error:  # not redis-py's own error out of the index
            raise self._unavailable(error, doing) from error

    def _call(
        self, mode: str, extra: Sequence[Any], doing: str, *, raise_lost_reply: bool = False
    ) -> Reply:
        """One run of the script in ``mode``, telling it how far the mirror has read."""
        mirror = self._mirror
        args = [mode, self._fp_bytes, redislog.LOG_CHUNK_IDS, mirror.instance, mirror.synced,
                mirror.gone_seen, *extra]
        raw = self._run(args, doing, raise_lost_reply=raise_lost_reply)
        return Reply.decode(raw, self._fp_bytes)

    def _catch_up(self, doing: str) -> None:
        """Read the log until the mirror holds everything stored and removed."""
        mirror = self._mirror
        for _ in range(_MAX_ROUNDS * 100):
            reply = self._call("D", (), doing)
            mirror.ingest(reply)
            if reply.status != RESET and mirror.caught_up(reply):
                return
        raise NearDuplicateIndexError(f"{doing} {self.location}: the log never stopped growing")

    def _compact(self, bulk: int) -> None:
        """After bulk loads (the mirror read at open, ``add_many``: never within a page's
        check, which must not wait ~0.5 s), merge the mirror's runs into one once ``bulk`` rows
        came that way since the last merge: searches then look into one run, not several
        (~30% faster at 1M)."""
        self._bulk += bulk
        if self._bulk >= _COMPACT_AFTER:
            self._mirror.engine.compact()
            self._bulk = 0

    def _after_behind(self, reply: Reply, doing: str) -> None:
        """A reply that asks for another round: catch up first unless its deltas did."""
        if reply.status == RESET or not self._mirror.caught_up(reply):
            self._catch_up(doing)

    def _words(self, values: Sequence[int]) -> np.ndarray:
        return split_words(list(values), self.layout.words)

    def _encoded_key(self, key: object) -> bytes:
        data = self._key(key).encode("utf-8")
        if len(data) > MAX_KEY_BYTES:
            raise ValueError(f"key must be at most {MAX_KEY_BYTES} bytes in UTF-8, got {len(data)}")
        return data

    def _fp_arg(self, value: int) -> bytes:
        return value.to_bytes(self._fp_bytes, "little")

    def _too_many_rounds(self, doing: str) -> NearDuplicateIndexError:
        return NearDuplicateIndexError(
            f"{doing} {self.location}: other writers kept changing the index for "
            f"{_MAX_ROUNDS} rounds"
        )

    # -- the protocol ------------------------------------------------------------------------

    def add(self, key: str, fingerprint: int) -> None:
        self.add_many([(key, fingerprint)])

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        """Store many pairs: ``batch_size`` per script call (one round trip each)."""
        self._check_open()
        with self._lock:
            before = self._mirror.synced
            for chunk in _chunks(iter(items), self.batch_size):
                pairs = [(self._key(key), self._fingerprint(fp)) for key, fp in chunk]
                encoded = [self._encoded_key(key) for key, _ in pairs]
                try:
                    self._add(pairs, encoded, raise_lost_reply=True)
                except _ReplyLost as lost:
                    self._resolve_lost_add(pairs, lost)
            self._compact(max(0, self._mirror.synced - before))

    def _add(self, pairs: list[tuple[str, int]], encoded: list[bytes], *,
             raise_lost_reply: bool = False) -> None:
        extra: list = [len(pairs)]
        for data, (_, value) in zip(encoded, pairs, strict=True):
            extra += [data, self._fp_arg(value)]
        reply = self._call("A", extra, "add to", raise_lost_reply=raise_lost_reply)
        mirror = self._mirror
        # the batch follows what the mirror holds: mirror it now, no need to read it back
        if reply.status == ADDED and reply.instance == mirror.instance and (
                reply.seq == mirror.synced):
            mirror.append(self._words([value for _, value in pairs]))

    def _resolve_lost_add(self, pairs: list[tuple[str, int]], lost: _ReplyLost) -> None:
        """Add again the pairs a batch whose reply was lost did not store (the script ran whole,
        storing every pair, or not at all); an index error saying the outcome is unknown if the
        index cannot be read or written now."""
        with _outcome_unknown(lost, f"the {len(pairs)} fingerprints may or may not be stored"):
            found = self._query_many([value for _, value in pairs], 0)
            missing = [
                (key, value) for (key, value), matches in zip(pairs, found, strict=True)
                if not _stored_as(matches, key, value)
            ]
            if missing:
                self._add(missing, [self._encoded_key(key) for key, _ in missing])

    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        value = self._fingerprint(fingerprint)
        radius = self._radius(max_distance)
        self._check_open()
        with self._lock:
            return self._query_many([value], radius)[0]

    def query_many(
        self, fingerprints: Sequence[int], max_distance: int | None = None
    ) -> list[list[Match]]:
        """Read the log's news once, search the mirror, then fetch the matches' keys."""
        values = [self._fingerprint(fp) for fp in fingerprints]
        radius = self._radius(max_distance)
        self._check_open()
        with self._lock:
            return self._query_many(values, radius)

    def _query_many(self, values: list[int], radius: int) -> list[list[Match]]:
        if not values:
            return []
        for _ in range(_MAX_ROUNDS):
            self._catch_up("query")
            engine = self._mirror.engine
            if len(values) == 1:
                found = [engine.search(values[0], radius)]
            else:
                found = engine.search_many(self._words(values), radius)
            ids = sorted({row + 1 for hits in found for _, row in hits})
            keys = self._keys_of(ids)
            if keys is None:  # a removal since the log was read: read it again
                continue
            return [
                [Match(keys[row + 1], engine.fingerprint(row), distance) for distance, row in hits]
                for hits in found
            ]
        raise self._too_many_rounds("query")

    def _keys_of(self, ids: list[int]) -> dict[int, str] | None:
        """The keys of ``ids`` (mirrored ones); None if a removal happened since the mirror
        last read the log (the caller reads it again)."""
        keys: dict[int, str] = {}
        for start in range(0, len(ids), _KEYS_PER_CALL):
            part = ids[start : start + _KEYS_PER_CALL]
            packed = np.array(part, dtype=">u4").tobytes()
            reply = self._call("K", [packed], "query")
            if reply.status != KEYS:
                self._mirror.ingest(reply)
                return None
            tail, at = reply.tail, 0
            for id_ in part:
                size = (tail[at] << 8) | tail[at + 1]
                keys[id_] = bytes(tail[at + 2 : at + 2 + size]).decode("utf-8")
                at += 2 + size
        return keys

    def check_and_add(self, key: str, fingerprint: int) -> Match | None:
        """Atomic across every client of this index: of two near-duplicates checked at the same
        moment anywhere, exactly one is stored.

        A reply lost after the command was sent (the script may have run) is resolved once, at
        once, on a new connection: ``None`` if the index now holds this key with this fingerprint
        (the script stored it), else the answer of one more check (see the module docstring). If
        that fails too, the index error says the outcome is unknown."""
        self._check_open()
        value = self._fingerprint(fingerprint)
        encoded = self._encoded_key(key)
        with self._lock:
            try:
                return self._check(encoded, value, raise_lost_reply=True)
            except _ReplyLost as lost:
                with _outcome_unknown(lost, "the page may or may not be stored"):
                    if _stored_as(self._query_many([value], 0)[0], self._key(key), value):
                        return None  # the first script ran and stored the page
                    return self._check(encoded, value)  # it never ran, or it found a match

    def _check(self, encoded: bytes, value: int, *, raise_lost_reply: bool = False
               ) -> Match | None:
        """The mirror's nearest match, confirmed (or bettered) by the script, or the page
        stored by it."""
        mirror, fp = self._mirror, self._fp_arg(value)
        for _ in range(_MAX_ROUNDS):
            found = mirror.engine.search(value, self.max_distance)
            hint_id, hint_distance = (found[0][1] + 1, found[0][0]) if found else (0, 0)
            reply = self._call(
                "C", [self.max_distance, encoded, fp, hint_id, hint_distance],
                "check_and_add on", raise_lost_reply=raise_lost_reply,
            )
            mirror.ingest(reply)
            if reply.status == MATCH:
                tail = reply.tail
                match_id = int.from_bytes(tail[:4], "big")
                return Match(bytes(tail[5:]).decode("utf-8"),
                             mirror.engine.fingerprint(match_id - 1), tail[4])
            if reply.status == STORED:  # as id reply.seq, right after the deltas
                mirror.append_one(value)
                return None
            self._after_behind(reply, "check_and_add on")
        raise self._too_many_rounds("check_and_add on")

    def __len__(self) -> int:
        self._check_reachable()
        try:
            stored, removed = self._client.mget(self.seq_key, self.removed_key)
        except redis.RedisError as error:
            raise self._unavailable(error, "count") from error
        return int(stored or 0) - int(removed or 0)

    def remove(self, key: str, fingerprint: int) -> bool:
        """One script, so exact against every client's ``check_and_add``. A reply lost after
        the command was sent is resolved by running it once more (removing is idempotent): the
        pair is then gone either way, but if the lost run had removed it this returns False."""
        self._check_open()
        value = self._fingerprint(fingerprint)
        encoded = self._encoded_key(key)
        with self._lock:
            try:
                removed = self._remove(encoded, value, raise_lost_reply=True)
            except _ReplyLost as lost:
                with _outcome_unknown(lost, "the pair may or may not be stored"):
                    removed = self._remove(encoded, value)
        return bool(removed)

    def _remove(self, encoded: bytes, value: int, *, raise_lost_reply: bool = False) -> int:
        mirror = self._mirror
        for _ in range(_MAX_ROUNDS):
            ids = [row + 1 for _, row in mirror.engine.search(value, 0)]
            reply = self._call(
                "X", [encoded, self._fp_arg(value), np.array(ids, dtype=">u4").tobytes()],
                "remove from", raise_lost_reply=raise_lost_reply,
            )
            mirror.ingest(reply)
            if reply.status == REMOVED:
                return int.from_bytes(reply.tail[:4], "big")
            self._after_behind(reply, "remove from")
        raise self._too_many_rounds("remove from")

    def put_evidence(self, key: str, evidence: bytes) -> None:
        """One HSET into the index's evidence hash. Not retried after a lost connection (an
        index error): storing it again is safe."""
        self._check_reachable()
        field, data = self._encoded_key(key), self._evidence(evidence)
        try:
            self._client.hset(self.evidence_key, field, data)
        except redis.RedisError as error:
            raise self._unavailable(error, "store evidence in") from error

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        """One HMGET for all ``keys``."""
        self._check_reachable()
        fields = [self._encoded_key(key) for key in self._evidence_keys(keys)]
        if not fields:
            return []
        try:
            return list(self._client.hmget(self.evidence_key, fields))
        except redis.RedisError as error:
            raise self._unavailable(error, "read evidence from") from error

    # -- housekeeping ------------------------------------------------------------------------

    # -- housekeeping ------------------------------------------------------------------------

    def stored_words(self) -> np.ndarray:
        """The stored fingerprints (removed ones left out), from the mirror once it has read the
        log's news: an (n, words) uint64 array in id order."""
        self._check_reachable()
        with self._lock:
            self._catch_up("read")
            return self._mirror.engine.stored_words()

    @property
    def all_keys(self) -> list[str]:
        """Every key of this index, by name: the fixed ones and the log strings its size needs
        (reads ``seq``)."""
        stored = int(self._client.get(self.seq_key) or 0)
        chunks = math.ceil(stored / redislog.LOG_CHUNK_IDS)
        fixed = [key for key in self.script_keys if key != self.log_key]
        return [*fixed, *(f"{self.log_key}:{chunk}" for chunk in range(chunks))]

    def memory_usage(self) -> int:
        """Bytes Redis reports (``MEMORY USAGE ... SAMPLES 0``) for all of this index's keys."""
        self._check_reachable()
        total = 0
        try:
            for key in self.all_keys:
                used = self._client.memory_usage(key, samples=0)
                total += int(used or 0)
        except redis.RedisError as error:
            raise self._unavailable(error, "measure") from error
        return total

    def drop(self) -> None:
        """Delete this index (its parameters, fingerprints and evidence): only its own keys, by
        name. This instance's mirror starts over too."""
        self._check_reachable()
        try:
            self._client.delete(*self.all_keys)
        except redis.RedisError as error:
            raise self._unavailable(error, "drop") from error
        with self._lock:
            self._mirror.reset()

    def _close(self) -> None:
        self._release()
        self._mirror.reset()

    def _release(self) -> None:
        if self._owns_client:
            self._client.close()
        elif self._held is not None and self._held_pid == os.getpid():
            self._client.connection_pool.release(self._held)
        self._held = None

    def __repr__(self) -> str:
        return (
            f"<RedisIndex {self.url} prefix={self.prefix!r} namespace={self.namespace!r} "
            f"bits={self.bits} k={self.max_distance} {self.layout.describe()}>"
        )


def _read_reply(sock: socket.socket) -> bytes | None:
    """The script's reply read straight from the socket: a bulk string (or an error, raised as
    redis-py raises it). redis-py's reader costs ~15 us more per call, and only this reply
    shape ever comes back on the connection scripts run on."""
    buffer = bytearray()
    while (end := buffer.find(b"\r\n")) < 0:
        buffer += _received(sock, 65536)
    kind, line = buffer[:1], bytes(buffer[1:end])
    if kind == b"-":
        message = line.decode("utf-8", "replace")
        raise NoScriptError(message) if message.startswith("NOSCRIPT") else redis.ResponseError(
            message)
    if kind != b"$":
        raise redis.ResponseError(f"unexpected reply to the index script: {bytes(buffer[:80])!r}")
    size = int(line)
    if size < 0:
        return None
    need = end + 2 + size + 2
    while len(buffer) < need:
        buffer += _received(sock, max(65536, need - len(buffer)))
    return bytes(buffer[end + 2 : end + 2 + size])


def _received(sock: socket.socket, size: int) -> bytes:
    data = sock.recv(size)
    if not data:
        raise redis.ConnectionError("Connection closed by server.")
    return data


def _look(uri: IndexUri, read: Any) -> Any:
    """``read(client)`` on a client of its own for ``uri``, closed after; index errors."""
    client = connect(str(uri.target))
    try:
        return read(client)
    except redis.RedisError as error:
        raise redis_error(uri.masked, str(uri.target), error, "cannot read") from None
    finally:
        client.close()


def _stored_as(matches: list[Match], key: str, value: int) -> bool:
    """Whether ``key`` is among ``matches`` with the very fingerprint ``value``."""
    return any(match.key == key and match.fingerprint == value for match in matches)


@contextlib.contextmanager
def _outcome_unknown(lost: _ReplyLost, what: str) -> Iterator[None]:
    """Resolving a call whose reply was ``lost``: an index error (IndexUnavailable or a plain
    one) raised meanwhile says the outcome is unknown, and ``what`` that means."""
    try:
        yield
    except NearDuplicateIndexError as error:
        raise type(error)(
            f"{error}; outcome unknown: the reply of the first try was lost ({lost}), so {what}"
        ) from error


def _chunks(iterator: Iterator, size: int) -> Iterator[list]:
    while chunk := list(islice(iterator, size)):
        yield chunk
