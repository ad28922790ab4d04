"""The Redis backend against brute force, its parameters, failures and concurrent workers."""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import socket
import threading
import time
from collections.abc import Callable

import pytest

from scrapy_simhash.index import IndexParameterMismatch, Match, NearDuplicateIndexError, open_index

from .test_index_contract import (
    REMOVE_AND_EVIDENCE_CASES,
    as_tuples,
    assert_agrees_with_brute_force,
    assert_removals_agree_with_brute_force,
    brute_force,
    flip,
)

redis_backend = pytest.importorskip("scrapy_simhash.index.redis")
IndexUnavailable = redis_backend.IndexUnavailable
RedisIndex = redis_backend.RedisIndex


@pytest.mark.parametrize(
    ("bits", "k", "tables"),
    [(64, 3, None), (64, 3, "manku"), (64, 6, None), (128, 3, None), (128, 10, "manku"),
     (64, 1, None), (128, 10, None), (128, 16, None)],
)
def test_redis_returns_exactly_the_brute_force_answer(redis_url, bits, k, tables):
    """Exact-match layouts and multi-index hashing ones (64/6, 128/10, 128/16 by default)."""
    rng = random.Random(f"redis-{bits}-{k}-{tables}")
    with open_index(redis_url, bits=bits, max_distance=k, tables=tables, batch_size=64) as index:
        stored, queries = assert_agrees_with_brute_force(
            index, rng, bits, k, stored=400, planted=80, other=10, single=40
        )
        smaller = max(0, k - 1)
        for query in queries[:20]:
            assert as_tuples(index.query(query, smaller)) == brute_force(stored, query, smaller)
        for query in queries[:40]:
            expected = brute_force(stored, query, k)
            match = index.check_and_add(f"new-{query}", query)
            assert (None if match is None else as_tuples([match])[0]) == (
                expected[0] if expected else None
            )
            if not expected:
                stored.append((f"new-{query}", query))
        assert len(index) == len(stored)


def test_check_and_add_returns_nearest_then_earliest_or_stores(redis_url):
    with open_index(redis_url) as index:
        assert index.check_and_add("a", 0b1111) is None
        assert index.check_and_add("b", 0b0011) == Match("a", 0b1111, 2)
        assert len(index) == 1
        index.add("c", 0b0111)
        index.add("d", 0b1110)
        assert index.check_and_add("e", 0b0110) == Match("c", 0b0111, 1)
        assert [m.key for m in index.query(0b0110)] == ["c", "d", "a"]


def test_a_hot_bucket_stays_exact(redis_url):
    rng = random.Random(3)
    hot = [(f"hot-{i}", rng.getrandbits(48) << 16) for i in range(2000)]  # low block all zero
    with open_index(redis_url, bits=64, max_distance=3) as index:
        index.add_many(hot)
        for _ in range(10):
            query = flip(rng, rng.choice(hot)[1], 64, 3)
            assert as_tuples(index.query(query)) == brute_force(hot, query, 3)


def test_invalid_input_is_rejected_and_close_is_final(redis_url):
    index = open_index(redis_url, bits=64, max_distance=3)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        index.add("k", 1 << 64)
    with pytest.raises(TypeError):
        index.add(b"k", 1)
    with pytest.raises(ValueError, match="max_distance"):
        index.query(1, max_distance=4)
    assert len(index) == 0
    index.close()
    index.close()
    with pytest.raises(NearDuplicateIndexError):
        index.check_and_add("k", 1)


def test_unicode_keys_round_trip(redis_url):
    with open_index(redis_url) as index:
        index.add("https://例子.测试/新闻?id=1", 77)
        assert index.query(77) == [Match("https://例子.测试/新闻?id=1", 77, 0)]


# -- remove and evidence -----------------------------------------------------------------------


@pytest.mark.parametrize("case", REMOVE_AND_EVIDENCE_CASES, ids=lambda case: case.__name__)
def test_remove_and_evidence(redis_url, case):
    with open_index(redis_url) as index:
        assert index.supports_evidence
        case(index)


