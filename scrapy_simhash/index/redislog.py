"""The Redis backend's stored form (format 2): a log of fingerprints by id, and its one Lua script.

Keys (all under the index's hash tag, see :mod:`scrapy_simhash.index.redis`): ``meta``, ``seq``
(the last id), ``keys`` (page keys, 128 ids per hash field: a 2-byte length then the UTF-8 bytes),
``log:<c>`` (strings of the fingerprints of ids ``c * LOG_CHUNK_IDS + 1`` onwards, ``bits / 8``
bytes each, little-endian, at offset ``(id - 1) % LOG_CHUNK_IDS``), ``removed`` (how many ids were
removed), ``gone`` (the removed ids, 4 bytes each, in removal order) and ``evidence``.

Every client mirrors the log in memory (:class:`Mirror`) and searches its mirror; the script only
moves bytes and decides. Every call names how far the caller's mirror has read (its ``synced``
id, ``gone_seen`` removals and the index's ``instance`` token) and the reply carries the entries
logged since, which the caller ingests. ``check_and_add`` sends the nearest match its mirror
found (the *hint*); the script checks the hint was not removed meanwhile, measures the entries
logged since the mirror's last read (at most :data:`CHECK_LIMIT`; more, and it only returns them
so that the caller searches them in its mirror and asks again), and either answers the nearest
match or logs the fingerprint: atomic, as the whole decision is one script.

Replies are one binary string: status (1 byte), instance (16), then four big-endian uint32 (the
server's ``seq`` and ``removed``, the entries of the log delta and of the removals delta), the
log delta (ids ``synced + 1`` onwards), the removals delta, then the mode's own tail.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from .layout import Layout
from .memory import FingerprintTables

#: Ids per ``log:<c>`` string: 16 MB at 128 bits, well below Redis's 512 MB per string.
LOG_CHUNK_IDS = 1 << 20
#: New entries ``check_and_add``'s script measures itself; more go back to the caller's mirror.
CHECK_LIMIT = 64
#: Entries per delta at most (a mirror far behind catches up in several calls).
DELTA_LIMIT = 1 << 16
INSTANCE_BYTES = 16
_HEADER = struct.Struct(">IIII")
HEADER_BYTES = 1 + INSTANCE_BYTES + _HEADER.size

# Statuses
MATCH, STORED, ADDED, KEYS, REMOVED, DATA, BEHIND, RESET = b"MSAKXDYR"

# KEYS: meta, seq, keys, log (base name of the log:<c> strings), removed, gone, evidence.
# ARGV: mode, fingerprint width in bytes, log chunk ids, the caller's instance, synced,
# gone_seen, then per mode:
#   "D" sync:          nothing                         -> D + deltas
#   "C" check_and_add: radius, key, fp, hint id, hint distance
#                       -> M + deltas + id(4) + distance(1) + key | S (stored as id seq) | Y
#   "A" add many:      count, then key, fp per item   -> A (seq = the id before the first)
#   "K" keys of ids:   ids (4 bytes each)             -> K + (length(2) + key) per id | Y
#   "X" remove:        key, fp, candidate ids (4 bytes each) -> X + deltas + count(4) | Y
# Y: the caller's mirror is behind in a way the script leaves to it (ingest the deltas, retry);
# R: the mirror belongs to another life of the index (reset it, read again, retry).
SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('SIMHASH_NOMETA the index parameters are missing')
end
local byte, char, sub, floor, bxor = string.byte, string.char, string.sub, math.floor, bit.bxor
local mode, n, span = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local caller, synced, seen = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local CHUNK, CHECK_LIMIT, DELTA_LIMIT = 128, CHECK_LIMIT_VALUE, DELTA_LIMIT_VALUE
local instance = redis.call('HGET', KEYS[1], 'instance') or ''
local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
local removed = tonumber(redis.call('GET', KEYS[5]) or '0')
local FULL = 'SIMHASH_FULL the index holds at most 2**32 - 1 fingerprints'

local function u32(v)
  return char(floor(v / 16777216) % 256, floor(v / 65536) % 256, floor(v / 256) % 256, v % 256)
end
local function read_u32(s, at)
  local b1, b2, b3, b4 = byte(s, at, at + 3)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4
end
local padded = instance .. string.rep(' ', INSTANCE_BYTES_VALUE - #instance)

-- the fingerprints of ids first .. last (consecutive), across log strings
local function read_log(first, last)
  local parts = {}
  local id = first
  while id <= last do
    local c = floor((id - 1) / span)
    local stop = math.min(last, (c + 1) * span)
    local base = (id - 1 - c * span) * n
    local stop_at = base + (stop - id + 1) * n - 1
    parts[#parts + 1] = redis.call('GETRANGE', KEYS[4] .. ':' .. c, base, stop_at)
    id = stop + 1
  end
  return table.concat(parts)
end

-- store fingerprints (concatenated) for ids first onwards
local function write_log(first, data)
  local id, at, count = first, 1, #data / n
  local last = first + count - 1
  while id <= last do
    local c = floor((id - 1) / span)
    local stop = math.min(last, (c + 1) * span)
    local size = (stop - id + 1) * n
    local base = (id - 1 - c * span) * n
    redis.call('SETRANGE', KEYS[4] .. ':' .. c, base, sub(data, at, at + size - 1))
    at, id = at + size, stop + 1
  end
end

local function key_of(id)
  local chunk = redis.call('HGET', KEYS[3], u32(floor((id - 1) / CHUNK)))
  local pos = 1
  for _ = 1, (id - 1) % CHUNK do
    local b1, b2 = byte(chunk, pos, pos + 1)
    pos = pos + 2 + b1 * 256 + b2
  end
  local b1, b2 = byte(chunk, pos, pos + 1)
  return sub(chunk, pos + 2, pos + 1 + b1 * 256 + b2), pos
end

-- log the pages keys[i], fps (concatenated) as ids first onwards
local function store(first, keys, fps)
  write_log(first, fps)
  local records, slot = {}, nil
  local function flush()
    if slot then
      local field = u32(slot)
      local chunk = redis.call('HGET', KEYS[3], field) or ''
      redis.call('HSET', KEYS[3], field, chunk .. table.concat(records))
    end
  end
  for i, key in ipairs(keys) do
    local s = floor((first + i - 2) / CHUNK)
    if s ~= slot then flush(); records, slot = {}, s end
    records[#records + 1] = char(floor(#key / 256), #key % 256) .. key
  end
  flush()
  redis.call('SET', KEYS[2], first + #keys - 1)
end

local function reply(status, log, gone, tail)
  return status .. padded .. u32(seq) .. u32(removed) .. u32(#log / n) .. u32(#gone / 4)
    .. log .. gone .. (tail or '')
end

if mode == 'A' then
  local count = tonumber(ARGV[7])
  if seq + count > 4294967295 then return redis.error_reply(FULL) end
  local keys, fps = {}, {}
  for i = 1, count do
    keys[i], fps[i] = ARGV[6 + 2 * i], ARGV[7 + 2 * i]
  end
  store(seq + 1, keys, table.concat(fps))
  return reply('A', '', '', '')
end

local fresh = caller == '' and synced == 0 and seen == 0
if not fresh and (caller ~= instance or seq < synced or removed < seen) then
  return reply('R', '', '', '')
end

-- the deltas: the log after synced (at most limit entries), and the removals after seen once
-- the log delta reaches seq (a removal may name any id up to seq)
local function removals_after(upto)
  if upto <= seen then return '' end
  return redis.call('GETRANGE', KEYS[6], seen * 4, upto * 4 - 1)
end

local function deltas(limit)
  local last = math.min(seq, synced + limit)
  local log, gone = '', ''
  if last > synced then log = read_log(synced + 1, last) end
  if last == seq then gone = removals_after(math.min(removed, seen + limit)) end
  return log, gone
end

if mode == 'D' then
  local log, gone = deltas(DELTA_LIMIT)
  return reply('D', log, gone, '')
end

if mode == 'K' then
  if removed ~= seen then return reply('Y', '', '', '') end
  local ids, out = ARGV[7], {}
  for at = 1, #ids, 4 do
    local key = key_of(read_u32(ids, at))
    out[#out + 1] = char(floor(#key / 256), #key % 256) .. key
  end
  return reply('K', '', '', table.concat(out))
end

local function dead_ids(gone)
  local dead = {}
  for at = 1, #gone, 4 do dead[read_u32(gone, at)] = true end
  return dead
end

if mode == 'C' then
  local radius, key, fp = tonumber(ARGV[7]), ARGV[8], ARGV[9]
  local best_id, best_d = tonumber(ARGV[10]), tonumber(ARGV[11])
  if seq - synced > CHECK_LIMIT or removed - seen > CHECK_LIMIT then
    local log, gone = deltas(DELTA_LIMIT)
    return reply('Y', log, gone, '')
  end
  local log, gone = deltas(CHECK_LIMIT)
  local dead = dead_ids(gone)
  if best_id > 0 and dead[best_id] then return reply('Y', log, gone, '') end
  if best_id == 0 then best_d = radius + 1 end
  local POPCOUNT = 'POPCOUNT_BYTES'  -- byte i + 1 is the popcount of i
  local query = {byte(fp, 1, n)}
  for i = 0, seq - synced - 1 do
    local id = synced + 1 + i
    if not dead[id] then
      local d, at = 0, i * n
      for j = 1, n do
        d = d + byte(POPCOUNT, bxor(query[j], byte(log, at + j)) + 1)
        if d >= best_d then break end
      end
      if d < best_d then best_id, best_d = id, d end
    end
  end
  if best_id > 0 then
    return reply('M', log, gone, u32(best_id) .. char(best_d) .. key_of(best_id))
  end
  if seq + 1 > 4294967295 then return redis.error_reply(FULL) end
  store(seq + 1, {key}, fp)
  seq = seq + 1
  return reply('S', log, gone, '')
end

if mode == 'X' then
  local key, fp, ids = ARGV[7], ARGV[8], ARGV[9]
  redis.call('HDEL', KEYS[7], key)
  if seq - synced > DELTA_LIMIT or removed - seen > DELTA_LIMIT then
    local log, gone = deltas(DELTA_LIMIT)
    return reply('Y', log, gone, '')
  end
  local dead = dead_ids(removals_after(removed))
  local candidates = {}
  for at = 1, #ids, 4 do candidates[#candidates + 1] = read_u32(ids, at) end
  if seq > synced then
    local log = read_log(synced + 1, seq)
    for i = 0, seq - synced - 1 do
      if sub(log, i * n + 1, (i + 1) * n) == fp then
        candidates[#candidates + 1] = synced + 1 + i
      end
    end
  end
  local count = 0
  for _, id in ipairs(candidates) do
    if not dead[id] then
      local stored, pos = key_of(id)
      if stored == key then
        local field = u32(floor((id - 1) / CHUNK))
        local chunk = redis.call('HGET', KEYS[3], field)
        redis.call('HSET', KEYS[3], field,
          sub(chunk, 1, pos - 1) .. char(0, 0) .. sub(chunk, pos + 2 + #stored))
        redis.call('SETRANGE', KEYS[6], (removed + count) * 4, u32(id))
        dead[id] = true
        count = count + 1
      end
    end
  end
  if count > 0 then redis.call('INCRBY', KEYS[5], count) end
  removed = removed + count
  local log, gone = deltas(DELTA_LIMIT)
  return reply('X', log, gone, u32(count))
end
return redis.error_reply('unknown mode ' .. mode)
""".replace("POPCOUNT_BYTES", "".join(f"\\{i.bit_count()}" for i in range(256))).replace(
    "CHECK_LIMIT_VALUE", str(CHECK_LIMIT)
).replace("DELTA_LIMIT_VALUE", str(DELTA_LIMIT)).replace(
    "INSTANCE_BYTES_VALUE", str(INSTANCE_BYTES)
)

