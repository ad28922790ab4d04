"""Upgrading a Redis index of format 1 (buckets per layout table) to the log, in place."""

from __future__ import annotations

import random

import pytest

from scrapy_simhash.index import NearDuplicateIndexError, open_index

from .test_index_contract import as_tuples, brute_force, flip

redis_backend = pytest.importorskip("scrapy_simhash.index.redis")
redisupgrade = pytest.importorskip("scrapy_simhash.index.redisupgrade")


def as_format_1(index, client, live: dict[int, int]) -> list[str]:
    """Rewrite ``index`` (format 2, ids -> fingerprints in ``live``) as format 1 stored it:
    per layout table a hash of buckets, ``fingerprint (big-endian) + id (4 bytes)`` under the
    table's own key (big-endian, the widest key's bytes); ``seq``, ``keys``, ``removed`` and
    the evidence as they are; no log. Returns the table hashes."""
    fp_bytes, key_bytes = index.bits // 8, (index.layout.key_bits + 7) // 8
    tables = [f"{index.tag}:t{t}" for t in range(index.layout.table_count)]
    buckets: list[dict[bytes, bytes]] = [{} for _ in tables]
    for id_, fingerprint in sorted(live.items()):
        entry = fingerprint.to_bytes(fp_bytes, "big") + id_.to_bytes(4, "big")
        for t, key in enumerate(index.layout.keys(fingerprint)):
            field = key.to_bytes(key_bytes, "big")
            buckets[t][field] = buckets[t].get(field, b"") + entry
    client.delete(*[key for key in index.all_keys if key.startswith(index.log_key)],
                  index.gone_key)
    for name, table in zip(tables, buckets, strict=True):
        client.hset(name, mapping=table)
    client.hset(index.meta_key, "format", "1")
    client.hdel(index.meta_key, "instance")
    return tables


@pytest.fixture
def format_1(redis_url, redis_server):
    """A format-1 index of 300 pages at the defaults, 3 of them removed, with evidence."""
    rng = random.Random(1)
    pages = [(f"https://a.example/{i}", rng.getrandbits(128)) for i in range(300)]
    client = redis_server.client()
    with open_index(redis_url, batch_size=64) as index:
        index.add_many(pages)
        index.put_evidence(pages[4][0], b"kept")
        for key, fingerprint in (pages[10], pages[11], pages[250]):
            assert index.remove(key, fingerprint)
        live = {i + 1: fp for i, (_, fp) in enumerate(pages) if i not in (10, 11, 250)}
        tables = as_format_1(index, client, live)
    kept = [page for i, page in enumerate(pages) if i + 1 in live]
    removed = [page for i, page in enumerate(pages) if i + 1 not in live]
    return kept, removed, tables, client


def test_a_format_1_index_is_upgraded_in_place_and_answers_as_before(redis_url, format_1):
    kept, removed, tables, client = format_1
    with pytest.raises(redis_backend.IndexFormatError, match="redisupgrade"):
        open_index(redis_url)
    assert redisupgrade.main([redis_url]) == 0
    assert not client.exists(*tables)
    rng = random.Random(2)
    with open_index(redis_url) as index:
        assert len(index) == len(kept) == 297
        for _, fingerprint in rng.sample(kept, 30):
            query = flip(rng, fingerprint, 128, rng.randint(0, 16))
            assert as_tuples(index.query(query)) == brute_force(kept, query, 16)
        assert index.get_evidence(["https://a.example/4"]) == [b"kept"]
        assert [index.query(fingerprint, 0) for _, fingerprint in removed] == [[], [], []]
        assert index.check_and_add("https://a.example/again", kept[0][1] ^ 3) is not None
        assert index.remove(*kept[1]) and len(index) == 296
    assert redisupgrade.upgrade(redis_url) == 296  # already upgraded: nothing to do


def test_an_upgrade_stops_when_a_page_is_stored_meanwhile(redis_url, format_1, monkeypatch):
    _, _, tables, client = format_1
    seq_key = tables[0].rsplit(":", 1)[0] + ":seq"
    real = redisupgrade._log_of

    def log_then_a_writer(*args):
        found = real(*args)
        client.incr(seq_key)  # as a crawl of the earlier version storing a page
        return found

    monkeypatch.setattr(redisupgrade, "_log_of", log_then_a_writer)
    with pytest.raises(NearDuplicateIndexError, match="stored during the upgrade"):
        redisupgrade.upgrade(redis_url)
    assert client.exists(*tables) == len(tables)
    with pytest.raises(redis_backend.IndexFormatError):
        open_index(redis_url)