@pytest.mark.parametrize(("bits", "k", "tables"),
                         [(64, 3, None), (64, 3, "manku"), (64, 6, None), (128, 16, None)])
def test_removals_keep_redis_exact(redis_url, bits, k, tables):
    rng = random.Random(f"redis-remove-{bits}-{k}-{tables}")
    with open_index(redis_url, bits=bits, max_distance=k, tables=tables, batch_size=64) as index:
        assert_removals_agree_with_brute_force(index, rng, bits, k)


def test_a_removed_pages_key_record_is_emptied_and_the_others_stay(redis_url, redis_server):
    """The keys of 128 ids share one hash field: emptying one record keeps the others' places."""
    pages = [(f"https://a.example/{i}", (i << 32) | i) for i in range(1, 300)]
    with open_index(redis_url) as index:
        index.add_many(pages)
        chunk = redis_server.client().hget(index.script_keys[2], (0).to_bytes(4, "big"))
        for key, fingerprint in pages[5:200:7]:
            assert index.remove(key, fingerprint)
        shorter = redis_server.client().hget(index.script_keys[2], (0).to_bytes(4, "big"))
        assert len(shorter) < len(chunk)
        kept = [pair for i, pair in enumerate(pages) if not (5 <= i < 200 and (i - 5) % 7 == 0)]
        found = index.query_many([fingerprint for _, fingerprint in pages], 0)
        assert [as_tuples(m) for m in found] == [
            [(key, fingerprint, 0)] if (key, fingerprint) in kept else []
            for key, fingerprint in pages
        ]
        assert len(index) == len(kept)


def test_evidence_and_removals_are_shared_by_every_client(redis_url):
    with open_index(redis_url) as first, open_index(redis_url) as second:
        first.add_many([("a", 1), ("b", (1 << 64) - 2)])
        first.put_evidence("a", b"from the first")
        assert second.get_evidence(["a", "b"]) == [b"from the first", None]
        second.put_evidence("a", b"from the second")
        assert first.get_evidence(["a"]) == [b"from the second"]
        assert second.remove("a", 1)
        assert (len(first), first.query(1), first.get_evidence(["a"])) == (1, [], [None])
        assert first.check_and_add("c", 1) is None
        assert second.query(1) == [Match("c", 1, 0)]


def test_drop_deletes_the_evidence_and_the_removal_count(redis_url, redis_server, redis_prefix):
    with open_index(redis_url) as index:
        index.add_many([("a", 1), ("b", 1 << 40)])
        index.put_evidence("b", b"eb")
        assert index.remove("a", 1)
        client = redis_server.client()
        assert client.exists(index.evidence_key, index.removed_key) == 2
        assert set(index.all_keys) >= {
            key.decode() for key in client.scan_iter(f"{{{redis_prefix}:*")
        }
        assert index.memory_usage() > 0
        index.drop()
        assert not client.exists(*index.all_keys)
        assert len(index) == 0


# -- parameters, prefixes, URIs ----------------------------------------------------------------


def test_a_second_client_shares_the_index(redis_url):
    with open_index(redis_url, params={"tokenizer": "jieba"}) as first:
        first.add("https://a.example/1", (1 << 63) | 5)
    with open_index(redis_url, params={"tokenizer": "jieba"}) as second:
        assert len(second) == 1
        assert second.check_and_add("x", (1 << 63) | 4) == Match("https://a.example/1",
                                                                  (1 << 63) | 5, 1)


@pytest.mark.parametrize(
    ("changed", "name", "values"),
    [({"bits": 128}, "bits", (64, 128)), ({"max_distance": 4}, "max_distance", (3, 4)),
     ({"tables": "manku"}, "layout", None),  # two layout descriptions
     ({"params": {"tokenizer": "words"}}, "param.tokenizer", ("jieba", "words"))],
)
def test_other_parameters_are_a_clear_error_naming_the_url(redis_url, changed, name, values):
    with open_index(redis_url, bits=64, max_distance=3, params={"tokenizer": "jieba"}) as index:
        index.add("k", 1)
    arguments = {"bits": 64, "max_distance": 3, "params": {"tokenizer": "jieba"}, **changed}
    with pytest.raises(IndexParameterMismatch) as raised:
        open_index(redis_url, **arguments)
    assert name in raised.value.differences  # (with bits or k, the layout differs too)
    stored, requested = raised.value.differences[name]
    assert stored != requested and (values is None or (stored, requested) == values)
    message = str(raised.value)
    assert redis_url.split("?")[0] in message
    assert f"{name}: stored {stored!r}, requested {requested!r}" in message


