"""The Redis Cluster backend on a real 3-node cluster: brute-force agreement, one kept page per
near-duplicate cluster under concurrent writers, a dead writer's lease, stored parameters."""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
import threading
import time
from pathlib import Path

import pytest

from scrapy_simhash.index import IndexParameterMismatch, Match, open_index, parse_index_uri

from .clusterfixture import NODES, redis_cluster  # noqa: F401 - the fixture
from .test_index_contract import as_tuples, assert_agrees_with_brute_force, brute_force, flip

cluster_backend = pytest.importorskip("scrapy_simhash.index.rediscluster")
RedisClusterIndex = cluster_backend.RedisClusterIndex

_counter = iter(range(1, 1_000_000))


@pytest.fixture
def cluster_url(redis_cluster, request) -> str:  # noqa: F811 - the fixture above
    """An index URI on the session's cluster with this test's own prefix."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:50]
    return f"{redis_cluster.url}?prefix=c{next(_counter)}_{name}"


@pytest.mark.parametrize(
    ("bits", "k", "tables"), [(64, 3, None), (64, 6, None), (128, 16, None), (128, 10, None)]
)
def test_answers_agree_with_brute_force(cluster_url, bits, k, tables):
    rng = random.Random(f"cluster-{bits}-{k}")
    with open_index(cluster_url, bits=bits, max_distance=k, tables=tables) as index:
        stored, queries = assert_agrees_with_brute_force(
            index, rng, bits, k, stored=300, planted=60, other=10, single=30
        )
        for query in queries[:20]:
            assert as_tuples(index.query(query, k - 1)) == brute_force(stored, query, k - 1)
        for query in queries[:40]:
            expected = brute_force(stored, query, k)
            match = index.check_and_add(f"new-{query}", query)
            assert (None if match is None else as_tuples([match])[0]) == (
                expected[0] if expected else None
            )
            if not expected:
                stored.append((f"new-{query}", query))
        assert len(index) == len(stored)


def test_the_tables_are_spread_over_every_node(cluster_url):
    with open_index(cluster_url) as index:  # 128 bits, k = 16: 6 tables
        nodes = index.nodes()
        assert len(nodes) == 6
        assert sorted(nodes.count(node) for node in set(nodes)) == [2] * NODES


def test_check_and_add_returns_the_nearest_kept_page_or_keeps(cluster_url):
    with open_index(cluster_url, bits=64, max_distance=3) as index:
        assert index.check_and_add("a", 0b1111) is None
        assert index.check_and_add("b", 0b0011) == Match("a", 0b1111, 2)
        assert index.check_and_add("c", 0b1111 << 40) is None
        assert index.query(0b0111) == [Match("a", 0b1111, 1)]  # the duplicate "b" is not stored
        assert len(index) == 2


def test_a_second_client_shares_the_index_and_unicode_keys_round_trip(cluster_url):
    with open_index(cluster_url, bits=64, max_distance=3) as first, \
            open_index(cluster_url, bits=64, max_distance=3) as second:
        assert first.check_and_add("https://ü.example/页", 12345) is None
        assert second.check_and_add("x", 12345 ^ 4) == Match("https://ü.example/页", 12345, 1)
        assert len(second) == 1


# -- the claim protocol, step by step -----------------------------------------------------------


def test_a_higher_pending_claim_is_waited_for(cluster_url):
    """A lower id that sees a higher pending claim waits for its decision (here: kept), so it
    becomes its duplicate; the claim with the higher id, seeing the lower pending one, defers to
    it at once."""
    with open_index(cluster_url, bits=64, max_distance=3) as low, \
            open_index(cluster_url, bits=64, max_distance=3) as high:
        high._last_micros = time.time_ns() // 1000 + 10**9  # its ids are higher from now on
        high_id, high_near = high._claim(b"high", 0b1000)
        low_id, low_near = low._claim(b"low", 0b1001)
        assert low_id < high_id and high_near == {} and list(low_near) == [high_id]
        decided: list = []
        waiter = threading.Thread(
            target=lambda: decided.append(low._decide(low_id, 0b1001, low_near))
        )
        waiter.start()
        time.sleep(0.3)
        assert waiter.is_alive()  # still waiting for the higher claim
        assert high._decide(high_id, 0b1000, high_near) is None
        assert high._keep(high_id, 0b1000)
        waiter.join(timeout=10)
        assert decided == [Match("high", 0b1000, 1)]
        assert [m.key for m in low.query(0b1000)] == ["high"]


def test_a_higher_id_defers_to_a_lower_pending_claim_at_once(cluster_url):
    with open_index(cluster_url, bits=64, max_distance=3) as index:
        low_id, _ = index._claim(b"low", 0b1000)
        high_id, near = index._claim(b"high", 0b1001)
        assert low_id < high_id and list(near) == [low_id]
        assert index._decide(high_id, 0b1001, near) == Match("low", 0b1000, 1)
        assert index.query(0b1000) == []  # "low" is still pending: not a stored page yet
        assert index._keep(low_id, 0b1000)
        assert index.query(0b1000) == [Match("low", 0b1000, 0)]


def _claim_then_die(url: str, fingerprint: int) -> None:
    index = open_index(url, bits=64, max_distance=3)
    index._claim(b"dead", fingerprint)
    os._exit(0)  # no publish, no cleanup: a writer killed between claim and publish


def test_a_dead_writers_pending_claim_expires(cluster_url):
    """Within the lease, a near page defers to the dead claim (lower id); after it, the claim
    counts as dropped: the next near page is kept, and the dead one is never returned."""
    url = f"{cluster_url}&lease=1"
    open_index(url, bits=64, max_distance=3).close()
    writer = multiprocessing.get_context("fork").Process(target=_claim_then_die, args=(url, 77))
    writer.start()
    writer.join(timeout=30)
    assert writer.exitcode == 0
    with open_index(url, bits=64, max_distance=3) as index:
        assert index.check_and_add("early", 77 ^ 1) == Match("dead", 77, 1)
        assert index.query(77) == []
        time.sleep(1.2)
        assert index.check_and_add("late", 77 ^ 2) is None
        assert index.query(77) == [Match("late", 77 ^ 2, 1)]
        assert len(index) == 1
        assert index.check_and_add("again", 77) == Match("late", 77 ^ 2, 1)


def test_a_claim_whose_lease_ran_out_starts_over_with_a_new_id(cluster_url):
    """Someone marked it dropped (lease over): its publish fails and check_and_add claims again;
    the page is still kept once."""
    with open_index(f"{cluster_url}&lease=0.2", bits=64, max_distance=3) as index:
        page_id, _ = index._claim(b"slow", 5)
        time.sleep(0.3)
        with open_index(cluster_url, bits=64, max_distance=3) as other:
            statuses = other._statuses({page_id: index._entry(5, page_id, b"P", 0)})
        assert statuses[page_id][0] == b"D"
        assert not index._keep(page_id, 5)
        assert index.check_and_add("slow", 5) is None
        assert index.query(5) == [Match("slow", 5, 0)] and len(index) == 1


# -- concurrent writers -------------------------------------------------------------------------

WORKERS = 4
CLUSTERS = 60
MEMBERS = 4
ROUNDS = 12


def clusters(seed: int) -> list[list[int]]:
    """Clusters of 128-bit fingerprints within distance 16 of each other (each member at most 8
    bits from its centre), far from every other cluster; the centre is listed twice, so two
    writers race on the very same fingerprint too."""
    rng = random.Random(seed)
    out = []
    for _ in range(CLUSTERS):
        center = rng.getrandbits(128)
        members = [flip(rng, center, 128, rng.randint(1, 8)) for _ in range(MEMBERS - 1)]
        out.append([center, center, *members])
    return out


def _writer(url: str, worker: int, barrier, results) -> None:
    for round_ in range(ROUNDS):
        # Every writer takes the clusters in the same order, each starting at another member:
        # the writers race on the same cluster at the same moment (odd rounds shuffle instead).
        rng = random.Random(round_ * 100 + worker)
        work = [(c, (m + worker) % len(members), members[(m + worker) % len(members)])
                for c, members in enumerate(clusters(round_)) for m in range(len(members))]
        if round_ % 2:
            rng.shuffle(work)
        index = open_index(f"{url}_r{round_}")
        barrier.wait()  # every writer starts the round at the same moment
        kept = [f"{c}/{m}/{worker}" for c, m, fp in work
                if index.check_and_add(f"{c}/{m}/{worker}", fp) is None]
        index.close()
        results.put((round_, kept))


def test_concurrent_writers_keep_exactly_one_page_per_cluster(cluster_url):
    """WORKERS processes check-and-add every member of the same clusters, each in its own
    shuffled order, starting each round together: exactly one page per cluster is kept, every
    round."""
    for round_ in range(ROUNDS):
        open_index(f"{cluster_url}_r{round_}").close()
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(WORKERS), context.Queue()
    writers = [context.Process(target=_writer, args=(cluster_url, w, barrier, results))
               for w in range(WORKERS)]
    for writer in writers:
        writer.start()
    kept: dict[int, list[str]] = {round_: [] for round_ in range(ROUNDS)}
    for _ in range(ROUNDS * WORKERS):
        round_, keys = results.get(timeout=300)
        kept[round_].extend(keys)
    for writer in writers:
        writer.join(timeout=30)
        assert writer.exitcode == 0
    for round_ in range(ROUNDS):
        kept_clusters = sorted(int(key.split("/")[0]) for key in kept[round_])
        assert kept_clusters == list(range(CLUSTERS)), f"round {round_}"
        with open_index(f"{cluster_url}_r{round_}") as index:
            assert len(index) == CLUSTERS
            for c, members in enumerate(clusters(round_)):
                assert [m.key.split("/")[0] for m in index.query(members[0])] == [str(c)]


# -- parameters and URIs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changed", "name"),
    [({"max_distance": 4}, "max_distance"), ({"bits": 128, "max_distance": 3}, "bits"),
     ({"params": {"shingle": 3}}, "param.shingle")],
)
def test_stored_parameters_refuse_other_ones(cluster_url, changed, name):
    open_index(cluster_url, bits=64, max_distance=3, params={"shingle": 2}).close()
    with pytest.raises(IndexParameterMismatch) as caught:
        open_index(cluster_url, **{"bits": 64, "max_distance": 3, **changed})
    assert name in caught.value.differences
    with open_index(cluster_url, bits=64, max_distance=3) as index:  # params=None: the stored
        assert index.params == {"shingle": 2}


def test_the_uri_reaches_the_backend(redis_cluster, cluster_url):  # noqa: F811
    parsed = parse_index_uri(f"{cluster_url}&lease=2.5&batch_size=7&socket_timeout=3")
    assert parsed.backend.endswith("RedisClusterIndex")
    with open_index(f"{cluster_url}&lease=2.5&batch_size=7&socket_timeout=3") as index:
        assert isinstance(index, RedisClusterIndex)
        assert (index.lease_ms, index.batch_size) == (2500, 7)
        index.add_many([(f"k{i}", i << 20) for i in range(20)])
        assert len(index) == 20


def test_a_bad_lease_is_refused(cluster_url):
    with pytest.raises(ValueError, match="lease"):
        open_index(f"{cluster_url}&lease=0")


# -- a real crawl -------------------------------------------------------------------------------


def test_a_crawl_through_the_cluster_keeps_what_a_memory_index_keeps(cluster_url, tmp_path):
    """``scrapy crawl`` of the example project with ``SIMHASH_INDEX_URI=redis+cluster://...``:
    the same pages kept and dropped as with the in-process index, no index error."""
    crawl_tests = str(Path(__file__).resolve().parents[1] / "crawl")
    if crawl_tests not in sys.path:
        sys.path.insert(0, crawl_tests)
    from crawling import DemoServer, run_crawl

    server = DemoServer().start()
    try:
        memory = run_crawl(server, tmp_path / "memory")
        cluster = run_crawl(server, tmp_path / "cluster", "-s", f"SIMHASH_INDEX_URI={cluster_url}")
    finally:
        server.stop()
    assert cluster.returncode == 0, cluster.log[-3000:]
    assert "simhash/index/errors" not in cluster.stats, cluster.log[-3000:]
    assert cluster.stats["simhash/pages/dropped"] == memory.stats["simhash/pages/dropped"] > 0
    assert cluster.item_paths(server.url) == memory.item_paths(server.url)
    assert cluster.stats["simhash/index/pages/size"] == memory.stats["simhash/index/pages/size"]


def test_an_unreachable_cluster_is_an_index_error_naming_the_url_without_the_password():
    from redisfixture import free_port

    from scrapy_simhash.index.redis import IndexUnavailable

    with pytest.raises(IndexUnavailable) as caught:
        open_index(f"redis+cluster://:secret@127.0.0.1:{free_port()}?prefix=x")
    assert "127.0.0.1" in str(caught.value) and "secret" not in str(caught.value)


def test_a_node_lost_mid_crawl_is_index_unavailable(tmp_path):
    """A cluster of the test's own: one node stops, and the next call says Redis is
    unreachable (the crawl applies SIMHASH_ON_INDEX_ERROR) instead of hanging."""
    from scrapy_simhash.index.redis import IndexUnavailable

    from .clusterfixture import start_cluster_or_skip

    cluster = start_cluster_or_skip(tmp_path)
    try:
        with open_index(f"{cluster.url}?prefix=lost") as index:
            assert index.check_and_add("a", 1) is None
            cluster.nodes[2].stop()
            with pytest.raises(IndexUnavailable, match="unreachable"):
                index.check_and_add("b", 1 << 100)
    finally:
        cluster.stop()
