"""Redis backend: one index shared by many crawl processes, with an atomic ``check_and_add``.

URIs follow redis-py: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` for TLS
(``?ssl_cert_reqs=none`` etc.), ``unix:///path/redis.sock?db=0``. The query string also carries
this backend's options: ``prefix`` (default ``simhash``; letters, digits and ``_.:-``),
``batch_size`` and redis-py connection options (``socket_timeout``, ``socket_connect_timeout``...).

Keys, all under one hash tag ``{<prefix>:<namespace>}`` so that every key of an index lives in
one Redis Cluster slot and one Lua script may touch them all:

- ``{p:ns}:meta``  hash: the index parameters (bits, k, layout, fingerprint settings), checked on
  open like the SQLite backend (:class:`IndexParameterMismatch`);
- ``{p:ns}:seq``   counter: the id of the last stored fingerprint (ids count from 1, so it is also
  the index's size; ties between equally near matches go to the smallest id, the oldest);
- ``{p:ns}:keys``  hash: chunk number ((id - 1) // 128) -> the keys of those 128 ids, each as a
  2-byte length then its UTF-8 bytes (one hash field per 128 pages instead of one per page:
  about 2 bytes of overhead per key instead of about 45);
- ``{p:ns}:t<i>``  one hash per layout table: packed table key -> bucket, a string of packed
  entries ``fingerprint (8 or 16 bytes, big-endian) + id (4 bytes)``;
- ``{p:ns}:removed`` counter: how many stored fingerprints were removed (the size is ``seq``
  minus it; absent in an index that never removed one);
- ``{p:ns}:evidence`` hash: page key -> its evidence bytes (absent until some is stored).

``remove`` is one Lua script too: it finds the ids stored with the pair in the first table's
bucket (checking each id's key), cuts those entries out of every table's bucket, empties their
key records (a record per id stays, so the chunk's positions hold), counts them in ``removed``
and deletes the key's evidence. Running alone, it never interleaves with a ``check_and_add``.

``check_and_add`` is one Lua script (EVALSHA, reloaded after NOSCRIPT): it reads the query's bucket
in every table, computes Hamming distances of the candidates byte by byte, returns the nearest
(ties: the smallest id) or appends the fingerprint to every bucket. Redis runs a script alone, so
two workers that see two copies of a page at the same moment cannot both keep it.

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
(restarted without persistence), the parameters are written again and the call proceeds on the
now empty index.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from .base import (
    Match,
    NamespaceNotFound,
    NearDuplicateIndex,
    NearDuplicateIndexError,
    mask_password,
)
from .layout import Layout, TablesOption
from .uri import LAYOUT_OPTIONS, IndexUri, parse_index_uri

try:
    import redis
    from redis.backoff import NoBackoff
    from redis.exceptions import NoScriptError
    from redis.retry import Retry
except ModuleNotFoundError as error:  # pragma: no cover - depends on the installation
    raise ModuleNotFoundError(
        "the Redis index needs the 'redis' package: pip install 'scrapy-simhash[redis]'",
        name="redis",
    ) from error

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
DEFAULT_PREFIX = "simhash"
ID_BYTES = 4
MAX_KEY_BYTES = 65535
MASK64 = (1 << 64) - 1
_PREFIX_RE = re.compile(r"[A-Za-z0-9_.:\-]{1,100}")
_NOMETA = "SIMHASH_NOMETA"
_META_SUFFIX = "}:meta"


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

# One script for every operation. KEYS: meta, seq, keys, t1..tn. ARGV[1] = mode, ARGV[2] = the
# fingerprint's width in bytes, ARGV[3] = a table key's width in bytes; a *probe* is one string:
# the fingerprint then every table's key (fixed widths, big-endian), so a call has few arguments.
#   "C" check_and_add: radius, key, probe[, counts, extra] -> nil or {id, fp, distance, key}
#   "Q" query:         radius, probe[, counts, extra]      -> {id, fp, distance, key, id, ...}
#   "A" add many:      count, then per item key, probe  -> count
# Multi-index hashing layouts only: ``counts`` says how many extra keys each table probes
# ("12,12,3") and ``extra`` holds them all, concatenated at the table key width. Entries are only
# ever stored under a table's own key; the extra keys are read, never written.
_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('SIMHASH_NOMETA the index parameters are missing')
end
local tables = #KEYS - 3
local byte, char, sub, floor, bxor = string.byte, string.char, string.sub, math.floor, bit.bxor
local mode = ARGV[1]
local n = tonumber(ARGV[2])
local kw = tonumber(ARGV[3])
local CHUNK = 128

local function pack_id(id)
  return char(floor(id / 16777216) % 256, floor(id / 65536) % 256, floor(id / 256) % 256, id % 256)
end

local function field(probe, t)
  local at = n + (t - 1) * kw + 1
  return sub(probe, at, at + kw - 1)
end

local function insert(probe, key, id, buckets)
  local id_bytes = pack_id(id)
  local slot = pack_id(floor((id - 1) / CHUNK))
  local chunk = redis.call('HGET', KEYS[3], slot)
  local record = char(floor(#key / 256), #key % 256) .. key
  if chunk then chunk = chunk .. record else chunk = record end
  redis.call('HSET', KEYS[3], slot, chunk)
  local entry = sub(probe, 1, n) .. id_bytes
  for t = 1, tables do
    local name = field(probe, t)
    local bucket
    if buckets then bucket = buckets[t] else bucket = redis.call('HGET', KEYS[3 + t], name) end
    if bucket then bucket = bucket .. entry else bucket = entry end
    redis.call('HSET', KEYS[3 + t], name, bucket)
  end
end

local function key_of(id)
  local chunk = redis.call('HGET', KEYS[3], pack_id(floor((id - 1) / CHUNK)))
  local pos = 1
  for _ = 1, (id - 1) % CHUNK do
    local b1, b2 = byte(chunk, pos, pos + 1)
    pos = pos + 2 + b1 * 256 + b2
  end
  local b1, b2 = byte(chunk, pos, pos + 1)
  return sub(chunk, pos + 2, pos + 1 + b1 * 256 + b2)
end

local function next_ids(count)
  local last = redis.call('INCRBY', KEYS[2], count)
  if last > 4294967295 then
    redis.call('DECRBY', KEYS[2], count)
    return nil
  end
  return last - count + 1
end
local FULL = 'SIMHASH_FULL the index holds at most 2**32 - 1 fingerprints'

if mode == 'A' then
  local count = tonumber(ARGV[4])
  local first = next_ids(count)
  if not first then return redis.error_reply(FULL) end
  for i = 0, count - 1 do
    insert(ARGV[6 + 2 * i], ARGV[5 + 2 * i], first + i, nil)
  end
  return count
end

local radius = tonumber(ARGV[4])
local probe, extra_counts, first_extra
if mode == 'C' then
  probe, extra_counts, first_extra = ARGV[6], ARGV[7], 8
else
  probe, extra_counts, first_extra = ARGV[5], ARGV[6], 7
end
local width = n + 4
local query = {byte(probe, 1, n)}
local POPCOUNT = 'POPCOUNT_BYTES'  -- byte i + 1 is the popcount of i

local buckets, hits, seen = {}, {}, {}
local best_d, best_id, best_fp = radius + 1, nil, nil

local function scan(bucket)
  for pos = 1, #bucket, width do
    local d = 0
    for j = 1, n do
      d = d + byte(POPCOUNT, bxor(query[j], byte(bucket, pos + j - 1)) + 1)
      if d > radius then break end
    end
    if d <= radius then
      local b1, b2, b3, b4 = byte(bucket, pos + n, pos + n + 3)
      local id = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
      if mode == 'C' then
        if d < best_d or (d == best_d and id < best_id) then
          best_d, best_id, best_fp = d, id, sub(bucket, pos, pos + n - 1)
        end
      elseif not seen[id] then
        seen[id] = true
        local found = #hits
        hits[found + 1] = id
        hits[found + 2] = sub(bucket, pos, pos + n - 1)
        hits[found + 3] = d
        hits[found + 4] = key_of(id)
      end
    end
  end
end

for t = 1, tables do
  local bucket = redis.call('HGET', KEYS[3 + t], field(probe, t))
  buckets[t] = bucket
  if bucket then scan(bucket) end
end

-- multi-index hashing layouts: the keys near each table's own key too (never stored into)
if extra_counts then
  local extra = ARGV[first_extra]
  local at, t = 1, 0
  for count in string.gmatch(extra_counts, '%d+') do
    t = t + 1
    local remaining = tonumber(count)
    while remaining > 0 do
      local take = math.min(remaining, 4000)
      local fields = {}
      for i = 1, take do
        fields[i] = sub(extra, at, at + kw - 1)
        at = at + kw
      end
      local found = redis.call('HMGET', KEYS[3 + t], unpack(fields))
      for i = 1, take do
        if found[i] then scan(found[i]) end
      end
      remaining = remaining - take
    end
  end
end

if mode == 'Q' then return hits end
if best_id then
  return {best_id, best_fp, best_d, key_of(best_id)}
end
local id = next_ids(1)
if not id then return redis.error_reply(FULL) end
insert(probe, ARGV[5], id, buckets)
return nil
""".replace("POPCOUNT_BYTES", "".join(f"\\{i.bit_count()}" for i in range(256)))