def test_params_none_accepts_the_stored_settings(redis_url):
    with open_index(redis_url, params={"weights": "tf"}):
        pass
    with open_index(redis_url) as index:
        assert index.params == {"weights": "tf"}


def test_prefixes_and_namespaces_are_separate_indexes(redis_server, redis_prefix):
    base = f"{redis_server.url}?prefix={redis_prefix}"
    with open_index(base) as pages, open_index(base, namespace="items", bits=128) as items, \
            open_index(f"{base}_other") as other:
        pages.add("page", 42)
        items.add("item", 42)
        assert (len(pages), len(items), len(other)) == (1, 1, 0)
        assert other.query(42) == []
        keys = {key.decode() for key in redis_server.client().scan_iter(f"{{{redis_prefix}:*")}
        assert keys <= set(pages.all_keys) | set(items.all_keys)
        assert f"{pages.log_key}:0" in keys
        pages.drop()
        assert not redis_server.client().exists(*pages.all_keys, f"{pages.log_key}:0")
        assert len(items) == 1


def test_uri_options_reach_the_backend_and_redis_py(redis_server, redis_prefix):
    uri = (f"{redis_server.url}?prefix={redis_prefix}&batch_size=7&socket_timeout=3&tables=manku"
           "&bits=64&max_distance=3")
    with open_index(uri) as index:
        assert isinstance(index, RedisIndex)
        assert (index.prefix, index.batch_size, index.layout.table_count) == (redis_prefix, 7, 16)
        kwargs = index._client.connection_pool.connection_kwargs
        assert kwargs["socket_timeout"] == 3.0


@pytest.mark.parametrize("prefix", ["20240601", "0601", "on", "1e3"])
def test_a_prefix_in_the_uri_is_taken_as_written(redis_server, prefix):
    with open_index(f"{redis_server.url}?prefix={prefix}", namespace="prefix_test") as index:
        assert index.prefix == prefix
        index.drop()


@pytest.mark.parametrize("prefix", ["a*", "a b", "{x}", "", "a?b", "x[1]"])
def test_unsafe_prefixes_are_rejected(redis_server, prefix):
    with pytest.raises(ValueError, match="prefix"):
        RedisIndex(redis_server.url, prefix=prefix)


def test_unreachable_redis_at_open_names_the_url_without_the_password():
    from redisfixture import free_port

    url = f"redis://user:s3cret@127.0.0.1:{free_port()}/2"
    with pytest.raises(IndexUnavailable) as raised:
        open_index(url, socket_connect_timeout=1)
    message = str(raised.value)
    assert "127.0.0.1" in message and "/2" in message
    assert "s3cret" not in message and "***" in message


def test_a_restart_is_an_error_then_the_client_reconnects(tmp_path, caplog):
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path)
    try:
        index = open_index(f"{server.url}?prefix=restart&retry_interval=0.3")
        assert index.check_and_add("a", 1 << 40) is None
        server.stop(save=True)
        with pytest.raises(IndexUnavailable, match="unreachable"):
            index.check_and_add("b", 1 << 41)
        for housekeeping in (index.memory_usage, index.drop):  # no raw redis-py errors
            with pytest.raises(IndexUnavailable, match="next try"):
                housekeeping()
        with pytest.raises(IndexUnavailable, match="next try"):  # fails fast, no new timeout
            index.query_many([1, 2])
        server.start()
        time.sleep(0.35)
        assert index.check_and_add("c", (1 << 40) | 1) == Match("a", 1 << 40, 1)
        server.restart(save=False)  # back empty: the parameters are written again
        assert index.check_and_add("d", (1 << 40) | 1) is None
        assert "lost its data" in caplog.text and "prefix 'restart'" in caplog.text
        assert index.query_many([(1 << 40) | 3]) == [[Match("d", (1 << 40) | 1, 1)]]
        index.close()
    finally:
        server.stop()


