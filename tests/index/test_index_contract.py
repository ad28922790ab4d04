"""Every backend against brute force, and the protocol every backend shares."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.index import (
    IndexParameterMismatch,
    Match,
    NearDuplicateIndex,
    NearDuplicateIndexError,
    open_index,
)
from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

LOCAL_BACKENDS = ["memory", "sqlite-cache", "sqlite-sql", "sqlite-file"]
#: ``redis``: a real redis-server on loopback (tests/redisfixture.py), a key prefix per test
BACKENDS = [*LOCAL_BACKENDS, "redis"]
_redis_url: list[str] = []


@pytest.fixture(autouse=True)
def _redis_of_the_test(request):
    """The Redis URI of a test run with ``backend="redis"`` (a skip, or a failure under
    SIMHASH_REQUIRE_REDIS=1, without redis-server)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") == "redis":
        _redis_url.append(request.getfixturevalue("redis_url"))
    yield
    _redis_url.clear()


def make_index(backend: str, tmp_path: Path, **kwargs) -> NearDuplicateIndex:
    if backend == "redis":
        return open_index(_redis_url[-1], **kwargs)
    if backend == "memory":
        return open_index("memory://", buffer_size=32, **kwargs)
    if backend == "sqlite-cache":
        return open_index("sqlite://", buffer_size=32, commit_every=50, **kwargs)
    if backend == "sqlite-sql":
        return open_index("sqlite://?cache=false", **kwargs)
    return open_index(f"sqlite:///{tmp_path / 'index.db'}", commit_every=7, **kwargs)


def brute_force(stored: list[tuple[str, int]], query: int, radius: int) -> list[tuple]:
    hits = [
        ((query ^ fp).bit_count(), rank, key, fp)
        for rank, (key, fp) in enumerate(stored)
        if (query ^ fp).bit_count() <= radius
    ]
    return [(key, fp, distance) for distance, _, key, fp in sorted(hits)]


def flip(rng: random.Random, fp: int, bits: int, count: int) -> int:
    for position in rng.sample(range(bits), count):
        fp ^= 1 << position
    return fp


def planted_fingerprints(rng: random.Random, bits: int, k: int, count: int) -> list[int]:
    """Random fingerprints, half of them planted at distance 0..k+1 from an earlier one."""
    out: list[int] = []
    for _ in range(count):
        if out and rng.random() < 0.5:
            out.append(flip(rng, rng.choice(out), bits, rng.randint(0, k + 1)))
        else:
            out.append(rng.getrandbits(bits))
    return out


def as_tuples(matches: list[Match]) -> list[tuple]:
    return [(m.key, m.fingerprint, m.distance) for m in matches]


def assert_agrees_with_brute_force(
    index, rng: random.Random, bits: int, k: int, *, stored: int, planted: int, other: int,
    single: int | None = None,
) -> tuple[list[tuple[str, int]], list[int]]:
    """Store planted neighbours (half one by one, half batched), then check single and batched
    queries at distances 0..k+1, random ones and exact ones against a brute-force scan.
    ``single`` limits how many queries also go through ``query`` (all by default).
    Returns the stored (key, fingerprint) items and the queries, for further checks."""
    fingerprints = planted_fingerprints(rng, bits, k, stored)
    items = [(f"page-{i}", fp) for i, fp in enumerate(fingerprints)]
    half = len(items) // 2
    for key, fp in items[:half]:
        index.add(key, fp)
    index.add_many(items[half:])
    assert len(index) == len(items)
    queries = [flip(rng, rng.choice(fingerprints), bits, rng.randint(0, k + 1))
               for _ in range(planted)]
    queries += [rng.getrandbits(bits) for _ in range(other)] + fingerprints[:other]
    for query in queries[:single]:
        assert as_tuples(index.query(query)) == brute_force(items, query, k)
    batched = index.query_many(queries)
    assert [as_tuples(m) for m in batched] == [brute_force(items, q, k) for q in queries]
    return items, queries


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("bits", "k", "tables"),
    [(64, 3, None), (64, 3, "manku"), (64, 6, None), (128, 3, None), (128, 10, "manku"),
     (64, 1, None), (128, 16, None), (128, 10, None), (64, 8, None), (64, 6, 7)],
)
def test_every_backend_returns_exactly_the_brute_force_answer(backend, bits, k, tables, tmp_path):
    rng = random.Random(f"{backend}-{bits}-{k}-{tables}")
    with make_index(backend, tmp_path, bits=bits, max_distance=k, tables=tables) as index:
        stored, queries = assert_agrees_with_brute_force(
            index, rng, bits, k, stored=600, planted=120, other=20
        )
        smaller = max(0, k - 1)
        for query in queries[:30]:
            assert as_tuples(index.query(query, smaller)) == brute_force(stored, query, smaller)