# Write the parameters if the index is new, else return the stored ones (atomic: two workers
# opening a new index at once agree on one set). KEYS: meta. ARGV: name, value, name, value...
OPEN_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return {}
"""


@dataclass(frozen=True, slots=True)
class Reply:
    """One decoded reply of :data:`SCRIPT` (see the module docstring)."""

    status: int
    instance: bytes
    seq: int
    removed: int
    log: memoryview
    gone: memoryview
    tail: memoryview

    @classmethod
    def decode(cls, data: bytes, fp_bytes: int) -> Reply:
        view = memoryview(data)
        seq, removed, logged, gone = _HEADER.unpack_from(data, 1 + INSTANCE_BYTES)
        start = HEADER_BYTES
        middle = start + logged * fp_bytes
        end = middle + gone * 4
        return cls(
            status=data[0],
            instance=bytes(view[1 : 1 + INSTANCE_BYTES]).rstrip(b" "),
            seq=seq,
            removed=removed,
            log=view[start:middle],
            gone=view[middle:end],
            tail=view[end:],
        )


class Mirror:
    """This process's copy of an index's log: fingerprints by id (row ``id - 1``) in
    :class:`FingerprintTables`, with how far the log and the removals have been read."""

    def __init__(self, layout: Layout, buffer_size: int = 2048) -> None:
        self.layout = layout
        self.buffer_size = buffer_size
        self.reset()

    def reset(self) -> None:
        """Forget everything (the index was dropped, or Redis came back empty)."""
        self.engine = FingerprintTables(self.layout, buffer_size=self.buffer_size)
        self.synced = 0  # ids 1..synced are mirrored
        self.gone_seen = 0  # removals 1..gone_seen are applied
        self.instance = b""

    def ingest(self, reply: Reply) -> None:
        """Apply a reply's deltas (a RESET reply resets the mirror instead)."""
        if reply.status == RESET:
            self.reset()
            return
        if not self.instance:
            self.instance = reply.instance
        if reply.log:
            words = np.frombuffer(reply.log, dtype="<u8").astype(np.uint64, copy=False)
            words = words.reshape(-1, self.layout.words)
            self.engine.extend(words)
            self.synced += words.shape[0]
        if reply.gone:
            for removed_id in np.frombuffer(reply.gone, dtype=">u4").tolist():
                self.engine.remove(removed_id - 1)
            self.gone_seen += len(reply.gone) // 4

    def append(self, words: np.ndarray) -> None:
        """Mirror fingerprints this process just logged right after ``synced``."""
        self.engine.extend(words)
        self.synced += words.shape[0]

    def append_one(self, fingerprint: int) -> None:
        """:meth:`append` of one fingerprint."""
        self.engine.append(fingerprint)
        self.synced += 1

    def caught_up(self, reply: Reply) -> bool:
        return self.synced == reply.seq and self.gone_seen == reply.removed