# Remove every entry of one (key, fingerprint) pair and the key's evidence; returns how many ids
# were removed. KEYS: keys, removed, evidence, t1..tn. ARGV: the fingerprint's width in bytes,
# a table key's width in bytes, the key, the probe (as the main script's). An entry is only ever
# stored under its table's own key, so the probe's own keys reach every copy of the pair.
_REMOVE_SCRIPT = """
local tables = #KEYS - 3
local byte, char, sub, floor = string.byte, string.char, string.sub, math.floor
local n, kw, key, probe = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local width, CHUNK = n + 4, 128
local fp = sub(probe, 1, n)

local function pack_id(id)
  return char(floor(id / 16777216) % 256, floor(id / 65536) % 256, floor(id / 256) % 256, id % 256)
end

local function field(t)
  local at = n + (t - 1) * kw + 1
  return sub(probe, at, at + kw - 1)
end

redis.call('HDEL', KEYS[3], key)
local first = redis.call('HGET', KEYS[4], field(1))
if not first then return 0 end
local doomed, count = {}, 0
for pos = 1, #first, width do
  if sub(first, pos, pos + n - 1) == fp then
    local id_bytes = sub(first, pos + n, pos + n + 3)
    local b1, b2, b3, b4 = byte(id_bytes, 1, 4)
    local id = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    local slot = pack_id(floor((id - 1) / CHUNK))
    local chunk = redis.call('HGET', KEYS[1], slot)
    local at = 1
    for _ = 1, (id - 1) % CHUNK do
      local l1, l2 = byte(chunk, at, at + 1)
      at = at + 2 + l1 * 256 + l2
    end
    local l1, l2 = byte(chunk, at, at + 1)
    local stop = at + 1 + l1 * 256 + l2
    if sub(chunk, at + 2, stop) == key then
      doomed[id_bytes] = true
      count = count + 1
      redis.call('HSET', KEYS[1], slot, sub(chunk, 1, at - 1) .. char(0, 0) .. sub(chunk, stop + 1))
    end
  end
end
if count == 0 then return 0 end
for t = 1, tables do
  local name, bucket = field(t), first
  if t > 1 then bucket = redis.call('HGET', KEYS[3 + t], name) end
  if bucket then
    local kept = {}
    for pos = 1, #bucket, width do
      local entry = sub(bucket, pos, pos + width - 1)
      if not (doomed[sub(entry, n + 1)] and sub(entry, 1, n) == fp) then
        kept[#kept + 1] = entry
      end
    end
    if #kept == 0 then
      redis.call('HDEL', KEYS[3 + t], name)
    else
      redis.call('HSET', KEYS[3 + t], name, table.concat(kept))
    end
  end
end
redis.call('INCRBY', KEYS[2], count)
return count
"""

