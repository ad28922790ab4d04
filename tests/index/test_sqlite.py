"""The SQLite backend: persistence, parameters, transactions, other writers and crashes."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from scrapy_simhash.index import IndexParameterMismatch, Match, SqliteIndex, open_index
from scrapy_simhash.index import sqlite as sqlite_module
from scrapy_simhash.index.sqlite import key_expression, to_signed, to_unsigned

from .racing import open_at_once


@pytest.fixture
def db_uri(tmp_path):
    return f"sqlite:///{tmp_path / 'crawl.db'}"


def test_a_second_run_knows_the_first_runs_pages(db_uri):
    top_bit = (1 << 63) | 12345  # stored as a negative SQLite INTEGER
    with open_index(db_uri) as first:
        first.add("https://a.example/1", top_bit)
        first.add("https://a.example/2", 99 << 30)
    with open_index(db_uri) as second:
        assert len(second) == 2
        assert second.check_and_add("again", top_bit ^ 1) == Match(
            "https://a.example/1", top_bit, 1
        )


@pytest.mark.parametrize("cache", [True, False])
def test_128_bit_index_persists(tmp_path, cache):
    uri = f"sqlite:///{tmp_path / 'wide.db'}"
    big = (1 << 127) | (1 << 63) | 7
    with open_index(uri, bits=128) as index:
        index.add("wide", big)
    with open_index(uri, bits=128, cache=cache) as index:
        assert index.query(big ^ (1 << 90)) == [Match("wide", big, 1)]


@pytest.mark.parametrize(
    ("changed", "name", "values"),
    [({"bits": 128}, "bits", (64, 128)), ({"max_distance": 4}, "max_distance", (3, 4)),
     ({"tables": "manku"}, "layout", None),  # two layout descriptions
     ({"params": {"tokenizer": "jieba", "ngram": 3}}, "param.ngram", (2, 3))],
)
def test_other_parameters_are_a_clear_error_naming_both_values(
    db_uri, tmp_path, changed, name, values
):
    with open_index(db_uri, bits=64, max_distance=3,
                    params={"tokenizer": "jieba", "ngram": 2}) as index:
        index.add("k", 1)
    arguments = {"bits": 64, "max_distance": 3, "params": {"tokenizer": "jieba", "ngram": 2},
                 **changed}
    with pytest.raises(IndexParameterMismatch) as raised:
        open_index(db_uri, **arguments)
    message = str(raised.value)
    assert name in raised.value.differences  # (with bits or k, the layout differs too)
    stored, requested = raised.value.differences[name]
    assert stored != requested and (values is None or (stored, requested) == values)
    assert str(tmp_path / "crawl.db") in message
    assert f"{name}: stored {stored!r}, requested {requested!r}" in message


def test_params_none_accepts_the_stored_settings(db_uri):
    with open_index(db_uri, params={"weights": "tf"}):
        pass
    with open_index(db_uri) as index:
        assert index.params == {"weights": "tf"}


def test_namespaces_are_separate_tables_with_their_own_parameters(db_uri):
    with open_index(db_uri, namespace="pages") as pages, \
            open_index(db_uri, namespace="items", bits=128, max_distance=5) as items:
        pages.add("page", 42)
        items.add("item", 42)
        items.add("item2", 43 << 70)
        assert (len(pages), len(items)) == (1, 2)
    with open_index(db_uri, namespace="items", bits=128, max_distance=5) as items:
        assert len(items) == 2
    with pytest.raises(IndexParameterMismatch):
        open_index(db_uri, namespace="items")


def test_wal_mode_and_batched_commits(tmp_path):
    path = tmp_path / "batched.db"
    index = SqliteIndex(path, commit_every=3, commit_interval=3600)
    reader = sqlite3.connect(path)

    def committed() -> int:
        return reader.execute("SELECT count(*) FROM simhash_pages").fetchone()[0]

    assert index._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    index.add("a", 1 << 10)
    index.add("b", 1 << 30)
    assert committed() == 0  # still in the open transaction
    index.add("c", 1 << 50)
    assert committed() == 3  # commit_every reached
    index.add("d", 1 << 60)
    index.flush()
    assert committed() == 4
    index.add_many((f"e{i}", (i + 1) << 20) for i in range(7))
    index.close()
    assert committed() == 11
    reader.close()


@pytest.mark.parametrize("cache", [True, False])
def test_rollback_discards_what_is_not_committed(db_uri, cache):
    far = (1 << 64) - 1  # 63 bits from the kept fingerprint
    index = open_index(db_uri, cache=cache, commit_every=1000, commit_interval=3600)
    index.add("kept", 1 << 10)
    index.flush()
    index.add("undone", far)
    assert index.query(far) == [Match("undone", far, 0)]
    index.rollback()
    assert (len(index), index.query(far)) == (1, [])
    assert index.check_and_add("again", far) is None  # the connection writes on
    index.close()
    with open_index(db_uri) as reopened:
        assert [m.key for m in reopened.query(1 << 10) + reopened.query(far)] == ["kept", "again"]


def test_commit_interval_zero_commits_every_add(tmp_path):
    path = tmp_path / "eager.db"
    index = SqliteIndex(path, commit_every=1000, commit_interval=0)
    index.add("a", 1)
    reader = sqlite3.connect(path)
    assert reader.execute("SELECT count(*) FROM simhash_pages").fetchone()[0] == 1
    reader.close()
    index.close()


@pytest.mark.parametrize("cache", [True, False])
def test_two_objects_on_one_file_share_a_connection_and_see_each_other(db_uri, cache):
    rng = random.Random(8)
    writer = open_index(db_uri, commit_every=10**6, commit_interval=3600)
    reader = open_index(db_uri, cache=cache)
    items = open_index(db_uri, namespace="items")  # no lock wait: same connection
    mine = rng.getrandbits(64)
    reader.add("reader-page", mine)
    items.add("item", mine)
    theirs = [rng.getrandbits(64) for _ in range(50)]
    writer.add_many((f"w{i}", fp) for i, fp in enumerate(theirs))
    assert writer.query(mine ^ 1) == [Match("reader-page", mine, 1)]
    assert len(reader) == 51
    assert reader.check_and_add("again", theirs[17] ^ 0b111) == Match("w17", theirs[17], 3)
    assert writer.check_and_add("w-again", mine ^ 0b11) == Match("reader-page", mine, 2)
    for index in (writer, reader, items):
        index.close()


WRITER = textwrap.dedent(
    """
    import random, sys
    from scrapy_simhash.index import open_index
    rng = random.Random(int(sys.argv[2]))
    with open_index(sys.argv[1]) as index:
        index.add_many((f"{sys.argv[2]}-{i}", rng.getrandbits(64)) for i in range(300))
    """
)


@pytest.mark.parametrize("cache", [True, False])
def test_another_processes_commits_are_seen(db_uri, cache):
    with open_index(db_uri, cache=cache, commit_interval=0) as index:
        index.add("mine", 12345)
        for seed in (1, 2):
            subprocess.run([sys.executable, "-c", WRITER, db_uri, str(seed)], check=True)
            rng = random.Random(seed)
            theirs = [rng.getrandbits(64) for _ in range(300)]
            assert len(index) == 1 + 300 * seed
            assert index.query(theirs[-1] ^ 1) == [Match(f"{seed}-299", theirs[-1], 1)]
        assert index.check_and_add("dup", theirs[0]) == Match("2-0", theirs[0], 0)
        index.add("mine-2", 67890)  # ids continue after the other process's rows
        assert index.query(67890)[0].key == "mine-2"


def test_sql_key_expressions_equal_the_layout_keys():
    index = SqliteIndex(":memory:", bits=128, tables="manku")
    conn, layout = index._conn, index.layout
    rng = random.Random(9)
    for _ in range(50):
        fp = rng.getrandbits(128)
        lo, hi = to_signed(fp & (2**64 - 1)), to_signed(fp >> 64)
        for table in range(layout.table_count):
            expression = key_expression(layout, table)
            (value,) = conn.execute(f"SELECT {expression} FROM (SELECT ? AS fp, ? AS fp_hi)",
                                    (lo, hi)).fetchone()
            assert to_unsigned(value) == layout.keys(fp)[table]
    index.close()


@pytest.mark.parametrize("limit", [30_000, 300])
def test_sql_reads_probe_every_key_within_each_tables_radius(tmp_path, monkeypatch, limit):
    import scrapy_simhash.index.sqlite as module

    monkeypatch.setattr(module, "_MAX_SQL_PROBES", limit)  # 300: one statement per table
    uri = f"sqlite:///{tmp_path / 'mih.db'}"
    rng = random.Random(10)
    stored = [rng.getrandbits(128) for _ in range(300)]
    with open_index(uri, bits=128, max_distance=16, cache=False) as index:
        assert index.layout.table_count == 6 and not index.layout.exact
        assert (len(index._candidates_sql) == 1) == (limit > 2000)
        plan = " ".join(str(row) for row in index._conn.execute(
            f"EXPLAIN QUERY PLAN {index._candidates_sql[0][0]}",
            [0] * index._candidates_sql[0][0].count("?")))
        assert "USING INDEX simhash_pages_t0" in plan and "SCAN" not in plan
        index.add_many((f"k{i}", fp) for i, fp in enumerate(stored))
        query = stored[42] ^ sum(1 << p for p in range(0, 128, 8))  # 16 bits, 1-2 per table
        assert index.query(query) == [Match("k42", stored[42], 16)]
        assert index.query(stored[7] ^ 3, 1) == []


CHILD = textwrap.dedent(
    """
    import random, sys
    from scrapy_simhash.index import open_index
    index = open_index(sys.argv[1], commit_every=10**9, commit_interval=3600)
    rng = random.Random(1)
    i = 0
    while True:
        index.add(f"page-{i}", rng.getrandbits(64))
        i += 1
        if i % 40 == 0:
            index.flush()
            print(i, flush=True)
    """
)


def test_a_crash_mid_write_loses_nothing_committed(tmp_path):
    path = tmp_path / "crash.db"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, f"sqlite:///{path}"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    committed = 0
    try:
        while committed < 2000:
            line = child.stdout.readline()
            assert line, "the writer died before it was killed"
            committed = int(line)
    finally:
        child.send_signal(signal.SIGKILL)  # mid-write: uncommitted rows are in flight
        child.wait(timeout=30)
        child.stdout.close()
    rng = random.Random(1)
    expected = [rng.getrandbits(64) for _ in range(committed)]
    with open_index(f"sqlite:///{path}") as index:
        assert len(index) >= committed
        assert index._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = index._conn.execute(
            "SELECT key, fp FROM simhash_pages ORDER BY id LIMIT ?", (committed,)
        ).fetchall()
        assert rows == [(f"page-{i}", to_signed(fp)) for i, fp in enumerate(expected)]
        assert index.query(expected[-1])[0].key == f"page-{committed - 1}"


def test_a_namespace_opened_during_anothers_transaction(db_uri):
    pages = open_index(db_uri, commit_every=10**6, commit_interval=3600)
    pages.add("page", 1)  # its transaction stays open
    items = open_index(db_uri, namespace="items")
    items.add("item", 2)
    assert (len(pages), len(items)) == (1, 1)
    items.close()
    pages.close()
    with open_index(db_uri) as again, open_index(db_uri, namespace="items") as items_again:
        assert (len(again), len(items_again)) == (1, 1)


def _open_new_file(path: str) -> None:
    open_index(f"sqlite:///{path}", bits=128, max_distance=16, namespace="pages").close()


def test_processes_creating_one_new_database_at_once_all_open_it(tmp_path):
    """Two crawls started together on a new file: switching it to WAL needs an exclusive lock,
    which SQLite may refuse at once ("database is locked") rather than wait for."""
    outcomes = open_at_once([tmp_path / f"new-{trial}.db" for trial in range(8)], _open_new_file)
    assert outcomes == ["ok"] * len(outcomes)


def test_a_key_sqlite_cannot_store_loses_no_earlier_row(db_uri):
    """A lone surrogate (json.loads gives one for "\\udc80") is refused before the write, so
    the pages already stored in the open transaction, of both namespaces, stay."""
    pages = open_index(db_uri, commit_every=10**6, commit_interval=3600)
    items = open_index(db_uri, namespace="items")
    pages.add("page", 1)
    items.add("item", 2)
    for bad in (lambda: pages.add("https://a.example/\udc80", 3),
                lambda: pages.check_and_add("https://a.example/\udc80", 3),
                lambda: items.add_many([("ok", 4), ("\udc80", 5)])):
        with pytest.raises(UnicodeEncodeError):
            bad()
    assert (len(pages), len(items)) == (1, 1)
    assert pages.query(1)[0].key == "page"
    items.close()
    pages.close()


def test_a_rollback_in_one_namespace_keeps_a_namespace_opened_meanwhile(db_uri):
    pages = open_index(db_uri, commit_every=10**6, commit_interval=3600)
    pages.add("page", 1)  # its transaction stays open
    items = open_index(db_uri, namespace="items")  # commits it, then creates its own tables
    pages.add("page 2", 3)
    pages._shared.rollback()  # that write fails, say
    items.add("item", 2)  # the table is still there
    assert (len(pages), len(items)) == (1, 1)
    items.close()
    pages.close()


RACER = textwrap.dedent("""
    import sys
    from scrapy_simhash.index import open_index
    uri, key, fingerprint = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open_index(uri) as index:
        print("open", flush=True)
        sys.stdin.readline()
        print(index.check_and_add(key, fingerprint), flush=True)
        sys.stdin.readline()  # holds its transaction open until told to close
