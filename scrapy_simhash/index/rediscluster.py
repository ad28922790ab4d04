"""Redis Cluster backend: one index whose tables are spread over the cluster's nodes.

``redis+cluster://host:port?prefix=crawl1`` opens it through a redis-py ``RedisCluster`` client
(any node of the cluster; the client discovers the others). Each layout table has a hash tag of
its own, chosen so that the tables' slots are evenly spaced over the 16,384 slots: a cluster
whose nodes own even slot ranges (``redis-cli --cluster create`` makes them) holds an even share
of the tables on each node, and each node does only its tables' share of every call.

No script may span two slots, so ``check_and_add`` cannot be one atomic script as in
:class:`~scrapy_simhash.index.redis.RedisIndex`. It is a claim protocol instead, exact without a
global counter:

1. **Claim and query** (one round trip, all nodes in parallel): the page gets a unique id (a
   per-client increasing microsecond clock, then 4 random bytes: ids are totally ordered and
   roughly in time order, so "oldest first" still holds for one client). In every table one
   script inserts the page as *pending* (with a lease deadline) under its table key, then reads
   every bucket the query probes and returns the entries within k. Two near pages share a table
   in which each probes the other's key (the pigeonhole), and Redis runs the two scripts of that
   table one after the other: the later one sees the earlier one.
2. **Status** (one round trip, only when something near was found): the state of each near
   entry is read at its *home*, the one copy that is authoritative (the table ``id mod T``):
   kept, pending, or dropped. A pending claim whose lease has passed is marked dropped there,
   atomically, before anyone relies on it being dropped.
3. **Decide**: a near kept entry, or a near pending one with a lower id, makes the page a
   duplicate at once. Near pending entries with higher ids are waited for (polled): if one is
   kept, the page is a duplicate, else it is kept. Waits only go from lower to higher ids, so
   they never form a cycle.
4. **Publish** (one round trip): kept = the home copy turns from pending to kept, only if it is
   still pending (a claim that was marked dropped after its lease starts over with a new id);
   duplicate = the home copy turns dropped (a tombstone, removed once its lease has passed) and
   the other copies are removed.

Why exactly one page of a near-duplicate cluster is kept: for kept pages A < B (ids), some
table's scripts ran in some order. If B saw A, A was pending or kept then (it ends kept), so B
was a duplicate. If only A saw B, A saw B kept (duplicate) or pending and waited for B's
decision: kept, so A was a duplicate. Either way not both kept.

What leases cost: a writer that dies between claim and publish leaves pending claims. Pages
with a higher id that see one within its lease are dropped as its duplicates (step 3 defers to
a lower pending id without waiting, which is what keeps waits free of cycles); after the lease
the claim counts as dropped and is tombstoned. So a crash can lose the one kept page of its
cluster for the length of a lease, never keep two. A live writer slower than its lease (paused
for longer than ``lease`` seconds) is treated as dead the same way: its publish finds itself
dropped and it claims again with a new id, but pages that deferred to its first claim stayed
dropped. Leases are compared with each home node's clock (``TIME``) and set from the client's
clock: the clocks must agree to well within a lease.

Failures: an unreachable cluster at open, or a node lost later, raises
:class:`~scrapy_simhash.index.redis.IndexUnavailable` from the call that hit it; nothing is
retried blindly. A call cut short after its claim leaves pending claims, which expire as a dead
writer's do. A MOVED reply (slots resharded) relocates the tables and resends, as nothing ran.

Round trips: 2 for a new page, 3 for a duplicate (plus polls while a higher id is pending),
against 1 for :class:`RedisIndex`; each node does only its tables' work, so capacity grows with
the nodes. :meth:`add` / :meth:`add_many` store without checking (kept at once). :meth:`remove`
and evidence are not supported here.

Keys, per table ``t`` under its own hash tag ``{<prefix>:<namespace>:t<t>:<n>}``:
``...:b`` hash: table key -> bucket of fixed-width entries ``fingerprint + id (12 bytes) +
state (P, K, D) + lease deadline (6 bytes, ms)``; ``...:k`` hash: id -> page key, for the ids
whose home is this table; ``...:n`` counter: the kept pages whose home is this table. The
parameters are in ``{<prefix>:<namespace>}:cmeta`` (checked on open like the other backends).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from .base import Match, NearDuplicateIndex, NearDuplicateIndexError, mask_password
from .layout import TablesOption
from .redis import IndexUnavailable, redis_error, validate_prefix
from .uri import parse_index_uri

try:
    import redis
    from redis.backoff import NoBackoff
    from redis.cluster import RedisCluster
    from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
    from redis.exceptions import RedisClusterException
    from redis.retry import Retry
except ModuleNotFoundError as error:  # pragma: no cover - depends on the installation
    raise ModuleNotFoundError(
        "the Redis Cluster index needs the 'redis' package: pip install 'scrapy-simhash[redis]'",
        name="redis",
    ) from error

FORMAT_VERSION = 1
DEFAULT_PREFIX = "simhash"
DEFAULT_LEASE = 30.0
ID_BYTES = 12
LEASE_BYTES = 6
MAX_RESTARTS = 20
MASK64 = (1 << 64) - 1
KEPT, PENDING, DROPPED, UNKNOWN = b"K", b"P", b"D", b"U"

# One script, one table (KEYS: bucket hash, key hash, kept counter). ARGV[1] = mode, ARGV[2] =
# fingerprint width in bytes, ARGV[3] = table key width in bytes. Entries: fp | id (12) |
# state (1) | lease deadline (6, ms, big-endian). "Now" is this node's TIME, in ms.
#   "C" claim + query: radius, probes, entry, home ("1"/"0"), page key -> {"X"} if the claim
#       was already dropped at home (or arrives after its lease), else {"OK", near entries}
#   "Q" query:         radius, probes -> {"OK", near entries}
#   "S" status at home: count, then (table key, entry) pairs -> state, page key per pair
#       (state U: not at home yet and its lease still runs; an expired one is tombstoned)
#   "K" keep:          table key, id -> 1, or 0 when the claim is no longer pending
#   "R" retract:       count, then (table key, id, home) triples: home copies turn dropped,
#       the others are removed
#   "A" add:           count, then (table key, entry, home, page key) quadruples, stored kept
# ``probes`` is the table's probe keys concatenated, its own key first.
_SCRIPT = """
local mode = ARGV[1]
local n, kw = tonumber(ARGV[2]), tonumber(ARGV[3])
local width = n + 19
local byte, sub, floor, bxor = string.byte, string.sub, math.floor, bit.bxor
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + floor(tonumber(clock[2]) / 1000)
local POPCOUNT = 'POPCOUNT_BYTES'  -- byte i + 1 is the popcount of i

