"""The Redis log and the clients' mirrors: what one client logs, removes or loses, the others see.

Every test runs real clients on a real redis-server; a client whose mirror is behind is simply
one that made no call since another client wrote.
"""

from __future__ import annotations

import random

import pytest

from scrapy_simhash.index import Match, open_index, open_stored_index

from .test_index_contract import as_tuples, brute_force, flip

redis_backend = pytest.importorskip("scrapy_simhash.index.redis")
redislog = pytest.importorskip("scrapy_simhash.index.redislog")


def wide_pages(seed: str, count: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    return [(f"https://a.example/{seed}/{i}", rng.getrandbits(128)) for i in range(count)]


@pytest.mark.parametrize("logged", [3, redislog.CHECK_LIMIT + 40],
                         ids=["measured by the script", "more than it measures"])
def test_a_check_sees_what_other_clients_logged_since_its_last_call(redis_url, logged):
    """The script measures the few pages logged since the mirror's last read; past
    CHECK_LIMIT it hands them to the mirror and the check runs again."""
    rng = random.Random(logged)
    with open_index(redis_url) as writer, open_index(redis_url) as checker:
        pages = wide_pages("logged", logged)
        writer.add_many(pages)
        key, fingerprint = pages[-1]
        near = flip(rng, fingerprint, 128, 5)
        assert checker.check_and_add("https://b.example/1", near) == Match(key, fingerprint, 5)
        assert len(checker) == logged
        assert checker._mirror.synced == logged


def test_the_nearest_match_wins_and_ties_go_to_the_oldest_page(redis_url):
    """The mirror's match against the pages logged since: nearer wins, equally near the older."""
    base = wide_pages("ties", 1)[0][1]
    with open_index(redis_url) as writer, open_index(redis_url) as checker:
        writer.add("old", base ^ 0b111)  # distance 3 from base
        checker.query(base)  # the checker's mirror now holds "old"
        writer.add("same-distance", base ^ (0b111 << 20))
        assert checker.check_and_add("x", base) == Match("old", base ^ 0b111, 3)
        writer.add("nearer", base ^ 1)
        assert checker.check_and_add("y", base) == Match("nearer", base ^ 1, 1)
        assert len(writer) == 3


def test_a_match_removed_by_another_client_is_no_match(redis_url):
    """The mirror offers a page another client removed meanwhile: the script says so, and the
    check, with the removal applied, stores the page."""
    key, fingerprint = wide_pages("removed", 1)[0]
    with open_index(redis_url) as first, open_index(redis_url) as second:
        first.add(key, fingerprint)
        second.query(fingerprint)  # in the second's mirror
        assert first.remove(key, fingerprint)
        assert second.check_and_add("https://b.example/1", fingerprint ^ 1) is None
        assert len(second) == 1
        assert first.query(fingerprint) == [Match("https://b.example/1", fingerprint ^ 1, 1)]


def test_removals_reach_every_mirror(redis_url):
    pages = wide_pages("mirrors", 50)
    with open_index(redis_url) as first, open_index(redis_url) as second:
        first.add_many(pages)
        assert second.query(pages[7][1]) == [Match(*pages[7], 0)]
        for key, fingerprint in pages[5:10]:
            assert first.remove(key, fingerprint)
        assert second.query(pages[7][1]) == []
        assert second.check_and_add("again", pages[7][1]) is None
        assert len(second.stored_words()) == len(first) == 46


def test_a_removal_between_reading_the_log_and_reading_the_keys_is_read_again(redis_url):
    """A query reads the log's news, searches its mirror, then fetches the matches' keys: a
    removal by another client in between makes it read the log again, never answer a key that
    is gone."""
    pages = wide_pages("between", 3)
    with open_index(redis_url) as reader, open_index(redis_url) as remover:
        reader.add_many(pages)
        calls = []
        real_call = reader._call

        def call(mode, extra, doing, **options):
            calls.append(mode)
            if mode == "K" and calls.count("K") == 1:
                remover.remove(*pages[1])
            return real_call(mode, extra, doing, **options)

        reader._call = call
        assert reader.query(pages[1][1], 0) == []
        assert calls == ["D", "K", "D"]  # (no match after the second read: no keys to fetch)
        assert as_tuples(reader.query(pages[2][1], 0)) == [(*pages[2], 0)]


def test_the_log_spans_several_strings(redis_url, redis_server, monkeypatch):
    """Ids past LOG_CHUNK_IDS go to the next log string (small strings here, to cross many):
    answers stay exact, a new client reads them all, drop deletes them all."""
    monkeypatch.setattr(redislog, "LOG_CHUNK_IDS", 64)
    rng = random.Random(5)
    pages = wide_pages("spans", 300)
    with open_index(redis_url, batch_size=50) as index:
        index.add_many(pages[:250])
        for key, fingerprint in pages[250:]:
            assert index.check_and_add(key, fingerprint) is None
        log_keys = [key for key in index.all_keys if key.startswith(index.log_key)]
        assert log_keys == [f"{index.log_key}:{chunk}" for chunk in range(5)]
        with open_index(redis_url) as other:
            for _, fingerprint in rng.sample(pages, 40):
                query = flip(rng, fingerprint, 128, 8)
                assert as_tuples(other.query(query)) == brute_force(pages, query, 16)
            assert other.remove(*pages[200])
        assert index.query(pages[200][1], 0) == []
        index.drop()
        assert not redis_server.client().exists(*log_keys)


def test_a_mirror_of_an_earlier_life_of_the_index_starts_over(redis_url, redis_server,
                                                              redis_prefix):
    """Redis lost the index and other clients filled it again past what this mirror read: the
    new instance token tells the mirror it is stale, not the counts."""
    old, new = wide_pages("old", 5), wide_pages("new", 20)
    with open_index(redis_url) as stale:
        stale.add_many(old)
        client = redis_server.client()
        client.delete(*client.keys(f"{{{redis_prefix}:*"))
        with open_index(redis_url) as refill:
            refill.add_many(new)
        assert stale.query(old[2][1], 0) == []
        assert as_tuples(stale.query(new[2][1], 0)) == [(*new[2], 0)]
        assert stale.check_and_add("again", old[2][1]) is None
        assert len(stale) == 21


def test_an_index_in_the_earlier_format_is_refused_saying_what_to_do(
        redis_url, redis_server, redis_prefix):
    with open_index(redis_url) as index:
        index.add("a", 1)
    client = redis_server.client()
    client.hset(f"{{{redis_prefix}:pages}}:meta", "format", "1")  # as the bucket layout wrote
    for opener in (lambda: open_index(redis_url), lambda: open_stored_index(redis_url)):
        with pytest.raises(redis_backend.IndexFormatError) as raised:
            opener()
        message = str(raised.value)
        assert "Redis format 1" in message and "reads format 2" in message
        assert f"{{{redis_prefix}:pages}}:*" in message and "another prefix" in message


def test_a_new_client_loads_the_mirror_on_open_and_a_bulk_load_is_compacted(redis_url,
                                                                            monkeypatch):
    """A bulk load (here: past 100 pages) merges the mirror's runs; answers stay exact."""
    monkeypatch.setattr(redis_backend, "_COMPACT_AFTER", 100)
    rng = random.Random(9)
    pages = wide_pages("bulk", 400)
    with open_index(redis_url, batch_size=64) as loader:
        loader.add_many(pages)
        assert loader._mirror.synced == 400
        for key, fingerprint in rng.sample(pages, 20):
            assert loader.check_and_add("copy", flip(rng, fingerprint, 128, 16)) == Match(
                key, fingerprint, 16)
    with open_index(redis_url) as reader:
        assert reader._mirror.synced == 400
        words = reader.stored_words()
        assert [int(lo) | (int(hi) << 64) for lo, hi in words] == [fp for _, fp in pages]


def _check_in_child(index, results) -> None:
    match = index.check_and_add("child", (1 << 100) | 1)
    results.put((match.key if match else None, index._held._sock.getsockname()))


def test_a_forked_child_runs_its_scripts_on_a_connection_of_its_own(redis_url):
    """A child forked from a process holding the index must not write on the parent's socket
    (their replies would cross)."""
    import multiprocessing

    with open_index(redis_url) as index:
        index.add("a", 1 << 100)
        parent_end = index._held._sock.getsockname()
        context = multiprocessing.get_context("fork")
        results = context.Queue()
        child = context.Process(target=_check_in_child, args=(index, results))
        child.start()
        key, child_end = results.get(timeout=60)
        child.join(timeout=30)
        assert (key, child.exitcode) == ("a", 0)
        assert child_end != parent_end
        assert index._held._sock.getsockname() == parent_end
        assert index.check_and_add("parent", (1 << 100) | 2) == Match("a", 1 << 100, 1)
