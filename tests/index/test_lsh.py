"""The band index (MinHash, KSentence, exact): its SQLite storage's openers racing on one file,
and removals."""

from __future__ import annotations

import sqlite3

import pytest

from scrapy_simhash.detectors import ExactDetector, MinHashDetector, SimHashDetector
from scrapy_simhash.index import IndexParameterMismatch, NearDuplicateIndexError
from scrapy_simhash.index.lsh import (
    DEFAULT_TIMEOUT,
    BandIndex,
    MemoryBandStorage,
    SqliteBandStorage,
    open_band_index,
)

from .racing import open_at_once


def _open_band_index(path: str) -> None:
    MinHashDetector().open_index(f"sqlite:///{path}").close()


@pytest.mark.parametrize("prewal", [False, True])
def test_processes_creating_one_new_band_index_at_once_all_open_it(tmp_path, prewal):
    """Two crawls started together on a new file: the WAL switch may answer "database is
    locked" at once, and both may find no parameters and store them."""
    paths = [tmp_path / f"new-{trial}.db" for trial in range(8)]
    if prewal:  # the switch is done: only the parameters race
        for path in paths:
            sqlite3.connect(path).execute("PRAGMA journal_mode=WAL").connection.close()
    outcomes = open_at_once(paths, _open_band_index)
    assert outcomes == ["ok"] * len(outcomes)


class SecondToStore(SqliteBandStorage):
    """A storage that found no parameters, but another opener stores its own first."""

    def __init__(self, path, first: MinHashDetector) -> None:
        super().__init__(path)
        self.path, self.first = path, first

    def store_params(self, params) -> None:
        open_band_index(f"sqlite:///{self.path}", self.first).close()
        super().store_params(params)


def test_an_opener_that_stores_parameters_second_keeps_the_firsts(tmp_path):
    path = tmp_path / "raced.db"
    same = MinHashDetector(0.5)
    with BandIndex(same, SecondToStore(path, first=MinHashDetector(0.5))) as index:
        assert index.check_and_add("page", same.signature_of_set({"a b c"})) is None
    other = tmp_path / "raced-other.db"
    with pytest.raises(IndexParameterMismatch, match=r"threshold: stored 0\.8, requested 0\.5"):
        BandIndex(same, SecondToStore(other, first=MinHashDetector(0.8)))
    with MinHashDetector(0.8).open_index(f"sqlite:///{other}") as index:
        assert len(index) == 0


def test_the_lock_timeout_is_an_option(tmp_path):
    path = tmp_path / "wait.db"
    waiter = MinHashDetector().open_index(f"sqlite:///{path}?timeout=0.2")
    busy_timeout_ms = waiter.storage._db.execute("PRAGMA busy_timeout").fetchone()[0]
    assert busy_timeout_ms == 200  # SQLite's wait for the lock (sqlite3's default: 5 s)
    holder = sqlite3.connect(path, isolation_level=None)  # another process's connection
    holder.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            waiter.add("other", MinHashDetector().signature_of_set({"d e f"}))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    waiter.close()
    with MinHashDetector().open_index(f"sqlite:///{path}") as default:
        timeout = default.storage._db.execute("PRAGMA busy_timeout").fetchone()[0]
        assert timeout == 1000 * DEFAULT_TIMEOUT