def test_housekeeping_on_an_unreachable_redis_is_an_index_error(tmp_path):
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path)
    try:
        index = open_index(f"{server.url}?prefix=gone&retry_interval=0")
        assert index.memory_usage() > 0
        server.stop()
        for name, housekeeping in (("measure", index.memory_usage), ("drop", index.drop)):
            with pytest.raises(IndexUnavailable, match=f"^{name} .*Redis unreachable"):
                housekeeping()
        index.close()
    finally:
        server.stop()


# -- lost replies: a proxy that lets a script run on Redis but never shows its answer ----------


class LossyProxy:
    """A TCP proxy on 127.0.0.1 in front of a real Redis, forwarding bytes both ways.

    :meth:`lose_next_evalsha_reply` arms it: the next EVALSHA a client sends reaches Redis (so
    the script runs there), Redis's reply is read and discarded, ``then`` is called, and that
    client's connection is closed: the client never sees the answer. With ``run=False`` the
    command itself is dropped instead (the script never runs), and the connection closed."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = threading.Event()
        self.lost = threading.Event()  # set once a reply was discarded
        self.then: Callable[[], None] | None = None
        self.let_through = 0
        self.run = True
        self.sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, prefix: str) -> str:
        """An index URI through the proxy; a long retry_interval (a resolution must not wait
        for it) and a short socket timeout (no test waits long)."""
        return f"redis://127.0.0.1:{self.port}/0?prefix={prefix}&retry_interval=60&socket_timeout=2"

    def lose_next_evalsha_reply(
        self, then: Callable[[], None] | None = None, *, after: int = 0, run: bool = True
    ) -> None:
        """``after``: let that many EVALSHA replies through first; ``run=False``: drop the
        command, not only its reply."""
        self.then = then
        self.let_through = after
        self.run = run
        self.armed.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=2)
            except OSError:  # Redis is gone: so is this connection
                client.close()
                continue
            upstream.settimeout(None)
            self.sockets += [client, upstream]
            lose = threading.Event()  # this connection's next reply is to be lost
            threading.Thread(target=self._to_redis, args=(client, upstream, lose),
                             daemon=True).start()
            threading.Thread(target=self._to_client, args=(upstream, client, lose),
                             daemon=True).start()

    def _to_redis(self, client: socket.socket, upstream: socket.socket,
                  lose: threading.Event) -> None:
        try:
            while data := client.recv(65536):
                if self.armed.is_set() and b"EVALSHA" in data:
                    if self.let_through:
                        self.let_through -= 1
                    else:
                        self.armed.clear()
                        if not self.run:  # the command never reaches Redis
                            self.lost.set()
                            break
                        lose.set()  # before the command reaches Redis, so before its reply
                upstream.sendall(data)
        except OSError:
            pass
        _shut(client, upstream)

    def _to_client(self, upstream: socket.socket, client: socket.socket,
                   lose: threading.Event) -> None:
        try:
            while data := upstream.recv(65536):
                if lose.is_set():  # the script ran: drop its answer and the connection
                    self.lost.set()
                    if self.then is not None:
                        self.then()
                    break
                client.sendall(data)
        except OSError:
            pass
        _shut(client, upstream)

    def close(self) -> None:
        _shut(*self.sockets)


def _shut(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


@pytest.fixture
def lossy(redis_server):
    proxy = LossyProxy(redis_server.port)
    yield proxy
    proxy.close()


def test_a_lost_reply_after_the_page_was_stored_is_a_new_page_stored_once(lossy, redis_prefix):
    """The script stored the page but its reply was lost: None (kept), stored exactly once; no
    wait for retry_interval."""
    page = (1 << 50) | 0b1010
    with open_index(lossy.url(redis_prefix)) as index:
        assert index.query(page) == []  # (the script is loaded)
        lossy.lose_next_evalsha_reply()
        started = time.monotonic()
        assert index.check_and_add("https://a.example/1", page) is None
        assert lossy.lost.is_set() and time.monotonic() - started < 2
        assert len(index) == 1
        assert index.query(page) == [Match("https://a.example/1", page, 0)]
        assert index.check_and_add("https://a.example/2", page ^ 0b11) == Match(
            "https://a.example/1", page, 2)
        assert len(index) == 1


def test_a_lost_reply_for_a_near_duplicate_is_its_match(lossy, redis_prefix):
    """The script found a match (and stored nothing) but its reply was lost: that match."""
    page = (1 << 50) | 0b1010
    with open_index(lossy.url(redis_prefix)) as index:
        assert index.check_and_add("https://a.example/1", page) is None
        lossy.lose_next_evalsha_reply()
        assert index.check_and_add("https://a.example/2", page ^ 1) == Match(
            "https://a.example/1", page, 1)
        assert lossy.lost.is_set()
        assert len(index) == 1
        assert index.query(page ^ 1) == [Match("https://a.example/1", page, 1)]


def test_a_lost_check_that_never_ran_is_run_once_more(lossy, redis_prefix):
    page = (1 << 50) | 0b1010
    with open_index(lossy.url(redis_prefix)) as index:
        assert index.check_and_add("https://a.example/1", page) is None
        other = page ^ ((1 << 64) - 1)  # far from it
        lossy.lose_next_evalsha_reply(run=False)
        assert index.check_and_add("https://a.example/2", other) is None
        assert lossy.lost.is_set()
        assert len(index) == 2
        assert index.query(other, 0) == [Match("https://a.example/2", other, 0)]
        lossy.lose_next_evalsha_reply(run=False)  # a near duplicate: the check finds its match
        assert index.check_and_add("https://a.example/3", other ^ 1) == Match(
            "https://a.example/2", other, 1)
        assert len(index) == 2


@pytest.mark.parametrize("run", [True, False], ids=["script ran", "command lost"])
def test_a_removal_whose_reply_was_lost_runs_once_more(lossy, redis_prefix, run):
    """Either way the pair is gone afterwards and nothing else is; the answer is True only when
    the second run removed it (if the lost one did, the second finds nothing)."""
    page = (1 << 50) | 0b1010
    with open_index(lossy.url(redis_prefix)) as index:
        index.add_many([("https://a.example/1", page), ("https://a.example/2", page)])
        index.put_evidence("https://a.example/1", b"e")
        lossy.lose_next_evalsha_reply(run=run)
        assert index.remove("https://a.example/1", page) is (not run)
        assert lossy.lost.is_set()
        assert index.query(page) == [Match("https://a.example/2", page, 0)]
        assert len(index) == 1
        assert index.get_evidence(["https://a.example/1"]) == [None]


BATCH = [(f"https://a.example/{n}", (n << 40) | n) for n in range(1, 6)]


@pytest.mark.parametrize("run", [True, False], ids=["script ran", "command lost"])
def test_an_added_batch_whose_reply_was_lost_stores_no_pair_twice_over(lossy, redis_prefix, run):
    """The batch's script ran (or never did) but its reply was lost: afterwards every pair is
    stored, none more often than a call whose reply came back would have stored it. (A pair
    stored under its key before the call is then not added again if the script never ran.)"""
    with open_index(lossy.url(redis_prefix)) as index:
        index.add(*BATCH[0])
        lossy.lose_next_evalsha_reply(run=run)
        index.add_many(BATCH)
        assert lossy.lost.is_set()
        if run:  # the script stored the whole batch: the first pair twice, as asked
            assert len(index) == len(BATCH) + 1
        else:  # nothing ran: only the pairs the index lacked were added
            assert len(index) == len(BATCH)
        for key, fingerprint in BATCH[1:]:
            assert index.query(fingerprint, 0) == [Match(key, fingerprint, 0)]


def test_a_batch_whose_reply_was_lost_from_a_server_that_is_gone_is_an_error(tmp_path):
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path)
    proxy = LossyProxy(server.port)
    try:
        index = open_index(proxy.url("gone-batch"))
        proxy.lose_next_evalsha_reply(then=server.stop)
        with pytest.raises(IndexUnavailable) as raised:
            index.add_many(BATCH)
        assert proxy.lost.is_set()
        assert str(raised.value).endswith(
            "so the 5 fingerprints may or may not be stored")
        index.close()
    finally:
        proxy.close()
        server.stop()


def test_a_lost_reply_from_a_server_that_is_gone_is_an_error_saying_the_outcome_is_unknown(
        tmp_path):
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path)
    proxy = LossyProxy(server.port)
    try:
        index = open_index(proxy.url("gone"))
        assert index.check_and_add("https://a.example/1", 1 << 40) is None
        proxy.lose_next_evalsha_reply(then=server.stop)  # the script runs, then Redis stops
        with pytest.raises(IndexUnavailable) as raised:
            index.check_and_add("https://a.example/2", 1 << 41)
        assert proxy.lost.is_set()
        message = str(raised.value)
        assert "Redis unreachable" in message
        assert "outcome unknown: the reply of the first try was lost" in message
        assert message.endswith("so the page may or may not be stored")
        with pytest.raises(IndexUnavailable, match="next try"):  # fails fast, as usual
            index.check_and_add("https://a.example/3", 1 << 42)
        index.close()
    finally:
        proxy.close()
        server.stop()



def test_parameters_that_cannot_be_written_again_are_an_index_error(lossy, redis_server,
                                                                     redis_prefix):
    """The server lost the index's keys; writing its parameters again loses the connection:
    an IndexUnavailable, not redis-py's own ConnectionError."""
    with open_index(lossy.url(redis_prefix)) as index:
        assert index.check_and_add("https://a.example/1", 1 << 40) is None
        client = redis_server.client()
        client.delete(*client.keys(f"{{{redis_prefix}:*"))  # as a server restarted empty
        lossy.lose_next_evalsha_reply(after=1)  # the check's reply (SIMHASH_NOMETA) goes through
        with pytest.raises(IndexUnavailable, match=r"check_and_add on .*Redis unreachable"):
            index.check_and_add("https://a.example/2", 1 << 41)
        assert lossy.lost.is_set()