# Write the parameters if the index is new, else return the stored ones (atomic: two workers
# opening a new index at once agree on one set). KEYS: meta. ARGV: name, value, name, value...
_OPEN_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return {}
"""


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


class IndexUnavailable(NearDuplicateIndexError):
    """The index server cannot be reached (at open, or later: the call that hit it failed)."""


class IndexAuthenticationError(IndexUnavailable):
    """The server wants a password the URL does not give, or refuses the one it gives."""


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


class RedisIndex(NearDuplicateIndex):
    """A near-duplicate index in Redis, shared by every process that opens the same URL + prefix.

    Multi-index hashing layouts (probe radius > 0, chosen by ``make_layout`` for wide radii such
    as 128 bits at k = 16) are supported: the script also reads the buckets of every key near
    each table's own key.

    ``url``: a redis-py URL without this backend's options; ``prefix``: the per-crawl key prefix;
    ``batch_size``: fingerprints per script call in :meth:`add_many` / per pipeline in
    :meth:`query_many`; ``retry_interval``: after a lost connection, calls fail at once (without
    touching the network, so a crawl is not held up by a timeout per page) for this many seconds,
    then the next call tries to reconnect; ``client``: an existing ``redis.Redis`` (its URL is
    then only for messages); other keyword arguments go to ``redis.Redis.from_url`` (e.g.
    ``socket_timeout``).
    """

    max_probe_radius = None  # the script probes keys near each table's own key (MIH layouts)
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
        **connection_options: Any,
    ) -> None:
        super().__init__(
            bits=bits, max_distance=max_distance, namespace=namespace, tables=tables, params=params
        )
        self._prepare_probes()
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
        tag = f"{{{self.prefix}:{namespace}}}"
        self.meta_key = meta_key(self.prefix, namespace)
        self.table_keys = [f"{tag}:t{t}" for t in range(self.layout.table_count)]
        self.script_keys = [self.meta_key, f"{tag}:seq", f"{tag}:keys", *self.table_keys]
        self.removed_key = f"{tag}:removed"
        self.evidence_key = f"{tag}:evidence"
        self.all_keys = [*self.script_keys, self.removed_key, self.evidence_key]
        self._fp_bytes = self.bits // 8
        self._key_bytes = (self.layout.key_bits + 7) // 8
        self._owns_client = client is None
        if client is None:
            client = connect(url, **connection_options)
        self._client = client
        self._script = client.register_script(_SCRIPT)
        self._main = _ScriptCall(_SCRIPT, self._script.sha, self.script_keys)
        remove_keys = [self.script_keys[2], self.removed_key, self.evidence_key, *self.table_keys]
        self._remove = _ScriptCall(
            _REMOVE_SCRIPT, client.register_script(_REMOVE_SCRIPT).sha, remove_keys
        )
        self._direct = type(client) is redis.Redis and client.get_connection_kwargs().get(
            "protocol") not in (3, "3")
        self._open_script = client.register_script(_OPEN_SCRIPT)
        try:
            client.ping()
            self._open_parameters(params)
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
            flat = [part for pair in wanted.items() for part in pair]
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
        self._check_parameter_record(
            self.location, stored, wanted, check_user_params=params is not None
        )
        self.params = {
            name[len("param."):]: json.loads(value)
            for name, value in stored.items()
            if name.startswith("param.")
        }
        self._wanted = stored

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
        and sent on a pooled connection: redis-py's generic path costs about as much client CPU
        as the script costs Redis, and a crawler calls this once per page.

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
        pool = self._client.connection_pool
        connection = pool.get_connection()
        sent = False
        try:
            connection.send_packed_command([b"".join(packed)], check_health=False)
            sent = True
            return connection.read_response()
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            connection.disconnect()  # never reuse a connection that may hold a late reply
            if sent:
                raise _ReplyLost(str(error)) from error
            raise
        finally:
            pool.release(connection)

    def _restore_parameters(self, doing: str) -> None:
        """Write the parameters again (the server lost them); an index error if it cannot."""
        if not self._create:  # opened to look into a stored index: never write one
            raise NearDuplicateIndexError(
                f"{doing} {self.location}: its parameters are gone (Redis restarted without "
                "persistence, or the keys were deleted)"
            )
        logger.warning(
            "%s lost its data (Redis restarted without persistence, or the keys were deleted): "
            "the index starts over empty", self.location,
        )
        flat = [part for pair in self._wanted.items() for part in pair]
        try:
            self._open_script(keys=[self.meta_key], args=flat)
        except redis.RedisError as error:  # not redis-py's own error out of the index
            raise self._unavailable(error, doing) from error

    def _prepare_probes(self) -> None:
        """For multi-index hashing layouts: which probe columns are extra keys, per table."""
        self._extra_columns = None
        if getattr(self.layout, "exact", True):
            return
        masks = self.layout.probe_masks
        self._extra_columns = np.flatnonzero(masks != 0)
        tables_of = self.layout.probe_tables[self._extra_columns]
        counts = np.bincount(tables_of, minlength=self.layout.table_count)
        self._extra_counts = ",".join(str(int(c)) for c in counts)

    def _lookup(self, fingerprint: int) -> list[bytes | str]:
        """The script's lookup arguments: the probe, then for probing layouts the counts and the
        extra keys concatenated (fixed width) in one string."""
        probe = self._probe(fingerprint)
        if self._extra_columns is None:
            return [probe]
        words = np.array(
            [[(fingerprint >> (64 * w)) & MASK64 for w in range(self.layout.words)]],
            dtype=np.uint64,
        )
        keys = self.layout.probe_keys(words, prefixed=False)[0, self._extra_columns]
        fields = keys.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - self._key_bytes :]
        return [probe, self._extra_counts, fields.tobytes()]

    def _probe(self, fingerprint: int) -> bytes:
        """The fingerprint then each table's key, fixed widths, big-endian (see the script)."""
        size = self._key_bytes
        return fingerprint.to_bytes(self._fp_bytes, "big") + b"".join(
            key.to_bytes(size, "big") for key in self.layout.keys(fingerprint)
        )

    def _encoded_key(self, key: object) -> bytes:
        data = self._key(key).encode("utf-8")
        if len(data) > MAX_KEY_BYTES:
            raise ValueError(f"key must be at most {MAX_KEY_BYTES} bytes in UTF-8, got {len(data)}")
        return data

    def _match(self, fp: bytes, distance: int, key: bytes) -> Match:
        return Match(key.decode("utf-8"), int.from_bytes(fp, "big"), int(distance))

    # -- the protocol ------------------------------------------------------------------------

    def add(self, key: str, fingerprint: int) -> None:
        self.add_many([(key, fingerprint)])

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        """Store many pairs: ``batch_size`` per script call (one round trip each)."""
        self._check_open()
        for chunk in _chunks(iter(items), self.batch_size):
            pairs = [(self._key(key), self._fingerprint(fingerprint)) for key, fingerprint in chunk]
            try:
                self._run(self._add_args(pairs), "add to", raise_lost_reply=True)
            except _ReplyLost as lost:
                self._resolve_lost_add(pairs, lost)

    def _add_args(self, pairs: list[tuple[str, int]]) -> list:
        args: list = ["A", self._fp_bytes, self._key_bytes, len(pairs)]
        for key, value in pairs:
            args.append(self._encoded_key(key))
            args.append(self._probe(value))
        return args

    def _resolve_lost_add(self, pairs: list[tuple[str, int]], lost: _ReplyLost) -> None:
        """Add again the pairs a batch whose reply was lost did not store (the script ran whole,
        storing every pair, or not at all); an index error saying the outcome is unknown if the
        index cannot be read or written now."""
        with _outcome_unknown(lost, f"the {len(pairs)} fingerprints may or may not be stored"):
            found = self.query_many([value for _, value in pairs], 0)
            missing = [
                (key, value) for (key, value), matches in zip(pairs, found, strict=True)
                if not _stored_as(matches, key, value)
            ]
            if missing:
                self._run(self._add_args(missing), "add to")

    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        value = self._fingerprint(fingerprint)
        radius = self._radius(max_distance)
        self._check_open()
        return self._matches(self._run(self._query_args(value, radius), "query"))

    def _query_args(self, value: int, radius: int) -> list:
        return ["Q", self._fp_bytes, self._key_bytes, radius, *self._lookup(value)]

    def _matches(self, reply: list) -> list[Match]:
        hits = sorted(
            (int(reply[i + 2]), int(reply[i]), reply[i + 1], reply[i + 3])
            for i in range(0, len(reply), 4)
        )
        return [self._match(fp, distance, key) for distance, _, fp, key in hits]

    def query_many(
        self, fingerprints: Sequence[int], max_distance: int | None = None
    ) -> list[list[Match]]:
        """:meth:`query` for each fingerprint, ``batch_size`` scripts per round trip."""
        values = [self._fingerprint(fp) for fp in fingerprints]
        radius = self._radius(max_distance)
        self._check_open()
        out: list[list[Match]] = []
        for start in range(0, len(values), self.batch_size):
            replies = self._pipelined(
                [self._query_args(v, radius) for v in values[start:start + self.batch_size]]
            )
            out.extend(self._matches(reply) for reply in replies)
        return out

    def _pipelined(self, calls: list[list]) -> list:
        self._check_reachable()
        for attempt in (1, 2):
            pipe = self._client.pipeline(transaction=False)
            for args in calls:
                self._script(keys=self.script_keys, args=args, client=pipe)
            try:
                return pipe.execute()
            except redis.ResponseError as error:
                if attempt == 1 and _NOMETA in str(error):
                    self._restore_parameters("query")
                    continue
                raise self._unavailable(error, "query") from error
            except redis.RedisError as error:
                raise self._unavailable(error, "query") from error
        raise AssertionError("unreachable")  # pragma: no cover

    def check_and_add(self, key: str, fingerprint: int) -> Match | None:
        """Atomic across every client of this index: of two near-duplicates checked at the same
        moment anywhere, exactly one is stored.

        A reply lost after the command was sent (the script may have run) is resolved once, at
        once, on a new connection: ``None`` if the index now holds this key with this fingerprint
        (the script stored it), else the answer of one more check (see the module docstring). If
        that fails too, the index error says the outcome is unknown."""
        self._check_open()
        value = self._fingerprint(fingerprint)
        args = ["C", self._fp_bytes, self._key_bytes, self.max_distance, self._encoded_key(key),
                *self._lookup(value)]
        try:
            reply = self._run(args, "check_and_add on", raise_lost_reply=True)
        except _ReplyLost as lost:
            reply = self._resolve_lost_reply(self._key(key), value, args, lost)
        if reply is None:
            return None
        return self._match(reply[1], reply[2], reply[3])

    def _resolve_lost_reply(self, key: str, value: int, args: list, lost: _ReplyLost) -> Any:
        """The reply ``check_and_add(key, value)`` (script arguments ``args``) should have had.

        The lost reply did not set ``_down_until``, so these calls reconnect at once; a failure
        here is an index error as usual (and sets it), saying the outcome is unknown."""
        with _outcome_unknown(lost, "the page may or may not be stored"):
            stored = self._matches(self._run(self._query_args(value, 0), "check_and_add on"))
            if _stored_as(stored, key, value):
                return None  # the first script ran and stored the page
            return self._run(args, "check_and_add on")  # it never ran, or it found a match

    def __len__(self) -> int:
        self._check_reachable()
        try:
            stored, removed = self._client.mget(self.script_keys[1], self.removed_key)
        except redis.RedisError as error:
            raise self._unavailable(error, "count") from error
        return int(stored or 0) - int(removed or 0)

    def remove(self, key: str, fingerprint: int) -> bool:
        """One script, so exact against every client's ``check_and_add``. A reply lost after
        the command was sent is resolved by running it once more (removing is idempotent): the
        pair is then gone either way, but if the lost run had removed it this returns False."""
        self._check_open()
        value = self._fingerprint(fingerprint)
        args = [self._fp_bytes, self._key_bytes, self._encoded_key(key), self._probe(value)]
        try:
            removed = self._run(args, "remove from", raise_lost_reply=True, call=self._remove)
        except _ReplyLost as lost:
            with _outcome_unknown(lost, "the pair may or may not be stored"):
                removed = self._run(args, "remove from", call=self._remove)
        return bool(removed)

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
        name."""
        self._check_reachable()
        try:
            self._client.delete(*self.all_keys)
        except redis.RedisError as error:
            raise self._unavailable(error, "drop") from error

    def _close(self) -> None:
        self._release()

    def _release(self) -> None:
        if self._owns_client:
            self._client.close()

    def __repr__(self) -> str:
        return (
            f"<RedisIndex {self.url} prefix={self.prefix!r} namespace={self.namespace!r} "
            f"bits={self.bits} k={self.max_distance} {self.layout.describe()}>"
        )


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