local function deadline_at(s, pos)
  local b1, b2, b3, b4, b5, b6 = byte(s, pos + n + 13, pos + n + 18)
  return ((((b1 * 256 + b2) * 256 + b3) * 256 + b4) * 256 + b5) * 256 + b6
end

local function find(bucket, id)
  for pos = 1, #bucket, width do
    if sub(bucket, pos + n, pos + n + 11) == id then return pos end
  end
  return nil
end

local function with_state(bucket, pos, state)
  return sub(bucket, 1, pos + n + 11) .. state .. sub(bucket, pos + n + 13)
end

-- tombstones whose lease has passed go when their bucket is written anyway
local function collect(bucket)
  local kept = {}
  for pos = 1, #bucket, width do
    local state = sub(bucket, pos + n + 12, pos + n + 12)
    if not (state == 'D' and now >= deadline_at(bucket, pos)) then
      kept[#kept + 1] = sub(bucket, pos, pos + width - 1)
    end
  end
  return table.concat(kept)
end

local function store(field, bucket)
  if #bucket == 0 then
    redis.call('HDEL', KEYS[1], field)
  else
    redis.call('HSET', KEYS[1], field, bucket)
  end
end

if mode == 'C' or mode == 'Q' then
  local radius, probes = tonumber(ARGV[4]), ARGV[5]
  local own_id = ''
  if mode == 'C' then
    local entry, home = ARGV[6], ARGV[7] == '1'
    own_id = sub(entry, n + 1, n + 12)
    local own = sub(probes, 1, kw)
    local bucket = redis.call('HGET', KEYS[1], own) or ''
    local pos = find(bucket, own_id)
    if home and ((pos and sub(bucket, pos + n + 12, pos + n + 12) == 'D')
                 or (not pos and now >= deadline_at(entry, 1))) then
      return {'X'}
    end
    if not pos then
      store(own, collect(bucket) .. entry)
      if home then redis.call('HSET', KEYS[2], own_id, ARGV[8]) end
    end
  end
  local query = {byte(ARGV[6], 1, n)}  -- the entry's fingerprint, or the query's
  local hits = {}
  local total = #probes / kw
  local at = 0
  while at < total do
    local take = math.min(total - at, 4000)
    local fields = {}
    for i = 1, take do fields[i] = sub(probes, (at + i - 1) * kw + 1, (at + i) * kw) end
    local found = redis.call('HMGET', KEYS[1], unpack(fields))
    for i = 1, take do
      local bucket = found[i]
      if bucket then
        for pos = 1, #bucket, width do
          local d = 0
          for j = 1, n do
            d = d + byte(POPCOUNT, bxor(query[j], byte(bucket, pos + j - 1)) + 1)
            if d > radius then break end
          end
          if d <= radius and sub(bucket, pos + n, pos + n + 11) ~= own_id
             and sub(bucket, pos + n + 12, pos + n + 12) ~= 'D' then  -- tombstones are no pages
            hits[#hits + 1] = sub(bucket, pos, pos + width - 1)
          end
        end
      end
    end
    at = at + take
  end
  return {'OK', table.concat(hits)}
end

if mode == 'S' then
  local out = {}
  for i = 0, tonumber(ARGV[4]) - 1 do
    local field, entry = ARGV[5 + 2 * i], ARGV[6 + 2 * i]
    local id = sub(entry, n + 1, n + 12)
    local bucket = redis.call('HGET', KEYS[1], field) or ''
    local pos = find(bucket, id)
    local state, page = 'U', ''
    if pos then
      state = sub(bucket, pos + n + 12, pos + n + 12)
      if state == 'P' and now >= deadline_at(bucket, pos) then
        state = 'D'
        store(field, with_state(bucket, pos, 'D'))
        redis.call('HDEL', KEYS[2], id)
      elseif state ~= 'D' then
        page = redis.call('HGET', KEYS[2], id) or ''
      end
    elseif now >= deadline_at(entry, 1) then
      -- never claimed at home and its lease is over: a tombstone, so that it never will be
      state = 'D'
      store(field, collect(bucket) .. sub(entry, 1, n + 12) .. 'D' .. sub(entry, n + 14))
    end
    out[#out + 1] = state
    out[#out + 1] = page
  end
  return out
end

if mode == 'K' then
  local field, id = ARGV[4], ARGV[5]
  local bucket = redis.call('HGET', KEYS[1], field) or ''
  local pos = find(bucket, id)
  if not pos or sub(bucket, pos + n + 12, pos + n + 12) ~= 'P' then return 0 end
  store(field, with_state(bucket, pos, 'K'))
  redis.call('INCR', KEYS[3])
  return 1
end

if mode == 'R' then
  for i = 0, tonumber(ARGV[4]) - 1 do
    local field, id, home = ARGV[5 + 3 * i], ARGV[6 + 3 * i], ARGV[7 + 3 * i] == '1'
    local bucket = redis.call('HGET', KEYS[1], field)
    local pos = bucket and find(bucket, id)
    if pos then
      if home then
        if sub(bucket, pos + n + 12, pos + n + 12) == 'P' then
          store(field, with_state(bucket, pos, 'D'))
          redis.call('HDEL', KEYS[2], id)
        end
      else
        store(field, sub(bucket, 1, pos - 1) .. sub(bucket, pos + width))
      end
    end
  end
  return 1
end

if mode == 'A' then
  local added = 0
  for i = 0, tonumber(ARGV[4]) - 1 do
    local field, entry, home = ARGV[5 + 4 * i], ARGV[6 + 4 * i], ARGV[7 + 4 * i] == '1'
    local bucket = redis.call('HGET', KEYS[1], field) or ''
    if not find(bucket, sub(entry, n + 1, n + 12)) then
      store(field, bucket .. entry)
      if home then
        redis.call('HSET', KEYS[2], sub(entry, n + 1, n + 12), ARGV[8 + 4 * i])
        added = added + 1
      end
    end
  end
  if added > 0 then redis.call('INCRBY', KEYS[3], added) end
  return added
end
return redis.error_reply('unknown mode ' .. mode)
""".replace("POPCOUNT_BYTES", "".join(f"\\{i.bit_count()}" for i in range(256)))

# Write the parameters if the index is new, else return the stored ones (as RedisIndex does).
_OPEN_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return {}
"""


def table_tags(prefix: str, namespace: str, tables: int) -> list[str]:
    """One hash tag per table, its slot in the table's share of the slot range (table t of T
    in [t * 16384 / T, (t + 1) * 16384 / T)), so even slot ranges put even shares of the
    tables on each node. Deterministic: every client computes the same tags."""
    tags = []
    for t in range(tables):
        low = t * REDIS_CLUSTER_HASH_SLOTS // tables
        high = (t + 1) * REDIS_CLUSTER_HASH_SLOTS // tables
        for n in range(1_000_000):
            tag = f"{prefix}:{namespace}:t{t}:{n}"
            if low <= key_slot(tag.encode()) < high:
                tags.append(tag)
                break
    return tags


class RedisClusterIndex(NearDuplicateIndex):
    """A near-duplicate index spread over a Redis Cluster, one table per hash tag.

    ``url``: a ``redis://host:port`` of any node (redis-py options in its query string);
    ``prefix``: the key prefix; ``lease``: seconds a pending claim holds before it counts as
    dropped (see the module docstring); ``batch_size``: pairs per round trip in
    :meth:`add_many`; ``client``: an existing ``RedisCluster`` (the URL is then for messages).
    """

    max_probe_radius = None  # the scripts read the buckets of every probe key

    def __init__(
        self,
        url: str = "redis://127.0.0.1:7000",
        *,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        namespace: str = "pages",
        tables: TablesOption = None,
        params: Mapping[str, object] | None = None,
        prefix: str = DEFAULT_PREFIX,
        lease: float = DEFAULT_LEASE,
        batch_size: int = 500,
        client: RedisCluster | None = None,
        **connection_options: Any,
    ) -> None:
        super().__init__(
            bits=bits, max_distance=max_distance, namespace=namespace, tables=tables, params=params
        )
        self.prefix = validate_prefix(prefix)
        if not float(lease) > 0:
            raise ValueError(f"lease must be > 0 seconds, got {lease}")
        self.lease_ms = round(float(lease) * 1000)
        if int(batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = int(batch_size)
        self._given_url = url
        self.url = mask_password(url)
        self.location = (
            f"Redis Cluster index {self.url} (prefix {self.prefix!r}, namespace {namespace!r})"
        )
        self.meta_key = f"{{{self.prefix}:{namespace}}}:cmeta"
        tags = table_tags(self.prefix, namespace, self.layout.table_count)
        self.table_keys = [[f"{{{tag}}}:b", f"{{{tag}}}:k", f"{{{tag}}}:n"] for tag in tags]
        self._fp_bytes = self.bits // 8
        self._key_bytes = (self.layout.key_bits + 7) // 8
        self._prepare_probes()
        self._client_tag = os.urandom(4)
        self._last_micros = 0
        self._owns_client = client is None
        if client is None:
            settings: dict[str, Any] = {
                "socket_connect_timeout": 5.0, "socket_timeout": 10.0,
                "retry": Retry(NoBackoff(), 0), **connection_options,
            }
            try:
                client = RedisCluster.from_url(url, **settings)
            except redis.RedisError as error:
                raise redis_error(self.location, url, error, "cannot open") from error
            except RedisClusterException as error:  # no node reachable: not a RedisError
                raise IndexUnavailable(
                    f"cannot open {self.location}: Redis Cluster unreachable "
                    f"({mask_password(str(error))})"
                ) from None
        self._cluster = client
        self._sha = ""
        self._nodes: list[Any] = []
        try:
            self._locate_tables()
            self._open_parameters(params)
        except redis.RedisError as error:
            self._release()
            raise redis_error(self.location, url, error, "cannot open") from error
        except BaseException:
            self._release()
            raise

    @classmethod
    def from_uri(cls, uri: str, **kwargs: Any) -> RedisClusterIndex:
        """Build from ``redis+cluster://host:port[?options]``: any node of the cluster;
        ``prefix``, ``lease`` and ``batch_size`` are this backend's options, the rest go to
        redis-py."""
        target = str(parse_index_uri(uri).target)
        return cls("redis://" + target.split("://", 1)[1], **kwargs)

    # -- set-up ------------------------------------------------------------------------------

    def _prepare_probes(self) -> None:
        """Where each table's probe keys start and end in the layout's probe columns."""
        counts = self.layout.probe_counts
        self._probe_bounds = np.cumsum((0, *counts)).tolist()

    def _locate_tables(self) -> None:
        """The node of each table's slot (again after the cluster moved slots), and the script
        loaded on each of those nodes."""
        self._nodes = [
            self._cluster.get_node_from_key(keys[0]) for keys in self.table_keys
        ]
        for node in {node.name: node for node in self._nodes}.values():
            self._cluster.get_redis_connection(node).script_load(_SCRIPT)
        sha = hashlib.sha1(_SCRIPT.encode()).hexdigest()  # how Redis names a script
        self._sha = sha
        self._heads = [
            b"".join(b"$%d\r\n%s\r\n" % (len(part), part)
                     for part in (b"EVALSHA", sha.encode(), b"3", *(k.encode() for k in keys)))
            for keys in self.table_keys
        ]

    def _open_parameters(self, params: Mapping[str, object] | None) -> None:
        wanted = self._parameter_record(params, FORMAT_VERSION)
        flat = [part for pair in wanted.items() for part in pair]
        script = self._cluster.register_script(_OPEN_SCRIPT)
        reply = script(keys=[self.meta_key], args=flat)
        stored = {reply[i].decode(): reply[i + 1].decode() for i in range(0, len(reply), 2)}
        if not stored:
            return
        self._check_parameter_record(
            self.location, stored, wanted, check_user_params=params is not None
        )
        self.params = {
            name[len("param."):]: json.loads(value)
            for name, value in stored.items() if name.startswith("param.")
        }

    # -- sending -----------------------------------------------------------------------------

    def _send(self, calls: Sequence[tuple[int, Sequence[Any]]], doing: str) -> list[Any]:
        """Run the table script once per ``(table, arguments)``: every node's calls written
        first, then every reply read, so one round trip costs the slowest node's time.

        A MOVED/ASK reply (the slot went to another node: nothing ran) relocates the tables and
        sends those calls again; NOSCRIPT (a restarted node) loads the script and resends."""
        self._check_open()
        replies: list[Any] = [None] * len(calls)
        todo = list(range(len(calls)))
        for _ in range(3):
            failed = self._send_once(calls, todo, replies, doing)
            if not failed:
                return replies
            self._cluster.nodes_manager.initialize()
            try:
                self._locate_tables()
            except redis.RedisError as error:
                raise redis_error(self.location, self._given_url, error, doing) from error
            todo = failed
        raise NearDuplicateIndexError(f"{doing} {self.location}: the cluster keeps moving slots")

    def _send_once(
        self, calls: Sequence[tuple[int, Sequence[Any]]], todo: list[int], replies: list[Any],
        doing: str,
    ) -> list[int]:
        by_node: dict[str, list[int]] = {}
        for i in todo:
            by_node.setdefault(self._nodes[calls[i][0]].name, []).append(i)
        sent = []
        try:
            for name, indexes in by_node.items():
                client = self._cluster.get_redis_connection(self._cluster.get_node(node_name=name))
                pool = client.connection_pool
                connection = pool.get_connection()
                sent.append((pool, connection, indexes))
                connection.send_packed_command(
                    [b"".join(self._pack(*calls[i]) for i in indexes)], check_health=False
                )
            retry = []
            for _, connection, indexes in sent:
                for i in indexes:
                    try:
                        replies[i] = connection.read_response()
                    except redis.ResponseError as error:
                        text = str(error)
                        if text.startswith(("MOVED", "ASK", "NOSCRIPT", "TRYAGAIN", "CLUSTERDOWN")):
                            retry.append(i)
                        else:
                            raise NearDuplicateIndexError(f"{doing} {self.location}: {error}") \
                                from error
            return retry
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            for _, connection, _ in sent:
                connection.disconnect()  # it may hold replies never read
            if not isinstance(error, redis.RedisError):
                error = redis.ConnectionError(str(error))
            raise redis_error(self.location, self._given_url, error, doing) from error
        except BaseException:
            for _, connection, _ in sent:
                connection.disconnect()
            raise
        finally:
            for pool, connection, _ in sent:
                pool.release(connection)

    def _pack(self, table: int, args: Sequence[Any]) -> bytes:
        """EVALSHA of the table script, packed here: redis-py's generic packing costs about as
        much client CPU as the rest of a call."""
        head = self._heads[table]
        parts = [b"*%d\r\n" % (len(args) + 6), head]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        return b"".join(parts)

    # -- encoding ----------------------------------------------------------------------------

    def _new_id(self) -> bytes:
        """Unique and totally ordered: this client's increasing microseconds, then its tag."""
        micros = max(time.time_ns() // 1000, self._last_micros + 1)
        self._last_micros = micros
        return micros.to_bytes(8, "big") + self._client_tag

    def _home(self, page_id: bytes) -> int:
        return int.from_bytes(page_id, "big") % self.layout.table_count

    def _table_fields(self, fingerprint: int) -> list[bytes]:
        """Each table's own key, as the bucket hash's field."""
        size = self._key_bytes
        return [key.to_bytes(size, "big") for key in self.layout.keys(fingerprint)]

    def _probe_fields(self, fingerprint: int) -> list[bytes]:
        """Per table, its probe keys concatenated (its own key first)."""
        if self.layout.exact:
            return self._table_fields(fingerprint)
        words = np.array(
            [[(fingerprint >> (64 * w)) & MASK64 for w in range(self.layout.words)]],
            dtype=np.uint64,
        )
        keys = self.layout.probe_keys(words, prefixed=False)[0]
        packed = keys.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 8 - self._key_bytes :]
        bounds = self._probe_bounds
        return [packed[bounds[t] : bounds[t + 1]].tobytes() for t in range(len(bounds) - 1)]

    def _entry(self, fingerprint: int, page_id: bytes, state: bytes, deadline_ms: int) -> bytes:
        return (fingerprint.to_bytes(self._fp_bytes, "big") + page_id + state
                + deadline_ms.to_bytes(LEASE_BYTES, "big"))

    def _hits(self, replies: Iterable[Any]) -> dict[bytes, bytes]:
        """Near entries by id, from the tables' replies (an id found in several tables once)."""
        width = self._fp_bytes + ID_BYTES + 1 + LEASE_BYTES
        n = self._fp_bytes
        found: dict[bytes, bytes] = {}
        for reply in replies:
            data = reply[1]
            for pos in range(0, len(data), width):
                entry = data[pos : pos + width]
                found.setdefault(entry[n : n + ID_BYTES], entry)
        return found

    def _fp_of(self, entry: bytes) -> int:
        return int.from_bytes(entry[: self._fp_bytes], "big")

    # -- the protocol steps ------------------------------------------------------------------

    def _claim(self, key: bytes, value: int) -> tuple[bytes, dict[bytes, bytes]] | None:
        """Step 1: insert the page pending in every table and read what is near; None if the
        claim was dropped at home before it arrived (start over)."""
        page_id = self._new_id()
        deadline = time.time_ns() // 1_000_000 + self.lease_ms
        entry = self._entry(value, page_id, PENDING, deadline)
        home = self._home(page_id)
        probes = self._probe_fields(value)
        calls = [
            (t, ("C", self._fp_bytes, self._key_bytes, self.max_distance, probes[t], entry,
                 "1" if t == home else "0", key if t == home else b""))
            for t in range(self.layout.table_count)
        ]
        replies = self._send(calls, "check_and_add on")
        if any(reply[0] == b"X" for reply in replies):
            self._retract([(page_id, value)])
            return None
        return page_id, self._hits(replies)

    def _statuses(self, entries: Mapping[bytes, bytes]) -> dict[bytes, tuple[bytes, bytes]]:
        """Step 2: each entry's (state, page key) at its home; polls while any is on its way
        there (state U: written to other tables, not yet to its home, lease running)."""
        out: dict[bytes, tuple[bytes, bytes]] = {}
        todo = dict(entries)
        pause = 0.0005
        while todo:
            by_home: dict[int, list[bytes]] = {}
            for page_id in todo:
                by_home.setdefault(self._home(page_id), []).append(page_id)
            calls = []
            for home, ids in by_home.items():
                args: list[Any] = ["S", self._fp_bytes, self._key_bytes, len(ids)]
                for page_id in ids:
                    args += [self._table_fields(self._fp_of(todo[page_id]))[home], todo[page_id]]
                calls.append((home, args))
            replies = self._send(calls, "check_and_add on")
            waiting = {}
            for (_, ids), reply in zip(by_home.items(), replies, strict=True):
                for i, page_id in enumerate(ids):
                    state, page = reply[2 * i], reply[2 * i + 1]
                    if state == UNKNOWN:
                        waiting[page_id] = todo[page_id]
                    else:
                        out[page_id] = (state, page)
            todo = waiting
            if todo:
                time.sleep(pause)
                pause = min(pause * 2, 0.02)
        return out

    def _retract(self, pairs: Sequence[tuple[bytes, int]]) -> None:
        """Drop claims: the home copy becomes a tombstone, the other copies go."""
        by_table: dict[int, list[Any]] = {}
        for page_id, value in pairs:
            home = self._home(page_id)
            for t, field in enumerate(self._table_fields(value)):
                by_table.setdefault(t, []).extend((field, page_id, "1" if t == home else "0"))
        calls = [
            (t, ["R", self._fp_bytes, self._key_bytes, len(args) // 3, *args])
            for t, args in by_table.items()
        ]
        self._send(calls, "check_and_add on")

    def _keep(self, page_id: bytes, value: int) -> bool:
        """Step 4 for a kept page: pending -> kept at home; False if it was dropped meanwhile."""
        home = self._home(page_id)
        field = self._table_fields(value)[home]
        reply = self._send([(home, ["K", self._fp_bytes, self._key_bytes, field, page_id])],
                           "check_and_add on")
        return reply[0] == 1

    def _match(self, value: int, entry: bytes, page: bytes) -> Match:
        fp = self._fp_of(entry)
        return Match(page.decode("utf-8"), fp, (fp ^ value).bit_count())

    def _nearest(self, value: int, candidates: list[tuple[bytes, bytes, bytes]]) -> Match:
        """The nearest of (id, entry, page key) candidates; ties: the smallest id."""
        _, _, entry, page = min(
            ((self._fp_of(entry) ^ value).bit_count(), page_id, entry, page)
            for page_id, entry, page in candidates
        )
        return self._match(value, entry, page)

    # -- the index protocol ------------------------------------------------------------------

    def check_and_add(self, key: str, fingerprint: int) -> Match | None:
        """The nearest kept page within k (ties: the smallest id), or None after keeping this
        one; exactly one page of a near-duplicate cluster is kept across all clients (see the
        module docstring for the protocol and what a dead writer's lease costs)."""
        self._check_open()
        value = self._fingerprint(fingerprint)
        encoded = self._key(key).encode("utf-8")
        for _ in range(MAX_RESTARTS):
            claimed = self._claim(encoded, value)
            if claimed is None:
                continue
            page_id, near = claimed
            decided = self._decide(page_id, value, near)
            if decided is not None:
                return decided
            if self._keep(page_id, value):
                return None
            self._retract([(page_id, value)])  # our lease ran out and someone dropped us
        raise NearDuplicateIndexError(
            f"check_and_add on {self.location}: claims kept expiring ({MAX_RESTARTS} tries); "
            "is the lease shorter than a round trip?"
        )

    def _decide(self, page_id: bytes, value: int, near: dict[bytes, bytes]) -> Match | None:
        """Step 3: a Match (this page is a duplicate, its claim retracted), or None (keep it)."""
        dead: list[tuple[bytes, int]] = []
        while near:
            statuses = self._statuses(near)
            kept, lower, higher = [], [], {}
            for other, (state, page) in statuses.items():
                if state == DROPPED:
                    dead.append((other, self._fp_of(near[other])))
                elif state == KEPT:
                    kept.append((other, near[other], page))
                elif other < page_id:
                    lower.append((other, near[other], page))
                else:
                    higher[other] = near[other]
            if kept or lower:
                self._retract([(page_id, value), *dead])
                return self._nearest(value, kept or lower)
            near = higher
            if near:
                time.sleep(0.002)  # higher ids still pending: they decide first
        if dead:
            self._retract(dead)  # copies of dead or dropped claims nobody removed yet
        return None

    def add(self, key: str, fingerprint: int) -> None:
        self.add_many([(key, fingerprint)])

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        """Store pairs kept, unchecked: ``batch_size`` pairs per round trip."""
        self._check_open()
        for chunk in _chunks(iter(items), self.batch_size):
            by_table: dict[int, list[Any]] = {}
            deadline = time.time_ns() // 1_000_000 + self.lease_ms
            for key, fingerprint in chunk:
                encoded = self._key(key).encode("utf-8")
                value = self._fingerprint(fingerprint)
                page_id = self._new_id()
                home = self._home(page_id)
                for t, field in enumerate(self._table_fields(value)):
                    state = KEPT if t == home else PENDING
                    by_table.setdefault(t, []).extend((
                        field, self._entry(value, page_id, state, deadline),
                        "1" if t == home else "0", encoded if t == home else b"",
                    ))
            calls = [
                (t, ["A", self._fp_bytes, self._key_bytes, len(args) // 4, *args])
                for t, args in by_table.items()
            ]
            self._send(calls, "add to")

    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        """Every kept page within ``max_distance``, nearest first, then smallest id (oldest
        first for one client). Pages still pending are not returned."""
        value = self._fingerprint(fingerprint)
        radius = self._radius(max_distance)
        self._check_open()
        probes = self._probe_fields(value)
        query_fp = value.to_bytes(self._fp_bytes, "big")
        calls = [
            (t, ("Q", self._fp_bytes, self._key_bytes, radius, probes[t], query_fp))
            for t in range(self.layout.table_count)
        ]
        near = self._hits(self._send(calls, "query"))
        if not near:
            return []
        statuses = self._statuses(near)
        found = sorted(
            ((self._fp_of(near[i]) ^ value).bit_count(), i, near[i], page)
            for i, (state, page) in statuses.items() if state == KEPT
        )
        return [self._match(value, entry, page) for _, _, entry, page in found]

    def __len__(self) -> int:
        self._check_open()
        try:
            total = 0
            for keys in self.table_keys:
                total += int(self._cluster.get(keys[2]) or 0)
            return total
        except redis.RedisError as error:
            raise redis_error(self.location, self._given_url, error, "count") from error

    # -- housekeeping ------------------------------------------------------------------------

    def drop(self) -> None:
        """Delete this index: its parameters and every table's keys, by name."""
        self._check_open()
        try:
            self._cluster.delete(self.meta_key)
            for keys in self.table_keys:
                self._cluster.delete(*keys)
        except redis.RedisError as error:
            raise redis_error(self.location, self._given_url, error, "drop") from error

    def nodes(self) -> list[str]:
        """Each table's node (``host:port``), in table order."""
        return [node.name for node in self._nodes]

    def _close(self) -> None:
        self._release()

    def _release(self) -> None:
        if self._owns_client:
            self._cluster.close()

    def __repr__(self) -> str:
        return (
            f"<RedisClusterIndex {self.url} prefix={self.prefix!r} namespace={self.namespace!r} "
            f"bits={self.bits} k={self.max_distance} {self.layout.describe()}>"
        )


def _chunks(iterator: Iterator, size: int) -> Iterator[list]:
    while chunk := list(islice(iterator, size)):
        yield chunk