# -- concurrent workers ------------------------------------------------------------------------

WORKERS = 4
CLUSTERS = 150
MEMBERS = 5


def clusters(seed: int, bits: int) -> list[list[int]]:
    """Clusters of fingerprints within distance 2 of each other, far from every other cluster."""
    rng = random.Random(seed)
    out = []
    for _ in range(CLUSTERS):
        center = rng.getrandbits(bits)
        out.append([center] + [center ^ (1 << rng.randrange(bits)) for _ in range(MEMBERS - 1)])
    return out


def _worker(url: str, bits: int, k: int, rounds: int, worker: int, barrier, results) -> None:
    for round_ in range(rounds):
        rng = random.Random(round_ * 100 + worker)
        work = [(c, m, fp) for c, members in enumerate(clusters(round_, bits))
                for m, fp in enumerate(members)]
        rng.shuffle(work)
        index = open_index(f"{url}_r{round_}", bits=bits, max_distance=k)
        barrier.wait()  # every worker starts the round at the same moment
        kept = [f"{c}/{m}/{worker}" for c, m, fp in work
                if index.check_and_add(f"{c}/{m}/{worker}", fp) is None]
        index.close()
        results.put((round_, kept))


@pytest.mark.parametrize(("bits", "k"), [(64, 3), (128, 16)])
def test_concurrent_workers_keep_exactly_one_member_per_cluster(redis_url, bits, k):
    """WORKERS processes check-and-add every member of the same clusters, each in its own shuffled
    order, starting each round together: exactly one member per cluster is kept, every round.
    (Each worker's mirror is behind the others' writes all along: the script measures them.)"""
    rounds = 5
    for round_ in range(rounds):
        open_index(f"{redis_url}_r{round_}", bits=bits, max_distance=k).close()  # written once
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    results = context.Queue()
    processes = [
        context.Process(target=_worker, args=(redis_url, bits, k, rounds, w, barrier, results))
        for w in range(WORKERS)
    ]
    for process in processes:
        process.start()
    kept: dict[int, list[str]] = {round_: [] for round_ in range(rounds)}
    for _ in range(rounds * WORKERS):
        round_, keys = results.get(timeout=120)
        kept[round_].extend(keys)
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    for round_ in range(rounds):
        kept_clusters = sorted(int(key.split("/")[0]) for key in kept[round_])
        assert kept_clusters == list(range(CLUSTERS)), f"round {round_}"
        with open_index(f"{redis_url}_r{round_}", bits=bits, max_distance=k) as index:
            assert len(index) == CLUSTERS
            for c, members in enumerate(clusters(round_, bits)):
                assert [m.key.split("/")[0] for m in index.query(members[0])] == [str(c)]


