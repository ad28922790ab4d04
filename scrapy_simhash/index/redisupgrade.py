"""Upgrade a Redis index stored in format 1 (buckets per layout table) to the log of format 2.

Format 1 kept, besides ``seq``, ``keys``, ``removed`` and ``evidence`` (which format 2 keeps as
they are), one hash per layout table, ``{p:ns}:t<i>``: table key -> a bucket of entries
``fingerprint (bits / 8 bytes, big-endian) + id (4 bytes, big-endian)``, every stored id once
in every table. The upgrade reads table 0's buckets (every live id, once), writes the log
strings and the removed ids (the ids below ``seq`` that no bucket holds), then, in one script,
checks that no page was stored meanwhile, swaps the tables for the log and marks the index
format 2. Run it while no crawl writes to the index: a page stored meanwhile makes it stop
(nothing changed) and say so.

    python -m scrapy_simhash.index.redisupgrade "redis://host:6379/0?prefix=crawl1" pages
"""

from __future__ import annotations

import json
import math
import secrets
import sys
from collections.abc import Sequence

import numpy as np
import redis

from .base import NamespaceNotFound, NearDuplicateIndexError
from .layout import Layout
from .redis import DEFAULT_PREFIX, FORMAT_VERSION, connect, meta_key, redis_error, validate_prefix
from .redislog import INSTANCE_BYTES, LOG_CHUNK_IDS
from .uri import parse_index_uri

# KEYS: meta, seq, removed, gone, log base, t0..tn. ARGV: seq read, instance, log strings...,
# then the removed ids (4 bytes each) last.
_SWAP = """
local meta = redis.call('HGET', KEYS[1], 'format')
if meta ~= '1' then return redis.error_reply('SIMHASH_FORMAT the index is not in format 1') end
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[1]) then
  return redis.error_reply('SIMHASH_BUSY pages were stored during the upgrade')
end
for i = 3, #ARGV - 1 do
  redis.call('SET', KEYS[5] .. ':' .. (i - 3), ARGV[i])
end
local gone = ARGV[#ARGV]
if #gone > 0 then redis.call('SET', KEYS[4], gone) end
redis.call('SET', KEYS[3], #gone / 4)
for i = 6, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'format', 'FORMAT_VALUE', 'instance', ARGV[2])
return 'OK'
""".replace("FORMAT_VALUE", json.dumps(FORMAT_VERSION))


def upgrade(uri: str, namespace: str = "pages") -> int:
    """Upgrade the index ``uri`` stores under ``namespace`` (the URI's ``prefix``) from format 1
    in place; returns the fingerprints it holds (0 and no change if it is already format 2)."""
    parsed = parse_index_uri(uri)
    prefix = validate_prefix(parsed.options.get("prefix", DEFAULT_PREFIX))
    url = str(parsed.target)
    tag = f"{{{prefix}:{namespace}}}"
    client = connect(url)
    try:
        stored = {
            name.decode(): value.decode()
            for name, value in client.hgetall(meta_key(prefix, namespace)).items()
        }
        if not stored:
            raise NamespaceNotFound(parsed.masked, namespace, [], f" under prefix {prefix!r}")
        if stored.get("format") == json.dumps(FORMAT_VERSION):
            return int(client.get(f"{tag}:seq") or 0) - int(client.get(f"{tag}:removed") or 0)
        if stored.get("format") != "1":
            raise NearDuplicateIndexError(
                f"{parsed.masked} ({tag}): unknown Redis format {stored.get('format')}"
            )
        layout = Layout.from_signature(json.loads(stored["layout_signature"]))
        count, arguments = _log_of(client, tag, layout.bits // 8)
        tables = [f"{tag}:t{t}" for t in range(layout.table_count)]
        keys = [meta_key(prefix, namespace), f"{tag}:seq", f"{tag}:removed", f"{tag}:gone",
                f"{tag}:log", *tables]
        instance = secrets.token_hex(INSTANCE_BYTES // 2)
        client.eval(_SWAP, len(keys), *keys, arguments[0], instance, *arguments[1:])
        return count
    except redis.RedisError as error:
        raise redis_error(f"{parsed.masked} ({tag})", url, error, "cannot upgrade") from None
    finally:
        client.close()


def _log_of(client, tag: str, fp_bytes: int) -> tuple[int, list]:
    """(live fingerprints, the swap's arguments: seq, the log strings, the removed ids) from
    table 0's buckets."""
    seq = int(client.get(f"{tag}:seq") or 0)
    data = bytearray()
    for _, bucket in client.hscan_iter(f"{tag}:t0", count=10_000):
        data += bucket
    entries = np.frombuffer(bytes(data), dtype=[("fp", "u1", fp_bytes), ("id", ">u4")])
    rows = entries["id"].astype(np.int64) - 1
    log = np.zeros((seq, fp_bytes), dtype=np.uint8)
    log[rows] = entries["fp"][:, ::-1]  # big-endian -> little-endian
    live = np.zeros(seq, dtype=bool)
    live[rows] = True
    gone = (np.flatnonzero(~live) + 1).astype(">u4").tobytes()
    strings = [
        log[chunk * LOG_CHUNK_IDS : (chunk + 1) * LOG_CHUNK_IDS].tobytes()
        for chunk in range(math.ceil(seq / LOG_CHUNK_IDS))
    ]
    return int(live.sum()), [seq, *strings, gone]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(arguments) <= 2:
        print("usage: python -m scrapy_simhash.index.redisupgrade URI [NAMESPACE]",
              file=sys.stderr)
        return 2
    count = upgrade(*arguments)
    print(f"{count} fingerprints in format {FORMAT_VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