""")


def test_check_and_add_is_atomic_across_processes(db_uri):
    """Two crawls on one file check near-duplicates at the same moment: one keeps its page, the
    other is told it duplicates it (the second waits for the first one's write lock)."""
    open_index(db_uri).close()
    first, second = (
        subprocess.Popen([sys.executable, "-c", RACER, db_uri, key, str(fingerprint)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for key, fingerprint in (("first", 0xDEADBEEF), ("mirror", 0xDEADBEEF ^ 1))
    )
    try:
        assert first.stdout.readline() == second.stdout.readline() == "open\n"
        first.stdin.write("check\n")
        first.stdin.flush()
        assert first.stdout.readline() == "None\n"  # stored, not yet committed
        second.stdin.write("check\n")
        second.stdin.flush()
        first.stdin.write("close\n")  # commits: the second one gets the lock, and sees it
        first.stdin.flush()
        assert second.stdout.readline().startswith("Match(key='first', ")
        second.stdin.write("close\n")
        second.stdin.flush()
    finally:
        for process in (first, second):
            process.communicate(timeout=30)
    with open_index(db_uri) as index:
        assert len(index) == 1


OPEN_WITHOUT_WRITE_ACCESS = textwrap.dedent("""
    import sys
    from scrapy_simhash.index import NearDuplicateIndexError, open_index
    try:
        index = open_index(sys.argv[1])
    except NearDuplicateIndexError as error:
        print("refused:", error)
    else:
        print("opened", len(index))
        try:
            index.check_and_add("new page", 12345)
        except Exception as error:
            print("write failed:", type(error).__name__, error)
""")


def run_without_write_access(code: str, *args: str) -> str:
    """Run ``code`` in a process that file modes bind: as root, one without capabilities."""
    command = [sys.executable, "-c", code, *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv, so file modes do not apply")
        command = [setpriv, "--bounding-set=-all", "--inh-caps=-all", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("wal", [True, False])
def test_a_read_only_file_is_refused_at_open_naming_it(tmp_path, wal):
    """It used to open, then fail every page with a raw error and reload the whole cache."""
    path = tmp_path / "seen.db"
    with open_index(f"sqlite:///{path}") as index:
        index.add("old page", 1)
    if not wal:  # as left by another tool: a rollback journal
        sqlite3.connect(path, isolation_level=None).execute("PRAGMA journal_mode=DELETE").close()
    path.chmod(0o444)
    try:
        output = run_without_write_access(OPEN_WITHOUT_WRITE_ACCESS, f"sqlite:///{path}")
    finally:
        path.chmod(0o644)
    assert output.startswith(f"refused: SQLite index '{path}' needs write access"), output


@pytest.mark.parametrize("exists", [True, False])
def test_a_read_only_directory_is_refused_at_open_naming_the_file(tmp_path, exists):
    directory = tmp_path / "readonly"
    directory.mkdir()
    path = directory / "seen.db"
    if exists:
        open_index(f"sqlite:///{path}").close()  # closing the last connection drops -wal/-shm
    directory.chmod(0o555)
    try:
        output = run_without_write_access(OPEN_WITHOUT_WRITE_ACCESS, f"sqlite:///{path}")
    finally:
        directory.chmod(0o755)
    assert output.startswith("refused: ") and f"SQLite index '{path}'" in output, output
    assert "writable" in output or "write access" in output, output


@pytest.mark.parametrize("cache", [True, False])
def test_a_failed_first_insert_does_not_reload_the_cache(db_uri, monkeypatch, cache):
    """Nothing was written in the transaction, so there is nothing to forget: no full reload
    (0.26 s a page at 300,000 rows)."""
    index = open_index(db_uri, cache=cache)
    index.add_many((f"old{i}", i << 20) for i in range(50))
    index.flush()
    other = sqlite3.connect(db_uri.removeprefix("sqlite:///"))
    other.execute("CREATE TRIGGER refuse BEFORE INSERT ON simhash_pages "
                  "BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END")
    other.commit()
    reloads = []
    monkeypatch.setattr(SqliteIndex, "_reload", lambda self: reloads.append(self))
    far = (1 << 64) - 1  # near no stored fingerprint
    for write in (lambda: index.check_and_add("new", far), lambda: index.add("new", far),
                  lambda: index.add_many([("new", far)])):
        with pytest.raises(sqlite3.IntegrityError, match="refused by a trigger"):
            write()
    assert reloads == []
    assert (len(index), index.query(far), index.query(3 << 20)[0].key) == (50, [], "old3")
    other.close()
    index.close()


def _refuse_key(db_uri: str, key: str, action: str) -> None:
    """A trigger that refuses the row with ``key``: RAISE(ABORT) undoes that statement only,
    RAISE(ROLLBACK) the whole transaction (as SQLite does itself after some errors)."""
    other = sqlite3.connect(db_uri.removeprefix("sqlite:///"))
    other.execute(f"CREATE TRIGGER refuse_{action} BEFORE INSERT ON simhash_pages "
                  f"WHEN NEW.key = '{key}' BEGIN SELECT RAISE({action}, 'refused'); END")
    other.commit()
    other.close()


# Fingerprints far apart (random 64-bit words), one per key.
FAR = {key: random.Random(key).getrandbits(64) for key in ("old", "a", "b", "c", "d", "e", "f",
                                                             "refused")}


def _stored_keys(db_uri: str) -> set[str]:
    other = sqlite3.connect(db_uri.removeprefix("sqlite:///"))
    keys = {key for (key,) in other.execute("SELECT key FROM simhash_pages")}
    other.close()
    return keys


@pytest.mark.parametrize("cache", [True, False])
def test_a_failed_write_keeps_the_uncommitted_rows_before_it(db_uri, cache):
    """One refused row (a constraint, say) must not take the pages stored just before it, not
    yet committed, with it: the crawl kept those pages and must still know them."""
    with open_index(db_uri, commit_interval=3600, cache=cache) as index:
        index.add("old", FAR["old"])
    _refuse_key(db_uri, "refused", "ABORT")
    index = open_index(db_uri, commit_interval=3600, cache=cache)
    index.add_many([("a", FAR["a"]), ("b", FAR["b"])])
    assert index.check_and_add("c", FAR["c"]) is None  # three rows not yet committed
    with pytest.raises(sqlite3.IntegrityError, match="refused"):
        index.check_and_add("refused", FAR["refused"])
    with pytest.raises(sqlite3.IntegrityError, match="refused"):
        index.add_many([("d", FAR["d"]), ("refused", FAR["refused"]), ("e", FAR["e"])])
    assert len(index) == 4
    assert [index.query(FAR[key])[0].key for key in ("old", "a", "b", "c")] == [
        "old", "a", "b", "c"]
    assert index.query(FAR["d"]) == index.query(FAR["e"]) == []  # none of the refused batch
    index.flush()
    assert _stored_keys(db_uri) == {"old", "a", "b", "c"}
    assert index.check_and_add("f", FAR["f"]) is None  # and writing goes on
    index.close()
    assert _stored_keys(db_uri) == {"old", "a", "b", "c", "f"}


@pytest.mark.parametrize("cache", [True, False])
def test_a_transaction_sqlite_rolled_back_itself_is_forgotten(db_uri, cache, caplog):
    with open_index(db_uri, commit_interval=3600, cache=cache) as index:
        index.add("old", FAR["old"])
    _refuse_key(db_uri, "refused", "ROLLBACK")
    index = open_index(db_uri, commit_interval=3600, cache=cache)
    index.add("a", FAR["a"])
    with pytest.raises(sqlite3.IntegrityError, match="refused"):
        index.check_and_add("refused", FAR["refused"])
    assert "rolled back the open transaction itself (refused); the 1 writes" in caplog.text
    assert (len(index), index.query(FAR["a"]), index.query(FAR["old"])[0].key) == (1, [], "old")
    assert index.check_and_add("f", FAR["f"]) is None
    index.close()
    assert _stored_keys(db_uri) == {"old", "f"}


class CommitFails:
    """The index's connection, whose COMMIT fails as on a full disk: SQLite keeps the
    transaction open (``rolls_back`` False) or rolls it back itself (True)."""

    def __init__(self, conn: sqlite3.Connection, rolls_back: bool) -> None:
        self.conn, self.rolls_back = conn, rolls_back

    def execute(self, sql, *args):
        if sql == "COMMIT":
            if self.rolls_back:
                self.conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.conn, name)


@pytest.mark.parametrize("rolls_back", [False, True])
def test_a_failed_commit_keeps_or_forgets_the_rows_as_sqlite_did(db_uri, rolls_back, caplog):
    index = open_index(db_uri, commit_interval=3600)
    index.add_many([("a", FAR["a"]), ("b", FAR["b"])])
    shared = index._shared
    real, shared.conn = shared.conn, CommitFails(shared.conn, rolls_back)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        index.flush()
    shared.conn = real
    if rolls_back:  # gone from the file: forgotten, and said so
        assert (len(index), index.query(FAR["a"])) == (0, [])
        assert "the 2 writes since the last commit" in caplog.text
    else:  # still in the open transaction: the next commit writes them
        assert [index.query(FAR[key])[0].key for key in "ab"] == ["a", "b"]
        index.flush()
        assert _stored_keys(db_uri) == {"a", "b"}
    index.add("c", FAR["c"])
    index.close()
    assert _stored_keys(db_uri) == ({"c"} if rolls_back else {"a", "b", "c"})


@pytest.mark.parametrize("namespace", ["meta", "META", "Meta"])
def test_the_metadata_tables_name_is_not_a_namespace(db_uri, namespace):
    with pytest.raises(ValueError, match=f"namespace '{namespace}' is reserved .*simhash_meta"):
        open_index(db_uri, namespace=namespace)
    with open_index(db_uri, namespace="metadata") as index:  # only the exact name is taken
        index.add("k", 1)


def test_a_write_that_fails_after_touching_the_cache_reloads_it(db_uri, monkeypatch):
    index = open_index(db_uri)
    index.add_many((f"old{i}", i << 20) for i in range(50))
    index.flush()

    def out_of_memory(block):
        raise MemoryError

    monkeypatch.setattr(index._ids, "extend", out_of_memory)  # after the fingerprint went in
    far = (1 << 64) - 1
    with pytest.raises(MemoryError):
        index.check_and_add("new", far)
    assert (len(index), index.query(far), index.query(3 << 20)[0].key) == (50, [], "old3")
    assert index.check_and_add("new", far) is None
    index.close()


# -- removals and evidence --------------------------------------------------------------------


def _open_elsewhere(monkeypatch, uri: str, **options) -> SqliteIndex:
    """An index on a connection of its own, as another process would have."""
    with monkeypatch.context() as patch:
        patch.setattr(sqlite_module, "_CONNECTIONS", {})
        return open_index(uri, **options)


@pytest.mark.parametrize("cache", [True, False])
def test_removals_and_evidence_persist_across_close_and_reopen(db_uri, cache):
    with open_index(db_uri, cache=cache, commit_every=1000, commit_interval=3600) as index:
        index.add_many([("a", FAR["a"]), ("b", FAR["b"]), ("c", FAR["c"])])
        index.put_evidence("a", b"ea")
        index.put_evidence("b", b"eb")
        assert index.remove("a", FAR["a"])
    with open_index(db_uri, cache=cache) as reopened:
        assert len(reopened) == 2
        assert reopened.query(FAR["a"]) == []
        assert reopened.get_evidence(["a", "b", "c"]) == [None, b"eb", None]
        assert reopened.remove("b", FAR["b"]) and not reopened.remove("a", FAR["a"])
    assert _stored_keys(db_uri) == {"c"}


def test_evidence_is_committed_with_the_adds(db_uri):
    index = open_index(db_uri, commit_every=3, commit_interval=3600)
    reader = sqlite3.connect(db_uri.removeprefix("sqlite:///"))

    def committed() -> tuple[int, int]:
        rows = reader.execute("SELECT count(*) FROM simhash_pages").fetchone()[0]
        evidence = reader.execute('SELECT count(*) FROM "simhash_pages:evidence"').fetchone()[0]
        return rows, evidence

    index.add("a", FAR["a"])
    index.put_evidence("a", b"ea")
    assert committed() == (0, 0)  # one transaction, not yet committed
    assert index.get_evidence(["a"]) == [b"ea"]  # but seen by the writer
    index.put_evidence("b", b"eb")  # the third write: the batch commits
    assert committed() == (1, 2)
    index.put_evidence("c", b"ec")
    index.flush()
    assert committed() == (1, 3)
    reader.close()
    index.close()


@pytest.mark.parametrize("cache", [True, False])
def test_rollback_undoes_removals_and_evidence(db_uri, cache):
    index = open_index(db_uri, cache=cache, commit_every=1000, commit_interval=3600)
    index.add_many([("a", FAR["a"]), ("b", FAR["b"])])
    index.put_evidence("a", b"ea")
    index.flush()
    assert index.remove("a", FAR["a"])
    index.put_evidence("b", b"eb")
    assert (len(index), index.query(FAR["a"])) == (1, [])
    index.rollback()
    assert len(index) == 2
    assert index.query(FAR["a"]) == [Match("a", FAR["a"], 0)]
    assert index.get_evidence(["a", "b"]) == [b"ea", None]
    index.close()


@pytest.mark.parametrize("cache", [True, False])
def test_another_connections_removals_reach_this_ones_reads(db_uri, cache, monkeypatch):
    rng = random.Random(31)
    pages = [(f"p{i}", rng.getrandbits(64)) for i in range(40)]
    with open_index(db_uri) as setup:
        setup.add_many(pages)
    reader = open_index(db_uri, cache=cache, commit_interval=0)
    assert len(reader) == 40
    writer = _open_elsewhere(monkeypatch, db_uri, commit_interval=0)
    assert writer._conn is not reader._conn
    assert writer.remove(*pages[5]) and writer.remove(*pages[39])  # 39: the largest id
    writer.add("late", FAR["d"])  # an id above the removed largest one
    writer.add("gone", FAR["e"])
    assert writer.remove("gone", FAR["e"])  # added and removed between two reads of the reader
    assert len(reader) == 39
    assert reader.query(pages[5][1]) == [] and reader.query(pages[39][1]) == []
    assert reader.query(FAR["d"]) == [Match("late", FAR["d"], 0)]
    assert reader.query(FAR["e"]) == []
    assert reader.query(pages[6][1]) == [Match(*pages[6], 0)]
    assert reader.check_and_add("again", pages[5][1]) is None  # stored again, then seen there
    assert writer.query(pages[5][1]) == [Match("again", pages[5][1], 0)]
    assert len(writer) == len(reader) == 40
    writer.close()
    reader.close()
    with open_index(db_uri) as reopened:
        assert len(reopened) == 40


@pytest.mark.parametrize("cache", [True, False])
def test_objects_on_one_file_see_each_others_removals(db_uri, cache):
    writer = open_index(db_uri, commit_every=10**6, commit_interval=3600)
    reader = open_index(db_uri, cache=cache)
    writer.add_many([("a", FAR["a"]), ("b", FAR["b"])])
    assert len(reader) == 2
    assert writer.remove("a", FAR["a"])
    assert (len(reader), reader.query(FAR["a"])) == (1, [])
    assert reader.remove("b", FAR["b"])
    assert (len(writer), writer.query(FAR["b"])) == (0, [])
    for index in (writer, reader):
        index.close()


def test_a_removed_largest_id_is_never_handed_out_again(db_uri):
    with open_index(db_uri) as index:
        index.add_many([("a", FAR["a"]), ("b", FAR["b"])])
        assert index.remove("b", FAR["b"])
    with open_index(db_uri) as reopened:  # a fresh load: the rows end at id 1
        reopened.add("c", FAR["c"])
    reader = sqlite3.connect(db_uri.removeprefix("sqlite:///"))
    rows = reader.execute("SELECT id, key FROM simhash_pages ORDER BY id").fetchall()
    logged = reader.execute('SELECT id FROM "simhash_pages:removed"').fetchall()
    reader.close()
    assert (rows, logged) == ([(1, "a"), (3, "c")], [(2,)])


def test_a_file_from_before_evidence_gains_its_tables_on_open(db_uri):
    with open_index(db_uri) as index:
        index.add("a", FAR["a"])
    older = sqlite3.connect(db_uri.removeprefix("sqlite:///"))
    older.execute('DROP TABLE "simhash_pages:evidence"')
    older.execute('DROP TABLE "simhash_pages:removed"')
    older.commit()
    older.close()
    with open_index(db_uri) as reopened:
        assert reopened.get_evidence(["a"]) == [None]
        reopened.put_evidence("a", b"ea")
        assert reopened.remove("a", FAR["a"])
        assert len(reopened) == 0


def test_a_namespace_ending_like_a_side_table_is_its_own(db_uri):
    with open_index(db_uri) as pages, open_index(db_uri, namespace="pages_evidence") as other:
        pages.put_evidence("k", b"pages")
        other.add("k", 1)
        other.put_evidence("k", b"other")
        assert (pages.get_evidence(["k"]), other.get_evidence(["k"])) == ([b"pages"], [b"other"])
        assert len(pages) == 0


def test_a_namespace_differing_from_a_stored_one_only_in_case_is_refused(db_uri):
    with open_index(db_uri, namespace="pages") as index:
        index.add("k", 1)
    with pytest.raises(ValueError, match=r"'PAGES' differs from the namespace 'pages' .* in case"):
        open_index(db_uri, namespace="PAGES")
    with open_index(db_uri, namespace="pages") as index:  # the stored one still opens
        assert len(index) == 1


def test_a_bulk_load_leaves_the_cache_one_run_on_write_and_on_reopen(tmp_path, monkeypatch):
    """add_many and the load at open seal their rows once (not block by block into levels),
    and the answers are the brute-force ones."""
    monkeypatch.setattr(sqlite_module, "_LOAD_CHUNK", 700)  # the load reads several blocks
    path = tmp_path / "bulk.db"
    rng = random.Random(41)
    stored = [rng.getrandbits(128) for _ in range(6000)]
    index = SqliteIndex(str(path), commit_every=1000, buffer_size=64)
    index.add_many((f"k{n}", fp) for n, fp in enumerate(stored))
    assert index.engine.run_count == 1 and index.engine.buffered == 0
    index.close()
    reopened = SqliteIndex(str(path), buffer_size=64)
    assert reopened.engine.run_count == 1 and len(reopened) == 6000
    queries = [stored[n] ^ (1 << (n % 128)) ^ (1 << ((n * 7) % 128)) for n in range(0, 6000, 150)]
    for query in queries:
        expected = sorted((f"k{n}", (query ^ fp).bit_count()) for n, fp in enumerate(stored)
                          if (query ^ fp).bit_count() <= 16)
        assert sorted((m.key, m.distance) for m in reopened.query(query)) == expected
    reopened.close()