def test_long_keys_round_trip_and_oversized_keys_are_rejected(redis_url):
    rng = random.Random(12)
    fps = [rng.getrandbits(64) for _ in range(200)]
    with open_index(redis_url) as index:
        long_key = "https://a.example/" + "x" * 5000
        index.add_many([(f"k{i}", fp) for i, fp in enumerate(fps[:-1])] + [(long_key, fps[-1])])
        assert index.query(fps[-1]) == [Match(long_key, fps[-1], 0)]
        assert index.query(fps[150]) == [Match("k150", fps[150], 0)]
        with pytest.raises(ValueError, match="65535 bytes"):
            index.check_and_add("y" * 70_000, 1)
        assert len(index) == 200


@pytest.mark.parametrize(
    ("url", "masked"),
    [("redis://:pw@h:1/0", "redis://:***@h:1/0"),
     ("rediss://user:pw@h:6380/2?ssl_cert_reqs=none",
      "rediss://user:***@h:6380/2?ssl_cert_reqs=none"),
     ("redis://[::1]:7000/0", "redis://[::1]:7000/0"),
     ("redis://u:p@[::1]:7000/0", "redis://u:***@[::1]:7000/0"),
     ("unix:///run/redis.sock?db=1", "unix:///run/redis.sock?db=1"),
     ("unix:///run/redis.sock?db=1&password=pw", "unix:///run/redis.sock?db=1&password=***"),
     ("redis://h:1/0?password=pw&prefix=x", "redis://h:1/0?password=***&prefix=x"),
     ("rediss://u:pw@h/0?ssl_password=key%26pw&password=",
      "rediss://u:***@h/0?ssl_password=***&password=***")],
)
def test_passwords_never_reach_messages(url, masked):
    assert redis_backend.mask_password(url) == masked