def spread_over_tables(rng: random.Random, fp: int, layout, flips: int) -> int:
    """Flip ``flips`` bits, r_i + 1 in each table in turn (the multi-index worst case)."""
    order = list(range(layout.table_count))
    rng.shuffle(order)
    positions = []
    for table in order:
        bits = [seg.start + i for seg in layout.tables[table] for i in range(seg.width)]
        positions += rng.sample(bits, min(len(bits), layout.radii[table] + 1))
    for position in positions[:flips]:
        fp ^= 1 << position
    return fp


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 8), (64, 6)])
def test_neighbours_spread_adversarially_over_the_tables_are_exact(backend, bits, k, tmp_path):
    rng = random.Random(f"spread-{backend}-{bits}-{k}")
    with make_index(backend, tmp_path, bits=bits, max_distance=k) as index:
        assert not index.layout.exact
        base = [rng.getrandbits(bits) for _ in range(150)]
        stored = [(f"b{i}", fp) for i, fp in enumerate(base)]
        stored += [(f"n{i}", spread_over_tables(rng, fp, index.layout, rng.randint(k - 2, k + 1)))
                   for i, fp in enumerate(base[:100])]
        index.add_many(stored[:200])
        for key, fp in stored[200:]:
            index.add(key, fp)  # some rows stay in the unsorted buffer
        queries = [spread_over_tables(rng, fp, index.layout, k if i < 40 else k + 1)
                   for i, fp in enumerate(base[:60])]
        expected = [brute_force(stored, q, k) for q in queries]
        assert [as_tuples(index.query(q)) for q in queries] == expected
        assert [as_tuples(m) for m in index.query_many(queries)] == expected
        assert all(expected[:40])  # every query at distance k has its base fingerprint


