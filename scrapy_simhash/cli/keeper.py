"""The decision of ``dedup``: which records are near-duplicates of earlier ones, weighed as a
crawl weighs its pages (a candidate within the threshold, confirmed by the evidence)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from scrapy_simhash import evidence as ev

#: Candidates within the threshold whose evidence is read, nearest first (as in a crawl).
MAX_CONFIRMED_CANDIDATES = 8
_PAIR_BLOCK = 1 << 18  # distances computed at once when comparing a chunk's records pairwise


class ClusterKeeper:
    """Keeps the first record of each cluster of near-duplicates, a chunk at a time.

    A record is a duplicate only when a stored record within the threshold holds the same
    content by the evidence (:meth:`Detector.confirms`), as in a crawl: the nearest candidate
    is weighed first, then the others (nearest first, then oldest), up to
    :data:`MAX_CONFIRMED_CANDIDATES` in all. A record that none confirms is stored beside them;
    every stored record's evidence is stored too (a persistent index confirms later runs).

    The answer is exactly that of the sequential loop over the records in order
    (``check_and_add``, then ``query`` and ``get_evidence`` when there is a candidate, ``add``
    when none is confirmed, ``put_evidence``), which indexes without ``query_many`` (the band
    indexes of MinHash, KSentence and exact) run as it is. SimHash indexes answer a chunk with
    one ``query_many``, the chunk's own earlier records are compared with numpy, and the kept
    ones are added with one ``add_many``.
    """

    def __init__(self, detector: Any, index: Any) -> None:
        self.detector = detector
        self.index = index
        self.added = 0  # signatures this keeper stored
        self.unconfirmed = 0  # records kept beside a candidate the evidence did not confirm
        self.batched = hasattr(index, "query_many") and detector.name == "simhash"
        self._in_index = bool(getattr(index, "supports_evidence", False))
        self._local_evidence: dict[str, Any] = {}  # (an index that cannot keep evidence)
        self._urls: dict[str, str] = {}  # stored records' URLs, where the key is none
        if self.batched:
            self.max_distance = index.max_distance
            self.words = index.bits // 64

    def decide(
        self, keys: Sequence[str], signed: Sequence[Any], urls: Sequence[str | None] | None = None
    ) -> list[Any]:
        """For each record (its key, its ``Signed`` or None, its URL when known): the Match of
        the stored record it duplicates, or None (kept, or no signature)."""
        urls = urls if urls is not None else [None] * len(keys)
        if self.batched:
            return self._decide_chunk(keys, signed, urls)
        found: list[Any] = []
        for key, record, url in zip(keys, signed, urls, strict=True):
            found.append(None if _unsigned(record) else self._decide_one(key, record, url))
        return found

    # -- one record at a time ----------------------------------------------------------------

    def _decide_one(self, key: str, record: Any, url: str | None) -> Any:
        index, signature = self.index, record.signature
        nearest = index.check_and_add(key, signature)
        if nearest is not None:
            candidates = _candidates(nearest, index.query(signature))
            stored = self._stored_evidence([m.key for m in candidates])
            match = self._confirmed(key, url, record, candidates, stored)
            if match is not None:
                return match
            index.add(key, signature)
            self.unconfirmed += 1
        self.added += 1  # counted as it is stored: an index that fails part-way says what it kept
        self._store(key, record, url)
        return None

    def _confirmed(self, key: str, url: str | None, record: Any, candidates: list[Any],
                   stored: list[Any]) -> Any:
        """The first candidate whose stored evidence confirms ``record``'s, or None."""
        url = url or _as_url(key)
        for candidate, evidence in zip(candidates, stored, strict=True):
            other = self._urls.get(candidate.key) or _as_url(candidate.key)
            if ev.urls_part(url, other, record.evidence, evidence):
                continue
            if evidence is not None and self.detector.confirms(
                record.evidence, evidence, ev.same_site(url, other)
            ):
                return candidate
        return None

    def _store(self, key: str, record: Any, url: str | None) -> None:
        if url is not None and url != key:
            self._urls[key] = url
        else:
            self._urls.pop(key, None)
        if record.evidence is None:
            return
        if self._in_index:
            self.index.put_evidence(key, record.evidence.to_bytes())
        else:
            self._local_evidence[key] = record.evidence

    def _stored_evidence(self, keys: list[str]) -> list[Any]:
        if not keys:
            return []
        if not self._in_index:
            return [self._local_evidence.get(key) for key in keys]
        found = self.index.get_evidence(keys)
        return [None if data is None else ev.Evidence.from_bytes(data) for data in found]

    # -- a chunk at once (SimHash) -----------------------------------------------------------

    def _decide_chunk(
        self, keys: Sequence[str], signed: Sequence[Any], urls: Sequence[str | None]
    ) -> list[Any]:
        from scrapy_simhash.index import Match

        results: list[Any] = [None] * len(keys)
        positions = [i for i, record in enumerate(signed) if not _unsigned(record)]
        if not positions:
            return results
        fingerprints = [signed[i].signature for i in positions]
        found = self.index.query_many(fingerprints)
        earlier = self._near_earlier(fingerprints)
        # the stored evidence of every index candidate a record may weigh, read at once; a
        # record stored in this chunk under the same key replaces it (as put_evidence does)
        wanted = sorted({m.key for matches in found for m in matches[:MAX_CONFIRMED_CANDIDATES]})
        before = dict(zip(wanted, self._stored_evidence(wanted), strict=True))
        in_chunk: dict[str, Any] = {}
        kept = [False] * len(positions)
        for row, (position, matches) in enumerate(zip(positions, found, strict=True)):
            key, record = keys[position], signed[position]
            near = sorted(
                (distance, other) for other, distance in earlier.get(row, ()) if kept[other]
            )
            if matches or near:
                # the index's rows are older than the chunk's: at one distance, they come first
                merged = sorted(
                    [(m.distance, 0, i, m) for i, m in enumerate(matches)]
                    + [(distance, 1, other, None) for distance, other in near]
                )
                chosen = [
                    m if m is not None else Match(keys[positions[other]],
                                                  fingerprints[other], distance)
                    for distance, _, other, m in merged[:MAX_CONFIRMED_CANDIDATES]
                ]
                candidates = _candidates(chosen[0], chosen)
                stored = [in_chunk[m.key] if m.key in in_chunk else before.get(m.key)
                          for m in candidates]
                match = self._confirmed(key, urls[position], record, candidates, stored)
                if match is not None:
                    results[position] = match
                    continue
                self.unconfirmed += 1
            kept[row] = True
            self._store(key, record, urls[position])
            if record.evidence is not None:
                in_chunk[key] = record.evidence
        self.index.add_many(
            (keys[positions[row]], fingerprints[row]) for row, is_kept in enumerate(kept) if is_kept
        )
        self.added += sum(kept)
        return results

    def _near_earlier(self, fingerprints: Sequence[int]) -> dict[int, list[tuple[int, int]]]:
        """Row -> [(earlier row, distance)] of the chunk's pairs within ``max_distance``.

        All pairs at once with numpy (a chunk is small; the blocks bound the temporary
        arrays when it is not), so only the few rows with a near neighbour loop in Python.
        """
        import numpy as np

        from scrapy_simhash.index.memory import popcount, split_words

        words = split_words(fingerprints, self.words)
        count = len(fingerprints)
        block = max(1, _PAIR_BLOCK // count)
        earlier: dict[int, list[tuple[int, int]]] = {}
        for start in range(0, count, block):
            rows = words[start : start + block]
            end = start + rows.shape[0]
            distance = popcount(rows[:, None, 0] ^ words[None, :end, 0])
            for w in range(1, self.words):
                distance += popcount(rows[:, None, w] ^ words[None, :end, w])
            later, before = np.nonzero(distance <= self.max_distance)
            later += start
            pairs = before < later
            for row, other, near in zip(later[pairs].tolist(), before[pairs].tolist(),
                                        distance[later[pairs] - start, before[pairs]].tolist(),
                                        strict=True):
                earlier.setdefault(row, []).append((other, near))
        return earlier


def _unsigned(record: Any) -> bool:
    return record is None or record.signature is None


def _candidates(nearest: Any, found: Sequence[Any]) -> list[Any]:
    """The candidates a crawl weighs: the nearest, then the others among the first
    :data:`MAX_CONFIRMED_CANDIDATES` within the threshold."""
    return [nearest] + [
        m for m in found[:MAX_CONFIRMED_CANDIDATES]
        if (m.key, m.fingerprint) != (nearest.key, nearest.fingerprint)
    ]


def _as_url(key: str) -> str | None:
    """``key`` when it is a web address (a record identified by its URL), else None."""
    if not key.startswith(("http://", "https://")):
        return None
    try:
        return key if urlsplit(key).hostname else None
    except ValueError:
        return None