def test_a_password_in_the_query_string_never_shows(tmp_path):
    """redis-py's unix-socket form puts it there (unix:///path.sock?password=...)."""
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path / "redis")
    server.client().config_set("requirepass", "TOPSECRET")
    try:
        with open_index(f"{server.url}?password=TOPSECRET&prefix=pw") as index:
            index.add("page", 1)
            shown = [repr(index), index.location, index.url]
        with pytest.raises(NearDuplicateIndexError) as wrong:
            open_index(f"{server.url}?password=WRONGSECRET&prefix=pw")
        shown.append(str(wrong.value))
        with pytest.raises(ValueError) as refused:
            open_index(f"{server.url}?password=TOPSECRET&namespace=x")
        shown.append(str(refused.value))
    finally:
        import redis

        redis.Redis(host="127.0.0.1", port=server.port, password="TOPSECRET").config_set(
            "requirepass", "")
        server.stop()
    assert "password=***" in shown[0]
    assert not [text for text in shown if "SECRET" in text], shown


def test_tls_and_unix_urls_fail_clearly_when_nothing_listens(tmp_path):
    from redisfixture import free_port

    with pytest.raises(IndexUnavailable, match=r"rediss://u:\*\*\*@127\.0\.0\.1"):
        open_index(f"rediss://u:secret@127.0.0.1:{free_port()}/0?prefix=x&ssl_cert_reqs=none",
                   socket_connect_timeout=1)
    with pytest.raises(IndexUnavailable, match=r"nothing\.sock"):
        open_index(f"unix://{tmp_path / 'nothing.sock'}?db=0&prefix=x")


