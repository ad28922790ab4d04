"""Looking into a stored index: opened as it was built, listed, measured, and nothing created."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from scrapy_simhash.index import (
    IndexNotFound,
    Match,
    NamespaceNotFound,
    NearDuplicateIndexError,
    open_index,
    open_stored_index,
    stored_namespaces,
)
from scrapy_simhash.index.layout import bucket_balance
from scrapy_simhash.index.uri import sqlite_uri

ODD_NAME = "run #2 %20 what?.db"


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize(
    ("options", "design"),
    [({}, "mih(6)"),  # the defaults: 128 bits, k = 16
     ({"bits": 64, "max_distance": 3, "tables": "manku"}, "manku(4x4)"),
     ({"bits": 64, "max_distance": 6, "tables": 5}, "mih(3)"),
     ({"bits": 128, "max_distance": 3}, "blocks")],
)
def test_a_stored_sqlite_index_opens_as_it_was_built(tmp_path, options, design):
    path = tmp_path / ODD_NAME
    rng = random.Random(7)
    with open_index(sqlite_uri(path), params={"tokenizer": "words"}, **options) as built:
        items = [(f"k{i}", rng.getrandbits(built.bits)) for i in range(300)]
        built.add_many(items)
        built.put_evidence("k0", b"e")
        expected = (built.bits, built.max_distance, built.layout.signature(), len(built))
    before = listing(tmp_path)
    with open_stored_index(sqlite_uri(path)) as stored:
        assert (stored.bits, stored.max_distance, stored.layout.signature(), len(stored)) == (
            expected
        )
        assert stored.layout.design.startswith(design)
        assert stored.params == {"tokenizer": "words"}
        assert stored.query(items[0][1])[0] == Match("k0", items[0][1], 0)
        assert stored.get_evidence(["k0"]) == [b"e"]
        with pytest.raises(NearDuplicateIndexError, match="read-only"):
            stored.add("new", 1)
    assert listing(tmp_path) == before  # no -wal, -shm or journal left behind


def test_stats_measure_the_buckets_of_what_is_stored(tmp_path):
    rng = random.Random(3)
    items = [(f"k{i}", rng.getrandbits(64)) for i in range(500)]
    with open_index(sqlite_uri(tmp_path / "x.db"), bits=64, max_distance=3) as built:
        built.add_many(items)
        built.remove(*items[0])
    with open_stored_index(sqlite_uri(tmp_path / "x.db")) as stored:
        stats = stored.stats()
        assert (stats["size"], stats["bits"], stats["max_distance"]) == (499, 64, 3)
        assert [row["key_bits"] for row in stats["tables"]] == [16, 16, 16, 16]
        assert all(row["buckets"] > 400 for row in stats["tables"])
        assert stored.stored_words().shape == (499, 1)
    memory = open_index("memory://", bits=64, max_distance=3)
    memory.add_many(items[1:])
    assert memory.stats()["tables"] == stats["tables"]
    assert bucket_balance(memory.layout, memory.stored_words()) == stats["tables"]


def test_nothing_is_created_by_looking(tmp_path):
    missing = tmp_path / "nothing #1.db"
    with pytest.raises(IndexNotFound, match="no such index file"):
        open_stored_index(sqlite_uri(missing))
    with pytest.raises(IndexNotFound):
        stored_namespaces(sqlite_uri(missing))
    with pytest.raises(IndexNotFound, match="in-memory"):
        open_stored_index("sqlite://")
    with pytest.raises(IndexNotFound):
        open_stored_index("memory://")
    assert listing(tmp_path) == []


def test_namespaces_are_listed_and_a_missing_one_named(tmp_path):
    uri = sqlite_uri(tmp_path / "x.db")
    for namespace in ("pages", "items"):
        open_index(uri, namespace=namespace).close()
    assert stored_namespaces(uri) == ["items", "pages"]
    with pytest.raises(NamespaceNotFound) as raised:
        open_stored_index(uri, "nope")
    assert raised.value.namespaces == ["items", "pages"]
    assert str(raised.value) == (
        f"{tmp_path / 'x.db'}: no namespace 'nope' (namespaces: items, pages)"
    )
    assert stored_namespaces(uri) == ["items", "pages"]  # "nope" was not created


def test_files_that_hold_no_index_say_what_they_hold(tmp_path):
    (tmp_path / "text.db").write_bytes(b"not a database at all " * 200)
    with pytest.raises(NearDuplicateIndexError, match=r"text\.db: not an SQLite database"):
        open_stored_index(sqlite_uri(tmp_path / "text.db"))
    with sqlite3.connect(tmp_path / "other.db") as conn:
        conn.execute("CREATE TABLE t (a)")
    conn.close()
    with pytest.raises(IndexNotFound, match=r"other\.db: not a scrapy-simhash SimHash index"):
        open_stored_index(sqlite_uri(tmp_path / "other.db"))


def test_a_damaged_file_is_named(tmp_path):
    path = tmp_path / "crawl.db"
    rng = random.Random(5)
    with open_index(sqlite_uri(path), bits=64, max_distance=3) as index:
        index.add_many((f"https://example.com/page/{i}", rng.getrandbits(64))
                       for i in range(20_000))
    data = bytearray(path.read_bytes())
    middle = len(data) // 2 // 4096 * 4096
    data[middle : middle + 4 * 4096] = random.Random(1).randbytes(4 * 4096)
    path.write_bytes(data)
    with pytest.raises(NearDuplicateIndexError, match=r"crawl\.db: the SQLite file is damaged"):
        open_stored_index(sqlite_uri(path))


def test_a_locked_file_says_so(tmp_path):
    path = tmp_path / "x.db"
    open_index(sqlite_uri(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(NearDuplicateIndexError, match=r"x\.db: locked by another process"):
            open_stored_index(sqlite_uri(path), timeout=0.1)
    finally:
        holder.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and writes whatever the mode bits say")
def test_a_stored_index_in_a_read_only_folder_is_readable(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    with open_index(sqlite_uri(folder / "x.db"), bits=64, max_distance=3) as index:
        index.add("a", 5)
    folder.chmod(0o555)
    try:
        with open_stored_index(sqlite_uri(folder / "x.db")) as stored:
            assert stored.query(5) == [Match("a", 5, 0)]
        assert listing(folder) == ["x.db"]
    finally:
        folder.chmod(0o755)
