"""Page keys by row id, deflated in blocks: what the memory index keeps of a page besides its
fingerprint.

Keys are read only when a query finds a match, and a crawl's keys (its URLs) share most of
their bytes with each other (scheme, host, path), so they are kept deflated in blocks of
:data:`BLOCK_KEYS` and a read inflates one block (~20 us). Measured on the corpora's URLs (300
sites, 86 B each): 45 B a key; URLs of one site, or keys that count up, far less; 40-character
hex digests 24 B. A block costs 8 B of offset; the newest keys wait uncompressed until their
block is full.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable

#: Keys per deflated block (larger: smaller keys, slower reads).
BLOCK_KEYS = 128
#: Separates the keys of a block: a byte UTF-8 never contains.
_SEPARATOR = b"\xff"
#: Raw deflate (no header or checksum: a block's own bytes are all it needs), fastest level.
_LEVEL, _WBITS = 1, -15


class KeyStore:
    """UTF-8 keys appended in row order, read back by row."""

    def __init__(self) -> None:
        self._packed = bytearray()  # the deflated blocks, end to end
        self._block_ends = array("Q")  # where each block ends in ``_packed``
        self._tail: list[bytes] = []  # the newest keys, fewer than a block
        self._last: tuple[int, list[bytes]] = (-1, [])  # the last block read, inflated

    def __len__(self) -> int:
        return len(self._block_ends) * BLOCK_KEYS + len(self._tail)

    def append(self, encoded: bytes) -> None:
        """Store the next row's key (UTF-8 bytes)."""
        self._tail.append(encoded)
        if len(self._tail) == BLOCK_KEYS:
            self._seal(self._tail)
            self._tail = []

    def extend(self, encoded: Iterable[bytes]) -> None:
        """Store the next rows' keys, in order."""
        keys = list(encoded)
        room = BLOCK_KEYS - len(self._tail)
        if len(keys) < room:
            self._tail += keys
            return
        self._seal(self._tail + keys[:room])
        start = room
        while len(keys) - start >= BLOCK_KEYS:
            self._seal(keys[start : start + BLOCK_KEYS])
            start += BLOCK_KEYS
        self._tail = keys[start:]

    def get(self, row: int) -> str:
        """The key of ``row``."""
        block, position = divmod(row, BLOCK_KEYS)
        if block == len(self._block_ends):
            return self._tail[position].decode("utf-8")
        last = self._last
        if last[0] != block:
            start = self._block_ends[block - 1] if block else 0
            data = zlib.decompress(self._packed[start : self._block_ends[block]], _WBITS)
            last = self._last = (block, data.split(_SEPARATOR))
        return last[1][position].decode("utf-8")

    def nbytes(self) -> int:
        """Bytes held for the keys."""
        return (
            len(self._packed)
            + self._block_ends.itemsize * len(self._block_ends)
            + sum(map(len, self._tail))
        )

    def _seal(self, keys: list[bytes]) -> None:
        deflate = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WBITS)
        self._packed += deflate.compress(_SEPARATOR.join(keys))
        self._packed += deflate.flush()
        self._block_ends.append(len(self._packed))