def test_wide_defaults_use_a_multi_index_hashing_layout(redis_url):
    """128 bits at k = 16 (the library's defaults): 6 probed tables, not 17 tiny-key ones."""
    with open_index(redis_url, bits=128, max_distance=16) as index:
        assert not index.layout.exact and index.layout.table_count < 17
        rng = random.Random(16)
        base = rng.getrandbits(128)
        assert index.check_and_add("a", base) is None
        assert index.check_and_add("b", flip(rng, base, 128, 16)) == Match("a", base, 16)
        assert index.check_and_add("c", flip(rng, base, 128, 17)) is None


# -- a stored index, and a server that wants a password -------------------------------------------


def test_a_stored_namespace_opens_as_it_was_built_and_a_missing_one_is_not_created(
    redis_server, redis_url, redis_prefix
):
    from scrapy_simhash.index import NamespaceNotFound, open_stored_index, stored_namespaces

    with open_index(redis_url, bits=64, max_distance=3, tables="manku",
                    params={"tokenizer": "words"}) as built:
        built.add("a", 5)
        signature = built.layout.signature()
    open_index(redis_url, namespace="items").close()
    with open_stored_index(redis_url) as stored:
        assert (stored.bits, stored.max_distance, stored.layout.signature()) == (64, 3, signature)
        assert stored.params == {"tokenizer": "words"}
        assert stored.query(4) == [Match("a", 5, 1)]
        assert stored.stats()["size"] == 1
    assert stored_namespaces(redis_url) == ["items", "pages"]
    open_stored_index(redis_url, "items").drop()
    assert stored_namespaces(redis_url) == ["pages"]
    open_index(redis_url, namespace="items").close()
    with pytest.raises(NamespaceNotFound) as raised:
        open_stored_index(redis_url, "nope")
    assert str(raised.value) == (
        f"{redis_url}: no namespace 'nope' under prefix {redis_prefix!r} (namespaces: items, pages)"
    )
    client = redis_server.client()
    try:
        assert client.keys(f"{{{redis_prefix}:nope}}*") == []
    finally:
        client.close()


@pytest.fixture(scope="module")
def password_server(tmp_path_factory):
    """A redis-server started with --requirepass."""
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path_factory.mktemp("redis-auth"), password="TOPSECRET")
    yield server
    server.stop()


def test_a_server_that_wants_a_password_says_where_it_goes(password_server):
    from scrapy_simhash.index import open_stored_index

    port = password_server.port
    url = f"redis://127.0.0.1:{port}/0?prefix=auth"
    with pytest.raises(redis_backend.IndexAuthenticationError) as raised:
        open_index(url)
    message = str(raised.value)
    assert f"needs a password: redis://:PASSWORD@127.0.0.1:{port}/0" in message
    assert "HELLO" not in message and "unreachable" not in message
    with pytest.raises(redis_backend.IndexAuthenticationError, match="needs a password"):
        open_stored_index(url)
    refused = "refused the password"
    with pytest.raises(redis_backend.IndexAuthenticationError, match=refused) as wrong:
        open_index(f"redis://:WRONGSECRET@127.0.0.1:{port}/0?prefix=auth")
    assert "WRONGSECRET" not in str(wrong.value)
    with open_index(f"redis://:TOPSECRET@127.0.0.1:{port}/0?prefix=auth") as index:
        index.add("a", 1)
    with open_stored_index(f"redis://127.0.0.1:{port}/0?prefix=auth&password=TOPSECRET") as index:
        assert len(index) == 1