def test_a_refused_band_insert_leaves_no_half_row_and_keeps_the_rows_before_it(tmp_path):
    path = tmp_path / "bands.db"
    storage = SqliteBandStorage(path, commit_every=1000)
    other = sqlite3.connect(path)
    other.execute("CREATE TRIGGER refuse BEFORE INSERT ON lsh_pages_bands WHEN NEW.band = 2 AND "
                  "(SELECT key FROM lsh_pages_rows WHERE id = NEW.row) = 'refused' "
                  "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    other.commit()
    storage.insert("kept", [11, 12, 13], b"k")  # not yet committed
    with pytest.raises(sqlite3.IntegrityError, match="refused"):
        storage.insert("refused", [21, 22, 23], b"r")  # its row and first two bands went in
    assert len(storage) == 1
    assert storage.candidates([21, 22, 23]) == []
    storage.insert("after", [31, 32, 33], b"a")
    storage.flush()
    rows = other.execute("SELECT key FROM lsh_pages_rows ORDER BY id").fetchall()
    bands = other.execute("SELECT count(*) FROM lsh_pages_bands").fetchone()[0]
    assert (rows, bands) == ([("kept",), ("after",)], 6)
    other.close()
    storage.close()


@pytest.mark.parametrize(
    ("uri", "options", "message"),
    [
        ("memory://?namespace=both", {}, "may not set 'namespace'"),
        ("sqlite:///{db}?namespace=both", {}, "may not set 'namespace'"),
        ("sqlite:///{db}?commit_evry=10", {}, "unknown option.*commit_evry.*commit_every"),
        ("sqlite:///{db}", {"tables": "manku"}, r"unknown option.*tables"),  # a SimHash option
        ("memory://", {"commit_every": 10}, "allowed: none"),
    ],
)
def test_the_band_index_refuses_options_it_would_ignore(tmp_path, uri, options, message):
    with pytest.raises(ValueError, match=message):
        open_band_index(uri.format(db=tmp_path / "b.db"), MinHashDetector(), **options)


def test_namespaces_of_one_file_share_the_process_write_lock(tmp_path):
    uri = f"sqlite:///{tmp_path / 'shared.db'}?timeout=0.2"
    detector = MinHashDetector()
    pages = detector.open_index(uri, namespace="pages")
    items = detector.open_index(uri, namespace="items")
    pages.add("page", detector.signature_of_set({"a b c"}))  # opens the write transaction
    items.add("item", detector.signature_of_set({"d e f"}))  # no wait for it: the same one
    assert items.check_and_add("again", detector.signature_of_set({"d e f"})).key == "item"
    pages.close()  # the file stays open for the other namespace
    items.add("later", detector.signature_of_set({"g h i"}))
    items.close()
    with detector.open_index(uri, namespace="items") as reopened:
        assert len(reopened) == 2


def test_a_namespace_holds_one_algorithm(tmp_path):
    uri = f"sqlite:///{tmp_path / 'one.db'}"
    detector = MinHashDetector()
    with detector.open_index(uri) as index:
        index.add("page", detector.signature_of_set({"a b c"}))
    with pytest.raises(IndexParameterMismatch, match="algorithm: stored 'minhash', requested "
                                                     "'simhash'"):
        SimHashDetector().open_index(uri)
    with pytest.raises(IndexParameterMismatch, match="algorithm"):
        ExactDetector().open_index(uri)  # its own parameters differ
    simhash_uri = f"sqlite:///{tmp_path / 'two.db'}"
    SimHashDetector().open_index(simhash_uri).close()
    with pytest.raises(IndexParameterMismatch, match="algorithm: stored 'simhash', requested "
                                                     "'minhash'"):
        detector.open_index(simhash_uri)
    with detector.open_index(simhash_uri, namespace="other") as other:  # another namespace: fine
        assert len(other) == 0


def _shingles(words: str) -> set[str]:
    return {f"{word} {i}" for i, word in enumerate(words.split())}


@pytest.mark.parametrize("storage", ["memory", "sqlite"])
@pytest.mark.parametrize("detector", [ExactDetector(), MinHashDetector()], ids=["exact", "minhash"])
def test_remove_takes_out_one_pair_of_a_band_index(tmp_path, storage, detector):
    uri = "memory://" if storage == "memory" else f"sqlite:///{tmp_path / 'bands.db'}"
    if isinstance(detector, MinHashDetector):
        same = detector.signature_of_set(_shingles("a b c d e f g h i j k l m n o p"))
        other = detector.signature_of_set(_shingles("q r s t u v w x y z"))
    else:
        same, other = 0xABCDEF, 0x123456
    with detector.open_index(uri) as index:
        index.add("a", same)
        index.add_many([("b", same), ("a", other), ("a", same)])
        assert index.remove("a", same) is True  # both copies
        assert [m.key for m in index.query(same)] == ["b"]
        assert [m.key for m in index.query(other)] == ["a"]
        assert len(index) == 2
        assert index.remove("a", same) is False
        assert index.remove("b", other) is False  # a stored key, a stored signature, no pair
        assert index.check_and_add("c", same).key == "b"
        assert index.remove("b", same)
        assert index.check_and_add("c", same) is None
        assert [m.key for m in index.query(same)] == ["c"]
    if storage == "sqlite":
        with detector.open_index(uri) as reopened:
            assert len(reopened) == 2
            assert [m.key for m in reopened.query(same)] == ["c"]
            assert [m.key for m in reopened.query(other)] == ["a"]


def test_a_band_storage_without_remove_is_a_clear_error():
    class AppendOnly(MemoryBandStorage):
        remove = None

    index = BandIndex(ExactDetector(), AppendOnly())
    index.add("a", 1)
    with pytest.raises(NearDuplicateIndexError, match="cannot remove"):
        index.remove("a", 1)


@pytest.mark.parametrize("persistent", [False, True])
def test_evidence_is_kept_beside_the_signatures(tmp_path, persistent):
    uri = f"sqlite:///{tmp_path / 'bands.db'}" if persistent else "memory://"
    detector = MinHashDetector()
    index = detector.open_index(uri)
    assert index.supports_evidence
    index.put_evidence("a", b"first")
    index.put_evidence("a", b"replaced")
    index.put_evidence("b", b"\x00\xff")
    assert index.get_evidence(["b", "missing", "a", "b"]) == [b"\x00\xff", None, b"replaced",
                                                             b"\x00\xff"]
    with pytest.raises(ValueError, match="at most"):
        index.put_evidence("c", b"x" * 5000)
    index.close()
    if persistent:  # it persists as the signatures do
        reopened = detector.open_index(uri)
        assert reopened.get_evidence(["a"]) == [b"replaced"]
        reopened.close()
