"""Writes fingerprints to a SQLite index until killed: ``python crash_writer.py DB SEED``.

Keys are ``k0, k1, ...`` with fingerprints derived from the key; every few adds it calls
``flush()`` and then prints ``flushed N`` (N keys are durable). Between flushes the index also
commits on its own (``commit_every=7``), so a SIGKILL lands before, inside or after commits.
"""

from __future__ import annotations

import hashlib
import random
import sys

from scrapy_simhash.index import open_index

BITS, K = 128, 16


def fingerprint_of(number: int) -> int:
    """A deterministic 128-bit fingerprint for key ``k<number>`` (no two within distance K)."""
    return int.from_bytes(hashlib.blake2b(b"k%d" % number, digest_size=16).digest(), "big")


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    index = open_index(f"sqlite:///{path}?commit_every=7&commit_interval=0.05",
                       bits=BITS, max_distance=K)
    number = len(index)  # resume where the previous (killed) writer's committed rows end
    print(f"start {number}", flush=True)
    while True:
        for _ in range(rng.randint(1, 25)):
            assert index.check_and_add(f"k{number}", fingerprint_of(number)) is None
            number += 1
        index.flush()
        print(f"flushed {number}", flush=True)


if __name__ == "__main__":
    main()