@pytest.mark.parametrize("backend", BACKENDS)
def test_check_and_add_returns_nearest_then_earliest_or_stores(backend, tmp_path):
    with make_index(backend, tmp_path, bits=64, max_distance=3) as index:
        assert index.check_and_add("a", 0b1111) is None
        assert index.check_and_add("b", 0b0011) == Match("a", 0b1111, 2)
        assert len(index) == 1  # "b" matched "a" and was not stored
        assert index.check_and_add("far", (1 << 63) | (1 << 40) | (1 << 20) | 1 << 5) is None
        index.add("c", 0b0111)  # distance 1 from the query below, stored after "a"
        index.add("d", 0b1110)  # distance 1 too, stored later
        match = index.check_and_add("e", 0b0110)
        assert match == Match(key="c", fingerprint=0b0111, distance=1)
        assert len(index) == 4
        assert [m.key for m in index.query(0b0110)] == ["c", "d", "a"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_own_uncommitted_writes_are_seen_immediately(backend, tmp_path):
    rng = random.Random(5)
    pages = [rng.getrandbits(64) for _ in range(100)]
    with make_index(backend, tmp_path) as index:
        for i, fp in enumerate(pages):
            assert index.check_and_add(f"k{i}", fp) is None
        assert index.check_and_add("dup", pages[-1] ^ 1) == Match("k99", pages[-1], 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_invalid_input_is_rejected(backend, tmp_path):
    with make_index(backend, tmp_path, bits=64, max_distance=3) as index:
        with pytest.raises(ValueError, match="2\\*\\*64"):
            index.add("k", 1 << 64)
        with pytest.raises(ValueError):
            index.query(-1)
        with pytest.raises(TypeError):
            index.add("k", 1.5)
        with pytest.raises(TypeError):
            index.add(b"k", 1)
        with pytest.raises(ValueError, match="max_distance"):
            index.query(1, max_distance=4)
        assert len(index) == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_close_is_idempotent_and_final(backend, tmp_path):
    index = make_index(backend, tmp_path)
    with index:
        index.add("k", 1)
    assert index.closed
    index.close()
    with pytest.raises(NearDuplicateIndexError):
        index.query(1)


@pytest.mark.parametrize("backend", ["memory", "sqlite-cache", "sqlite-sql"])
def test_a_hot_bucket_stays_exact(backend, tmp_path):
    """Thousands of fingerprints share one block: nothing is truncated or missed."""
    rng = random.Random(3)
    hot = [(f"hot-{i}", rng.getrandbits(48) << 16) for i in range(3000)]  # low block all zero
    with make_index(backend, tmp_path, bits=64, max_distance=3) as index:
        index.add_many(hot)
        for _ in range(20):
            query = flip(rng, rng.choice(hot)[1], 64, 3)
            assert as_tuples(index.query(query)) == brute_force(hot, query, 3)


@settings(max_examples=40, deadline=None)
@given(
    base=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
    flips=st.lists(st.sets(st.integers(0, 63), max_size=5), min_size=1, max_size=40),
)
def test_memory_index_matches_brute_force_on_generated_cases(base, flips):
    stored = [(f"b{i}", fp) for i, fp in enumerate(base)]
    for i, bits in enumerate(flips):
        fp = base[i % len(base)]
        for b in bits:
            fp ^= 1 << b
        stored.append((f"f{i}", fp))
    with open_index("memory://", bits=64, max_distance=3, buffer_size=8) as index:
        index.add_many(stored)
        for _, fp in stored[:: max(1, len(stored) // 10)]:
            query = fp ^ 0b101
            assert as_tuples(index.query(query)) == brute_force(stored, query, 3)


# -- open_index -------------------------------------------------------------------------------


class CustomIndex:
    """A user's own index class, built from keyword arguments."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs


def test_dotted_path_builds_the_users_class_with_the_same_arguments():
    index = open_index(f"{__name__}.CustomIndex?flavour=x", max_distance=2, params={"a": 1})
    assert isinstance(index, CustomIndex)
    assert index.kwargs == {"bits": DEFAULT_BITS, "max_distance": 2, "namespace": "pages",
                            "tables": None, "params": {"a": 1}, "flavour": "x"}


def test_sqlite_uri_follows_the_sqlalchemy_convention(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_index("sqlite:///relative.db") as index:
        index.add("k", 1)
    assert (tmp_path / "relative.db").exists()
    absolute = tmp_path / "sub" / "abs.db"
    absolute.parent.mkdir()
    with open_index(f"sqlite:///{absolute}") as index:  # "sqlite:////abs/path" (four slashes)
        assert index.path == str(absolute)


def test_query_string_options_are_converted_and_keywords_win():
    index = open_index("sqlite://?commit_every=25&commit_interval=0.5&cache=false",
                       commit_interval=2)
    assert (index.commit_every, index.commit_interval, index.engine) == (25, 2.0, None)
    index.close()
    memory = open_index("memory://?tables=manku&buffer_size=16&bits=64&max_distance=3")
    assert memory.layout.table_count == 16 and memory.engine.buffer_size == 16


@pytest.mark.parametrize("uri", ["memory://?max_distance=5&bits=128&tables=manku",
                                 "sqlite://?max_distance=5&bits=128&tables=manku",
                                 f"{__name__}.CustomIndex?max_distance=5&bits=128&tables=manku"])
def test_a_layout_setting_in_both_places_must_agree(uri):
    """The crawl passes SIMHASH_BITS and SIMHASH_MAX_DISTANCE: ?bits= in SIMHASH_INDEX_URI either
    says the same or stops the crawl, and is never silently overridden."""
    for conflict in ({"bits": 64}, {"max_distance": 3}, {"tables": "auto"}):
        name = next(iter(conflict))
        with pytest.raises(ValueError, match=f"sets {name}=.* is asked for"):
            open_index(uri, **conflict)
    index = open_index(uri, bits=128, max_distance=5, tables="manku")
    arguments = getattr(index, "kwargs", None) or vars(index)
    assert (arguments["bits"], arguments["max_distance"]) == (128, 5)
    getattr(index, "close", lambda: None)()


def test_the_query_string_sets_the_layout_when_no_keyword_does():
    with open_index("sqlite://?max_distance=5&bits=128&tables=manku") as index:
        assert (index.bits, index.max_distance, index.layout.design) == (128, 5, "manku(6x6)")
    assert open_index("memory://?bits=64&max_distance=3").layout.describe() == (
        "blocks: 4 tables, 16-bit keys"
    )


@pytest.mark.parametrize("uri", ["memory://", "sqlite://"])
def test_an_index_without_bits_or_k_takes_the_fingerprinters_defaults(uri):
    """A default Fingerprinter's fingerprints go into a default index."""
    fingerprinter = Fingerprinter()
    text = " ".join(f"word{i}" for i in range(40))
    fingerprint = fingerprinter.fingerprint_text(text)
    with open_index(uri) as index:
        assert (index.bits, index.max_distance) == (fingerprinter.bits, fingerprinter.max_distance)
        assert (index.bits, index.max_distance) == (DEFAULT_BITS, DEFAULT_MAX_DISTANCE) == (128, 16)
        assert index.check_and_add("a", fingerprint) is None
        near = fingerprint ^ 0b1011  # three bits away
        assert index.check_and_add("b", near) == Match("a", fingerprint, 3)


@pytest.mark.parametrize("name", ["namespace", "params"])
@pytest.mark.parametrize("uri", ["memory://", "sqlite://", f"{__name__}.CustomIndex"])
def test_namespace_and_params_are_refused_in_the_query_string(uri, name):
    """SIMHASH_INDEX_URI="sqlite:///x.db?namespace=foo" would put pages and items together."""
    with pytest.raises(ValueError, match=f"may not set '{name}' in its query string .*crawl"):
        open_index(f"{uri}?{name}=foo", namespace="items")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("bits", "k"), [(64, 1), (64, 2), (128, 2)])
def test_one_table_is_refused_at_open(backend, bits, k, tmp_path):
    """A single multi-index hashing table (64-bit keys) broke the memory tables at the 2,048th
    add; it is refused at open, and 2 tables work."""
    with pytest.raises(ValueError, match="tables must be at least 2"):
        make_index(backend, tmp_path, bits=bits, max_distance=k, tables=1)
    rng = random.Random(f"two-tables-{bits}-{k}")
    with make_index(backend, tmp_path, bits=bits, max_distance=k, tables=2) as index:
        assert_agrees_with_brute_force(index, rng, bits, k, stored=2300, planted=60, other=10)


def test_memory_uri_is_fresh_each_time():
    first = open_index("memory://")
    first.add("k", 1)
    assert len(open_index("memory://")) == 0


@pytest.mark.parametrize("uri", ["ftp://host/x", "mongodb://db", "not a uri", "plain"])
def test_unknown_uri_names_the_uri_and_the_allowed_schemes(uri):
    with pytest.raises(ValueError) as raised:
        open_index(uri)
    assert uri in str(raised.value)
    assert "memory://" in str(raised.value) and "sqlite://" in str(raised.value)


def test_a_missing_backend_module_is_a_clear_error(monkeypatch):
    import scrapy_simhash.index as package

    monkeypatch.setitem(package.SCHEMES, "redis", "scrapy_simhash.index.not_written_yet.RedisIndex")
    with pytest.raises(ValueError, match=r"scrapy_simhash\.index\.not_written_yet"):
        open_index("redis://localhost:6379/0")


def test_a_missing_dotted_path_is_a_clear_error():
    with pytest.raises(ValueError, match="no_such_module"):
        open_index("no_such_module.Index")


def test_parameter_mismatch_is_a_value_error():
    assert issubclass(IndexParameterMismatch, ValueError)
    assert issubclass(IndexParameterMismatch, NearDuplicateIndexError)


# -- remove and evidence ----------------------------------------------------------------------


def test_built_in_backends_support_evidence_and_the_base_class_refuses_it(tmp_path):
    for backend in LOCAL_BACKENDS:  # (Redis: test_redis.py)
        with make_index(backend, tmp_path) as index:
            assert index.supports_evidence

    class Minimal(NearDuplicateIndex):
        def add(self, key, fingerprint): ...

        def query(self, fingerprint, max_distance=None): return []

        def __len__(self): return 0

    minimal = Minimal()
    assert not minimal.supports_evidence
    for call in (lambda: minimal.remove("k", 1), lambda: minimal.put_evidence("k", b"e"),
                 lambda: minimal.get_evidence(["k"])):
        with pytest.raises(NotImplementedError):
            call()


def remove_takes_out_one_pair_and_leaves_its_key_and_fingerprint_neighbours(index) -> None:
    fp, other = 0b1011, (1 << 64) - 1
    index.add_many([("a", fp), ("b", fp), ("a", other), ("c", fp ^ 1)])
    assert index.remove("a", fp) is True
    assert as_tuples(index.query(fp)) == [("b", fp, 0), ("c", fp ^ 1, 1)]
    assert as_tuples(index.query(other)) == [("a", other, 0)]  # the key's other pair stays
    assert len(index) == 3
    assert index.remove("a", fp) is False  # gone already
    assert index.remove("b", other) is False  # a stored key, a stored fingerprint, no pair
    assert index.remove("zz", fp) is False
    assert len(index) == 3
    assert index.query_many([fp, other]) == [index.query(fp), index.query(other)]


def remove_takes_every_copy_of_the_pair(index) -> None:
    index.add("a", 7)
    index.add_many([("a", 7), ("b", 7)])
    assert index.remove("a", 7) is True
    assert (len(index), [m.key for m in index.query(7)]) == (1, ["b"])


def check_and_add_stores_a_removed_pages_fingerprint_under_another_key(index) -> None:
    assert index.check_and_add("first", 0xF0F0) is None
    assert index.check_and_add("second", 0xF0F1) == Match("first", 0xF0F0, 1)
    assert index.remove("first", 0xF0F0)
    assert index.check_and_add("second", 0xF0F1) is None
    assert index.check_and_add("third", 0xF0F0) == Match("second", 0xF0F1, 1)
    assert [m.key for m in index.query(0xF0F0)] == ["second"]


def evidence_round_trips_and_the_last_write_wins(index) -> None:
    assert index.get_evidence([]) == []
    assert index.get_evidence(["nobody"]) == [None]
    index.put_evidence("a", b"\x00first\xff" * 8)
    index.put_evidence("b", b"")
    index.put_evidence("\u00e9t\u00e9/\u4e2d", bytearray(b"unicode"))
    index.put_evidence("a", b"longer " * 20)  # grows
    index.put_evidence("b", bytes(range(256)) * 8)  # the largest allowed
    assert index.get_evidence(["a", "missing", "b", "\u00e9t\u00e9/\u4e2d", "a"]) == [
        b"longer " * 20, None, bytes(range(256)) * 8, b"unicode", b"longer " * 20
    ]
    index.put_evidence("a", b"short")  # shrinks
    assert index.get_evidence(["a"]) == [b"short"]
    assert len(index) == 0  # evidence is no fingerprint


def evidence_input_is_checked(index) -> None:
    with pytest.raises(ValueError, match="at most 2048 bytes"):
        index.put_evidence("k", b"x" * 2049)
    with pytest.raises(TypeError, match="bytes"):
        index.put_evidence("k", "text")
    with pytest.raises(TypeError):
        index.put_evidence(b"k", b"e")
    with pytest.raises(TypeError, match="sequence of keys"):
        index.get_evidence("k")
    assert index.get_evidence(["k"]) == [None]


def remove_deletes_the_keys_evidence(index) -> None:
    index.add_many([("a", 1), ("b", 2)])
    index.put_evidence("a", b"ea")
    index.put_evidence("b", b"eb")
    index.put_evidence("c", b"ec")
    assert index.remove("a", 1)
    assert index.get_evidence(["a", "b", "c"]) == [None, b"eb", b"ec"]
    assert not index.remove("c", 3)  # no such pair; the key's evidence goes all the same
    assert index.get_evidence(["a", "b", "c"]) == [None, b"eb", None]
    index.put_evidence("a", b"again")  # a removed key may carry evidence again
    assert index.get_evidence(["a"]) == [b"again"]


#: What every backend with ``supports_evidence`` does; each takes a new, empty 64-bit k = 3 index.
REMOVE_AND_EVIDENCE_CASES = [
    remove_takes_out_one_pair_and_leaves_its_key_and_fingerprint_neighbours,
    remove_takes_every_copy_of_the_pair,
    check_and_add_stores_a_removed_pages_fingerprint_under_another_key,
    evidence_round_trips_and_the_last_write_wins,
    evidence_input_is_checked,
    remove_deletes_the_keys_evidence,
]


@pytest.mark.parametrize("case", REMOVE_AND_EVIDENCE_CASES, ids=lambda case: case.__name__)
@pytest.mark.parametrize("backend", BACKENDS)
def test_remove_and_evidence(backend, case, tmp_path):
    with make_index(backend, tmp_path) as index:
        case(index)


@pytest.mark.parametrize("backend", BACKENDS)
def test_evidence_needs_an_open_index(backend, tmp_path):
    index = make_index(backend, tmp_path)
    index.close()
    for call in (lambda: index.put_evidence("k", b"e"), lambda: index.get_evidence(["k"]),
                 lambda: index.remove("k", 1)):
        with pytest.raises(NearDuplicateIndexError):
            call()


def assert_removals_agree_with_brute_force(index, rng: random.Random, bits: int, k: int) -> None:
    """Remove a third of the pairs (some of them twice, some never stored) between adds: the
    answers stay the brute-force ones over what is left, ids and order included."""
    stored, queries = assert_agrees_with_brute_force(
        index, rng, bits, k, stored=300, planted=40, other=10, single=20
    )
    doomed = rng.sample(stored, 100)
    absent = [(key, fp ^ 1) for key, fp in doomed[:10]] + [("never", doomed[0][1])]
    for step, (key, fp) in enumerate(doomed + absent + doomed[:10]):
        expected = (key, fp) in stored
        assert index.remove(key, fp) is expected
        stored = [pair for pair in stored if pair != (key, fp)]
        if step % 10 == 0:  # interleaved adds go to the buffer, then to new runs
            new = (f"new-{step}", flip(rng, rng.choice(stored)[1], bits, rng.randint(0, k)))
            index.add(*new)
            stored.append(new)
    assert len(index) == len(stored)
    queries += [fp for _, fp in doomed[:20]]
    for query in queries[:40]:
        assert as_tuples(index.query(query)) == brute_force(stored, query, k)
    assert [as_tuples(m) for m in index.query_many(queries)] == [
        brute_force(stored, q, k) for q in queries
    ]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("bits", "k", "tables"), [(64, 3, None), (64, 3, "manku"), (64, 6, None), (128, 16, None)]
)
def test_removals_keep_every_backend_exact(backend, bits, k, tables, tmp_path):
    rng = random.Random(f"remove-{backend}-{bits}-{k}-{tables}")
    with make_index(backend, tmp_path, bits=bits, max_distance=k, tables=tables) as index:
        assert_removals_agree_with_brute_force(index, rng, bits, k)
